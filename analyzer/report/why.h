/*
 * out_why: the text's WHY, the sentences after the table, one pool each
 * (text.c prints them).  Pure functions of the pool and its view.
 */
#ifndef WHY_H
#define WHY_H

#include <stdint.h>
#include <stdio.h>

#include "pipeline.h"
#include "whatif.h"

/* What the WHY of a pool needs from its host. */
typedef struct {
    uint64_t hm;          /* host millicores judged against, 0 unknown */
    int      headroom;    /* hundredths */
    uint64_t rounds;      /* the host's counted rounds */
    int64_t  needed_now;  /* the host line's sum */
    int      cost;        /* WI_COST_TYPICAL or WI_COST_BUSY */
    int      has_budget;  /* 14.3: B known ... */
    uint64_t budget;      /* ... what the host can give php-fpm, bytes */
} why_ctx;

/* "4 cores", "1 core", "2.5 cores" of a size in millicores. */
void out_cores_text(char *b, size_t n, uint64_t mc);

/* The WHY of pool p with its view v. */
void why_text(FILE *out, const pl_pool *p, const wi_view *v, const why_ctx *c);

/* The host's lines of the text (text.c): what it measured, what its pools
 * need together in CPU and in memory, the pools those sums leave out, how
 * the memory was shared; one idea a line, each "host NAME: ...". */
void why_host(FILE *out, const char *hn, const wi_host *a, const wi_scenario *sc);

/* 14.5: "host NAME: the pools' CPU ceilings need ..." (how the host's memory
 * was shared among its n pools), a line; 0 where it was not shared. */
int why_share(FILE *out, const char *hn, const wi_view *v, size_t n, const pl_pool *const *pools,
              const wi_memory *m);

#endif
