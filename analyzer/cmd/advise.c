/* fpm-analyze advise: the bounds of section 15.1, the table and the diff
 * of 15.2. */
#include "advise.h"
#include "rc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "escape.h"
#include "jsonw.h"
#include "patch.h"
#include "table.h"
#include "why.h"

static void workers_text(char *b, size_t n, int64_t h)
{
    if (h % 100 == 0)
        snprintf(b, n, "%lld worker%s", (long long)(h / 100), h == 100 ? "" : "s");
    else
        snprintf(b, n, "%lld.%02lld workers", (long long)(h / 100), (long long)(h % 100));
}

static void cell_num(table *t, int has, long long v)
{
    if (has)
        tbl_cell(t, "%lld", v);
    else
        tbl_cell(t, "-");
}

/* 18.6: how the kernel shares the CPU in the prediction; 18.5: where most
 * of a pool's time is not CPU, what the prediction cannot see; and where
 * over 10% of its kept readings waited for the CPU, that their own times
 * scatter (17.7), so the p95 is rough. */
static void rest_note(FILE *out, const char *name, const wi_view *v)
{
    if (v->predicts) { /* 18.6: which sharing the p50 and p95 used */
        fprintf(out, "%s: its p50 and p95: ", name);
        whatif_sharing_text(out, v->sharing, v->rest_out_mc);
        fputs(".\n", out);
    }
    if (v->predicts && v->rest_frac > 0.5)
        fprintf(out, "%s: %.0f%% of its requests' time is not CPU: the p50 and p95 take that "
                     "part as recorded, and cannot see a shared database or a lock that slows "
                     "with more workers.\n", name, 100 * v->rest_frac);
    if (v->predicts && v->waited_frac > 0.10)
        fprintf(out, "%s: %.0f%% of the requests it is predicted from waited for the CPU: each "
                     "one's own time carries its worker's average wait, so they scatter and "
                     "the p95 is rough (the p50 and the bounds are not).\n",
                name, 100 * v->waited_frac);
}

static int text_host(FILE *out, const wi_host *a, char **patches)
{
    const pl_host *h = a->h;
    const wi_view *v = a->v;
    const wi_memory *mem = &a->mem;
    size_t w = 0;
    char *hn = esc_display_name(h->hostname, h->hostname_len, &w);
    fprintf(out, "%s: %.2f cores", hn ? hn : "?", a->hm / 1000.0);
    if (mem->has_budget)
        fprintf(out, ", %.2f GiB of which php-fpm can have %.2f GiB", mem->total / 1073741824.0,
                mem->budget / 1073741824.0);
    else if (mem->has_total)
        fprintf(out, ", %.2f GiB (what php-fpm can have unknown)", mem->total / 1073741824.0);
    else
        fputs(", memory unknown (no MEMINFO)", out);
    fputs("\n\n", out);
    static const int left[6] = {1, 0, 0, 0, 0, 1};
    table t = tbl_new(6, left);
    const char *head[6] = {"POOL", "NOW", "CPU CEILING", "MEM CEILING", "ADVICE", "BINDS"};
    for (int k = 0; k < 6; k++)
        tbl_cell(&t, "%s", head[k]);
    for (size_t i = 0; i < h->npools; i++) {
        size_t pw = 0;
        char *name = esc_display_name(h->pools[i]->name, h->pools[i]->name_len, &pw);
        tbl_cell_owned(&t, name, pw);
        cell_num(&t, v[i].now > 0, v[i].now);
        cell_num(&t, v[i].has_fill, v[i].ceiling);
        cell_num(&t, v[i].mem_ceiling >= 0, v[i].mem_ceiling);
        cell_num(&t, v[i].advice >= 0, v[i].advice);
        tbl_cell(&t, "%s", v[i].binds ? whatif_binds_name(v[i].binds) : "-");
    }
    int rc = tbl_print(out, &t);
    for (size_t i = 0; rc == 0 && i < h->npools; i++) {
        const char *name = tbl_get(&t, i + 1, 0);
        if (i == 0)
            fputc('\n', out);
        if (!v[i].has_bounds) {
            fprintf(out, "%s: no bounds: %s.\n", name,
                    v[i].floor ? "its shares are floors (measured while it waited, the waits "
                                 "not recorded)"
                               : "no shape or no cost measured yet");
            continue;
        }
        for (size_t k = 0; k < v[i].nlines; k++) { /* each at its exact N (15.2) */
            const wi_line *l = &v[i].lines[k];
            char wb[48];
            workers_text(wb, sizeof wb, l->hundredths);
            fprintf(out, "%s: at %s: <= %.1f req/s, each >= %.0f ms", name, wb, l->max_rps,
                    l->min_ms);
            if (l->has_pred)
                fprintf(out, "; p50 %lld ms, p95 %lld ms", (long long)l->p50_ms,
                        (long long)l->p95_ms);
            fputs(l->hundredths == v[i].knee_hundredths ? " (the knee)\n" : "\n", out);
        }
        rest_note(out, name, &v[i]);
    }
    if (rc == 0 && h->npools)
        why_share(out, hn ? hn : "?", v, h->npools, (const pl_pool *const *)h->pools, mem);
    for (size_t i = 0; rc == 0 && i < h->npools; i++) {
        const char *name = tbl_get(&t, i + 1, 0);
        if (v[i].advice < 0) {
            fprintf(out, "%s: no advice: %s\n", name, whatif_no_advice_text(v[i].no_advice));
            continue;
        }
        if (v[i].advice == v[i].now) {
            fprintf(out, "%s: pm.max_children %lld is the advice: nothing to change\n", name,
                    (long long)v[i].now);
            continue;
        }
        patches[i] = advise_patch(h->pools[i], &v[i]);
        if (!patches[i])
            fprintf(out, "set pm.max_children = %lld in pool %s's configuration\n",
                    (long long)v[i].advice, name);
    }
    tbl_free(&t);
    free(hn);
    return rc;
}

/* 15.2: a pool's advise object, an item of the document's list. */
static void json_pool(jw *w, const pl_host *h, const pl_pool *p, const wi_view *v)
{
    jw_begin(w, '{');
    jw_key(w, "hostname");
    jw_str(w, h->hostname, h->hostname_len);
    jw_key(w, "pool");
    jw_str(w, p->name, p->name_len);
    jw_int_member(w, "now", v->now > 0, v->now);
    jw_int_member(w, "cpu_ceiling", v->has_fill, v->ceiling);
    jw_int_member(w, "mem_ceiling", v->mem_ceiling >= 0, v->mem_ceiling);
    jw_int_member(w, "advice", v->advice >= 0, v->advice);
    jw_key(w, "binds");
    jw_word(w, whatif_binds_name(v->binds));
    jw_key(w, "knee"); /* 15.2: none for floors */
    jw_hundredths(w, v->has_bounds, v->knee_hundredths);
    jw_key(w, "bounds");
    jw_begin(w, '[');
    for (size_t i = 0; i < v->nlines; i++) {
        const wi_line *l = &v->lines[i];
        jw_item(w);
        jw_begin(w, '{');
        jw_key(w, "workers");
        jw_two(w, (double)l->hundredths / 100);
        jw_key(w, "max_rps");
        jw_two(w, l->max_rps);
        jw_key(w, "min_ms");
        jw_two(w, l->min_ms);
        jw_int_member(w, "p50_ms", l->has_pred, l->p50_ms);
        jw_int_member(w, "p95_ms", l->has_pred, l->p95_ms);
        jw_end(w, '}');
    }
    jw_end(w, ']');
    jw_key(w, "patch");
    char *d = advise_patch(p, v);
    jw_str(w, d, d ? strlen(d) : 0);
    free(d);
    jw_end(w, '}');
}

int advise_print(FILE *out, const wi_answers *ans, int json)
{
    int first = 1;
    jw w = jw_on(out);
    if (json) {
        jw_begin(&w, '{');
        jw_key(&w, "format");
        jw_int(&w, 1, 1);
        jw_key(&w, "advise");
        jw_begin(&w, '[');
    }
    for (size_t i = 0; i < ans->n; i++) {
        const wi_host *a = &ans->host[i];
        const pl_host *h = a->h;
        char **patches = calloc(h->npools ? h->npools : 1, sizeof *patches);
        if (!patches)
            return FPM_ENOMEM;
        int rc = 0;
        if (json) {
            for (size_t k = 0; k < h->npools; k++, first = 0) {
                jw_item_line(&w, "\n  "); /* a pool a line */
                json_pool(&w, h, h->pools[k], &a->v[k]);
            }
        } else {
            if (i)
                fputc('\n', out);
            rc = text_host(out, a, patches);
            for (size_t k = 0, any = 0; k < h->npools; k++)
                if (patches[k]) {
                    if (!any++)
                        fputc('\n', out);
                    fputs(patches[k], out);
                }
        }
        for (size_t k = 0; k < h->npools; k++)
            free(patches[k]);
        free(patches);
        if (rc)
            return rc;
    }
    if (json) {
        jw_raw(&w, first ? "" : "\n");
        jw_end(&w, ']');
        jw_end(&w, '}');
        jw_raw(&w, "\n");
    }
    return 0;
}
