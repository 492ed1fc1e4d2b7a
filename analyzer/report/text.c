/* The text format: a table per host, a WHY per pool, the host line and,
 * in a what-if, the measured figures beside the scenario's. */
#include "report.h"
#include "rc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "activity_view.h"
#include "why.h"
#include "escape.h"
#include "figures.h"
#include "table.h"
#include "timearg.h"
#include "signals.h"

static const char *limit_name(wi_limit l)
{
    const char *n = whatif_limit_name(l);
    return n ? n : "-";
}

/* "host H: WHY: a, b." naming the pools the host line's sums leave out:
 * those without a cost, or (floors) those whose shares are floors; nothing
 * when there is none. */
static void pools_left_out(FILE *out, const char *hn, const char *why, const wi_view *v, size_t n,
                           const pl_pool *const *pools, int floors)
{
    int first = 1;
    for (size_t i = 0; i < n; i++) {
        if (floors ? !v[i].floor : v[i].shape && v[i].host_millicores_per_worker > 0)
            continue;
        size_t w;
        char *name = esc_display_name(pools[i]->name, pools[i]->name_len, &w);
        if (first)
            fprintf(out, "host %s: %s: ", hn, why);
        fprintf(out, "%s%s", first ? "" : ", ", name ? name : "?");
        first = 0;
        free(name);
    }
    if (!first)
        fputs(".\n", out);
}

/* The host in lines, one idea each: what it measured (h, NULL for none),
 * what every worker busy at once would need, and at the pools' ceilings,
 * against hm (the what-if's size), and the pools those sums leave out. */
static void host_lines(FILE *out, const char *hn, const char *label, uint64_t hm,
                       const pl_host *h, const wi_view *v, size_t n, const pl_pool *const *pools,
                       int64_t now, int64_t atc)
{
    char size[48];
    out_cores_text(size, sizeof size, hm);
    if (h && h->busy_seconds > 0) {
        fprintf(out, "host %s: busy %.2f cores on average, %.2f at its busiest pair", hn,
                h->busy_core_seconds / h->busy_seconds, h->busy_max);
        if (h->pools_pairs)
            fprintf(out, "; its pools used %.2f at most", h->pools_max);
        fputs(".\n", out);
    }
    else if (h)
        fprintf(out, "host %s: no usable round pair measured its CPU.\n", hn);
    if (h && h->j.inconsistent) /* docs/rules.md 13.2 */
        fprintf(out, "host %s: %llu round pair%s left out: its pools used more CPU than the "
                     "host has (a counter is wrong).\n", hn, (unsigned long long)h->j.inconsistent,
                h->j.inconsistent == 1 ? " was" : "s were");
    size_t costed = 0;
    for (size_t i = 0; i < n; i++)
        costed += v[i].shape && v[i].host_millicores_per_worker > 0;
    if (!costed) { /* no sum to make: say why instead of 0.00 cores */
        fprintf(out, "host %s%s: no pool has a cost measured yet, so its workers do not add up "
                     "to a need.\n", hn, label);
        return;
    }
    if (hm)
        fprintf(out, "host %s%s: every worker busy at once would need %.2f cores, %.2fx its %s; "
                     "every pool at its ceiling %.2f cores, %.2fx.\n", hn, label, now / 1000.0,
                (double)now / (double)hm, size, atc / 1000.0, (double)atc / (double)hm);
    else
        fprintf(out, "host %s%s: every worker busy at once would need %.2f cores, every pool at "
                     "its ceiling %.2f; the host's size is unknown.\n", hn, label, now / 1000.0,
                atc / 1000.0);
    pools_left_out(out, hn, "not in these sums, no cost measured", v, n, pools, 0);
    pools_left_out(out, hn, "not in the ceilings' sum, its shares floors", v, n, pools, 1); /* 17.4 */
}

/* 14.5: the host line in memory: what the workers at pm.max_children
 * would hold against what the host can give php-fpm. */
static void memory_line(FILE *out, const char *hn, const char *label, const wi_memory *m)
{
    if (!m->has_budget || m->needed_now < 0)
        return;
    double gib = 1024.0 * 1024 * 1024;
    fprintf(out, "host %s%s: php-fpm's workers at pm.max_children would hold %.2f GiB of %.2f "
                 "GiB it can give", hn, label, (double)m->needed_now / gib, (double)m->budget / gib);
    if (m->budget > 0)
        fprintf(out, " (%.2fx)", (double)m->needed_now / (double)m->budget);
    if (m->needed_at_advice >= 0)
        fprintf(out, "; at the advice %.2f GiB", (double)m->needed_at_advice / gib);
    fputs(".\n", out);
}

#define ARROW "\xe2\x86\x92" /* → */

/* One side of a what-if cell: the number with its unit, or what stands for none. */
static const char *side(char *buf, size_t n, int has, int64_t v, const char *unit,
                        const char *missing)
{
    if (!has)
        return missing;
    snprintf(buf, n, "%lld%s", (long long)v, unit);
    return buf;
}

/* A cell "measured → scenario". */
static void before_after(table *t, int has_a, int64_t a, int has_b, int64_t b, const char *unit,
                         const char *missing)
{
    char x[32], y[32];
    tbl_cell(t, "%s " ARROW " %s", side(x, sizeof x, has_a, a, unit, missing),
               side(y, sizeof y, has_b, b, unit, missing));
}

/* What-if: the measured figures beside the scenario's. */
static int print_what_if(FILE *out, const wi_host *a, const char *hn)
{
    const pl_host *h = a->h;
    const wi_view *v = a->v, *m = a->m;
    static const int left[6] = {1, 0, 0, 0, 0, 1};
    table t = tbl_new(6, left);
    tbl_cell(&t, "WHAT-IF");
    tbl_cell(&t, "FILL");
    tbl_cell(&t, "CEILING");
    tbl_cell(&t, "MAX");
    tbl_cell(&t, "DRAW AT MAX");
    tbl_cell(&t, "LIMIT");
    for (size_t i = 0; i < h->npools; i++) {
        size_t w = 0;
        char *name = esc_display_name(h->pools[i]->name, h->pools[i]->name_len, &w);
        tbl_cell_owned(&t, name, w);
        int64_t mdraw = m[i].now * m[i].host_millicores_per_worker;
        int64_t vdraw = v[i].now * v[i].host_millicores_per_worker;
        before_after(&t, m[i].has_fill, m[i].fill, v[i].has_fill, v[i].fill, "", "-");
        before_after(&t, m[i].has_fill, m[i].ceiling, v[i].has_fill, v[i].ceiling, "", "-");
        before_after(&t, m[i].now > 0, m[i].now, v[i].now > 0, v[i].now, "", "?");
        before_after(&t, m[i].shape && m[i].now, mdraw, v[i].shape && v[i].now, vdraw, "m", "-");
        tbl_cell(&t, "%s %s %s", limit_name(m[i].limit), ARROW, limit_name(v[i].limit));
    }
    fputc('\n', out);
    int rc = tbl_print(out, &t);
    tbl_free(&t);
    if (rc)
        return FPM_ENOMEM;
    fputc('\n', out);
    host_lines(out, hn, " as measured", h->host_millicores, NULL, m, h->npools,
               (const pl_pool *const *)h->pools, a->needed_now_m, a->needed_at_ceiling_m);
    return 0;
}

/* A cell of the pool table: the figure of its column (figures.c), with its
 * unit, or what stands for none. */
static void cell(table *t, const fig_column *c, const pl_pool *p, const wi_view *v)
{
    fig_value x = {0};
    c->get(p, v, &x);
    char b[ESC_HUNDREDTHS];
    if (!x.has) {
        tbl_cell(t, "%s", c->missing);
    } else if (c->zero && x.i == 0 && c->kind != FIG_WORD) {
        tbl_cell(t, "%s", c->zero);
    } else if (c->kind == FIG_WORD) {
        size_t w = 0;
        char *s = esc_display_name(x.word, x.word_len, &w);
        tbl_cell_owned(t, s, w);
    } else if (c->kind == FIG_HUNDREDTHS) {
        tbl_cell(t, "%s%s", esc_hundredths(b, x.i), c->unit);
    } else {
        tbl_cell(t, "%lld%s", (long long)x.i, c->unit);
    }
}

typedef struct {
    int    left[FIG_NTEXT_MAX];
    table  t;                   /* the host's pool table */
    char  *hn;                  /* the host's display name */
} text_state;

/* The heading lines: the window and the scenario, when given. */
static void print_heading(FILE *out, const wi_scenario *sc)
{
    char a[40], b[40];
    if (sc->has_from || sc->has_until) {
        if (sc->has_from)
            timearg_format(sc->from_ns, a);
        if (sc->has_until)
            timearg_format(sc->until_ns, b);
        fprintf(out, "window: %s to %s (rounds whose ROUND record is in it; those before "
                     "it only primed the state)\n",
                sc->has_from ? a : "the start", sc->has_until ? b : "the end");
    }
    if (whatif_differs(sc)) {
        fputs("what-if:", out);
        if (sc->has_host_millicores) {
            out_cores_text(a, sizeof a, sc->host_millicores);
            fprintf(out, " a host of %s (%llum)", a, (unsigned long long)sc->host_millicores);
        }
        fprintf(out, "%s headroom %d.%02d", sc->has_host_millicores ? "," : "",
                sc->headroom / 100, sc->headroom % 100);
        for (size_t i = 0; i < sc->nmax_children; i++)
            fprintf(out, ", pm.max_children %s=%lld", sc->max_children[i].pool,
                    (long long)sc->max_children[i].max_children);
        if (sc->cost == WI_COST_TYPICAL)
            fputs(", a busy worker's PHP at TYPICAL, the floored median (--cost typical)", out);
        if (sc->fit == WI_FIT_DOMINANT)
            fputs(", the host overhead of the dominant pool's own line (--fit dominant)", out);
        fputc('\n', out);
    }
    if (sc->has_from || sc->has_until || whatif_differs(sc))
        fputc('\n', out);
}

static int text_begin(rp_ctx *c)
{
    text_state *s = calloc(1, sizeof *s);
    if (!s)
        return FPM_ENOMEM;
    for (size_t k = 0; k < FIG_NTEXT; k++)
        s->left[k] = FIG_TEXT[k].left;
    c->state = s;
    print_heading(c->out, c->sc);
    return 0;
}

/* " every 30 s" from the HOST record's interval_ms; "" unknown */
static void interval_text(char *b, size_t n, uint64_t ms)
{
    if (ms == 0)
        b[0] = '\0';
    else if (ms % 1000 == 0)
        snprintf(b, n, " every %llu s", (unsigned long long)(ms / 1000));
    else
        snprintf(b, n, " every %llu.%03llu s", (unsigned long long)(ms / 1000),
                 (unsigned long long)(ms % 1000));
}

/* "p50 8.00%, p90 9.50%, max 12.00%" */
static void quantiles_text(FILE *out, const int64_t *q)
{
    char a[ESC_HUNDREDTHS], b[ESC_HUNDREDTHS], c[ESC_HUNDREDTHS];
    fprintf(out, "p50 %s%%, p90 %s%%, max %s%%", esc_hundredths(a, q[TR_P50]),
            esc_hundredths(b, q[TR_P90]), esc_hundredths(c, q[TR_MAX]));
}

/* Whether a share signal's text line is printed (PL_SIGNALS' text_when). */
static int text_shown(const truth *t, int g)
{
    const int64_t *q = t->pct[g];
    switch (PL_SIGNALS[g].text_when) {
    case SIG_TEXT_MAX: return t->pairs[g] && q[TR_MAX] > 0;
    case SIG_TEXT_P90_1: return t->pairs[g] && q[TR_P90] >= 100;  /* 1% */
    default: return t->pairs[g] && q[TR_P50] < 9000;                /* under 90% */
    }
}

/* "HOST: " and a signal's text template with its figures put in. */
static void text_line(FILE *out, const char *hn, const truth *t, int g)
{
    char b[ESC_HUNDREDTHS];
    fprintf(out, "%s: ", hn);
    for (const char *p = PL_SIGNALS[g].text; *p;) {
        const char *e = *p == '{' ? strchr(p, '}') : NULL;
        if (!e) {
            fputc(*p++, out);
            continue;
        }
        size_t n = (size_t)(e - p - 1);
        if (n == 1 && p[1] == 'q')
            quantiles_text(out, t->pct[g]);
        else if (n == 3 && memcmp(p + 1, "p50", 3) == 0)
            fputs(esc_hundredths(b, t->pct[g][TR_P50]), out);
        else if (n == 3 && memcmp(p + 1, "p10", 3) == 0)
            fputs(esc_hundredths(b, t->pct[g][TR_P10]), out);
        else if (n == 1 && p[1] == 'n')
            fprintf(out, "%llu", (unsigned long long)t->pairs[g]);
        else if (n == 4 && memcmp(p + 1, "secs", 4) == 0)
            fprintf(out, "%llu.%01llu", (unsigned long long)(t->throttled_usec / 1000000),
                    (unsigned long long)(t->throttled_usec % 1000000 / 100000));
        p = e + 1;
    }
    fputc('\n', out);
}

/* Section 9 in words: a line per figure that says the CPU is not what its
 * size claims, each share signal's from its table entry, the steal probe's
 * after the steal. */
static void truth_lines(FILE *out, const char *hn, const pl_host *h)
{
    truth t;
    sig_truth(h, &t);
    char a[ESC_HUNDREDTHS], b[ESC_HUNDREDTHS];
    for (int g = SIG_FIRST_SHARE; g < SIG_N; g++) {
        if (text_shown(&t, g))
            text_line(out, hn, &t, g);
        if (g != SIG_STEAL || !t.probes)
            continue;
        const int64_t *st = t.pct[SIG_STEAL];
        int untold = t.probe_pct > 0 && (!t.pairs[SIG_STEAL] || st[TR_MAX] == 0);
        fprintf(out, "%s: steal probe: the hypervisor took %s%% of the probe's time (its gaps "
                     "were %s%%, the rest this guest's own tasks; %llu probes)%s\n", hn,
                esc_hundredths(a, t.probe_pct), esc_hundredths(b, t.probe_naive_pct),
                (unsigned long long)t.probes,
                untold ? ": the kernel's steal stayed 0, this guest is not told about steal, and "
                         "its CPU is smaller than its size claims." : ".");
    }
}

static int text_host(rp_ctx *c, const wi_host *a)
{
    const pl_host *h = a->h;
    text_state *s = c->state;
    const wi_scenario *sc = c->sc;
    FILE *out = c->out;
    if (c->host_index)
        fputc('\n', out);
    if (!(s->hn = esc_display_name(h->hostname, h->hostname_len, NULL)))
        return FPM_ENOMEM;
    uint64_t hm = a->hm;
    char cores[48];
    out_cores_text(cores, sizeof cores, hm);
    char span[100] = "";
    if (h->rounds) {
        char a[40], b[40];
        timearg_format(h->first_real - h->first_real % 1000000000ull, a);
        timearg_format(h->last_real - h->last_real % 1000000000ull, b);
        snprintf(span, sizeof span, " (%s to %s)", a, b);
    }
    char every[40];
    interval_text(every, sizeof every, h->interval_ms);
    char source[120] = ""; /* where the cores come from, unless a what-if gave them */
    int what_if = sc->has_host_millicores;
    if (!what_if && h->cpu_source == PL_CPU_CPUSET) /* a CPU list: digits, ',' and '-' */
        snprintf(source, sizeof source, ", its cpuset %.60s%s of %llu", h->cpus_text,
                 strlen(h->cpus_text) > 60 ? "..." : "", (unsigned long long)h->nproc);
    else if (!what_if && h->cpu_source != PL_CPU_HOST)
        snprintf(source, sizeof source, ", its cgroup%s quota",
                 h->cpu_source == PL_CPU_QUOTA_V1 ? " v1" : "");
    if (hm)
        fprintf(out, "%s: %s (%llum%s)%s, %llu rounds%s%s, headroom %d.%02d\n", s->hn, cores,
                (unsigned long long)hm, source, what_if ? " (what-if)" : "",
                (unsigned long long)h->rounds, span, every, sc->headroom / 100,
                sc->headroom % 100);
    else
        fprintf(out, "%s: size unknown (its HOST record has no nproc), %llu rounds%s%s\n", s->hn,
                (unsigned long long)h->rounds, span, every);
    truth_lines(out, s->hn, h);
    s->t = tbl_new(FIG_NTEXT, s->left);
    for (size_t k = 0; k < FIG_NTEXT; k++)
        tbl_cell(&s->t, "%s", FIG_TEXT[k].heading);
    return 0;
}

static int text_pool(rp_ctx *c, const wi_host *a, size_t i)
{
    text_state *s = c->state;
    for (size_t k = 0; k < FIG_NTEXT; k++)
        cell(&s->t, &FIG_TEXT[k], a->h->pools[i], &a->v[i]);
    return 0;
}

/* Under --explain: why readings were not counted, and the round pairs. */
static void explain_pool(FILE *out, const pl_pool *p)
{
    fprintf(out, "  not counted:");
    for (int k = 0; k < RD_NREASONS; k++)
        fprintf(out, " %s %llu", rd_name((rd_verdict)k), (unsigned long long)p->filtered[k]);
    fputc('\n', out);
}

static void explain_pairs(FILE *out, const pl_host *h)
{
    fprintf(out, "round pairs: %llu usable", (unsigned long long)h->pairs_usable);
    for (int k = 0; k < PL_NDROP; k++)
        fprintf(out, ", %llu %s", (unsigned long long)h->pairs_dropped[k],
                pl_drop_name((pl_drop)k));
    fprintf(out, "\njoint fit: %llu point%s; no point from %llu usable pair%s whose host was at "
                 "least 95%% busy, %llu without every pool's workers read in both rounds, "
                 "%llu whose pools used more CPU than the host had\n",
            (unsigned long long)h->j.points, h->j.points == 1 ? "" : "s",
            (unsigned long long)h->pairs_saturated, h->pairs_saturated == 1 ? "" : "s",
            (unsigned long long)h->pairs_unshared, (unsigned long long)h->j.inconsistent);
}

static int text_host_end(rp_ctx *c, const wi_host *a)
{
    text_state *s = c->state;
    const wi_scenario *sc = c->sc;
    const pl_host *h = a->h;
    const wi_view *v = a->v;
    FILE *out = c->out;
    uint64_t hm = a->hm;
    fputc('\n', out);
    int rc = tbl_print(out, &s->t);
    if (rc == 0 && h->npools) {
        fputc('\n', out);
        rc = out_activity_table(out, h);
    }
    if (rc == 0) {
        if (h->npools)
            fputc('\n', out);
        const wi_memory *mem = &a->mem;
        why_ctx wc = {hm, sc->headroom, h->rounds, a->needed_now, sc->cost, mem->has_budget,
                      mem->budget};
        for (size_t i = 0; i < h->npools; i++) {
            fprintf(out, "%s: ", tbl_get(&s->t, i + 1, 0));
            why_text(out, h->pools[i], &v[i], &wc);
            fputc('\n', out);
            if (sc->explain)
                explain_pool(out, h->pools[i]);
        }
        if (sc->explain)
            explain_pairs(out, h);
        fputc('\n', out);
        why_host(out, s->hn, a, sc);
        if (whatif_differs(sc))
            rc = print_what_if(out, a, s->hn);
    }
    tbl_free(&s->t);
    free(s->hn);
    s->hn = NULL;
    return rc;
}

void why_host(FILE *out, const char *hn, const wi_host *a, const wi_scenario *sc)
{
    const pl_host *h = a->h;
    const char *label = whatif_differs(sc) ? " in the what-if" : "";
    host_lines(out, hn, label, a->hm, h, a->v, h->npools, (const pl_pool *const *)h->pools,
               a->needed_now, a->needed_at_ceiling);
    memory_line(out, hn, label, &a->mem);
    why_share(out, hn, a->v, h->npools, (const pl_pool *const *)h->pools, &a->mem);
}

static int text_end(rp_ctx *c)
{
    text_state *s = c->state;
    if (s) {
        tbl_free(&s->t);
        free(s->hn);
        free(s);
    }
    c->state = NULL;
    return 0;
}

const rp_format rp_text = {"text", "a table, then sentences per pool (WHY)", text_begin,
                           text_host, text_pool, text_host_end, text_end};
