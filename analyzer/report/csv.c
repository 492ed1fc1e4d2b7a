/* The CSV format (--format csv): one row per host and pool, for fleets
 * that load many hosts' answers into a database.  Each row is the JSON's
 * host object and pool object flattened (fit.slope is fit_slope, the
 * host's steal.p90_pct is steal_p90_pct; arrays, the histogram, are left
 * to the JSON): the JSON format's own steps render them and jansson reads
 * them back, so every figure is the JSON's.  The columns are fixed and
 * documented in fpm-analyze(1); CSV_SCHEMA, the first column of every row,
 * changes when a column's meaning does.  RFC 4180 through libcsv: words
 * quoted, numbers bare, an empty field for none. */
#include "report.h"
#include "rc.h"

#include <csv.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "figures.h"
#include "readings.h"
#include "signals.h"

#define CSV_SCHEMA 8 /* 8: source, requests, requests_per_s, measured_*, access_* (20.7); 7: sched_group_* (16.4); 2: overhead is the one sizing uses (section 11), joint_*; 3: the busy cost sizes, the ceiling from the knee (17.5), knee, cpu_ms_per_request; 4: cpus, cpu_source (16.3); 5: memory_* (14.6); 6: memory_per_worker_source, memory_needs_fraction, memory_room_fraction (14.4, 14.5) */
#define MAX_COLUMNS 128

extern const rp_format rp_json;

/* The columns: the schema, the host's (figures.h, FIG_HOST), then the pool's
 * (FIG_POOL), in the JSON's order. */
typedef struct {
    char    names[MAX_COLUMNS][48];
    size_t  n;
    json_t *host; /* the host's object, flattened */
} csv_state;

static void add_column(csv_state *s, const char *a, const char *b)
{
    if (s->n < MAX_COLUMNS)
        snprintf(s->names[s->n++], sizeof s->names[0], "%s%s%s", a, b[0] ? "_" : "", b);
}

static void add_pool_column(void *arg, const char *col)
{
    add_column(arg, col, "");
}

static void columns(csv_state *s)
{
    add_column(s, "schema", "");
    fig_host_columns(add_pool_column, s);
    fig_columns(add_pool_column, s);
}

/* obj's scalars into flat, nested objects' under KEY_ (arrays left out). */
static void flatten(json_t *flat, const char *prefix, json_t *obj)
{
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        char key[128];
        snprintf(key, sizeof key, "%s%s%s", prefix, prefix[0] ? "_" : "", k);
        if (json_is_object(v))
            flatten(flat, key, v);
        else if (!json_is_array(v))
            json_object_set(flat, key, v);
    }
}

/* A JSON step: the host's (pool (size_t)-1) or a pool's. */
typedef struct {
    const wi_host *a;
    size_t         pool;
} json_step;

/* What a JSON step prints, closed by closing, parsed back and flattened;
 * NULL out of memory. */
static json_t *render(rp_ctx *c, const json_step *st, const char *closing)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return NULL;
    rp_ctx mine = *c;
    mine.out = m;
    mine.host_index = mine.pool_index = 0;
    int rc = st->pool != (size_t)-1 ? rp_json.pool(&mine, st->a, st->pool)
                                    : rp_json.host(&mine, st->a);
    fputs(closing, m);
    if (fclose(m) != 0 || rc != 0) {
        free(buf);
        return NULL;
    }
    json_t *obj = json_loadb(buf, len, 0, NULL), *flat = obj ? json_object() : NULL;
    free(buf);
    if (flat)
        flatten(flat, "", obj);
    json_decref(obj);
    return flat;
}

/* Words quoted; numbers bare; a null is an empty field, never quoted (what
 * PostgreSQL's COPY ... CSV reads as NULL). */
static void value_cell(FILE *out, json_t *v)
{
    char b[ESC_DOUBLE];
    fputc(',', out);
    if (json_is_string(v))
        csv_fwrite(out, json_string_value(v), json_string_length(v));
    else if (json_is_integer(v))
        fprintf(out, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        fputs(esc_double_text(b, json_real_value(v)), out);
    else if (json_is_boolean(v))
        fputs(json_is_true(v) ? "true" : "false", out);
}

static int csv_begin(rp_ctx *c)
{
    csv_state *s = calloc(1, sizeof *s);
    if (!s)
        return FPM_ENOMEM;
    c->state = s;
    columns(s);
    for (size_t i = 0; i < s->n; i++) {
        if (i)
            fputc(',', c->out);
        csv_fwrite(c->out, s->names[i], strlen(s->names[i]));
    }
    fputs("\r\n", c->out);
    return 0;
}

static int csv_host(rp_ctx *c, const wi_host *a)
{
    csv_state *s = c->state;
    json_decref(s->host);
    s->host = render(c, &(json_step){a, (size_t)-1}, "]}");
    return s->host ? 0 : -1;
}

static int csv_pool(rp_ctx *c, const wi_host *a, size_t i)
{
    csv_state *s = c->state;
    json_t *pool = render(c, &(json_step){a, i}, "");
    if (!pool)
        return FPM_ENOMEM;
    fprintf(c->out, "%d", CSV_SCHEMA);
    for (size_t i = 1; i < s->n; i++) {
        json_t *x = json_object_get(pool, s->names[i]);
        value_cell(c->out, x ? x : json_object_get(s->host, s->names[i]));
    }
    fputs("\r\n", c->out);
    json_decref(pool);
    return 0;
}

static int csv_end(rp_ctx *c)
{
    csv_state *s = c->state;
    if (s)
        json_decref(s->host);
    free(s);
    c->state = NULL;
    return 0;
}

const rp_format rp_csv = {"csv", "the CPU table as CSV: a row per host and pool (a fleet's database)",
                          csv_begin, csv_host, csv_pool, NULL, csv_end};
