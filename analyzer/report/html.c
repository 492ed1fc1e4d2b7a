/* The page format (docs: fpm-analyze(1), THE PAGE): the capacity report as
 * one HTML5 file that a browser opens from disk, a mail client attaches and
 * a printer prints.  It is a walk over the host's answer (whatif.h) and
 * the tables the other formats walk (figures.h, the WHY of why.h); nothing
 * here decides a figure.  Self-contained: its style inline, its charts
 * inline SVG (--plot's, drawn by gnuplot, inlined by svgin.h), no URL of
 * any kind and no script: a Content-Security-Policy forbids both, and
 * every byte from a log goes through esc_html, so that a name from a log
 * is always text. */
#define _POSIX_C_SOURCE 200809L
#include "report.h"
#include "rc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "figures.h"
#include "patch.h"
#include "svgin.h"
#include "timearg.h"
#include "version.h"
#include "why.h"

#define HTML_SVG_MAX (8u << 20) /* a chart larger than this is left out */

static const char CSS[] =
    ":root{color-scheme:light;--ink:#1d1d1f;--muted:#5f6368;--rule:#d9dce1;--band:#f4f6f8;"
    "--cpu:#0072b2;--mem:#d55e00}"
    "body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,"
    "sans-serif;color:var(--ink);margin:0 auto;max-width:1100px;padding:1.5em}"
    "h1{font-size:1.6em;margin:0 0 .2em}h2{font-size:1.35em;margin:1.6em 0 .4em;"
    "border-bottom:2px solid var(--ink);padding-bottom:.2em}h3{font-size:1.1em;margin:1.4em 0 .4em}"
    "h4{font-size:1em;margin:1.2em 0 .3em}p{margin:.35em 0}"
    ".meta,.note,figcaption{color:var(--muted);font-size:.9em}"
    "table{border-collapse:collapse;margin:.5em 0;font-variant-numeric:tabular-nums}"
    "th,td{border-bottom:1px solid var(--rule);padding:.25em .7em;text-align:right;"
    "vertical-align:top}th{background:var(--band);font-weight:600}"
    "td.name,th.name{text-align:left;overflow-wrap:anywhere;max-width:34em}"
    "table.figures th{background:none;text-align:left}"
    "table.figures td.name{color:var(--muted)}"
    "tr.binds-memory td.binds{color:var(--mem);font-weight:600}"
    "tr.binds-cpu td.binds{color:var(--cpu);font-weight:600}"
    "pre.patch{background:var(--band);border:1px solid var(--rule);padding:.7em;"
    "overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere}"
    ".why{max-width:60em}.lines p{margin:.2em 0}"
    ".charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:1em}"
    "figure{margin:0}svg.chart{width:100%;height:auto;display:block;background:#fff;"
    "font-family:Arial,Helvetica,sans-serif}"
    "section.pool{border-top:1px solid var(--rule);margin-top:1.5em}"
    "code{overflow-wrap:anywhere}"
    "@media print{body{max-width:none;padding:0;font-size:11pt}"
    "section.pool{break-before:page}table,figure,pre{break-inside:avoid}"
    ".charts{grid-template-columns:1fr 1fr}}";

typedef struct {
    char  *hn;     /* the host's display name (escaped when printed) */
    size_t host;   /* its number, for the anchors */
    int    defs;   /* a chart with gnuplot's <defs> is in the page */
} html_state;

/* "2026-11-29T14:00:00Z" of ns, whole seconds */
static const char *when(char b[40], uint64_t ns)
{
    timearg_format(ns - ns % 1000000000ull, b);
    return b;
}

/* What fn printed into a string (malloc'd), for the page to escape; NULL
 * out of memory. */
typedef void (*text_fn)(FILE *out, const void *arg);
static char *captured(text_fn fn, const void *arg, size_t *len)
{
    char *s = NULL;
    FILE *m = open_memstream(&s, len);
    if (!m)
        return NULL;
    fn(m, arg);
    if (fclose(m) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

/* Each line of text as a paragraph. */
static void paragraphs(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        const char *nl = memchr(s + i, '\n', n - i);
        size_t l = nl ? (size_t)(nl - (s + i)) : n - i;
        if (l) {
            fputs("<p>", out);
            esc_html(out, s + i, l);
            fputs("</p>\n", out);
        }
        i += l + 1;
    }
}

/* What fn prints, as a <div class=cls> of paragraphs.  0, or FPM_ENOMEM. */
static int text_block(FILE *out, const char *cls, text_fn fn, const void *arg)
{
    size_t len;
    char *t = captured(fn, arg, &len);
    if (!t)
        return FPM_ENOMEM;
    fprintf(out, "<div class=\"%s\">\n", cls);
    paragraphs(out, t, len);
    fputs("</div>\n", out);
    free(t);
    return 0;
}

static int html_begin(rp_ctx *c)
{
    FILE *out = c->out;
    const wi_scenario *sc = c->sc;
    const rp_meta *m = c->meta;
    html_state *s = calloc(1, sizeof *s);
    if (!s)
        return FPM_ENOMEM;
    c->state = s;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          /* no script, no URL: a name from a log can never run or call out */
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"fpm-analyze " FPMCPU_VERSION "\">\n<title>"
          "php-fpm capacity", out);
    for (size_t i = 0; i < c->ans->n; i++) {
        fputs(i ? ", " : ": ", out);
        esc_html(out, c->ans->host[i].h->hostname, c->ans->host[i].h->hostname_len);
    }
    fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<header>\n"
                 "<h1>php-fpm capacity report</h1>\n", CSS);
    char a[40], b[40];
    fputs("<p class=\"meta\">", out);
    if (m && m->made_ns)
        fprintf(out, "Made %s by fpm-analyze " FPMCPU_VERSION ". ", when(a, m->made_ns));
    else
        fputs("Made by fpm-analyze " FPMCPU_VERSION ". ", out);
    if (sc->has_from || sc->has_until)
        fprintf(out, "Window: %s to %s (rounds before it only primed the state). ",
                sc->has_from ? when(a, sc->from_ns) : "the start",
                sc->has_until ? when(b, sc->until_ns) : "the end");
    if (whatif_differs(sc))
        fputs("A what-if: the figures below are the scenario's. ", out);
    fputs("</p>\n", out);
    if (m && m->nlogs) {
        fputs("<p class=\"meta\">Logs read:", out);
        for (int i = 0; i < m->nlogs; i++) {
            fputs(i ? ", <code>" : " <code>", out);
            esc_html_str(out, m->logs[i]);
            fputs("</code>", out);
        }
        fprintf(out, "; %llu records.</p>\n", (unsigned long long)m->records);
    }
    if (m && (m->damaged || m->dropped_rounds || m->hostless_rounds || m->copies ||
              m->unreadable)) /* what was lost or damaged: the figures stand on the rest */
        fprintf(out, "<p class=\"meta\">What the logs lost: %llu damaged record%s skipped, %llu "
                     "round%s cut short dropped, %llu copied round%s dropped, %llu round%s "
                     "before any HOST record ignored, %llu log%s that could not be read; the "
                     "figures stand on the rest.</p>\n",
                (unsigned long long)m->damaged, m->damaged == 1 ? "" : "s",
                (unsigned long long)m->dropped_rounds, m->dropped_rounds == 1 ? "" : "s",
                (unsigned long long)m->copies, m->copies == 1 ? "" : "s",
                (unsigned long long)m->hostless_rounds, m->hostless_rounds == 1 ? "" : "s",
                (unsigned long long)m->unreadable, m->unreadable == 1 ? "" : "s");
    if (m && !m->charts && m->charts_note)
        fprintf(out, "<p class=\"note\">No charts: %s</p>\n", m->charts_note);
    fputs("</header>\n<main>\n", out);
    if (!c->ans->n)
        fputs("<p>No HOST record in the logs: nothing to report.</p>\n", out);
    return 0;
}

/* A cell of a number, or what stands for none. */
static void num_cell(FILE *out, int has, int64_t v, const char *cls)
{
    fprintf(out, cls ? "<td class=\"%s\">" : "<td>", cls);
    if (has)
        fprintf(out, "%lld", (long long)v);
    else
        fputs("-", out);
    fputs("</td>", out);
}

/* The pool's name, linked to its section. */
static void pool_link(FILE *out, const html_state *s, size_t i, const pl_pool *p)
{
    fprintf(out, "<td class=\"name\"><a href=\"#h%zu-p%zu\">", s->host, i);
    esc_html(out, p->name, p->name_len);
    fputs("</a></td>", out);
}

static void host_lines_fn(FILE *out, const void *arg)
{
    const void *const *x = arg; /* {answer, scenario, host name} */
    why_host(out, x[2], x[0], x[1]);
}

static int html_host(rp_ctx *c, const wi_host *a)
{
    FILE *out = c->out;
    html_state *s = c->state;
    const pl_host *h = a->h;
    s->host = c->host_index + 1;
    free(s->hn);
    if (!(s->hn = esc_display_name(h->hostname, h->hostname_len, NULL)))
        return FPM_ENOMEM;
    fprintf(out, "<section class=\"host\" id=\"h%zu\">\n<h2>", s->host);
    esc_html(out, h->hostname, h->hostname_len);
    char cores[48], a1[40], b1[40];
    out_cores_text(cores, sizeof cores, a->hm);
    if (a->hm)
        fprintf(out, ": %s (%llum)", cores, (unsigned long long)a->hm);
    fprintf(out, ", %llu round%s", (unsigned long long)h->rounds, h->rounds == 1 ? "" : "s");
    if (h->interval_ms)
        fprintf(out, " every %llu s", (unsigned long long)(h->interval_ms / 1000));
    if (h->rounds)
        fprintf(out, ", %s to %s", when(a1, h->first_real), when(b1, h->last_real));
    fputs("</h2>\n<h3>The answer</h3>\n", out);
    /* the advice table, as advise prints it */
    fputs("<table class=\"answer\">\n<thead><tr><th class=\"name\">pool</th><th>now "
          "(pm.max_children)</th><th>CPU ceiling</th><th>memory ceiling</th><th>advice</th>"
          "<th class=\"name\">binds</th></tr></thead>\n<tbody>\n", out);
    for (size_t i = 0; i < a->n; i++) {
        const wi_view *v = &a->v[i];
        const char *b = whatif_binds_name(v->binds);
        fprintf(out, "<tr class=\"binds-%s\">", b ? b : "none");
        pool_link(out, s, i + 1, h->pools[i]);
        num_cell(out, v->now > 0, v->now, NULL);
        num_cell(out, v->has_fill, v->ceiling, NULL);
        num_cell(out, v->mem_ceiling >= 0, v->mem_ceiling, NULL);
        num_cell(out, v->advice >= 0, v->advice, NULL);
        fprintf(out, "<td class=\"name binds\">%s</td></tr>\n", b ? b : "-");
    }
    fputs("</tbody>\n</table>\n", out);
    /* the lines to change: the diffs to copy, or why there is none */
    int diffs = 0;
    for (size_t i = 0; i < a->n; i++) {
        char *d = advise_patch(h->pools[i], &a->v[i]);
        if (d && !diffs++)
            fputs("<h3>The lines to change</h3>\n<p class=\"note\">Apply with <code>patch -p1 "
                  "-d /</code> on the host, then reload php-fpm.</p>\n<pre class=\"patch\">", out);
        if (d)
            esc_html_str(out, d);
        free(d);
    }
    if (diffs)
        fputs("</pre>\n", out);
    for (size_t i = 0; i < a->n; i++) {
        const wi_view *v = &a->v[i];
        if (v->advice < 0 || v->advice == v->now || (h->pools[i]->conf_file &&
                                                     h->pools[i]->conf_text))
            continue;
        fprintf(out, "<p>Set <code>pm.max_children = %lld</code> in pool ",
                (long long)v->advice);
        esc_html(out, h->pools[i]->name, h->pools[i]->name_len);
        fputs("'s configuration.</p>\n", out);
    }
    /* the host's lines: CPU and memory sums, the held pools, how it was shared */
    const void *arg[3] = {a, c->sc, s->hn};
    if (text_block(out, "lines", host_lines_fn, arg) != 0)
        return FPM_ENOMEM;
    /* the host's figures, from their table */
    fputs("<h3>The host</h3>\n<table class=\"figures\">\n<tbody>\n", out);
    for (size_t k = 0; k < FIG_NHOST; k++) {
        const fig_host_entry *e = &FIG_HOST[k];
        if (!e->label)
            continue;
        char b[128];
        fig_host_text(e, a, b, sizeof b);
        fputs("<tr><th class=\"name\" scope=\"row\">", out);
        esc_html_str(out, e->label);
        fputs("</th><td>", out);
        esc_html_str(out, b);
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody>\n</table>\n", out);
    return 0;
}

/* ------------------------------------------------------------ a pool */

typedef struct {
    const pl_pool *p;
    const wi_view *v;
    const why_ctx *w;
} why_arg;

static void why_fn(FILE *out, const void *arg)
{
    const why_arg *x = arg;
    why_text(out, x->p, x->v, x->w);
}

/* One figure of the text's table as the page shows it. */
static void figure_row(FILE *out, const fig_column *col, const pl_pool *p, const wi_view *v)
{
    fig_value x = {0};
    col->get(p, v, &x);
    char b[ESC_HUNDREDTHS];
    fputs("<tr><th class=\"name\" scope=\"row\">", out);
    esc_html_str(out, col->heading);
    fputs("</th><td class=\"name\">", out);
    esc_html_str(out, col->label);
    fputs("</td><td>", out);
    if (!x.has)
        esc_html_str(out, col->missing);
    else if (col->zero && x.i == 0 && col->kind != FIG_WORD)
        esc_html_str(out, col->zero);
    else if (col->kind == FIG_WORD)
        esc_html(out, x.word, x.word_len);
    else if (col->kind == FIG_HUNDREDTHS)
        fprintf(out, "%s%s", esc_hundredths(b, x.i), col->unit);
    else
        fprintf(out, "%lld%s", (long long)x.i, col->unit);
    fputs("</td></tr>\n", out);
}

/* A chart file inlined (svgin.h); gnuplot's <defs> kept in the page's
 * first.  0, or -1 (none: no file, too large, or refused). */
static int inline_svg(FILE *out, html_state *st, const char *path, const char *label)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char *b = malloc(HTML_SVG_MAX);
    size_t n = b ? fread(b, 1, HTML_SVG_MAX, f) : 0;
    int whole = b && n < HTML_SVG_MAX && feof(f);
    fclose(f);
    int rc = whole ? svgin_write(out, b, n, label, !st->defs) : -1;
    st->defs |= rc == 0;
    free(b);
    return rc;
}

static const struct {
    const char *suffix, *caption;
} CHARTS[] = {
    {"-hist.svg", "The CPU share of its requests"},
    {"-fit.svg", "What a busy worker costs the host: host CPU against the pool's"},
    {"-series.svg", "CPU, workers and queue over time, starved rounds marked"},
    {"-memory.svg", "Memory: a worker's, php-fpm's and the rest of the host's"},
    {"-bounds.svg", "What N busy workers can give, and each request's p50 and p95 at N"},
};

static void charts(FILE *out, html_state *st, const rp_meta *m, const pl_pool *p)
{
    char base[160], path[4600];
    if (!m || !m->charts || !m->chart_base || m->chart_base(m->chart_arg, p, base, sizeof base))
        return;
    fputs("<div class=\"charts\">\n", out);
    for (size_t k = 0; k < sizeof CHARTS / sizeof CHARTS[0]; k++) {
        snprintf(path, sizeof path, "%s/%s%s", m->charts, base, CHARTS[k].suffix);
        fputs("<figure>\n", out);
        if (inline_svg(out, st, path, CHARTS[k].caption) != 0)
            fputs("<p class=\"note\">(no chart)</p>\n", out);
        fputs("<figcaption>", out);
        esc_html_str(out, CHARTS[k].caption);
        fputs("</figcaption>\n</figure>\n", out);
    }
    fputs("</div>\n", out);
}

/* Section 19: its routes, as fpm-analyze routes prints them (all of them). */
static void routes(FILE *out, const wi_view *v)
{
    if (!v->nroutes)
        return;
    fputs("<h4>Routes, by CPU</h4>\n<table class=\"routes\">\n<thead><tr><th class=\"name\">"
          "route</th><th>readings</th>", out);
    if (v->censused) /* 20.6: every request, and their rate */
        fputs("<th>requests</th><th>a second</th>", out);
    fputs("<th>CPU</th><th>CPU/request</th><th>busy</th><th>p50</th>"
          "<th>p95</th><th>p95 at the advice</th><th>memory max</th></tr></thead>\n<tbody>\n",
          out);
    char b[ESC_HUNDREDTHS];
    for (size_t i = 0; i < v->nroutes; i++) {
        const rt_fig *f = &v->routes[i];
        fputs("<tr><td class=\"name\"><code>", out);
        esc_html(out, f->name, f->len);
        fprintf(out, "</code></td><td>%llu</td>", (unsigned long long)f->readings);
        if (v->censused)
            fprintf(out, "<td>%llu</td><td>%s</td>", (unsigned long long)f->requests,
                    f->rps_h >= 0 ? esc_hundredths(b, f->rps_h) : "-");
        fprintf(out, "<td>%s%s</td>", f->cpu_share_h >= 0 ? esc_hundredths(b, f->cpu_share_h) : "-",
                f->cpu_share_h >= 0 ? "%" : "");
        fprintf(out, "<td>%s ms</td>", esc_hundredths(b, f->cpu_ms_h));
        fprintf(out, "<td>%s%s</td>", f->busy_h >= 0 ? esc_hundredths(b, f->busy_h) : "-",
                f->busy_h >= 0 ? "%" : "");
        const int64_t ms[3] = {f->p50_ms, f->p95_ms, f->p95_at_advice_ms};
        for (int k = 0; k < 3; k++) {
            if (ms[k] >= 0)
                fprintf(out, "<td>%lld ms</td>", (long long)ms[k]);
            else
                fputs("<td>-</td>", out);
        }
        if (f->mem_max >= 0)
            fprintf(out, "<td>%llu MiB</td></tr>\n",
                    (unsigned long long)(((uint64_t)f->mem_max + (1u << 20) - 1) >> 20));
        else
            fputs("<td>-</td></tr>\n", out);
    }
    fputs("</tbody>\n</table>\n", out);
}

/* 12.2: what it did, readings or not. */
static void activity(FILE *out, const pl_pool *p)
{
    const pl_activity *a = &p->act;
    fputs("<h4>What it did</h4>\n<table class=\"activity\">\n<thead><tr><th>cores on average"
          "</th><th>at its busiest pair</th><th>most workers busy</th><th>rounds all busy</th>"
          "<th>rounds it ran out</th><th>longest queue</th><th>starved rounds</th></tr></thead>\n"
          "<tbody><tr>", out);
    if (a->pairs && a->seconds > 0)
        fprintf(out, "<td>%.2f</td><td>%.2f</td>", a->core_seconds / a->seconds, a->cores_max);
    else
        fputs("<td>-</td><td>-</td>", out);
    num_cell(out, a->has_active, a->active_max, NULL);
    num_cell(out, a->full_known, (int64_t)a->full_rounds, NULL);
    num_cell(out, 1, (int64_t)a->maxed_rounds, NULL);
    num_cell(out, a->has_queue, a->queue_max, NULL);
    num_cell(out, 1, (int64_t)p->starved, NULL);
    fputs("</tr></tbody>\n</table>\n", out);
}

static int html_pool(rp_ctx *c, const wi_host *a, size_t i)
{
    FILE *out = c->out;
    html_state *s = c->state;
    const pl_pool *p = a->h->pools[i];
    const wi_view *v = &a->v[i];
    fprintf(out, "<section class=\"pool\" id=\"h%zu-p%zu\">\n<h3>pool ", s->host, i + 1);
    esc_html(out, p->name, p->name_len);
    fputs(" <span class=\"meta\">on ", out);
    esc_html(out, a->h->hostname, a->h->hostname_len);
    fputs("</span></h3>\n", out);
    why_ctx w = {a->hm, c->sc->headroom, a->h->rounds, a->needed_now, c->sc->cost,
                 a->mem.has_budget, a->mem.budget};
    why_arg x = {p, v, &w};
    if (text_block(out, "why", why_fn, &x) != 0)
        return FPM_ENOMEM;
    fputs("<table class=\"figures\">\n<tbody>\n", out);
    for (size_t k = 1; k < FIG_NTEXT; k++) /* the text's table, but the pool's name */
        figure_row(out, &FIG_TEXT[k], p, v);
    char b[ESC_HUNDREDTHS];
    if (v->has_fill)
        fprintf(out, "<tr><th class=\"name\" scope=\"row\">knee</th><td class=\"name\">the "
                     "host's cores / HOST/W: past it, more busy workers only wait</td><td>%s</td>"
                     "</tr>\n", esc_hundredths(b, v->knee_hundredths));
    if (v->has_cpu_ms)
        fprintf(out, "<tr><th class=\"name\" scope=\"row\">CPU/request</th><td class=\"name\">"
                     "the CPU a request computes, on average</td><td>%s ms</td></tr>\n",
                esc_hundredths(b, v->cpu_ms_hundredths));
    if (v->censused) { /* 20.7: what its access log counted, measured beside predicted */
        fprintf(out, "<tr><th class=\"name\" scope=\"row\">requests</th><td class=\"name\">"
                     "every request from its access log</td><td>%llu</td></tr>\n",
                (unsigned long long)v->requests);
        fprintf(out, "<tr><th class=\"name\" scope=\"row\">a second</th><td class=\"name\">"
                     "its requests a second</td><td>%s</td></tr>\n",
                v->rps_hundredths >= 0 ? esc_hundredths(b, v->rps_hundredths) : "-");
        fputs("<tr><th class=\"name\" scope=\"row\">p50, p95</th><td class=\"name\">what its "
              "requests took, measured</td><td>", out);
        if (v->has_measured)
            fprintf(out, "%lld ms, %lld ms", (long long)v->measured_p50,
                    (long long)v->measured_p95);
        else
            fputs("-", out);
        fputs("</td></tr>\n<tr><th class=\"name\" scope=\"row\">predicted</th><td "
              "class=\"name\">p50 and p95 at pm.max_children, predicted (advise)</td><td>", out);
        if (v->at_now.has)
            fprintf(out, "%lld ms, %lld ms at %lld", (long long)v->at_now.p50_ms,
                    (long long)v->at_now.p95_ms, (long long)v->at_now.workers);
        else
            fputs("-", out);
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody>\n</table>\n", out);
    charts(out, s, c->meta, p);
    routes(out, v);
    activity(out, p);
    fputs("</section>\n", out);
    return 0;
}

static int html_host_end(rp_ctx *c, const wi_host *a)
{
    (void)a;
    fputs("</section>\n", c->out);
    return 0;
}

static int html_end(rp_ctx *c)
{
    html_state *s = c->state;
    if (s)
        free(s->hn);
    free(s);
    c->state = NULL;
    fputs("</main>\n<footer><p class=\"meta\">How to read every figure: <code>man 7 fpm-cpu"
          "</code>. The bounds hold whatever happens; the p50 and p95 are a forecast.</p>"
          "</footer>\n</body>\n</html>\n", c->out);
    return 0;
}

const rp_format rp_html = {"html", "one page: the answer, its figures, charts and routes",
                           html_begin, html_host, html_pool, html_host_end, html_end};
