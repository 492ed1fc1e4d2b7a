/*
 * notlog: what a file given as a LOG is when its first bytes say it is no
 * log at all (a directory, an empty file, a gzip, xz or bzip2 file), as the
 * sentence replay says, with how to decompress it.  Nothing prints.
 */
#ifndef NOTLOG_H
#define NOTLOG_H

/* "is gzip-compressed, not a log: decompress it first (...)", or NULL when
 * the first bytes say nothing (a log, standard input, unreadable). */
const char *notlog_kind(const char *path);

#endif
