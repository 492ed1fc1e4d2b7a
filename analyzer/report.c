/* Section 7 arithmetic and the text and JSON outputs. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

rp_pool_view report_pool_view(const pl_pool *p, uint64_t hm, int headroom)
{
    rp_pool_view v = {0};
    v.line = fit_solve(&p->f);
    v.now = p->max_children > 0 ? p->max_children : 0;
    if (p->h.total > 0) {
        v.has_typical = 1;
        v.typical_pct = hist_floor_pct(hist_percentile(&p->h, 50));
        v.p90_pct = hist_floor_pct(hist_percentile(&p->h, 90));
    }
    if (p->h.total < RP_MIN_READINGS)
        return v;
    v.shape = v.typical_pct >= 50 ? "cpu-bound" : v.typical_pct >= 20 ? "mixed" : "i/o-bound";
    v.php_millicores = (int64_t)v.typical_pct * 10;
    v.host_millicores_per_worker = v.line.believed
        ? (int64_t)round((double)v.php_millicores * v.line.overhead)
        : v.php_millicores;
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

void report_host_needs(const rp_pool_view *v, size_t n, int64_t *now, int64_t *ceil_)
{
    *now = *ceil_ = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].shape && v[i].now > 0)
            *now += v[i].now * v[i].host_millicores_per_worker;
        if (v[i].has_fill)
            *ceil_ += v[i].ceiling * v[i].host_millicores_per_worker;
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
        v[i] = report_pool_view(h->pools[i], hm, sc->headroom);
    return v;
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
static char *display_name(const char *str, size_t n, size_t *width)
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

/* The WHY sentence: the arithmetic of the row in words. */
static void why_text(FILE *out, const pl_pool *p, const rp_pool_view *v, uint64_t hm,
                     int headroom)
{
    char cores[48];
    if (!v->shape) {
        fprintf(out, "too few readings yet (%u)", p->h.total);
        return;
    }
    fputs(v->shape, out);
    if (v->host_millicores_per_worker <= 0) {
        fputs("; a busy worker costs under 5% of a core, so the CPU sets no ceiling", out);
        goto tail;
    }
    if (hm == 0) {
        fputs("; the host's size is unknown, so no fill or ceiling", out);
        goto tail;
    }
    cores_text(cores, sizeof cores, hm);
    fprintf(out, "; ~%lld busy workers fill %s (", (long long)v->fill, cores);
    if (v->line.believed)
        fprintf(out, "%.2fx PHP's own with the rest of the host counted)", v->line.overhead);
    else if (v->line.exists && v->line.n >= FIT_BELIEF_N && v->line.sd_x >= FIT_BELIEF_SD_X)
        fprintf(out, "at PHP's own cost: a host slope of %.1f is not believed, the pool's "
                     "load moves with something else)", v->line.slope);
    else if (v->line.n >= FIT_BELIEF_N)
        fputs("at PHP's own cost: the pool's load never varied enough to measure the "
              "host's overhead)", out);
    else if (v->line.n < 1)
        fputs("at PHP's own cost: the pool never ran alone or dominant, so its host "
              "overhead is not measured)", out);
    else
        fprintf(out, "at PHP's own cost: host overhead not measured yet, fit n=%.1f of %.0f)",
                v->line.n, FIT_BELIEF_N);
    fprintf(out, "; ceiling %lld", (long long)v->ceiling);
    if (v->ceiling == (v->fill * headroom + 99) / 100)
        fprintf(out, " (headroom %d.%02d)", headroom / 100, headroom % 100);
    if (v->limit == RP_LIMIT_CPU)
        fprintf(out, "; pm.max_children %lld is past it", (long long)v->now);
    else if (v->limit == RP_LIMIT_WORKERS)
        fprintf(out, "; pm.max_children %lld is within it, so the pool runs out of workers "
                     "before the host runs out of CPU", (long long)v->now);
    else
        fputs("; pm.max_children unknown", out);
tail:
    if (p->starved)
        fprintf(out, "; queued in %llu round%s while the CPU was full",
                (unsigned long long)p->starved, p->starved == 1 ? "" : "s");
}

enum { C_POOL, C_READ, C_TYP, C_P90, C_SHAPE, C_PHP, C_HOST, C_FILL, C_CEIL, C_MAX,
       C_LIMIT, C_STARVED, NCOLS };
static const char *const HEAD[NCOLS] = {"POOL", "READINGS", "TYPICAL", "P90", "SHAPE",
                                        "PHP/W", "HOST/W", "FILL", "CEILING", "MAX",
                                        "LIMIT", "STARVED"};
static const int LEFT[NCOLS] = {[C_POOL] = 1, [C_SHAPE] = 1, [C_LIMIT] = 1};

static void pad(FILE *out, size_t n)
{
    while (n-- > 0)
        fputc(' ', out);
}

static int print_host_text(FILE *out, const pl_host *h, const rp_scenario *sc)
{
    uint64_t hm = report_host_millicores(h, sc);
    rp_pool_view *v = host_views(h, sc);
    char *(*cell)[NCOLS] = calloc(h->npools + 1, sizeof *cell);
    size_t (*cw)[NCOLS] = calloc(h->npools + 1, sizeof *cw);
    size_t width[NCOLS] = {0};
    int rc = -1;
    if (!v || !cell || !cw)
        goto err;

    char *hn = display_name(h->hostname, h->hostname_len, &width[0]);
    char cores[48];
    cores_text(cores, sizeof cores, hm);
    if (hm)
        fprintf(out, "%s: %s (%llum)%s, %llu rounds, headroom %d.%02d\n", hn ? hn : "?",
                cores, (unsigned long long)hm, sc->has_host_millicores ? " (what-if)" : "",
                (unsigned long long)h->rounds, sc->headroom / 100, sc->headroom % 100);
    else
        fprintf(out, "%s: size unknown (its HOST record has no nproc), %llu rounds\n",
                hn ? hn : "?", (unsigned long long)h->rounds);
    width[0] = 0;

    for (size_t c = 0; c < NCOLS; c++) {
        cell[0][c] = strdup(HEAD[c]);
        cw[0][c] = strlen(HEAD[c]);
    }
    for (size_t i = 0; i < h->npools; i++) {
        const pl_pool *p = h->pools[i];
        const rp_pool_view *pv = &v[i];
        char b[NCOLS][64];
        size_t r = i + 1;
        snprintf(b[C_READ], 64, "%u", p->h.total);
        pct_text(b[C_TYP], 64, pv->has_typical, pv->typical_pct);
        pct_text(b[C_P90], 64, pv->has_typical, pv->p90_pct);
        snprintf(b[C_SHAPE], 64, "%s", pv->shape ? pv->shape : "-");
        if (pv->shape) {
            snprintf(b[C_PHP], 64, "%lldm", (long long)pv->php_millicores);
            snprintf(b[C_HOST], 64, "%lldm", (long long)pv->host_millicores_per_worker);
        } else {
            strcpy(b[C_PHP], "-");
            strcpy(b[C_HOST], "-");
        }
        if (pv->has_fill) {
            snprintf(b[C_FILL], 64, "%lld", (long long)pv->fill);
            snprintf(b[C_CEIL], 64, "%lld", (long long)pv->ceiling);
        } else {
            strcpy(b[C_FILL], "-");
            strcpy(b[C_CEIL], "-");
        }
        if (pv->now > 0)
            snprintf(b[C_MAX], 64, "%lld", (long long)pv->now);
        else
            strcpy(b[C_MAX], "?");
        strcpy(b[C_LIMIT], pv->limit == RP_LIMIT_CPU ? "cpu"
                           : pv->limit == RP_LIMIT_WORKERS ? "workers" : "-");
        snprintf(b[C_STARVED], 64, "%llu", (unsigned long long)p->starved);
        cell[r][C_POOL] = display_name(p->name, p->name_len, &cw[r][C_POOL]);
        for (size_t c = 1; c < NCOLS; c++) {
            cell[r][c] = strdup(b[c]);
            cw[r][c] = strlen(b[c]);
        }
    }
    for (size_t r = 0; r <= h->npools; r++)
        for (size_t c = 0; c < NCOLS; c++) {
            if (!cell[r][c])
                goto err;
            if (cw[r][c] > width[c])
                width[c] = cw[r][c];
        }
    fputc('\n', out);
    for (size_t r = 0; r <= h->npools; r++) {
        for (size_t c = 0; c < NCOLS; c++) {
            size_t fill = width[c] - cw[r][c];
            if (c > 0)
                fputs("  ", out);
            if (!LEFT[c])
                pad(out, fill);
            fputs(cell[r][c], out);
            if (LEFT[c] && c + 1 < NCOLS)
                pad(out, fill);
        }
        fputc('\n', out);
    }
    if (h->npools)
        fputc('\n', out);
    for (size_t i = 0; i < h->npools; i++) {
        fprintf(out, "%s: ", cell[i + 1][C_POOL]);
        why_text(out, h->pools[i], &v[i], hm, sc->headroom);
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
    int64_t now, atc;
    report_host_needs(v, h->npools, &now, &atc);
    fprintf(out, "\nhost %s: ", hn ? hn : "?");
    if (hm)
        fprintf(out, "needed now %lldm of %llum (%.2fx), at ceiling %lldm (%.2fx); a worst "
                     "case, every worker busy at once\n",
                (long long)now, (unsigned long long)hm, (double)now / (double)hm,
                (long long)atc, (double)atc / (double)hm);
    else
        fprintf(out, "needed now %lldm, at ceiling %lldm; the host's size is unknown\n",
                (long long)now, (long long)atc);
    free(hn);
    rc = 0;
err:
    for (size_t r = 0; cell && r <= h->npools; r++)
        for (size_t c = 0; c < NCOLS; c++)
            free(cell[r][c]);
    free(cell);
    free(cw);
    free(v);
    return rc;
}

static int print_text(FILE *out, const pipeline *pl, const rp_scenario *sc)
{
    pl_host *const *hosts;
    size_t n = pipeline_hosts(pl, &hosts);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputc('\n', out);
        if (print_host_text(out, hosts[i], sc))
            return -1;
    }
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
    fprintf(out, ", \"starved_rounds\": %llu, \"filtered\": {", (unsigned long long)p->starved);
    for (int k = 0; k < RD_NREASONS; k++)
        fprintf(out, "%s\"%s\": %llu", k ? ", " : "", rd_name((rd_verdict)k),
                (unsigned long long)p->filtered[k]);
    fputs("}}", out);
    return 0;
}

static int print_json(FILE *out, const pipeline *pl, const rp_scenario *sc)
{
    pl_host *const *hosts;
    size_t n = pipeline_hosts(pl, &hosts);
    fputs("{\"format\": 1, \"hosts\": [", out);
    for (size_t i = 0; i < n; i++) {
        const pl_host *h = hosts[i];
        rp_pool_view *v = host_views(h, sc);
        if (!v)
            return -1;
        int64_t now, atc;
        report_host_needs(v, h->npools, &now, &atc);
        fputs(i ? ",\n  {\"hostname\": " : "\n  {\"hostname\": ", out);
        report_json_string(out, h->hostname, h->hostname_len);
        fprintf(out, ", \"host_millicores\": %llu, \"rounds\": %llu, "
                     "\"needed_now_millicores\": %lld, \"needed_at_ceiling_millicores\": %lld, "
                     "\"pools\": [",
                (unsigned long long)report_host_millicores(h, sc),
                (unsigned long long)h->rounds, (long long)now, (long long)atc);
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

static const rp_format FORMATS[] = {
    {"text", print_text},
    {"json", print_json},
};

const rp_format *report_format(const char *name)
{
    for (size_t i = 0; i < sizeof FORMATS / sizeof FORMATS[0]; i++)
        if (strcmp(FORMATS[i].name, name) == 0)
            return &FORMATS[i];
    return NULL;
}
