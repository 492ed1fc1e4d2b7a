/* fpm-analyze: replays fpmlogs and prints what each php-fpm pool costs the CPU. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rc.h"
#include "advise.h"
#include "check.h"
#include "rows.h"
#include "routes_cmd.h"
#include "escape.h"
#include "outfile.h"
#include "plot.h"
#include "fpmlog.h"
#include "pipeline.h"
#include "readings.h"
#include "replay.h"
#include "cut.h"
#include "seek.h"
#include "window.h"
#include "timing.h"
#include "report.h"
#include "timearg.h"
#include "msg.h"
#include "options.h"
#include "version.h"


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
        msg_start("%s: %llu of %llu round pairs gave no host figures (host CPU, overhead, "
                  "starved rounds):", hn ? hn : "?", (unsigned long long)dropped,
                  (unsigned long long)(dropped + h->pairs_usable));
        const char *sep = " ";
        for (int k = 0; k < PL_NDROP; k++)
            if (h->pairs_dropped[k]) {
                msg_more("%s%llu %s", sep, (unsigned long long)h->pairs_dropped[k],
                         pl_drop_name((pl_drop)k));
                sep = ", ";
            }
        msg_end();
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

/* fpm-analyze: OPTION: no pool is named "NAME"; the pools are: ... */
static void say_no_such_pool(const char *option, const char *name, pl_host *const *hosts,
                             size_t n)
{
    msg_start("%s: no pool is named \"%s\"", option, name);
    const char *sep = "; the pools are: ";
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < hosts[i]->npools; k++) {
            char *pn = esc_display_name(hosts[i]->pools[k]->name, hosts[i]->pools[k]->name_len,
                                        NULL);
            msg_more("%s%s", sep, pn ? pn : "?");
            sep = ", ";
            free(pn);
        }
    msg_end();
}

/* Names given on the command line that no pool has (hist --pool,
 * --max-children): a typo must not pass for an answer.  0 to go on, or 2
 * (said). */
static int check_names(const config *cfg, pl_host *const *hosts, size_t n)
{
    char option[300];
    for (size_t i = 0; i < cfg->scenario.nmax_children; i++)
        if (!has_pool(hosts, n, cfg->max_children[i].pool)) {
            snprintf(option, sizeof option, "--max-children %s=%lld", cfg->max_children[i].pool,
                     (long long)cfg->max_children[i].max_children);
            say_no_such_pool(option, cfg->max_children[i].pool, hosts, n);
            return 2;
        }
    if (cfg->pool && !has_pool(hosts, n, cfg->pool)) {
        snprintf(option, sizeof option, "%s --pool %s",
                 cfg->command == CMD_ROUTES ? "routes" : "hist", cfg->pool);
        say_no_such_pool(option, cfg->pool, hosts, n);
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
    msg_start("no round in the window %s to %s", sc->has_from ? a : "the start",
            sc->has_until ? b : "the end");
    if (first) {
        timearg_format(first - first % 1000000000ull, x);
        timearg_format(last - last % 1000000000ull, y);
        msg_more("; the logs span %s to %s (HH:MM is on the first log's first day, UTC)", x, y);
    }
    msg_end();
    return 2;
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

/* What a run holds besides its options. */
typedef struct {
    pipeline     *pl;
    wi_answers    ans;            /* each host's answer, decided once (decide_answers) */
    replay       *rp;
    csvout        csv;
    plotter      *plots;
    seek         *sk;
    char          page_dir[4096]; /* the page's charts, drawn here and removed ("" none) */
    const char   *charts_note;    /* the page: why it has no charts */
} run;

/* The page (--format html) of the report: its charts come from --plot DIR,
 * or from a folder of its own. */
static int is_page(const config *cfg)
{
    return cfg->command == CMD_REPORT && strcmp(cfg->format->name, "html") == 0;
}

/* The page's own chart folder, under $TMPDIR (or /tmp), mode 0700.  0, or
 * -1 (no charts then: the page says so). */
static int page_dir_new(run *r)
{
    const char *t = getenv("TMPDIR");
    if (!t || !*t)
        t = "/tmp";
    if ((size_t)snprintf(r->page_dir, sizeof r->page_dir, "%s/fpm-analyze-page.XXXXXX", t) >=
            sizeof r->page_dir ||
        !mkdtemp(r->page_dir)) {
        r->page_dir[0] = '\0';
        return FPM_EFAIL;
    }
    return 0;
}

/* Removes the page's chart folder: the files the plots wrote there, then
 * the folder (only what it holds directly: it made no other). */
static void page_dir_remove(run *r)
{
    if (!r->page_dir[0])
        return;
    DIR *d = opendir(r->page_dir);
    if (d) {
        int fd = dirfd(d);
        struct dirent *e;
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                unlinkat(fd, e->d_name, 0);
        closedir(d);
    }
    rmdir(r->page_dir);
    r->page_dir[0] = '\0';
}

static int chart_base(void *arg, const pl_pool *p, char *out, size_t n)
{
    return plot_base_of(arg, p, out, n);
}

static int is_stdout(const char *path)
{
    return path && strcmp(path, "-") == 0;
}

/* Where an output goes as it is, never through FILE.tmp: standard output,
 * or the null device (what the user does not want). */
static FILE *open_as_is(const char *path)
{
    return is_stdout(path) ? stdout : outfile_is_null(path) ? fopen(path, "w") : NULL;
}

/* Every output file named on the command line, checked before anything is
 * opened for writing: none is an input or a log.  0, or 2 (said). */
static int check_outputs(const config *cfg)
{
    char err[600], tmp[4096] = "", rtmp[4096] = "";
    if (cfg->output)
        snprintf(tmp, sizeof tmp, "%s.tmp", cfg->output);
    if (cfg->csv_routes)
        snprintf(rtmp, sizeof rtmp, "%s.tmp", cfg->csv_routes);
    const char *paths[6] = {cfg->output, cfg->output ? tmp : NULL, cfg->csv_readings,
                            cfg->csv_rounds, cfg->csv_routes, cfg->csv_routes ? rtmp : NULL};
    if (outfile_is_null(cfg->output))
        paths[0] = paths[1] = NULL;
    if (outfile_is_null(cfg->csv_routes) || is_stdout(cfg->csv_routes))
        paths[5] = NULL;
    for (int k = 0; k < 6; k++)
        if (paths[k] && !is_stdout(paths[k]) && !outfile_is_null(paths[k]) &&
            outfile_replaceable(paths[k], err, sizeof err) != 0) {
            msg_warnx("%s: %s", paths[k], err);
            return 2;
        }
    return 0;
}

/* The exports that watch the replay: CSV files and plots.  0, or 2 (said). */
static int open_exports(const config *cfg, run *r)
{
    char err[600];
    const char *paths[2] = {cfg->csv_readings, cfg->csv_rounds};
    FILE **files[2] = {&r->csv.readings, &r->csv.rounds};
    for (int k = 0; k < 2; k++) {
        if (paths[k] && (is_stdout(paths[k]) || outfile_is_null(paths[k]))) {
            if (!(*files[k] = open_as_is(paths[k]))) {
                msg_warnx("%s: %s", paths[k], strerror(errno));
                return 2;
            }
        } else if (paths[k] && !(*files[k] = outfile_open(paths[k], err, sizeof err))) {
            msg_warnx("%s: %s", paths[k], err);
            return 2;
        }
    }
    rows_attach(&r->csv, r->pl);
    if (cfg->plot_dir &&
        (!(r->plots = plot_new(cfg->plot_dir, err, sizeof err)) || plot_attach(r->plots, r->pl))) {
        msg_warnx("%s", r->plots ? "too many hooks" : err);
        return 2;
    }
    if (!cfg->plot_dir && is_page(cfg)) { /* the page's charts, in a folder of its own */
        if (page_dir_new(r) != 0)
            r->charts_note = "the folder to draw them in could not be made";
        else if (!(r->plots = plot_new(r->page_dir, err, sizeof err)) ||
                 plot_attach(r->plots, r->pl)) {
            msg_warnx("%s", r->plots ? "too many hooks" : err);
            return 2;
        } else
            plot_svg_only(r->plots);
    }
    return 0;
}

/* Every LOG, in order: one history.  0, or 2 when none could be read or
 * memory ran out. */
static int replay_all(const config *cfg, run *r, const pl_options *opt)
{
    if (!(r->rp = replay_new(r->pl, cfg->threads))) {
        msg_warnx("out of memory");
        return 2;
    }
    if ((r->sk = window_plan(opt, cfg->logs, cfg->nlogs)))
        replay_set_seek(r->rp, r->sk);
    for (int i = 0; i < cfg->nlogs; i++)
        if (replay_file(r->rp, cfg->logs[i], !cfg->quiet && isatty(2)) == FPM_ENOMEM)
            return 2;
    if (replay_drain(r->rp) != 0)
        return 2;
    /* nothing read: nothing to print */
    return replay_counts_of(r->rp).unreadable == (uint64_t)cfg->nlogs ? 2 : 0;
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

/* The page: the report with what it says of the run, and the charts when
 * they were drawn.  0, or FPM_ENOMEM. */
static int page_print(FILE *out, const config *cfg, const run *r)
{
    replay_counts n = replay_counts_of(r->rp);
    rp_meta m = {.logs = cfg->logs, .nlogs = cfg->nlogs, .records = n.records,
                 .damaged = n.damaged, .dropped_rounds = n.dropped_rounds,
                 .hostless_rounds = n.hostless_rounds, .copies = n.copies,
                 .unreadable = n.unreadable, .charts_note = r->charts_note,
                 .chart_base = chart_base, .chart_arg = r->plots};
    /* when: SOURCE_DATE_EPOCH when set (a page made twice the same), else now */
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    char *end = NULL;
    errno = 0;
    unsigned long long e = sde && *sde ? strtoull(sde, &end, 10) : 0;
    if (sde && *sde && !errno && end && !*end && e < 18446744073ull)
        m.made_ns = (uint64_t)e * 1000000000ull;
    else {
        struct timespec ts;
        if (clock_gettime(CLOCK_REALTIME, &ts) == 0 && ts.tv_sec > 0)
            m.made_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    }
    if (r->plots && !r->charts_note)
        m.charts = cfg->plot_dir ? cfg->plot_dir : r->page_dir;
    return report_print_meta(out, cfg->format, &r->ans, &cfg->scenario, &m);
}

/* The report, the hist view or the check, on standard output or into -o
 * FILE through FILE.tmp.  0, 1 (check: worse), or 2. */
static int write_output(const config *cfg, run *r)
{
    char err[600], tmp[4096];
    FILE *out = stdout;
    /* FILE through FILE.tmp, or the null device as it is (then none) */
    const char *named = outfile_is_null(cfg->output) ? NULL : cfg->output;
    if (!named && cfg->output && !(out = open_as_is(cfg->output))) {
        msg_warnx("%s: %s", cfg->output, strerror(errno));
        return 2;
    }
    if (named) {
        snprintf(tmp, sizeof tmp, "%s.tmp", named);
        if (outfile_replaceable(named, err, sizeof err) != 0) {
            msg_warnx("%s: %s", named, err);
            return 2;
        }
        if (!(out = outfile_open(tmp, err, sizeof err))) {
            msg_warnx("%s: %s", tmp, err);
            return 2;
        }
    }
    int rc = 0, bad;
    if (cfg->command == CMD_TIMING) { /* a log it cannot read is said: 2, the rest printed */
        rc = timing_logs(out, cfg->logs, cfg->nlogs, cfg->cutoff);
        bad = 0;
    } else if (cfg->command == CMD_CHECK) {
        int worse = check_against(out, &r->ans, cfg->baseline, cfg->tolerance, cfg->max_rise,
                                  err, sizeof err);
        if (worse < 0) {
            msg_warnx("%s: %s", cfg->baseline, err);
            if (out != stdout) {
                fclose(out);
                if (named)
                    unlink(tmp);
            }
            return 2;
        }
        rc = worse > 0;
        bad = fflush(out) != 0;
    } else if (is_page(cfg)) {
        bad = page_print(out, cfg, r) != 0;
    } else {
        bad = (cfg->command == CMD_HIST     ? out_hist_print(out, r->pl, cfg->pool, cfg->cutoff)
             : cfg->command == CMD_ADVISE ? advise_print(out, &r->ans,
                                                         strcmp(cfg->format->name, "json") == 0)
             : cfg->command == CMD_ROUTES ? routes_print(out, &r->ans, cfg->pool, cfg->top,
                                                         strcmp(cfg->format->name, "json") == 0)
                                           : report_print(out, cfg->format, &r->ans,
                                                          &cfg->scenario)) != 0;
    }
    bad |= out == stdout ? fflush(out) != 0 : fclose(out) != 0;
    if (!bad && rc == 2 && cfg->output) { /* timing: a log it could not read (said) */
        if (named)
            unlink(tmp);
        return 2;
    }
    if (!bad && named && rename(tmp, named) != 0)
        bad = 1;
    if (bad) {
        msg_warnx("could not write the output%s%s: %s", named ? " to " : "",
                  named ? named : "", strerror(errno));
        if (named)
            unlink(tmp);
        return 2;
    }
    return rc;
}

/* --csv-routes (section 19): written after the replay, through FILE.tmp
 * renamed into place (standard output and the null device as they are).
 * 0, or 2 (said). */
static int write_routes_csv(const config *cfg, run *r)
{
    char err[600], tmp[4096];
    const char *path = cfg->csv_routes;
    int as_is = is_stdout(path) || outfile_is_null(path);
    FILE *f = as_is ? open_as_is(path) : NULL;
    if (!as_is) {
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        if (outfile_replaceable(path, err, sizeof err) != 0 ||
            !(f = outfile_open(tmp, err, sizeof err))) {
            msg_warnx("%s: %s", path, err);
            return 2;
        }
    } else if (!f) {
        msg_warnx("%s: %s", path, strerror(errno));
        return 2;
    }
    int bad = rows_routes(f, &r->ans) != 0;
    bad |= f == stdout ? fflush(f) != 0 : fclose(f) != 0;
    if (!bad && !as_is && rename(tmp, path) != 0)
        bad = 1;
    if (bad) {
        msg_warnx("%s: could not write: %s", path, strerror(errno));
        if (!as_is)
            unlink(tmp);
        return 2;
    }
    return 0;
}

/* Closes the exports; 2 when one could not be written, else rc. */
static int close_exports(const config *cfg, run *r, int rc)
{
    for (int k = 0; k < 2; k++) {
        FILE *f = k ? r->csv.rounds : r->csv.readings;
        if (f && (f == stdout ? fflush(f) : fclose(f)) != 0) {
            msg_warnx("%s: could not write: %s", k ? cfg->csv_rounds : cfg->csv_readings,
                      strerror(errno));
            rc = 2;
        }
    }
    plot_free(r->plots);
    replay_free(r->rp);
    whatif_answers_free(&r->ans);
    pipeline_free(r->pl);
    return rc;
}

/* Each host's answer, decided once for every output of the run (the
 * report, the page, the plots, --csv-routes, advise, routes, check: check's
 * in its own scenario, the joint fit's); the hist view needs none.  0, or 2
 * (said). */
static int decide_answers(const config *cfg, run *r)
{
    if (cfg->command == CMD_HIST)
        return 0;
    wi_scenario sc = cfg->command == CMD_CHECK ? check_scenario(&cfg->scenario) : cfg->scenario;
    if (whatif_answers(r->pl, &sc, &r->ans) != 0) {
        msg_warnx("out of memory");
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    msg_init(PROG);
    config cfg = {0};
    int rc = options_parse(argc, argv, &cfg);
    if (rc < 0 && (cfg.from_sod >= 0 || cfg.until_sod >= 0)) { /* HH:MM: the first log's day */
        uint64_t day = 0;
        int has_day = first_day(cfg.logs[0], &day) == 0;
        rc = options_window(&cfg, day, has_day);
    }
    if (rc >= 0) {
        rd_prefixes_free(&cfg.own_uri);
        return rc;
    }
    if (outfile_protect(cfg.logs, cfg.nlogs) != 0) {
        msg_warnx("out of memory");
        rd_prefixes_free(&cfg.own_uri);
        return 2;
    }
    rc = check_outputs(&cfg);
    if (rc != 0 || cfg.command == CMD_TIMING) { /* timing: the clock checks only, no replay */
        if (rc == 0)
            rc = write_output(&cfg, NULL);
        outfile_unprotect();
        rd_prefixes_free(&cfg.own_uri);
        return rc;
    }
    pl_options opt = {.own_uri = &cfg.own_uri, .route_params = &cfg.route_params,
                      .has_from = cfg.scenario.has_from, .from_ns = cfg.scenario.from_ns,
                      .has_until = cfg.scenario.has_until, .until_ns = cfg.scenario.until_ns};
    if (cfg.command == CMD_CUT) {
        rc = cut_logs(&cfg, &opt);
        outfile_unprotect();
        rd_prefixes_free(&cfg.own_uri);
        return rc;
    }
    run r = {.pl = pipeline_new(&opt)};
    rc = r.pl ? open_exports(&cfg, &r) : 2;
    if (!r.pl)
        msg_warnx("out of memory");
    if (rc == 0)
        rc = replay_all(&cfg, &r, &opt);
    if (rc == 0)
        rc = say_findings(&cfg, &r);
    if (rc == 0)
        rc = decide_answers(&cfg, &r);
    int plots_failed = 0;
    if (rc == 0 && r.plots) {
        char note[600];
        int prc = plot_finish(r.plots, &r.ans, note, sizeof note);
        if (r.page_dir[0]) { /* the page's own: it says what the charts need */
            if (prc == 1)
                r.charts_note = "they are drawn by gnuplot, which is not installed (Debian: "
                                "apt-get install gnuplot-nox)";
            else if (prc != 0) {
                msg_warnx("the page's charts: %s", note);
                r.charts_note = "gnuplot failed to draw them (said on standard error)";
            }
        } else {
            plots_failed = prc < 0;
            msg_warnx("%s", note);
            if (prc != 0)
                r.charts_note = prc == 1 ? "they are drawn by gnuplot, which is not installed "
                                           "(Debian: apt-get install gnuplot-nox)"
                                         : "gnuplot failed to draw them (said on standard error)";
        }
    }
    if (rc == 0)
        rc = write_output(&cfg, &r);
    if ((rc == 0 || rc == 1) && cfg.csv_routes && write_routes_csv(&cfg, &r) != 0)
        rc = 2;
    if (plots_failed || (r.rp && replay_counts_of(r.rp).unreadable))
        rc = 2; /* the figures stand on the rest: said, and the exit says so */
    rc = close_exports(&cfg, &r, rc);
    page_dir_remove(&r);
    seek_free(r.sk);
    outfile_unprotect();
    rd_prefixes_free(&cfg.own_uri);
    return rc;
}
