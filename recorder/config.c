/* fpm-record's options and pools. */
#define _POSIX_C_SOURCE 200809L
#include "rc.h"
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpmlog.h"
#include "msg.h"
#include "numarg.h"
#include "probe.h"
#include "version.h"


static void usage(FILE *out)
{
    fputs(
"Usage: " PROG " (--pool NAME=ENDPOINT[,status=PATH] ... | --fpm-config FILE) -o LOG [OPTION]...\n"
"       " PROG " steal [--duration D] [--cpu N]\n"
"Every interval, reads each php-fpm pool's full status page over FastCGI, its\n"
"workers' /proc/<pid>/stat, /proc/stat and php-fpm's cgroup CPU files, and\n"
"appends them raw to LOG (zstd, flushed every round, mode 0600).\n"
"\n"
"  -p, --pool NAME=ENDPOINT[,status=PATH][,status_listen=ENDPOINT]\n"
"                          a pool (repeatable); ENDPOINT is unix:/path or\n"
"                          tcp:host:port; PATH defaults to /status\n"
"  -c, --fpm-config FILE   find the pools in php-fpm's configuration\n"
"  -o, --output LOG        the log to append to\n"
"  -i, --interval D        time between rounds, from 1s (default 5s, the shortest\n"
"                          round pair the analyzer uses; 30s, 1m)\n"
"  -t, --timeout D         connect and read timeout per pool (default 5s)\n"
"  -r, --rounds N          stop after N rounds\n"
"  -d, --duration D        stop after D\n"
"      --redact-query      strip query strings from the URIs written (status pages\n"
"                          and access log lines; a line that does not match its\n"
"                          pool's access.format is then dropped)\n"
"      --steal-probe D     every round, busy-loop D (10ms to 10s, such as 200ms)\n"
"                          on one CPU, a different one each round, and record the\n"
"                          time the hypervisor took (costs D of one core a round)\n"
"      --level N           zstd level 1..19, 0 writes plain records (default 3)\n"
"      --frame-size SIZE   end the zstd frame after the round that brings it to\n"
"                          SIZE of records (1k to 1024M, default 4M), or 5 minutes:\n"
"                          a damaged frame costs at most that much of the log\n"
"      --hostname NAME     the host's name in the log, instead of the kernel's\n"
"                          (fleets whose short names repeat: give each its FQDN)\n"
"  -n, --check-config      check the pools, read one status page each, and exit\n"
"  -q, --quiet             no notes on standard error, only problems\n"
"      --proc-root DIR     read /proc from DIR (tests)\n"
"      --sys-root DIR      read /sys from DIR (tests)\n"
"  -h, --help              print this help and exit\n"
"  -V, --version           print the version and exit\n"
"\n"
"fpm-record steal runs the steal probe alone, on each CPU in turn (or CPU\n"
"N) for D each (default 1s), and prints what the kernel says, the plain gap\n"
"count and the figure less this guest's own run delay.\n"
"\n"
"Every request: where a pool sets access.log and an access.format with %C, a\n"
"duration and %p, its lines are recorded too (ACCESS), every request counted;\n"
"without one its figures are a sample.  In each pool, as php-fpm reads it:\n"
"  access.log = /var/log/php-fpm/$pool.access.log\n"
"  access.format = \"%t %p %m %{REQUEST_URI}e %s %{mili}d %{kilo}M %C%%\"\n"
"The file is followed as tail -F does (logrotate's rename and SIGUSR1 to\n"
"php-fpm, or copytruncate); where it stands is kept in LOG.access.  php-fpm\n"
"creates it mode 0600 as root: the systemd unit gives fpm-record\n"
"CAP_DAC_READ_SEARCH to read it.\n"
"\n"
"SIGHUP reopens LOG (logrotate with create) and re-reads the pools;\n"
"SIGTERM and SIGINT finish the round, end the frame and exit 0.\n"
"Exit status: 0 ok, 1 a check failed, 2 usage error or LOG unusable.\n", out);
}


int config_parse_duration(const char *s, uint64_t *ms)
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

static void pool_free_fields(rec_pool *p)
{
    fpmconf_pool_clear(&p->c);
    af_free(&p->fmt);
}

void config_pools_free(rec_pool *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        pool_free_fields(&p[i]);
    free(p);
}

static int add_pool(rec_config *cfg, rec_pool p)
{
    for (size_t i = 0; i < cfg->npools; i++)
        if (strcmp(cfg->pools[i].c.name, p.c.name) == 0)
            return -1;
    rec_pool *np = realloc(cfg->pools, (cfg->npools + 1) * sizeof *np);
    if (!np)
        return FPM_ENOMEM;
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
    if (!*port || strspn(port, "0123456789") != strlen(port) || strlen(port) > 5 || strtol(port, NULL, 10) > 65535 ||
        (colon && (colon == hp || strchr(hp, '/'))))
        return -1;
    if (hp != s)
        return snprintf(out, outlen, "%s", s) < (int)outlen ? 0 : -1;
    return fpmconf_endpoint(s, out, outlen);
}

/* --pool NAME=ENDPOINT[,status=PATH][,status_listen=ENDPOINT] */
static int parse_pool(const char *arg, rec_pool *p)
{
    memset(p, 0, sizeof *p);
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg)
        return -1;
    char *rest = strdup(eq + 1), *save = NULL, ep[4200];
    int bad = 0, oom = !rest || !(p->c.name = strndup(arg, (size_t)(eq - arg)));
    for (char *tok = oom ? NULL : strtok_r(rest, ",", &save); tok && !bad && !oom;
         tok = strtok_r(NULL, ",", &save)) {
        if (strncmp(tok, "status=", 7) == 0 && tok[7] == '/' && !p->c.status_path)
            oom = !(p->c.status_path = strdup(tok + 7));
        else if (strncmp(tok, "status_listen=", 14) == 0 && !p->c.status_endpoint)
            bad = endpoint_arg(tok + 14, ep, sizeof ep) != 0 ||
                  (oom = !(p->c.status_endpoint = strdup(ep)));
        else if (!p->c.endpoint && endpoint_arg(tok, ep, sizeof ep) == 0)
            oom = !(p->c.endpoint = strdup(ep));
        else
            bad = 1;
    }
    free(rest);
    if (!bad && !oom && !p->c.status_path)
        oom = !(p->c.status_path = strdup("/status"));
    if (bad || oom || !p->c.endpoint) {
        pool_free_fields(p);
        return oom ? FPM_ENOMEM : FPM_EFAIL;
    }
    return 0;
}

/* Pools from php-fpm's configuration; those without a status path are
 * reported and skipped.  0 ok, -1 (said). */
int config_load_pools(rec_config *cfg, char **pid_file)
{
    fpmconf c;
    char err[512];
    if (fpmconf_load(cfg->fpm_config, &c, err, sizeof err) != 0) {
        msg_warnx("%s", err);
        return -1;
    }
    for (size_t i = 0; i < c.n; i++) {
        fpmconf_pool *fp = &c.pools[i];
        if (!fp->status_path) {
            msg_warnx("%s: pool \"%s\" has no pm.status_path: skipped (add \"pm.status_path = /status\" "
                "to it, best with a pm.status_listen of its own, and reload php-fpm)", fp->where,
                fp->name);
            continue;
        }
        if (!fp->endpoint && !fp->status_endpoint) {
            msg_warnx("%s: pool \"%s\" has no listen address: skipped (php-fpm needs \"listen = ...\" "
                "there too)", fp->where, fp->name);
            continue;
        }
        rec_pool p = {.c = *fp}; /* the pool's fields move over */
        memset(fp, 0, sizeof *fp);
        if (!p.c.endpoint && !(p.c.endpoint = strdup(p.c.status_endpoint))) {
            msg_warnx("out of memory");
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
        msg_warnx("%s: no pool with a status path: nothing to record", cfg->fpm_config);
        return -1;
    }
    return 0;
}

/* A host name as DNS spells one (and underscores, which some fleets use). */
static int hostname_ok(const char *s)
{
    size_t n = strlen(s);
    return n >= 1 && n <= 253 &&
           strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") == n;
}

/* What the options say together: -1 to go on, else 2 (said). */
static int check_args(rec_config *cfg)
{
    if (cfg->npools == 0 && !cfg->fpm_config)
        return msg_usage("no pool: give --pool NAME=ENDPOINT or --fpm-config FILE");
    if (!cfg->output && !cfg->check)
        return msg_usage("no log: give -o LOG");
    if (cfg->steal_probe_ms && cfg->steal_probe_ms * 2 > cfg->interval_ms)
        return msg_usage("--steal-probe %llums is more than half the interval: the probe would "
                         "take the CPU it measures", (unsigned long long)cfg->steal_probe_ms);
    if (cfg->interval_ms < 5000 && !cfg->check && !cfg->quiet)
        msg_warnx("--interval under 5s: the readings are kept, but the analyzer uses no pair of "
            "rounds under 5 s apart (no host CPU, overhead or starved rounds)");
    return -1;
}

static void set_defaults(rec_config *cfg)
{
    cfg->interval_ms = 5000; /* the shortest pair the analyzer uses */
    cfg->timeout_ms = 5000;
    cfg->level = 3;
    cfg->frame_bytes = FPMLOG_FRAME_BYTES;
    cfg->proc_root = "/proc";
    cfg->sys_root = "/sys";
}

enum { O_REDACT = 256, O_LEVEL, O_PROC, O_SYS, O_STEAL, O_FRAME, O_HOSTNAME };

/* An option that takes a number or a duration, into cfg: -1 to go on,
 * else 2 (said). */
static int take_number(rec_config *cfg, int c, const char *optarg)
{
    long long n;
    switch (c) {
    case 'i':
        if (config_parse_duration(optarg, &cfg->interval_ms) || cfg->interval_ms < 1000)
            return msg_usage("--interval must be a duration of at least 1s (5s, 1m), not \"%s\"",
                             optarg);
        break;
    case 't':
        if (config_parse_duration(optarg, &cfg->timeout_ms) || cfg->timeout_ms < 100 ||
            cfg->timeout_ms > 600000)
            return msg_usage("--timeout must be a duration from 100ms to 10m, not \"%s\"", optarg);
        break;
    case 'd':
        if (config_parse_duration(optarg, &cfg->duration_ms) || cfg->duration_ms == 0)
            return msg_usage("--duration must be a duration (90s, 10m, 1h), not \"%s\"", optarg);
        break;
    case 'r':
        if (num_whole(optarg, 1, 1000000000, &n))
            return msg_usage("--rounds must be a whole number in range 1..1000000000, not \"%s\"",
                             optarg);
        cfg->rounds = (long)n;
        break;
    case O_LEVEL:
        if (num_whole(optarg, 0, 19, &n))
            return msg_usage("--level must be in range 0..19, not \"%s\"", optarg);
        cfg->level = (int)n;
        break;
    case O_FRAME:
        if (num_size(optarg, &cfg->frame_bytes, 1u << 10, 1024u << 20))
            return msg_usage("--frame-size must be from 1k to 1024M (4M), not \"%s\"", optarg);
        break;
    case O_STEAL:
        if (config_parse_duration(optarg, &cfg->steal_probe_ms) || cfg->steal_probe_ms < 10 ||
            cfg->steal_probe_ms > 10000)
            return msg_usage("--steal-probe must be a duration from 10ms to 10s (200ms), "
                             "not \"%s\"", optarg);
        if (!probe_supported())
            return msg_usage("--steal-probe needs a cycle counter the probe can read "
                             "(x86-64 or aarch64); this machine has none");
        break;
    }
    return -1;
}

int config_parse_args(int argc, char **argv, rec_config *cfg)
{
    static const struct option longopts[] = {
        {"pool", required_argument, NULL, 'p'}, {"fpm-config", required_argument, NULL, 'c'},
        {"output", required_argument, NULL, 'o'}, {"interval", required_argument, NULL, 'i'},
        {"timeout", required_argument, NULL, 't'}, {"rounds", required_argument, NULL, 'r'},
        {"duration", required_argument, NULL, 'd'}, {"redact-query", no_argument, NULL, O_REDACT},
        {"level", required_argument, NULL, O_LEVEL}, {"check-config", no_argument, NULL, 'n'},
        {"quiet", no_argument, NULL, 'q'}, {"proc-root", required_argument, NULL, O_PROC},
        {"sys-root", required_argument, NULL, O_SYS}, {"help", no_argument, NULL, 'h'},
        {"steal-probe", required_argument, NULL, O_STEAL},
        {"frame-size", required_argument, NULL, O_FRAME},
        {"hostname", required_argument, NULL, O_HOSTNAME},
        {"version", no_argument, NULL, 'V'}, {NULL, 0, NULL, 0},
    };
    set_defaults(cfg);
    opterr = 0;
    int c, rc;
    rec_pool p;
    while ((c = getopt_long(argc, argv, ":p:c:o:i:t:r:d:nqhV", longopts, NULL)) != -1) {
        switch (c) {
        case 'p':
            if (parse_pool(optarg, &p) != 0)
                return msg_usage("--pool wants NAME=ENDPOINT[,status=PATH][,status_listen=ENDPOINT] "
                                 "with ENDPOINT unix:/path or tcp:host:port, not \"%s\"", optarg);
            if (add_pool(cfg, p) != 0) {
                pool_free_fields(&p);
                return msg_usage("pool \"%s\" is given twice", optarg);
            }
            break;
        case 'c': cfg->fpm_config = optarg; break;
        case 'o': cfg->output = optarg; break;
        case 'i': case 't': case 'd': case 'r': case O_LEVEL: case O_FRAME: case O_STEAL:
            if ((rc = take_number(cfg, c, optarg)) >= 0)
                return rc;
            break;
        case O_REDACT: cfg->redact = 1; break;
        case O_HOSTNAME:
            if (!hostname_ok(optarg))
                return msg_usage("--hostname must be 1 to 253 letters, digits, dots, hyphens or "
                                 "underscores, not \"%s\"", optarg);
            cfg->hostname = optarg;
            break;
        case 'n': cfg->check = 1; break;
        case 'q': cfg->quiet = 1; break;
        case O_PROC: cfg->proc_root = optarg; break;
        case O_SYS: cfg->sys_root = optarg; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf(PROG " " FPMCPU_VERSION "\n"); return 0;
        case ':': return msg_usage("option \"%s\" needs an argument", argv[optind - 1]);
        default: return msg_usage("unknown option \"%s\"", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return msg_usage("unexpected argument \"%s\"", argv[optind]);
    return check_args(cfg);
}

const char *config_status_endpoint(const rec_pool *p)
{
    return p->c.status_endpoint ? p->c.status_endpoint : p->c.endpoint;
}
