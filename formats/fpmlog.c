/* fpmlog reader and writer; the format is described in fpmlog.h. */
#define _POSIX_C_SOURCE 200809L
#include "fpmlog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define IB_SIZE   (128 * 1024)
#define RB_SPARE  (128 * 1024)
#define MAX_SEGS  4096

static const unsigned char ZSTD_MAGIC[4] = {0x28, 0xB5, 0x2F, 0xFD};

static int is_skippable(const unsigned char *p)
{
    return (p[0] & 0xF0) == 0x50 && p[1] == 0x2A && p[2] == 0x4D && p[3] == 0x18;
}

/* ---------------------------------------------------------------- reader */

/* Where the decoded stream's bytes came from, from stream offset start on. */
typedef struct {
    uint64_t start;
    uint64_t file_off;
    int      compressed;
} segment;

enum mode { M_FRAMEPOS, M_FRAME, M_PLAIN, M_SCAN, M_DONE };

struct fpmlog_reader {
    int fd, own_fd;

    unsigned char *ib;          /* file input */
    size_t ib_len, ib_pos;
    uint64_t ib_off;            /* file offset of ib[0] */
    int eof;

    enum mode mode;
    uint64_t frame_start;
    ZSTD_DCtx *dctx;
    size_t zhint;               /* input zstd asks for next: one block */

    unsigned char *rb;          /* decoded stream not yet consumed */
    size_t rb_len, rb_pos, rb_cap;
    uint64_t rb_soff;           /* stream offset of rb[0] */

    segment segs[MAX_SEGS];
    size_t nsegs;

    int stream_ended;           /* no more bytes for this stream */
    int skipping, at_line_start;
    int pending_break;          /* a frame broke: report after the rest */
    int scan_after_cut;         /* a frame was cut short: is there another? */
    fpmlog_damage break_dmg;

    char *hdr;                  /* type + decoded source of the last record */
};

fpmlog_reader *fpmlog_reader_fdopen(int fd)
{
    fpmlog_reader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->fd = fd;
    r->ib = malloc(IB_SIZE);
    r->rb_cap = 2 * RB_SPARE;
    r->rb = malloc(r->rb_cap);
    r->hdr = malloc(2 * FPMLOG_HDR_MAX + 2);
    r->dctx = ZSTD_createDCtx();
    if (!r->ib || !r->rb || !r->hdr || !r->dctx) {
        fpmlog_reader_free(r);
        return NULL;
    }
    r->mode = M_FRAMEPOS;
    r->at_line_start = 1;
    return r;
}

fpmlog_reader *fpmlog_reader_open(const char *path, char *err, size_t errlen)
{
    int fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        return NULL;
    }
    fpmlog_reader *r = fpmlog_reader_fdopen(fd);
    if (!r) {
        snprintf(err, errlen, "%s", strerror(ENOMEM));
        if (fd != 0)
            close(fd);
        return NULL;
    }
    r->own_fd = fd != 0;
    return r;
}

void fpmlog_reader_reset(fpmlog_reader *r, int fd)
{
    if (r->own_fd)
        close(r->fd);
    unsigned char *ib = r->ib, *rb = r->rb;
    size_t rb_cap = r->rb_cap;
    char *hdr = r->hdr;
    ZSTD_DCtx *dctx = r->dctx;
    memset(r, 0, offsetof(fpmlog_reader, segs));
    r->nsegs = 0;
    memset(&r->stream_ended, 0, sizeof *r - offsetof(fpmlog_reader, stream_ended));
    r->ib = ib;
    r->rb = rb;
    r->rb_cap = rb_cap;
    r->hdr = hdr;
    r->dctx = dctx;
    ZSTD_DCtx_reset(dctx, ZSTD_reset_session_only);
    r->fd = fd;
    r->mode = M_FRAMEPOS;
    r->at_line_start = 1;
}

void fpmlog_reader_free(fpmlog_reader *r)
{
    if (!r)
        return;
    if (r->own_fd)
        close(r->fd);
    ZSTD_freeDCtx(r->dctx);
    free(r->ib);
    free(r->rb);
    free(r->hdr);
    free(r);
}

uint64_t fpmlog_reader_tell(const fpmlog_reader *r)
{
    return r->ib_off + r->ib_pos;
}

/* Reads more of the file into ib, keeping the unconsumed bytes.  Returns the
 * number of new bytes, 0 at end of file, -1 on error. */
static ssize_t fill_input(fpmlog_reader *r)
{
    if (r->ib_pos > 0) {
        memmove(r->ib, r->ib + r->ib_pos, r->ib_len - r->ib_pos);
        r->ib_off += r->ib_pos;
        r->ib_len -= r->ib_pos;
        r->ib_pos = 0;
    }
    if (r->ib_len == IB_SIZE)
        return 1; /* full already: caller consumes first */
    ssize_t n;
    do
        n = read(r->fd, r->ib + r->ib_len, IB_SIZE - r->ib_len);
    while (n < 0 && errno == EINTR);
    if (n > 0)
        r->ib_len += (size_t)n;
    else if (n == 0)
        r->eof = 1;
    return n;
}

/* Moves the input to file offset off.  Within the buffer that is free; past
 * it, lseek; a pipe that cannot go back goes on from where it is. */
static void seek_input(fpmlog_reader *r, uint64_t off)
{
    if (off >= r->ib_off && off <= r->ib_off + r->ib_len) {
        r->ib_pos = (size_t)(off - r->ib_off);
        return;
    }
    if (lseek(r->fd, (off_t)off, SEEK_SET) == (off_t)-1)
        return;
    r->ib_off = off;
    r->ib_len = r->ib_pos = 0;
    r->eof = 0;
}

static void add_segment(fpmlog_reader *r, uint64_t file_off, int compressed)
{
    uint64_t start = r->rb_soff + r->rb_len;
    /* drop segments whose successor starts at or before the oldest byte kept */
    size_t drop = 0;
    while (drop + 1 < r->nsegs && r->segs[drop + 1].start <= r->rb_soff + r->rb_pos)
        drop++;
    if (drop) {
        memmove(r->segs, r->segs + drop, (r->nsegs - drop) * sizeof(segment));
        r->nsegs -= drop;
    }
    if (r->nsegs && r->segs[r->nsegs - 1].start == start)
        r->nsegs--; /* the previous segment gave no bytes */
    if (r->nsegs == MAX_SEGS) { /* absurdly many tiny frames: merge the oldest */
        memmove(r->segs, r->segs + 1, (MAX_SEGS - 1) * sizeof(segment));
        r->nsegs--;
    }
    r->segs[r->nsegs++] = (segment){start, file_off, compressed};
}

static fpmlog_pos stream_pos(const fpmlog_reader *r, uint64_t soff)
{
    fpmlog_pos p = {soff, 0, 0};
    for (size_t i = r->nsegs; i-- > 0;) {
        const segment *s = &r->segs[i];
        if (s->start <= soff) {
            p.compressed = s->compressed;
            if (s->compressed) {
                p.offset = s->file_off;
                p.in_frame = soff - s->start;
            } else {
                p.offset = s->file_off + (soff - s->start);
            }
            break;
        }
    }
    return p;
}

/* Makes room for at least RB_SPARE more decoded bytes. */
static int rb_reserve(fpmlog_reader *r)
{
    if (r->rb_pos > 0) {
        memmove(r->rb, r->rb + r->rb_pos, r->rb_len - r->rb_pos);
        r->rb_soff += r->rb_pos;
        r->rb_len -= r->rb_pos;
        r->rb_pos = 0;
    }
    if (r->rb_cap - r->rb_len >= RB_SPARE)
        return 0;
    size_t cap = r->rb_cap * 2;
    unsigned char *nb = realloc(r->rb, cap);
    if (!nb)
        return -1;
    r->rb = nb;
    r->rb_cap = cap;
    return 0;
}

static void set_damage(fpmlog_damage *d, fpmlog_pos pos, int breaks, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void set_damage(fpmlog_damage *d, fpmlog_pos pos, int breaks, const char *fmt, ...)
{
    va_list ap;
    d->pos = pos;
    d->breaks_round = breaks;
    va_start(ap, fmt);
    vsnprintf(d->what, sizeof d->what, fmt, ap);
    va_end(ap);
}

static int parse_u64(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Parses a header line (without its '\n') into rec; 0 ok, -1 damaged. */
static int parse_header(fpmlog_reader *r, const char *line, size_t n,
                        fpmlog_record *rec, uint32_t *crc)
{
    const char *f[7];
    size_t fl[7];
    size_t k = 0, start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || line[i] == ' ') {
            if (k == 7)
                return -1;
            f[k] = line + start;
            fl[k] = i - start;
            if (fl[k] == 0)
                return -1;
            k++;
            start = i + 1;
        }
    }
    if (k != 7)
        return -1;
    /* f[0] is "#fpmlog1" */
    if (f[1][0] < 'A' || f[1][0] > 'Z')
        return -1;
    for (size_t i = 1; i < fl[1]; i++) {
        char c = f[1][i];
        if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
            return -1;
    }
    uint64_t len;
    if (parse_u64(f[2], fl[2], &rec->mono) || parse_u64(f[3], fl[3], &rec->real) ||
        parse_u64(f[5], fl[5], &len) || len > FPMLOG_MAX_LEN || fl[6] != 8)
        return -1;
    uint32_t c = 0;
    for (size_t i = 0; i < 8; i++) {
        char ch = f[6][i];
        if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f')))
            return -1;
        c = c << 4 | (uint32_t)hexval(ch);
    }
    for (size_t i = 0; i < fl[4]; i++)
        if ((unsigned char)f[4][i] <= 0x20 || f[4][i] == 0x7F)
            return -1;
    *crc = c;
    rec->len = (size_t)len;

    char *t = r->hdr;
    memcpy(t, f[1], fl[1]);
    t[fl[1]] = '\0';
    rec->type = t;
    char *s = t + fl[1] + 1;
    size_t sl = 0;
    rec->has_source = !(fl[4] == 1 && f[4][0] == '-');
    if (rec->has_source) {
        for (size_t i = 0; i < fl[4]; i++) {
            int hi, lo;
            if (f[4][i] == '%' && i + 2 < fl[4] &&
                (hi = hexval(f[4][i + 1])) >= 0 && (lo = hexval(f[4][i + 2])) >= 0) {
                s[sl++] = (char)(hi << 4 | lo);
                i += 2;
            } else {
                s[sl++] = f[4][i];
            }
        }
    }
    s[sl] = '\0';
    rec->source = s;
    rec->source_len = sl;
    return 0;
}

/* While skipping damage in a plain stretch: a zstd frame magic before the
 * next line is where readable data starts again (a frame whose magic was
 * hit makes the rest of the file look plain; the frames after it are
 * intact).  Cuts the stream there and sends the input back to that frame.
 * Returns 1 when it did. */
static int frame_in_garbage(fpmlog_reader *r, const unsigned char *p, size_t avail,
                            uint64_t soff)
{
    fpmlog_pos pos = stream_pos(r, soff);
    if (pos.compressed || r->mode != M_PLAIN)
        return 0;
    const unsigned char *nl = memchr(p, '\n', avail);
    size_t end = nl ? (size_t)(nl - p) : avail;
    for (size_t i = 0; i + 4 <= end; i++) {
        if (memcmp(p + i, ZSTD_MAGIC, 4) == 0) {
            seek_input(r, pos.offset + i);
            r->rb_len = r->rb_pos; /* what follows is read again as frames */
            r->mode = M_FRAMEPOS;
            r->skipping = 0;
            r->at_line_start = 1;
            return 1;
        }
    }
    return 0;
}

/* Tries to take one record, or one piece of damage, out of the decoded
 * bytes.  Returns 1, -1, or 0 when it needs more bytes (or has none left). */
static int parse_one(fpmlog_reader *r, fpmlog_record *rec, fpmlog_damage *dmg)
{
    int more = !r->stream_ended;
    for (;;) {
        size_t avail = r->rb_len - r->rb_pos;
        unsigned char *p = r->rb + r->rb_pos;
        uint64_t soff = r->rb_soff + r->rb_pos;
        if (avail == 0)
            return 0;

        if (r->skipping) {
            if (frame_in_garbage(r, p, avail, soff))
                return 0;
            if (r->at_line_start) {
                size_t m = avail < FPMLOG_MAGIC_LEN ? avail : FPMLOG_MAGIC_LEN;
                if (memcmp(p, FPMLOG_MAGIC, m) == 0) {
                    if (m == FPMLOG_MAGIC_LEN) {
                        r->skipping = 0;
                        continue;
                    }
                    if (more)
                        return 0;
                }
            }
            unsigned char *nl = memchr(p, '\n', avail);
            if (nl) {
                r->rb_pos += (size_t)(nl - p) + 1;
                r->at_line_start = 1;
                continue;
            }
            r->rb_pos += avail;
            r->at_line_start = 0;
            return 0;
        }

        /* at a record boundary */
        size_t m = avail < FPMLOG_MAGIC_LEN ? avail : FPMLOG_MAGIC_LEN;
        int magic = memcmp(p, FPMLOG_MAGIC, m) == 0;
        if (magic && m < FPMLOG_MAGIC_LEN && more)
            return 0;
        if (!magic || m < FPMLOG_MAGIC_LEN) {
            r->skipping = 1;
            r->at_line_start = 0;
            if (magic) { /* a header prefix, then the stream ended */
                r->rb_pos += avail;
                set_damage(dmg, stream_pos(r, soff), 1, "record cut short (torn tail), record skipped");
            } else {
                set_damage(dmg, stream_pos(r, soff), 0, "no record header here, bytes skipped up to the next record");
            }
            return -1;
        }
        size_t look = avail < FPMLOG_HDR_MAX ? avail : FPMLOG_HDR_MAX;
        unsigned char *nl = memchr(p, '\n', look);
        if (!nl) {
            if (avail < FPMLOG_HDR_MAX && more)
                return 0;
            r->skipping = 1;
            r->at_line_start = 0;
            r->rb_pos += FPMLOG_MAGIC_LEN;
            if (avail < FPMLOG_HDR_MAX)
                set_damage(dmg, stream_pos(r, soff), 1, "record cut short (torn tail), record skipped");
            else
                set_damage(dmg, stream_pos(r, soff), 0, "record header too long, record skipped");
            return -1;
        }
        size_t hlen = (size_t)(nl - p) + 1;
        uint32_t crc;
        if (parse_header(r, (const char *)p, hlen - 1, rec, &crc) != 0) {
            r->rb_pos += hlen;
            r->skipping = 1;
            r->at_line_start = 1;
            set_damage(dmg, stream_pos(r, soff), 0, "bad record header, record skipped");
            return -1;
        }
        size_t need = hlen + rec->len;
        if (avail < need + (more ? 1 : 0)) {
            if (more) {
                /* keep the whole record in rb; reserve grows it as needed */
                return 0;
            }
            if (avail < need) {
                r->rb_pos += hlen;
                r->skipping = 1;
                r->at_line_start = 1;
                set_damage(dmg, stream_pos(r, soff), 1,
                           "record cut short (%zu of %zu payload bytes), record skipped",
                           avail - hlen, rec->len);
                return -1;
            }
        }
        if ((uint32_t)crc32(0L, p + hlen, (uInt)rec->len) != crc) {
            r->rb_pos += hlen;
            r->skipping = 1;
            r->at_line_start = 1;
            set_damage(dmg, stream_pos(r, soff), 0, "bad CRC, record skipped");
            return -1;
        }
        rec->payload = p + hlen;
        rec->pos = stream_pos(r, soff);
        r->rb_pos += need;
        if (avail > need && p[need] == '\n')
            r->rb_pos++;
        r->at_line_start = 1;
        return 1;
    }
}

/* Reads and decodes more of the file.  0 ok, -1 read error (errno). */
static int feed(fpmlog_reader *r)
{
    if (rb_reserve(r) != 0)
        return -1;
    switch (r->mode) {
    case M_DONE:
        r->stream_ended = 1;
        return 0;
    case M_FRAMEPOS: {
        while (r->ib_len - r->ib_pos < 8 && !r->eof)
            if (fill_input(r) < 0)
                return -1;
        size_t avail = r->ib_len - r->ib_pos;
        unsigned char *p = r->ib + r->ib_pos;
        if (avail == 0) {
            r->mode = M_DONE;
            r->stream_ended = 1;
        } else if (avail >= 4 && memcmp(p, ZSTD_MAGIC, 4) == 0) {
            r->frame_start = r->ib_off + r->ib_pos;
            ZSTD_DCtx_reset(r->dctx, ZSTD_reset_session_only);
            r->zhint = 5; /* the smallest frame header */
            add_segment(r, r->frame_start, 1);
            r->mode = M_FRAME;
        } else if (avail >= 8 && is_skippable(p)) {
            uint64_t size = (uint64_t)p[4] | (uint64_t)p[5] << 8 |
                            (uint64_t)p[6] << 16 | (uint64_t)p[7] << 24;
            seek_input(r, r->ib_off + r->ib_pos + 8 + size);
        } else {
            add_segment(r, r->ib_off + r->ib_pos, 0);
            r->mode = M_PLAIN;
        }
        return 0;
    }
    case M_PLAIN: {
        if (r->ib_pos == r->ib_len && fill_input(r) < 0)
            return -1;
        size_t n = r->ib_len - r->ib_pos;
        if (n == 0 && r->eof) {
            r->mode = M_DONE;
            r->stream_ended = 1;
            return 0;
        }
        size_t room = r->rb_cap - r->rb_len;
        if (n > room)
            n = room;
        memcpy(r->rb + r->rb_len, r->ib + r->ib_pos, n);
        r->rb_len += n;
        r->ib_pos += n;
        return 0;
    }
    case M_FRAME: {
        if (r->ib_pos == r->ib_len) {
            if (fill_input(r) < 0)
                return -1;
            if (r->ib_pos == r->ib_len) {
                /* end of file inside the frame: a live or crashed recorder's
                 * open frame, or one whose torn block swallowed the frames
                 * after it; look for another frame from its start */
                r->stream_ended = 1;
                r->scan_after_cut = 1;
                seek_input(r, r->frame_start + 1);
                r->mode = M_SCAN;
                return 0;
            }
        }
        /* one block per call: a call that fails gives back none of the
         * output it made, so a torn block must not take good ones with it.
         * zstd's hint is the next block plus the header after it (3 bytes):
         * give the block alone, then the header alone. */
        size_t give = r->ib_len - r->ib_pos;
        size_t want = r->zhint > 3 ? r->zhint - 3 : r->zhint;
        if (give > want)
            give = want;
        ZSTD_inBuffer in = {r->ib, r->ib_pos + give, r->ib_pos};
        ZSTD_outBuffer out = {r->rb + r->rb_len, r->rb_cap - r->rb_len, 0};
        size_t ret = ZSTD_decompressStream(r->dctx, &out, &in);
        r->rb_len += out.pos;
        r->ib_pos = in.pos;
        if (ZSTD_isError(ret)) {
            set_damage(&r->break_dmg, (fpmlog_pos){r->frame_start, 1, 0}, 1,
                       "broken zstd frame (%s), skipped to the next frame",
                       ZSTD_getErrorName(ret));
            r->pending_break = 1;
            r->stream_ended = 1;
            seek_input(r, r->frame_start + 1);
            r->mode = M_SCAN;
        } else if (ret == 0) {
            r->mode = M_FRAMEPOS;
        } else {
            r->zhint = ret;
        }
        return 0;
    }
    case M_SCAN: {
        for (;;) {
            size_t avail = r->ib_len - r->ib_pos;
            unsigned char *p = r->ib + r->ib_pos;
            for (size_t i = 0; i + 4 <= avail; i++) {
                if (memcmp(p + i, ZSTD_MAGIC, 4) == 0 || is_skippable(p + i)) {
                    r->ib_pos += i;
                    r->mode = M_FRAMEPOS;
                    if (r->scan_after_cut) {
                        set_damage(&r->break_dmg, (fpmlog_pos){r->frame_start, 1, 0}, 1,
                                   "zstd frame cut short (never closed), skipped to the "
                                   "next frame at offset %llu",
                                   (unsigned long long)(r->ib_off + r->ib_pos));
                        r->pending_break = 1;
                        r->stream_ended = 1;
                        r->scan_after_cut = 0;
                    }
                    return 0;
                }
            }
            if (r->eof) {
                r->ib_pos = r->ib_len;
                r->mode = M_DONE;
                r->scan_after_cut = 0;
                r->stream_ended = 1;
                return 0;
            }
            if (avail > 3)
                r->ib_pos += avail - 3;
            if (fill_input(r) < 0)
                return -1;
        }
    }
    }
    return 0;
}

int fpmlog_reader_next(fpmlog_reader *r, fpmlog_record *rec, fpmlog_damage *dmg)
{
    for (;;) {
        int ret = parse_one(r, rec, dmg);
        if (ret != 0)
            return ret;
        if (r->stream_ended) {
            /* this stream is over: whatever remains was reported or skipped */
            r->rb_pos = r->rb_len;
            r->skipping = 0;
            r->at_line_start = 1;
            if (r->mode != M_DONE)
                r->stream_ended = 0;
            if (r->pending_break) {
                r->pending_break = 0;
                *dmg = r->break_dmg;
                return -1;
            }
            if (r->mode == M_DONE)
                return 0;
        }
        if (feed(r) != 0) {
            set_damage(dmg, (fpmlog_pos){fpmlog_reader_tell(r), 0, 0}, 1,
                       "read error: %s", strerror(errno));
            return -2;
        }
    }
}

/* ---------------------------------------------------------------- writer */

struct fpmlog_writer {
    fpmlog_sink sink;
    void       *arg;
    int         fd;
    ZSTD_CCtx  *cctx;           /* NULL: plain */
    unsigned char *out;
    size_t      out_cap;
    int         in_frame;       /* records went in since the frame began */
    char       *hdr;
};

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int fd_sink(void *arg, const void *buf, size_t len)
{
    return write_all(((fpmlog_writer *)arg)->fd, buf, len);
}

fpmlog_writer *fpmlog_writer_to(fpmlog_sink sink, void *arg, int level)
{
    fpmlog_writer *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->sink = sink;
    w->arg = arg;
    w->hdr = malloc(FPMLOG_HDR_MAX);
    if (!w->hdr)
        goto err;
    if (level > 0) {
        w->cctx = ZSTD_createCCtx();
        w->out_cap = ZSTD_CStreamOutSize();
        w->out = malloc(w->out_cap);
        if (!w->cctx || !w->out)
            goto err;
        ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, level);
        ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 0);
    }
    return w;
err:
    fpmlog_writer_free(w);
    return NULL;
}

fpmlog_writer *fpmlog_writer_new(int fd, int level)
{
    fpmlog_writer *w = fpmlog_writer_to(fd_sink, NULL, level);
    if (w) {
        w->arg = w;
        w->fd = fd;
    }
    return w;
}

void fpmlog_writer_reset(fpmlog_writer *w)
{
    if (w->cctx)
        ZSTD_CCtx_reset(w->cctx, ZSTD_reset_session_only);
    w->in_frame = 0;
}

void fpmlog_writer_free(fpmlog_writer *w)
{
    if (!w)
        return;
    ZSTD_freeCCtx(w->cctx);
    free(w->out);
    free(w->hdr);
    free(w);
}

/* Feeds bytes (or a flush/end directive with none) through the compressor. */
static int put(fpmlog_writer *w, const void *buf, size_t len, ZSTD_EndDirective mode)
{
    if (!w->cctx)
        return len ? w->sink(w->arg, buf, len) : 0;
    ZSTD_inBuffer in = {buf, len, 0};
    for (;;) {
        ZSTD_outBuffer out = {w->out, w->out_cap, 0};
        size_t left = ZSTD_compressStream2(w->cctx, &out, &in, mode);
        if (ZSTD_isError(left)) {
            errno = EIO;
            return -1;
        }
        if (out.pos && w->sink(w->arg, w->out, out.pos) != 0)
            return -1;
        if (mode == ZSTD_e_continue ? in.pos == in.size : left == 0)
            return 0;
    }
}

size_t fpmlog_encode_source(char *dst, const char *src, size_t len)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    if (len == 0) { /* an empty field cannot be written: "none" */
        memcpy(dst, "-", 2);
        return 1;
    }
    if (len == 1 && src[0] == '-') {
        memcpy(dst, "%2D", 4);
        return 3;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)src[i];
        if (c <= 0x20 || c == 0x7F || c == '%') {
            dst[o++] = '%';
            dst[o++] = hex[c >> 4];
            dst[o++] = hex[c & 15];
        } else {
            dst[o++] = (char)c;
        }
    }
    dst[o] = '\0';
    return o;
}

int fpmlog_header(char *buf, const char *type, uint64_t mono, uint64_t real,
                  const char *source, size_t source_len, const void *payload, size_t len)
{
    if (len > FPMLOG_MAX_LEN || source_len > (FPMLOG_HDR_MAX - 128) / 3) {
        errno = EINVAL;
        return -1;
    }
    char src[FPMLOG_HDR_MAX];
    if (source)
        fpmlog_encode_source(src, source, source_len);
    else
        strcpy(src, "-");
    int n = snprintf(buf, FPMLOG_HDR_MAX, "%s%s %llu %llu %s %zu %08lx\n", FPMLOG_MAGIC, type,
                     (unsigned long long)mono, (unsigned long long)real, src, len,
                     crc32(0L, payload, (uInt)len));
    if (n < 0 || n >= FPMLOG_HDR_MAX) {
        errno = EINVAL;
        return -1;
    }
    return n;
}

int fpmlog_write(fpmlog_writer *w, const char *type, uint64_t mono, uint64_t real,
                 const char *source, size_t source_len, const void *payload, size_t len)
{
    int n = fpmlog_header(w->hdr, type, mono, real, source, source_len, payload, len);
    if (n < 0)
        return -1;
    if (put(w, w->hdr, (size_t)n, ZSTD_e_continue) || put(w, payload, len, ZSTD_e_continue) ||
        put(w, "\n", 1, ZSTD_e_continue))
        return -1;
    w->in_frame = 1;
    return 0;
}

int fpmlog_writer_flush(fpmlog_writer *w)
{
    return w->in_frame ? put(w, NULL, 0, ZSTD_e_flush) : 0;
}

int fpmlog_writer_end_frame(fpmlog_writer *w)
{
    if (!w->in_frame)
        return 0;
    int rc = put(w, NULL, 0, ZSTD_e_end);
    if (rc == 0)
        w->in_frame = 0;
    return rc;
}

/* ---------------------------------------------------------------- key=value */

const char *fpmlog_kv(const unsigned char *payload, size_t len, const char *key,
                      unsigned n, size_t *vlen)
{
    size_t kl = strlen(key);
    size_t i = 0;
    while (i < len) {
        const unsigned char *line = payload + i;
        const unsigned char *nl = memchr(line, '\n', len - i);
        size_t ll = nl ? (size_t)(nl - line) : len - i;
        if (ll > kl && line[kl] == '=' && memcmp(line, key, kl) == 0) {
            if (n == 0) {
                *vlen = ll - kl - 1;
                return (const char *)line + kl + 1;
            }
            n--;
        }
        i += ll + 1;
    }
    return NULL;
}
