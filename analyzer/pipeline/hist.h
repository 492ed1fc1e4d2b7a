/*
 * hist: the 61-bucket histogram of CPU shares (docs/rules.md section 3).
 * Shares are integer hundredths of a percent; all arithmetic is integer.
 */
#ifndef HIST_H
#define HIST_H

#include <stdint.h>

#define HIST_BUCKETS 61
#define HIST_LIMIT   4096 /* above this many readings every bucket halves ... */
#define HIST_LIMIT_CENSUS (1u << 20) /* ... a censused pool's (20.6) */

#define HIST_BUSY_MAX_SHARE 1000000    /* s is capped here in the busy sums */
#define HIST_BUSY_MAX_MS    1000000000 /* and d here */

typedef struct {
    uint32_t count[HIST_BUCKETS];
    uint32_t total;                /* the pool's reading count, after halving */
    uint64_t busy_w, busy_c;       /* sums of d and of s x d (section 10), halved with it */
    int      us;                   /* d in microseconds, halved past HIST_LIMIT_CENSUS (a
                                      censused pool's, 20.6); else whole ms, HIST_LIMIT */
} hist;

/* The sums' unit per millisecond of d: 1, or 1000 for a censused pool's. */
static inline uint64_t hist_per_ms(const hist *h)
{
    return h->us ? 1000 : 1;
}

/* Every count halved (integer division); their new sum.  The CPU and the
 * memory histograms halve so past 4096 readings (sections 3 and 14.2). */
static inline uint32_t counts_halve(uint32_t *count, int n)
{
    uint32_t sum = 0;
    for (int i = 0; i < n; i++) {
        count[i] /= 2;
        sum += count[i];
    }
    return sum;
}

/* The bucket of a share of s hundredths of a percent (s >= 0). */
int hist_bucket(int64_t s);

/* A bucket's floor, its lowest share, in whole percent. */
int hist_floor_pct(int bucket);

/* Adds one reading of share s that lasted duration_us: its bucket, and to
 * the busy sums W += d, C += s x d (d in whole milliseconds, or in
 * microseconds for a censused pool's; s and d capped; C at most 2^64 - 1).
 * When the count passes its limit every bucket and both sums are halved. */
void hist_add(hist *h, int64_t s, int64_t duration_us);

/* The same, the bucket from `shown` (17.3: a corrected reading is shown at
 * no more than 100% unless php-fpm's own share was above it) and the sums
 * from s. */
void hist_add_shown(hist *h, int64_t shown, int64_t s, int64_t duration_us);

/* 20.6: a pool censused from now: its sums from milliseconds to
 * microseconds (times 1000, at most 2^64 - 1), halved from now on past
 * HIST_LIMIT_CENSUS. */
void hist_to_us(hist *h);

/* The duration-weighted share: C / W in hundredths of a percent, and
 * C / (10 W) in millicores, each rounded half away from zero.  0 with both,
 * -1 when W is 0. */
int hist_busy(const hist *h, int64_t *hundredths, int64_t *millicores);

/* The first bucket whose running count reaches ceil(pct * total / 100) (at
 * least 1); -1 when the histogram is empty.  TYPICAL is pct 50, P90 pct 90. */
int hist_percentile(const hist *h, int pct);

#endif
