/* pipeline.md section 3: the histogram. */
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
        hist_add(&h, i % 3 == 0 ? 100 : 7000); /* 1366 in bucket 0, 2730 in 14 */
    assert_int_equal(h.total, 4096);
    assert_int_equal(h.count[0], 1366);
    hist_add(&h, 320000); /* 4097: every bucket halves, 1 becomes 0 */
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
    hist_add(&h, 100);
    assert_int_equal(hist_percentile(&h, 50), 0); /* rank at least 1 */
    assert_int_equal(hist_percentile(&h, 90), 0);
    /* 10 readings: 5 at bucket 2, 4 at bucket 14, 1 at bucket 20 */
    hist g = {0};
    for (int i = 0; i < 5; i++)
        hist_add(&g, 1000);
    for (int i = 0; i < 4; i++)
        hist_add(&g, 7000);
    hist_add(&g, 10000);
    assert_int_equal(hist_percentile(&g, 50), 2);  /* ceil(10/2) = 5 reached at 2 */
    assert_int_equal(hist_percentile(&g, 90), 14); /* ceil(9) = 9 reached at 14 */
    hist_add(&g, 10000); /* 11: ceil(5.5) = 6, ceil(9.9) = 10 */
    assert_int_equal(hist_percentile(&g, 50), 14);
    assert_int_equal(hist_percentile(&g, 90), 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bucket_of_a_share),
        cmocka_unit_test(test_bucket_floors),
        cmocka_unit_test(test_halving_past_4096),
        cmocka_unit_test(test_percentiles_are_bucket_floors),
    };
    return cmocka_run_group_tests_name("hist", tests, NULL, NULL);
}
