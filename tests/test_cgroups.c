/* What bounds php-fpm's master, on the fixture trees: fixtures/world (cgroup
 * v2, a cpuset of CPU 1) and fixtures/world-v1 (cgroup v1, cpu and cpuacct
 * mounted apart, a quota of 1.5 cores) (docs/rules.md 16). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "cgroups.h"

#define V2 "fixtures/world"
#define V1 "fixtures/world-v1"

static void test_v2_cgroup_of_the_master(void **state)
{
    (void)state;
    cg_place cg;
    assert_int_equal(cg_find(V2 "/proc", V2 "/sys", 100, &cg), 0);
    assert_int_equal(cg.version, 2);
    for (int k = 0; k < CG_NCTRL; k++)
        assert_string_equal(cg.dir[k], V2 "/sys/fs/cgroup/system.slice/php8.2-fpm.service");
    assert_string_equal(cg.rel, "/system.slice/php8.2-fpm.service");
    assert_int_equal(cg_quota(&cg), 1500);
    assert_int_equal(cg_find(V2 "/proc", V2 "/sys", 101, &cg), -1); /* no cgroup file */
}

static void test_v1_each_controller_on_its_own_mount(void **state)
{
    (void)state;
    cg_place cg;
    assert_int_equal(cg_find(V1 "/proc", V1 "/sys", 100, &cg), 0);
    assert_int_equal(cg.version, 1);
    assert_string_equal(cg.dir[CG_CPU], V1 "/sys/fs/cgroup/cpu/php-fpm");
    assert_string_equal(cg.dir[CG_CPUACCT], V1 "/sys/fs/cgroup/cpuacct/php-fpm");
    assert_string_equal(cg.dir[CG_MEMORY], V1 "/sys/fs/cgroup/memory/php-fpm");
    assert_string_equal(cg.rel, "/php-fpm");
}

static void test_v1_quota_from_cfs_files(void **state)
{
    (void)state;
    cg_place cg;
    assert_int_equal(cg_find(V1 "/proc", V1 "/sys", 100, &cg), 0);
    assert_int_equal(cg_quota(&cg), 1500); /* 150000 / 100000 */
    strcpy(cg.dir[CG_CPU], V1 "/sys/fs/cgroup/cpuacct/php-fpm"); /* no cfs files there */
    assert_int_equal(cg_quota(&cg), 0);
}

static void test_master_cpu_list_from_its_affinity(void **state)
{
    (void)state;
    char cpus[64];
    assert_int_equal(cg_cpus(V2 "/proc", 100, cpus, sizeof cpus), 0);
    assert_string_equal(cpus, "1");
    assert_int_equal(cg_cpus(V1 "/proc", 100, cpus, sizeof cpus), 0);
    assert_string_equal(cpus, "0-1");
    assert_int_equal(cg_cpus(V2 "/proc", 101, cpus, sizeof cpus), -1);
    assert_string_equal(cpus, "-");
}

/* 16.4: how the scheduler groups the master: its autogroup, its cgroup's
 * weight and whether the cpu controller groups it */
static void test_16_4_the_scheduler_groups_of_the_master(void **state)
{
    (void)state;
    cg_place cg;
    cg_sched sg;
    assert_int_equal(cg_find(V2 "/proc", V2 "/sys", 100, &cg), 0);
    cg_sched_of(V2 "/proc", 100, &cg, &sg);
    assert_string_equal(sg.autogroup, "/autogroup-54 nice 0");
    assert_string_equal(sg.weight, "100");
    assert_string_equal(sg.weight_kind, "weight");
    assert_string_equal(sg.controller, "1");
    assert_int_equal(cg_find(V1 "/proc", V1 "/sys", 100, &cg), 0);
    cg_sched_of(V1 "/proc", 100, &cg, &sg);
    assert_string_equal(sg.autogroup, "-"); /* no autogroup file */
    assert_string_equal(sg.weight, "512");
    assert_string_equal(sg.weight_kind, "shares");
    assert_string_equal(sg.controller, "1"); /* its cpu cgroup is not the root one */
    cg.dir[CG_CPU][0] = '\0';                /* the root cpu cgroup */
    cg_sched_of(V1 "/proc", 100, &cg, &sg);
    assert_string_equal(sg.controller, "0");
    assert_string_equal(sg.weight, "-");
    assert_string_equal(sg.weight_kind, "-");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v2_cgroup_of_the_master),
        cmocka_unit_test(test_v1_each_controller_on_its_own_mount),
        cmocka_unit_test(test_v1_quota_from_cfs_files),
        cmocka_unit_test(test_master_cpu_list_from_its_affinity),
        cmocka_unit_test(test_16_4_the_scheduler_groups_of_the_master),
    };
    return cmocka_run_group_tests_name("cgroups", tests, NULL, NULL);
}
