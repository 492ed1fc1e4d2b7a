/* fpm-record: reads php-fpm's status pages and the CPU counters every
 * interval and appends them, raw, to an fpmlog. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <limits.h>
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
    char *where;            /* FILE:LINE of its section in php-fpm's configuration */
    /* while recording */
    pid_t master;           /* the php-fpm master its workers were found under */
    char  said_pids[200];   /* the last problem said about its workers, "" none */
    char  said_error[600];  /* the last read error said, "" while it answers */
    uint64_t error_rounds;  /* rounds in a row it could not be read */
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
    free(p->where);
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
            say("%s: pool \"%s\" has no pm.status_path: skipped (add \"pm.status_path = /status\" "
                "to it, best with a pm.status_listen of its own, and reload php-fpm)", fp->where,
                fp->name);
            continue;
        }
        if (!fp->endpoint && !fp->status_endpoint) {
            say("%s: pool \"%s\" has no listen address: skipped (php-fpm needs \"listen = ...\" "
                "there too)", fp->where, fp->name);
            continue;
        }
        pool p = {0};
        p.name = strdup(fp->name);
        p.endpoint = strdup(fp->endpoint ? fp->endpoint : fp->status_endpoint);
        p.status_path = strdup(fp->status_path);
        p.status_endpoint = fp->status_endpoint ? strdup(fp->status_endpoint) : NULL;
        p.pm = fp->pm ? strdup(fp->pm) : NULL;
        p.max_children = fp->max_children;
        p.where = strdup(fp->where);
        if (!p.name || !p.endpoint || !p.status_path || !p.where ||
            (fp->status_endpoint && !p.status_endpoint) || (fp->pm && !p.pm)) {
            say("out of memory");
            pool_free_fields(&p);
            fpmconf_free(&c);
            return -1;
        }
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
    if (cfg->interval_ms < 5000 && !cfg->check && !cfg->quiet)
        say("--interval under 5s: the readings are kept, but the analyzer uses no pair of "
            "rounds under 5 s apart (no host CPU, overhead or starved rounds)");
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
    pid_t          master;          /* php-fpm's master, for its cgroup */
    pid_t          pid_master;      /* the master of the configuration's pid file, or 0 */
    char          *pid_file;
    uint64_t       seq, frame_start;
    uint64_t       last_stat;       /* MONO of the last STAT read, 0 none */
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

static pid_t only_master(const ps_table *t, const char *name);

static void find_cgroup(recorder *r)
{
    char *b;
    size_t n;
    r->cgroup_dir[0] = '\0';
    strcpy(r->cgroup_rel, "-");
    r->quota_mc = 0;
    r->master = r->pid_master = 0;
    if (r->pid_file && ps_read_file(r->pid_file, &b, &n) == 0) {
        char *end;
        errno = 0;
        long v = strtol(b, &end, 10);
        if (!errno && end != b && v > 0 && v <= INT_MAX)
            r->master = r->pid_master = (pid_t)v;
        free(b);
    }
    if (!r->master) {
        /* the master of the first pool whose workers are in the table */
        ps_scan(r->cfg->proc_root, &r->table);
        for (size_t i = 0; !r->master && i < r->cfg->npools; i++) {
            pid_t m = only_master(&r->table, r->cfg->pools[i].name);
            r->master = m > 0 ? m : 0;
        }
        if (!r->master)
            r->master = r->table.master;
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

/* The master whose children are most of the page's workers, or 0. */
static pid_t master_of_page(const ps_table *t, const pool *pl, const status_page *pg)
{
    pid_t best = 0;
    size_t best_n = 0;
    for (size_t i = 0; i < pg->nworkers; i++) {
        if (!pg->workers[i].has_pid)
            continue;
        for (size_t j = 0; j < t->n; j++) {
            if (t->w[j].pid != (pid_t)pg->workers[i].pid || strcmp(t->w[j].pool, pl->name) != 0)
                continue;
            size_t n = 0;
            for (size_t k = 0; k < pg->nworkers; k++)
                for (size_t m = 0; m < t->n; m++)
                    n += pg->workers[k].has_pid && t->w[m].pid == (pid_t)pg->workers[k].pid &&
                         t->w[m].ppid == t->w[j].ppid;
            if (n > best_n) {
                best = t->w[j].ppid;
                best_n = n;
            }
            break;
        }
        if (best_n * 2 > pg->nworkers)
            break;
    }
    return best;
}

/* The one parent of the table's workers named like the pool; 0 when none,
 * -1 when several masters have a pool of that name. */
static pid_t only_master(const ps_table *t, const char *name)
{
    pid_t m = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (strcmp(t->w[i].pool, name) != 0)
            continue;
        if (m && t->w[i].ppid != m)
            return -1;
        m = t->w[i].ppid;
    }
    return m;
}

static int has_children(const ps_table *t, pid_t master)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->w[i].ppid == master)
            return 1;
    return 0;
}

/* The pool's workers (fpmlog PIDS): the children of the pool's own php-fpm
 * master named "php-fpm: pool NAME" in the process table.  The master is
 * the parent of the status page's workers; in a round without a page, the
 * one found before, else the pid file's, else the only master with a pool
 * of that name.  Without a process table, or when the table has none of
 * the page's workers, the page's pids.  Returns the count (*pids malloc'd),
 * or -1 when the workers cannot be known, with why. */
static long pool_pids(recorder *r, pool *pl, const unsigned char *page, size_t plen,
                      pid_t **pids, char *why, size_t whylen)
{
    const ps_table *t = &r->table;
    int has_page = page && status_parse(&r->page, (const char *)page, plen) == 0;
    size_t on_page = 0;
    for (size_t i = 0; has_page && i < r->page.nworkers; i++)
        on_page += r->page.workers[i].has_pid;
    pid_t m = 0;
    if (t->any_fpm) {
        if (has_page && on_page)
            m = master_of_page(t, pl, &r->page);
        else if (pl->master && has_children(t, pl->master))
            m = pl->master;
        else if (r->pid_master && (has_page || has_children(t, r->pid_master)))
            m = r->pid_master;
        else if ((m = only_master(t, pl->name)) < 0) {
            snprintf(why, whylen, "several php-fpm masters have a pool \"%s\" and its status page "
                     "could not be read to tell which: no PIDS this round", pl->name);
            return -1;
        }
    }
    *pids = malloc((t->n + on_page + 1) * sizeof **pids);
    if (!*pids) {
        snprintf(why, whylen, "out of memory: no PIDS this round");
        return -1;
    }
    size_t n = 0;
    if (m > 0) {
        pl->master = m;
        for (size_t i = 0; i < t->n; i++)
            if (t->w[i].ppid == m && strcmp(t->w[i].pool, pl->name) == 0)
                (*pids)[n++] = t->w[i].pid;
    }
    if (n == 0 && on_page) {
        /* php-fpm in another pid namespace, or titles not rewritten */
        for (size_t i = 0; i < r->page.nworkers; i++)
            if (r->page.workers[i].has_pid)
                (*pids)[n++] = (pid_t)r->page.workers[i].pid;
    }
    if (n == 0 && !has_page && !(m > 0 && t->any_fpm)) {
        /* no page and no worker of that name: the read error says enough */
        why[0] = '\0';
        free(*pids);
        *pids = NULL;
        return -1;
    }
    return (long)n;
}

static void read_pool(recorder *r, pool *pl)
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
    if (ok && pl->said_error[0]) {
        if (!cfg->quiet)
            say("pool %s: its status page answers again, after %llu round(s) of ERROR", pl->name,
                (unsigned long long)pl->error_rounds);
        pl->said_error[0] = '\0';
    }
    pl->error_rounds = ok ? 0 : pl->error_rounds + 1;
    if (!ok && strcmp(pl->said_error, err) != 0) {
        say("pool %s: could not read its status page: %s (an ERROR is recorded each round until "
            "it answers)", pl->name, err);
        snprintf(pl->said_error, sizeof pl->said_error, "%s", err);
    }
    /* PIDS, read right after the status */
    pid_t *pids = NULL;
    char why[sizeof pl->said_pids];
    long n = pool_pids(r, pl, page, plen, &pids, why, sizeof why);
    size_t len = 0, got = 0;
    mono = clock_ns(CLOCK_MONOTONIC);
    real = clock_ns(CLOCK_REALTIME);
    if (n > 0 && (got = ps_pid_stats(cfg->proc_root, pids, (size_t)n, &r->pidbuf, &len,
                                     &r->pidcap)) == 0)
        snprintf(why, sizeof why, "none of its %ld workers' stat files in %s can be read "
                 "(hidepid, or another pid namespace): no PIDS this round", n, cfg->proc_root);
    if (n >= 0 && (n == 0 || got > 0)) {
        add(r, "PIDS", mono, real, pl->name, r->pidbuf ? r->pidbuf : "", len);
        why[0] = '\0';
    }
    if (why[0] && strcmp(why, pl->said_pids) != 0) {
        say("pool %s: %s", pl->name, why);
        note(r, "pool %s: %s", pl->name, why);
    }
    snprintf(pl->said_pids, sizeof pl->said_pids, "%s", why);
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
        r->last_stat = mono;
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

/* What to do about a pool's read error, or NULL. */
static const char *hint_for(const char *err, int http)
{
    if (http == 404)
        return "php-fpm does not serve this path: set pm.status_path to it in the pool "
               "and reload php-fpm";
    if (http)
        return "the endpoint answers, but not with a status page: is it php-fpm's?";
    if (strstr(err, "No such file or directory"))
        return "no socket there: is php-fpm running, and is this the pool's listen "
               "(or pm.status_listen)?";
    if (strstr(err, "Connection refused"))
        return "nothing listens there: is php-fpm running?";
    if (strstr(err, "Permission denied"))
        return "run as a user that may open the socket (the pool's listen.owner, "
               "listen.group and listen.mode)";
    if (strstr(err, "timed out"))
        return "no answer in time: every worker busy? a pm.status_listen answers even then";
    return NULL;
}

/* -n: every pool answers with a status page.  Exit 0 when all do, 1 when
 * one does not. */
static int check_config(config *cfg)
{
    int bad = 0;
    for (size_t i = 0; i < cfg->npools; i++) {
        pool *pl = &cfg->pools[i];
        const char *ep = pl->status_endpoint ? pl->status_endpoint : pl->endpoint;
        fcgi_response resp;
        char err[600];
        status_page pg = {0};
        const char *hint = NULL;
        printf("pool %s", pl->name);
        if (pl->where)
            printf(" (%s)", pl->where);
        printf(": %s %s: ", ep, pl->status_path);
        if (fcgi_get(ep, pl->status_path, "json&full", (int)cfg->timeout_ms, FCGI_MAX_BODY, &resp,
                     err, sizeof err) != 0) {
            printf("%s\n", err);
            hint = hint_for(err, 0);
            bad = 1;
        } else if (resp.status != 200 || status_parse(&pg, (char *)resp.body, resp.body_len) != 0) {
            printf("HTTP %d, no status page (%.*s)\n", resp.status,
                   (int)strcspn((char *)resp.body, "\r\n"), (char *)resp.body);
            hint = hint_for("", resp.status ? resp.status : 1);
            bad = 1;
        } else {
            printf("ok, %zu workers\n", pg.nworkers);
        }
        if (hint)
            printf("  fix: %s\n", hint);
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

/* When the next round starts: the next slot of the schedule (start + k x
 * interval, slots missed in a stall skipped), but never less than one
 * interval after the last STAT read, which comes a little after a round's
 * start: STAT to STAT is then at least one interval, as the analyzer's
 * pairs need. */
static uint64_t next_round(uint64_t start, uint64_t interval, uint64_t last_stat, uint64_t now)
{
    uint64_t next = start + ((now - start) / interval + 1) * interval;
    if (last_stat && next < last_stat + interval)
        next = last_stat + interval;
    return next;
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
    for (long k = 0; !stop_signal; k++) {
        do_round(&r);
        if (cfg.rounds && k + 1 >= cfg.rounds)
            break;
        uint64_t now = clock_ns(CLOCK_MONOTONIC);
        if (cfg.duration_ms && now - start >= cfg.duration_ms * 1000000ull)
            break;
        uint64_t next = next_round(start, interval, r.last_stat, now);
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
