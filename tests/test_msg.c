/* The one message style: PROG: TEXT, parts, damage, said once until it changes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "msg.h"

static void test_messages_name_the_program(void **state)
{
    (void)state;
    char b[512] = "";
    FILE *f = fmemopen(b, sizeof b, "w");
    msg_init("prog");
    msg_stream(f);
    msg_warnx("%s: bad", "LOG");
    msg_start("a list:");
    msg_more(" %d,", 1);
    msg_more(" %d", 2);
    msg_end();
    msg_damage("LOG", 1234, 0, 0, "bad CRC, record skipped");
    msg_damage("LOG", 100, 1, 77, "bad CRC, record skipped");
    msg_stream(NULL);
    fclose(f);
    assert_string_equal(b, "prog: LOG: bad\n"
                           "prog: a list: 1, 2\n"
                           "prog: LOG: offset 1234: bad CRC, record skipped\n"
                           "prog: LOG: offset 100: in the zstd frame there, decoded byte 77: "
                           "bad CRC, record skipped\n");
}

static void test_a_problem_is_said_once_until_it_changes(void **state)
{
    (void)state;
    msg_once o = {{0}};
    assert_int_equal(msg_changed(&o, ""), 0);
    assert_int_equal(msg_changed(&o, "refused"), MSG_NEW);
    assert_int_equal(msg_changed(&o, "refused"), 0);
    assert_int_equal(msg_changed(&o, "timeout"), MSG_NEW);
    assert_int_equal(msg_changed(&o, ""), MSG_GONE);
    assert_int_equal(msg_changed(&o, ""), 0);
    assert_int_equal(msg_changed(&o, "refused"), MSG_NEW);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_messages_name_the_program),
        cmocka_unit_test(test_a_problem_is_said_once_until_it_changes),
    };
    return cmocka_run_group_tests_name("msg", tests, NULL, NULL);
}
