/* docs/rules.md section 7b: the times of --from and --until. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "timearg.h"

#define S 1000000000ull

static void test_iso_8601_with_a_zone_or_an_offset(void **state)
{
    (void)state;
    static const struct { const char *s; uint64_t ns; } c[] = {
        {"2026-11-29T14:00:00Z", 1795960800ull * S},
        {"2026-11-29t14:00Z", 1795960800ull * S},
        {"2026-11-29 15:00:00+01:00", 1795960800ull * S},
        {"2026-11-29T09:30-0430", 1795960800ull * S},
        {"2026-11-29T14:00:00.25Z", 1795960800ull * S + 250000000},
        {"@1795960800", 1795960800ull * S},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        uint64_t ns = 0;
        long sod;
        assert_int_equal(timearg_parse(c[i].s, &ns, &sod), TA_OK);
        if (ns != c[i].ns)
            fail_msg("%s: %llu", c[i].s, (unsigned long long)ns);
    }
}

static void test_clock_times_and_errors(void **state)
{
    (void)state;
    uint64_t ns;
    long sod = -1;
    assert_int_equal(timearg_parse("14:30", &ns, &sod), TA_CLOCK);
    assert_int_equal(sod, 14 * 3600 + 30 * 60);
    assert_int_equal(timearg_parse("00:00:59", &ns, &sod), TA_CLOCK);
    assert_int_equal(sod, 59);
    assert_int_equal(timearg_parse("2026-11-29T14:00:00", &ns, &sod), TA_NO_ZONE);
    static const char *const bad[] = {"", "yesterday", "25:00", "14:60", "2026-13-01T00:00Z",
                                      "2026-11-29", "@", "@-5", "@12x", "2026-11-29T14:00:00Q"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (timearg_parse(bad[i], &ns, &sod) != TA_BAD)
            fail_msg("\"%s\" was taken", bad[i]);
}

static void test_format_is_utc_iso_8601(void **state)
{
    (void)state;
    char b[40];
    timearg_format(1795960800ull * S, b);
    assert_string_equal(b, "2026-11-29T14:00:00Z");
    timearg_format(1795960800ull * S + 250000000, b);
    assert_string_equal(b, "2026-11-29T14:00:00.250Z");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_iso_8601_with_a_zone_or_an_offset),
        cmocka_unit_test(test_clock_times_and_errors),
        cmocka_unit_test(test_format_is_utc_iso_8601),
    };
    return cmocka_run_group_tests_name("timearg", tests, NULL, NULL);
}
