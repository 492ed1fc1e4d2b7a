/* check: what got worse than a baseline, line by line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "pipeline_harness.h"

/* check_against on the answers of pl in sc as fpm-analyze check decides
 * them (check_scenario). */
static int check_with(FILE *out, const pipeline *pl, const wi_scenario *sc, const char *path,
                      int tol, double rise, char *err, size_t errlen)
{
    wi_scenario cs = check_scenario(sc);
    wi_answers a = th_answers(pl, &cs);
    int worse = check_against(out, &a, path, tol, rise, err, errlen);
    whatif_answers_free(&a);
    return worse;
}

/* Host web1 (4 cores), pool shop: n readings of /buy at cpu for dur_us, the
 * last 2 rounds starved. */
static pipeline *history_of(int n, long long dur_us, const char *cpu)
{
    pipeline *pl = pipeline_new(NULL);
    th_host(pl, "web1", 4, "b", 0);
    th_pool(pl, "shop", 40, "/status");
    for (int k = 0; k <= n; k++) {
        th_round *r = th_round_at(30.0 * k, (k >= n - 1 ? 11600ULL * (unsigned)(k - n + 2) : 0) + 1000ULL * k);
        tworker w[] = {{100, "Idle", k + 1, dur_us, "/buy", cpu}};
        th_status(r, "shop", k >= n - 1 ? 2 : 0, w, k ? 1 : 0);
        th_run(pl, r);
    }
    return pl;
}

/* 20 readings at 70% for 90 ms */
static pipeline *history(void)
{
    return history_of(20, 90000, "70.00");
}

static char *check_on(pipeline *pl, const char *pool_keys, int tol, int *worse, char *err,
                      size_t errlen);

/* check_against with a baseline of one pool shop with these keys; returns
 * what it printed, *worse what it returned. */
static char *check(const char *pool_keys, int tol, int *worse, char *err, size_t errlen)
{
    return check_on(history(), pool_keys, tol, worse, err, errlen);
}

/* The same against the history pl (freed). */
static char *check_on(pipeline *pl, const char *pool_keys, int tol, int *worse, char *err,
                      size_t errlen)
{
    char path[] = "/tmp/fpmcpu-baseline-XXXXXX";
    FILE *f = fdopen(mkstemp(path), "w");
    assert_non_null(f);
    fprintf(f, "{\"format\": 1, \"hosts\": [{\"hostname\": \"web1\", \"pools\": [%s]}]}", pool_keys);
    fclose(f);
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
    char *s = NULL;
    size_t n = 0;
    FILE *out = open_memstream(&s, &n);
    *worse = check_with(out, pl, &sc, path, tol, 10, err, errlen);
    fclose(out);
    unlink(path);
    pipeline_free(pl);
    return s;
}

#define SAME "\"pool\": \"shop\", \"typical_pct\": 70, \"p90_pct\": 70, \"shape\": \"cpu-bound\", " \
             "\"busy_pct\": 70.00, \"overhead\": null, \"starved_rounds\": 2"

static void test_nothing_worse_exits_0(void **state)
{
    (void)state;
    char err[256];
    int worse;
    char *s = check("{" SAME "}", 0, &worse, err, sizeof err);
    assert_int_equal(worse, 0);
    assert_string_equal(s, "check: the baseline has no routes (an older fpm-analyze): routes not compared\n" "check: no regression; 1 pool as good as the baseline\n");
    free(s);
}

static void test_each_thing_worse_is_one_line(void **state)
{
    (void)state;
    char err[256];
    int worse;
    char *s = check("{\"pool\": \"shop\", \"typical_pct\": 50, \"p90_pct\": 70, \"shape\": \"mixed\", "
                    "\"busy_pct\": 50.00, \"overhead\": null, \"starved_rounds\": 0}, "
                    "{\"pool\": \"gone\", \"typical_pct\": 5}", 0, &worse, err, sizeof err);
    assert_int_equal(worse, 5);
    assert_string_equal(s, "web1 shop: TYPICAL 50% -> 70% (up 4 buckets, tolerance 0)\n"
                           "web1 shop: shape mixed -> cpu-bound\n"
                           "web1 shop: busy share 50.00% -> 70.00% (up 4 buckets, tolerance 0)\n"
                           "web1 shop: starved rounds 0 -> 2 (requests queued while the CPU was "
                           "full)\n"
                           "web1 gone: in the baseline, not in the new log\n"
                           "check: the baseline has no routes (an older fpm-analyze): routes not compared\n" "check: 5 regressions against the baseline\n");
    free(s);
    /* within the tolerance */
    s = check("{\"pool\": \"shop\", \"typical_pct\": 50, \"p90_pct\": 70, \"shape\": \"cpu-bound\", "
              "\"busy_pct\": 50.00, \"starved_rounds\": 2}", 4, &worse, err, sizeof err);
    assert_int_equal(worse, 0);
    free(s);
}

/* An overhead believed in the baseline and not now is a regression, named
 * by the fit it came from: the joint fit's ("own", "host"), or the
 * dominant pool's line ("dominant", or a baseline without the key). */
static void test_an_overhead_believed_then_and_not_now(void **state)
{
    (void)state;
    char err[256];
    int worse;
    char *s = check("{" SAME ", \"overhead\": 1.42, \"overhead_source\": \"own\"}", 0, &worse, err,
                    sizeof err);
    assert_int_equal(worse, 1);
    assert_string_equal(s, "web1 shop: overhead 1.42x (joint fit) in the baseline, not believed now\n"
                           "check: the baseline has no routes (an older fpm-analyze): routes not compared\n" "check: 1 regression against the baseline\n");
    free(s);
    s = check("{" SAME ", \"overhead\": 1.42}", 0, &worse, err, sizeof err);
    assert_int_equal(worse, 1);
    assert_string_equal(s, "web1 shop: overhead 1.42x (--fit dominant) in the baseline, not "
                           "believed now\ncheck: the baseline has no routes (an older fpm-analyze): routes not "
                           "compared\ncheck: 1 regression against the baseline\n");
    free(s);
}

/* A host whose steal p90 rose past the tolerance (in buckets, as the pools'
 * shares); a baseline without the key is not compared. */
static void test_host_steal_throttled_pressure_p90_rise(void **state)
{
    (void)state;
    static const struct { const char *keys; int tol, worse; const char *line; } cases[] = {
        {"\"steal\": {\"p90_pct\": 0.00}", 1, 1,
         "web1: steal p90 0.00% -> 10.00% (up 2 buckets, tolerance 1)\n"},
        {"\"steal\": {\"p90_pct\": 5.00}", 1, 0, ""},
        {"\"steal\": {\"p90_pct\": 0.00}", 2, 0, ""},
        {"\"pressure\": {\"p90_pct\": 0.00}", 0, 0, ""}, /* no pressure now: not compared */
        {"\"steal\": {\"p90_pct\": null}", 0, 0, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[] = "/tmp/fpmcpu-baseline-XXXXXX";
        FILE *f = fdopen(mkstemp(path), "w");
        assert_non_null(f);
        fprintf(f, "{\"format\": 1, \"hosts\": [{\"hostname\": \"web1\", %s, \"pools\": []}]}",
                cases[i].keys);
        fclose(f);
        pipeline *pl = pipeline_new(NULL);
        th_host(pl, "web1", 4, "b", 0);
        for (int k = 0; k < 3; k++) { /* 1200 of 12000 ticks stolen: 10% */
            th_round *r = th_round_at(30.0 * k, 0);
            th_stat_steal(r, 3000ull * (unsigned)k, 1200ull * (unsigned)k, 9000ull * (unsigned)k);
            th_run(pl, r);
        }
        wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
        char *s = NULL, err[256];
        size_t n = 0;
        FILE *out = open_memstream(&s, &n);
        int worse = check_with(out, pl, &sc, path, cases[i].tol, 10, err, sizeof err);
        fclose(out);
        unlink(path);
        pipeline_free(pl);
        assert_int_equal(worse, cases[i].worse);
        assert_true(strncmp(s, cases[i].line, strlen(cases[i].line)) == 0);
        free(s);
    }
}

/* A host signal is capped at 100%: the cap is in the 95-100 bucket, so
 * 99.89% -> 100.00% (pressure beside a burner) is no bucket up; 94.99% ->
 * 100.00% is one */
static void test_a_signal_at_its_cap_is_in_the_95_100_bucket(void **state)
{
    (void)state;
    static const struct { const char *was; int worse; } cases[] = {{"99.89", 0}, {"94.99", 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[] = "/tmp/fpmcpu-baseline-XXXXXX";
        FILE *f = fdopen(mkstemp(path), "w");
        assert_non_null(f);
        fprintf(f, "{\"format\": 1, \"hosts\": [{\"hostname\": \"web1\", \"steal\": "
                   "{\"p90_pct\": %s}, \"pools\": []}]}", cases[i].was);
        fclose(f);
        pipeline *pl = pipeline_new(NULL);
        th_host(pl, "web1", 4, "b", 0);
        for (int k = 0; k < 3; k++) { /* every busy tick stolen, none idle: 100% */
            th_round *r = th_round_at(30.0 * k, 0);
            th_stat_steal(r, 12000ull * (unsigned)k, 12000ull * (unsigned)k, 0);
            th_run(pl, r);
        }
        wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
        char *s = NULL, err[256];
        size_t n = 0;
        FILE *out = open_memstream(&s, &n);
        int worse = check_with(out, pl, &sc, path, 0, 10, err, sizeof err);
        fclose(out);
        unlink(path);
        pipeline_free(pl);
        assert_int_equal(worse, cases[i].worse);
        free(s);
    }
}

static void test_an_unusable_baseline_is_an_error(void **state)
{
    (void)state;
    char err[256];
    int worse;
    char *s = check("{\"pool\": ", 0, &worse, err, sizeof err);
    assert_int_equal(worse, -1);
    assert_non_null(strstr(err, "not JSON: line 1: "));
    free(s);
    pipeline *pl = history();
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
    assert_int_equal(check_with(stdout, pl, &sc, "/nonexistent/base.json", 0, 10, err,
                                   sizeof err), -1);
    assert_string_equal(err, "could not read: No such file or directory");
    pipeline_free(pl);
}

/* 17.6: the CPU per request (63 ms here: 70% of 90 ms) fails past +20%,
 * and 10% more per step of --tolerance */
static void test_17_6_check_fails_a_41_percent_heavier_cpu_per_request(void **state)
{
    (void)state;
    char err[256];
    int worse;
    char *s = check("{" SAME ", \"cpu_ms_per_request\": 44.68}", 0, &worse, err, sizeof err);
    assert_int_equal(worse, 1);
    assert_string_equal(s, "web1 shop: cpu per request 44.68 ms -> 63.00 ms (+41%)\n"
                           "check: the baseline has no routes (an older fpm-analyze): routes not compared\n" "check: 1 regression against the baseline\n");
    free(s);
    s = check("{" SAME ", \"cpu_ms_per_request\": 44.68}", 2, &worse, err, sizeof err);
    assert_int_equal(worse, 1); /* 41% is past 40% */
    free(s);
    s = check("{" SAME ", \"cpu_ms_per_request\": 44.68}", 3, &worse, err, sizeof err);
    assert_int_equal(worse, 0); /* not past 50% */
    free(s);
    s = check("{" SAME ", \"cpu_ms_per_request\": 52.50}", 0, &worse, err, sizeof err);
    assert_int_equal(worse, 0); /* +20% exactly is not past it */
    free(s);
}

/* 14.6: a per-worker memory up by more than 20% and a bucket: the
 * memory fixture's shop holds 62 MiB */
static void test_14_6_check_fails_a_memory_per_worker_that_grew(void **state)
{
    (void)state;
    static const struct { long long was; int worse; } cases[] = {
        {52428800, 1}, /* 50 MiB: +24% */
        {54525952, 0}, /* 52 MiB: +19% */
        {65011712, 0}, /* the same */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[] = "/tmp/fpmcpu-baseline-XXXXXX", err[256];
        FILE *f = fdopen(mkstemp(path), "w");
        assert_non_null(f);
        fprintf(f, "{\"format\": 1, \"hosts\": [{\"hostname\": \"mem1\", \"pools\": ["
                   "{\"pool\": \"shop\", \"memory\": {\"per_worker_bytes\": %lld}}]}]}",
                cases[i].was);
        fclose(f);
        pipeline *pl = pipeline_new(NULL);
        th_replay_quiet(pl, "fixtures/logs/memory.fpmlog");
        wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
        char *s = NULL;
        size_t n = 0;
        FILE *out = open_memstream(&s, &n);
        int worse = check_with(out, pl, &sc, path, 0, 10, err, sizeof err);
        fclose(out);
        unlink(path);
        assert_int_equal(worse, cases[i].worse);
        if (cases[i].worse)
            assert_non_null(strstr(s, "mem1 shop: memory per worker 50 MiB -> 62 MiB (+24%)\n"));
        free(s);
        pipeline_free(pl);
    }
}

/* 17.3: shares measured under contention are floors: never compared with
 * shares that are not (a regression, said); both floors are compared, and
 * said to be floors.  The history here is measured under contention: its
 * last two rounds were saturated and it has no calm set of 20. */
static void test_17_check_refuses_a_floor_against_a_share(void **state)
{
    (void)state;
    char err[256];
    int worse;
    char *s = check("{" SAME ", \"measured_under_contention\": false}", 0, &worse, err,
                    sizeof err);
    assert_int_equal(worse, 1);
    assert_string_equal(s, "web1 shop: this log was measured under contention and the baseline "
                           "was not: their shares are not compared\n"
                           "check: the baseline has no routes (an older fpm-analyze): routes not compared\n" "check: 1 regression against the baseline\n");
    free(s);
    s = check("{" SAME ", \"measured_under_contention\": true}", 0, &worse, err, sizeof err);
    assert_int_equal(worse, 0);
    assert_string_equal(s, "web1 shop: note: both were measured under contention: their shares "
                           "are floors\n"
                           "check: the baseline has no routes (an older fpm-analyze): routes not compared\n" "check: no regression; 1 pool as good as the baseline\n");
    free(s);
}

/* 17.7: a pool more than 10% of whose readings waited for the CPU (then
 * or now) is compared by its busy share (a rise past 20%, as the CPU per
 * request) and its CPU per request, not by TYPICAL's and P90's buckets, and
 * check says so once */
static void test_17_7_check_of_a_pool_that_waited(void **state)
{
    (void)state;
    char err[256];
    int worse;
#define WAITED(busy, contended) \
    "{\"pool\": \"shop\", \"typical_pct\": 30, \"p90_pct\": 30, \"shape\": \"cpu-bound\", " \
    "\"busy_pct\": " busy ", \"overhead\": null, \"starved_rounds\": 2, \"readings\": 20, " \
    "\"contended_readings\": " contended "}"
    char *s = check(WAITED("60.00", "15"), 0, &worse, err, sizeof err);
    assert_int_equal(worse, 0);
    assert_string_equal(s, "web1 shop: TYPICAL and P90 not compared: 75% of its readings waited "
                           "for the CPU; compared by busy share and CPU per request\n"
                           "check: the baseline has no routes (an older fpm-analyze): routes not compared\n" "check: no regression; 1 pool as good as the baseline\n");
    free(s);
    s = check(WAITED("50.00", "15"), 0, &worse, err, sizeof err);
    assert_int_equal(worse, 1);
    assert_non_null(strstr(s, "web1 shop: busy share 50.00% -> 70.00% (+40%)\n"));
    free(s);
    s = check(WAITED("60.00", "2"), 0, &worse, err, sizeof err); /* 10%: by buckets */
    assert_int_equal(worse, 3);
    assert_non_null(strstr(s, "web1 shop: TYPICAL 30% -> 70% (up 8 buckets, tolerance 0)\n"));
    free(s);
#undef WAITED
}

/* 19.5: a route with 20 readings on both sides whose CPU per request rose
 * by more than 20% (10% more per step of the tolerance) fails, named; one
 * with 20 on one side only is said, not failed; a baseline with routes
 * says nothing of them missing */
static void test_19_5_check_by_route(void **state)
{
    (void)state;
    char err[256];
    int worse;
    /* /buy: 20 readings of 70% of 90 ms: 63.00 ms a request */
    char *s = check("{" SAME ", \"routes\": [{\"route\": \"/buy\", \"readings\": 20, "
                    "\"cpu_ms_per_request\": 50.00}]}", 0, &worse, err, sizeof err);
    assert_int_equal(worse, 1);
    assert_string_equal(s, "web1 shop /buy: cpu per request 50.00 ms -> 63.00 ms (+26%)\n"
                           "check: 1 regression against the baseline\n");
    free(s);
    s = check("{" SAME ", \"routes\": [{\"route\": \"/buy\", \"readings\": 20, "
              "\"cpu_ms_per_request\": 50.00}]}", 1, &worse, err, sizeof err);
    assert_int_equal(worse, 0); /* 30% at tolerance 1 */
    free(s);
    s = check("{" SAME ", \"routes\": [{\"route\": \"/buy\", \"readings\": 19, "
              "\"cpu_ms_per_request\": 10.00}, {\"route\": \"/gone\", \"readings\": 30, "
              "\"cpu_ms_per_request\": 10.00}]}", 0, &worse, err, sizeof err);
    assert_int_equal(worse, 0);
    assert_string_equal(s, "web1 shop /buy: 20 readings now, 19 in the baseline: not compared\n"
                           "web1 shop /gone: 30 readings in the baseline, none now: not "
                           "compared\ncheck: no regression; 1 pool as good as the baseline\n");
    free(s);
    s = check("{" SAME ", \"routes\": []}", 0, &worse, err, sizeof err);
    assert_string_equal(s, "web1 shop /buy: 20 readings now, 0 in the baseline: not compared\n"
                           "check: no regression; 1 pool as good as the baseline\n");
    free(s);
}

/* 19.5 (amended in turn 7): a route fails only where its CPU per request
 * also rose by more than 12 / sqrt(n) ms, n the smaller of its two counts
 * (php-fpm's 10 ms ticks).  /buy: 36 readings of 30% of 10 ms, 3.00 ms a
 * request; against 36 in the baseline the floor is 2.00 ms: from 1.00 ms
 * (+200%, a rise of exactly 2.00 ms) it passes, from 0.99 ms it fails; a
 * baseline of 2.40 ms (+25%, 0.60 ms) passes whatever its count, the
 * smaller count (36) setting the floor. */
static void test_19_5_a_route_past_the_clocks_noise(void **state)
{
    (void)state;
    char err[256];
    int worse;
    static const struct { const char *was; int n; int worse; } cases[] = {
        {"1.00", 36, 0}, {"0.99", 36, 1}, {"2.40", 100000, 0}, {"0.99", 100000, 1},
        {"0.99", 37, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char keys[256];
        snprintf(keys, sizeof keys, "{\"pool\": \"shop\", \"starved_rounds\": 2, \"routes\": [{\"route\": \"/buy\", "
                 "\"readings\": %d, \"cpu_ms_per_request\": %s}]}", cases[i].n, cases[i].was);
        char *s = check_on(history_of(36, 10000, "30.00"), keys, 0, &worse, err, sizeof err);
        if (worse != cases[i].worse)
            fail_msg("%s ms of %d: %d worse, want %d:\n%s", cases[i].was, cases[i].n, worse,
                     cases[i].worse, s);
        if (worse)
            assert_non_null(strstr(s, "web1 shop /buy: cpu per request 0.99 ms -> 3.00 ms (+203%)\n"));
        free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_19_5_check_by_route),
        cmocka_unit_test(test_19_5_a_route_past_the_clocks_noise),
        cmocka_unit_test(test_17_6_check_fails_a_41_percent_heavier_cpu_per_request),
        cmocka_unit_test(test_14_6_check_fails_a_memory_per_worker_that_grew),
        cmocka_unit_test(test_17_check_refuses_a_floor_against_a_share),
        cmocka_unit_test(test_17_7_check_of_a_pool_that_waited),
        cmocka_unit_test(test_nothing_worse_exits_0),
        cmocka_unit_test(test_each_thing_worse_is_one_line),
        cmocka_unit_test(test_host_steal_throttled_pressure_p90_rise),
        cmocka_unit_test(test_a_signal_at_its_cap_is_in_the_95_100_bucket),
        cmocka_unit_test(test_an_overhead_believed_then_and_not_now),
        cmocka_unit_test(test_an_unusable_baseline_is_an_error),
    };
    return cmocka_run_group_tests_name("check", tests, NULL, NULL);
}
