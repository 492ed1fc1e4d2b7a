/* fpm-analyze check: what got worse than the baseline. */
#include "check.h"
#include "rc.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "figures.h"
#include "signals.h"

static int shape_rank(const char *s)
{
    if (!s)
        return FPM_EFAIL;
    return strcmp(s, "cpu-bound") == 0 ? 2 : strcmp(s, "mixed") == 0 ? 1 : 0;
}

static int bucket_of_pct(const json_t *v, int *b)
{
    if (!json_is_integer(v))
        return 0;
    *b = hist_bucket((int64_t)json_integer_value(v) * 100);
    return 1;
}

/* The overhead like with like: a baseline's from section 11 ("own" or
 * "host") against this log's section 11 overhead, one from section 5
 * ("dominant", or a baseline older than overhead_source) against section
 * 5's.  v is the joint view (its line is section 5's).  A rise past
 * rise_pct, or an overhead believed then and not now, is a regression. */
static int compare_overhead(FILE *out, const char *hname, const char *pname, const json_t *bp,
                            const wi_view *v, double rise_pct)
{
    const json_t *bo = json_object_get(bp, "overhead");
    if (!json_is_number(bo))
        return 0;
    const char *bsrc = json_string_value(json_object_get(bp, "overhead_source"));
    int joint = bsrc && (strcmp(bsrc, "own") == 0 || strcmp(bsrc, "host") == 0);
    int has = joint ? v->source == WI_SRC_OWN || v->source == WI_SRC_HOST : v->line.believed;
    double now = joint ? v->overhead : v->line.overhead, was = json_number_value(bo);
    const char *how = joint ? "joint fit" : "--fit dominant";
    if (!has) {
        fprintf(out, "%s %s: overhead %.2fx (%s) in the baseline, not believed now\n", hname,
                pname, was, how);
        return 1;
    }
    if (now > was * (1 + rise_pct / 100.0)) {
        fprintf(out, "%s %s: overhead %.2fx -> %.2fx (%s, up %.0f%%, at most %g%%)\n", hname,
                pname, was, now, how, 100.0 * (now / was - 1), rise_pct);
        return 1;
    }
    return 0;
}

/* A share (figures.h, CHK_SHARE) up by more than tol buckets. */
static int compare_share(FILE *out, const char *hname, const char *pname, const json_t *bp,
                         const fig_entry *e, const pl_pool *p, const wi_view *v, int tol)
{
    fig_value x = {0};
    e->get(p, v, &x);
    const json_t *bv = json_object_get(bp, e->key);
    if (!x.has)
        return 0;
    if (e->kind == FIG_INT) { /* a whole percentage */
        int b;
        if (!bucket_of_pct(bv, &b))
            return 0;
        int up = hist_bucket(x.i * 100) - b;
        if (up <= tol)
            return 0;
        fprintf(out, "%s %s: %s %lld%% -> %lld%% (up %d bucket%s, tolerance %d)\n", hname, pname,
                e->label, (long long)json_integer_value(bv), (long long)x.i, up,
                up == 1 ? "" : "s", tol);
        return 1;
    }
    if (!json_is_number(bv)) /* hundredths */
        return 0;
    int64_t was = (int64_t)llround(json_number_value(bv) * 100);
    int up = hist_bucket(x.i) - hist_bucket(was < 0 ? 0 : was);
    if (up <= tol)
        return 0;
    char now[ESC_HUNDREDTHS];
    fprintf(out, "%s %s: %s %.2f%% -> %s%% (up %d bucket%s, tolerance %d)\n", hname, pname,
            e->label, json_number_value(bv), esc_hundredths(now, x.i), up, up == 1 ? "" : "s",
            tol);
    return 1;
}

/* The shape (CHK_SHAPE): none now where the baseline had one, or more
 * CPU-bound than it. */
static int compare_shape(FILE *out, const char *hname, const char *pname, const json_t *bp,
                         const pl_pool *p, const wi_view *v)
{
    const char *bshape = json_string_value(json_object_get(bp, "shape"));
    if (bshape && !v->shape) {
        fprintf(out, "%s %s: too few readings now (%u) to call a shape; the baseline "
                     "was %s\n", hname, pname, pl_hist(p)->total, bshape);
        return 1;
    }
    if (bshape && shape_rank(v->shape) > shape_rank(bshape)) {
        fprintf(out, "%s %s: shape %s -> %s\n", hname, pname, bshape, v->shape);
        return 1;
    }
    return 0;
}

/* A count (CHK_MORE) above the baseline's. */
static int compare_more(FILE *out, const char *hname, const char *pname, const json_t *bp,
                        const fig_entry *e, const pl_pool *p, const wi_view *v)
{
    fig_value x = {0};
    e->get(p, v, &x);
    json_int_t was = json_integer_value(json_object_get(bp, e->key));
    if (!x.has || x.i <= (int64_t)was)
        return 0;
    fprintf(out, "%s %s: %s %lld -> %lld (%s)\n", hname, pname, e->label, (long long)was,
            (long long)x.i, e->detail);
    return 1;
}

/* A figure (CHK_RISE, hundredths) up by more than 20%, and 10% more per
 * step of the tolerance: "cpu per request 164.20 ms -> 231.80 ms (+41%)". */
static int compare_rise(FILE *out, const char *hname, const char *pname, const json_t *bp,
                        const fig_entry *e, const pl_pool *p, const wi_view *v, int tol)
{
    fig_value x = {0};
    e->get(p, v, &x);
    const json_t *bv = json_object_get(bp, e->key);
    if (!x.has || !json_is_number(bv) || json_number_value(bv) <= 0)
        return 0;
    double was = json_number_value(bv), now = (double)x.i / 100, rise = 100 * (now / was - 1);
    /* in hundredths, exactly: past was x (120 + 10 x tol) / 100 */
    long double lim = (long double)llround(was * 100) * (120 + 10.0L * tol);
    if ((long double)x.i * 100 <= lim)
        return 0;
    char b[ESC_HUNDREDTHS];
    const char *unit = e->kind == FIG_HUNDREDTHS && e->check == CHK_SHARE ? "%" : " ms";
    fprintf(out, "%s %s: %s %.2f%s -> %s%s (+%.0f%%)\n", hname, pname, e->label, was, unit,
            esc_hundredths(b, x.i), unit, rise);
    return 1;
}

/* 17.7: the share of a pool's readings that waited for the CPU (17.3), in
 * percent (capped at 100: the readings halve, the count does not); -1 with
 * no readings. */
static int64_t waited_pct(int64_t contended, int64_t readings)
{
    if (readings <= 0)
        return -1;
    int64_t pct = (contended * 100 + readings / 2) / readings;
    return pct > 100 ? 100 : pct;
}

/* 14.6: W up by more than 20% and at least one bucket: "memory per worker
 * 34 MiB -> 48 MiB (+41%)". */
static int compare_memory(FILE *out, const char *hname, const char *pname, const json_t *bp,
                          const fig_entry *e, const wi_view *v)
{
    const json_t *bv = json_object_get(json_object_get(bp, "memory"), "per_worker_bytes");
    if (v->w_mib < 0 || !json_is_integer(bv) || json_integer_value(bv) <= 0)
        return 0;
    int64_t was = (int64_t)json_integer_value(bv), now = v->w_mib * (int64_t)MEM_MIB;
    if ((long double)now * 100 <= (long double)was * 120 ||
        mem_bucket((uint64_t)now - 1) <= mem_bucket((uint64_t)was - 1))
        return 0;
    fprintf(out, "%s %s: %s %.0f MiB -> %lld MiB (+%.0f%%)\n", hname, pname, e->label,
            (double)was / MEM_MIB, (long long)v->w_mib, 100.0 * ((double)now / (double)was - 1));
    return 1;
}

#define CHECK_ROUTE_MIN  20  /* 19.5: a route is compared from 20 readings on each side ... */
#define CHECK_ROUTE_RISE 120 /* ... and fails past 120% of its CPU per request ... */
#define CHECK_ROUTE_TICK_H 1200 /* ... and by more than 12 / sqrt(n) ms (here in hundredths):
                                    php-fpm counts a request's CPU in 10 ms ticks, a mean of n
                                    carries about 4.1 / sqrt(n) ms of rounding, a difference
                                    of two 5.8 / sqrt(n) */

/* The baseline route of name[0..len) in the array br, or NULL. */
static const json_t *baseline_route(const json_t *br, const char *name, size_t len)
{
    size_t i;
    const json_t *r;
    json_array_foreach(br, i, r) {
        const json_t *n = json_object_get(r, "route");
        if (json_is_string(n) && json_string_length(n) == len &&
            memcmp(json_string_value(n), name, len) == 0)
            return r;
    }
    return NULL;
}

/* 19.5: each route with 20 readings in the baseline and now whose CPU per
 * request rose by more than 20% (10% more per step of the tolerance) and by
 * more than 12 / sqrt(n) ms, n the smaller of its two counts (readings, or
 * a censused pool's requests), fails, named:
 * "web1 shop /checkout: cpu per request 120.00 ms -> 180.00 ms (+50%)"; one
 * with 20 readings on one side only is said.  A baseline without routes
 * sets *said (the caller says it once).  Returns how many failed. */
static int compare_routes(FILE *out, const char *hname, const char *pname, const json_t *bp,
                          const pl_pool *p, const wi_view *v, int tol, int *said)
{
    const json_t *br = json_object_get(bp, "routes");
    if (!json_is_array(br)) {
        *said = 1; /* said once, before the verdict */
        return 0;
    }
    (void)p;
    const rt_fig *f = v->routes;
    size_t n = v->nroutes;
    int worse = 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *b = baseline_route(br, f[i].name, f[i].len);
        json_int_t was_n = b ? json_integer_value(json_object_get(b, "readings")) : 0;
        int now_enough = f[i].readings >= CHECK_ROUTE_MIN, was_enough = was_n >= CHECK_ROUTE_MIN;
        if (!now_enough && !was_enough)
            continue;
        char *rn = esc_display_name(f[i].name, f[i].len, NULL);
        if (now_enough != was_enough) {
            fprintf(out, "%s %s %s: %lld readings %s, %lld %s: not compared\n", hname, pname,
                    rn ? rn : "?", (long long)(now_enough ? (json_int_t)f[i].readings : was_n),
                    now_enough ? "now" : "in the baseline",
                    (long long)(now_enough ? was_n : (json_int_t)f[i].readings),
                    now_enough ? "in the baseline" : "now");
        } else {
            const json_t *bv = json_object_get(b, "cpu_ms_per_request");
            double was = json_is_number(bv) ? json_number_value(bv) : 0;
            long double lim = (long double)llround(was * 100) * (CHECK_ROUTE_RISE + 10.0L * tol);
            /* rise / 100 > 12 / sqrt(n) in integers: rise^2 x n > 1200^2; n of a
             * censused pool's route its requests (20.6), where both sides have them */
            const json_t *wr = json_object_get(b, "requests");
            int census = f[i].censused && json_is_integer(wr);
            __int128 was_c = census ? json_integer_value(wr) : was_n;
            __int128 now_c = census ? (__int128)f[i].requests : (__int128)f[i].readings;
            __int128 least = was_c < now_c ? was_c : now_c;
            __int128 rise = (__int128)f[i].cpu_ms_h - llround(was * 100); /* hundredths of ms */
            if (was > 0 && (long double)f[i].cpu_ms_h * 100 > lim && rise > 0 &&
                rise * rise * least > CHECK_ROUTE_TICK_H * CHECK_ROUTE_TICK_H) {
                char now[ESC_HUNDREDTHS];
                fprintf(out, "%s %s %s: cpu per request %.2f ms -> %s ms (+%.0f%%)\n", hname,
                        pname, rn ? rn : "?", was, esc_hundredths(now, f[i].cpu_ms_h),
                        100 * ((double)f[i].cpu_ms_h / 100 / was - 1));
                worse++;
            }
        }
        free(rn);
    }
    /* a baseline route with 20 readings that the new log has none of */
    size_t k;
    const json_t *b;
    json_array_foreach(br, k, b) {
        const json_t *name = json_object_get(b, "route");
        if (!json_is_string(name) ||
            json_integer_value(json_object_get(b, "readings")) < CHECK_ROUTE_MIN)
            continue;
        int found = 0;
        for (size_t i = 0; i < n && !found; i++)
            found = f[i].len == json_string_length(name) &&
                    memcmp(f[i].name, json_string_value(name), f[i].len) == 0;
        if (!found) {
            char *rn = esc_display_name(json_string_value(name), json_string_length(name), NULL);
            fprintf(out, "%s %s %s: %lld readings in the baseline, none now: not compared\n",
                    hname, pname, rn ? rn : "?",
                    (long long)json_integer_value(json_object_get(b, "readings")));
            free(rn);
        }
    }
    return worse;
}

/* One pool against its baseline object bp: a line per figure of the table
 * (figures.h) that check compares and that got worse.  Returns how many. */
static int compare_pool(FILE *out, const char *hname, const char *pname, const json_t *bp,
                        const pl_pool *p, wi_view v, int tol, double rise_pct, int *said)
{
    int worse = 0;
    /* 17.3: shares that are floors are not compared with shares that are
     * not; the CPU per request, which no contention changes, still is */
    const json_t *bf = json_object_get(bp, "measured_under_contention");
    int was_floor = json_is_true(bf), floor = pl_under_contention(p);
    int shares = !json_is_boolean(bf) || was_floor == floor; /* an older baseline: as before */
    if (!shares) {
        fprintf(out, "%s %s: %s measured under contention and %s not: their shares are not "
                     "compared\n", hname, pname, was_floor ? "the baseline was" : "this log was",
                was_floor ? "this log was" : "the baseline was");
        worse++;
    } else if (was_floor && floor) {
        fprintf(out, "%s %s: note: both were measured under contention: their shares are "
                     "floors\n", hname, pname);
    }
    /* 17.7: a pool that waited (over 10% of its readings contended, then or
     * now) by its sums: single readings' buckets scatter with the wait */
    int64_t now_w = waited_pct((int64_t)p->contended_readings, pl_hist(p)->total);
    int64_t was_w = waited_pct(json_integer_value(json_object_get(bp, "contended_readings")),
                               json_integer_value(json_object_get(bp, "readings")));
    int waited = now_w > 10 || was_w > 10;
    if (shares && waited)
        fprintf(out, "%s %s: TYPICAL and P90 not compared: %lld%% of its readings waited for "
                     "the CPU; compared by busy share and CPU per request\n", hname, pname,
                (long long)(now_w > 10 ? now_w : was_w));
    for (size_t i = 0; i < FIG_NPOOL; i++) {
        const fig_entry *e = &FIG_POOL[i];
        if (!shares && (e->check == CHK_SHARE || e->check == CHK_SHAPE))
            continue;
        if (waited && e->check == CHK_SHARE && e->kind == FIG_INT)
            continue; /* TYPICAL and P90 */
        switch (e->check) {
        case CHK_NONE: break;
        case CHK_SHARE:
            worse += waited ? compare_rise(out, hname, pname, bp, e, p, &v, tol)
                            : compare_share(out, hname, pname, bp, e, p, &v, tol);
            break;
        case CHK_SHAPE: worse += compare_shape(out, hname, pname, bp, p, &v); break;
        case CHK_OVERHEAD: worse += compare_overhead(out, hname, pname, bp, &v, rise_pct); break;
        case CHK_MORE: worse += compare_more(out, hname, pname, bp, e, p, &v); break;
        case CHK_RISE: worse += compare_rise(out, hname, pname, bp, e, p, &v, tol); break;
        case CHK_MEMORY: worse += compare_memory(out, hname, pname, bp, e, &v); break;
        }
    }
    /* 19.5: CPU per request is immune to contention (17.6): by route, always */
    return worse + compare_routes(out, hname, pname, bp, p, &v, tol, said);
}

/* The bucket of a host signal's share, capped at 100% (section 9): the
 * cap is in the 95-100 bucket, so that a signal at its cap and one just
 * under it (pressure 99.89% -> 100.00% beside a burner) are not a bucket
 * apart; 100-125 is for pools' corrected shares, which have no cap. */
static int signal_bucket(int64_t hundredths)
{
    return hist_bucket(hundredths >= 10000 ? 9999 : hundredths < 0 ? 0 : hundredths);
}

/* A host's signals that check compares (PL_SIGNALS' check: steal,
 * throttled, pressure), their p90 against its baseline object
 * bh, by the same bucket tolerance as the pools' shares.  Returns how many
 * rose past it. */
static int compare_host(FILE *out, const char *hname, const json_t *bh, const pl_host *h, int tol)
{
    truth t;
    sig_truth(h, &t);
    int worse = 0;
    for (int g = SIG_FIRST_SHARE; g < SIG_N; g++) {
        if (!PL_SIGNALS[g].check)
            continue;
        const json_t *b = json_object_get(json_object_get(bh, PL_SIGNALS[g].name), "p90_pct");
        if (!json_is_number(b) || t.pct[g][TR_P90] < 0)
            continue;
        int64_t was = (int64_t)llround(json_number_value(b) * 100);
        int up = signal_bucket(t.pct[g][TR_P90]) - signal_bucket(was);
        if (up > tol) {
            char now[ESC_HUNDREDTHS];
            fprintf(out, "%s: %s p90 %.2f%% -> %s%% (up %d bucket%s, tolerance %d)\n", hname,
                    PL_SIGNALS[g].name, json_number_value(b), esc_hundredths(now, t.pct[g][TR_P90]),
                    up, up == 1 ? "" : "s", tol);
            worse++;
        }
    }
    return worse;
}

wi_scenario check_scenario(const wi_scenario *sc)
{
    wi_scenario sj = *sc; /* the joint view: section 11's and section 5's overheads */
    sj.fit = WI_FIT_JOINT;
    return sj;
}

int check_against(FILE *out, const wi_answers *ans, const char *baseline, int tol,
                  double rise_pct, char *err, size_t errlen)
{
    json_error_t je;
    errno = 0;
    json_t *root = json_load_file(baseline, 0, &je);
    int open_errno = errno;
    const json_t *bhosts = root ? json_object_get(root, "hosts") : NULL;
    if (!root || !json_is_array(bhosts) || json_integer_value(json_object_get(root, "format")) != 1) {
        if (!root && je.line < 1) /* jansson could not open it */
            snprintf(err, errlen, "could not read: %s", strerror(open_errno ? open_errno : EIO));
        else if (!root)
            snprintf(err, errlen, "not JSON: line %d: %s", je.line, je.text);
        else
            snprintf(err, errlen, "not an fpm-analyze --format json output (format 1)");
        json_decref(root);
        return FPM_EFAIL;
    }
    int worse = 0, compared = 0, said = 0;
    size_t hi;
    const json_t *bh;
    json_array_foreach(bhosts, hi, bh) {
        const char *hname = json_string_value(json_object_get(bh, "hostname"));
        const json_t *bpools = json_object_get(bh, "pools");
        if (!hname || !json_is_array(bpools))
            continue;
        const wi_host *a = NULL;
        for (size_t k = 0; k < ans->n; k++)
            if (strlen(hname) == ans->host[k].h->hostname_len &&
                memcmp(hname, ans->host[k].h->hostname, ans->host[k].h->hostname_len) == 0)
                a = &ans->host[k];
        const pl_host *h = a ? a->h : NULL;
        const wi_view *views = a ? a->v : NULL;
        if (h)
            worse += compare_host(out, hname, bh, h, tol);
        size_t pi;
        const json_t *bp;
        json_array_foreach(bpools, pi, bp) {
            const char *pname = json_string_value(json_object_get(bp, "pool"));
            if (!pname)
                continue;
            const pl_pool *p = NULL;
            size_t at = 0;
            for (size_t i = 0; h && i < h->npools; i++)
                if (strlen(pname) == h->pools[i]->name_len &&
                    memcmp(pname, h->pools[i]->name, h->pools[i]->name_len) == 0) {
                    p = h->pools[i];
                    at = i;
                }
            if (!p) {
                fprintf(out, "%s %s: in the baseline, not in the new log\n", hname, pname);
                worse++;
                continue;
            }
            compared++;
            worse += compare_pool(out, hname, pname, bp, p, views[at], tol, rise_pct, &said);
        }
    }
    json_decref(root);
    if (said)
        fprintf(out, "check: the baseline has no routes (an older fpm-analyze): routes not "
                     "compared\n");
    if (worse)
        fprintf(out, "check: %d regression%s against the baseline\n", worse, worse == 1 ? "" : "s");
    else
        fprintf(out, "check: no regression; %d pool%s as good as the baseline\n", compared,
                compared == 1 ? "" : "s");
    return worse;
}
