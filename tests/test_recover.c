/* docs/rules.md 11.1-11.3 through the pipeline: a worker is its pid and start
 * time, the CPU that left with workers comes back from the masters'
 * cutime + cstime (shared by left workers, else by cores, else not at
 * all, with the per-master carry), and a pair's point of the joint fit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "pipeline_harness.h"
#include "whatif.h"

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-12)

/* what the last round's pair said about pools a and b */
typedef struct {
    double cores[2], recovered[2];
    int    joint_point, inconsistent;
} seen;

static void hook(void *arg, const pl_host *h, const pl_pool *p, const pl_round *r,
                 const pl_pool_pair *pair)
{
    (void)h, (void)r;
    seen *s = arg;
    int i = p->name[0] == 'b';
    s->cores[i] = pair->pool_cores;
    s->recovered[i] = pair->recovered_cores;
    s->joint_point = pair->joint_point;
    s->inconsistent = pair->inconsistent;
}

static pipeline *new_pl(seen *s)
{
    pipeline *pl = pipeline_new(NULL);
    assert_non_null(pl);
    assert_int_equal(pipeline_on_round(pl, hook, s), 0);
    th_host(pl, "h", 8, "boot", 0);
    return pl;
}

/* round 1 at t = 0: master 7 (start 5) with children's ticks 1000; a's
 * workers 11 (100 ticks) and 12 (200), b's 21 (50) */
static void first_round(pipeline *pl)
{
    th_round *r = th_round_at(0, 0);
    th_master(r, 1, 7LL, 1000ULL, 5LL);
    th_workers(r, "a", 2, 11LL, 7LL, 100ULL, 1LL, 12LL, 7LL, 200ULL, 1LL);
    th_workers(r, "b", 1, 21LL, 7LL, 50ULL, 1LL);
    assert_int_equal(th_run(pl, r), 0);
}

static void test_a_pid_with_another_start_time_is_a_new_worker(void **state)
{
    (void)state;
    seen s = {0};
    pipeline *pl = new_pl(&s);
    th_round *r = th_round_at(0, 0);
    th_workers(r, "a", 1, 10LL, 7LL, 500ULL, 100LL);
    th_run(pl, r);
    r = th_round_at(20, 2000);
    th_workers(r, "a", 1, 10LL, 7LL, 600ULL, 200LL); /* pid 10 reused: its whole 600 */
    th_run(pl, r);
    NEAR(s.cores[0], 600.0 / 100 / 20);
    r = th_round_at(40, 4000);
    th_workers(r, "a", 1, 10LL, 7LL, 650ULL, -1LL); /* no field 22: by pid alone, +50 */
    th_run(pl, r);
    NEAR(s.cores[0], 50.0 / 100 / 20);
    pipeline_free(pl);
}

static void test_lost_cpu_is_shared_by_the_workers_that_left(void **state)
{
    (void)state;
    seen s = {0};
    pipeline *pl = new_pl(&s);
    first_round(pl);
    /* 12 left (200 ticks); the master reaped 240: 40 spent after a's last PIDS */
    th_round *r = th_round_at(20, 2000);
    th_master(r, 1, 7LL, 1240ULL, 5LL);
    th_workers(r, "a", 2, 11LL, 7LL, 150ULL, 1LL, 13LL, 7LL, 10ULL, 2LL);
    th_workers(r, "b", 2, 21LL, 7LL, 80ULL, 1LL, 22LL, 7LL, 5ULL, 2LL);
    th_run(pl, r);
    NEAR(s.recovered[0], 40.0 / 100 / 20);
    NEAR(s.cores[0], (50.0 + 10 + 40) / 100 / 20);
    NEAR(s.recovered[1], 0);
    NEAR(s.cores[1], 35.0 / 100 / 20);
    pl_host *h = th_find_host(pl, "h");
    wi_view *v = whatif_measured_views(h);
    assert_true(v[0].has_recovered && v[1].has_recovered);
    NEAR(v[0].recovered_pct, 40.00);  /* 40 of a's 100 ticks */
    NEAR(v[1].recovered_pct, 0);
    whatif_views_free(v, (h)->npools);
    pipeline_free(pl);
}

static void test_lost_cpu_without_left_workers_is_shared_by_cores(void **state)
{
    (void)state;
    seen s = {0};
    pipeline *pl = new_pl(&s);
    first_round(pl);
    /* nobody left, the master reaped 30: a worker born and gone between */
    th_round *r = th_round_at(20, 2000);
    th_master(r, 1, 7LL, 1030ULL, 5LL);
    th_workers(r, "a", 2, 11LL, 7LL, 150ULL, 1LL, 12LL, 7LL, 230ULL, 1LL);
    th_workers(r, "b", 1, 21LL, 7LL, 80ULL, 1LL);
    th_run(pl, r);
    NEAR(s.recovered[0], 30.0 * 80 / 110 / 100 / 20);
    NEAR(s.recovered[1], 30.0 * 30 / 110 / 100 / 20);
    pipeline_free(pl);
}

static void test_lost_cpu_of_idle_pools_is_not_assigned(void **state)
{
    (void)state;
    seen s = {0};
    pipeline *pl = new_pl(&s);
    first_round(pl);
    th_round *r = th_round_at(20, 2000);
    th_master(r, 1, 7LL, 1030ULL, 5LL);
    th_workers(r, "a", 2, 11LL, 7LL, 100ULL, 1LL, 12LL, 7LL, 200ULL, 1LL);
    th_workers(r, "b", 1, 21LL, 7LL, 50ULL, 1LL);
    th_run(pl, r);
    NEAR(s.recovered[0], 0);
    NEAR(s.recovered[1], 0);
    wi_view *v = whatif_measured_views(th_find_host(pl, "h"));
    assert_true(v[0].has_recovered); /* MASTER data, nothing recovered */
    NEAR(v[0].recovered_pct, 0);
    whatif_views_free(v, (th_find_host(pl, "h"))->npools);
    pipeline_free(pl);
}

/* a worker reaped between the MASTER read and its pool's PIDS: one pair
 * sees too little (carry -200), the next one the rest */
static void test_the_carry_settles_a_worker_reaped_after_the_master_read(void **state)
{
    (void)state;
    seen s = {0};
    pipeline *pl = new_pl(&s);
    first_round(pl);
    th_round *r = th_round_at(20, 2000);
    th_master(r, 1, 7LL, 1000ULL, 5LL); /* 12 left the PIDS, not yet reaped */
    th_workers(r, "a", 1, 11LL, 7LL, 150ULL, 1LL);
    th_workers(r, "b", 1, 21LL, 7LL, 80ULL, 1LL);
    th_run(pl, r);
    NEAR(s.recovered[0], 0);
    r = th_round_at(40, 4000);
    th_master(r, 1, 7LL, 1210ULL, 5LL); /* 12 reaped with 210: 10 more than seen */
    th_workers(r, "a", 1, 11LL, 7LL, 170ULL, 1LL);
    th_workers(r, "b", 1, 21LL, 7LL, 100ULL, 1LL);
    th_run(pl, r);
    NEAR(s.recovered[0] + s.recovered[1], 10.0 / 100 / 20); /* by cores: 20 and 20 */
    NEAR(s.recovered[0], 5.0 / 100 / 20);
    pipeline_free(pl);
}

/* the carry starts again when the master's start time changes, or its
 * counter going back gives no share */
static void test_the_carry_starts_again_with_another_master(void **state)
{
    (void)state;
    seen s = {0};
    pipeline *pl = new_pl(&s);
    first_round(pl);
    th_round *r = th_round_at(20, 2000);
    th_master(r, 1, 7LL, 1000ULL, 5LL); /* carry -200 */
    th_workers(r, "a", 1, 11LL, 7LL, 150ULL, 1LL);
    th_workers(r, "b", 1, 21LL, 7LL, 80ULL, 1LL);
    th_run(pl, r);
    r = th_round_at(40, 4000);
    th_master(r, 1, 7LL, 5ULL, 6LL); /* another master under pid 7: no pair, carry 0 */
    th_workers(r, "a", 1, 11LL, 7LL, 170ULL, 1LL);
    th_workers(r, "b", 1, 21LL, 7LL, 100ULL, 1LL);
    th_run(pl, r);
    NEAR(s.recovered[0], 0);
    r = th_round_at(60, 6000);
    th_master(r, 1, 7LL, 15ULL, 6LL); /* +10 with carry 0: 10 recovered, not -190 */
    th_workers(r, "a", 1, 11LL, 7LL, 190ULL, 1LL);
    th_workers(r, "b", 1, 21LL, 7LL, 120ULL, 1LL);
    th_run(pl, r);
    NEAR(s.recovered[0] + s.recovered[1], 10.0 / 100 / 20);
    r = th_round_at(80, 8000);
    th_master(r, 1, 7LL, 3ULL, 6LL); /* went back: no share */
    th_workers(r, "a", 1, 11LL, 7LL, 210ULL, 1LL);
    th_workers(r, "b", 1, 21LL, 7LL, 140ULL, 1LL);
    th_run(pl, r);
    NEAR(s.recovered[0] + s.recovered[1], 0);
    pipeline_free(pl);
}

/* a MASTER line that does not parse is left out; the others count */
static void test_a_master_line_that_does_not_parse_is_left_out(void **state)
{
    (void)state;
    seen s = {0};
    pipeline *pl = new_pl(&s);
    first_round(pl);
    th_round *r = th_round_at(20, 2000);
    th_master(r, 1, 7LL, 1240ULL, 5LL);
    buf_add(&r->master, "garbage (x\n", 11);
    th_workers(r, "a", 2, 11LL, 7LL, 150ULL, 1LL, 13LL, 7LL, 10ULL, 2LL);
    th_workers(r, "b", 2, 21LL, 7LL, 80ULL, 1LL, 22LL, 7LL, 5ULL, 2LL);
    th_run(pl, r);
    NEAR(s.recovered[0], 40.0 / 100 / 20);
    pipeline_free(pl);
}

/* 11.3: a pair gives one point, unless the pools used more than the host */
static void test_a_pair_gives_a_point_unless_inconsistent(void **state)
{
    (void)state;
    seen s = {0};
    pipeline *pl = new_pl(&s);
    first_round(pl);
    th_round *r = th_round_at(20, 2000); /* host 1 core; pools 0.0425 */
    th_workers(r, "a", 2, 11LL, 7LL, 150ULL, 1LL, 12LL, 7LL, 200ULL, 1LL);
    th_workers(r, "b", 1, 21LL, 7LL, 85ULL, 1LL);
    th_run(pl, r);
    pl_host *h = th_find_host(pl, "h");
    assert_int_equal(h->j.points, 1);
    assert_true(s.joint_point && !s.inconsistent);
    NEAR(h->j.s[th_find(pl, "h", "a")->jx], 50.0 / 100 / 20);
    NEAR(h->j.sy, 1);
    r = th_round_at(40, 2100); /* host 0.05 cores; pools 2.5 + 0: inconsistent */
    th_workers(r, "a", 2, 11LL, 7LL, 5150ULL, 1LL, 12LL, 7LL, 200ULL, 1LL);
    th_workers(r, "b", 1, 21LL, 7LL, 85ULL, 1LL);
    th_run(pl, r);
    assert_int_equal(h->j.points, 1);
    assert_int_equal(h->j.inconsistent, 1);
    assert_true(!s.joint_point && s.inconsistent);
    r = th_round_at(60, 4100); /* 20 s later: the sums decay by 0.9975^(20/300) */
    th_workers(r, "a", 2, 11LL, 7LL, 5150ULL, 1LL, 12LL, 7LL, 200ULL, 1LL);
    th_workers(r, "b", 1, 21LL, 7LL, 85ULL, 1LL);
    th_run(pl, r);
    NEAR(h->j.n, pow(0.9975, 20.0 / 300) + 1);
    pipeline_free(pl);
}

/* 11.5: the overhead used is the pool's own, else the host's common line,
 * else none.  Pools a and b always carry the same load (0 to 1.5 cores
 * each), host = 0.2 + 1.5 x both: a, first in name order, joins the active
 * set with both pools' slope, 3.0; b cannot, and takes the host's 1.5. */
static void test_overhead_is_its_own_else_the_hosts_else_none(void **state)
{
    (void)state;
    seen s = {0};
    pipeline *pl = new_pl(&s);
    unsigned long long host = 0, pool = 0;
    for (int i = 0; i <= 40; i++) {
        double x = i % 4 * 0.5; /* cores each, over the 30 s before */
        pool += (unsigned long long)(x * 100 * 30);
        host += i ? (unsigned long long)((0.2 + 3 * x) * 100 * 30) : 0;
        th_round *r = th_round_at(30.0 * i, host);
        th_workers(r, "a", 1, 11LL, 7LL, pool, 1LL);
        th_workers(r, "b", 1, 21LL, 7LL, pool, 1LL);
        th_run(pl, r);
        if (i == 20) { /* n < 30: none yet */
            wi_view *v = whatif_measured_views(th_find_host(pl, "h"));
            assert_int_equal(v[0].source, WI_SRC_NONE);
            assert_int_equal(v[1].source, WI_SRC_NONE);
            whatif_views_free(v, (th_find_host(pl, "h"))->npools);
        }
    }
    wi_view *v = whatif_measured_views(th_find_host(pl, "h"));
    assert_int_equal(v[0].source, WI_SRC_OWN);
    assert_true(fabs(v[0].overhead - 3.0) < 1e-9);
    assert_int_equal(v[1].source, WI_SRC_HOST);
    assert_false(v[1].joint.in_a);
    assert_true(fabs(v[1].overhead - 1.5) < 1e-9);
    whatif_views_free(v, (th_find_host(pl, "h"))->npools);
    wi_scenario dom = {.headroom = WI_DEFAULT_HEADROOM, .fit = WI_FIT_DOMINANT};
    v = whatif_views(th_find_host(pl, "h"), &dom); /* section 5: no pool dominant */
    assert_int_equal(v[0].source, WI_SRC_NONE);
    assert_int_equal(v[1].source, WI_SRC_NONE);
    whatif_views_free(v, (th_find_host(pl, "h"))->npools);
    pipeline_free(pl);
}

/* a PIDS out of pid order is sorted, and of a pid listed twice the later
 * line stands */
static void test_workers_are_sorted_by_pid_the_later_line_standing(void **state)
{
    (void)state;
    procfs_proc t[] = {{30, 7, 5, 0, 1, -1}, {10, 7, 1, 0, 1, -1}, {30, 7, 9, 0, 1, -1},
                       {20, 7, 2, 0, 1, -1}};
    wk_map m = {0};
    assert_int_equal(wk_set(&m, t, 4), 0);
    assert_int_equal(m.n, 3);
    assert_int_equal(m.v[0].pid, 10);
    assert_int_equal(m.v[1].pid, 20);
    assert_int_equal(m.v[2].pid, 30);
    assert_int_equal(m.v[2].ticks, 9);
    wk_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_workers_are_sorted_by_pid_the_later_line_standing),
        cmocka_unit_test(test_a_pid_with_another_start_time_is_a_new_worker),
        cmocka_unit_test(test_lost_cpu_is_shared_by_the_workers_that_left),
        cmocka_unit_test(test_lost_cpu_without_left_workers_is_shared_by_cores),
        cmocka_unit_test(test_lost_cpu_of_idle_pools_is_not_assigned),
        cmocka_unit_test(test_the_carry_settles_a_worker_reaped_after_the_master_read),
        cmocka_unit_test(test_the_carry_starts_again_with_another_master),
        cmocka_unit_test(test_a_master_line_that_does_not_parse_is_left_out),
        cmocka_unit_test(test_a_pair_gives_a_point_unless_inconsistent),
        cmocka_unit_test(test_overhead_is_its_own_else_the_hosts_else_none),
    };
    return cmocka_run_group_tests_name("recover", tests, NULL, NULL);
}
