/* Builds HOST, POOL and rounds by hand for the pipeline tests. */
#ifndef PIPELINE_HARNESS_H
#define PIPELINE_HARNESS_H

#include "msg.h"
#include "pipeline.h"
#include "replay.h"
#include "testlib.h"
#include "whatif.h"

#include <stdarg.h>

#define NS 1000000000ull

/* The run's answers of pl in sc, decided as fpm-analyze decides them once
 * a run (whatif_answers); the caller frees them. */
static inline wi_answers th_answers(const pipeline *pl, const wi_scenario *sc)
{
    wi_answers a;
    assert_int_equal(whatif_answers(pl, sc, &a), 0);
    return a;
}

/* HOST with more lines (key=value\n...) after the usual ones, or NULL. */
static inline void th_host_with(pipeline *pl, const char *name, int nproc, const char *boot,
                                int quota, const char *more)
{
    buf b = {0};
    buf_printf(&b, "format=1\nrecorder=test 0\nhostname=%s\nboot_id=%s\nkernel=6.1\n", name, boot);
    if (nproc >= 0)
        buf_printf(&b, "nproc=%d\n", nproc);
    buf_printf(&b, "clk_tck=100\ninterval_ms=30000\ncpu_quota_millicores=%d\ncgroup=-\n"
                   "clocksource=tsc\n%s", quota, more ? more : "");
    assert_int_equal(pipeline_host(pl, (unsigned char *)b.p, b.n), 0);
    buf_free(&b);
}

static inline void th_host(pipeline *pl, const char *name, int nproc, const char *boot, int quota)
{
    th_host_with(pl, name, nproc, boot, quota, NULL);
}

static inline void th_pool(pipeline *pl, const char *name, int max_children, const char *own)
{
    buf b = {0};
    buf_printf(&b, "name=%s\nendpoint=unix:/run/x.sock\nstatus_path=/status\npm=static\n"
                   "max_children=%d\n", name, max_children);
    if (own)
        buf_printf(&b, "own_uri=%s\n", own);
    assert_int_equal(pipeline_pool(pl, name, strlen(name), (unsigned char *)b.p, b.n), 0);
    buf_free(&b);
}

typedef struct {
    char name[32];
    int  has_status, is_error, has_pids, has_listen, has_statm, has_statm0, has_sched;
    int  has_access;
    buf  status, pids, listen, statm, statm0, sched, access;
} th_pool_round;

typedef struct {
    uint64_t      real;
    int           has_stat, has_cg, has_cg_pressure, has_pressure, has_steal, has_master;
    int           has_cpuacct, has_meminfo, has_mem_stat;
    uint64_t      mono;
    buf           stat, cg, cg_pressure, pressure, steal, master, cpuacct, meminfo, mem_stat;
    int           n;
    th_pool_round p[8];
} th_round;

/* A round whose STAT was read at t seconds with the host's busy counter. */
static inline th_round *th_round_at(double t, unsigned long long busy_ticks)
{
    th_round *r = calloc(1, sizeof *r);
    r->real = 1800000000ull * NS + (uint64_t)(t * 1e9);
    r->has_stat = 1;
    r->mono = (uint64_t)(t * 1e9);
    stat_text(&r->stat, busy_ticks, 1000000);
    return r;
}

static inline th_pool_round *th_p(th_round *r, const char *name)
{
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->p[i].name, name) == 0)
            return &r->p[i];
    if (r->n >= (int)(sizeof r->p / sizeof r->p[0]))
        fail_msg("th_p: more than %zu pools in a round", sizeof r->p / sizeof r->p[0]);
    th_pool_round *p = &r->p[r->n++];
    snprintf(p->name, sizeof p->name, "%s", name);
    return p;
}

static inline void th_status(th_round *r, const char *pool, long long lq, const tworker *w, size_t n)
{
    th_pool_round *p = th_p(r, pool);
    p->has_status = 1;
    p->is_error = 0;
    p->status.n = 0;
    status_page_text(&p->status, pool, lq, w, n);
}

static inline void th_page(th_round *r, const char *pool, const char *raw, int is_error)
{
    th_pool_round *p = th_p(r, pool);
    p->has_status = 1;
    p->is_error = is_error;
    p->status.n = 0;
    buf_add(&p->status, raw, strlen(raw));
}

/* PIDS of a pool: n pairs of (pid, ticks); n = 0 is an empty payload. */
static inline void th_pids(th_round *r, const char *pool, int n, ...)
{
    th_pool_round *p = th_p(r, pool);
    va_list ap;
    p->has_pids = 1;
    p->pids.n = 0;
    buf_add(&p->pids, "", 0);
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        long long pid = va_arg(ap, long long);
        unsigned long long ticks = va_arg(ap, unsigned long long);
        pid_stat_line(&p->pids, pid, ticks);
    }
    va_end(ap);
}

/* PIDS of a pool with the workers' parents and start times: n of (pid,
 * ppid, ticks, start), start < 0 a line without field 22. */
static inline void th_workers(th_round *r, const char *pool, int n, ...)
{
    th_pool_round *p = th_p(r, pool);
    va_list ap;
    p->has_pids = 1;
    p->pids.n = 0;
    buf_add(&p->pids, "", 0);
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        long long pid = va_arg(ap, long long), ppid = va_arg(ap, long long);
        unsigned long long ticks = va_arg(ap, unsigned long long);
        long long start = va_arg(ap, long long);
        proc_stat_line(&p->pids, pid, ppid, ticks, 0, start);
    }
    va_end(ap);
}

/* MASTER of the round: n of (pid, cutime + cstime, start). */
static inline void th_master(th_round *r, int n, ...)
{
    va_list ap;
    r->has_master = 1;
    r->master.n = 0;
    buf_add(&r->master, "", 0);
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        long long pid = va_arg(ap, long long);
        unsigned long long child = va_arg(ap, unsigned long long);
        long long start = va_arg(ap, long long);
        proc_stat_line(&r->master, pid, 1, child + 4, child, start);
    }
    va_end(ap);
}

/* SCHED of a pool: n of (pid, cpu_ns, run_delay_ns). */
static inline void th_sched(th_round *r, const char *pool, int n, ...)
{
    th_pool_round *p = th_p(r, pool);
    va_list ap;
    p->has_sched = 1;
    p->sched.n = 0;
    buf_add(&p->sched, "", 0);
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        long long pid = va_arg(ap, long long);
        unsigned long long cpu = va_arg(ap, unsigned long long);
        unsigned long long delay = va_arg(ap, unsigned long long);
        buf_printf(&p->sched, "%lld %llu %llu 7\n", pid, cpu, delay);
    }
    va_end(ap);
}

/* ACCESS of a pool: the lines given (each with its \n), appended to what
 * the round has of it already (a round merged from two). */
static inline void th_access(th_round *r, const char *pool, const char *lines)
{
    th_pool_round *p = th_p(r, pool);
    p->has_access = 1;
    buf_add(&p->access, lines, strlen(lines));
}

/* POOL of a pool with its access log and format (20.1). */
static inline void th_pool_access(pipeline *pl, const char *name, int max_children,
                                  const char *log, const char *format)
{
    buf b = {0};
    buf_printf(&b, "name=%s\nendpoint=unix:/run/x.sock\nstatus_path=/status\npm=static\n"
                   "max_children=%d\naccess_log=%s\naccess_format=%s\n", name, max_children,
               log, format);
    assert_int_equal(pipeline_pool(pl, name, strlen(name), (unsigned char *)b.p, b.n), 0);
    buf_free(&b);
}

/* LISTEN of a pool: the kernel's queue and backlog. */
static inline void th_listen(th_round *r, const char *pool, long long queue, long long backlog)
{
    th_pool_round *p = th_p(r, pool);
    p->has_listen = 1;
    p->listen.n = 0;
    buf_printf(&p->listen, "queue=%lld\nbacklog=%lld\n", queue, backlog);
}

static inline void th_cgroup_usage(th_round *r, unsigned long long usec)
{
    r->has_cg = 1;
    r->cg.n = 0;
    buf_printf(&r->cg, "usage_usec %llu\nuser_usec 0\nsystem_usec 0\n", usec);
}

/* The STAT of a round: busy ticks with steal among them, and idle. */
static inline void th_stat_steal(th_round *r, unsigned long long busy, unsigned long long steal,
                                 unsigned long long idle)
{
    r->stat.n = 0;
    buf_printf(&r->stat, "cpu  %llu 0 0 %llu 0 0 0 %llu 0 0\n", busy - steal, idle, steal);
}

/* cgroup v1: cpuacct.usage in ns, and cpu.stat's throttling counters */
static inline void th_cgroup_v1(th_round *r, unsigned long long usage_ns,
                                unsigned long long periods, unsigned long long throttled,
                                unsigned long long throttled_ns)
{
    r->has_cpuacct = 1;
    r->cpuacct.n = 0;
    buf_printf(&r->cpuacct, "%llu\n", usage_ns);
    r->has_cg = 1;
    r->cg.n = 0;
    buf_printf(&r->cg, "nr_periods %llu\nnr_throttled %llu\nthrottled_time %llu\n", periods,
               throttled, throttled_ns);
}

/* STAT with a cpu line and n cpuN lines: CPU k busy busy[k] ticks (with
 * steal[k] among them, NULL none) and idle idle[k]; no line for a CPU whose
 * busy is -1.  The cpu line sums them all. */
static inline void th_stat_cpus(th_round *r, int n, const long long *busy,
                                const long long *steal, const long long *idle)
{
    long long tb = 0, ts = 0, ti = 0;
    for (int k = 0; k < n; k++)
        if (busy[k] >= 0)
            tb += busy[k], ts += steal ? steal[k] : 0, ti += idle[k];
    r->has_stat = 1;
    r->stat.n = 0;
    buf_printf(&r->stat, "cpu  %lld 0 0 %lld 0 0 0 %lld 0 0\n", tb - ts, ti, ts);
    for (int k = 0; k < n; k++)
        if (busy[k] >= 0)
            buf_printf(&r->stat, "cpu%d %lld 0 0 %lld 0 0 0 %lld 0 0\n", k,
                       busy[k] - (steal ? steal[k] : 0), idle[k], steal ? steal[k] : 0);
}

/* cgroup cpu.stat with the throttling counters */
static inline void th_cgroup_throttle(th_round *r, unsigned long long usec,
                                      unsigned long long periods, unsigned long long throttled,
                                      unsigned long long throttled_usec)
{
    r->has_cg = 1;
    r->cg.n = 0;
    buf_printf(&r->cg, "usage_usec %llu\nuser_usec 0\nsystem_usec 0\nnr_periods %llu\n"
                       "nr_throttled %llu\nthrottled_usec %llu\n", usec, periods, throttled,
               throttled_usec);
}

/* a pressure file's text with the some line's total */
static inline void th_psi(buf *b, unsigned long long total)
{
    b->n = 0;
    buf_printf(b, "some avg10=0.00 avg60=0.00 avg300=0.00 total=%llu\n"
                  "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", total);
}

static inline void th_pressure(th_round *r, unsigned long long total)
{
    r->has_pressure = 1;
    th_psi(&r->pressure, total);
}

static inline void th_cg_pressure(th_round *r, unsigned long long total)
{
    r->has_cg_pressure = 1;
    th_psi(&r->cg_pressure, total);
}

/* a STEAL record's payload, as given */
static inline void th_steal(th_round *r, const char *kv)
{
    r->has_steal = 1;
    r->steal.n = 0;
    buf_add(&r->steal, kv, strlen(kv));
}

/* Feeds the round to the pipeline and frees it; returns pipeline_round's. */
static inline int th_run(pipeline *pl, th_round *r)
{
    pl_pool_round pr[8];
    for (int i = 0; i < r->n; i++) {
        th_pool_round *p = &r->p[i]; /* a record it has is never NULL, even when empty */
        const char *st = p->has_status ? (p->status.p ? p->status.p : "") : NULL;
        const char *pi = p->has_pids ? (p->pids.p ? p->pids.p : "") : NULL;
        pr[i] = pl_pool_round_of(p->name, strlen(p->name), (const unsigned char *)st,
                                 p->status.n, p->is_error, (const unsigned char *)pi, p->pids.n);
        if (p->has_listen) {
            pr[i].has_listen = 1;
            pr[i].listen = (const unsigned char *)p->listen.p;
            pr[i].listen_len = p->listen.n;
        }
        if (p->has_statm) {
            pr[i].has_statm = 1;
            pr[i].statm = (const unsigned char *)(p->statm.p ? p->statm.p : "");
            pr[i].statm_len = p->statm.n;
        }
        if (p->has_sched) {
            pr[i].has_sched = 1;
            pr[i].sched = (const unsigned char *)(p->sched.p ? p->sched.p : "");
            pr[i].sched_len = p->sched.n;
        }
        if (p->has_statm0) {
            pr[i].has_statm0 = 1;
            pr[i].statm0 = (const unsigned char *)(p->statm0.p ? p->statm0.p : "");
            pr[i].statm0_len = p->statm0.n;
        }
        if (p->has_access) {
            pr[i].has_access = 1;
            pr[i].access = (const unsigned char *)(p->access.p ? p->access.p : "");
            pr[i].access_len = p->access.n;
        }
    }
    pl_round round = {.real = r->real, .mono = r->mono, .stat_mono = r->mono, .pools = pr,
                      .npools = (size_t)r->n};
    const int has[PL_NREC] = {[PL_REC_STAT] = r->has_stat, [PL_REC_CPU_STAT] = r->has_cg,
                              [PL_REC_CPUACCT] = r->has_cpuacct,
                              [PL_REC_CPU_PRESSURE] = r->has_cg_pressure,
                              [PL_REC_PRESSURE] = r->has_pressure, [PL_REC_STEAL] = r->has_steal,
                              [PL_REC_MASTER] = r->has_master, [PL_REC_MEMINFO] = r->has_meminfo,
                              [PL_REC_MEM_STAT] = r->has_mem_stat};
    const buf *rec[PL_NREC] = {[PL_REC_STAT] = &r->stat, [PL_REC_CPU_STAT] = &r->cg,
                               [PL_REC_CPUACCT] = &r->cpuacct,
                               [PL_REC_CPU_PRESSURE] = &r->cg_pressure,
                               [PL_REC_PRESSURE] = &r->pressure, [PL_REC_STEAL] = &r->steal,
                               [PL_REC_MASTER] = &r->master, [PL_REC_MEMINFO] = &r->meminfo,
                               [PL_REC_MEM_STAT] = &r->mem_stat};
    for (int k = 0; k < PL_NREC; k++)
        round.rec[k] = (pl_host_rec){has[k], (const unsigned char *)rec[k]->p, rec[k]->n};
    int rc = pipeline_round(pl, &round);
    for (int i = 0; i < r->n; i++) {
        buf_free(&r->p[i].status);
        buf_free(&r->p[i].pids);
        buf_free(&r->p[i].listen);
        buf_free(&r->p[i].statm);
        buf_free(&r->p[i].statm0);
        buf_free(&r->p[i].sched);
        buf_free(&r->p[i].access);
    }
    buf_free(&r->meminfo);
    buf_free(&r->mem_stat);
    buf_free(&r->stat);
    buf_free(&r->cg);
    buf_free(&r->cg_pressure);
    buf_free(&r->cpuacct);
    buf_free(&r->pressure);
    buf_free(&r->steal);
    buf_free(&r->master);
    free(r);
    return rc;
}

static inline pl_host *th_find_host(pipeline *pl, const char *host)
{
    pl_host *const *hs;
    size_t n = pipeline_hosts(pl, &hs);
    for (size_t i = 0; i < n; i++)
        if (strcmp(hs[i]->hostname, host) == 0)
            return hs[i];
    return NULL;
}

static inline pl_pool *th_find(pipeline *pl, const char *host, const char *pool)
{
    pl_host *h = th_find_host(pl, host);
    for (size_t i = 0; h && i < h->npools; i++)
        if (strcmp(h->pools[i]->name, pool) == 0)
            return h->pools[i];
    return NULL;
}

/* Replays the log at path into pl on one thread, its messages dropped. */
static inline void th_replay_quiet(pipeline *pl, const char *path)
{
    FILE *quiet = fopen("/dev/null", "w");
    msg_stream(quiet);
    replay *r = replay_new(pl, 1);
    assert_int_equal(replay_file(r, path, 0), 0);
    replay_free(r);
    msg_stream(NULL);
    fclose(quiet);
}

#endif
