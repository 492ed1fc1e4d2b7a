/* The JSON format: one object, keys as the project's JSON output defines
 * them (see fpm-cpu(7) for what each figure means). */
#include "report.h"
#include "rc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "figures.h"
#include "jsonw.h"
#include "timearg.h"
#include "signals.h"

static int print_pool_json(FILE *out, const pl_pool *p, const wi_view *v)
{
    fig_json(out, p, v);
    return 0;
}

/* "KEY": "2026-11-29T14:00:00Z", (whole seconds, UTC) or null */
static void json_time(FILE *out, const char *key, int has, uint64_t ns)
{
    char b[40];
    if (has)
        timearg_format(ns - ns % 1000000000ull, b);
    fprintf(out, has ? "\"%s\": \"%s\", " : "\"%s\": null, ", key, b);
}

/* The window and scenario keys, then the hosts. */
static int json_begin(rp_ctx *c)
{
    FILE *out = c->out;
    const wi_scenario *sc = c->sc;
    fputs("{\"format\": 1, ", out);
    if (sc->has_from || sc->has_until) {
        char t[40];
        fputs("\"window\": {\"from\": ", out);
        if (sc->has_from) {
            timearg_format(sc->from_ns, t);
            fprintf(out, "\"%s\"", t);
        } else {
            fputs("null", out);
        }
        fputs(", \"until\": ", out);
        if (sc->has_until) {
            timearg_format(sc->until_ns, t);
            fprintf(out, "\"%s\"", t);
        } else {
            fputs("null", out);
        }
        fputs("}, ", out);
    }
    if (whatif_differs(sc)) {
        fputs("\"scenario\": {\"host_millicores\": ", out);
        jw_int(out, sc->has_host_millicores, (int64_t)sc->host_millicores);
        fputs(", \"mem_limit_bytes\": ", out); /* 14.5: --mem-limit, M of the what-if */
        jw_int(out, sc->has_mem_limit, (int64_t)sc->mem_limit);
        fprintf(out, ", \"headroom\": %d.%02d, \"max_children\": {", sc->headroom / 100,
                sc->headroom % 100);
        int first = 1;
        for (size_t i = 0; i < sc->nmax_children; i++) {
            int later = 0; /* the last one given for a pool is the one that counts */
            for (size_t k = i + 1; k < sc->nmax_children; k++)
                later |= strcmp(sc->max_children[k].pool, sc->max_children[i].pool) == 0;
            if (later)
                continue;
            fputs(first ? "" : ", ", out);
            first = 0;
            esc_json_string(out, sc->max_children[i].pool, strlen(sc->max_children[i].pool));
            fprintf(out, ": %lld", (long long)sc->max_children[i].max_children);
        }
        fprintf(out, "}, \"cost\": \"%s\"", sc->cost == WI_COST_BUSY ? "busy" : "typical");
        if (sc->fit == WI_FIT_DOMINANT)
            fputs(", \"fit\": \"dominant\"", out);
        fputs("}, ", out);
    }
    fputs("\"hosts\": [", out);
    return 0;
}

/* "KEY": a percentage in hundredths, or null */
static void json_pct(FILE *out, const char *key, int64_t v)
{
    fprintf(out, "\"%s\": ", key);
    jw_hundredths(out, v >= 0, v);
}

/* Section 9: steal, throttled, throttled_seconds, pressure, php_accounted,
 * steal_probe. */
static void json_truth(FILE *out, const pl_host *h)
{
    static const char *const q[TR_NQ] = {"p10_pct", "p50_pct", "p90_pct", "max_pct"};
    truth t;
    sig_truth(h, &t);
    for (int k = SIG_FIRST_SHARE; k < SIG_N; k++) {
        fprintf(out, "\"%s\": {\"pairs\": %llu", PL_SIGNALS[k].name,
                (unsigned long long)t.pairs[k]);
        for (int i = 0; i < TR_NQ; i++) {
            fputs(", ", out);
            json_pct(out, q[i], t.pct[k][i]);
        }
        fputs("}, ", out);
        if (k == SIG_THROTTLED) {
            uint64_t us = t.throttled_usec;
            fprintf(out, "\"throttled_seconds\": %llu.%06llu, ", (unsigned long long)(us / 1000000),
                    (unsigned long long)(us % 1000000));
        }
    }
    fputs("\"steal_probe\": ", out);
    if (t.probes) {
        fprintf(out, "{\"probes\": %llu, ", (unsigned long long)t.probes);
        json_pct(out, "pct", t.probe_pct);
        fputs(", ", out);
        json_pct(out, "naive_pct", t.probe_naive_pct);
        fputs("}, ", out);
    } else {
        fputs("null, ", out);
    }
}

/* Section 11.6: the host's joint fit, or null until it has a line. */
static int json_joint(FILE *out, const joint_sol *sol)
{
    joint_sol s = *sol;
    fputs("\"joint\": ", out);
    if (!s.exists) {
        fputs("null, ", out);
        return 0;
    }
    fputs("{\"n\": ", out);
    esc_double(out, s.n);
    fputs(", \"base\": ", out);
    esc_double(out, s.base);
    fputs(", \"resid_sd\": ", out);
    esc_double(out, s.resid_sd);
    fprintf(out, ", \"points\": %llu, \"inconsistent_pairs\": %llu, \"common\": ",
            (unsigned long long)s.points, (unsigned long long)s.inconsistent);
    if (s.common_exists) {
        fputs("{\"slope\": ", out);
        esc_double(out, s.common_slope);
        fputs(", \"se\": ", out);
        esc_double(out, s.common_se);
        fputs(", \"sd_x\": ", out);
        esc_double(out, s.common_sd_x);
        fprintf(out, ", \"believed\": %s}}, ", s.common_believed ? "true" : "false");
    } else {
        fputs("null}, ", out);
    }
    return 0;
}

/* 14.6: the host's memory, nulls where unknown. */
static void json_memory(FILE *out, const wi_memory *mem)
{
    wi_memory m = *mem;
    fputs("\"memory\": {\"total_bytes\": ", out);
    jw_int(out, m.has_total, (int64_t)m.total);
    fputs(", \"budget_bytes\": ", out);
    jw_int(out, m.has_budget, (int64_t)m.budget);
    fputs(", \"other_max_bytes\": ", out);
    jw_int(out, m.has_budget, (int64_t)m.other_max);
    fputs(", \"php_max_bytes\": ", out);
    jw_int(out, m.has_php, (int64_t)m.php_max);
    fputs(", \"needed_now_bytes\": ", out);
    jw_int(out, m.needed_now >= 0, m.needed_now);
    fputs(", \"needed_at_advice_bytes\": ", out);
    jw_int(out, m.needed_at_advice >= 0, m.needed_at_advice);
    fputs(", \"needs_fraction\": ", out); /* f and g, two decimals */
    jw_hundredths(out, m.needs_hundredths >= 0, m.needs_hundredths);
    fputs(", \"room_fraction\": ", out);
    jw_hundredths(out, m.room_hundredths >= 0, m.room_hundredths);
    fputs("}, ", out);
}

/* 16.4: how the kernel groups php-fpm, or null where no HOST said. */
static void json_sched(FILE *out, const pl_host *h)
{
    fputs("\"sched_group\": ", out);
    if (!h->has_sched) {
        fputs("null, ", out);
        return;
    }
    fputs("{\"autogroup\": ", out);
    jw_str(out, h->autogroup, h->autogroup ? strlen(h->autogroup) : 0);
    fputs(", \"cpu_weight\": ", out);
    jw_int(out, h->cpu_weight >= 0, h->cpu_weight);
    fputs(", \"cpu_weight_kind\": ", out);
    jw_word(out, h->cpu_weight_kind);
    fprintf(out, ", \"cpu_controller\": %s}, ",
            h->cpu_controller < 0 ? "null" : h->cpu_controller ? "true" : "false");
}

static int json_host(rp_ctx *c, const wi_host *a)
{
    const pl_host *h = a->h;
    FILE *out = c->out;
    int64_t now = a->needed_now, atc = a->needed_at_ceiling;
    fputs(c->host_index ? ",\n  {\"hostname\": " : "\n  {\"hostname\": ", out);
    esc_json_string(out, h->hostname, h->hostname_len);
    fprintf(out, ", \"host_millicores\": %llu, \"cpus\": ",
            (unsigned long long)a->hm);
    jw_int(out, h->cpus != NULL, h->cpus ? (int64_t)h->cpus->n : 0);
    fprintf(out, ", \"cpu_source\": \"%s\", ", PL_CPU_SOURCE[h->cpu_source]);
    json_sched(out, h);
    fprintf(out, "\"rounds\": %llu, ", (unsigned long long)h->rounds);
    json_time(out, "first_round_at", h->rounds > 0, h->first_real);
    json_time(out, "last_round_at", h->rounds > 0, h->last_real);
    json_truth(out, h);
    fprintf(out, "\"inconsistent_pairs\": %llu, ", (unsigned long long)h->j.inconsistent);
    if (json_joint(out, &a->joint) != 0)
        return FPM_ENOMEM;
    fprintf(out, "\"needed_now_millicores\": %lld, \"needed_at_ceiling_millicores\": %lld, ",
            (long long)now, (long long)atc);
    json_memory(out, &a->mem);
    fputs("\"pools\": [", out);
    return 0;
}

static int json_pool(rp_ctx *c, const wi_host *a, size_t i)
{
    fputs(c->pool_index ? ",\n    " : "\n    ", c->out);
    return print_pool_json(c->out, a->h->pools[i], &a->v[i]);
}

static int json_host_end(rp_ctx *c, const wi_host *a)
{
    fputs(a->n ? "\n  ]}" : "]}", c->out);
    return 0;
}

static int json_end(rp_ctx *c)
{
    fputs(c->host_index ? "\n]}\n" : "]}\n", c->out);
    return 0;
}

const rp_format rp_json = {"json", "every figure per host and pool",
                           json_begin, json_host, json_pool, json_host_end, json_end};
