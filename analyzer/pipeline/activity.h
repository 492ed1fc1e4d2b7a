/*
 * activity: docs/rules.md 12.1 and 12.2, what a pool did round by round
 * whatever its readings: its queue (the larger of php-fpm's `listen queue`
 * and the kernel's LISTEN queue), the cores it used, its busiest round, the
 * rounds none of its workers was idle and those it ran out of them.  Pure
 * functions of a round's records and the pool's activity so far.
 */
#ifndef ACTIVITY_H
#define ACTIVITY_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef struct {
    uint64_t pairs;               /* usable pairs with its PIDS in both rounds ... */
    double   core_seconds, seconds; /* ... their CPU (recovered included) and length */
    double   host_core_seconds;   /* ... and the host's busy over them (18.2) ... */
    double   others_core_seconds; /* ... and the host's other pools' own (18.6) */
    double   cores_max;           /* the largest of those pairs' cores */
    int      has_active;
    int64_t  active_max;          /* the largest `active processes` */
    uint64_t full_rounds;         /* `active processes` >= max_children ... */
    int      full_known;          /* ... known in a counted round with a page (13) */
    uint64_t maxed_rounds;        /* `max children reached` grew */
    int      has_queue;
    int64_t  queue_max;           /* the largest queue of 12.1 */
    /* the previous status page's `max children reached` and `start time`,
     * in the window or not */
    int      has_prev;
    int64_t  prev_reached, prev_start;
} pl_activity;

/* 12.1: a LISTEN payload's queue (NULL for none); -1 none. */
int64_t act_kernel_queue(const unsigned char *listen, size_t listen_len);

/* 12.1: a round's queue: the larger of the page's (NULL for none, or an
 * ERROR) and the kernel's (-1 none); -1 when neither has one. */
int64_t act_queue(const status_page *pg, int64_t kernel);

/* 12.2: a round's status page (NULL for none) and queue, counted when in;
 * max_children 0 when unknown.  Says whether the pool ran out of workers
 * since the page before (*maxed) and how many were busy (*active, -1
 * unknown). */
void act_round(pl_activity *a, const status_page *pg, int64_t queue, int64_t max_children,
               int in, int *maxed, int64_t *active);

/* 12.2: a usable pair with the pool's PIDS in both rounds, host_cores the
 * host's busy cores over it (18.2's rest of the host), others_cores the
 * cores the host's other pools used in it, each as its own activity counts
 * them (18.6). */
void act_pair(pl_activity *a, double ticks, double clk_tck, double interval_s,
              double host_cores, double others_cores);

#endif
