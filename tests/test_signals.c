/* docs/rules.md sections 9 and 16: host truth, and the host as a container
 * sees it, one test per rule, driven round by round. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "pipeline_harness.h"
#include "procfs.h"
#include "signals.h"

static const tworker IDLE_A[] = {{100, "Idle", 5, 90000, "/a", "70.00"}};

static pipeline *new_host(int nproc, int quota)
{
    pipeline *pl = pipeline_new(NULL);
    assert_non_null(pl);
    th_host(pl, "web1", nproc, "b", quota);
    return pl;
}

/* A round at t s: STAT with busy (steal among it) and idle ticks, pool a
 * with listen queue lq (-1: an ERROR instead) and PIDS of ticks. */
static th_round *round_at(double t, unsigned long long busy, unsigned long long steal,
                          unsigned long long idle, long long lq, unsigned long long ticks)
{
    th_round *r = th_round_at(t, 0);
    th_stat_steal(r, busy, steal, idle);
    if (lq >= 0)
        th_status(r, "a", lq, IDLE_A, 1);
    else
        th_page(r, "a", "connection refused\n", 1);
    th_pids(r, "a", 1, 100LL, ticks);
    return r;
}

static truth truth_now(pipeline *pl)
{
    truth t;
    sig_truth(th_find_host(pl, "web1"), &t);
    return t;
}

/* ------------------------------------------------------------- the shares */

static void test_share_in_hundredths_half_away_from_zero_capped_at_100(void **state)
{
    (void)state;
    assert_int_equal(sig_share(1, 20000), 1);   /* 0.005% is 0.01% */
    assert_int_equal(sig_share(1, 20001), 0);
    assert_int_equal(sig_share(3, 40000), 1);   /* 0.75 hundredths */
    assert_int_equal(sig_share(1, 3), 3333);
    assert_int_equal(sig_share(2, 3), 6667);
    assert_int_equal(sig_share(5, 4), 10000);   /* capped at 100% */
    assert_int_equal(sig_share(UINT64_MAX, 1), 10000);
    assert_int_equal(sig_share(UINT64_MAX / 2, UINT64_MAX), 5000); /* exact at 64 bits */
    assert_int_equal(sig_share(UINT64_MAX - 1, UINT64_MAX), 10000);
    assert_int_equal(sig_share(0, UINT64_MAX), 0);
}

static void test_percentiles_by_nearest_rank(void **state)
{
    (void)state;
    uint64_t count[SIG_SHARE_MAX + 1] = {0};
    pl_shares s = {0, count};
    int64_t p[4];
    pl_shares_pct(&s, p);
    assert_int_equal(p[0], -1); /* none: all null */
    assert_int_equal(p[3], -1);
    for (int v = 1; v <= 10; v++)
        count[v * 100]++; /* 1% .. 10% */
    s.n = 10;
    pl_shares_pct(&s, p);
    assert_int_equal(p[0], 100);  /* rank ceil(1) */
    assert_int_equal(p[1], 500);  /* rank 5 */
    assert_int_equal(p[2], 900);  /* rank 9 */
    assert_int_equal(p[3], 1000);
    count[1100]++; /* 11 shares: ranks 2, 6, 10, 11 */
    s.n = 11;
    pl_shares_pct(&s, p);
    assert_int_equal(p[0], 200);
    assert_int_equal(p[1], 600);
    assert_int_equal(p[2], 1000);
    assert_int_equal(p[3], 1100);
}

/* ------------------------------------------------------------------ steal */

static void test_steal_share_from_stat(void **state)
{
    (void)state;
    pipeline *pl = new_host(2, 0);
    th_run(pl, round_at(0, 1000, 100, 9000, 0, 0));
    th_run(pl, round_at(30, 2000, 400, 13000, 0, 0)); /* 300 of 5000: 6% */
    th_round *r = round_at(60, 2000, 400, 13000, 0, 0); /* the total did not grow */
    th_run(pl, r);
    r = round_at(90, 3000, 300, 14000, 0, 0);           /* steal went back */
    th_run(pl, r);
    r = round_at(120, 4000, 300, 15000, 0, 0);
    r->stat.n = 0;
    buf_printf(&r->stat, "cpu  3700 0 0 15000 0 0 300\n"); /* 7 numbers */
    th_run(pl, r);
    uint64_t steal, total;
    assert_int_equal(procfs_stat_steal("cpu  1 2 3 4 5 6 7\n", 20, &steal, &total), -1);
    assert_int_equal(procfs_stat_steal("cpu  1 2 3 4 5 6 7 8\n", 22, &steal, &total), 0);
    assert_int_equal(steal, 8);
    assert_int_equal(total, 36);
    truth t = truth_now(pl);
    assert_int_equal(t.pairs[SIG_STEAL], 1);
    assert_int_equal(t.pct[SIG_STEAL][TR_MAX], 600);
    pipeline_free(pl);
}

/* ------------------------------------------------------------- throttling */

static th_round *quota_round(double t, unsigned long long periods, unsigned long long throttled,
                             unsigned long long throttled_usec, long long lq)
{
    th_round *r = round_at(t, 100 * (unsigned long long)t, 0, 1000, lq, 0);
    th_cgroup_throttle(r, 1000000 * (unsigned long long)t, periods, throttled, throttled_usec);
    return r;
}

static void test_throttled_needs_10_periods(void **state)
{
    (void)state;
    pipeline *pl = new_host(8, 1500);
    th_run(pl, quota_round(0, 100, 10, 5000000, 0));
    th_run(pl, quota_round(30, 109, 19, 6000000, 0)); /* 9 periods: no share */
    th_run(pl, quota_round(60, 119, 24, 7000000, 0)); /* 10 periods, 5 throttled: 50% */
    th_run(pl, quota_round(90, 139, 23, 8000000, 0)); /* nr_throttled back: none */
    th_run(pl, quota_round(120, 179, 24, 7500000, 0)); /* 1 of 40; usec shrank: adds 0 */
    th_run(pl, quota_round(150, 170, 24, 9000000, 0)); /* periods back: none */
    truth t = truth_now(pl);
    assert_int_equal(t.pairs[SIG_THROTTLED], 2);
    assert_int_equal(t.pct[SIG_THROTTLED][TR_P10], 250);
    assert_int_equal(t.pct[SIG_THROTTLED][TR_MAX], 5000);
    assert_int_equal(t.throttled_usec, 1000000); /* only the pairs that gave a share */
    pipeline_free(pl);
}

static void test_throttled_rounds_whatever_the_busy_ratio(void **state)
{
    (void)state;
    pipeline *pl = new_host(8, 1500);
    th_run(pl, quota_round(0, 100, 10, 0, 0));
    th_run(pl, quota_round(30, 400, 20, 0, 3));  /* queued, throttled, CPU not full */
    th_run(pl, quota_round(60, 700, 20, 0, 3));  /* queued, not throttled */
    th_run(pl, quota_round(90, 1000, 30, 0, 0)); /* throttled, no queue */
    th_run(pl, quota_round(120, 1005, 40, 0, 3)); /* under 10 periods: no share */
    pl_pool *p = th_find(pl, "web1", "a");
    assert_int_equal(p->throttled_rounds, 1);
    assert_int_equal(p->starved, 0);
    pipeline_free(pl);
}

/* --------------------------------------------------------------- pressure */

static void test_pressure_on_a_quota_host_comes_from_the_cgroup(void **state)
{
    (void)state;
    for (int quota = 0; quota <= 1500; quota += 1500) {
        pipeline *pl = new_host(8, quota);
        for (int i = 0; i < 3; i++) {
            th_round *r = quota_round(30 * i, 100 + 300 * (unsigned)i, 0, 0, 0);
            th_pressure(r, 1000000 + 3000000ull * (unsigned)i);   /* the host: 10% */
            th_cg_pressure(r, 1000000 + 6000000ull * (unsigned)i); /* the cgroup: 20% */
            th_run(pl, r);
        }
        th_round *r = quota_round(90, 1000, 0, 0, 0); /* lacks it: no share */
        th_run(pl, r);
        truth t = truth_now(pl);
        assert_int_equal(t.pairs[SIG_PRESSURE], 2);
        assert_int_equal(t.pct[SIG_PRESSURE][TR_P50], quota ? 2000 : 1000);
        pipeline_free(pl);
    }
    /* a total that went back gives none; a quota host without the cgroup's none */
    pipeline *pl = new_host(8, 0);
    th_round *r = round_at(0, 0, 0, 1000, 0, 0);
    th_pressure(r, 5000000);
    th_run(pl, r);
    r = round_at(30, 0, 0, 2000, 0, 0);
    th_pressure(r, 4000000);
    th_run(pl, r);
    assert_int_equal(truth_now(pl).pairs[SIG_PRESSURE], 0);
    pipeline_free(pl);
}

/* --------------------------------------------------------------- accounting */

static void test_php_accounted_needs_pids_of_every_pool_in_both_rounds(void **state)
{
    (void)state;
    pipeline *pl = new_host(8, 0);
    th_round *r = round_at(0, 0, 0, 1000, 0, 1000);
    th_cgroup_usage(r, 50000000);
    th_run(pl, r);
    r = round_at(30, 3000, 0, 1000, 0, 1300); /* 300 ticks: 3 s of 4 s used */
    th_cgroup_usage(r, 54000000);
    th_run(pl, r);
    r = round_at(60, 6000, 0, 1000, 0, 1600);
    th_cgroup_usage(r, 58000000);
    th_pids(r, "b", 0);                         /* a pool with PIDS in one round only */
    th_run(pl, r);
    r = round_at(90, 9000, 0, 1000, 0, 1900);
    th_cgroup_usage(r, 58000000);               /* usage did not grow */
    th_pids(r, "b", 0);
    th_run(pl, r);
    r = round_at(120, 9000, 0, 1000, 0, 2900);  /* 10 s of ticks in 4 s: capped */
    th_cgroup_usage(r, 62000000);
    th_pids(r, "b", 0);
    th_run(pl, r);
    truth t = truth_now(pl);
    assert_int_equal(t.pairs[SIG_ACCOUNTED], 2);
    assert_int_equal(t.pct[SIG_ACCOUNTED][TR_P10], 7500);
    assert_int_equal(t.pct[SIG_ACCOUNTED][TR_MAX], 10000);
    pipeline_free(pl);
}

/* ---------------------------------------------------------- per pool rounds */

static void test_starved_by_steal_on_stat_hosts_only(void **state)
{
    (void)state;
    /* 2 cores, 30 s: 6000 ticks; busy 5900 (0.983) with 400 steal: 0.9167 without */
    pipeline *pl = new_host(2, 0);
    th_run(pl, round_at(0, 0, 0, 0, 0, 0));
    th_run(pl, round_at(30, 5900, 400, 100, 3, 0));
    th_run(pl, round_at(60, 11800, 500, 200, 3, 0)); /* 100 steal: 0.967 without */
    pl_pool *p = th_find(pl, "web1", "a");
    assert_int_equal(p->starved, 2);
    assert_int_equal(p->starved_by_steal, 1);
    pipeline_free(pl);
    /* the boundary: (busy - steal) at exactly 0.95 is not below it */
    pl = new_host(2, 0);
    th_run(pl, round_at(0, 0, 0, 0, 0, 0));
    th_run(pl, round_at(30, 6000, 300, 0, 3, 0));    /* 5700 of 6000 is 0.95 */
    th_run(pl, round_at(60, 12000, 601, 0, 3, 0));   /* 5699: below */
    assert_int_equal(th_find(pl, "web1", "a")->starved_by_steal, 1);
    pipeline_free(pl);
    /* a quota host measured by usage_usec: the steal is not its */
    pl = new_host(8, 1500);
    for (int i = 0; i < 3; i++) {
        th_round *r = round_at(30 * i, 23600ull * (unsigned)i, 1600ull * (unsigned)i, 0, 3, 0);
        th_cgroup_usage(r, 45000000ull * (unsigned)i); /* 1.5 of 1.5 cores */
        th_run(pl, r);
    }
    p = th_find(pl, "web1", "a");
    assert_int_equal(p->starved, 2);
    assert_int_equal(p->starved_by_steal, 0);
    pipeline_free(pl);
    /* even when its STAT, judged against the quota, would say so */
    pl = new_host(8, 1500);
    for (int i = 0; i < 3; i++) {
        th_round *r = round_at(30 * i, 3000ull * (unsigned)i, 100ull * (unsigned)i, 0, 3, 0);
        th_cgroup_usage(r, 45000000ull * (unsigned)i);
        th_run(pl, r);
    }
    assert_int_equal(th_find(pl, "web1", "a")->starved_by_steal, 0);
    pipeline_free(pl);
}

static void test_unanswered_full_rounds(void **state)
{
    (void)state;
    pipeline *pl = new_host(2, 0);
    th_run(pl, round_at(0, 0, 0, 0, 0, 0));
    th_run(pl, round_at(30, 5900, 0, 100, -1, 0));  /* full, an ERROR */
    th_run(pl, round_at(60, 6000, 0, 6000, -1, 0)); /* an ERROR, not full */
    th_round *r = round_at(90, 12000, 0, 6000, 0, 0);
    th_page(r, "a", "File not found.\n", 0);       /* a STATUS without a page, full */
    th_run(pl, r);
    pl_pool *p = th_find(pl, "web1", "a");
    assert_int_equal(p->unanswered_full, 2);
    assert_int_equal(p->error_rounds, 3);
    assert_int_equal(p->starved, 0);
    pipeline_free(pl);
}

/* -------------------------------------------------------------- the probe */

static void test_steal_probe_minus_the_run_delay(void **state)
{
    (void)state;
    pipeline *pl = new_host(2, 0);
    static const char *const probe[] = {
        "cpu=0\nduration_ns=200000000\ngap_total_ns=30000000\nrun_delay_ns=20000000\n",
        "cpu=1\nduration_ns=200000000\ngap_total_ns=10000000\nrun_delay_ns=25000000\n",
        "cpu=0\nduration_ns=100000000\ngap_total_ns=5000000\n", /* no run_delay_ns: 0 */
        "cpu=1\nduration_ns=0\ngap_total_ns=5000000\n",          /* not counted */
        "cpu=0\nduration_ns=100000000\n",                        /* not counted */
    };
    for (int i = 0; i < 5; i++) {
        th_round *r = round_at(30 * i, 0, 0, 1000ull * (unsigned)i, 0, 0);
        th_steal(r, probe[i]);
        th_run(pl, r);
    }
    truth t = truth_now(pl);
    assert_int_equal(t.probes, 3);
    assert_int_equal(t.probe_pct, 300);        /* (10 + 0 + 5) of 500 ms */
    assert_int_equal(t.probe_naive_pct, 900);  /* (30 + 10 + 5) of 500 ms */
    pipeline_free(pl);
    pl = new_host(2, 0);
    th_run(pl, round_at(0, 0, 0, 0, 0, 0));
    t = truth_now(pl);
    assert_int_equal(t.probes, 0);
    assert_int_equal(t.probe_pct, -1);        /* null */
    pipeline_free(pl);
}

/* ------------------------------------------- section 16: cpusets and v1 */

static pipeline *host_with(int nproc, int quota, const char *more)
{
    pipeline *pl = pipeline_new(NULL);
    assert_non_null(pl);
    th_host_with(pl, "web1", nproc, "b", quota, more);
    return pl;
}

/* A round at t s on 4 CPUs: CPU k busy t x per[k] ticks (a negative per:
 * no line for it), idle the rest of 100 a second. */
static th_round *cpus_round(double t, const long long per[4], const long long *steal_per)
{
    th_round *r = th_round_at(t, 0);
    long long busy[4], steal[4], idle[4];
    for (int k = 0; k < 4; k++) {
        busy[k] = per[k] < 0 ? -1 : (long long)t * per[k];
        steal[k] = steal_per ? (long long)t * steal_per[k] : 0;
        idle[k] = (long long)t * (100 - (per[k] < 0 ? 0 : per[k]));
    }
    th_stat_cpus(r, 4, busy, steal_per ? steal : NULL, idle);
    th_status(r, "a", 0, IDLE_A, 1);
    th_pids(r, "a", 1, 100LL, 0ULL);
    return r;
}

static void test_16_1_cpuset_narrower_than_nproc(void **state)
{
    (void)state;
    static const long long per[4] = {90, 10, 80, 80}; /* CPUs 2 and 3: 1.6 cores */
    pipeline *pl = host_with(4, 0, "cpus=2-3\ncgroup_version=1\n");
    pl_host *h = th_find_host(pl, "web1");
    assert_int_equal(h->host_millicores, 2000);
    assert_int_equal(h->cpu_source, PL_CPU_CPUSET);
    th_run(pl, cpus_round(0, per, NULL));
    th_run(pl, cpus_round(30, per, NULL));
    assert_int_equal(h->pairs_usable, 1);
    assert_true(fabs(h->busy_max - 1.6) < 1e-9);
    pipeline_free(pl);
    /* a list as wide as the host changes nothing: the cpu line, 2.6 cores */
    pl = host_with(4, 0, "cpus=0-3\n");
    h = th_find_host(pl, "web1");
    assert_int_equal(h->host_millicores, 4000);
    assert_int_equal(h->cpu_source, PL_CPU_HOST);
    th_run(pl, cpus_round(0, per, NULL));
    th_run(pl, cpus_round(30, per, NULL));
    assert_true(fabs(h->busy_max - 2.6) < 1e-9);
    pipeline_free(pl);
    /* nor does one that is not a CPU list: unknown */
    pl = host_with(4, 0, "cpus=-\n");
    h = th_find_host(pl, "web1");
    assert_null(h->cpus);
    assert_int_equal(h->host_millicores, 4000);
    pipeline_free(pl);
}

static void test_16_1_named_cpu_without_its_line_pairs_with_nothing(void **state)
{
    (void)state;
    static const long long all[4] = {90, 10, 80, 80}, gone[4] = {90, 10, 80, -1};
    pipeline *pl = host_with(4, 0, "cpus=2-3\n");
    pl_host *h = th_find_host(pl, "web1");
    th_run(pl, cpus_round(0, all, NULL));
    th_run(pl, cpus_round(30, gone, NULL)); /* CPU 3 offline: no pair ... */
    th_run(pl, cpus_round(60, all, NULL));  /* ... on either side */
    assert_int_equal(h->pairs_usable, 0);
    assert_int_equal(h->pairs_dropped[PL_DROP_NO_STAT], 2);
    th_run(pl, cpus_round(90, all, NULL));
    assert_int_equal(h->pairs_usable, 1);
    /* a CPU the set does not name may come and go */
    th_run(pl, cpus_round(120, (const long long[4]){-1, 10, 80, 80}, NULL));
    assert_int_equal(h->pairs_usable, 2);
    pipeline_free(pl);
}

static void test_16_1_quota_lower_than_the_cpuset(void **state)
{
    (void)state;
    pipeline *pl = host_with(8, 1500, "cpus=0-3\n");
    pl_host *h = th_find_host(pl, "web1");
    assert_int_equal(h->host_millicores, 1500);
    assert_int_equal(h->cpu_source, PL_CPU_QUOTA);
    th_host_with(pl, "web1", 8, "b", 5000, "cpus=0-3\n"); /* a quota above it */
    assert_int_equal(h->host_millicores, 4000);
    assert_int_equal(h->cpu_source, PL_CPU_CPUSET);
    th_host_with(pl, "web1", 8, "b", 1500, "cpus=0-3\ncgroup_version=1\n");
    assert_int_equal(h->cpu_source, PL_CPU_QUOTA_V1);
    pipeline_free(pl);
}

static void test_16_1_steal_over_the_named_cpus(void **state)
{
    (void)state;
    static const long long per[4] = {50, 50, 50, 50}, steal[4] = {40, 40, 5, 0};
    pipeline *pl = host_with(4, 0, "cpus=2-3\n");
    th_run(pl, cpus_round(0, per, steal));
    th_run(pl, cpus_round(30, per, steal)); /* 5 of the 200 ticks a second: 2.5% */
    truth t = truth_now(pl);
    assert_int_equal(t.pairs[SIG_STEAL], 1);
    assert_int_equal(t.pct[SIG_STEAL][TR_MAX], 250);
    pipeline_free(pl);
}

/* A v1 quota host's round at t s: cpuacct.usage at 0.5 cores, periods and
 * throttled as given, throttled_time in ns. */
static th_round *v1_round(double t, unsigned long long periods, unsigned long long throttled,
                          unsigned long long throttled_ns)
{
    th_round *r = round_at(t, 150 * (unsigned long long)t, 0, 50 * (unsigned long long)t, 0, 0);
    th_cgroup_v1(r, 500000000ull * (unsigned long long)t, periods, throttled, throttled_ns);
    return r;
}

static void test_16_2_v1_usage(void **state)
{
    (void)state;
    pipeline *pl = host_with(2, 500, "cgroup_version=1\n");
    pl_host *h = th_find_host(pl, "web1");
    assert_int_equal(h->host_millicores, 500);
    assert_int_equal(h->cpu_source, PL_CPU_QUOTA_V1);
    th_run(pl, v1_round(0, 0, 0, 0));
    th_run(pl, v1_round(30, 300, 0, 0)); /* 15 s of CPU in ns over 30 s; STAT says 1.5 */
    assert_int_equal(h->pairs_usable, 1);
    assert_true(fabs(h->busy_max - 0.5) < 1e-9);
    pipeline_free(pl);
}

static void test_16_2_v1_throttling(void **state)
{
    (void)state;
    pipeline *pl = host_with(2, 500, "cgroup_version=1\n");
    th_run(pl, v1_round(0, 100, 10, 4000000000ull));
    th_run(pl, v1_round(30, 400, 85, 6500000000ull)); /* 75 of 300: 25%, 2.5 s */
    truth t = truth_now(pl);
    assert_int_equal(t.pairs[SIG_THROTTLED], 1);
    assert_int_equal(t.pct[SIG_THROTTLED][TR_MAX], 2500);
    assert_int_equal(t.throttled_usec, 2500000);
    pipeline_free(pl);
}

/* 16.2: on cgroup v1, php_accounted reads cpuacct.usage where v2 reads
 * usage_usec, quota or not: the pool's ticks over the usage's growth */
static void test_16_2_v1_php_accounted(void **state)
{
    (void)state;
    pipeline *pl = host_with(8, 0, "cgroup_version=1\n");
    th_round *r = round_at(0, 0, 0, 1000, 0, 1000);
    th_cgroup_v1(r, 50000000000ull, 0, 0, 0);
    th_run(pl, r);
    r = round_at(30, 3000, 0, 1000, 0, 1300);  /* 300 ticks: 3 s of 4 s used */
    th_cgroup_v1(r, 54000000000ull, 0, 0, 0);
    th_run(pl, r);
    truth t = truth_now(pl);
    assert_int_equal(t.pairs[SIG_ACCOUNTED], 1);
    assert_int_equal(t.pct[SIG_ACCOUNTED][TR_MAX], 7500);
    pipeline_free(pl);
}

static void test_16_2_pair_measured_two_ways(void **state)
{
    (void)state;
    pipeline *pl = host_with(2, 500, "cgroup_version=1\n");
    pl_host *h = th_find_host(pl, "web1");
    th_run(pl, v1_round(0, 0, 0, 0));
    th_run(pl, round_at(30, 4500, 0, 1500, 0, 0)); /* no cpuacct.usage: STAT ticks */
    th_run(pl, v1_round(60, 600, 0, 0));
    assert_int_equal(h->pairs_usable, 0);
    assert_int_equal(h->pairs_dropped[PL_DROP_MEASURE], 2);
    pipeline_free(pl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_share_in_hundredths_half_away_from_zero_capped_at_100),
        cmocka_unit_test(test_percentiles_by_nearest_rank),
        cmocka_unit_test(test_steal_share_from_stat),
        cmocka_unit_test(test_throttled_needs_10_periods),
        cmocka_unit_test(test_throttled_rounds_whatever_the_busy_ratio),
        cmocka_unit_test(test_pressure_on_a_quota_host_comes_from_the_cgroup),
        cmocka_unit_test(test_php_accounted_needs_pids_of_every_pool_in_both_rounds),
        cmocka_unit_test(test_16_2_v1_php_accounted),
        cmocka_unit_test(test_starved_by_steal_on_stat_hosts_only),
        cmocka_unit_test(test_unanswered_full_rounds),
        cmocka_unit_test(test_steal_probe_minus_the_run_delay),
        cmocka_unit_test(test_16_1_cpuset_narrower_than_nproc),
        cmocka_unit_test(test_16_1_named_cpu_without_its_line_pairs_with_nothing),
        cmocka_unit_test(test_16_1_quota_lower_than_the_cpuset),
        cmocka_unit_test(test_16_1_steal_over_the_named_cpus),
        cmocka_unit_test(test_16_2_v1_usage),
        cmocka_unit_test(test_16_2_v1_throttling),
        cmocka_unit_test(test_16_2_pair_measured_two_ways),
    };
    return cmocka_run_group_tests_name("truth", tests, NULL, NULL);
}
