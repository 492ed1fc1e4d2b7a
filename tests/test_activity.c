/* docs/rules.md section 12 through the pipeline: the queue of 12.1, a
 * pool's activity (12.2) and its readings under contention (12.3). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "pipeline_harness.h"

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-12)

/* what the last round said about pool a */
typedef struct {
    int64_t queue, kernel, active;
    int     maxed;
} seen;

static void hook(void *arg, const pl_host *h, const pl_pool *p, const pl_round *r,
                 const pl_pool_pair *pair)
{
    (void)h, (void)r;
    seen *s = arg;
    if (p->name[0] == 'a')
        *s = (seen){pair->listen_queue, pair->kernel_queue, pair->active, pair->maxed};
}

static pipeline *new_pl(seen *s, int max_children)
{
    pipeline *pl = pipeline_new(NULL);
    assert_non_null(pl);
    assert_int_equal(pipeline_on_round(pl, hook, s), 0);
    th_host(pl, "h", 8, "boot", 0);
    th_pool(pl, "a", max_children, NULL);
    return pl;
}

/* a page of pool a: listen queue, active processes, max children reached,
 * the pool's start time (-1: the key left out), no workers */
static void page(th_round *r, long long lq, long long active, long long reached, long long start)
{
    char b[400];
    if (start >= 0)
        snprintf(b, sizeof b, "{\"pool\":\"a\",\"start time\":%lld,\"listen queue\":%lld,"
                 "\"active processes\":%lld,\"max children reached\":%lld,\"processes\":[]}",
                 start, lq, active, reached);
    else
        snprintf(b, sizeof b, "{\"pool\":\"a\",\"listen queue\":%lld,\"active processes\":%lld,"
                 "\"max children reached\":%lld,\"processes\":[]}", lq, active, reached);
    th_page(r, "a", b, 0);
}

/* A round at t s with the host's busy ticks and pool a's one worker (pid
 * 10) at ticks; no page. */
static void pids_at(pipeline *pl, double t, unsigned long long busy, unsigned long long ticks)
{
    th_round *r = th_round_at(t, busy);
    th_pids(r, "a", 1, 10LL, ticks);
    th_run(pl, r);
}

/* 12.1: the larger of php-fpm's listen queue and the kernel's; an ERROR
 * gives none, LISTEN alone still does */
static void test_the_queue_is_the_larger_of_the_page_and_the_kernel(void **state)
{
    (void)state;
    seen s = {0};
    pipeline *pl = new_pl(&s, 4);
    th_round *r = th_round_at(0, 0);
    page(r, 0, 1, 0, 100);
    th_listen(r, "a", 4, 511); /* a unix socket: php-fpm says 0 */
    th_run(pl, r);
    assert_int_equal(s.queue, 4);
    assert_int_equal(s.kernel, 4);
    r = th_round_at(30, 0);
    page(r, 6, 1, 0, 100); /* TCP: php-fpm's is the larger */
    th_listen(r, "a", 2, 511);
    th_run(pl, r);
    assert_int_equal(s.queue, 6);
    assert_int_equal(s.kernel, 2);
    r = th_round_at(60, 0);
    th_page(r, "a", "timeout", 1);
    th_listen(r, "a", 3, 511);
    th_run(pl, r);
    assert_int_equal(s.queue, 3);
    r = th_round_at(90, 0);
    page(r, 0, 1, 0, 100);
    th_run(pl, r);
    assert_int_equal(s.queue, 0);
    assert_int_equal(s.kernel, -1);
    assert_int_equal(th_find(pl, "h", "a")->act.queue_max, 6);
    pipeline_free(pl);
}

/* 12.1: a queue seen only by the kernel makes a starved round */
static void test_a_kernel_queue_while_the_cpu_is_full_is_starved(void **state)
{
    (void)state;
    seen s = {0};
    pipeline *pl = new_pl(&s, 4);
    th_round *r = th_round_at(0, 0);
    page(r, 0, 4, 0, 100);
    th_run(pl, r);
    r = th_round_at(30, 8 * 100 * 30); /* 8 of 8 cores */
    page(r, 0, 4, 0, 100);
    th_listen(r, "a", 5, 511);
    th_run(pl, r);
    assert_int_equal(th_find(pl, "h", "a")->starved, 1);
    pipeline_free(pl);
}

/* 12.2: the most workers busy, the rounds none was idle (max_children
 * known), the rounds max children reached grew under one start time */
static void test_activity_busy_full_and_maxed_rounds(void **state)
{
    (void)state;
    seen s = {0};
    pipeline *pl = new_pl(&s, 4);
    static const long long act[] = {1, 4, 4, 2, 4, 3};
    static const long long reached[] = {7, 7, 9, 9, 12, 13}; /* a new master at round 4: its 12 is its own */
    static const long long start[] = {100, 100, 100, 100, 200, 200};
    static const int maxed[] = {0, 0, 1, 0, 0, 1};
    for (int k = 0; k < 6; k++) {
        th_round *r = th_round_at(30.0 * k, 0);
        page(r, 0, act[k], reached[k], start[k]);
        th_run(pl, r);
        assert_int_equal(s.active, act[k]);
        assert_int_equal(s.maxed, maxed[k]);
    }
    const pl_activity *a = &th_find(pl, "h", "a")->act;
    assert_int_equal(a->active_max, 4);
    assert_int_equal(a->full_rounds, 3);
    assert_int_equal(a->maxed_rounds, 2);
    pipeline_free(pl);
}

/* 12.2: cores from the pairs with the pool's PIDS in both rounds only */
static void test_activity_cores_from_pairs_with_pids_in_both(void **state)
{
    (void)state;
    seen s = {0};
    pipeline *pl = new_pl(&s, 4);
    pids_at(pl, 0, 0, 0ULL);
    pids_at(pl, 20, 1000, 400ULL); /* 400 ticks over 20 s: 0.2 cores */
    th_run(pl, th_round_at(40, 2000)); /* no PIDS */
    pids_at(pl, 60, 3000, 2400ULL); /* PIDS not in the round before: not counted */
    pids_at(pl, 90, 6000, 4200ULL); /* 1800 over 30 s: 0.6 cores */
    const pl_activity *a = &th_find(pl, "h", "a")->act;
    assert_int_equal(a->pairs, 2);
    NEAR(a->core_seconds / a->seconds, (4.0 + 18.0) / 50.0);
    NEAR(a->cores_max, 0.6);
    pipeline_free(pl);
}

/* 18.6: o_in's sums: over each usable pair a pool's activity counts, the
 * cores the host's other pools used in it, each as its own activity counts
 * it (its PIDS in both rounds).  a: 0.2 cores in both pairs; b: 0.4 cores
 * in the first, absent from the second round's PIDS, present in the third
 * (not in both: not counted); c: 0.1 in both. */
static void test_18_6_the_other_pools_over_the_same_pairs(void **state)
{
    (void)state;
    seen s = {0};
    pipeline *pl = new_pl(&s, 4);
    th_pool(pl, "b", 4, NULL);
    th_pool(pl, "c", 4, NULL);
    static const unsigned long long ta[] = {0, 400, 800}, tb[] = {0, 800, 0}, tc[] = {0, 200, 400};
    for (int k = 0; k < 3; k++) {
        th_round *r = th_round_at(20.0 * k, 4000ULL * (unsigned)k); /* 2 cores of 8 */
        th_pids(r, "a", 1, 10LL, ta[k]);
        if (k != 2)
            th_pids(r, "b", 1, 20LL, tb[k]);
        th_pids(r, "c", 1, 30LL, tc[k]);
        th_run(pl, r);
    }
    const pl_activity *a = &th_find(pl, "h", "a")->act, *c = &th_find(pl, "h", "c")->act;
    assert_int_equal(a->pairs, 2);
    NEAR(a->others_core_seconds, (0.4 + 0.1) * 20 + 0.1 * 20);
    NEAR(a->host_core_seconds, 2.0 * 40);
    NEAR(c->others_core_seconds, (0.2 + 0.4) * 20 + 0.2 * 20);
    NEAR(th_find(pl, "h", "b")->act.others_core_seconds, (0.2 + 0.1) * 20);
    pipeline_free(pl);
}

/* docs/rules.md 13.1: a saturated pool whose page cannot answer is starved
 * by the kernel's queue; the largest such queue is kept, and the rounds
 * without one are those whose queue went unseen */
static void test_13_1_unanswered_saturated_pool_is_starved_by_its_kernel_queue(void **state)
{
    (void)state;
    seen s = {0};
    pipeline *pl = new_pl(&s, 4);
    th_run(pl, th_round_at(0, 0));
    static const long long kq[] = {5, -1, 3, 0};
    for (int k = 1; k <= 4; k++) {
        th_round *r = th_round_at(20.0 * k, 16000ULL * (unsigned)k); /* 8 cores of 8 */
        th_page(r, "a", "timeout: no answer within 2000 ms\n", 1);
        if (kq[k - 1] >= 0)
            th_listen(r, "a", kq[k - 1], 511);
        th_run(pl, r);
    }
    pl_pool *p = th_find(pl, "h", "a");
    assert_int_equal(p->starved, 2);           /* queues 5 and 3; 0 is none */
    assert_int_equal(p->unanswered_full, 4);
    assert_int_equal(p->unanswered_unseen, 1); /* the round without LISTEN */
    assert_int_equal(p->unanswered_queue_max, 5);
    pipeline_free(pl);
}

/* docs/rules.md 13.2: a pair whose pools used more CPU than the host had is
 * inconsistent, saturated or not, and gives the activity no cores */
static void test_13_2_pools_over_the_host_are_inconsistent_saturated_or_not(void **state)
{
    (void)state;
    seen s = {0};
    pipeline *pl = new_pl(&s, 4);
    pids_at(pl, 0, 0, 0ULL);
    pids_at(pl, 20, 16000, 20000ULL); /* host 8 cores (saturated), pool 10 > 1.1 x 8 + 0.1 */
    pl_host *h = th_find_host(pl, "h");
    assert_int_equal(h->j.inconsistent, 1);
    pids_at(pl, 40, 17000, 21000ULL); /* host 0.5 cores, pool 0.5: consistent */
    pids_at(pl, 60, 18000, 23000ULL); /* host 0.5 (not saturated), pool 1 > 1.1 x 0.5 + 0.1 */
    assert_int_equal(h->j.inconsistent, 2);
    const pl_activity *a = &th_find(pl, "h", "a")->act;
    assert_int_equal(a->pairs, 1);
    NEAR(a->cores_max, 0.5);
    NEAR(a->core_seconds / a->seconds, 0.5);
    pipeline_free(pl);
}

/* docs/rules.md 13.4: recovered_pct's ticks are every usable pair's, the
 * pool's PIDS in both rounds or not; the activity's cores need both */
static void test_13_4_recovered_share_counts_every_usable_pair(void **state)
{
    (void)state;
    seen s = {0};
    pipeline *pl = new_pl(&s, 4);
    th_run(pl, th_round_at(0, 0));              /* no PIDS */
    pids_at(pl, 20, 2000, 300ULL);
    pl_pool *p = th_find(pl, "h", "a");
    NEAR(p->ticks_all, 300);
    assert_int_equal(p->act.pairs, 0);
    pipeline_free(pl);
}

/* docs/rules.md 13: full_rounds is known only once a counted round with a
 * page had a known max_children */
static void test_13_full_rounds_unknown_without_max_children(void **state)
{
    (void)state;
    for (int mc = 0; mc <= 4; mc += 4) {
        seen s = {0};
        pipeline *pl = new_pl(&s, mc);
        for (int k = 0; k < 3; k++) {
            th_round *r = th_round_at(30.0 * k, 0);
            page(r, 0, 4, 0, 100);
            th_run(pl, r);
        }
        const pl_activity *a = &th_find(pl, "h", "a")->act;
        assert_int_equal(a->full_known, mc > 0);
        assert_int_equal(a->full_rounds, mc > 0 ? 3 : 0);
        pipeline_free(pl);
    }
}

/* 12.3: readings of saturated pairs are contended; the figures come from
 * the calm ones when there are 20 of them, else from all */
static void test_contended_readings_and_the_calm_set(void **state)
{
    (void)state;
    for (int calm = 19; calm <= 20; calm++) {
        seen s = {0};
        pipeline *pl = new_pl(&s, 4);
        unsigned long long busy = 0;
        for (int k = 0; k <= calm + 5; k++) {
            int full = k > calm; /* the last 5 rounds: the CPU full */
            busy += k == 0 ? 0 : full ? 8 * 100 * 30 : 100 * 30;
            th_round *r = th_round_at(30.0 * k, busy);
            tworker w[] = {{100, "Idle", k, 90000, "/a", full ? "30.00" : "70.00"}};
            th_status(r, "a", 0, w, k ? 1 : 0);
            th_run(pl, r);
        }
        pl_pool *p = th_find(pl, "h", "a");
        assert_int_equal(p->contended_readings, 5);
        assert_int_equal(p->h.total, calm + 5);
        assert_int_equal(p->calm.total, calm);
        assert_ptr_equal(pl_hist(p), calm >= 20 ? &p->calm : &p->h);
        assert_int_equal(pl_under_contention(p), calm < 20);
        pipeline_free(pl);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_queue_is_the_larger_of_the_page_and_the_kernel),
        cmocka_unit_test(test_a_kernel_queue_while_the_cpu_is_full_is_starved),
        cmocka_unit_test(test_activity_busy_full_and_maxed_rounds),
        cmocka_unit_test(test_13_1_unanswered_saturated_pool_is_starved_by_its_kernel_queue),
        cmocka_unit_test(test_13_2_pools_over_the_host_are_inconsistent_saturated_or_not),
        cmocka_unit_test(test_13_4_recovered_share_counts_every_usable_pair),
        cmocka_unit_test(test_13_full_rounds_unknown_without_max_children),
        cmocka_unit_test(test_activity_cores_from_pairs_with_pids_in_both),
        cmocka_unit_test(test_18_6_the_other_pools_over_the_same_pairs),
        cmocka_unit_test(test_contended_readings_and_the_calm_set),
    };
    return cmocka_run_group_tests_name("activity", tests, NULL, NULL);
}
