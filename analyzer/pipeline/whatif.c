/* The what-if arithmetic of section 7 (and the cost of section 10). */
#include "whatif.h"
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
    v.fill = ((int64_t)hm + cost - 1) / cost;
    int64_t by_headroom = (int64_t)hm * headroom / (cost * 100);
    int64_t by_cores = ((int64_t)hm + 999) / 1000 + 1;
    v.ceiling = by_headroom > by_cores ? by_headroom : by_cores;
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

/* 14.3: M in the scenario, 0 unknown. */
static uint64_t mem_total(const pl_host *h, const wi_scenario *sc)
{
    if (!h->has_mem)
        return 0;
    return sc->has_mem_limit ? sc->mem_limit : h->mem_total;
}

void whatif_host_memory(const pl_host *h, const wi_scenario *sc, const wi_view *v,
                        wi_memory *m)
{
    memset(m, 0, sizeof *m);
    m->needed_now = m->needed_at_advice = -1;
    if (h->has_mem) {
        m->has_total = 1;
        m->total = mem_total(h, sc);
        m->other_max = h->mem_other_max;
        m->php_max = h->mem_php_max;
        m->budget = mem_budget(m->total, m->other_max);
    }
    for (size_t i = 0; i < h->npools; i++) {
        if (v[i].w_mib < 0)
            continue;
        int64_t w = v[i].w_mib * (int64_t)MEM_MIB;
        m->needed_now = mul_add_sat(v[i].mem_now, w, m->needed_now < 0 ? 0 : m->needed_now);
        if (v[i].advice >= 0)
            m->needed_at_advice = mul_add_sat(v[i].advice, w,
                                              m->needed_at_advice < 0 ? 0 : m->needed_at_advice);
    }
}

/* 14.4 and 14.5: each pool's W, memory ceiling beside the others at their
 * maximum, and the advice with what binds it; limit as 14.5 says. */
static void memory_views(const pl_host *h, const wi_scenario *sc, wi_view *v)
{
    for (size_t i = 0; i < h->npools; i++) {
        const pl_pool *p = h->pools[i];
        v[i].w_mib = mem_w_mib(&p->mem);
        v[i].mem_now = v[i].now > 0 ? v[i].now : p->most_workers;
    }
    /* what every pool with workers holds at its maximum, and how many of
     * them have no W: each pool's others are that less its own */
    int64_t all = 0;
    size_t unknown = 0;
    for (size_t q = 0; q < h->npools; q++) {
        if (h->pools[q]->most_workers == 0)
            continue; /* a pool without workers */
        if (v[q].w_mib < 0)
            unknown++;
        else
            all = mul_add_sat(v[q].mem_now, v[q].w_mib * (int64_t)MEM_MIB, all);
    }
    uint64_t budget = mem_budget(mem_total(h, sc), h->mem_other_max);
    for (size_t i = 0; h->has_mem && i < h->npools; i++) {
        if (v[i].w_mib < 0 || unknown > 0)
            continue; /* its own W, or another pool's, not known */
        int64_t own = h->pools[i]->most_workers == 0
                          ? 0 : mul_add_sat(v[i].mem_now, v[i].w_mib * (int64_t)MEM_MIB, 0);
        int64_t others = all == INT64_MAX ? INT64_MAX : all - own;
        uint64_t room = budget > (uint64_t)others ? budget - (uint64_t)others : 0;
        v[i].mem_ceiling = (int64_t)(room / ((uint64_t)v[i].w_mib * MEM_MIB));
    }
    for (size_t i = 0; i < h->npools; i++) {
        wi_view *x = &v[i];
        if (!x->has_fill || x->mem_ceiling < 0)
            continue; /* a ceiling alone is not advised (14.5) */
        int mem = x->mem_ceiling <= x->ceiling;
        x->advice = mem ? x->mem_ceiling : x->ceiling;
        x->binds = mem ? "memory" : "cpu";
        if (x->now > 0)
            x->limit = x->now <= x->advice ? WI_LIMIT_WORKERS : mem ? WI_LIMIT_MEMORY : WI_LIMIT_CPU;
    }
}

wi_view *whatif_views(const pl_host *h, const wi_scenario *sc)
{
    wi_view *v = calloc(h->npools ? h->npools : 1, sizeof *v);
    joint_pool *jp = calloc(h->npools ? h->npools : 1, sizeof *jp);
    joint_sol sol;
    if (!v || !jp || whatif_joint(h, &sol, jp) != 0) {
        free(v);
        free(jp);
        return NULL;
    }
    uint64_t hm = whatif_host_millicores(h, sc);
    for (size_t i = 0; i < h->npools; i++)
        v[i] = whatif_pool_view_cost(h->pools[i], hm, sc->headroom, whatif_now(h->pools[i], sc),
                                     sc->cost, sc->fit, &jp[i], &sol);
    free(jp);
    memory_views(h, sc, v);
    return v;
}

/* The views as measured: the host's own size, headroom 2, its own max. */
wi_view *whatif_measured_views(const pl_host *h)
{
    wi_scenario m = {.headroom = WI_DEFAULT_HEADROOM}; /* and the joint fit */
    return whatif_views(h, &m);
}
