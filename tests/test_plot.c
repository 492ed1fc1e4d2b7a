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
    char dir[] = "/tmp/fpmcpu-plot-XXXXXX", err[256], note[600];
    assert_non_null(mkdtemp(dir));
    pipeline *pl = pipeline_new(NULL);
    plotter *pt = plot_new(dir, err, sizeof err);
    assert_non_null(pt);
    assert_int_equal(plot_attach(pt, pl), 0);
    th_replay_quiet(pl, log);
    const char *path = getenv("PATH");
    char *saved = path ? strdup(path) : NULL;
    setenv("PATH", "/nonexistent", 1);
    assert_int_equal(plot_finish(pt, pl, note, sizeof note), 1); /* gnuplot is not installed */
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
    char rm[128];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
    assert_int_equal(system(rm), 0);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_name_is_one_single_quoted_string),
        cmocka_unit_test(test_the_data_and_scripts_of_a_log),
        cmocka_unit_test(test_odd_names_in_the_scripts),
        cmocka_unit_test(test_the_lower_panel_of_steal_and_pressure),
        cmocka_unit_test(test_the_memory_and_bounds_plots),
        cmocka_unit_test(test_the_fit_points_take_the_other_pools_part_out),
    };
    return cmocka_run_group_tests_name("plot", tests, NULL, NULL);
}
