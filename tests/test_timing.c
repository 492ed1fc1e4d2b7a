/* fpm-analyze timing: a TIMING record in pg_test_timing's two blocks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timing.h"

static char *print(const char *payload, double cutoff)
{
    timing_rec t;
    assert_int_equal(timing_parse((const unsigned char *)payload, strlen(payload), &t), 0);
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    timing_print(f, &t, cutoff);
    fclose(f);
    return s;
}

#define REC "clock=monotonic\nduration_ns=1000\nloops=10\nper_loop_ns=100.00\nbackwards=0\n" \
            "log2=0,0,0,0,0,6,3,0,0,0,0,1\nexact=16:2,17:4,40:3\n"

static void test_two_blocks_up_to_the_cutoff_then_the_largest(void **state)
{
    (void)state;
    char *s = print(REC "largest_ns=2000\n", 50);
    assert_string_equal(s,
        "Average loop time including overhead: 100.00 ns\n"
        "Histogram of timing durations:\n"
        "   <= ns   % of total  running %      count\n"
        "       0       0.0000     0.0000          0\n"
        "       1       0.0000     0.0000          0\n"
        "       3       0.0000     0.0000          0\n"
        "       7       0.0000     0.0000          0\n"
        "      15       0.0000     0.0000          0\n"
        "      31      60.0000    60.0000          6\n"
        "      63      30.0000    90.0000          3\n"
        "     127       0.0000    90.0000          0\n"
        "     255       0.0000    90.0000          0\n"
        "     511       0.0000    90.0000          0\n"
        "    1023       0.0000    90.0000          0\n"
        "    2047      10.0000   100.0000          1\n"
        "\n"
        "Observed timing durations up to 50.0000%:\n"
        "      ns   % of total  running %      count\n"
        "      16      20.0000    20.0000          2\n"
        "      17      40.0000    60.0000          4\n"
        "...\n"
        "    2000            -   100.0000          -\n");
    free(s);
    /* a largest under 1024 ns is printed with its count; once reached, not twice */
    s = print(REC "largest_ns=40\n", 99.99);
    assert_non_null(strstr(s, "      40      30.0000    90.0000          3\n"));
    assert_null(strstr(s, "..."));
    free(s);
    s = print(REC "largest_ns=40\n", 10);
    assert_non_null(strstr(s, "      16      20.0000    20.0000          2\n...\n"
                              "      40      30.0000   100.0000          3\n"));
    free(s);
}

static void test_a_record_that_is_not_a_clock_check(void **state)
{
    (void)state;
    timing_rec t;
    static const char *const bad[] = {
        "clock=realtime\nloops=1\nduration_ns=1\nlog2=1\n", /* another clock */
        "clock=monotonic\nduration_ns=1\nlog2=1\n",         /* no loops */
        "clock=monotonic\nloops=1\nduration_ns=1\nlog2=1,x\n",
        "clock=monotonic\nloops=1\nduration_ns=1\nlog2=1\nexact=1024:1\n", /* not exact */
        "clock=monotonic\nloops=1\nduration_ns=1\nlog2=1\nexact=5\n",
        "clock=monotonic\nloops=1\nduration_ns=1\nlog2=18446744073709551616\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(timing_parse((const unsigned char *)bad[i], strlen(bad[i]), &t), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_blocks_up_to_the_cutoff_then_the_largest),
        cmocka_unit_test(test_a_record_that_is_not_a_clock_check),
    };
    return cmocka_run_group_tests_name("timing", tests, NULL, NULL);
}
