/* The recorder's round loop on a clock of the test's own: the schedule,
 * slots a stall missed, the 5 s guarantee, SIGHUP and SIGTERM, without
 * sleeping.  /proc is fixtures/world; the pool's socket does not exist, so
 * every round records an ERROR for it. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fpmlog.h"
#include "msg.h"
#include "record.h"
#include "testlib.h"

#define S 1000000000ull

/* The test's clock: every read moves it on by step; the first read past
 * stall_after (the start of a round: before its STAT) jumps stall more;
 * sleeping reaches the time asked for, but the sleep numbered hup_at
 * (stop_at) is cut short by SIGHUP (SIGTERM). */
typedef struct {
    uint64_t mono, step, stall, stall_after;
    int      stalled, sleeps, hup_at, stop_at;
} fake;

static uint64_t f_mono(void *a)
{
    fake *f = a;
    f->mono += f->step;
    if (f->stall && !f->stalled && f->mono > f->stall_after) {
        f->stalled = 1;
        f->mono += f->stall;
    }
    return f->mono;
}

static uint64_t f_real(void *a)
{
    return ((fake *)a)->mono + 1800000000ull * S;
}

static void f_sleep(void *a, uint64_t when)
{
    fake *f = a;
    f->sleeps++;
    if (f->sleeps == f->hup_at) {
        rec_hup = 1;
        return;
    }
    if (f->sleeps == f->stop_at) {
        rec_stop_signal = 15;
        return;
    }
    if (when > f->mono)
        f->mono = when;
}

/* What a run wrote: STAT's and ROUND's times, seqs, HOSTs and NOTEs. */
typedef struct {
    uint64_t stat[64], round[64];
    int      nstat, nround, hosts, damaged;
    long     seq[64];
    char     notes[2048];
} log_read;

static char path[64];

static void read_back(log_read *lr)
{
    memset(lr, 0, sizeof *lr);
    char err[256];
    fpmlog_reader *r = fpmlog_reader_open(path, err, sizeof err);
    assert_non_null(r);
    fpmlog_record rec;
    fpmlog_damage dmg;
    int ret;
    while ((ret = fpmlog_reader_next(r, &rec, &dmg)) != 0) {
        if (ret < 0) {
            lr->damaged++;
            continue;
        }
        if (strcmp(rec.type, "STAT") == 0 && lr->nstat < 64)
            lr->stat[lr->nstat++] = rec.mono;
        else if (strcmp(rec.type, "ROUND") == 0 && lr->nround < 64) {
            lr->seq[lr->nround] = strtol((const char *)rec.payload + 4, NULL, 10);
            lr->round[lr->nround++] = rec.mono;
        } else if (strcmp(rec.type, "HOST") == 0)
            lr->hosts++;
        else if (strcmp(rec.type, "NOTE") == 0)
            snprintf(lr->notes + strlen(lr->notes), sizeof lr->notes - strlen(lr->notes),
                     "%.*s|", (int)rec.len, (const char *)rec.payload);
    }
    fpmlog_reader_free(r);
}

/* Records with these options (and fixtures/world, -q, -o path) on clock f,
 * sleeping with sleep; the pools read from --fpm-config where opts give
 * it.  Returns the exit code. */
static int run_with(fake *f, const char *opts, void (*sleep)(void *, uint64_t))
{
    char line[512];
    snprintf(line, sizeof line, "fpm-record --proc-root fixtures/world/proc --sys-root "
             "fixtures/world/sys -q -o %s %s", path, opts);
    char *argv[32];
    int argc = tl_split(line, argv, 32);
    rec_config cfg = {0};
    optind = 0;
    FILE *quiet = fopen("/dev/null", "w");
    msg_stream(quiet);
    assert_int_equal(config_parse_args(argc, argv, &cfg), -1);
    char *pid_file = NULL;
    if (cfg.fpm_config)
        assert_int_equal(config_load_pools(&cfg, &pid_file), 0);
    rec_clock clk = {f_mono, f_real, sleep, f};
    rec_hup = rec_stop_signal = 0;
    recorder *r = recorder_new(&cfg, pid_file, &clk);
    assert_non_null(r);
    int rc = recorder_run(r);
    recorder_free(r);
    config_pools_free(cfg.pools, cfg.npools);
    msg_stream(NULL);
    fclose(quiet);
    return rc;
}

/* The same with a pool that is not there. */
static int run(fake *f, const char *opts)
{
    char line[400];
    snprintf(line, sizeof line, "--pool www=unix:/nonexistent/www.sock %s", opts);
    return run_with(f, line, f_sleep);
}

static int setup(void **state)
{
    (void)state;
    return tl_fresh_name(path, sizeof path, "/tmp/fpmcpu-record-XXXXXX");
}

static int teardown(void **state)
{
    (void)state;
    unlink(path);
    return 0;
}

/* Rounds on start + k x interval; STAT to STAT never under the interval
 * (a round starts at least an interval after the last STAT read). */
static void test_rounds_keep_the_schedule_and_the_5s_pairs(void **state)
{
    (void)state;
    fake f = {.mono = 1000 * S, .step = 1000000}; /* 1 ms a clock read */
    assert_int_equal(run(&f, "--interval 5s --rounds 6"), 0);
    log_read lr;
    read_back(&lr);
    assert_int_equal(lr.damaged, 0);
    assert_int_equal(lr.nround, 6);
    assert_int_equal(lr.nstat, 6);
    for (int k = 0; k < 6; k++)
        assert_int_equal(lr.seq[k], k + 1);
    for (int k = 1; k < 6; k++) {
        uint64_t gap = lr.stat[k] - lr.stat[k - 1];
        if (gap < 5 * S || gap > 5 * S + 50000000ull)
            fail_msg("STAT %d to %d: %llu ns", k - 1, k, (unsigned long long)gap);
    }
    assert_non_null(strstr(lr.notes, "stop: 6 round(s) done|"));
}

/* A stall of 17 s inside a round: the slots it missed are skipped, not
 * run back to back. */
static void test_slots_a_stall_missed_are_skipped(void **state)
{
    (void)state;
    fake f = {.mono = 1000 * S, .step = 1000000, .stall = 17 * S, .stall_after = 1010 * S};
    assert_int_equal(run(&f, "--interval 5s --duration 40s"), 0);
    log_read lr;
    read_back(&lr);
    int stalled = 0;
    for (int k = 1; k < lr.nstat; k++) {
        uint64_t gap = lr.stat[k] - lr.stat[k - 1];
        assert_true(gap >= 5 * S);
        if (gap > 6 * S) {
            stalled++;
            assert_true(gap >= 17 * S && gap < 22 * S + 100000000ull);
        }
    }
    assert_int_equal(stalled, 1);
    assert_true(lr.nround <= 6); /* 40 s at 5 s is 8 slots, 3 of them missed */
}

/* A round whose STAT is read 2 s late (a slow pool): the next round waits
 * a whole interval from that STAT, so the pair still counts. */
static void test_a_late_stat_pushes_the_next_round(void **state)
{
    (void)state;
    fake f = {.mono = 1000 * S, .step = 1000000, .stall = 2 * S, .stall_after = 1015 * S};
    assert_int_equal(run(&f, "--interval 5s --rounds 5"), 0);
    log_read lr;
    read_back(&lr);
    assert_int_equal(lr.nstat, 5);
    for (int k = 1; k < lr.nstat; k++) {
        uint64_t gap = lr.stat[k] - lr.stat[k - 1];
        if (gap < 5 * S)
            fail_msg("STAT %d to %d: %llu ns, under the interval", k - 1, k,
                     (unsigned long long)gap);
    }
}

/* SIGHUP while waiting: the log is reopened (HOST again) and the rounds
 * go on, numbered on. */
static void test_sighup_reopens_the_log_and_the_rounds_go_on(void **state)
{
    (void)state;
    fake f = {.mono = 1000 * S, .step = 1000000, .hup_at = 2};
    assert_int_equal(run(&f, "--interval 5s --rounds 4"), 0);
    log_read lr;
    read_back(&lr);
    assert_int_equal(lr.hosts, 2);
    assert_int_equal(lr.nround, 4);
    for (int k = 0; k < 4; k++)
        assert_int_equal(lr.seq[k], k + 1);
    assert_non_null(strstr(lr.notes, "SIGHUP: reopening the log|reopened on SIGHUP|"));
    for (int k = 1; k < lr.nstat; k++)
        assert_true(lr.stat[k] - lr.stat[k - 1] >= 5 * S);
}

/* A frame ends after 5 minutes of rounds (docs/rules.md, "Damage is
 * said"): 70 rounds at 5 s make two frames, each with its summary. */
static void test_a_frame_ends_every_5_minutes_of_rounds(void **state)
{
    (void)state;
    fake f = {.mono = 1000 * S, .step = 1000000};
    assert_int_equal(run(&f, "--interval 5s --rounds 70"), 0);
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    static char b[1 << 20];
    size_t n = fread(b, 1, sizeof b, fp);
    fclose(fp);
    int frames = 0;
    for (const char *p = b; (p = memmem(p, n - (size_t)(p - b), "fpmsum1\n", 8)); p += 8)
        frames++;
    assert_int_equal(frames, 2);
    log_read lr;
    read_back(&lr);
    assert_int_equal(lr.damaged, 0);
}

/* SIGTERM while waiting: the run ends with a NOTE, the frame closed. */
static void test_sigterm_ends_the_run_with_its_frame_closed(void **state)
{
    (void)state;
    fake f = {.mono = 1000 * S, .step = 1000000, .stop_at = 3};
    assert_int_equal(run(&f, "--interval 5s --rounds 10"), 0);
    log_read lr;
    read_back(&lr);
    assert_int_equal(lr.nround, 3);
    assert_int_equal(lr.damaged, 0);
    assert_non_null(strstr(lr.notes, "stop: SIGTERM|"));
}

/* STATM0 (fpmlog(5)): from the second round on, right before the pool's
 * STATUS or ERROR, the statm of the workers its last PIDS named; none in
 * the first round (no worker known yet); HOST says how the kernel groups
 * the master (16.4) */
static void test_statm0_brackets_the_page_and_host_says_the_groups(void **state)
{
    (void)state;
    fake f = {.mono = 1000 * S, .step = 1000};
    assert_int_equal(run(&f, "--interval 5s --rounds 3"), 0);
    char err[256], types[4096] = "";
    fpmlog_reader *r = fpmlog_reader_open(path, err, sizeof err);
    assert_non_null(r);
    fpmlog_record rec;
    fpmlog_damage dmg;
    int ret, host_keys = 0;
    while ((ret = fpmlog_reader_next(r, &rec, &dmg)) != 0) {
        assert_true(ret > 0);
        if (strcmp(rec.type, "STATM0") == 0 || strcmp(rec.type, "ERROR") == 0 ||
            strcmp(rec.type, "ROUND") == 0 || strcmp(rec.type, "STATM") == 0)
            snprintf(types + strlen(types), sizeof types - strlen(types), "%s ", rec.type);
        if (strcmp(rec.type, "STATM0") == 0)
            assert_true(rec.len > 4 && (memcmp(rec.payload, "101 ", 4) == 0 || memcmp(rec.payload, "102 ", 4) == 0));
        if (strcmp(rec.type, "HOST") == 0) {
            const char *p = (const char *)rec.payload;
            host_keys = strstr(p, "\nautogroup=/autogroup-54 nice 0\n") &&
                        strstr(p, "\ncpu_weight=100\n") && strstr(p, "\ncpu_weight_kind=weight\n") &&
                        strstr(p, "\ncpu_controller=1\n");
        }
    }
    fpmlog_reader_free(r);
    assert_string_equal(types, "ERROR STATM ROUND STATM0 ERROR STATM ROUND STATM0 ERROR STATM ROUND ");
    assert_true(host_keys);
}

/* The access logs' test: a file the fake clock's sleeps append lines to,
 * in the test's own directory (tl_mkdtemp) */
#define access_dir tl_dir_slot()

static void sleep_writing(void *a, uint64_t when)
{
    char p[128];
    snprintf(p, sizeof p, "%s/shared.log", access_dir);
    FILE *f = fopen(p, "a");
    assert_non_null(f);
    fputs("a 7 1.00 0.100 /x?tok=1\nb 8 2.00 0.200 /y?tok=2\njunk\n", f);
    fclose(f);
    f_sleep(a, when);
}

/* fpmlog(5) ACCESS: pools a and b name one file (read once, under a, the
 * first POOL), c one that cannot be opened (said once, a NOTE); with
 * --redact-query the URI fields lose their query and a line that does not
 * match the format is dropped, counted; the lines come after the pools'
 * other records of the round, and POOL says each pool's log and format */
static void test_access_records_of_shared_and_missing_logs(void **state)
{
    (void)state;
    assert_non_null(tl_mkdtemp("/tmp/fpmcpu-access-XXXXXX"));
    char conf[128], logp[128];
    snprintf(conf, sizeof conf, "%s/fpm.conf", access_dir);
    snprintf(logp, sizeof logp, "%s/shared.log", access_dir);
    FILE *f = fopen(conf, "w");
    for (const char *pool = "abc"; *pool; pool++)
        fprintf(f, "[%c]\nlisten = /nonexistent/%c.sock\npm.status_path = /status\n"
                "access.log = %s/%s\naccess.format = \"%%n %%p %%C %%d %%r\"\n", *pool, *pool,
                access_dir, *pool == 'c' ? "nodir/c.log" : "shared.log");
    fclose(f);
    f = fopen(logp, "w");
    fputs("old 1 1.00 0.1 /before\n", f);
    fclose(f);
    char line[512];
    snprintf(line, sizeof line, "--fpm-config %s --redact-query --interval 5s --rounds 3", conf);
    fake fk = {.mono = 1000 * S, .step = 1000};
    assert_int_equal(run_with(&fk, line, sleep_writing), 0);
    char err[256], order[4096] = "", notes[4096] = "", acc[4096] = "";
    int pools_with_log = 0;
    fpmlog_reader *rd = fpmlog_reader_open(path, err, sizeof err);
    assert_non_null(rd);
    fpmlog_record rec;
    fpmlog_damage dmg;
    int ret;
    while ((ret = fpmlog_reader_next(rd, &rec, &dmg)) != 0) {
        assert_true(ret > 0);
        const char *p = (const char *)rec.payload;
        if (strcmp(rec.type, "POOL") == 0 && strstr(p, "\naccess_format=%n %p %C %d %r\n") &&
            strstr(p, "\naccess_log="))
            pools_with_log++;
        if (strcmp(rec.type, "ACCESS") == 0) {
            snprintf(order + strlen(order), sizeof order - strlen(order), "ACCESS:%s ",
                     rec.source);
            snprintf(acc + strlen(acc), sizeof acc - strlen(acc), "%.*s|", (int)rec.len, p);
        } else if (strcmp(rec.type, "ERROR") == 0 || strcmp(rec.type, "ROUND") == 0)
            snprintf(order + strlen(order), sizeof order - strlen(order), "%s ", rec.type);
        else if (strcmp(rec.type, "NOTE") == 0)
            snprintf(notes + strlen(notes), sizeof notes - strlen(notes), "%.*s|", (int)rec.len, p);
    }
    fpmlog_reader_free(rd);
    assert_int_equal(pools_with_log, 3);
    assert_string_equal(order, "ERROR ERROR ERROR ACCESS:a ROUND ERROR ERROR ERROR ACCESS:a "
                               "ROUND ERROR ERROR ERROR ACCESS:a ROUND ");
    /* round 1: nothing new since the start (the file's end); then each
     * sleep's lines, queries cut, the line of no format dropped */
    assert_string_equal(acc, "|a 7 1.00 0.100 /x\nb 8 2.00 0.200 /y\n|"
                             "a 7 1.00 0.100 /x\nb 8 2.00 0.200 /y\n|");
    assert_non_null(strstr(notes, "started at its end, 23 bytes skipped"));
    const char *c = strstr(notes, "pool c: access log ");
    assert_non_null(c);
    assert_non_null(strstr(c, "nodir/c.log cannot be opened: No such file or directory"));
    assert_null(strstr(c + 1, "pool c: access log ")); /* once */
    assert_non_null(strstr(notes, "pool a: --redact-query: 1 access log line(s) that do not match"));
    char st[128];
    snprintf(st, sizeof st, "%s.access", path);
    assert_int_equal(access(st, F_OK), 0); /* written after each round */
    unlink(st);
}

static int teardown_access(void **state)
{
    teardown(state);
    char st[128];
    snprintf(st, sizeof st, "%s.access", path);
    unlink(st);
    return tl_dir_teardown(state);
}

int main(void)
{
    msg_init("fpm-record");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_access_records_of_shared_and_missing_logs, setup,
                                        teardown_access),
        cmocka_unit_test_setup_teardown(test_statm0_brackets_the_page_and_host_says_the_groups, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_rounds_keep_the_schedule_and_the_5s_pairs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_slots_a_stall_missed_are_skipped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_late_stat_pushes_the_next_round, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sighup_reopens_the_log_and_the_rounds_go_on, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sigterm_ends_the_run_with_its_frame_closed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_frame_ends_every_5_minutes_of_rounds, setup, teardown),
    };
    return cmocka_run_group_tests_name("record", tests, NULL, NULL);
}
