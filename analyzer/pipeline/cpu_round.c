/* A round's CPU: each pool's ticks since its previous PIDS (section 5,
 * 11.1), the CPU recovered from the masters (11.2), the pools' cores over
 * the pair, and the points of the dominant pool's line (section 5) and of
 * the joint fit (11.3, 11.4).  The pipeline's, through pipeline_int.h. */
#include "pipeline_int.h"
#include "rc.h"

#include <string.h>

#include "grow.h"

typedef struct {
    mk_links *links;
    size_t    pool;
    int       nomem;
} link_ctx;

static void note_link(void *arg, const procfs_proc *w, int left)
{
    link_ctx *c = arg;
    c->nomem |= mk_links_note(c->links, c->pool, w, left) != 0;
}

/* Sections 5 and 11.1: the ticks a pool's workers spent since its previous
 * PIDS, and the map replaced; with links, its workers noted by master
 * (11.2).  0, FPM_ENOMEM. */
static int pool_ticks(pipeline *pl, round_pool *w, size_t i, mk_links *links)
{
    const pl_pool_round *in_rec = w->in;
    if (in_rec->ticks) {
        if (wk_set(&pl->workers, in_rec->ticks, in_rec->nticks))
            return FPM_ENOMEM;
    } else {
        long nt = pl_parse_ticks(in_rec->pids, in_rec->pids_len, &pl->tk, &pl->tk_cap);
        if (nt < 0 || wk_set(&pl->workers, pl->tk, (size_t)nt))
            return FPM_ENOMEM;
    }
    link_ctx c = {links, i, 0};
    w->ticks = wk_since(&w->pool->workers, &pl->workers, links ? note_link : NULL, &c);
    wk_map keep = w->pool->workers;
    w->pool->workers = pl->workers;
    pl->workers = keep;
    return c.nomem ? -1 : 0;
}

/* Section 5: each pool's ticks from its PIDS (its worker map is replaced
 * every round it has PIDS, usable pair or not), with links noted; their
 * sum into *sum.  0, FPM_ENOMEM. */
int pl_round_pool_ticks(pipeline *pl, const pl_host *h, size_t n, int links, uint64_t *sum)
{
    *sum = 0;
    pl->links.n = 0;
    for (size_t i = 0; i < n; i++) {
        round_pool *w = &pl->work[i];
        if (!w->in->has_pids)
            continue;
        w->pids_both = w->pool->pids_round + 1 == h->round_no;
        w->pool->pids_round = h->round_no;
        if (pool_ticks(pl, w, i, links ? &pl->links : NULL))
            return FPM_ENOMEM;
        *sum = w->ticks > UINT64_MAX - *sum ? UINT64_MAX : *sum + w->ticks; /* saturates */
    }
    return 0;
}

/* 11.2: this round's masters, and in a usable pair (every pool with PIDS
 * in both rounds, MASTER in both) the CPU that left with workers, shared
 * among the pools.  0, FPM_ENOMEM. */
int pl_round_recover(pipeline *pl, pl_host *h, const pl_round *r, int pair, int in,
                         size_t n)
{
    const pl_host_rec *m = &r->rec[PL_REC_MASTER];
    if (mk_parse(&pl->masters, m->has ? m->p : NULL, m->has ? m->len : 0))
        return FPM_ENOMEM;
    mk_carry(&h->prev->masters, &pl->masters);
    if (!pair)
        return 0;
    for (size_t i = 0; i < n; i++)
        pl->mkp[i] = (mk_pool){(double)pl->work[i].ticks, 0, 0};
    mk_recover(&pl->masters, &h->prev->masters, &pl->links, pl->mkp);
    for (size_t i = 0; i < n; i++) {
        pl->work[i].recovered = pl->mkp[i].recovered;
        pl->work[i].pool->master_pairs += (uint64_t)(in && pl->mkp[i].covered);
    }
    return 0;
}

/* Section 5: whether every pool of either round had PIDS in both. */
int pl_pids_complete(const pipeline *pl, const pl_host *h, size_t n)
{
    const prev_round *pr = h->prev;
    if (pr->nseen != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (pr->seen[i] != pl->work[i].pool || !pr->had_pids[i] || !pl->work[i].in->has_pids)
            return 0; /* a pool in one round only, or without PIDS: shares unknown */
    return 1;
}

/* Section 5: each pool's cores over a usable pair, what 11.2 recovered
 * included; in the window, its ticks for recovered_pct (every usable pair,
 * docs/rules.md 13.4) and, unless the pools used more CPU than the host had
 * (13.2, tested when every pool had PIDS in both rounds: complete), its
 * cores in the activity. */
void pl_round_pool_cores(pipeline *pl, pl_host *h, const host_pair *hp, size_t n, int in,
                         int complete)
{
    double total = 0;
    for (size_t i = 0; i < n; i++) { /* in name order */
        round_pool *w = &pl->work[i];
        if (!w->in->has_pids)
            continue;
        w->cores = ((double)w->ticks + w->recovered) / (double)h->clk_tck / hp->interval;
        total += w->cores;
    }
    int bad = complete && joint_inconsistent(total, hp->value[SIG_BUSY]);
    if (bad && in)
        h->j.inconsistent++;
    double counted = 0; /* the cores of the pools whose activity counts the pair */
    for (size_t i = 0; i < n; i++)
        if (pl->work[i].in->has_pids && pl->work[i].pids_both)
            counted += pl->work[i].cores;
    for (size_t i = 0; i < n; i++) {
        round_pool *w = &pl->work[i];
        w->inconsistent = bad;
        if (!in || !w->in->has_pids)
            continue;
        double t = (double)w->ticks + w->recovered;
        w->pool->ticks_all += t; /* 11.2's recovered_pct */
        w->pool->ticks_recovered += w->recovered;
        if (w->pids_both && !bad) /* 12.2's cores; 18.6's other pools beside them */
            act_pair(&w->pool->act, t, (double)h->clk_tck, hp->interval,
                     hp->value[SIG_BUSY], counted - w->cores);
    }
}

/* 11.3, 11.4: the pair's point of the joint fit, every pool of the host
 * at its cores (0 for one in neither round), unless the pools used more
 * than the host had (13.2).  0, FPM_ENOMEM. */
int pl_round_joint(pipeline *pl, pl_host *h, const host_pair *hp, size_t n)
{
    double y = hp->value[SIG_BUSY];
    if (n && pl->work[0].inconsistent) /* counted by pl_round_pool_cores (13.2) */
        return 0;
    if (grow(&pl->x, &pl->x_cap, h->j.k ? h->j.k : 1, sizeof *pl->x, 16))
        return FPM_ENOMEM;
    memset(pl->x, 0, h->j.k * sizeof *pl->x);
    for (size_t i = 0; i < n; i++) {
        pl->x[pl->work[i].pool->jx] = pl->work[i].cores;
        pl->work[i].joint_point = 1;
    }
    joint_add(&h->j, pl->x, y, joint_decay(hp->interval));
    return 0;
}

/* Section 5: fit points, when every pool of either round had PIDS in both
 * and the host was not saturated. */
void pl_round_fit_points(pipeline *pl, const host_pair *hp, size_t n)
{
    double total = 0;
    for (size_t i = 0; i < n; i++) /* in name order */
        total += pl->work[i].cores;
    for (size_t i = 0; i < n; i++) {
        round_pool *w = &pl->work[i];
        if (total < PL_IDLE_CORES) {
            fit_add(&w->pool->f, 0, hp->value[SIG_BUSY]);
            w->point = PL_POINT_IDLE;
        } else if (w->cores >= PL_DOMINANT * total) {
            fit_add(&w->pool->f, w->cores, hp->value[SIG_BUSY]);
            w->point = PL_POINT_DOMINANT;
        }
    }
}

