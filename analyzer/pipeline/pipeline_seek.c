/* The pipeline after frames were jumped over (seek.h): what they left
 * unknown, and the rounds of the window that needed it. */
#include <stdlib.h>

#include "grow.h"
#include "rc.h"
#include "pipeline_int.h"

void pl_need(pipeline *pl, uint64_t id)
{
    for (size_t i = 0; i < pl->nneed; i++)
        if (pl->need[i] == id)
            return;
    if (grow(&pl->need, &pl->need_cap, pl->nneed + 1, sizeof *pl->need, 8)) {
        pl->need_nomem = 1;
        return;
    }
    pl->need[pl->nneed++] = id;
}

size_t pipeline_unsettled(const pipeline *pl, const uint64_t **ids)
{
    *ids = pl->need;
    return pl->need_nomem ? (size_t)-1 : pl->nneed;
}

int pipeline_skipped_pool(pipeline *pl, const char *hostname, size_t hostname_len,
                          const char *name, size_t name_len, uint64_t id)
{
    size_t at;
    pl_host *h = pl_find_host(pl, hostname, hostname_len, &at);
    if (!h)
        return 0; /* rounds of no host: ignored */
    pl_pool *p = pl_get_pool(pl, h, name, name_len);
    if (!p)
        return FPM_ENOMEM;
    /* its remembered map, page before, workers: whatever the frames did */
    pidmap_clear(&p->remembered);
    p->workers.n = 0;
    p->status_before.has = 0;
    p->act.has_prev = 0;
    p->unsettled_page = p->unsettled_act = p->unsettled_pids = p->unsettled_sched = 1;
    p->seen_uncertain = 1;
    p->unknowns = 0;
    p->skip_id = id;
    return 0;
}

void pipeline_skipped(pipeline *pl, const char *hostname, size_t hostname_len, uint64_t rounds,
                      uint64_t min_real, uint64_t max_real, uint64_t id)
{
    size_t at;
    pl_host *h = pl_find_host(pl, hostname, hostname_len, &at);
    if (!h || rounds == 0)
        return;
    h->prev->has = 0;
    h->prev->masters.n = 0; /* the masters' carry starts again (an approximation: seek.h) */
    h->unsettled_prev = 1;
    h->skip_id = id;
    h->round_no += rounds + 1; /* no PIDS before the jump is the round before's */
    if (!h->span_first || min_real < h->span_first)
        h->span_first = min_real;
    if (max_real > h->span_last)
        h->span_last = max_real;
}
