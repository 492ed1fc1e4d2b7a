/* Section 19: a pool by its routes (analyzer/pipeline/routes.c), one test
 * per rule; the pipeline's route readings through the harness. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline_harness.h"
#include "predict.h"
#include "routes.h"
#include "whatif.h"

/* The route of uri with params (NULL: none), NUL-terminated in a static buffer. */
static const char *route(const char *uri, const rt_params *params)
{
    static char out[RT_MAX_BYTES + 1];
    static const rt_params none;
    size_t n = rt_route_of(uri, uri ? strlen(uri) : 0, params ? params : &none, out);
    out[n] = '\0';
    return out;
}

static rt_params params(int n, ...)
{
    rt_params p = {0};
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        p.name[i] = va_arg(ap, const char *);
        p.len[i] = strlen(p.name[i]);
    }
    p.n = (size_t)n;
    va_end(ap);
    return p;
}

/* 19.1: the script's path, never the query */
static void test_19_1_the_path_never_the_query(void **state)
{
    (void)state;
    assert_string_equal(route("/checkout.php?token=s3cr3t&id=7", NULL), "/checkout.php");
    assert_string_equal(route("/a.php#frag?x=1", NULL), "/a.php");
    assert_string_equal(route("/index.php", NULL), "/index.php");
}

/* 19.1: "-" for a URI missing, empty or not beginning with "/" */
static void test_19_1_dash_without_a_path(void **state)
{
    (void)state;
    assert_string_equal(route(NULL, NULL), "-");
    assert_string_equal(route("", NULL), "-");
    assert_string_equal(route("index.php", NULL), "-");
    assert_string_equal(route("?x=1", NULL), "-");
}

/* 19.1: each identifier segment folded to {id} */
static void test_19_1_ids_fold(void **state)
{
    (void)state;
    assert_string_equal(route("/order/12345/items", NULL), "/order/{id}/items");
    assert_string_equal(route("/u/3f2a9c1e-77b0-4d0e-9c2b-1a2b3c4d5e6f", NULL), "/u/{id}");
    assert_string_equal(route("/v2/cafebabe", NULL), "/v2/cafebabe"); /* no digit */
    assert_string_equal(route("/api/v2", NULL), "/api/v2");           /* not all digits */
    assert_string_equal(route("/a/abc1234/b", NULL), "/a/abc1234/b"); /* hex, a digit, 7 bytes */
    assert_string_equal(route("/a/abc12345/b", NULL), "/a/{id}/b");   /* 8 bytes */
    assert_string_equal(route("/a/ABCDEF-1/b", NULL), "/a/{id}/b");   /* upper-case hex, - */
    assert_string_equal(route("/a/ghijklm1/b", NULL), "/a/ghijklm1/b"); /* not hex */
    assert_string_equal(route("/7", NULL), "/{id}");
    assert_string_equal(route("/a//b/", NULL), "/a//b/"); /* empty segments stay */
    assert_string_equal(route("/2024/01/report.php", NULL), "/{id}/{id}/report.php");
}

/* 19.1: the parameters named, in their order: ?NAME=VALUE for the first
 * found, &NAME=VALUE after; the first item that begins with NAME=, bytes
 * not percent-decoded; VALUE cut at '#' and folded */
static void test_19_1_route_params(void **state)
{
    (void)state;
    rt_params p = params(1, "route");
    assert_string_equal(route("/index.php?route=product/product&product_id=42", &p),
                        "/index.php?route=product/product");
    assert_string_equal(route("/index.php?product_id=42", &p), "/index.php");
    assert_string_equal(route("/index.php?xroute=a&route=b&route=c", &p), "/index.php?route=b");
    assert_string_equal(route("/index.php?rout%65=a", &p), "/index.php");
    assert_string_equal(route("/index.php?route=order/9/info#x&y", &p),
                        "/index.php?route=order/{id}/info");
    assert_string_equal(route("/index.php?route=", &p), "/index.php?route=");
    assert_string_equal(route("/index.php?route", &p), "/index.php");
    rt_params two = params(2, "action", "tab");
    assert_string_equal(route("/wp-admin/admin-ajax.php?tab=2&action=heartbeat", &two),
                        "/wp-admin/admin-ajax.php?action=heartbeat&tab={id}");
    assert_string_equal(route("/wp-admin/admin-ajax.php?tab=x", &two),
                        "/wp-admin/admin-ajax.php?tab=x");
    assert_string_equal(route("/u/123?action=edit", &two), "/u/{id}?action=edit");
}

/* 19.1: a route is cut at 128 bytes, then each invalid UTF-8 byte is
 * U+FFFD (a cut inside a character too) */
static void test_19_1_the_128_byte_cut_then_utf8(void **state)
{
    (void)state;
    char uri[300];
    uri[0] = '/';
    memset(uri + 1, 'a', 200);
    uri[201] = '\0';
    assert_int_equal(strlen(route(uri, NULL)), RT_CUT);
    /* 126 a's and an e-acute (2 bytes) ending at 129: its first byte kept, invalid */
    memset(uri + 1, 'a', 126);
    strcpy(uri + 127, "\xC3\xA9zz");
    const char *r = route(uri, NULL);
    assert_int_equal(strlen(r), 127 + 3);
    assert_memory_equal(r + 127, "\xEF\xBF\xBD", 3);
    assert_string_equal(route("/a\xFF\xFE.php", NULL), "/a\xEF\xBF\xBD\xEF\xBF\xBD.php");
    assert_string_equal(route("/caf\xC3\xA9.php", NULL), "/caf\xC3\xA9.php");
    /* the cut after the parameters are appended */
    rt_params p = params(1, "q");
    memset(uri + 1, 'b', 120);
    strcpy(uri + 121, "?q=123456789");
    assert_string_equal(route(uri, &p) + 121, "?q={id}");
    strcpy(uri + 121, "?q=zzzzzzzzzzzz");
    assert_int_equal(strlen(route(uri, &p)), RT_CUT);
}

/* 19.2: n, W and C per route, s and d capped as section 10 caps them; M
 * the largest memory */
static void test_19_2_the_sums_per_route(void **state)
{
    (void)state;
    rt_table t = {0};
    unsigned s1, s2;
    assert_int_equal(rt_add(&t, "/a", 2, 5000, 100, 1000, &s1), 0);
    assert_int_equal(rt_add(&t, "/a", 2, 3000, 300, 4000, &s2), 0);
    assert_int_equal(s1, s2);
    assert_int_equal(t.r[s1].n, 2);
    assert_int_equal(t.r[s1].w, 400);
    assert_int_equal(t.r[s1].c, 5000 * 100 + 3000 * 300);
    assert_int_equal(t.r[s1].mem_max, 4000);
    assert_int_equal(rt_add(&t, "/b", 2, 5000000, 2000000000000LL, -1, &s2), 0);
    assert_int_equal(t.r[s2].c, (uint64_t)1000000 * 1000000000);
    assert_int_equal(t.r[s2].mem_max, -1);
    assert_int_equal(t.total, 3);
    rt_free(&t);
}

/* 19.2: past 4096 readings every route's n, W and C halve, M does not; a
 * route left with 0 is forgotten, its slot free for another */
static void test_19_2_halving_forgets_empty_routes(void **state)
{
    (void)state;
    rt_table t = {0};
    unsigned a, b, c;
    assert_int_equal(rt_add(&t, "/once", 5, 100, 10, 777, &a), 0);
    for (int i = 0; i < 4095; i++)
        assert_int_equal(rt_add(&t, "/many", 5, 100, 10, 1, &b), 0);
    assert_int_equal(t.total, 4096);
    assert_int_equal(rt_add(&t, "/many", 5, 101, 11, 1, &b), 0); /* the 4097th */
    assert_int_equal(t.r[b].n, 2048);
    assert_int_equal(t.r[b].w, (4095 * 10 + 11) / 2);
    assert_int_equal(t.r[b].c, (4095 * 1000 + 101 * 11) / 2);
    assert_int_equal(t.r[b].mem_max, 1);
    assert_false(t.r[a].used); /* 1 / 2 = 0: forgotten */
    assert_true(t.any_gone && t.gone[a]);
    assert_int_equal(t.total, 2048);
    assert_int_equal(rt_find(&t, "/once", 5), RT_NONE);
    assert_int_equal(rt_add(&t, "/new", 4, 100, 10, -1, &c), 0);
    assert_int_equal(c, a); /* its place again */
    rt_free(&t);
}

/* 19.2: at most 200 routes; the rest under (other), kept beside them */
static void test_19_2_200_routes_and_other(void **state)
{
    (void)state;
    rt_table t = {0};
    char name[16];
    unsigned s;
    for (int i = 0; i < 200; i++) {
        int n = snprintf(name, sizeof name, "/r%d", i);
        assert_int_equal(rt_add(&t, name, (size_t)n, 100, 10, -1, &s), 0);
        assert_true(s < RT_MAX);
    }
    assert_int_equal(rt_add(&t, "/r200", 5, 100, 10, -1, &s), 0);
    assert_int_equal(s, RT_OTHER);
    assert_int_equal(rt_add(&t, "/r201", 5, 100, 20, -1, &s), 0);
    assert_int_equal(s, RT_OTHER);
    assert_int_equal(t.r[RT_OTHER].n, 2);
    assert_int_equal(rt_add(&t, "/r7", 3, 100, 10, -1, &s), 0);
    assert_int_equal(s, 7); /* a kept route still counts as itself */
    rt_fig *f;
    size_t n;
    assert_int_equal(rt_figures(&t, &f, &n), 0);
    assert_int_equal(n, 201);
    assert_true(f[n - 1].other);
    assert_string_equal(f[n - 1].name, "(other)");
    free(f);
    rt_free(&t);
}

/* 19.3: share of the pool's CPU, CPU per request, busy share, each two
 * decimals half away from zero; M null where none */
static void test_19_3_the_figures(void **state)
{
    (void)state;
    rt_table t = {0};
    unsigned s;
    rt_add(&t, "/a", 2, 10000, 100, -1, &s); /* C 10^6 */
    rt_add(&t, "/a", 2, 5000, 100, -1, &s);  /* C 1.5 x 10^6, W 200 */
    rt_add(&t, "/b", 2, 2001, 100, 5, &s);   /* C 200100, W 100 */
    rt_fig *f;
    size_t n;
    assert_int_equal(rt_figures(&t, &f, &n), 0);
    assert_int_equal(n, 2);
    assert_string_equal(f[0].name, "/a");
    assert_int_equal(f[0].cpu_share_h, 8823);   /* 1500000 / 1700100 = 88.2301% */
    assert_int_equal(f[1].cpu_share_h, 1177);   /* 11.7699% */
    assert_int_equal(f[0].cpu_ms_h, 7500);      /* 1.5 x 10^6 / 10000 / 2 = 75 ms */
    assert_int_equal(f[1].cpu_ms_h, 2001);      /* 20.01 ms */
    assert_int_equal(f[0].busy_h, 7500);        /* 75.00% */
    assert_int_equal(f[1].busy_h, 2001);
    assert_int_equal(f[0].mem_max, -1);
    assert_int_equal(f[1].mem_max, 5);
    assert_int_equal(f[0].p50_ms, -1);
    free(f);
    rt_free(&t);
    /* W = 0: no busy share; C = 0 for every route: no share */
    rt_add(&t, "/z", 2, 5000, 0, -1, &s);
    assert_int_equal(rt_figures(&t, &f, &n), 0);
    assert_int_equal(f[0].busy_h, -1);
    assert_int_equal(f[0].cpu_share_h, -1);
    assert_int_equal(f[0].cpu_ms_h, 0);
    free(f);
    rt_free(&t);
}

/* 19.4: C descending, then the route's bytes ascending, (other) last */
static void test_19_4_the_order(void **state)
{
    (void)state;
    rt_table t = {0};
    unsigned s;
    rt_add(&t, "/b", 2, 100, 10, -1, &s);
    rt_add(&t, "/a", 2, 100, 10, -1, &s);
    rt_add(&t, "/c", 2, 900, 10, -1, &s);
    rt_add(&t, "/ab", 3, 100, 10, -1, &s);
    rt_fig *f;
    size_t n;
    assert_int_equal(rt_figures(&t, &f, &n), 0);
    assert_int_equal(n, 4);
    assert_string_equal(f[0].name, "/c");
    assert_string_equal(f[1].name, "/a");
    assert_string_equal(f[2].name, "/ab");
    assert_string_equal(f[3].name, "/b");
    free(f);
    rt_free(&t);
}

/* A pool of 3 rounds x k workers per round, each worker idle with one new
 * request of uris[i % nuris] at cpu, duration us; round 0 primes. */
static pipeline *history(int rounds, const char *const *uris, size_t nuris, const char *cpu,
                         long long us, const rt_params *rp)
{
    pipeline *pl = pipeline_new(&(pl_options){.route_params = rp});
    th_host(pl, "h", 4, "b", 0);
    th_pool(pl, "p", 8, "/status");
    for (int r = 0; r < rounds; r++) {
        th_round *x = th_round_at(30.0 * r, 1000ULL * r);
        tworker w[8];
        for (int i = 0; i < 8; i++)
            w[i] = (tworker){100 + i, "Idle", r + 1, us, uris[(size_t)(r * 8 + i) % nuris], cpu};
        th_status(x, "p", 0, w, 8);
        th_run(pl, x);
    }
    return pl;
}

/* 19.2: short requests are route readings (rule 5 is not applied); rule 6
 * and a negative duration are not */
static void test_19_2_short_ones_included(void **state)
{
    (void)state;
    static const char *const uris[] = {"/fast.php?x=1"};
    pipeline *pl = history(3, uris, 1, "50.00", 20000, NULL);
    pl_pool *p = th_find(pl, "h", "p");
    assert_int_equal(pl_hist(p)->total, 0);       /* no reading: all short */
    unsigned s = rt_find(&p->routes, "/fast.php", 9);
    assert_true(s != RT_NONE);
    assert_int_equal(p->routes.r[s].n, 16);        /* 2 rounds x 8 (round 0 primes) */
    assert_int_equal(p->routes.r[s].w, 16 * 20);
    assert_int_equal(p->routes.r[s].c, 16 * 5000 * 20);
    pipeline_free(pl);
    pl = history(3, uris, 1, "nan", 90000, NULL);
    p = th_find(pl, "h", "p");
    assert_int_equal(p->routes.total, 0);
    pipeline_free(pl);
    pl = history(3, uris, 1, "-5.00", 20000, NULL); /* short, and below 0: rule 6 */
    p = th_find(pl, "h", "p");
    assert_int_equal(p->routes.total, 0);
    pipeline_free(pl);
    pl = history(3, uris, 1, "50.00", -5, NULL);
    p = th_find(pl, "h", "p");
    assert_int_equal(p->routes.total, 0);
    pipeline_free(pl);
}

/* 19.2: a reading of a worker whose wait is known adds its own share and
 * duration (17.3): waited 1.2 times its CPU, 50% of 200 ms is 125% of 80 */
static void test_19_2_a_contended_reading_corrected(void **state)
{
    (void)state;
    pipeline *pl = pipeline_new(NULL);
    th_host(pl, "h", 4, "b", 0);
    th_pool(pl, "cpu", 8, "/status");
    for (int k = 0; k < 3; k++) {
        th_round *r = th_round_at(30.0 * k, 1000ULL * k);
        tworker w[] = {{100, "Idle", k + 1, 200000, "/buy.php", "50.00"}};
        th_status(r, "cpu", 0, w, 1);
        th_pids(r, "cpu", 1, 100LL, 10ULL * k);
        th_sched(r, "cpu", 1, 100LL, 100000000ULL * k, 120000000ULL * k);
        th_run(pl, r);
    }
    pl_pool *p = th_find(pl, "h", "cpu");
    unsigned s = rt_find(&p->routes, "/buy.php", 8);
    assert_int_equal(p->routes.r[s].n, 2);
    assert_int_equal(p->routes.r[s].w, 160);
    assert_int_equal(p->routes.r[s].c, 2 * 12500 * 80);
    pipeline_free(pl);
}

/* 19.3: p50 and p95 of the route's kept readings (18.1), null under 20;
 * p95 at the advice from k(advice) of 18.2 */
static void test_19_3_percentiles_of_the_kept_readings(void **state)
{
    (void)state;
    pr_keep k = {0};
    for (int i = 1; i <= 19; i++)
        pr_add_route(&k, 10 * i, 5000, 0, 3);
    pr_add_route(&k, 999, 5000, 0, 4);
    int64_t p50, p95;
    assert_int_equal(pr_route(&k, 3, 1.0, &p50, &p95), -1); /* 19 */
    pr_add_route(&k, 200, 5000, 0, 3);
    assert_int_equal(pr_route(&k, 3, 1.0, &p50, &p95), 0);
    assert_int_equal(p50, 100); /* rank 10 of 10..200 */
    assert_int_equal(p95, 190); /* rank 19 */
    /* stretched: half of each is CPU, k = 2: t = 1.5 d */
    assert_int_equal(pr_route(&k, 3, 2.0, &p50, &p95), 0);
    assert_int_equal(p50, 150);
    assert_int_equal(p95, 285);
    /* a route forgotten: its kept readings lose it */
    unsigned char gone[256] = {0};
    gone[3] = 1;
    pr_forget_routes(&k, gone);
    assert_int_equal(pr_route(&k, 3, 1.0, &p50, &p95), -1);
    pr_free(&k);
}

/* 19.3 through the pipeline: routes of 20 readings and more get p50 and
 * p95; the JSON's routes in order */
static void test_19_4_json_routes(void **state)
{
    (void)state;
    static const char *const uris[] = {"/a.php", "/a.php", "/a.php", "/b.php?id=1"};
    pipeline *pl = history(5, uris, 4, "60.00", 100000, NULL);
    pl_pool *p = th_find(pl, "h", "p");
    pl_host *h = th_find_host(pl, "h");
    wi_scenario sc = {.headroom = 200};
    wi_view *v = whatif_views(h, &sc);
    rt_fig *f;
    size_t n;
    assert_int_equal(whatif_routes(p, &v[0], &f, &n), 0);
    assert_int_equal(n, 2);
    assert_string_equal(f[0].name, "/a.php");
    assert_int_equal(f[0].readings, 24);
    assert_int_equal(f[0].p50_ms, 100);
    assert_int_equal(f[0].cpu_share_h, 7500);
    assert_string_equal(f[1].name, "/b.php");
    assert_int_equal(f[1].readings, 8);
    assert_int_equal(f[1].p50_ms, -1); /* 8 kept readings */
    free(f);
    whatif_views_free(v, (h)->npools);
    pipeline_free(pl);
}

/* 19.2 and 18.1: a route a halving forgets leaves the kept readings, so
 * that the route that takes its slot next is not given them */
static void test_19_2_a_forgotten_route_leaves_the_kept_readings(void **state)
{
    (void)state;
    pipeline *pl = pipeline_new(NULL);
    th_host(pl, "h", 4, "b", 0);
    th_pool(pl, "p", 8, "/status");
    for (int r = 0; r < 516; r++) {
        th_round *x = th_round_at(30.0 * r, 1000ULL * r);
        tworker w[8];
        for (int i = 0; i < 8; i++) /* round 1: one of 5 s at /once; then 4096 short ones */
            w[i] = r == 1 && i == 0 ? (tworker){100, "Idle", r + 1, 5000000, "/once", "50.00"}
                                    : (tworker){100 + i, "Idle", r + 1, 20000, "/s", "50.00"};
        th_status(x, "p", 0, w, 8);
        th_run(pl, x);
    }
    pl_pool *p = th_find(pl, "h", "p");
    assert_int_equal(rt_find(&p->routes, "/once", 5), RT_NONE); /* halved to 0: forgotten */
    assert_int_equal(p->keep.n, 1);
    assert_int_equal(p->keep.r[0].d_ms, 5000);
    assert_int_equal(p->keep.r[0].route, PR_NO_ROUTE);
    pipeline_free(pl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_19_1_the_path_never_the_query),
        cmocka_unit_test(test_19_1_dash_without_a_path),
        cmocka_unit_test(test_19_1_ids_fold),
        cmocka_unit_test(test_19_1_route_params),
        cmocka_unit_test(test_19_1_the_128_byte_cut_then_utf8),
        cmocka_unit_test(test_19_2_the_sums_per_route),
        cmocka_unit_test(test_19_2_halving_forgets_empty_routes),
        cmocka_unit_test(test_19_2_200_routes_and_other),
        cmocka_unit_test(test_19_2_short_ones_included),
        cmocka_unit_test(test_19_2_a_contended_reading_corrected),
        cmocka_unit_test(test_19_2_a_forgotten_route_leaves_the_kept_readings),
        cmocka_unit_test(test_19_3_the_figures),
        cmocka_unit_test(test_19_3_percentiles_of_the_kept_readings),
        cmocka_unit_test(test_19_4_the_order),
        cmocka_unit_test(test_19_4_json_routes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
