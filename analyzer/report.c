/* Section 7 arithmetic and the text and JSON outputs. */
#include "report.h"
#include "timearg.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int report_is_what_if(const rp_scenario *sc)
{
    return sc->has_host_millicores || sc->headroom != RP_DEFAULT_HEADROOM || sc->nmax_children ||
           sc->cost != RP_COST_TYPICAL;
}

int64_t report_now(const pl_pool *p, const rp_scenario *sc)
{
    for (size_t i = sc->nmax_children; i-- > 0;)
        if (strlen(sc->max_children[i].pool) == p->name_len &&
            memcmp(sc->max_children[i].pool, p->name, p->name_len) == 0)
            return sc->max_children[i].max_children;
    return p->max_children;
}

rp_pool_view report_pool_view(const pl_pool *p, uint64_t hm, int headroom, int64_t now)
{
    return report_pool_view_cost(p, hm, headroom, now, RP_COST_TYPICAL);
}

rp_pool_view report_pool_view_cost(const pl_pool *p, uint64_t hm, int headroom, int64_t now,
                                   int cost_of)
{
    rp_pool_view v = {0};
    v.line = fit_solve(&p->f);
    v.now = now > 0 ? now : 0;
    if (p->h.total > 0) {
        v.has_typical = 1;
        v.typical_pct = hist_floor_pct(hist_percentile(&p->h, 50));
        v.p90_pct = hist_floor_pct(hist_percentile(&p->h, 90));
    }
    if (p->h.total < RP_MIN_READINGS)
        return v;
    v.shape = v.typical_pct >= 50 ? "cpu-bound" : v.typical_pct >= 20 ? "mixed" : "i/o-bound";
    v.php_millicores = (int64_t)v.typical_pct * 10;
    v.has_busy = hist_busy(&p->h, &v.busy_hundredths, &v.busy_millicores) == 0;
    int64_t php = cost_of == RP_COST_BUSY && v.has_busy ? v.busy_millicores : v.php_millicores;
    v.host_millicores_per_worker = v.line.believed
        ? (int64_t)round((double)php * v.line.overhead)
        : php;
    int64_t cost = v.host_millicores_per_worker;
    if (cost <= 0 || hm == 0)
        return v;
    v.has_fill = 1;
    v.fill = ((int64_t)hm + cost - 1) / cost;
    int64_t by_headroom = (v.fill * headroom + 99) / 100;
    int64_t by_cores = ((int64_t)hm + 999) / 1000 + 1;
    v.ceiling = by_headroom > by_cores ? by_headroom : by_cores;
    if (v.now > 0)
        v.limit = v.now > v.ceiling ? RP_LIMIT_CPU : RP_LIMIT_WORKERS;
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

void report_host_needs(const rp_pool_view *v, size_t n, int64_t *now, int64_t *ceil_)
{
    *now = *ceil_ = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].shape && v[i].now > 0)
            *now = mul_add_sat(v[i].now, v[i].host_millicores_per_worker, *now);
        if (v[i].has_fill)
            *ceil_ = mul_add_sat(v[i].ceiling, v[i].host_millicores_per_worker, *ceil_);
    }
}

uint64_t report_host_millicores(const pl_host *h, const rp_scenario *sc)
{
    return sc->has_host_millicores ? sc->host_millicores : h->host_millicores;
}

static rp_pool_view *host_views(const pl_host *h, const rp_scenario *sc)
{
    rp_pool_view *v = calloc(h->npools ? h->npools : 1, sizeof *v);
    if (!v)
        return NULL;
    uint64_t hm = report_host_millicores(h, sc);
    for (size_t i = 0; i < h->npools; i++)
        v[i] = report_pool_view_cost(h->pools[i], hm, sc->headroom, report_now(h->pools[i], sc),
                                     sc->cost);
    return v;
}

/* The views as measured: the host's own size, headroom 2, its own max. */
static rp_pool_view *measured_views(const pl_host *h)
{
    rp_scenario m = {.headroom = RP_DEFAULT_HEADROOM};
    return host_views(h, &m);
}

/* ------------------------------------------------------------ text helpers */

/* Length of the valid UTF-8 sequence at s[0..n), 0 when invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t k;
    uint32_t min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) { k = 2; min = 0x80; }
    else if (c >= 0xE0 && c <= 0xEF) { k = 3; min = 0x800; }
    else if (c >= 0xF0 && c <= 0xF4) { k = 4; min = 0x10000; }
    else return 0;
    if (k > n)
        return 0;
    uint32_t cp = c & (0xFF >> (k + 1));
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000))
        return 0;
    return k;
}

void report_json_string(FILE *out, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    fputc('"', out);
    for (size_t i = 0; i < n;) {
        size_t k = utf8_len(s + i, n - i);
        if (k == 0) {
            fputs("\xEF\xBF\xBD", out);
            i++;
            continue;
        }
        unsigned char c = s[i];
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20 || c == 0x7F)
            fprintf(out, "\\u%04x", c);
        else
            fwrite(s + i, 1, k, out);
        i += k;
    }
    fputc('"', out);
}

/* A name for a terminal: valid UTF-8, control and invalid bytes as U+FFFD.
 * Returns a malloc'd string and its width in code points. */
char *report_display_name(const char *str, size_t n, size_t *width)
{
    const unsigned char *s = (const unsigned char *)str;
    char *d = malloc(3 * n + 1);
    size_t o = 0, w = 0;
    if (!d)
        return NULL;
    for (size_t i = 0; i < n; w++) {
        size_t k = utf8_len(s + i, n - i);
        if (k == 0 || s[i] < 0x20 || s[i] == 0x7F) {
            memcpy(d + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        } else {
            memcpy(d + o, s + i, k);
            o += k;
            i += k;
        }
    }
    d[o] = '\0';
    if (width)
        *width = w;
    return d;
}

static void cores_text(char *b, size_t n, uint64_t mc)
{
    if (mc % 1000 == 0)
        snprintf(b, n, "%llu core%s", (unsigned long long)(mc / 1000), mc == 1000 ? "" : "s");
    else
        snprintf(b, n, "%g cores", (double)mc / 1000.0);
}

static void pct_text(char *b, size_t n, int has, int pct)
{
    if (!has)
        snprintf(b, n, "-");
    else if (pct == 0)
        snprintf(b, n, "<5%%");
    else
        snprintf(b, n, "%d%%", pct);
}

/* What the WHY of a pool needs from its host. */
typedef struct {
    uint64_t hm;          /* host millicores judged against, 0 unknown */
    int      headroom;    /* hundredths */
    uint64_t rounds;      /* the host's counted rounds */
    int64_t  needed_now;  /* the host line's sum */
    int      cost;        /* RP_COST_TYPICAL or RP_COST_BUSY */
} why_ctx;

/* Why a pool has no reading yet: the filter that took its finished requests. */
static void why_no_readings(FILE *out, const pl_pool *p, uint64_t rounds)
{
    const uint64_t *f = p->filtered;
    if (rounds > 0 && p->error_rounds == rounds) {
        fprintf(out, "no readings: its status page could not be read in any of its %llu "
                     "round%s.", (unsigned long long)rounds, rounds == 1 ? "" : "s");
        return;
    }
    if (f[RD_SHORT] >= f[RD_OWN] && f[RD_SHORT] >= f[RD_INVALID] && f[RD_SHORT] > 0)
        fprintf(out, "no readings: every request that finished was under 50 ms (%llu), too "
                     "short for its CPU share to mean anything.",
                (unsigned long long)f[RD_SHORT]);
    else if (f[RD_OWN] >= f[RD_INVALID] && f[RD_OWN] > 0)
        fprintf(out, "no readings: only monitoring requests finished (%llu own, such as the "
                     "recorder's status requests). Visitors' requests count once they come.",
                (unsigned long long)f[RD_OWN]);
    else if (f[RD_INVALID] > 0)
        fprintf(out, "no readings: php-fpm gave no usable CPU share (%llu invalid).",
                (unsigned long long)f[RD_INVALID]);
    else
        fputs("no readings: no request finished while it was recorded.", out);
}

/* The fill sentence's reason for the cost it used. */
static void why_cost(FILE *out, const rp_pool_view *v)
{
    if (v->line.believed)
        fprintf(out, " (%.2fx PHP's own with the rest of the host counted).", v->line.overhead);
    else if (v->line.exists && v->line.n >= FIT_BELIEF_N && v->line.sd_x >= FIT_BELIEF_SD_X)
        fprintf(out, ", at PHP's own cost: a host slope of %.1f is not believed, the pool's "
                     "load moves with something else.", v->line.slope);
    else if (v->line.n >= FIT_BELIEF_N)
        fputs(", at PHP's own cost: the pool's load never varied enough to measure the "
              "host's overhead.", out);
    else if (v->line.n < 1)
        fputs(", at PHP's own cost: the pool never ran alone or dominant, so its host "
              "overhead is not measured.", out);
    else
        fprintf(out, ", at PHP's own cost: host overhead not measured yet (fit n=%.1f of %.0f).",
                v->line.n, FIT_BELIEF_N);
}

/* The WHY: the arithmetic of the row in short sentences, one idea each. */
static void why_text(FILE *out, const pl_pool *p, const rp_pool_view *v, const why_ctx *c)
{
    char cores[48];
    if (!v->shape) {
        if (p->h.total == 0)
            why_no_readings(out, p, c->rounds);
        else
            fprintf(out, "too few readings yet (%u of %d).", p->h.total, RP_MIN_READINGS);
        goto tail;
    }
    fprintf(out, "%s.", v->shape);
    if (v->host_millicores_per_worker <= 0) {
        fputs(" A busy worker costs under 5% of a core, so the CPU sets no ceiling.", out);
        goto tail;
    }
    if (c->hm == 0) {
        fputs(" The host's size is unknown, so no fill or ceiling.", out);
        goto tail;
    }
    cores_text(cores, sizeof cores, c->hm);
    fprintf(out, " ~%lld busy workers fill %s", (long long)v->fill, cores);
    why_cost(out, v);
    fprintf(out, " Ceiling %lld", (long long)v->ceiling);
    if (v->ceiling == (v->fill * c->headroom + 99) / 100)
        fprintf(out, " (headroom %d.%02d)", c->headroom / 100, c->headroom % 100);
    fputc('.', out);
    if (v->limit == RP_LIMIT_CPU)
        fprintf(out, " pm.max_children %lld is past it.", (long long)v->now);
    else if (v->limit == RP_LIMIT_WORKERS)
        fprintf(out, " pm.max_children %lld is within it: the pool runs out of workers before "
                     "the host runs out of CPU.", (long long)v->now);
    else
        fputs(" pm.max_children unknown.", out);
    if (v->has_busy && v->busy_millicores > 0 && 2 * v->busy_millicores >= 3 * v->php_millicores)
        fprintf(out, " The median hides heavy requests: a busy worker costs ~%lldm, not %lldm%s.",
                (long long)v->busy_millicores, (long long)v->php_millicores,
                c->cost == RP_COST_BUSY ? " (sized by it here, --cost busy)"
                                        : "; --cost busy sizes the pool by it");
    if (v->limit == RP_LIMIT_WORKERS && c->needed_now > (int64_t)c->hm)
        fprintf(out, " Within its own ceiling, but together the pools need %.2fx the host.",
                (double)c->needed_now / (double)c->hm);
tail:
    if (p->starved)
        fprintf(out, " Queued in %llu round%s while the CPU was full.",
                (unsigned long long)p->starved, p->starved == 1 ? "" : "s");
    if (p->error_rounds && !(p->h.total == 0 && p->error_rounds == c->rounds))
        fprintf(out, " Its status page could not be read in %llu of %llu rounds.",
                (unsigned long long)p->error_rounds, (unsigned long long)c->rounds);
    if (p->error_rounds && p->last_error[0])
        fprintf(out, " Last error: %s.", p->last_error);
}

/* A table of text cells, columns lined up; left[c] says which are left-aligned. */
typedef struct {
    size_t  ncols, nrows, cap;
    char  **cell;
    size_t *width;              /* of each cell, in code points */
    int     failed;
} table;

static void table_add(table *t, char *owned, size_t width)
{
    if (t->failed)
        goto drop;
    if (!owned) {
        t->failed = 1;
        return;
    }
    size_t used = 0;
    while (used < t->cap && t->cell[used])
        used++;
    if (used == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        char **c = realloc(t->cell, cap * sizeof *c);
        size_t *w = realloc(t->width, cap * sizeof *w);
        if (c)
            t->cell = c;
        if (w)
            t->width = w;
        if (!c || !w) {
            t->failed = 1;
            goto drop;
        }
        memset(t->cell + t->cap, 0, (cap - t->cap) * sizeof *c);
        t->cap = cap;
    }
    t->cell[used] = owned;
    t->width[used] = width;
    t->nrows = (used + t->ncols) / t->ncols;
    return;
drop:
    free(owned);
}

static void table_text(table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void table_text(table *t, const char *fmt, ...)
{
    char b[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    size_t w = 0; /* in code points: UTF-8 continuation bytes take no room */
    for (const char *p = b; *p; p++)
        w += ((unsigned char)*p & 0xC0) != 0x80;
    table_add(t, strdup(b), w);
}

static void table_print(FILE *out, const table *t, const int *left)
{
    size_t width[16] = {0};
    for (size_t i = 0; i < t->nrows * t->ncols && t->cell[i]; i++)
        if (t->width[i] > width[i % t->ncols])
            width[i % t->ncols] = t->width[i];
    for (size_t r = 0; r < t->nrows; r++) {
        char line[4096];
        size_t o = 0;
        for (size_t c = 0; c < t->ncols; c++) {
            size_t i = r * t->ncols + c;
            const char *cell = t->cell[i] ? t->cell[i] : "";
            size_t fill = width[c] - (t->cell[i] ? t->width[i] : 0), cl = strlen(cell);
            if (o + 2 + fill + cl >= sizeof line)
                break;
            if (c > 0)
                o += (size_t)snprintf(line + o, sizeof line - o, "  ");
            if (!left[c])
                for (size_t k = 0; k < fill; k++)
                    line[o++] = ' ';
            memcpy(line + o, cell, cl);
            o += cl;
            if (left[c])
                for (size_t k = 0; k < fill; k++)
                    line[o++] = ' ';
        }
        while (o > 0 && line[o - 1] == ' ')
            o--;
        line[o++] = '\n';
        fwrite(line, 1, o, out);
    }
}

static void table_free(table *t)
{
    for (size_t i = 0; i < t->cap; i++)
        free(t->cell[i]);
    free(t->cell);
    free(t->width);
}

static const char *limit_name(rp_limit l)
{
    return l == RP_LIMIT_CPU ? "cpu" : l == RP_LIMIT_WORKERS ? "workers" : "-";
}

static void host_line(FILE *out, const char *hn, uint64_t hm, int64_t now, int64_t atc,
                      const char *label)
{
    fprintf(out, "host %s%s: ", hn, label);
    if (hm)
        fprintf(out, "needed now %lldm of %llum (%.2fx), at ceiling %lldm (%.2fx); a worst "
                     "case, every worker busy at once\n",
                (long long)now, (unsigned long long)hm, (double)now / (double)hm,
                (long long)atc, (double)atc / (double)hm);
    else
        fprintf(out, "needed now %lldm, at ceiling %lldm; the host's size is unknown\n",
                (long long)now, (long long)atc);
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
    table_text(t, "%s " ARROW " %s", side(x, sizeof x, has_a, a, unit, missing),
               side(y, sizeof y, has_b, b, unit, missing));
}

/* What-if: the measured figures beside the scenario's. */
static void print_what_if(FILE *out, const pl_host *h, const rp_pool_view *v,
                          const rp_pool_view *m, const char *hn)
{
    static const int left[6] = {1, 0, 0, 0, 0, 1};
    table t = {.ncols = 6};
    table_text(&t, "WHAT-IF");
    table_text(&t, "FILL");
    table_text(&t, "CEILING");
    table_text(&t, "MAX");
    table_text(&t, "DRAW AT MAX");
    table_text(&t, "LIMIT");
    for (size_t i = 0; i < h->npools; i++) {
        size_t w = 0;
        char *name = report_display_name(h->pools[i]->name, h->pools[i]->name_len, &w);
        table_add(&t, name, w);
        int64_t mdraw = m[i].now * m[i].host_millicores_per_worker;
        int64_t vdraw = v[i].now * v[i].host_millicores_per_worker;
        before_after(&t, m[i].has_fill, m[i].fill, v[i].has_fill, v[i].fill, "", "-");
        before_after(&t, m[i].has_fill, m[i].ceiling, v[i].has_fill, v[i].ceiling, "", "-");
        before_after(&t, m[i].now > 0, m[i].now, v[i].now > 0, v[i].now, "", "?");
        before_after(&t, m[i].shape && m[i].now, mdraw, v[i].shape && v[i].now, vdraw, "m", "-");
        table_text(&t, "%s %s %s", limit_name(m[i].limit), ARROW, limit_name(v[i].limit));
    }
    fputc('\n', out);
    table_print(out, &t, left);
    table_free(&t);
    fputc('\n', out);
    int64_t now, atc;
    report_host_needs(m, h->npools, &now, &atc);
    host_line(out, hn, h->host_millicores, now, atc, " as measured");
}

static int print_host_text(FILE *out, const pl_host *h, const rp_scenario *sc)
{
    enum { NCOLS = 14 };
    static const int left[NCOLS] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0};
    uint64_t hm = report_host_millicores(h, sc);
    rp_pool_view *v = host_views(h, sc), *m = measured_views(h);
    table t = {.ncols = NCOLS};
    size_t hw;
    char *hn = report_display_name(h->hostname, h->hostname_len, &hw);
    int rc = -1;
    if (!v || !m || !hn)
        goto err;
    char cores[48];
    cores_text(cores, sizeof cores, hm);
    char span[100] = "";
    if (h->rounds) {
        char a[40], b[40];
        timearg_format(h->first_real - h->first_real % 1000000000ull, a);
        timearg_format(h->last_real - h->last_real % 1000000000ull, b);
        snprintf(span, sizeof span, " (%s to %s)", a, b);
    }
    if (hm)
        fprintf(out, "%s: %s (%llum)%s, %llu rounds%s, headroom %d.%02d\n", hn, cores,
                (unsigned long long)hm, sc->has_host_millicores ? " (what-if)" : "",
                (unsigned long long)h->rounds, span, sc->headroom / 100, sc->headroom % 100);
    else
        fprintf(out, "%s: size unknown (its HOST record has no nproc), %llu rounds%s\n", hn,
                (unsigned long long)h->rounds, span);
    static const char *const head[NCOLS] = {"POOL", "READINGS", "TYPICAL", "P90", "BUSY",
                                            "SHAPE", "PHP/W", "HOST/W", "FILL", "CEILING", "MAX",
                                            "LIMIT", "STARVED", "ERRORS"};
    for (size_t c = 0; c < NCOLS; c++)
        table_text(&t, "%s", head[c]);
    for (size_t i = 0; i < h->npools; i++) {
        const pl_pool *p = h->pools[i];
        const rp_pool_view *pv = &v[i];
        char b[64];
        size_t w = 0;
        char *name = report_display_name(p->name, p->name_len, &w);
        table_add(&t, name, w);
        table_text(&t, "%u", p->h.total);
        pct_text(b, sizeof b, pv->has_typical, pv->typical_pct);
        table_text(&t, "%s", b);
        pct_text(b, sizeof b, pv->has_typical, pv->p90_pct);
        table_text(&t, "%s", b);
        if (pv->has_busy)
            table_text(&t, "%lld.%02lld%%", (long long)(pv->busy_hundredths / 100),
                       (long long)(pv->busy_hundredths % 100));
        else
            table_text(&t, "-");
        table_text(&t, "%s", pv->shape ? pv->shape : "-");
        if (pv->shape) {
            table_text(&t, "%lldm", (long long)pv->php_millicores);
            table_text(&t, "%lldm", (long long)pv->host_millicores_per_worker);
        } else {
            table_text(&t, "-");
            table_text(&t, "-");
        }
        if (pv->has_fill) {
            table_text(&t, "%lld", (long long)pv->fill);
            table_text(&t, "%lld", (long long)pv->ceiling);
        } else {
            table_text(&t, "-");
            table_text(&t, "-");
        }
        if (pv->now > 0)
            table_text(&t, "%lld", (long long)pv->now);
        else
            table_text(&t, "?");
        table_text(&t, "%s", limit_name(pv->limit));
        table_text(&t, "%llu", (unsigned long long)p->starved);
        table_text(&t, "%llu", (unsigned long long)p->error_rounds);
    }
    if (t.failed)
        goto err;
    fputc('\n', out);
    table_print(out, &t, left);
    if (h->npools)
        fputc('\n', out);
    int64_t now, atc;
    report_host_needs(v, h->npools, &now, &atc);
    why_ctx wc = {hm, sc->headroom, h->rounds, now, sc->cost};
    for (size_t i = 0; i < h->npools; i++) {
        fprintf(out, "%s: ", t.cell[(i + 1) * NCOLS]);
        why_text(out, h->pools[i], &v[i], &wc);
        fputc('\n', out);
        if (sc->explain) {
            const pl_pool *p = h->pools[i];
            fprintf(out, "  not counted:");
            for (int k = 0; k < RD_NREASONS; k++)
                fprintf(out, " %s %llu", rd_name((rd_verdict)k),
                        (unsigned long long)p->filtered[k]);
            fputc('\n', out);
        }
    }
    if (sc->explain) {
        fprintf(out, "round pairs: %llu usable", (unsigned long long)h->pairs_usable);
        for (int k = 0; k < PL_NDROP; k++)
            fprintf(out, ", %llu %s", (unsigned long long)h->pairs_dropped[k],
                    pl_drop_name((pl_drop)k));
        fputc('\n', out);
    }
    fputc('\n', out);
    host_line(out, hn, hm, now, atc, report_is_what_if(sc) ? " in the what-if" : "");
    if (report_is_what_if(sc))
        print_what_if(out, h, v, m, hn);
    rc = 0;
err:
    table_free(&t);
    free(hn);
    free(v);
    free(m);
    return rc;
}

/* The heading lines: the window and the scenario, when given. */
static void print_heading(FILE *out, const rp_scenario *sc)
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
    if (report_is_what_if(sc)) {
        fputs("what-if:", out);
        if (sc->has_host_millicores) {
            cores_text(a, sizeof a, sc->host_millicores);
            fprintf(out, " a host of %s (%llum)", a, (unsigned long long)sc->host_millicores);
        }
        fprintf(out, "%s headroom %d.%02d", sc->has_host_millicores ? "," : "",
                sc->headroom / 100, sc->headroom % 100);
        for (size_t i = 0; i < sc->nmax_children; i++)
            fprintf(out, ", pm.max_children %s=%lld", sc->max_children[i].pool,
                    (long long)sc->max_children[i].max_children);
        if (sc->cost == RP_COST_BUSY)
            fputs(", a busy worker's PHP at its duration-weighted share (--cost busy)", out);
        fputc('\n', out);
    }
    if (sc->has_from || sc->has_until || report_is_what_if(sc))
        fputc('\n', out);
}

static int print_text(FILE *out, const pipeline *pl, const rp_scenario *sc)
{
    pl_host *const *hosts;
    size_t n = pipeline_hosts(pl, &hosts);
    print_heading(out, sc);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputc('\n', out);
        if (print_host_text(out, hosts[i], sc))
            return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ hist */

static void bucket_range(char *b, size_t n, int i)
{
    if (i == HIST_BUCKETS - 1)
        snprintf(b, n, "%d%%+", hist_floor_pct(i));
    else
        snprintf(b, n, "%d-%d%%", hist_floor_pct(i), hist_floor_pct(i + 1));
}

int report_hist(FILE *out, const pipeline *pl, const char *pool, double cutoff)
{
    static const int left[4] = {0, 0, 0, 0};
    pl_host *const *hosts;
    size_t nh = pipeline_hosts(pl, &hosts), shown = 0;
    for (size_t k = 0; k < nh; k++) {
        const pl_host *h = hosts[k];
        for (size_t i = 0; i < h->npools; i++) {
            const pl_pool *p = h->pools[i];
            if (pool && (strlen(pool) != p->name_len || memcmp(pool, p->name, p->name_len)))
                continue;
            size_t hw, pw;
            char *hn = report_display_name(h->hostname, h->hostname_len, &hw);
            char *pn = report_display_name(p->name, p->name_len, &pw);
            fprintf(out, "%s%s on %s: %u readings; CPU share of requests up to %.4f%%:\n",
                    shown++ ? "\n" : "", pn ? pn : "?", hn ? hn : "?", p->h.total, cutoff);
            free(hn);
            free(pn);
            table t = {.ncols = 4};
            table_text(&t, "CPU share");
            table_text(&t, "%% of total");
            table_text(&t, "running %%");
            table_text(&t, "count");
            int last = -1;
            for (int b = 0; b < HIST_BUCKETS; b++)
                if (p->h.count[b])
                    last = b;
            uint64_t run = 0;
            int stopped = -1;
            char r[32];
            for (int b = 0; b <= last; b++) {
                if (!p->h.count[b])
                    continue;
                run += p->h.count[b];
                bucket_range(r, sizeof r, b);
                table_text(&t, "%s", r);
                table_text(&t, "%.4f", 100.0 * p->h.count[b] / p->h.total);
                table_text(&t, "%.4f", 100.0 * (double)run / p->h.total);
                table_text(&t, "%u", p->h.count[b]);
                if (100.0 * (double)run / p->h.total >= cutoff) {
                    stopped = b;
                    break;
                }
            }
            if (stopped >= 0 && stopped < last) {
                table_text(&t, "...");
                table_text(&t, "%s", "");
                table_text(&t, "%s", "");
                table_text(&t, "%s", "");
                bucket_range(r, sizeof r, last);
                table_text(&t, "%s", r);
                table_text(&t, "%.4f", 100.0 * p->h.count[last] / p->h.total);
                table_text(&t, "%.4f", 100.0);
                table_text(&t, "%u", p->h.count[last]);
            }
            if (t.failed) {
                table_free(&t);
                return -1;
            }
            table_print(out, &t, left);
            table_free(&t);
            int64_t busy, busy_mc;
            if (p->h.total >= RP_MIN_READINGS && hist_busy(&p->h, &busy, &busy_mc) == 0)
                fprintf(out, "busy share (duration-weighted): %lld.%02lld%%\n",
                        (long long)(busy / 100), (long long)(busy % 100));
        }
    }
    if (!shown)
        fprintf(out, pool ? "no pool named \"%s\"\n" : "no pool%s\n", pool ? pool : "");
    return 0;
}

/* ------------------------------------------------------------ JSON */

/* The shortest decimal that reads back as the same double; null if none. */
static void json_double(FILE *out, double d)
{
    char b[40];
    if (!isfinite(d)) {
        fputs("null", out);
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(b, sizeof b, "%.*g", prec, d);
        if (strtod(b, NULL) == d)
            break;
    }
    fputs(b, out);
}

static void json_i64(FILE *out, int has, int64_t v)
{
    if (has)
        fprintf(out, "%lld", (long long)v);
    else
        fputs("null", out);
}

static int print_pool_json(FILE *out, const pl_pool *p, const rp_pool_view *v)
{
    fputs("{\"pool\": ", out);
    report_json_string(out, p->name, p->name_len);
    fprintf(out, ", \"readings\": %u, \"histogram\": [", p->h.total);
    for (int i = 0; i < HIST_BUCKETS; i++)
        fprintf(out, "%s%u", i ? ", " : "", p->h.count[i]);
    fputs("], \"typical_pct\": ", out);
    json_i64(out, v->has_typical, v->typical_pct);
    fputs(", \"p90_pct\": ", out);
    json_i64(out, v->has_typical, v->p90_pct);
    fputs(", \"shape\": ", out);
    if (v->shape)
        fprintf(out, "\"%s\"", v->shape);
    else
        fputs("null", out);
    fputs(", \"php_millicores\": ", out);
    json_i64(out, v->shape != NULL, v->php_millicores);
    fputs(", \"busy_pct\": ", out);
    if (v->has_busy)
        fprintf(out, "%lld.%02lld", (long long)(v->busy_hundredths / 100),
                (long long)(v->busy_hundredths % 100));
    else
        fputs("null", out);
    fputs(", \"busy_millicores\": ", out);
    json_i64(out, v->has_busy, v->busy_millicores);
    fputs(", \"fit\": ", out);
    if (v->line.exists) {
        fputs("{\"n\": ", out);
        json_double(out, v->line.n);
        fputs(", \"slope\": ", out);
        json_double(out, v->line.slope);
        fputs(", \"intercept\": ", out);
        json_double(out, v->line.intercept);
        fputs(", \"sd_x\": ", out);
        json_double(out, v->line.sd_x);
        fputs("}", out);
    } else {
        fputs("null", out);
    }
    fputs(", \"overhead\": ", out);
    if (v->line.believed)
        json_double(out, v->line.overhead);
    else
        fputs("null", out);
    fputs(", \"host_millicores_per_worker\": ", out);
    json_i64(out, v->shape != NULL, v->host_millicores_per_worker);
    fputs(", \"fill_workers\": ", out);
    json_i64(out, v->has_fill, v->fill);
    fputs(", \"ceiling\": ", out);
    json_i64(out, v->has_fill, v->ceiling);
    fputs(", \"max_children\": ", out);
    json_i64(out, v->now > 0, v->now);
    fputs(", \"limit\": ", out);
    fputs(v->limit == RP_LIMIT_CPU ? "\"cpu\"" : v->limit == RP_LIMIT_WORKERS ? "\"workers\""
                                                                               : "null", out);
    fprintf(out, ", \"starved_rounds\": %llu, \"error_rounds\": %llu, \"filtered\": {",
            (unsigned long long)p->starved, (unsigned long long)p->error_rounds);
    for (int k = 0; k < RD_NREASONS; k++)
        fprintf(out, "%s\"%s\": %llu", k ? ", " : "", rd_name((rd_verdict)k),
                (unsigned long long)p->filtered[k]);
    fputs("}}", out);
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

static int print_json(FILE *out, const pipeline *pl, const rp_scenario *sc)
{
    pl_host *const *hosts;
    size_t n = pipeline_hosts(pl, &hosts);
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
    if (report_is_what_if(sc)) {
        fputs("\"scenario\": {\"host_millicores\": ", out);
        json_i64(out, sc->has_host_millicores, (int64_t)sc->host_millicores);
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
            report_json_string(out, sc->max_children[i].pool, strlen(sc->max_children[i].pool));
            fprintf(out, ": %lld", (long long)sc->max_children[i].max_children);
        }
        fprintf(out, "}, \"cost\": \"%s\"}, ", sc->cost == RP_COST_BUSY ? "busy" : "typical");
    }
    fputs("\"hosts\": [", out);
    for (size_t i = 0; i < n; i++) {
        const pl_host *h = hosts[i];
        rp_pool_view *v = host_views(h, sc);
        if (!v)
            return -1;
        int64_t now, atc;
        report_host_needs(v, h->npools, &now, &atc);
        fputs(i ? ",\n  {\"hostname\": " : "\n  {\"hostname\": ", out);
        report_json_string(out, h->hostname, h->hostname_len);
        fprintf(out, ", \"host_millicores\": %llu, \"rounds\": %llu, ",
                (unsigned long long)report_host_millicores(h, sc), (unsigned long long)h->rounds);
        json_time(out, "first_round_at", h->rounds > 0, h->first_real);
        json_time(out, "last_round_at", h->rounds > 0, h->last_real);
        fprintf(out, "\"needed_now_millicores\": %lld, \"needed_at_ceiling_millicores\": %lld, "
                     "\"pools\": [", (long long)now, (long long)atc);
        for (size_t k = 0; k < h->npools; k++) {
            fputs(k ? ",\n    " : "\n    ", out);
            print_pool_json(out, h->pools[k], &v[k]);
        }
        fputs(h->npools ? "\n  ]}" : "]}", out);
        free(v);
    }
    fputs(n ? "\n]}\n" : "]}\n", out);
    return 0;
}

/* ------------------------------------------------------------ OpenMetrics */

/* A label value: \\, \" and \n escaped, invalid UTF-8 as U+FFFD. */
static void om_label(FILE *out, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    for (size_t i = 0; i < n;) {
        size_t k = utf8_len(s + i, n - i);
        if (k == 0) {
            fputs("\xEF\xBF\xBD", out);
            i++;
        } else if (s[i] == '\\' || s[i] == '"') {
            fprintf(out, "\\%c", s[i]);
            i++;
        } else if (s[i] == '\n') {
            fputs("\\n", out);
            i++;
        } else {
            fwrite(s + i, 1, k, out);
            i += k;
        }
    }
}

static void om_labels(FILE *out, const pl_host *h, const pl_pool *p, const char *extra)
{
    fputs("{host=\"", out);
    om_label(out, h->hostname, h->hostname_len);
    if (p) {
        fputs("\",pool=\"", out);
        om_label(out, p->name, p->name_len);
    }
    fprintf(out, "\"%s}", extra ? extra : "");
}

enum { OM_TYPICAL, OM_P90, OM_COUNT, OM_READINGS, OM_PHP, OM_HOST, OM_OVERHEAD, OM_FILL, OM_CEIL, OM_BUSY,
       OM_STARVED, OM_LIMIT };

/* One pool's value of a family; 0 when it has none. */
static int om_value(int what, const pl_pool *p, const rp_pool_view *v, double *x)
{
    switch (what) {
    case OM_TYPICAL: *x = v->typical_pct / 100.0; return v->has_typical;
    case OM_P90: *x = v->p90_pct / 100.0; return v->has_typical;
    case OM_COUNT:
    case OM_READINGS: *x = p->h.total; return 1;
    case OM_PHP: *x = (double)v->php_millicores / 1000.0; return v->shape != NULL;
    case OM_HOST: *x = (double)v->host_millicores_per_worker / 1000.0; return v->shape != NULL;
    case OM_OVERHEAD: *x = v->line.overhead; return v->line.believed;
    case OM_FILL: *x = (double)v->fill; return v->has_fill;
    case OM_CEIL: *x = (double)v->ceiling; return v->has_fill;
    case OM_STARVED: *x = (double)p->starved; return 1;
    case OM_LIMIT: *x = v->limit == RP_LIMIT_CPU; return v->limit != RP_LIMIT_UNKNOWN;
    case OM_BUSY: *x = (double)v->busy_hundredths / 10000.0; return v->has_busy;
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

/* OpenMetrics 1.0 (om) or Prometheus' text format (node_exporter's textfile
 * collector, promtool). */
static int print_metrics(FILE *out, const pipeline *pl, const rp_scenario *sc, int om)
{
    static const struct {
        const char *name, *type, *unit, *help;
        int what[3];                /* samples of the family, -1 ends */
    } fam[] = {
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
         "Host CPU per unit of the pool's CPU, when believed", {OM_OVERHEAD, -1, -1}},
        {"fpm_cpu_fill_workers", "gauge", NULL, "Busy workers that fill the CPU", {OM_FILL, -1, -1}},
        {"fpm_cpu_ceiling_workers", "gauge", NULL, "Workers past which more only add latency",
         {OM_CEIL, -1, -1}},
        {"fpm_cpu_starved_rounds", "counter", NULL,
         "Rounds with a listen queue while the CPU was full", {OM_STARVED, -1, -1}},
        {"fpm_cpu_limit_cpu", "gauge", NULL,
         "1 when pm.max_children is past the ceiling, 0 when within it", {OM_LIMIT, -1, -1}},
    };
    pl_host *const *hosts;
    size_t nh = pipeline_hosts(pl, &hosts);
    rp_pool_view **views = calloc(nh ? nh : 1, sizeof *views);
    if (!views)
        return -1;
    int rc = 0;
    for (size_t k = 0; k < nh; k++)
        if (!(views[k] = host_views(hosts[k], sc)))
            rc = -1;
    for (size_t f = 0; rc == 0 && f < sizeof fam / sizeof fam[0]; f++) {
        om_header(out, om, fam[f].name, fam[f].type, fam[f].unit, fam[f].help);
        for (size_t k = 0; k < nh; k++) {
            for (size_t i = 0; i < hosts[k]->npools; i++) {
                for (int s = 0; s < 3 && fam[f].what[s] >= 0; s++) {
                    double x;
                    int what = fam[f].what[s];
                    if (!om_value(what, hosts[k]->pools[i], &views[k][i], &x))
                        continue;
                    const char *suffix = what == OM_COUNT ? "_count"
                                       : strcmp(fam[f].type, "counter") == 0 ? "_total" : "";
                    fprintf(out, "%s%s", fam[f].name, suffix);
                    om_labels(out, hosts[k], hosts[k]->pools[i],
                              what == OM_TYPICAL ? ",quantile=\"0.5\""
                              : what == OM_P90 ? ",quantile=\"0.9\"" : NULL);
                    fputc(' ', out);
                    json_double(out, x);
                    fputc('\n', out);
                }
            }
        }
    }
    if (rc == 0) {
        om_header(out, om, "fpm_cpu_host_cores", "gauge", "cores",
                  "CPU the host has (its quota, else its CPUs)");
        for (size_t k = 0; k < nh; k++) {
            fputs("fpm_cpu_host_cores", out);
            om_labels(out, hosts[k], NULL, NULL);
            fprintf(out, " %g\n", (double)report_host_millicores(hosts[k], sc) / 1000.0);
        }
        om_header(out, om, "fpm_cpu_needed_at_ceiling_cores", "gauge", "cores",
                  "CPU every pool at its ceiling would draw");
        for (size_t k = 0; k < nh; k++) {
            int64_t now, atc;
            report_host_needs(views[k], hosts[k]->npools, &now, &atc);
            fputs("fpm_cpu_needed_at_ceiling_cores", out);
            om_labels(out, hosts[k], NULL, NULL);
            fprintf(out, " %g\n", (double)atc / 1000.0);
        }
        om_header(out, om, "fpm_cpu_rounds", "counter", NULL, "Complete rounds replayed");
        for (size_t k = 0; k < nh; k++) {
            fputs("fpm_cpu_rounds_total", out);
            om_labels(out, hosts[k], NULL, NULL);
            fprintf(out, " %llu\n", (unsigned long long)hosts[k]->rounds);
        }
        if (om)
            fputs("# EOF\n", out);
    }
    for (size_t k = 0; k < nh; k++)
        free(views[k]);
    free(views);
    return rc;
}

static int print_openmetrics(FILE *out, const pipeline *pl, const rp_scenario *sc)
{
    return print_metrics(out, pl, sc, 1);
}

static int print_prometheus(FILE *out, const pipeline *pl, const rp_scenario *sc)
{
    return print_metrics(out, pl, sc, 0);
}

static const rp_format FORMATS[] = {
    {"text", print_text},
    {"json", print_json},
    {"openmetrics", print_openmetrics},
    {"prometheus", print_prometheus},
};

const char *report_format_names(void)
{
    static char names[128];
    if (!names[0]) {
        size_t n = sizeof FORMATS / sizeof FORMATS[0], o = 0;
        for (size_t i = 0; i < n; i++)
            o += (size_t)snprintf(names + o, sizeof names - o, "%s%s",
                                  i == 0 ? "" : i + 1 == n ? " or " : ", ", FORMATS[i].name);
    }
    return names;
}

const rp_format *report_format(const char *name)
{
    for (size_t i = 0; i < sizeof FORMATS / sizeof FORMATS[0]; i++)
        if (strcmp(FORMATS[i].name, name) == 0)
            return &FORMATS[i];
    return NULL;
}
