/* Every host figure, once (figures.h, "the host's figures").  What each
 * means: fpm-cpu(7); how each is computed: docs/rules.md, by section. */
#include "figures.h"

#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "signals.h"
#include "timearg.h"

#define HGET(fn) static void fn(const wi_host *a, fig_value *o)
#define HJSON(fn) static void fn(jw *w, const wi_host *a)
typedef void (*add_fn)(void *arg, const char *col);

static void set(fig_value *o, int has, int64_t i)
{
    o->has = has;
    o->i = i;
}

static void word(fig_value *o, const char *s, size_t n)
{
    o->has = s != NULL;
    o->word = s;
    o->word_len = n;
}

HGET(get_hostname) { word(o, a->h->hostname, a->h->hostname_len); }
HGET(get_host_mc) { set(o, 1, (int64_t)a->hm); }
HGET(get_cpus) { set(o, a->h->cpus != NULL, a->h->cpus ? (int64_t)a->h->cpus->n : 0); }
HGET(get_cpu_source)
{
    const char *s = PL_CPU_SOURCE[a->h->cpu_source];
    word(o, s, strlen(s));
}
HGET(get_rounds) { set(o, 1, (int64_t)a->h->rounds); }
HGET(get_inconsistent) { set(o, 1, (int64_t)a->h->j.inconsistent); }
HGET(get_needed_now) { set(o, 1, a->needed_now); }
HGET(get_needed_at_ceiling) { set(o, 1, a->needed_at_ceiling); }

/* section 9's round span: "2026-11-29T14:00:00Z" (whole seconds, UTC) */
static char *span_text(char *b, uint64_t ns)
{
    timearg_format(ns - ns % 1000000000ull, b);
    return b;
}

static char first_at[40], last_at[40]; /* the words get_first/get_last point at */
HGET(get_first)
{
    if (a->h->rounds)
        span_text(first_at, a->h->first_real);
    word(o, a->h->rounds ? first_at : NULL, strlen(first_at));
}
HGET(get_last)
{
    if (a->h->rounds)
        span_text(last_at, a->h->last_real);
    word(o, a->h->rounds ? last_at : NULL, strlen(last_at));
}

/* 16.4: how the kernel groups php-fpm, or null where no HOST said. */
HJSON(json_sched)
{
    const pl_host *h = a->h;
    if (!h->has_sched) {
        jw_null(w);
        return;
    }
    jw_begin(w, '{');
    jw_key(w, "autogroup");
    jw_str(w, h->autogroup, h->autogroup ? strlen(h->autogroup) : 0);
    jw_int_member(w, "cpu_weight", h->cpu_weight >= 0, h->cpu_weight);
    jw_key(w, "cpu_weight_kind");
    jw_word(w, h->cpu_weight_kind);
    jw_key(w, "cpu_controller");
    if (h->cpu_controller < 0)
        jw_null(w);
    else
        jw_bool(w, h->cpu_controller);
    jw_end(w, '}');
}

static void cols_sched(add_fn add, void *arg)
{
    add(arg, "sched_group_autogroup");
    add(arg, "sched_group_cpu_weight");
    add(arg, "sched_group_cpu_weight_kind");
    add(arg, "sched_group_cpu_controller");
}

/* Section 9: each share signal {pairs, p10_pct, ...} (throttled_seconds
 * after the throttled one), then the steal probe: members of the host. */
static const char *const TRUTH_Q[TR_NQ] = {"p10_pct", "p50_pct", "p90_pct", "max_pct"};

HJSON(json_truth)
{
    truth t;
    sig_truth(a->h, &t);
    for (int k = SIG_FIRST_SHARE; k < SIG_N; k++) {
        jw_key(w, PL_SIGNALS[k].name);
        jw_begin(w, '{');
        jw_int_member(w, "pairs", 1, (int64_t)t.pairs[k]);
        for (int i = 0; i < TR_NQ; i++) {
            jw_key(w, TRUTH_Q[i]);
            jw_hundredths(w, t.pct[k][i] >= 0, t.pct[k][i]);
        }
        jw_end(w, '}');
        if (k == SIG_THROTTLED) {
            char b[48];
            uint64_t us = t.throttled_usec;
            snprintf(b, sizeof b, "%llu.%06llu", (unsigned long long)(us / 1000000),
                     (unsigned long long)(us % 1000000));
            jw_key(w, "throttled_seconds");
            jw_raw(w, b);
        }
    }
    jw_key(w, "steal_probe");
    if (!t.probes) {
        jw_null(w);
        return;
    }
    jw_begin(w, '{');
    jw_int_member(w, "probes", 1, (int64_t)t.probes);
    jw_hundredths_member(w, "pct", t.probe_pct >= 0, t.probe_pct);
    jw_hundredths_member(w, "naive_pct", t.probe_naive_pct >= 0, t.probe_naive_pct);
    jw_end(w, '}');
}

static void cols_truth(add_fn add, void *arg)
{
    static const char *const cols[] = {"pairs", "p10_pct", "p50_pct", "p90_pct", "max_pct"};
    char b[64];
    for (int k = SIG_FIRST_SHARE; k < SIG_N; k++) {
        for (size_t i = 0; i < sizeof cols / sizeof *cols; i++) {
            snprintf(b, sizeof b, "%s_%s", PL_SIGNALS[k].name, cols[i]);
            add(arg, b);
        }
        if (k == SIG_THROTTLED)
            add(arg, "throttled_seconds");
    }
    add(arg, "steal_probe_probes");
    add(arg, "steal_probe_pct");
    add(arg, "steal_probe_naive_pct");
}

/* Section 11.6: the host's joint fit, or null until it has a line. */
HJSON(json_joint)
{
    const joint_sol *s = &a->joint;
    if (!s->exists) {
        jw_null(w);
        return;
    }
    jw_begin(w, '{');
    jw_num_member(w, "n", 1, s->n);
    jw_num_member(w, "base", 1, s->base);
    jw_num_member(w, "resid_sd", 1, s->resid_sd);
    jw_int_member(w, "points", 1, (int64_t)s->points);
    jw_int_member(w, "inconsistent_pairs", 1, (int64_t)s->inconsistent);
    jw_key(w, "common");
    if (s->common_exists) {
        jw_begin(w, '{');
        jw_num_member(w, "slope", 1, s->common_slope);
        jw_num_member(w, "se", 1, s->common_se);
        jw_num_member(w, "sd_x", 1, s->common_sd_x);
        jw_bool_member(w, "believed", s->common_believed);
        jw_end(w, '}');
    } else {
        jw_null(w);
    }
    jw_end(w, '}');
}

static void cols_joint(add_fn add, void *arg)
{
    static const char *const cols[] = {"joint_n", "joint_base", "joint_resid_sd", "joint_points",
                                       "joint_inconsistent_pairs", "joint_common_slope",
                                       "joint_common_se", "joint_common_sd_x",
                                       "joint_common_believed"};
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
        add(arg, cols[i]);
}

/* 14.6: the host's memory, nulls where unknown; f and g of 14.5. */
HJSON(json_memory)
{
    const wi_memory *m = &a->mem;
    jw_begin(w, '{');
    jw_int_member(w, "total_bytes", m->has_total, (int64_t)m->total);
    jw_int_member(w, "budget_bytes", m->has_budget, (int64_t)m->budget);
    jw_int_member(w, "other_max_bytes", m->has_budget, (int64_t)m->other_max);
    jw_int_member(w, "php_max_bytes", m->has_php, (int64_t)m->php_max);
    jw_int_member(w, "needed_now_bytes", m->needed_now >= 0, m->needed_now);
    jw_int_member(w, "needed_at_advice_bytes", m->needed_at_advice >= 0, m->needed_at_advice);
    jw_hundredths_member(w, "needs_fraction", m->needs_hundredths >= 0, m->needs_hundredths);
    jw_hundredths_member(w, "room_fraction", m->room_hundredths >= 0, m->room_hundredths);
    jw_end(w, '}');
}

static void cols_memory(add_fn add, void *arg)
{
    static const char *const cols[] = {
        "memory_total_bytes", "memory_budget_bytes", "memory_other_max_bytes",
        "memory_php_max_bytes", "memory_needed_now_bytes", "memory_needed_at_advice_bytes",
        "memory_needs_fraction", "memory_room_fraction"};
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
        add(arg, cols[i]);
}

/* ------------------------------------------------------------ OpenMetrics */

static size_t om_cores(const wi_host *a, fig_sample s[FIG_MAX_SAMPLES])
{
    s[0] = (fig_sample){"", "", (double)a->hm / 1000.0};
    return 1;
}

static size_t om_needed_at_ceiling(const wi_host *a, fig_sample s[FIG_MAX_SAMPLES])
{
    s[0] = (fig_sample){"", "", (double)a->needed_at_ceiling / 1000.0};
    return 1;
}

static size_t om_rounds(const wi_host *a, fig_sample s[FIG_MAX_SAMPLES])
{
    s[0] = (fig_sample){"", "", (double)a->h->rounds};
    return 1;
}

/* 14.5: what php-fpm can have, and how the sized pools shared it */
static size_t om_budget(const wi_host *a, fig_sample s[FIG_MAX_SAMPLES])
{
    if (!a->mem.has_budget)
        return 0;
    s[0] = (fig_sample){"", "", (double)a->mem.budget};
    return 1;
}

static size_t om_shared(const wi_host *a, fig_sample s[FIG_MAX_SAMPLES])
{
    size_t n = 0;
    if (a->mem.needs_hundredths >= 0)
        s[n++] = (fig_sample){"", ",of=\"needs\"", (double)a->mem.needs_hundredths / 100.0};
    if (a->mem.room_hundredths >= 0)
        s[n++] = (fig_sample){"", ",of=\"room\"", (double)a->mem.room_hundredths / 100.0};
    return n;
}

/* ------------------------------------------------------------ the table */

const fig_host_entry FIG_HOST[] = {
    {.key = "hostname", .kind = FIG_WORD, .get = get_hostname, .label = "host"},
    {.key = "host_millicores", .kind = FIG_INT, .get = get_host_mc, .label = "millicores",
     .om = {{"fpm_cpu_host_cores", "gauge", "cores", "CPU the host has (its quota, else its CPUs)",
             om_cores}}},
    {.key = "cpus", .kind = FIG_INT, .get = get_cpus, .label = "CPUs php-fpm may run on"},
    {.key = "cpu_source", .kind = FIG_WORD, .get = get_cpu_source,
     .label = "where the cores come from"},
    {.key = "sched_group", .kind = FIG_OBJECT, .json = json_sched, .columns = cols_sched},
    {.key = "rounds", .kind = FIG_INT, .get = get_rounds, .label = "rounds",
     .om = {{"fpm_cpu_rounds", "counter", NULL, "Complete rounds replayed", om_rounds}}},
    {.key = "first_round_at", .kind = FIG_WORD, .get = get_first, .label = "first round"},
    {.key = "last_round_at", .kind = FIG_WORD, .get = get_last, .label = "last round"},
    {.key = "steal", .kind = FIG_MEMBERS, .json = json_truth, .columns = cols_truth},
    {.key = "inconsistent_pairs", .kind = FIG_INT, .get = get_inconsistent,
     .label = "round pairs whose pools used more CPU than the host had"},
    {.key = "joint", .kind = FIG_OBJECT, .json = json_joint, .columns = cols_joint},
    {.key = "needed_now_millicores", .kind = FIG_INT, .get = get_needed_now,
     .label = "every worker busy at once needs (millicores)"},
    {.key = "needed_at_ceiling_millicores", .kind = FIG_INT, .get = get_needed_at_ceiling,
     .label = "every pool at its ceiling needs (millicores)",
     .om = {{"fpm_cpu_needed_at_ceiling_cores", "gauge", "cores",
             "CPU every pool at its ceiling would draw", om_needed_at_ceiling}}},
    {.key = "memory", .kind = FIG_OBJECT, .json = json_memory, .columns = cols_memory,
     .om = {{"fpm_cpu_memory_budget_bytes", "gauge", "bytes",
             "Memory php-fpm can have beside the rest of the host", om_budget},
            {"fpm_cpu_memory_shared_ratio", "gauge", "ratio",
             "How the sized pools shared it: the fraction of their needs each got, and of the "
             "room above them", om_shared}}},
};
const size_t FIG_NHOST = sizeof FIG_HOST / sizeof FIG_HOST[0];

static void host_value(jw *w, const fig_host_entry *e, const wi_host *a)
{
    if (e->kind == FIG_OBJECT || e->kind == FIG_MEMBERS) {
        e->json(w, a);
        return;
    }
    fig_value x = {0};
    e->get(a, &x);
    if (e->kind == FIG_WORD)
        jw_str(w, x.has ? x.word : NULL, x.word_len);
    else
        jw_int(w, x.has, x.i);
}

void fig_host_json(jw *w, const wi_host *a)
{
    for (size_t i = 0; i < FIG_NHOST; i++) {
        if (FIG_HOST[i].kind != FIG_MEMBERS)
            jw_key(w, FIG_HOST[i].key);
        host_value(w, &FIG_HOST[i], a);
    }
}

void fig_host_columns(void (*add)(void *arg, const char *col), void *arg)
{
    for (size_t i = 0; i < FIG_NHOST; i++) {
        if (FIG_HOST[i].columns)
            FIG_HOST[i].columns(add, arg);
        else
            add(arg, FIG_HOST[i].key);
    }
}

void fig_host_text(const fig_host_entry *e, const wi_host *a, char *b, size_t n)
{
    fig_value x = {0};
    if (e->get)
        e->get(a, &x);
    if (!x.has)
        snprintf(b, n, "-");
    else if (e->kind == FIG_WORD)
        snprintf(b, n, "%.*s", (int)x.word_len, x.word);
    else
        snprintf(b, n, "%lld", (long long)x.i);
}
