/* docs/rules.md 20.2: php-fpm's access.format compiled, and its lines
 * matched (formats/accessfmt.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accessfmt.h"

/* 20.7's format, the one the analyzer asks for */
#define CENSUS "%t %p %m %{REQUEST_URI}e %s %{mili}d %{kilo}M %C%%"

static af_format compiled(const char *fmt)
{
    af_format f = {0};
    assert_int_equal(af_compile(&f, fmt, strlen(fmt)), 0);
    return f;
}

static const char *reason(const char *fmt)
{
    static char r[sizeof ((af_format *)0)->reason];
    af_format f = compiled(fmt);
    snprintf(r, sizeof r, "%s", f.reason);
    af_free(&f);
    return r;
}

/* Matches line against fmt; the value of role r into v (NULL: not
 * compared) ; returns whether it matched. */
static int match(const char *fmt, const char *line, af_role r, const char *want)
{
    af_format f = compiled(fmt);
    af_matcher m;
    assert_int_equal(af_matcher_init(&m, &f), 0);
    int ok = af_match(&m, &f, (const unsigned char *)line, strlen(line));
    if (ok && want) {
        af_span s = {0, 0};
        assert_true(af_value(&m, &f, r, &s));
        if (s.len != strlen(want) || memcmp(line + s.off, want, s.len) != 0)
            fail_msg("\"%s\" ~ \"%s\": role %d is \"%.*s\", want \"%s\"", fmt, line, (int)r,
                     (int)s.len, line + s.off, want);
    }
    af_matcher_free(&m);
    af_free(&f);
    return ok;
}

/* 20.2: a usable format holds %C, a duration and %p; the reasons in their
 * order, the first unknown field named as written */
static void test_20_2_usable_and_each_unusable_reason(void **state)
{
    (void)state;
    assert_string_equal(reason(CENSUS), "usable");
    assert_string_equal(reason("%{total}C %d %p"), "usable");
    assert_string_equal(reason("%{user}C %d %p"), "unusable: no %C");
    assert_string_equal(reason("%R - %u %t \"%m %r\" %s"), "unusable: no %C");
    assert_string_equal(reason("%C %p"), "unusable: no duration");
    assert_string_equal(reason("%C %{micro}d"), "unusable: no %p");
    assert_string_equal(reason("%C %d %p %x"), "unusable: %x unknown");
    assert_string_equal(reason("%x %C"), "unusable: %x unknown");
    assert_string_equal(reason("%C %{foo}d %p"), "unusable: %{foo}d unknown");
    assert_string_equal(reason("%C %d %p %{REQUEST_URI"), "unusable: %{REQUEST_URI unknown");
    assert_string_equal(reason("%C %d %p %{x}"), "unusable: %{x} unknown"); /* no letter */
    assert_string_equal(reason("%e %C %d %p"), "unusable: %e unknown");     /* a name needed */
    assert_string_equal(reason("%o"), "unusable: %o unknown");
    assert_string_equal(reason("%{x}p %C %d"), "unusable: %{x}p unknown");  /* no argument */
    assert_string_equal(reason("%{x}%"), "unusable: %{x}% unknown");
    assert_string_equal(reason("%{bytes}C"), "unusable: %{bytes}C unknown");
    assert_string_equal(reason("%{kilo}d"), "unusable: %{kilo}d unknown");
    assert_string_equal(reason("%{mili}M"), "unusable: %{mili}M unknown");
}

/* 20.2: the arguments of %C, %d and %M ignore case; %{}X is %X; a lone %
 * at the end writes nothing; %% is a literal % */
static void test_20_2_arguments_as_php_fpm_reads_them(void **state)
{
    (void)state;
    assert_string_equal(reason("%{TOTAL}C %{MiLli}d %p %{KILO}M"), "usable");
    assert_string_equal(reason("%{}C %{}d %{}p"), "usable");
    assert_true(match("%p %C%d%", "7 1.5%3", AF_CPU, NULL) == 0); /* the % is literal */
    assert_true(match("%p %C%%%d%", "7 1.5%3", AF_DURATION, "3")); /* the last % writes nothing */
    assert_true(match("%p %C%%%d", "7 12.50%0.164", AF_CPU, "12.50"));
    af_format f = compiled("%{MICROSECONDS}d %{Mega}M %p %C");
    assert_int_equal(f.duration_unit, AF_MICRO);
    assert_int_equal(f.memory_unit, 1048576);
    af_free(&f);
}

/* 20.2: every field's class of value */
static void test_20_2_every_field(void **state)
{
    (void)state;
    /* share: letters, signs and dots, so nan, inf and -0.00 match (rule 6 judges) */
    assert_true(match("%p %C", "7 nan", AF_CPU, "nan"));
    assert_true(match("%p %C", "7 -0.00", AF_CPU, "-0.00"));
    assert_true(match("%p %{user}C/%{system}C %C", "7 1.0/2.0 3.0", AF_CPU, "3.0"));
    assert_false(match("%p %C", "7 1,5", AF_CPU, NULL));
    /* decimal: digits and dots only */
    assert_true(match("%p %d", "7 0.164", AF_DURATION, "0.164"));
    assert_false(match("%p %d", "7 -0.164", AF_DURATION, NULL));
    assert_false(match("%p %d", "7 1e3", AF_DURATION, NULL));
    /* integer: digits */
    assert_true(match("%p %M", "7 2097152", AF_MEMORY, "2097152"));
    assert_false(match("%p %M", "7 2.5", AF_MEMORY, NULL));
    assert_true(match("%P %l %s %p", "1 0 200 7", AF_PID, "7"));
    /* time: php-fpm's default, its space and zone kept from the next field */
    assert_true(match("%t %p", "07/Dec/2026:00:14:45 +0000 4242", AF_PID, "4242"));
    assert_true(match("%T %p", "07/Dec/2026:00:14:45 -0530 4242", AF_PID, "4242"));
    assert_false(match("%t %p", "07/Dec/2026:00:14:45 4242", AF_PID, NULL));
    /* text: any bytes, the empty run included */
    assert_true(match("%p %m %r %q %Q %f %R %u %n %{X}e %{Y}o %{%H}t %{%H}T", "7 GET /a b  ?    - "
                      "x - - 12 12", AF_METHOD, "GET"));
    assert_true(match("%p [%m]", "7 []", AF_METHOD, ""));
    assert_true(match("%p %n", "7 shop", AF_POOL, "shop"));
    assert_true(match("%p %r?%q", "7 /index.php?a=1", AF_QUERY, "a=1"));
}

/* 20.2: every unit of %d */
static void test_20_2_every_duration_unit(void **state)
{
    (void)state;
    static const char *const milli[] = {"mili", "milli", "miliseconds", "milliseconds"};
    for (size_t i = 0; i < 4; i++) {
        char fmt[64];
        snprintf(fmt, sizeof fmt, "%%{%s}d", milli[i]);
        af_format f = compiled(fmt);
        assert_int_equal(f.duration_unit, AF_MILLI);
        af_free(&f);
    }
    static const char *const micro[] = {"micro", "microseconds"}, *const sec[] = {"", "seconds"};
    for (size_t i = 0; i < 2; i++) {
        char fmt[64];
        snprintf(fmt, sizeof fmt, "%%{%s}d", micro[i]);
        af_format f = compiled(fmt);
        assert_int_equal(f.duration_unit, AF_MICRO);
        af_free(&f);
        snprintf(fmt, sizeof fmt, "%%{%s}d", sec[i]);
        f = compiled(fmt);
        assert_int_equal(f.duration_unit, AF_SECONDS);
        af_free(&f);
    }
}

/* 20.4: a duration converted exactly: seconds and milliseconds with 0 to 3
 * decimals, microseconds digits only */
static void test_20_4_durations_exactly(void **state)
{
    (void)state;
    static const struct { const char *v; af_unit u; int rc; uint64_t us; } c[] = {
        {"0.164", AF_SECONDS, 0, 164000}, {"2", AF_SECONDS, 0, 2000000},
        {"1.5", AF_SECONDS, 0, 1500000}, {"164.025", AF_MILLI, 0, 164025},
        {"164.0251", AF_MILLI, -1, 0}, {"164.", AF_MILLI, -1, 0}, {".5", AF_MILLI, -1, 0},
        {"164", AF_MILLI, 0, 164000}, {"1.2.3", AF_MILLI, -1, 0}, {"164025", AF_MICRO, 0, 164025},
        {"164.0", AF_MICRO, -1, 0}, {"", AF_SECONDS, -1, 0},
        {"99999999999999999999", AF_MICRO, -1, 0}, {"18446744073709551", AF_SECONDS, -1, 0},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        uint64_t us = 7;
        int rc = af_duration_us((const unsigned char *)c[i].v, strlen(c[i].v), c[i].u, &us);
        if (rc != c[i].rc || (rc == 0 && us != c[i].us))
            fail_msg("\"%s\" unit %d: rc %d, %llu us; want %d, %llu", c[i].v, (int)c[i].u, rc,
                     (unsigned long long)us, c[i].rc, (unsigned long long)c[i].us);
    }
}

/* 20.2: a URI with spaces and quotes: a text field that is not the last
 * can take the literal that follows it where a later field fits the rest */
static void test_20_2_a_uri_with_spaces_and_quotes(void **state)
{
    (void)state;
    const char *line = "07/Dec/2026:00:14:45 +0000 4242 GET /a b\"c d 200 164.025 2048 99.50%";
    assert_true(match(CENSUS, line, AF_REQUEST_URI, "/a b\"c d"));
    assert_true(match(CENSUS, line, AF_METHOD, "GET"));
    assert_true(match(CENSUS, line, AF_DURATION, "164.025"));
    assert_true(match(CENSUS, line, AF_CPU, "99.50"));
    /* the shortest first: the URI takes the first place where the rest fits */
    assert_true(match(CENSUS, "07/Dec/2026:00:14:45 +0000 1 GET /x 200 1 2 3% 200 1.000 2 3.00%",
                      AF_REQUEST_URI, "/x 200 1 2 3%"));
    /* php-fpm's default format, its quotes literal */
    assert_true(match("%R - %u %t \"%m %r\" %s", "10.0.0.1 - - 07/Dec/2026:00:14:45 +0000 "
                      "\"POST /index.php\" 200", AF_SCRIPT, "/index.php"));
}

/* 20.2: adjacent fields split as the backtracking matcher splits them:
 * longest first for a class, shortest first for text */
static void test_20_2_adjacent_fields(void **state)
{
    (void)state;
    assert_true(match("%p%M %C %d", "12345 1 2", AF_PID, "1234"));  /* %M keeps one digit */
    assert_true(match("%m%p %C %d", "GET123 1 2", AF_METHOD, "GET"));
    assert_true(match("%m%r %C %d %p", "ab 1 2 3", AF_METHOD, ""));  /* %m empty, %r all */
    assert_true(match("%C%d %p", "1.5.2 3", AF_CPU, "1.5."));        /* share longest */
    assert_true(match("%d%C %p", "1.5.2 3", AF_DURATION, "1.5."));   /* then the share's "2" */
    assert_true(match("%d%p %C", "1.5 3", AF_PID, "5"));             /* %d gives back its 5 */
}

/* 20.2: a line over 4096 bytes does not match; 4096 does */
static void test_20_2_the_4096_cut(void **state)
{
    (void)state;
    char *line = malloc(4098);
    memset(line, 'a', 4097);
    memcpy(line, "7 1 2 ", 6);
    line[4096] = '\0';
    assert_true(match("%p %C %d %r", line, AF_PID, "7"));
    line[4096] = 'a';
    line[4097] = '\0';
    assert_false(match("%p %C %d %r", line, AF_PID, NULL));
    free(line);
}

/* 20.2: the work is polynomial: a 4096-byte line of spaces against ten
 * text fields that cannot end it takes at most 4 x (length + items + 16)
 * steps of backtracking, then items x (length + 1) of the exact search
 * (plain backtracking: C(4096, 10) splits).  `%C%d`, two classes with no
 * literal between, keeps the format from the one-pass split. */
static void test_20_2_a_hostile_line_takes_polynomial_work(void **state)
{
    (void)state;
    const char *fmt = "%m %m %m %m %m %m %m %m %m %m %C%d %p";
    af_format f = compiled(fmt);
    af_matcher m;
    assert_false(f.split);
    assert_int_equal(af_matcher_init(&m, &f), 0);
    unsigned char *line = malloc(AF_MAX_LINE);
    memset(line, ' ', AF_MAX_LINE);
    assert_false(af_match(&m, &f, line, AF_MAX_LINE));
    uint64_t bound = 4 * ((uint64_t)AF_MAX_LINE + f.n + 16) + 1 + (uint64_t)f.n * (AF_MAX_LINE + 1);
    if (m.steps > bound)
        fail_msg("%llu steps, more than %llu", (unsigned long long)m.steps,
                 (unsigned long long)bound);
    assert_true(m.steps > 4096); /* it did search */
    free(line);
    af_matcher_free(&m);
    af_free(&f);
}

/* 20.2: the exact search (a hostile line's) takes the split backtracking
 * takes, on lines of every kind of field */
static void test_20_2_the_exact_search_splits_as_backtracking_does(void **state)
{
    (void)state;
    static const struct { const char *fmt, *line; } c[] = {
        {CENSUS, "07/Dec/2026:00:14:45 +0000 4242 GET /a b\"c d 200 164.025 2048 99.50%"},
        {CENSUS, "07/Dec/2026:00:14:45 +0000 1 GET /x 200 1 2 3% 200 1.000 2 3.00%"},
        {"%p%M %C %d", "12345 1 2"}, {"%m%r %C %d %p", "ab 1 2 3"}, {"%C%d %p", "1.5.2 3"},
        {"%d%p %C", "1.5 3"}, {"%m %m %m %C %d %p", "     x  1 2 3"}, {"%p [%m]", "7 []"},
        {"%R - %u %t \"%m %r\" %s", "10.0.0.1 - - 07/Dec/2026:00:14:45 +0000 \"POST /i\" 200"},
        {"%p %C", "7 1,5"}, {"%t %p", "07/Dec/2026:00:14:45 4242"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        af_format f = compiled(c[i].fmt);
        af_matcher a, b;
        assert_int_equal(af_matcher_init(&a, &f), 0);
        assert_int_equal(af_matcher_init(&b, &f), 0);
        size_t n = strlen(c[i].line);
        int ma = af_match(&a, &f, (const unsigned char *)c[i].line, n);
        int mb = af_match_exact(&b, &f, (const unsigned char *)c[i].line, n);
        if (ma != mb || (ma && memcmp(a.span, b.span, f.n * sizeof *a.span) != 0))
            fail_msg("\"%s\" ~ \"%s\": the exact search differs", c[i].fmt, c[i].line);
        af_matcher_free(&a);
        af_matcher_free(&b);
        af_free(&f);
    }
}

/* 20.2: a format whose fields before and after its text fields are bounded
 * by literals they cannot hold splits a line in one pass, the split the
 * exact search takes: 20.7's, a hostile line against ten text fields, a
 * class run into the text, lines that do not match */
static void test_20_2_the_one_pass_split_is_the_exact_searchs(void **state)
{
    (void)state;
    static const struct { const char *fmt, *line; int split, match; } c[] = {
        {CENSUS, "07/Dec/2026:00:14:45 +0000 4242 GET /a b\"c d 200 164.025 2048 99.50%", 1, 1},
        {CENSUS, "07/Dec/2026:00:14:45 +0000 1 GET /x 200 1 2 3% 200 1.000 2 3.00%", 1, 1},
        {CENSUS, "07/Dec/2026:00:14:45 +0000 1 GET  200 1.000 2 3.00%", 1, 1},
        {CENSUS, "07/Dec/2026:00:14:45 +0000 1 GET 200 1.000 2 3.00%", 1, 0},
        {CENSUS, "07/Dec/2026:00:14:45 +0000 1 /x 200 1.000 2 3.00%", 1, 0},
        {"%m %m %m %m %m %m %m %m %m %m %C %d %p", "                    ", 1, 0},
        {"%m %m %C %d %p", "a b c 1 2 3", 1, 1}, {"%p%m %C", "12x 1", 0, 1},
        {"%p [%m] %{REQUEST_URI}e c=%C %d", "7 [GET] /a] c=1 c=1 2", 1, 1},
        {"%p %m x%C %d", "7 a xx1 2", 0, 1}, /* a share can hold the x */
        {"%p -- %m", "7 -- --", 1, 1}, {"%p %d %C", "7 1.5 2", 1, 1}, {"%p %d %C", "7 1.5 ", 1, 0},
        {"%m %C%%", "a b 5%%", 1, 0}, {"%m %C%%", "a b 5%", 1, 1},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        af_format f = compiled(c[i].fmt);
        af_matcher a, b;
        assert_int_equal(f.split, c[i].split);
        assert_int_equal(af_matcher_init(&a, &f), 0);
        assert_int_equal(af_matcher_init(&b, &f), 0);
        size_t n = strlen(c[i].line);
        int ma = af_match(&a, &f, (const unsigned char *)c[i].line, n);
        int mb = af_match_exact(&b, &f, (const unsigned char *)c[i].line, n);
        if (ma != c[i].match || mb != c[i].match ||
            (ma && memcmp(a.span, b.span, f.n * sizeof *a.span) != 0))
            fail_msg("\"%s\" ~ \"%s\": the split differs", c[i].fmt, c[i].line);
        if (f.split)
            assert_int_equal(a.steps, f.n); /* one pass, whatever the line */
        af_matcher_free(&a);
        af_matcher_free(&b);
        af_free(&f);
    }
}

/* 20.2: the URI: %{REQUEST_URI}e where the format has it, else %r, and ?
 * and %q where %q is not empty */
static void test_20_2_the_uri(void **state)
{
    (void)state;
    static const struct { const char *fmt, *line; long n; const char *uri; } c[] = {
        {"%p %r %{REQUEST_URI}e", "7 /index.php /product/42?a=1", 15, "/product/42?a=1"},
        {"%p %r %q", "7 /index.php a=1", 14, "/index.php?a=1"},
        {"%p %r %q.", "7 /index.php .", 10, "/index.php"},
        {"%p %r", "7 /index.php", 10, "/index.php"},
        {"%p %{request_uri}e", "7 /x", -1, ""}, /* FastCGI names keep their case */
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        af_format f = compiled(c[i].fmt);
        af_matcher m;
        char buf[AF_MAX_LINE + 1];
        const char *out = NULL;
        assert_int_equal(af_matcher_init(&m, &f), 0);
        assert_true(af_match(&m, &f, (const unsigned char *)c[i].line, strlen(c[i].line)));
        long n = af_uri(&m, &f, (const unsigned char *)c[i].line, buf, &out);
        assert_int_equal(n, c[i].n);
        if (n >= 0)
            assert_memory_equal(out, c[i].uri, (size_t)n);
        af_matcher_free(&m);
        af_free(&f);
    }
}

/* --redact-query: every place of %r and %{REQUEST_URI}e loses its query,
 * %q its value; the rest byte for byte.  (In php-fpm's own "%r%Q%q" the
 * three text fields split shortest first: %r and %Q empty, %q all of it.) */
static void test_redact_query_in_the_uri_fields(void **state)
{
    (void)state;
    const char *fmt = "%p \"%r%Q%q\" %r %{REQUEST_URI}e %C %d %{REQUEST_URI}e %q.";
    const char *line = "7 \"/index.php?token=s3cret\" /s?t=1 /p/42?key=abc 1.0 2 /q?x a=b.";
    af_format f = compiled(fmt);
    af_matcher m;
    assert_int_equal(af_matcher_init(&m, &f), 0);
    assert_true(af_match(&m, &f, (const unsigned char *)line, strlen(line)));
    unsigned char out[256];
    size_t n = af_redact(&m, &f, (const unsigned char *)line, strlen(line), out);
    const char *want = "7 \"\" /s /p/42 1.0 2 /q .";
    assert_int_equal(n, strlen(want));
    assert_memory_equal(out, want, n);
    af_matcher_free(&m);
    af_free(&f);
}

/* Hostile bytes in a text field: NUL, invalid UTF-8, markup */
static void test_20_2_any_bytes_in_text(void **state)
{
    (void)state;
    const unsigned char line[] = "7 1.0 2 /a\0b\xff<script>";
    af_format f = compiled("%p %C %d %r");
    af_matcher m;
    assert_int_equal(af_matcher_init(&m, &f), 0);
    assert_true(af_match(&m, &f, line, sizeof line - 1));
    af_span s;
    assert_true(af_value(&m, &f, AF_SCRIPT, &s));
    assert_int_equal(s.len, 13);
    af_matcher_free(&m);
    af_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_20_2_usable_and_each_unusable_reason),
        cmocka_unit_test(test_20_2_arguments_as_php_fpm_reads_them),
        cmocka_unit_test(test_20_2_every_field),
        cmocka_unit_test(test_20_2_every_duration_unit),
        cmocka_unit_test(test_20_4_durations_exactly),
        cmocka_unit_test(test_20_2_a_uri_with_spaces_and_quotes),
        cmocka_unit_test(test_20_2_adjacent_fields),
        cmocka_unit_test(test_20_2_the_4096_cut),
        cmocka_unit_test(test_20_2_a_hostile_line_takes_polynomial_work),
        cmocka_unit_test(test_20_2_the_exact_search_splits_as_backtracking_does),
        cmocka_unit_test(test_20_2_the_one_pass_split_is_the_exact_searchs),
        cmocka_unit_test(test_20_2_the_uri),
        cmocka_unit_test(test_redact_query_in_the_uri_fields),
        cmocka_unit_test(test_20_2_any_bytes_in_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
