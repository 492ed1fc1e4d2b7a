/* libFuzzer: the log reader on plain logs, zstd frames (split, with a
 * skippable frame between, with a plain tail), whatever the bytes; then every
 * record it read is written again and must read back the same.  The same
 * bytes read with frames decoded ahead on threads must give the same records
 * and the same damage at the same offsets. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include "fpmlog.h"

typedef struct {
    unsigned char *p;
    size_t n, cap;
} buf;

static int put(void *arg, const void *p, size_t n)
{
    buf *b = arg;
    if (n == 0)
        return 0;
    if (b->n + n > b->cap) {
        size_t cap = (b->n + n) * 2;
        unsigned char *np = realloc(b->p, cap);
        if (!np)
            abort();
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
    return 0;
}

static void zframe(buf *b, const uint8_t *p, size_t n)
{
    size_t cap = ZSTD_compressBound(n);
    unsigned char *z = malloc(cap);
    size_t zn = ZSTD_compress(z, cap, p, n, 1);
    if (ZSTD_isError(zn))
        abort();
    put(b, z, zn);
    free(z);
}

/* A digest of a record's fields, to compare what is read back. */
static uint64_t digest(uint64_t h, const fpmlog_record *r)
{
    const void *part[4] = {r->type, r->source, r->payload, NULL};
    size_t len[4] = {strlen(r->type), r->has_source ? r->source_len : 0, r->len, 0};
    uint64_t nums[3] = {r->mono, r->real, (uint64_t)r->has_source};
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < len[k]; i++)
            h = (h ^ ((const unsigned char *)part[k])[i]) * 1099511628211ull;
    for (int k = 0; k < 3; k++)
        h = (h ^ nums[k]) * 1099511628211ull;
    return h;
}

/* The same for a piece of damage. */
static uint64_t digest_damage(uint64_t h, const fpmlog_damage *d)
{
    uint64_t nums[4] = {d->pos.offset, d->pos.in_frame, (uint64_t)d->pos.compressed,
                        (uint64_t)d->breaks_round};
    for (int k = 0; k < 4; k++)
        h = (h ^ nums[k]) * 1099511628211ull;
    for (const char *c = d->what; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    return h;
}

static int memfd = -1;
static fpmlog_reader *reader;

/* The reader over the bytes; the reader is made once and reset. */
static void feed(const buf *b)
{
    if (memfd < 0 && (memfd = memfd_create("fpmlog", 0)) < 0)
        abort();
    if (ftruncate(memfd, 0) != 0 || pwrite(memfd, b->p, b->n, 0) != (ssize_t)b->n ||
        lseek(memfd, 0, SEEK_SET) != 0)
        abort();
    if (!reader && !(reader = fpmlog_reader_fdopen(memfd)))
        abort();
    fpmlog_reader_reset(reader, memfd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    int mode = data[0] & 3, level = data[0] & 4 ? 1 : 0;
    size_t cut = 2 + (size - 2) * data[1] / 256;
    const uint8_t *p = data + 2;
    size_t n = size - 2;
    cut -= 2;
    buf in = {0}, out = {0};
    static const unsigned char skippable[12] = {0x50, 0x2A, 0x4D, 0x18, 4, 0, 0, 0, 1, 2, 3, 4};
    switch (mode) {
    case 0: put(&in, p, n); break;                        /* as it is */
    case 1: zframe(&in, p, cut); zframe(&in, p + cut, n - cut); break; /* split frames */
    case 2: zframe(&in, p, cut); put(&in, skippable, 12); zframe(&in, p + cut, n - cut); break;
    default: zframe(&in, p, cut); put(&in, p + cut, n - cut); break;  /* a plain tail */
    }
    /* read everything; write each record again */
    fpmlog_writer *w = fpmlog_writer_to(put, &out, level);
    if (!w)
        abort();
    feed(&in);
    fpmlog_record rec;
    fpmlog_damage dmg;
    int ret;
    size_t written = 0;
    uint64_t h1 = 0, h2 = 0;
    uint64_t all = 0; /* records and damage, in order */
    while ((ret = fpmlog_reader_next(reader, &rec, &dmg)) != 0 && ret != -2) {
        all = ret == 1 ? digest(all, &rec) : digest_damage(all, &dmg);
        if (ret == 1 && fpmlog_write(w, rec.type, rec.mono, rec.real,
                                     rec.has_source ? rec.source : NULL, rec.source_len,
                                     rec.payload, rec.len) == 0) {
            written++;
            h1 = digest(h1, &rec);
        }
    }
    /* the same bytes with the frames decoded ahead: the same, event by event */
    if (lseek(memfd, 0, SEEK_SET) != 0)
        abort();
    fpmlog_reader *ahead = fpmlog_reader_fdopen(memfd);
    if (!ahead || fpmlog_reader_ahead(ahead, 1 + (data[0] >> 3 & 1)) != 0)
        abort();
    uint64_t all_ahead = 0;
    while ((ret = fpmlog_reader_next(ahead, &rec, &dmg)) != 0 && ret != -2)
        all_ahead = ret == 1 ? digest(all_ahead, &rec) : digest_damage(all_ahead, &dmg);
    fpmlog_reader_free(ahead);
    if (all_ahead != all)
        __builtin_trap(); /* decoding ahead changed what was read */
    if (fpmlog_writer_end_frame(w) != 0)
        abort();
    fpmlog_writer_free(w);
    /* what was written reads back: as many records, no damage */
    feed(&out);
    size_t back = 0;
    while ((ret = fpmlog_reader_next(reader, &rec, &dmg)) == 1) {
        back++;
        h2 = digest(h2, &rec);
    }
    if (ret != 0 || back != written || h1 != h2)
        __builtin_trap(); /* the writer and the reader disagree */
    free(in.p);
    free(out.p);
    return 0;
}
