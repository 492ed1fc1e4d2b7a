/* The what-if arithmetic of section 7 (and the cost of section 10). */
#include "whatif.h"
#include "whatif_int.h"
#include "bounds.h"
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
    unsigned __int128 c = h->busy_c, n = h->total * (unsigned __int128)hist_per_ms(h);
    v->cpu_ms_hundredths = (int64_t)((c + 50 * n) / (100 * n)); /* 20.6: C / 10000 / n / 1000 */
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

int64_t whatif_rate_hundredths(uint64_t requests, uint64_t ns)
{
    if (ns == 0)
        return -1;
    unsigned __int128 a = (unsigned __int128)requests * 100000000000ull; /* x 100 x 10^9 */
    unsigned __int128 x = (2 * a + ns) / (2 * (unsigned __int128)ns);
    return x > INT64_MAX ? INT64_MAX : (int64_t)x;
}

/* 20.6: a censused pool's requests, their rate and what they measured.
 * 0, FPM_ENOMEM. */
static int census_of(const pl_pool *p, wi_view *v)
{
    v->censused = p->censused;
    v->rps_hundredths = -1;
    if (!p->censused)
        return 0;
    v->requests = p->requests;
    v->rps_hundredths = whatif_rate_hundredths(p->rate_requests, p->rate_ns);
    int rc = pr_measured(&p->times, PR_ALL_ROUTES, &v->measured_p50, &v->measured_p95);
    v->has_measured = rc == 0;
    return rc == FPM_ENOMEM ? rc : 0;
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
        f->censused = p->censused;
        f->rps_h = p->censused ? whatif_rate_hundredths(f->rate_requests, p->rate_ns) : -1;
        if (p->censused && (rc = pr_measured(&p->times, f->slot, &p50, &p95)) == 0) {
            f->p50_ms = p50; /* 20.6: what its requests measured */
            f->p95_ms = p95;
        }
        if (rc == FPM_ENOMEM || (rc = pr_route(k, f->slot, 1.0, &p50, &p95)) == FPM_ENOMEM)
            break;
        if (rc != 0)
            continue;
        if (!p->censused) {
            f->p50_ms = p50;
            f->p95_ms = p95;
        }
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
    whatif_memory_views(h, sc, v, &m);
    for (size_t i = 0; i < h->npools; i++) /* with the advice known */
        if (pred_at(&v[i], v[i].now, &v[i].at_now) || pred_at(&v[i], v[i].advice, &v[i].at_advice) ||
            lines_of(&v[i], h->pools[i], hm, sc) || census_of(h->pools[i], &v[i]) ||
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
