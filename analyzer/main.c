/* fpm-analyze: replays fpmlogs and prints what each php-fpm pool costs the CPU. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "csvout.h"
#include "escape.h"
#include "outfile.h"
#include "plot.h"
#include "fpmlog.h"
#include "pipeline.h"
#include "readings.h"
#include "replay.h"
#include "report.h"
#include "timearg.h"
#include "msg.h"
#include "version.h"

#define PROG "fpm-analyze"

typedef struct {
    const rp_format *format;
    wi_scenario      scenario;
    rd_prefixes      own_uri;
    wi_override      max_children[64];
    const char      *from, *until;
    const char      *output;         /* -o FILE: FILE.tmp renamed into place */
    const char      *csv_readings, *csv_rounds;
    const char      *plot_dir;
    int              quiet;
    int              hist;           /* the hist view */
    int              check;          /* the check subcommand */
    const char      *baseline;
    int              tolerance;
    double           max_rise;
    const char      *pool;           /* hist --pool */
    double           cutoff;         /* hist --cutoff */
    char           **logs;
    int              nlogs;
} config;

static void usage(FILE *out)
{
    fprintf(out,
"Usage: " PROG " [OPTION]... LOG...\n"
"       " PROG " hist [--pool POOL] [--cutoff PCT] [OPTION]... LOG...\n"
"       " PROG " check --baseline BASE.json [--tolerance-buckets N]\n"
"                   [--max-overhead-rise PCT] [OPTION]... LOG...\n"
"Replays fpm-record logs and prints, per php-fpm pool, how CPU-bound its\n"
"requests are, what a busy worker costs the host, and how many busy workers\n"
"fill the CPU.  Several LOGs are one history, in the order given.\n"
"\n"
"  -f, --format FMT          one of (text is the default):\n");
    report_format_help(out);
    fprintf(out,
"  -o, --output FILE         write FILE.tmp, then rename it to FILE\n"
"      --csv-readings FILE   a CSV row per worker seen per round, with its verdict\n"
"      --csv-rounds FILE     a CSV row per round and pool: host and pool CPU,\n"
"                            listen queue, fit point, starved\n"
"      --plot DIR            per pool: histogram, fit and time series as PNG and\n"
"                            SVG (gnuplot), with the .dat and .gp files\n"
"      --host-millicores N   judge against a host of N millicores (what-if)\n"
"      --cores N             the same, N whole cores\n"
"      --headroom H          ceiling = fill x H, 1 to 100, two decimals at most\n"
"                            (default 2)\n"
"      --max-children POOL=N what-if: pm.max_children N for pools named POOL\n"
"                            (repeatable)\n"
"      --cost typical|busy   what a busy worker's PHP costs: TYPICAL x 10 (the\n"
"                            default), or the duration-weighted share (BUSY)\n"
"      --from T, --until T   only rounds from T and before T: ISO 8601 with Z or\n"
"                            an offset (2026-11-29T14:00:00Z), @EPOCH, or HH:MM[:SS]\n"
"                            on the log's first day (UTC); earlier rounds prime\n"
"                            the state but count nothing\n"
"      --own-uri PREFIX      requests whose URI starts with PREFIX are\n"
"                            monitoring, not visitors (repeatable)\n"
"      --explain             text: also print why readings were not counted and\n"
"                            which round pairs gave no host figures\n"
"  -q, --quiet               no progress line\n"
"\n"
"hist prints each pool's distribution of CPU shares, one row per bucket,\n"
"up to the cutoff (default 99.99%%), then the largest bucket observed:\n"
"      --pool POOL           only pools named POOL\n"
"      --cutoff PCT          stop once the running %% reaches PCT (0..100)\n"
"\n"
"check compares LOG with an earlier --format json output and exits 1 with\n"
"what got worse: TYPICAL, P90 or the busy share up by more than N buckets\n"
"(default 0), a shape toward cpu-bound, overhead up by more than PCT%%\n"
"(default 10), new starved rounds, a pool with too few readings now or gone;\n"
"0 when nothing did.\n"
"\n"
"  -h, --help                print this help and exit\n"
"  -V, --version             print the version and exit\n"
"\n"
"Standard output is data; messages go to standard error.  Damaged records\n"
"are reported with their byte offset and skipped.\n"
"Exit status: 0 ok, 1 a check failed, 2 usage or unreadable input.\n"
"How to read every figure (the 50 ms floor, bucket floors, the 5 s to 5 min\n"
"pairs, ...): man 7 fpm-cpu (in the source tree: man -l man/fpm-cpu.7).\n");
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

/* The first REAL time in the first log: its day is the day of HH:MM. */
static int first_day(const char *path, uint64_t *day_ns)
{
    char err[256];
    fpmlog_reader *r = fpmlog_reader_open(path, err, sizeof err);
    fpmlog_record rec;
    fpmlog_damage d;
    int ret, found = 0;
    while (r && !found && (ret = fpmlog_reader_next(r, &rec, &d)) != 0 && ret != -2)
        if (ret == 1 && rec.real > 0) {
            *day_ns = rec.real - rec.real % (86400ull * 1000000000ull);
            found = 1;
        }
    fpmlog_reader_free(r);
    return found ? 0 : -1;
}

/* --from/--until into ns; 0 ok, else said (exit 2). */
static int resolve_time(config *cfg, const char *arg, const char *opt, int *has, uint64_t *ns)
{
    long sod;
    uint64_t day;
    if (!arg)
        return 0;
    switch (timearg_parse(arg, ns, &sod)) {
    case TA_OK:
        break;
    case TA_CLOCK:
        if (first_day(cfg->logs[0], &day) != 0) {
            bad_usage("%s %s: %s holds no time to take the day from", opt, arg, cfg->logs[0]);
            return -1;
        }
        *ns = day + (uint64_t)sod * 1000000000ull;
        break;
    case TA_NO_ZONE:
        bad_usage("%s %s: give the zone (Z or an offset such as +01:00)", opt, arg);
        return -1;
    default:
        bad_usage("%s must be ISO 8601 with Z or an offset (2026-11-29T14:00:00Z), "
                  "@EPOCH, or HH:MM[:SS] (00:00 to 23:59:59, a time on the first log's "
                  "first day, UTC), not \"%s\"", opt, arg);
        return -1;
    }
    *has = 1;
    return 0;
}

enum { O_HOST_MC = 256, O_CORES, O_HEADROOM, O_OWN_URI, O_EXPLAIN, O_MAXCH, O_FROM, O_UNTIL,
       O_POOL, O_CUTOFF, O_BASELINE, O_TOL, O_RISE, O_CSV_READINGS, O_CSV_ROUNDS, O_PLOT,
       O_COST };

/* The commands an option goes with. */
enum { CMD_REPORT = 1, CMD_HIST = 2, CMD_CHECK = 4, CMD_ALL = 7 };

static int goes_with(int opt)
{
    switch (opt) {
    case 'f': case O_HOST_MC: case O_CORES: case O_HEADROOM: case O_MAXCH: case O_EXPLAIN:
    case O_COST:
        return CMD_REPORT;
    case O_POOL: case O_CUTOFF:
        return CMD_HIST;
    case O_BASELINE: case O_TOL: case O_RISE:
        return CMD_CHECK;
    default:
        return CMD_ALL; /* -o, --from, --until, --own-uri, -q, the exports, help, errors */
    }
}

/* Fills cfg from argv; returns -1 to go on, else the exit code. */
static int handle_args(int argc, char **argv, config *cfg)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},
        {"host-millicores", required_argument, NULL, O_HOST_MC},
        {"cores", required_argument, NULL, O_CORES},
        {"headroom", required_argument, NULL, O_HEADROOM},
        {"own-uri", required_argument, NULL, O_OWN_URI},
        {"explain", no_argument, NULL, O_EXPLAIN},
        {"max-children", required_argument, NULL, O_MAXCH},
        {"from", required_argument, NULL, O_FROM},
        {"until", required_argument, NULL, O_UNTIL},
        {"quiet", no_argument, NULL, 'q'},
        {"pool", required_argument, NULL, O_POOL},
        {"cutoff", required_argument, NULL, O_CUTOFF},
        {"baseline", required_argument, NULL, O_BASELINE},
        {"csv-readings", required_argument, NULL, O_CSV_READINGS},
        {"csv-rounds", required_argument, NULL, O_CSV_ROUNDS},
        {"plot", required_argument, NULL, O_PLOT},
        {"cost", required_argument, NULL, O_COST},
        {"tolerance-buckets", required_argument, NULL, O_TOL},
        {"max-overhead-rise", required_argument, NULL, O_RISE},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    long long v;
    int c, idx;
    char optname[64];
    cfg->format = report_format("text");
    cfg->scenario.headroom = WI_DEFAULT_HEADROOM;
    cfg->cutoff = 99.99;
    cfg->max_rise = 10;
    int cmd = CMD_REPORT;
    if (argc > 1 && (strcmp(argv[1], "hist") == 0 || strcmp(argv[1], "check") == 0)) {
        cfg->hist = argv[1][0] == 'h';
        cfg->check = !cfg->hist;
        cmd = cfg->hist ? CMD_HIST : CMD_CHECK;
        argv++;
        argc--;
    } else if (argc > 1 && argv[1][0] >= 'a' && argv[1][0] <= 'z' &&
               strspn(argv[1], "abcdefghijklmnopqrstuvwxyz-") == strlen(argv[1]) &&
               access(argv[1], F_OK) != 0) {
        return bad_usage("\"%s\" is neither a command (hist, check) nor a LOG file", argv[1]);
    }
    opterr = 0;
    while ((idx = -1, c = getopt_long(argc, argv, ":f:o:qhV", longopts, &idx)) != -1) {
        if (idx >= 0)
            snprintf(optname, sizeof optname, "--%s", longopts[idx].name);
        else
            snprintf(optname, sizeof optname, "-%c", c);
        int goes = goes_with(c);
        if (!(goes & cmd)) {
            if (goes == CMD_HIST || goes == CMD_CHECK)
                return bad_usage("option \"%s\" goes with \"" PROG " %s\"", optname,
                                 goes == CMD_HIST ? "hist" : "check");
            return bad_usage("option \"%s\" does not go with \"" PROG " %s\"", optname,
                             cmd == CMD_HIST ? "hist" : "check");
        }
        switch (c) {
        case 'f':
            cfg->format = report_format(optarg);
            if (!cfg->format)
                return bad_usage("--format must be %s, not \"%s\"", report_format_names(), optarg);
            break;
        case 'o': cfg->output = optarg; break;
        case O_CSV_READINGS: cfg->csv_readings = optarg; break;
        case O_CSV_ROUNDS: cfg->csv_rounds = optarg; break;
        case O_PLOT: cfg->plot_dir = optarg; break;
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
        case O_MAXCH: {
            char *eq = strrchr(optarg, '=');
            if (!eq || eq == optarg || parse_count(eq + 1, 1, 1000000, &v))
                return bad_usage("--max-children wants POOL=N with N in range 1..1000000, not "
                                 "\"%s\"", optarg);
            if (cfg->scenario.nmax_children == 64)
                return bad_usage("--max-children is given more than 64 times");
            *eq = '\0';
            cfg->max_children[cfg->scenario.nmax_children++] = (wi_override){optarg, v};
            cfg->scenario.max_children = cfg->max_children;
            break;
        }
        case O_COST:
            if (strcmp(optarg, "typical") == 0)
                cfg->scenario.cost = WI_COST_TYPICAL;
            else if (strcmp(optarg, "busy") == 0)
                cfg->scenario.cost = WI_COST_BUSY;
            else
                return bad_usage("--cost must be typical or busy, not \"%s\"", optarg);
            break;
        case O_FROM: cfg->from = optarg; break;
        case O_UNTIL: cfg->until = optarg; break;
        case 'q': cfg->quiet = 1; break;
        case O_BASELINE:
        case O_TOL:
        case O_RISE:
            if (c == O_BASELINE) {
                cfg->baseline = optarg;
            } else if (c == O_TOL) {
                if (parse_count(optarg, 0, 60, &v))
                    return bad_usage("--tolerance-buckets must be in range 0..60, not \"%s\"",
                                     optarg);
                cfg->tolerance = (int)v;
            } else {
                char *end;
                errno = 0;
                cfg->max_rise = strtod(optarg, &end);
                if (errno || end == optarg || *end || !(cfg->max_rise >= 0 && cfg->max_rise <= 1000))
                    return bad_usage("--max-overhead-rise must be in range 0..1000 (percent), "
                                     "not \"%s\"", optarg);
            }
            break;
        case O_POOL:
        case O_CUTOFF:
            if (c == O_POOL) {
                cfg->pool = optarg;
            } else {
                char *end;
                errno = 0;
                cfg->cutoff = strtod(optarg, &end);
                if (errno || end == optarg || *end || !(cfg->cutoff >= 0 && cfg->cutoff <= 100))
                    return bad_usage("--cutoff must be in range 0..100, not \"%s\"", optarg);
            }
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
    if (cfg->check && !cfg->baseline)
        return bad_usage("check needs --baseline BASE.json");
    if (optind >= argc)
        return bad_usage("no LOG given");
    cfg->logs = argv + optind;
    cfg->nlogs = argc - optind;
    if (resolve_time(cfg, cfg->from, "--from", &cfg->scenario.has_from, &cfg->scenario.from_ns) ||
        resolve_time(cfg, cfg->until, "--until", &cfg->scenario.has_until,
                     &cfg->scenario.until_ns))
        return 2;
    if (cfg->scenario.has_from && cfg->scenario.has_until &&
        cfg->scenario.from_ns >= cfg->scenario.until_ns)
        return bad_usage("--from must come before --until");
    return -1;
}

/* fpm-analyze: HOST: what the figures stand on, when round pairs gave none. */
static void say_dropped_pairs(pl_host *const *hosts, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const pl_host *h = hosts[i];
        uint64_t dropped = 0;
        for (int k = 0; k < PL_NDROP; k++)
            dropped += h->pairs_dropped[k];
        if (!dropped)
            continue;
        char *hn = esc_display_name(h->hostname, h->hostname_len, NULL);
        fprintf(stderr, PROG ": %s: %llu of %llu round pairs gave no host figures (host CPU, "
                "overhead, starved rounds):", hn ? hn : "?", (unsigned long long)dropped,
                (unsigned long long)(dropped + h->pairs_usable));
        const char *sep = " ";
        for (int k = 0; k < PL_NDROP; k++)
            if (h->pairs_dropped[k]) {
                fprintf(stderr, "%s%llu %s", sep, (unsigned long long)h->pairs_dropped[k],
                        pl_drop_name((pl_drop)k));
                sep = ", ";
            }
        fputc('\n', stderr);
        free(hn);
    }
}

static int has_pool(pl_host *const *hosts, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < hosts[i]->npools; k++)
            if (hosts[i]->pools[k]->name_len == strlen(name) &&
                memcmp(hosts[i]->pools[k]->name, name, strlen(name)) == 0)
                return 1;
    return 0;
}

/* Names given on the command line that no pool has: hist --pool is an
 * error (2), --max-children a warning.  0 to go on. */
static int check_names(const config *cfg, pl_host *const *hosts, size_t n)
{
    for (size_t i = 0; i < cfg->scenario.nmax_children; i++)
        if (!has_pool(hosts, n, cfg->max_children[i].pool))
            fprintf(stderr, PROG ": --max-children %s=%lld: no pool is named \"%s\"; it changes "
                    "nothing\n", cfg->max_children[i].pool,
                    (long long)cfg->max_children[i].max_children, cfg->max_children[i].pool);
    if (cfg->pool && !has_pool(hosts, n, cfg->pool)) {
        fprintf(stderr, PROG ": hist --pool %s: no pool is named \"%s\"", cfg->pool, cfg->pool);
        const char *sep = "; the pools are: ";
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < hosts[i]->npools; k++) {
                char *pn = esc_display_name(hosts[i]->pools[k]->name,
                                               hosts[i]->pools[k]->name_len, NULL);
                fprintf(stderr, "%s%s", sep, pn ? pn : "?");
                sep = ", ";
                free(pn);
            }
        fputc('\n', stderr);
        return 2;
    }
    return 0;
}

/* A window that holds no round says so, with the span the logs cover: 2.
 * 0 to go on. */
static int check_window(const config *cfg, pl_host *const *hosts, size_t n)
{
    const wi_scenario *sc = &cfg->scenario;
    if (!sc->has_from && !sc->has_until)
        return 0;
    uint64_t first = 0, last = 0;
    for (size_t i = 0; i < n; i++) {
        if (hosts[i]->rounds)
            return 0;
        if (hosts[i]->span_first && (!first || hosts[i]->span_first < first))
            first = hosts[i]->span_first;
        if (hosts[i]->span_last > last)
            last = hosts[i]->span_last;
    }
    char a[40], b[40], x[40], y[40];
    timearg_format(sc->from_ns - sc->from_ns % 1000000000ull, a);
    timearg_format(sc->until_ns - sc->until_ns % 1000000000ull, b);
    fprintf(stderr, PROG ": no round in the window %s to %s", sc->has_from ? a : "the start",
            sc->has_until ? b : "the end");
    if (first) {
        timearg_format(first - first % 1000000000ull, x);
        timearg_format(last - last % 1000000000ull, y);
        fprintf(stderr, "; the logs span %s to %s (HH:MM is on the first log's first day, UTC)",
                x, y);
    }
    fputc('\n', stderr);
    return 2;
}

/* What a run holds besides its options. */
typedef struct {
    pipeline     *pl;
    replay_stats  st;
    csvout        csv;
    plotter      *plots;
} run;

/* The exports that watch the replay: CSV files and plots.  0, or 2 (said). */
static int open_exports(const config *cfg, run *r)
{
    char err[600];
    const char *paths[2] = {cfg->csv_readings, cfg->csv_rounds};
    FILE **files[2] = {&r->csv.readings, &r->csv.rounds};
    for (int k = 0; k < 2; k++) {
        if (paths[k] && !(*files[k] = outfile_open(paths[k], err, sizeof err))) {
            msg_warnx("%s: %s", paths[k], err);
            return 2;
        }
    }
    csvout_attach(&r->csv, r->pl);
    if (cfg->plot_dir &&
        (!(r->plots = plot_new(cfg->plot_dir, err, sizeof err)) || plot_attach(r->plots, r->pl))) {
        msg_warnx("%s", r->plots ? "too many hooks" : err);
        return 2;
    }
    return 0;
}

/* Every LOG, in order: one history.  0, or 2 when none could be read or
 * memory ran out. */
static int replay_all(const config *cfg, run *r)
{
    for (int i = 0; i < cfg->nlogs; i++)
        if (replay_file(r->pl, cfg->logs[i], PROG, stderr, !cfg->quiet && isatty(2), &r->st) == -2)
            return 2;
    return r->st.unreadable == (uint64_t)cfg->nlogs ? 2 : 0; /* nothing read: nothing to print */
}

/* What the replay means for the figures, said before them.  0, or 2. */
static int say_findings(const config *cfg, run *r)
{
    pl_host *const *hosts;
    size_t nhosts = pipeline_hosts(r->pl, &hosts);
    if (nhosts == 0)
        msg_warnx("no HOST record in the input: nothing to analyze");
    say_dropped_pairs(hosts, nhosts);
    int rc = check_window(cfg, hosts, nhosts);
    return rc ? rc : check_names(cfg, hosts, nhosts);
}

/* The report, the hist view or the check, on standard output or into -o
 * FILE through FILE.tmp.  0, 1 (check: worse), or 2. */
static int write_output(const config *cfg, run *r)
{
    char err[600], tmp[4096];
    FILE *out = stdout;
    if (cfg->output) {
        snprintf(tmp, sizeof tmp, "%s.tmp", cfg->output);
        if (outfile_replaceable(cfg->output, err, sizeof err) != 0) {
            msg_warnx("%s: %s", cfg->output, err);
            return 2;
        }
        if (!(out = outfile_open(tmp, err, sizeof err))) {
            msg_warnx("%s: %s", tmp, err);
            return 2;
        }
    }
    int rc = 0, bad;
    if (cfg->check) {
        int worse = check_against(out, r->pl, &cfg->scenario, cfg->baseline, cfg->tolerance,
                                  cfg->max_rise, err, sizeof err);
        if (worse < 0) {
            msg_warnx("%s: %s", cfg->baseline, err);
            if (out != stdout) {
                fclose(out);
                unlink(tmp);
            }
            return 2;
        }
        rc = worse > 0;
        bad = fflush(out) != 0;
    } else {
        bad = (cfg->hist ? out_hist_print(out, r->pl, cfg->pool, cfg->cutoff)
                         : report_print(out, cfg->format, r->pl, &cfg->scenario)) != 0;
    }
    bad |= out == stdout ? fflush(out) != 0 : fclose(out) != 0;
    if (!bad && cfg->output && rename(tmp, cfg->output) != 0)
        bad = 1;
    if (bad) {
        msg_warnx("could not write the output%s%s: %s", cfg->output ? " to " : "",
                  cfg->output ? cfg->output : "", strerror(errno));
        if (cfg->output)
            unlink(tmp);
        return 2;
    }
    return rc;
}

/* Closes the exports; 2 when one could not be written, else rc. */
static int close_exports(const config *cfg, run *r, int rc)
{
    for (int k = 0; k < 2; k++) {
        FILE *f = k ? r->csv.rounds : r->csv.readings;
        if (f && fclose(f) != 0) {
            msg_warnx("%s: could not write: %s", k ? cfg->csv_rounds : cfg->csv_readings,
                      strerror(errno));
            rc = 2;
        }
    }
    plot_free(r->plots);
    replay_stats_free(&r->st);
    pipeline_free(r->pl);
    return rc;
}

int main(int argc, char **argv)
{
    msg_init(PROG);
    config cfg = {0};
    int rc = handle_args(argc, argv, &cfg);
    if (rc >= 0) {
        rd_prefixes_free(&cfg.own_uri);
        return rc;
    }
    pl_options opt = {.own_uri = &cfg.own_uri,
                      .has_from = cfg.scenario.has_from, .from_ns = cfg.scenario.from_ns,
                      .has_until = cfg.scenario.has_until, .until_ns = cfg.scenario.until_ns};
    run r = {.pl = pipeline_new(&opt)};
    rc = r.pl ? open_exports(&cfg, &r) : 2;
    if (!r.pl)
        msg_warnx("out of memory");
    if (rc == 0)
        rc = replay_all(&cfg, &r);
    if (rc == 0)
        rc = say_findings(&cfg, &r);
    int plots_failed = 0;
    if (rc == 0 && r.plots) {
        char note[600];
        plots_failed = plot_finish(r.plots, r.pl, note, sizeof note) < 0;
        msg_warnx("%s", note);
    }
    if (rc == 0)
        rc = write_output(&cfg, &r);
    if (plots_failed || r.st.unreadable)
        rc = 2; /* the figures stand on the rest: said, and the exit says so */
    rc = close_exports(&cfg, &r, rc);
    rd_prefixes_free(&cfg.own_uri);
    return rc;
}
