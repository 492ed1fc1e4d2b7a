/* fpmidx: a log's frames walked, and the index that ends a closed log. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libdeflate.h>

#include "fpmidx.h"
#include "fpmlog.h"
#include "rc.h"
#include "testlib.h"

static FILE *f;
static fpmlog_writer *w;

static int setup(void **state)
{
    (void)state;
    f = tmpfile();
    w = fpmlog_writer_new(fileno(f), 3);
    return f && w ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    fpmlog_writer_free(w);
    fclose(f);
    return 0;
}

static void rec(const char *type, uint64_t mono, uint64_t real, const char *src, const char *p)
{
    assert_int_equal(fpmlog_write(w, type, mono, real, src, src ? strlen(src) : 0, p, strlen(p)), 0);
}

/* n frames of a round each, host h; the pools "a" and "b", then "b" alone
 * from frame `from` on */
static void frames(int n, const char *h, int from)
{
    char host[64];
    snprintf(host, sizeof host, "hostname=%s\nboot_id=b1\n", h);
    rec("HOST", 1, 50, NULL, host);
    for (int i = 0; i < n; i++) {
        if (i < from)
            rec("STATUS", 9, 99, "a", "{}");
        rec("STATUS", 9, 99, "b", "{}");
        rec("ROUND", 10 + (uint64_t)i, 100 + (uint64_t)i, NULL, "seq=1\n");
        assert_int_equal(fpmlog_writer_end_frame(w), 0);
    }
}

static uint64_t size_of(void)
{
    struct stat st;
    assert_int_equal(fstat(fileno(f), &st), 0);
    return (uint64_t)st.st_size;
}

static void assert_same(const fpmidx *a, const fpmidx *b)
{
    assert_int_equal(a->n, b->n);
    assert_int_equal(a->start, b->start);
    for (size_t k = 0; k < a->n; k++) {
        fpmsum x, y;
        fpmidx_sum(a, k, &x);
        fpmidx_sum(b, k, &y);
        assert_int_equal(a->f[k].off, b->f[k].off);
        assert_int_equal(a->f[k].len, b->f[k].len);
        assert_int_equal(a->f[k].sum_len, b->f[k].sum_len);
        assert_int_equal(x.rounds, y.rounds);
        assert_int_equal(x.min_real, y.min_real);
        assert_int_equal(x.max_real, y.max_real);
        assert_int_equal(x.first_mono, y.first_mono);
        assert_int_equal(x.seekable, y.seekable);
        assert_int_equal(x.own, y.own);
        assert_string_equal(x.hostname, y.hostname);
        assert_int_equal(a->f[k].npools, b->f[k].npools);
        for (size_t i = 0; i < a->f[k].npools; i++)
            assert_string_equal(a->names[a->f[k].pool0 + i], b->names[b->f[k].pool0 + i]);
    }
}

static void test_the_index_lists_what_the_walk_finds(void **state)
{
    (void)state;
    frames(5, "h\xc3\xa9 1", 3); /* a host with a space and UTF-8 bytes */
    uint64_t size = size_of();
    fpmidx walked = {0}, loaded;
    assert_int_equal(fpmidx_walk(fileno(f), 0, size, &walked), 0);
    assert_true(walked.whole);
    assert_int_equal(walked.n, 5);
    assert_int_equal(fpmidx_append(fileno(f), 0), 0);
    uint64_t at;
    const char *why = "";
    assert_int_equal(fpmidx_load(fileno(f), size_of(), &loaded, &at, &why), 0);
    assert_int_equal(at, size);
    assert_same(&walked, &loaded);
    fpmsum s;
    fpmidx_sum(&loaded, 4, &s);
    assert_string_equal(s.hostname, "h\xc3\xa9 1");
    assert_int_equal(s.rounds, 1);
    assert_int_equal(s.min_real, 104);
    assert_int_equal(loaded.f[0].npools, 2);
    assert_int_equal(loaded.f[4].npools, 1);
    assert_string_equal(loaded.names[loaded.f[4].pool0], "b");
    assert_int_equal(loaded.f[0].own, 1); /* its HOST */
    fpmidx_free(&walked);
    fpmidx_free(&loaded);
}

static void test_the_index_is_ascii_and_shares_pools_and_hosts(void **state)
{
    (void)state;
    frames(4, "h\xc3\xa9", 9);
    uint64_t size = size_of();
    assert_int_equal(fpmidx_append(fileno(f), 0), 0);
    buf b = {0};
    b.n = (size_t)(size_of() - size);
    b.p = malloc(b.n + 1);
    assert_int_equal(pread(fileno(f), b.p, b.n, (off_t)size), (ssize_t)b.n);
    b.p[b.n] = '\0';
    for (size_t i = 8; i < b.n; i++) /* after its skippable frame header */
        assert_true((unsigned char)b.p[i] < 0x7F);
    assert_non_null(strstr(b.p + 8, " h%C3%A9 2\nP ")); /* its two pools, listed once */
    assert_non_null(strstr(b.p + 8, " h%C3%A9 =\nF ")); /* the same pools after it */
    free(b.p);
}

static void test_a_damaged_index_is_said_and_not_believed(void **state)
{
    (void)state;
    frames(3, "h", 9);
    uint64_t size = size_of();
    assert_int_equal(fpmidx_append(fileno(f), 0), 0);
    /* a digit of the first frame line changed: its CRC no longer matches */
    char c;
    off_t pos = (off_t)size + 8 + 8 + 40;
    assert_int_equal(pread(fileno(f), &c, 1, pos), 1);
    c = c == '1' ? '2' : '1';
    assert_int_equal(pwrite(fileno(f), &c, 1, pos), 1);
    fpmidx x;
    uint64_t at;
    const char *why = NULL;
    assert_int_equal(fpmidx_load(fileno(f), size_of(), &x, &at, &why), FPMIDX_DAMAGED);
    assert_int_equal(at, size);
    assert_string_equal(why, "bad CRC");
    assert_int_equal(x.n, 0);
}

static void test_an_index_not_at_the_end_is_none(void **state)
{
    (void)state;
    frames(2, "h", 9);
    assert_int_equal(fpmidx_append(fileno(f), 0), 0);
    frames(1, "h", 9); /* appended after it: a log written on */
    fpmidx x;
    uint64_t at;
    const char *why = NULL;
    assert_int_equal(fpmidx_load(fileno(f), size_of(), &x, &at, &why), FPMIDX_NONE);
}

static void test_an_index_of_other_bytes_is_damaged(void **state)
{
    (void)state;
    frames(2, "h", 9);
    uint64_t before = size_of();
    assert_int_equal(fpmidx_append(fileno(f), 0), 0);
    uint64_t size = size_of();
    buf b = {0};
    b.n = (size_t)size;
    b.p = malloc(b.n);
    assert_int_equal(pread(fileno(f), b.p, b.n, 0), (ssize_t)b.n);
    /* the log after a copy of itself: its index lists the bytes of one */
    assert_int_equal(pwrite(fileno(f), b.p, b.n, (off_t)size), (ssize_t)b.n);
    free(b.p);
    fpmidx x;
    uint64_t at;
    const char *why = NULL;
    assert_int_equal(fpmidx_load(fileno(f), size_of(), &x, &at, &why), FPMIDX_DAMAGED);
    assert_int_equal(at, size + before);
    assert_string_equal(why, "it does not end where the index begins");
}

static void test_an_index_may_begin_past_the_start(void **state)
{
    (void)state;
    frames(2, "h", 9);
    uint64_t mid = size_of();
    frames(3, "h", 9);
    assert_int_equal(fpmidx_append(fileno(f), mid), 0);
    fpmidx x;
    uint64_t at, start;
    const char *why = NULL;
    assert_int_equal(fpmidx_load(fileno(f), size_of(), &x, &at, &why), 0);
    assert_int_equal(x.start, mid);
    assert_int_equal(x.n, 3);
    assert_int_equal(x.f[0].off, mid);
    assert_int_equal(fpmidx_find(fileno(f), size_of(), &at, &start), 0);
    assert_int_equal(start, mid);
    fpmidx_free(&x);
}

/* The index at the end of the file rewritten by edit (its body, as text),
 * with its CRC and sizes made right again: damage a CRC does not catch. */
static void rewrite_index(void (*edit)(char *body))
{
    uint64_t size = size_of(), at, start;
    assert_int_equal(fpmidx_find(fileno(f), size, &at, &start), 0);
    size_t total = (size_t)(size - at), blen = total - 16 - 48;
    char *b = calloc(1, total + 64);
    assert_int_equal(pread(fileno(f), b, total, (off_t)at), (ssize_t)total);
    b[16 + blen] = '\0';
    edit(b + 16);
    blen = strlen(b + 16);
    total = 16 + blen + 48;
    snprintf(b + 16 + blen, 49, "fpmidx1 crc=%08x total=%020zu\n",
             (unsigned)libdeflate_crc32(0, b + 16, blen), total);
    for (int i = 0; i < 4; i++)
        b[4 + i] = (char)((total - 8) >> (8 * i));
    assert_int_equal(ftruncate(fileno(f), (off_t)at), 0);
    assert_int_equal(pwrite(fileno(f), b, total, (off_t)at), (ssize_t)total);
    free(b);
}

/* the second and third frame lines swapped */
static void swap_frames(char *body)
{
    char *a = strstr(body, "\nF ") + 1, *b2 = strstr(a + 1, "\nF ") + 1,
         *c = strstr(b2 + 1, "\nF ") + 1, *d = strstr(c + 1, "\nF ") + 1;
    size_t la = (size_t)(b2 - a), lb = (size_t)(c - b2), lc = (size_t)(d - c);
    char *t = malloc(lb + lc);
    memcpy(t, c, lc);
    memcpy(t + lc, b2, lb);
    memcpy(b2, t, lb + lc);
    free(t);
    (void)la;
}

static void test_frames_out_of_order_make_the_index_damaged(void **state)
{
    (void)state;
    frames(4, "h", 9);
    assert_int_equal(fpmidx_append(fileno(f), 0), 0);
    rewrite_index(swap_frames);
    fpmidx x;
    uint64_t at;
    const char *why = NULL;
    assert_int_equal(fpmidx_load(fileno(f), size_of(), &x, &at, &why), FPMIDX_DAMAGED);
    assert_string_equal(why, "frames out of order or outside it");
}

static void test_frames_that_cannot_all_be_walked_get_no_index(void **state)
{
    (void)state;
    frames(2, "h", 9);
    uint64_t size = size_of();
    assert_int_equal(pwrite(fileno(f), "#fpmlog1 ", 9, (off_t)size), 9); /* plain bytes */
    assert_int_equal(fpmidx_append(fileno(f), 0), FPMIDX_NONE);
    assert_int_equal(size_of(), size + 9);
    fpmidx x = {0};
    assert_int_equal(fpmidx_walk(fileno(f), 0, size + 9, &x), 0);
    assert_false(x.whole);
    assert_int_equal(x.end, size);
    assert_int_equal(x.n, 2);
    fpmidx_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_the_index_lists_what_the_walk_finds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_the_index_is_ascii_and_shares_pools_and_hosts, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_damaged_index_is_said_and_not_believed, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_an_index_not_at_the_end_is_none, setup, teardown),
        cmocka_unit_test_setup_teardown(test_an_index_of_other_bytes_is_damaged, setup, teardown),
        cmocka_unit_test_setup_teardown(test_an_index_may_begin_past_the_start, setup, teardown),
        cmocka_unit_test_setup_teardown(test_frames_out_of_order_make_the_index_damaged, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_frames_that_cannot_all_be_walked_get_no_index, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
