/* Section 20: every request from php-fpm's access log (docs/rules.md
 * 20.3-20.7), one test per rule, through the pipeline harness: the
 * figures below are derived by hand from the lines each test writes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "census.h"
#include "pipeline_harness.h"
#include "predict.h"
#include "routes.h"
#include "whatif.h"

/* 20.7's format, the one the README tells operators to add */
#define FMT "%t %p %m %{REQUEST_URI}e %s %{mili}d %{kilo}M %C%%"
#define T "07/Dec/2026:00:14:45 +0000"

static pipeline *one_pool(const char *format)
{
    pipeline *pl = pipeline_new(NULL);
    th_host(pl, "h", 4, "b", 0);
    th_pool_access(pl, "a", 8, "/var/log/php/a.log", format);
    return pl;
}

static unsigned slot_of(const pl_pool *p, const char *route)
{
    unsigned s = rt_find(&p->routes, route, strlen(route));
    if (s == RT_NONE)
        fail_msg("no route %s", route);
    return s;
}

/* 20.3, 20.4, 20.6: censused from its first round with ACCESS: what its
 * page gave before stays (in microseconds), its page gives no more, each
 * line is a request and, 50 ms or more, a reading; a censused round
 * without ACCESS gives none and is counted */
static void test_20_3_censused_from_its_first_round_with_access(void **state)
{
    (void)state;
    pipeline *pl = one_pool(FMT);
    for (int k = 0; k < 5; k++) {
        th_round *r = th_round_at(30.0 * k, 1000ULL * k);
        tworker w[] = {{100, "Idle", k + 1, 200000, "/x", "50.00"}};
        th_status(r, "a", 0, w, 1);
        if (k == 2)
            th_access(r, "a", T " 101 GET /product/42 200 164.025 2048 50.00%\n"
                              T " 102 POST /cart 200 80.000 1024 25.00%\n"
                              T " 103 GET /product/7 200 20.000 512 10.00%\n");
        if (k == 4)
            th_access(r, "a", T " 104 GET /product/9 200 100.000 4096 40.00%\n");
        th_run(pl, r);
    }
    pl_pool *p = th_find(pl, "h", "a");
    assert_true(p->censused);
    /* round 0 primes, round 1's page gives one reading (200 ms at 50%);
     * then the lines: 164.025 and 80 ms, 20 ms short, 100 ms */
    assert_int_equal(p->h.total, 4);
    assert_int_equal(p->h.busy_w, 200000 + 164025 + 80000 + 100000);
    assert_int_equal(p->h.busy_c, 5000ull * 200000 + 5000ull * 164025 + 2500ull * 80000 +
                                      4000ull * 100000);
    assert_int_equal(p->requests, 4);
    assert_int_equal(p->filtered[RD_SHORT], 1);
    assert_int_equal(p->filtered[RD_REPEAT] + p->filtered[RD_OWN] + p->filtered[RD_INVALID], 0);
    assert_int_equal(p->rounds_without_access, 1); /* round 3 */
    assert_int_equal(p->access_lines, 4);
    assert_int_equal(p->keep.n, 3); /* the lines that entered the sums, not the page's */
    assert_int_equal(p->times.n, 4); /* every line reading, the short one too */
    unsigned prod = slot_of(p, "GET /product/{id}"), cart = slot_of(p, "POST /cart");
    assert_int_equal(p->routes.r[prod].requests, 3);
    assert_int_equal(p->routes.r[prod].n, 3);
    assert_int_equal(p->routes.r[prod].w, 164025 + 20000 + 100000);
    assert_int_equal(p->routes.r[prod].mem_max, 4096 * 1024);
    assert_int_equal(p->routes.r[cart].requests, 1);
    assert_int_equal(p->routes.r[slot_of(p, "/x")].w, 200000); /* the page's, in us */
    assert_int_equal(p->routes.r[slot_of(p, "/x")].requests, 0);
    /* requests_per_s: round 4's one request over the 60 s since round 2
     * (the first of its run counts no request) */
    assert_int_equal(p->rate_requests, 1);
    assert_int_equal(p->rate_ns, 60 * NS);
    assert_int_equal(whatif_rate_hundredths(p->rate_requests, p->rate_ns), 2); /* 0.0167 */
    pipeline_free(pl);
}

/* 20.4: each line's skip reason, counted on its pool */
static void test_20_4_each_skip_reason(void **state)
{
    (void)state;
    pipeline *pl = one_pool(FMT);
    th_round *r = th_round_at(0, 0);
    th_access(r, "a", "not a line of this format\n"
                      T " 0 GET /a 200 100.000 1 50.00%\n"         /* pid 0 */
                      T " 7 GET /a 200 100.000 1 nan%\n"           /* rule 6 */
                      T " 7 GET /a 200 100.000 1 -0.01%\n"         /* below 0 */
                      T " 7 GET /a 200 164.0251 1 50.00%\n"        /* 4 decimals */
                      T " 7 GET /cbox-phpfpm-opcache-x 200 100.000 1 50.00%\n" /* own */
                      T " 7 GET /a 200 49.999 1 50.00%\n"          /* short */
                      T " 7 GET /a 200 50.000 1 50.00%\n");        /* a reading */
    th_run(pl, r);
    pl_pool *p = th_find(pl, "h", "a");
    assert_int_equal(p->access_lines, 8);
    assert_int_equal(p->access_unparsable, 1);
    assert_int_equal(p->filtered[RD_INVALID], 4);
    assert_int_equal(p->filtered[RD_OWN], 1);
    assert_int_equal(p->filtered[RD_SHORT], 1);
    assert_int_equal(p->requests, 2);
    assert_int_equal(p->h.total, 1);
    assert_int_equal(p->h.busy_w, 50000);
    pipeline_free(pl);
}

/* 20.5: the method before the route, the cut on the whole; a line without
 * a URI is "-", without a method (or not A-Z) the route alone */
static void test_20_5_the_method_and_the_route(void **state)
{
    (void)state;
    pipeline *pl = one_pool(FMT);
    th_round *r = th_round_at(0, 0);
    th_access(r, "a", T " 7 GET /order/12345/items?tok=9 200 60.000 1 50.00%\n"
                      T " 7 get /order/1 200 60.000 1 50.00%\n"
                      T " 7 DELETE - 200 60.000 1 50.00%\n");
    th_run(pl, r);
    pl_pool *p = th_find(pl, "h", "a");
    assert_int_equal(p->routes.r[slot_of(p, "GET /order/{id}/items")].requests, 1);
    assert_int_equal(p->routes.r[slot_of(p, "/order/{id}")].requests, 1);
    assert_int_equal(p->routes.r[slot_of(p, "-")].requests, 1);
    pipeline_free(pl);
    char out[RT_MAX_BYTES];
    char uri[300] = "/";
    memset(uri + 1, 'x', 200);
    uri[201] = '\0';
    size_t n = rt_route_of_method("PATCH", 5, uri, strlen(uri), &(rt_params){0}, out);
    assert_int_equal(n, RT_CUT); /* "PATCH /xxx...", 128 bytes in all */
    assert_memory_equal(out, "PATCH /xx", 9);
}

/* 20.3: lines of a file two pools share, written once under the first:
 * %n gives each line its pool; a %n naming no pool with an ACCESS record
 * in the round (none, or one of another file) is other_pool */
static void test_20_3_a_shared_file_by_n(void **state)
{
    (void)state;
    pipeline *pl = pipeline_new(NULL);
    th_host(pl, "h", 4, "b", 0);
    const char *f = "%n %p %m %{REQUEST_URI}e %{mili}d %C%%";
    th_pool_access(pl, "a", 8, "/var/log/php/shared.log", f);
    th_pool_access(pl, "b", 8, "/var/log/php/shared.log", f);
    th_pool_access(pl, "c", 8, "/var/log/php/c.log", f);
    th_round *r = th_round_at(0, 0);
    th_access(r, "a", "a 1 GET /x 100.000 50.00%\nb 2 GET /y 100.000 50.00%\n"
                      "zz 3 GET /z 100.000 50.00%\nc 4 GET /w 100.000 50.00%\n"
                      "b 0 GET /y 100.000 50.00%\n");
    tworker w[] = {{9, "Idle", 1, 200000, "/c", "50.00"}};
    th_status(r, "b", 0, w, 1); /* every pool has its page (or ERROR) in a round */
    th_status(r, "c", 0, w, 1);
    th_run(pl, r);
    pl_pool *a = th_find(pl, "h", "a"), *b = th_find(pl, "h", "b"), *c = th_find(pl, "h", "c");
    assert_true(a->censused && b->censused && !c->censused);
    assert_int_equal(a->requests, 1);
    assert_int_equal(b->requests, 1);
    assert_int_equal(b->filtered[RD_INVALID], 1); /* its line with pid 0: b's */
    assert_int_equal(a->access_lines, 5);
    assert_int_equal(a->access_other_pool, 2);
    assert_int_equal(b->access_lines, 0);
    assert_true(b->has_access && !c->has_access);
    assert_int_equal(c->requests, 0);
    pipeline_free(pl);
}

/* 20.2, 20.3: a format without %C is unusable: the pool reads its pages
 * as before, and says why */
static void test_20_3_an_unusable_format_reads_the_pages(void **state)
{
    (void)state;
    pipeline *pl = one_pool("%t %p %{mili}d");
    for (int k = 0; k < 3; k++) {
        th_round *r = th_round_at(30.0 * k, 1000ULL * k);
        tworker w[] = {{100, "Idle", k + 1, 200000, "/x", "50.00"}};
        th_status(r, "a", 0, w, 1);
        th_access(r, "a", T " 7 100.000\n");
        th_run(pl, r);
    }
    pl_pool *p = th_find(pl, "h", "a");
    assert_false(p->censused);
    assert_true(p->has_access);
    assert_int_equal(p->h.total, 2);
    assert_int_equal(p->access_lines, 3);
    assert_int_equal(p->access_unparsable, 0); /* not read */
    assert_string_equal(p->fmt.reason, "unusable: no %C");
    pipeline_free(pl);
}

/* 20.4: a line's wait by its pid among the round's PIDS; a pid not among
 * them (a worker that exited) takes the pool's, summed over the workers
 * whose wait is known: here worker 100's, which waited 1.2 times its CPU,
 * so 50% of 200 ms is 125% of 80 ms (17.3) */
static void test_20_4_a_lines_wait_by_its_pid_and_by_the_pools(void **state)
{
    (void)state;
    pipeline *pl = one_pool(FMT);
    for (int k = 0; k < 3; k++) {
        th_round *r = th_round_at(30.0 * k, 1000ULL * k);
        th_pids(r, "a", 2, 100LL, 10ULL * k, 101LL, 10ULL * k);
        th_sched(r, "a", 1, 100LL, 100000000ULL * k, 120000000ULL * k);
        if (k == 2)
            th_access(r, "a", T " 100 GET /by-pid 200 200.000 1 50.00%\n"
                              T " 999 GET /by-pool 200 200.000 1 50.00%\n"
                              T " 101 GET /unknown 200 200.000 1 50.00%\n");
        th_run(pl, r);
    }
    pl_pool *p = th_find(pl, "h", "a");
    const rt_route *pid = &p->routes.r[slot_of(p, "GET /by-pid")],
                   *pool = &p->routes.r[slot_of(p, "GET /by-pool")],
                   *unknown = &p->routes.r[slot_of(p, "GET /unknown")];
    assert_int_equal(pid->w, 80000);
    assert_int_equal(pid->c, 12500ull * 80000);
    assert_int_equal(pool->w, 80000);
    assert_int_equal(pool->c, 12500ull * 80000);
    assert_int_equal(unknown->w, 200000); /* in PIDS, no SCHED: not known */
    assert_int_equal(p->corrected_readings, 2);
    pipeline_free(pl);
}

/* 20.6: requests_per_s over the rounds with ACCESS, each run's first
 * counting no request: 2 requests over 30 s, then a new recorder, 3 over
 * 10 s: 5 / 40 = 0.125, 0.13 */
static void test_20_6_requests_per_s_by_the_runs(void **state)
{
    (void)state;
    pipeline *pl = one_pool(FMT);
    static const double at[] = {0, 30, 100, 110};
    static const int lines[] = {4, 2, 7, 3};
    for (int k = 0; k < 4; k++) {
        if (k == 2) {
            th_host(pl, "h", 4, "b", 0);
            th_pool_access(pl, "a", 8, "/var/log/php/a.log", FMT);
        }
        th_round *r = th_round_at(at[k], 1000ULL * k);
        for (int i = 0; i < lines[k]; i++)
            th_access(r, "a", T " 7 GET /x 200 60.000 1 50.00%\n");
        th_run(pl, r);
    }
    pl_pool *p = th_find(pl, "h", "a");
    assert_int_equal(p->requests, 16);
    assert_int_equal(p->rate_requests, 5);
    assert_int_equal(p->rate_ns, 40 * NS);
    assert_int_equal(whatif_rate_hundredths(p->rate_requests, p->rate_ns), 13);
    assert_int_equal(p->routes.r[slot_of(p, "GET /x")].rate_requests, 5);
    assert_int_equal(whatif_rate_hundredths(0, 0), -1);
    pipeline_free(pl);
}

/* 20.6: measured p50 and p95 of the time sample (every line reading, the
 * short ones too, at its recorded duration), null under 20 */
static void test_20_6_measured_from_the_time_sample(void **state)
{
    (void)state;
    pipeline *pl = one_pool(FMT);
    th_round *r = th_round_at(0, 0);
    for (int i = 1; i <= 20; i++) {
        char line[200];
        snprintf(line, sizeof line, T " 7 GET /t 200 %d.900 1 50.00%%\n", 10 * i);
        th_access(r, "a", line);
    }
    th_run(pl, r);
    pl_pool *p = th_find(pl, "h", "a");
    int64_t p50, p95;
    assert_int_equal(pr_measured(&p->times, PR_ALL_ROUTES, &p50, &p95), 0);
    assert_int_equal(p50, 100); /* rank 10 of 10..200 (floored) */
    assert_int_equal(p95, 190);
    assert_int_equal(pr_measured(&p->times, slot_of(p, "GET /t"), &p50, &p95), 0);
    assert_int_equal(pr_measured(&p->keep, PR_ALL_ROUTES, &p50, &p95), -1); /* 16 of 50 ms+ */
    pl_host *h = th_find_host(pl, "h");
    wi_scenario sc = {.headroom = 200};
    wi_view *v = whatif_views(h, &sc);
    assert_true(v[0].has_measured);
    assert_int_equal(v[0].measured_p50, 100);
    assert_int_equal(v[0].measured_p95, 190);
    assert_int_equal(v[0].routes[0].p50_ms, 100); /* the route's: measured too */
    assert_int_equal(v[0].routes[0].p95_ms, 190);
    whatif_views_free(v, h->npools);
    pipeline_free(pl);
}

/* 20.6: the histogram and the routes of a censused pool halve at 2^20
 * readings, not 4096; requests are never halved */
static void test_20_6_halving_at_2_20_and_requests_never(void **state)
{
    (void)state;
    pipeline *pl = one_pool(FMT);
    th_round *r = th_round_at(0, 0);
    buf b = {0};
    for (int i = 0; i < 5000; i++)
        buf_add(&b, T " 7 GET /x 200 60.000 1 50.00%\n", strlen(T) + 30);
    th_access(r, "a", b.p);
    buf_free(&b);
    th_run(pl, r);
    pl_pool *p = th_find(pl, "h", "a");
    assert_int_equal(p->h.total, 5000);
    assert_int_equal(p->routes.total, 5000);
    assert_int_equal(p->requests, 5000);
    pipeline_free(pl);
    hist h = {.us = 1};
    for (uint32_t i = 0; i <= HIST_LIMIT_CENSUS; i++)
        hist_add(&h, 5000, 60000);
    assert_int_equal(h.total, (HIST_LIMIT_CENSUS + 1) / 2);
    rt_table t = {.us = 1};
    unsigned s;
    for (uint32_t i = 0; i <= RT_LIMIT_CENSUS; i++) {
        assert_int_equal(rt_add(&t, "/x", 2, 5000, 60000, -1, &s), 0);
        rt_request(&t, s, 1);
    }
    assert_int_equal(t.r[s].n, (RT_LIMIT_CENSUS + 1) / 2);
    assert_int_equal(t.r[s].requests, RT_LIMIT_CENSUS + 1);
    rt_free(&t);
}

/* 20.6: a censused pool's figures read the sums in microseconds: 17.6's
 * CPU per request C / 10000 / n / 1000 */
static void test_20_6_cpu_per_request_in_microseconds(void **state)
{
    (void)state;
    pipeline *pl = one_pool(FMT);
    th_round *r = th_round_at(0, 0);
    for (int i = 0; i < 20; i++) /* 2.1 ms of CPU each: 3% of 70 ms */
        th_access(r, "a", T " 7 GET /x 200 70.000 1 3.00%\n");
    th_run(pl, r);
    pl_host *h = th_find_host(pl, "h");
    wi_scenario sc = {.headroom = 200};
    wi_view *v = whatif_views(h, &sc);
    assert_true(v[0].has_cpu_ms);
    assert_int_equal(v[0].cpu_ms_hundredths, 210);
    assert_true(v[0].censused);
    assert_int_equal(v[0].requests, 20);
    assert_true(v[0].has_measured);
    assert_int_equal(v[0].measured_p50, 70);
    assert_int_equal(v[0].routes[0].cpu_ms_h, 210);
    assert_int_equal(v[0].routes[0].p50_ms, 70);
    assert_true(v[0].routes[0].censused);
    whatif_views_free(v, h->npools);
    pipeline_free(pl);
}

int main(void)
{
    msg_init("test");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_20_3_censused_from_its_first_round_with_access),
        cmocka_unit_test(test_20_4_each_skip_reason),
        cmocka_unit_test(test_20_5_the_method_and_the_route),
        cmocka_unit_test(test_20_3_a_shared_file_by_n),
        cmocka_unit_test(test_20_3_an_unusable_format_reads_the_pages),
        cmocka_unit_test(test_20_4_a_lines_wait_by_its_pid_and_by_the_pools),
        cmocka_unit_test(test_20_6_requests_per_s_by_the_runs),
        cmocka_unit_test(test_20_6_measured_from_the_time_sample),
        cmocka_unit_test(test_20_6_halving_at_2_20_and_requests_never),
        cmocka_unit_test(test_20_6_cpu_per_request_in_microseconds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
