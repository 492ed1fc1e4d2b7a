/* fpm-analyze routes (routes_cmd.h; docs/rules.md section 19). */
#include "routes_cmd.h"

#include <stdlib.h>
#include <string.h>

#include "accessfmt.h"
#include "escape.h"
#include "figures.h"
#include "jsonw.h"
#include "rc.h"
#include "table.h"

int routes_front_controller(const rt_fig *f, size_t n)
{
    return n == 1 && !f[0].other && f[0].len >= 4 &&
           memcmp(f[0].name + f[0].len - 4, ".php", 4) == 0;
}

/* The rest past the top: their number, and their part of the CPU in
 * hundredths (-1 where the pool computed nothing). */
static void rest_of(const rt_fig *f, size_t n, size_t top, size_t *k, int64_t *share_h)
{
    unsigned __int128 all = 0, rest = 0;
    for (size_t i = 0; i < n; i++) {
        all += f[i].c;
        if (i >= top)
            rest += f[i].c;
    }
    *k = n > top ? n - top : 0;
    *share_h = all ? (int64_t)((200 * 100 * rest + all) / (2 * all)) : -1;
}

static int named(const pl_pool *p, const char *pool)
{
    return !pool || (strlen(pool) == p->name_len && memcmp(pool, p->name, p->name_len) == 0);
}

static void cell_h(table *t, int64_t h, const char *unit)
{
    if (h < 0)
        tbl_cell(t, "-");
    else
        tbl_cell(t, "%lld.%02lld%s", (long long)(h / 100), (long long)(h % 100), unit);
}

static void cell_ms(table *t, int64_t ms)
{
    if (ms < 0)
        tbl_cell(t, "-");
    else
        tbl_cell(t, "%lldms", (long long)ms);
}

/* what a pool that is one front controller can show, and why; its access
 * log would tell its pages apart (20.7) */
static void front_controller(FILE *out, const char *pn, const char *route)
{
    fprintf(out, "%s: every request ran %s: a front controller, so one route here. php-fpm's "
                 "status page shows the script it ran and its query, not the URI the visitor "
                 "asked for, which tells the pages apart; where the application routes by a "
                 "query parameter, --route-param NAME does. Its access log has every request "
                 "by the visitor's URI: add to the pool access.log and access.format = \"%s\" "
                 "(fpm-record(1)).\n", pn, route, AF_CENSUS_FORMAT);
}

static int text_pool(FILE *out, const char *hn, const pl_pool *p, const rt_fig *f, size_t n,
                     long top)
{
    size_t pw = 0;
    char *pn = esc_display_name(p->name, p->name_len, &pw);
    if (!pn)
        return FPM_ENOMEM;
    uint64_t readings = 0, requests = 0;
    for (size_t i = 0; i < n; i++) {
        readings += f[i].readings;
        requests += f[i].requests;
    }
    if (n == 0) {
        fprintf(out, "%s %s: no route readings in the window\n", hn, pn);
        free(pn);
        return 0;
    }
    int census = f[0].censused; /* 20.6: every request, with its rate */
    if (census)
        fprintf(out, "%s %s: %llu request%s in %zu route%s, every one from its access log, by "
                     "CPU\n", hn, pn, (unsigned long long)requests, requests == 1 ? "" : "s", n,
                n == 1 ? "" : "s");
    else
        fprintf(out, "%s %s: %llu reading%s in %zu route%s, by CPU\n", hn, pn,
                (unsigned long long)readings, readings == 1 ? "" : "s", n, n == 1 ? "" : "s");
    static const int left[11] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    int cols = census ? 11 : 9;
    table t = tbl_new(cols, left);
    const char *head[11] = {"ROUTE", "READINGS", "REQUESTS", "REQ/S", "CPU", "CPU/REQ", "BUSY",
                            "P50", "P95", "P95 AT ADVICE", "MEM MAX"};
    for (int k = 0; k < 11; k++)
        if (census || (k != 2 && k != 3))
            tbl_cell(&t, "%s", head[k]);
    size_t shown = n < (size_t)top ? n : (size_t)top;
    for (size_t i = 0; i < shown; i++) {
        size_t w = 0;
        char *name = esc_display_name(f[i].name, f[i].len, &w);
        tbl_cell_owned(&t, name, w);
        tbl_cell(&t, "%llu", (unsigned long long)f[i].readings);
        if (census) {
            tbl_cell(&t, "%llu", (unsigned long long)f[i].requests);
            cell_h(&t, f[i].rps_h, "");
        }
        cell_h(&t, f[i].cpu_share_h, "%");
        cell_h(&t, f[i].cpu_ms_h, "ms");
        cell_h(&t, f[i].busy_h, "%");
        cell_ms(&t, f[i].p50_ms);
        cell_ms(&t, f[i].p95_ms);
        cell_ms(&t, f[i].p95_at_advice_ms);
        if (f[i].mem_max < 0)
            tbl_cell(&t, "-");
        else /* rounded up, as W is: memory errs toward more */
            tbl_cell(&t, "%lluMiB", (unsigned long long)(((uint64_t)f[i].mem_max + (1u << 20) - 1)
                                                        >> 20));
    }
    int rc = tbl_print(out, &t);
    tbl_free(&t);
    size_t more;
    int64_t share;
    rest_of(f, n, shown, &more, &share);
    if (rc == 0 && more)
        fprintf(out, "%zu more route%s: %lld%% of its CPU\n", more, more == 1 ? "" : "s",
                (long long)(share < 0 ? 0 : (share + 50) / 100));
    if (rc == 0 && routes_front_controller(f, n)) {
        char *r = esc_display_name(f[0].name, f[0].len, NULL);
        front_controller(out, pn, r ? r : "?");
        free(r);
    }
    free(pn);
    return rc;
}

static void json_pool(jw *w, const pl_host *h, const pl_pool *p, const rt_fig *f, size_t n,
                      long top)
{
    jw_begin(w, '{');
    jw_key(w, "hostname");
    jw_str(w, h->hostname, h->hostname_len);
    jw_key(w, "pool");
    jw_str(w, p->name, p->name_len);
    jw_key(w, "routes");
    size_t shown = n < (size_t)top ? n : (size_t)top;
    jw_begin(w, '[');
    for (size_t i = 0; i < shown; i++) {
        jw_item(w);
        fig_route_json(w, &f[i]);
    }
    jw_end(w, ']');
    size_t more;
    int64_t share;
    rest_of(f, n, shown, &more, &share);
    jw_int_member(w, "more_routes", 1, (int64_t)more);
    jw_hundredths_member(w, "more_cpu_share_pct", more && share >= 0, share);
    jw_bool_member(w, "front_controller", routes_front_controller(f, n));
    jw_end(w, '}');
}

int routes_print(FILE *out, const wi_answers *ans, const char *pool, long top, int json)
{
    int first = 1, rc = 0;
    jw w = jw_on(out);
    if (json) {
        jw_begin(&w, '{');
        jw_key(&w, "format");
        jw_int(&w, 1, 1);
        jw_key(&w, "routes");
        jw_begin(&w, '[');
    }
    for (size_t i = 0; i < ans->n && rc == 0; i++) {
        const wi_host *a = &ans->host[i];
        const pl_host *h = a->h;
        char *hn = esc_display_name(h->hostname, h->hostname_len, NULL);
        if (!hn)
            return FPM_ENOMEM;
        for (size_t k = 0; k < h->npools && rc == 0; k++) {
            const pl_pool *p = h->pools[k];
            const rt_fig *f = a->v[k].routes;
            size_t n = a->v[k].nroutes;
            if (!named(p, pool))
                continue;
            if (json) {
                jw_item_line(&w, "\n  "); /* a pool a line */
                json_pool(&w, h, p, f, n, top);
            } else {
                if (!first)
                    fputc('\n', out);
                rc = text_pool(out, hn, p, f, n, top);
            }
            first = 0;
        }
        free(hn);
    }
    if (json && rc == 0) {
        jw_raw(&w, first ? "" : "\n");
        jw_end(&w, ']');
        jw_end(&w, '}');
        jw_raw(&w, "\n");
    }
    return rc;
}
