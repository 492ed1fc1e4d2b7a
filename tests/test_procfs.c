/* /proc and cgroup parsers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "procfs.h"
#include "testlib.h"

static void test_host_busy_is_everything_but_idle_and_iowait(void **state)
{
    (void)state;
    /* user nice system idle iowait irq softirq steal guest guest_nice */
    const char *s = "cpu  100 20 30 9999 8888 4 5 6 70 80\ncpu0 1 1 1 1 1 1 1 1 1 1\nintr 5\n";
    uint64_t b;
    assert_int_equal(procfs_stat_busy(s, strlen(s), &b), 0);
    assert_int_equal(b, 100 + 20 + 30 + 4 + 5 + 6);
    /* an old kernel's four fields */
    assert_int_equal(procfs_stat_busy("cpu  1 2 3 4\n", 13, &b), 0);
    assert_int_equal(b, 6);
    assert_int_equal(procfs_stat_busy("cpu0 1 2 3 4\n", 13, &b), -1);
    assert_int_equal(procfs_stat_busy("cpu  1 2\n", 9, &b), -1);
    assert_int_equal(procfs_stat_busy("", 0, &b), -1);
}

static void test_worker_cpu_is_fields_14_to_17(void **state)
{
    (void)state;
    const char *real = "8775 (php-fpm8.2) S 8774 8774 8774 0 -1 4194624 1090 0 0 0 "
                       "11 7 3 2 20 0 1 0 11694 207532032 2711 18446744073709551615";
    int64_t pid;
    uint64_t t;
    assert_int_equal(procfs_pid_stat(real, strlen(real), &pid, &t), 0);
    assert_int_equal(pid, 8775);
    assert_int_equal(t, 11 + 7 + 3 + 2);
    /* comm may hold spaces and parentheses: fields count after the last ')' */
    const char *odd = "77 (a) b (c) S) R 1 1 1 0 -1 0 0 0 0 0 40 2 0 1 20 0";
    assert_int_equal(procfs_pid_stat(odd, strlen(odd), &pid, &t), 0);
    assert_int_equal(pid, 77);
    assert_int_equal(t, 43);
    /* cut short before cstime: unparsable */
    assert_int_equal(procfs_pid_stat(real, strstr(real, " 2 20") - real, &pid, &t), -1);
    assert_int_equal(procfs_pid_stat("x (a) S", 7, &pid, &t), -1);
}

/* Fields 3 to 13 are skipped 8 bytes at a time where every space is single;
 * any other spacing is read field by field, with the same answer: runs of
 * spaces part fields, and the 12th space may fall at any byte of a word. */
static void test_worker_cpu_however_the_line_is_spaced(void **state)
{
    (void)state;
    char line[256];
    int64_t pid;
    uint64_t t;
    for (int comm = 1; comm <= 17; comm++) {
        for (int gap = 1; gap <= 3; gap++) {
            for (int ppid = 1; ppid <= 8; ppid++) { /* moves the gap across a word's end */
                /* comm of `comm` bytes, ppid of `ppid` digits, `gap` spaces after it */
                int n = snprintf(line, sizeof line, "42 (%.*s) S %.*s%*s1 1 0 -1 4194624 7 0 0 0 "
                                 "%d 20 3 4 20 0 1 0 99", comm, "abcdefghijklmnopq", ppid,
                                 "87654321", gap, "", comm * 10);
                assert_int_equal(procfs_pid_stat(line, (size_t)n, &pid, &t), 0);
                assert_int_equal(pid, 42);
                assert_int_equal(t, (uint64_t)(comm * 10 + 27));
                /* cut inside the times: never read past len */
                char *c = strstr(line, " 20 3 4");
                assert_int_equal(procfs_pid_stat(line, (size_t)(c - line), &pid, &t), -1);
            }
        }
    }
    /* a '\n' before field 14 ends the line: nothing after it is read */
    const char *nl = "9 (x) S 1 1 1 0 -1 0 0\n0 0 0 5 5 5 5 20";
    assert_int_equal(procfs_pid_stat(nl, strlen(nl), &pid, &t), -1);
    /* no space after comm: the state is field 3 all the same */
    const char *tight = "9 (x)S 1 1 1 0 -1 0 0 0 0 0 5 6 7 8 20 0 1";
    assert_int_equal(procfs_pid_stat(tight, strlen(tight), &pid, &t), 0);
    assert_int_equal(t, 26);
}

static void count(void *arg, const procfs_proc *p)
{
    uint64_t *sum = arg;
    *sum += (uint64_t)p->pid * 1000 + p->ticks;
}

/* docs/rules.md 11.1, 11.2: the parent (4), the children's part (16, 17) and
 * the start time (22); a line that stops before field 22 has none. */
static void test_worker_ppid_child_ticks_and_starttime(void **state)
{
    (void)state;
    const char *real = "4242 (php-fpm8.2) S 77 4242 4242 0 -1 4194624 1069 0 0 0 "
                       "11 3 5 7 20 0 1 0 123456 229388288 4500 18446744073709551615";
    procfs_proc p;
    assert_int_equal(procfs_proc_stat(real, strlen(real), &p), 0);
    assert_int_equal(p.pid, 4242);
    assert_int_equal(p.ppid, 77);
    assert_int_equal(p.ticks, 26);
    assert_int_equal(p.child_ticks, 12);
    assert_int_equal(p.start, 123456);
    assert_int_equal(p.rss, 4500); /* field 24, pages (14.3: a master's memory) */
    /* doubled spaces: read field by field, the same */
    const char *spaced = "4242 (a b) S  77 4242 4242 0 -1 4194624 1069 0 0 0  11 3 5 7 "
                         "20 0 1 0  123456";
    assert_int_equal(procfs_proc_stat(spaced, strlen(spaced), &p), 0);
    assert_int_equal(p.ppid, 77);
    assert_int_equal(p.ticks, 26);
    assert_int_equal(p.start, 123456);
    /* cut after field 17: matched by pid alone */
    const char *cut = "4242 (php) S 77 4242 4242 0 -1 4194624 1069 0 0 0 11 3 5 7";
    assert_int_equal(procfs_proc_stat(cut, strlen(cut), &p), 0);
    assert_int_equal(p.ticks, 26);
    assert_int_equal(p.start, -1);
    assert_int_equal(p.rss, -1);
    /* negative children's times count 0 */
    const char *neg = "9 (x) S 1 1 1 0 -1 0 0 0 0 0 5 6 -7 8 20 0 1 0 5";
    assert_int_equal(procfs_proc_stat(neg, strlen(neg), &p), 0);
    assert_int_equal(p.ticks, 19);
    assert_int_equal(p.child_ticks, 8);
    assert_int_equal(procfs_proc_stat("9 (x) S", 7, &p), -1);
    /* a parent that is not a number: none known, the times still read in
     * their places (a lone "-" is no number: its sign stands before digits) */
    const char *odd = "9 (x) S - 0 10 0 0 0 0 0 0 0 0 0 1 0 1 1 1";
    assert_int_equal(procfs_proc_stat(odd, strlen(odd), &p), 0);
    assert_int_equal(p.ppid, -1);
    int64_t pid;
    uint64_t t;
    assert_int_equal(procfs_pid_stat(odd, strlen(odd), &pid, &t), 0);
    assert_int_equal(p.ticks, t);
    assert_int_equal(t, 1); /* fields 14 to 17: 0 0 1 0 */
}

static void test_pids_payload_line_by_line(void **state)
{
    (void)state;
    buf b = {0};
    pid_stat_line(&b, 10, 5);
    buf_add(&b, "garbage\n", 8);
    pid_stat_line(&b, 11, 7);
    uint64_t sum = 0;
    assert_int_equal(procfs_each_pid(b.p, b.n, count, &sum), 1);
    assert_int_equal(sum, 10005 + 11007);
    assert_int_equal(procfs_each_pid("", 0, count, &sum), 0);
    buf_free(&b);
}

static void test_cgroup_cpu_files(void **state)
{
    (void)state;
    const char *st = "usage_usec 123456789\nuser_usec 1\nsystem_usec 2\nnr_periods 0\n";
    uint64_t v;
    assert_int_equal(procfs_cgroup_usage(st, strlen(st), &v), 0);
    assert_int_equal(v, 123456789);
    assert_int_equal(procfs_cgroup_usage("user_usec 1\n", 12, &v), -1);
    assert_int_equal(procfs_cgroup_max("max 100000\n", 11, &v), 0);
    assert_int_equal(v, 0);
    assert_int_equal(procfs_cgroup_max("250000 100000\n", 14, &v), 0);
    assert_int_equal(v, 2500);
    assert_int_equal(procfs_cgroup_max("50000 100000", 12, &v), 0);
    assert_int_equal(v, 500);
    assert_int_equal(procfs_cgroup_max("50000 0", 7, &v), -1);
    assert_int_equal(procfs_cgroup_max("", 0, &v), -1);
}

/* A number that does not fit is invalid, never wrapped, never UB. */
static void test_numbers_that_do_not_fit_are_invalid(void **state)
{
    (void)state;
    int64_t pid;
    uint64_t ticks, v;
    /* cutime = INT64_MIN: negated it would be undefined; it counts 0 */
    const char *l1 = "7 (x) S 1 1 1 0 -1 0 0 0 0 0 10 20 -9223372036854775808 0 20";
    assert_int_equal(procfs_pid_stat(l1, strlen(l1), &pid, &ticks), 0);
    assert_int_equal(ticks, 30);
    /* utime = 2^64 does not fit: the line is invalid, not 0 */
    const char *l2 = "7 (x) S 1 1 1 0 -1 0 0 0 0 0 18446744073709551616 20 0 0 20";
    assert_int_equal(procfs_pid_stat(l2, strlen(l2), &pid, &ticks), -1);
    /* four fields that fit alone but not summed */
    const char *l3 = "7 (x) S 1 1 1 0 -1 0 0 0 0 0 9223372036854775807 1 0 0 20";
    assert_int_equal(procfs_pid_stat(l3, strlen(l3), &pid, &ticks), -1);
    const char *l4 = "-9223372036854775809 (x) S 1";
    assert_int_equal(procfs_pid_stat(l4, strlen(l4), &pid, &ticks), -1);
    /* a quota that overflows x 1000 is invalid, not "no quota" */
    assert_int_equal(procfs_cgroup_max("18446744073709552 1000", 22, &v), -1);
    assert_int_equal(procfs_cgroup_max("150000 100000", 13, &v), 0);
    assert_int_equal(v, 1500);
    const char *st = "cpu  18446744073709551615 1 0 0 0 0 0 0\n";
    assert_int_equal(procfs_stat_busy(st, strlen(st), &v), -1);
    assert_int_equal(procfs_cgroup_usage("usage_usec 99999999999999999999\n", 32, &v), -1);
}

static void test_cpu_list_as_the_kernel_prints_it(void **state)
{
    (void)state;
    procfs_cpuset set;
    assert_int_equal(procfs_cpulist("0-1,4\n", 6, &set), 0);
    assert_int_equal(set.n, 3);
    assert_true(procfs_cpuset_has(&set, 4) && !procfs_cpuset_has(&set, 2));
    assert_int_equal(procfs_cpulist("3,1-3", 5, &set), 0);
    assert_int_equal(set.n, 3); /* a CPU named twice counts once */
    assert_int_equal(procfs_cpulist("8191", 4, &set), 0);
    static const char *const bad[] = {"", "-", "2-1", "8192", "0-", ",1", "1,", "1;2", "a"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(procfs_cpulist(bad[i], strlen(bad[i]), &set), -1);
}

static void test_v1_quota_and_usage_files(void **state)
{
    (void)state;
    uint64_t mc = 7, v;
    assert_int_equal(procfs_cfs_quota("-1\n", 3, "100000\n", 7, &mc), 0);
    assert_int_equal(mc, 0);
    assert_int_equal(procfs_cfs_quota("50000\n", 6, "100000\n", 7, &mc), 0);
    assert_int_equal(mc, 500);
    assert_int_equal(procfs_cfs_quota("50000\n", 6, "0\n", 2, &mc), -1);
    assert_int_equal(procfs_cfs_quota("x", 1, "100000", 6, &mc), -1);
    assert_int_equal(procfs_first_u64("81234567890\n", 12, &v), 0);
    assert_int_equal(v, 81234567890ull);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_busy_is_everything_but_idle_and_iowait),
        cmocka_unit_test(test_worker_cpu_is_fields_14_to_17),
        cmocka_unit_test(test_worker_cpu_however_the_line_is_spaced),
        cmocka_unit_test(test_worker_ppid_child_ticks_and_starttime),
        cmocka_unit_test(test_pids_payload_line_by_line),
        cmocka_unit_test(test_cgroup_cpu_files),
        cmocka_unit_test(test_numbers_that_do_not_fit_are_invalid),
        cmocka_unit_test(test_cpu_list_as_the_kernel_prints_it),
        cmocka_unit_test(test_v1_quota_and_usage_files),
    };
    return cmocka_run_group_tests_name("procfs", tests, NULL, NULL);
}
