/* docs/rules.md 11.3-11.5: the joint fit's sums and solution, with values
 * worked out by hand.  The four points (x1, x2, y) = (0, 0, 1), (1, 0,
 * 2.5), (0, 1, 3), (1, 1, 4.6), undecayed: m1 = m2 = 0.5, m_y = 2.775,
 * C11 = C22 = 0.25, C12 = 0, c1 = 7.1/4 - 1.3875 = 0.3875, c2 = 7.6/4 -
 * 1.3875 = 0.5125, so a1 = 1.55, a2 = 2.05, base = 2.775 - 0.775 - 1.025 =
 * 0.975.  v_y = 37.41/4 - 2.775^2 = 1.651875 and the explained part
 * 1.55 x 0.3875 + 2.05 x 0.5125 = 1.65125: residual 0.000625 (each point
 * 0.025 off), s2 = 0.000625 x 4 / (4 - 3) = 0.0025, (C^-1)_pp = 4, se =
 * sqrt(0.0025 x 4 / 4) = 0.05, partial sd = sqrt(1/4) = 0.5.  The common
 * line: var = 0.5, cov = 0.9, slope 1.8, residual 1.651875 - 1.62 =
 * 0.031875, s2 = 0.031875 x 4 / 2, se = sqrt(s2 / (0.5 x 4)). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>

#include "joint.h"

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-9)

static const double PTS[4][3] = {{0, 0, 1}, {1, 0, 2.5}, {0, 1, 3}, {1, 1, 4.6}};

/* the four points times reps, undecayed, pools 0 and 1 */
static void four(joint *j, int reps)
{
    assert_int_equal(joint_grow(j, 2), 0);
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < 4; i++)
            joint_add(j, PTS[i], PTS[i][2], 1);
}

static void solve(const joint *j, size_t k, joint_sol *s, joint_pool *p)
{
    size_t order[4] = {0, 1, 2, 3};
    assert_int_equal(joint_solve(j, order, k, s, p), 0);
}

static void test_two_pool_solve_matches_hand_arithmetic(void **state)
{
    (void)state;
    joint j = {0};
    four(&j, 1);
    joint_sol s;
    joint_pool p[2];
    solve(&j, 2, &s, p);
    assert_true(s.exists);
    NEAR(s.n, 4);
    assert_int_equal(s.points, 4);
    NEAR(s.base, 0.975);
    NEAR(s.resid_sd, 0.05);
    assert_true(p[0].in_a && p[1].in_a);
    NEAR(p[0].slope, 1.55);
    NEAR(p[1].slope, 2.05);
    NEAR(p[0].se, 0.05);
    NEAR(p[1].se, 0.05);
    NEAR(p[0].partial_sd, 0.5);
    NEAR(p[1].partial_sd, 0.5);
    assert_false(p[0].believed); /* n = 4 */
    assert_true(s.common_exists);
    NEAR(s.common_slope, 1.8);
    NEAR(s.common_se, sqrt(0.031875 * 4 / 2 / 2));
    NEAR(s.common_sd_x, sqrt(0.5));
    assert_false(s.common_believed);
    joint_free(&j);
}

/* believed: in A, n >= 30, slope <= 20, partial sd >= 0.01, se <= 5% */
static void test_belief_by_n_standard_error_and_partial_sd(void **state)
{
    (void)state;
    joint j = {0};
    four(&j, 10); /* n = 40: the same means, s2 = 0.000625 x 40 / 37 */
    joint_sol s;
    joint_pool p[2];
    solve(&j, 2, &s, p);
    NEAR(p[0].slope, 1.55);
    NEAR(p[0].se, sqrt(0.000625 * 40 / 37 * 4 / 40));
    assert_true(p[0].believed && p[1].believed);
    /* the common line's se, sqrt(0.031875 x 40 / 38 / (0.5 x 40)) = 0.041,
     * is within 5% of 1.8 and its sd_x 0.71 >= 0.2: believed */
    assert_true(s.common_believed);
    joint_free(&j);
    /* the same shape 100 times smaller: partial sd 0.005 < 0.01 */
    joint k = {0};
    assert_int_equal(joint_grow(&k, 2), 0);
    for (int r = 0; r < 10; r++)
        for (int i = 0; i < 4; i++) {
            double x[2] = {PTS[i][0] / 100, PTS[i][1] / 100};
            joint_add(&k, x, 1 + 1.55 * x[0] + 2.05 * x[1], 1);
        }
    solve(&k, 2, &s, p);
    NEAR(p[0].partial_sd, 0.005);
    assert_true(p[0].in_a);
    assert_false(p[0].believed);
    NEAR(s.common_sd_x, sqrt(0.5) / 100); /* under 0.2 cores: the common line neither */
    assert_false(s.common_believed);
    joint_free(&k);
    /* a fourth point 0.875 x 4 off the plane: a1 = 3.25, se = 0.29 > 5% of it */
    joint e = {0};
    assert_int_equal(joint_grow(&e, 2), 0);
    for (int r = 0; r < 10; r++)
        for (int i = 0; i < 4; i++)
            joint_add(&e, PTS[i], i == 3 ? 8 : PTS[i][2], 1);
    solve(&e, 2, &s, p);
    NEAR(p[0].slope, 3.25);
    NEAR(p[0].se, sqrt(0.765625 * 40 / 37 * 4 / 40));
    assert_false(p[0].believed);
    joint_free(&e);
    /* an exact slope of 25: known to the tick, and still not believed */
    joint t = {0};
    assert_int_equal(joint_grow(&t, 2), 0);
    for (int r = 0; r < 10; r++)
        for (int i = 0; i < 4; i++)
            joint_add(&t, PTS[i], 1 + 25 * PTS[i][0] + 2 * PTS[i][1], 1);
    solve(&t, 2, &s, p);
    NEAR(p[0].slope, 25);
    assert_true(p[0].se == 0);
    assert_false(p[0].believed);
    assert_true(p[1].believed);
    joint_free(&t);
}

/* a pool whose load never changed (but for rounding: C_pp 2.5e-15) has
 * no variance and no line */
static void test_a_constant_pool_does_not_join(void **state)
{
    (void)state;
    joint j = {0};
    assert_int_equal(joint_grow(&j, 2), 0);
    for (int i = 0; i < 40; i++) {
        double x[2] = {0.3 + 1e-7 * (i % 2), i % 4 * 0.25};
        joint_add(&j, x, 0.5 + 1.5 * x[0] + 2 * x[1] + (i % 3) * 0.01, 1);
    }
    joint_sol s;
    joint_pool p[2];
    solve(&j, 2, &s, p);
    assert_false(p[0].in_a);
    assert_true(p[1].in_a);
    assert_true(s.exists);
    joint_free(&j);
}

/* two pools with the same load: the first in name order joins with both
 * pools' slope, the second does not (its pivot is 0) */
static void test_a_collinear_pool_does_not_join(void **state)
{
    (void)state;
    joint j = {0};
    assert_int_equal(joint_grow(&j, 2), 0);
    for (int i = 0; i < 40; i++) {
        double x = i % 4 * 0.5, xs[2] = {x, x};
        joint_add(&j, xs, 0.2 + 1.5 * x + 1.5 * x, 1);
    }
    joint_sol s;
    joint_pool p[2];
    solve(&j, 2, &s, p);
    assert_true(p[0].in_a);
    NEAR(p[0].slope, 3.0);
    assert_false(p[1].in_a);
    NEAR(s.common_slope, 1.5); /* total = 2x */
    NEAR(s.common_se, 0);       /* an exact sum: the floor on s2 */
    assert_true(s.common_believed);
    joint_free(&j);
}

/* s2 is 0 when the host is an exact sum of its pools, to a part in 10^9
 * of its variance (here one point 1e-7 cores off: a residual of ~2e-15) */
static void test_s2_floor_for_an_exact_sum(void **state)
{
    (void)state;
    joint j = {0};
    assert_int_equal(joint_grow(&j, 2), 0);
    for (int i = 0; i < 4; i++)
        joint_add(&j, PTS[i], 1 + PTS[i][0] + 2 * PTS[i][1] + (i == 3 ? 1e-7 : 0), 1);
    joint_sol s;
    joint_pool p[2];
    solve(&j, 2, &s, p);
    assert_true(fabs(p[0].slope - 1) < 1e-6);
    assert_true(fabs(p[1].slope - 2) < 1e-6);
    assert_true(p[0].se == 0 && p[1].se == 0 && s.resid_sd == 0);
    joint_free(&j);
}

/* with n - k <= 0 there is no line at all */
static void test_no_line_with_n_at_most_k(void **state)
{
    (void)state;
    joint j = {0};
    assert_int_equal(joint_grow(&j, 2), 0);
    joint_add(&j, PTS[1], 2.5, 1);
    joint_add(&j, PTS[2], 3, 1);
    joint_add(&j, PTS[3], 4.6, 1); /* n = 3, k = 3 */
    joint_sol s;
    joint_pool p[2];
    solve(&j, 2, &s, p);
    assert_false(s.exists);
    assert_false(p[0].in_a || p[1].in_a);
    assert_true(s.common_exists); /* k = 2 < 3 */
    joint_free(&j);
}

/* docs/rules.md 11.5 (and 13): no pool's load moved, so the active set is
 * empty: k = 1, base = m_y, and the host's line exists once n > 1 */
static void test_host_joint_exists_for_an_empty_active_set(void **state)
{
    (void)state;
    joint j = {0};
    assert_int_equal(joint_grow(&j, 2), 0);
    double x[2] = {0.5, 0};
    joint_add(&j, x, 1.0, 1);
    joint_sol s;
    joint_pool p[2];
    solve(&j, 2, &s, p);
    assert_false(s.exists); /* n = 1 = k */
    joint_add(&j, x, 2.0, 1);
    solve(&j, 2, &s, p);
    assert_true(s.exists);
    assert_false(p[0].in_a || p[1].in_a);
    NEAR(s.base, 1.5);
    NEAR(s.resid_sd, sqrt(0.25 * 2 / 1)); /* v_y = 0.25, n / (n - 1) = 2 */
    joint_free(&j);
}

/* 11.4: 0.9975 per 300 s of interval, whatever the recording interval */
static void test_forgetting_is_0_9975_per_300_s(void **state)
{
    (void)state;
    NEAR(joint_decay(300), 0.9975);
    NEAR(joint_decay(600), 0.9975 * 0.9975);
    NEAR(joint_decay(30), pow(0.9975, 0.1));
    joint j = {0};
    assert_int_equal(joint_grow(&j, 1), 0);
    double x = 1;
    joint_add(&j, &x, 2, joint_decay(600));
    joint_add(&j, &x, 2, joint_decay(600));
    NEAR(j.n, 0.9975 * 0.9975 + 1);
    NEAR(j.sy, 2 * (0.9975 * 0.9975 + 1));
    NEAR(j.S[0], 0.9975 * 0.9975 + 1);
    assert_int_equal(j.points, 2);
    joint_free(&j);
}

/* 11.3: pools' cores above 1.1 x host + 0.1 */
static void test_inconsistent_pair_is_over_1_1_host_plus_0_1(void **state)
{
    (void)state;
    assert_false(joint_inconsistent(1.2, 1.0));
    assert_true(joint_inconsistent(1.2001, 1.0));
    assert_false(joint_inconsistent(0.1, 0));
    assert_true(joint_inconsistent(0.11, 0));
}

/* a pool that enters later starts with zeros; solutions follow the order */
static void test_a_new_pool_enters_with_zeros_in_name_order(void **state)
{
    (void)state;
    joint j = {0};
    assert_int_equal(joint_grow(&j, 1), 0);
    double x0 = 1;
    joint_add(&j, &x0, 2, 1);
    for (size_t k = 2; k <= 20; k++) /* past the first room of 8: the sums move */
        assert_int_equal(joint_grow(&j, k), 0);
    assert_true(j.s[1] == 0 && j.S[1] == 0 && j.sy_p[19] == 0);
    NEAR(j.s[0], 1);
    NEAR(j.S[0], 1);
    joint_free(&j);
    /* the hand-worked points with the pools given in the other order */
    joint m = {0};
    four(&m, 1);
    size_t order[2] = {1, 0};
    joint_sol s;
    joint_pool p[2];
    assert_int_equal(joint_solve(&m, order, 2, &s, p), 0);
    NEAR(p[0].slope, 2.05);
    NEAR(p[1].slope, 1.55);
    joint_free(&m);
}

/* sums past what a double holds give no line and no NaN */
static void test_no_nan_from_loads_past_a_double(void **state)
{
    (void)state;
    joint j = {0};
    assert_int_equal(joint_grow(&j, 2), 0);
    for (int i = 0; i < 40; i++) {
        double x[2] = {i % 2 ? 1e300 : 0, i % 3 * 0.5};
        joint_add(&j, x, i % 2 ? 1e300 : 1 + x[1], 1);
    }
    joint_sol s;
    joint_pool p[2];
    solve(&j, 2, &s, p);
    double v[] = {s.n, s.base, s.resid_sd, s.common_slope, s.common_se, s.common_sd_x,
                  p[0].slope, p[0].se, p[0].partial_sd, p[1].slope, p[1].se, p[1].partial_sd};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        assert_true(isfinite(v[i]));
    assert_false(p[0].in_a); /* its variance is inf - inf */
    assert_false(s.common_exists);
    joint_free(&j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_pool_solve_matches_hand_arithmetic),
        cmocka_unit_test(test_belief_by_n_standard_error_and_partial_sd),
        cmocka_unit_test(test_a_constant_pool_does_not_join),
        cmocka_unit_test(test_a_collinear_pool_does_not_join),
        cmocka_unit_test(test_s2_floor_for_an_exact_sum),
        cmocka_unit_test(test_no_line_with_n_at_most_k),
        cmocka_unit_test(test_forgetting_is_0_9975_per_300_s),
        cmocka_unit_test(test_inconsistent_pair_is_over_1_1_host_plus_0_1),
        cmocka_unit_test(test_host_joint_exists_for_an_empty_active_set),
        cmocka_unit_test(test_a_new_pool_enters_with_zeros_in_name_order),
        cmocka_unit_test(test_no_nan_from_loads_past_a_double),
    };
    return cmocka_run_group_tests_name("joint", tests, NULL, NULL);
}
