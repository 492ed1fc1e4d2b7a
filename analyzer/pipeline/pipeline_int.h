/*
 * pipeline_int: what pipeline.c and cpu_round.c share, private to the
 * pipeline: the pipeline's own state, one pool of the round being applied,
 * and the CPU steps of a round (cpu_round.c).
 */
#ifndef PIPELINE_INT_H
#define PIPELINE_INT_H

#include "pairs.h"
#include "pipeline.h"

/* make bench's fpm-analyze-nojoint (-DPL_NO_JOINT): what the joint fit's work costs */
#ifdef PL_NO_JOINT
#define PL_JOINT 0
#else
#define PL_JOINT 1
#endif

/* One pool of the round being applied. */
typedef struct {
    const pl_pool_round *in;    /* its records */
    pl_pool             *pool;
    int                  queued; /* its page showed requests in the listen queue */
    int                  errored; /* an ERROR, or a STATUS without a page */
    int64_t              listen_queue; /* 12.1's; -1 unknown */
    int64_t              kernel_queue; /* LISTEN's; -1 none */
    int64_t              active;       /* -1 unknown */
    int                  maxed, pids_both; /* ran out of workers; PIDS in both rounds */
    uint64_t             ticks;  /* its workers' ticks since its previous PIDS */
    double               recovered; /* 11.2: its share of the CPU that left, ticks */
    double               cores; /* over the pair, when usable, recovered included */
    int                  point, starved, starved_by_steal, throttled, unanswered_full;
    int                  joint_point, inconsistent;
    int64_t              private_bytes; /* 14.1: its workers' in the round; -1 no STATM */
    int                  access; /* 20.3: the round has an ACCESS record for it ... */
    int                  rate;   /* ... whose lines count in requests_per_s (20.6) */
    int                  pool_wait; /* 20.4: its workers' summed growth known (1), not (0),
                                       not yet looked at (-1) ... */
    uint64_t             pool_dc, pool_dw; /* ... and that sum */
} round_pool;

struct pipeline {
    pl_options     opt;
    pl_host      **hosts;
    size_t         nhosts;
    pl_host       *cur;
    pl_reading_fn  fn[PL_MAX_HOOKS];
    void          *fn_arg[PL_MAX_HOOKS];
    size_t         nfn;
    pl_round_fn    round_fn[PL_MAX_HOOKS];
    void          *round_arg[PL_MAX_HOOKS];
    size_t         nround_fn;
    status_page    page;
    pidmap         scratch;
    wk_map         workers;     /* a pool's workers of this round, before they are its */
    pl_tick       *tk;          /* a PIDS parsed here */
    size_t         tk_cap;
    mk_list        masters;     /* this round's MASTER */
    mk_links       links;       /* the pools' workers by master, in a pair */
    mk_pool       *mkp;         /* per pool of the round: what 11.2 gave it */
    double        *x;           /* a point of the joint fit, by pool index */
    size_t         x_cap;
    round_pool    *work;        /* the round's pools, by name; kept from round to round */
    size_t         work_cap;
    uint64_t      *need;        /* seeking: jumps whose unknowns the window needed */
    size_t         nneed, need_cap;
    int            need_nomem;
    int64_t        host_other, host_php; /* 14.3: the round's other and php memory; -1 unknown */
};

/* readings_round.c, section 17.1: each pool's SCHED of the round becomes
 * its map of this round, the last one its map before; after
 * pl_round_pool_ticks, whose worker maps give the start times.  0,
 * FPM_ENOMEM. */
int pl_round_waits(pipeline *pl, pl_host *h, size_t n, int in);

/* readings_round.c, sections 2, 12 and 17.3: each pool's page of the round,
 * judged worker by worker (contended when the pair is saturated, or by the
 * worker's own wait); its queue and activity.  0, FPM_ENOMEM. */
int pl_round_readings(pipeline *pl, pl_host *h, const pl_round *r, int in, int usable,
                      int contended, size_t n);

/* readings_round.c, section 20.3: which of the round's pools have an
 * ACCESS record, and which are censused from this round on; before
 * pl_round_readings, which reads their lines after the pages. */
void pl_round_census(pipeline *pl, pl_host *h, const pl_round *r, int in, size_t n);

/* readings_round.c, section 14.1 and 14.3: each pool's STATM of the round
 * becomes its map of private memory (its sum the pool's), and in a counted
 * round with MEMINFO the host's php and other memory.  0, FPM_ENOMEM. */
int pl_round_memory(pipeline *pl, pl_host *h, const pl_round *r, int in, size_t n);

/* Seeking: a round of the window used what jump id left unknown. */
void pl_need(pipeline *pl, uint64_t id);

/* Names compared as their bytes, a shorter prefix first (hosts, pools). */
int pl_name_cmp(const char *a, size_t al, const char *b, size_t bl);

/* The host named so, or NULL with where it would go in *at. */
pl_host *pl_find_host(const pipeline *pl, const char *name, size_t nl, size_t *at);

/* A pool of h, made when new.  NULL ENOMEM. */
pl_pool *pl_get_pool(pipeline *pl, pl_host *h, const char *name, size_t len);


/* Section 5: each pool's ticks from its PIDS (its worker map is replaced
 * every round it has PIDS), with the links of 11.2 noted; their sum. */
int pl_round_pool_ticks(pipeline *pl, const pl_host *h, size_t n, int links, uint64_t *sum);

/* 11.2: this round's masters, and in a usable pair the CPU that left. */
int pl_round_recover(pipeline *pl, pl_host *h, const pl_round *r, int pair, int in, size_t n);

/* Section 5: whether every pool of either round had PIDS in both. */
int pl_pids_complete(const pipeline *pl, const pl_host *h, size_t n);

/* Section 5: each pool's cores over a usable pair, recovered included. */
void pl_round_pool_cores(pipeline *pl, pl_host *h, const host_pair *hp, size_t n, int in,
                         int complete);

/* 11.3, 11.4: the pair's point of the joint fit.  0, FPM_ENOMEM. */
int pl_round_joint(pipeline *pl, pl_host *h, const host_pair *hp, size_t n);

/* Section 5: the dominant pool's (or the idle pools') points. */
void pl_round_fit_points(pipeline *pl, const host_pair *hp, size_t n);

#endif
