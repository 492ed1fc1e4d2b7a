/* fpm-analyze: replays fpmlogs and prints what each php-fpm pool costs the CPU. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"
#include "readings.h"
#include "replay.h"
#include "report.h"
#include "msg.h"
#include "version.h"

#define PROG "fpm-analyze"

typedef struct {
    const rp_format *format;
    rp_scenario      scenario;
    rd_prefixes      own_uri;
    char           **logs;
    int              nlogs;
} config;

static void usage(FILE *out)
{
    fprintf(out,
"Usage: " PROG " [OPTION]... LOG...\n"
"Replays fpm-record logs and prints, per php-fpm pool, how CPU-bound its\n"
"requests are, what a busy worker costs the host, and how many busy workers\n"
"fill the CPU.  Several LOGs are one history, in the order given.\n"
"\n"
"  -f, --format FMT          text (default) or json (pipeline.md section 8)\n"
"      --host-millicores N   judge against a host of N millicores (what-if)\n"
"      --cores N             the same, N whole cores\n"
"      --headroom H          ceiling = fill x H, 1 to 100, two decimals at most\n"
"                            (default 2)\n"
"      --own-uri PREFIX      requests whose URI starts with PREFIX are\n"
"                            monitoring, not visitors (repeatable)\n"
"      --explain             text: also print why readings were not counted\n"
"  -h, --help                print this help and exit\n"
"  -V, --version             print the version and exit\n"
"\n"
"Standard output is data; messages go to standard error.  Damaged records\n"
"are reported with their byte offset and skipped.\n"
"Exit status: 0 ok, 1 a check failed, 2 usage or unreadable input.\n");
}

#define bad_usage(...) msg_usage(PROG, __VA_ARGS__)

/* A whole number in [lo, hi]; 0 ok, -1 not. */
static int parse_count(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* "2", "1.5", "1.25" into hundredths, 100..10000; 0 ok, -1 not. */
static int parse_headroom(const char *s, int *out)
{
    long long whole = 0;
    int frac = 0, digits = 0;
    const char *p = s;
    if (*p < '0' || *p > '9')
        return -1;
    while (*p >= '0' && *p <= '9') {
        whole = whole * 10 + (*p++ - '0');
        if (whole > 100)
            return -1;
    }
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9' && digits < 3) {
            frac = frac * 10 + (*p++ - '0');
            digits++;
        }
        if (digits == 0 || digits > 2)
            return -1;
        if (digits == 1)
            frac *= 10;
    }
    if (*p)
        return -1;
    long long h = whole * 100 + frac;
    if (h < 100 || h > 10000)
        return -1;
    *out = (int)h;
    return 0;
}

/* Fills cfg from argv; returns -1 to go on, else the exit code. */
static int handle_args(int argc, char **argv, config *cfg)
{
    enum { O_HOST_MC = 256, O_CORES, O_HEADROOM, O_OWN_URI, O_EXPLAIN };
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'},
        {"host-millicores", required_argument, NULL, O_HOST_MC},
        {"cores", required_argument, NULL, O_CORES},
        {"headroom", required_argument, NULL, O_HEADROOM},
        {"own-uri", required_argument, NULL, O_OWN_URI},
        {"explain", no_argument, NULL, O_EXPLAIN},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    long long v;
    int c;
    cfg->format = report_format("text");
    cfg->scenario.headroom = RP_DEFAULT_HEADROOM;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":f:hV", longopts, NULL)) != -1) {
        switch (c) {
        case 'f':
            cfg->format = report_format(optarg);
            if (!cfg->format)
                return bad_usage("--format must be text or json, not \"%s\"", optarg);
            break;
        case O_HOST_MC:
            if (parse_count(optarg, 1, 100000000, &v))
                return bad_usage("--host-millicores must be a whole number in range "
                                 "1..100000000, not \"%s\"", optarg);
            cfg->scenario.has_host_millicores = 1;
            cfg->scenario.host_millicores = (uint64_t)v;
            break;
        case O_CORES:
            if (parse_count(optarg, 1, 100000, &v))
                return bad_usage("--cores must be a whole number in range 1..100000, "
                                 "not \"%s\"", optarg);
            cfg->scenario.has_host_millicores = 1;
            cfg->scenario.host_millicores = (uint64_t)v * 1000;
            break;
        case O_HEADROOM:
            if (parse_headroom(optarg, &cfg->scenario.headroom))
                return bad_usage("--headroom must be in range 1..100 with at most two "
                                 "decimals, not \"%s\"", optarg);
            break;
        case O_OWN_URI:
            if (optarg[0] == '\0')
                return bad_usage("--own-uri needs a non-empty prefix");
            if (rd_prefixes_add(&cfg->own_uri, optarg, strlen(optarg)))
                return bad_usage("out of memory");
            break;
        case O_EXPLAIN:
            cfg->scenario.explain = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf(PROG " " FPMCPU_VERSION "\n");
            return 0;
        case ':':
            return bad_usage("option \"%s\" needs an argument", argv[optind - 1]);
        default:
            return bad_usage("unknown option \"%s\"", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return bad_usage("no LOG given");
    cfg->logs = argv + optind;
    cfg->nlogs = argc - optind;
    return -1;
}

int main(int argc, char **argv)
{
    config cfg = {0};
    int rc = handle_args(argc, argv, &cfg);
    if (rc >= 0) {
        rd_prefixes_free(&cfg.own_uri);
        return rc;
    }
    pl_options opt = {.own_uri = &cfg.own_uri};
    pipeline *pl = pipeline_new(&opt);
    replay_stats st = {0};
    rc = 0;
    if (!pl) {
        fprintf(stderr, PROG ": out of memory\n");
        rc = 2;
        goto out;
    }
    for (int i = 0; i < cfg.nlogs; i++) {
        if (replay_file(pl, cfg.logs[i], PROG, stderr, &st) == -2) {
            rc = 2;
            goto out;
        }
    }
    if (st.unreadable == (uint64_t)cfg.nlogs) {
        rc = 2; /* nothing was read: no data to print */
        goto out;
    }
    pl_host *const *hosts;
    if (pipeline_hosts(pl, &hosts) == 0)
        fprintf(stderr, PROG ": no HOST record in the input: nothing to analyze\n");
    if (cfg.format->print(stdout, pl, &cfg.scenario) != 0 || fflush(stdout) != 0) {
        fprintf(stderr, PROG ": could not write the output\n");
        rc = 2;
    }
    if (st.unreadable)
        rc = 2;
out:
    pipeline_free(pl);
    rd_prefixes_free(&cfg.own_uri);
    return rc;
}
