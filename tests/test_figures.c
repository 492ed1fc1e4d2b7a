/* The per-pool figures' table (analyzer/report/figures.h): the JSON, the
 * CSV and OpenMetrics are made from it, in its order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figures.h"

/* A pool with a name, its fit and its joint slope, a prediction and a
 * census (so that their nested objects are there) and nothing else, and
 * its JSON object parsed. */
static json_t *pool_json(void)
{
    static pl_pool p;
    p.name = "shop";
    p.name_len = 4;
    p.unanswered_queue_max = -1;
    wi_view v = {0};
    v.line.exists = 1;
    v.joint.in_a = 1;
    static pr_keep k; /* 20 kept readings: a prediction at now and at the advice */
    for (int i = 0; k.n < 20 && i < 20; i++)
        assert_int_equal(pr_add(&k, 100, 10000, 0), 0);
    v.keep = &k;
    v.predicts = 1;
    v.hm = 2000;
    v.host_millicores_per_worker = 1000;
    v.now = 4;
    v.advice = 3;
    v.at_now = (wi_pred){1, 4, 100, 100}; /* decided with the answer (whatif_host) */
    v.at_advice = (wi_pred){1, 3, 100, 100};
    p.has_access = 1; /* censused (20.7): its access object and what it measured */
    p.censused = v.censused = 1;
    v.has_measured = 1;
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    jw w = jw_on(f);
    fig_json(&w, &p, &v);
    fclose(f);
    json_error_t e;
    json_t *o = json_loads(s, 0, &e);
    free(s);
    assert_non_null(o);
    return o;
}

static void test_the_json_keys_are_the_tables_in_its_order(void **state)
{
    (void)state;
    json_t *o = pool_json();
    const char *k;
    json_t *x;
    size_t at = 0;
    json_object_foreach(o, k, x) {
        (void)x;
        size_t i = 0;
        while (i < FIG_NPOOL && strcmp(FIG_POOL[i].key, k) != 0)
            i++;
        if (i == FIG_NPOOL) /* a key an object entry adds after its own (joint's overhead) */
            continue;
        assert_true(i >= at);
        at = i;
    }
    for (size_t i = 0; i < FIG_NPOOL; i++)
        assert_non_null(json_object_get(o, FIG_POOL[i].key));
    assert_string_equal(json_string_value(json_object_get(o, "pool")), "shop");
    json_decref(o);
}

typedef struct {
    json_t *flat;
    int     missing;
    size_t  n;
} cols;

static void flatten(json_t *flat, const char *prefix, json_t *obj)
{
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        char key[128];
        snprintf(key, sizeof key, "%s%s%s", prefix, prefix[0] ? "_" : "", k);
        if (json_is_object(v))
            flatten(flat, key, v);
        else if (!json_is_array(v))
            json_object_set(flat, key, v);
    }
}

static void seen(void *arg, const char *col)
{
    cols *c = arg;
    c->n++;
    if (!json_object_get(c->flat, col)) {
        print_error("column %s is not in the JSON\n", col);
        c->missing++;
    }
}

static void test_every_csv_column_is_a_json_figure(void **state)
{
    (void)state;
    json_t *o = pool_json(), *flat = json_object();
    flatten(flat, "", o);
    cols c = {flat, 0, 0};
    fig_columns(seen, &c);
    assert_int_equal(c.missing, 0);
    assert_int_equal(c.n, json_object_size(flat)); /* and every scalar has its column */
    json_decref(flat);
    json_decref(o);
}

static void test_metric_families_are_named_once(void **state)
{
    (void)state;
    for (size_t i = 0; i < FIG_NPOOL; i++)
        for (int f = 0; f < 2 && FIG_POOL[i].om[f].name; f++) {
            const fig_family *a = &FIG_POOL[i].om[f];
            assert_int_equal(strncmp(a->name, "fpm_cpu_", 8), 0);
            assert_true(a->samples || a->scale > 0);
            assert_true(FIG_POOL[i].kind != FIG_OBJECT || a->samples);
            for (size_t j = i + 1; j < FIG_NPOOL; j++)
                for (int g = 0; g < 2 && FIG_POOL[j].om[g].name; g++)
                    assert_string_not_equal(a->name, FIG_POOL[j].om[g].name);
        }
}

static void test_check_compares_what_it_can_name(void **state)
{
    (void)state;
    for (size_t i = 0; i < FIG_NPOOL; i++) {
        const fig_entry *e = &FIG_POOL[i];
        if (e->check != CHK_NONE)
            assert_non_null(e->label);
        if (e->check == CHK_MORE)
            assert_non_null(e->detail);
        if (e->check == CHK_SHARE)
            assert_true(e->kind == FIG_INT || e->kind == FIG_HUNDREDTHS);
    }
    assert_int_equal(fig_find("busy_pct")->check, CHK_SHARE);
    assert_null(fig_find("nosuch"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_json_keys_are_the_tables_in_its_order),
        cmocka_unit_test(test_every_csv_column_is_a_json_figure),
        cmocka_unit_test(test_metric_families_are_named_once),
        cmocka_unit_test(test_check_compares_what_it_can_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
