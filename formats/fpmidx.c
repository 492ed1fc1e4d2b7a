/* A log's frames, walked or read from its trailing index (fpmidx.h). */
#define _POSIX_C_SOURCE 200809L
#include "fpmidx.h"

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libdeflate.h>

#include "fpmlog.h"
#include "grow.h"
#include "rc.h"
#include "zframe.h"

#define TAG        "fpmidx1\n"
#define TAG_LEN    8
#define FOOTER_LEN 48 /* "fpmidx1 crc=XXXXXXXX total=" 27, 20 digits, '\n' */

void fpmidx_free(fpmidx *x)
{
    for (size_t i = 0; i < x->nnames; i++)
        free(x->names[i]);
    free(x->names);
    free(x->lens);
    free(x->f);
    memset(x, 0, sizeof *x);
}

static int add_name(fpmidx *x, const char *name, size_t len)
{
    size_t cap = x->cap_names;
    if (grow(&x->names, &cap, x->nnames + 1, sizeof *x->names, 64) ||
        grow(&x->lens, &x->cap_names, x->nnames + 1, sizeof *x->lens, 64))
        return FPM_ENOMEM;
    if (!(x->names[x->nnames] = malloc(len + 1)))
        return FPM_ENOMEM;
    memcpy(x->names[x->nnames], name, len);
    x->names[x->nnames][len] = '\0';
    x->lens[x->nnames++] = len;
    return 0;
}

/* The frame just added takes the pools of the one before when they are the
 * same: its own copies are dropped. */
static void share_pools(fpmidx *x)
{
    fpmidx_frame *f = &x->f[x->n - 1], *b = x->n > 1 ? &x->f[x->n - 2] : NULL;
    if (!b || b->npools != f->npools)
        return;
    for (size_t i = 0; i < f->npools; i++)
        if (x->lens[b->pool0 + i] != x->lens[f->pool0 + i] ||
            memcmp(x->names[b->pool0 + i], x->names[f->pool0 + i], x->lens[f->pool0 + i]) != 0)
            return;
    for (size_t i = f->pool0; i < x->nnames; i++)
        free(x->names[i]);
    x->nnames = f->pool0;
    f->pool0 = b->pool0;
}

void fpmidx_sum(const fpmidx *x, size_t k, fpmsum *s)
{
    const fpmidx_frame *f = &x->f[k];
    *s = (fpmsum){.frame_bytes = f->len, .rounds = f->rounds, .first_real = f->first_real,
                  .last_real = f->last_real, .min_real = f->min_real, .max_real = f->max_real,
                  .first_mono = f->first_mono, .last_mono = f->last_mono,
                  .seekable = f->seekable, .own = f->own};
    if (f->host < x->nnames && x->lens[f->host] < sizeof s->hostname) {
        memcpy(s->hostname, x->names[f->host], x->lens[f->host]);
        s->hostname_len = x->lens[f->host];
    }
    s->hostname[s->hostname_len] = '\0';
}

/* Frame k's numbers from s, and its host: the name of the frame before's
 * when it is the same, else a new one (FPM_ENOMEM). */
static int set_sum(fpmidx *x, size_t k, const fpmsum *s)
{
    fpmidx_frame *f = &x->f[k];
    f->rounds = s->rounds;
    f->first_real = s->first_real;
    f->last_real = s->last_real;
    f->min_real = s->min_real;
    f->max_real = s->max_real;
    f->first_mono = s->first_mono;
    f->last_mono = s->last_mono;
    f->seekable = s->seekable;
    f->own = s->own;
    size_t h = k > 0 ? x->f[k - 1].host : SIZE_MAX;
    if (h < x->nnames && x->lens[h] == s->hostname_len &&
        memcmp(x->names[h], s->hostname, s->hostname_len) == 0) {
        f->host = h;
        return 0;
    }
    f->host = x->nnames;
    return add_name(x, s->hostname, s->hostname_len);
}

static int walk_pool(void *arg, const char *name, size_t len)
{
    fpmidx *x = arg;
    x->f[x->n - 1].npools++;
    return add_name(x, name, len);
}

int fpmidx_walk(int fd, uint64_t start, uint64_t end, fpmidx *x)
{
    fpmsum_reader *sr = fpmsum_reader_new();
    unsigned char *buf = NULL;
    size_t cap = 0;
    if (!sr)
        return FPM_ENOMEM;
    int rc = 0;
    uint64_t off = start;
    x->start = x->n ? x->start : start;
    while (off + 8 <= end) {
        unsigned char m[8];
        if (zf_pread_all(fd, m, 8, off) != 8)
            break;
        if (zf_is_skippable(m)) {
            if (off + zf_skippable_size(m) > end)
                break;
            off += zf_skippable_size(m);
            continue;
        }
        uint64_t len;
        if (!zf_is_frame(m) || zf_frame_extent(fd, off, end, &len) != 0 || off + len > end)
            break; /* plain records, damage, an open frame: read as they are */
        if ((rc = grow(&x->f, &x->cap, x->n + 1, sizeof *x->f, 256)) != 0)
            break;
        fpmidx_frame *f = &x->f[x->n++];
        *f = (fpmidx_frame){.off = off, .len = len, .host = SIZE_MAX, .pool0 = x->nnames};
        fpmsum sum;
        unsigned char h[8];
        uint64_t at = off + len, sl;
        if (at + 8 <= end && zf_pread_all(fd, h, 8, at) == 8 && zf_is_skippable(h) &&
            h[0] == FPMSUM_MAGIC0 && (sl = zf_skippable_size(h)) <= FPMSUM_MAX && at + sl <= end) {
            if ((rc = grow(&buf, &cap, (size_t)sl, 1, 4096)) != 0)
                break;
            fpmsum_visit v = {walk_pool, NULL, x};
            int r = zf_pread_all(fd, buf, (size_t)sl, at) == sl
                ? fpmsum_read(sr, buf, (size_t)sl, &sum, &v) : -1;
            if (r == FPM_ENOMEM) {
                rc = r;
                break;
            }
            if (r == 0 && sum.frame_bytes == len) {
                f->sum_len = sl;
                share_pools(x);
                if ((rc = set_sum(x, x->n - 1, &sum)) != 0)
                    break;
            }
        }
        if (!f->sum_len) { /* no summary that checks out: nothing said */
            for (size_t i = f->pool0; i < x->nnames; i++)
                free(x->names[i]);
            x->nnames = f->pool0;
            f->npools = 0;
        }
        off = at + f->sum_len;
    }
    x->end = off;
    x->whole = off == end;
    free(buf);
    fpmsum_reader_free(sr);
    return rc;
}

/* ------------------------------------------------------------ writing */

typedef struct {
    char  *p;
    size_t len, cap;
    int    nomem;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (t->nomem || grow(&t->p, &t->cap, t->len + n + 1, 1, 4096)) {
        t->nomem = 1;
        return;
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
}

static void putf(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(text *t, const char *fmt, ...)
{
    char b[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    put(t, b, n > 0 ? (size_t)n : 0);
}

/* A name, every byte that is not plain printable ASCII (and '%') as %XX;
 * "" as "-". */
static void put_name(text *t, const char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    if (n == 0 || (n == 1 && s[0] == '-')) {
        put(t, n ? "%2D" : "-", n ? 3 : 1);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c <= 0x20 || c >= 0x7F || c == '%') {
            char e[3] = {'%', hex[c >> 4], hex[c & 15]};
            put(t, e, 3);
        } else {
            put(t, (const char *)&c, 1);
        }
    }
}

static void put_frame(text *t, const fpmidx *x, size_t k)
{
    const fpmidx_frame *f = &x->f[k];
    putf(t, "F %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
         " %" PRIu64 " %" PRIu64 " %" PRIu64 " %d %zu ", f->off, f->len, f->sum_len, f->rounds,
         f->first_real, f->last_real, f->min_real, f->max_real, f->first_mono, f->last_mono,
         f->seekable, f->own);
    if (f->host < x->nnames)
        put_name(t, x->names[f->host], x->lens[f->host]);
    else
        put(t, "-", 1);
    if (k > 0 && f->npools && x->f[k - 1].pool0 == f->pool0 && x->f[k - 1].npools == f->npools) {
        put(t, " =\n", 3);
        return;
    }
    putf(t, " %zu\n", f->npools);
    for (size_t i = 0; i < f->npools; i++) {
        put(t, "P ", 2);
        put_name(t, x->names[f->pool0 + i], x->lens[f->pool0 + i]);
        put(t, "\n", 1);
    }
}

int fpmidx_append(int fd, uint64_t start)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -1;
    uint64_t size = (uint64_t)st.st_size;
    fpmidx x = {0};
    int rc = fpmidx_walk(fd, start, size, &x);
    if (rc != 0 || !x.whole || x.n == 0) {
        fpmidx_free(&x);
        return rc ? rc : FPMIDX_NONE;
    }
    text t = {0};
    put(&t, "\x5D\x2A\x4D\x18\0\0\0\0" TAG, 8 + TAG_LEN);
    putf(&t, "version=1\nstart=%" PRIu64 "\nend=%" PRIu64 "\nframes=%zu\n", start, size, x.n);
    for (size_t k = 0; k < x.n; k++)
        put_frame(&t, &x, k);
    fpmidx_free(&x);
    size_t total = t.len + FOOTER_LEN;
    uint32_t crc = libdeflate_crc32(0, t.p + 8 + TAG_LEN, t.len - 8 - TAG_LEN);
    putf(&t, "fpmidx1 crc=%08" PRIx32 " total=%020zu\n", crc, total);
    if (t.nomem || t.len != total || total > FPMIDX_MAX) {
        free(t.p);
        return t.nomem ? FPM_ENOMEM : FPMIDX_NONE;
    }
    for (int i = 0; i < 4; i++)
        t.p[4 + i] = (char)((total - 8) >> (8 * i));
    rc = pwrite(fd, t.p, total, (off_t)size) == (ssize_t)total ? 0 : -1;
    if (rc != 0 && errno == 0)
        errno = EIO;
    free(t.p);
    return rc;
}

/* ------------------------------------------------------------ reading */

/* The footer at the end of fd: the index's offset.  0, else -1. */
static int footer(int fd, uint64_t size, uint64_t *at, uint32_t *crc)
{
    char f[FOOTER_LEN + 1];
    if (size < 8 + TAG_LEN + FOOTER_LEN ||
        zf_pread_all(fd, f, FOOTER_LEN, size - FOOTER_LEN) != FOOTER_LEN)
        return -1;
    f[FOOTER_LEN] = '\0';
    char crc_s[9], tot_s[21];
    if (memcmp(f, "fpmidx1 crc=", 12) != 0 || memcmp(f + 20, " total=", 7) != 0 ||
        f[FOOTER_LEN - 1] != '\n')
        return -1;
    memcpy(crc_s, f + 12, 8);
    crc_s[8] = '\0';
    memcpy(tot_s, f + 27, 20);
    tot_s[20] = '\0';
    uint64_t total;
    if (fpmlog_u64(tot_s, 20, &total) != 0)
        return -1;
    char *e;
    unsigned long c = strtoul(crc_s, &e, 16);
    if (*e || total > size || total > FPMIDX_MAX || total < 8 + TAG_LEN + FOOTER_LEN)
        return -1;
    *at = size - total;
    *crc = (uint32_t)c;
    return 0;
}

/* A cursor over the body's lines. */
typedef struct {
    const char *p, *end;
} lines;

/* The next line's fields, split at single spaces (at most max): how many,
 * or -1 when no line is left or it has more. */
static int fields(lines *l, const char **f, size_t *fl, int max)
{
    if (l->p >= l->end)
        return -1;
    const char *nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
    if (!nl)
        return -1;
    int k = 0;
    const char *s = l->p;
    for (const char *c = l->p;; c++) {
        if (c == nl || *c == ' ') {
            if (k == max)
                return -1;
            f[k] = s;
            fl[k++] = (size_t)(c - s);
            s = c + 1;
            if (c == nl)
                break;
        }
    }
    l->p = nl + 1;
    return k;
}

/* "KEY=N" as the next line. */
static int keyed(lines *l, const char *key, uint64_t *v)
{
    const char *f[1];
    size_t fl[1], k = strlen(key);
    return fields(l, f, fl, 1) == 1 && fl[0] > k + 1 && memcmp(f[0], key, k) == 0 &&
                   f[0][k] == '=' && fpmlog_u64(f[0] + k + 1, fl[0] - k - 1, v) == 0
               ? 0 : -1;
}

/* A name as put_name wrote it; -1 when it holds a byte put_name encodes. */
static int name_of(const char *s, size_t n, char *dst, size_t cap, size_t *len)
{
    if (n == 1 && s[0] == '-') {
        *len = 0;
        return 0;
    }
    if (n == 0 || n > cap)
        return -1;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7F)
            return -1;
    *len = fpmlog_decode_source(dst, s, n);
    return 0;
}

/* The body's frames into x; NULL, or what is wrong. */
static const char *parse(lines *l, uint64_t at, fpmidx *x, int *nomem)
{
    uint64_t v, nframes;
    if (keyed(l, "version", &v) || v != 1)
        return "not version 1";
    if (keyed(l, "start", &x->start) || keyed(l, "end", &x->end) ||
        keyed(l, "frames", &nframes))
        return "a bad head";
    if (x->end != at || x->start > x->end || nframes > FPMIDX_MAX / 32)
        return "it does not end where the index begins";
    uint64_t next = x->start;
    char name[FPMLOG_HDR_MAX];
    for (uint64_t k = 0; k < nframes; k++) {
        const char *f[16];
        size_t fl[16];
        uint64_t n[12];
        if (fields(l, f, fl, 15) != 15 || fl[0] != 1 || f[0][0] != 'F')
            return "a bad frame line";
        for (int i = 0; i < 12; i++)
            if (fpmlog_u64(f[1 + i], fl[1 + i], &n[i]) != 0)
                return "a bad frame line";
        if (grow(&x->f, &x->cap, x->n + 1, sizeof *x->f, 256)) {
            *nomem = 1;
            return "out of memory";
        }
        size_t k = x->n++;
        x->f[k] = (fpmidx_frame){.off = n[0], .len = n[1], .sum_len = n[2], .host = SIZE_MAX,
                                 .pool0 = x->nnames};
        fpmidx_frame *fr = &x->f[k];
        fpmsum s = {.frame_bytes = n[1], .rounds = n[3], .first_real = n[4], .last_real = n[5],
                    .min_real = n[6], .max_real = n[7], .first_mono = n[8], .last_mono = n[9],
                    .seekable = n[10] == 1, .own = (size_t)n[11]};
        if (n[10] > 1 || n[11] > FPMSUM_MAX || fr->off < next || fr->len < 4 ||
            fr->len > x->end - fr->off || fr->sum_len > FPMSUM_MAX ||
            fr->sum_len > x->end - fr->off - fr->len || (s.rounds && s.min_real > s.max_real))
            return "frames out of order or outside it";
        next = fr->off + fr->len + fr->sum_len;
        if (name_of(f[13], fl[13], s.hostname, sizeof s.hostname - 1, &s.hostname_len))
            return "a bad host";
        if (fr->sum_len && set_sum(x, k, &s)) {
            *nomem = 1;
            return "out of memory";
        }
        fr = &x->f[k];
        fr->pool0 = x->nnames;
        if (fl[14] == 1 && f[14][0] == '=') {
            if (x->n < 2)
                return "no pools before to share";
            fr->pool0 = x->f[x->n - 2].pool0;
            fr->npools = x->f[x->n - 2].npools;
            continue;
        }
        uint64_t np;
        if (fpmlog_u64(f[14], fl[14], &np) != 0 || np > FPMIDX_MAX / 4)
            return "a bad pool count";
        for (uint64_t i = 0; i < np; i++) {
            const char *pf[2];
            size_t pl[2], len;
            if (fields(l, pf, pl, 2) != 2 || pl[0] != 1 || pf[0][0] != 'P' ||
                name_of(pf[1], pl[1], name, sizeof name, &len) != 0)
                return "a bad pool line";
            if (add_name(x, name, len)) {
                *nomem = 1;
                return "out of memory";
            }
            fr->npools++;
        }
    }
    return l->p == l->end ? NULL : "bytes after its frames";
}

int fpmidx_find(int fd, uint64_t size, uint64_t *at, uint64_t *start)
{
    uint32_t crc;
    unsigned char h[8 + TAG_LEN + 64];
    if (footer(fd, size, at, &crc) != 0)
        return -1;
    size_t got = zf_pread_all(fd, h, sizeof h, *at);
    if (got < 8 + TAG_LEN || h[0] != FPMIDX_MAGIC0 || !zf_is_skippable(h) ||
        zf_skippable_size(h) != size - *at || memcmp(h + 8, TAG, TAG_LEN) != 0)
        return -1;
    lines l = {(const char *)h + 8 + TAG_LEN, (const char *)h + got};
    uint64_t v;
    if (keyed(&l, "version", &v) || keyed(&l, "start", start) || *start > *at)
        *start = *at;
    return 0;
}

int fpmidx_load(int fd, uint64_t size, fpmidx *x, uint64_t *at, const char **why)
{
    memset(x, 0, sizeof *x);
    uint32_t crc;
    if (footer(fd, size, at, &crc) != 0)
        return FPMIDX_NONE;
    uint64_t total = size - *at;
    char *b = malloc((size_t)total);
    if (!b)
        return FPM_ENOMEM;
    const unsigned char *u = (const unsigned char *)b;
    *why = NULL;
    if (zf_pread_all(fd, b, (size_t)total, *at) != total)
        *why = "cannot be read";
    else if (u[0] != FPMIDX_MAGIC0 || !zf_is_skippable(u) || zf_skippable_size(u) != total ||
             memcmp(b + 8, TAG, TAG_LEN) != 0)
        *why = "a bad header";
    else if (libdeflate_crc32(0, b + 8 + TAG_LEN, (size_t)total - 8 - TAG_LEN - FOOTER_LEN) != crc)
        *why = "bad CRC";
    int nomem = 0;
    if (!*why) {
        lines l = {b + 8 + TAG_LEN, b + total - FOOTER_LEN};
        *why = parse(&l, *at, x, &nomem);
    }
    free(b);
    if (*why) {
        fpmidx_free(x);
        return nomem ? FPM_ENOMEM : FPMIDX_DAMAGED;
    }
    x->whole = 1;
    return 0;
}
