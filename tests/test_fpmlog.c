/* fpmlog reader and writer: every rule of fpmlog(5)'s "Bytes on disk" and
 * "Records", and every writer checked by reading back what it wrote. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "fpmlog.h"
#include "testlib.h"
#include "zahead.h"

/* A plain record, written by hand (not by the writer under test). */
static void rec(buf *b, const char *type, const char *source, const char *payload)
{
    size_t n = strlen(payload);
    buf_printf(b, "#fpmlog1 %s 100 200 %s %zu %08lx\n", type, source, n,
               crc32(0L, (const unsigned char *)payload, (uInt)n));
    buf_add(b, payload, n);
    buf_add(b, "\n", 1);
}

/* Reads fd to its end, alone or with frames decoded ahead on decoders
 * threads; returns what was seen, one line per event: "TYPE SOURCE LEN"
 * for a record, "! OFFSET what" for damage ("! OFFSET/INFRAME what" inside
 * a zstd frame). */
static char *read_events(int fd, int decoders)
{
    fpmlog_reader *r = fpmlog_reader_fdopen(fd);
    buf out = {0};
    fpmlog_record rec;
    fpmlog_damage d;
    int ret;
    assert_non_null(r);
    if (decoders)
        assert_int_equal(fpmlog_reader_ahead(r, decoders), 0);
    while ((ret = fpmlog_reader_next(r, &rec, &d)) != 0) {
        assert_int_not_equal(ret, -2);
        if (ret == 1) {
            buf_printf(&out, "%s %s %zu", rec.type, rec.has_source ? rec.source : "-", rec.len);
            /* what the reader returns is well-formed: a TYPE of [A-Z][A-Z0-9_]*
             * and LEN readable payload bytes (ASan checks the reads) */
            assert_true(rec.type[0] >= 'A' && rec.type[0] <= 'Z');
            for (const char *t = rec.type; *t; t++)
                assert_true((*t >= 'A' && *t <= 'Z') || (*t >= '0' && *t <= '9') || *t == '_');
            assert_true(rec.len == 0 || rec.payload != NULL);
            if (rec.len)
                assert_true(crc32(0L, rec.payload, (uInt)rec.len) <= 0xffffffffUL);
        } else if (d.pos.compressed) {
            buf_printf(&out, "! %llu/%llu %s", (unsigned long long)d.pos.offset,
                       (unsigned long long)d.pos.in_frame, d.what);
        } else {
            buf_printf(&out, "! %llu %s", (unsigned long long)d.pos.offset, d.what);
        }
        buf_add(&out, "\n", 1);
    }
    fpmlog_reader_free(r);
    if (!out.p)
        buf_add(&out, "", 0);
    return out.p;
}

/* What read_events sees reading fd alone, which every test checks; and
 * the same (record for record, damage for damage) with frames decoded
 * ahead, by one to four decoders in turn.  Closes fd. */
static char *events(int fd)
{
    static int turn;
    off_t start = lseek(fd, 0, SEEK_CUR);
    char *alone = read_events(fd, 0);
    assert_int_equal(lseek(fd, start, SEEK_SET), start);
    char *ahead = read_events(fd, 1 + turn++ % 4);
    close(fd);
    assert_string_equal(ahead, alone);
    free(ahead);
    return alone;
}

/* events(), comparing with frames decoded ahead at every 32nd call only:
 * for the loops over every cut and every flipped byte, where threads for
 * each of thousands of reads take minutes on a busy machine (fuzz_fpmlog
 * compares the two on whatever bytes). */
static char *events_sampled(int fd)
{
    static unsigned calls;
    if (calls++ % 32 == 0)
        return events(fd);
    char *e = read_events(fd, 0);
    close(fd);
    return e;
}

static char *events_of(const buf *b)
{
    return events(file_of(b->p, b->n));
}

/* zstd-compresses bytes as one frame. */
static void zframe(buf *out, const void *p, size_t n)
{
    size_t cap = ZSTD_compressBound(n);
    char *z = malloc(cap);
    size_t zn = ZSTD_compress(z, cap, p, n, 3);
    assert_false(ZSTD_isError(zn));
    buf_add(out, z, zn);
    free(z);
}

static void test_plain_records_read_in_order(void **state)
{
    (void)state;
    buf b = {0};
    rec(&b, "HOST", "-", "hostname=web1\n");
    rec(&b, "STATUS", "shop", "{}");
    rec(&b, "ROUND", "-", "seq=1\n");
    char *e = events_of(&b);
    assert_string_equal(e, "HOST - 14\nSTATUS shop 2\nROUND - 6\n");
    free(e);
    buf_free(&b);
}

static void test_writer_round_trip_plain_and_zstd(void **state)
{
    (void)state;
    for (int level = 0; level <= 3; level += 3) {
        FILE *f = tmpfile();
        int fd = dup(fileno(f));
        fclose(f);
        fpmlog_writer *w = fpmlog_writer_new(fd, level);
        assert_non_null(w);
        static const char bin[] = {'a', '\0', '\n', (char)0xff, 'z'};
        assert_int_equal(fpmlog_write(w, "HOST", 1, 2, NULL, 0, "hostname=h\n", 11), 0);
        assert_int_equal(fpmlog_write(w, "STATUS", 3, 4, "my pool%", 8, bin, sizeof bin), 0);
        assert_int_equal(fpmlog_write(w, "PIDS", 5, 6, "-", 1, "", 0), 0);
        assert_int_equal(fpmlog_writer_end_frame(w), 0);
        fpmlog_writer_free(w);
        lseek(fd, 0, SEEK_SET);
        fpmlog_reader *r = fpmlog_reader_fdopen(fd);
        fpmlog_record rc;
        fpmlog_damage d;
        assert_int_equal(fpmlog_reader_next(r, &rc, &d), 1);
        assert_string_equal(rc.type, "HOST");
        assert_int_equal(rc.has_source, 0);
        assert_int_equal(rc.mono, 1);
        assert_int_equal(rc.real, 2);
        assert_int_equal(fpmlog_reader_next(r, &rc, &d), 1);
        assert_string_equal(rc.source, "my pool%");
        assert_int_equal(rc.len, sizeof bin);
        assert_memory_equal(rc.payload, bin, sizeof bin);
        assert_int_equal(rc.pos.compressed, level > 0);
        assert_int_equal(fpmlog_reader_next(r, &rc, &d), 1);
        assert_string_equal(rc.type, "PIDS");
        assert_int_equal(rc.has_source, 1);
        assert_string_equal(rc.source, "-");
        assert_int_equal(rc.len, 0);
        assert_int_equal(fpmlog_reader_next(r, &rc, &d), 0);
        fpmlog_reader_free(r);
        close(fd);
    }
}

static void test_source_is_percent_decoded(void **state)
{
    (void)state;
    buf b = {0};
    rec(&b, "POOL", "a%20b%2d%zz%4", "x");
    rec(&b, "POOL", "%2D", "x");
    rec(&b, "POOL", "%41%62", "x");
    char *e = events_of(&b);
    assert_string_equal(e, "POOL a b-%zz%4 1\nPOOL - 1\nPOOL Ab 1\n");
    free(e);
    char enc[64];
    assert_int_equal(fpmlog_encode_source(enc, "a b%\x7f", 5), 11);
    assert_string_equal(enc, "a%20b%25%7F");
    fpmlog_encode_source(enc, "-", 1);
    assert_string_equal(enc, "%2D");
    buf_free(&b);
}

/* b followed by a good ROUND reads as one damaged header at offset 0, then
 * the ROUND: the reader went on at the next line. */
static void assert_one_bad_header(buf *b)
{
    rec(b, "ROUND", "-", "seq=1\n");
    char *e = events_of(b);
    assert_string_equal(e, "! 0 bad record header, record skipped\nROUND - 6\n");
    free(e);
    buf_free(b);
}

/* fpmlog(5) "Records": a raw byte <= 0x20 or 0x7F in SOURCE (the writer
 * escapes them) means the header is damaged; a byte >= 0x80 is a name's. */
static void test_raw_byte_in_source_is_a_damaged_header(void **state)
{
    (void)state;
    static const char *const bad[] = {"a\tb", "a\x7f", "\x01", "a\x1f"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        buf b = {0};
        rec(&b, "POOL", bad[i], "x");
        assert_one_bad_header(&b);
    }
    buf b = {0};
    rec(&b, "POOL", "caf\xc3\xa9\x80", "x");
    char *e = events_of(&b);
    assert_string_equal(e, "POOL caf\xc3\xa9\x80 1\n");
    free(e);
    buf_free(&b);
}

static void test_bad_crc_reported_with_offset_and_skipped(void **state)
{
    (void)state;
    buf b = {0};
    rec(&b, "STATUS", "a", "one");
    size_t off = b.n;
    rec(&b, "STATUS", "b", "two");
    rec(&b, "STATUS", "c", "three");
    b.p[off + strlen("#fpmlog1 STATUS 100 200 b 3 00000000\n")] ^= 1; /* flip a payload bit */
    char *e = events_of(&b);
    char want[256];
    snprintf(want, sizeof want, "STATUS a 3\n! %zu bad CRC, record skipped\nSTATUS c 5\n", off);
    assert_string_equal(e, want);
    free(e);
    buf_free(&b);
}

static void test_bad_header_resyncs_at_the_next_line(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "#fpmlog1 status 1 2 a 0 00000000\n",            /* lower-case type */
        "#fpmlog1 STATUS 1 2 a 0 0000000\n",             /* 7 hex digits */
        "#fpmlog1 STATUS 1 2 a 0 0000000G\n",            /* not hex */
        "#fpmlog1 STATUS 1 2 a 0 ABCDEF00\n",            /* upper-case hex */
        "#fpmlog1 STATUS 1  2 a 0 00000000\n",           /* two spaces */
        "#fpmlog1 STATUS 1 2 a 0 00000000 x\n",          /* eight fields */
        "#fpmlog1 STATUS 18446744073709551616 2 a 0 00000000\n", /* > u64 */
        "#fpmlog1 STATUS 1 2 a 67108865 00000000\n",     /* > 64 MiB */
        "#fpmlog1 STATUS 1 -2 a 0 00000000\n",           /* sign */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        buf b = {0};
        buf_add(&b, bad[i], strlen(bad[i]));
        assert_one_bad_header(&b);
    }
    /* leading zeros and the largest values are fine */
    buf b = {0};
    buf_add(&b, "#fpmlog1 X_1 0001 18446744073709551615 - 0 00000000\n\n", 53);
    char *e = events_of(&b);
    assert_string_equal(e, "X_1 - 0\n");
    free(e);
    buf_free(&b);
}

static void test_length_is_not_trusted_after_damage(void **state)
{
    (void)state;
    /* a LEN too large swallows the next record: CRC fails, the reader goes
     * back to the line after the damaged header and finds it */
    buf b = {0};
    buf_add(&b, "#fpmlog1 STATUS 1 2 a 40 00000000\nabc\n", 38);
    rec(&b, "ROUND", "-", "seq=1\n");
    rec(&b, "ROUND", "-", "seq=2\n");
    char *e = events_of(&b);
    assert_string_equal(e, "! 0 bad CRC, record skipped\nROUND - 6\nROUND - 6\n");
    free(e);
    buf_free(&b);
}

static void test_payload_without_newline_is_accepted(void **state)
{
    (void)state;
    buf b = {0};
    buf_printf(&b, "#fpmlog1 NOTE 1 2 - 2 %08lx\nhi", crc32(0L, (const unsigned char *)"hi", 2));
    rec(&b, "ROUND", "-", "seq=1\n");
    char *e = events_of(&b);
    assert_string_equal(e, "NOTE - 2\nROUND - 6\n");
    free(e);
    buf_free(&b);
}

static void test_unknown_type_is_returned_for_the_caller_to_skip(void **state)
{
    (void)state;
    buf b = {0};
    rec(&b, "FUTURE_TYPE2", "x", "whatever");
    rec(&b, "ROUND", "-", "seq=1\n");
    char *e = events_of(&b);
    assert_string_equal(e, "FUTURE_TYPE2 x 8\nROUND - 6\n");
    free(e);
    buf_free(&b);
}

static void test_garbage_is_reported_once(void **state)
{
    (void)state;
    buf b = {0};
    rec(&b, "ROUND", "-", "seq=1\n");
    size_t off = b.n;
    for (int i = 0; i < 5000; i++)
        buf_add(&b, "garbage line\n", 13);
    rec(&b, "ROUND", "-", "seq=2\n");
    char *e = events_of(&b);
    char want[256];
    snprintf(want, sizeof want,
             "ROUND - 6\n! %zu no record header here, bytes skipped up to the next record\n"
             "ROUND - 6\n", off);
    assert_string_equal(e, want);
    free(e);
    buf_free(&b);
}

static void test_torn_tail_plain_costs_one_record(void **state)
{
    (void)state;
    buf b = {0};
    rec(&b, "STATUS", "a", "one");
    rec(&b, "ROUND", "-", "seq=1\n");
    size_t off = b.n;
    rec(&b, "STATUS", "a", "a longer payload");
    for (size_t cut = off + 1; cut < b.n - 1; cut += 7) {
        char *e = events(file_of(b.p, cut));
        char want[256];
        size_t hdr = strlen("#fpmlog1 STATUS 100 200 a 16 00000000\n");
        if (cut - off < hdr)
            snprintf(want, sizeof want,
                     "STATUS a 3\nROUND - 6\n! %zu record cut short (torn tail), record skipped\n", off);
        else
            snprintf(want, sizeof want,
                     "STATUS a 3\nROUND - 6\n! %zu record cut short (%zu of 16 payload bytes), "
                     "record skipped\n", off, cut - off - hdr);
        assert_string_equal(e, want);
        free(e);
    }
    buf_free(&b);
}

static void test_concatenated_frames_and_plain_tail_are_one_stream(void **state)
{
    (void)state;
    buf r1 = {0}, r2 = {0}, r3 = {0}, file = {0};
    rec(&r1, "HOST", "-", "hostname=a\n");
    rec(&r2, "STATUS", "p", "page");
    rec(&r3, "ROUND", "-", "seq=1\n");
    zframe(&file, r1.p, r1.n);
    zframe(&file, r2.p, r2.n);
    buf_add(&file, r3.p, r3.n); /* plain tail */
    char *e = events_of(&file);
    assert_string_equal(e, "HOST - 11\nSTATUS p 4\nROUND - 6\n");
    free(e);
    buf_free(&r1);
    buf_free(&r2);
    buf_free(&r3);
    buf_free(&file);
}

static void test_frames_split_anywhere_decode_as_one_stream(void **state)
{
    (void)state;
    buf plain = {0};
    for (int i = 0; i < 20; i++)
        rec(&plain, "STATUS", "pool", "{\"processes\":[]} and some more text to split");
    /* every split point, including ones inside headers and payloads */
    for (size_t cut = 1; cut < plain.n; cut += 37) {
        buf file = {0};
        zframe(&file, plain.p, cut);
        zframe(&file, plain.p + cut, plain.n - cut);
        char *e = events_of(&file);
        buf want = {0};
        for (int i = 0; i < 20; i++)
            buf_add(&want, "STATUS pool 44\n", 15);
        assert_string_equal(e, want.p);
        free(e);
        buf_free(&want);
        buf_free(&file);
    }
    buf_free(&plain);
}

/* Frames decoded ahead: more than the decoders may hold at once, and one
 * too large to decode ahead between them, which the reader decodes itself;
 * events() checks that what comes back is what the reader alone gives. */
static void test_frames_decoded_ahead_whatever_their_size(void **state)
{
    (void)state;
    buf file = {0}, want = {0};
    char *big = malloc(ZA_MAX_FRAME + 200000);
    unsigned x = 12345;
    for (size_t i = 0; i < ZA_MAX_FRAME + 200000; i++) /* incompressible */
        big[i] = (char)((x = x * 1103515245u + 12345u) >> 16);
    big[ZA_MAX_FRAME + 199999] = '\0';
    for (int f = 0; f < 24; f++) {
        buf plain = {0};
        if (f == 9) {
            buf_printf(&plain, "#fpmlog1 BIG 1 2 - %u %08lx\n", ZA_MAX_FRAME + 199999,
                       crc32(0L, (const unsigned char *)big, ZA_MAX_FRAME + 199999));
            buf_add(&plain, big, ZA_MAX_FRAME + 199999);
            buf_add(&plain, "\n", 1);
            buf_printf(&want, "BIG - %u\n", ZA_MAX_FRAME + 199999);
        }
        for (int i = 0; i < 2000; i++) { /* 24 frames of 200 KB: over ZA_MAX_AHEAD */
            char payload[120];
            snprintf(payload, sizeof payload, "frame %d record %d: the same words again", f, i);
            rec(&plain, "STATUS", "pool", payload);
            buf_printf(&want, "STATUS pool %zu\n", strlen(payload));
        }
        zframe(&file, plain.p, plain.n);
        buf_free(&plain);
    }
    assert_true(file.n > ZA_MAX_FRAME); /* the big frame is too large to decode ahead */
    char *e = events_of(&file);
    assert_string_equal(e, want.p);
    free(e);
    free(big);
    buf_free(&want);
    buf_free(&file);
}

/* A log read from where its descriptor stands (standard input, a file read
 * partly before): the reader's offsets start there, and so do its seeks
 * (past a skippable frame longer than its buffer) and the decoders' reads. */
static void test_a_log_is_read_from_where_its_fd_stands(void **state)
{
    (void)state;
    buf r1 = {0}, r2 = {0}, file = {0}, log = {0};
    rec(&r1, "HOST", "-", "hostname=a\n");
    rec(&r2, "ROUND", "-", "seq=1\n");
    zframe(&log, r1.p, r1.n);
    unsigned char skip[8] = {0x50, 0x2A, 0x4D, 0x18, 0x00, 0x00, 0x04, 0x00}; /* 256 KiB */
    buf_add(&log, skip, sizeof skip);
    char *zeros = calloc(1, 256 << 10);
    buf_add(&log, zeros, 256 << 10);
    zframe(&log, r2.p, r2.n);
    zframe(&log, r1.p, r1.n);
    static const char tail[] = "\n\x01 not a record";
    buf_add(&log, tail, sizeof tail - 1);
    char *want = events_of(&log), expect[160];
    snprintf(expect, sizeof expect, "HOST - 11\nROUND - 6\nHOST - 11\n! %zu no record header here, "
             "bytes skipped up to the next record\n", log.n - (sizeof tail - 1));
    assert_string_equal(want, expect);
    buf_add(&file, zeros, 1000); /* what was read before */
    buf_add(&file, log.p, log.n);
    int fd = file_of(file.p, file.n);
    assert_int_equal(lseek(fd, 1000, SEEK_SET), 1000);
    char *e = events(fd);
    assert_string_equal(e, want);
    free(e);
    free(want);
    free(zeros);
    buf_free(&r1);
    buf_free(&r2);
    buf_free(&log);
    buf_free(&file);
}

/* Only a regular file is decoded ahead: a pipe is read by the reader alone. */
static void test_a_pipe_is_not_decoded_ahead(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    fpmlog_reader *r = fpmlog_reader_fdopen(p[0]);
    assert_int_equal(fpmlog_reader_ahead(r, 2), -1);
    fpmlog_reader_free(r);
    close(p[0]);
    close(p[1]);
}

static void test_skippable_frame_is_skipped(void **state)
{
    (void)state;
    buf r1 = {0}, r2 = {0}, file = {0};
    rec(&r1, "HOST", "-", "hostname=a\n");
    rec(&r2, "ROUND", "-", "seq=1\n");
    zframe(&file, r1.p, r1.n);
    unsigned char skip[8 + 5] = {0x5E, 0x2A, 0x4D, 0x18, 5, 0, 0, 0, '#', 'f', 'p', 'm', 'l'};
    buf_add(&file, skip, sizeof skip);
    zframe(&file, r2.p, r2.n);
    char *e = events_of(&file);
    assert_string_equal(e, "HOST - 11\nROUND - 6\n");
    free(e);
    buf_free(&r1);
    buf_free(&r2);
    buf_free(&file);
}

/* A frame as the recorder writes it while running: flushed after each of
 * the given lengths of in, never ended. */
static void open_frame(buf *out, const buf *in, const size_t *flush_at, size_t nflush)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 0);
    size_t from = 0;
    for (size_t k = 0; k < nflush; k++) {
        char z[1 << 16];
        ZSTD_inBuffer ib = {in->p + from, flush_at[k] - from, 0};
        ZSTD_outBuffer ob = {z, sizeof z, 0};
        while (ZSTD_compressStream2(c, &ob, &ib, ZSTD_e_flush) != 0)
            ;
        buf_add(out, z, ob.pos);
        from = flush_at[k];
    }
    ZSTD_freeCCtx(c);
}

static void test_open_frame_reads_up_to_the_last_flush(void **state)
{
    (void)state;
    buf plain = {0}, file = {0};
    rec(&plain, "HOST", "-", "hostname=a\n");
    rec(&plain, "ROUND", "-", "seq=1\n");
    size_t flushed = plain.n;
    rec(&plain, "STATUS", "p", "a page that is cut off by the crash, in the middle");
    size_t at[2] = {flushed, plain.n};
    open_frame(&file, &plain, at, 1);
    size_t first_len = file.n;
    char *e = events_of(&file);
    char want[200];
    /* the open frame is said (docs/rules.md, "Damage is said"): at a
     * block's end, it is not closed */
    snprintf(want, sizeof want, "HOST - 11\nROUND - 6\n! 0/0 the last zstd frame is not closed "
             "at offset %zu (a recorder still writing, or a file cut short)\n", first_len);
    assert_string_equal(e, want);
    free(e);
    /* cut anywhere after the first flush: what it gave still reads, and
     * nothing is reported but a torn record and where the frame ends: in
     * the block after the first flush's */
    buf_free(&file);
    open_frame(&file, &plain, at, 2);
    snprintf(want, sizeof want, "! 0/0 the last zstd frame %s at offset %zu (a recorder still "
             "writing, or a file cut short)\n", "ends mid-block", first_len);
    for (size_t cut = first_len + 1; cut < file.n; cut++) {
        char *e2 = events_sampled(file_of(file.p, cut));
        assert_memory_equal(e2, "HOST - 11\nROUND - 6\n", 20);
        const char *rest = e2 + 20;
        if (strstr(rest, "record cut short"))
            rest = strchr(rest, '\n') + 1;
        assert_string_equal(rest, want);
        free(e2);
    }
    buf_free(&plain);
    buf_free(&file);
}

static void test_broken_frame_resyncs_at_the_next_frame(void **state)
{
    (void)state;
    buf r1 = {0}, r2 = {0}, r3 = {0}, file = {0};
    rec(&r1, "HOST", "-", "hostname=a\n");
    for (int i = 0; i < 50; i++)
        rec(&r2, "STATUS", "p", "a page with enough bytes to make a real block of data");
    rec(&r3, "ROUND", "-", "seq=9\n");
    zframe(&file, r1.p, r1.n);
    size_t second = file.n;
    zframe(&file, r2.p, r2.n);
    size_t third = file.n;
    zframe(&file, r3.p, r3.n);
    /* break the second frame's block header */
    file.p[second + 6] ^= 0x7;
    char *e = events_of(&file);
    /* the first record and the third frame survive; the damage is said once
     * with the broken frame's offset */
    assert_non_null(strstr(e, "HOST - 11\n"));
    assert_non_null(strstr(e, "ROUND - 6\n"));
    char want[64];
    snprintf(want, sizeof want, "! %zu/0 broken zstd frame", second);
    assert_non_null(strstr(e, want));
    (void)third;
    free(e);
    buf_free(&r1);
    buf_free(&r2);
    buf_free(&r3);
    buf_free(&file);
}

static void test_open_frame_followed_by_a_new_frame(void **state)
{
    (void)state;
    /* a crashed recorder's open frame, cut mid-block, then a restart's new
     * frame: the first round and the new frame both read, whatever the cut */
    buf plain = {0}, whole = {0}, next = {0}, nextz = {0};
    rec(&plain, "HOST", "-", "hostname=a\n");
    rec(&plain, "ROUND", "-", "seq=1\n");
    size_t at[2] = {plain.n, 0};
    for (int i = 0; i < 30; i++)
        rec(&plain, "STATUS", "p", "the round in flight when the recorder was killed, long");
    at[1] = plain.n;
    open_frame(&whole, &plain, at, 1);
    size_t first_len = whole.n;
    buf_free(&whole);
    open_frame(&whole, &plain, at, 2);
    rec(&next, "HOST", "-", "hostname=b\n");
    rec(&next, "ROUND", "-", "seq=1\n");
    zframe(&nextz, next.p, next.n);
    for (size_t cut = first_len + 1; cut < whole.n; cut += 3) {
        buf file = {0};
        buf_add(&file, whole.p, cut);
        buf_add(&file, nextz.p, nextz.n);
        char *e = events_of(&file);
        const char *second = strstr(e, "HOST - 11\nROUND - 6\n");
        assert_true(second == e);
        assert_non_null(strstr(second + 1, "HOST - 11\nROUND - 6\n"));
        free(e);
        buf_free(&file);
    }
    buf_free(&plain);
    buf_free(&whole);
    buf_free(&next);
    buf_free(&nextz);
}

static void test_torn_raw_block_swallowing_the_next_frame(void **state)
{
    (void)state;
    /* an open frame whose last block is stored raw (incompressible bytes),
     * torn early: the next frame's bytes fit in what the block header
     * promised, so zstd reads them as block content and meets the end of
     * the file without an error.  The reader looks again from the frame's
     * start and finds the next frame. */
    buf plain = {0}, whole = {0}, next = {0}, nextz = {0};
    rec(&plain, "HOST", "-", "hostname=a\n");
    rec(&plain, "ROUND", "-", "seq=1\n");
    size_t at[2] = {plain.n, 0};
    char noise[6001];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof noise - 1; i++) {
        x = x * 1103515245 + 12345;
        noise[i] = (char)('!' + (x >> 16) % 90);
    }
    noise[sizeof noise - 1] = '\0';
    rec(&plain, "STATUS", "p", noise);
    at[1] = plain.n;
    open_frame(&whole, &plain, at, 2);
    rec(&next, "HOST", "-", "hostname=b\n");
    rec(&next, "ROUND", "-", "seq=1\n");
    zframe(&nextz, next.p, next.n);
    buf first = {0};
    open_frame(&first, &plain, at, 1);
    buf file = {0};
    buf_add(&file, whole.p, first.n + 300); /* 300 bytes into the big block */
    buf_add(&file, nextz.p, nextz.n);
    char *e = events_of(&file);
    assert_non_null(strstr(e, "HOST - 11\nROUND - 6\n"));
    const char *again = strstr(strstr(e, "ROUND - 6\n") + 1, "HOST - 11\nROUND - 6\n");
    assert_non_null(again);
    char want[96];
    snprintf(want, sizeof want, "zstd frame cut short (never closed), skipped to the next "
                                "frame at offset %zu", first.n + 300);
    assert_non_null(strstr(e, want));
    free(e);
    buf_free(&plain);
    buf_free(&whole);
    buf_free(&next);
    buf_free(&nextz);
    buf_free(&first);
    buf_free(&file);
}

/* A log as the recorder writes it: rounds of a few records, a flush after
 * each, a frame end after every 8th (and the frame's summary after it).
 * ends[k] is the file size once round k + 1 was flushed, up to the frame's
 * end (a cut inside the summary after it leaves the frame whole). */
static size_t recorder_log(buf *file, size_t *ends, int rounds)
{
    FILE *f = tmpfile();
    int fd = dup(fileno(f));
    fclose(f);
    fpmlog_writer *w = fpmlog_writer_new(fd, 3);
    char page[600];
    for (int k = 0; k < rounds; k++) {
        snprintf(page, sizeof page, "{\"pool\":\"p\",\"processes\":[{\"pid\":%d,\"requests\":%d,"
                                    "\"state\":\"Idle\",\"last request cpu\":%d.%02d}]}",
                 100 + k % 3, k * 7, k * 13 % 97, k % 100);
        fpmlog_write(w, "STATUS", (uint64_t)k, 0, "p", 1, page, strlen(page));
        fpmlog_write(w, "STAT", (uint64_t)k, 0, NULL, 0, "cpu  1 2 3 4\n", 13);
        fpmlog_write(w, "ROUND", (uint64_t)k, 0, NULL, 0, "seq=1\n", 6);
        off_t before = lseek(fd, 0, SEEK_CUR);
        if (k % 8 == 7)
            fpmlog_writer_end_frame(w);
        else
            fpmlog_writer_flush(w);
        ends[k] = (size_t)lseek(fd, 0, SEEK_CUR);
        if (k % 8 == 7) { /* the summary's magic, after the frame's last bytes */
            unsigned char t[4096];
            size_t n = ends[k] - (size_t)before;
            assert_true(n <= sizeof t);
            assert_int_equal(pread(fd, t, n, before), (ssize_t)n);
            unsigned char *m = memmem(t, n, "\x5e\x2a\x4d\x18", 4);
            assert_non_null(m);
            ends[k] = (size_t)before + (size_t)(m - t);
        }
    }
    fpmlog_writer_free(w);
    size_t n = (size_t)lseek(fd, 0, SEEK_CUR);
    lseek(fd, 0, SEEK_SET);
    char *p = malloc(n);
    assert_int_equal(read(fd, p, n), (ssize_t)n);
    close(fd);
    buf_add(file, p, n);
    free(p);
    return n;
}

static int count_rounds(const char *e)
{
    int n = 0;
    for (const char *p = e; (p = strstr(p, "ROUND - 6\n")); p++)
        n++;
    return n;
}

/* Every cut in the plain build; under ASan, where each read maps and faults
 * in the reader's buffers afresh (46-107 s for this one test beside other
 * load, against 1.5 s plain), every 7th cut and the three around each round's
 * end: the same paths, one in seven of the offsets.  The flipped bytes below
 * likewise. */
#ifdef __SANITIZE_ADDRESS__
#define CUT_STRIDE 7
#else
#define CUT_STRIDE 1
#endif

static void test_every_cut_keeps_every_flushed_round(void **state)
{
    (void)state;
    enum { ROUNDS = 24 };
    size_t ends[ROUNDS];
    buf file = {0};
    recorder_log(&file, ends, ROUNDS);
    for (size_t cut = 0; cut <= file.n; cut++) {
        int flushed = 0;
        while (flushed < ROUNDS && ends[flushed] <= cut)
            flushed++;
        int near_end = (flushed > 0 && cut - ends[flushed - 1] <= 1) ||
                       (flushed < ROUNDS && ends[flushed] - cut <= 1);
        if (cut % CUT_STRIDE != 0 && !near_end)
            continue;
        char *e = events_sampled(file_of(file.p, cut));
        if (count_rounds(e) != flushed)
            fail_msg("cut at %zu: %d rounds read, %d were flushed:\n%s", cut, count_rounds(e),
                     flushed, e);
        free(e);
    }
    buf_free(&file);
}

static void test_a_flipped_byte_costs_at_most_the_rest_of_its_frame(void **state)
{
    (void)state;
    enum { ROUNDS = 24 };
    size_t ends[ROUNDS];
    buf file = {0};
    recorder_log(&file, ends, ROUNDS);
    for (size_t at = 0; at < file.n; at++) {
        if (at % CUT_STRIDE != 0) /* every 7th byte under ASan, as above */
            continue;
        /* every byte flipped once, the bit turning with the offset */
        for (int bit = (int)(at % 8), once = 1; once; once = 0) {
            file.p[at] ^= (char)(1 << bit);
            /* the round whose bytes hold the flip, and the end of its frame */
            int k = 0;
            while (k < ROUNDS && ends[k] <= at)
                k++;
            int frame_end = k | 7;
            /* past the last frame, in its summary: nothing may be lost */
            int may_lose = k == ROUNDS ? 0 : frame_end - k + 1;
            char *e = events_sampled(file_of(file.p, file.n));
            int got = count_rounds(e);
            /* no upper bound: with zstd's checksum off (fpmlog(5)), a flip in
             * a match can copy earlier intact records, CRCs and all */
            if (got < ROUNDS - may_lose)
                fail_msg("flip at %zu bit %d (round %d): %d rounds read, at least %d expected:\n%s",
                         at, bit, k + 1, got, ROUNDS - may_lose, e);
            free(e);
            file.p[at] ^= (char)(1 << bit);
        }
    }
    buf_free(&file);
}

static void test_kv_finds_repeated_keys(void **state)
{
    (void)state;
    const char *p = "name=shop\nown_uri=/status\nown_uri=/ping\nx=\n";
    size_t n = strlen(p), vl;
    const char *v = fpmlog_kv((const unsigned char *)p, n, "own_uri", 1, &vl);
    assert_non_null(v);
    assert_int_equal(vl, 5);
    assert_memory_equal(v, "/ping", 5);
    assert_null(fpmlog_kv((const unsigned char *)p, n, "own_uri", 2, &vl));
    assert_null(fpmlog_kv((const unsigned char *)p, n, "own", 0, &vl));
    assert_non_null(fpmlog_kv((const unsigned char *)p, n, "x", 0, &vl));
    assert_int_equal(vl, 0);
}

/* The recorder's ROUND numbers are written without printf and read back. */
static void test_kv_put_writes_what_kv_u64_reads(void **state)
{
    (void)state;
    char p[128];
    size_t n = fpmlog_kv_put(p, "seq", 0);
    n += fpmlog_kv_put(p + n, "took_us", 1234567);
    n += fpmlog_kv_put(p + n, "self_cpu_us", UINT64_MAX);
    assert_int_equal(n, 6 + 16 + 33);
    assert_memory_equal(p, "seq=0\ntook_us=1234567\nself_cpu_us=18446744073709551615\n", n);
    uint64_t v;
    assert_int_equal(fpmlog_kv_u64((unsigned char *)p, n, "self_cpu_us", &v), 0);
    assert_true(v == UINT64_MAX);
}

static int drop_bytes(void *arg, const void *buf, size_t len)
{
    (void)arg, (void)buf, (void)len;
    return 0;
}

/* The writer counts a frame's records as they are before compression, so
 * the recorder can end a frame by --frame-size. */
static void test_writer_counts_the_frame_bytes(void **state)
{
    (void)state;
    fpmlog_writer *w = fpmlog_writer_to(drop_bytes, NULL, 3);
    assert_int_equal(fpmlog_writer_frame_bytes(w), 0);
    char hdr[FPMLOG_HDR_MAX];
    int n = fpmlog_header(hdr, "STAT", 1, 2, NULL, 0, "cpu  1\n", 7);
    assert_int_equal(fpmlog_write(w, "STAT", 1, 2, NULL, 0, "cpu  1\n", 7), 0);
    assert_int_equal(fpmlog_writer_frame_bytes(w), (uint64_t)n + 7 + 1);
    assert_int_equal(fpmlog_writer_flush(w), 0); /* a flush keeps the frame */
    assert_int_equal(fpmlog_write(w, "STAT", 1, 2, NULL, 0, "cpu  1\n", 7), 0);
    assert_int_equal(fpmlog_writer_frame_bytes(w), 2 * ((uint64_t)n + 8));
    assert_int_equal(fpmlog_writer_end_frame(w), 0);
    assert_int_equal(fpmlog_writer_frame_bytes(w), 0);
    assert_int_equal(fpmlog_write(w, "STAT", 1, 2, NULL, 0, "cpu  1\n", 7), 0);
    fpmlog_writer_reset(w); /* its bytes were lost: a new frame */
    assert_int_equal(fpmlog_writer_frame_bytes(w), 0);
    fpmlog_writer_free(w);
}

static int count_records(fpmlog_reader *r)
{
    fpmlog_record rec;
    fpmlog_damage d;
    int n = 0, ret;
    while ((ret = fpmlog_reader_next(r, &rec, &d)) != 0)
        n += ret == 1;
    return n;
}

/* A reset reader reads a new file as a new reader would, even when it was
 * stopped in the middle of a zstd frame. */
static void test_a_reset_reader_reads_like_a_new_one(void **state)
{
    (void)state;
    char err[128];
    fpmlog_reader *r = fpmlog_reader_open("fixtures/logs/realistic.fpmlog.zst", err, sizeof err);
    assert_non_null(r);
    int whole = count_records(r);
    assert_true(whole > 1000);
    int fd = open("fixtures/logs/realistic.fpmlog.zst", O_RDONLY);
    fpmlog_reader_reset(r, fd); /* closes the file the reader opened */
    fpmlog_record rec;
    fpmlog_damage d;
    for (int i = 0; i < 100; i++)
        assert_int_equal(fpmlog_reader_next(r, &rec, &d), 1);
    int fd2 = open("fixtures/logs/small.fpmlog", O_RDONLY);
    fpmlog_reader_reset(r, fd2);
    fpmlog_reader *fresh = fpmlog_reader_open("fixtures/logs/small.fpmlog", err, sizeof err);
    assert_int_equal(count_records(r), count_records(fresh));
    fpmlog_reader_free(fresh);
    lseek(fd, 0, SEEK_SET);
    fpmlog_reader_reset(r, fd);
    assert_int_equal(count_records(r), whole);
    fpmlog_reader_free(r);
    close(fd);
    close(fd2);
}

/* Holding: a caller gathering a round's records reads them where the
 * reader decoded them.  Held from one record on, every later record's bytes
 * stay at their offsets while the reader decodes far more than its buffer
 * held (it grows instead of dropping them); swapped, the held bytes leave
 * with the buffer and the reader goes on with the rest. */
static void test_held_records_stay_until_swapped(void **state)
{
    (void)state;
    enum { N = 3000, HOLD = 10, SWAP = 1500 };
    buf plain = {0}, file = {0};
    char payload[400];
    for (int i = 0; i < N; i++) {
        snprintf(payload, sizeof payload, "record %05d %0*d\n", i, 200 + i % 150, i);
        rec(&plain, "STATUS", "shop", payload);
    }
    zframe(&file, plain.p, plain.n);
    fpmlog_reader *r = fpmlog_reader_fdopen(file_of(file.p, file.n));
    fpmlog_record rec;
    fpmlog_damage d;
    static uint64_t off[N];
    static size_t len[N];
    for (int i = 0; i < SWAP; i++) {
        assert_int_equal(fpmlog_reader_next(r, &rec, &d), 1);
        if (i == HOLD) {
            assert_true(fpmlog_reader_holds(r, rec.payload));
            fpmlog_reader_hold(r, rec.payload);
        }
        off[i] = fpmlog_reader_offset(r, rec.payload);
        len[i] = rec.len;
    }
    for (int i = HOLD; i < SWAP; i++) { /* all still there, where they are now */
        snprintf(payload, sizeof payload, "record %05d %0*d\n", i, 200 + i % 150, i);
        assert_int_equal(len[i], strlen(payload));
        assert_memory_equal(fpmlog_reader_at(r, off[i]), payload, len[i]);
    }
    unsigned char *held = NULL;
    size_t cap = 0;
    uint64_t base;
    assert_int_equal(fpmlog_reader_swap(r, &held, &cap, &base), 0);
    assert_true(base <= off[HOLD] && off[SWAP - 1] + len[SWAP - 1] <= base + cap);
    for (int i = HOLD; i < SWAP; i++) {
        snprintf(payload, sizeof payload, "record %05d %0*d\n", i, 200 + i % 150, i);
        assert_memory_equal(held + (off[i] - base), payload, len[i]);
    }
    for (int i = SWAP; i < N; i++) { /* the rest, read from the buffer it was given */
        assert_int_equal(fpmlog_reader_next(r, &rec, &d), 1);
        snprintf(payload, sizeof payload, "record %05d %0*d\n", i, 200 + i % 150, i);
        assert_int_equal(rec.len, strlen(payload));
        assert_memory_equal(rec.payload, payload, rec.len);
    }
    assert_int_equal(fpmlog_reader_next(r, &rec, &d), 0);
    free(held);
    fpmlog_reader_free(r);
    buf_free(&plain);
    buf_free(&file);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_records_read_in_order),
        cmocka_unit_test(test_writer_round_trip_plain_and_zstd),
        cmocka_unit_test(test_a_reset_reader_reads_like_a_new_one),
        cmocka_unit_test(test_held_records_stay_until_swapped),
        cmocka_unit_test(test_source_is_percent_decoded),
        cmocka_unit_test(test_raw_byte_in_source_is_a_damaged_header),
        cmocka_unit_test(test_bad_crc_reported_with_offset_and_skipped),
        cmocka_unit_test(test_bad_header_resyncs_at_the_next_line),
        cmocka_unit_test(test_length_is_not_trusted_after_damage),
        cmocka_unit_test(test_payload_without_newline_is_accepted),
        cmocka_unit_test(test_unknown_type_is_returned_for_the_caller_to_skip),
        cmocka_unit_test(test_garbage_is_reported_once),
        cmocka_unit_test(test_torn_tail_plain_costs_one_record),
        cmocka_unit_test(test_concatenated_frames_and_plain_tail_are_one_stream),
        cmocka_unit_test(test_frames_split_anywhere_decode_as_one_stream),
        cmocka_unit_test(test_skippable_frame_is_skipped),
        cmocka_unit_test(test_open_frame_reads_up_to_the_last_flush),
        cmocka_unit_test(test_broken_frame_resyncs_at_the_next_frame),
        cmocka_unit_test(test_open_frame_followed_by_a_new_frame),
        cmocka_unit_test(test_torn_raw_block_swallowing_the_next_frame),
        cmocka_unit_test(test_every_cut_keeps_every_flushed_round),
        cmocka_unit_test(test_a_flipped_byte_costs_at_most_the_rest_of_its_frame),
        cmocka_unit_test(test_kv_finds_repeated_keys),
        cmocka_unit_test(test_kv_put_writes_what_kv_u64_reads),
        cmocka_unit_test(test_writer_counts_the_frame_bytes),
        cmocka_unit_test(test_frames_decoded_ahead_whatever_their_size),
        cmocka_unit_test(test_a_pipe_is_not_decoded_ahead),
        cmocka_unit_test(test_a_log_is_read_from_where_its_fd_stands),
    };
    return cmocka_run_group_tests_name("fpmlog", tests, NULL, NULL);
}
