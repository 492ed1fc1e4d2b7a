/* The what-if arithmetic of section 7 (and the cost of section 10). */
#include "whatif.h"
#include "bounds.h"
#include "memory.h"
#include "rc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int whatif_differs(const wi_scenario *sc)
{
    return sc->has_host_millicores || sc->has_mem_limit || sc->headroom != WI_DEFAULT_HEADROOM || sc->nmax_children ||
           sc->cost != WI_COST_BUSY || sc->fit != WI_FIT_JOINT;
}

const char *whatif_source_name(wi_source s)
{
    static const char *const names[] = {NULL, "own", "host", "dominant"};
    return names[s];
}

int whatif_joint(const pl_host *h, joint_sol *sol, joint_pool *pools)
{
    size_t *order = malloc((h->npools ? h->npools : 1) * sizeof *order);
    if (!order)
        return FPM_ENOMEM;
    for (size_t i = 0; i < h->npools; i++)
        order[i] = h->pools[i]->jx; /* in name order */
    int rc = joint_solve(&h->j, order, h->npools, sol, pools);
    free(order);
    return rc;
}

/* 11.5 (or section 5 with --fit dominant): the overhead used and its source. */
static void overhead_of(wi_view *v, int fit, const joint_pool *jp, const joint_sol *sol)
{
    v->overhead = 1;
    v->overhead_se = -1;
    v->fit = jp && sol ? fit : WI_FIT_DOMINANT;
    if (jp)
        v->joint = *jp;
    if (sol)
        v->joint_n = sol->n;
    if (fit == WI_FIT_DOMINANT || !jp || !sol) {
        if (v->line.believed) {
            v->source = WI_SRC_DOMINANT;
            v->overhead = v->line.overhead;
        }
    } else if (sol->exists && jp->in_a && jp->believed) {
        v->source = WI_SRC_OWN;
        v->overhead = jp->slope < 1 ? 1 : jp->slope;
        v->overhead_se = jp->se;
    } else if (sol->common_exists && sol->common_believed) {
        v->source = WI_SRC_HOST;
        v->overhead = sol->common_slope < 1 ? 1 : sol->common_slope;
        v->overhead_se = sol->common_se;
    }
}

/* 11.2: the recovered share of a pool's ticks, two decimals. */
static void recovered_of(wi_view *v, const pl_pool *p)
{
    if (p->master_pairs == 0)
        return;
    v->has_recovered = 1;
    v->recovered_pct = p->ticks_all > 0 ? round(10000 * p->ticks_recovered / p->ticks_all) / 100
                                        : 0;
}

int64_t whatif_now(const pl_pool *p, const wi_scenario *sc)
{
    for (size_t i = sc->nmax_children; i-- > 0;)
        if (strlen(sc->max_children[i].pool) == p->name_len &&
            memcmp(sc->max_children[i].pool, p->name, p->name_len) == 0)
            return sc->max_children[i].max_children;
    return p->max_children;
}

wi_view whatif_pool_view(const pl_pool *p, uint64_t hm, int headroom, int64_t now)
{
    return whatif_pool_view_cost(p, hm, headroom, now, WI_COST_TYPICAL, WI_FIT_DOMINANT, NULL,
                                 NULL);
}

/* 17.6: C / 10000 / n, the CPU one request computed, in hundredths of a
 * millisecond, half away from zero. */
static void cpu_per_request(wi_view *v, const hist *h)
{
    if (h->total == 0)
        return;
    unsigned __int128 c = h->busy_c, n = h->total;
    v->cpu_ms_hundredths = (int64_t)((c + 50 * n) / (100 * n));
    v->has_cpu_ms = 1;
}

/* 18.6: php-fpm is in a scheduler group of its own where the host's
 * sched_group (16.4) says the cpu controller, or an autogroup. */
static wi_sharing sharing_of(const pl_host *h)
{
    if (!h || !h->has_sched)
        return WI_SHARE_THREADS;
    return h->cpu_controller == 1 ? WI_SHARE_CGROUP
           : h->autogroup         ? WI_SHARE_AUTOGROUP
                                  : WI_SHARE_THREADS;
}

void whatif_sharing_text(FILE *out, wi_sharing s, double rest_mc)
{
    if (s == WI_SHARE_THREADS)
        fprintf(out, "the kernel shares the CPU thread by thread: its workers compete with the "
                     "rest of the host's %.2f cores", rest_mc / 1000);
    else
        fprintf(out, "php-fpm runs in a scheduler group of its own (%s): the rest of the "
                     "host's %.2f cores compete as one group",
                s == WI_SHARE_CGROUP ? "its cgroup's cpu controller" : "autogroup",
                rest_mc / 1000);
}

/* 18.2: o, the rest of the host over the pairs behind the pool's
 * cores_mean (floored at 0 after the average), shared thread by thread
 * until sharing_apply says otherwise; 18.5: the share of the kept
 * readings' time that is not CPU; whether it predicts (a knee, 20 kept). */
static void predict_of(wi_view *v, const pl_pool *p, uint64_t hm)
{
    const pl_activity *a = &p->act;
    double o = a->seconds > 0 ? (a->host_core_seconds - a->core_seconds) / a->seconds * 1000 : 0;
    double in = a->seconds > 0 ? a->others_core_seconds / a->seconds * 1000 : 0;
    v->other_mc = o > 0 ? o : 0;
    v->others_mc = in > 0 ? in : 0;
    v->hm = (double)hm;
    v->sharing = WI_SHARE_THREADS;
    v->share_h = v->hm;
    v->share_o = v->rest_out_mc = v->other_mc;
    v->keep = pl_keep(p);
    double P, Q;
    pr_sums(v->keep, &P, &Q);
    v->rest_frac = P + Q > 0 ? Q / (P + Q) : 0;
    v->waited_frac = pr_waited(v->keep);
    v->predicts = v->has_fill && v->keep->n >= PR_MIN;
}

/* 18.6: in a group of its own, H is what php-fpm's group can have, G =
 * max(H - o_out, H / 2), and o the other pools' part of the rest, o_in
 * (o_out = max(0, o - o_in) the rest outside php-fpm). */
static void sharing_apply(wi_view *v, const pl_host *h)
{
    v->sharing = sharing_of(h);
    if (v->sharing == WI_SHARE_THREADS)
        return;
    double o_out = v->other_mc - v->others_mc;
    v->rest_out_mc = o_out > 0 ? o_out : 0;
    v->share_h = v->hm - v->rest_out_mc > v->hm / 2 ? v->hm - v->rest_out_mc : v->hm / 2;
    v->share_o = v->others_mc;
}

int whatif_predict(const wi_view *v, double n, int64_t *p50, int64_t *p95)
{
    if (!v->predicts)
        return -1;
    return pr_predict(v->keep, v->share_h, (double)v->host_millicores_per_worker, v->share_o, n,
                      p50, p95);
}

int whatif_routes(const pl_pool *p, const wi_view *v, rt_fig **out, size_t *n)
{
    int rc = rt_figures(&p->routes, out, n);
    if (rc != 0 || *n == 0)
        return rc;
    const pr_keep *k = pl_keep(p);
    /* 19.3: at the advice, k(advice) of 18.2 over all of the pool's kept
     * readings, where 18.4's at_advice exists */
    double at = v->predicts && v->advice >= 1
        ? pr_stretch_at(k, v->share_h, (double)v->host_millicores_per_worker, v->share_o,
                        (double)v->advice)
        : -1;
    for (size_t i = 0; i < *n; i++) {
        rt_fig *f = &(*out)[i];
        int64_t p50, p95;
        if ((rc = pr_route(k, f->slot, 1.0, &p50, &p95)) != 0)
            continue;
        f->p50_ms = p50;
        f->p95_ms = p95;
        if (at > 0 && (rc = pr_route(k, f->slot, at, &p50, &p95)) == 0)
            f->p95_at_advice_ms = p95;
    }
    if (rc == FPM_ENOMEM) {
        free(*out);
        *out = NULL;
        *n = 0;
        return rc;
    }
    return 0;
}

wi_view whatif_pool_view_cost(const pl_pool *p, uint64_t hm, int headroom, int64_t now,
                                   int cost_of, int fit, const joint_pool *jp,
                                   const joint_sol *sol)
{
    wi_view v = {0};
    v.w_mib = v.mem_ceiling = v.advice = -1;
    v.line = fit_solve(&p->f);
    overhead_of(&v, fit, jp, sol);
    recovered_of(&v, p);
    v.now = now > 0 ? now : 0;
    if (pl_hist(p)->total > 0) {
        v.has_typical = 1;
        v.typical_pct = hist_floor_pct(hist_percentile(pl_hist(p), 50));
        v.p90_pct = hist_floor_pct(hist_percentile(pl_hist(p), 90));
    }
    if (pl_hist(p)->total < WI_MIN_READINGS)
        return v;
    v.shape = v.typical_pct >= 50 ? "cpu-bound" : v.typical_pct >= 20 ? "mixed" : "i/o-bound";
    v.php_millicores = (int64_t)v.typical_pct * 10;
    v.has_busy = hist_busy(pl_hist(p), &v.busy_hundredths, &v.busy_millicores) == 0;
    cpu_per_request(&v, pl_hist(p));
    int64_t php = cost_of == WI_COST_BUSY && v.has_busy ? v.busy_millicores : v.php_millicores;
    v.host_millicores_per_worker = v.source != WI_SRC_NONE
        ? (int64_t)round((double)php * v.overhead)
        : php;
    int64_t cost = v.host_millicores_per_worker;
    if (cost <= 0 || hm == 0)
        return v;
    if (pl_under_contention(p)) { /* 17.4: a floor gives no ceiling */
        v.floor = 1;
        return v;
    }
    /* 17.5: the knee, hm / cost, where the two bounds of 15.1 meet; the
     * ceiling the most workers whose requests take at most headroom times
     * as long as alone (N x D / C <= headroom x R), the host's cores + 1 at
     * the least */
    v.has_fill = 1;
    v.knee_hundredths = ((int64_t)hm * 200 + cost) / (2 * cost);
    v.knee = (double)hm / (double)cost;
    /* the fewest workers that give 95% of what the host allows: the
     * smallest N >= 1 with 100 x N x cost >= 95 x hm (a measured knee of
     * 2.04 is 2 workers, not 3); hm >= 1 makes it at least 1 */
    v.fill = ((int64_t)hm * 95 + 100 * cost - 1) / (100 * cost);
    int64_t by_headroom = (int64_t)hm * headroom / (cost * 100);
    int64_t by_cores = ((int64_t)hm + 999) / 1000 + 1;
    v.ceiling = by_headroom > by_cores ? by_headroom : by_cores;
    v.ceiling_by_headroom = by_headroom >= by_cores;
    predict_of(&v, p, hm);
    if (v.now > 0)
        v.limit = v.now > v.ceiling ? WI_LIMIT_CPU : WI_LIMIT_WORKERS;
    return v;
}

/* a x b + c, saturated at INT64_MAX (all >= 0) */
static int64_t mul_add_sat(int64_t a, int64_t b, int64_t c)
{
    int64_t p;
    if (__builtin_mul_overflow(a, b, &p) || __builtin_add_overflow(p, c, &p))
        return INT64_MAX;
    return p;
}

void whatif_host_needs(const wi_view *v, size_t n, int64_t *now, int64_t *ceil_)
{
    *now = *ceil_ = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].shape && v[i].now > 0)
            *now = mul_add_sat(v[i].now, v[i].host_millicores_per_worker, *now);
        if (v[i].has_fill)
            *ceil_ = mul_add_sat(v[i].ceiling, v[i].host_millicores_per_worker, *ceil_);
    }
}

uint64_t whatif_host_millicores(const pl_host *h, const wi_scenario *sc)
{
    return sc->has_host_millicores ? sc->host_millicores : h->host_millicores;
}

/* 14.3: M in the scenario: --mem-limit, else MEMINFO's (MemTotal, or the
 * limit), else the HOST's limit where no round had MEMINFO; 0 unknown. */
static uint64_t mem_total(const pl_host *h, const wi_scenario *sc)
{
    if (sc->has_mem_limit)
        return sc->mem_limit;
    return h->has_mem_total ? h->mem_total : h->mem_limit;
}

const char *whatif_limit_name(wi_limit l)
{
    static const char *const names[] = {NULL, "cpu", "workers", "memory"};
    return names[l];
}

const char *whatif_binds_name(wi_binds b)
{
    static const char *const names[] = {NULL, "cpu", "memory"};
    return names[b];
}

const char *whatif_wsource_name(wi_wsource s)
{
    static const char *const names[] = {NULL, "measured", "estimated"};
    return names[s];
}

const char *whatif_no_advice_text(wi_no_advice r)
{
    static const char *const text[] = {
        [WI_NA_NONE] = "",
        [WI_NA_NO_CEILING] = "no CPU ceiling (too few readings, no cost measured, or the "
                             "host's size unknown)",
        [WI_NA_FLOOR] = "no CPU ceiling: its shares are floors (measured while it waited for "
                        "the CPU, its waits not recorded)",
        [WI_NA_NO_PAGE] = "the log gives no page size (an older recorder): no memory figures",
        [WI_NA_NO_MEMORY] = "no memory readings (a log without STATM, or a status page without "
                            "`last request memory`)",
        [WI_NA_ESTIMATED] = "too few memory readings yet (20 are needed): its memory is an "
                            "estimate, which counts it beside the others but never cuts it",
        [WI_NA_NO_MEMINFO] = "no MEMINFO in the window: what the host can give is unknown",
        [WI_NA_OTHER_W] = "a pool beside it has workers and no memory figures at all (no "
                          "STATM): the host's memory cannot be shared out",
        [WI_NA_NO_ROOM] = "the host's memory cannot hold one of its workers beside the others",
    };
    return text[r];
}

const char *whatif_no_advice_name(wi_no_advice r)
{
    static const char *const name[] = {
        [WI_NA_NONE] = NULL,
        [WI_NA_NO_CEILING] = "no_ceiling",
        [WI_NA_FLOOR] = "floor",
        [WI_NA_NO_PAGE] = "no_page_size",
        [WI_NA_NO_MEMORY] = "no_memory",
        [WI_NA_ESTIMATED] = "estimated",
        [WI_NA_NO_MEMINFO] = "no_meminfo",
        [WI_NA_OTHER_W] = "other_pool_unknown",
        [WI_NA_NO_ROOM] = "no_room",
    };
    return name[r];
}

/* x / 10^-2 of a fraction num / den >= 0, half away from zero */
static int64_t hundredths(__int128 num, __int128 den)
{
    return (int64_t)((200 * num + den) / (2 * den));
}

/* 14.4: each pool's W and where it comes from, whether it had workers, and
 * the workers it counts at (now, else the most it had in one round). */
static void memory_w(const pl_host *h, wi_view *v)
{
    for (size_t i = 0; i < h->npools; i++) {
        const pl_pool *p = h->pools[i];
        wi_view *x = &v[i];
        x->w_mib = mem_w_mib(&p->mem);
        x->w_source = x->w_mib >= 0 ? WI_W_MEASURED : WI_W_NONE;
        if (x->w_mib < 0 && (p->mem.total > 0 || p->has_private)) {
            uint64_t most = p->has_private && p->private_max > p->mem.max_bytes
                                ? p->private_max : p->mem.max_bytes;
            x->w_mib = mem_estimate_mib(most);
            x->w_source = WI_W_ESTIMATED;
        }
        x->with_workers = p->most_workers > 0 || x->w_source != WI_W_NONE;
        x->now_guessed = x->now <= 0;
        x->mem_now = x->now > 0 ? x->now : p->most_workers;
        x->sized = x->has_fill && x->w_source == WI_W_MEASURED;
        if (x->sized) {
            int64_t a = p->act.active_max > 1 ? p->act.active_max : 1;
            x->need = a < x->ceiling ? a : x->ceiling;
        }
    }
}

/* 14.5's sums: what the workers with a W would hold at now and at the
 * advice (or now where none); -1 with no W at all or no MEMINFO. */
static void memory_sums(const pl_host *h, const wi_view *v, wi_memory *m)
{
    int any_w = 0;
    m->needed_now = m->needed_at_advice = -1;
    for (size_t i = 0; i < h->npools; i++) {
        const wi_view *x = &v[i];
        if (!x->with_workers || x->w_source == WI_W_NONE)
            continue;
        any_w = 1;
        int64_t w = x->w_mib * (int64_t)MEM_MIB;
        if (x->now > 0)
            m->needed_now = mul_add_sat(x->now, w, m->needed_now < 0 ? 0 : m->needed_now);
        int64_t at = x->advice >= 0 ? x->advice : x->mem_now;
        m->needed_at_advice = mul_add_sat(at, w, m->needed_at_advice < 0 ? 0 : m->needed_at_advice);
    }
    if (!h->has_mem_total || !any_w) /* 14.5: null only with no W at all or no MEMINFO */
        m->needed_now = m->needed_at_advice = -1;
    else {
        m->needed_now = m->needed_now < 0 ? 0 : m->needed_now;
        m->needed_at_advice = m->needed_at_advice < 0 ? 0 : m->needed_at_advice;
    }
}

/* 14.5: how the host's memory is shared, from the views memory_w filled
 * (and, for its sums, the advices): the sums, B less the held pools, f and
 * g.  The one place these are decided; memory_views applies them. */
void whatif_host_memory(const pl_host *h, const wi_scenario *sc, const wi_view *v,
                        wi_memory *m)
{
    memset(m, 0, sizeof *m);
    m->needed_now = m->needed_at_advice = m->needs_hundredths = m->room_hundredths = -1;
    m->total = mem_total(h, sc);
    m->has_total = m->total > 0;
    m->has_budget = h->has_mem && m->has_total;
    m->has_php = h->has_php;
    m->php_max = h->mem_php_max;
    if (m->has_budget) {
        m->other_max = h->mem_other_max;
        m->budget = mem_budget(m->total, m->other_max);
    }
    memory_sums(h, v, m);
    __int128 held = 0, ceil_w = 0, need_w = 0;
    for (size_t i = 0; i < h->npools; i++) {
        const wi_view *x = &v[i];
        if (!x->with_workers)
            continue;
        if (x->w_source == WI_W_NONE) {
            m->unknown_w = 1;
            continue;
        }
        int64_t w = x->w_mib * (int64_t)MEM_MIB;
        if (x->sized) {
            m->nsized++;
            ceil_w += (__int128)x->ceiling * w;
            need_w += (__int128)x->need * w;
        } else {
            m->nheld++;
            held += (__int128)x->mem_now * w;
        }
    }
    if (!m->has_budget || m->unknown_w || m->nsized == 0)
        return;
    m->shared = 1;
    __int128 bs = (__int128)m->budget - held;
    m->ceilings_bytes = ceil_w;
    m->needs_bytes = need_w;
    m->sized_budget = bs;
    if (ceil_w <= bs) {
        m->binds = WI_BINDS_CPU;
        m->needs_hundredths = m->room_hundredths = 100;
    } else if (need_w > bs) {
        m->binds = WI_BINDS_MEMORY;
        m->needs_hundredths = hundredths(bs > 0 ? bs : 0, need_w);
        m->room_hundredths = 0;
    } else {
        m->binds = WI_BINDS_MEMORY;
        m->needs_hundredths = 100;
        m->room_hundredths = hundredths(bs - need_w, ceil_w - need_w);
    }
}

/* 14.5: a sized pool's advice from the share, in integers; -1 under one
 * worker. */
static int64_t advice_of(const wi_view *x, const wi_memory *m)
{
    __int128 bs = m->sized_budget, a;
    if (m->binds == WI_BINDS_CPU)
        return x->ceiling;
    if (m->needs_bytes > bs) /* every sized pool the same fraction of its need */
        a = (__int128)x->need * (bs > 0 ? bs : 0) / m->needs_bytes;
    else /* each its need, and the same fraction of the room above it */
        a = x->need + (__int128)(x->ceiling - x->need) * (bs - m->needs_bytes) /
                          (m->ceilings_bytes - m->needs_bytes);
    return a >= 1 ? (int64_t)a : -1;
}

/* 14.4 and 14.5: each pool's W, the host's advice as one, each pool's
 * memory ceiling beside the others at their advice (or now), and limit;
 * how the host's memory was shared in *mo. */
static void memory_views(const pl_host *h, const wi_scenario *sc, wi_view *v, wi_memory *mo)
{
    memory_w(h, v);
    wi_memory m;
    whatif_host_memory(h, sc, v, &m);
    for (size_t i = 0; i < h->npools; i++) {
        wi_view *x = &v[i];
        if (x->sized && m.shared) { /* an advice under 1 is none; memory still binds */
            x->advice = advice_of(x, &m);
            x->binds = m.binds;
        }
        x->no_advice = x->advice >= 0          ? WI_NA_NONE
                       : x->floor              ? WI_NA_FLOOR
                       : !x->has_fill          ? WI_NA_NO_CEILING
                       : !h->had_page_size     ? WI_NA_NO_PAGE
                       : x->w_source == WI_W_NONE ? WI_NA_NO_MEMORY
                       : x->w_source == WI_W_ESTIMATED ? WI_NA_ESTIMATED
                       : !m.has_budget         ? WI_NA_NO_MEMINFO
                       : m.unknown_w           ? WI_NA_OTHER_W
                                               : WI_NA_NO_ROOM;
    }
    for (size_t i = 0; m.has_budget && !m.unknown_w && i < h->npools; i++) {
        wi_view *x = &v[i];
        if (x->w_source != WI_W_MEASURED)
            continue;
        __int128 others = 0; /* every other pool at its advice, else at now */
        for (size_t q = 0; q < h->npools; q++)
            if (q != i && v[q].with_workers)
                others += (__int128)(v[q].advice >= 0 ? v[q].advice : v[q].mem_now) *
                          v[q].w_mib * (__int128)MEM_MIB;
        __int128 room = (__int128)m.budget - others, w = (__int128)x->w_mib * MEM_MIB;
        x->mem_ceiling = room > 0 ? (int64_t)(room / w) : 0;
    }
    for (size_t i = 0; i < h->npools; i++) {
        wi_view *x = &v[i];
        if (x->advice >= 0 && x->now > 0)
            x->limit = x->now <= x->advice ? WI_LIMIT_WORKERS
                       : x->binds == WI_BINDS_MEMORY ? WI_LIMIT_MEMORY : WI_LIMIT_CPU;
    }
    memory_sums(h, v, &m); /* at the advices just decided */
    *mo = m;
}

/* 18.4: the prediction at n workers (none under 1 or without one). */
static int pred_at(const wi_view *v, int64_t n, wi_pred *out)
{
    *out = (wi_pred){0};
    int64_t p50, p95;
    int rc = n >= 1 ? whatif_predict(v, (double)n, &p50, &p95) : -1;
    if (rc == 0)
        *out = (wi_pred){1, n, p50, p95};
    return rc == FPM_ENOMEM ? rc : 0;
}

/* 15.1, 15.2, 18.4: the bounds' model, and advise's lines at 1, the knee,
 * now, the advice and the scenario's --at, each at its exact N. */
static int lines_of(wi_view *v, const pl_pool *p, uint64_t hm, const wi_scenario *sc)
{
    bd_model b;
    v->nlines = 0;
    v->has_bounds = v->has_fill && bounds_model(p, v, hm, &b) == 0;
    if (!v->has_bounds)
        return 0;
    v->bd_r = b.r, v->bd_d = b.d, v->bd_c = b.c;
    bd_point pts[4 + WI_MAX_AT];
    size_t np = bounds_points(v, sc->at, sc->nat < WI_MAX_AT ? sc->nat : WI_MAX_AT, pts);
    for (size_t k = 0; k < np; k++) {
        wi_line *l = &v->lines[v->nlines++];
        *l = (wi_line){pts[k].n, pts[k].hundredths, bounds_max_rps(&b, pts[k].n),
                       bounds_min_ms(&b, pts[k].n), 0, 0, 0};
        int rc = whatif_predict(v, pts[k].n, &l->p50_ms, &l->p95_ms);
        if (rc == FPM_ENOMEM)
            return rc;
        l->has_pred = rc == 0;
    }
    return 0;
}

void whatif_views_free(wi_view *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i].routes);
    free(v);
}

/* The views of a host's pools in the scenario, the joint fit's solution in
 * *sol (may be NULL) and how the memory was shared in *mem (may be NULL);
 * NULL on ENOMEM. */
static wi_view *views_of(const pl_host *h, const wi_scenario *sc, joint_sol *sol_out,
                         wi_memory *mem)
{
    wi_memory m;
    wi_view *v = calloc(h->npools ? h->npools : 1, sizeof *v);
    joint_pool *jp = calloc(h->npools ? h->npools : 1, sizeof *jp);
    joint_sol sol;
    if (!v || !jp || whatif_joint(h, &sol, jp) != 0) {
        free(v);
        free(jp);
        return NULL;
    }
    uint64_t hm = whatif_host_millicores(h, sc);
    for (size_t i = 0; i < h->npools; i++) {
        v[i] = whatif_pool_view_cost(h->pools[i], hm, sc->headroom, whatif_now(h->pools[i], sc),
                                     sc->cost, sc->fit, &jp[i], &sol);
        sharing_apply(&v[i], h);
    }
    free(jp);
    memory_views(h, sc, v, &m);
    for (size_t i = 0; i < h->npools; i++) /* with the advice known */
        if (pred_at(&v[i], v[i].now, &v[i].at_now) || pred_at(&v[i], v[i].advice, &v[i].at_advice) ||
            lines_of(&v[i], h->pools[i], hm, sc) ||
            whatif_routes(h->pools[i], &v[i], &v[i].routes, &v[i].nroutes)) {
            whatif_views_free(v, h->npools);
            return NULL;
        }
    if (sol_out)
        *sol_out = sol;
    if (mem)
        *mem = m;
    return v;
}

wi_view *whatif_views(const pl_host *h, const wi_scenario *sc)
{
    return views_of(h, sc, NULL, NULL);
}

/* The views as measured: the host's own size, headroom 2, its own max. */
wi_view *whatif_measured_views(const pl_host *h)
{
    wi_scenario m = {.headroom = WI_DEFAULT_HEADROOM}; /* and the joint fit */
    return whatif_views(h, &m);
}

int whatif_host(const pl_host *h, const wi_scenario *sc, wi_host *a)
{
    wi_scenario measured = {.headroom = WI_DEFAULT_HEADROOM, .at = sc->at, .nat = sc->nat};
    *a = (wi_host){.h = h, .hm = whatif_host_millicores(h, sc), .n = h->npools};
    if (!(a->v = views_of(h, sc, &a->joint, &a->mem))) {
        whatif_host_free(a);
        return FPM_ENOMEM;
    }
    whatif_host_needs(a->v, a->n, &a->needed_now, &a->needed_at_ceiling);
    if (!whatif_differs(sc)) { /* the scenario is what was measured: decided once */
        a->m = a->v;
        a->mem_m = a->mem;
        a->needed_now_m = a->needed_now;
        a->needed_at_ceiling_m = a->needed_at_ceiling;
        return 0;
    }
    if (!(a->m = views_of(h, &measured, NULL, &a->mem_m))) {
        whatif_host_free(a);
        return FPM_ENOMEM;
    }
    whatif_host_needs(a->m, a->n, &a->needed_now_m, &a->needed_at_ceiling_m);
    return 0;
}

void whatif_host_free(wi_host *a)
{
    if (a->m != a->v) /* one set where the scenario is what was measured */
        whatif_views_free(a->m, a->n);
    whatif_views_free(a->v, a->n);
    a->v = a->m = NULL;
}

int whatif_answers(const pipeline *pl, const wi_scenario *sc, wi_answers *out)
{
    pl_host *const *hosts;
    size_t n = pipeline_hosts(pl, &hosts);
    *out = (wi_answers){calloc(n ? n : 1, sizeof *out->host), 0};
    if (!out->host)
        return FPM_ENOMEM;
    for (; out->n < n; out->n++)
        if (whatif_host(hosts[out->n], sc, &out->host[out->n]) != 0) {
            whatif_answers_free(out);
            return FPM_ENOMEM;
        }
    return 0;
}

void whatif_answers_free(wi_answers *a)
{
    for (size_t i = 0; a->host && i < a->n; i++)
        whatif_host_free(&a->host[i]);
    free(a->host);
    *a = (wi_answers){0};
}
