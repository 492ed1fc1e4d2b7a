/* docs/rules.md section 3: the histogram. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hist.h"

static void test_bucket_of_a_share(void **state)
{
    (void)state;
    static const struct { int64_t s; int b; } c[] = {
        {0, 0}, {499, 0}, {500, 1}, {6757, 13}, {9999, 19}, {10000, 20}, {12499, 20},
        {12500, 21}, {39999, 31}, {40000, 32}, {49999, 32}, {50000, 33}, {319999, 59},
        {320000, 60}, {INT64_MAX, 60},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        if (hist_bucket(c[i].s) != c[i].b)
            fail_msg("share %lld: bucket %d, want %d", (long long)c[i].s, hist_bucket(c[i].s), c[i].b);
}

static void test_bucket_floors(void **state)
{
    (void)state;
    assert_int_equal(hist_floor_pct(0), 0);
    assert_int_equal(hist_floor_pct(13), 65);
    assert_int_equal(hist_floor_pct(19), 95);
    assert_int_equal(hist_floor_pct(20), 100);
    assert_int_equal(hist_floor_pct(31), 375);
    assert_int_equal(hist_floor_pct(32), 400);
    assert_int_equal(hist_floor_pct(59), 3100);
    assert_int_equal(hist_floor_pct(60), 3200);
    /* every floor is the bucket of itself */
    for (int i = 0; i < HIST_BUCKETS; i++)
        assert_int_equal(hist_bucket((int64_t)hist_floor_pct(i) * 100), i);
}

static void test_halving_past_4096(void **state)
{
    (void)state;
    hist h = {0};
    for (int i = 0; i < 4096; i++)
        hist_add(&h, i % 3 == 0 ? 100 : 7000, 0); /* 1366 in bucket 0, 2730 in 14 */
    assert_int_equal(h.total, 4096);
    assert_int_equal(h.count[0], 1366);
    hist_add(&h, 320000, 0); /* 4097: every bucket halves, 1 becomes 0 */
    assert_int_equal(h.count[0], 683);
    assert_int_equal(h.count[14], 1365);
    assert_int_equal(h.count[60], 0);
    assert_int_equal(h.total, 683 + 1365);
}

static void test_percentiles_are_bucket_floors(void **state)
{
    (void)state;
    hist h = {0};
    assert_int_equal(hist_percentile(&h, 50), -1);
    hist_add(&h, 100, 0);
    assert_int_equal(hist_percentile(&h, 50), 0); /* rank at least 1 */
    assert_int_equal(hist_percentile(&h, 90), 0);
    /* 10 readings: 5 at bucket 2, 4 at bucket 14, 1 at bucket 20 */
    hist g = {0};
    for (int i = 0; i < 5; i++)
        hist_add(&g, 1000, 0);
    for (int i = 0; i < 4; i++)
        hist_add(&g, 7000, 0);
    hist_add(&g, 10000, 0);
    assert_int_equal(hist_percentile(&g, 50), 2);  /* ceil(10/2) = 5 reached at 2 */
    assert_int_equal(hist_percentile(&g, 90), 14); /* ceil(9) = 9 reached at 14 */
    hist_add(&g, 10000, 0); /* 11: ceil(5.5) = 6, ceil(9.9) = 10 */
    assert_int_equal(hist_percentile(&g, 50), 14);
    assert_int_equal(hist_percentile(&g, 90), 20);
}

/* Section 10: W += d (whole ms, rounded down) and C += s x d per reading. */
static void test_busy_sums_are_duration_and_share_times_duration(void **state)
{
    (void)state;
    hist h = {0};
    hist_add(&h, 2000, 100999);   /* 20% for 100.999 ms: d = 100 */
    hist_add(&h, 9500, 5000000);  /* 95% for 5 s */
    assert_int_equal(h.busy_w, 5100);
    assert_int_equal(h.busy_c, 2000ULL * 100 + 9500ULL * 5000);
}

/* s is capped at 1,000,000 hundredths and d at 10^9 ms. */
static void test_busy_sums_cap_share_and_duration(void **state)
{
    (void)state;
    hist h = {0};
    hist_add(&h, 5000000, 2000000000000000LL); /* 50000% for 2 x 10^12 ms */
    assert_int_equal(h.busy_w, 1000000000ULL);
    assert_int_equal(h.busy_c, 1000000ULL * 1000000000ULL);
}

/* W and C halve, rounded down, in the step that halves the buckets. */
static void test_busy_sums_halve_with_the_histogram(void **state)
{
    (void)state;
    hist h = {0};
    for (int i = 0; i < 4096; i++)
        hist_add(&h, 7000, 90000);    /* 90 ms each */
    assert_int_equal(h.busy_w, 4096ULL * 90);
    hist_add(&h, 7001, 91000);        /* the 4097th: halving */
    assert_int_equal(h.total, 2048);
    assert_int_equal(h.busy_w, (4096ULL * 90 + 91) / 2);
    assert_int_equal(h.busy_c, (4096ULL * 90 * 7000 + 91ULL * 7001) / 2);
}

/* busy_pct and busy_millicores come from C and W, each rounded half away
 * from zero: 1000.5 hundredths is 10.01%, 100.5m is 101m. */
static void test_busy_rounds_half_away_from_the_exact_ratio(void **state)
{
    (void)state;
    int64_t pct, mc;
    hist h = {0};
    assert_int_equal(hist_busy(&h, &pct, &mc), -1); /* W = 0 */
    hist_add(&h, 1001, 1000);
    hist_add(&h, 1000, 1000);         /* C / W = 2001 / 2 = 1000.5 */
    assert_int_equal(hist_busy(&h, &pct, &mc), 0);
    assert_int_equal(pct, 1001);
    assert_int_equal(mc, 100);        /* 2001 / 20 = 100.05 */
    hist g = {0};
    hist_add(&g, 1010, 1000);
    hist_add(&g, 1000, 1000);         /* 2010 / 20 = 100.5: from C and W, not from 10.05% */
    assert_int_equal(hist_busy(&g, &pct, &mc), 0);
    assert_int_equal(pct, 1005);
    assert_int_equal(mc, 101);
    /* the spec's bimodal pool: 90 of 100 ms at 20%, 10 of 5 s at 95% */
    hist b = {0};
    for (int i = 0; i < 90; i++)
        hist_add(&b, 2000, 100000);
    for (int i = 0; i < 10; i++)
        hist_add(&b, 9500, 5000000);
    assert_int_equal(hist_busy(&b, &pct, &mc), 0);
    assert_int_equal(pct, 8356);
    assert_int_equal(mc, 836);
    assert_int_equal(hist_floor_pct(hist_percentile(&b, 50)), 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bucket_of_a_share),
        cmocka_unit_test(test_bucket_floors),
        cmocka_unit_test(test_halving_past_4096),
        cmocka_unit_test(test_percentiles_are_bucket_floors),
        cmocka_unit_test(test_busy_sums_are_duration_and_share_times_duration),
        cmocka_unit_test(test_busy_sums_cap_share_and_duration),
        cmocka_unit_test(test_busy_sums_halve_with_the_histogram),
        cmocka_unit_test(test_busy_rounds_half_away_from_the_exact_ratio),
    };
    return cmocka_run_group_tests_name("hist", tests, NULL, NULL);
}
