/*
 * progress: the replay's progress line on standard error, through msg.h:
 * "prog: LOG: 45.2 of 120.0 MB (38%), 89.1 MB/s, 12000 rounds".
 */
#ifndef PROGRESS_H
#define PROGRESS_H

#include <stdint.h>

/* The monotonic clock, in seconds. */
double progress_now(void);

/* The line for path: done of total bytes (total 0: unknown), at rate
 * bytes a second, rounds so far. */
void progress_show(const char *path, uint64_t done, uint64_t total, double rate, uint64_t rounds);

#endif
