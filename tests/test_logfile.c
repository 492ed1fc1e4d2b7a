/* The recorder's log writer: frames, repair, write failures, permissions. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <zstd.h>

#include "fpmidx.h"
#include "fpmlog.h"
#include "logfile.h"
#include "testlib.h"

static char path[64];

/* A fresh name of our own (mkstemp), the file itself not there yet. */
static int setup(void **state)
{
    (void)state;
    return tl_fresh_name(path, sizeof path, "/tmp/fpmcpu-logfile-XXXXXX");
}

static int teardown(void **state)
{
    (void)state;
    unlink(path);
    return 0;
}

static void round_of(logfile *lf, int k)
{
    char p[64];
    int n = snprintf(p, sizeof p, "{\"processes\":[]} round %d", k);
    assert_int_equal(logfile_add(lf, "STATUS", (uint64_t)k, 0, "p", 1, p, (size_t)n), 0);
    n = snprintf(p, sizeof p, "seq=%d\n", k);
    assert_int_equal(logfile_add(lf, "ROUND", (uint64_t)k, 0, NULL, 0, p, (size_t)n), 0);
}

static buf slurp(void)
{
    buf b = {0};
    FILE *f = fopen(path, "rb");
    char tmp[4096];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
        buf_add(&b, tmp, n);
    fclose(f);
    return b;
}

/* Every frame in the file is whole and closed; returns how many zstd
 * frames (their summaries, skippable frames, are not counted). */
static int closed_frames(const buf *b)
{
    int frames = 0;
    for (size_t off = 0; off < b->n;) {
        size_t n = ZSTD_findFrameCompressedSize(b->p + off, b->n - off);
        if (ZSTD_isError(n))
            fail_msg("frame at %zu: %s", off, ZSTD_getErrorName(n));
        frames += b->p[off] == 0x28;
        off += n;
    }
    return frames;
}

/* The seq of every ROUND record, read back, as "1 2 3". */
static char *rounds_read(void)
{
    fpmlog_reader *r = fpmlog_reader_open(path, NULL, 0);
    buf out = {0};
    fpmlog_record rec;
    fpmlog_damage d;
    int ret;
    buf_add(&out, "", 0);
    while ((ret = fpmlog_reader_next(r, &rec, &d)) != 0)
        if (ret == 1 && strcmp(rec.type, "ROUND") == 0)
            buf_printf(&out, "%s%.*s", out.n ? " " : "", (int)rec.len - 5,
                       (const char *)rec.payload + 4);
    fpmlog_reader_free(r);
    return out.p;
}

static void test_appending_starts_a_new_frame(void **state)
{
    (void)state;
    char rep[256], err[256];
    for (int run = 0; run < 2; run++) {
        logfile *lf = logfile_open(path, 3, rep, sizeof rep, err, sizeof err);
        assert_non_null(lf);
        assert_string_equal(rep, "");
        for (int k = 1; k <= 3; k++) {
            round_of(lf, run * 10 + k);
            assert_int_equal(logfile_commit(lf, k == 2), 0); /* a frame end after 2 */
        }
        assert_int_equal(logfile_close(lf), 0);
    }
    buf b = slurp();
    assert_int_equal(closed_frames(&b), 4);
    char *r = rounds_read();
    assert_string_equal(r, "1 2 3 11 12 13");
    free(r);
    buf_free(&b);
}

/* The frames the index at the end of the file lists, from where; -1 none. */
static int indexed_frames(uint64_t *start)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    fpmidx x;
    uint64_t at;
    const char *why;
    assert_int_equal(fstat(fd, &st), 0);
    int n = fpmidx_load(fd, (uint64_t)st.st_size, &x, &at, &why) == 0 ? (int)x.n : -1;
    *start = x.start;
    fpmidx_free(&x);
    close(fd);
    return n;
}

static void test_a_closed_log_ends_with_its_index_and_a_restart_takes_it_off(void **state)
{
    (void)state;
    char rep[256], err[256];
    uint64_t start = 1;
    for (int run = 0; run < 2; run++) {
        logfile *lf = logfile_open(path, 3, rep, sizeof rep, err, sizeof err);
        assert_non_null(lf);
        round_of(lf, run * 10 + 1);
        assert_int_equal(logfile_commit(lf, 1), 0);
        round_of(lf, run * 10 + 2);
        assert_int_equal(logfile_commit(lf, 0), 0);
        /* open, the log has no index: it is being written */
        assert_int_equal(indexed_frames(&start), -1);
        assert_int_equal(logfile_close(lf), 0);
        /* closed, its index lists every frame, the first run's too */
        assert_int_equal(indexed_frames(&start), 2 * (run + 1));
        assert_int_equal(start, 0);
    }
    char *r = rounds_read();
    assert_string_equal(r, "1 2 11 12");
    free(r);
    buf b = slurp(); /* one index: the first run's came off */
    int n = 0;
    for (const char *p = b.p; (p = memmem(p, b.n - (size_t)(p - b.p), "fpmidx1\nversion", 15));
         p++)
        n++;
    assert_int_equal(n, 1);
    buf_free(&b);
}

static void test_a_frame_left_open_is_closed_on_start(void **state)
{
    (void)state;
    char rep[256], err[256];
    logfile *lf = logfile_open(path, 3, rep, sizeof rep, err, sizeof err);
    round_of(lf, 1);
    logfile_commit(lf, 0);
    uint64_t good = logfile_size(lf);
    round_of(lf, 2);
    logfile_commit(lf, 0);
    uint64_t size = logfile_size(lf);
    /* a crash in the middle of writing round 2: its block is torn */
    assert_int_equal(truncate(path, (off_t)(size - 5)), 0);
    logfile_drop(lf); /* as a killed process would: nothing more written */
    lf = logfile_open(path, 3, rep, sizeof rep, err, sizeof err);
    assert_non_null(lf);
    char want[256];
    snprintf(want, sizeof want, "closed the zstd frame at offset 0 that a stopped recorder left "
             "open (cut %llu bytes of a partial block at offset %llu)",
             (unsigned long long)(size - 5 - good), (unsigned long long)good);
    assert_string_equal(rep, want);
    round_of(lf, 3);
    logfile_close(lf);
    buf b = slurp();
    assert_int_equal(closed_frames(&b), 2);
    char *r = rounds_read();
    assert_string_equal(r, "1 3");
    free(r);
    buf_free(&b);
}

/* Killed between a frame's end and its summary: the summary, cut short, is
 * removed; the frame and every round in it stay. */
static void test_a_summary_cut_short_is_removed_on_start(void **state)
{
    (void)state;
    char rep[256], err[256];
    logfile *lf = logfile_open(path, 3, rep, sizeof rep, err, sizeof err);
    round_of(lf, 1);
    logfile_commit(lf, 0);
    round_of(lf, 2);
    logfile_commit(lf, 1); /* the frame ends, its summary after it */
    uint64_t size = logfile_size(lf);
    buf whole = slurp();
    unsigned char *m = memmem(whole.p, whole.n, "\x5e\x2a\x4d\x18", 4);
    assert_non_null(m);
    uint64_t at = (uint64_t)((char *)m - whole.p);
    assert_int_equal(truncate(path, (off_t)(size - 7)), 0);
    logfile_drop(lf);
    lf = logfile_open(path, 3, rep, sizeof rep, err, sizeof err);
    assert_non_null(lf);
    char want[256];
    snprintf(want, sizeof want, "removed a frame summary cut short at offset %llu (the frame "
             "before it is whole and is read as it is)", (unsigned long long)at);
    assert_string_equal(rep, want);
    round_of(lf, 3);
    logfile_close(lf);
    buf b = slurp();
    assert_int_equal(closed_frames(&b), 2);
    char *r = rounds_read();
    assert_string_equal(r, "1 2 3");
    free(r);
    buf_free(&b);
    /* killed right after the frame's end: no summary at all, nothing to mend */
    assert_int_equal(truncate(path, (off_t)at), 0);
    lf = logfile_open(path, 3, rep, sizeof rep, err, sizeof err);
    assert_non_null(lf);
    assert_string_equal(rep, "");
    round_of(lf, 4);
    logfile_close(lf);
    r = rounds_read();
    assert_string_equal(r, "1 2 4");
    free(r);
    buf_free(&whole);
}

static void test_a_failed_write_loses_only_that_round(void **state)
{
    (void)state;
    char rep[256], err[256];
    signal(SIGXFSZ, SIG_IGN);
    logfile *lf = logfile_open(path, 3, rep, sizeof rep, err, sizeof err);
    round_of(lf, 1);
    assert_int_equal(logfile_commit(lf, 0), 0);
    /* the disk is full: writes past the current size fail */
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = logfile_size(lf) + 10;
    setrlimit(RLIMIT_FSIZE, &lim);
    round_of(lf, 2);
    assert_int_equal(logfile_commit(lf, 0), -1);
    assert_int_equal(errno, EFBIG);
    round_of(lf, 3);
    assert_int_equal(logfile_commit(lf, 0), -1);
    setrlimit(RLIMIT_FSIZE, &old); /* space again */
    round_of(lf, 4);
    assert_int_equal(logfile_commit(lf, 0), 0);
    round_of(lf, 5);
    assert_int_equal(logfile_close(lf), 0);
    buf b = slurp();
    assert_int_equal(closed_frames(&b), 2); /* the old frame was closed on recovery */
    char *r = rounds_read();
    assert_string_equal(r, "1 4 5");
    free(r);
    buf_free(&b);
}

static void test_created_0600_never_through_a_symlink(void **state)
{
    (void)state;
    char rep[256], err[256];
    mode_t old = umask(0);
    logfile *lf = logfile_open(path, 3, rep, sizeof rep, err, sizeof err);
    umask(old);
    logfile_close(lf);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    char link[80];
    snprintf(link, sizeof link, "%s.link", path);
    unlink(link);
    assert_int_equal(symlink(path, link), 0);
    assert_null(logfile_open(link, 3, rep, sizeof rep, err, sizeof err));
    assert_string_equal(err, "could not open: Too many levels of symbolic links");
    unlink(link);
}

static void test_a_plain_log_stays_plain(void **state)
{
    (void)state;
    char rep[256], err[256];
    logfile *lf = logfile_open(path, 0, rep, sizeof rep, err, sizeof err);
    round_of(lf, 1);
    logfile_close(lf);
    lf = logfile_open(path, 3, rep, sizeof rep, err, sizeof err); /* asks for zstd */
    round_of(lf, 2);
    logfile_close(lf);
    buf b = slurp();
    assert_memory_equal(b.p, "#fpmlog1 ", 9);
    assert_null(memmem(b.p, b.n, "\x28\xb5\x2f\xfd", 4));
    char *r = rounds_read();
    assert_string_equal(r, "1 2");
    free(r);
    buf_free(&b);
}

/* Not a byte into a file that is not ours: text, a directory, a device, a FIFO. */
static void test_only_a_new_file_or_a_log_is_opened(void **state)
{
    (void)state;
    char rep[256], err[256];
    static const char text[] = "root:x:0:0:root:/root:/bin/bash\n";
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    assert_null(logfile_open(path, 3, rep, sizeof rep, err, sizeof err));
    assert_string_equal(err, "is not an fpmlog (it begins with neither a record nor a zstd "
                             "frame): refused, nothing written; give a new file or a log");
    buf b = slurp();
    assert_int_equal(b.n, sizeof text - 1);
    buf_free(&b);

    assert_null(logfile_open("/tmp", 3, rep, sizeof rep, err, sizeof err));
    assert_string_equal(err, "is a directory, not a log: refused");
    assert_null(logfile_open("/dev/null", 3, rep, sizeof rep, err, sizeof err));
    assert_string_equal(err, "is a device, not a log: refused");
    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_null(logfile_open(path, 3, rep, sizeof rep, err, sizeof err));
    assert_string_equal(err, "is a FIFO, not a log: refused");
    unlink(path);

    /* an empty file and a log of either kind are taken */
    close(open(path, O_CREAT | O_WRONLY, 0600));
    logfile *lf = logfile_open(path, 3, rep, sizeof rep, err, sizeof err);
    assert_non_null(lf);
    round_of(lf, 1);
    logfile_close(lf);
    lf = logfile_open(path, 3, rep, sizeof rep, err, sizeof err);
    assert_non_null(lf);
    logfile_close(lf);
}

/* A log another process has open is refused, naming it, and left as it is:
 * not even the frame it has open is closed. */
static void test_a_log_in_use_is_refused_naming_its_writer(void **state)
{
    (void)state;
    char rep[256], err[256];
    logfile *lf = logfile_open(path, 3, rep, sizeof rep, err, sizeof err);
    assert_non_null(lf);
    round_of(lf, 1); /* its frame stays open */
    struct stat before, after; /* not opened: that would drop this process's record lock */
    assert_int_equal(stat(path, &before), 0);
    int out[2];
    assert_int_equal(pipe(out), 0);
    pid_t child = fork();
    if (child == 0) { /* record locks are per process: the second writer is a child */
        logfile *second = logfile_open(path, 3, rep, sizeof rep, err, sizeof err);
        if (second)
            snprintf(err, sizeof err, "opened");
        ssize_t w = write(out[1], err, strlen(err) + 1);
        _exit(w > 0 ? 0 : 1);
    }
    close(out[1]);
    char said[256] = "";
    ssize_t n = read(out[0], said, sizeof said - 1);
    close(out[0]);
    int status;
    waitpid(child, &status, 0);
    assert_true(n > 0);
    char want[160];
    snprintf(want, sizeof want, "another fpm-record (pid %ld) is writing this log: refused, "
             "nothing written", (long)getpid());
    assert_string_equal(said, want);
    assert_int_equal(stat(path, &after), 0);
    assert_int_equal(after.st_size, before.st_size); /* its open frame was not closed */
    logfile_close(lf);
    char *r = rounds_read();
    assert_string_equal(r, "1");
    free(r);
}

/* An empty file given as the log is made 0600: it will hold URIs. */
static void test_an_adopted_empty_file_is_made_0600(void **state)
{
    (void)state;
    char rep[256], err[256];
    close(open(path, O_CREAT | O_WRONLY, 0644));
    chmod(path, 0644);
    logfile *lf = logfile_open(path, 3, rep, sizeof rep, err, sizeof err);
    assert_non_null(lf);
    logfile_close(lf);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_appending_starts_a_new_frame, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_frame_left_open_is_closed_on_start, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_closed_log_ends_with_its_index_and_a_restart_takes_it_off,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_failed_write_loses_only_that_round, setup, teardown),
        cmocka_unit_test_setup_teardown(test_created_0600_never_through_a_symlink, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_summary_cut_short_is_removed_on_start, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_plain_log_stays_plain, setup, teardown),
        cmocka_unit_test_setup_teardown(test_only_a_new_file_or_a_log_is_opened, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_log_in_use_is_refused_naming_its_writer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_an_adopted_empty_file_is_made_0600, setup, teardown),
    };
    return cmocka_run_group_tests_name("logfile", tests, NULL, NULL);
}
