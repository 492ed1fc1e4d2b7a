/* docs/rules.md section 7: the what-if arithmetic as pure functions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "whatif.h"

/* A pool of n readings at share hundredths, each 1 s long. */
static pl_pool pool_of(const char *name, int n, int64_t share, int64_t max_children)
{
    pl_pool p;
    memset(&p, 0, sizeof p);
    p.name = (char *)name;
    p.name_len = strlen(name);
    p.max_children = max_children;
    for (int i = 0; i < n; i++)
        hist_add(&p.h, share, 1000000);
    return p;
}

static void test_fill_and_ceiling_from_the_cost_of_a_worker(void **state)
{
    (void)state;
    pl_pool p = pool_of("shop", 20, 7000, 16);
    wi_view v = whatif_pool_view(&p, 4000, WI_DEFAULT_HEADROOM, 16);
    assert_string_equal(v.shape, "cpu-bound");
    assert_int_equal(v.typical_pct, 70);
    assert_int_equal(v.php_millicores, 700);
    assert_int_equal(v.host_millicores_per_worker, 700); /* no fit: PHP's own */
    assert_int_equal(v.knee_hundredths, 571);            /* 4000 / 700 = 5.714 */
    assert_int_equal(v.fill, 6);                          /* ceil(5.71) */
    assert_int_equal(v.ceiling, 11);                      /* floor(5.714 x 2.00) (17.5) */
    assert_int_equal(v.limit, WI_LIMIT_CPU);              /* 16 > 11 */
    v = whatif_pool_view(&p, 4000, 110, 7);
    assert_int_equal(v.ceiling, 6);                       /* floor(5.714 x 1.10) */
    assert_int_equal(v.limit, WI_LIMIT_CPU);
    v = whatif_pool_view(&p, 4000, 150, 8);
    assert_int_equal(v.ceiling, 8);                       /* floor(8.57) */
    assert_int_equal(v.limit, WI_LIMIT_WORKERS);
}

static void test_the_ceiling_is_at_least_cores_plus_one(void **state)
{
    (void)state;
    pl_pool p = pool_of("api", 20, 1000, 0); /* 10%: 100m a worker */
    wi_view v = whatif_pool_view(&p, 2000, 100, 0);
    assert_int_equal(v.fill, 19);                         /* 95% of 20 (17.5) */
    assert_int_equal(v.ceiling, 20);
    p = pool_of("shop", 20, 9900, 0); /* 95%: 950m */
    v = whatif_pool_view(&p, 2000, 100, 0);
    assert_int_equal(v.fill, 2);                          /* 100 x 2 x 950 = 95 x 2000 */
    assert_int_equal(v.ceiling, 3);                       /* cores + 1 = 3 */
    assert_int_equal(v.limit, WI_LIMIT_UNKNOWN);          /* max_children unknown */
}

static void test_under_20_readings_no_shape_and_no_fill(void **state)
{
    (void)state;
    pl_pool p = pool_of("admin", 19, 7000, 4);
    wi_view v = whatif_pool_view(&p, 4000, WI_DEFAULT_HEADROOM, 4);
    assert_true(v.has_typical);
    assert_null(v.shape);
    assert_false(v.has_fill);
    assert_int_equal(v.limit, WI_LIMIT_UNKNOWN);
}

static void test_the_last_max_children_given_for_a_pool_counts(void **state)
{
    (void)state;
    pl_pool p = pool_of("shop", 0, 0, 40);
    wi_override o[] = {{"shop", 8}, {"api", 3}, {"shop", 12}};
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM, .max_children = o, .nmax_children = 3};
    assert_int_equal(whatif_now(&p, &sc), 12);
    sc.nmax_children = 0;
    assert_int_equal(whatif_now(&p, &sc), 40);
    pl_pool q = pool_of("shopx", 0, 0, 5); /* a prefix is not the name */
    sc.nmax_children = 3;
    assert_int_equal(whatif_now(&q, &sc), 5);
}

static void test_the_host_line_sums_and_saturates(void **state)
{
    (void)state;
    wi_view v[3] = {{0}};
    v[0].shape = "cpu-bound", v[0].now = 10, v[0].host_millicores_per_worker = 700;
    v[0].has_fill = 1, v[0].ceiling = 12;
    v[1].shape = "i/o-bound", v[1].now = 0, v[1].host_millicores_per_worker = 100; /* unknown max */
    v[2].shape = NULL, v[2].now = 5, v[2].host_millicores_per_worker = 999;       /* no shape */
    int64_t now, atc;
    whatif_host_needs(v, 3, &now, &atc);
    assert_int_equal(now, 7000);
    assert_int_equal(atc, 8400);
    v[1].now = INT64_MAX;
    whatif_host_needs(v, 3, &now, &atc);
    assert_true(now == INT64_MAX);
}

static void test_a_scenario_differs_from_what_was_measured(void **state)
{
    (void)state;
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
    assert_false(whatif_differs(&sc));
    sc.cost = WI_COST_TYPICAL; /* the busy cost is the default (17.5) */
    assert_true(whatif_differs(&sc));
    sc.cost = WI_COST_BUSY;
    sc.headroom = 150;
    assert_true(whatif_differs(&sc));
    sc.headroom = WI_DEFAULT_HEADROOM;
    sc.has_host_millicores = 1;
    assert_true(whatif_differs(&sc));
}

/* 17.4: a pool measured under contention (12.3) gets no knee, fill,
 * ceiling or limit: its shares are floors. */
static void test_17_4_no_ceiling_for_a_floor(void **state)
{
    (void)state;
    pl_pool p = pool_of("shop", 20, 5000, 8);
    p.contended_readings = p.uncorrected_contended = 20; /* all of them, and no calm set */
    wi_view v = whatif_pool_view(&p, 2000, WI_DEFAULT_HEADROOM, 8);
    assert_string_equal(v.shape, "cpu-bound");
    assert_int_equal(v.host_millicores_per_worker, 500);
    assert_false(v.has_fill);
    assert_true(v.floor);
    assert_int_equal(v.limit, WI_LIMIT_UNKNOWN);
    p.uncorrected_contended = 0; /* contended but corrected (17.3): a ceiling */
    v = whatif_pool_view(&p, 2000, WI_DEFAULT_HEADROOM, 8);
    assert_true(v.has_fill);
    assert_false(v.floor);
}

/* 17.5: the knee is host / cost unrounded; fill its ceiling; the ceiling
 * floor(knee x headroom), the host's cores + 1 at the least. */
static void test_17_5_the_knee_and_the_ceiling_on_2_and_64_cores(void **state)
{
    (void)state;
    pl_pool p = pool_of("cpu", 20, 9500, 8); /* 950m */
    wi_view v = whatif_pool_view(&p, 2000, WI_DEFAULT_HEADROOM, 8);
    assert_int_equal(v.knee_hundredths, 211);             /* 2.105 -> 2.11 */
    assert_int_equal(v.fill, 2);                          /* exactly 95% of 2000m */
    assert_int_equal(v.ceiling, 4);                       /* floor(4.21); cores + 1 = 3 */
    assert_int_equal(v.limit, WI_LIMIT_CPU);
    v = whatif_pool_view(&p, 64000, WI_DEFAULT_HEADROOM, 8);
    assert_int_equal(v.knee_hundredths, 6737);            /* 67.368 */
    assert_int_equal(v.fill, 64);                         /* 95% of 67.37 is 64.0 */
    assert_int_equal(v.ceiling, 134);                     /* floor(134.74) */
    assert_int_equal(v.limit, WI_LIMIT_WORKERS);
    pl_pool q = pool_of("io", 20, 500, 0);                /* 50m */
    v = whatif_pool_view(&q, 2000, 100, 0);
    assert_int_equal(v.knee_hundredths, 4000);
    assert_int_equal(v.ceiling, 40);                      /* exact: floor(40 x 1.00) */
}

/* 17.5: FILL is the fewest workers that give 95% of what the host allows,
 * in integers: a knee of 2.04 is 2 workers, one of 2.11 is 3 */
static void test_17_5_fill_gives_95_percent_of_the_host(void **state)
{
    (void)state;
    pl_pool p = pool_of("cpu", 20, 9800, 8); /* 980m: knee 2.04 */
    wi_view v = whatif_pool_view_cost(&p, 2000, WI_DEFAULT_HEADROOM, 8, WI_COST_BUSY,
                                      WI_FIT_DOMINANT, NULL, NULL);
    assert_int_equal(v.knee_hundredths, 204);
    assert_int_equal(v.fill, 2);             /* 100 x 2 x 980 >= 95 x 2000 */
    p = pool_of("cpu", 20, 9480, 8);         /* 948m: knee 2.11 */
    v = whatif_pool_view_cost(&p, 2000, WI_DEFAULT_HEADROOM, 8, WI_COST_BUSY, WI_FIT_DOMINANT,
                              NULL, NULL);
    assert_int_equal(v.knee_hundredths, 211);
    assert_int_equal(v.fill, 3);             /* 100 x 2 x 948 < 95 x 2000 */
    p = pool_of("cpu", 20, 50000, 8);        /* 5000m, more than the host: at least 1 */
    v = whatif_pool_view_cost(&p, 2000, WI_DEFAULT_HEADROOM, 8, WI_COST_BUSY, WI_FIT_DOMINANT,
                              NULL, NULL);
    assert_int_equal(v.fill, 1);
}

/* 17.5: the busy cost is the default: a pool of light and heavy requests is
 * sized by its busy share, not TYPICAL's floor. */
static void test_17_5_the_busy_cost_is_the_default(void **state)
{
    (void)state;
    pl_pool p = pool_of("mix", 0, 0, 0);
    for (int i = 0; i < 18; i++)
        hist_add(&p.h, 1000, 100000);   /* 10% for 100 ms */
    for (int i = 0; i < 2; i++)
        hist_add(&p.h, 9500, 4000000);  /* 95% for 4 s */
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
    pl_host h = {.host_millicores = 2000};
    pl_pool *pools[] = {&p};
    h.pools = pools;
    h.npools = 1;
    wi_view *v = whatif_views(&h, &sc);
    assert_non_null(v);
    assert_int_equal(v[0].php_millicores, 100);
    assert_int_equal(v[0].busy_millicores, 794);         /* (18 x 10% x 100 + 2 x 95% x 4000) / 9800 */
    assert_int_equal(v[0].host_millicores_per_worker, 794);
    whatif_views_free(v, (&h)->npools);
    sc.cost = WI_COST_TYPICAL;
    v = whatif_views(&h, &sc);
    assert_int_equal(v[0].host_millicores_per_worker, 100);
    whatif_views_free(v, (&h)->npools);
}

/* 17.6: C / 10000 / n ms, both after halving, two decimals */
static void test_17_6_the_cpu_per_request_after_halving(void **state)
{
    (void)state;
    pl_pool p = pool_of("cpu", 0, 0, 0);
    for (int i = 0; i < HIST_LIMIT; i++)
        hist_add(&p.h, 10000, 164200);   /* 100% for 164.2 ms: d = 164 ms */
    wi_view v = whatif_pool_view(&p, 2000, WI_DEFAULT_HEADROOM, 0);
    assert_true(v.has_cpu_ms);
    assert_int_equal(v.cpu_ms_hundredths, 16400);
    hist_add(&p.h, 5000, 100000);        /* the halving: C and n halved together */
    v = whatif_pool_view(&p, 2000, WI_DEFAULT_HEADROOM, 0);
    assert_int_equal(p.h.total, (HIST_LIMIT + 1) / 2);
    /* C = (4096 x 10000 x 164 + 5000 x 100) / 2, n = 2048: 16401.22 */
    assert_int_equal(v.cpu_ms_hundredths, 16401);
    pl_pool few = pool_of("few", 19, 10000, 0);
    v = whatif_pool_view(&few, 2000, WI_DEFAULT_HEADROOM, 0);
    assert_false(v.has_cpu_ms);                           /* null under 20 readings */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fill_and_ceiling_from_the_cost_of_a_worker),
        cmocka_unit_test(test_the_ceiling_is_at_least_cores_plus_one),
        cmocka_unit_test(test_under_20_readings_no_shape_and_no_fill),
        cmocka_unit_test(test_the_last_max_children_given_for_a_pool_counts),
        cmocka_unit_test(test_the_host_line_sums_and_saturates),
        cmocka_unit_test(test_a_scenario_differs_from_what_was_measured),
        cmocka_unit_test(test_17_4_no_ceiling_for_a_floor),
        cmocka_unit_test(test_17_5_the_knee_and_the_ceiling_on_2_and_64_cores),
        cmocka_unit_test(test_17_5_fill_gives_95_percent_of_the_host),
        cmocka_unit_test(test_17_5_the_busy_cost_is_the_default),
        cmocka_unit_test(test_17_6_the_cpu_per_request_after_halving),
    };
    return cmocka_run_group_tests_name("whatif", tests, NULL, NULL);
}
