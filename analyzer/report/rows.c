/* CSV of readings and of rounds: words quoted, numbers bare, an empty field
 * for none, as --format csv writes them. */
#include "rows.h"

#include <csv.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "rc.h"
#include "timearg.h"

static void field(FILE *f, int first, const char *s, size_t n)
{
    if (!first)
        fputc(',', f);
    if (n) /* none is an empty field, never quoted */
        csv_fwrite(f, s, n);
}

/* A number: bare, as --format csv writes them (words are quoted). */
static void number(FILE *f, int first, const char *s)
{
    if (!first)
        fputc(',', f);
    fputs(s, f);
}

static void fieldf(FILE *f, int first, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fieldf(FILE *f, int first, const char *fmt, ...)
{
    char b[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    if (n < 0)
        b[0] = '\0';
    number(f, first, b);
}

static void header(FILE *f, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        field(f, i == 0, names[i], strlen(names[i]));
    fputs("\r\n", f);
}

/* time, host, pool: the first fields of every row */
static void row_start(FILE *f, const pl_host *h, const pl_pool *p, const pl_round *r)
{
    char t[40];
    timearg_format(r->real, t);
    field(f, 1, t, strlen(t));
    field(f, 0, h->hostname, h->hostname_len);
    field(f, 0, p->name, p->name_len);
}

static void on_reading(void *arg, const pl_host *h, const pl_pool *p, const pl_round *r,
                       const status_worker *w, rd_verdict v, int64_t share)
{
    FILE *f = arg;
    char b[ESC_HUNDREDTHS];
    row_start(f, h, p, r);
    if (w->has_pid) fieldf(f, 0, "%lld", (long long)w->pid); else field(f, 0, "", 0);
    if (w->has_requests) fieldf(f, 0, "%lld", (long long)w->requests); else field(f, 0, "", 0);
    field(f, 0, w->has_state ? w->state : "", w->has_state ? w->state_len : 0);
    if (w->has_duration) fieldf(f, 0, "%lld", (long long)w->duration); else field(f, 0, "", 0);
    if (v == RD_ACCEPTED)
        number(f, 0, esc_hundredths(b, share));
    else if (w->has_cpu && w->cpu_len < sizeof b &&
             status_cpu_hundredths(w->cpu, w->cpu_len, &(int64_t){0}) >= 0) {
        memcpy(b, w->cpu, w->cpu_len); /* a plain number as written: bare */
        b[w->cpu_len] = '\0';
        number(f, 0, b);
    } else /* anything else as written: a word */
        field(f, 0, w->has_cpu ? w->cpu : "", w->has_cpu ? w->cpu_len : 0);
    const char *vn = rd_name(v);
    field(f, 0, vn, strlen(vn));
    fputs("\r\n", f);
}

static void on_round(void *arg, const pl_host *h, const pl_pool *p, const pl_round *r,
                     const pl_pool_pair *pair)
{
    static const char *const point[] = {"none", "idle", "dominant"};
    FILE *f = arg;
    char b[ESC_HUNDREDTHS];
    row_start(f, h, p, r);
    if (pair->usable)
        fieldf(f, 0, "%.3f", pair->interval_s);
    else
        field(f, 0, "", 0);
    for (int k = 0; k < SIG_N; k++) /* the host signals, one column each */
        if (!pair->has_signal[k])
            field(f, 0, "", 0);
        else if (PL_SIGNALS[k].share) /* hundredths of a percent */
            number(f, 0, esc_hundredths(b, (long long)pair->signal[k]));
        else
            fieldf(f, 0, "%.4f", pair->signal[k]);
    if (pair->usable && pair->busy_ratio >= 0)
        fieldf(f, 0, "%.4f", pair->busy_ratio);
    else
        field(f, 0, "", 0);
    if (pair->has_pool_cores) fieldf(f, 0, "%.4f", pair->pool_cores); else field(f, 0, "", 0);
    if (pair->has_pool_cores) fieldf(f, 0, "%.4f", pair->recovered_cores);
    else field(f, 0, "", 0);
    if (pair->listen_queue >= 0) fieldf(f, 0, "%lld", (long long)pair->listen_queue);
    else field(f, 0, "", 0);
    if (pair->active >= 0) fieldf(f, 0, "%lld", (long long)pair->active);
    else field(f, 0, "", 0);
    fieldf(f, 0, "%d", pair->maxed);
    if (pair->kernel_queue >= 0) fieldf(f, 0, "%lld", (long long)pair->kernel_queue);
    else field(f, 0, "", 0);
    field(f, 0, point[pair->point], strlen(point[pair->point]));
    fieldf(f, 0, "%d", pair->joint_point);
    fieldf(f, 0, "%d", pair->inconsistent);
    fieldf(f, 0, "%d", pair->starved);
    fieldf(f, 0, "%d", pair->starved_by_steal);
    fieldf(f, 0, "%d", pair->throttled);
    fieldf(f, 0, "%d", pair->unanswered_full);
    if (pair->private_bytes >= 0) fieldf(f, 0, "%lld", (long long)pair->private_bytes);
    else field(f, 0, "", 0);
    if (pair->host_other >= 0) fieldf(f, 0, "%lld", (long long)pair->host_other);
    else field(f, 0, "", 0);
    fputs("\r\n", f);
}

void rows_attach(csvout *c, pipeline *pl)
{
    static const char *const rh[] = {"time", "host", "pool", "pid", "requests", "state",
                                     "duration_us", "cpu_share_pct", "verdict"};
    static const char *const oh_before[] = {"time", "host", "pool", "interval_s"};
    static const char *const oh_after[] = {"busy_ratio", "pool_cores", "recovered_cores",
                                           "listen_queue", "active", "maxed", "queue",
                                           "fit_point", "joint_point",
                                           "inconsistent", "starved", "starved_by_steal",
                                           "throttled", "unanswered_full",
                                           "pool_private_bytes", "host_other_bytes"};
    const char *oh[sizeof oh_before / sizeof oh_before[0] + SIG_N +
                   sizeof oh_after / sizeof oh_after[0]];
    size_t n = 0;
    for (size_t k = 0; k < sizeof oh_before / sizeof oh_before[0]; k++)
        oh[n++] = oh_before[k];
    for (int k = 0; k < SIG_N; k++)
        oh[n++] = PL_SIGNALS[k].csv;
    for (size_t k = 0; k < sizeof oh_after / sizeof oh_after[0]; k++)
        oh[n++] = oh_after[k];
    if (c->readings) {
        header(c->readings, rh, sizeof rh / sizeof rh[0]);
        pipeline_on_reading(pl, on_reading, c->readings);
    }
    if (c->rounds) {
        header(c->rounds, oh, n);
        pipeline_on_round(pl, on_round, c->rounds);
    }
}

/* An integer, or an empty field for none (v < 0). */
static void maybe_int(FILE *f, long long v)
{
    if (v >= 0)
        fieldf(f, 0, "%lld", v);
    else
        number(f, 0, "");
}

static void maybe_hundredths(FILE *f, long long v)
{
    char b[ESC_HUNDREDTHS];
    number(f, 0, v >= 0 ? esc_hundredths(b, v) : "");
}

int rows_routes(FILE *f, const wi_answers *ans)
{
    static const char *const head[] = {
        "schema", "hostname", "pool", "route", "readings", "cpu_share_pct",
        "cpu_ms_per_request", "busy_pct", "p50_ms", "p95_ms", "p95_ms_at_advice",
        "memory_max_bytes", "requests", "requests_per_s"};
    header(f, head, sizeof head / sizeof head[0]);
    for (size_t i = 0; i < ans->n; i++) {
        const wi_host *a = &ans->host[i];
        const pl_host *h = a->h;
        for (size_t k = 0; k < h->npools; k++) {
            const pl_pool *p = h->pools[k];
            const rt_fig *fig = a->v[k].routes;
            size_t n = a->v[k].nroutes;
            for (size_t r = 0; r < n; r++) {
                number(f, 1, ROWS_ROUTES_SCHEMA);
                field(f, 0, h->hostname, h->hostname_len);
                field(f, 0, p->name, p->name_len);
                field(f, 0, fig[r].name, fig[r].len);
                fieldf(f, 0, "%llu", (unsigned long long)fig[r].readings);
                maybe_hundredths(f, fig[r].cpu_share_h);
                maybe_hundredths(f, fig[r].cpu_ms_h);
                maybe_hundredths(f, fig[r].busy_h);
                maybe_int(f, fig[r].p50_ms);
                maybe_int(f, fig[r].p95_ms);
                maybe_int(f, fig[r].p95_at_advice_ms);
                maybe_int(f, fig[r].mem_max);
                maybe_int(f, fig[r].censused ? (long long)fig[r].requests : -1); /* 20.6 */
                maybe_hundredths(f, fig[r].censused ? fig[r].rps_h : -1);
                fputs("\r\n", f);
            }
        }
    }
    return 0;
}
