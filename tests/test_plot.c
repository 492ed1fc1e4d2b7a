/* plot: a name from a log inside a gnuplot script. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <math.h>

#include "msg.h"
#include "plot.h"
#include "whatif.h"
#include "replay.h"
#include "pipeline_harness.h"

/* A name is one single-quoted gnuplot string: a quote inside is doubled
 * (gnuplot's only escape there), control bytes become '?'. */
static void test_a_name_is_one_single_quoted_string(void **state)
{
    (void)state;
    static const char name[] = "it's '; system(\"x\"); '\n\x7f";
    char out[3 * sizeof name + 3];
    plot_quote(out, name, sizeof name - 1);
    assert_string_equal(out, "'it''s ''; system(\"x\"); ''?\?'");
}

/* The whole of a file, NUL-terminated (NULL when it cannot be read). */
static char *contents(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *p = NULL;
    size_t cap = 0;
    *n = 0;
    for (;;) {
        if (*n + 4096 + 1 > cap && !(p = realloc(p, cap = cap * 2 + 8192)))
            break;
        size_t got = fread(p + *n, 1, 4096, f);
        *n += got;
        if (got < 4096)
            break;
    }
    fclose(f);
    if (p)
        p[*n] = '\0';
    return p;
}

/* The .dat and .gp files --plot writes for log are fixtures/plot/name's,
 * byte for byte, and no other.  gnuplot is kept off PATH: the images are
 * tests/integration/plots.sh's (here they would only cost time), and
 * without gnuplot the data and scripts are written all the same. */
static void plots_are(const char *log, const char *name)
{
    char err[256], note[600];
    const char *dir = tl_mkdtemp("/tmp/fpmcpu-plot-XXXXXX");
    assert_non_null(dir);
    pipeline *pl = pipeline_new(NULL);
    plotter *pt = plot_new(dir, err, sizeof err);
    assert_non_null(pt);
    assert_int_equal(plot_attach(pt, pl), 0);
    th_replay_quiet(pl, log);
    const char *path = getenv("PATH");
    char *saved = path ? strdup(path) : NULL;
    setenv("PATH", "/nonexistent", 1);
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
    wi_answers a = th_answers(pl, &sc);
    assert_int_equal(plot_finish(pt, &a, note, sizeof note), 1); /* gnuplot is not installed */
    whatif_answers_free(&a);
    if (saved)
        setenv("PATH", saved, 1);
    free(saved);
    char want_dir[128];
    snprintf(want_dir, sizeof want_dir, "fixtures/plot/%s", name);
    int files = 0, wanted = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        if (!(l > 4 && strcmp(e->d_name + l - 4, ".dat") == 0) &&
            !(l > 3 && strcmp(e->d_name + l - 3, ".gp") == 0))
            continue;
        files++;
        char got_path[512], want_path[512];
        snprintf(got_path, sizeof got_path, "%s/%s", dir, e->d_name);
        snprintf(want_path, sizeof want_path, "%s/%s", want_dir, e->d_name);
        size_t gn, wn;
        char *got = contents(got_path, &gn), *want = contents(want_path, &wn);
        if (!want)
            fail_msg("%s: written, but not in %s", e->d_name, want_dir);
        if (gn != wn || memcmp(got, want, gn) != 0)
            fail_msg("%s: not as %s has it", e->d_name, want_path);
        free(got);
        free(want);
        unlink(got_path);
    }
    closedir(d);
    d = opendir(want_dir);
    for (struct dirent *e; (e = readdir(d));)
        wanted += e->d_name[0] != '.';
    closedir(d);
    assert_int_equal(files, wanted);
    plot_free(pt);
    pipeline_free(pl);
}

/* The histogram, the fit's points and line, the series: per pool. */
static void test_the_data_and_scripts_of_a_log(void **state)
{
    (void)state;
    plots_are("fixtures/logs/small.fpmlog", "small");
}

/* Names from the log reach the scripts quoted, in files of safe names. */
static void test_odd_names_in_the_scripts(void **state)
{
    (void)state;
    plots_are("fixtures/logs/odd-names.fpmlog", "odd-names");
}

/* The host under the pools: steal and pressure in a panel of their own. */
static void test_the_lower_panel_of_steal_and_pressure(void **state)
{
    (void)state;
    plots_are("fixtures/logs/vps.fpmlog", "vps");
}

/* Sections 14 and 15: the memory readings by bucket with W marked, the
 * host's memory against what php-fpm can have, and the bounds with the
 * knee, now and the advice. */
static void test_the_memory_and_bounds_plots(void **state)
{
    (void)state;
    plots_are("fixtures/logs/memory.fpmlog", "memory");
}

/* The fit plot's points are what the joint fit saw: each pool's own cores
 * against the host's less the other pools' part, so that a point less its
 * own pool's part is the same for every pool of the pair (host cores less
 * all pools' parts).  small.fpmlog's pools, shop and api, from the fixture
 * test_the_data_and_scripts_of_a_log checks. */
static void test_the_fit_points_take_the_other_pools_part_out(void **state)
{
    (void)state;
    pipeline *pl = pipeline_new(NULL);
    th_replay_quiet(pl, "fixtures/logs/small.fpmlog");
    pl_host *const *hs;
    assert_int_equal(pipeline_hosts(pl, &hs), 1);
    joint_pool jp[2];
    joint_sol sol;
    assert_int_equal(hs[0]->npools, 2);
    assert_int_equal(whatif_joint(hs[0], &sol, jp), 0);
    assert_true(jp[0].in_a && jp[1].in_a);
    FILE *api = fopen("fixtures/plot/small/01-web1-api.points.dat", "r");
    FILE *shop = fopen("fixtures/plot/small/02-web1-shop.points.dat", "r");
    assert_non_null(api);
    assert_non_null(shop);
    char la[128], ls[128];
    int n = 0;
    assert_non_null(fgets(la, sizeof la, api)); /* the headers */
    assert_non_null(fgets(ls, sizeof ls, shop));
    while (fgets(la, sizeof la, api) && fgets(ls, sizeof ls, shop)) {
        double xa, ya, xs, ys;
        assert_int_equal(sscanf(la, "%lf %lf", &xa, &ya), 2);
        assert_int_equal(sscanf(ls, "%lf %lf", &xs, &ys), 2);
        /* written to 4 decimals: within their rounding */
        assert_true(fabs((ya - jp[0].slope * xa) - (ys - jp[1].slope * xs)) < 2e-4);
        n++;
    }
    assert_int_equal(n, (int)hs[0]->j.points);
    fclose(api);
    fclose(shop);
    pipeline_free(pl);
}

/* A long log: pool a on host h, n rounds 30 s apart, its queue, busy
 * workers and the host's busy ticks varying; the plots written (gnuplot
 * kept off PATH) into a directory of its own (*dirp), svg_only as the page asks.  Returns the
 * pipeline (the caller frees it). */
static pipeline *long_log_plotted(const char **dirp, int n, int svg_only)
{
    char err[256], note[600];
    const char *dir = *dirp = tl_mkdtemp("/tmp/fpmcpu-plot-XXXXXX");
    assert_non_null(dir);
    pipeline *pl = pipeline_new(NULL);
    plotter *pt = plot_new(dir, err, sizeof err);
    assert_non_null(pt);
    if (svg_only)
        plot_svg_only(pt);
    assert_int_equal(plot_attach(pt, pl), 0);
    th_host(pl, "h", 4, "boot", 0);
    th_pool(pl, "a", 8, NULL);
    unsigned long long busy = 0;
    for (int k = 0; k < n; k++) {
        th_round *r = th_round_at(30.0 * k, busy);
        char b[300];
        snprintf(b, sizeof b, "{\"pool\":\"a\",\"start time\":100,\"listen queue\":%d,"
                 "\"active processes\":%d,\"max children reached\":0,\"processes\":[]}",
                 (k * 7) % 5, 1 + (k * 3) % 8);
        th_page(r, "a", b, 0);
        th_pids(r, "a", 1, 10LL, (unsigned long long)(k * 40 + (k % 3) * 5));
        th_run(pl, r);
        busy += 100ull * 30 * (1 + (k * 5) % 3);
    }
    const char *path = getenv("PATH");
    char *saved = path ? strdup(path) : NULL;
    setenv("PATH", "/nonexistent", 1);
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
    wi_answers a = th_answers(pl, &sc);
    assert_int_equal(plot_finish(pt, &a, note, sizeof note), 1);
    whatif_answers_free(&a);
    if (saved)
        setenv("PATH", saved, 1);
    free(saved);
    plot_free(pt);
    return pl;
}

/* The rows of the datablock name after the line after (NULL: the first
 * one), as numbers: rows[i * cols + c].  Returns how many rows. */
static size_t block_rows(const char *gp, const char *after, const char *name, double *rows,
                         size_t max, int cols)
{
    const char *p = after ? strstr(gp, after) : gp;
    assert_non_null(p);
    char head[64];
    snprintf(head, sizeof head, "$%s << EOD\n", name);
    p = strstr(p, head);
    assert_non_null(p);
    p += strlen(head);
    size_t n = 0;
    while (strncmp(p, "EOD\n", 4) != 0) {
        const char *nl = strchr(p, '\n');
        assert_non_null(nl);
        if (*p != '#') {
            assert_true(n < max);
            char *e;
            const char *q = p;
            for (int c = 0; c < cols; c++, q = e)
                rows[n * (size_t)cols + (size_t)c] = strtod(q, &e);
            n++;
        }
        p = nl + 1;
    }
    return n;
}

static int same(double a, double b)
{
    return (isnan(a) && isnan(b)) || fabs(a - b) < 6e-5;
}

/* A long log's SVG series: a row for each span of k = ceil(rows / 250)
 * rounds, its first round's time and the most of each other column in it,
 * NaN ignored (a peak is never lost); its fit points one in k'; the PNG
 * draws every row (the data as written). */
static void test_a_long_logs_svg_draws_the_most_of_each_span(void **state)
{
    (void)state;
    char path[128];
    const char *dir;
    pipeline *pl = long_log_plotted(&dir, 600, 0);
    size_t n;
    snprintf(path, sizeof path, "%s/01-h-a.gp", dir);
    char *gp = contents(path, &n);
    assert_non_null(gp);
    enum { COLS = 7, MAX = 700 };
    static double all[MAX * COLS], svg[MAX * COLS], pts[MAX * 2], svgpts[MAX * 2];
    size_t rows = block_rows(gp, NULL, "series", all, MAX, COLS);
    assert_int_equal(rows, 600);
    assert_non_null(strstr(gp, "# the SVGs: a row for every 3 rounds (the most of each), every 1 "
                               "of memory, one point in 3\n"));
    size_t srows = block_rows(gp, "# the SVGs:", "series", svg, MAX, COLS);
    assert_int_equal(srows, 200);
    for (size_t i = 0; i < srows; i++) {
        double want[COLS];
        for (int c = 0; c < COLS; c++) {
            want[c] = all[3 * i * COLS + (size_t)c];
            for (size_t j = 3 * i + 1; c > 0 && j < 3 * i + 3; j++) {
                double x = all[j * COLS + (size_t)c];
                if (!isnan(x) && (isnan(want[c]) || x > want[c]))
                    want[c] = x;
            }
            if (!same(svg[i * COLS + (size_t)c], want[c]))
                fail_msg("row %zu column %d: %f, the span's most is %f", i, c + 1,
                         svg[i * COLS + (size_t)c], want[c]);
        }
    }
    size_t np = block_rows(gp, NULL, "points", pts, MAX, 2);
    size_t sp = block_rows(gp, "# the SVGs:", "points", svgpts, MAX, 2);
    assert_int_equal(sp, (np + 2) / 3);
    for (size_t i = 0; i < sp; i++)
        assert_true(same(svgpts[2 * i], pts[6 * i]) && same(svgpts[2 * i + 1], pts[6 * i + 1]));
    /* the PNGs come first, drawing what was written */
    char *png = strstr(gp, "pngcairo"), *cut = strstr(gp, "# the SVGs:");
    assert_true(png && cut && png < cut && strstr(cut, "set terminal svg"));
    free(gp);
    pipeline_free(pl);
}

/* The page's charts: SVG alone, no PNG, and a long series written once,
 * as the SVG draws it. */
static void test_the_pages_charts_are_svg_alone(void **state)
{
    (void)state;
    char path[128];
    const char *dir;
    pipeline *pl = long_log_plotted(&dir, 600, 1);
    size_t n;
    snprintf(path, sizeof path, "%s/01-h-a.gp", dir);
    char *gp = contents(path, &n);
    assert_non_null(gp);
    assert_null(strstr(gp, "pngcairo"));
    assert_null(strstr(gp, ".png'"));
    char *first = strstr(gp, "$series << EOD\n");
    assert_non_null(first);
    assert_null(strstr(first + 1, "$series << EOD\n"));
    static double svg[700 * 7];
    assert_int_equal(block_rows(gp, NULL, "series", svg, 700, 7), 200);
    free(gp);
    pipeline_free(pl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_a_name_is_one_single_quoted_string, tl_dir_teardown),
        cmocka_unit_test_teardown(test_the_data_and_scripts_of_a_log, tl_dir_teardown),
        cmocka_unit_test_teardown(test_odd_names_in_the_scripts, tl_dir_teardown),
        cmocka_unit_test_teardown(test_the_lower_panel_of_steal_and_pressure, tl_dir_teardown),
        cmocka_unit_test_teardown(test_the_memory_and_bounds_plots, tl_dir_teardown),
        cmocka_unit_test_teardown(test_the_fit_points_take_the_other_pools_part_out, tl_dir_teardown),
        cmocka_unit_test_teardown(test_a_long_logs_svg_draws_the_most_of_each_span, tl_dir_teardown),
        cmocka_unit_test_teardown(test_the_pages_charts_are_svg_alone, tl_dir_teardown),
    };
    return cmocka_run_group_tests_name("plot", tests, NULL, NULL);
}
