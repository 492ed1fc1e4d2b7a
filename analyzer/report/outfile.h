/*
 * outfile: the analyzer writes only into files that are its own: a path
 * that does not exist yet, or a regular file that is neither one of the
 * run's inputs nor a log.  A device, a FIFO, a socket, a directory or a
 * symbolic link is refused, so that a typo as root never turns /dev/sda
 * into a regular file or writes into a FIFO; an input (the same path, or
 * the same device and inode) or a file that begins like a log (a record, a
 * zstd frame, a skippable frame) is refused, so that no output ever
 * replaces a log.  The null device alone is accepted, as the place for what
 * is not wanted (outfile_is_null).  Nothing prints.
 */
#ifndef OUTFILE_H
#define OUTFILE_H

#include <stdio.h>

/* Remembers the run's inputs ("-" is standard input), which no output may
 * be; called once, before any output is checked.  0, or FPM_ENOMEM. */
int outfile_protect(char *const *inputs, int n);
void outfile_unprotect(void);

/* Whether path may be written or replaced by a rename: it does not exist,
 * or is a regular file that is no input and does not begin like a log.
 * 0 yes; -1 with why in err ("is a device, not a regular file: refused",
 * "is an input of this run: refusing to write over a log"). */
int outfile_replaceable(const char *path, char *err, size_t errlen);

/* Whether path is the null device (/dev/null, or a name of it): where a
 * user sends what is not wanted.  It is written as it is, never replaced. */
int outfile_is_null(const char *path);

/* Opens path for writing, created mode 0644 or truncated, only where
 * outfile_replaceable allows it (never through a symbolic link).  NULL
 * with why in err. */
FILE *outfile_open(const char *path, char *err, size_t errlen);

#endif
