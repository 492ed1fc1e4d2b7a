/*
 * hist: the 61-bucket histogram of CPU shares (pipeline.md section 3).
 * Shares are integer hundredths of a percent; all arithmetic is integer.
 */
#ifndef HIST_H
#define HIST_H

#include <stdint.h>

#define HIST_BUCKETS 61
#define HIST_LIMIT   4096 /* above this many readings every bucket halves */

typedef struct {
    uint32_t count[HIST_BUCKETS];
    uint32_t total;                /* the pool's reading count, after halving */
} hist;

/* The bucket of a share of s hundredths of a percent (s >= 0). */
int hist_bucket(int64_t s);

/* A bucket's floor, its lowest share, in whole percent. */
int hist_floor_pct(int bucket);

/* Adds one reading; halves every bucket when the count passes HIST_LIMIT. */
void hist_add(hist *h, int64_t s);

/* The first bucket whose running count reaches ceil(pct * total / 100) (at
 * least 1); -1 when the histogram is empty.  TYPICAL is pct 50, P90 pct 90. */
int hist_percentile(const hist *h, int pct);

#endif
