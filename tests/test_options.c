/* fpm-analyze's command line: commands, which options go with which, values checked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "options.h"
#include "testlib.h"

static char said[1024];

/* options_parse on the words of line (at most 15), what it said in said. */
static int parse(const char *line, config *cfg)
{
    static char buf[512];
    static char *argv[16];
    snprintf(buf, sizeof buf, "fpm-analyze %s", line);
    int argc = tl_split(buf, argv, 16);
    memset(cfg, 0, sizeof *cfg);
    FILE *f = fmemopen(said, sizeof said, "w");
    msg_stream(f);
    optind = 0; /* getopt starts afresh */
    int rc = options_parse(argc, argv, cfg);
    msg_stream(NULL);
    fclose(f);
    rd_prefixes_free(&cfg->own_uri);
    return rc;
}

static void test_the_defaults(void **state)
{
    (void)state;
    config c;
    assert_int_equal(parse("x.log", &c), -1);
    assert_int_equal(c.command, CMD_REPORT);
    assert_string_equal(c.format->name, "text");
    assert_int_equal(c.scenario.headroom, 200);
    assert_true(c.cutoff == 99.99);
    assert_true(c.max_rise == 10);
    assert_null(c.output);
    assert_int_equal(c.nlogs, 1);
    assert_string_equal(c.logs[0], "x.log");
    assert_true(c.threads >= 1 && c.threads <= 64);
}

static void test_a_command_takes_its_own_options(void **state)
{
    (void)state;
    config c;
    assert_int_equal(parse("hist --pool shop --cutoff 90 x.log", &c), -1);
    assert_int_equal(c.command, CMD_HIST);
    assert_string_equal(c.pool, "shop");
    assert_true(c.cutoff == 90);
    assert_int_equal(parse("--cutoff 90 x.log", &c), 2);
    assert_string_equal(said, "fpm-analyze: option \"--cutoff\" does not go with \"fpm-analyze\"\n"
                              "Try \"fpm-analyze --help\" for more information.\n");
    assert_int_equal(parse("--pool shop x.log", &c), 2);
    assert_non_null(strstr(said, "option \"--pool\" goes with \"fpm-analyze hist\""));
    assert_int_equal(parse("check x.log", &c), 2);
    assert_non_null(strstr(said, "check needs --baseline BASE.json"));
    assert_int_equal(parse("histo x.log", &c), 2);
    assert_non_null(strstr(said, "\"histo\" is neither a command"));
}

static void test_numbers_are_checked_against_their_range(void **state)
{
    (void)state;
    config c;
    assert_int_equal(parse("--threads 3 --cores 8 --headroom 1.5 x.log", &c), -1);
    assert_int_equal(c.threads, 3);
    assert_int_equal(c.scenario.host_millicores, 8000);
    assert_int_equal(c.scenario.headroom, 150);
    static const char *const bad[] = {"--threads 0 x.log", "--threads 4294967298 x.log",
                                      "--cores 18446744073709551617 x.log", "--headroom 0.99 x.log",
                                      "--headroom 1.005 x.log", "--host-millicores -5 x.log",
                                      "--max-children shop= x.log", "--max-children =3 x.log"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (parse(bad[i], &c) != 2)
            fail_msg("\"%s\" was taken", bad[i]);
}

static void test_max_children_are_kept_in_order(void **state)
{
    (void)state;
    config c;
    assert_int_equal(parse("--max-children shop=8 --max-children a=b=3 x.log", &c), -1);
    assert_int_equal(c.scenario.nmax_children, 2);
    assert_string_equal(c.max_children[0].pool, "shop");
    assert_int_equal(c.max_children[0].max_children, 8);
    assert_string_equal(c.max_children[1].pool, "a=b"); /* the last '=' splits */
    assert_int_equal(c.max_children[1].max_children, 3);
}

static void test_one_thing_goes_to_standard_output(void **state)
{
    (void)state;
    config c;
    assert_int_equal(parse("-o - x.log", &c), -1);
    assert_null(c.output);
    assert_int_equal(parse("--csv-rounds - -o r.txt x.log", &c), -1);
    assert_string_equal(c.csv_rounds, "-");
    assert_int_equal(parse("--csv-rounds - x.log", &c), 2);
    assert_non_null(strstr(said, "--csv-rounds -: standard output carries the report"));
    assert_int_equal(parse("--csv-rounds - --csv-readings - -o r x.log", &c), 2);
}

static void test_a_clock_time_is_left_for_the_first_log(void **state)
{
    (void)state;
    config c;
    assert_int_equal(parse("--from 14:00 --until 2026-11-29T15:00:00Z x.log", &c), -1);
    assert_int_equal(c.from_sod, 14 * 3600);
    assert_int_equal(c.until_sod, -1);
    assert_true(c.scenario.has_until);
    assert_int_equal(options_window(&c, 1795910400ull * 1000000000ull, 1), -1);
    assert_true(c.scenario.from_ns == (1795910400ull + 14 * 3600) * 1000000000ull);
    assert_int_equal(parse("--from 16:00 --until 2026-11-29T15:00:00Z x.log", &c), -1);
    FILE *f = fmemopen(said, sizeof said, "w");
    msg_stream(f);
    int rc = options_window(&c, 1795910400ull * 1000000000ull, 1);
    msg_stream(NULL);
    fclose(f);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(said, "--from must come before --until"));
    assert_int_equal(parse("--from 2026-11-29T14:00:00 x.log", &c), 2);
    assert_non_null(strstr(said, "give the zone"));
}

int main(void)
{
    msg_init("fpm-analyze");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_defaults),
        cmocka_unit_test(test_a_command_takes_its_own_options),
        cmocka_unit_test(test_numbers_are_checked_against_their_range),
        cmocka_unit_test(test_max_children_are_kept_in_order),
        cmocka_unit_test(test_one_thing_goes_to_standard_output),
        cmocka_unit_test(test_a_clock_time_is_left_for_the_first_log),
    };
    return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
