/* docs/rules.md section 7: the what-if arithmetic as pure functions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
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
    assert_int_equal(v.fill, 6);                          /* ceil(4000 / 700) */
    assert_int_equal(v.ceiling, 12);                      /* 6 x 2.00 */
    assert_int_equal(v.limit, WI_LIMIT_CPU);              /* 16 > 12 */
    v = whatif_pool_view(&p, 4000, 110, 8);
    assert_int_equal(v.ceiling, 7);                       /* ceil(6 x 1.10) */
    assert_int_equal(v.limit, WI_LIMIT_CPU);
    v = whatif_pool_view(&p, 4000, 150, 8);
    assert_int_equal(v.ceiling, 9);
    assert_int_equal(v.limit, WI_LIMIT_WORKERS);
}

static void test_the_ceiling_is_at_least_cores_plus_one(void **state)
{
    (void)state;
    pl_pool p = pool_of("api", 20, 1000, 0); /* 10%: 100m a worker */
    wi_view v = whatif_pool_view(&p, 2000, 100, 0);
    assert_int_equal(v.fill, 20);
    assert_int_equal(v.ceiling, 20);
    p = pool_of("shop", 20, 9900, 0); /* 95%: 950m */
    v = whatif_pool_view(&p, 2000, 100, 0);
    assert_int_equal(v.fill, 3);
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
    sc.cost = WI_COST_BUSY;
    assert_true(whatif_differs(&sc));
    sc.cost = WI_COST_TYPICAL;
    sc.headroom = 150;
    assert_true(whatif_differs(&sc));
    sc.headroom = WI_DEFAULT_HEADROOM;
    sc.has_host_millicores = 1;
    assert_true(whatif_differs(&sc));
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
    };
    return cmocka_run_group_tests_name("whatif", tests, NULL, NULL);
}
