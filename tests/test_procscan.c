/* The process table and /proc reads, on a fixture tree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procfs.h"
#include "procscan.h"

#define PROC "fixtures/world/proc"
#define SYS  "fixtures/world/sys"

static void test_workers_are_the_pool_titled_processes(void **state)
{
    (void)state;
    ps_table t = {0};
    assert_int_equal(ps_scan(PROC, &t), 0);
    assert_int_equal(t.master, 100);
    assert_int_equal(t.any_fpm, 1);
    assert_int_equal(t.n, 3);
    int www = 0, api = 0;
    for (size_t i = 0; i < t.n; i++) {
        assert_int_equal(t.w[i].ppid, 100);
        if (strcmp(t.w[i].pool, "www") == 0) /* the padded title too */
            www++;
        else if (strcmp(t.w[i].pool, "api") == 0)
            api++;
    }
    assert_int_equal(www, 2);
    assert_int_equal(api, 1);
    ps_table_free(&t);
    assert_int_equal(ps_scan("fixtures/world/none", &t), -1);
}

static void test_pid_stats_leave_out_exited_pids(void **state)
{
    (void)state;
    pid_t pids[] = {101, 999, 102};
    char *b = NULL;
    size_t len = 0, cap = 0;
    assert_int_equal(ps_pid_stats(NULL, PROC, pids, 3, &b, &len, &cap), 2);
    int64_t pid;
    uint64_t ticks;
    char *nl = memchr(b, '\n', len);
    assert_int_equal(procfs_pid_stat(b, (size_t)(nl - b), &pid, &ticks), 0);
    assert_int_equal(pid, 101);
    assert_int_equal(ticks, 1500);
    assert_int_equal(procfs_pid_stat(nl + 1, len - (size_t)(nl + 1 - b) - 1, &pid, &ticks), 0);
    assert_int_equal(pid, 102);
    assert_int_equal(ticks, 806);
    free(b);
}

/* Kept-open stat files: read again by pread; a process that exited is left
 * out and its descriptor dropped; the sweep closes those not read since. */
static void test_stat_files_kept_open(void **state)
{
    (void)state;
    pid_t child = fork();
    if (child == 0) {
        pause();
        _exit(0);
    }
    assert_true(child > 0);
    ps_stat_fds fds = {.max = 16};
    pid_t pids[] = {child, getpid()};
    char *b = NULL;
    size_t len = 0, cap = 0;
    assert_int_equal(ps_pid_stats(&fds, "/proc", pids, 2, &b, &len, &cap), 2);
    assert_int_equal(fds.n, 2);
    len = 0;
    assert_int_equal(ps_pid_stats(&fds, "/proc", pids, 2, &b, &len, &cap), 2);
    int64_t pid;
    uint64_t ticks;
    assert_int_equal(procfs_pid_stat(b, (size_t)((char *)memchr(b, '\n', len) - b), &pid, &ticks), 0);
    assert_int_equal(pid, child);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    len = 0;
    assert_int_equal(ps_pid_stats(&fds, "/proc", pids, 2, &b, &len, &cap), 1);
    assert_int_equal(fds.n, 1); /* the exited one's descriptor is gone */
    ps_stat_fds_sweep(&fds);    /* ours was read since the last sweep: kept */
    assert_int_equal(fds.n, 1);
    ps_stat_fds_sweep(&fds);    /* not read since: closed */
    assert_int_equal(fds.n, 0);
    ps_stat_fds_free(&fds);
    free(b);
}

/* SCHED's lines (fpmlog(5)): /proc/<pid>/schedstat through a kept-open
 * descriptor, each line the pid, a space, then the file: three numbers. */
static void test_schedstat_lines_begin_with_the_pid(void **state)
{
    (void)state;
    ps_stat_fds fds = {.max = 4, .file = "schedstat", .pid_first = 1};
    pid_t pids[] = {getpid(), 999999999};
    char *b = NULL;
    size_t len = 0, cap = 0;
    for (int round = 0; round < 2; round++) {
        len = 0;
        assert_int_equal(ps_pid_stats(&fds, "/proc", pids, 2, &b, &len, &cap), 1);
        assert_int_equal(fds.n, 1);
        long long pid;
        unsigned long long cpu, wait, slices;
        char end;
        assert_int_equal(sscanf(b, "%lld %llu %llu %llu%c", &pid, &cpu, &wait, &slices, &end), 5);
        assert_int_equal(pid, getpid());
        assert_int_equal(end, '\n');
        assert_int_equal(b[len - 1], '\n');
        assert_true(cpu > 0);
    }
    ps_stat_fds_free(&fds);
    free(b);
}

static void test_cpu_lines_of_proc_stat(void **state)
{
    (void)state;
    char *b;
    size_t n;
    assert_int_equal(ps_cpu_lines(PROC, &b, &n), 0);
    assert_string_equal(b, "cpu  10000 20 3000 500000 700 0 100 0 0 0\n"
                           "cpu0 5000 10 1500 250000 350 0 50 0 0 0\n"
                           "cpu1 5000 10 1500 250000 350 0 50 0 0 0\n");
    free(b);
}

/* A round's other files are read through a descriptor kept open: each read
 * is the file as it is now, whatever its size, and a descriptor that stops
 * working is replaced by the file opened again. */
static void test_round_files_kept_open(void **state)
{
    (void)state;
    ps_kept k = {0};
    assert_int_equal(ps_kept_read(&k), -1); /* no path yet */
    assert_int_equal(ps_kept_set(&k, PROC, "stat"), 0);
    long n = ps_kept_read(&k);
    assert_true(n > 0);
    assert_int_equal(ps_cpu_lines_in(k.buf, (size_t)n), 122);
    assert_string_equal(k.buf, "cpu  10000 20 3000 500000 700 0 100 0 0 0\n"
                               "cpu0 5000 10 1500 250000 350 0 50 0 0 0\n"
                               "cpu1 5000 10 1500 250000 350 0 50 0 0 0\n");
    int fd = k.fd;
    assert_true(ps_kept_read(&k) > 0);
    assert_int_equal(k.fd, fd); /* not opened again */

    char dir[] = "/tmp/fpmcpu-kept.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/f", dir);
    FILE *f = fopen(path, "w");
    fputs("some avg10=0.00 total=1\n", f);
    fclose(f);
    assert_int_equal(ps_kept_set(&k, dir, "f"), 0); /* the old one closed */
    assert_int_equal(ps_kept_read(&k), 24);
    assert_string_equal(k.buf, "some avg10=0.00 total=1\n");
    f = fopen(path, "w"); /* the same file, larger than one buffer */
    for (int i = 0; i < 1000; i++)
        fputs("0123456789", f);
    fclose(f);
    assert_int_equal(ps_kept_read(&k), 10000);
    assert_int_equal(strlen(k.buf), 10000);
    close(k.fd); /* the descriptor stops working: the file is opened again */
    assert_int_equal(ps_kept_read(&k), 10000);
    unlink(path);
    close(k.fd); /* ... and when the file is gone, the read fails */
    assert_int_equal(ps_kept_read(&k), -1);
    ps_kept_free(&k);
    ps_kept_free(&k); /* empty: freeing again is harmless */
    rmdir(dir);
}

static void test_host_facts_are_read(void **state)
{
    (void)state;
    ps_host h;
    ps_host_facts(PROC, SYS, &h);
    assert_string_equal(h.boot_id, "7d0c3b9e-1111-4222-8333-944455556666");
    assert_string_equal(h.clocksource, "tsc");
    assert_true(h.nproc >= 1);
    assert_true(h.clk_tck >= 1);
    ps_host_facts("fixtures/world/none", "fixtures/world/none", &h);
    assert_string_equal(h.boot_id, "-");
    assert_string_equal(h.clocksource, "-");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_workers_are_the_pool_titled_processes),
        cmocka_unit_test(test_pid_stats_leave_out_exited_pids),
        cmocka_unit_test(test_stat_files_kept_open),
        cmocka_unit_test(test_schedstat_lines_begin_with_the_pid),
        cmocka_unit_test(test_cpu_lines_of_proc_stat),
        cmocka_unit_test(test_round_files_kept_open),
        cmocka_unit_test(test_host_facts_are_read),
    };
    return cmocka_run_group_tests_name("procscan", tests, NULL, NULL);
}
