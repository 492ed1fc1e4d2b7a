/* fpm-analyze's options. */
#define _POSIX_C_SOURCE 200809L
#include "options.h"
#include "rc.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fpmlog.h"
#include "msg.h"
#include "numarg.h"
#include "timearg.h"
#include "version.h"

static void usage_commands(FILE *out);

static void usage(FILE *out)
{
    fprintf(out,
"Usage: " PROG " [OPTION]... LOG...\n"
"       " PROG " hist [--pool POOL] [--cutoff PCT] [OPTION]... LOG...\n"
"       " PROG " check --baseline BASE.json [--tolerance-buckets N]\n"
"                   [--max-overhead-rise PCT] [OPTION]... LOG...\n"
"       " PROG " timing [--cutoff PCT] LOG...\n"
"       " PROG " cut [--from T] [--until T] [--redact-query] -o OUT LOG...\n"
"       " PROG " advise [--format text|json] [--at N[,N...]] [OPTION]... LOG...\n"
"       " PROG " routes [--pool POOL] [--top N] [--format text|json] [OPTION]... LOG...\n"
"Replays fpm-record logs and prints, per php-fpm pool, how CPU-bound its\n"
"requests are, what a busy worker costs the host, and how many busy workers\n"
"fill the CPU.  Several LOGs are one history, in the order given.\n"
"\n"
"  -f, --format FMT          one of (text is the default):\n");
    report_format_help(out);
    fprintf(out,
"  -o, --output FILE         write FILE.tmp, then rename it to FILE (- standard output)\n"
"      --csv-readings FILE   a CSV row per worker seen per round, with its verdict\n"
"      --csv-rounds FILE     a CSV row per round and pool: host and pool CPU,\n"
"                            steal, throttled, pressure and accounted shares,\n"
"                            listen queue, fit point, starved\n"
"      --csv-routes FILE     a CSV row per host, pool and route, with its figures\n"
"      --route-param NAME    the query parameter NAME is part of a route\n"
"                            (/admin-ajax.php?action=heartbeat, OpenCart's\n"
"                            route=); repeatable, at most 8\n"
"      --plot DIR            per pool: histogram, fit and time series as PNG and\n"
"                            SVG (gnuplot), with the .dat and .gp files\n"
"      --host-millicores N   judge against a host of N millicores (what-if)\n"
"      --cores N             the same, N whole cores\n"
"      --mem-limit SIZE      judge against SIZE of memory instead of MemTotal or\n"
"                            php-fpm's cgroup limit (what-if; k, M or G)\n"
"      --headroom H          ceiling = fill x H, 1 to 100, two decimals at most\n"
"                            (default 2)\n"
"      --max-children POOL=N what-if: pm.max_children N for pools named POOL\n"
"                            (repeatable)\n"
"      --cost busy|typical   what a busy worker's PHP costs: the duration-weighted\n"
"                            share (BUSY, the default), or TYPICAL x 10\n"
"      --fit joint|dominant  the host overhead that sizes: the joint fit over all\n"
"                            pools (the default), or the dominant pool's own line\n"
"      --from T, --until T   only rounds from T and before T: ISO 8601 with Z or\n"
"                            an offset (2026-11-29T14:00:00Z), @EPOCH, or HH:MM[:SS]\n"
"                            on the log's first day (UTC); earlier rounds prime\n"
"                            the state but count nothing\n"
"      --own-uri PREFIX      requests whose URI starts with PREFIX are\n"
"                            monitoring, not visitors (repeatable)\n"
"      --explain             text: also print why readings were not counted and\n"
"                            which round pairs gave no host figures\n"
"      --threads N           read, decode, parse and apply the rounds on N\n"
"                            threads (default the online CPUs; 1 is serial;\n"
"                            at most 6 are used); the figures are the same\n"
"  -q, --quiet               no progress line\n"
"\n");
    usage_commands(out);
}

/* The commands' own options, and what the exit status says. */
static void usage_commands(FILE *out)
{
    fprintf(out,
"hist prints each pool's distribution of CPU shares, one row per bucket,\n"
"up to the cutoff (default 99.99%%), then the largest bucket observed:\n"
"      --pool POOL           only pools named POOL\n"
"      --cutoff PCT          stop once the running %% reaches PCT (0..100)\n"
"\n"
"check compares LOG with an earlier --format json output and exits 1 with\n"
"what got worse: TYPICAL, P90 or the busy share up by more than N buckets\n"
"(default 0), a shape toward cpu-bound, overhead up by more than PCT%%\n"
"(default 10), new starved rounds, a pool with too few readings now or gone;\n"
"0 when nothing did.  It also names a host whose steal, throttled or\n"
"pressure p90 rose by more than N buckets.\n"
"\n"
"cut writes a new log, OUT (mode 0600; never over an existing file), with\n"
"what the window needs: the HOST and POOL records, the rounds before it that\n"
"prime the state, its rounds and the notes between; analyzing OUT with the\n"
"same --from/--until prints what the window over the LOGs prints.  Without a\n"
"window it re-encodes the whole input, each frame with its summary:\n"
"      --redact-query        strip query strings from the URIs it copies\n"
"      --frame-size SIZE     end a frame after the round that brings it to SIZE\n"
"                            of records (k, M; default 4M)\n"
"\n"
"advise prints, per host and pool, pm.max_children now, the CPU and the\n"
"memory ceilings, the advice (the lower of the two) and which one binds,\n"
"and what N workers can give and what each request would take there\n"
"(\"at N workers: <= X req/s, each >= Y ms; p50 A ms, p95 B ms\") for 1,\n"
"the knee, now, the advice and each N of --at (1 to 100000); then, for\n"
"each pool whose advice\n"
"differs from now, the unified diff of its pm.max_children line, which\n"
"`patch -p1 -d /` applies on that host.  It takes the report's what-if\n"
"options (--cores, --mem-limit, --max-children, ...).\n"
"\n"
"routes prints, per pool, its routes by CPU (the script php-fpm ran, ids\n"
"folded to {id}, no query but the --route-param ones): the readings, the\n"
"share of the pool's CPU, CPU per request, busy share, p50 and p95 of the\n"
"recorded time, p95 at the advice and the largest request memory; then\n"
"what the rest hold.  A pool whose web server sends every path to one\n"
"front controller (index.php) has one route: php-fpm never sees the\n"
"visitor's URI.\n"
"      --pool POOL           only pools named POOL\n"
"      --top N               the N routes of most CPU (1 to 1000, default 10)\n"
"\n"
"timing prints the recorder's clock check of each start (its TIMING\n"
"record) as PostgreSQL's pg_test_timing does: the log2 histogram of the\n"
"differences between successive clock reads, then the exact differences up\n"
"to --cutoff (default 99.99%%), then the largest.\n"
"\n"
"  -h, --help                print this help and exit\n"
"  -V, --version             print the version and exit\n"
"\n"
"Standard output is data; messages go to standard error.  Damaged records\n"
"are reported with their byte offset and skipped.  No output (-o, --csv-*,\n"
"--plot files) is ever written over an input or over a file that begins like\n"
"a log: that is refused (2) before anything is written.  A --csv-* FILE of -\n"
"is standard output, when -o sends the report elsewhere.\n"
"Exit status: 0 ok, 1 a check failed, 2 usage or unreadable input.\n"
"How to read every figure (the 50 ms floor, bucket floors, the 5 s to 5 min\n"
"pairs, ...): man 7 fpm-cpu (in the source tree: man -l man/fpm-cpu.7).\n");
}


/* "2", "1.5", "1.25" into hundredths, 100..10000; 0 ok, -1 not. */
static int parse_headroom(const char *s, int *out)
{
    long long whole = 0;
    int frac = 0, digits = 0;
    const char *p = s;
    if (*p < '0' || *p > '9')
        return FPM_EFAIL;
    while (*p >= '0' && *p <= '9') {
        whole = whole * 10 + (*p++ - '0');
        if (whole > 100)
            return FPM_EFAIL;
    }
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9' && digits < 3) {
            frac = frac * 10 + (*p++ - '0');
            digits++;
        }
        if (digits == 0 || digits > 2)
            return FPM_EFAIL;
        if (digits == 1)
            frac *= 10;
    }
    if (*p)
        return FPM_EFAIL;
    long long h = whole * 100 + frac;
    if (h < 100 || h > 10000)
        return FPM_EFAIL;
    *out = (int)h;
    return 0;
}

/* --from/--until into ns, or into *sod (seconds of the day) when it is
 * HH:MM[:SS], which options_window resolves; 0 ok, else said (exit 2). */
static int resolve_time(const char *arg, const char *opt, int *has, uint64_t *ns, long *sod)
{
    *sod = -1;
    if (!arg)
        return 0;
    switch (timearg_parse(arg, ns, sod)) {
    case TA_OK:
        *sod = -1;
        break;
    case TA_CLOCK:
        break;
    case TA_NO_ZONE:
        msg_usage("%s %s: give the zone (Z or an offset such as +01:00)", opt, arg);
        return FPM_EFAIL;
    default:
        msg_usage("%s must be ISO 8601 with Z or an offset (2026-11-29T14:00:00Z), "
                  "@EPOCH, or HH:MM[:SS] (00:00 to 23:59:59, a time on the first log's "
                  "first day, UTC), not \"%s\"", opt, arg);
        return FPM_EFAIL;
    }
    *has = 1;
    return 0;
}

enum { O_HOST_MC = 256, O_CORES, O_HEADROOM, O_OWN_URI, O_EXPLAIN, O_MAXCH, O_FROM, O_UNTIL,
       O_POOL, O_CUTOFF, O_BASELINE, O_TOL, O_RISE, O_CSV_READINGS, O_CSV_ROUNDS, O_PLOT,
       O_COST, O_THREADS, O_FIT, O_REDACT, O_FRAME_SIZE, O_MEM_LIMIT, O_AT, O_ROUTE_PARAM,
       O_CSV_ROUTES, O_TOP };

/* The commands an option goes with. */
/* The commands (options.h) as a mask: those that replay, and all. */
enum { CMD_REPLAY = CMD_REPORT | CMD_HIST | CMD_CHECK | CMD_ADVISE | CMD_ROUTES,
       CMD_ALL = CMD_REPLAY | CMD_TIMING | CMD_CUT };

static const char *const CMD_NAMES[] = {[CMD_REPORT] = "", [CMD_HIST] = "hist",
                                        [CMD_CHECK] = "check", [CMD_TIMING] = "timing",
                                        [CMD_CUT] = "cut", [CMD_ADVISE] = "advise",
                                        [CMD_ROUTES] = "routes"};

static int goes_with(int opt)
{
    switch (opt) {
    case O_EXPLAIN:
        return CMD_REPORT;
    case 'f':
        return CMD_REPORT | CMD_ADVISE | CMD_ROUTES;
    case O_HOST_MC: case O_CORES: case O_HEADROOM: case O_MAXCH: case O_COST:
    case O_MEM_LIMIT:
        return CMD_REPORT | CMD_ADVISE | CMD_ROUTES; /* routes: p95 at the advice */
    case O_POOL:
        return CMD_HIST | CMD_ROUTES;
    case O_TOP:
        return CMD_ROUTES;
    case O_CSV_ROUTES:
        return CMD_REPORT;
    case O_CUTOFF:
        return CMD_HIST | CMD_TIMING;
    case O_BASELINE: case O_TOL: case O_RISE:
        return CMD_CHECK;
    case O_FIT:
        return CMD_REPORT | CMD_CHECK | CMD_ADVISE | CMD_ROUTES;
    case O_FROM: case O_UNTIL:
        return CMD_REPLAY | CMD_CUT;
    case O_REDACT: case O_FRAME_SIZE:
        return CMD_CUT;
    case O_AT:
        return CMD_ADVISE;
    case O_OWN_URI: case O_CSV_READINGS: case O_CSV_ROUNDS: case O_PLOT: case O_THREADS:
    case O_ROUTE_PARAM:
        return CMD_REPLAY; /* what replays the rounds */
    default:
        return CMD_ALL; /* -o, -q, help, errors */
    }
}

/* advise --at N[,N...]: more N for its lines (18.4), each 1..100000, at
 * most 16 in all. */
static int take_at(config *cfg, char *s)
{
    for (char *t = s, *next; t; t = next) {
        long long v;
        if ((next = strchr(t, ',')))
            *next++ = '\0';
        if (num_whole(t, 1, 100000, &v))
            return msg_usage("--at wants N[,N...] with each N in range 1..100000, not \"%s\"", t);
        if (cfg->nat == sizeof cfg->at / sizeof cfg->at[0])
            return msg_usage("--at names more than 16 worker counts");
        cfg->at[cfg->nat++] = v;
        cfg->scenario.at = cfg->at; /* advise's lines are decided with the rest */
        cfg->scenario.nat = cfg->nat;
    }
    return -1;
}

/* --max-children POOL=N, kept for the scenario (POOL points into s). */
static int take_max_children(config *cfg, char *s)
{
    long long v;
    char *eq = strrchr(s, '=');
    if (!eq || eq == s || num_whole(eq + 1, 1, 1000000, &v))
        return msg_usage("--max-children wants POOL=N with N in range 1..1000000, not "
                         "\"%s\"", s);
    if (cfg->scenario.nmax_children == 64)
        return msg_usage("--max-children is given more than 64 times");
    *eq = '\0';
    cfg->max_children[cfg->scenario.nmax_children++] = (wi_override){s, v};
    cfg->scenario.max_children = cfg->max_children;
    return FPM_EFAIL;
}

/* One of two words: *v 0 for the first, 1 for the second.  -1 to go on,
 * else the usage error's exit code. */
static int take_choice(const char *opt, const char *arg, const char *a, const char *b, int *v)
{
    if (strcmp(arg, a) != 0 && strcmp(arg, b) != 0)
        return msg_usage("%s must be %s or %s, not \"%s\"", opt, a, b, arg);
    *v = strcmp(arg, b) == 0;
    return FPM_EFAIL;
}

/* --route-param NAME (19.1): at most RT_MAX_PARAMS, each a name alone.
 * -1 to go on, else the usage error's exit code. */
static int take_route_param(rt_params *rp, char *name)
{
    if (name[0] == '\0' || strpbrk(name, "=&#?"))
        return msg_usage("--route-param wants a query parameter's name (route, action), "
                         "without = & # or ?, not \"%s\"", name);
    if (rp->n == RT_MAX_PARAMS)
        return msg_usage("--route-param is given more than %d times", RT_MAX_PARAMS);
    rp->name[rp->n] = name;
    rp->len[rp->n++] = strlen(name);
    return FPM_EFAIL;
}

/* An option of the what-if scenario (section 8) into cfg->scenario: -1 to
 * go on (also for an option that is none of them), else the usage error's
 * exit code. */
static int take_scenario(config *cfg, int c, char *optarg)
{
    long long v;
    switch (c) {
    case O_HOST_MC:
        if (num_whole(optarg, 1, 100000000, &v))
            return msg_usage("--host-millicores must be a whole number in range "
                             "1..100000000, not \"%s\"", optarg);
        cfg->scenario.host_millicores = (uint64_t)v;
        cfg->scenario.has_host_millicores = 1;
        break;
    case O_CORES:
        if (num_whole(optarg, 1, 100000, &v))
            return msg_usage("--cores must be a whole number in range 1..100000, "
                             "not \"%s\"", optarg);
        cfg->scenario.host_millicores = (uint64_t)v * 1000; /* N whole cores */
        cfg->scenario.has_host_millicores = 1;
        break;
    case O_MEM_LIMIT:
        if (num_size(optarg, &cfg->scenario.mem_limit, 1u << 20, 1ull << 50))
            return msg_usage("--mem-limit must be a size from 1M to 1048576G (bytes, or with k, "
                             "M or G), not \"%s\"", optarg);
        cfg->scenario.has_mem_limit = 1;
        break;
    case O_HEADROOM:
        if (parse_headroom(optarg, &cfg->scenario.headroom))
            return msg_usage("--headroom must be in range 1..100 with at most two "
                             "decimals, not \"%s\"", optarg);
        break;
    case O_EXPLAIN: cfg->scenario.explain = 1; break;
    case O_MAXCH: return take_max_children(cfg, optarg);
    case O_COST: return take_choice("--cost", optarg, "busy", "typical", &cfg->scenario.cost);
    case O_FIT: return take_choice("--fit", optarg, "joint", "dominant", &cfg->scenario.fit);
    default:
        break;
    }
    return FPM_EFAIL;
}

/* One option of the command line into cfg: -1 to go on, else the exit
 * code (2, said). */
static int take_option(config *cfg, int c, char *optarg)
{
    long long v;
    switch (c) {
    case 'f':
        cfg->format = report_format(optarg);
        if (!cfg->format)
            return msg_usage("--format must be %s, not \"%s\"", report_format_names(), optarg);
        break;
    case 'o': cfg->output = strcmp(optarg, "-") == 0 ? NULL : optarg; break;
    case O_CSV_READINGS: cfg->csv_readings = optarg; break;
    case O_CSV_ROUNDS: cfg->csv_rounds = optarg; break;
    case O_CSV_ROUTES: cfg->csv_routes = optarg; break;
    case O_ROUTE_PARAM: return take_route_param(&cfg->route_params, optarg);
    case O_TOP:
        if (num_whole(optarg, 1, 1000, &v))
            return msg_usage("--top must be a whole number in range 1..1000, not \"%s\"", optarg);
        cfg->top = (long)v;
        break;
    case O_PLOT: cfg->plot_dir = optarg; break;
    case O_REDACT: cfg->redact = 1; break;
    case O_FRAME_SIZE:
        if (num_size(optarg, &cfg->frame_bytes, 1u << 10, 1024u << 20))
            return msg_usage("--frame-size must be from 1k to 1024M (4M), not \"%s\"", optarg);
        break;
    case O_OWN_URI:
        if (optarg[0] == '\0')
            return msg_usage("--own-uri needs a non-empty prefix");
        if (rd_prefixes_add(&cfg->own_uri, optarg, strlen(optarg)))
            return msg_usage("out of memory");
        break;
    case O_THREADS:
        if (num_whole(optarg, 1, 256, &v))
            return msg_usage("--threads must be a whole number from 1 to 256, not \"%s\"", optarg);
        cfg->threads = (int)v;
        break;
    case O_FROM: cfg->from = optarg; break;
    case O_UNTIL: cfg->until = optarg; break;
    case 'q': cfg->quiet = 1; break;
    case O_BASELINE: cfg->baseline = optarg; break;
    case O_AT: return take_at(cfg, optarg);
    case O_TOL:
        if (num_whole(optarg, 0, 60, &v))
            return msg_usage("--tolerance-buckets must be in range 0..60, not \"%s\"", optarg);
        cfg->tolerance = (int)v;
        break;
    case O_RISE:
        if (num_real(optarg, 0, 1000, &cfg->max_rise))
            return msg_usage("--max-overhead-rise must be in range 0..1000 (percent), "
                             "not \"%s\"", optarg);
        break;
    case O_POOL: cfg->pool = optarg; break;
    case O_CUTOFF:
        if (num_real(optarg, 0, 100, &cfg->cutoff))
            return msg_usage("--cutoff must be in range 0..100, not \"%s\"", optarg);
        break;
    default:
        return take_scenario(cfg, c, optarg);
    }
    return FPM_EFAIL;
}

/* The command named by argv[1] (hist, check, timing; else the report) into
 * cfg, past which argv then starts.  0, or 2 when argv[1] looks like a
 * mistyped command rather than a LOG (said). */
static int take_command(config *cfg, int *argc, char ***argv)
{
    char **v = *argv;
    cfg->command = CMD_REPORT;
    for (int k = CMD_HIST; *argc > 1 && k <= CMD_ROUTES; k *= 2)
        if (strcmp(v[1], CMD_NAMES[k]) == 0) {
            cfg->command = k;
            (*argv)++;
            (*argc)--;
            return 0;
        }
    if (*argc > 1 && v[1][0] >= 'a' && v[1][0] <= 'z' &&
        strspn(v[1], "abcdefghijklmnopqrstuvwxyz-") == strlen(v[1]) && access(v[1], F_OK) != 0)
        return msg_usage("\"%s\" is neither a command (hist, check, timing, cut, advise, "
                         "routes) nor a LOG file", v[1]);
    return 0;
}

/* At most one thing goes to standard output: the report, unless -o sends
 * it elsewhere, or one CSV given as "-".  0, or 2 (said). */
static int check_stdout(const config *cfg)
{
    int rd = cfg->csv_readings && strcmp(cfg->csv_readings, "-") == 0;
    int rn = cfg->csv_rounds && strcmp(cfg->csv_rounds, "-") == 0;
    int rt = cfg->csv_routes && strcmp(cfg->csv_routes, "-") == 0;
    if (rd + rn + rt > 1)
        return msg_usage("only one of --csv-readings, --csv-rounds and --csv-routes can go to "
                         "standard output (-)");
    if ((rd || rn || rt) && !cfg->output)
        return msg_usage("%s -: standard output carries the report; send the report elsewhere "
                         "with -o FILE",
                         rd ? "--csv-readings" : rn ? "--csv-rounds" : "--csv-routes");
    return 0;
}

static int check_args(config *cfg, int argc, char **argv);

/* The defaults, before the command line. */
static void set_defaults(config *cfg)
{
    cfg->format = report_format("text");
    cfg->scenario.headroom = WI_DEFAULT_HEADROOM;
    cfg->cutoff = 99.99;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cfg->threads = cpus < 1 ? 1 : cpus > 64 ? 64 : (int)cpus;
    cfg->max_rise = 10;
    cfg->top = 10;
    cfg->frame_bytes = FPMLOG_FRAME_BYTES;
}

/* An option given to a command it does not go with (goes_with): the usage
 * error, said, and its exit code. */
static int wrong_command(const char *optname, int goes, int cmd)
{
    if (goes == CMD_HIST || goes == CMD_CHECK || goes == CMD_ROUTES)
        return msg_usage("option \"%s\" goes with \"" PROG " %s\"", optname, CMD_NAMES[goes]);
    if (goes == (CMD_HIST | CMD_ROUTES))
        return msg_usage("option \"%s\" goes with \"" PROG " hist\" and \"" PROG " routes\"",
                         optname);
    return msg_usage("option \"%s\" does not go with \"" PROG "%s%s\"", optname,
                     cmd == CMD_REPORT ? "" : " ", CMD_NAMES[cmd]);
}

/* Fills cfg from argv; returns -1 to go on, else the exit code. */
int options_parse(int argc, char **argv, config *cfg)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},
        {"host-millicores", required_argument, NULL, O_HOST_MC},
        {"cores", required_argument, NULL, O_CORES},
        {"mem-limit", required_argument, NULL, O_MEM_LIMIT},
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
        {"csv-routes", required_argument, NULL, O_CSV_ROUTES},
        {"route-param", required_argument, NULL, O_ROUTE_PARAM},
        {"top", required_argument, NULL, O_TOP},
        {"plot", required_argument, NULL, O_PLOT},
        {"cost", required_argument, NULL, O_COST},
        {"fit", required_argument, NULL, O_FIT},
        {"threads", required_argument, NULL, O_THREADS},
        {"tolerance-buckets", required_argument, NULL, O_TOL},
        {"at", required_argument, NULL, O_AT},
        {"max-overhead-rise", required_argument, NULL, O_RISE},
        {"redact-query", no_argument, NULL, O_REDACT},
        {"frame-size", required_argument, NULL, O_FRAME_SIZE},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int c, idx;
    char optname[64];
    set_defaults(cfg);
    if (take_command(cfg, &argc, &argv) != 0)
        return 2;
    int cmd = (int)cfg->command;
    opterr = 0;
    while ((idx = -1, c = getopt_long(argc, argv, ":f:o:qhV", longopts, &idx)) != -1) {
        if (idx >= 0)
            snprintf(optname, sizeof optname, "--%s", longopts[idx].name);
        else
            snprintf(optname, sizeof optname, "-%c", c);
        int goes = goes_with(c);
        if (!(goes & cmd))
            return wrong_command(optname, goes, cmd);
        int rc = take_option(cfg, c, optarg);
        if (rc >= 0)
            return rc;
        switch (c) {
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf(PROG " " FPMCPU_VERSION "\n");
            return 0;
        case ':':
            return msg_usage("option \"%s\" needs an argument", argv[optind - 1]);
        case '?':
            return msg_usage("unknown option \"%s\"", argv[optind - 1]);
        }
    }
    return check_args(cfg, argc, argv);
}

/* What the options say together, and the LOGs past them: -1 to go on, else
 * 2 (said). */
static int check_args(config *cfg, int argc, char **argv)
{
    if (cfg->command == CMD_CHECK && !cfg->baseline)
        return msg_usage("check needs --baseline BASE.json");
    if ((cfg->command == CMD_ADVISE || cfg->command == CMD_ROUTES) &&
        strcmp(cfg->format->name, "text") != 0 && strcmp(cfg->format->name, "json") != 0)
        return msg_usage("%s prints text or json, not %s", CMD_NAMES[cfg->command],
                         cfg->format->name);
    if (cfg->command == CMD_CUT && !cfg->output)
        return msg_usage("cut needs -o OUT, a new file for the log it writes");
    if (optind >= argc)
        return msg_usage("no LOG given");
    if (check_stdout(cfg) != 0)
        return 2;
    cfg->logs = argv + optind;
    cfg->nlogs = argc - optind;
    if (resolve_time(cfg->from, "--from", &cfg->scenario.has_from, &cfg->scenario.from_ns,
                     &cfg->from_sod) ||
        resolve_time(cfg->until, "--until", &cfg->scenario.has_until, &cfg->scenario.until_ns,
                     &cfg->until_sod))
        return 2;
    return cfg->from_sod >= 0 || cfg->until_sod >= 0 ? -1 : options_window(cfg, 0, 0);
}

int options_window(config *cfg, uint64_t day_ns, int has_day)
{
    const char *opt[2] = {"--from", "--until"}, *arg[2] = {cfg->from, cfg->until};
    long *sod[2] = {&cfg->from_sod, &cfg->until_sod};
    uint64_t *ns[2] = {&cfg->scenario.from_ns, &cfg->scenario.until_ns};
    for (int k = 0; k < 2; k++) {
        if (*sod[k] < 0)
            continue;
        if (!has_day)
            return msg_usage("%s %s: %s holds no time to take the day from", opt[k], arg[k],
                             cfg->logs[0]);
        *ns[k] = day_ns + (uint64_t)*sod[k] * 1000000000ull;
        *sod[k] = -1;
    }
    if (cfg->scenario.has_from && cfg->scenario.has_until &&
        cfg->scenario.from_ns >= cfg->scenario.until_ns)
        return msg_usage("--from must come before --until");
    return FPM_EFAIL;
}

