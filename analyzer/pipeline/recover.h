/*
 * recover: docs/rules.md 11.1 and 11.2.  A pool's workers at its last PIDS,
 * keyed by pid and start time, and the CPU each pair's workers spent; the
 * masters' cutime + cstime, which grow by the whole CPU of each worker
 * reaped, and the share of it that left between two PIDS (with the
 * per-master carry).  Private to the pipeline.
 */
#ifndef RECOVER_H
#define RECOVER_H

#include <stddef.h>
#include <stdint.h>

#include "procfs.h"

/* A line of an unsorted PIDS, to sort by pid and then line. */
typedef struct {
    int64_t pid;
    size_t  line;
} wk_key;

/* The workers of a PIDS, sorted by pid (the later line of a pid wins). */
typedef struct {
    procfs_proc *v;
    size_t       n, cap;
    wk_key      *idx;   /* scratch for an unsorted PIDS */
    size_t       idx_cap;
} wk_map;

/* *m becomes the workers t[0..n).  0, FPM_ENOMEM. */
int wk_set(wk_map *m, const procfs_proc *t, size_t n);
void wk_free(wk_map *m);

/* 11.1: the same worker: the same pid, and the same start where both
 * lines have one. */
int wk_same(const procfs_proc *before, const procfs_proc *now);

/* Called for every worker of now (left 0) and of before (left 1 when it
 * is not in now, else 0). */
typedef void (*wk_visit_fn)(void *arg, const procfs_proc *w, int left);

/* Section 5 and 11.1: the ticks now's workers spent since before (a new
 * worker its whole counter), saturated; visit may be NULL. */
uint64_t wk_since(const wk_map *before, const wk_map *now, wk_visit_fn visit, void *arg);

/* A master of a MASTER record, and its carry (ticks, <= 0). */
typedef struct {
    int64_t  pid, start;
    uint64_t child;     /* cutime + cstime */
    double   carry;
} mk_master;

typedef struct {
    mk_master *v;
    size_t     n, cap;
} mk_list;

/* *l becomes the masters of a MASTER payload, sorted by pid, carry 0.
 * 0, FPM_ENOMEM. */
int mk_parse(mk_list *l, const unsigned char *p, size_t len);

/* 11.2: each master of cur keeps prev's carry when prev has it with the
 * same pid and start; else 0. */
void mk_carry(const mk_list *prev, mk_list *cur);
void mk_free(mk_list *l);

/* A pool's link to a master in a pair: its workers of that ppid, and how
 * many of them (and their ticks in the first round) left. */
typedef struct {
    int64_t  ppid;
    size_t   pool;
    uint64_t left;
    double   left_ticks;
} mk_link;

typedef struct {
    mk_link *v;
    size_t   n, cap, from;  /* from: the first link of the pool being noted */
} mk_links;

/* Notes a worker of pool (pools noted one after the other, from 0). */
int mk_links_note(mk_links *l, size_t pool, const procfs_proc *w, int left);
void mk_links_free(mk_links *l);

/* What a pool gave and got in the pair. */
typedef struct {
    double own_ticks;   /* its workers' own, this pair */
    double recovered;   /* its share of lost */
    int    covered;     /* a master of its workers had MASTER lines in both rounds */
} mk_pool;

/* 11.2 over a usable pair: each master of cur with the same pid and start
 * in prev shares its lost ticks among its pools (by workers that left,
 * else by own ticks, else not at all) and keeps min(d, 0) as its carry.
 * pools[] is indexed by the links' pool. */
void mk_recover(mk_list *cur, const mk_list *prev, mk_links *links, mk_pool *pools);

#endif
