/* docs/rules.md section 5: the host-overhead fit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "fit.h"

static void test_forgetting_factor_decays_n(void **state)
{
    (void)state;
    fit f = {0};
    fit_add(&f, 1, 2);
    fit_add(&f, 2, 3);
    assert_true(fabs(f.n - 1.9975) < 1e-12);
    for (int i = 2; i < 32; i++)
        fit_add(&f, i % 4, 1 + i % 4);
    /* 32 points: n = (1 - 0.9975^32) / 0.0025 = 30.79 */
    assert_true(fabs(f.n - 30.79) < 0.005);
    fit g = {0};
    for (int i = 0; i < 31; i++)
        fit_add(&g, i % 4, 1 + i % 4);
    assert_true(g.n < 30); /* 31 points are not enough */
    assert_int_equal(fit_solve(&g).believed, 0);
    assert_int_equal(fit_solve(&f).believed, 1);
}

static void test_line_needs_n2_and_variance(void **state)
{
    (void)state;
    fit f = {0};
    fit_add(&f, 1, 2);
    assert_int_equal(fit_solve(&f).exists, 0); /* n = 1 */
    fit_add(&f, 1, 3);
    assert_int_equal(fit_solve(&f).exists, 0); /* x never changed */
    fit g = {0};
    for (int i = 0; i < 500; i++)
        fit_add(&g, 0.3, 1.0 + (i % 2)); /* var_x is rounding noise only */
    assert_int_equal(fit_solve(&g).exists, 0);
    fit h = {0};
    fit_add(&h, 1, 2);
    fit_add(&h, 2, 4);
    assert_int_equal(fit_solve(&h).exists, 0); /* n = 1.9975 < 2 */
    fit_add(&h, 3, 6);
    fit_line l = fit_solve(&h);
    assert_int_equal(l.exists, 1);
    assert_true(fabs(l.slope - 2) < 1e-9);
    assert_true(fabs(l.intercept) < 1e-9);
}

static fit_line line_of(double slope, double spread, int points)
{
    fit f = {0};
    for (int i = 0; i < points; i++) {
        double x = 1 + spread * ((i % 5) - 2) / 2.0;
        fit_add(&f, x, 0.5 + slope * x);
    }
    return fit_solve(&f);
}

static void test_belief_needs_n30_and_sd_x_02(void **state)
{
    (void)state;
    fit_line l = line_of(1.5, 0.4, 40);
    assert_int_equal(l.believed, 1);
    assert_true(fabs(l.overhead - 1.5) < 1e-9);
    assert_true(fabs(l.intercept - 0.5) < 1e-9);
    /* sd_x of spread 0.25 points (-2..2 halves of 0.25): sqrt(0.5)*0.25 < 0.2 */
    l = line_of(1.5, 0.25, 40);
    assert_true(l.sd_x < 0.2);
    assert_int_equal(l.believed, 0);
    assert_true(fabs(l.overhead - 1) < 1e-12);
}

static void test_slope_below_1_reads_as_1_above_20_not_believed(void **state)
{
    (void)state;
    fit_line l = line_of(0.6, 0.4, 40);
    assert_int_equal(l.believed, 1);
    assert_true(fabs(l.slope - 0.6) < 1e-9); /* raw slope kept for the output */
    assert_true(fabs(l.overhead - 1) < 1e-12);
    l = line_of(20, 0.4, 40);
    assert_int_equal(l.believed, 1);
    l = line_of(20.5, 0.4, 40);
    assert_int_equal(l.exists, 1);
    assert_int_equal(l.believed, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forgetting_factor_decays_n),
        cmocka_unit_test(test_line_needs_n2_and_variance),
        cmocka_unit_test(test_belief_needs_n30_and_sd_x_02),
        cmocka_unit_test(test_slope_below_1_reads_as_1_above_20_not_believed),
    };
    return cmocka_run_group_tests_name("fit", tests, NULL, NULL);
}
