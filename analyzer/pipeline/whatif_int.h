/*
 * whatif_int: what whatif.c (the views, the predictions, the answers) and
 * whatif_memory.c (14.4 and 14.5, the host's memory shared) share.  Private
 * to the two.
 */
#ifndef WHATIF_INT_H
#define WHATIF_INT_H

#include <stdint.h>

#include "whatif.h"

/* a x b + c, saturated at INT64_MAX (all >= 0) */
static inline int64_t mul_add_sat(int64_t a, int64_t b, int64_t c)
{
    int64_t p;
    if (__builtin_mul_overflow(a, b, &p) || __builtin_add_overflow(p, c, &p))
        return INT64_MAX;
    return p;
}

/* 14.4 and 14.5: each pool's W, the host's advice as one, each pool's
 * memory ceiling beside the others at their advice (or now), and limit;
 * how the host's memory was shared in *mo. */
void whatif_memory_views(const pl_host *h, const wi_scenario *sc, wi_view *v, wi_memory *mo);

#endif
