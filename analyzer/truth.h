/*
 * truth: a host's section 9 figures as the outputs print them: per signal
 * the pairs that gave a share and their percentiles; the throttled time;
 * the steal probe's corrected and plain shares.  Shares are in hundredths
 * of a percent.
 */
#ifndef TRUTH_H
#define TRUTH_H

#include <stdint.h>
#include <stdio.h>

#include "pipeline.h"

enum { TR_P10, TR_P50, TR_P90, TR_MAX, TR_NQ };

typedef struct {
    uint64_t pairs[SIG_N];          /* from SIG_FIRST_SHARE on */
    int64_t  pct[SIG_N][TR_NQ];     /* hundredths; -1 with no pair */
    uint64_t throttled_usec;
    uint64_t probes;                /* STEAL records counted; 0: no probe */
    int64_t  probe_pct, probe_naive_pct; /* hundredths, -1 with no probe */
} truth;

void truth_of(const pl_host *h, truth *t);

#endif
