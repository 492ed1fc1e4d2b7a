/* The text-table engine: alignment, widths in code points, no caps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

static char *print(const table *t)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    assert_int_equal(tbl_print(f, t), 0);
    fclose(f);
    return s;
}

static void test_columns_line_up_and_trailing_spaces_are_cut(void **state)
{
    (void)state;
    static const int left[3] = {1, 0, 1};
    table t = tbl_new(3, left);
    tbl_cell(&t, "POOL");
    tbl_cell(&t, "N");
    tbl_cell(&t, "LIMIT");
    tbl_cell(&t, "a\xe2\x86\x92");   /* 2 code points, 4 bytes */
    tbl_cell(&t, "12345");
    tbl_cell(&t, "%s", "");
    char *s = print(&t);
    assert_string_equal(s, "POOL      N  LIMIT\n"
                           "a\xe2\x86\x92    12345\n");
    assert_string_equal(tbl_get(&t, 1, 1), "12345");
    assert_string_equal(tbl_get(&t, 5, 1), "");
    free(s);
    tbl_free(&t);
}

/* The old engine stopped at 16 columns, 256-byte cells and 4096-byte lines. */
static void test_no_cap_on_columns_cells_or_lines(void **state)
{
    (void)state;
    static int left[40];
    table t = tbl_new(40, left);
    char big[6000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    for (int c = 0; c < 40; c++)
        tbl_cell(&t, "%s%d", c == 39 ? big : "", c);
    char *s = print(&t);
    assert_int_equal(strlen(s), 10 * 1 + 29 * 2 + (5999 + 2) + 39 * 2 + 1);
    assert_non_null(strstr(s, "0  1  2"));
    free(s);
    tbl_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_columns_line_up_and_trailing_spaces_are_cut),
        cmocka_unit_test(test_no_cap_on_columns_cells_or_lines),
    };
    return cmocka_run_group_tests_name("table", tests, NULL, NULL);
}
