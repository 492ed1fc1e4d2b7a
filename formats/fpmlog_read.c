/* The fpmlog reader: tolerant when reading (fpmlog.h draws the layout):
 * its life, and records and damage taken out of the decoded stream. */
#define _POSIX_C_SOURCE 200809L
#include "rc.h"
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

#include "fpmlog_reader.h"
#include "zahead.h"
#include "zframe.h"

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

void fpmlog_reader_set_skip(fpmlog_reader *r, fpmlog_skip_fn skip, void *arg)
{
    r->skip = skip;
    r->skip_arg = arg;
}

uint64_t fpmlog_reader_tell(const fpmlog_reader *r)
{
    return r->ib_off + r->ib_pos;
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

/* Makes room for at least RB_SPARE more decoded bytes: the bytes consumed
 * (and not held) dropped when the room left is less, the buffer grown when
 * that is not enough. */
int fl_rb_reserve(fpmlog_reader *r)
{
    if (r->rb_cap - r->rb_len >= RB_SPARE)
        return 0;
    size_t from = r->rb_pos;
    if (r->holding && r->hold_soff - r->rb_soff < from)
        from = (size_t)(r->hold_soff - r->rb_soff);
    if (from > 0) {
        memmove(r->rb, r->rb + from, r->rb_len - from);
        r->rb_soff += from;
        r->rb_len -= from;
        r->rb_pos -= from;
    }
    if (r->rb_cap - r->rb_len >= RB_SPARE)
        return 0;
    size_t cap = r->rb_cap * 2;
    unsigned char *nb = realloc(r->rb, cap);
    if (!nb)
        return FPM_ENOMEM;
    r->rb = nb;
    r->rb_cap = cap;
    return 0;
}

int fpmlog_reader_holds(const fpmlog_reader *r, const void *p)
{
    const unsigned char *b = p;
    return b >= r->rb && b < r->rb + r->rb_len;
}

uint64_t fpmlog_reader_offset(const fpmlog_reader *r, const void *p)
{
    return r->rb_soff + (uint64_t)((const unsigned char *)p - r->rb);
}

void fpmlog_reader_hold(fpmlog_reader *r, const void *p)
{
    if (!r->holding && fpmlog_reader_holds(r, p)) {
        r->holding = 1;
        r->hold_soff = fpmlog_reader_offset(r, p);
    }
}

const unsigned char *fpmlog_reader_at(const fpmlog_reader *r, uint64_t off)
{
    return r->rb + (off - r->rb_soff);
}

void fpmlog_reader_release(fpmlog_reader *r)
{
    r->holding = 0;
}

int fpmlog_reader_swap(fpmlog_reader *r, unsigned char **buf, size_t *cap, uint64_t *off)
{
    size_t rest = r->rb_len - r->rb_pos, need = rest + RB_SPARE;
    if (need < 2 * RB_SPARE)
        need = 2 * RB_SPARE;
    unsigned char *nb = *buf;
    size_t ncap = *cap;
    if (ncap < need) {
        if (!(nb = realloc(nb, need)))
            return FPM_ENOMEM;
        ncap = need;
    }
    memcpy(nb, r->rb + r->rb_pos, rest);
    *buf = r->rb;
    *cap = r->rb_cap;
    *off = r->rb_soff;
    r->rb = nb;
    r->rb_cap = ncap;
    r->rb_soff += r->rb_pos;
    r->rb_len = rest;
    r->rb_pos = 0;
    r->holding = 0;
    return 0;
}

void fl_set_damage(fpmlog_damage *d, fpmlog_pos pos, int breaks, const char *fmt, ...)
{
    va_list ap;
    d->pos = pos;
    d->breaks_round = breaks;
    d->open_tail = 0;
    va_start(ap, fmt);
    vsnprintf(d->what, sizeof d->what, fmt, ap);
    va_end(ap);
}

static int hexval(int c);

size_t fpmlog_decode_source(char *dst, const char *src, size_t len)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        int hi, lo;
        if (src[i] == '%' && i + 2 < len && (hi = hexval(src[i + 1])) >= 0 &&
            (lo = hexval(src[i + 2])) >= 0) {
            dst[o++] = (char)(hi << 4 | lo);
            i += 2;
        } else {
            dst[o++] = src[i];
        }
    }
    return o;
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
    if (rec->has_source)
        sl = fpmlog_decode_source(s, f[4], fl[4]);
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
            fl_seek_input(r, pos.offset + i);
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
    fl_set_damage(dmg, stream_pos(r, soff), breaks, "%s", what);
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
            if (r->pending_skip) {
                r->pending_skip = 0;
                memset(rec, 0, sizeof *rec);
                rec->type = "";
                rec->source = "";
                rec->pos.offset = r->skip_off;
                rec->len = (size_t)r->skip_len;
                return 2;
            }
            if (r->mode == M_DONE)
                return 0;
        }
        if (fl_feed(r) != 0) {
            fl_set_damage(dmg, (fpmlog_pos){fpmlog_reader_tell(r), 0, 0}, 1,
                       "read error: %s", strerror(errno));
            return -2;
        }
    }
}

