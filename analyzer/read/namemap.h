/*
 * namemap: names (byte strings) to values, by hashing, for the pools of a
 * round and of a host, so that a round of 100,000 pools costs n, not n^2.
 * The map keeps pointers to the names: they must stay valid and unchanged
 * while they are in it.  Nothing prints.
 */
#ifndef NAMEMAP_H
#define NAMEMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    struct namemap_slot *slot;   /* cap slots, cap a power of two or 0 */
    size_t               cap, n;
} namemap;

/* 1 with *val when name is in the map, else 0. */
int namemap_get(const namemap *m, const char *name, size_t len, uintptr_t *val);

/* Adds name (not in the map yet) with val.  0, or FPM_ENOMEM. */
int namemap_put(namemap *m, const char *name, size_t len, uintptr_t val);

/* Empties the map; its memory is kept. */
void namemap_clear(namemap *m);

/* Frees the map's memory; the names are the caller's. */
void namemap_free(namemap *m);

#endif
