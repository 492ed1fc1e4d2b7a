/* Which pids are a pool's workers: the process table and the page in. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "workers.h"

/* A table of (pid, ppid, pool) as ps_scan leaves it, its pid index made. */
static ps_table table(const ps_worker *w, size_t n)
{
    ps_table t = {0};
    t.w = malloc(n * sizeof *t.w);
    memcpy(t.w, w, n * sizeof *w);
    t.n = t.cap = n;
    t.any_fpm = 1;
    assert_int_equal(ps_table_index(&t), 0);
    return t;
}

static status_page page_of(const long long *pids, size_t n)
{
    status_page pg = {0};
    pg.workers = calloc(n ? n : 1, sizeof *pg.workers);
    pg.nworkers = n;
    for (size_t i = 0; i < n; i++) {
        pg.workers[i].has_pid = 1;
        pg.workers[i].pid = pids[i];
    }
    return pg;
}

/* two masters (10 and 20) each with a pool "www"; 10 also has "api" */
static const ps_worker WORLD[] = {
    {21, 20, "www"}, {11, 10, "www"}, {12, 10, "www"}, {13, 10, "api"}, {22, 20, "www"},
};

static void test_the_pages_workers_name_their_master(void **state)
{
    (void)state;
    ps_table t = table(WORLD, 5);
    static const long long mine[] = {22, 21};
    status_page pg = page_of(mine, 2);
    pid_t master = 0, *pids;
    char why[200];
    assert_int_equal(workers_of_pool(&t, "www", &pg, 0, &master, &pids, why, sizeof why), 2);
    assert_int_equal(master, 20);
    assert_int_equal(pids[0], 21); /* in the table's order */
    assert_int_equal(pids[1], 22);
    free(pids);
    /* no page: the master found before */
    assert_int_equal(workers_of_pool(&t, "www", NULL, 0, &master, &pids, why, sizeof why), 2);
    assert_int_equal(pids[0], 21);
    free(pids);
    /* no page, no master known, two masters with a www: cannot tell */
    master = 0;
    assert_int_equal(workers_of_pool(&t, "www", NULL, 0, &master, &pids, why, sizeof why), -1);
    assert_non_null(strstr(why, "several php-fpm masters"));
    /* ... unless the pid file names one */
    assert_int_equal(workers_of_pool(&t, "www", NULL, 10, &master, &pids, why, sizeof why), 2);
    assert_int_equal(pids[0], 11);
    free(pids);
    free(pg.workers);
    ps_table_free(&t);
}

static void test_page_pids_when_the_table_has_none_of_them(void **state)
{
    (void)state;
    ps_table t = table(WORLD, 5);
    static const long long other_ns[] = {7, 8, 9}; /* another pid namespace */
    status_page pg = page_of(other_ns, 3);
    pid_t master = 0, *pids;
    char why[200];
    assert_int_equal(workers_of_pool(&t, "www", &pg, 0, &master, &pids, why, sizeof why), 3);
    assert_int_equal(pids[2], 9);
    free(pids);
    free(pg.workers);
    ps_table_free(&t);
}

static void test_the_table_agrees_with_the_page_until_a_worker_changes(void **state)
{
    (void)state;
    ps_table t = table(WORLD, 5);
    static const long long same[] = {11, 12}, spawned[] = {11, 12, 14}, exited[] = {11},
                           wrong_pool[] = {11, 13}, two_masters[] = {11, 21};
    status_page pg = page_of(same, 2);
    assert_true(workers_table_agrees(&t, "www", &pg));
    free(pg.workers);
    pg = page_of(spawned, 3); /* 14 is not in the table */
    assert_false(workers_table_agrees(&t, "www", &pg));
    free(pg.workers);
    pg = page_of(exited, 1); /* 12 is gone from the page */
    assert_false(workers_table_agrees(&t, "www", &pg));
    free(pg.workers);
    pg = page_of(wrong_pool, 2); /* 13 is api's: its pid reused */
    assert_false(workers_table_agrees(&t, "www", &pg));
    free(pg.workers);
    pg = page_of(two_masters, 2);
    assert_false(workers_table_agrees(&t, "www", &pg));
    free(pg.workers);
    pg = page_of(NULL, 0); /* an ondemand pool at rest: agrees only with no worker */
    assert_false(workers_table_agrees(&t, "www", &pg));
    assert_true(workers_table_agrees(&t, "shop", &pg));
    free(pg.workers);
    ps_table_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_pages_workers_name_their_master),
        cmocka_unit_test(test_page_pids_when_the_table_has_none_of_them),
        cmocka_unit_test(test_the_table_agrees_with_the_page_until_a_worker_changes),
    };
    return cmocka_run_group_tests_name("workers", tests, NULL, NULL);
}
