/* Frame summaries: written after each zstd frame, read by seeking readers
 * (fpmsum.h draws the layout). */
#define _POSIX_C_SOURCE 200809L
#include "fpmsum.h"
#include "rc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "records.h"

/* ------------------------------------------------------------ bytes */

typedef struct {
    unsigned char *p;
    size_t len, cap;
} buf;

static int put(buf *b, const void *src, size_t n)
{
    if (grow(&b->p, &b->cap, b->len + n, 1, 1024))
        return FPM_ENOMEM;
    if (n)
        memcpy(b->p + b->len, src, n);
    b->len += n;
    return 0;
}

static int put_kv(buf *b, const char *key, uint64_t v)
{
    char line[64 + 22];
    return put(b, line, fpmlog_kv_put(line, key, v));
}

/* A whole record (header, payload, '\n') into b. */
static int put_record(buf *b, const char *hdr, size_t hdr_len, const void *payload, size_t len)
{
    return put(b, hdr, hdr_len) || put(b, payload, len) || put(b, "\n", 1) ? FPM_ENOMEM : 0;
}

/* ------------------------------------------------------------ the writer's side */

/* A pool named in the frame's rounds: a slot of an open-addressing table. */
typedef struct {
    char    *name;
    size_t   len;
    uint64_t round;      /* the round (a->round_id) it last had a record in */
    int      in_frame;   /* it had a record in a complete round of the frame */
} pool_slot;

/* A POOL record in force, by pool name. */
typedef struct {
    char  *name;
    size_t len;
    buf    rec;
} pool_rec;

struct fpmsum_acc {
    uint64_t rounds, first_real, last_real, min_real, max_real, first_mono, last_mono;
    int      in_round;           /* a round's records since the last ROUND */
    int      mixed;              /* rounds of two hostnames */
    int      fresh;              /* no record of this frame yet */
    char     host[256];          /* the HOST in force: its hostname ... */
    size_t   host_len;
    int      host_long;
    char     boot[256];          /* ... and boot_id */
    size_t   boot_len;
    char     fhost[256];         /* the hostname of the frame's first round */
    size_t   fhost_len;
    int      fhost_set;
    buf      host_rec;           /* the HOST record in force */
    pool_rec *pools;             /* and its POOL records */
    size_t   npools, cap_pools;
    buf      start;              /* what was in force when the frame began */
    size_t   start_n;
    buf      own;                /* the frame's own HOST and POOL records */
    size_t   own_n;
    pool_slot *slots;
    size_t   nslots, used;       /* nslots a power of 2 */
    size_t  *touched;            /* slots with a record in the round in progress */
    size_t   ntouched, cap_touched;
    uint64_t round_id;
    buf      out, payload;
};

fpmsum_acc *fpmsum_acc_new(void)
{
    fpmsum_acc *a = calloc(1, sizeof *a);
    if (a)
        a->fresh = 1;
    return a;
}

void fpmsum_acc_free(fpmsum_acc *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->nslots; i++)
        free(a->slots[i].name);
    for (size_t i = 0; i < a->npools; i++) {
        free(a->pools[i].name);
        free(a->pools[i].rec.p);
    }
    free(a->slots);
    free(a->pools);
    free(a->touched);
    free(a->host_rec.p);
    free(a->start.p);
    free(a->own.p);
    free(a->out.p);
    free(a->payload.p);
    free(a);
}

static uint64_t hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static int slots_grow(fpmsum_acc *a)
{
    size_t n = a->nslots ? a->nslots * 2 : 64;
    pool_slot *s = calloc(n, sizeof *s);
    if (!s)
        return FPM_ENOMEM;
    for (size_t i = 0; i < a->nslots; i++) {
        if (!a->slots[i].name)
            continue;
        size_t k = hash(a->slots[i].name, a->slots[i].len) & (n - 1);
        while (s[k].name)
            k = (k + 1) & (n - 1);
        s[k] = a->slots[i];
    }
    /* the touched list holds slot numbers: the round in progress is re-noted */
    for (size_t i = 0; i < a->ntouched; i++) {
        pool_slot *o = &a->slots[a->touched[i]];
        size_t k = hash(o->name, o->len) & (n - 1);
        while (s[k].name != o->name)
            k = (k + 1) & (n - 1);
        a->touched[i] = k;
    }
    free(a->slots);
    a->slots = s;
    a->nslots = n;
    return 0;
}

/* The pool's slot, made when new.  0, FPM_ENOMEM. */
static int slot_of(fpmsum_acc *a, const char *name, size_t len, size_t *at)
{
    if ((a->used + 1) * 2 > a->nslots && slots_grow(a) != 0)
        return FPM_ENOMEM;
    size_t k = hash(name, len) & (a->nslots - 1);
    while (a->slots[k].name &&
           !(a->slots[k].len == len && memcmp(a->slots[k].name, name, len) == 0))
        k = (k + 1) & (a->nslots - 1);
    if (!a->slots[k].name) {
        char *c = malloc(len + 1);
        if (!c)
            return FPM_ENOMEM;
        memcpy(c, name, len);
        c[len] = '\0';
        a->slots[k] = (pool_slot){c, len, 0, 0};
        a->used++;
    }
    *at = k;
    return 0;
}

static int touch_pool(fpmsum_acc *a, const char *name, size_t len)
{
    size_t k;
    if (slot_of(a, name, len, &k) != 0)
        return FPM_ENOMEM;
    if (a->slots[k].round == a->round_id + 1)
        return 0;
    a->slots[k].round = a->round_id + 1;
    if (grow(&a->touched, &a->cap_touched, a->ntouched + 1, sizeof *a->touched, 64))
        return FPM_ENOMEM;
    a->touched[a->ntouched++] = k;
    return 0;
}

/* The records in force now, as the frame's start sees them. */
static int snapshot_start(fpmsum_acc *a)
{
    a->start.len = 0;
    a->start_n = 0;
    if (a->host_rec.len) {
        if (put(&a->start, a->host_rec.p, a->host_rec.len))
            return FPM_ENOMEM;
        a->start_n++;
    }
    for (size_t i = 0; i < a->npools; i++) {
        if (put(&a->start, a->pools[i].rec.p, a->pools[i].rec.len))
            return FPM_ENOMEM;
        a->start_n++;
    }
    return 0;
}

static void copy_value(const void *payload, size_t len, const char *key, char *dst, size_t cap,
                       size_t *out, int *too_long)
{
    size_t vl = 0;
    const char *v = fpmlog_kv(payload, len, key, 0, &vl);
    if (!v)
        vl = 0;
    if (vl >= cap) {
        if (too_long)
            *too_long = 1;
        vl = 0;
    }
    memcpy(dst, v ? v : "", vl);
    dst[vl] = '\0';
    *out = vl;
}

static int take_host(fpmsum_acc *a, const char *hdr, size_t hdr_len, const void *payload,
                     size_t len)
{
    a->host_long = 0;
    copy_value(payload, len, HOST_HOSTNAME, a->host, sizeof a->host, &a->host_len, &a->host_long);
    copy_value(payload, len, HOST_BOOT_ID, a->boot, sizeof a->boot, &a->boot_len, NULL);
    a->host_rec.len = 0;
    for (size_t i = 0; i < a->npools; i++) {
        free(a->pools[i].name);
        free(a->pools[i].rec.p);
    }
    a->npools = 0;
    a->ntouched = 0; /* a reader drops a round's records at a HOST */
    a->in_round = 0;
    return put_record(&a->host_rec, hdr, hdr_len, payload, len);
}

static int take_pool(fpmsum_acc *a, const char *name, size_t nlen, const char *hdr,
                     size_t hdr_len, const void *payload, size_t len)
{
    pool_rec *p = NULL;
    for (size_t i = 0; i < a->npools && !p; i++)
        if (a->pools[i].len == nlen && memcmp(a->pools[i].name, name, nlen) == 0)
            p = &a->pools[i];
    if (!p) {
        if (grow(&a->pools, &a->cap_pools, a->npools + 1, sizeof *a->pools, 16))
            return FPM_ENOMEM;
        p = &a->pools[a->npools];
        *p = (pool_rec){malloc(nlen + 1), nlen, {0}};
        if (!p->name)
            return FPM_ENOMEM;
        memcpy(p->name, name, nlen);
        a->npools++;
    }
    p->rec.len = 0;
    return put_record(&p->rec, hdr, hdr_len, payload, len);
}

static void take_round(fpmsum_acc *a, uint64_t mono, uint64_t real)
{
    if (a->fhost_set && (a->fhost_len != a->host_len || memcmp(a->fhost, a->host, a->host_len)))
        a->mixed = 1;
    if (!a->fhost_set) {
        memcpy(a->fhost, a->host, a->host_len + 1);
        a->fhost_len = a->host_len;
        a->fhost_set = 1;
    }
    if (a->host_long)
        a->mixed = 1;
    if (a->rounds == 0) {
        a->first_real = a->min_real = a->max_real = real;
        a->first_mono = mono;
    }
    a->last_real = real;
    a->last_mono = mono;
    a->min_real = real < a->min_real ? real : a->min_real;
    a->max_real = real > a->max_real ? real : a->max_real;
    a->rounds++;
    for (size_t i = 0; i < a->ntouched; i++)
        a->slots[a->touched[i]].in_frame = 1;
    a->ntouched = 0;
    a->round_id++;
    a->in_round = 0;
}

int fpmsum_acc_record(fpmsum_acc *a, const char *type, uint64_t mono, uint64_t real,
                      const char *source, size_t source_len, const char *hdr, size_t hdr_len,
                      const void *payload, size_t len)
{
    if (a->fresh) {
        a->fresh = 0;
        if (snapshot_start(a) != 0)
            return FPM_ENOMEM;
    }
    rec_kind k = rec_kind_of(type);
    switch (k.type) {
    case REC_HOST:
        if (take_host(a, hdr, hdr_len, payload, len))
            return FPM_ENOMEM;
        a->own_n++;
        return put_record(&a->own, hdr, hdr_len, payload, len);
    case REC_POOL:
        if (!source)
            return 0;
        if (take_pool(a, source, source_len, hdr, hdr_len, payload, len))
            return FPM_ENOMEM;
        a->own_n++;
        return put_record(&a->own, hdr, hdr_len, payload, len);
    case REC_ROUND:
        take_round(a, mono, real);
        return 0;
    default:
        if (k.role != REC_IN_ROUND)
            return 0;
        a->in_round = 1;
        return k.per_pool && source ? touch_pool(a, source, source_len) : 0;
    }
}

static void frame_begins(fpmsum_acc *a)
{
    a->rounds = 0;
    a->mixed = 0;
    a->fhost_set = 0;
    a->fresh = 1;
    a->own.len = 0;
    a->own_n = 0;
    a->in_round = 0;
    a->ntouched = 0;
    a->round_id++;
    for (size_t i = 0; i < a->nslots; i++)
        a->slots[i].in_frame = 0;
}

void fpmsum_acc_lost(fpmsum_acc *a)
{
    frame_begins(a);
}

static int summary_payload(fpmsum_acc *a, uint64_t zbytes)
{
    buf *b = &a->payload;
    b->len = 0;
    if (put_kv(b, "version", FPMSUM_VERSION) || put_kv(b, "frame_bytes", zbytes) ||
        put_kv(b, "rounds", a->rounds) || put_kv(b, "first_real", a->first_real) ||
        put_kv(b, "last_real", a->last_real) || put_kv(b, "min_real", a->min_real) ||
        put_kv(b, "max_real", a->max_real) || put_kv(b, "first_mono", a->first_mono) ||
        put_kv(b, "last_mono", a->last_mono) ||
        put_kv(b, "seekable", !a->mixed && !a->in_round) || put_kv(b, "own", a->own_n) ||
        put_kv(b, "in_force", a->start_n))
        return FPM_ENOMEM;
    if (put(b, "hostname=", 9) || put(b, a->fhost_set ? a->fhost : a->host,
                                      a->fhost_set ? a->fhost_len : a->host_len) ||
        put(b, "\nboot_id=", 9) || put(b, a->boot, a->boot_len) || put(b, "\n", 1))
        return FPM_ENOMEM;
    for (size_t i = 0; i < a->nslots; i++) {
        pool_slot *s = &a->slots[i];
        if (!s->name || !s->in_frame)
            continue;
        char *enc = malloc(3 * s->len + 4);
        if (!enc)
            return FPM_ENOMEM;
        size_t el = fpmlog_encode_source(enc, s->name, s->len);
        int e = put(b, "pool=", 5) || put(b, enc, el) || put(b, "\n", 1);
        free(enc);
        if (e)
            return FPM_ENOMEM;
    }
    return 0;
}

int fpmsum_acc_end(fpmsum_acc *a, uint64_t zbytes, const unsigned char **out, size_t *out_len)
{
    if (a->fresh && snapshot_start(a) != 0)
        return FPM_ENOMEM;
    if (summary_payload(a, zbytes) != 0)
        return FPM_ENOMEM;
    char hdr[FPMLOG_HDR_MAX];
    int hl = fpmlog_header(hdr, "SUMMARY", a->last_mono, a->last_real, NULL, 0, a->payload.p,
                           a->payload.len);
    if (hl < 0)
        return -1;
    buf *o = &a->out;
    o->len = 0;
    unsigned char head[8] = {FPMSUM_MAGIC0, 0x2A, 0x4D, 0x18, 0, 0, 0, 0};
    if (put(o, head, 8) || put(o, FPMSUM_TAG, FPMSUM_TAG_LEN) ||
        put_record(o, hdr, (size_t)hl, a->payload.p, a->payload.len) ||
        put(o, a->own.p, a->own.len) || put(o, a->start.p, a->start.len))
        return FPM_ENOMEM;
    size_t n = o->len - 8;
    for (int i = 0; i < 4; i++)
        o->p[4 + i] = (unsigned char)(n >> (8 * i));
    *out = o->p;
    *out_len = o->len;
    frame_begins(a);
    return 0;
}

/* ------------------------------------------------------------ the reader's side */

typedef struct {
    const unsigned char *p;
    size_t n, pos;
} memsrc;

static ssize_t mem_read(void *arg, void *dst, size_t len)
{
    memsrc *m = arg;
    size_t k = m->n - m->pos < len ? m->n - m->pos : len;
    memcpy(dst, m->p + m->pos, k);
    m->pos += k;
    return (ssize_t)k;
}

static int mem_seek(void *arg, uint64_t off)
{
    memsrc *m = arg;
    if (off > m->n)
        return -1;
    m->pos = (size_t)off;
    return 0;
}

struct fpmsum_reader {
    fpmlog_reader *r;
    memsrc m;
};

fpmsum_reader *fpmsum_reader_new(void)
{
    fpmsum_reader *sr = calloc(1, sizeof *sr);
    if (!sr)
        return NULL;
    fpmlog_source src = {mem_read, mem_seek, &sr->m};
    if (!(sr->r = fpmlog_reader_new(&src))) {
        free(sr);
        return NULL;
    }
    return sr;
}

void fpmsum_reader_free(fpmsum_reader *sr)
{
    if (!sr)
        return;
    fpmlog_reader_free(sr->r);
    free(sr);
}

static int summary_numbers(const fpmlog_record *rec, fpmsum *s)
{
    static const char *const keys[] = {"frame_bytes", "rounds", "first_real", "last_real",
                                       "min_real", "max_real", "first_mono", "last_mono"};
    uint64_t *dst[] = {&s->frame_bytes, &s->rounds, &s->first_real, &s->last_real,
                       &s->min_real, &s->max_real, &s->first_mono, &s->last_mono};
    uint64_t v, inf, own;
    if (fpmlog_kv_u64(rec->payload, rec->len, "version", &v) != 0 || v != FPMSUM_VERSION)
        return -1;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (fpmlog_kv_u64(rec->payload, rec->len, keys[i], dst[i]) != 0)
            return -1;
    if (fpmlog_kv_u64(rec->payload, rec->len, "seekable", &v) != 0 || v > 1 ||
        fpmlog_kv_u64(rec->payload, rec->len, "in_force", &inf) != 0 || inf > FPMSUM_MAX ||
        fpmlog_kv_u64(rec->payload, rec->len, "own", &own) != 0 || own > FPMSUM_MAX)
        return -1;
    s->own = (size_t)own;
    if (s->rounds && s->min_real > s->max_real)
        return -1;
    s->seekable = (int)v;
    s->in_force = (size_t)inf;
    size_t hl;
    const char *h = fpmlog_kv(rec->payload, rec->len, "hostname", 0, &hl);
    if (!h || hl >= sizeof s->hostname)
        return -1;
    memcpy(s->hostname, h, hl);
    s->hostname[hl] = '\0';
    s->hostname_len = hl;
    return 0;
}

/* The summary's pools, percent-decoded, to visit->pool. */
static int visit_pools(const fpmlog_record *rec, const fpmsum_visit *visit)
{
    size_t vl;
    const char *v;
    char name[FPMLOG_HDR_MAX];
    for (unsigned i = 0; (v = fpmlog_kv(rec->payload, rec->len, "pool", i, &vl)); i++) {
        size_t o = fpmlog_decode_source(name, v, vl < sizeof name ? vl : sizeof name);
        int rc = o == 1 && name[0] == '-' ? 0 : visit->pool(visit->arg, name, o);
        if (rc)
            return rc;
    }
    return 0;
}

/* One pass over the content: -1 when it does not check out; with visit,
 * what it holds is given to it.  The records in force at the frame's start,
 * after its own, are for readers of a frame alone: not read here. */
static int pass(fpmsum_reader *sr, const unsigned char *p, size_t n, fpmsum *s,
                const fpmsum_visit *visit)
{
    sr->m = (memsrc){p + 8 + FPMSUM_TAG_LEN, n - 8 - FPMSUM_TAG_LEN, 0};
    fpmlog_source src = {mem_read, mem_seek, &sr->m};
    fpmlog_reader_reset_source(sr->r, &src);
    fpmlog_record rec;
    fpmlog_damage dmg;
    size_t i = 0;
    int ret;
    while ((i == 0 || i <= s->own) && (ret = fpmlog_reader_next(sr->r, &rec, &dmg)) == 1) {
        rec_kind k = rec_kind_of(rec.type);
        if (i == 0) {
            if (strcmp(rec.type, "SUMMARY") != 0 || summary_numbers(&rec, s) != 0)
                return -1;
            if (visit && visit->pool && (ret = visit_pools(&rec, visit)) != 0)
                return ret;
        } else if (k.type != REC_HOST && k.type != REC_POOL) {
            return -1;
        } else if (visit && visit->record && (ret = visit->record(visit->arg, &rec))) {
            return ret;
        }
        i++;
    }
    return i > 0 && i == s->own + 1 ? 0 : -1;
}

int fpmsum_read(fpmsum_reader *sr, const unsigned char *p, size_t n, fpmsum *s,
                const fpmsum_visit *visit)
{
    memset(s, 0, sizeof *s);
    if (n < 8 + FPMSUM_TAG_LEN || p[0] != FPMSUM_MAGIC0 || p[1] != 0x2A || p[2] != 0x4D ||
        p[3] != 0x18 || n > FPMSUM_MAX)
        return -1;
    uint64_t size = (uint64_t)p[4] | (uint64_t)p[5] << 8 | (uint64_t)p[6] << 16 |
                    (uint64_t)p[7] << 24;
    if (size + 8 != n || memcmp(p + 8, FPMSUM_TAG, FPMSUM_TAG_LEN) != 0)
        return -1;
    if (pass(sr, p, n, s, NULL) != 0)
        return -1;
    return visit ? pass(sr, p, n, s, visit) : 0;
}
