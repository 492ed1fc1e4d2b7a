/* One round of the recorder: each pool's status page, PIDS and LISTEN, the
 * host's counters and files, the probes, then ROUND (docs/design.md). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "record.h"
#include "record_int.h"

#include "access.h"
#include "config.h"
#include "fcgi.h"
#include "fpmconf.h"
#include "fpmlog.h"
#include "logfile.h"
#include "masterconf.h"
#include "probe.h"
#include "procfs.h"
#include "procscan.h"
#include "records.h"
#include "sockdiag.h"
#include "workers.h"
#include "status.h"
#include "msg.h"
#include "version.h"


/* A POOL record of one pool, now. */
static void write_pool(recorder *r, const rec_pool *pool, uint64_t mono, uint64_t real)
{
    char p[16384];
    int n = snprintf(p, sizeof p, POOL_NAME "=%s\n" POOL_ENDPOINT "=%s\n" POOL_STATUS_PATH "=%s\n"
                              POOL_PM "=%s\n" POOL_MAX_CHILDREN "=%ld\n" POOL_OWN_URI "=%s\n"
                              POOL_LISTEN "=%s\n",
                     pool->c.name, config_status_endpoint(pool), pool->c.status_path,
                     pool->c.pm ? pool->c.pm : "-", pool->c.max_children, pool->c.status_path,
                     pool->c.endpoint ? pool->c.endpoint : "-");
    if (n > 0 && (size_t)n < sizeof p && pool->c.conf_file && pool->c.conf_line > 0) {
        int m = snprintf(p + n, sizeof p - (size_t)n, POOL_CONF_FILE "=%s\n" POOL_CONF_LINE
                         "=%ld\n" POOL_CONF_TEXT "=%s\n", pool->c.conf_file, pool->c.conf_line,
                         pool->c.conf_text);
        if (m > 0 && (size_t)m < sizeof p - (size_t)n)
            n += m;
    }
    if (n > 0 && (size_t)n < sizeof p && pool->c.access_log) { /* fpmlog(5), turn 7 */
        int m = snprintf(p + n, sizeof p - (size_t)n, POOL_ACCESS_LOG "=%s\n" POOL_ACCESS_FORMAT
                         "=%s\n", pool->c.access_log, pool->c.access_format);
        if (m > 0 && (size_t)m < sizeof p - (size_t)n)
            n += m;
    }
    if (n > 0 && (size_t)n < sizeof p)
        rec_add(r, rec_name(REC_POOL), mono, real, pool->c.name, p, (size_t)n);
}

pid_t rec_find_master(const rec_config *cfg, const char *pid_file, ps_table *table,
                      int *from_file)
{
    char *b;
    size_t n;
    pid_t master = 0;
    if (pid_file && ps_read_file(pid_file, &b, &n) == 0) {
        char *end;
        errno = 0;
        long v = strtol(b, &end, 10);
        if (!errno && end != b && v > 0 && v <= INT_MAX)
            master = (pid_t)v;
        free(b);
    }
    *from_file = master != 0;
    if (master)
        return master;
    /* the master of the first pool whose workers are in the table */
    ps_scan(cfg->proc_root, table);
    for (size_t i = 0; !master && i < cfg->npools; i++) {
        pid_t m = workers_only_master(table, cfg->pools[i].c.name);
        master = m > 0 ? m : 0;
    }
    return master ? master : table->master;
}

/* MemTotal of the host, 0 unknown: from the meminfo file a round keeps
 * open. */
static uint64_t mem_total(recorder *r)
{
    uint64_t v;
    long n = ps_kept_read(&r->meminfo_file);
    return n >= 0 && procfs_meminfo(r->meminfo_file.buf, (size_t)n, "MemTotal:", &v) == 0 ? v : 0;
}

/* The memory limit of the place: cgroup v2 memory.max, v1
 * memory.limit_in_bytes; 0 when none is a number (docs/rules.md 14.3). */
static uint64_t mem_limit(const cg_place *cg)
{
    const char *dir = cg->dir[CG_MEMORY];
    char path[4300], *b;
    size_t n;
    uint64_t v = 0;
    if (!dir[0])
        return 0;
    snprintf(path, sizeof path, "%s/%s", dir,
             cg->version == 2 ? "memory.max" : "memory.limit_in_bytes");
    if (ps_read_file(path, &b, &n) == 0) {
        if (procfs_first_u64(b, n, &v) != 0)
            v = 0; /* "max" */
        free(b);
    }
    return v;
}

/* The cgroup files a round reads (fpmlog(5) CGROUP): cgroup v2's cpu.stat,
 * cpu.max and cpu.pressure, and where memory.max is a number memory.max,
 * memory.stat and memory.events; v1's cpu.stat and cpuacct.usage, and
 * where the memory limit is below MemTotal memory.limit_in_bytes and
 * memory.stat. */
static void find_cgroup(recorder *r)
{
    r->quota_mc = 0;
    r->mem_limit = 0;
    int from_file;
    r->master = rec_find_master(r->cfg, r->pid_file, &r->table, &from_file);
    r->pid_master = from_file ? r->master : 0;
    for (size_t i = 0; i < REC_CG_FILES; i++)
        ps_kept_free(&r->cg_files[i]);
    r->ncg = 0;
    if (!r->master || cg_find(r->cfg->proc_root, r->cfg->sys_root, r->master, &r->cg) != 0) {
        memset(&r->cg, 0, sizeof r->cg);
        strcpy(r->cg.rel, "-");
        strcpy(r->cpus, "-");
        return;
    }
    cg_cpus(r->cfg->proc_root, r->master, r->cpus, sizeof r->cpus);
    r->quota_mc = cg_quota(&r->cg);
    uint64_t limit = mem_limit(&r->cg), total = mem_total(r);
    r->mem_limit = limit && total && limit < total ? limit : 0;
    int mem_files = r->cg.version == 2 ? limit > 0 : r->mem_limit > 0;
    static const struct { int version, ctrl; const char *name; } files[] = {
        {2, CG_CPU, "cpu.stat"}, {2, CG_CPU, "cpu.max"}, {2, CG_CPU, "cpu.pressure"},
        {2, CG_MEMORY, "memory.max"}, {2, CG_MEMORY, "memory.stat"},
        {2, CG_MEMORY, "memory.events"},
        {1, CG_CPU, "cpu.stat"}, {1, CG_CPUACCT, "cpuacct.usage"},
        {1, CG_MEMORY, "memory.limit_in_bytes"}, {1, CG_MEMORY, "memory.stat"}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        const char *dir = r->cg.dir[files[i].ctrl];
        if (files[i].version != r->cg.version || !dir[0] ||
            (files[i].ctrl == CG_MEMORY && !mem_files) || r->ncg == REC_CG_FILES)
            continue;
        /* a path that cannot be kept is a file not read */
        (void)ps_kept_set(&r->cg_files[r->ncg], dir, files[i].name);
        r->cg_names[r->ncg++] = files[i].name;
    }
}

void recorder_say_bounds(const rec_config *cfg, const char *pid_file, FILE *out)
{
    ps_table table = {0};
    int from_file;
    cg_place cg;
    char cpus[4200];
    pid_t master = rec_find_master(cfg, pid_file, &table, &from_file);
    ps_table_free(&table);
    if (!master || cg_find(cfg->proc_root, cfg->sys_root, master, &cg) != 0) {
        fprintf(out, "php-fpm's master: not found, so its cgroups and CPUs are unknown\n");
        return;
    }
    fprintf(out, "php-fpm's master: pid %d, cgroup %s%s\n", (int)master,
            cg.version == 1 ? "v1 " : cg.version == 2 ? "v2 " : "", cg.rel);
    procfs_cpuset set;
    long nproc = sysconf(_SC_NPROCESSORS_ONLN);
    if (cg_cpus(cfg->proc_root, master, cpus, sizeof cpus) == 0 &&
        procfs_cpulist(cpus, strlen(cpus), &set) == 0)
        fprintf(out, "php-fpm runs on CPUs %s of %ld%s\n", cpus, nproc,
                (long)set.n < nproc ? " (cpuset)" : "");
    else
        fprintf(out, "php-fpm's CPUs: unknown\n");
    uint64_t mc = cg_quota(&cg);
    if (mc)
        fprintf(out, "cgroup v%d quota %g cores\n", cg.version, (double)mc / 1000.0);
    else
        fprintf(out, "no CPU quota\n");
}

void rec_write_header(recorder *r)
{
    char p[8192];
    rec_config *cfg = r->cfg;
    ps_host_facts(cfg->proc_root, cfg->sys_root, &r->host);
    if (cfg->hostname)
        snprintf(r->host.hostname, sizeof r->host.hostname, "%s", cfg->hostname);
    find_cgroup(r);
    cg_sched sg;
    cg_sched_of(cfg->proc_root, r->master, &r->cg, &sg);
    uint64_t mono = MONO(r), real = REAL(r);
    int n = snprintf(p, sizeof p,
                     HOST_FORMAT "=1\n" HOST_RECORDER "=" PROG " " FPMCPU_VERSION "\n"
                     HOST_HOSTNAME "=%s\n" HOST_BOOT_ID "=%s\n" HOST_KERNEL "=%s\n"
                     HOST_NPROC "=%ld\n" HOST_CLK_TCK "=%ld\n" HOST_INTERVAL_MS "=%llu\n"
                     HOST_QUOTA_MC "=%llu\n" HOST_CGROUP "=%s\n" HOST_CLOCKSOURCE "=%s\n"
                     HOST_CPUS "=%s\n" HOST_CGROUP_VERSION "=%s\n" HOST_PAGE_SIZE "=%ld\n"
                     HOST_MEM_LIMIT "=%llu\n" HOST_AUTOGROUP "=%s\n" HOST_CPU_WEIGHT "=%s\n"
                     HOST_CPU_WEIGHT_KIND "=%s\n" HOST_CPU_CONTROLLER "=%s\n",
                     r->host.hostname, r->host.boot_id, r->host.kernel, r->host.nproc,
                     r->host.clk_tck, (unsigned long long)cfg->interval_ms,
                     (unsigned long long)r->quota_mc, r->cg.rel, r->host.clocksource, r->cpus,
                     r->cg.version == 1 ? "1" : r->cg.version == 2 ? "2" : "-",
                     sysconf(_SC_PAGESIZE), (unsigned long long)r->mem_limit, sg.autogroup,
                     sg.weight, sg.weight_kind, sg.controller);
    if (n < 0 || (size_t)n >= sizeof p)
        n = 0;
    rec_add(r, rec_name(REC_HOST), mono, real, NULL, p, (size_t)n);
    for (size_t i = 0; i < cfg->npools; i++)
        write_pool(r, &cfg->pools[i], mono, real);
}

void rec_note(recorder *r, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof text)
        n = (int)sizeof text - 1;
    rec_add(r, rec_name(REC_NOTE), MONO(r), REAL(r), NULL, text, (size_t)n);
}

/* The process table, scanned at most once a round: only when a pool has no
 * page to go by or its page names workers the table does not (a worker
 * spawned, exited or reused its pid), so a round does not cost a read of
 * every process's cmdline. */
static void scan_table(recorder *r)
{
    if (r->scanned)
        return;
    r->scanned = 1;
    if (ps_scan(r->cfg->proc_root, &r->table) != 0)
        r->table.any_fpm = 0;
}

/* A pool's status page over FastCGI: 1 with the page in resp, or 0 with
 * why in err (no answer, or an answer that is not a status page). */
static int fetch_status(const recorder *r, const rec_pool *pool, fcgi_response *resp, char *err,
                        size_t errlen)
{
    if (fcgi_get(config_status_endpoint(pool), pool->c.status_path, "json&full",
                 (int)r->cfg->timeout_ms, FCGI_MAX_BODY, resp, err, errlen) != 0)
        return 0;
    if (resp->status == 404)
        snprintf(err, errlen, "status page not found (HTTP 404 %.*s): \"%s\" is not the pool's "
                 "pm.status_path", (int)strcspn((char *)resp->body, "\r\n"), (char *)resp->body,
                 pool->c.status_path);
    else if (resp->status != 200)
        snprintf(err, errlen, "HTTP %d from the status page: %.*s", resp->status,
                 (int)strcspn((char *)resp->body, "\r\n"), (char *)resp->body);
    return resp->status == 200;
}

/* STATUS (its query strings cut with --redact-query) or ERROR, stamped
 * when the request was sent; an ERROR said once, until it answers again. */
static void write_status(recorder *r, rec_pool *pool, uint64_t mono, uint64_t real,
                         const fcgi_response *resp, int ok, const char *err)
{
    char *red = NULL;
    size_t rl;
    if (!ok)
        rec_add(r, rec_name(REC_ERROR), mono, real, pool->c.name, err, strlen(err));
    else if (r->cfg->redact &&
             status_redact_query((const char *)resp->body, resp->body_len, &red, &rl) == 0)
        rec_add(r, rec_name(REC_STATUS), mono, real, pool->c.name, red, rl);
    else
        rec_add(r, rec_name(REC_STATUS), mono, real, pool->c.name, resp->body, resp->body_len);
    free(red);
    int change = msg_changed(&pool->said_error, ok ? "" : "unreadable");
    if (change == MSG_GONE && !r->cfg->quiet)
        msg_warnx("pool %s: its status page answers again, after %llu round(s) of ERROR",
                  pool->c.name, (unsigned long long)pool->error_rounds);
    pool->error_rounds = ok ? 0 : pool->error_rounds + 1;
    if (change == MSG_NEW)
        msg_warnx("pool %s: could not read its status page: %s (an ERROR is recorded each round "
                  "until it answers)", pool->c.name, err);
}

/* STATM or SCHED (fpmlog(5)): the same workers' /proc/<pid>/statm (the
 * pages each holds, and how many of them it shares) or schedstat (the CPU
 * each ran and the time each waited for one), each line its pid first,
 * from the files fds keeps open.  None when none could be read (a kernel
 * without CONFIG_SCHED_INFO has no schedstat). */
static void write_per_worker(recorder *r, const rec_pool *pool, rec_type type, ps_stat_fds *fds,
                             char **buf, size_t *cap, const pid_t *pids, size_t n)
{
    size_t len = 0;
    uint64_t mono = MONO(r), real = REAL(r);
    if (ps_pid_stats(fds, r->cfg->proc_root, pids, n, buf, &len, cap) > 0)
        rec_add(r, rec_name(type), mono, real, pool->c.name, *buf, len);
}

/* PIDS, read right after the status: the pool's workers (by its page,
 * else the process table) and their /proc/<pid>/stat lines; a problem
 * finding them said once until it changes. */
static void write_pids(recorder *r, rec_pool *pool, const unsigned char *page, size_t plen)
{
    rec_config *cfg = r->cfg;
    pid_t *pids = NULL;
    char why[200];
    int parsed = page && status_parse(&r->page, (const char *)page, plen) == 0;
    if (!parsed || !workers_table_agrees(&r->table, pool->c.name, &r->page))
        scan_table(r); /* no page to go by, or the table is out of date */
    long n = workers_of_pool(&r->table, pool->c.name, parsed ? &r->page : NULL, r->pid_master,
                             &pool->master, &pids, why, sizeof why);
    size_t len = 0, got = 0;
    uint64_t mono = MONO(r), real = REAL(r);
    if (n > 0 && (got = ps_pid_stats(&r->fds, cfg->proc_root, pids, (size_t)n, &r->pidbuf, &len,
                                     &r->pidcap)) == 0)
        snprintf(why, sizeof why, "none of its %ld workers' stat files in %s can be read "
                 "(hidepid, or another pid namespace): no PIDS this round", n, cfg->proc_root);
    if (n >= 0 && (n == 0 || got > 0)) {
        rec_add(r, rec_name(REC_PIDS), mono, real, pool->c.name, r->pidbuf ? r->pidbuf : "", len);
        why[0] = '\0';
    }
    if (got > 0) {
        write_per_worker(r, pool, REC_STATM, &r->statm_fds, &r->statmbuf, &r->statmcap, pids,
                         (size_t)n);
        write_per_worker(r, pool, REC_SCHED, &r->sched_fds, &r->schedbuf, &r->schedcap, pids,
                         (size_t)n);
    }
    if (msg_changed(&pool->said_pids, why) == MSG_NEW) {
        msg_warnx("pool %s: %s", pool->c.name, why);
        rec_note(r, "pool %s: %s", pool->c.name, why);
    }
    /* the workers the next round's STATM0 reads */
    free(pool->known);
    pool->known = n > 0 && got > 0 ? pids : NULL;
    pool->nknown = n > 0 && got > 0 ? (size_t)n : 0;
    if (!pool->known)
        free(pids);
}

/* MASTER: the /proc/<pid>/stat lines of the php-fpm masters that own the
 * recorded pools (their workers' parent as found in the previous round, or
 * the one found at start), read before the pools' STATUS and PIDS, so a
 * master counts a worker's CPU only after the worker has left the PIDS.  A
 * master that cannot be read is left out; none read, no record. */
static void write_masters(recorder *r)
{
    pid_t m[64];
    size_t n = 0, len = 0;
    for (size_t i = 0; i < r->cfg->npools; i++) {
        pid_t p = r->cfg->pools[i].master > 0 ? r->cfg->pools[i].master : r->master;
        size_t k = 0;
        while (k < n && m[k] != p)
            k++;
        if (p > 0 && k == n && n < sizeof m / sizeof m[0])
            m[n++] = p;
    }
    if (!n)
        return;
    uint64_t mono = MONO(r), real = REAL(r);
    if (ps_pid_stats(&r->fds, r->cfg->proc_root, m, n, &r->masterbuf, &len, &r->mastercap) > 0)
        rec_add(r, rec_name(REC_MASTER), mono, real, NULL, r->masterbuf, len);
}

/* LISTEN, after the pools' PIDS: the kernel's accept queue and backlog of
 * each pool's own listen socket, where its visitors' requests wait, all
 * looked up at once; none for a pool whose socket is not found. */
static void write_listens(recorder *r)
{
    rec_config *cfg = r->cfg;
    sd_want *w = calloc(cfg->npools ? cfg->npools : 1, sizeof *w);
    if (!w)
        return;
    size_t n = 0;
    for (size_t i = 0; i < cfg->npools; i++) {
        w[n].sock_ino = cfg->pools[i].listen_ino; /* asked for alone, when known */
        w[n++].endpoint = cfg->pools[i].c.endpoint ? cfg->pools[i].c.endpoint : "-";
    }
    uint64_t mono = MONO(r), real = REAL(r);
    sd_lookup(w, n); /* what it could not ask about is not found */
    for (size_t i = 0; i < n; i++) {
        cfg->pools[i].listen_ino = w[i].found ? w[i].sock_ino : 0;
        if (!w[i].found)
            continue;
        char p[64];
        size_t len = fpmlog_kv_put(p, LISTEN_QUEUE, w[i].l.queue);
        len += fpmlog_kv_put(p + len, LISTEN_BACKLOG, w[i].l.backlog);
        rec_add(r, rec_name(REC_LISTEN), mono, real, cfg->pools[i].c.name, p, len);
    }
    free(w);
}

/* STATM0 (fpmlog(5)): the statm of the workers known from the pool's last
 * round, read just before its status page, so that with the STATM read
 * after it the page is bracketed (docs/rules.md 14.1). */
static void write_statm0(recorder *r, const rec_pool *pool)
{
    if (pool->nknown)
        write_per_worker(r, pool, REC_STATM0, &r->statm_fds, &r->statmbuf, &r->statmcap,
                         pool->known, pool->nknown);
}

static void read_pool(recorder *r, rec_pool *pool)
{
    fcgi_response resp = {0};
    char err[600] = "";
    write_statm0(r, pool);
    uint64_t mono = MONO(r), real = REAL(r);
    int ok = fetch_status(r, pool, &resp, err, sizeof err);
    write_status(r, pool, mono, real, &resp, ok, err);
    write_pids(r, pool, ok ? resp.body : NULL, ok ? resp.body_len : 0);
    free(resp.body);
}

/* --steal-probe: the probe on the next CPU in turn, as a STEAL record; a
 * failure is said once until it works again. */
static void steal_probe(recorder *r)
{
    if (r->nprobe_cpus == 0 && (r->nprobe_cpus = probe_cpus(r->probe_cpus, 1024)) == 0)
        r->probe_cpus[r->nprobe_cpus++] = 0;
    int cpu = r->probe_cpus[r->probe_turn++ % r->nprobe_cpus];
    probe_result pr;
    char err[256], p[512];
    if (probe_run(cpu, r->cfg->steal_probe_ms * 1000000ull, &pr, err, sizeof err) != 0) {
        if (msg_changed(&r->said_probe, err) == MSG_NEW && !r->cfg->quiet)
            msg_warnx("steal probe: %s", err);
        return;
    }
    msg_changed(&r->said_probe, "");
    size_t n = probe_format(&pr, p, sizeof p);
    rec_add(r, rec_name(REC_STEAL), MONO(r), REAL(r), NULL, p, n);
}

/* The clock check of this start, as a TIMING record after HOST. */
void rec_clock_check(recorder *r)
{
    clockcheck *c = malloc(sizeof *c);
    if (!c)
        return;
    uint64_t mono = MONO(r), real = REAL(r);
    clockcheck_run(c, 100000000ull); /* 100 ms */
    size_t n;
    char *p = clockcheck_format(c, &n);
    if (p)
        rec_add(r, rec_name(REC_TIMING), mono, real, NULL, p, n);
    free(p);
    free(c);
    r->timed = 1;
}

/* A kept file as a record of that type, stamped when read; nothing when it
 * cannot be read. */
static void add_kept(recorder *r, rec_type type, const char *source, ps_kept *k)
{
    uint64_t mono = MONO(r), real = REAL(r);
    long n = ps_kept_read(k);
    if (n >= 0)
        rec_add(r, rec_name(type), mono, real, source, k->buf, (size_t)n);
}

/* MEMINFO: the lines of /proc/meminfo the memory rules read, verbatim
 * (fpmlog(5)). */
static void add_meminfo(recorder *r)
{
    static const char *const keys[] = {"MemTotal:", "MemFree:", "MemAvailable:", "Shmem:",
                                       "SwapTotal:", "SwapFree:"};
    uint64_t mono = MONO(r), real = REAL(r);
    long n = ps_kept_read(&r->meminfo_file);
    if (n < 0)
        return;
    char *b = r->meminfo_file.buf, *out = b;
    size_t len = (size_t)n, i = 0, o = 0;
    while (i < len) { /* the kept lines moved to the front, in place */
        const char *nl = memchr(b + i, '\n', len - i);
        size_t ll = nl ? (size_t)(nl - (b + i)) + 1 : len - i;
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            if (ll >= strlen(keys[k]) && memcmp(b + i, keys[k], strlen(keys[k])) == 0) {
                memmove(out + o, b + i, ll);
                o += ll;
                break;
            }
        i += ll;
    }
    rec_add(r, rec_name(REC_MEMINFO), mono, real, NULL, out, o);
}

/* --pool without --fpm-config: once per master, a pool's max_children and
 * own listen socket from the configuration its master runs with, and a
 * POOL record again when they were new. */
static void discover_pools(recorder *r)
{
    for (size_t i = 0; !r->cfg->fpm_config && i < r->cfg->npools; i++) {
        rec_pool *pool = &r->cfg->pools[i];
        if (pool->master <= 0 || pool->conf_master == pool->master)
            continue;
        pool->conf_master = pool->master;
        char path[4096];
        if (mc_config_of(r->cfg->proc_root, pool->master, path, sizeof path) == 0 &&
            mc_fill_pool(path, &pool->c) == 1) {
            write_pool(r, pool, MONO(r), REAL(r));
            if (pool->c.access_log && access_setup(r) != 0)
                msg_warnx("out of memory: the access logs are not followed");
        }
    }
}

void rec_do_round(recorder *r)
{
    rec_config *cfg = r->cfg;
    uint64_t t0 = MONO(r);
    if (r->rewrite_header) { /* a failed write may have taken them */
        rec_write_header(r);
        rec_note(r, "writing again after a write error");
    }
    r->scanned = 0;
    write_masters(r);
    for (size_t i = 0; i < cfg->npools; i++)
        read_pool(r, &cfg->pools[i]);
    discover_pools(r);
    write_listens(r);
    access_round(r); /* after every pool's other records */
    uint64_t mono = MONO(r), real = REAL(r);
    long n = ps_kept_read(&r->stat_file);
    if (n >= 0) {
        rec_add(r, rec_name(REC_STAT), mono, real, NULL, r->stat_file.buf,
            ps_cpu_lines_in(r->stat_file.buf, (size_t)n));
        r->last_stat = mono;
    }
    add_meminfo(r);
    add_kept(r, REC_PRESSURE, NULL, &r->pressure_file); /* where the host has it */
    for (size_t i = 0; i < r->ncg; i++)
        add_kept(r, REC_CGROUP, r->cg_names[i], &r->cg_files[i]);
    ps_stat_fds_sweep(&r->fds); /* the workers gone since the last round */
    ps_stat_fds_sweep(&r->sched_fds);
    ps_stat_fds_sweep(&r->statm_fds);
    if (cfg->steal_probe_ms)
        steal_probe(r);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    uint64_t self = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000ull +
                    (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    mono = MONO(r);
    real = REAL(r);
    char p[128];
    size_t len = fpmlog_kv_put(p, ROUND_SEQ, ++r->seq);
    len += fpmlog_kv_put(p + len, ROUND_TOOK_US, (mono - t0) / 1000);
    len += fpmlog_kv_put(p + len, ROUND_SELF_CPU_US, self);
    rec_add(r, rec_name(REC_ROUND), mono, real, NULL, p, len);
    int end = mono - r->frame_start >= FPMLOG_FRAME_NS || logfile_frame_bytes(r->log) >= cfg->frame_bytes;
    if (rec_commit(r, end, 1) == 0)
        access_save(r); /* where each access log stands, once its lines are written */
    if (end)
        r->frame_start = mono;
}

