/* fpmsum: the summary after each zstd frame, as written and as read back. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <zstd.h>

#include "fpmlog.h"
#include "fpmsum.h"
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

static buf file_bytes(void)
{
    buf b = {0};
    fflush(f);
    long n = lseek(fileno(f), 0, SEEK_END);
    b.p = malloc((size_t)n + 1);
    b.n = b.cap = (size_t)n;
    assert_int_equal(pread(fileno(f), b.p, (size_t)n, 0), n);
    return b;
}

/* The k-th summary of the file (from 0), its frame's size in *frame. */
static const unsigned char *summary_at(const buf *b, int k, size_t *len, size_t *frame)
{
    size_t off = 0;
    for (;;) {
        const unsigned char *p = (const unsigned char *)b->p + off;
        size_t n = ZSTD_findFrameCompressedSize(p, b->n - off);
        assert_false(ZSTD_isError(n));
        if (p[0] == 0x28) {
            *frame = n;
        } else if (p[0] == FPMSUM_MAGIC0 && k-- == 0) {
            *len = n;
            return p;
        }
        off += n;
        assert_true(off < b->n);
    }
}

typedef struct {
    char pools[256], records[256];
} seen;

static int see_pool(void *arg, const char *name, size_t len)
{
    seen *s = arg;
    snprintf(s->pools + strlen(s->pools), sizeof s->pools - strlen(s->pools), "%s%.*s",
             *s->pools ? "," : "", (int)len, name);
    return 0;
}

static int see_record(void *arg, const fpmlog_record *r)
{
    seen *s = arg;
    snprintf(s->records + strlen(s->records), sizeof s->records - strlen(s->records), "%s%s:%s",
             *s->records ? "," : "", r->type, r->source);
    return 0;
}

static void two_rounds(void)
{
    rec("HOST", 1, 50, NULL, "hostname=h1\nboot_id=b1\n");
    rec("POOL", 2, 51, "a", "max_children=4\n");
    rec("STATUS", 9, 99, "a", "{}");
    rec("PIDS", 9, 99, "b", "");
    rec("STAT", 9, 99, NULL, "cpu  1 2 3 4\n");
    rec("ROUND", 10, 100, NULL, "seq=1\n");
    rec("STATUS", 19, 89, "a", "{}");
    rec("ROUND", 20, 90, NULL, "seq=2\n"); /* the clock stepped back */
    assert_int_equal(fpmlog_writer_end_frame(w), 0);
}

static void test_a_frame_is_followed_by_its_summary(void **state)
{
    (void)state;
    two_rounds();
    buf b = file_bytes();
    size_t len, frame;
    const unsigned char *p = summary_at(&b, 0, &len, &frame);
    assert_ptr_equal(p, (const unsigned char *)b.p + frame); /* right after its frame */
    fpmsum_reader *sr = fpmsum_reader_new();
    fpmsum s;
    seen v = {"", ""};
    fpmsum_visit vis = {see_pool, see_record, &v};
    assert_int_equal(fpmsum_read(sr, p, len, &s, &vis), 0);
    assert_int_equal(s.frame_bytes, frame);
    assert_int_equal(s.rounds, 2);
    assert_int_equal(s.first_real, 100);
    assert_int_equal(s.last_real, 90);
    assert_int_equal(s.min_real, 90);
    assert_int_equal(s.max_real, 100);
    assert_int_equal(s.first_mono, 10);
    assert_int_equal(s.last_mono, 20);
    assert_int_equal(s.seekable, 1);
    assert_int_equal(s.in_force, 0);
    assert_string_equal(s.hostname, "h1");
    /* the pools of its rounds (in the writer's table order), its own records */
    assert_true(strcmp(v.pools, "a,b") == 0 || strcmp(v.pools, "b,a") == 0);
    assert_string_equal(v.records, "HOST:,POOL:a");
    fpmsum_reader_free(sr);
    buf_free(&b);
}

static void test_the_records_in_force_when_a_frame_begins(void **state)
{
    (void)state;
    two_rounds();
    rec("STATUS", 29, 109, "a", "{}");
    rec("ROUND", 30, 110, NULL, "seq=3\n");
    assert_int_equal(fpmlog_writer_end_frame(w), 0);
    buf b = file_bytes();
    size_t len, frame;
    const unsigned char *p = summary_at(&b, 1, &len, &frame);
    fpmsum_reader *sr = fpmsum_reader_new();
    fpmsum s;
    seen v = {"", ""};
    fpmsum_visit vis = {see_pool, see_record, &v};
    assert_int_equal(fpmsum_read(sr, p, len, &s, &vis), 0);
    assert_int_equal(s.rounds, 1);
    assert_int_equal(s.in_force, 2); /* the HOST and its POOL */
    assert_string_equal(v.records, ""); /* none of its own */
    assert_string_equal(v.pools, "a");
    fpmsum_reader_free(sr);
    buf_free(&b);
}

static int seekable_of(int k)
{
    buf b = file_bytes();
    size_t len, frame;
    const unsigned char *p = summary_at(&b, k, &len, &frame);
    fpmsum_reader *sr = fpmsum_reader_new();
    fpmsum s;
    assert_int_equal(fpmsum_read(sr, p, len, &s, NULL), 0);
    fpmsum_reader_free(sr);
    buf_free(&b);
    return s.seekable;
}

static void test_a_frame_ending_inside_a_round_is_not_seekable(void **state)
{
    (void)state;
    two_rounds();
    rec("STATUS", 29, 109, "a", "{}");
    assert_int_equal(fpmlog_writer_end_frame(w), 0);
    assert_int_equal(seekable_of(0), 1);
    assert_int_equal(seekable_of(1), 0);
}

static void test_rounds_of_two_hostnames_are_not_seekable(void **state)
{
    (void)state;
    two_rounds();
    rec("ROUND", 30, 110, NULL, "seq=3\n");
    rec("HOST", 31, 111, NULL, "hostname=h2\nboot_id=b2\n");
    rec("ROUND", 40, 120, NULL, "seq=1\n");
    assert_int_equal(fpmlog_writer_end_frame(w), 0);
    assert_int_equal(seekable_of(1), 0);
}

static void test_a_damaged_summary_is_not_read(void **state)
{
    (void)state;
    two_rounds();
    buf b = file_bytes();
    size_t len, frame;
    unsigned char *p = (unsigned char *)summary_at(&b, 0, &len, &frame);
    fpmsum_reader *sr = fpmsum_reader_new();
    fpmsum s;
    /* a byte of its SUMMARY (the CRC catches it), its size, its tag, its magic */
    size_t at[] = {8 + FPMSUM_TAG_LEN + 80, 4, 9, 0};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        p[at[i]] ^= 1;
        assert_int_equal(fpmsum_read(sr, p, len, &s, NULL), -1);
        p[at[i]] ^= 1;
    }
    assert_int_equal(fpmsum_read(sr, p, len - 1, &s, NULL), -1); /* cut short */
    /* the frame's own records are read: a byte of its POOL's payload */
    p[len - 20] ^= 1;
    assert_int_equal(fpmsum_read(sr, p, len, &s, NULL), -1);
    p[len - 20] ^= 1;
    assert_int_equal(fpmsum_read(sr, p, len, &s, NULL), 0);
    fpmsum_reader_free(sr);
    buf_free(&b);
}

static void test_a_plain_writer_writes_no_summary(void **state)
{
    (void)state;
    fpmlog_writer_free(w);
    w = fpmlog_writer_new(fileno(f), 0);
    two_rounds();
    buf b = file_bytes();
    assert_null(memmem(b.p, b.n, "fpmsum1", 7));
    buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_a_frame_is_followed_by_its_summary, setup, teardown),
        cmocka_unit_test_setup_teardown(test_the_records_in_force_when_a_frame_begins, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_frame_ending_inside_a_round_is_not_seekable, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_rounds_of_two_hostnames_are_not_seekable, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_damaged_summary_is_not_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_plain_writer_writes_no_summary, setup, teardown),
    };
    return cmocka_run_group_tests_name("fpmsum", tests, NULL, NULL);
}
