/* The steal probe's and the clock check's arithmetic, with injected clocks:
 * a gap sequence in, the STEAL and TIMING fields out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"

/* A counter of 1 GHz that moves step ns per read, and jumps where a gap is
 * scheduled; CLOCK_MONOTONIC reads the same time without moving it. */
typedef struct {
    uint64_t        now, step;
    const uint64_t *at, *gap;   /* gap[i] happens at the first read past at[i] */
    size_t          n, next;
} fake;

static uint64_t fake_cycles(void *arg)
{
    fake *f = arg;
    f->now += f->step;
    if (f->next < f->n && f->now >= f->at[f->next])
        f->now += f->gap[f->next++];
    return f->now;
}

static uint64_t fake_mono(void *arg)
{
    return ((fake *)arg)->now;
}

static void test_probe_gaps_histogram_total_and_largest(void **state)
{
    (void)state;
    /* after the 10 ms calibration: 4 us (no gap), 7 us, 30 us, 600 us, 12 ms */
    static const uint64_t at[] = {20000000, 30000000, 40000000, 50000000, 60000000};
    static const uint64_t gap[] = {4000, 7000, 30000, 600000, 12000000};
    fake f = {1000000, 20, at, gap, 5, 0};
    probe_ops ops = {fake_cycles, fake_mono, NULL, &f};
    probe_result r = {0};
    assert_int_equal(probe_loop(&ops, 100000000, &r), 0);
    assert_int_equal(r.threshold_ns, 5000);
    assert_int_equal(r.gap_count, 4);
    assert_int_equal(r.gap_total_ns, 7020 + 30020 + 600020 + 12000020);
    assert_int_equal(r.gap_max_ns, 12000020);
    static const uint64_t hist[PROBE_BUCKETS] = {1, 1, 0, 0, 1, 0, 0, 1};
    assert_memory_equal(r.hist, hist, sizeof hist);
    assert_int_equal(r.duration_ns, 100000000);
    char b[512];
    r.cpu = 1;
    r.run_delay_ns = 600000;
    r.cpu_time_ns = 87000000;
    r.wall_ns = 111000000;
    probe_format(&r, b, sizeof b);
    assert_string_equal(b, "cpu=1\nduration_ns=100000000\nthreshold_ns=5000\ngap_count=4\n"
                           "gap_total_ns=12637080\ngap_max_ns=12000020\n"
                           "hist=1,1,0,0,1,0,0,1\nrun_delay_ns=600000\ncpu_time_ns=87000000\n"
                           "wall_ns=111000000\n");
}

static void test_probe_bucket_edges(void **state)
{
    (void)state;
    static const uint64_t edge[] = {9999, 10000, 49999, 50000, 100000, 500000, 1000000,
                                    5000000, 10000000};
    static const int bucket[] = {0, 1, 1, 2, 3, 4, 5, 6, 7};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        probe_result r = {0};
        probe_gap(&r, edge[i]);
        assert_int_equal(r.hist[bucket[i]], 1);
    }
}

static uint64_t stuck(void *arg)
{
    (void)arg;
    return 77;
}

static void test_probe_a_counter_that_does_not_move(void **state)
{
    (void)state;
    fake f = {1000, 1000, NULL, NULL, 0, 0};
    probe_ops ops = {stuck, fake_cycles, NULL, &f}; /* time moves, the counter does not */
    probe_result r = {0};
    assert_int_equal(probe_loop(&ops, 10000000, &r), -1);
}

/* CLOCK_MONOTONIC read every 25 ns for 1 us */
static uint64_t tick25(void *arg)
{
    uint64_t *now = arg;
    return *now += 25;
}

static void test_clock_check_buckets_exact_backwards_largest(void **state)
{
    (void)state;
    clockcheck *c = calloc(1, sizeof *c);
    static const int64_t diffs[] = {0, 1, 2, 3, 4, 1023, 1024, -5, 40, 40};
    for (size_t i = 0; i < sizeof diffs / sizeof diffs[0]; i++)
        clockcheck_add(c, diffs[i]);
    c->duration_ns = 1000;
    assert_int_equal(c->loops, 10);
    assert_int_equal(c->backwards, 1);
    assert_int_equal(c->largest_ns, 1024);
    size_t n;
    char *p = clockcheck_format(c, &n);
    assert_string_equal(p, "clock=monotonic\nduration_ns=1000\nloops=10\nper_loop_ns=100.00\n"
                           "backwards=1\nlog2=1,1,2,1,0,0,2,0,0,0,1,1\n"
                           "exact=0:1,1:1,2:1,3:1,4:1,40:2,1023:1\nlargest_ns=1024\n");
    assert_int_equal(n, strlen(p));
    free(p);
    uint64_t now = 5000;
    probe_ops ops = {tick25, tick25, NULL, &now};
    clockcheck_loop(c, &ops, 1000);
    assert_int_equal(c->loops, 40);
    assert_int_equal(c->exact[25], 40);
    assert_int_equal(c->duration_ns, 1000);
    assert_int_equal(c->nlog2, 6); /* 25 is in <= 31 */
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_probe_gaps_histogram_total_and_largest),
        cmocka_unit_test(test_probe_bucket_edges),
        cmocka_unit_test(test_probe_a_counter_that_does_not_move),
        cmocka_unit_test(test_clock_check_buckets_exact_backwards_largest),
    };
    return cmocka_run_group_tests_name("probe", tests, NULL, NULL);
}
