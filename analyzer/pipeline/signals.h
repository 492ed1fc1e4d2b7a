/*
 * signals: the per-round host signals, one table entry each: which record a
 * signal reads, how a round gives its cumulative counters, how a usable pair
 * of rounds turns their growth into a value, and how every output shows it:
 * its JSON and CSV names, its OpenMetrics gauge's help, its line in the text
 * report and when it is printed, whether check compares it, whether and how
 * the time series draws it.  busy (section 5: the host's busy CPU, in cores) is the
 * one the pairs are judged by; the others (section 9) are shares of a pair
 * in hundredths of a percent, capped at 100%: steal, throttled, pressure and
 * php_accounted.  Adding a signal is adding an entry and, where its record
 * is new, its kind in pipeline.h and its parser in formats/procfs.
 */
#ifndef SIGNALS_H
#define SIGNALS_H

#include <stdint.h>

#include "records.h"

struct pl_host_s;
struct pl_round_s;

/* A round's cumulative counters of a signal: v is the one that must not go
 * back between the rounds of a pair; w and x are the signal's others. */
typedef struct {
    uint64_t v, w, x;
    int      unit;          /* the signal's own: busy has STAT's cpu line ticks (0), the
                               cgroup's usage_usec (1) or cpuacct.usage (2), or the
                               named CPUs' ticks (3); a pair needs the same on both */
} sig_counter;

/* Whether busy was measured from STAT (ticks), not from a cgroup's usage. */
static inline int sig_by_stat(const sig_counter *busy)
{
    return busy->unit == 0 || busy->unit == 3;
}

/* What a pair knows beside the counters. */
typedef struct {
    uint64_t interval_ns;   /* STAT to STAT */
    int      pids_complete; /* every pool of either round had PIDS in both */
    uint64_t pool_ticks;    /* the pools' worker ticks over the pair, then */
} sig_pair;

/* When the text report prints a share signal's line: its max above 0, its
 * p90 at least 1%, its p50 under 90%. */
enum { SIG_TEXT_MAX, SIG_TEXT_P90_1, SIG_TEXT_P50_UNDER_90 };

typedef struct {
    const char *name;       /* "busy", "steal", ... as in the JSON */
    rec_type    record;     /* the record it reads */
    const char *csv;        /* its column in the CSV of rounds */
    int         share;      /* its value is a share in hundredths of a percent */
    const char *om_help;    /* a share's OpenMetrics gauge fpm_cpu_NAME_ratio: its HELP */
    /* The text report's line for the host, "HOST: " and this with {q} the
     * p50, p90 and max, {p50}, {p10}, {n} the pairs, {secs} the throttled
     * time; printed when text_when holds. */
    const char *text;
    int         text_when;
    int         check;      /* check compares the host's p90 with the baseline's */
    /* The time series' lower panel: the line's title (NULL: not drawn), its
     * name in that panel's title, and whether only a share above 0 counts
     * as one to draw. */
    const char *plot, *plot_short;
    int         plot_nonzero;
    /* The round's counters: 0, or -1 when the round has none. */
    int (*counter)(const struct pl_host_s *h, const struct pl_round_s *r, sig_counter *c);
    /* The value of a usable pair from the two counters (same unit, v not gone
     * back): 0, or -1 when the pair gives none. */
    int (*value)(const struct pl_host_s *h, const sig_counter *before, const sig_counter *now,
                 const sig_pair *pair, double *v);
} pl_signal;

enum { SIG_BUSY, SIG_STEAL, SIG_THROTTLED, SIG_PRESSURE, SIG_ACCOUNTED, SIG_N };
#define SIG_FIRST_SHARE SIG_STEAL

#define SIG_SHARE_MAX 10000     /* 100% in hundredths */

extern const pl_signal PL_SIGNALS[SIG_N];

/* num / den as a share in hundredths of a percent, rounded half away from
 * zero, capped at SIG_SHARE_MAX; den > 0.  Exact for any 64-bit num, den. */
uint32_t sig_share(uint64_t num, uint64_t den);

/* A host's section 9 figures as the outputs print them: per signal the
 * pairs that gave a share and their percentiles; the throttled time; the
 * steal probe's corrected and plain shares.  Shares are in hundredths of a
 * percent. */
enum { TR_P10, TR_P50, TR_P90, TR_MAX, TR_NQ };

typedef struct {
    uint64_t pairs[SIG_N];          /* from SIG_FIRST_SHARE on */
    int64_t  pct[SIG_N][TR_NQ];     /* hundredths; -1 with no pair */
    uint64_t throttled_usec;
    uint64_t probes;                /* STEAL records counted; 0: no probe */
    int64_t  probe_pct, probe_naive_pct; /* hundredths, -1 with no probe */
} truth;

void sig_truth(const struct pl_host_s *h, truth *t);

#endif
