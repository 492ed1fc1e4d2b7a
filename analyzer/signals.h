/*
 * signals: the per-round host signals, one table entry each: which record a
 * signal reads, how a round gives its cumulative counter, how a usable pair
 * of rounds turns that counter's growth into a value, and how the value is
 * named in the CSV of rounds and the plots.  busy (section 5: the host's
 * busy CPU, in cores) is the one the pairs are judged by; adding a signal
 * (steal, throttling, pressure, accounting) is adding an entry and, where
 * its record is new, its parser in formats/procfs.
 */
#ifndef SIGNALS_H
#define SIGNALS_H

#include <stdint.h>

#include "records.h"

struct pl_host_s;
struct pl_round_s;

/* A round's cumulative counter of a signal, and the unit it is in. */
typedef struct {
    uint64_t v;
    int      unit;          /* the signal's own: busy has ticks (0) or usage_usec (1) */
} sig_counter;

typedef struct {
    const char *name;       /* "busy" */
    rec_type    record;     /* the record it reads */
    const char *csv;        /* its column in the CSV of rounds */
    /* The round's counter: 0, or -1 when the round has none. */
    int (*counter)(const struct pl_host_s *h, const struct pl_round_s *r, sig_counter *c);
    /* The value of a usable pair from the two counters (same unit, not gone
     * back) over interval_s seconds: 0, or -1 when the pair gives none. */
    int (*value)(const struct pl_host_s *h, const sig_counter *before, const sig_counter *now,
                 double interval_s, double *v);
} pl_signal;

enum { SIG_BUSY, SIG_N };

extern const pl_signal PL_SIGNALS[SIG_N];

#endif
