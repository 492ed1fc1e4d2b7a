/* docs/rules.md section 18: each request's time at N workers
 * (analyzer/pipeline/predict.h, and whatif_predict's rest of the host). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "predict.h"
#include "whatif.h"

/* 18.1: the CPU part is floor(s x d / 10000), at most the duration; the
 * rest what is left */
static void test_18_1_the_cpu_part_capped_at_the_duration(void **state)
{
    (void)state;
    int64_t p, q;
    pr_split(&(pr_reading){300, 2550, 0, 0}, &p, &q); /* 25.50% of 300 ms: 76.5, floored */
    assert_int_equal(p, 76);
    assert_int_equal(q, 224);
    pr_split(&(pr_reading){300, 27500, 0, 0}, &p, &q); /* a corrected 275%: all of it CPU */
    assert_int_equal(p, 300);
    assert_int_equal(q, 0);
}

/* 18.2: k is 1 where the CPU is not full: one worker of 1000m on 2000m */
static void test_18_2_the_stretch_at_1(void **state)
{
    (void)state;
    assert_true(pr_stretch(2000, 1000, 0, 1000, 0, 1) == 1.0);
    assert_true(pr_stretch(2000, 1000, 0, 0, 500, 8) == 1.0);  /* P = 0: nothing to stretch */
    /* a pool that only computes: (N m + o) / H */
    assert_true(fabs(pr_stretch(2000, 1000, 500, 1000, 0, 4) - 2.25) < 1e-12);
    /* one that mostly waits, the host otherwise idle: N m D / (H P) - Q / P, whose mean
     * time is 15.1's bound N x D / C: 56 workers of 100m, 10 ms CPU of 100 ms */
    double k = pr_stretch(2000, 100, 0, 10, 90, 56);
    assert_true(fabs(k - (56.0 * 100 * 100 / (2000.0 * 10) - 9)) < 1e-9);
    assert_true(fabs(90 + 10 * k - 56.0 * 100 * 100 / 2000) < 1e-9); /* 280 ms */
}

/* 18.2: o, the rest of the host, averaged over the pool's pairs and floored
 * at 0 after the average (the pool's own cores can read above the host's) */
static void test_18_2_the_others_average_floored_at_0(void **state)
{
    (void)state;
    pl_pool p;
    memset(&p, 0, sizeof p);
    p.name = "shop";
    p.name_len = 4;
    for (int i = 0; i < 20; i++) {
        hist_add(&p.h, 10000, 100000);
        assert_int_equal(pr_add(&p.keep, 100, 10000, 0), 0);
    }
    p.act.seconds = 100;
    p.act.core_seconds = 50;
    p.act.host_core_seconds = 80; /* 0.3 cores of the rest: 300m */
    wi_view v = whatif_pool_view_cost(&p, 2000, 200, 4, WI_COST_BUSY, WI_FIT_DOMINANT, NULL, NULL);
    assert_true(fabs(v.other_mc - 300) < 1e-9);
    assert_int_equal(v.predicts, 1);
    p.act.host_core_seconds = 45; /* below the pool's own: 0 */
    v = whatif_pool_view_cost(&p, 2000, 200, 4, WI_COST_BUSY, WI_FIT_DOMINANT, NULL, NULL);
    assert_true(v.other_mc == 0);
    pr_free(&p.keep);
}

/* 18.6: a host of 2000m whose pools are cpu (20 kept readings of 160 ms at
 * 100%: P = 3200, Q = 0, 1000m a busy worker) and, where two, io, which
 * used others_s core-seconds beside cpu over cpu's 100 s of pairs; the
 * host busy rest_s core-seconds more than cpu's own 100; its scheduler
 * groups as the HOST said (autogroup NULL or a string, cpu_controller 1,
 * 0 or -1; has_sched 0: no key at all).  cpu's p50 at n workers. */
static int64_t grouped_p50(int has_sched, const char *autogroup, int cpu_controller,
                           double rest_s, double others_s, double n, wi_sharing *sharing)
{
    pl_pool cpu, io;
    memset(&cpu, 0, sizeof cpu);
    memset(&io, 0, sizeof io);
    cpu.name = "cpu", cpu.name_len = 3;
    io.name = "io", io.name_len = 2;
    for (int i = 0; i < 20; i++) {
        hist_add(&cpu.h, 10000, 160000);
        assert_int_equal(pr_add(&cpu.keep, 160, 10000, 0), 0);
    }
    cpu.act.seconds = 100;
    cpu.act.core_seconds = 100;
    cpu.act.host_core_seconds = 100 + rest_s;
    cpu.act.others_core_seconds = others_s;
    pl_pool *pools[2] = {&cpu, &io};
    pl_host h;
    memset(&h, 0, sizeof h);
    h.host_millicores = 2000;
    h.pools = pools;
    h.npools = others_s > 0 ? 2 : 1;
    h.has_sched = has_sched;
    h.autogroup = (char *)autogroup;
    h.cpu_controller = cpu_controller;
    h.cpu_weight = -1;
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
    wi_view *v = whatif_views(&h, &sc);
    assert_non_null(v);
    int64_t p50 = -1, p95;
    assert_int_equal(v[0].predicts, 1);
    assert_int_equal(whatif_predict(&v[0], n, &p50, &p95), 0);
    *sharing = v[0].sharing;
    whatif_views_free(v, h.npools);
    pr_free(&cpu.keep);
    return p50;
}

/* 18.6: in a group of its own (an autogroup, or a cgroup with the cpu
 * controller) php-fpm's workers get G = max(H - o_out, H / 2) whatever their
 * number: beside one busy core in another group, 4 workers of 1000m take
 * 4 x 160 ms (k = 4 x 1000 / 1000); thread by thread (18.2) they would
 * share 2 cores with it, (4 x 1000 + 1000) / 2000 = 2.5: 400 ms.  One
 * worker is never stretched (k >= 1). */
static void test_18_6_a_group_of_its_own(void **state)
{
    (void)state;
    wi_sharing s;
    assert_int_equal(grouped_p50(1, "/autogroup-54 nice 0", 0, 100, 0, 4, &s), 640);
    assert_int_equal(s, WI_SHARE_AUTOGROUP);
    assert_int_equal(grouped_p50(1, NULL, 1, 100, 0, 4, &s), 640);
    assert_int_equal(s, WI_SHARE_CGROUP);
    assert_int_equal(grouped_p50(1, "/autogroup-54 nice 0", 1, 100, 0, 4, &s), 640);
    assert_int_equal(s, WI_SHARE_CGROUP); /* the controller's group is the one */
    assert_int_equal(grouped_p50(1, "/autogroup-54 nice 0", 0, 100, 0, 1, &s), 160);
    /* no group of its own: 18.2 as written */
    assert_int_equal(grouped_p50(1, NULL, 0, 100, 0, 4, &s), 400);
    assert_int_equal(s, WI_SHARE_THREADS);
    assert_int_equal(grouped_p50(1, NULL, -1, 100, 0, 4, &s), 400);
    assert_int_equal(grouped_p50(0, NULL, -1, 100, 0, 4, &s), 400);
    assert_int_equal(s, WI_SHARE_THREADS);
}

/* 18.6: the host's other pools are inside php-fpm's group: o_in, their own
 * busy over the pool's pairs, stays o in the stretch; only o_out = o - o_in
 * takes the group's CPU.  o = 1000m, io 500m of it: G = 2000 - 500, k(4) =
 * (4 x 1000 + 500) / 1500 = 3: 480 ms.  A rest of 1.8 cores outside gives
 * php-fpm's group still H / 2: k(4) = 4 x 1000 / 1000, 640 ms. */
static void test_18_6_the_other_pools_inside_the_group(void **state)
{
    (void)state;
    wi_sharing s;
    assert_int_equal(grouped_p50(1, "/autogroup-54 nice 0", 0, 100, 50, 4, &s), 480);
    assert_int_equal(grouped_p50(1, "/autogroup-54 nice 0", 0, 180, 0, 4, &s), 640);
    /* o_in above o (the pools read more than the host): o_out 0, G = H */
    assert_int_equal(grouped_p50(1, "/autogroup-54 nice 0", 0, 40, 50, 4, &s), 360);
}

/* 18.3: p50 and p95 by nearest rank: the value at rank ceil(pct x n / 100) */
static void test_18_3_nearest_rank_percentiles(void **state)
{
    (void)state;
    pr_keep k = {0};
    for (int i = 1; i <= 40; i++) /* all rest: 10 .. 400 ms, k changes nothing */
        assert_int_equal(pr_add(&k, 10 * i, 0, 0), 0);
    int64_t p50, p95;
    assert_int_equal(pr_predict(&k, 2000, 1000, 0, 8, &p50, &p95), 0);
    assert_int_equal(p50, 200); /* rank 20 */
    assert_int_equal(p95, 380); /* rank 38 */
    pr_free(&k);
    for (int i = 1; i <= 21; i++) /* all CPU, 100 ms each, stretched x 2.25 at 4 + 500m */
        assert_int_equal(pr_add(&k, 100, 10000, 0), 0);
    assert_int_equal(pr_predict(&k, 2000, 1000, 500, 4, &p50, &p95), 0);
    assert_int_equal(p50, 225);
    assert_int_equal(p95, 225);
    pr_free(&k);
}

static int by_ms(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* 18.3: the ranks are those of the sorted times whatever the order the
 * readings came in, many of them equal (the percentiles are selected, not
 * sorted) */
static void test_18_3_nearest_rank_in_any_order(void **state)
{
    (void)state;
    static const uint32_t sizes[] = {20, 21, 39, 40, 101, 1000, 4096};
    static const uint32_t spread[] = {1, 3, 97, 100000};
    for (size_t a = 0; a < sizeof sizes / sizeof *sizes; a++)
        for (size_t b = 0; b < sizeof spread / sizeof *spread; b++) {
            pr_keep k = {0};
            int64_t d[4096];
            uint32_t x = 12345;
            for (uint32_t i = 0; i < sizes[a]; i++) {
                x = x * 1103515245u + 12345u;
                d[i] = (x >> 8) % spread[b];
                assert_int_equal(pr_add(&k, d[i], 0, 0), 0); /* all rest: t = d */
            }
            qsort(d, sizes[a], sizeof *d, by_ms);
            int64_t p50, p95;
            assert_int_equal(pr_predict(&k, 2000, 1000, 0, 8, &p50, &p95), 0);
            assert_int_equal(p50, d[(50 * sizes[a] + 99) / 100 - 1]);
            assert_int_equal(p95, d[(95 * sizes[a] + 99) / 100 - 1]);
            assert_int_equal(pr_route(&k, PR_NO_ROUTE, 1.0, &p50, &p95), 0);
            assert_int_equal(p50, d[(50 * sizes[a] + 99) / 100 - 1]);
            assert_int_equal(p95, d[(95 * sizes[a] + 99) / 100 - 1]);
            pr_free(&k);
        }
}

/* 18.3: no prediction under 20 kept readings */
static void test_18_3_fewer_than_20_kept_readings(void **state)
{
    (void)state;
    pr_keep k = {0};
    int64_t p50, p95;
    for (int i = 0; i < 19; i++)
        assert_int_equal(pr_add(&k, 100, 5000, 0), 0);
    assert_int_equal(pr_predict(&k, 2000, 1000, 0, 1, &p50, &p95), -1);
    assert_int_equal(pr_add(&k, 100, 5000, 0), 0);
    assert_int_equal(pr_predict(&k, 2000, 1000, 0, 1, &p50, &p95), 0);
    pr_free(&k);
}

/* 18.1: the latest 4096: the 4097th reading forgets the first */
static void test_18_1_the_4097th_reading_forgets_the_first(void **state)
{
    (void)state;
    pr_keep k = {0};
    assert_int_equal(pr_add(&k, 9000, 0, 0), 0); /* the first: 9 s, the longest */
    for (int i = 1; i < PR_KEEP; i++)
        assert_int_equal(pr_add(&k, 100, 0, 0), 0);
    int64_t p50, p95;
    double p, q;
    pr_sums(&k, &p, &q);
    assert_true(q == 9000 + 100.0 * (PR_KEEP - 1));
    assert_int_equal(k.n, PR_KEEP);
    assert_int_equal(pr_add(&k, 100, 0, 0), 0); /* the 4097th */
    assert_int_equal(k.n, PR_KEEP);
    pr_sums(&k, &p, &q);
    assert_true(q == 100.0 * PR_KEEP);
    assert_int_equal(pr_predict(&k, 2000, 1000, 0, 1, &p50, &p95), 0);
    assert_int_equal(p95, 100);
    pr_free(&k);
}

/* 20.6: a censused pool's kept readings are a systematic sample: the
 * i-th offered kept when i is a multiple of the stride; the 4097th kept
 * drops those at odd places and doubles the stride, and so again */
static void test_20_6_the_systematic_sample(void **state)
{
    (void)state;
    pr_keep k = {0};
    pr_add(&k, 9999, 0, 0); /* what it kept before its census goes */
    pr_systematic(&k);
    for (int i = 0; i <= 4096; i++)
        assert_int_equal(pr_add(&k, i, 0, 0), 0);
    assert_int_equal(k.stride, 2);
    assert_int_equal(k.n, 2049);
    for (uint32_t j = 0; j < k.n; j++)
        assert_int_equal(k.r[j].d_ms, 2 * j);
    for (int i = 4097; i <= 8192; i++)
        assert_int_equal(pr_add(&k, i, 0, 0), 0);
    assert_int_equal(k.stride, 4);
    assert_int_equal(k.n, 2049);
    for (uint32_t j = 0; j < k.n; j++)
        assert_int_equal(k.r[j].d_ms, 4 * j);
    pr_add(&k, 8193, 0, 0); /* not a multiple of 4 */
    assert_int_equal(k.n, 2049);
    pr_free(&k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_18_1_the_cpu_part_capped_at_the_duration),
        cmocka_unit_test(test_18_1_the_4097th_reading_forgets_the_first),
        cmocka_unit_test(test_18_2_the_stretch_at_1),
        cmocka_unit_test(test_18_2_the_others_average_floored_at_0),
        cmocka_unit_test(test_18_6_a_group_of_its_own),
        cmocka_unit_test(test_18_6_the_other_pools_inside_the_group),
        cmocka_unit_test(test_18_3_nearest_rank_percentiles),
        cmocka_unit_test(test_18_3_nearest_rank_in_any_order),
        cmocka_unit_test(test_18_3_fewer_than_20_kept_readings),
        cmocka_unit_test(test_20_6_the_systematic_sample),
    };
    return cmocka_run_group_tests_name("predict", tests, NULL, NULL);
}
