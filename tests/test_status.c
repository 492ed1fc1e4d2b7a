/* The status page parser: real php-fpm 8.2 pages and every known
 * malformation of the pages before PHP 8.3. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "status.h"
#include "testlib.h"

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *p = malloc(1 << 20);
    *n = fread(p, 1, 1 << 20, f);
    fclose(f);
    return p;
}

static void test_real_php82_page(void **state)
{
    (void)state;
    size_t n;
    char *p = slurp("fixtures/status/php82-full.json", &n);
    status_page pg = {0};
    assert_int_equal(status_parse(&pg, p, n), 0);
    assert_int_equal(pg.has_listen_queue, 1);
    assert_int_equal(pg.listen_queue, 0);
    assert_int_equal(pg.nworkers, 3);
    /* section 12's keys of the page, and each worker's start time */
    assert_true(pg.has_pool && pg.pool_len == 3 && memcmp(pg.pool, "www", 3) == 0);
    assert_true(pg.has_start_time && pg.start_time == 1795988353);
    assert_true(pg.has_active && pg.active == 1);
    assert_true(pg.has_max_reached && pg.max_reached == 0);
    int64_t start;
    assert_int_equal(status_worker_start(&pg.workers[0], &start), 0);
    assert_int_equal(start, 1795988353);
    int running = 0, nasty = 0;
    for (size_t i = 0; i < pg.nworkers; i++) {
        const status_worker *w = &pg.workers[i];
        assert_true(w->has_pid && w->has_requests && w->has_duration && w->has_cpu);
        assert_true(w->has_memory); /* 14.1: the request's peak */
        assert_true(w->memory == 2097152 || w->memory == 0);
        if (strcmp(w->state, "Running") == 0) {
            running++;
            assert_string_equal(w->uri, "/status?json&full");
        }
        if (strcmp(w->uri, "/burn.php?a=l1\nl2\"x\\u0026/\\end") == 0) {
            nasty++;
            assert_string_equal(w->state, "Idle");
            assert_int_equal(w->requests, 1);
            int64_t h;
            assert_int_equal(status_cpu_hundredths(w->cpu, w->cpu_len, &h), 0);
            assert_true(h >= 4000 && h <= 10000);
        }
    }
    assert_int_equal(running, 1);
    assert_int_equal(nasty, 1);
    status_page_free(&pg);
    free(p);
}

static void test_pages_without_processes_are_no_status_page(void **state)
{
    (void)state;
    static const char *const files[] = {"fixtures/status/php82-notfound.txt",
                                        "fixtures/status/php82-plain.txt"};
    status_page pg = {0};
    for (size_t i = 0; i < 2; i++) {
        size_t n;
        char *p = slurp(files[i], &n);
        assert_int_equal(status_parse(&pg, p, n), -1);
        free(p);
    }
    assert_int_equal(status_parse(&pg, "", 0), -1);
    assert_int_equal(status_parse(&pg, "{\"processes\":", 13), -1);
    status_page_free(&pg);
}

/* Parses a one-worker page whose URI is written raw, as before PHP 8.3. */
static status_page one(const char *uri_raw, const char *cpu)
{
    buf b = {0};
    tworker w = {42, "Idle", 7, 123456, uri_raw, cpu};
    status_page_text(&b, "shop", 3, &w, 1);
    status_page pg = {0};
    assert_int_equal(status_parse(&pg, b.p, b.n), 0);
    assert_int_equal(pg.nworkers, 1);
    assert_int_equal(pg.workers[0].pid, 42);
    assert_int_equal(pg.workers[0].requests, 7);
    assert_int_equal(pg.workers[0].duration, 123456);
    assert_string_equal(pg.workers[0].state, "Idle");
    assert_int_equal(pg.listen_queue, 3);
    buf_free(&b);
    return pg;
}

static void test_unescaped_quote_in_uri(void **state)
{
    (void)state;
    status_page pg = one("/a\"b\",c\"", "1.00");
    assert_string_equal(pg.workers[0].uri, "/a\"b\",c\"");
    status_page_free(&pg);
}

static void test_unescaped_backslashes_in_uri(void **state)
{
    (void)state;
    status_page pg = one("/a\\x\\", "1.00"); /* ends in a backslash */
    assert_string_equal(pg.workers[0].uri, "/a\\x\\");
    status_page_free(&pg);
}

static void test_raw_newline_and_non_utf8_in_uri(void **state)
{
    (void)state;
    status_page pg = one("/a\nb\xff\xfe\r", "1.00");
    assert_int_equal(pg.workers[0].uri_len, 7);
    assert_memory_equal(pg.workers[0].uri, "/a\nb\xff\xfe\r", 7);
    status_page_free(&pg);
}

static void test_uri_holding_a_later_key_is_not_cut(void **state)
{
    (void)state;
    status_page pg = one("/x\",\"user\":\"y\",\"script\":\"z", "1.00");
    assert_string_equal(pg.workers[0].uri, "/x\",\"user\":\"y\",\"script\":\"z");
    status_page_free(&pg);
}

static void test_valid_json_escapes_are_decoded(void **state)
{
    (void)state;
    status_page pg = one("\\/p?a=1\\u0026b=\\u00e9\\ud83d\\ude00\\t\\\"\\\\", "1.00");
    assert_string_equal(pg.workers[0].uri, "/p?a=1&b=\xc3\xa9\xf0\x9f\x98\x80\t\"\\");
    status_page_free(&pg);
    /* invalid escapes stay as written */
    pg = one("\\q\\u12\\udc00x\\ud800", "1.00");
    assert_string_equal(pg.workers[0].uri, "\\q\\u12\\udc00x\\ud800");
    status_page_free(&pg);
}

static void test_unescaped_user_and_script(void **state)
{
    (void)state;
    const char *page =
        "{\"pool\":\"p\",\"listen queue\":0,\"processes\":[{\"pid\":5,\"state\":\"Idle\","
        "\"start time\":1,\"start since\":2,\"requests\":3,\"request duration\":60000,"
        "\"request method\":\"GET\",\"request uri\":\"/u\",\"content length\":0,"
        "\"user\":\"a\"b\\\",\"script\":\"/s\"\n\xff\",\"last request cpu\":12.34,"
        "\"last request memory\":0},{\"pid\":6,\"state\":\"Idle\",\"requests\":1}]}";
    status_page pg = {0};
    assert_int_equal(status_parse(&pg, page, strlen(page)), 0);
    assert_int_equal(pg.nworkers, 2);
    assert_string_equal(pg.workers[0].uri, "/u");
    assert_memory_equal(pg.workers[0].cpu, "12.34", 5);
    assert_int_equal(pg.workers[1].pid, 6);
    assert_int_equal(pg.workers[1].has_duration, 0);
    status_page_free(&pg);
}

static void test_page_cut_short_keeps_the_complete_workers(void **state)
{
    (void)state;
    buf b = {0};
    tworker w[2] = {{1, "Idle", 2, 60000, "/a", "5.00"}, {2, "Idle", 3, 70000, "/b", "6.00"}};
    status_page_text(&b, "p", 0, w, 2);
    status_page pg = {0};
    for (size_t cut = strstr(b.p, "{\"pid\":2") - b.p; cut < b.n - 2; cut++) {
        assert_int_equal(status_parse(&pg, b.p, cut), 0);
        assert_int_equal(pg.nworkers, 1);
        assert_int_equal(pg.workers[0].pid, 1);
    }
    /* and no cut reads past the end (run under ASan) */
    for (size_t cut = 0; cut < b.n; cut++) {
        char *copy = malloc(cut ? cut : 1);
        memcpy(copy, b.p, cut);
        status_parse(&pg, copy, cut);
        free(copy);
    }
    status_page_free(&pg);
    buf_free(&b);
}

static void test_comma_decimal_cpu_does_not_break_the_page(void **state)
{
    (void)state;
    tworker w[2] = {{1, "Idle", 2, 60000, "/a", "67,57"}, {2, "Idle", 3, 70000, "/b", "6.00"}};
    buf b = {0};
    status_page_text(&b, "p", 0, w, 2);
    status_page pg = {0};
    assert_int_equal(status_parse(&pg, b.p, b.n), 0);
    assert_int_equal(pg.nworkers, 2);
    assert_int_equal(pg.workers[0].cpu_len, 5);
    assert_memory_equal(pg.workers[0].cpu, "67,57", 5);
    assert_int_equal(pg.workers[1].pid, 2);
    assert_memory_equal(pg.workers[1].cpu, "6.00", 4);
    status_page_free(&pg);
    buf_free(&b);
}

static void test_numbers_as_written(void **state)
{
    (void)state;
    const char *page = "{ \"listen queue\" : 12 , \"processes\" : [ { \"pid\" : 9 , "
                       "\"requests\" : -1 , \"request duration\" : 5x } ] }";
    status_page pg = {0};
    assert_int_equal(status_parse(&pg, page, strlen(page)), 0);
    assert_int_equal(pg.listen_queue, 12);
    assert_int_equal(pg.nworkers, 1);
    assert_int_equal(pg.workers[0].pid, 9);
    assert_int_equal(pg.workers[0].requests, -1);
    assert_int_equal(pg.workers[0].has_duration, 0);
    assert_int_equal(pg.workers[0].has_state, 0);
    status_page_free(&pg);
    int64_t v;
    assert_int_equal(status_parse_int("9223372036854775807", 19, &v), 0);
    assert_int_equal(status_parse_int("9223372036854775808", 19, &v), -1);
    assert_int_equal(status_parse_int("-", 1, &v), -1);
    assert_int_equal(status_parse_int("1.0", 3, &v), -1);
}

static void test_cpu_share_in_hundredths(void **state)
{
    (void)state;
    static const struct { const char *s; int rc; int64_t v; } cases[] = {
        {"67.57", 0, 6757}, {"4.999", 0, 499}, {"-0.00", 0, 0}, {"0", 0, 0},
        {"100", 0, 10000}, {"0.5", 0, 50}, {"3200.00", 0, 320000}, {"-0", 0, 0},
        {"-0.001", 1, 0}, {"-1.50", 1, 0},
        {"nan", -1, 0}, {"inf", -1, 0}, {"1e2", -1, 0}, {"67,57", -1, 0}, {"", -1, 0},
        {"-", -1, 0}, {"1.", -1, 0}, {".5", -1, 0}, {"+1", -1, 0}, {" 1", -1, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t v = -7;
        int rc = status_cpu_hundredths(cases[i].s, strlen(cases[i].s), &v);
        if (rc != cases[i].rc)
            fail_msg("\"%s\": rc %d, want %d", cases[i].s, rc, cases[i].rc);
        if (rc == 0 && v != cases[i].v)
            fail_msg("\"%s\": %lld, want %lld", cases[i].s, (long long)v, (long long)cases[i].v);
    }
    int64_t v;
    assert_int_equal(status_cpu_hundredths("99999999999999999999999.99", 26, &v), 0);
    assert_true(v > 320000);
}

/* 14.1 (amended): `last request memory` counts only as ASCII digits, no
 * sign: "-0" and "-5" give no memory, "0" and "2097152" do, by the fast
 * path and the general parser alike. */
static void test_14_1_last_request_memory_is_ascii_digits(void **state)
{
    (void)state;
    static const struct { const char *v; int has; int64_t bytes; } cases[] = {
        {"2097152", 1, 2097152}, {"0", 1, 0}, {"-0", 0, 0}, {"-5", 0, 0}, {"1.5", 0, 0},
        {"+5", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int fast = 0; fast < 2; fast++) {
            char page[512];
            snprintf(page, sizeof page,
                     "{\"processes\":[{\"pid\":1,\"state\":\"Idle\",\"start time\":1,"
                     "\"start since\":1,\"requests\":3,\"request duration\":90000,"
                     "\"request method\":\"GET\",\"request uri\":\"/a\",\"content length\":0,"
                     "\"user\":\"-\",\"script\":\"-\",\"last request cpu\":12.50,"
                     "\"last request memory\":%s}]}", cases[i].v);
            status_page pg = {0};
            assert_int_equal(status_parse_as(&pg, page, strlen(page), fast), 0);
            assert_int_equal(pg.nworkers, 1);
            if (pg.workers[0].has_memory != cases[i].has)
                fail_msg("\"%s\" (fast %d): has_memory %d, want %d", cases[i].v, fast,
                         pg.workers[0].has_memory, cases[i].has);
            if (cases[i].has)
                assert_true(pg.workers[0].memory == cases[i].bytes);
            status_page_free(&pg);
        }
}

/* status_parse_int: fits in int64 or is invalid, never wrapped. */
static void test_numbers_that_do_not_fit_in_int64_are_invalid(void **state)
{
    (void)state;
    int64_t v;
    assert_int_equal(status_parse_int("18446744073709551617", 20, &v), -1);
    assert_int_equal(status_parse_int("9223372036854775808", 19, &v), -1);
    assert_int_equal(status_parse_int("9223372036854775807", 19, &v), 0);
    assert_true(v == INT64_MAX);
    assert_int_equal(status_parse_int("-9223372036854775807", 20, &v), 0);
    assert_true(v == -INT64_MAX);
}

/* --redact-query: each request uri cut at its '?', the rest byte for byte. */
static void test_redact_query_cuts_only_the_query(void **state)
{
    (void)state;
    static const char page[] =
        "{\"pool\":\"www\",\"processes\":[{\"pid\":1,\"request uri\":\"\\/buy?token=s3cret&x=1\","
        "\"user\":\"-\"},{\"pid\":2,\"request uri\":\"\\/plain\",\"script\":\"\\/a?b\"}]}";
    char *out = NULL;
    size_t n = 0;
    assert_int_equal(status_redact_query(page, sizeof page - 1, &out, &n), 0);
    assert_int_equal(n, strlen(out));
    assert_string_equal(out,
        "{\"pool\":\"www\",\"processes\":[{\"pid\":1,\"request uri\":\"\\/buy\","
        "\"user\":\"-\"},{\"pid\":2,\"request uri\":\"\\/plain\",\"script\":\"\\/a?b\"}]}");
    free(out);
}

/* The fast path for php-fpm's exact layout reads what the general parser
 * reads: a real page, and pages that leave it half way (a comma-locale
 * number, white space, a key out of order, an unescaped quote). */
static void test_fast_path_reads_what_the_general_parser_reads(void **state)
{
    (void)state;
    size_t n;
    char *real = slurp("fixtures/status/php82-full.json", &n);
    static const char *const odd[] = {
        "{\"listen queue\":2,\"processes\":[{\"pid\":1,\"state\":\"Idle\",\"start time\":1,"
        "\"start since\":1,\"requests\":3,\"request duration\":90000,\"request method\":\"GET\","
        "\"request uri\":\"/a\"b\",\"content length\":0,\"user\":\"-\",\"script\":\"-\","
        "\"last request cpu\":67,57,\"last request memory\":1}]}",
        "{\"processes\":[{\"pid\": 1, \"state\":\"Idle\"}]}",
        "{\"processes\":[{\"state\":\"Idle\",\"pid\":7,\"requests\":2}]}",
        "{\"processes\":[{\"pid\":1,\"state\":\"Id\\u006ce\",\"start time\":1,"
        "\"start since\":1,\"requests\":3,\"request duration\":90000,\"request method\":\"GET\","
        "\"request uri\":\"\\/x?a=\\u0026\",\"content length\":0,\"user\":\"-\",\"script\":\"-\","
        "\"last request cpu\":12.50,\"last request memory\":1}]}",
        /* 13.3: the first worker's script never ends in its own object;
         * the fast path must not read it on into the second's (the general
         * parser stops at that worker: the page is cut short there) */
        "{\"processes\":[{\"pid\":1,\"state\":\"Idle\",\"start time\":1,"
        "\"start since\":1,\"requests\":3,\"request duration\":90000,\"request method\":\"GET\","
        "\"request uri\":\"/a\",\"content length\":0,\"user\":\"-\",\"script\":\"-,"
        "\"last request cpu\":1.00,\"last request memory\":1},{\"pid\":2,\"state\":\"Idle\","
        "\"start time\":1,\"start since\":1,\"requests\":4,\"request duration\":80000,"
        "\"request method\":\"GET\",\"request uri\":\"/b\",\"content length\":0,\"user\":\"-\","
        "\"script\":\"-\",\"last request cpu\":2.00,\"last request memory\":2}]}",
    };
    const char *pages[6] = {real, odd[0], odd[1], odd[2], odd[3], odd[4]};
    size_t lens[6] = {n, strlen(odd[0]), strlen(odd[1]), strlen(odd[2]), strlen(odd[3]),
                      strlen(odd[4])};
    for (int p = 0; p < 6; p++) {
        status_page a = {0}, b = {0};
        assert_int_equal(status_parse(&a, pages[p], lens[p]), 0);
        assert_int_equal(status_parse_as(&b, pages[p], lens[p], 0), 0);
        assert_int_equal(a.nworkers, b.nworkers);
        assert_int_equal(a.nworkers == 0, p == 5);
        for (size_t i = 0; i < a.nworkers; i++) {
            const status_worker *x = &a.workers[i], *y = &b.workers[i];
            assert_int_equal(x->has_pid, y->has_pid);
            assert_int_equal(x->pid, y->pid);
            assert_int_equal(x->has_requests, y->has_requests);
            assert_int_equal(x->requests, y->requests);
            assert_int_equal(x->start_len, y->start_len);
            if (x->start)
                assert_memory_equal(x->start, y->start, x->start_len);
            assert_int_equal(x->has_duration, y->has_duration);
            assert_int_equal(x->duration, y->duration);
            assert_int_equal(x->has_state, y->has_state);
            if (x->has_state)
                assert_string_equal(x->state, y->state);
            assert_int_equal(x->has_uri, y->has_uri);
            if (x->has_uri)
                assert_string_equal(x->uri, y->uri);
            assert_int_equal(x->cpu_len, y->cpu_len);
            assert_memory_equal(x->cpu, y->cpu, x->cpu_len);
        }
        status_page_free(&a);
        status_page_free(&b);
    }
    free(real);
}

/* docs/rules.md, "A worker's fields belong to its own object": a page of
 * three workers whose second lacks one key.  Each worker keeps its own
 * fields; the key it lacks is missing, never the third worker's. */
static void page_lacking(buf *b, const char *drop)
{
    static const char *const keys[] = {"\"state\":\"Idle\",", "\"start time\":1000,",
                                       "\"requests\":%d,"};
    buf_printf(b, "{\"pool\":\"www\",\"listen queue\":0,\"processes\":[");
    for (int i = 0; i < 3; i++) {
        buf_printf(b, "%s{\"pid\":%d,", i ? "," : "", 10 + i);
        for (int k = 0; k < 3; k++) {
            if (i == 1 && strstr(keys[k], drop))
                continue;
            if (k == 0)
                buf_printf(b, "\"state\":\"%s\",", i == 2 ? "Running" : "Idle");
            else if (k == 1)
                buf_printf(b, "\"start time\":%d,", 1000 + i);
            else
                buf_printf(b, "\"requests\":%d,", 5 + i);
        }
        buf_printf(b, "\"start since\":4,\"request duration\":%d,\"request method\":\"GET\","
                      "\"request uri\":\"/u%d\",\"content length\":0,\"user\":\"-\","
                      "\"script\":\"-\",\"last request cpu\":%d.00,"
                      "\"last request memory\":1}",
                   100000 + i, i, 10 + i);
    }
    buf_add(b, "]}", 2);
}

static void check_lacking(const char *drop)
{
    for (int fast = 0; fast < 2; fast++) {
        buf b = {0};
        page_lacking(&b, drop);
        status_page pg = {0};
        assert_int_equal(status_parse_as(&pg, b.p, b.n, fast), 0);
        assert_int_equal(pg.nworkers, 3);
        for (int i = 0; i < 3; i++) {
            const status_worker *w = &pg.workers[i];
            char uri[16];
            snprintf(uri, sizeof uri, "/u%d", i);
            assert_int_equal(w->pid, 10 + i);
            assert_int_equal(w->duration, 100000 + i);
            assert_string_equal(w->uri, uri);
            int64_t h, st;
            assert_int_equal(status_cpu_hundredths(w->cpu, w->cpu_len, &h), 0);
            assert_int_equal(h, (10 + i) * 100);
            int lacks = i == 1;
            if (lacks && strcmp(drop, "state") == 0)
                assert_false(w->has_state);
            else
                assert_string_equal(w->state, i == 2 ? "Running" : "Idle");
            if (lacks && strcmp(drop, "start time") == 0)
                assert_int_equal(status_worker_start(w, &st), -1);
            else {
                assert_int_equal(status_worker_start(w, &st), 0);
                assert_int_equal(st, 1000 + i);
            }
            if (lacks && strcmp(drop, "requests") == 0)
                assert_false(w->has_requests);
            else
                assert_int_equal(w->requests, 5 + i);
        }
        status_page_free(&pg);
        buf_free(&b);
    }
}

static void test_worker_without_start_time_keeps_its_own_fields(void **state)
{
    (void)state;
    check_lacking("start time");
}

static void test_worker_without_state_keeps_its_own_fields(void **state)
{
    (void)state;
    check_lacking("state");
}

static void test_worker_without_requests_keeps_its_own_fields(void **state)
{
    (void)state;
    check_lacking("requests");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_php82_page),
        cmocka_unit_test(test_fast_path_reads_what_the_general_parser_reads),
        cmocka_unit_test(test_14_1_last_request_memory_is_ascii_digits),
        cmocka_unit_test(test_worker_without_start_time_keeps_its_own_fields),
        cmocka_unit_test(test_worker_without_state_keeps_its_own_fields),
        cmocka_unit_test(test_worker_without_requests_keeps_its_own_fields),
        cmocka_unit_test(test_pages_without_processes_are_no_status_page),
        cmocka_unit_test(test_unescaped_quote_in_uri),
        cmocka_unit_test(test_unescaped_backslashes_in_uri),
        cmocka_unit_test(test_raw_newline_and_non_utf8_in_uri),
        cmocka_unit_test(test_uri_holding_a_later_key_is_not_cut),
        cmocka_unit_test(test_valid_json_escapes_are_decoded),
        cmocka_unit_test(test_unescaped_user_and_script),
        cmocka_unit_test(test_page_cut_short_keeps_the_complete_workers),
        cmocka_unit_test(test_comma_decimal_cpu_does_not_break_the_page),
        cmocka_unit_test(test_numbers_as_written),
        cmocka_unit_test(test_cpu_share_in_hundredths),
        cmocka_unit_test(test_redact_query_cuts_only_the_query),
        cmocka_unit_test(test_numbers_that_do_not_fit_in_int64_are_invalid),
    };
    return cmocka_run_group_tests_name("status", tests, NULL, NULL);
}
