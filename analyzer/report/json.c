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

/* "2026-11-29T14:00:00Z" (whole seconds, UTC), or null */
static void json_time(jw *w, int has, uint64_t ns)
{
    char b[40];
    if (!has) {
        jw_null(w);
        return;
    }
    timearg_format(ns, b);
    jw_str(w, b, strlen(b));
}

/* The window and scenario keys, then the hosts. */
static int json_begin(rp_ctx *c)
{
    const wi_scenario *sc = c->sc;
    jw w = jw_on(c->out);
    jw_begin(&w, '{');
    jw_key(&w, "format");
    jw_int(&w, 1, 1);
    if (sc->has_from || sc->has_until) {
        jw_key(&w, "window");
        jw_begin(&w, '{');
        jw_key(&w, "from");
        json_time(&w, sc->has_from, sc->from_ns);
        jw_key(&w, "until");
        json_time(&w, sc->has_until, sc->until_ns);
        jw_end(&w, '}');
    }
    if (whatif_differs(sc)) {
        char b[16];
        jw_key(&w, "scenario");
        jw_begin(&w, '{');
        jw_key(&w, "host_millicores");
        jw_int(&w, sc->has_host_millicores, (int64_t)sc->host_millicores);
        jw_key(&w, "mem_limit_bytes"); /* 14.5: --mem-limit, M of the what-if */
        jw_int(&w, sc->has_mem_limit, (int64_t)sc->mem_limit);
        jw_key(&w, "headroom");
        snprintf(b, sizeof b, "%d.%02d", sc->headroom / 100, sc->headroom % 100);
        jw_raw(&w, b);
        jw_key(&w, "max_children");
        jw_begin(&w, '{');
        for (size_t i = 0; i < sc->nmax_children; i++) {
            int later = 0; /* the last one given for a pool is the one that counts */
            for (size_t k = i + 1; k < sc->nmax_children; k++)
                later |= strcmp(sc->max_children[k].pool, sc->max_children[i].pool) == 0;
            if (later)
                continue;
            jw_item(&w);
            jw_str(&w, sc->max_children[i].pool, strlen(sc->max_children[i].pool));
            jw_raw(&w, ": ");
            jw_int(&w, 1, (int64_t)sc->max_children[i].max_children);
        }
        jw_end(&w, '}');
        jw_key(&w, "cost");
        jw_word(&w, sc->cost == WI_COST_BUSY ? "busy" : "typical");
        if (sc->fit == WI_FIT_DOMINANT) {
            jw_key(&w, "fit");
            jw_word(&w, "dominant");
        }
        jw_end(&w, '}');
    }
    jw_key(&w, "hosts");
    jw_raw(&w, "[");
    return 0;
}

/* A host: its figures (the host table), then its pools' list, opened. */
static int json_host(rp_ctx *c, const wi_host *a)
{
    fputs(c->host_index ? ",\n  " : "\n  ", c->out);
    jw w = jw_on(c->out);
    jw_begin(&w, '{');
    fig_host_json(&w, a);
    jw_key(&w, "pools");
    jw_raw(&w, "[");
    return 0;
}

static int json_pool(rp_ctx *c, const wi_host *a, size_t i)
{
    jw w = jw_on(c->out);
    jw_raw(&w, c->pool_index ? ",\n    " : "\n    ");
    fig_json(&w, a->h->pools[i], &a->v[i]);
    return 0;
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
