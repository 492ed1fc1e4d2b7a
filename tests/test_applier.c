/* The applier: the pipeline's records applied on threads of their own, in
 * order, answering at once what the pipeline would refuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "applier.h"
#include "pipeline_harness.h"

static const char HOST[] = "format=1\nrecorder=t 0\nhostname=web1\nboot_id=b\nkernel=6.1\nnproc=2\n"
                           "clk_tck=100\ninterval_ms=30000\ncpu_quota_millicores=0\ncgroup=-\n";
static const char POOL[] = "name=shop\nendpoint=unix:/x\nstatus_path=/status\npm=static\n"
                           "max_children=4\n";

/* A round at t s whose one pool, shop, could not be read: its payloads in
 * a blob of their own, as the applier wants them. */
static int round_at(applier *a, int t, unsigned char **blob, size_t *cap)
{
    buf st = {0};
    stat_text(&st, 1000 + (unsigned long long)t * 100, 100000);
    static const char why[] = "cannot connect";
    size_t need = st.n + sizeof why;
    if (*cap < need) {
        *blob = realloc(*blob, need);
        *cap = need;
    }
    memcpy(*blob, st.p, st.n);
    memcpy(*blob + st.n, why, sizeof why);
    pl_pool_round pr = pl_pool_round_of("shop", 4, *blob + st.n, sizeof why - 1, 1, NULL, 0);
    pl_round r = {.real = 1800000000ull * NS + (uint64_t)t * NS, .stat_mono = (uint64_t)t * NS,
                  .rec[PL_REC_STAT] = {1, *blob, st.n}, .pools = &pr, .npools = 1};
    buf_free(&st);
    return applier_round(a, &r, blob, cap);
}

static void test_before_a_host_nothing_is_queued(void **state)
{
    (void)state;
    pipeline *pl = pipeline_new(NULL);
    applier *a = applier_new(pl, 1);
    assert_non_null(a);
    unsigned char *blob = NULL;
    size_t cap = 0;
    assert_int_equal(applier_pool(a, "shop", 4, (const unsigned char *)POOL, strlen(POOL)), -1);
    assert_int_equal(round_at(a, 0, &blob, &cap), -1);
    static const char unnamed[] = "format=1\nboot_id=b\n";
    assert_int_equal(applier_host(a, (const unsigned char *)unnamed, strlen(unnamed)), -1);
    assert_int_equal(applier_drain(a), 0);
    pl_host *const *hs;
    assert_int_equal(pipeline_hosts(pl, &hs), 0);
    applier_free(a);
    free(blob);
    pipeline_free(pl);
}

static void test_records_are_applied_in_the_order_handed_over(void **state)
{
    (void)state;
    pipeline *pl = pipeline_new(NULL);
    applier *a = applier_new(pl, 2);
    unsigned char *blob = NULL;
    size_t cap = 0;
    assert_int_equal(applier_host(a, (const unsigned char *)HOST, strlen(HOST)), 0);
    assert_int_equal(applier_pool(a, "shop", 4, (const unsigned char *)POOL, strlen(POOL)), 0);
    for (int t = 0; t < 300; t += 30)
        assert_int_equal(round_at(a, t, &blob, &cap), 0);
    assert_int_equal(applier_drain(a), 0);
    pl_host *h = th_find_host(pl, "web1");
    assert_non_null(h);
    assert_int_equal(h->rounds, 10);
    assert_int_equal(h->pairs_usable, 9);
    pl_pool *p = th_find(pl, "web1", "shop");
    assert_non_null(p);
    assert_int_equal(p->error_rounds, 10);
    assert_int_equal(p->max_children, 4);
    applier_free(a);
    free(blob);
    pipeline_free(pl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_before_a_host_nothing_is_queued),
        cmocka_unit_test(test_records_are_applied_in_the_order_handed_over),
    };
    return cmocka_run_group_tests_name("applier", tests, NULL, NULL);
}
