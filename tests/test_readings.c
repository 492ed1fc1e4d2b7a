/* docs/rules.md section 2: which numbers count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "readings.h"
#include "testlib.h"

typedef struct {
    rd_verdict v[16];
    int64_t    share[16];
    size_t     n;
} seen;

static void collect(void *arg, const status_worker *w, rd_verdict v, int64_t share)
{
    (void)w;
    seen *s = arg;
    s->v[s->n] = v;
    s->share[s->n++] = share;
}

/* The pool's previous round at the epoch: every worker started after it,
 * so 12.4 primes none of these tests' workers (its own tests below). */
static const rd_before SINCE_EPOCH = {1, 0};

/* Runs one round's page through rd_page with the map. */
static seen judge(pidmap *map, const rd_prefixes *own, const tworker *w, size_t n)
{
    buf b = {0};
    status_page_text(&b, "p", 0, w, n);
    status_page pg = {0};
    assert_int_equal(status_parse(&pg, b.p, b.n), 0);
    assert_int_equal(pg.nworkers, n);
    pidmap scratch = {0};
    seen s = {0};
    assert_int_equal(rd_page(&pg, map, &scratch, &SINCE_EPOCH, own, collect, &s), 0);
    pidmap_free(&scratch);
    status_page_free(&pg);
    buf_free(&b);
    return s;
}

static int64_t remembered(pidmap *m, int64_t pid)
{
    int64_t v;
    return pidmap_get(m, pid, &v) ? v : -1;
}

static void test_no_request_when_requests_is_0_or_pid_is_missing(void **state)
{
    (void)state;
    pidmap m = {0};
    const char *page = "{\"processes\":[{\"pid\":1,\"state\":\"Idle\",\"requests\":0},"
                       "{\"pid\":2,\"state\":\"Idle\",\"requests\":-3},"
                       "{\"state\":\"Idle\",\"requests\":4},"
                       "{\"pid\":x,\"state\":\"Idle\",\"requests\":4},"
                       "{\"pid\":5,\"state\":\"Idle\",\"requests\":\"7\"}]}";
    status_page pg = {0};
    assert_int_equal(status_parse(&pg, page, strlen(page)), 0);
    pidmap scratch = {0};
    seen s = {0};
    pidmap_put(&m, 1, 9);
    pidmap_seal(&m);
    assert_int_equal(rd_page(&pg, &m, &scratch, &SINCE_EPOCH, NULL, collect, &s), 0);
    assert_int_equal(s.n, 5);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(s.v[i], RD_NO_REQUEST);
    /* 12.4 rule 1: pid 1, forked and nothing served, is remembered with 0;
     * the others nothing (pid 1's 9 is forgotten) */
    assert_int_equal(m.n, 1);
    assert_int_equal(remembered(&m, 1), 0);
    status_page_free(&pg);
    pidmap_free(&scratch);
    pidmap_free(&m);
}

static void test_running_is_skipped_and_keeps_the_remembered_counter(void **state)
{
    (void)state;
    pidmap m = {0};
    tworker r1[] = {{10, "Idle", 5, 90000, "/a", "50.00"}};
    assert_int_equal(judge(&m, NULL, r1, 1).v[0], RD_ACCEPTED);
    /* running: php-fpm counted the request when it started, its CPU is 0 */
    tworker r2[] = {{10, "Running", 6, 1000, "/b", "0.00"}};
    assert_int_equal(judge(&m, NULL, r2, 1).v[0], RD_RUNNING);
    assert_int_equal(remembered(&m, 10), 5);
    /* once it finishes, the request (counter 6) is new */
    tworker r3[] = {{10, "Idle", 6, 80000, "/b", "40.00"}};
    seen s = judge(&m, NULL, r3, 1);
    assert_int_equal(s.v[0], RD_ACCEPTED);
    assert_int_equal(s.share[0], 4000);
    /* a running pid never seen before is remembered as seen running (12.4) */
    tworker r4[] = {{11, "Reading headers", 1, 1000, "/c", "0.00"}};
    assert_int_equal(judge(&m, NULL, r4, 1).v[0], RD_RUNNING);
    assert_int_equal(remembered(&m, 11), RD_SEEN_RUNNING);
    pidmap_free(&m);
}

static void test_idle_is_ascii_case_insensitive_without_trimming(void **state)
{
    (void)state;
    static const struct { const char *state; rd_verdict v; } c[] = {
        {"Idle", RD_ACCEPTED}, {"IDLE", RD_ACCEPTED}, {"idle", RD_ACCEPTED},
        {" Idle", RD_RUNNING}, {"Idle ", RD_RUNNING}, {"Idl", RD_RUNNING},
        {"Finishing", RD_RUNNING}, {"", RD_RUNNING},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        pidmap m = {0};
        tworker w[] = {{10, c[i].state, 5, 90000, "/a", "50.00"}};
        if (judge(&m, NULL, w, 1).v[0] != c[i].v)
            fail_msg("state \"%s\"", c[i].state);
        pidmap_free(&m);
    }
    /* no state at all: running */
    const char *page = "{\"processes\":[{\"pid\":1,\"requests\":3,\"request duration\":90000,"
                       "\"last request cpu\":5.00}]}";
    status_page pg = {0};
    pidmap m = {0}, scratch = {0};
    seen s = {0};
    assert_int_equal(status_parse(&pg, page, strlen(page)), 0);
    assert_int_equal(rd_page(&pg, &m, &scratch, &SINCE_EPOCH, NULL, collect, &s), 0);
    assert_int_equal(s.v[0], RD_RUNNING);
    status_page_free(&pg);
    pidmap_free(&m);
    pidmap_free(&scratch);
}

static void test_repeat_counter_is_not_a_new_reading(void **state)
{
    (void)state;
    pidmap m = {0};
    tworker w[] = {{10, "Idle", 5, 90000, "/a", "50.00"}};
    assert_int_equal(judge(&m, NULL, w, 1).v[0], RD_ACCEPTED);
    assert_int_equal(judge(&m, NULL, w, 1).v[0], RD_REPEAT);
    assert_int_equal(judge(&m, NULL, w, 1).v[0], RD_REPEAT);
    assert_int_equal(remembered(&m, 10), 5);
    pidmap_free(&m);
}

static void test_lower_counter_is_a_recycled_pid(void **state)
{
    (void)state;
    pidmap m = {0};
    tworker a[] = {{10, "Idle", 500, 90000, "/a", "50.00"}};
    judge(&m, NULL, a, 1);
    tworker b[] = {{10, "Idle", 2, 90000, "/a", "30.00"}};
    seen s = judge(&m, NULL, b, 1);
    assert_int_equal(s.v[0], RD_ACCEPTED);
    assert_int_equal(s.share[0], 3000);
    assert_int_equal(remembered(&m, 10), 2);
    pidmap_free(&m);
}

static void test_own_uri_is_a_byte_prefix_after_unescaping(void **state)
{
    (void)state;
    rd_prefixes own = {0};
    rd_prefixes_add(&own, "/status", 7);
    rd_prefixes_add(&own, RD_FPM_TUNE_PREFIX, strlen(RD_FPM_TUNE_PREFIX));
    rd_prefixes_add(&own, "", 0); /* an empty prefix is ignored */
    assert_int_equal(own.n, 2);
    tworker w[] = {
        {1, "Idle", 1, 90000, "\\/status?json&full", "1.00"},
        {2, "Idle", 1, 90000, "/statusfoo", "1.00"},
        {3, "Idle", 1, 90000, "/Status", "1.00"},
        {4, "Idle", 1, 90000, "/cbox-phpfpm-opcache-status.php", "1.00"},
        {5, "Idle", 1, 90000, "/shop/status", "1.00"},
        {6, "Idle", 1, 9000, "/status", "1.00"}, /* own before short */
    };
    pidmap m = {0};
    seen s = judge(&m, &own, w, 6);
    rd_verdict want[] = {RD_OWN, RD_OWN, RD_ACCEPTED, RD_OWN, RD_ACCEPTED, RD_OWN};
    for (size_t i = 0; i < 6; i++)
        if (s.v[i] != want[i])
            fail_msg("worker %zu: %s, want %s", i + 1, rd_name(s.v[i]), rd_name(want[i]));
    /* a repeat of an own request is a repeat: rule 3 comes first */
    s = judge(&m, &own, w, 1);
    assert_int_equal(s.v[0], RD_REPEAT);
    pidmap_free(&m);
    rd_prefixes_free(&own);
}

static void test_short_below_50ms_invalid_duration(void **state)
{
    (void)state;
    tworker w[] = {
        {1, "Idle", 1, 49999, "/a", "300.00"},
        {2, "Idle", 1, 50000, "/a", "300.00"},
        {3, "Idle", 1, -5, "/a", "1.00"},
    };
    pidmap m = {0};
    seen s = judge(&m, NULL, w, 3);
    assert_int_equal(s.v[0], RD_SHORT);
    assert_int_equal(s.v[1], RD_ACCEPTED);
    assert_int_equal(s.share[1], 30000);
    assert_int_equal(s.v[2], RD_SHORT);
    pidmap_free(&m);
    const char *page = "{\"processes\":[{\"pid\":1,\"state\":\"Idle\",\"requests\":3,"
                       "\"request duration\":9.5e4,\"last request cpu\":5.00},"
                       "{\"pid\":2,\"state\":\"Idle\",\"requests\":3,"
                       "\"last request cpu\":5.00}]}";
    status_page pg = {0};
    pidmap mm = {0}, scratch = {0};
    seen t = {0};
    assert_int_equal(status_parse(&pg, page, strlen(page)), 0);
    rd_page(&pg, &mm, &scratch, &SINCE_EPOCH, NULL, collect, &t);
    assert_int_equal(t.v[0], RD_INVALID);
    assert_int_equal(t.v[1], RD_INVALID);
    status_page_free(&pg);
    pidmap_free(&mm);
    pidmap_free(&scratch);
}

static void test_negative_or_unparsable_cpu_is_invalid(void **state)
{
    (void)state;
    static const struct { const char *cpu; rd_verdict v; int64_t share; } c[] = {
        {"-0.001", RD_INVALID, 0}, {"-0.00", RD_ACCEPTED, 0}, {"nan", RD_INVALID, 0},
        {"inf", RD_INVALID, 0}, {"1e2", RD_INVALID, 0}, {"\"67.57\"", RD_INVALID, 0},
        {"67,57", RD_INVALID, 0},
        {"4.999", RD_ACCEPTED, 499}, {"67.57", RD_ACCEPTED, 6757},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        tworker w[] = {{1, "Idle", 1, 90000, "/a", c[i].cpu}};
        pidmap m = {0};
        seen s = judge(&m, NULL, w, 1);
        if (s.v[0] != c[i].v || (c[i].v == RD_ACCEPTED && s.share[0] != c[i].share))
            fail_msg("cpu %s: %s %lld", c[i].cpu, rd_name(s.v[0]), (long long)s.share[0]);
        pidmap_free(&m);
    }
}

static void test_remembered_map_holds_only_this_round(void **state)
{
    (void)state;
    pidmap m = {0};
    tworker a[] = {{1, "Idle", 5, 90000, "/a", "1.00"}, {2, "Idle", 7, 90000, "/a", "1.00"}};
    judge(&m, NULL, a, 2);
    assert_int_equal(remembered(&m, 2), 7);
    tworker b[] = {{1, "Idle", 5, 90000, "/a", "1.00"}}; /* pid 2 vanished */
    judge(&m, NULL, b, 1);
    assert_int_equal(remembered(&m, 2), -1);
    /* so when it comes back with the same counter, it is new again */
    assert_int_equal(judge(&m, NULL, a, 2).v[1], RD_ACCEPTED);
    pidmap_free(&m);
}

static void test_pid_listed_twice_is_judged_against_the_map_before_the_round(void **state)
{
    (void)state;
    pidmap m = {0};
    tworker a[] = {{1, "Idle", 5, 90000, "/a", "1.00"}};
    judge(&m, NULL, a, 1);
    tworker b[] = {{1, "Idle", 6, 90000, "/a", "1.00"}, {1, "Idle", 6, 90000, "/a", "2.00"}};
    seen s = judge(&m, NULL, b, 2);
    assert_int_equal(s.v[0], RD_ACCEPTED); /* both new against counter 5 */
    assert_int_equal(s.v[1], RD_ACCEPTED);
    tworker c[] = {{1, "Idle", 9, 90000, "/a", "1.00"}, {1, "Idle", 8, 90000, "/a", "1.00"}};
    judge(&m, NULL, c, 2);
    assert_int_equal(remembered(&m, 1), 8); /* the later entry is remembered */
    pidmap_free(&m);
}

/* 12.4: one round's page through rd_page with the pool's previous round */
static seen judge_since(pidmap *map, const rd_before *prev, const char *page)
{
    status_page pg = {0};
    assert_int_equal(status_parse(&pg, page, strlen(page)), 0);
    pidmap scratch = {0};
    seen s = {0};
    assert_int_equal(rd_page(&pg, map, &scratch, prev, NULL, collect, &s), 0);
    pidmap_free(&scratch);
    status_page_free(&pg);
    return s;
}

#define WORKER(pid, state, start, req) \
    "{\"pid\":" #pid ",\"state\":\"" state "\",\"start time\":" #start ",\"requests\":" #req \
    ",\"request duration\":90000,\"request uri\":\"/a\",\"last request cpu\":50.00}"

/* rule 3: the first round of a pool primes every idle worker on it */
static void test_the_first_round_primes_idle_workers(void **state)
{
    (void)state;
    pidmap m = {0};
    rd_before none = {0, 0};
    seen s = judge_since(&m, &none, "{\"processes\":[" WORKER(10, "Idle", 1000, 5) "]}");
    assert_int_equal(s.v[0], RD_PRIMED);
    assert_int_equal(remembered(&m, 10), 5);
    rd_before at = {1, 2000};
    s = judge_since(&m, &at, "{\"processes\":[" WORKER(10, "Idle", 1000, 6) "]}");
    assert_int_equal(s.v[0], RD_ACCEPTED); /* its next request is one we watched */
    pidmap_free(&m);
}

/* rule 3: a worker not remembered counts when its process started at or
 * after the pool's previous round (in whole seconds), else is primed */
static void test_an_unseen_worker_counts_when_it_started_after_the_round_before(void **state)
{
    (void)state;
    pidmap m = {0};
    rd_before at = {1, 2000};
    seen s = judge_since(&m, &at, "{\"processes\":[" WORKER(10, "Idle", 2000, 1) ","
                                  WORKER(11, "Idle", 1999, 4) "]}");
    assert_int_equal(s.v[0], RD_ACCEPTED);
    assert_int_equal(s.v[1], RD_PRIMED);
    pidmap_free(&m);
    /* no start time, or not a plain non-negative integer: the old rule */
    pidmap n = {0};
    s = judge_since(&n, &at, "{\"processes\":[" WORKER(13, "Idle", -5, 2) ",{\"pid\":12,"
                             "\"state\":\"Idle\",\"requests\":2,\"request duration\":90000,"
                             "\"last request cpu\":5.00}]}");
    assert_int_equal(s.v[0], RD_ACCEPTED);
    assert_int_equal(s.v[1], RD_ACCEPTED);
    pidmap_free(&n);
}

/* rules 1 and 2: a worker remembered with 0, or as seen running, gives
 * its next idle request however old its process */
static void test_a_worker_seen_with_0_or_running_gives_its_next_request(void **state)
{
    (void)state;
    pidmap m = {0};
    rd_before none = {0, 0}, at = {1, 5000};
    judge_since(&m, &none, "{\"processes\":[" WORKER(10, "Idle", 1000, 0) ","
                           WORKER(11, "Running", 1000, 3) "]}");
    assert_int_equal(remembered(&m, 10), 0);
    assert_int_equal(remembered(&m, 11), RD_SEEN_RUNNING);
    seen s = judge_since(&m, &at, "{\"processes\":[" WORKER(10, "Idle", 1000, 1) ","
                                  WORKER(11, "Running", 1000, 3) "]}");
    assert_int_equal(s.v[0], RD_ACCEPTED);
    assert_int_equal(s.v[1], RD_RUNNING);
    assert_int_equal(remembered(&m, 11), RD_SEEN_RUNNING); /* still running: kept */
    s = judge_since(&m, &at, "{\"processes\":[" WORKER(11, "Idle", 1000, 3) "]}");
    assert_int_equal(s.v[0], RD_ACCEPTED); /* the request we watched run */
    pidmap_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_request_when_requests_is_0_or_pid_is_missing),
        cmocka_unit_test(test_running_is_skipped_and_keeps_the_remembered_counter),
        cmocka_unit_test(test_idle_is_ascii_case_insensitive_without_trimming),
        cmocka_unit_test(test_repeat_counter_is_not_a_new_reading),
        cmocka_unit_test(test_lower_counter_is_a_recycled_pid),
        cmocka_unit_test(test_own_uri_is_a_byte_prefix_after_unescaping),
        cmocka_unit_test(test_short_below_50ms_invalid_duration),
        cmocka_unit_test(test_negative_or_unparsable_cpu_is_invalid),
        cmocka_unit_test(test_remembered_map_holds_only_this_round),
        cmocka_unit_test(test_pid_listed_twice_is_judged_against_the_map_before_the_round),
        cmocka_unit_test(test_the_first_round_primes_idle_workers),
        cmocka_unit_test(test_an_unseen_worker_counts_when_it_started_after_the_round_before),
        cmocka_unit_test(test_a_worker_seen_with_0_or_running_gives_its_next_request),
    };
    return cmocka_run_group_tests_name("readings", tests, NULL, NULL);
}
