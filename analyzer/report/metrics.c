/* The metrics formats: OpenMetrics 1.0 and Prometheus' text format (which
 * node_exporter's textfile collector reads), the same families. */
#include "report.h"
#include "rc.h"

#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "figures.h"
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

/* The hosts seen, each with its views: families are printed whole at the
 * end, every pool's sample of one family together. */
typedef struct {
    const pl_host *h;
    wi_view       *v;         /* a copy of the answer's views, without their routes */
    wi_host        a;         /* the host's answer (v its views; no measured ones) */
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

static int metrics_host(rp_ctx *c, const wi_host *a)
{
    const pl_host *h = a->h;
    const wi_view *v = a->v;
    om_state *s = c->state;
    om_host *nh = realloc(s->hosts, (s->n + 1) * sizeof *nh);
    if (!nh)
        return FPM_ENOMEM;
    s->hosts = nh;
    wi_view *copy = malloc((h->npools ? h->npools : 1) * sizeof *copy);
    if (!copy)
        return FPM_ENOMEM;
    memcpy(copy, v, h->npools * sizeof *copy);
    for (size_t i = 0; i < h->npools; i++)
        copy[i].routes = NULL, copy[i].nroutes = 0; /* the host's answer frees them */
    wi_host kept = *a;
    kept.v = copy;
    kept.m = NULL; /* printed at the end, once the answer is freed: what is kept */
    s->hosts[s->n++] = (om_host){h, copy, kept};
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
        sig_truth(s->hosts[k].h, &t[k]);
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

/* A pool's samples of family fam (of figure e). */
static size_t samples_of(const fig_entry *e, const fig_family *fam, const pl_pool *p,
                         const wi_view *v, fig_sample out[FIG_MAX_SAMPLES])
{
    if (fam->samples)
        return fam->samples(p, v, out);
    fig_value x = {0};
    e->get(p, v, &x);
    out[0] = (fig_sample){"", NULL, (double)x.i / fam->scale};
    return x.has ? 1 : 0;
}

/* One per-pool family (figures.h): its header, then every host's pools'
 * samples together. */
static void pool_family(FILE *out, const om_state *s, const fig_entry *e, const fig_family *fam)
{
    om_header(out, s->om, fam->name, fam->type, fam->unit, fam->help);
    int counter = strcmp(fam->type, "counter") == 0;
    for (size_t k = 0; k < s->n; k++) {
        const pl_host *h = s->hosts[k].h;
        for (size_t i = 0; i < h->npools; i++) {
            fig_sample x[FIG_MAX_SAMPLES];
            size_t n = samples_of(e, fam, h->pools[i], &s->hosts[k].v[i], x);
            for (size_t j = 0; j < n; j++) {
                fprintf(out, "%s%s", fam->name, x[j].suffix[0] ? x[j].suffix : counter ? "_total" : "");
                om_labels(out, h, h->pools[i], x[j].labels);
                fputc(' ', out);
                esc_double(out, x[j].x);
                fputc('\n', out);
            }
        }
    }
}

/* One host family (figures.h, FIG_HOST): its header, then every host's
 * samples. */
static void host_family(FILE *out, const om_state *s, const fig_host_family *fam)
{
    om_header(out, s->om, fam->name, fam->type, fam->unit, fam->help);
    int counter = strcmp(fam->type, "counter") == 0;
    for (size_t k = 0; k < s->n; k++) {
        fig_sample x[FIG_MAX_SAMPLES];
        size_t n = fam->samples(&s->hosts[k].a, x);
        for (size_t j = 0; j < n; j++) {
            fprintf(out, "%s%s", fam->name, x[j].suffix[0] ? x[j].suffix : counter ? "_total" : "");
            om_labels(out, s->hosts[k].h, NULL, x[j].labels[0] ? x[j].labels : NULL);
            fputc(' ', out);
            esc_double(out, x[j].x);
            fputc('\n', out);
        }
    }
}

static void metrics_families(FILE *out, const om_state *s)
{
    int om = s->om;
    for (size_t e = 0; e < FIG_NPOOL; e++)
        for (int f = 0; f < 2 && FIG_POOL[e].om[f].name; f++)
            pool_family(out, s, &FIG_POOL[e], &FIG_POOL[e].om[f]);
    for (size_t e = 0; e < FIG_NHOST; e++) /* the host's, from its table */
        for (int f = 0; f < 3 && FIG_HOST[e].om[f].name; f++)
            host_family(out, s, &FIG_HOST[e].om[f]);
    metrics_truth(out, s);
    if (om)
        fputs("# EOF\n", out);
}

static int metrics_end(rp_ctx *c)
{
    om_state *s = c->state;
    if (!s)
        return 0;
    if (c->ok)
        metrics_families(c->out, s);
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
