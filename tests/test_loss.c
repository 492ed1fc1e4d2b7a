/* What damage cost (loss.h): rounds counted by their seq, the span of time
 * between the rounds read on either side, a stretch that runs to the end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "loss.h"

#define T0 1795990000000000000ull /* 2026-11-29T22:06:40Z */
#define S  1000000000ull

static uint64_t round_at(loss *l, uint64_t t, uint64_t seq, char *say)
{
    return loss_round(l, T0 + t * S, 1, seq, 1, 100, say, 300);
}

static void test_rounds_lost_are_counted_by_seq_with_their_span(void **state)
{
    (void)state;
    loss l = {0};
    char say[300];
    loss_file(&l);
    round_at(&l, 0, 1, say);
    round_at(&l, 30, 2, say);
    loss_damage(&l, 1234);
    loss_damage(&l, 5678); /* the same stretch */
    assert_int_equal(round_at(&l, 150, 6, say), 3);
    assert_string_equal(say, "offset 1234: 3 rounds lost, between 2026-11-29T22:07:10Z and "
                             "2026-11-29T22:09:10Z");
    loss_summary(&l, say, sizeof say);
    assert_string_equal(say, "3 rounds lost, between 2026-11-29T22:07:10Z and 2026-11-29T22:09:10Z");
}

static void test_damage_that_cost_no_round_says_nothing(void **state)
{
    (void)state;
    loss l = {0};
    char say[300];
    loss_file(&l);
    round_at(&l, 0, 1, say);
    loss_damage(&l, 99);
    assert_int_equal(round_at(&l, 30, 2, say), 0);
    assert_string_equal(say, "");
    loss_summary(&l, say, sizeof say);
    assert_string_equal(say, "every complete round around them was used");
}

static void test_a_new_recorder_run_leaves_the_count_unknown(void **state)
{
    (void)state;
    loss l = {0};
    char say[300];
    loss_file(&l);
    round_at(&l, 0, 7, say);
    loss_damage(&l, 42);
    loss_new_run(&l); /* a HOST record: seq counts from 1 again */
    assert_int_equal(round_at(&l, 90, 1, say), 0);
    assert_string_equal(say, "offset 42: the rounds between 2026-11-29T22:06:40Z and "
                             "2026-11-29T22:08:10Z are lost (how many is not known: a recorder "
                             "restarted there)");
}

static void test_damage_to_the_end_of_the_file(void **state)
{
    (void)state;
    loss l = {0};
    char say[300];
    loss_file(&l);
    round_at(&l, 0, 1, say);
    loss_damage(&l, 777);
    loss_file_end(&l, say, sizeof say);
    assert_string_equal(say, "offset 777: what follows it to the end of the file is lost (the "
                             "last round read is of 2026-11-29T22:06:40Z)");
    loss_summary(&l, say, sizeof say);
    assert_string_equal(say, "what followed 2026-11-29T22:06:40Z to the end of the file is lost");
}

static void test_rounds_read_from_a_frame(void **state)
{
    (void)state;
    loss l = {0};
    char say[300];
    loss_file(&l);
    loss_round(&l, T0, 1, 1, 1, 100, say, sizeof say);
    loss_round(&l, T0 + S, 1, 2, 1, 500, say, sizeof say);
    loss_round(&l, T0 + 2 * S, 1, 3, 1, 500, say, sizeof say);
    assert_int_equal(loss_frame_rounds(&l, 500), 2);
    assert_int_equal(loss_frame_rounds(&l, 100), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rounds_lost_are_counted_by_seq_with_their_span),
        cmocka_unit_test(test_damage_that_cost_no_round_says_nothing),
        cmocka_unit_test(test_a_new_recorder_run_leaves_the_count_unknown),
        cmocka_unit_test(test_damage_to_the_end_of_the_file),
        cmocka_unit_test(test_rounds_read_from_a_frame),
    };
    return cmocka_run_group_tests_name("loss", tests, NULL, NULL);
}
