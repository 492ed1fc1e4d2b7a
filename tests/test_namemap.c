/* namemap: names to values by hashing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "namemap.h"

static void test_names_are_found_by_their_bytes(void **state)
{
    (void)state;
    namemap m = {0};
    static char names[5000][16];
    for (int i = 0; i < 5000; i++) {
        snprintf(names[i], sizeof names[i], "pool%d", i);
        assert_int_equal(namemap_put(&m, names[i], strlen(names[i]), (uintptr_t)i), 0);
    }
    uintptr_t v;
    for (int i = 0; i < 5000; i++) {
        assert_int_equal(namemap_get(&m, names[i], strlen(names[i]), &v), 1);
        assert_int_equal(v, i);
    }
    assert_int_equal(namemap_get(&m, "pool", 4, &v), 0);      /* a prefix is another name */
    assert_int_equal(namemap_get(&m, "pool1\0", 6, &v), 0);   /* so is a longer one */
    assert_int_equal(namemap_put(&m, "", 0, 7), 0);           /* an empty name is a name */
    assert_int_equal(namemap_get(&m, "", 0, &v), 1);
    assert_int_equal(v, 7);
    namemap_clear(&m);
    assert_int_equal(namemap_get(&m, names[3], strlen(names[3]), &v), 0);
    namemap_free(&m);
    namemap_free(&m); /* twice is fine */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_are_found_by_their_bytes),
    };
    return cmocka_run_group_tests_name("namemap", tests, NULL, NULL);
}
