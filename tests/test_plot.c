/* plot: a name from a log inside a gnuplot script. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "out_plot.h"

/* A name is one single-quoted gnuplot string: a quote inside is doubled
 * (gnuplot's only escape there), control bytes become '?'. */
static void test_a_name_is_one_single_quoted_string(void **state)
{
    (void)state;
    static const char name[] = "it's '; system(\"x\"); '\n\x7f";
    char out[3 * sizeof name + 3];
    plot_quote(out, name, sizeof name - 1);
    assert_string_equal(out, "'it''s ''; system(\"x\"); ''?\?'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_name_is_one_single_quoted_string),
    };
    return cmocka_run_group_tests_name("plot", tests, NULL, NULL);
}
