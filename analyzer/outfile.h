/*
 * outfile: the analyzer writes only into files that are its own: a path
 * that does not exist yet, or a regular file.  A device, a FIFO, a socket,
 * a directory or a symbolic link is refused, so that a typo as root never
 * turns /dev/sda into a regular file or writes into a FIFO.  Nothing prints.
 */
#ifndef OUTFILE_H
#define OUTFILE_H

#include <stdio.h>

/* Opens path for writing, created mode 0644 or truncated, only where it
 * does not exist or is a regular file (never through a symbolic link).
 * NULL with why in err ("is a device, not a regular file: refused"). */
FILE *outfile_open(const char *path, char *err, size_t errlen);

/* Whether path may be replaced by a rename: it does not exist, or is a
 * regular file.  0 yes; -1 with why in err. */
int outfile_replaceable(const char *path, char *err, size_t errlen);

#endif
