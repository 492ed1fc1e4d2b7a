/* The fpmlog writer: strict when writing (fpmlog.h draws the layout). */
#include "fpmlog.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libdeflate.h>
#include <zstd.h>

#include "fpmsum.h"
#include "zframe.h"

struct fpmlog_writer {
    fpmlog_sink sink;
    void       *arg;
    int         fd;
    ZSTD_CCtx  *cctx;           /* NULL: plain */
    unsigned char *out;
    size_t      out_cap;
    int         in_frame;       /* records went in since the frame began */
    uint64_t    frame_bytes;    /* their bytes, headers and all (before compression) */
    uint64_t    zbytes;         /* the frame's compressed bytes given to the sink so far */
    fpmsum_acc *sum;            /* what the frame holds, for its summary (zstd only) */
    char       *hdr;
};

static int fd_sink(void *arg, const void *buf, size_t len)
{
    return zf_write_all(((fpmlog_writer *)arg)->fd, buf, len);
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
        w->sum = fpmsum_acc_new();
        if (!w->cctx || !w->out || !w->sum)
            goto err;
        ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, level);
        ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 0);
        /* a 512 KiB window holds the round before (its pages are most like
         * this round's) and keeps the recorder small: about 1 MiB of
         * compressor instead of 3 */
        ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_windowLog, FPMLOG_WINDOW_LOG);
        ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_hashLog, FPMLOG_WINDOW_LOG - 3);
        ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_chainLog, FPMLOG_WINDOW_LOG - 3);
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
    w->frame_bytes = 0;
    w->zbytes = 0;
    if (w->sum)
        fpmsum_acc_lost(w->sum);
}

void fpmlog_writer_free(fpmlog_writer *w)
{
    if (!w)
        return;
    ZSTD_freeCCtx(w->cctx);
    fpmsum_acc_free(w->sum);
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
        w->zbytes += out.pos;
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

/* v in decimal at d; its length */
static size_t put_dec(char *d, uint64_t v)
{
    char t[20];
    size_t n = 0;
    do
        t[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    for (size_t i = 0; i < n; i++)
        d[i] = t[n - 1 - i];
    return n;
}

size_t fpmlog_kv_put(char *d, const char *key, uint64_t v)
{
    size_t kl = strlen(key);
    memcpy(d, key, kl);
    d[kl] = '=';
    size_t n = kl + 1 + put_dec(d + kl + 1, v);
    d[n] = '\n';
    return n + 1;
}

int fpmlog_header(char *buf, const char *type, uint64_t mono, uint64_t real,
                  const char *source, size_t source_len, const void *payload, size_t len)
{
    size_t tl = strlen(type);
    if (len > FPMLOG_MAX_LEN || source_len > (FPMLOG_HDR_MAX - 128) / 3 || tl > 32) {
        errno = EINVAL;
        return -1;
    }
    /* "#fpmlog1 TYPE MONO REAL SOURCE LEN CRC\n", without printf: this is
     * every record of every round */
    static const char hex[] = "0123456789abcdef";
    size_t o = sizeof FPMLOG_MAGIC - 1;
    memcpy(buf, FPMLOG_MAGIC, o);
    memcpy(buf + o, type, tl);
    o += tl;
    buf[o++] = ' ';
    o += put_dec(buf + o, mono);
    buf[o++] = ' ';
    o += put_dec(buf + o, real);
    buf[o++] = ' ';
    if (source)
        o += fpmlog_encode_source(buf + o, source, source_len);
    else
        buf[o++] = '-';
    buf[o++] = ' ';
    o += put_dec(buf + o, len);
    buf[o++] = ' ';
    uint32_t crc = libdeflate_crc32(0, payload, len);
    for (int k = 7; k >= 0; k--)
        buf[o++] = hex[crc >> (4 * k) & 15];
    buf[o++] = '\n';
    return (int)o;
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
    w->frame_bytes += (uint64_t)n + len + 1;
    if (w->sum && fpmsum_acc_record(w->sum, type, mono, real, source, source_len, w->hdr,
                                    (size_t)n, payload, len) != 0) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

uint64_t fpmlog_writer_frame_bytes(const fpmlog_writer *w)
{
    return w->frame_bytes;
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
    if (rc != 0)
        return rc;
    w->in_frame = 0;
    w->frame_bytes = 0;
    if (!w->sum)
        return 0; /* plain: no frames */
    /* the frame's summary right after it, in a skippable frame (fpmsum.h) */
    const unsigned char *sb;
    size_t sl;
    if (fpmsum_acc_end(w->sum, w->zbytes, &sb, &sl) != 0) {
        errno = ENOMEM;
        return -1;
    }
    w->zbytes = 0;
    return w->sink(w->arg, sb, sl);
}
