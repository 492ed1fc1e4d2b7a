/* The fpmlog reader: tolerant when reading (fpmlog.h draws the layout). */
#define _POSIX_C_SOURCE 200809L
#include "fpmlog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libdeflate.h>
#include <zstd.h>

#include "zahead.h"
#include "zframe.h"

#define IB_SIZE   (128 * 1024)
#define RB_SPARE  (128 * 1024)
#define MAX_SEGS  4096



/* ---------------------------------------------------------------- reader */

/* Where the decoded stream's bytes came from, from stream offset start on. */
typedef struct {
    uint64_t start;
    uint64_t file_off;
    int      compressed;
} segment;

/*
 * The reader's modes: what the bytes at the input position are.
 *
 *   FRAMEPOS --zstd magic, the frame decoded ahead------> AHEAD
 *            --zstd magic------------------------------> FRAME
 *            --skippable magic: skipped-----------------> FRAMEPOS
 *            --anything else----------------------------> PLAIN
 *            --end of the file--------------------------> DONE
 *   AHEAD    --the frame ends---------------------------> FRAMEPOS
 *            --broken-----------------------------------> SCAN, from its start + 1
 *   FRAME    --the frame ends---------------------------> FRAMEPOS
 *            --broken, or cut short by the file's end---> SCAN, from its start + 1
 *   SCAN     --a frame or skippable magic---------------> FRAMEPOS
 *            --end of the file--------------------------> DONE
 *   PLAIN    --a zstd magic in damage (frame_in_garbage)-> FRAMEPOS
 *            --end of the file--------------------------> DONE
 *
 * feed() moves the input forward in the current mode and appends decoded
 * bytes to rb; parse_one() takes records (or damage) out of rb.  A stream
 * (decoded bytes that continue one another) ends at a broken or cut-short
 * frame and at the end of the file: what is left of it then is dropped.
 */
enum mode { M_FRAMEPOS, M_FRAME, M_AHEAD, M_PLAIN, M_SCAN, M_DONE };

struct fpmlog_reader {
    fpmlog_source src;
    int fd, own_fd;             /* for a reader of a file descriptor ... */
    uint64_t fd_base;           /* ... whose offset 0 is fd's offset fd_base */

    unsigned char *ib;          /* file input */
    size_t ib_len, ib_pos;
    uint64_t ib_off;            /* file offset of ib[0] */
    int eof;

    enum mode mode;
    uint64_t frame_start;
    ZSTD_DCtx *dctx;
    size_t zhint;               /* input zstd asks for next: one block */
    zahead *ahead;              /* frames decoded ahead on threads, or NULL */
    uint64_t ahead_size;        /* the compressed size of the frame in AHEAD */

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

static ssize_t fd_read(void *arg, void *buf, size_t len)
{
    return read(((fpmlog_reader *)arg)->fd, buf, len);
}

static int fd_seek(void *arg, uint64_t off)
{
    fpmlog_reader *r = arg;
    return lseek(r->fd, (off_t)(r->fd_base + off), SEEK_SET) == (off_t)-1 ? -1 : 0;
}

/* Where fd is now: the reader's offset 0 (standard input may be a file
 * read partly before); 0 for a pipe. */
static uint64_t fd_offset(int fd)
{
    off_t at = lseek(fd, 0, SEEK_CUR);
    return at > 0 ? (uint64_t)at : 0;
}

fpmlog_reader *fpmlog_reader_fdopen(int fd)
{
    fpmlog_reader *r = fpmlog_reader_new(&(fpmlog_source){fd_read, fd_seek, NULL});
    if (r) {
        r->src.arg = r;
        r->fd = fd;
        r->fd_base = fd_offset(fd);
    }
    return r;
}

fpmlog_reader *fpmlog_reader_new(const fpmlog_source *src)
{
    fpmlog_reader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->src = *src;
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
    fpmlog_reader_reset_source(r, &(fpmlog_source){fd_read, fd_seek, r});
    r->fd = fd;
    r->fd_base = fd_offset(fd);
}

void fpmlog_reader_reset_source(fpmlog_reader *r, const fpmlog_source *src)
{
    zahead_free(r->ahead);
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
    r->src = *src;
    r->mode = M_FRAMEPOS;
    r->at_line_start = 1;
}

void fpmlog_reader_free(fpmlog_reader *r)
{
    if (!r)
        return;
    zahead_free(r->ahead); /* its threads read the file: before closing it */
    if (r->own_fd)
        close(r->fd);
    ZSTD_freeDCtx(r->dctx);
    free(r->ib);
    free(r->rb);
    free(r->hdr);
    free(r);
}

int fpmlog_reader_ahead(fpmlog_reader *r, int decoders)
{
    struct stat st;
    if (r->ahead || r->src.read != fd_read || fstat(r->fd, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    r->ahead = zahead_new(r->fd, r->fd_base, decoders);
    return r->ahead ? 0 : -1;
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
        n = r->src.read(r->src.arg, r->ib + r->ib_len, IB_SIZE - r->ib_len);
    while (n < 0 && errno == EINTR);
    if (n > 0)
        r->ib_len += (size_t)n;
    else if (n == 0)
        r->eof = 1;
    return n;
}

/* Moves the input to file offset off.  Within the buffer that is free; past
 * it, the source seeks; a pipe that cannot go back goes on from where it is. */
static void seek_input(fpmlog_reader *r, uint64_t off)
{
    if (off >= r->ib_off && off <= r->ib_off + r->ib_len) {
        r->ib_pos = (size_t)(off - r->ib_off);
        return;
    }
    if (!r->src.seek || r->src.seek(r->src.arg, off) != 0)
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
    if (fpmlog_u64(f[2], fl[2], &rec->mono) || fpmlog_u64(f[3], fl[3], &rec->real) ||
        fpmlog_u64(f[5], fl[5], &len) || len > FPMLOG_MAX_LEN || fl[6] != 8)
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
        if (zf_is_frame(p + i)) {
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

/* Skipping damage: forward to the next line that starts with the magic,
 * or to a zstd magic in plain damage.  1 at a record boundary, 0 when it
 * needs more bytes (or went back to frames). */
static int skip_damage(fpmlog_reader *r, int more)
{
    for (;;) {
        size_t avail = r->rb_len - r->rb_pos;
        unsigned char *p = r->rb + r->rb_pos;
        if (avail == 0)
            return 0;
        if (frame_in_garbage(r, p, avail, r->rb_soff + r->rb_pos))
            return 0;
        if (r->at_line_start) {
            size_t m = avail < FPMLOG_MAGIC_LEN ? avail : FPMLOG_MAGIC_LEN;
            if (memcmp(p, FPMLOG_MAGIC, m) == 0) {
                if (m == FPMLOG_MAGIC_LEN) {
                    r->skipping = 0;
                    return 1;
                }
                if (more)
                    return 0;
            }
        }
        unsigned char *nl = memchr(p, '\n', avail);
        if (!nl) {
            r->rb_pos += avail;
            r->at_line_start = 0;
            return 0;
        }
        r->rb_pos += (size_t)(nl - p) + 1;
        r->at_line_start = 1;
    }
}

/* Damage at the record boundary: skip from here on. */
static int damaged(fpmlog_reader *r, fpmlog_damage *dmg, uint64_t soff, size_t skip,
                   int line_start, int breaks, const char *what)
{
    r->rb_pos += skip;
    r->skipping = 1;
    r->at_line_start = line_start;
    set_damage(dmg, stream_pos(r, soff), breaks, "%s", what);
    return -1;
}

/* At a record boundary: one record, or its damage.  1, -1, or 0 when it
 * needs more bytes. */
static int take_record(fpmlog_reader *r, fpmlog_record *rec, fpmlog_damage *dmg, int more)
{
    size_t avail = r->rb_len - r->rb_pos;
    unsigned char *p = r->rb + r->rb_pos;
    uint64_t soff = r->rb_soff + r->rb_pos;
    size_t m = avail < FPMLOG_MAGIC_LEN ? avail : FPMLOG_MAGIC_LEN;
    int magic = memcmp(p, FPMLOG_MAGIC, m) == 0;
    if (magic && m < FPMLOG_MAGIC_LEN && more)
        return 0;
    if (!magic || m < FPMLOG_MAGIC_LEN) /* a header prefix, then the stream ended */
        return magic ? damaged(r, dmg, soff, avail, 0, 1,
                               "record cut short (torn tail), record skipped")
                     : damaged(r, dmg, soff, 0, 0, 0,
                               "no record header here, bytes skipped up to the next record");
    size_t look = avail < FPMLOG_HDR_MAX ? avail : FPMLOG_HDR_MAX;
    unsigned char *nl = memchr(p, '\n', look);
    if (!nl) {
        if (avail < FPMLOG_HDR_MAX && more)
            return 0;
        return avail < FPMLOG_HDR_MAX
            ? damaged(r, dmg, soff, FPMLOG_MAGIC_LEN, 0, 1,
                      "record cut short (torn tail), record skipped")
            : damaged(r, dmg, soff, FPMLOG_MAGIC_LEN, 0, 0,
                      "record header too long, record skipped");
    }
    size_t hlen = (size_t)(nl - p) + 1;
    uint32_t crc;
    if (parse_header(r, (const char *)p, hlen - 1, rec, &crc) != 0)
        return damaged(r, dmg, soff, hlen, 1, 0, "bad record header, record skipped");
    size_t need = hlen + rec->len;
    if (avail < need + (more ? 1 : 0)) {
        if (more)
            return 0; /* keep the whole record in rb; reserve grows it as needed */
        if (avail < need) {
            char what[96];
            snprintf(what, sizeof what, "record cut short (%zu of %zu payload bytes), record "
                     "skipped", avail - hlen, rec->len);
            return damaged(r, dmg, soff, hlen, 1, 1, what);
        }
    }
    if (libdeflate_crc32(0, p + hlen, rec->len) != crc)
        return damaged(r, dmg, soff, hlen, 1, 0, "bad CRC, record skipped");
    rec->payload = p + hlen;
    rec->pos = stream_pos(r, soff);
    r->rb_pos += need;
    if (avail > need && p[need] == '\n')
        r->rb_pos++;
    r->at_line_start = 1;
    return 1;
}

/* Tries to take one record, or one piece of damage, out of the decoded
 * bytes.  Returns 1, -1, or 0 when it needs more bytes (or has none left). */
static int parse_one(fpmlog_reader *r, fpmlog_record *rec, fpmlog_damage *dmg)
{
    int more = !r->stream_ended;
    if (r->skipping && !skip_damage(r, more))
        return 0;
    if (r->rb_len == r->rb_pos)
        return 0;
    return take_record(r, rec, dmg, more);
}

/* FRAMEPOS: what starts here, a frame, a skippable frame or plain records. */
static int feed_framepos(fpmlog_reader *r)
{
    while (r->ib_len - r->ib_pos < 8 && !r->eof)
        if (fill_input(r) < 0)
            return -1;
    size_t avail = r->ib_len - r->ib_pos;
    unsigned char *p = r->ib + r->ib_pos;
    if (avail == 0) {
        r->mode = M_DONE;
        r->stream_ended = 1;
    } else if (avail >= 4 && zf_is_frame(p)) {
        r->frame_start = r->ib_off + r->ib_pos;
        add_segment(r, r->frame_start, 1);
        if (r->ahead && zahead_take(r->ahead, r->frame_start, &r->ahead_size)) {
            r->mode = M_AHEAD;
            return 0;
        }
        ZSTD_DCtx_reset(r->dctx, ZSTD_reset_session_only);
        r->zhint = 5; /* the smallest frame header */
        r->mode = M_FRAME;
    } else if (avail >= 8 && zf_is_skippable(p)) {
        seek_input(r, r->ib_off + r->ib_pos + zf_skippable_size(p));
    } else {
        add_segment(r, r->ib_off + r->ib_pos, 0);
        r->mode = M_PLAIN;
    }
    return 0;
}

/* PLAIN: the bytes as they are, to the end of the file. */
static int feed_plain(fpmlog_reader *r)
{
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

/* The frame at frame_start is broken: what it gave stays, damage is
 * reported after it, and the next frame is looked for from its start + 1. */
static void frame_broke(fpmlog_reader *r, const char *why)
{
    set_damage(&r->break_dmg, (fpmlog_pos){r->frame_start, 1, 0}, 1,
               "broken zstd frame (%s), skipped to the next frame", why);
    r->pending_break = 1;
    r->stream_ended = 1;
    seek_input(r, r->frame_start + 1);
    r->mode = M_SCAN;
}

/* AHEAD: the frame's bytes, as a decoder thread decoded them. */
static int feed_ahead(fpmlog_reader *r)
{
    const char *why;
    ssize_t n = zahead_read(r->ahead, r->rb + r->rb_len, r->rb_cap - r->rb_len, &why);
    if (n > 0) {
        r->rb_len += (size_t)n;
    } else if (n == 0) {
        seek_input(r, r->frame_start + r->ahead_size);
        r->mode = M_FRAMEPOS;
    } else {
        frame_broke(r, why);
    }
    return 0;
}

/* FRAME: one block of the frame decoded. */
static int feed_frame(fpmlog_reader *r)
{
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
        frame_broke(r, ZSTD_getErrorName(ret));
    } else if (ret == 0) {
        r->mode = M_FRAMEPOS;
    } else {
        r->zhint = ret;
    }
    return 0;
}

/* SCAN: forward to the next frame or skippable magic. */
static int feed_scan(fpmlog_reader *r)
{
    for (;;) {
        size_t avail = r->ib_len - r->ib_pos;
        unsigned char *p = r->ib + r->ib_pos;
        for (size_t i = 0; i + 4 <= avail; i++) {
            if (zf_is_frame(p + i) || zf_is_skippable(p + i)) {
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

/* Reads and decodes more of the file in the current mode.  0 ok, -1 read
 * error (errno). */
static int feed(fpmlog_reader *r)
{
    if (rb_reserve(r) != 0)
        return -1;
    switch (r->mode) {
    case M_FRAMEPOS: return feed_framepos(r);
    case M_PLAIN: return feed_plain(r);
    case M_FRAME: return feed_frame(r);
    case M_AHEAD: return feed_ahead(r);
    case M_SCAN: return feed_scan(r);
    case M_DONE: break;
    }
    r->stream_ended = 1;
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

