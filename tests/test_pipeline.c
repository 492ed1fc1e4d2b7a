/* docs/rules.md sections 1 (replay state), 5 (host overhead), 6 (starved
 * rounds) and 7b (windows), driven round by round. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "pipeline_harness.h"

static const tworker IDLE_A[] = {{100, "Idle", 5, 90000, "/a", "70.00"}};

static pipeline *new_pl(void)
{
    pipeline *pl = pipeline_new(NULL);
    assert_non_null(pl);
    return pl;
}

/* One round of pool "a" at t seconds: host busy ticks, pool ticks of pid 100. */
static int round_a(pipeline *pl, double t, unsigned long long host, unsigned long long pool)
{
    th_round *r = th_round_at(t, host);
    th_status(r, "a", 0, IDLE_A, 1);
    th_pids(r, "a", 1, 100LL, pool);
    return th_run(pl, r);
}

/* ---------------------------------------------------------------- section 1 */

static void test_rounds_before_any_host_are_ignored(void **state)
{
    (void)state;
    pipeline *pl = new_pl();
    assert_int_equal(round_a(pl, 0, 0, 0), -1);
    assert_int_equal(pipeline_pool(pl, "a", 1, (const unsigned char *)"", 0), -1);
    pl_host *const *hs;
    assert_int_equal(pipeline_hosts(pl, &hs), 0);
    pipeline_free(pl);
}

static void test_pools_are_keyed_by_hostname_and_pool_name(void **state)
{
    (void)state;
    pipeline *pl = new_pl();
    th_host(pl, "web2", 4, "b1", 0);
    round_a(pl, 0, 0, 0);
    th_host(pl, "web1", 4, "b2", 0);
    round_a(pl, 0, 0, 0);
    round_a(pl, 30, 0, 0);
    /* each host's pool a primes its worker in its own first round (12.4) */
    assert_int_equal(th_find(pl, "web1", "a")->filtered[RD_PRIMED], 1);
    assert_int_equal(th_find(pl, "web1", "a")->filtered[RD_REPEAT], 1);
    assert_int_equal(th_find(pl, "web2", "a")->filtered[RD_PRIMED], 1);
    assert_int_equal(th_find(pl, "web2", "a")->filtered[RD_REPEAT], 0);
    assert_int_equal(th_find_host(pl, "web1")->rounds, 2);
    assert_int_equal(th_find_host(pl, "web2")->rounds, 1);
    pl_host *const *hs;
    assert_int_equal(pipeline_hosts(pl, &hs), 2);
    assert_string_equal(hs[0]->hostname, "web1"); /* sorted by name */
    pipeline_free(pl);
}

static void test_same_boot_id_keeps_state_and_pairs_across_restart(void **state)
{
    (void)state;
    pipeline *pl = new_pl();
    th_host(pl, "web1", 4, "boot-1", 0);
    round_a(pl, 0, 0, 0);
    th_host(pl, "web1", 4, "boot-1", 0); /* the recorder restarted */
    round_a(pl, 30, 3000, 1500);
    pl_pool *p = th_find(pl, "web1", "a");
    assert_int_equal(p->filtered[RD_REPEAT], 1);  /* the counter was kept */
    assert_true(p->f.n == 1 && p->f.sx == 0.5);  /* and the previous round */
    assert_int_equal(th_find_host(pl, "web1")->rounds, 2);
    pipeline_free(pl);
}

static void test_new_boot_id_forgets_pids_counters_and_previous_round(void **state)
{
    (void)state;
    pipeline *pl = new_pl();
    th_host(pl, "web1", 4, "boot-1", 0);
    round_a(pl, 0, 0, 0);
    th_host(pl, "web1", 4, "boot-2", 0); /* rebooted: the same pid is a new worker */
    round_a(pl, 30, 3000, 1500);
    pl_pool *p = th_find(pl, "web1", "a");
    assert_int_equal(p->filtered[RD_PRIMED], 1); /* the first round's */
    assert_int_equal(p->h.total, 1);             /* after the reboot, a new worker's */
    assert_int_equal(p->filtered[RD_REPEAT], 0);
    assert_true(p->f.n == 0);                    /* no pair across the reboot */
    round_a(pl, 60, 6000, 3000);
    assert_true(p->f.n == 1 && p->f.sx == 0.5 && p->f.sy == 1.0);
    assert_int_equal(th_find_host(pl, "web1")->rounds, 3); /* over boots */
    pipeline_free(pl);
}

static void test_status_without_processes_is_an_error_and_keeps_the_map(void **state)
{
    (void)state;
    pipeline *pl = new_pl();
    th_host(pl, "web1", 4, "b", 0);
    round_a(pl, 0, 0, 0);
    th_round *r = th_round_at(30, 0);
    th_page(r, "a", "File not found.\n", 0);
    th_pids(r, "a", 1, 100LL, 0ULL);
    th_run(pl, r);
    r = th_round_at(60, 0);
    th_page(r, "a", "connection refused", 1);
    th_pids(r, "a", 1, 100LL, 0ULL);
    th_run(pl, r);
    round_a(pl, 90, 0, 0);
    pl_pool *p = th_find(pl, "web1", "a");
    assert_int_equal(p->filtered[RD_PRIMED], 1);
    assert_int_equal(p->filtered[RD_REPEAT], 1); /* still remembered after 2 errors */
    pipeline_free(pl);
}

static void test_own_uri_prefixes_are_the_union_of_pool_records(void **state)
{
    (void)state;
    rd_prefixes user = {0};
    rd_prefixes_add(&user, "/ping", 5);
    pl_options opt = {.own_uri = &user};
    pipeline *pl = pipeline_new(&opt);
    th_host(pl, "web1", 4, "b", 0);
    th_pool(pl, "a", 10, "/status");
    th_pool(pl, "a", 10, "/fpm-status");
    th_pool(pl, "a", 10, ""); /* an empty own_uri is ignored */
    tworker w[] = {{1, "Idle", 1, 90000, "/status", "1.00"},
                   {2, "Idle", 1, 90000, "/fpm-status", "1.00"},
                   {3, "Idle", 1, 90000, "/ping", "1.00"},
                   {4, "Idle", 1, 90000, "/cbox-phpfpm-opcache-x", "1.00"},
                   {5, "Idle", 1, 90000, "/shop", "1.00"}};
    th_round *r = th_round_at(0, 0);
    th_status(r, "a", 0, w, 0); /* a round before: its workers are not primed */
    th_run(pl, r);
    r = th_round_at(30, 0);
    th_status(r, "a", 0, w, 5);
    th_run(pl, r);
    pl_pool *p = th_find(pl, "web1", "a");
    assert_int_equal(p->filtered[RD_OWN], 4);
    assert_int_equal(p->h.total, 1);
    assert_int_equal(p->own.n, 4); /* fpm-tune's, /ping, /status, /fpm-status */
    pipeline_free(pl);
    rd_prefixes_free(&user);
}

/* ---------------------------------------------------------------- section 5 */

static void test_pair_is_usable_from_5s_to_5min(void **state)
{
    (void)state;
    static const struct { double dt; int points; } c[] = {
        {4.999, 0}, {5.0, 1}, {300.0, 1}, {300.001, 0}, {30, 1},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        pipeline *pl = new_pl();
        th_host(pl, "h", 64, "b", 0);
        round_a(pl, 1000, 0, 0);
        round_a(pl, 1000 + c[i].dt, 100, 100);
        if ((int)th_find(pl, "h", "a")->f.n != c[i].points)
            fail_msg("interval %.3f s: %g points", c[i].dt, th_find(pl, "h", "a")->f.n);
        pipeline_free(pl);
    }
}

static void test_host_counter_going_back_gives_no_pair(void **state)
{
    (void)state;
    pipeline *pl = new_pl();
    th_host(pl, "h", 4, "b", 0);
    round_a(pl, 0, 5000, 0);
    round_a(pl, 30, 4999, 1500);
    assert_true(th_find(pl, "h", "a")->f.n == 0);
    round_a(pl, 60, 7999, 3000); /* pairs with the round before: 3000 ticks */
    assert_true(th_find(pl, "h", "a")->f.n == 1 && th_find(pl, "h", "a")->f.sy == 1.0);
    pipeline_free(pl);
    /* on a host of unknown size nothing counts as saturated: still no pair */
    pl = new_pl();
    th_host(pl, "h", -1, "b", 0);
    round_a(pl, 0, 5000, 0);
    round_a(pl, 30, 4999, 1500);
    assert_true(th_find(pl, "h", "a")->f.n == 0);
    pipeline_free(pl);
}

static void test_round_without_stat_pairs_with_nothing(void **state)
{
    (void)state;
    pipeline *pl = new_pl();
    th_host(pl, "h", 4, "b", 0);
    round_a(pl, 0, 0, 0);
    th_round *r = th_round_at(30, 3000);
    r->has_stat = 0;
    th_status(r, "a", 0, IDLE_A, 1);
    th_pids(r, "a", 1, 100LL, 1500ULL);
    th_run(pl, r);
    round_a(pl, 60, 6000, 3000);
    assert_true(th_find(pl, "h", "a")->f.n == 0);
    round_a(pl, 90, 9000, 4500);
    assert_true(th_find(pl, "h", "a")->f.n == 1);
    pipeline_free(pl);
}

static void test_pool_cores_from_worker_ticks(void **state)
{
    (void)state;
    pipeline *pl = new_pl();
    th_host(pl, "h", 8, "b", 0);
    th_round *r = th_round_at(0, 0);
    th_status(r, "a", 0, IDLE_A, 1);
    th_pids(r, "a", 2, 100LL, 1000ULL, 101LL, 500ULL);
    th_run(pl, r);
    /* 100: +300; 101: went down, counts its whole 200; 102: new, its whole 100 */
    r = th_round_at(20, 2000);
    th_status(r, "a", 0, IDLE_A, 1);
    th_pids(r, "a", 3, 100LL, 1300ULL, 101LL, 200ULL, 102LL, 100ULL);
    th_run(pl, r);
    pl_pool *p = th_find(pl, "h", "a");
    assert_true(p->f.n == 1);
    assert_true(fabs(p->f.sx - 600.0 / 100 / 20) < 1e-15); /* 0.3 cores */
    assert_true(fabs(p->f.sy - 2000.0 / 100 / 20) < 1e-15); /* 1 core */
    pipeline_free(pl);
}

static void test_pid_ticks_are_replaced_every_round_usable_or_not(void **state)
{
    (void)state;
    pipeline *pl = new_pl();
    th_host(pl, "h", 8, "b", 0);
    round_a(pl, 0, 0, 0);
    round_a(pl, 2, 100, 900);    /* too short to pair, but the ticks are kept */
    round_a(pl, 32, 3100, 1500); /* 600 ticks since the round before */
    pl_pool *p = th_find(pl, "h", "a");
    assert_true(p->f.n == 1);
    assert_true(fabs(p->f.sx - 600.0 / 100 / 30) < 1e-15);
    pipeline_free(pl);
}

/* Two pools over two rounds; b's PIDS in each round as given. */
static double two_pools(int b_pids_1, int b_pids_2, int b_in_round_2)
{
    pipeline *pl = new_pl();
    th_host(pl, "h", 8, "b", 0);
    th_round *r = th_round_at(0, 0);
    th_status(r, "a", 0, IDLE_A, 1);
    th_pids(r, "a", 1, 100LL, 0ULL);
    th_page(r, "b", "timeout", 1);
    if (b_pids_1)
        th_pids(r, "b", 0);
    th_run(pl, r);
    r = th_round_at(30, 3000);
    th_status(r, "a", 0, IDLE_A, 1);
    th_pids(r, "a", 1, 100LL, 1500ULL);
    if (b_in_round_2)
        th_page(r, "b", "timeout", 1);
    if (b_pids_2)
        th_pids(r, "b", 0);
    th_run(pl, r);
    double n = th_find(pl, "h", "a")->f.n;
    pipeline_free(pl);
    return n;
}

static void test_fit_needs_pids_of_every_pool_in_both_rounds(void **state)
{
    (void)state;
    assert_true(two_pools(1, 1, 1) == 1); /* an empty PIDS: no workers, 0 cores */
    assert_true(two_pools(0, 1, 1) == 0);
    assert_true(two_pools(1, 0, 1) == 0);
    assert_true(two_pools(1, 0, 0) == 0); /* b appears in round 1 only */
}

static void test_saturated_pair_adds_no_point(void **state)
{
    (void)state;
    pipeline *pl = new_pl();
    th_host(pl, "h", 2, "b", 0);
    round_a(pl, 0, 0, 0);
    round_a(pl, 100, 18999, 1000); /* 1.8999 of 2 cores: 0.94995 */
    assert_true(th_find(pl, "h", "a")->f.n == 1);
    round_a(pl, 200, 37999, 2000); /* 1.9 of 2: 0.95, saturated */
    assert_true(th_find(pl, "h", "a")->f.n < 1.5);
    pipeline_free(pl);
}

static void test_idle_pools_all_get_the_base_point(void **state)
{
    (void)state;
    pipeline *pl = new_pl();
    th_host(pl, "h", 4, "b", 0);
    for (int k = 0; k < 2; k++) {
        th_round *r = th_round_at(100.0 * k, 2500ULL * k);
        th_status(r, "a", 0, IDLE_A, 1);
        th_pids(r, "a", 1, 100LL, 100ULL * k);  /* 0.01 cores */
        th_pids(r, "b", 1, 200LL, 90ULL * k);   /* 0.009 cores: total 0.019 */
        th_run(pl, r);
    }
    pl_pool *a = th_find(pl, "h", "a"), *b = th_find(pl, "h", "b");
    assert_true(a->f.n == 1 && a->f.sx == 0 && a->f.sy == 0.25);
    assert_true(b->f.n == 1 && b->f.sx == 0 && b->f.sy == 0.25);
    pipeline_free(pl);
    /* 0.021 cores in all is not idle: only the dominant pool gets a point */
    pl = new_pl();
    th_host(pl, "h", 4, "b", 0);
    for (int k = 0; k < 2; k++) {
        th_round *r = th_round_at(100.0 * k, 2500ULL * k);
        th_pids(r, "a", 1, 100LL, 150ULL * k);  /* 0.015 */
        th_pids(r, "b", 1, 200LL, 60ULL * k);   /* 0.006 */
        th_run(pl, r);
    }
    a = th_find(pl, "h", "a");
    b = th_find(pl, "h", "b");
    assert_true(a->f.n == 1 && fabs(a->f.sx - 0.015) < 1e-15);
    assert_true(b->f.n == 0);
    pipeline_free(pl);
}

static void dominance(unsigned long long b_ticks, int a_points, int b_points)
{
    pipeline *pl = new_pl();
    th_host(pl, "h", 8, "b", 0);
    for (int k = 0; k < 2; k++) {
        th_round *r = th_round_at(100.0 * k, 20000ULL * k);
        th_pids(r, "a", 1, 100LL, 700ULL * k);
        th_pids(r, "b", 1, 200LL, b_ticks * k);
        th_run(pl, r);
    }
    assert_int_equal((int)th_find(pl, "h", "a")->f.n, a_points);
    assert_int_equal((int)th_find(pl, "h", "b")->f.n, b_points);
    if (a_points)
        assert_true(fabs(th_find(pl, "h", "a")->f.sx - 0.07) < 1e-15);
    pipeline_free(pl);
}

static void test_only_a_dominant_pool_gets_a_point(void **state)
{
    (void)state;
    dominance(300, 1, 0);  /* a is 0.7 of 1.0: exactly dominant */
    dominance(301, 0, 0);  /* a is just under 0.7: nobody */
    dominance(0, 1, 0);    /* b idle, a alone */
    dominance(2800, 0, 1); /* b is 0.8 */
}

static void test_quota_host_measures_with_cgroup_usage(void **state)
{
    (void)state;
    pipeline *pl = new_pl();
    th_host(pl, "h", 16, "b", 1500); /* 1.5 cores of quota on a 16-core box */
    for (int k = 0; k < 3; k++) {
        th_round *r = th_round_at(30.0 * k, 99999ULL * k); /* STAT says 33 cores: ignored */
        th_cgroup_usage(r, 30000000ULL * k);               /* 1 core */
        th_status(r, "a", 0, IDLE_A, 1);
        th_pids(r, "a", 1, 100LL, 1500ULL * k);
        th_run(pl, r);
    }
    pl_pool *p = th_find(pl, "h", "a");
    assert_true(p->f.n > 1.99 && fabs(p->f.sy / p->f.n - 1.0) < 1e-12);
    assert_int_equal(th_find_host(pl, "h")->host_millicores, 1500);
    pipeline_free(pl);
}

static void test_quota_pair_needs_the_same_measure_in_both_rounds(void **state)
{
    (void)state;
    pipeline *pl = new_pl();
    th_host(pl, "h", 16, "b", 1500);
    th_round *r = th_round_at(0, 0);
    th_cgroup_usage(r, 0);
    th_pids(r, "a", 1, 100LL, 0ULL);
    th_run(pl, r);
    r = th_round_at(30, 3000); /* no cpu.stat this round: STAT ticks */
    th_pids(r, "a", 1, 100LL, 1500ULL);
    th_run(pl, r);
    assert_true(th_find(pl, "h", "a")->f.n == 0);
    r = th_round_at(60, 6000);
    th_pids(r, "a", 1, 100LL, 3000ULL);
    th_run(pl, r); /* both by ticks now */
    assert_true(th_find(pl, "h", "a")->f.n == 1);
    pipeline_free(pl);
}

/* ---------------------------------------------------------------- section 6 */

/* Two rounds of pool a with the given queue, host busy 1.9 of nproc 2. */
static uint64_t starved(int nproc, double dt, long long lq, int second_is_error,
                        unsigned long long busy)
{
    pipeline *pl = new_pl();
    th_host(pl, "h", nproc, "b", 0);
    th_round *r = th_round_at(0, 0);
    th_status(r, "a", lq, IDLE_A, 1);
    th_run(pl, r);
    r = th_round_at(dt, busy);
    if (second_is_error)
        th_page(r, "a", "File not found.", 0);
    else
        th_status(r, "a", lq, IDLE_A, 1);
    th_run(pl, r);
    uint64_t s = th_find(pl, "h", "a")->starved;
    pipeline_free(pl);
    return s;
}

static void test_starved_round_needs_a_queue_while_the_cpu_is_full(void **state)
{
    (void)state;
    assert_int_equal(starved(2, 10, 3, 0, 1900), 1);  /* 1.9 of 2 cores */
    assert_int_equal(starved(2, 10, 3, 0, 1899), 0);  /* 0.9495 */
    assert_int_equal(starved(2, 10, 3, 0, 5000), 1);  /* ratio capped at 1 */
    assert_int_equal(starved(2, 10, 0, 0, 1900), 0);  /* no queue */
    assert_int_equal(starved(2, 4, 3, 0, 1900), 0);   /* not a usable pair */
    assert_int_equal(starved(2, 10, 3, 1, 1900), 0);  /* an error in that round */
    assert_int_equal(starved(-1, 10, 3, 0, 1900), 0); /* 0 host millicores */
}

static void test_starved_uses_the_host_record_in_force(void **state)
{
    (void)state;
    pipeline *pl = new_pl();
    th_host(pl, "h", 2, "b", 0);
    th_round *r = th_round_at(0, 0);
    th_status(r, "a", 5, IDLE_A, 1);
    th_run(pl, r);
    th_host(pl, "h", 8, "b", 0); /* now 8 cores: 1.9 is not full */
    r = th_round_at(10, 1900);
    th_status(r, "a", 5, IDLE_A, 1);
    th_run(pl, r);
    assert_int_equal(th_find(pl, "h", "a")->starved, 0);
    pipeline_free(pl);
}

/* ---------------------------------------------------------------- section 7b */

static void test_rounds_outside_the_window_prime_state_but_count_nothing(void **state)
{
    (void)state;
    pl_options opt = {.has_from = 1, .has_until = 1,
                      .from_ns = 1800000000ull * NS + 60 * NS,
                      .until_ns = 1800000000ull * NS + 120 * NS};
    pipeline *pl = pipeline_new(&opt);
    th_host(pl, "h", 2, "b", 0);
    /* t=0 and t=30 before the window; 60 and 90 inside; 120 after */
    for (int k = 0; k <= 4; k++) {
        th_round *r = th_round_at(30.0 * k, 1900ULL * k);
        tworker w[] = {{100, "Idle", k < 3 ? 5 : 6, 90000, "/a", "70.00"}};
        th_status(r, "a", 4, w, 1);
        th_pids(r, "a", 1, 100LL, 100ULL * k);
        th_run(pl, r);
    }
    pl_pool *p = th_find(pl, "h", "a");
    assert_int_equal(th_find_host(pl, "h")->rounds, 2);
    /* t=60 repeats the counter primed before the window; t=90 is new */
    assert_int_equal(p->filtered[RD_REPEAT], 1);
    assert_int_equal(p->h.total, 1);
    /* two in-window pairs (30-60, 60-90), each 0.633 of 2 cores: fit points */
    assert_true(p->f.n > 1.99 && p->f.n < 2);
    assert_int_equal(p->starved, 0);
    pipeline_free(pl);
}

/* Every pair in the window that gives no host figures is counted by why. */
static void test_dropped_pairs_are_counted_by_why(void **state)
{
    (void)state;
    pipeline *pl = new_pl();
    th_host(pl, "h", 64, "b", 0);
    round_a(pl, 1000, 0, 0);      /* the first round: no pair, nothing counted */
    round_a(pl, 1004.9, 10, 0);   /* under 5 s */
    round_a(pl, 1034.9, 20, 0);   /* usable */
    round_a(pl, 1400, 30, 0);     /* over 5 min */
    round_a(pl, 1430, 29, 0);     /* the counter went back */
    th_round *r = th_round_at(1460, 40);
    r->has_stat = 0;
    th_status(r, "a", 0, IDLE_A, 1);
    th_pids(r, "a", 1, 100LL, 0ULL);
    th_run(pl, r);                /* no STAT */
    round_a(pl, 1490, 50, 0);     /* no STAT in the round before */
    round_a(pl, 1520, 60, 0);     /* usable */
    pl_host *h = th_find_host(pl, "h");
    assert_int_equal(h->pairs_usable, 2);
    assert_int_equal(h->pairs_dropped[PL_DROP_SHORT], 1);
    assert_int_equal(h->pairs_dropped[PL_DROP_LONG], 1);
    assert_int_equal(h->pairs_dropped[PL_DROP_BACK], 1);
    assert_int_equal(h->pairs_dropped[PL_DROP_NO_STAT], 2);
    assert_int_equal(h->pairs_dropped[PL_DROP_MEASURE], 0);
    assert_string_equal(pl_drop_name(PL_DROP_SHORT), "under 5 s apart");
    pipeline_free(pl);
}

/* error_rounds: counted rounds with an ERROR or a STATUS without a page;
 * the last reason is kept; the span covers every round, the counted ones
 * only the window. */
static void test_error_rounds_and_the_span(void **state)
{
    (void)state;
    pl_options opt = {.has_from = 1, .from_ns = 1800000000ull * NS + 30 * NS};
    pipeline *pl = pipeline_new(&opt);
    th_host(pl, "h", 4, "b", 0);
    th_round *r = th_round_at(0, 0);
    th_page(r, "a", "cannot connect to /x.sock: No such file or directory", 1);
    th_run(pl, r);                /* before the window: not counted */
    r = th_round_at(30, 10);
    th_page(r, "a", "cannot connect to /x.sock: No such file or directory", 1);
    th_run(pl, r);
    r = th_round_at(60, 20);
    th_page(r, "a", "File not found.\nmore", 0);
    th_run(pl, r);
    round_a(pl, 90, 30, 0);
    pl_pool *p = th_find(pl, "h", "a");
    assert_int_equal(p->error_rounds, 2);
    assert_string_equal(p->last_error, "no status page in its answer: File not found.");
    pl_host *h = th_find_host(pl, "h");
    assert_int_equal(h->rounds, 3);
    assert_int_equal(h->first_real, 1800000000ull * NS + 30 * NS);
    assert_int_equal(h->last_real, 1800000000ull * NS + 90 * NS);
    assert_int_equal(h->span_first, 1800000000ull * NS);
    assert_int_equal(h->span_last, 1800000000ull * NS + 90 * NS);
    pipeline_free(pl);
}

/* ---------------------------------------------------------------- seeking */

/* A pipeline with the window from t = 100 s, jumped over frames of web1 (id
 * 7) that named pool a when named, after a first round at 0. */
static pipeline *jumped(int name_a)
{
    pl_options opt = {.has_from = 1, .from_ns = 1800000000ull * NS + 100 * NS};
    pipeline *pl = pipeline_new(&opt);
    th_host(pl, "web1", 4, "b", 0);
    round_a(pl, 0, 0, 0);
    if (name_a)
        assert_int_equal(pipeline_skipped_pool(pl, "web1", 4, "a", 1, 7), 0);
    pipeline_skipped(pl, "web1", 4, 3, 1800000000ull * NS + 10 * NS, 1800000000ull * NS + 40 * NS,
                     7);
    return pl;
}

static size_t needs(pipeline *pl, uint64_t *first)
{
    const uint64_t *ids;
    size_t n = pipeline_unsettled(pl, &ids);
    *first = n ? ids[0] : 0;
    return n;
}

static void test_a_window_round_right_after_a_jump_needs_the_round_before(void **state)
{
    (void)state;
    uint64_t id;
    pipeline *pl = jumped(0);
    round_a(pl, 120, 0, 0);
    assert_int_equal(needs(pl, &id), 1);
    assert_int_equal(id, 7);
    pipeline_free(pl);
    pl = jumped(0);
    round_a(pl, 90, 0, 0); /* a round before the window in between */
    round_a(pl, 120, 0, 0);
    assert_int_equal(needs(pl, &id), 0);
    pipeline_free(pl);
}

static void test_a_page_after_a_jump_needs_the_pools_page_before(void **state)
{
    (void)state;
    uint64_t id;
    pipeline *pl = jumped(1);
    th_round *r = th_round_at(90, 0);
    th_page(r, "a", "connection refused", 1); /* in ERROR before the window */
    th_pids(r, "a", 1, 100LL, 0ULL);
    th_run(pl, r);
    round_a(pl, 120, 0, 0);
    assert_int_equal(needs(pl, &id), 1);
    assert_int_equal(id, 7);
    pipeline_free(pl);
}

static void test_pids_after_a_jump_need_the_pools_pids_before(void **state)
{
    (void)state;
    uint64_t id;
    pipeline *pl = jumped(1);
    th_round *r = th_round_at(90, 0);
    th_status(r, "a", 0, IDLE_A, 1); /* a page, no PIDS */
    th_run(pl, r);
    round_a(pl, 120, 0, 0);
    assert_int_equal(needs(pl, &id), 1);
    pipeline_free(pl);
    pl = jumped(1);
    round_a(pl, 90, 0, 0); /* page and PIDS: all it needs */
    round_a(pl, 120, 0, 0);
    assert_int_equal(needs(pl, &id), 0);
    pipeline_free(pl);
}

static void test_a_worker_running_since_before_a_jump_needs_more_when_idle(void **state)
{
    (void)state;
    static const tworker RUN[] = {{100, "Running", 6, 1000, "/a", "0.00"}};
    static const tworker IDLE6[] = {{100, "Idle", 6, 90000, "/a", "70.00"}};
    uint64_t id;
    pipeline *pl = jumped(1);
    th_round *r = th_round_at(90, 0);
    th_status(r, "a", 0, RUN, 1); /* the counter it had before the jump is unknown */
    th_pids(r, "a", 1, 100LL, 0ULL);
    th_run(pl, r);
    r = th_round_at(120, 0);
    th_status(r, "a", 0, RUN, 1); /* still running: nothing is judged on it */
    th_pids(r, "a", 1, 100LL, 0ULL);
    th_run(pl, r);
    assert_int_equal(needs(pl, &id), 0);
    r = th_round_at(150, 0);
    th_status(r, "a", 0, IDLE6, 1); /* idle: repeat or new rests on that counter */
    th_pids(r, "a", 1, 100LL, 0ULL);
    th_run(pl, r);
    assert_int_equal(needs(pl, &id), 1);
    pipeline_free(pl);
}

static void test_a_reboot_after_a_jump_settles_the_counters_and_pids(void **state)
{
    (void)state;
    uint64_t id;
    pipeline *pl = jumped(1);
    th_host(pl, "web1", 4, "b2", 0); /* rebooted: pids and counters start over */
    th_round *r = th_round_at(120, 0);
    th_pids(r, "a", 1, 100LL, 0ULL);
    th_run(pl, r);
    assert_int_equal(needs(pl, &id), 0);
    /* but a page still wants the page before (12.4: a worker not remembered,
     * started after it, counts): a page without `max children reached`, so
     * that the activity's page before is not what asks */
    r = th_round_at(150, 0);
    th_page(r, "a", "{\"pool\":\"a\",\"processes\":[{\"pid\":100,\"state\":\"Idle\","
            "\"start time\":4000000000,\"requests\":5,\"request duration\":90000,"
            "\"request uri\":\"/a\",\"last request cpu\":70.00}]}", 0);
    th_pids(r, "a", 1, 100LL, 0ULL);
    th_run(pl, r);
    assert_int_equal(needs(pl, &id), 1);
    pipeline_free(pl);
}

static void test_a_page_after_a_jump_needs_the_activitys_page_before(void **state)
{
    (void)state;
    static const tworker RUN[] = {{100, "Running", 6, 1000, "/a", "0.00"}};
    uint64_t id;
    pipeline *pl = jumped(1);
    th_round *r = th_round_at(90, 0);
    /* a page before the window, but one without `max children reached` */
    th_page(r, "a", "{\"pool\":\"a\",\"processes\":[{\"pid\":100,\"state\":\"Idle\","
            "\"requests\":5,\"request duration\":90000,\"request uri\":\"/a\","
            "\"last request cpu\":70.00}]}", 0);
    th_pids(r, "a", 1, 100LL, 0ULL);
    th_run(pl, r);
    /* every worker running: no verdict rests on the map; `max children
     * reached` against the page before that had it does */
    r = th_round_at(120, 0);
    th_status(r, "a", 0, RUN, 1);
    th_pids(r, "a", 1, 100LL, 0ULL);
    th_run(pl, r);
    assert_int_equal(needs(pl, &id), 1);
    pipeline_free(pl);
}

/* 16.4: the scheduler's groups from the latest HOST that has any of the
 * keys; "-" or a value that is not one is null; a HOST without them keeps
 * what the last one said */
static void test_16_4_sched_group_from_the_latest_host_that_says_it(void **state)
{
    (void)state;
    pipeline *pl = pipeline_new(NULL);
    th_host(pl, "h", 2, "b", 0);
    pl_host *h = th_find_host(pl, "h");
    assert_false(h->has_sched);
    th_host_with(pl, "h", 2, "b", 0, "autogroup=/autogroup-54 nice 0\ncpu_weight=100\n"
                                     "cpu_weight_kind=weight\ncpu_controller=1\n");
    assert_true(h->has_sched);
    assert_string_equal(h->autogroup, "/autogroup-54 nice 0");
    assert_int_equal(h->cpu_weight, 100);
    assert_string_equal(h->cpu_weight_kind, "weight");
    assert_int_equal(h->cpu_controller, 1);
    th_host(pl, "h", 2, "b", 0); /* an older recorder: what was said stays */
    assert_true(h->has_sched);
    assert_int_equal(h->cpu_weight, 100);
    th_host_with(pl, "h", 2, "b", 0, "autogroup=-\ncpu_weight=-\ncpu_weight_kind=-\n"
                                     "cpu_controller=0\n");
    assert_null(h->autogroup);
    assert_int_equal(h->cpu_weight, -1);
    assert_null(h->cpu_weight_kind);
    assert_int_equal(h->cpu_controller, 0);
    th_host_with(pl, "h", 2, "b", 0, "cpu_weight=1024x\ncpu_weight_kind=shares\n"
                                     "cpu_controller=2\n");
    assert_int_equal(h->cpu_weight, -1);
    assert_string_equal(h->cpu_weight_kind, "shares");
    assert_int_equal(h->cpu_controller, -1);
    pipeline_free(pl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rounds_before_any_host_are_ignored),
        cmocka_unit_test(test_pools_are_keyed_by_hostname_and_pool_name),
        cmocka_unit_test(test_same_boot_id_keeps_state_and_pairs_across_restart),
        cmocka_unit_test(test_new_boot_id_forgets_pids_counters_and_previous_round),
        cmocka_unit_test(test_status_without_processes_is_an_error_and_keeps_the_map),
        cmocka_unit_test(test_own_uri_prefixes_are_the_union_of_pool_records),
        cmocka_unit_test(test_pair_is_usable_from_5s_to_5min),
        cmocka_unit_test(test_dropped_pairs_are_counted_by_why),
        cmocka_unit_test(test_error_rounds_and_the_span),
        cmocka_unit_test(test_host_counter_going_back_gives_no_pair),
        cmocka_unit_test(test_round_without_stat_pairs_with_nothing),
        cmocka_unit_test(test_pool_cores_from_worker_ticks),
        cmocka_unit_test(test_pid_ticks_are_replaced_every_round_usable_or_not),
        cmocka_unit_test(test_fit_needs_pids_of_every_pool_in_both_rounds),
        cmocka_unit_test(test_saturated_pair_adds_no_point),
        cmocka_unit_test(test_idle_pools_all_get_the_base_point),
        cmocka_unit_test(test_only_a_dominant_pool_gets_a_point),
        cmocka_unit_test(test_quota_host_measures_with_cgroup_usage),
        cmocka_unit_test(test_quota_pair_needs_the_same_measure_in_both_rounds),
        cmocka_unit_test(test_starved_round_needs_a_queue_while_the_cpu_is_full),
        cmocka_unit_test(test_starved_uses_the_host_record_in_force),
        cmocka_unit_test(test_rounds_outside_the_window_prime_state_but_count_nothing),
        cmocka_unit_test(test_a_window_round_right_after_a_jump_needs_the_round_before),
        cmocka_unit_test(test_a_page_after_a_jump_needs_the_pools_page_before),
        cmocka_unit_test(test_pids_after_a_jump_need_the_pools_pids_before),
        cmocka_unit_test(test_a_worker_running_since_before_a_jump_needs_more_when_idle),
        cmocka_unit_test(test_a_reboot_after_a_jump_settles_the_counters_and_pids),
        cmocka_unit_test(test_a_page_after_a_jump_needs_the_activitys_page_before),
        cmocka_unit_test(test_16_4_sched_group_from_the_latest_host_that_says_it),
    };
    return cmocka_run_group_tests_name("pipeline", tests, NULL, NULL);
}
