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
/* 20.7: where a pool's readings come from, and what its census counted */
GET(get_source)
{
    UNUSED;
    o->has = 1;
    o->word = v->censused ? "access_log" : "status_page";
    o->word_len = strlen(o->word);
}
GET(get_requests) { UNUSED; set_i(o, v->censused, (int64_t)v->requests); }
GET(get_requests_per_s) { UNUSED; set_i(o, v->censused && v->rps_hundredths >= 0, v->rps_hundredths); }
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

#define JSON(fn) static void fn(jw *w, const pl_pool *p, const wi_view *v)

JSON(json_histogram)
{
    (void)v;
    jw_begin(w, '[');
    for (int i = 0; i < HIST_BUCKETS; i++) {
        jw_item(w);
        jw_int(w, 1, pl_hist(p)->count[i]);
    }
    jw_end(w, ']');
}

JSON(json_fit)
{
    (void)p;
    if (!v->line.exists) {
        jw_null(w);
        return;
    }
    jw_begin(w, '{');
    jw_num_member(w, "n", 1, v->line.n);
    jw_num_member(w, "slope", 1, v->line.slope);
    jw_num_member(w, "intercept", 1, v->line.intercept);
    jw_num_member(w, "sd_x", 1, v->line.sd_x);
    jw_end(w, '}');
}

/* 11.6: the joint line's slope for the pool, then (as keys of the pool)
 * overhead_source, recovered_pct and overhead. */
JSON(json_joint)
{
    (void)p;
    if (v->joint.in_a) {
        jw_begin(w, '{');
        jw_num_member(w, "slope", 1, v->joint.slope);
        jw_num_member(w, "se", 1, v->joint.se);
        jw_num_member(w, "partial_sd", 1, v->joint.partial_sd);
        jw_bool_member(w, "believed", v->joint.believed);
        jw_end(w, '}');
    } else {
        jw_null(w);
    }
    jw_key(w, "overhead_source");
    jw_word(w, whatif_source_name(v->source));
    jw_num_member(w, "recovered_pct", v->has_recovered, v->recovered_pct);
    jw_num_member(w, "overhead", v->source != WI_SRC_NONE, v->overhead);
}

/* 12.2: what the pool did. */
JSON(json_activity)
{
    (void)v;
    const pl_activity *a = &p->act;
    jw_begin(w, '{');
    jw_num_member(w, "cores_mean", a->pairs && a->seconds > 0,
                  a->seconds > 0 ? a->core_seconds / a->seconds : 0);
    jw_num_member(w, "cores_max", a->pairs != 0, a->cores_max);
    jw_int_member(w, "active_max", a->has_active, a->active_max);
    jw_int_member(w, "full_rounds", a->full_known, (int64_t)a->full_rounds);
    jw_int_member(w, "maxed_rounds", 1, (int64_t)a->maxed_rounds);
    jw_int_member(w, "queue_max", a->has_queue, a->queue_max);
    jw_end(w, '}');
}

JSON(json_filtered)
{
    (void)v;
    jw_begin(w, '{');
    for (int k = 0; k < RD_NREASONS; k++) {
        jw_key(w, rd_name((rd_verdict)k));
        jw_int(w, 1, (int64_t)p->filtered[k]);
    }
    jw_end(w, '}');
}

/* 20.6: what a censused pool's requests took, from its time sample */
JSON(json_measured)
{
    (void)p;
    if (!v->has_measured) {
        jw_null(w);
        return;
    }
    jw_begin(w, '{');
    jw_int_member(w, "p50_ms", 1, v->measured_p50);
    jw_int_member(w, "p95_ms", 1, v->measured_p95);
    jw_end(w, '}');
}

/* 20.7: the pool's access log in the window: null without an ACCESS
 * record for it */
JSON(json_access)
{
    (void)v;
    if (!p->has_access) {
        jw_null(w);
        return;
    }
    jw_begin(w, '{');
    jw_int_member(w, "lines", 1, (int64_t)p->access_lines);
    jw_int_member(w, "unparsable", 1, (int64_t)p->access_unparsable);
    jw_int_member(w, "other_pool", 1, (int64_t)p->access_other_pool);
    jw_int_member(w, "rounds_without_access", 1, (int64_t)p->rounds_without_access);
    jw_key(w, "format");
    const char *f = p->access_format ? p->fmt.reason : "unusable: no %C";
    jw_str(w, f, strlen(f));
    jw_end(w, '}');
}

/* 14.6: the pool's memory, and why it has no advice (14.5) by name. */
JSON(json_memory)
{
    jw_begin(w, '{');
    jw_int_member(w, "readings", 1, p->mem.total);
    jw_key(w, "histogram");
    jw_begin(w, '[');
    for (int i = 0; i < MEM_BUCKETS; i++) {
        jw_item(w);
        jw_int(w, 1, p->mem.count[i]);
    }
    jw_end(w, ']');
    jw_int_member(w, "per_worker_bytes", v->w_mib >= 0, v->w_mib * (int64_t)MEM_MIB);
    jw_key(w, "per_worker_source");
    jw_word(w, whatif_wsource_name(v->w_source));
    jw_int_member(w, "max_bytes", p->mem.total > 0, (int64_t)p->mem.max_bytes);
    jw_int_member(w, "mem_ceiling", v->mem_ceiling >= 0, v->mem_ceiling);
    jw_int_member(w, "advice", v->advice >= 0, v->advice);
    jw_key(w, "binds");
    jw_word(w, whatif_binds_name(v->binds));
    jw_key(w, "no_advice");
    jw_word(w, whatif_no_advice_name(v->no_advice));
    jw_end(w, '}');
}

/* 18.4: the p50 and p95 at one worker count, or null without one */
static void json_at(jw *w, const wi_pred *at)
{
    if (!at->has) {
        jw_null(w);
        return;
    }
    jw_begin(w, '{');
    jw_int_member(w, "workers", 1, at->workers);
    jw_int_member(w, "p50_ms", 1, at->p50_ms);
    jw_int_member(w, "p95_ms", 1, at->p95_ms);
    jw_end(w, '}');
}

/* 18.4: what the pool's requests would take at now and at the advice */
JSON(json_predicted)
{
    (void)p;
    if (!v->predicts) {
        jw_null(w);
        return;
    }
    jw_begin(w, '{');
    jw_key(w, "at_now");
    json_at(w, &v->at_now);
    jw_key(w, "at_advice");
    json_at(w, &v->at_advice);
    jw_end(w, '}');
}

void fig_route_json(jw *w, const rt_fig *f)
{
    jw_begin(w, '{');
    jw_key(w, "route");
    jw_str(w, f->name, f->len);
    jw_int_member(w, "readings", 1, (int64_t)f->readings);
    jw_hundredths_member(w, "cpu_share_pct", f->cpu_share_h >= 0, f->cpu_share_h);
    jw_hundredths_member(w, "cpu_ms_per_request", 1, f->cpu_ms_h);
    jw_hundredths_member(w, "busy_pct", f->busy_h >= 0, f->busy_h);
    jw_int_member(w, "p50_ms", f->p50_ms >= 0, f->p50_ms);
    jw_int_member(w, "p95_ms", f->p95_ms >= 0, f->p95_ms);
    jw_int_member(w, "p95_ms_at_advice", f->p95_at_advice_ms >= 0, f->p95_at_advice_ms);
    jw_int_member(w, "memory_max_bytes", f->mem_max >= 0, f->mem_max);
    jw_int_member(w, "requests", f->censused, (int64_t)f->requests); /* 20.6 */
    jw_hundredths_member(w, "requests_per_s", f->censused && f->rps_h >= 0, f->rps_h);
    jw_end(w, '}');
}

/* 19.4: the pool's routes, in their order; an empty list for none */
JSON(json_routes)
{
    (void)p;
    jw_begin(w, '[');
    for (size_t i = 0; i < v->nroutes; i++) {
        jw_item(w);
        fig_route_json(w, &v->routes[i]);
    }
    jw_end(w, ']');
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

static const char *const COLS_MEASURED[] = {"measured_p50_ms", "measured_p95_ms", NULL};
static const char *const COLS_ACCESS[] = {"access_lines", "access_unparsable", "access_other_pool",
                                          "access_rounds_without_access", "access_format", NULL};

static const char *const COLS_MEMORY[] = {"memory_readings", "memory_per_worker_bytes", "memory_per_worker_source",
                                          "memory_max_bytes", "memory_mem_ceiling",
                                          "memory_advice", "memory_binds", "memory_no_advice",
                                          NULL};

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
    /* section 20: every request from the access log, where censused */
    {.key = "source", .kind = FIG_WORD, .get = get_source},
    {.key = "requests", .kind = FIG_INT, .get = get_requests},
    {.key = "requests_per_s", .kind = FIG_HUNDREDTHS, .get = get_requests_per_s},
    {.key = "measured", .kind = FIG_OBJECT, .json = json_measured, .cols = COLS_MEASURED},
    {.key = "access", .kind = FIG_OBJECT, .json = json_access, .cols = COLS_ACCESS},
};

const size_t FIG_NPOOL = sizeof FIG_POOL / sizeof FIG_POOL[0];

const fig_entry *fig_find(const char *key)
{
    for (size_t i = 0; i < FIG_NPOOL; i++)
        if (strcmp(FIG_POOL[i].key, key) == 0)
            return &FIG_POOL[i];
    return NULL;
}

static void json_value(jw *w, const fig_entry *e, const pl_pool *p, const wi_view *v)
{
    if (e->kind == FIG_OBJECT) {
        e->json(w, p, v);
        return;
    }
    fig_value x = {0};
    e->get(p, v, &x);
    if (e->kind == FIG_BOOL)
        jw_bool(w, (int)x.i);
    else if (e->kind == FIG_WORD)
        jw_str(w, x.has ? x.word : NULL, x.word_len);
    else if (e->kind == FIG_HUNDREDTHS)
        jw_hundredths(w, x.has, x.i);
    else if (e->kind == FIG_DOUBLE)
        jw_num(w, x.has, x.d);
    else
        jw_int(w, x.has, x.i);
}

void fig_json(jw *w, const pl_pool *p, const wi_view *v)
{
    jw_begin(w, '{');
    for (size_t i = 0; i < FIG_NPOOL; i++) {
        jw_key(w, FIG_POOL[i].key);
        json_value(w, &FIG_POOL[i], p, v);
    }
    jw_end(w, '}');
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
    {"POOL", 1, FIG_WORD, get_pool, "", "-", NULL, "the pool"},
    {"READINGS", 0, FIG_INT, get_readings, "", "-", NULL, "requests read"},
    {"TYPICAL", 0, FIG_INT, get_typical, "%", "-", "<5%", "the median request's CPU share"},
    {"P90", 0, FIG_INT, get_p90, "%", "-", "<5%", "the CPU share 9 requests in 10 stay under"},
    {"BUSY", 0, FIG_HUNDREDTHS, get_busy_pct, "%", "-", NULL,
      "a busy worker's time on CPU (duration-weighted)"},
    {"SHAPE", 1, FIG_WORD, get_shape, "", "-", NULL, "cpu-bound, mixed or i/o-bound"},
    {"PHP/W", 0, FIG_INT, get_php, "m", "-", NULL, "a busy worker's own CPU, millicores"},
    {"HOST/W", 0, FIG_INT, get_host_mc, "m", "-", NULL,
      "what a busy worker costs the host, millicores"},
    {"FILL", 0, FIG_INT, get_fill, "", "-", NULL, "busy workers that fill the cores"},
    {"CEILING", 0, FIG_INT, get_ceiling, "", "-", NULL, "the CPU's ceiling: FILL x the headroom"},
    {"MEM/W", 0, FIG_INT, get_w_mib, "MiB", "-", NULL, "what one worker holds"},
    {"MEMCEIL", 0, FIG_INT, get_mem_ceiling, "", "-", NULL,
      "the workers memory holds beside the other pools"},
    {"MAX", 0, FIG_INT, get_max_children, "", "?", NULL, "pm.max_children now"},
    {"ADVICE", 0, FIG_INT, get_advice, "", "-", NULL, "pm.max_children to set: the lower ceiling"},
    {"LIMIT", 1, FIG_WORD, get_limit, "", "-", NULL,
      "the ceiling MAX is past, or workers within it"},
    {"STARVED", 0, FIG_INT, get_starved, "", "-", NULL,
      "round pairs with requests queued while the host was 95% busy"},
    {"ERRORS", 0, FIG_INT, get_errors, "", "-", NULL, "rounds its status page could not be read"},
};
const size_t FIG_NTEXT = sizeof FIG_TEXT / sizeof FIG_TEXT[0];
