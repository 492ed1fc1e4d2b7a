/* Every per-pool figure, once (figures.h).  What each means: fpm-cpu(7);
 * how each is computed: docs/rules.md, by section. */
#include "figures.h"

#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "jsonw.h"
#include "hist.h"
#include "memory.h"
#include "readings.h"

/* ------------------------------------------------------------ the values */

#define GET(fn) static void fn(const pl_pool *p, const wi_view *v, fig_value *o)
#define UNUSED (void)p, (void)v

static void set_i(fig_value *o, int has, int64_t i)
{
    o->has = has;
    o->i = i;
}

GET(get_pool) { UNUSED; o->has = 1; o->word = p->name; o->word_len = p->name_len; }
GET(get_readings) { UNUSED; set_i(o, 1, pl_hist(p)->total); }
GET(get_typical) { UNUSED; set_i(o, v->has_typical, v->typical_pct); }
GET(get_p90) { UNUSED; set_i(o, v->has_typical, v->p90_pct); }
GET(get_shape)
{
    UNUSED;
    o->has = v->shape != NULL;
    o->word = v->shape;
    o->word_len = v->shape ? strlen(v->shape) : 0;
}
GET(get_php) { UNUSED; set_i(o, v->shape != NULL, v->php_millicores); }
GET(get_busy_pct) { UNUSED; set_i(o, v->has_busy, v->busy_hundredths); }
GET(get_busy_mc) { UNUSED; set_i(o, v->has_busy, v->busy_millicores); }
GET(get_cpu_ms) { UNUSED; set_i(o, v->has_cpu_ms, v->cpu_ms_hundredths); }
GET(get_host_mc) { UNUSED; set_i(o, v->shape != NULL, v->host_millicores_per_worker); }
GET(get_knee) { UNUSED; set_i(o, v->has_fill, v->knee_hundredths); }
GET(get_fill) { UNUSED; set_i(o, v->has_fill, v->fill); }
GET(get_ceiling) { UNUSED; set_i(o, v->has_fill, v->ceiling); }
GET(get_max_children) { UNUSED; set_i(o, v->now > 0, v->now); }
GET(get_limit)
{
    UNUSED;
    o->word = whatif_limit_name(v->limit);
    o->has = o->word != NULL;
    o->word_len = o->word ? strlen(o->word) : 0;
    o->i = v->limit == WI_LIMIT_CPU; /* OpenMetrics: 1 past the ceiling */
}
GET(get_contended) { UNUSED; set_i(o, 1, (int64_t)p->contended_readings); }
GET(get_under_contention) { UNUSED; set_i(o, 1, pl_under_contention(p)); }
GET(get_queue_max) { UNUSED; set_i(o, p->unanswered_queue_max >= 0, p->unanswered_queue_max); }
GET(get_starved) { UNUSED; set_i(o, 1, (int64_t)p->starved); }
GET(get_by_steal) { UNUSED; set_i(o, 1, (int64_t)p->starved_by_steal); }
GET(get_throttled) { UNUSED; set_i(o, 1, (int64_t)p->throttled_rounds); }
GET(get_unanswered) { UNUSED; set_i(o, 1, (int64_t)p->unanswered_full); }
GET(get_errors) { UNUSED; set_i(o, 1, (int64_t)p->error_rounds); }
GET(get_w_mib) { UNUSED; set_i(o, v->w_mib >= 0, v->w_mib); }
GET(get_mem_ceiling) { UNUSED; set_i(o, v->mem_ceiling >= 0, v->mem_ceiling); }
GET(get_advice) { UNUSED; set_i(o, v->advice >= 0, v->advice); }

/* ------------------------------------------------------------ the objects */

static void json_histogram(FILE *out, const pl_pool *p, const wi_view *v)
{
    (void)v;
    fputc('[', out);
    for (int i = 0; i < HIST_BUCKETS; i++)
        fprintf(out, "%s%u", i ? ", " : "", pl_hist(p)->count[i]);
    fputc(']', out);
}

static void json_fit(FILE *out, const pl_pool *p, const wi_view *v)
{
    (void)p;
    if (!v->line.exists) {
        fputs("null", out);
        return;
    }
    fputs("{\"n\": ", out);
    esc_double(out, v->line.n);
    fputs(", \"slope\": ", out);
    esc_double(out, v->line.slope);
    fputs(", \"intercept\": ", out);
    esc_double(out, v->line.intercept);
    fputs(", \"sd_x\": ", out);
    esc_double(out, v->line.sd_x);
    fputc('}', out);
}

/* 11.6: the joint line's slope for the pool, then (as keys of the pool)
 * overhead_source, recovered_pct and overhead. */
static void json_joint(FILE *out, const pl_pool *p, const wi_view *v)
{
    (void)p;
    if (v->joint.in_a) {
        fputs("{\"slope\": ", out);
        esc_double(out, v->joint.slope);
        fputs(", \"se\": ", out);
        esc_double(out, v->joint.se);
        fputs(", \"partial_sd\": ", out);
        esc_double(out, v->joint.partial_sd);
        fprintf(out, ", \"believed\": %s}", v->joint.believed ? "true" : "false");
    } else {
        fputs("null", out);
    }
    const char *src = whatif_source_name(v->source);
    fprintf(out, src ? ", \"overhead_source\": \"%s\"" : ", \"overhead_source\": null", src);
    fputs(", \"recovered_pct\": ", out);
    jw_num(out, v->has_recovered, v->recovered_pct);
    fputs(", \"overhead\": ", out);
    jw_num(out, v->source != WI_SRC_NONE, v->overhead);
}

/* 12.2: what the pool did. */
static void json_activity(FILE *out, const pl_pool *p, const wi_view *v)
{
    (void)v;
    const pl_activity *a = &p->act;
    fputs("{\"cores_mean\": ", out);
    if (a->pairs && a->seconds > 0)
        esc_double(out, a->core_seconds / a->seconds);
    else
        fputs("null", out);
    fputs(", \"cores_max\": ", out);
    jw_num(out, a->pairs != 0, a->cores_max);
    fputs(", \"active_max\": ", out);
    jw_int(out, a->has_active, a->active_max);
    fputs(", \"full_rounds\": ", out);
    jw_int(out, a->full_known, (int64_t)a->full_rounds);
    fprintf(out, ", \"maxed_rounds\": %llu, \"queue_max\": ", (unsigned long long)a->maxed_rounds);
    jw_int(out, a->has_queue, a->queue_max);
    fputc('}', out);
}

static void json_filtered(FILE *out, const pl_pool *p, const wi_view *v)
{
    (void)v;
    fputc('{', out);
    for (int k = 0; k < RD_NREASONS; k++)
        fprintf(out, "%s\"%s\": %llu", k ? ", " : "", rd_name((rd_verdict)k),
                (unsigned long long)p->filtered[k]);
    fputc('}', out);
}

/* 14.6: the pool's memory. */
static void json_memory(FILE *out, const pl_pool *p, const wi_view *v)
{
    fprintf(out, "{\"readings\": %u, \"histogram\": [", p->mem.total);
    for (int i = 0; i < MEM_BUCKETS; i++)
        fprintf(out, "%s%u", i ? ", " : "", p->mem.count[i]);
    fputs("], \"per_worker_bytes\": ", out);
    jw_int(out, v->w_mib >= 0, v->w_mib * (int64_t)MEM_MIB);
    fputs(", \"per_worker_source\": ", out);
    jw_word(out, whatif_wsource_name(v->w_source));
    fputs(", \"max_bytes\": ", out);
    jw_int(out, p->mem.total > 0, (int64_t)p->mem.max_bytes);
    fputs(", \"mem_ceiling\": ", out);
    jw_int(out, v->mem_ceiling >= 0, v->mem_ceiling);
    fputs(", \"advice\": ", out);
    jw_int(out, v->advice >= 0, v->advice);
    fputs(", \"binds\": ", out);
    jw_word(out, whatif_binds_name(v->binds));
    fputc('}', out);
}

/* 18.4: the p50 and p95 at one worker count, or null without one */
static void json_at(FILE *out, const wi_pred *at)
{
    if (!at->has) {
        fputs("null", out);
        return;
    }
    fprintf(out, "{\"workers\": %lld, \"p50_ms\": %lld, \"p95_ms\": %lld}",
            (long long)at->workers, (long long)at->p50_ms, (long long)at->p95_ms);
}

/* 18.4: what the pool's requests would take at now and at the advice */
static void json_predicted(FILE *out, const pl_pool *p, const wi_view *v)
{
    (void)p;
    if (!v->predicts) {
        fputs("null", out);
        return;
    }
    fputs("{\"at_now\": ", out);
    json_at(out, &v->at_now);
    fputs(", \"at_advice\": ", out);
    json_at(out, &v->at_advice);
    fputc('}', out);
}

/* 19.4: the pool's routes, in their order; an empty list for none */
static void json_routes(FILE *out, const pl_pool *p, const wi_view *v)
{
    (void)p;
    const rt_fig *f = v->routes;
    size_t n = v->nroutes;
    fputc('[', out);
    for (size_t i = 0; i < n; i++) {
        int k = 1;
        fputs(i ? ", {" : "{", out);
        jw_key(out, "route", &k);
        jw_str(out, f[i].name, f[i].len);
        jw_key(out, "readings", &k);
        jw_int(out, 1, (int64_t)f[i].readings);
        jw_key(out, "cpu_share_pct", &k);
        jw_hundredths(out, f[i].cpu_share_h >= 0, f[i].cpu_share_h);
        jw_key(out, "cpu_ms_per_request", &k);
        jw_hundredths(out, 1, f[i].cpu_ms_h);
        jw_key(out, "busy_pct", &k);
        jw_hundredths(out, f[i].busy_h >= 0, f[i].busy_h);
        jw_key(out, "p50_ms", &k);
        jw_int(out, f[i].p50_ms >= 0, f[i].p50_ms);
        jw_key(out, "p95_ms", &k);
        jw_int(out, f[i].p95_ms >= 0, f[i].p95_ms);
        jw_key(out, "p95_ms_at_advice", &k);
        jw_int(out, f[i].p95_at_advice_ms >= 0, f[i].p95_at_advice_ms);
        jw_key(out, "memory_max_bytes", &k);
        jw_int(out, f[i].mem_max >= 0, f[i].mem_max);
        fputc('}', out);
    }
    fputc(']', out);
}

typedef void (*add_fn)(void *arg, const char *col);

static const char *const COLS_FIT[] = {"fit_n", "fit_slope", "fit_intercept", "fit_sd_x", NULL};
static const char *const COLS_JOINT[] = {"joint_slope", "joint_se", "joint_partial_sd",
                                         "joint_believed", "overhead_source", "recovered_pct",
                                         "overhead", NULL};
static const char *const COLS_ACTIVITY[] = {"activity_cores_mean", "activity_cores_max",
                                            "activity_active_max", "activity_full_rounds",
                                            "activity_maxed_rounds", "activity_queue_max", NULL};

static const char *const COLS_PREDICTED[] = {
    "predicted_at_now_workers", "predicted_at_now_p50_ms", "predicted_at_now_p95_ms",
    "predicted_at_advice_workers", "predicted_at_advice_p50_ms", "predicted_at_advice_p95_ms",
    NULL};

static const char *const COLS_MEMORY[] = {"memory_readings", "memory_per_worker_bytes", "memory_per_worker_source",
                                          "memory_max_bytes", "memory_mem_ceiling",
                                          "memory_advice", "memory_binds", NULL};

static void cols_filtered(add_fn add, void *arg)
{
    for (int k = 0; k < RD_NREASONS; k++) {
        char col[64];
        snprintf(col, sizeof col, "filtered_%s", rd_name((rd_verdict)k));
        add(arg, col);
    }
}

/* ------------------------------------------------------------ the samples */

static size_t om_share(const pl_pool *p, const wi_view *v, fig_sample s[FIG_MAX_SAMPLES])
{
    size_t n = 0;
    if (v->has_typical) {
        s[n++] = (fig_sample){"", ",quantile=\"0.5\"", v->typical_pct / 100.0};
        s[n++] = (fig_sample){"", ",quantile=\"0.9\"", v->p90_pct / 100.0};
    }
    s[n++] = (fig_sample){"_count", NULL, pl_hist(p)->total};
    return n;
}

/* the overhead's source as a label: a static buffer per call is enough,
 * the sample is printed before the next */
static const char *source_label(const wi_view *v)
{
    static char b[32];
    const char *n = whatif_source_name(v->source);
    snprintf(b, sizeof b, ",source=\"%s\"", n ? n : "");
    return b;
}

static size_t om_overhead(const pl_pool *p, const wi_view *v, fig_sample s[FIG_MAX_SAMPLES])
{
    (void)p;
    if (v->source == WI_SRC_NONE)
        return 0;
    s[0] = (fig_sample){"", source_label(v), v->overhead};
    return 1;
}

static size_t om_overhead_se(const pl_pool *p, const wi_view *v, fig_sample s[FIG_MAX_SAMPLES])
{
    (void)p;
    if (v->source == WI_SRC_NONE || v->overhead_se < 0)
        return 0;
    s[0] = (fig_sample){"", source_label(v), v->overhead_se};
    return 1;
}

static size_t om_memory(const pl_pool *p, const wi_view *v, fig_sample s[FIG_MAX_SAMPLES])
{
    (void)p;
    if (v->w_mib < 0)
        return 0;
    s[0] = (fig_sample){"", NULL, (double)v->w_mib * (double)MEM_MIB};
    return 1;
}

static size_t om_advice(const pl_pool *p, const wi_view *v, fig_sample s[FIG_MAX_SAMPLES])
{
    (void)p;
    if (v->advice < 0)
        return 0;
    s[0] = (fig_sample){"", v->binds == WI_BINDS_CPU ? ",binds=\"cpu\"" : ",binds=\"memory\"",
                        (double)v->advice};
    return 1;
}

/* ------------------------------------------------------------ the table */

#define COUNTER(n, h) {{"fpm_cpu_" n, "counter", NULL, h, 1, NULL}}

const fig_entry FIG_POOL[] = {
    {.key = "pool", .kind = FIG_WORD, .get = get_pool},
    {.key = "readings", .kind = FIG_INT, .get = get_readings,
     .om = {{"fpm_cpu_readings", "gauge", NULL, "Requests counted, after halving", 1, NULL}}},
    {.key = "histogram", .kind = FIG_OBJECT, .json = json_histogram},
    {.key = "typical_pct", .kind = FIG_INT, .get = get_typical, .check = CHK_SHARE, .label = "TYPICAL",
     .om = {{"fpm_cpu_request_cpu_share_ratio", "summary", "ratio",
             "CPU time over wall time of finished requests (bucket floors)", 1, om_share}}},
    {.key = "p90_pct", .kind = FIG_INT, .get = get_p90, .check = CHK_SHARE, .label = "P90"},
    {.key = "shape", .kind = FIG_WORD, .get = get_shape, .check = CHK_SHAPE, .label = "shape"},
    {.key = "php_millicores", .kind = FIG_INT, .get = get_php,
     .om = {{"fpm_cpu_php_worker_cores", "gauge", "cores", "CPU of one busy worker's PHP", 1000,
             NULL}}},
    {.key = "busy_pct", .kind = FIG_HUNDREDTHS, .get = get_busy_pct, .check = CHK_SHARE, .label = "busy share",
     .om = {{"fpm_cpu_busy_share_ratio", "gauge", "ratio",
             "CPU share of a busy worker: the requests' shares weighted by their durations",
             10000, NULL}}},
    {.key = "busy_millicores", .kind = FIG_INT, .get = get_busy_mc},
    {.key = "cpu_ms_per_request", .kind = FIG_HUNDREDTHS, .get = get_cpu_ms, .check = CHK_RISE,
     .label = "cpu per request",
     .om = {{"fpm_cpu_request_cpu_seconds", "gauge", "seconds",
             "CPU one request computes (17.6), which no contention changes", 100000, NULL}}},
    {.key = "fit", .kind = FIG_OBJECT, .json = json_fit, .cols = COLS_FIT},
    {.key = "joint", .kind = FIG_OBJECT, .json = json_joint, .cols = COLS_JOINT, .check = CHK_OVERHEAD,
     .label = "overhead",
     .om = {{"fpm_cpu_host_overhead_ratio", "gauge", "ratio",
             "Host CPU per unit of the pool's CPU sizing uses, when believed; source: own (its "
             "own load), host (the host's average), dominant (--fit dominant)", 1, om_overhead},
            {"fpm_cpu_host_overhead_se_ratio", "gauge", "ratio",
             "Standard error of that overhead's slope (own or host)", 1, om_overhead_se}}},
    {.key = "host_millicores_per_worker", .kind = FIG_INT, .get = get_host_mc,
     .om = {{"fpm_cpu_host_worker_cores", "gauge", "cores",
             "CPU one busy worker costs the host, overhead counted", 1000, NULL}}},
    {.key = "knee", .kind = FIG_HUNDREDTHS, .get = get_knee,
     .om = {{"fpm_cpu_knee_workers", "gauge", NULL,
             "Busy workers where throughput stops growing and latency starts (unrounded fill)",
             100, NULL}}},
    {.key = "fill_workers", .kind = FIG_INT, .get = get_fill,
     .om = {{"fpm_cpu_fill_workers", "gauge", NULL, "Busy workers that fill the CPU", 1, NULL}}},
    {.key = "ceiling", .kind = FIG_INT, .get = get_ceiling,
     .om = {{"fpm_cpu_ceiling_workers", "gauge", NULL, "Workers past which more only add latency",
             1, NULL}}},
    {.key = "max_children", .kind = FIG_INT, .get = get_max_children},
    {.key = "limit", .kind = FIG_WORD, .get = get_limit,
     .om = {{"fpm_cpu_limit_cpu", "gauge", NULL,
             "1 when pm.max_children is past the ceiling, 0 when within it", 1, NULL}}},
    {.key = "memory", .kind = FIG_OBJECT, .json = json_memory, .cols = COLS_MEMORY,
     .check = CHK_MEMORY, .label = "memory per worker",
     .om = {{"fpm_cpu_pool_memory_per_worker_bytes", "gauge", "bytes",
             "Memory one worker holds: private pages plus the request's peak, 95th percentile "
             "rounded up (W)", 1, om_memory},
            {"fpm_cpu_pool_advised_max_children", "gauge", NULL,
             "The advised pm.max_children: the lower of the CPU and the memory ceilings; binds: "
             "which one", 1, om_advice}}},
    {.key = "activity", .kind = FIG_OBJECT, .json = json_activity, .cols = COLS_ACTIVITY},
    {.key = "contended_readings", .kind = FIG_INT, .get = get_contended},
    {.key = "measured_under_contention", .kind = FIG_BOOL, .get = get_under_contention},
    {.key = "unanswered_full_queue_max", .kind = FIG_INT, .get = get_queue_max},
    {.key = "starved_rounds", .kind = FIG_INT, .get = get_starved, .check = CHK_MORE, .label = "starved rounds",
     .detail = "requests queued while the CPU was full",
     .om = COUNTER("starved_rounds", "Rounds with a listen queue while the CPU was full")},
    {.key = "starved_by_steal_rounds", .kind = FIG_INT, .get = get_by_steal,
     .om = COUNTER("starved_by_steal_rounds",
                   "Starved rounds in which the CPU was full only with the hypervisor's steal")},
    {.key = "throttled_rounds", .kind = FIG_INT, .get = get_throttled,
     .om = COUNTER("throttled_rounds", "Rounds with a listen queue while the quota throttled")},
    {.key = "unanswered_full_rounds", .kind = FIG_INT, .get = get_unanswered,
     .om = COUNTER("unanswered_full_rounds",
                   "Rounds the status page could not be read while the CPU was full")},
    {.key = "error_rounds", .kind = FIG_INT, .get = get_errors,
     .om = COUNTER("error_rounds", "Rounds the status page could not be read")},
    {.key = "filtered", .kind = FIG_OBJECT, .json = json_filtered, .columns = cols_filtered},
    {.key = "predicted", .kind = FIG_OBJECT, .json = json_predicted, .cols = COLS_PREDICTED},
    /* a list: no CSV column (--csv-routes has a row per route), no metric */
    {.key = "routes", .kind = FIG_OBJECT, .json = json_routes},
};

const size_t FIG_NPOOL = sizeof FIG_POOL / sizeof FIG_POOL[0];

const fig_entry *fig_find(const char *key)
{
    for (size_t i = 0; i < FIG_NPOOL; i++)
        if (strcmp(FIG_POOL[i].key, key) == 0)
            return &FIG_POOL[i];
    return NULL;
}

static void json_value(FILE *out, const fig_entry *e, const pl_pool *p, const wi_view *v)
{
    if (e->kind == FIG_OBJECT) {
        e->json(out, p, v);
        return;
    }
    fig_value x = {0};
    e->get(p, v, &x);
    if (e->kind == FIG_BOOL)
        fputs(x.i ? "true" : "false", out);
    else if (e->kind == FIG_WORD)
        jw_str(out, x.has ? x.word : NULL, x.word_len);
    else if (e->kind == FIG_HUNDREDTHS)
        jw_hundredths(out, x.has, x.i);
    else if (e->kind == FIG_DOUBLE)
        jw_num(out, x.has, x.d);
    else
        jw_int(out, x.has, x.i);
}

void fig_json(FILE *out, const pl_pool *p, const wi_view *v)
{
    for (size_t i = 0; i < FIG_NPOOL; i++) {
        fprintf(out, "%s\"%s\": ", i ? ", " : "{", FIG_POOL[i].key);
        json_value(out, &FIG_POOL[i], p, v);
    }
    fputc('}', out);
}

void fig_columns(void (*add)(void *arg, const char *col), void *arg)
{
    for (size_t i = 0; i < FIG_NPOOL; i++) {
        if (FIG_POOL[i].kind != FIG_OBJECT)
            add(arg, FIG_POOL[i].key);
        for (const char *const *c = FIG_POOL[i].cols; c && *c; c++)
            add(arg, *c);
        if (FIG_POOL[i].columns)
            FIG_POOL[i].columns(add, arg);
    }
}

/* ------------------------------------------------------------ the text table */

const fig_column FIG_TEXT[] = {
    {"POOL", 1, FIG_WORD, get_pool, "", "-", NULL},
    {"READINGS", 0, FIG_INT, get_readings, "", "-", NULL},
    {"TYPICAL", 0, FIG_INT, get_typical, "%", "-", "<5%"},
    {"P90", 0, FIG_INT, get_p90, "%", "-", "<5%"},
    {"BUSY", 0, FIG_HUNDREDTHS, get_busy_pct, "%", "-", NULL},
    {"SHAPE", 1, FIG_WORD, get_shape, "", "-", NULL},
    {"PHP/W", 0, FIG_INT, get_php, "m", "-", NULL},
    {"HOST/W", 0, FIG_INT, get_host_mc, "m", "-", NULL},
    {"FILL", 0, FIG_INT, get_fill, "", "-", NULL},
    {"CEILING", 0, FIG_INT, get_ceiling, "", "-", NULL},
    {"MEM/W", 0, FIG_INT, get_w_mib, "MiB", "-", NULL},
    {"MEMCEIL", 0, FIG_INT, get_mem_ceiling, "", "-", NULL},
    {"MAX", 0, FIG_INT, get_max_children, "", "?", NULL},
    {"ADVICE", 0, FIG_INT, get_advice, "", "-", NULL},
    {"LIMIT", 1, FIG_WORD, get_limit, "", "-", NULL},
    {"STARVED", 0, FIG_INT, get_starved, "", "-", NULL},
    {"ERRORS", 0, FIG_INT, get_errors, "", "-", NULL},
};
const size_t FIG_NTEXT = sizeof FIG_TEXT / sizeof FIG_TEXT[0];
