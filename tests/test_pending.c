/* pending: a round's records gathered until its ROUND, by the rows of
 * PL_POOL_RECORDS (fpmlog(5), "Rounds"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "pending.h"

/* A record of type name for pool (NULL: SOURCE "-") with payload text. */
static void gather(pending *p, const char *type, const char *pool, const char *text)
{
    fpmlog_record rec = {.type = type, .source = pool ? pool : "",
                         .source_len = pool ? strlen(pool) : 0, .has_source = pool != NULL,
                         .payload = (const unsigned char *)text, .len = strlen(text)};
    assert_int_equal(pend_gather(p, rec_kind_of(type), &rec), 0);
}

static const pl_pool_round *pool_of(const pl_round *r, const char *name)
{
    for (size_t i = 0; i < r->npools; i++)
        if (r->pools[i].name_len == strlen(name) && memcmp(r->pools[i].name, name, strlen(name)) == 0)
            return &r->pools[i];
    fail_msg("no pool %s in the round", name);
    return NULL;
}

#define assert_bytes(p, len, want)                        \
    do {                                                  \
        assert_int_equal((len), strlen(want));            \
        assert_memory_equal((p), (want), strlen(want));   \
    } while (0)

/* Rounds: a damaged ROUND merges two rounds; where a kind appears twice the
 * later one stands, but a pool's ACCESS records are all kept, in file order
 * (what its access log gained in each round, not a snapshot). */
static void test_merged_rounds_keep_every_access_record(void **state)
{
    (void)state;
    pending p = {0};
    gather(&p, "STATUS", "a", "{page 1}");
    gather(&p, "PIDS", "a", "pids 1\n");
    gather(&p, "ACCESS", "a", "GET /one\n");
    gather(&p, "ACCESS", "b", "");
    /* the ROUND between them was damaged: the next round's records follow */
    gather(&p, "ERROR", "a", "connect: refused");
    gather(&p, "PIDS", "a", "pids 2\n");
    gather(&p, "ACCESS", "a", "GET /two\nPOST /three\n");
    gather(&p, "ACCESS", "b", "GET /b\n");
    gather(&p, "ACCESS", "a", "");
    pl_round r = pend_round(&p, 7, 70);
    assert_int_equal(r.npools, 2);
    const pl_pool_round *a = pool_of(&r, "a"), *b = pool_of(&r, "b");
    assert_true(a->has_status && a->is_error);
    assert_bytes(a->status, a->status_len, "connect: refused");
    assert_bytes(a->pids, a->pids_len, "pids 2\n");
    assert_true(a->has_access);
    assert_bytes(a->access, a->access_len, "GET /one\nGET /two\nPOST /three\n");
    assert_true(b->has_access && !b->has_status && !b->has_pids);
    assert_bytes(b->access, b->access_len, "GET /b\n");
    assert_false(a->has_listen || a->has_sched || a->has_statm || a->has_statm0);
    pend_drop(&p);
    gather(&p, "STATUS", "a", "{page 3}");
    r = pend_round(&p, 8, 80);
    a = pool_of(&r, "a");
    assert_false(a->has_access || a->is_error); /* a round without ACCESS has none */
    assert_bytes(a->status, a->status_len, "{page 3}");
    pend_free(&p);
}

/* A pool's kinds no rule reads, and pool records without a pool, are not
 * gathered; the host's are, by their kind. */
static void test_only_the_rows_are_gathered(void **state)
{
    (void)state;
    pending p = {0};
    gather(&p, "NOTE", "a", "a note");
    gather(&p, "ACCESS", NULL, "GET /x\n");
    assert_int_equal(p.any, 0);
    gather(&p, "STAT", NULL, "cpu  1 2 3 4\n");
    pl_round r = pend_round(&p, 9, 90);
    assert_int_equal(r.npools, 0);
    assert_true(r.rec[PL_REC_STAT].has);
    pend_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merged_rounds_keep_every_access_record),
        cmocka_unit_test(test_only_the_rows_are_gathered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
