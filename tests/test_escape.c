/* Names and numbers made safe for where they are printed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

/* What fn wrote for s[0..n), NUL-terminated, malloc'd. */
static char *written(void (*fn)(FILE *, const char *, size_t), const char *s, size_t n)
{
    char *p = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&p, &len);
    fn(f, s, n);
    fclose(f);
    return p;
}

static void test_json_strings_escape_quotes_controls_and_invalid_utf8(void **state)
{
    (void)state;
    char *j = written(esc_json_string, "a\"b\\c\n\x01\xff" "\xc3\xa9", 10);
    assert_string_equal(j, "\"a\\\"b\\\\c\\u000a\\u0001\xef\xbf\xbd\xc3\xa9\"");
    free(j);
}

static void test_label_values_escape_backslash_quote_newline(void **state)
{
    (void)state;
    char *l = written(esc_om_label, "a\"b\\c\nd", 7);
    assert_string_equal(l, "a\\\"b\\\\c\\nd");
    free(l);
}

static void test_a_double_is_the_shortest_that_reads_back(void **state)
{
    (void)state;
    char b[ESC_DOUBLE];
    assert_string_equal(esc_double_text(b, 1.4), "1.4");
    assert_string_equal(esc_double_text(b, 0.1 + 0.2), "0.30000000000000004");
    assert_string_equal(esc_double_text(b, 1e300 * 1e300), "null");
    assert_string_equal(esc_double_text(b, 0), "0");
}

static void test_hundredths_print_two_decimals(void **state)
{
    (void)state;
    char b[ESC_HUNDREDTHS];
    assert_string_equal(esc_hundredths(b, 1234), "12.34");
    assert_string_equal(esc_hundredths(b, 5), "0.05");
    assert_string_equal(esc_hundredths(b, 0), "0.00");
    assert_string_equal(esc_hundredths(b, 10000), "100.00");
}

static void test_display_names_replace_controls_and_invalid_utf8(void **state)
{
    (void)state;
    size_t w;
    char *d = esc_display_name("ab\x1b[31m\xc3", 8, &w);
    assert_string_equal(d, "ab\xef\xbf\xbd[31m\xef\xbf\xbd");
    assert_int_equal(w, 8);
    free(d);
    d = esc_display_name("caf\xc3\xa9", 5, &w);
    assert_string_equal(d, "caf\xc3\xa9");
    assert_int_equal(w, 4);
    free(d);
}

static void test_utf8_lengths_refuse_truncation_and_surrogates(void **state)
{
    (void)state;
    assert_int_equal(esc_utf8_len((const unsigned char *)"\xc3\xa9", 2), 2);
    assert_int_equal(esc_utf8_len((const unsigned char *)"\xc3", 1), 0);
    assert_int_equal(esc_utf8_len((const unsigned char *)"\xed\xa0\x80", 3), 0);
    assert_int_equal(esc_utf8_len((const unsigned char *)"\xf0\x9f\x98\x80", 4), 4);
    assert_int_equal(esc_utf8_len((const unsigned char *)"\xc0\xaf", 2), 0); /* overlong */
}

/* The page's text and attributes: markup, a quote, an apostrophe and an
 * ampersand as entities; control bytes (tab and newline kept) and invalid
 * UTF-8 as U+FFFD; valid UTF-8 as it is */
static void test_html_text_and_attributes_escape_markup_and_bytes(void **state)
{
    (void)state;
    const char *img = "<img src=x onerror=\"alert('1')\">&amp;";
    char *p = written(esc_html, img, strlen(img));
    assert_string_equal(p, "&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;&amp;amp;");
    free(p);
    p = written(esc_html, "</style>]]>\x01\x1b\t\n\x7f", 16);
    assert_string_equal(p, "&lt;/style&gt;]]&gt;\xEF\xBF\xBD\xEF\xBF\xBD\t\n\xEF\xBF\xBD");
    free(p);
    p = written(esc_html, "caf\xC3\xA9 \xC3 \xFF", 9);
    assert_string_equal(p, "caf\xC3\xA9 \xEF\xBF\xBD \xEF\xBF\xBD");
    free(p);
    p = written(esc_html, "a\0b", 3); /* a NUL is no end of the text */
    assert_string_equal(p, "a\xEF\xBF\xBD" "b");
    free(p);
}

/* A chart's SVG inlined: its markup as it is, its invalid UTF-8 and
 * control bytes (tab, newline, carriage return kept) as U+FFFD */
static void test_svg_markup_kept_bytes_replaced(void **state)
{
    (void)state;
    const char *svg = "<text x=\"1\">&lt;b&gt; caf\xC3\xA9</text>\r\n\t";
    char *p = written(esc_display_svg, svg, strlen(svg));
    assert_string_equal(p, svg);
    free(p);
    p = written(esc_display_svg, "<t>\xFF\x01\x7f\xC3</t>\0", 12);
    assert_string_equal(p, "<t>\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD</t>\xEF\xBF\xBD");
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_strings_escape_quotes_controls_and_invalid_utf8),
        cmocka_unit_test(test_label_values_escape_backslash_quote_newline),
        cmocka_unit_test(test_a_double_is_the_shortest_that_reads_back),
        cmocka_unit_test(test_hundredths_print_two_decimals),
        cmocka_unit_test(test_display_names_replace_controls_and_invalid_utf8),
        cmocka_unit_test(test_utf8_lengths_refuse_truncation_and_surrogates),
        cmocka_unit_test(test_html_text_and_attributes_escape_markup_and_bytes),
        cmocka_unit_test(test_svg_markup_kept_bytes_replaced),
    };
    return cmocka_run_group_tests_name("escape", tests, NULL, NULL);
}
