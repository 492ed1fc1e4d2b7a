/* svgin: a chart's SVG inlined into the page. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svgin.h"

/* What svgin_write wrote of s, and its return in *rc. */
static char *inlined(const char *s, const char *label, int keep_defs, int *rc)
{
    char *p = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&p, &len);
    *rc = svgin_write(f, s, strlen(s), label, keep_defs);
    fclose(f);
    return p;
}

/* gnuplot's svg terminal, as it writes a chart (5.4), cut short */
static const char GNUPLOT[] =
    "<?xml version=\"1.0\" encoding=\"utf-8\"  standalone=\"no\"?>\n"
    "<svg \n width=\"720\" height=\"440\"\n viewBox=\"0 0 720 440\"\n"
    " xmlns=\"http://www.w3.org/2000/svg\"\n xmlns:xlink=\"http://www.w3.org/1999/xlink\"\n>\n\n"
    "<title>Gnuplot</title>\n<desc>Produced by GNUPLOT 5.4 patchlevel 4 </desc>\n\n"
    "<g id=\"gnuplot_canvas\">\n\n<rect x=\"0\" y=\"0\" width=\"720\" height=\"440\" fill=\"none\"/>\n"
    "<defs>\n\t<circle id='gpDot' r='0.5'/>\n</defs>\n"
    "<g fill=\"none\" color=\"white\" stroke=\"currentColor\" stroke-width=\"1.00\" "
    "stroke-linecap=\"butt\" stroke-linejoin=\"miter\">\n</g>\n"
    "<g fill=\"none\" color=\"gray\" stroke=\"gray\" stroke-width=\"0.50\" stroke-linecap=\"butt\" "
    "stroke-linejoin=\"miter\">\n\t<path stroke='gray' class=\"gridline\"  d='M1.00,2.00 L3.00,4.00\n"
    "\t\tL5.00,6.00  '/>\t<g transform=\"translate(47.36,88.13)\" stroke=\"none\" fill=\"black\" "
    "font-family=\"Arial\" font-size=\"12.00\"  text-anchor=\"end\">\n"
    "\t\t<text>a &lt;/style> caf\xC3 \x01</text>\n\t</g>\n"
    "\t<use xlink:href='#gpPt6' transform='translate(1,2) scale(2.70)' color='rgb(148,   0, 211)'/>\n"
    "</g>\n</g>\n</svg>\n\n";

/* Its namespaces, title, description, empty groups, canvas id, the
 * attributes SVG has anyway and the layout between tags left out; the
 * rest as written, its invalid UTF-8 and control bytes as U+FFFD; the
 * label as the image's name */
static void test_a_gnuplot_chart_is_inlined_smaller(void **state)
{
    (void)state;
    int rc;
    char *p = inlined(GNUPLOT, "CPU & \"x\"", 1, &rc);
    assert_int_equal(rc, 0);
    assert_string_equal(p,
        "<svg class=\"chart\" role=\"img\" aria-label=\"CPU &amp; &quot;x&quot;\" width=\"720\" "
        "height=\"440\" viewBox=\"0 0 720 440\">\n"
        "<g>\n<rect x=\"0\" y=\"0\" width=\"720\" height=\"440\" fill=\"none\"/>\n"
        "<defs>\n<circle id='gpDot' r='0.5'/>\n</defs>\n"
        "<g fill=\"none\" color=\"gray\" stroke=\"gray\" stroke-width=\"0.50\">\n"
        "<path stroke='gray' d='M1.00,2.00 L3.00,4.00 L5.00,6.00 '/>\n"
        "<g transform=\"translate(47.36,88.13)\" stroke=\"none\" fill=\"black\" "
        "font-size=\"12.00\" text-anchor=\"end\">\n"
        "<text>a &lt;/style> caf\xEF\xBF\xBD \xEF\xBF\xBD</text>\n</g>\n"
        "<use xlink:href='#gpPt6' transform='translate(1,2) scale(2.70)' color='rgb(148, 0, 211)'/>\n"
        "</g>\n</g>\n</svg>\n");
    free(p);
}

/* One set of point markers serves the page: past its first chart the
 * <defs> is left out (the ids would repeat) */
static void test_the_markers_once_a_page(void **state)
{
    (void)state;
    int rc;
    char *p = inlined(GNUPLOT, "x", 0, &rc);
    assert_int_equal(rc, 0);
    assert_null(strstr(p, "<defs>"));
    assert_null(strstr(p, "gpDot"));
    assert_non_null(strstr(p, "xlink:href='#gpPt6'"));
    free(p);
}

/* A tag gnuplot does not write without `mouse`, a handler, a link out of
 * the chart: refused whole, nothing written */
static void test_a_script_a_handler_or_a_link_out_is_refused(void **state)
{
    (void)state;
    static const char *const BAD[] = {
        "<svg><script>alert(1)</script></svg>",
        "<svg onload=\"alert(1)\"></svg>",
        "<svg><g\tONclick='x'></g></svg>",
        "<svg><a href=\"#x\"><text>x</text></a></svg>",
        "<svg><use href=\"http://x/#a\"/></svg>",
        "<svg><use xlink:href='javascript:alert(1)'/></svg>",
        "<svg><g filter=\"url(http://x/f)\"></g></svg>",
        "<svg><foreignObject><p>x</p></foreignObject></svg>",
        "<svg><!-- a comment --></svg>",
        "<svg><g fill=\"none\"</svg>",
        "<svg><g></g>",
        "no chart here",
    };
    for (size_t k = 0; k < sizeof BAD / sizeof BAD[0]; k++) {
        int rc;
        char *p = inlined(BAD[k], "x", 1, &rc);
        if (rc != -1 || p[0])
            fail_msg("not refused: %s", BAD[k]);
        free(p);
    }
}

/* Links within the chart, and a text that only names a handler, are kept */
static void test_links_within_the_chart_are_kept(void **state)
{
    (void)state;
    int rc;
    char *p = inlined("<svg><g filter='url(#textbox)'><use xlink:href='#gpPt1'/>"
                      "<text>onload=&quot;x&quot; &lt;script></text></g></svg>", "x", 1, &rc);
    assert_int_equal(rc, 0);
    assert_string_equal(p, "<svg class=\"chart\" role=\"img\" aria-label=\"x\"><g "
                           "filter='url(#textbox)'><use xlink:href='#gpPt1'/><text>onload=&quot;"
                           "x&quot; &lt;script></text></g></svg>\n");
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_gnuplot_chart_is_inlined_smaller),
        cmocka_unit_test(test_the_markers_once_a_page),
        cmocka_unit_test(test_a_script_a_handler_or_a_link_out_is_refused),
        cmocka_unit_test(test_links_within_the_chart_are_kept),
    };
    return cmocka_run_group_tests_name("svgin", tests, NULL, NULL);
}
