/*
 * timing: fpm-analyze timing, the recorder's clock check (TIMING records)
 * printed the way PostgreSQL's pg_test_timing prints its own: per host and
 * recorder start, the log2 histogram of the differences between successive
 * clock reads, then the exact differences up to a cutoff, always followed by
 * the largest.
 */
#ifndef TIMING_H
#define TIMING_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TIMING_LOG2_MAX  64
#define TIMING_EXACT_MAX 1024  /* exact counts are kept under 1024 ns */

typedef struct {
    uint64_t duration_ns, loops, backwards, largest_ns;
    char     per_loop[24];                 /* as written, "23.80" */
    uint64_t log2[TIMING_LOG2_MAX];        /* 0, then <= 1, 3, 7, ... 2^k-1 ns */
    int      nlog2;
    uint64_t exact[TIMING_EXACT_MAX];      /* count of each difference in ns */
    int      has_largest;
} timing_rec;

/* A TIMING payload; 0, or FPM_EFAIL when it is not a monotonic clock check. */
int timing_parse(const unsigned char *payload, size_t len, timing_rec *t);

/* The two blocks for one record; cutoff in percent (0..100). */
void timing_print(FILE *out, const timing_rec *t, double cutoff);

/* Prints every TIMING record of the logs, headed by its host and start;
 * damage is said (msg.h).  Returns 0, or 2 when a log could not be read or
 * none had one (said). */
int timing_logs(FILE *out, char **logs, int nlogs, double cutoff);

#endif
