/* fpmlog(5) "Rounds" and docs/rules.md section 1: records into rounds, over
 * one or many files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <zlib.h>

#include "pipeline_harness.h"
#include "msg.h"
#include "replay.h"
#include "report.h"

static void rec(buf *b, const char *type, uint64_t mono, const char *source, const char *payload)
{
    size_t n = strlen(payload);
    buf_printf(b, "#fpmlog1 %s %llu %llu %s %zu %08lx\n", type, (unsigned long long)mono,
               (unsigned long long)(1800000000ull * NS + mono), source, n,
               crc32(0L, (const unsigned char *)payload, (uInt)n));
    buf_add(b, payload, n);
    buf_add(b, "\n", 1);
}

static void host_rec(buf *b, const char *boot)
{
    char p[256];
    snprintf(p, sizeof p, "format=1\nhostname=web1\nboot_id=%s\nnproc=4\nclk_tck=100\n"
                          "cpu_quota_millicores=0\n", boot);
    rec(b, "HOST", 0, "-", p);
}

/* One complete round at t seconds: pool a with one idle worker whose
 * counter is req, its PIDS, STAT, ROUND. */
static void round_rec(buf *b, int t, int req, const char *cpu)
{
    buf page = {0}, pids = {0}, stat = {0};
    tworker w[] = {{100, "Idle", req, 90000, "/a", cpu}};
    status_page_text(&page, "a", 0, w, 1);
    pid_stat_line(&pids, 100, 50ULL * (unsigned)t);
    stat_text(&stat, 100ULL * (unsigned)t, 1000);
    uint64_t m = (uint64_t)t * NS;
    rec(b, "STATUS", m, "a", page.p);
    rec(b, "PIDS", m, "a", pids.p);
    rec(b, "STAT", m, "-", stat.p);
    char seq[32];
    snprintf(seq, sizeof seq, "seq=%d\n", t + 1); /* grows with t */
    rec(b, "ROUND", m, "-", seq);
    buf_free(&page);
    buf_free(&pids);
    buf_free(&stat);
}

static char *path_of(const buf *b, int k)
{
    char *p = malloc(64);
    snprintf(p, 64, "/tmp/fpmcpu-replay-%d-XXXXXX.fpmlog", k);
    int fd = mkstemps(p, 7);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    fwrite(b->p, 1, b->n, f);
    fclose(f);
    return p;
}

/* Replays the files; returns the pipeline and what was said. */
static pipeline *replay_bufs(const buf *files, int n, replay_counts *st, char **said)
{
    pipeline *pl = pipeline_new(NULL);
    size_t len;
    FILE *err = open_memstream(said, &len);
    msg_init("t");
    msg_stream(err);
    replay *r = replay_new(pl, 1);
    assert_non_null(r);
    for (int i = 0; i < n; i++) {
        char *p = path_of(&files[i], i);
        replay_file(r, p, 0);
        unlink(p);
        free(p);
    }
    *st = replay_counts_of(r);
    replay_free(r);
    msg_stream(NULL);
    fclose(err);
    return pl;
}

/* The pages a pool's worker was judged on as a new request: its readings,
 * and its first round's, primed (12.4). */
static uint64_t judged(const pl_pool *p)
{
    return p->h.total + p->filtered[RD_PRIMED];
}

static void test_a_round_counts_once_its_round_record_is_read(void **state)
{
    (void)state;
    buf b = {0};
    host_rec(&b, "x");
    round_rec(&b, 0, 1, "70.00");
    round_rec(&b, 30, 2, "70.00");
    b.n -= strlen("#fpmlog1 ROUND 30000000000 1800000030000000000 - 7 00000000\nseq=31\n\n");
    replay_counts st;
    char *said;
    pipeline *pl = replay_bufs(&b, 1, &st, &said);
    assert_int_equal(st.rounds, 1);
    assert_int_equal(st.dropped_rounds, 1);
    assert_int_equal(judged(th_find(pl, "web1", "a")), 1);
    assert_non_null(strstr(said, "the file ends inside a round"));
    free(said);
    pipeline_free(pl);
    buf_free(&b);
}

static void test_host_record_drops_the_round_in_flight(void **state)
{
    (void)state;
    buf b = {0};
    host_rec(&b, "x");
    round_rec(&b, 0, 1, "70.00");
    /* a recorder died after a STATUS of pool b; the new one starts with HOST */
    buf page = {0};
    tworker w[] = {{200, "Idle", 2, 90000, "/b", "70.00"}};
    status_page_text(&page, "b", 0, w, 1);
    rec(&b, "STATUS", 30 * NS, "b", page.p);
    host_rec(&b, "x");
    round_rec(&b, 60, 3, "70.00");
    replay_counts st;
    char *said;
    pipeline *pl = replay_bufs(&b, 1, &st, &said);
    assert_int_equal(st.rounds, 2);
    assert_int_equal(st.dropped_rounds, 1);
    pl_pool *p = th_find(pl, "web1", "a");
    assert_int_equal(judged(p), 2);
    assert_true(p->f.n == 1); /* same boot: the rounds at 0 and 60 pair */
    assert_null(th_find(pl, "web1", "b")); /* its record went with the round */
    free(said);
    pipeline_free(pl);
    buf_free(&b);
    buf_free(&page);
}

static void test_damaged_round_record_merges_two_rounds_later_record_stands(void **state)
{
    (void)state;
    buf b = {0};
    host_rec(&b, "x");
    round_rec(&b, 0, 1, "10.00");
    size_t cut = b.n;
    round_rec(&b, 30, 2, "20.00");
    /* break the ROUND record of the round at 30 */
    char *r = strstr(b.p + cut, "#fpmlog1 ROUND");
    r[9] = 'r';
    round_rec(&b, 60, 3, "80.00");
    replay_counts st;
    char *said;
    pipeline *pl = replay_bufs(&b, 1, &st, &said);
    assert_int_equal(st.rounds, 2);
    assert_int_equal(st.damaged, 1);
    pl_pool *p = th_find(pl, "web1", "a");
    assert_int_equal(judged(p), 2);
    assert_int_equal(p->h.count[hist_bucket(2000)], 0); /* the earlier page lost */
    assert_int_equal(p->h.count[hist_bucket(8000)], 1);
    assert_non_null(strstr(said, "bad record header, record skipped"));
    free(said);
    pipeline_free(pl);
    buf_free(&b);
}

/* fpmlog(5) "Rounds": within one recorder run seq only grows; a ROUND whose
 * seq is not above the one before is a copy, dropped whole and said; a new
 * HOST starts counting again; a ROUND without a readable seq is not checked. */
static void test_seq_copies_are_dropped(void **state)
{
    (void)state;
    buf b = {0};
    host_rec(&b, "x");
    round_rec(&b, 0, 1, "70.00");   /* seq 1 */
    size_t from = b.n;
    round_rec(&b, 30, 2, "70.00");  /* seq 31 */
    size_t to = b.n;
    round_rec(&b, 60, 3, "70.00");  /* seq 61 */
    char *copy = malloc(to - from);
    memcpy(copy, b.p + from, to - from);
    buf_add(&b, copy, to - from); /* seq 31 again: a copy, CRCs and all */
    free(copy);
    round_rec(&b, 90, 4, "70.00");  /* seq 91 */
    rec(&b, "STAT", 95 * NS, "-", "cpu  1 0 0 1 0 0 0 0\n");
    rec(&b, "ROUND", 95 * NS, "-", "seq=x\n"); /* not readable: not checked */
    host_rec(&b, "x");               /* a new run: seq from 1 again */
    round_rec(&b, 0, 5, "70.00");
    replay_counts st;
    char *said;
    pipeline *pl = replay_bufs(&b, 1, &st, &said);
    assert_int_equal(st.rounds, 6);
    assert_int_equal(st.copies, 1);
    assert_int_equal(th_find(pl, "web1", "a")->filtered[RD_REPEAT], 0);
    assert_non_null(strstr(said, "ROUND seq=31 is not above the seq=61 before it: a copy of "
                                 "earlier records, the round is dropped"));
    free(said);
    pipeline_free(pl);
    buf_free(&b);
}

static void test_state_carries_over_from_file_to_file(void **state)
{
    (void)state;
    buf f[2] = {{0}, {0}};
    host_rec(&f[0], "x");
    round_rec(&f[0], 0, 1, "70.00");
    round_rec(&f[1], 30, 1, "70.00"); /* rotated file: no HOST, same counter */
    replay_counts st;
    char *said;
    pipeline *pl = replay_bufs(f, 2, &st, &said);
    pl_pool *p = th_find(pl, "web1", "a");
    assert_int_equal(p->filtered[RD_REPEAT], 1);
    assert_true(p->f.n == 1);
    assert_int_equal(th_find_host(pl, "web1")->rounds, 2);
    free(said);
    pipeline_free(pl);
    buf_free(&f[0]);
    buf_free(&f[1]);
}

static void test_a_torn_tail_does_not_eat_into_the_next_file(void **state)
{
    (void)state;
    buf f[2] = {{0}, {0}};
    host_rec(&f[0], "x");
    round_rec(&f[0], 0, 1, "70.00");
    round_rec(&f[0], 30, 2, "70.00");
    f[0].n -= 30; /* torn inside the last ROUND record */
    round_rec(&f[1], 60, 3, "70.00");
    replay_counts st;
    char *said;
    pipeline *pl = replay_bufs(f, 2, &st, &said);
    assert_int_equal(st.rounds, 2);
    assert_int_equal(st.damaged, 1);
    assert_int_equal(judged(th_find(pl, "web1", "a")), 2);
    assert_non_null(strstr(said, "record cut short"));
    free(said);
    pipeline_free(pl);
    buf_free(&f[0]);
    buf_free(&f[1]);
}

static void test_rounds_before_any_host_record_are_reported_and_ignored(void **state)
{
    (void)state;
    buf b = {0};
    round_rec(&b, 0, 1, "70.00");
    round_rec(&b, 30, 2, "70.00");
    host_rec(&b, "x");
    round_rec(&b, 60, 3, "70.00");
    replay_counts st;
    char *said;
    pipeline *pl = replay_bufs(&b, 1, &st, &said);
    assert_int_equal(st.hostless_rounds, 2);
    assert_int_equal(th_find_host(pl, "web1")->rounds, 1);
    assert_non_null(strstr(said, "2 round(s) before any HOST record belong to no host"));
    free(said);
    pipeline_free(pl);
    buf_free(&b);
}

static void test_unreadable_file_is_counted_and_said(void **state)
{
    (void)state;
    pipeline *pl = pipeline_new(NULL);
    char *said;
    size_t len;
    FILE *err = open_memstream(&said, &len);
    msg_init("t");
    msg_stream(err);
    replay *r = replay_new(pl, 1);
    assert_int_equal(replay_file(r, "/nonexistent/x.fpmlog", 0), -1);
    assert_int_equal(replay_counts_of(r).unreadable, 1);
    replay_free(r);
    msg_stream(NULL);
    fclose(err);
    assert_string_equal(said, "t: /nonexistent/x.fpmlog: could not open: No such file or directory\n");
    free(said);
    pipeline_free(pl);
}

/* The same log twice: its rounds are counted again, and that is said. */
static void test_a_log_given_twice_is_said(void **state)
{
    (void)state;
    buf b[2] = {{0}, {0}};
    for (int k = 0; k < 2; k++) {
        host_rec(&b[k], "x");
        round_rec(&b[k], 0, 1, "70.00");
        round_rec(&b[k], 30, 2, "70.00");
    }
    replay_counts st;
    char *said;
    pipeline *pl = replay_bufs(b, 2, &st, &said);
    assert_int_equal(st.rounds, 4);
    assert_non_null(strstr(said, "t: /tmp/fpmcpu-replay-1-"));
    assert_non_null(strstr(said, ".fpmlog: its rounds of web1 repeat rounds already read from "
                                 "/tmp/fpmcpu-replay-0-"));
    assert_non_null(strstr(said, ".fpmlog: the same log given twice? (they are counted again)\n"));
    assert_null(strstr(said, "out of order"));
    free(said);
    pipeline_free(pl);
    buf_free(&b[0]);
    buf_free(&b[1]);
}

/* Rotated logs given newest first: said once; oldest first: nothing. */
static void test_logs_out_of_order_are_said(void **state)
{
    (void)state;
    buf b[2] = {{0}, {0}};
    host_rec(&b[0], "x");
    round_rec(&b[0], 60, 3, "70.00");
    round_rec(&b[0], 90, 4, "70.00");
    host_rec(&b[1], "x");
    round_rec(&b[1], 0, 1, "70.00");
    round_rec(&b[1], 30, 2, "70.00");
    replay_counts st;
    char *said;
    pipeline *pl = replay_bufs(b, 2, &st, &said);
    assert_non_null(strstr(said, "t: /tmp/fpmcpu-replay-1-"));
    assert_non_null(strstr(said, ".fpmlog: its rounds of web1 go back in time after "
                                 "/tmp/fpmcpu-replay-0-"));
    assert_non_null(strstr(said, ".fpmlog: logs given out of order? (give them oldest first, such as "
                                 "LOG.1 LOG)\n"));
    assert_null(strstr(strstr(said, "go back") + 1, "go back")); /* once per file */
    free(said);
    pipeline_free(pl);
    buf tmp = b[0];
    b[0] = b[1];
    b[1] = tmp;
    pl = replay_bufs(b, 2, &st, &said);
    assert_string_equal(said, "");
    free(said);
    pipeline_free(pl);
    buf_free(&b[0]);
    buf_free(&b[1]);
}

/* The JSON of the logs replayed on threads threads, and what was said. */
static char *replayed_json(const char *const *logs, int n, int threads, char **said)
{
    pipeline *pl = pipeline_new(NULL);
    size_t len, jl;
    FILE *err = open_memstream(said, &len);
    msg_init("t");
    msg_stream(err);
    replay *r = replay_new(pl, threads);
    for (int i = 0; i < n; i++)
        replay_file(r, logs[i], 0);
    assert_int_equal(replay_drain(r), 0);
    replay_free(r);
    msg_stream(NULL);
    fclose(err);
    char *j = NULL;
    FILE *f = open_memstream(&j, &jl);
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
    wi_answers a = th_answers(pl, &sc);
    assert_int_equal(report_print(f, report_format("json"), &a, &sc), 0);
    whatif_answers_free(&a);
    fclose(f);
    pipeline_free(pl);
    return j;
}

/* Rounds parsed and applied on threads give the serial replay's figures and
 * messages, byte for byte: damage, a reboot, a seq copy, several files. */
static void test_threaded_replay_is_the_serial_replay(void **state)
{
    (void)state;
    static const char *const logs[] = {"fixtures/logs/damaged.fpmlog", "fixtures/logs/reboot.fpmlog",
                                       "fixtures/logs/vps.fpmlog", "fixtures/logs/realistic.fpmlog.zst",
                                       "fixtures/logs/throttled.fpmlog"};
    char *said1, *said3, *said8;
    char *j1 = replayed_json(logs, 5, 1, &said1);
    char *j3 = replayed_json(logs, 5, 3, &said3);
    char *j8 = replayed_json(logs, 5, 8, &said8);
    assert_non_null(strstr(j1, "\"hostname\": \"vps1\""));
    assert_string_equal(j1, j3);
    assert_string_equal(j1, j8);
    assert_string_equal(said1, said3);
    assert_string_equal(said1, said8);
    free(j1), free(j3), free(j8), free(said1), free(said3), free(said8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_round_counts_once_its_round_record_is_read),
        cmocka_unit_test(test_host_record_drops_the_round_in_flight),
        cmocka_unit_test(test_damaged_round_record_merges_two_rounds_later_record_stands),
        cmocka_unit_test(test_seq_copies_are_dropped),
        cmocka_unit_test(test_threaded_replay_is_the_serial_replay),
        cmocka_unit_test(test_state_carries_over_from_file_to_file),
        cmocka_unit_test(test_a_torn_tail_does_not_eat_into_the_next_file),
        cmocka_unit_test(test_rounds_before_any_host_record_are_reported_and_ignored),
        cmocka_unit_test(test_unreadable_file_is_counted_and_said),
        cmocka_unit_test(test_a_log_given_twice_is_said),
        cmocka_unit_test(test_logs_out_of_order_are_said),
    };
    return cmocka_run_group_tests_name("replay", tests, NULL, NULL);
}
