/*
 * whatif: the arithmetic of section 7 as pure functions of a pool's state
 * and a scenario: shape, cost per worker, fill, ceiling, limit and the host
 * line, as measured or for another host size, headroom, pm.max_children,
 * cost (--cost busy, section 10) or fit (--fit dominant, section 11: the
 * overhead used is the pool's own joint slope, else the host's common
 * line, else none).  Used by the reports and by check.
 */
#ifndef WHATIF_H
#define WHATIF_H

#include <stdint.h>
#include <stdio.h>

#include "fit.h"
#include "joint.h"
#include "pipeline.h"
#include "routes.h"

#define WI_DEFAULT_HEADROOM 200 /* hundredths */

/* What a busy worker's PHP costs in section 7: the duration-weighted busy
 * share (section 10; the default, 17.5), or TYPICAL x 10 (--cost typical). */
enum { WI_COST_BUSY = 0, WI_COST_TYPICAL = 1 };

/* The overhead sizing uses: section 11's (the default) or section 5's. */
enum { WI_FIT_JOINT = 0, WI_FIT_DOMINANT = 1 };

/* Where a pool's overhead comes from (11.5): none, its own joint slope, the
 * host's common line, or section 5 (--fit dominant). */
typedef enum { WI_SRC_NONE, WI_SRC_OWN, WI_SRC_HOST, WI_SRC_DOMINANT } wi_source;

/* "own", "host", "dominant", or NULL for none. */
const char *whatif_source_name(wi_source s);

typedef struct {
    const char *pool;
    int64_t     max_children;
} wi_override;

typedef struct {
    int      has_host_millicores;   /* --host-millicores / --cores */
    uint64_t host_millicores;
    int      has_mem_limit;         /* --mem-limit: M of section 14.3 */
    uint64_t mem_limit;
    int      headroom;              /* hundredths: 2 is 200, 1.1 is 110 */
    const wi_override *max_children; /* --max-children POOL=N */
    size_t   nmax_children;
    int      cost;                  /* WI_COST_BUSY (the default) or WI_COST_TYPICAL */
    int      fit;                   /* WI_FIT_JOINT (the default) or WI_FIT_DOMINANT */
    int      explain;               /* text: print the filter counts */
    int      has_from, has_until;   /* the window applied, for the heading */
    uint64_t from_ns, until_ns;
    const int64_t *at;              /* advise --at: more N for the lines (18.4) */
    size_t   nat;
} wi_scenario;

#define WI_MAX_AT 16 /* advise --at's worker counts, at most */

/* Whether the scenario differs from what was measured. */
int whatif_differs(const wi_scenario *sc);

/* pm.max_children of a pool in the scenario: the override, else the latest
 * POOL record's (0 unknown). */
int64_t whatif_now(const pl_pool *p, const wi_scenario *sc);

typedef enum { WI_LIMIT_UNKNOWN, WI_LIMIT_CPU, WI_LIMIT_WORKERS, WI_LIMIT_MEMORY } wi_limit;

/* "cpu", "workers", "memory", or NULL for unknown. */
const char *whatif_limit_name(wi_limit l);

/* Which ceiling an advice is (docs/rules.md 14.5): none without one. */
typedef enum { WI_BINDS_NONE, WI_BINDS_CPU, WI_BINDS_MEMORY } wi_binds;

/* "cpu", "memory", or NULL for none. */
const char *whatif_binds_name(wi_binds b);

/* Where a pool's W comes from (14.4). */
typedef enum { WI_W_NONE, WI_W_MEASURED, WI_W_ESTIMATED } wi_wsource;

/* "measured", "estimated", or NULL for none. */
const char *whatif_wsource_name(wi_wsource s);

/* Why a pool has no advice (14.5): the first thing it lacks. */
typedef enum {
    WI_NA_NONE,        /* it has one */
    WI_NA_NO_CEILING,  /* no CPU ceiling: too few readings, no cost, or the host's size unknown */
    WI_NA_FLOOR,       /* no CPU ceiling: its shares are floors (17.4) */
    WI_NA_NO_PAGE,     /* the log has no page size: no memory figures (14.3) */
    WI_NA_NO_MEMORY,   /* no memory reading and no STATM of its workers */
    WI_NA_ESTIMATED,   /* under 20 memory readings: its W is an estimate */
    WI_NA_NO_MEMINFO,  /* what the host can give is unknown */
    WI_NA_OTHER_W,     /* a pool of its host with workers has no W at all */
    WI_NA_NO_ROOM,     /* its share of the memory is under one worker */
} wi_no_advice;

/* The sentence of each, "no CPU ceiling (...)". */
const char *whatif_no_advice_text(wi_no_advice r);

/* Its machine name in the JSON ("no_ceiling", "floor", ...), NULL for none. */
const char *whatif_no_advice_name(wi_no_advice r);

/* 18.6: how the kernel shares the host's CPU between php-fpm and the rest:
 * among threads (18.2), or first among groups, php-fpm's being an autogroup
 * or a cgroup with the cpu controller. */
typedef enum { WI_SHARE_THREADS, WI_SHARE_AUTOGROUP, WI_SHARE_CGROUP } wi_sharing;

/* The sentence of a prediction's sharing, o_out (rest_mc) in cores: "php-fpm
 * runs in a scheduler group of its own (autogroup): the rest of the host's
 * 1.00 cores compete as one group". */
void whatif_sharing_text(FILE *out, wi_sharing s, double rest_mc);

/* 18.4: what the pool's requests would take at one worker count. */
typedef struct {
    int     has;
    int64_t workers, p50_ms, p95_ms;
} wi_pred;

/* 15.2, 18.4: a line of advise: at n workers (exact; printed from
 * hundredths), the bounds and, where the pool predicts, p50 and p95. */
typedef struct {
    double  n;
    int64_t hundredths;
    double  max_rps, min_ms;
    int     has_pred;
    int64_t p50_ms, p95_ms;
} wi_line;

typedef struct {
    int         has_typical;        /* any readings */
    int         typical_pct, p90_pct;
    const char *shape;              /* NULL under 20 readings */
    int64_t     php_millicores;     /* valid with a shape: TYPICAL x 10 */
    int         has_busy;           /* with a shape and a duration-weighted share */
    int64_t     busy_hundredths, busy_millicores; /* that share, and in millicores */
    int         has_cpu_ms;         /* with a shape: the CPU of one request (17.6) ... */
    int64_t     cpu_ms_hundredths;  /* ... in hundredths of a millisecond */
    fit_line    line;               /* section 5's */
    joint_pool  joint;              /* section 11's, with in_a */
    int         fit;                /* WI_FIT_JOINT or WI_FIT_DOMINANT: what sized it */
    double      joint_n;            /* the host's joint n (11.5) */
    wi_source   source;             /* of the overhead used ... */
    double      overhead;           /* ... max(slope, 1); 1 with none */
    double      overhead_se;        /* its slope's standard error; -1 for dominant or none */
    int         has_recovered;      /* a pair had MASTER data for it (11.2) ... */
    double      recovered_pct;      /* ... and the recovered share of its ticks, rounded to 0.01 */
    int64_t     host_millicores_per_worker; /* valid with a shape */
    int         has_fill;           /* shape, cost > 0, host size known, no floor (17.4) */
    int         floor;              /* the same but measured under contention: no fill */
    int64_t     knee_hundredths;    /* with has_fill: host / cost, two decimals (17.5): the
                                       one knee the table, advise and the plots print ... */
    double      knee;               /* ... and unrounded, where advise computes its line */
    int64_t     fill, ceiling;
    int         ceiling_by_headroom; /* the ceiling is knee x headroom (else cores + 1) */
    /* section 18: what N workers would see */
    int         predicts;           /* a knee and 20 kept readings */
    const pr_keep *keep;            /* the kept readings of its set */
    double      hm;                 /* the host's millicores judged against */
    double      other_mc;           /* o: the rest of the host's millicores, averaged ... */
    double      others_mc;          /* ... and o_in, the host's other pools' part of it */
    wi_sharing  sharing;            /* 18.6: how the kernel shares the CPU with the rest */
    double      rest_out_mc;        /* o_out: the rest outside php-fpm's pools (18.6) */
    double      share_h, share_o;   /* what 18.2's stretch reads for H and o: hm and o
                                       thread by thread; G and o_in in a group (18.6) */
    double      rest_frac;          /* the kept readings' rest over their time (18.5) ... */
    double      waited_frac;        /* ... and the share of them that were contended */
    int64_t     now;                /* pm.max_children, 0 unknown */
    wi_limit    limit;
    /* section 14, set by whatif_views (the host's other pools count) */
    int64_t     w_mib;              /* W, measured or estimated (w_source); -1 none */
    wi_wsource  w_source;
    int         with_workers;       /* it had workers in the window (14.4) */
    int64_t     mem_now;            /* now, else the most workers it had in a round ... */
    int         now_guessed;        /* ... (the latter) */
    int         sized;              /* a CPU ceiling and a measured W: it shares (14.5) */
    int64_t     need;               /* sized: min(ceiling, max(1, its most busy at once)) */
    int64_t     mem_ceiling;        /* with a measured W: -1 unknown */
    int64_t     advice;             /* the advised pm.max_children, -1 none */
    wi_binds    binds;
    wi_no_advice no_advice;
    /* decided once with the rest (whatif_host): what the printers read */
    wi_pred     at_now, at_advice;  /* 18.4: at pm.max_children and at the advice */
    int         has_bounds;         /* 15.1: the bounds' model (no floor) ... */
    double      bd_r, bd_d, bd_c;   /* ... R, D and C */
    wi_line     lines[4 + WI_MAX_AT]; /* 15.2: advise's lines, ascending */
    size_t      nlines;
    rt_fig     *routes;             /* section 19: its routes and their figures, */
    size_t      nroutes;            /* in 19.4's order (owned) */
    /* section 20: where censused, what its access log counted (20.6) */
    int         censused;
    uint64_t    requests;
    int64_t     rps_hundredths;     /* requests_per_s x 100, -1 null */
    int         has_measured;       /* 20 or more in its time sample ... */
    int64_t     measured_p50, measured_p95; /* ... and their p50 and p95, ms */
} wi_view;

/* 20.6: requests over the MONO nanoseconds ns, a second, in hundredths,
 * half away from zero; -1 where ns is 0. */
int64_t whatif_rate_hundredths(uint64_t requests, uint64_t ns);

/* 18.3: the p50 and p95 of a pool's requests at n busy workers, whole ms;
 * 0, -1 where it has no prediction, or FPM_ENOMEM. */
int whatif_predict(const wi_view *v, double n, int64_t *p50, int64_t *p95);

/* Section 19: the pool's routes and their figures (19.3: p50 and p95 of
 * their kept readings' own durations, or for a censused pool of their
 * time sample's recorded ones, 20.6; and p95 at the advice where the pool
 * has a prediction there), in 19.4's order; malloc'd into *out (NULL with
 * none), *n.  0, FPM_ENOMEM. */
int whatif_routes(const pl_pool *p, const wi_view *v, rt_fig **out, size_t *n);

/* Section 14.3, the host's advice as one (14.5) and its sums, in the
 * scenario: what whatif_views shared the memory by. */
typedef struct {
    int      has_total, has_budget; /* M known (MEMINFO, the limit, --mem-limit); B known */
    int      has_php;               /* a counted round with MEMINFO gave php */
    uint64_t total, budget, other_max, php_max; /* M, B, ... */
    int64_t  needed_now, needed_at_advice; /* bytes; -1 where no pool has W or no MEMINFO */
    int      unknown_w;             /* a pool with workers has no W at all (no STATM) */
    int      shared;                /* sized pools shared B (no W unknown, B known) */
    size_t   nsized, nheld;
    __int128 ceilings_bytes;        /* the sums over the sized pools of ceiling x W ... */
    __int128 needs_bytes;           /* ... and of need x W ... */
    __int128 sized_budget;          /* ... against B_s, B less the held pools (may be < 0) */
    wi_binds binds;                 /* cpu: every ceiling fits; memory: they were shared */
    int64_t  needs_hundredths, room_hundredths; /* f and g of 14.5; -1 null */
} wi_memory;

void whatif_host_memory(const pl_host *h, const wi_scenario *sc, const wi_view *v,
                        wi_memory *m);

#define WI_MIN_READINGS PL_MIN_READINGS

/* Section 7 for one pool on a host of host_millicores (0 unknown) with
 * pm.max_children now (0 unknown), at TYPICAL's cost, with section 5's
 * overhead (a pool without its host has no joint fit). */
wi_view whatif_pool_view(const pl_pool *p, uint64_t host_millicores, int headroom,
                              int64_t now);

/* The same at the cost given (WI_COST_BUSY: the busy millicores, where the
 * pool has them, stand for PHP's) and the fit given: with WI_FIT_JOINT the
 * pool's joint result jp and its host's sol (11.5). */
wi_view whatif_pool_view_cost(const pl_pool *p, uint64_t host_millicores, int headroom,
                                   int64_t now, int cost, int fit, const joint_pool *jp,
                                   const joint_sol *sol);

/* Section 11.5 for a host: *sol and, when pools is not NULL, each pool's
 * result in the host's pool order.  0, FPM_ENOMEM. */
int whatif_joint(const pl_host *h, joint_sol *sol, joint_pool *pools);

/* The host line: the sums of section 7 over the pool views. */
void whatif_host_needs(const wi_view *v, size_t n, int64_t *needed_now,
                       int64_t *needed_at_ceiling);

/* The host size the scenario judges against. */
uint64_t whatif_host_millicores(const pl_host *h, const wi_scenario *sc);

/* The views of a host's pools in the scenario, and as measured (the host's
 * own size, headroom 2, its own pm.max_children, the busy cost); malloc'd
 * arrays of h->npools, NULL on ENOMEM. */
wi_view *whatif_views(const pl_host *h, const wi_scenario *sc);
wi_view *whatif_measured_views(const pl_host *h);
void whatif_views_free(wi_view *v, size_t n);

/* The answer for one host, decided once: every printer reads it and none
 * recomputes a rule.  The pools' views in the scenario and as measured
 * (the host's own size, headroom 2, its pm.max_children, the busy cost and
 * the joint fit), each with its figures, its advice, its predictions and
 * advise's lines (sc->at), its routes; the host's memory shared (14.5) in
 * both, its joint fit (11.5) and section 7's host line. */
typedef struct {
    const pl_host *h;
    uint64_t   hm;                 /* the host's millicores in the scenario */
    size_t     n;                  /* h->npools */
    wi_view   *v, *m;              /* in the scenario, and as measured (m is v
                                      where the scenario is what was measured) */
    wi_memory  mem, mem_m;         /* 14.3-14.5 in each */
    joint_sol  joint;              /* 11.5 */
    int64_t    needed_now, needed_at_ceiling;     /* section 7, the scenario's ... */
    int64_t    needed_now_m, needed_at_ceiling_m; /* ... and as measured */
} wi_host;

/* 0, or FPM_ENOMEM (a is then empty). */
int whatif_host(const pl_host *h, const wi_scenario *sc, wi_host *a);
void whatif_host_free(wi_host *a);

/* The answers of a run: each host's (pipeline_hosts' order), decided once
 * in the scenario and handed to every output the run writes; none of them
 * calls whatif_host itself. */
typedef struct {
    wi_host *host;
    size_t   n;
} wi_answers;

/* 0, or FPM_ENOMEM (out is then empty). */
int whatif_answers(const pipeline *pl, const wi_scenario *sc, wi_answers *out);
void whatif_answers_free(wi_answers *a);

#endif
