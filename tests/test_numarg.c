/* Numbers from outside: the whole text, in range, never wrapped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "numarg.h"

static void test_a_whole_number_is_all_of_the_text_in_range(void **state)
{
    (void)state;
    long long v = -7;
    assert_int_equal(num_whole("19", 0, 19, &v), 0);
    assert_int_equal(v, 19);
    assert_int_equal(num_whole("0", 0, 19, &v), 0);
    assert_int_equal(v, 0);
    static const char *const bad[] = {"20", "4294967299", "18446744073709551617",
                                      "99999999999999999999", "-1", "+3", " 3", "3 ", "3k",
                                      "", "x", "0x10", "1e3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        v = -7;
        if (num_whole(bad[i], 0, 19, &v) != -1 || v != -7)
            fail_msg("\"%s\" was taken", bad[i]);
    }
    assert_int_equal(num_whole("-5", -10, 10, &v), 0);
    assert_int_equal(v, -5);
    assert_int_equal(num_whole("9223372036854775807", 0, 9223372036854775807LL, &v), 0);
    assert_int_equal(num_whole("9223372036854775808", 0, 9223372036854775807LL, &v), -1);
}

static void test_a_real_number_is_all_of_the_text_in_range(void **state)
{
    (void)state;
    double v = -7;
    assert_int_equal(num_real("99.99", 0, 100, &v), 0);
    assert_true(v == 99.99);
    assert_int_equal(num_real(".5", 0, 100, &v), 0);
    assert_true(v == 0.5);
    assert_int_equal(num_real("100", 0, 100, &v), 0);
    static const char *const bad[] = {"100.01", "nan", "inf", "-0.5", "+1", " 1", "1%", "",
                                      "1e400"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        v = -7;
        if (num_real(bad[i], 0, 100, &v) != -1 || v != -7)
            fail_msg("\"%s\" was taken", bad[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_whole_number_is_all_of_the_text_in_range),
        cmocka_unit_test(test_a_real_number_is_all_of_the_text_in_range),
    };
    return cmocka_run_group_tests_name("numarg", tests, NULL, NULL);
}
