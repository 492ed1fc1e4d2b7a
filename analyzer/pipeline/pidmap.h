/*
 * pidmap: pid -> 64-bit value, a sorted array.  Built by appending (the
 * later of two entries for one pid wins) and sealing; then looked up.
 */
#ifndef PIDMAP_H
#define PIDMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int64_t pid, val;
    size_t  seq;
} pidmap_entry;

typedef struct {
    pidmap_entry *e;
    size_t n, cap;
    size_t hint;       /* where the last lookup ended: lookups in pid order are O(1) */
} pidmap;

/* Appends; the map must be sealed before lookups.  0 ok, FPM_ENOMEM. */
int pidmap_put(pidmap *m, int64_t pid, int64_t val);

/* Sorts and keeps the last entry put for each pid. */
void pidmap_seal(pidmap *m);

/* 1 and *val when pid is in the sealed map, else 0.  Tries where the last
 * lookup ended first (pages and PIDS list their workers in the same order
 * round after round), else searches. */
int pidmap_get(pidmap *m, int64_t pid, int64_t *val);

void pidmap_clear(pidmap *m);                 /* empties, keeps the memory */
void pidmap_swap(pidmap *a, pidmap *b);
void pidmap_free(pidmap *m);

#endif
