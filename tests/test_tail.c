/* fpmlog(5) ACCESS: php-fpm's access logs followed as tail -F does
 * (recorder/tail.h), on plain files the tests write, rotate and truncate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tail.h"

static char notes[8192];

static void note(void *arg, const char *fmt, ...)
{
    (void)arg;
    size_t n = strlen(notes);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(notes + n, sizeof notes - n, fmt, ap);
    va_end(ap);
    n = strlen(notes);
    if (n + 1 < sizeof notes)
        strcpy(notes + n, "\n");
}

static char dir[] = "/tmp/fpmcpu-tail-XXXXXX";
static char path[256];

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/fpmcpu-tail-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/access.log", dir);
    notes[0] = '\0';
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void append(const char *p, const void *b, size_t n)
{
    int fd = open(p, O_WRONLY | O_CREAT | O_APPEND, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, b, n), (ssize_t)n);
    close(fd);
}

static void add(const char *s)
{
    append(path, s, strlen(s));
}

/* A read's lines as a string (NUL-terminated copy). */
static char *lines(tail_file *t)
{
    static unsigned char *buf;
    static size_t cap;
    static char out[1 << 16];
    long n = tail_read(t, &buf, &cap, note, NULL);
    assert_true(n >= 0 && (size_t)n < sizeof out);
    memcpy(out, buf, (size_t)n);
    out[n] = '\0';
    return out;
}

/* A file as it is now is followed from after its last complete line; the
 * lines it gains come whole, a line without its newline waits for it */
static void test_complete_lines_only(void **state)
{
    (void)state;
    add("old 1\nold 2\nbeg");
    tail_file t;
    assert_int_equal(tail_start(&t, path, NULL, 0, note, NULL), 0);
    assert_non_null(strstr(notes, "started at its end, 12 bytes skipped"));
    assert_string_equal(lines(&t), "");
    add("un\nnew 1\nnew");
    assert_string_equal(lines(&t), "begun\nnew 1\n");
    assert_string_equal(lines(&t), "");
    add(" 2\n");
    assert_string_equal(lines(&t), "new 2\n");
    tail_close(&t);
}

/* logrotate's default: the file renamed away, php-fpm writing to it until
 * it reopens its path (SIGUSR1), and its old workers finishing their
 * requests into it after: the old file followed until a new one is at the
 * path, read to its end, then read again until it gains nothing; the new
 * one from its start; nothing lost */
static void test_rename_then_reopen(void **state)
{
    (void)state;
    add("");
    tail_file t;
    assert_int_equal(tail_start(&t, path, NULL, 0, note, NULL), 0);
    add("a 1\n");
    assert_string_equal(lines(&t), "a 1\n");
    char old[300];
    snprintf(old, sizeof old, "%s.1", path);
    assert_int_equal(rename(path, old), 0);
    append(old, "a 2\n", 4); /* still written to, before the reopen */
    assert_string_equal(lines(&t), "a 2\n");
    assert_non_null(strstr(notes, "renamed away; followed until a new file is at its path"));
    append(old, "a 3\n", 4); /* more, and then the new file */
    add("b 1\n");
    assert_string_equal(lines(&t), "a 3\nb 1\n");
    assert_non_null(strstr(notes, "renamed away and read to its end; the new file at its path "
                                  "read from its start"));
    append(old, "a 4\n", 4); /* an old worker's last request */
    add("b 2\n");
    assert_string_equal(lines(&t), "a 4\nb 2\n");
    add("b 3\n");
    assert_string_equal(lines(&t), "b 3\n"); /* the old file gained nothing: left */
    assert_int_equal(t.old.fd, -1);
    /* renamed with no writer after it, the new file there at once */
    assert_int_equal(rename(path, old), 0);
    add("c 1\n");
    assert_string_equal(lines(&t), "c 1\n");
    tail_close(&t);
}

/* copytruncate: the file is copied and truncated: read again from 0, and
 * said (what was written between the copy and the truncation is lost) */
static void test_copytruncate(void **state)
{
    (void)state;
    add("");
    tail_file t;
    assert_int_equal(tail_start(&t, path, NULL, 0, note, NULL), 0);
    add("x 1\nx 2\n");
    assert_string_equal(lines(&t), "x 1\nx 2\n");
    assert_int_equal(truncate(path, 0), 0);
    add("y 1\n");
    assert_string_equal(lines(&t), "y 1\n");
    assert_non_null(strstr(notes, "truncated (4 bytes now, 8 read: copytruncate), read again "
                                  "from 0; the lines it gained after byte 8 before its "
                                  "truncation are lost"));
    tail_close(&t);
}

/* A line that grows past 64 KiB without its newline is dropped up to it,
 * said; the lines around it stay whole */
static void test_a_line_over_64_kib(void **state)
{
    (void)state;
    add("");
    tail_file t;
    assert_int_equal(tail_start(&t, path, NULL, 0, note, NULL), 0);
    add("before\n");
    char *big = malloc(70000);
    memset(big, 'z', 70000);
    append(path, big, 70000);
    assert_string_equal(lines(&t), "before\n");
    assert_non_null(strstr(notes, "a line grew past 65536 bytes without its newline"));
    append(path, big, 1000);
    add("zz\nafter\n");
    assert_string_equal(lines(&t), "after\n");
    assert_non_null(strstr(notes, "the rest of a line longer than 65536 bytes dropped, 1003 bytes"));
    free(big);
    tail_close(&t);
}

/* At most 16 MiB of lines a read, ending at a newline; the rest waits for
 * the next, and falling behind is said */
static void test_16_mib_a_read(void **state)
{
    (void)state;
    add("");
    tail_file t;
    assert_int_equal(tail_start(&t, path, NULL, 0, note, NULL), 0);
    size_t line = 100, total = 20u << 20;
    char *b = malloc(total);
    for (size_t i = 0; i < total; i++)
        b[i] = (i + 1) % line == 0 ? '\n' : 'q';
    append(path, b, total);
    unsigned char *buf = NULL;
    size_t cap = 0;
    long n1 = tail_read(&t, &buf, &cap, note, NULL);
    assert_true(n1 > 0 && n1 <= (long)TAIL_MAX_READ && buf[n1 - 1] == '\n');
    assert_true(n1 > (long)TAIL_MAX_READ - 2 * (long)line);
    assert_non_null(strstr(notes, "falling behind"));
    long n2 = tail_read(&t, &buf, &cap, note, NULL);
    assert_int_equal(n1 + n2, (long)(total - total % line)); /* the last line not ended */
    assert_non_null(strstr(notes, "caught up"));
    free(buf);
    free(b);
    tail_close(&t);
}

/* The state file: a restart resumes where the last run left (a line begun
 * read again whole); another file at the path, or a shorter one, starts at
 * its end, the bytes skipped said */
static void test_state_and_restart(void **state)
{
    (void)state;
    add("");
    tail_file t;
    assert_int_equal(tail_start(&t, path, NULL, 0, note, NULL), 0);
    add("s 1\ns 2\ns 3 beg");
    assert_string_equal(lines(&t), "s 1\ns 2\n");
    char st[300];
    snprintf(st, sizeof st, "%s/log.access", dir);
    assert_int_equal(tail_state_write(st, &t, 1), 0);
    struct stat sb;
    assert_int_equal(stat(st, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    tail_close(&t);
    add("un\ns 4\n"); /* written while no recorder ran */
    tail_saved *sv;
    size_t n;
    assert_int_equal(tail_state_read(st, &sv, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(sv[0].pos, 8); /* where "s 3" begins */
    notes[0] = '\0';
    assert_int_equal(tail_start(&t, path, sv, n, note, NULL), 0);
    assert_non_null(strstr(notes, "resumed where the last run left it, at byte 8 of 22"));
    assert_string_equal(lines(&t), "s 3 begun\ns 4\n");
    tail_close(&t);
    /* another file at the path */
    char old[300];
    snprintf(old, sizeof old, "%s.1", path);
    assert_int_equal(rename(path, old), 0);
    add("n 1\nn 2\n");
    notes[0] = '\0';
    assert_int_equal(tail_start(&t, path, sv, n, note, NULL), 0);
    assert_non_null(strstr(notes, "started at its end, 8 bytes skipped (another file is at "
                                  "its path since the run before"));
    tail_close(&t);
    tail_saved_free(sv, n);
    /* a path with a space and a newline keeps its bytes through the state */
    char odd[300];
    snprintf(odd, sizeof odd, "%s/a b\n%%c.log", dir);
    append(odd, "o\n", 2);
    assert_int_equal(tail_start(&t, odd, NULL, 0, note, NULL), 0);
    assert_int_equal(tail_state_write(st, &t, 1), 0);
    assert_int_equal(tail_state_read(st, &sv, &n), 0);
    assert_int_equal(n, 1);
    assert_string_equal(sv[0].path, odd);
    tail_saved_free(sv, n);
    tail_close(&t);
}

/* A file that is not there yet is not open (said by the caller), and read
 * from its start once it appears; a FIFO is never read */
static void test_missing_then_created_and_no_fifo(void **state)
{
    (void)state;
    tail_file t;
    assert_int_equal(tail_start(&t, path, NULL, 0, note, NULL), 0);
    unsigned char *buf = NULL;
    size_t cap = 0;
    assert_int_equal(tail_read(&t, &buf, &cap, note, NULL), -1);
    assert_int_equal(t.err, ENOENT);
    add("first\n");
    assert_string_equal(lines(&t), "first\n");
    tail_close(&t);
    char fifo[300];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(tail_start(&t, fifo, NULL, 0, note, NULL), 0);
    assert_int_equal(tail_read(&t, &buf, &cap, note, NULL), -1);
    assert_int_equal(t.err, EINVAL);
    free(buf);
    tail_close(&t);
}

/* Hostile bytes are kept byte for byte, never cut into a neighbour's line */
static void test_hostile_bytes_byte_for_byte(void **state)
{
    (void)state;
    add("");
    tail_file t;
    assert_int_equal(tail_start(&t, path, NULL, 0, note, NULL), 0);
    static const unsigned char b[] = "GET /\"<script>\xff\xfe\0x\n\r\nnext\n";
    append(path, b, sizeof b - 1);
    unsigned char *buf = NULL;
    size_t cap = 0;
    long n = tail_read(&t, &buf, &cap, note, NULL);
    assert_int_equal(n, (long)sizeof b - 1);
    assert_memory_equal(buf, b, sizeof b - 1);
    /* 1 MiB without a newline between two lines: dropped up to its newline,
     * its neighbours whole */
    char *big = malloc(1 << 20);
    memset(big, '<', 1 << 20);
    append(path, "before\n", 7);
    append(path, big, 1 << 20);
    append(path, "\nafter\n", 7);
    n = tail_read(&t, &buf, &cap, note, NULL);
    assert_int_equal(n, 13);
    assert_memory_equal(buf, "before\nafter\n", 13);
    assert_non_null(strstr(notes, "a line grew past 65536 bytes without its newline"));
    free(big);
    free(buf);
    tail_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_complete_lines_only, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rename_then_reopen, setup, teardown),
        cmocka_unit_test_setup_teardown(test_copytruncate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_line_over_64_kib, setup, teardown),
        cmocka_unit_test_setup_teardown(test_16_mib_a_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_state_and_restart, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_then_created_and_no_fifo, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hostile_bytes_byte_for_byte, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
