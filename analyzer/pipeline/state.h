/*
 * state: what the pipeline leaves for the reports, per host (pl_host) and per
 * pool (pl_pool), and what a round pair said about a pool (pl_pool_pair, given
 * to the round hooks).  The reports read it and never write it; the rules
 * that fill it are docs/rules.md's, one file each.  Its length is the two
 * structs' fields, each with its line of meaning.
 */
#ifndef STATE_H
#define STATE_H

#include <stddef.h>
#include <stdint.h>

#include "accessfmt.h"
#include "activity.h"
#include "fit.h"
#include "hist.h"
#include "joint.h"
#include "memory.h"
#include "pidmap.h"
#include "predict.h"
#include "procfs.h"
#include "readings.h"
#include "recover.h"
#include "routes.h"
#include "signals.h"
#include "wait.h"

#define PL_MIN_INTERVAL_NS  5000000000ull   /* 5 s */
#define PL_MAX_INTERVAL_NS  300000000000ull /* 5 min */
#define PL_SATURATED        0.95            /* busy ratio of a full CPU */
#define PL_IDLE_CORES       0.02            /* below this the pools are idle */
#define PL_DOMINANT         0.7             /* a pool's share of the pools' CPU */
#define PL_MAX_NPROC        1000000ull      /* HOST nproc past this is unknown */
#define PL_MAX_CHILDREN     1000000ull      /* POOL max_children past this is unknown */
#define PL_MAX_PAGE_SIZE    (1ull << 30)    /* HOST page_size past this is unknown */

/* Where a host's millicores come from (docs/rules.md 16.3). */
enum { PL_CPU_HOST, PL_CPU_CPUSET, PL_CPU_QUOTA, PL_CPU_QUOTA_V1 };
extern const char *const PL_CPU_SOURCE[4]; /* "host", "cpuset", "quota", "quota-v1" */
#define PL_MAX_CLK_TCK      1000000ull      /* HOST clk_tck past this is the default 100 */
#define PL_MIN_READINGS     20              /* a shape, and the calm set's figures (12.3) */

/* Why a round and the one before it give no host figures (section 5). */
typedef enum {
    PL_DROP_SHORT,     /* STAT to STAT under 5 s */
    PL_DROP_LONG,      /* over 5 min */
    PL_DROP_BACK,      /* the host's counter (or the clock) went back */
    PL_DROP_NO_STAT,   /* a round without STAT (or without a readable one, or without
                          a line of a CPU its cpuset names) */
    PL_DROP_MEASURE,   /* a quota host measured by usage_usec in one, ticks in the other */
    PL_NDROP
} pl_drop;

/* "under 5 s apart", ... */
const char *pl_drop_name(pl_drop d);

typedef struct {
    char          *name;
    size_t         name_len;
    rd_prefixes    own;           /* own_uri of POOL records, fpm-tune's, the user's */
    int64_t        max_children;  /* latest POOL record; 0 unknown */
    int            is_static;     /* its latest POOL record says pm=static */
    hist           h;             /* every reading: the all set (12.3) ... */
    hist           calm;          /* ... and those not taken while the CPU was full */
    pr_keep        keep, keep_calm; /* the latest 4096 readings of each set (18.1) */
    uint64_t       contended_readings; /* contended (12.3, 17.3), not halved ... */
    uint64_t       uncorrected_contended; /* ... of them without a known wait (12.3) */
    wt_map         wait_before, wait_now; /* its workers' SCHED, the round before and this (17) */
    double         wait_us, want_us;  /* 17.3: corrected readings' wait, and CPU + wait */
    uint64_t       corrected_readings; /* readings whose wait was known (17.3), not halved */
    rd_before      status_before; /* its previous round with a status page (12.4) */
    pl_activity    act;           /* what it did (12.2) */
    uint64_t       pids_round;    /* the host's round number of its last PIDS */
    fit            f;
    uint64_t       filtered[RD_NREASONS];
    uint64_t       starved;
    uint64_t       starved_by_steal; /* starved rounds the hypervisor made (section 9) */
    uint64_t       throttled_rounds; /* queued while the quota throttled */
    uint64_t       unanswered_full;  /* could not answer while the CPU was full ... */
    uint64_t       unanswered_unseen; /* ... of them without the kernel's queue (13.1) */
    int64_t        unanswered_queue_max; /* the largest kernel's queue of them; -1 none */
    uint64_t       error_rounds;  /* counted rounds with an ERROR, or a STATUS without a page */
    char           last_error[160]; /* the last such round's reason, "" none */
    pidmap         remembered;    /* pid -> request counter */
    wk_map         workers;       /* its workers at the last PIDS (11.1) */
    rt_table       routes;        /* its routes' sums (section 19) */
    mem_hist       mem;           /* its memory readings (14.1, 14.2) */
    pidmap         mem_now;       /* pid -> private bytes of the round: the smaller of its
                                     STATM line and ... */
    pidmap         mem_before;    /* ... its STATM0 line, read before the page (14.1) */
    int64_t        most_workers;  /* the most workers it had in one counted round (14.4) */
    int            has_private;   /* a STATM line of its workers in a counted round ... */
    uint64_t       private_max;   /* ... and the largest private memory of one (14.4) */
    char          *conf_file, *conf_text; /* latest POOL: where pm.max_children is set */
    int64_t        conf_line;     /* (15.2); 0 unknown */
    size_t         jx;            /* its index in the host's joint sums */
    double         ticks_all;     /* usable pairs' ticks, recovered included (11.2) ... */
    double         ticks_recovered; /* ... and the recovered part */
    uint64_t       master_pairs;  /* usable pairs with MASTER data for it */
    /* seeking: what frames jumped over (pipeline_skipped) left unknown, until
     * a round shows it again: a page (the remembered map, the page before,
     * the activity's page before), PIDS; and the jump it came from */
    unsigned char  unsettled_page, unsettled_act, unsettled_pids, unsettled_sched, seen_uncertain;
    unsigned char  unknowns;      /* its map holds RD_UNKNOWN entries */
    uint64_t       skip_id;
    /* section 20: its access log */
    char          *access_log;    /* latest POOL's access_log=, NULL none ... */
    char          *access_format; /* ... and its access_format= as written ... */
    af_format      fmt;           /* ... compiled (20.2) */
    af_matcher     m;
    int            censused;      /* 20.3: from a round of the window on */
    int            has_access;    /* the window had an ACCESS record for it (20.7's access) */
    uint64_t       access_lines;  /* the lines of its records in the window (20.7) ... */
    uint64_t       access_unparsable, access_other_pool; /* ... of them */
    uint64_t       rounds_without_access; /* censused rounds without one */
    uint64_t       requests;      /* 20.6: line readings, never halved ... */
    uint64_t       rate_requests; /* ... of them, those of the rounds requests_per_s counts ... */
    uint64_t       rate_ns;       /* ... over the MONO between those rounds */
    uint64_t       rate_run, rate_mono; /* the run and MONO of its last round with ACCESS */
    int            rate_has;      /* one was counted in this run */
    pr_keep        times;         /* 20.6's time sample: every line reading's duration */
} pl_pool;

/* The shares one signal gave a host's pairs (section 9), a count per
 * hundredth of a percent: the percentiles are exact and the memory flat. */
typedef struct {
    uint64_t  n;
    uint64_t *count;              /* SIG_SHARE_MAX + 1 of them, from the first share */
} pl_shares;

/* p10, p50, p90 and max, by nearest rank, in hundredths; -1 each when n is 0. */
void pl_shares_pct(const pl_shares *s, int64_t out[4]);

/* The steal probe's sums over the STEAL records (section 9). */
typedef struct {
    uint64_t probes, duration_ns, gap_ns, net_ns; /* net: gap over the run delay */
} pl_probe;

/* The round before, as a pair with the next one needs it: pipeline.c's. */
struct pl_prev;

typedef struct pl_host_s {
    char      *hostname;
    size_t     hostname_len;
    char      *boot_id;
    uint64_t   nproc, clk_tck, quota_millicores;
    uint64_t   host_millicores;   /* of the latest HOST: nproc, its cpuset or its quota
                                     (docs/rules.md 16.1) x 1000 */
    procfs_cpuset *cpus;          /* HOST cpus, NULL when unknown ... */
    char      *cpus_text;         /* ... as the HOST record wrote it */
    int        use_cpus;          /* it names fewer CPUs than nproc: busy and steal
                                     from their cpuN lines */
    int        cgroup_v1;         /* HOST cgroup_version=1 */
    int        cpu_source;        /* where host_millicores comes from: PL_CPU_* */
    uint64_t   interval_ms;       /* the recorder's, of the latest HOST; 0 unknown */
    uint64_t   rounds;            /* complete rounds (in the window) */
    uint64_t   round_no;          /* rounds applied, in the window or not */
    uint64_t   run_no;            /* HOST records of it: its recorder runs (20.6) */
    uint64_t   first_real, last_real; /* REAL of the first and last counted round, 0 none */
    uint64_t   span_first, span_last; /* the same over every round, in the window or not */
    uint64_t   pairs_usable;      /* round pairs in the window that gave host figures */
    uint64_t   pairs_dropped[PL_NDROP]; /* and those that could not, by why */
    double     busy_core_seconds, busy_seconds; /* the host's CPU over the usable pairs ... */
    double     busy_max, pools_max; /* ... its busiest pair, and the pools' (cores) */
    uint64_t   pools_pairs;       /* usable pairs in which a pool's PIDS were read */
    uint64_t   pairs_saturated;   /* usable, the host at least 95% busy: no fit point */
    uint64_t   pairs_unshared;    /* usable, not every pool's PIDS in both: no fit point */
    pl_shares  shares[SIG_N];     /* section 9's signals (SIG_FIRST_SHARE on) */
    uint64_t   throttled_usec;    /* throttled_usec's growth over the throttled shares */
    pl_probe   probe;
    /* 16.4: how the kernel groups php-fpm, from the latest HOST that said any
     * of it (no rule reads it yet); has_sched: one did */
    int        has_sched;
    char      *autogroup;         /* NULL: null */
    int64_t    cpu_weight;        /* -1: null */
    const char *cpu_weight_kind;  /* "weight", "shares", NULL: null */
    int        cpu_controller;    /* 1, 0, -1: null */
    uint64_t   page_size;         /* HOST page_size; 0 unknown: no memory figures (14.3) */
    int        had_page_size;     /* a counted round had one in its HOST (14.5's no_page_size) */
    uint64_t   mem_limit;         /* HOST mem_limit_bytes: php-fpm's cgroup's limit, 0 none */
    int        has_mem_total;     /* a counted round had MEMINFO (14.3) ... */
    uint64_t   mem_total;         /* ... M of the latest such round (MemTotal or the limit) */
    int        has_mem;           /* a counted round gave other (14.3): B is known */
    uint64_t   mem_other_max;     /* the largest other of them */
    int        has_php;           /* a counted round with MEMINFO gave php (14.3) ... */
    uint64_t   mem_php_max;       /* ... the largest of them */
    pl_pool  **pools;             /* sorted by name */
    size_t     npools;
    joint      j;                 /* section 11's sums, by the pools' jx */
    struct pl_prev *prev;         /* the round before, for pairs (private) */
    int        unsettled_prev;    /* seeking: the round before was jumped over ... */
    uint64_t   skip_id;           /* ... by this jump */
} pl_host;

/* What one round pair said about one pool (the CSV of rounds). */
typedef struct {
    int     usable;          /* the pair with the round before could be used */
    double  interval_s, busy_ratio;   /* with usable; ratio -1 unknown */
    double  signal[SIG_N];   /* each signal's value (signals.h) ... */
    int     has_signal[SIG_N]; /* ... where it gave one (the host's cores: SIG_BUSY) */
    int     has_pool_cores;
    double  pool_cores;      /* recovered_cores included */
    double  recovered_cores; /* section 11.2's share of the CPU that left */
    int     first;           /* the round's first pool (hooks see a round's pools in a row) */
    int     joint_point;     /* the pair gave section 11's fit a point */
    int     inconsistent;    /* the pools' cores exceeded the host's (11.3) */
    int64_t listen_queue;    /* 12.1's queue; -1 unknown */
    int64_t kernel_queue;    /* LISTEN's alone; -1 none */
    int64_t active;          /* `active processes`; -1 unknown */
    int     maxed;           /* `max children reached` grew since its page before */
    enum { PL_POINT_NONE, PL_POINT_IDLE, PL_POINT_DOMINANT } point;
    int     starved;
    int     starved_by_steal, throttled, unanswered_full; /* section 9's rounds */
    int64_t private_bytes;   /* 14.1: its workers' private memory; -1 no STATM */
    int64_t host_other;      /* 14.3: the host's other memory; -1 unknown ... */
    int64_t host_php;        /* ... and php-fpm's (its workers' and masters') */
} pl_pool_pair;

/* 12.3: the readings a pool's figures come from: the calm set when it holds
 * at least 20, else all of them. */
const hist *pl_hist(const pl_pool *p);

/* 18.1: the kept readings of the set its figures come from. */
const pr_keep *pl_keep(const pl_pool *p);

/* 12.3: its figures come from all readings and some were contended: its
 * shares are a floor. */
int pl_under_contention(const pl_pool *p);

#endif
