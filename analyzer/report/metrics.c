/* The metrics formats: OpenMetrics 1.0 and Prometheus' text format (which
 * node_exporter's textfile collector reads), the same families. */
#include "report.h"
#include "rc.h"

#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "signals.h"

static void om_labels(FILE *out, const pl_host *h, const pl_pool *p, const char *extra)
{
    fputs("{host=\"", out);
    esc_om_label(out, h->hostname, h->hostname_len);
    if (p) {
        fputs("\",pool=\"", out);
        esc_om_label(out, p->name, p->name_len);
    }
    fprintf(out, "\"%s}", extra ? extra : "");
}

enum { OM_TYPICAL, OM_P90, OM_COUNT, OM_READINGS, OM_PHP, OM_HOST, OM_OVERHEAD, OM_OVERHEAD_SE,
       OM_FILL, OM_CEIL, OM_BUSY, OM_STARVED, OM_LIMIT, OM_BY_STEAL, OM_THROTTLED, OM_UNANSWERED,
       OM_ERRORS };

/* One pool's value of a family; 0 when it has none. */
static int om_value(int what, const pl_pool *p, const wi_view *v, double *x)
{
    switch (what) {
    case OM_TYPICAL: *x = v->typical_pct / 100.0; return v->has_typical;
    case OM_P90: *x = v->p90_pct / 100.0; return v->has_typical;
    case OM_COUNT:
    case OM_READINGS: *x = pl_hist(p)->total; return 1;
    case OM_PHP: *x = (double)v->php_millicores / 1000.0; return v->shape != NULL;
    case OM_HOST: *x = (double)v->host_millicores_per_worker / 1000.0; return v->shape != NULL;
    case OM_OVERHEAD: *x = v->overhead; return v->source != WI_SRC_NONE;
    case OM_OVERHEAD_SE: *x = v->overhead_se; return v->source != WI_SRC_NONE && v->overhead_se >= 0;
    case OM_FILL: *x = (double)v->fill; return v->has_fill;
    case OM_CEIL: *x = (double)v->ceiling; return v->has_fill;
    case OM_STARVED: *x = (double)p->starved; return 1;
    case OM_LIMIT: *x = v->limit == WI_LIMIT_CPU; return v->limit != WI_LIMIT_UNKNOWN;
    case OM_BUSY: *x = (double)v->busy_hundredths / 10000.0; return v->has_busy;
    case OM_BY_STEAL: *x = (double)p->starved_by_steal; return 1;
    case OM_THROTTLED: *x = (double)p->throttled_rounds; return 1;
    case OM_UNANSWERED: *x = (double)p->unanswered_full; return 1;
    case OM_ERRORS: *x = (double)p->error_rounds; return 1;
    }
    return 0;
}

/* A family's header.  OpenMetrics names a counter family without "_total"
 * (its samples carry it) and gives units; Prometheus' text format names
 * the family as its samples and has no UNIT. */
static void om_header(FILE *out, int om, const char *name, const char *type, const char *unit,
                      const char *help)
{
    const char *total = !om && strcmp(type, "counter") == 0 ? "_total" : "";
    fprintf(out, "# TYPE %s%s %s\n", name, total, type);
    if (om && unit)
        fprintf(out, "# UNIT %s %s\n", name, unit);
    fprintf(out, "# HELP %s%s %s\n", name, total, help);
}

static const struct {
    const char *name, *type, *unit, *help;
    int what[3];                /* samples of the family, -1 ends */
} FAMILIES[] = {
    {"fpm_cpu_request_cpu_share_ratio", "summary", "ratio",
     "CPU time over wall time of finished requests (bucket floors)",
     {OM_TYPICAL, OM_P90, OM_COUNT}},
    {"fpm_cpu_busy_share_ratio", "gauge", "ratio",
     "CPU share of a busy worker: the requests' shares weighted by their durations",
     {OM_BUSY, -1, -1}},
    {"fpm_cpu_readings", "gauge", NULL, "Requests counted, after halving", {OM_READINGS, -1, -1}},
    {"fpm_cpu_php_worker_cores", "gauge", "cores", "CPU of one busy worker's PHP",
     {OM_PHP, -1, -1}},
    {"fpm_cpu_host_worker_cores", "gauge", "cores",
     "CPU one busy worker costs the host, overhead counted", {OM_HOST, -1, -1}},
    {"fpm_cpu_host_overhead_ratio", "gauge", "ratio",
     "Host CPU per unit of the pool's CPU sizing uses, when believed; source: own (its own "
     "load), host (the host's average), dominant (--fit dominant)", {OM_OVERHEAD, -1, -1}},
    {"fpm_cpu_host_overhead_se_ratio", "gauge", "ratio",
     "Standard error of that overhead's slope (own or host)", {OM_OVERHEAD_SE, -1, -1}},
    {"fpm_cpu_fill_workers", "gauge", NULL, "Busy workers that fill the CPU", {OM_FILL, -1, -1}},
    {"fpm_cpu_ceiling_workers", "gauge", NULL, "Workers past which more only add latency",
     {OM_CEIL, -1, -1}},
    {"fpm_cpu_starved_rounds", "counter", NULL,
     "Rounds with a listen queue while the CPU was full", {OM_STARVED, -1, -1}},
    {"fpm_cpu_starved_by_steal_rounds", "counter", NULL,
     "Starved rounds in which the CPU was full only with the hypervisor's steal",
     {OM_BY_STEAL, -1, -1}},
    {"fpm_cpu_throttled_rounds", "counter", NULL,
     "Rounds with a listen queue while the quota throttled", {OM_THROTTLED, -1, -1}},
    {"fpm_cpu_unanswered_full_rounds", "counter", NULL,
     "Rounds the status page could not be read while the CPU was full", {OM_UNANSWERED, -1, -1}},
    {"fpm_cpu_error_rounds", "counter", NULL,
     "Rounds the status page could not be read", {OM_ERRORS, -1, -1}},
    {"fpm_cpu_limit_cpu", "gauge", NULL,
     "1 when pm.max_children is past the ceiling, 0 when within it", {OM_LIMIT, -1, -1}},
};

/* The hosts seen, each with its views: families are printed whole at the
 * end, every pool's sample of one family together. */
typedef struct {
    const pl_host *h;
    wi_view       *v;
} om_host;

typedef struct {
    int      om;                /* OpenMetrics, else Prometheus' text format */
    om_host *hosts;
    size_t   n;
} om_state;

static int metrics_begin(rp_ctx *c, int om)
{
    om_state *s = calloc(1, sizeof *s);
    if (!s)
        return FPM_ENOMEM;
    s->om = om;
    c->state = s;
    return 0;
}

static int om_begin(rp_ctx *c)
{
    return metrics_begin(c, 1);
}

static int prom_begin(rp_ctx *c)
{
    return metrics_begin(c, 0);
}

static int metrics_host(rp_ctx *c, const pl_host *h, const wi_view *v, const wi_view *m)
{
    (void)m;
    om_state *s = c->state;
    om_host *nh = realloc(s->hosts, (s->n + 1) * sizeof *nh);
    if (!nh)
        return FPM_ENOMEM;
    s->hosts = nh;
    wi_view *copy = malloc((h->npools ? h->npools : 1) * sizeof *copy);
    if (!copy)
        return FPM_ENOMEM;
    memcpy(copy, v, h->npools * sizeof *copy);
    s->hosts[s->n++] = (om_host){h, copy};
    return 0;
}

/* Section 9's host figures: a gauge per share signal with a sample per
 * statistic, the throttled time, the steal probe. */
static void metrics_truth(FILE *out, const om_state *s)
{
    static const char *const stat[TR_NQ] = {"p10", "p50", "p90", "max"};
    truth *t = malloc((s->n ? s->n : 1) * sizeof *t);
    if (!t)
        return;
    for (size_t k = 0; k < s->n; k++)
        truth_of(s->hosts[k].h, &t[k]);
    char name[64], lab[32];
    for (int g = SIG_FIRST_SHARE; g < SIG_N; g++) {
        snprintf(name, sizeof name, "fpm_cpu_%s_ratio", PL_SIGNALS[g].name);
        om_header(out, s->om, name, "gauge", "ratio", PL_SIGNALS[g].om_help);
        for (size_t k = 0; k < s->n; k++)
            for (int q = 0; q < TR_NQ && t[k].pairs[g]; q++) {
                fputs(name, out);
                snprintf(lab, sizeof lab, ",stat=\"%s\"", stat[q]);
                om_labels(out, s->hosts[k].h, NULL, lab);
                fprintf(out, " %g\n", (double)t[k].pct[g][q] / 10000.0);
            }
    }
    om_header(out, s->om, "fpm_cpu_throttled_seconds", "counter", "seconds",
              "Time the quota throttled php-fpm, over the round pairs that gave a share");
    for (size_t k = 0; k < s->n; k++) {
        fputs("fpm_cpu_throttled_seconds_total", out);
        om_labels(out, s->hosts[k].h, NULL, NULL);
        fprintf(out, " %llu.%06llu\n", (unsigned long long)(t[k].throttled_usec / 1000000),
                (unsigned long long)(t[k].throttled_usec % 1000000));
    }
    om_header(out, s->om, "fpm_cpu_steal_probe_ratio", "gauge", "ratio",
              "Share of the steal probe's time the hypervisor took (corrected: less the "
              "guest's own run delay; naive: every gap)");
    for (size_t k = 0; k < s->n; k++)
        for (int q = 0; q < 2 && t[k].probes; q++) {
            fputs("fpm_cpu_steal_probe_ratio", out);
            om_labels(out, s->hosts[k].h, NULL, q ? ",kind=\"naive\"" : ",kind=\"corrected\"");
            fprintf(out, " %g\n", (double)(q ? t[k].probe_naive_pct : t[k].probe_pct) / 10000.0);
        }
    free(t);
}

static void metrics_families(FILE *out, const om_state *s, const wi_scenario *sc)
{
    int om = s->om;
    for (size_t f = 0; f < sizeof FAMILIES / sizeof FAMILIES[0]; f++) {
        om_header(out, om, FAMILIES[f].name, FAMILIES[f].type, FAMILIES[f].unit,
                  FAMILIES[f].help);
        for (size_t k = 0; k < s->n; k++) {
            const pl_host *h = s->hosts[k].h;
            for (size_t i = 0; i < h->npools; i++) {
                for (int j = 0; j < 3 && FAMILIES[f].what[j] >= 0; j++) {
                    double x;
                    int what = FAMILIES[f].what[j];
                    if (!om_value(what, h->pools[i], &s->hosts[k].v[i], &x))
                        continue;
                    const char *suffix = what == OM_COUNT ? "_count"
                                       : strcmp(FAMILIES[f].type, "counter") == 0 ? "_total" : "";
                    fprintf(out, "%s%s", FAMILIES[f].name, suffix);
                    char src[32];
                    snprintf(src, sizeof src, ",source=\"%s\"",
                             whatif_source_name(s->hosts[k].v[i].source) ?
                             whatif_source_name(s->hosts[k].v[i].source) : "");
                    om_labels(out, h, h->pools[i],
                              what == OM_TYPICAL ? ",quantile=\"0.5\""
                              : what == OM_P90 ? ",quantile=\"0.9\""
                              : what == OM_OVERHEAD || what == OM_OVERHEAD_SE ? src : NULL);
                    fputc(' ', out);
                    esc_double(out, x);
                    fputc('\n', out);
                }
            }
        }
    }
    om_header(out, om, "fpm_cpu_host_cores", "gauge", "cores",
              "CPU the host has (its quota, else its CPUs)");
    for (size_t k = 0; k < s->n; k++) {
        fputs("fpm_cpu_host_cores", out);
        om_labels(out, s->hosts[k].h, NULL, NULL);
        fprintf(out, " %g\n", (double)whatif_host_millicores(s->hosts[k].h, sc) / 1000.0);
    }
    om_header(out, om, "fpm_cpu_needed_at_ceiling_cores", "gauge", "cores",
              "CPU every pool at its ceiling would draw");
    for (size_t k = 0; k < s->n; k++) {
        int64_t now, atc;
        whatif_host_needs(s->hosts[k].v, s->hosts[k].h->npools, &now, &atc);
        fputs("fpm_cpu_needed_at_ceiling_cores", out);
        om_labels(out, s->hosts[k].h, NULL, NULL);
        fprintf(out, " %g\n", (double)atc / 1000.0);
    }
    metrics_truth(out, s);
    om_header(out, om, "fpm_cpu_rounds", "counter", NULL, "Complete rounds replayed");
    for (size_t k = 0; k < s->n; k++) {
        fputs("fpm_cpu_rounds_total", out);
        om_labels(out, s->hosts[k].h, NULL, NULL);
        fprintf(out, " %llu\n", (unsigned long long)s->hosts[k].h->rounds);
    }
    if (om)
        fputs("# EOF\n", out);
}

static int metrics_end(rp_ctx *c)
{
    om_state *s = c->state;
    if (!s)
        return 0;
    if (c->ok)
        metrics_families(c->out, s, c->sc);
    for (size_t k = 0; k < s->n; k++)
        free(s->hosts[k].v);
    free(s->hosts);
    free(s);
    c->state = NULL;
    return 0;
}

const rp_format rp_openmetrics = {"openmetrics", "OpenMetrics 1.0", om_begin, metrics_host,
                                  NULL, NULL, metrics_end};
const rp_format rp_prometheus = {"prometheus",
                                 "node_exporter's textfile collector",
                                 prom_begin, metrics_host, NULL, NULL, metrics_end};
