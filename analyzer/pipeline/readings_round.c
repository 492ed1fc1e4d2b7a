/* A round's readings (docs/rules.md sections 2, 12 and 17): each pool's
 * status page judged worker by worker, each reading at its own share where
 * its worker's wait is known, and the pool's queue and activity.  Private
 * to the pipeline (pipeline_int.h). */
#include "pipeline_int.h"

#include <stdio.h>
#include <string.h>

#include "census.h"
#include "rc.h"

_Static_assert(RT_NONE == PR_NO_ROUTE && RT_SLOTS <= PR_NO_ROUTE, "a kept reading's route fits its 8 bits");

/* A counted round in which the pool could not be read, and why. */
static void note_error(pl_pool *p, const pl_pool_round *in_rec)
{
    const char *why = (const char *)in_rec->status;
    size_t n = in_rec->status_len, o = 0;
    if (!in_rec->is_error)
        o = (size_t)snprintf(p->last_error, sizeof p->last_error, "no status page in its answer: ");
    for (size_t i = 0; i < n && why[i] != '\n' && why[i] != '\r' && o + 1 < sizeof p->last_error; i++)
        p->last_error[o++] = why[i];
    p->last_error[o] = '\0';
    p->error_rounds++;
}

typedef struct {
    pipeline       *pl;
    pl_host        *h;
    pl_pool        *p;
    const pl_round *r;
    int             in, contended;
    int             waits;     /* 17.2: the pool's SCHED of this pair, both rounds */
    int             nomem;
    round_pool     *w;        /* its pool of the round (20.4: the pool's wait, once) */
} reading_ctx;

/* 17.2: the pool's SCHED maps are this round's and the one before's, and
 * the pair is usable: its workers' waits can be known. */
static int pair_waits(const pl_host *h, const pl_pool *p, int usable)
{
    return usable && p->wait_now.round_no == h->round_no &&
           p->wait_before.round_no + 1 == h->round_no;
}

/* A reading into the histogram at `shown` and the sums of section 10 at
 * share (the all set, and the calm set when calm), and into the readings
 * kept for section 18 (own duration us, own share, its route's slot). */
static void sums_add(reading_ctx *c, int64_t shown, int64_t share, int64_t us, int calm,
                     int waited, unsigned route)
{
    pl_pool *p = c->p;
    int64_t ms = (us < 0 ? 0 : us) / 1000;
    hist_add_shown(&p->h, shown, share, us);
    c->nomem |= pr_add_route(&p->keep, ms, share, waited, route) != 0;
    if (!calm)
        return;
    hist_add_shown(&p->calm, shown, share, us);
    c->nomem |= pr_add_route(&p->keep_calm, ms, share, waited, route) != 0;
}

/* 17.2: the worker's wait in the pair that ends at this round, when known. */
typedef struct {
    int      known;
    uint64_t dc, dw;
} wait_known;

static int known_wait(const reading_ctx *c, const status_worker *w, uint64_t *dc, uint64_t *dw)
{
    return c->waits && wt_growth(&c->p->wait_before, &c->p->wait_now, w->pid, dc, dw);
}

/* Routes a halving forgot leave the kept readings and the time sample. */
static void forget_gone(pl_pool *p)
{
    if (!p->routes.any_gone)
        return;
    pr_forget_routes(&p->keep, p->routes.gone);
    pr_forget_routes(&p->keep_calm, p->routes.gone);
    pr_forget_routes(&p->times, p->routes.gone);
    rt_clear_gone(&p->routes);
}

/* Section 19.2: a route reading (rules 1-4 and 6 of section 2, short ones
 * included, with a duration of 0 or more) into its route's sums, at its own
 * share and duration where the wait is known (17.3); its route's slot in
 * *slot (PR_NO_ROUTE when it is none).  Routes a halving forgot leave the
 * kept readings (18.1). */
static void route_reading(reading_ctx *c, const status_worker *w, rd_verdict v, int64_t share,
                          const wait_known *wk, unsigned *slot)
{
    pl_pool *p = c->p;
    *slot = PR_NO_ROUTE;
    if (v == RD_SHORT && (!w->has_duration || w->duration < 0 || !w->has_cpu ||
                          status_cpu_hundredths(w->cpu, w->cpu_len, &share) != 0))
        return;
    if (v != RD_ACCEPTED && v != RD_SHORT)
        return;
    int64_t s = share, us = w->duration;
    if (wk->known) {
        wt_own o = wt_own_share(share, us, wk->dc, wk->dw);
        s = o.share;
        us = o.duration_us;
    }
    char route[RT_MAX_BYTES];
    static const rt_params none;
    size_t rl = rt_route_of(w->has_uri ? w->uri : NULL, w->has_uri ? w->uri_len : 0,
                            c->pl->opt.route_params ? c->pl->opt.route_params : &none, route);
    int64_t mem = w->has_memory && w->memory >= 0 ? w->memory : -1;
    if (rt_add(&p->routes, route, rl, s, us / 1000, mem, slot) != 0) {
        c->nomem = 1;
        return;
    }
    forget_gone(p);
}


/* Section 17.3: a reading whose worker's wait in the pair is known goes in
 * with its own share and duration, contended by its own wait; 0 when the
 * wait is not known (12.3 then says whether it is contended). */
static int own_reading(reading_ctx *c, int64_t share, int64_t us, const wait_known *wk,
                       unsigned route)
{
    uint64_t dc = wk->dc, dw = wk->dw;
    pl_pool *p = c->p;
    if (!wk->known)
        return 0;
    wt_own o = wt_own_share(share, us, dc, dw);
    int contended = wt_ratio(dc, dw) >= WT_CONTENDED;
    sums_add(c, wt_shown_share(share, o.share), o.share, o.duration_us, 1, contended, route);
    p->contended_readings += (uint64_t)contended;
    p->corrected_readings++;
    p->wait_us += o.wait_us;
    p->want_us += o.cpu_us + o.wait_us;
    return 1;
}

/* 20.6: an accepted reading into the sums: at its own share where its
 * worker's wait is known (17.3), else as read, contended when the pair is
 * saturated (12.3). */
static void accepted(reading_ctx *c, int64_t share, int64_t us, const wait_known *wk,
                     unsigned route)
{
    if (own_reading(c, share, us, wk, route))
        return;
    sums_add(c, share, share, us, !c->contended, c->contended, route);
    c->p->contended_readings += (uint64_t)c->contended;
    c->p->uncorrected_contended += (uint64_t)c->contended;
}

/* 14.1: a new request of an idle worker, not monitoring's own (rules 1-4
 * of section 2: accepted, short or invalid), with its `last request
 * memory`, by a worker with a STATM line this round: its private memory
 * (the smaller of STATM and STATM0, as the pool's map holds it) plus that
 * peak. */
static void memory_reading(pl_pool *p, const status_worker *w, rd_verdict v)
{
    int64_t private_bytes = 0;
    if ((v != RD_ACCEPTED && v != RD_SHORT && v != RD_INVALID) || !w->has_memory ||
        w->memory < 0 || !pidmap_get(&p->mem_now, w->pid, &private_bytes))
        return;
    uint64_t sum = (uint64_t)private_bytes + (uint64_t)w->memory; /* both < 2^63 */
    mem_add(&p->mem, sum);
}

static void on_reading(void *arg, const status_worker *w, rd_verdict v, int64_t share)
{
    reading_ctx *c = arg;
    if (!c->in)
        return;
    memory_reading(c->p, w, v);
    if (c->p->censused && (v == RD_ACCEPTED || v == RD_SHORT || v == RD_OWN || v == RD_INVALID))
        return; /* 20.3: its lines give the readings, its page none, uncounted */
    unsigned route;
    wait_known wk = {0};
    if (v == RD_ACCEPTED || v == RD_SHORT) /* looked up once for both */
        wk.known = known_wait(c, w, &wk.dc, &wk.dw);
    route_reading(c, w, v, share, &wk, &route);
    if (v == RD_ACCEPTED)
        accepted(c, share, w->has_duration ? w->duration : 0, &wk, route);
    else
        c->p->filtered[v]++;
    for (size_t k = 0; k < c->pl->nfn; k++)
        c->pl->fn[k](c->pl->fn_arg[k], c->h, c->p, c->r, w, v, share);
}

const pr_keep *pl_keep(const pl_pool *p)
{
    return pl_hist(p) == &p->calm ? &p->keep_calm : &p->keep;
}

const hist *pl_hist(const pl_pool *p)
{
    return p->calm.total >= PL_MIN_READINGS ? &p->calm : &p->h;
}

int pl_under_contention(const pl_pool *p)
{
    return pl_hist(p) == &p->h && p->uncorrected_contended > 0;
}

/* A pool's status page of the round, NULL for none or one that is an
 * ERROR (counted when in).  *rc FPM_ENOMEM on ENOMEM. */
static const status_page *round_page(pipeline *pl, round_pool *w, int in, int *rc)
{
    const pl_pool_round *in_rec = w->in;
    *rc = 0;
    if (!in_rec->has_status)
        return NULL;
    int prc = in_rec->is_error ? 1
            : in_rec->page ? in_rec->page_rc
            : status_parse(&pl->page, (const char *)in_rec->status, in_rec->status_len);
    if (prc == FPM_ENOMEM)
        *rc = FPM_ENOMEM;
    if (prc == 0)
        return in_rec->page ? in_rec->page : &pl->page;
    w->errored = prc != FPM_ENOMEM; /* an ERROR, or no status page: an ERROR for this pool */
    if (w->errored && in)
        note_error(w->pool, in_rec);
    return NULL;
}

/* Sections 2 and 12: each pool's page of the round, judged worker by worker
 * (contended when the pair is saturated); its queue and activity.  0, or
 * FPM_ENOMEM. */
static int round_lines(pipeline *pl, pl_host *h, const pl_round *r, int usable, int contended,
                       size_t n);

int pl_round_readings(pipeline *pl, pl_host *h, const pl_round *r, int in, int usable,
                      int contended, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        round_pool *w = &pl->work[i];
        int rc;
        const status_page *pg = round_page(pl, w, in, &rc);
        if (rc)
            return FPM_ENOMEM;
        const pl_pool_round *in_rec = w->in;
        w->kernel_queue = act_kernel_queue(in_rec->has_listen ? in_rec->listen : NULL,
                                           in_rec->listen_len);
        w->listen_queue = act_queue(pg, w->kernel_queue);
        w->queued = w->listen_queue > 0;
        pl_pool *p = w->pool;
        if (pg && pg->has_max_reached) {
            if (in && p->unsettled_act)
                pl_need(pl, p->skip_id);
            p->unsettled_act = 0;
        }
        act_round(&p->act, pg, w->listen_queue, p->max_children, in, &w->maxed, &w->active);
        if (!pg)
            continue;
        if (in && p->unsettled_page)
            pl_need(pl, p->skip_id);
        reading_ctx ctx = {pl, h, p, r, in, contended, pair_waits(h, p, usable), 0, w};
        int unsure = 0, watch = p->seen_uncertain || p->unknowns;
        if (rd_page_seek(pg, &p->remembered, &pl->scratch, &p->status_before, &p->own,
                         on_reading, &ctx, p->seen_uncertain, watch ? &unsure : NULL) ||
            ctx.nomem)
            return FPM_ENOMEM;
        if (in && (unsure & 1))
            pl_need(pl, p->skip_id);
        p->unknowns = (unsure & 2) != 0;
        p->unsettled_page = p->seen_uncertain = 0;
        p->status_before = (rd_before){1, (int64_t)(r->real / 1000000000u)};
    }
    return in ? round_lines(pl, h, r, usable, contended, n) : 0;
}

/* Section 17.1: each pool's SCHED of the round, with its PIDS' start
 * times, becomes its map of this round, the last one its map before. */
int pl_round_waits(pipeline *pl, pl_host *h, size_t n, int in)
{
    for (size_t i = 0; i < n; i++) {
        const pl_pool_round *in_rec = pl->work[i].in;
        pl_pool *p = pl->work[i].pool;
        wt_map m = p->wait_before;
        p->wait_before = p->wait_now;
        p->wait_now = m;
        p->wait_now.round_no = 0;
        if (!in_rec->has_sched || !in_rec->has_pids)
            continue;
        if (p->unsettled_sched && in)
            pl_need(pl, p->skip_id);
        p->unsettled_sched = 0;
        /* the round's PIDS, parsed already: its worker map (11.1) */
        if (wt_set(&p->wait_now, in_rec->sched, in_rec->sched_len, p->workers.v, p->workers.n,
                   h->round_no))
            return FPM_ENOMEM;
    }
    return 0;
}


typedef struct {
    pidmap  *m;
    pidmap  *before; /* STATM0's, for STATM's lines (14.1); NULL for STATM0's own */
    uint64_t sum;
    int      nomem;
    uint64_t max;   /* the largest private memory of one worker ... */
    size_t   lines; /* ... of this many that parsed */
} statm_ctx;

/* 14.1: a worker's private memory in the round, the smaller of its STATM
 * and STATM0 lines where it has both: a worker idle on the page that takes
 * its next request before STATM is read holds that request there.  Its
 * pool's map, the round's sums and the most one worker held all take it. */
static void on_statm(void *arg, int64_t pid, uint64_t private_bytes)
{
    statm_ctx *c = arg;
    int64_t before;
    if (private_bytes > INT64_MAX)
        private_bytes = INT64_MAX;
    if (c->before && pidmap_get(c->before, pid, &before) && (uint64_t)before < private_bytes)
        private_bytes = (uint64_t)before;
    c->nomem |= pidmap_put(c->m, pid, (int64_t)private_bytes) != 0;
    c->sum = private_bytes > UINT64_MAX - c->sum ? UINT64_MAX : c->sum + private_bytes;
    if (private_bytes > c->max)
        c->max = private_bytes;
    c->lines++;
}

static void add_rss(void *arg, const procfs_proc *m)
{
    uint64_t *pages = arg;
    if (m->rss > 0)
        *pages += (uint64_t)m->rss;
}

/* STATM0's lines into m (replaced), for the memory readings' bracket
 * (14.1).  0, FPM_ENOMEM. */
static int statm0_map(pidmap *m, const pl_pool_round *in_rec, uint64_t page_size)
{
    pidmap_clear(m);
    if (!in_rec->has_statm0 || page_size == 0)
        return 0;
    statm_ctx c = {.m = m};
    mem_each_statm(in_rec->statm0, in_rec->statm0_len, page_size, on_statm, &c);
    if (c.nomem)
        return FPM_ENOMEM;
    pidmap_seal(m);
    return 0;
}

/* Sections 14.1 and 14.3: each pool's private memory of the round; in a
 * counted round with MEMINFO, M, and the host's php (every worker's private
 * memory and the masters' resident size) and other memory.  A round whose
 * HOST in effect gives no page size has no STATM (the page size is never
 * guessed): M alone. */
int pl_round_memory(pipeline *pl, pl_host *h, const pl_round *r, int in, size_t n)
{
    uint64_t php = 0;
    pl->host_other = pl->host_php = -1;
    for (size_t i = 0; i < n; i++) {
        round_pool *w = &pl->work[i];
        pl_pool *p = w->pool;
        pidmap_clear(&p->mem_now);
        if (in && w->in->has_pids && (int64_t)p->workers.n > p->most_workers)
            p->most_workers = (int64_t)p->workers.n;
        if (statm0_map(&p->mem_before, w->in, h->page_size) != 0)
            return FPM_ENOMEM;
        if (!w->in->has_statm || h->page_size == 0) /* 14.3: the page size is never guessed */
            continue;
        statm_ctx c = {.m = &p->mem_now, .before = &p->mem_before};
        mem_each_statm(w->in->statm, w->in->statm_len, h->page_size, on_statm, &c);
        if (c.nomem)
            return FPM_ENOMEM;
        pidmap_seal(&p->mem_now);
        if (in && c.lines) { /* 14.4: the most one of its workers held */
            if (!p->has_private || c.max > p->private_max)
                p->private_max = c.max;
            p->has_private = 1;
        }
        w->private_bytes = c.sum > INT64_MAX ? INT64_MAX : (int64_t)c.sum;
        php = c.sum > UINT64_MAX - php ? UINT64_MAX : php + c.sum;
    }
    const pl_host_rec *mi = &r->rec[PL_REC_MEMINFO], *ms = &r->rec[PL_REC_MEM_STAT],
                      *ma = &r->rec[PL_REC_MASTER];
    if (!in || !mi->has)
        return 0;
    uint64_t pages = 0;
    if (ma->has && h->page_size)
        procfs_each_pid((const char *)ma->p, ma->len, add_rss, &pages);
    uint64_t rss = h->page_size && pages > UINT64_MAX / h->page_size ? UINT64_MAX
                                                                      : pages * h->page_size;
    php = rss > UINT64_MAX - php ? UINT64_MAX : php + rss;
    uint64_t other, total;
    int got = mem_other(mi->p, mi->len, ms->has ? ms->p : NULL, ms->len, h->mem_limit,
                        h->cgroup_v1, php, &other, &total);
    if (got >= 0) { /* M, even where the cgroup's memory.stat or the page size is missing */
        h->has_mem_total = 1;
        h->mem_total = total;
    }
    if (got < 0 || h->page_size == 0) /* no php without a page size: B unknown */
        return 0;
    pl->host_php = php > INT64_MAX ? INT64_MAX : (int64_t)php;
    if (!h->has_php || php > h->mem_php_max) /* php needs no other (14.3) */
        h->mem_php_max = php;
    h->has_php = 1;
    if (got != 0)
        return 0;
    pl->host_other = other > INT64_MAX ? INT64_MAX : (int64_t)other;
    if (!h->has_mem || other > h->mem_other_max)
        h->mem_other_max = other;
    h->has_mem = 1;
    return 0;
}

/* ------------------------------------------------------------ section 20 */

/* 20.3: the round has an ACCESS record for pool i: its own, or one of a
 * file it shares, under another pool whose usable format has %n. */
static int has_access(const pipeline *pl, size_t i, size_t n)
{
    const round_pool *w = &pl->work[i];
    if (w->in->has_access)
        return 1;
    const char *log = w->pool->access_log;
    for (size_t j = 0; log && j < n; j++) {
        const pl_pool *q = pl->work[j].pool;
        if (j != i && pl->work[j].in->has_access && q->access_log && q->access_format &&
            q->fmt.usable && q->fmt.first[AF_POOL] >= 0 && strcmp(q->access_log, log) == 0)
            return 1;
    }
    return 0;
}

/* 20.3: a pool censused from now: what its pages gave stays, in
 * microseconds, halved past 2^20; 18.1's kept readings and the time
 * sample hold its lines alone, a systematic sample. */
static void census_begin(pl_pool *p)
{
    p->censused = 1;
    hist_to_us(&p->h);
    hist_to_us(&p->calm);
    rt_to_us(&p->routes);
    pr_systematic(&p->keep);
    pr_systematic(&p->keep_calm);
    pr_systematic(&p->times);
}

void pl_round_census(pipeline *pl, pl_host *h, const pl_round *r, int in, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        round_pool *w = &pl->work[i];
        pl_pool *p = w->pool;
        w->access = has_access(pl, i, n);
        w->rate = 0;
        if (!in)
            continue;
        p->has_access |= w->access;
        if (!p->censused && w->access &&
            (!w->in->has_access || (p->access_format && p->fmt.usable)))
            census_begin(p);
        if (!p->censused)
            continue;
        if (!w->access) {
            p->rounds_without_access++;
            continue;
        }
        /* 20.6: every round with ACCESS but the first of its run, over the
         * MONO between them */
        if (p->rate_has && p->rate_run == h->run_no && r->mono >= p->rate_mono) {
            p->rate_ns += r->mono - p->rate_mono;
            w->rate = 1;
        }
        p->rate_has = 1;
        p->rate_run = h->run_no;
        p->rate_mono = r->mono;
    }
}

/* The round's pool named so, by the round's order (work is sorted by
 * name), or NULL. */
static round_pool *round_pool_named(pipeline *pl, size_t n, const unsigned char *name, size_t len)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const pl_pool_round *x = pl->work[mid].in;
        int c = pl_name_cmp(x->name, x->name_len, (const char *)name, len);
        if (c == 0)
            return &pl->work[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* 20.4: the wait of a line's worker in the pair: its pid's where the
 * round's PIDS has it, else the pool's (a worker that has exited). */
static int line_wait(reading_ctx *c, int64_t pid, wait_known *wk)
{
    if (!c->waits)
        return 0;
    const wk_map *m = &c->p->workers;
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->v[mid].pid == pid)
            return wt_growth(&c->p->wait_before, &c->p->wait_now, pid, &wk->dc, &wk->dw);
        if (m->v[mid].pid < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    round_pool *w = c->w;
    if (w->pool_wait < 0) /* once a pool and round, not a line */
        w->pool_wait = wt_pool_growth(&c->p->wait_before, &c->p->wait_now, &w->pool_dc,
                                      &w->pool_dw);
    wk->dc = w->pool_dc;
    wk->dw = w->pool_dw;
    return w->pool_wait;
}

/* 20.4 to 20.6: a line of a censused pool, after rule 1 and 2: own, or a
 * line reading: a route reading and a request, and, 50 ms or more, a
 * reading of every section from 3 on. */
static void line_reading(reading_ctx *c, const cs_line *l, int rate)
{
    pl_pool *p = c->p;
    if (l->uri_len >= 0 && rd_own_uri(&p->own, l->uri, (size_t)l->uri_len)) {
        p->filtered[RD_OWN]++;
        return;
    }
    wait_known wk = {0};
    wk.known = line_wait(c, l->pid, &wk);
    int64_t s = l->share, us = l->duration_us;
    if (wk.known) {
        wt_own o = wt_own_share(s, us, wk.dc, wk.dw);
        s = o.share;
        us = o.duration_us;
    }
    char route[RT_MAX_BYTES];
    static const rt_params none;
    size_t rl = cs_route(l, c->pl->opt.route_params ? c->pl->opt.route_params : &none, route);
    unsigned slot = PR_NO_ROUTE;
    if (rt_add(&p->routes, route, rl, s, us, l->memory, &slot) != 0) {
        c->nomem = 1;
        return;
    }
    forget_gone(p);
    rt_request(&p->routes, slot, rate);
    p->requests++;
    p->rate_requests += (uint64_t)(rate != 0);
    c->nomem |= pr_add_route(&p->times, l->duration_us / 1000, 0, 0, slot) != 0;
    if (l->duration_us < RD_MIN_DURATION_US) {
        p->filtered[RD_SHORT]++;
        return;
    }
    accepted(c, l->share, l->duration_us, &wk, slot);
}

/* Section 20: the lines of the round's ACCESS records, each pool's read
 * with its format, in file order, each given to its pool.  0, FPM_ENOMEM. */
static int round_lines(pipeline *pl, pl_host *h, const pl_round *r, int usable, int contended,
                       size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const pl_pool_round *in_rec = pl->work[i].in;
        pl_pool *q = pl->work[i].pool;
        if (!in_rec->has_access)
            continue;
        int read = q->access_format && q->fmt.usable, by_name = q->fmt.first[AF_POOL] >= 0;
        const unsigned char *b = in_rec->access, *end = b + in_rec->access_len;
        while (b < end) {
            const unsigned char *nl = memchr(b, '\n', (size_t)(end - b));
            size_t len = nl ? (size_t)(nl - b) : (size_t)(end - b);
            const unsigned char *line = b;
            b += len + (nl != NULL);
            q->access_lines++;
            if (!read)
                continue;
            cs_line l;
            cs_verdict v = cs_read(&q->m, &q->fmt, line, len, &l);
            if (v == CS_UNPARSABLE) {
                q->access_unparsable++;
                continue;
            }
            round_pool *t = &pl->work[i];
            if (by_name && l.has_pool)
                t = round_pool_named(pl, n, l.pool, l.pool_len);
            if (!t || !t->access || !t->pool->censused) {
                q->access_other_pool++; /* 20.3: no pool of the round it could be */
                continue;
            }
            if (v == CS_INVALID) {
                t->pool->filtered[RD_INVALID]++;
                continue;
            }
            reading_ctx ctx = {pl, h, t->pool, r, 1, contended,
                               pair_waits(h, t->pool, usable), 0, t};
            line_reading(&ctx, &l, t->rate);
            if (ctx.nomem)
                return FPM_ENOMEM;
        }
    }
    return 0;
}
