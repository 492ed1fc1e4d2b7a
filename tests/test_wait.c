/* Section 17 of docs/rules.md: each worker's own wait (analyzer/pipeline/wait.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "wait.h"

static const pl_tick TICKS[] = {{.pid = 10, .start = 500}, {.pid = 11, .start = 501}};

static void set(wt_map *m, const char *sched, uint64_t round_no)
{
    assert_int_equal(wt_set(m, (const unsigned char *)sched, strlen(sched), TICKS, 2, round_no), 0);
}

/* 17.1: a line per worker of the PIDS, sorted by pid; others left out */
static void test_17_1_sched_lines_of_the_pids_workers(void **state)
{
    (void)state;
    wt_map m = {0};
    set(&m, "11 300 40 7\n10 100 20 5\n12 9 9 9\nbad line\n10x 1 1 1\n", 3);
    assert_int_equal(m.n, 2);
    assert_int_equal(m.w[0].pid, 10);
    assert_int_equal(m.w[0].start, 500);
    assert_int_equal(m.w[0].cpu_ns, 100);
    assert_int_equal(m.w[0].delay_ns, 20);
    assert_int_equal(m.w[1].pid, 11);
    assert_int_equal(m.round_no, 3);
    set(&m, "99999999999999999999999 1 1 1\n", 4); /* a number that does not fit */
    assert_int_equal(m.n, 0);
    wt_free(&m);
}

/* 17.2: the growth of both counters; dw / (dc + dw) */
static void test_17_2_a_workers_wait_in_a_pair(void **state)
{
    (void)state;
    wt_map a = {0}, b = {0};
    set(&a, "10 1000 500 1\n", 1);
    set(&b, "10 4000 2000 9\n", 2);
    uint64_t dc, dw;
    assert_int_equal(wt_growth(&a, &b, 10, &dc, &dw), 1);
    assert_int_equal(dc, 3000);
    assert_int_equal(dw, 1500);
    assert_true(wt_ratio(dc, dw) > 0.3333 && wt_ratio(dc, dw) < 0.3334);
    assert_true(wt_ratio(0, 0) == 0);
    assert_int_equal(wt_growth(&a, &b, 11, &dc, &dw), 0); /* not in both */
    wt_free(&a);
    wt_free(&b);
}

/* 17.2: a counter that shrinks, or another process under the pid: no wait known */
static void test_17_2_a_wait_that_shrinks_is_not_known(void **state)
{
    (void)state;
    wt_map a = {0}, b = {0};
    uint64_t dc, dw;
    set(&a, "10 1000 500 1\n", 1);
    set(&b, "10 4000 400 9\n", 2);
    assert_int_equal(wt_growth(&a, &b, 10, &dc, &dw), 0);
    set(&b, "10 900 600 9\n", 2);
    assert_int_equal(wt_growth(&a, &b, 10, &dc, &dw), 0);
    static const pl_tick other[] = {{.pid = 10, .start = 777}};
    assert_int_equal(wt_set(&b, (const unsigned char *)"10 4000 600 9\n", 14, other, 1, 2), 0);
    assert_int_equal(wt_growth(&a, &b, 10, &dc, &dw), 0); /* the pid reused */
    wt_free(&a);
    wt_free(&b);
}

/* 17.3: s' = s x u / (u - w), w = c x dw / dc, c = s x u / 10000 */
static void test_17_3_a_readings_own_share(void **state)
{
    (void)state;
    /* 50% of 320 ms, having waited as long as it ran: 100% of 160 ms */
    wt_own o = wt_own_share(5000, 320000, 1000, 1000);
    assert_int_equal(o.corrected, 1);
    assert_int_equal(o.share, 10000);
    assert_int_equal(o.duration_us, 160000);
    assert_true(o.cpu_us == 160000 && o.wait_us == 160000);
    /* rounded: c 30000, w 30000 x 30 / 70 = 12857.14, 3000 x 100000 / 87142.86 =
     * 3442.62 -> 3443; the own duration in whole microseconds, 87142 */
    o = wt_own_share(3000, 100000, 70, 30);
    assert_int_equal(o.share, 3443);
    assert_int_equal(o.duration_us, 87142);
    /* no wait: the share as it was */
    o = wt_own_share(4200, 100000, 1000, 0);
    assert_int_equal(o.share, 4200);
    assert_int_equal(o.duration_us, 100000);
    /* dc 0: w = 0 */
    o = wt_own_share(4200, 100000, 0, 500);
    assert_int_equal(o.share, 4200);
}

/* 17.8: a wait so large that u - w would fall under c / 10 is clamped at
 * u - c / 10, never dropped: the own share is then 1000% */
static void test_17_8_the_wait_is_clamped_at_u_less_c_over_10(void **state)
{
    (void)state;
    /* c = 90000 us, c x dw / dc = 810000 > u: w = 100000 - 9000 = 91000 */
    wt_own o = wt_own_share(9000, 100000, 100, 900);
    assert_int_equal(o.corrected, 1);
    assert_true(o.wait_us == 91000);
    assert_int_equal(o.share, 100000);
    assert_int_equal(o.duration_us, 9000);
    /* the boundary: c x dw / dc = u - c / 10 exactly, the same either way */
    o = wt_own_share(10000, 110000, 10, 9); /* c 110000, w 99000 = 110000 - 11000 */
    assert_true(o.wait_us == 99000);
    assert_int_equal(o.share, 100000);
    assert_int_equal(o.duration_us, 11000);
    /* just under the cap: the estimate stands */
    o = wt_own_share(10000, 110001, 10, 9); /* w 99000.9, cap 99000.9: equal again */
    assert_int_equal(o.duration_us, 11000);
    o = wt_own_share(10000, 200000, 10, 9); /* c 200000, w 180000, cap 180000 */
    assert_int_equal(o.share, 100000);
    o = wt_own_share(10000, 200000, 100, 80); /* w 160000 under the cap 180000 */
    assert_int_equal(o.share, 50000);
    assert_int_equal(o.duration_us, 40000);
}

/* 17.8: w = 0 when dc is 0, and when u - c / 10 is not positive (a share
 * of 1000% or more) */
static void test_17_8_no_wait_without_cpu_or_room(void **state)
{
    (void)state;
    wt_own o = wt_own_share(5000, 100000, 0, 900);
    assert_true(o.wait_us == 0);
    assert_int_equal(o.share, 5000);
    assert_int_equal(o.duration_us, 100000);
    o = wt_own_share(100000, 100000, 10, 9); /* c = 10 u: u - c / 10 = 0 */
    assert_true(o.wait_us == 0);
    assert_int_equal(o.share, 100000);
    assert_int_equal(o.duration_us, 100000);
    o = wt_own_share(150000, 100000, 10, 9);
    assert_int_equal(o.share, 150000);
}

/* 17.3: the histogram counts a corrected reading at min(s', max(s, 100%)):
 * not above 100% unless php-fpm's own share was */
static void test_17_3_a_reading_is_shown_at_no_more_than_100_pct(void **state)
{
    (void)state;
    assert_int_equal(wt_shown_share(9000, 100000), 10000);   /* 1000% own, shown 100% */
    assert_int_equal(wt_shown_share(5000, 8000), 8000);      /* under 100%: as it is */
    assert_int_equal(wt_shown_share(25000, 33333), 25000);   /* php-fpm's 250%: at most that */
    assert_int_equal(wt_shown_share(25000, 20000), 20000);
    /* 250% raw (children on other cores), corrected: c 250000, w 25000 */
    wt_own o = wt_own_share(25000, 100000, 1000, 100);
    assert_int_equal(o.share, 33333);
    assert_int_equal(wt_shown_share(25000, o.share), 25000);
}

/* 17.3: contended from a wait ratio of 0.05 */
static void test_17_3_the_0_05_boundary(void **state)
{
    (void)state;
    assert_true(wt_ratio(95, 5) >= WT_CONTENDED);
    assert_false(wt_ratio(96, 4) >= WT_CONTENDED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_17_1_sched_lines_of_the_pids_workers),
        cmocka_unit_test(test_17_2_a_workers_wait_in_a_pair),
        cmocka_unit_test(test_17_2_a_wait_that_shrinks_is_not_known),
        cmocka_unit_test(test_17_3_a_readings_own_share),
        cmocka_unit_test(test_17_8_the_wait_is_clamped_at_u_less_c_over_10),
        cmocka_unit_test(test_17_8_no_wait_without_cpu_or_room),
        cmocka_unit_test(test_17_3_a_reading_is_shown_at_no_more_than_100_pct),
        cmocka_unit_test(test_17_3_the_0_05_boundary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
