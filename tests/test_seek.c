/* seek: which frames a window jumps over, and which summaries it believes. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <zlib.h>
#include <zstd.h>

#include "fpmlog.h"
#include "fpmsum.h"
#include "seek.h"
#include "testlib.h"

#define S 1000000000ull
static char path[64];

static int setup(void **state)
{
    (void)state;
    return tl_fresh_name(path, sizeof path, "/tmp/fpmcpu-seek-XXXXXX");
}

static int teardown(void **state)
{
    (void)state;
    unlink(path);
    return 0;
}

/* A log of n frames of one round each, round k (from 1) at k x 100 s. */
static buf frames_log(int n)
{
    FILE *f = tmpfile();
    fpmlog_writer *w = fpmlog_writer_new(fileno(f), 3);
    fpmlog_write(w, "HOST", 1, 1, NULL, 0, "hostname=h\nboot_id=b\n", 21);
    for (int k = 1; k <= n; k++) {
        char page[64];
        int pl = snprintf(page, sizeof page, "{\"processes\":[{\"pid\":%d}]}", k);
        fpmlog_write(w, "STATUS", (uint64_t)k * 100 * S, (uint64_t)k * 100 * S, "p", 1, page,
                     (size_t)pl);
        fpmlog_write(w, "ROUND", (uint64_t)k * 100 * S, (uint64_t)k * 100 * S, NULL, 0, "seq=1\n",
                     6);
        fpmlog_writer_end_frame(w);
    }
    fpmlog_writer_free(w);
    fflush(f);
    buf b = {0};
    long len = lseek(fileno(f), 0, SEEK_END);
    b.p = malloc((size_t)len);
    b.n = b.cap = (size_t)len;
    assert_int_equal(pread(fileno(f), b.p, (size_t)len, 0), len);
    fclose(f);
    return b;
}

static void put_file(const buf *b)
{
    FILE *f = fopen(path, "wb");
    fwrite(b->p, 1, b->n, f);
    fclose(f);
}

/* Where the k-th summary (from 0) of b starts, its length in *len. */
static size_t summary_off(const buf *b, int k, size_t *len)
{
    for (size_t off = 0; off < b->n;) {
        const unsigned char *p = (const unsigned char *)b->p + off;
        size_t n = ZSTD_findFrameCompressedSize(p, b->n - off);
        if (p[0] == FPMSUM_MAGIC0 && k-- == 0) {
            *len = n;
            return off;
        }
        off += n;
    }
    fail();
    return 0;
}

/* The k-th summary rewritten (its CRC made right again) with one key's
 * value replaced: a summary that lies but is not damaged. */
static buf lie(const buf *b, int k, const char *key, unsigned long long v)
{
    size_t len, off = summary_off(b, k, &len);
    const char *s = b->p + off;
    const char *hdr = memmem(s, len, "#fpmlog1 SUMMARY ", 17);
    const char *pay = memchr(hdr, '\n', len) + 1;
    size_t plen = 0;
    assert_int_equal(sscanf(hdr, "#fpmlog1 SUMMARY %*s %*s %*s %zu", &plen), 1);
    char np[2048] = "";
    char kk[64];
    snprintf(kk, sizeof kk, "%s=", key);
    for (const char *line = pay; line < pay + plen;) {
        const char *e = memchr(line, '\n', (size_t)(pay + plen - line));
        if (strncmp(line, kk, strlen(kk)) == 0)
            snprintf(np + strlen(np), sizeof np - strlen(np), "%s%llu\n", kk, v);
        else
            snprintf(np + strlen(np), sizeof np - strlen(np), "%.*s\n", (int)(e - line), line);
        line = e + 1;
    }
    char h[FPMLOG_HDR_MAX];
    int hl = fpmlog_header(h, "SUMMARY", 1, 1, NULL, 0, np, strlen(np));
    buf out = {0};
    buf_add(&out, b->p, off);
    size_t rest = (size_t)(pay + plen + 1 - s); /* the summary past its SUMMARY record */
    size_t content = 8 + (size_t)hl + strlen(np) + 1 + (len - rest);
    unsigned char head[8] = {FPMSUM_MAGIC0, 0x2A, 0x4D, 0x18, (unsigned char)(content),
                             (unsigned char)(content >> 8), 0, 0};
    buf_add(&out, head, 8);
    buf_add(&out, FPMSUM_TAG, FPMSUM_TAG_LEN);
    buf_add(&out, h, (size_t)hl);
    buf_add(&out, np, strlen(np));
    buf_add(&out, "\n", 1);
    buf_add(&out, s + rest, len - rest);
    buf_add(&out, b->p + off + len, b->n - off - len);
    return out;
}

/* Frames skipped for the window [from, until) of rounds (x 100 s). */
static uint64_t skipped(int from, int until)
{
    seek *s = seek_new(1, (uint64_t)from * 100 * S, 1, (uint64_t)until * 100 * S);
    assert_int_equal(seek_add(s, path), 0);
    seek_plan(s);
    seek_stats st = seek_stats_of(s);
    seek_free(s);
    return st.skipped;
}

static void test_frames_outside_the_window_are_skipped_but_the_last_before_it(void **state)
{
    (void)state;
    buf b = frames_log(10);
    put_file(&b);
    /* rounds 1-4 before [5, 7): the 4th is read; 7-10 after it: none is */
    assert_int_equal(skipped(5, 7), 3 + 4);
    buf_free(&b);
}

static void test_a_summary_of_the_wrong_size_is_not_believed(void **state)
{
    (void)state;
    buf b = frames_log(10);
    size_t len;
    size_t off = summary_off(&b, 1, &len);
    buf l = lie(&b, 1, "frame_bytes", 7);
    put_file(&l);
    /* frame 2 is read, and so is frame 3, whose frame before is not known
     * to end between rounds; frame 1 primes frame 2, frame 4 the window */
    assert_int_equal(skipped(5, 7), 0 + 4);
    (void)off;
    buf_free(&l);
    buf_free(&b);
}

static void test_times_out_of_order_with_the_neighbours_are_not_believed(void **state)
{
    (void)state;
    buf b = frames_log(10);
    buf l = lie(&b, 1, "max_real", 950 * S); /* round 2 claims 950 s: after round 3 */
    put_file(&l);
    /* frames 2 and 3 (whose neighbour before ends after it begins) are read */
    assert_int_equal(skipped(5, 7), 0 + 4);
    buf_free(&l);
    buf_free(&b);
}

static void test_a_frame_without_its_summary_is_read(void **state)
{
    (void)state;
    buf b = frames_log(10);
    size_t len, off = summary_off(&b, 1, &len);
    buf c = {0};
    buf_add(&c, b.p, off);
    buf_add(&c, b.p + off + len, b.n - off - len);
    put_file(&c);
    /* frame 2 without summary and frame 3 after it are read, 1 and 4 prime */
    assert_int_equal(skipped(5, 7), 0 + 4);
    buf_free(&c);
    buf_free(&b);
}

static void test_a_stretch_that_needs_more_reads_twice_as_much(void **state)
{
    (void)state;
    buf b = frames_log(20);
    put_file(&b);
    seek *s = seek_new(1, 15 * 100 * S, 1, 16 * 100 * S);
    assert_int_equal(seek_add(s, path), 0);
    seek_plan(s);
    assert_int_equal(seek_stats_of(s).skipped, 13 + 5);
    uint64_t id = 0; /* the stretch before the window */
    assert_int_equal(seek_more(s, &id, 1), 1);
    assert_int_equal(seek_stats_of(s).skipped, 12 + 5);
    assert_int_equal(seek_more(s, &id, 1), 1);
    assert_int_equal(seek_stats_of(s).skipped, 10 + 5);
    for (int i = 0; i < 3; i++)
        seek_more(s, &id, 1);
    assert_int_equal(seek_stats_of(s).skipped, 0 + 5); /* all 14 read */
    assert_int_equal(seek_more(s, &id, 1), 0);     /* nothing more to read */
    seek_free(s);
    buf_free(&b);
}

static void test_a_file_that_is_not_regular_is_read_whole(void **state)
{
    (void)state;
    seek *s = seek_new(1, 5 * 100 * S, 1, 7 * 100 * S);
    assert_int_equal(seek_add(s, "/dev/null"), 0);
    seek_plan(s);
    assert_int_equal(seek_stats_of(s).frames, 0);
    assert_int_equal(seek_skip(seek_file(s, 0), 0), 0);
    seek_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_frames_outside_the_window_are_skipped_but_the_last_before_it,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_summary_of_the_wrong_size_is_not_believed, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_times_out_of_order_with_the_neighbours_are_not_believed,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_frame_without_its_summary_is_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_stretch_that_needs_more_reads_twice_as_much, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_file_that_is_not_regular_is_read_whole, setup,
                                        teardown),
    };
    return cmocka_run_group_tests_name("seek", tests, NULL, NULL);
}
