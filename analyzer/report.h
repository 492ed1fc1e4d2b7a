/*
 * report: the what-if arithmetic of pipeline.md section 7 (pure functions of
 * a pool's state and a scenario) and the output formats, a table of
 * {name, print} entries.  Output goes to the given stream, numbers in the C
 * locale (the program never calls setlocale).
 */
#ifndef REPORT_H
#define REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "fit.h"
#include "pipeline.h"

#define RP_DEFAULT_HEADROOM 200 /* hundredths */

/* What a busy worker's PHP costs in section 7: TYPICAL x 10, or the
 * duration-weighted busy share (section 10, --cost busy). */
enum { RP_COST_TYPICAL = 0, RP_COST_BUSY = 1 };

typedef struct {
    const char *pool;
    int64_t     max_children;
} rp_override;

typedef struct {
    int      has_host_millicores;   /* --host-millicores / --cores */
    uint64_t host_millicores;
    int      headroom;              /* hundredths: 2 is 200, 1.1 is 110 */
    const rp_override *max_children; /* --max-children POOL=N */
    size_t   nmax_children;
    int      cost;                  /* RP_COST_TYPICAL (the default) or RP_COST_BUSY */
    int      explain;               /* text: print the filter counts */
    int      has_from, has_until;   /* the window applied, for the heading */
    uint64_t from_ns, until_ns;
} rp_scenario;

/* Whether the scenario differs from what was measured. */
int report_is_what_if(const rp_scenario *sc);

/* pm.max_children of a pool in the scenario: the override, else the latest
 * POOL record's (0 unknown). */
int64_t report_now(const pl_pool *p, const rp_scenario *sc);

typedef enum { RP_LIMIT_UNKNOWN, RP_LIMIT_CPU, RP_LIMIT_WORKERS } rp_limit;

typedef struct {
    int         has_typical;        /* any readings */
    int         typical_pct, p90_pct;
    const char *shape;              /* NULL under 20 readings */
    int64_t     php_millicores;     /* valid with a shape: TYPICAL x 10 */
    int         has_busy;           /* with a shape and a duration-weighted share */
    int64_t     busy_hundredths, busy_millicores; /* that share, and in millicores */
    fit_line    line;
    int64_t     host_millicores_per_worker; /* valid with a shape */
    int         has_fill;           /* shape, cost > 0, host size known */
    int64_t     fill, ceiling;
    int64_t     now;                /* pm.max_children, 0 unknown */
    rp_limit    limit;
} rp_pool_view;

#define RP_MIN_READINGS 20

/* Section 7 for one pool on a host of host_millicores (0 unknown) with
 * pm.max_children now (0 unknown), at TYPICAL's cost. */
rp_pool_view report_pool_view(const pl_pool *p, uint64_t host_millicores, int headroom,
                              int64_t now);

/* The same at the cost given (RP_COST_BUSY: the busy millicores, where the
 * pool has them, stand for PHP's). */
rp_pool_view report_pool_view_cost(const pl_pool *p, uint64_t host_millicores, int headroom,
                                   int64_t now, int cost);

/* The host line: the sums of section 7 over the pool views. */
void report_host_needs(const rp_pool_view *v, size_t n, int64_t *needed_now,
                       int64_t *needed_at_ceiling);

/* The host size the scenario judges against. */
uint64_t report_host_millicores(const pl_host *h, const rp_scenario *sc);

typedef struct {
    const char *name;
    int (*print)(FILE *out, const pipeline *pl, const rp_scenario *sc);
} rp_format;

/* The format called name ("text", "json", "openmetrics", "prometheus"), or
 * NULL. */
const rp_format *report_format(const char *name);

/* "text, json, openmetrics or prometheus", for messages. */
const char *report_format_names(void);

/* The hist view: per pool (only those named pool, when not NULL), one row
 * per non-empty bucket with its range, % of total, running % and count,
 * until the running % reaches cutoff; then "..." and the largest observed
 * bucket.  0, or -1 out of memory. */
int report_hist(FILE *out, const pipeline *pl, const char *pool, double cutoff);

/* A name for the terminal: control bytes and invalid UTF-8 as U+FFFD.
 * malloc'd (NULL on ENOMEM); *width gets its width in code points (may be
 * NULL). */
char *report_display_name(const char *s, size_t n, size_t *width);

/* Writes s[0..n) as a JSON string, invalid UTF-8 bytes as U+FFFD. */
void report_json_string(FILE *out, const char *s, size_t n);

#endif
