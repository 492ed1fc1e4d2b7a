/*
 * report: the output formats, one file each (text.c, json.c,
 * metrics.c), a table of {name, begin, host, pool, host_end, end}
 * steps that report_print drives host by host and pool by pool, with the
 * run's answers (whatif.h: each host's, decided once by the caller): the
 * scenario's views of each host's pools and the measured ones.
 * Adding a format is one file and one entry here.  Numbers are printed in
 * the C locale (the programs never call setlocale).  The hist view is
 * histview.c.
 */
#ifndef REPORT_H
#define REPORT_H

#include <stdio.h>

#include "pipeline.h"
#include "whatif.h"

/* What the page says of the run besides the figures (its header, its
 * charts), given by the caller; the other formats leave it. */
typedef struct {
    char *const *logs;               /* the LOGs read, in order */
    int          nlogs;
    uint64_t     records, damaged, dropped_rounds, hostless_rounds, copies, unreadable;
    uint64_t     made_ns;            /* when it was made (CLOCK_REALTIME) */
    const char  *charts;             /* the folder the charts were drawn in, or NULL ... */
    const char  *charts_note;        /* ... and why not */
    /* a pool's charts' file names begin with this in charts; 0, -1 none */
    int        (*chart_base)(void *arg, const pl_pool *p, char *out, size_t n);
    void        *chart_arg;
} rp_meta;

/* What a format's steps are given. */
typedef struct {
    FILE              *out;
    const wi_answers  *ans;                    /* every host's answer */
    const wi_scenario *sc;
    size_t             host_index, pool_index; /* among those already printed */
    int                ok;                     /* no step failed so far */
    void              *state;                  /* the format's own */
    const rp_meta     *meta;                   /* NULL: none */
} rp_ctx;

/* A format.  Each step returns 0, or FPM_ENOMEM (common/rc.h); a NULL step is
 * skipped.  a is the host's answer, decided once (whatif.h): its pools'
 * views in the scenario (a->v) and as measured (a->m), in the host's pool
 * order, its memory, its joint fit and its sums; pool i is a->h->pools[i]. */
typedef struct {
    const char *name, *help;
    int (*begin)(rp_ctx *c);
    int (*host)(rp_ctx *c, const wi_host *a);
    int (*pool)(rp_ctx *c, const wi_host *a, size_t i);
    int (*host_end)(rp_ctx *c, const wi_host *a);
    int (*end)(rp_ctx *c);
} rp_format;

/* The format called name, or NULL. */
const rp_format *report_format(const char *name);

/* "text, json, openmetrics or prometheus", for messages. */
const char *report_format_names(void);

/* The formats' names and one line on each, for --help. */
void report_format_help(FILE *out);

/* Prints the run's answers in format f.  0, or FPM_ENOMEM. */
int report_print(FILE *out, const rp_format *f, const wi_answers *ans, const wi_scenario *sc);

/* The same with what the page says of the run (may be NULL). */
int report_print_meta(FILE *out, const rp_format *f, const wi_answers *ans,
                      const wi_scenario *sc, const rp_meta *meta);

/* The hist view: per pool (only those named pool, when not NULL), one row
 * per non-empty bucket with its range, % of total, running % and count,
 * until the running % reaches cutoff; then "..." and the largest observed
 * bucket, and the busy share.  0, or FPM_ENOMEM. */
int out_hist_print(FILE *out, const pipeline *pl, const char *pool, double cutoff);

#endif
