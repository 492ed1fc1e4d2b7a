/*
 * wait: each worker's own wait for the CPU (docs/rules.md section 17).  A
 * SCHED record gives, per worker, the CPU it ran and the time it was
 * runnable but waited (/proc/<pid>/schedstat); over a pair of rounds their
 * growth says what share of the time the worker wanted a CPU it waited, and
 * a reading of that worker is corrected to the share its request would have
 * had on a CPU of its own.
 */
#ifndef WAIT_H
#define WAIT_H

#include <stddef.h>
#include <stdint.h>

#include "round.h"

/* A round's workers of one pool: pid, start time (PIDS), schedstat's two
 * counters (SCHED); sorted by pid. */
typedef struct {
    int64_t  pid, start;
    uint64_t cpu_ns, delay_ns;
} wt_worker;

typedef struct {
    wt_worker *w;
    size_t     n, cap;
    uint64_t   round_no; /* the host's round it is of; 0 none */
} wt_map;

/* 17.1: the SCHED lines ("pid cpu_ns run_delay_ns timeslices") of the
 * workers that are in the round's PIDS t[0..nt) (sorted by pid: the pool's
 * worker map), with their start times, into m (replaced).  Lines that do not parse, and pids not in PIDS, are
 * left out.  0, FPM_ENOMEM. */
int wt_set(wt_map *m, const unsigned char *sched, size_t len, const pl_tick *t, size_t nt,
           uint64_t round_no);
void wt_free(wt_map *m);

/* 17.2: the growth of pid's two counters from before to now, the same
 * worker (pid and start time) in both; 1 known, 0 not (absent, another
 * process, or a counter that shrank). */
int wt_growth(const wt_map *before, const wt_map *now, int64_t pid, uint64_t *dc, uint64_t *dw);

/* 20.4: the pool's growth in the pair, dc and dw summed over its workers
 * whose growth is known (a line of a worker that has exited takes it); 1
 * when one is, else 0. */
int wt_pool_growth(const wt_map *before, const wt_map *now, uint64_t *dc, uint64_t *dw);

/* 17.2: dw / (dc + dw), 0 when both are 0. */
double wt_ratio(uint64_t dc, uint64_t dw);

#define WT_CONTENDED 0.05 /* a reading whose worker waited this share is contended */

/* 17.3 and 17.8: a reading of share s (hundredths of a percent) that lasted
 * u microseconds, by a worker whose counters grew by dc and dw: its request's
 * CPU c = s x u / 10000 and its wait w = min(c x dw / dc, u - c / 10) (0 when
 * dc is 0 or u - c / 10 is not positive), its own share s x u / (u - w),
 * half away from zero, and its own duration u - w, in whole microseconds; the
 * CPU and the wait in *cpu_us, *wait_us.  corrected: the wait was known (a
 * wait of 0 leaves s and u as they were). */
typedef struct {
    int64_t share, duration_us;
    double  cpu_us, wait_us;
    int     corrected;
} wt_own;
wt_own wt_own_share(int64_t s, int64_t u, uint64_t dc, uint64_t dw);

/* 17.3: the share a corrected reading counts at in the histogram:
 * min(own, max(s, 10000)), never above 100% unless php-fpm's own was. */
int64_t wt_shown_share(int64_t s, int64_t own);

#endif
