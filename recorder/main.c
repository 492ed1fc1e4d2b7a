/* fpm-record: reads php-fpm's status pages and the CPU counters every
 * interval and appends them, raw, to an fpmlog. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "fcgi.h"
#include "fpmconf.h"
#include "logfile.h"
#include "procfs.h"
#include "procscan.h"
#include "status.h"
#include "msg.h"
#include "version.h"

#define PROG "fpm-record"
#define HOUR_NS (3600ull * 1000000000ull)

typedef struct {
    char *name, *endpoint, *status_path, *status_endpoint, *pm;
    long  max_children;
} pool;

typedef struct {
    pool       *pools;
    size_t      npools;
    const char *fpm_config;
    const char *output;
    uint64_t    interval_ms, timeout_ms, duration_ms;
    long        rounds;
    int         redact, check, level, quiet;
    const char *proc_root, *sys_root;
} config;

static volatile sig_atomic_t stop_signal, hup;

static void on_stop(int sig) { stop_signal = sig; }
static void on_hup(int sig) { (void)sig; hup = 1; }

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    va_list ap;
    fputs(PROG ": ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void usage(FILE *out)
{
    fprintf(out,
"Usage: " PROG " (--pool NAME=ENDPOINT[,status=PATH] ... | --fpm-config FILE) -o LOG [OPTION]...\n"
"Every interval, reads each php-fpm pool's full status page over FastCGI, its\n"
"workers' /proc/<pid>/stat, /proc/stat and php-fpm's cgroup CPU files, and\n"
"appends them raw to LOG (zstd, flushed every round, mode 0600).\n"
"\n"
"  -p, --pool NAME=ENDPOINT[,status=PATH][,status_listen=ENDPOINT]\n"
"                          a pool (repeatable); ENDPOINT is unix:/path or\n"
"                          tcp:host:port; PATH defaults to /status\n"
"  -c, --fpm-config FILE   find the pools in php-fpm's configuration\n"
"  -o, --output LOG        the log to append to\n"
"  -i, --interval D        time between rounds, from 1s (default 30s; 5s, 1m)\n"
"  -t, --timeout D         connect and read timeout per pool (default 5s)\n"
"  -r, --rounds N          stop after N rounds\n"
"  -d, --duration D        stop after D\n"
"      --redact-query      strip query strings from the URIs written\n"
"      --level N           zstd level 1..19, 0 writes plain records (default 3)\n"
"  -n, --check-config      check the pools, read one status page each, and exit\n"
"  -q, --quiet             no notes on standard error, only problems\n"
"      --proc-root DIR     read /proc from DIR (tests)\n"
"      --sys-root DIR      read /sys from DIR (tests)\n"
"  -h, --help              print this help and exit\n"
"  -V, --version           print the version and exit\n"
"\n"
"SIGHUP reopens LOG (logrotate with create) and re-reads the pools;\n"
"SIGTERM and SIGINT finish the round, end the frame and exit 0.\n"
"Exit status: 0 ok, 1 a check failed, 2 usage error or LOG unusable.\n");
}

#define bad_usage(...) msg_usage(PROG, __VA_ARGS__)

/* "30s", "1m", "2h", "500ms", or bare seconds; 0 ok with *ms. */
static int parse_duration(const char *s, uint64_t *ms)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || s[0] == '-')
        return -1;
    uint64_t mult;
    if (*end == '\0' || strcmp(end, "s") == 0)
        mult = 1000;
    else if (strcmp(end, "ms") == 0)
        mult = 1;
    else if (strcmp(end, "m") == 0)
        mult = 60000;
    else if (strcmp(end, "h") == 0)
        mult = 3600000;
    else if (strcmp(end, "d") == 0)
        mult = 86400000;
    else
        return -1;
    if (v > UINT64_MAX / mult / 1000000)
        return -1;
    *ms = v * mult;
    return 0;
}

static void pool_free_fields(pool *p)
{
    free(p->name);
    free(p->endpoint);
    free(p->status_path);
    free(p->status_endpoint);
    free(p->pm);
}

static void pools_free(pool *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        pool_free_fields(&p[i]);
    free(p);
}

static int add_pool(config *cfg, pool p)
{
    for (size_t i = 0; i < cfg->npools; i++)
        if (strcmp(cfg->pools[i].name, p.name) == 0)
            return -1;
    pool *np = realloc(cfg->pools, (cfg->npools + 1) * sizeof *np);
    if (!np)
        return -1;
    cfg->pools = np;
    cfg->pools[cfg->npools++] = p;
    return 0;
}

/* An endpoint as written on the command line: unix:/path, tcp:host:port,
 * or what php-fpm's listen accepts (/path, port, host:port).  0 ok. */
static int endpoint_arg(const char *s, char *out, size_t outlen)
{
    if (strncmp(s, "unix:", 5) == 0)
        return s[5] == '/' && snprintf(out, outlen, "%s", s) < (int)outlen ? 0 : -1;
    const char *hp = strncmp(s, "tcp:", 4) == 0 ? s + 4 : s;
    if (hp == s && s[0] == '/')
        return fpmconf_endpoint(s, out, outlen);
    const char *colon = strrchr(hp, ':');
    const char *port = colon ? colon + 1 : hp;
    if (!*port || strspn(port, "0123456789") != strlen(port) || atol(port) > 65535 ||
        (colon && (colon == hp || strchr(hp, '/'))))
        return -1;
    if (hp != s)
        return snprintf(out, outlen, "%s", s) < (int)outlen ? 0 : -1;
    return fpmconf_endpoint(s, out, outlen);
}

/* --pool NAME=ENDPOINT[,status=PATH][,status_listen=ENDPOINT] */
static int parse_pool(const char *arg, pool *p)
{
    memset(p, 0, sizeof *p);
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg)
        return -1;
    char *rest = strdup(eq + 1), *save = NULL;
    p->name = strndup(arg, (size_t)(eq - arg));
    char ep[4200];
    for (char *tok = strtok_r(rest, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (strncmp(tok, "status=", 7) == 0 && tok[7] == '/') {
            p->status_path = strdup(tok + 7);
        } else if (strncmp(tok, "status_listen=", 14) == 0) {
            if (endpoint_arg(tok + 14, ep, sizeof ep) != 0)
                goto bad;
            p->status_endpoint = strdup(ep);
        } else if (!p->endpoint && endpoint_arg(tok, ep, sizeof ep) == 0) {
            p->endpoint = strdup(ep);
        } else {
            goto bad;
        }
    }
    free(rest);
    if (!p->endpoint || !p->name)
        return -1;
    if (!p->status_path)
        p->status_path = strdup("/status");
    return 0;
bad:
    free(rest);
    pool_free_fields(p);
    return -1;
}

/* Pools from php-fpm's configuration; those without a status path are
 * reported and skipped.  0 ok, -1 (said). */
static int pools_from_config(config *cfg, char **pid_file)
{
    fpmconf c;
    char err[512];
    if (fpmconf_load(cfg->fpm_config, &c, err, sizeof err) != 0) {
        say("%s", err);
        return -1;
    }
    for (size_t i = 0; i < c.n; i++) {
        fpmconf_pool *fp = &c.pools[i];
        if (!fp->status_path) {
            say("%s: pool \"%s\" has no pm.status_path: skipped", cfg->fpm_config, fp->name);
            continue;
        }
        if (!fp->endpoint && !fp->status_endpoint) {
            say("%s: pool \"%s\" has no listen address: skipped", cfg->fpm_config, fp->name);
            continue;
        }
        pool p = {strdup(fp->name), fp->endpoint ? strdup(fp->endpoint) : strdup(fp->status_endpoint),
                  strdup(fp->status_path), fp->status_endpoint ? strdup(fp->status_endpoint) : NULL,
                  fp->pm ? strdup(fp->pm) : NULL, fp->max_children};
        if (add_pool(cfg, p) != 0)
            pool_free_fields(&p);
    }
    if (pid_file && c.pid_file)
        *pid_file = strdup(c.pid_file);
    fpmconf_free(&c);
    if (cfg->npools == 0) {
        say("%s: no pool with a status path: nothing to record", cfg->fpm_config);
        return -1;
    }
    return 0;
}

static int handle_args(int argc, char **argv, config *cfg)
{
    enum { O_REDACT = 256, O_LEVEL, O_PROC, O_SYS };
    static const struct option longopts[] = {
        {"pool", required_argument, NULL, 'p'}, {"fpm-config", required_argument, NULL, 'c'},
        {"output", required_argument, NULL, 'o'}, {"interval", required_argument, NULL, 'i'},
        {"timeout", required_argument, NULL, 't'}, {"rounds", required_argument, NULL, 'r'},
        {"duration", required_argument, NULL, 'd'}, {"redact-query", no_argument, NULL, O_REDACT},
        {"level", required_argument, NULL, O_LEVEL}, {"check-config", no_argument, NULL, 'n'},
        {"quiet", no_argument, NULL, 'q'}, {"proc-root", required_argument, NULL, O_PROC},
        {"sys-root", required_argument, NULL, O_SYS}, {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'}, {NULL, 0, NULL, 0},
    };
    cfg->interval_ms = 30000;
    cfg->timeout_ms = 5000;
    cfg->level = 3;
    cfg->proc_root = "/proc";
    cfg->sys_root = "/sys";
    opterr = 0;
    int c;
    char *end;
    pool p;
    while ((c = getopt_long(argc, argv, ":p:c:o:i:t:r:d:nqhV", longopts, NULL)) != -1) {
        switch (c) {
        case 'p':
            if (parse_pool(optarg, &p) != 0)
                return bad_usage("--pool wants NAME=ENDPOINT[,status=PATH][,status_listen=ENDPOINT] "
                                 "with ENDPOINT unix:/path or tcp:host:port, not \"%s\"", optarg);
            if (add_pool(cfg, p) != 0) {
                pool_free_fields(&p);
                return bad_usage("pool \"%s\" is given twice", optarg);
            }
            break;
        case 'c': cfg->fpm_config = optarg; break;
        case 'o': cfg->output = optarg; break;
        case 'i':
            if (parse_duration(optarg, &cfg->interval_ms) || cfg->interval_ms < 1000)
                return bad_usage("--interval must be a duration of at least 1s (5s, 1m), not \"%s\"",
                                 optarg);
            break;
        case 't':
            if (parse_duration(optarg, &cfg->timeout_ms) || cfg->timeout_ms < 100 ||
                cfg->timeout_ms > 600000)
                return bad_usage("--timeout must be a duration from 100ms to 10m, not \"%s\"", optarg);
            break;
        case 'd':
            if (parse_duration(optarg, &cfg->duration_ms) || cfg->duration_ms == 0)
                return bad_usage("--duration must be a duration (90s, 10m, 1h), not \"%s\"", optarg);
            break;
        case 'r':
            errno = 0;
            cfg->rounds = strtol(optarg, &end, 10);
            if (errno || *end || end == optarg || cfg->rounds < 1)
                return bad_usage("--rounds must be a whole number from 1, not \"%s\"", optarg);
            break;
        case O_LEVEL:
            errno = 0;
            cfg->level = (int)strtol(optarg, &end, 10);
            if (errno || *end || end == optarg || cfg->level < 0 || cfg->level > 19)
                return bad_usage("--level must be in range 0..19, not \"%s\"", optarg);
            break;
        case O_REDACT: cfg->redact = 1; break;
        case 'n': cfg->check = 1; break;
        case 'q': cfg->quiet = 1; break;
        case O_PROC: cfg->proc_root = optarg; break;
        case O_SYS: cfg->sys_root = optarg; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf(PROG " " FPMCPU_VERSION "\n"); return 0;
        case ':': return bad_usage("option \"%s\" needs an argument", argv[optind - 1]);
        default: return bad_usage("unknown option \"%s\"", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return bad_usage("unexpected argument \"%s\"", argv[optind]);
    if (cfg->npools == 0 && !cfg->fpm_config)
        return bad_usage("no pool: give --pool NAME=ENDPOINT or --fpm-config FILE");
    if (!cfg->output && !cfg->check)
        return bad_usage("no log: give -o LOG");
    return -1;
}

/* ------------------------------------------------------------------ a round */

typedef struct {
    config        *cfg;
    logfile       *log;
    ps_table       table;
    ps_host        host;
    char           cgroup_dir[4200], cgroup_rel[4200];
    uint64_t       quota_mc;
    pid_t          master;
    char          *pid_file;
    uint64_t       seq, frame_start;
    int            write_errno;     /* the last write error said, 0 when writing */
    int            rewrite_header;  /* HOST and POOL may be lost: write them again */
    uint64_t       lost_rounds;
    status_page    page;
    char          *pidbuf;
    size_t         pidcap;
} recorder;

static void add(recorder *r, const char *type, uint64_t mono, uint64_t real, const char *src,
                const void *payload, size_t len)
{
    if (logfile_add(r->log, type, mono, real, src, src ? strlen(src) : 0, payload, len) != 0 &&
        errno == ENOMEM)
        say("%s: out of memory: a %s record is lost", r->cfg->output, type);
}

/* Writes what was added; says a write error once per kind, and when
 * writing works again. */
static void commit(recorder *r, int end_frame, int is_round)
{
    if (logfile_commit(r->log, end_frame) != 0) {
        r->rewrite_header = 1;
        if (errno != r->write_errno)
            say("%s: could not write: %s (rounds are lost until it can write again)",
                r->cfg->output, strerror(errno));
        r->write_errno = errno;
        r->lost_rounds += is_round;
        return;
    }
    r->rewrite_header = 0;
    if (r->write_errno) {
        say("%s: writing again; %llu round(s) were lost", r->cfg->output,
            (unsigned long long)r->lost_rounds);
        r->write_errno = 0;
        r->lost_rounds = 0;
    }
}

static void find_cgroup(recorder *r)
{
    char *b;
    size_t n;
    r->cgroup_dir[0] = '\0';
    strcpy(r->cgroup_rel, "-");
    r->quota_mc = 0;
    r->master = 0;
    if (r->pid_file && ps_read_file(r->pid_file, &b, &n) == 0) {
        r->master = (pid_t)atol(b);
        free(b);
    }
    if (!r->master) {
        ps_scan(r->cfg->proc_root, &r->table);
        r->master = r->table.master;
        for (size_t i = 0; !r->master && i < r->table.n; i++)
            r->master = r->table.w[i].ppid;
    }
    if (!r->master || ps_cgroup_dir(r->cfg->proc_root, r->cfg->sys_root, r->master, r->cgroup_dir,
                                    sizeof r->cgroup_dir, r->cgroup_rel, sizeof r->cgroup_rel) != 0) {
        r->cgroup_dir[0] = '\0';
        strcpy(r->cgroup_rel, "-");
        return;
    }
    char path[8400];
    snprintf(path, sizeof path, "%s/cpu.max", r->cgroup_dir);
    if (ps_read_file(path, &b, &n) == 0) {
        procfs_cgroup_max(b, n, &r->quota_mc);
        free(b);
    }
}

static void write_host_and_pools(recorder *r)
{
    char p[8192];
    config *cfg = r->cfg;
    ps_host_facts(cfg->proc_root, cfg->sys_root, &r->host);
    find_cgroup(r);
    uint64_t mono = clock_ns(CLOCK_MONOTONIC), real = clock_ns(CLOCK_REALTIME);
    int n = snprintf(p, sizeof p,
                     "format=1\nrecorder=" PROG " " FPMCPU_VERSION "\nhostname=%s\nboot_id=%s\n"
                     "kernel=%s\nnproc=%ld\nclk_tck=%ld\ninterval_ms=%llu\n"
                     "cpu_quota_millicores=%llu\ncgroup=%s\nclocksource=%s\n",
                     r->host.hostname, r->host.boot_id, r->host.kernel, r->host.nproc,
                     r->host.clk_tck, (unsigned long long)cfg->interval_ms,
                     (unsigned long long)r->quota_mc, r->cgroup_rel, r->host.clocksource);
    add(r, "HOST", mono, real, NULL, p, (size_t)n);
    for (size_t i = 0; i < cfg->npools; i++) {
        pool *pl = &cfg->pools[i];
        n = snprintf(p, sizeof p, "name=%s\nendpoint=%s\nstatus_path=%s\npm=%s\nmax_children=%ld\n"
                                  "own_uri=%s\n",
                     pl->name, pl->status_endpoint ? pl->status_endpoint : pl->endpoint,
                     pl->status_path, pl->pm ? pl->pm : "-", pl->max_children, pl->status_path);
        add(r, "POOL", mono, real, pl->name, p, (size_t)n);
    }
}

static void note(recorder *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(recorder *r, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof text)
        n = (int)sizeof text - 1;
    add(r, "NOTE", clock_ns(CLOCK_MONOTONIC), clock_ns(CLOCK_REALTIME), NULL, text, (size_t)n);
}

/* The pool's workers: from the process table, else the status page's pids. */
static size_t pool_pids(recorder *r, const pool *pl, const unsigned char *page, size_t plen,
                        pid_t **pids, int *from_table)
{
    size_t n = 0;
    *pids = NULL;
    *from_table = r->table.any_fpm;
    if (r->table.any_fpm) {
        *pids = malloc((r->table.n ? r->table.n : 1) * sizeof **pids);
        for (size_t i = 0; *pids && i < r->table.n; i++)
            if (strcmp(r->table.w[i].pool, pl->name) == 0 &&
                (!r->master || r->table.w[i].ppid == r->master))
                (*pids)[n++] = r->table.w[i].pid;
        return n;
    }
    if (page && status_parse(&r->page, (const char *)page, plen) == 0) {
        *pids = malloc((r->page.nworkers ? r->page.nworkers : 1) * sizeof **pids);
        for (size_t i = 0; *pids && i < r->page.nworkers; i++)
            if (r->page.workers[i].has_pid)
                (*pids)[n++] = (pid_t)r->page.workers[i].pid;
    }
    return n;
}

static void read_pool(recorder *r, const pool *pl)
{
    config *cfg = r->cfg;
    fcgi_response resp;
    char err[600];
    uint64_t mono = clock_ns(CLOCK_MONOTONIC), real = clock_ns(CLOCK_REALTIME);
    const char *ep = pl->status_endpoint ? pl->status_endpoint : pl->endpoint;
    int ok = fcgi_get(ep, pl->status_path, "json&full", (int)cfg->timeout_ms, FCGI_MAX_BODY,
                      &resp, err, sizeof err) == 0;
    const unsigned char *page = NULL;
    size_t plen = 0;
    if (ok && resp.status == 404) {
        snprintf(err, sizeof err, "status page not found (HTTP 404 %.*s): \"%s\" is not the pool's "
                 "pm.status_path", (int)strcspn((char *)resp.body, "\r\n"), (char *)resp.body,
                 pl->status_path);
        ok = 0;
    } else if (ok && resp.status != 200) {
        snprintf(err, sizeof err, "HTTP %d from the status page: %.*s", resp.status,
                 (int)strcspn((char *)resp.body, "\r\n"), (char *)resp.body);
        ok = 0;
    }
    if (ok) {
        page = resp.body;
        plen = resp.body_len;
        char *red = NULL;
        size_t rl;
        if (cfg->redact && status_redact_query((const char *)page, plen, &red, &rl) == 0) {
            add(r, "STATUS", mono, real, pl->name, red, rl);
            free(red);
        } else {
            add(r, "STATUS", mono, real, pl->name, page, plen);
        }
    } else {
        add(r, "ERROR", mono, real, pl->name, err, strlen(err));
    }
    /* PIDS, read right after the status */
    pid_t *pids;
    int from_table;
    size_t n = pool_pids(r, pl, page, plen, &pids, &from_table);
    size_t len = 0;
    mono = clock_ns(CLOCK_MONOTONIC);
    real = clock_ns(CLOCK_REALTIME);
    size_t got = ps_pid_stats(cfg->proc_root, pids, n, &r->pidbuf, &len, &r->pidcap);
    if (from_table || got > 0 || (n == 0 && page))
        add(r, "PIDS", mono, real, pl->name, r->pidbuf ? r->pidbuf : "", len);
    free(pids);
    free(resp.body);
}

static void do_round(recorder *r)
{
    config *cfg = r->cfg;
    uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
    if (r->rewrite_header) { /* a failed write may have taken them */
        write_host_and_pools(r);
        note(r, "writing again after a write error");
    }
    if (ps_scan(cfg->proc_root, &r->table) != 0)
        r->table.any_fpm = 0;
    for (size_t i = 0; i < cfg->npools; i++)
        read_pool(r, &cfg->pools[i]);
    char *b;
    size_t n;
    uint64_t mono = clock_ns(CLOCK_MONOTONIC), real = clock_ns(CLOCK_REALTIME);
    if (ps_cpu_lines(cfg->proc_root, &b, &n) == 0) {
        add(r, "STAT", mono, real, NULL, b, n);
        free(b);
    }
    if (r->cgroup_dir[0]) {
        static const char *const files[] = {"cpu.stat", "cpu.max", "cpu.pressure"};
        for (size_t i = 0; i < 3; i++) {
            char path[8400];
            snprintf(path, sizeof path, "%s/%s", r->cgroup_dir, files[i]);
            mono = clock_ns(CLOCK_MONOTONIC);
            real = clock_ns(CLOCK_REALTIME);
            if (ps_read_file(path, &b, &n) == 0) {
                add(r, "CGROUP", mono, real, files[i], b, n);
                free(b);
            }
        }
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    uint64_t self = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000ull +
                    (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    mono = clock_ns(CLOCK_MONOTONIC);
    real = clock_ns(CLOCK_REALTIME);
    char p[256];
    int pl = snprintf(p, sizeof p, "seq=%llu\ntook_us=%llu\nself_cpu_us=%llu\n",
                      (unsigned long long)++r->seq, (unsigned long long)((mono - t0) / 1000),
                      (unsigned long long)self);
    add(r, "ROUND", mono, real, NULL, p, (size_t)pl);
    int end = mono - r->frame_start >= HOUR_NS;
    commit(r, end, 1);
    if (end)
        r->frame_start = mono;
}

/* -n: every pool answers with a status page. */
static int check_config(config *cfg)
{
    int bad = 0;
    for (size_t i = 0; i < cfg->npools; i++) {
        pool *pl = &cfg->pools[i];
        const char *ep = pl->status_endpoint ? pl->status_endpoint : pl->endpoint;
        fcgi_response resp;
        char err[600];
        status_page pg = {0};
        if (fcgi_get(ep, pl->status_path, "json&full", (int)cfg->timeout_ms, FCGI_MAX_BODY, &resp,
                     err, sizeof err) != 0) {
            printf("pool %s: %s %s: %s\n", pl->name, ep, pl->status_path, err);
            bad = 1;
        } else if (resp.status != 200 || status_parse(&pg, (char *)resp.body, resp.body_len) != 0) {
            printf("pool %s: %s %s: HTTP %d, no status page (%.*s)\n", pl->name, ep,
                   pl->status_path, resp.status, (int)strcspn((char *)resp.body, "\r\n"),
                   (char *)resp.body);
            bad = 1;
        } else {
            printf("pool %s: %s %s: ok, %zu workers\n", pl->name, ep, pl->status_path, pg.nworkers);
        }
        status_page_free(&pg);
        free(resp.body);
    }
    printf(bad ? "configuration has problems\n" : "configuration OK\n");
    return bad;
}

static int open_log(recorder *r)
{
    char repaired[512], err[512];
    r->log = logfile_open(r->cfg->output, r->cfg->level, repaired, sizeof repaired, err, sizeof err);
    if (!r->log) {
        say("%s: %s", r->cfg->output, err);
        return -1;
    }
    r->frame_start = clock_ns(CLOCK_MONOTONIC);
    write_host_and_pools(r);
    if (repaired[0]) {
        note(r, "repaired: %s", repaired);
        if (!r->cfg->quiet)
            say("%s: %s", r->cfg->output, repaired);
    }
    return 0;
}

static void reload(recorder *r)
{
    config *cfg = r->cfg;
    note(r, "SIGHUP: reopening the log");
    commit(r, 1, 0);
    logfile_close(r->log);
    r->log = NULL;
    if (cfg->fpm_config) {
        pool *old = cfg->pools;
        size_t oldn = cfg->npools;
        cfg->pools = NULL;
        cfg->npools = 0;
        free(r->pid_file);
        r->pid_file = NULL;
        if (pools_from_config(cfg, &r->pid_file) != 0) {
            say("%s: keeping the pools read before", cfg->fpm_config);
            pools_free(cfg->pools, cfg->npools);
            cfg->pools = old;
            cfg->npools = oldn;
        } else {
            pools_free(old, oldn);
        }
    }
    if (open_log(r) != 0)
        return;
    note(r, "reopened on SIGHUP");
    commit(r, 0, 0);
}

static void sleep_until(uint64_t when)
{
    struct timespec ts = {(time_t)(when / 1000000000ull), (long)(when % 1000000000ull)};
    while (!stop_signal && !hup && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

int main(int argc, char **argv)
{
    config cfg = {0};
    recorder r = {0};
    int rc = handle_args(argc, argv, &cfg);
    if (rc >= 0)
        goto out;
    rc = 0;
    r.cfg = &cfg;
    if (cfg.fpm_config && pools_from_config(&cfg, &r.pid_file) != 0) {
        rc = 2;
        goto out;
    }
    if (cfg.check) {
        rc = check_config(&cfg);
        goto out;
    }
    struct sigaction sa = {0};
    sa.sa_handler = on_stop;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = on_hup;
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (open_log(&r) != 0) {
        rc = 2;
        goto out;
    }
    note(&r, "start: %zu pool(s), interval %llu ms", cfg.npools,
         (unsigned long long)cfg.interval_ms);
    commit(&r, 0, 0);

    uint64_t start = clock_ns(CLOCK_MONOTONIC), interval = cfg.interval_ms * 1000000ull;
    uint64_t next = start;
    for (long k = 0; !stop_signal; k++) {
        do_round(&r);
        if (cfg.rounds && k + 1 >= cfg.rounds)
            break;
        uint64_t now = clock_ns(CLOCK_MONOTONIC);
        if (cfg.duration_ms && now - start >= cfg.duration_ms * 1000000ull)
            break;
        /* the next slot on the schedule; slots missed in a stall are skipped */
        next += interval;
        if (next <= now)
            next = start + ((now - start) / interval + 1) * interval;
        if (cfg.duration_ms && next - start > cfg.duration_ms * 1000000ull)
            break;
        for (;;) {
            sleep_until(next);
            if (hup) {
                hup = 0;
                reload(&r);
                if (!r.log) {
                    rc = 2;
                    goto out;
                }
                continue;
            }
            break;
        }
    }
    if (stop_signal)
        note(&r, "stop: %s", stop_signal == SIGTERM ? "SIGTERM" : "SIGINT");
    else
        note(&r, "stop: %llu round(s) done", (unsigned long long)r.seq);
    if (logfile_close(r.log) != 0) {
        say("%s: could not write the end of the log: %s", cfg.output, strerror(errno));
        rc = 2;
    }
    r.log = NULL;
out:
    logfile_close(r.log);
    ps_table_free(&r.table);
    status_page_free(&r.page);
    free(r.pidbuf);
    free(r.pid_file);
    pools_free(cfg.pools, cfg.npools);
    return rc;
}
