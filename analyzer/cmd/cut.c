/* fpm-analyze cut: a window's records into a new log (cut.h). */
#define _POSIX_C_SOURCE 200809L
#include "cut.h"
#include "rc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fpmlog.h"
#include "fpmsum.h"
#include "grow.h"
#include "fpmidx.h"
#include "msg.h"
#include "namemap.h"
#include "records.h"
#include "seek.h"
#include "window.h"
#include "status.h"

/* A record held until its round's ROUND: where its parts are in the blob. */
typedef struct {
    size_t   type, source, source_len, payload, len;
    int      has_source, in_round;
    int      state;  /* HOST or POOL: always shared, in its place */
    int      gone;   /* GONE_FORGOT: of a round not shared; GONE_TORN: that a reader drops */
    uint64_t mono, real;
} held;

enum { GONE_FORGOT = 1, GONE_TORN = 2 };

/* The rounds before the window held to prime it: at most this many. */
#define PRIME_MAX 32

typedef struct {
    const config  *cfg;
    const pl_options *opt;
    fpmlog_writer *w;
    unsigned char *blob;         /* the held records' bytes */
    size_t         blob_len, blob_cap;
    held          *h;
    size_t         nh, cap_h;
    namemap        known;        /* "hostname\0pool" of every pool OUT names ... */
    char         **keys;         /* ... those names */
    size_t         nkeys, cap_keys;
    char           host[256];    /* the hostname in force, as written */
    size_t         host_len;
    size_t         cur;          /* h[cur..nh): the round being read ... */
    size_t         prime[PRIME_MAX]; /* ... h[prime[k]..): the rounds held before it */
    size_t         nprime;
    uint64_t       rounds, in_window; /* written */
    uint64_t       frame_real0;  /* the REAL of the frame's first round written, 0 none */
    int            err;          /* a write failed (errno kept) */
} cutter;

static int keep(cutter *c, const void *p, size_t n, size_t *at)
{
    return grow_append(&c->blob, &c->blob_cap, &c->blob_len, p, n, at);
}

static int write_rec(cutter *c, const char *type, uint64_t mono, uint64_t real,
                     const char *source, size_t source_len, int has_source, const void *p,
                     size_t len)
{
    if (fpmlog_write(c->w, type, mono, real, has_source ? source : NULL, source_len, p, len)) {
        c->err = errno ? errno : EIO;
        return FPM_EFAIL;
    }
    return 0;
}

/* OUT names the pool of the host in force; 0, FPM_ENOMEM. */
static int note_pool(cutter *c, const char *name, size_t len, int *was_known)
{
    char key[256 + FPMLOG_HDR_MAX];
    if (c->host_len + 1 + len > sizeof key)
        return 0;
    memcpy(key, c->host, c->host_len);
    key[c->host_len] = '\0';
    memcpy(key + c->host_len + 1, name, len);
    uintptr_t v;
    size_t kl = c->host_len + 1 + len;
    *was_known = namemap_get(&c->known, key, kl, &v);
    if (*was_known)
        return 0;
    /* the map keeps a pointer to its names: each is kept here */
    if (grow(&c->keys, &c->cap_keys, c->nkeys + 1, sizeof *c->keys, 64))
        return FPM_ENOMEM;
    char *k = malloc(kl);
    if (!k)
        return FPM_ENOMEM;
    memcpy(k, key, kl);
    c->keys[c->nkeys++] = k;
    return namemap_put(&c->known, k, kl, 1);
}

static int in_window(const cutter *c, uint64_t real)
{
    return (!c->opt->has_from || real >= c->opt->from_ns) &&
           (!c->opt->has_until || real < c->opt->until_ns);
}

/* Writes one held record; a HOST makes its host the one in force, a POOL
 * or a round's record of a pool names the pool; a ROUND is counted.  0, or FPM_EFAIL (c->err says why). */
static int put(cutter *c, const held *x)
{
    const char *type = (const char *)c->blob + x->type, *src = (const char *)c->blob + x->source;
    const unsigned char *p = c->blob + x->payload;
    if (strcmp(type, "HOST") == 0) {
        size_t hl = 0;
        const char *h = fpmlog_kv(p, x->len, HOST_HOSTNAME, 0, &hl);
        if (h && hl > 0 && hl < sizeof c->host) {
            memcpy(c->host, h, hl);
            c->host_len = hl;
        }
    }
    if (x->in_round && strcmp(type, "ROUND") == 0) {
        c->rounds++;
        c->in_window += (uint64_t)in_window(c, x->real);
        if (!c->frame_real0)
            c->frame_real0 = x->real; /* the frame's first round */
    }
    int known;
    if (write_rec(c, type, x->mono, x->real, src, x->source_len, x->has_source, p, x->len))
        return FPM_EFAIL;
    if (x->has_source && (x->state ? strcmp(type, "POOL") == 0
                                   : x->in_round && rec_kind_of(type).per_pool))
        return note_pool(c, src, x->source_len, &known);
    return 0;
}

/* 7b: a pool named by a round the cut leaves out is listed over the LOGs
 * all the same, so OUT names it too: a POOL record, when OUT does not yet.
 * 0, or FPM_EFAIL. */
static int name_left_out(cutter *c, const held *x)
{
    static const char note[] = "note=named by rounds this cut leaves out\n";
    const char *type = (const char *)c->blob + x->type, *src = (const char *)c->blob + x->source;
    int known = 1;
    if (!x->has_source || !x->in_round || !rec_kind_of(type).per_pool)
        return 0;
    if (note_pool(c, src, x->source_len, &known) != 0)
        return FPM_EFAIL;
    return known ? 0
                 : write_rec(c, "POOL", x->mono, x->real, src, x->source_len, 1, note,
                             sizeof note - 1);
}

/* Forgets the held records before h[k]. */
static void drop_front(cutter *c, size_t k)
{
    if (k == 0)
        return;
    size_t base = k < c->nh ? c->h[k].type : c->blob_len;
    memmove(c->blob, c->blob + base, c->blob_len - base);
    c->blob_len -= base;
    memmove(c->h, c->h + k, (c->nh - k) * sizeof *c->h);
    c->nh -= k;
    for (size_t i = 0; i < c->nh; i++) {
        c->h[i].type -= base;
        c->h[i].source -= base;
        c->h[i].payload -= base;
    }
    c->cur = c->cur > k ? c->cur - k : 0;
    size_t n = 0;
    for (size_t r = 0; r < c->nprime; r++)
        if (c->prime[r] >= k)
            c->prime[n++] = c->prime[r] - k;
    c->nprime = n;
}

/* Writes the held records up to the first one of a round still wanted:
 * the HOST and POOL records among them, in order (state: always shared),
 * the rest dropped.  0, or FPM_EFAIL (c->err says why). */
static int settle(cutter *c)
{
    size_t k = 0;
    for (; k < c->nh; k++) {
        const held *x = &c->h[k];
        if (!x->gone && !x->state)
            break;
        if (!x->gone && put(c, x))
            return FPM_EFAIL;
        if (x->gone == GONE_FORGOT && name_left_out(c, x))
            return FPM_EFAIL;
    }
    drop_front(c, k);
    return 0;
}

/* Every held record written: the rounds that prime the window, the state
 * records between them, the round that ends now.  0, or FPM_EFAIL (c->err says why). */
static int release(cutter *c)
{
    for (size_t i = 0; i < c->nh; i++)
        if (!c->h[i].gone && put(c, &c->h[i]))
            return FPM_EFAIL;
    c->nh = c->cur = c->nprime = 0;
    c->blob_len = 0;
    return 0;
}

/* The rounds' records of h[from..to) are not shared (state records stay). */
static void forget(cutter *c, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (!c->h[i].gone && !c->h[i].state)
            c->h[i].gone = GONE_FORGOT;
}

/* The round being read is dropped, as a reader drops it. */
static void drop_round(cutter *c)
{
    for (size_t i = c->cur; i < c->nh; i++)
        if (c->h[i].in_round)
            c->h[i].gone = GONE_TORN;
}

/* No round held is shared: a jump, a file's end (the round being read then
 * unfinished, as its readers drop it).  0, or FPM_EFAIL (c->err says why). */
static int drop_all(cutter *c)
{
    drop_round(c);
    forget(c, 0, c->nh);
    c->nprime = 0;
    c->cur = c->nh;
    return settle(c);
}

/* Whether the round h[from..nh) primes a window on its own: every pool of
 * it read (a STATUS, no ERROR) with its workers (PIDS). */
static int primes_alone(const cutter *c, size_t from)
{
    size_t pages = 0, pids = 0;
    for (size_t i = from; i < c->nh; i++) {
        const char *t = (const char *)c->blob + c->h[i].type;
        if (c->h[i].gone || strcmp(t, "ERROR") == 0)
            return 0;
        pages += strcmp(t, "STATUS") == 0;
        pids += strcmp(t, "PIDS") == 0;
    }
    return pages > 0 && pages == pids;
}

static int hold(cutter *c, const fpmlog_record *rec, int in_round, int state)
{
    if (grow(&c->h, &c->cap_h, c->nh + 1, sizeof *c->h, 64))
        return FPM_ENOMEM;
    held *x = &c->h[c->nh];
    const unsigned char *p = rec->payload;
    size_t len = rec->len;
    char *red = NULL;
    if (c->cfg->redact && strcmp(rec->type, "STATUS") == 0 &&
        status_redact_query((const char *)p, len, &red, &len) != 0)
        return FPM_EFAIL;
    if (red)
        p = (const unsigned char *)red;
    int e = keep(c, rec->type, strlen(rec->type), &x->type) ||
            keep(c, rec->source, rec->source_len, &x->source) || keep(c, p, len, &x->payload);
    free(red);
    if (e)
        return FPM_EFAIL;
    x->source_len = rec->source_len;
    x->len = len;
    x->has_source = rec->has_source;
    x->in_round = in_round;
    x->state = state;
    x->gone = 0;
    x->mono = rec->mono;
    x->real = rec->real;
    c->nh++;
    return 0;
}

/* A round ends (its ROUND held): in the window it is written, with the
 * rounds held to prime it; outside the window it is held as a prime, shared
 * only when a round of the window follows it: alone when every pool of it
 * was read, else with the rounds before it back to one that was (at most
 * PRIME_MAX).  A round past --until is so shared only when the log's clock
 * stepped back into the window after it.  0, or FPM_EFAIL (c->err says why). */
static int round_ends(cutter *c, uint64_t real)
{
    if (in_window(c, real))
        return release(c);
    if (primes_alone(c, c->cur)) {
        forget(c, 0, c->cur);
        c->nprime = 0;
    } else if (c->nprime == PRIME_MAX) {
        forget(c, 0, c->prime[1]);
        memmove(c->prime, c->prime + 1, (PRIME_MAX - 1) * sizeof *c->prime);
        c->nprime--;
    }
    c->prime[c->nprime++] = c->cur;
    c->cur = c->nh;
    return settle(c);
}

/* One record of a LOG, or of a jumped frame's summary.  0, -1 (ENOMEM or a
 * write error in c->err). */
static int take(cutter *c, const fpmlog_record *rec)
{
    rec_kind k = rec_kind_of(rec->type);
    switch (k.type) {
    case REC_HOST: /* a new recorder: the round in progress is dropped */
        drop_round(c);
        return hold(c, rec, 0, 1) || settle(c) ? FPM_EFAIL : 0;
    case REC_POOL: /* state: written in its place, whatever rounds are shared */
        return hold(c, rec, 0, 1) || settle(c) ? FPM_EFAIL : 0;
    case REC_ROUND:
        if (hold(c, rec, 1, 0) || round_ends(c, rec->real))
            return FPM_EFAIL;
        /* a frame ends by size, or after 5 minutes of rounds, as the recorder's */
        if (c->frame_real0 && (fpmlog_writer_frame_bytes(c->w) >= c->cfg->frame_bytes ||
                               rec->real - c->frame_real0 >= FPMLOG_FRAME_NS)) {
            c->frame_real0 = 0;
            if (fpmlog_writer_end_frame(c->w) == 0)
                return 0;
            c->err = errno;
            return FPM_EFAIL;
        }
        return 0;
    default:
        return hold(c, rec, k.role == REC_IN_ROUND, 0);
    }
}

static int jump_record(void *arg, const fpmlog_record *rec)
{
    return take(arg, rec);
}

/* A jumped frame done: a POOL record for each of its pools OUT does not
 * name yet (the pool is listed over the LOGs, so over OUT too).  Pools of
 * rounds of another host than the one in force belong to no host OUT
 * names, and are ignored over the LOGs too. */
static int jump_done(void *arg, const seek_frame *f)
{
    cutter *c = arg;
    static const char note[] = "note=named by rounds this cut leaves out\n";
    const fpmsum *sum = f->sum;
    int rc = 0;
    if (sum->hostname_len != c->host_len || !c->host_len ||
        memcmp(sum->hostname, c->host, c->host_len) != 0)
        return 0;
    for (size_t i = 0; rc == 0 && i < f->npools; i++) {
        int known = 1;
        rc = note_pool(c, f->pools[i], f->lens[i], &known);
        if (rc == 0 && !known)
            rc = write_rec(c, "POOL", sum->first_mono, sum->first_real, f->pools[i], f->lens[i],
                           1, note, sizeof note - 1);
    }
    return rc;
}

/* One LOG through the cutter.  0, 1 it could not be read (said), -1 stop. */
static int cut_file(cutter *c, seek *sk, size_t i, const char *path)
{
    char why[256];
    fpmlog_reader *r = fpmlog_reader_open(path, why, sizeof why);
    if (!r) {
        msg_warnx("%s: could not open: %s", path, why);
        return 1;
    }
    if (sk)
        fpmlog_reader_set_skip(r, seek_skip, seek_file(sk, i));
    fpmlog_record rec;
    fpmlog_damage dmg;
    int ret, rc = 0;
    while (rc == 0 && (ret = fpmlog_reader_next(r, &rec, &dmg)) != 0) {
        if (ret == -2) {
            msg_damage(path, dmg.pos.offset, dmg.pos.compressed, dmg.pos.in_frame, dmg.what);
            rc = 1;
        } else if (ret == -1) {
            msg_damage(path, dmg.pos.offset, dmg.pos.compressed, dmg.pos.in_frame, dmg.what);
            if (dmg.breaks_round)
                drop_round(c);
        } else if (ret == 2) {
            /* what was held is not next to what follows the jump */
            if (drop_all(c) || seek_jumped(sk, i, rec.pos.offset, rec.len, jump_record, jump_done, c))
                rc = FPM_EFAIL;
        } else if (take(c, &rec) != 0) {
            rc = FPM_EFAIL;
        }
    }
    fpmlog_reader_free(r);
    /* a file's unfinished round is dropped by its readers; the rounds held
     * to prime a window stay held: the next LOG goes on from them */
    drop_round(c);
    c->cur = c->nh;
    return rc == 0 && settle(c) ? -1 : rc;
}

/* OUT.tmp, new, mode 0600; -1 (said) when OUT exists or it cannot be made. */
static int open_out(const char *out, char *tmp, size_t tmplen)
{
    struct stat sb;
    if (lstat(out, &sb) == 0) {
        msg_warnx("%s: exists: cut writes only a new file, nothing written", out);
        return FPM_EFAIL;
    }
    snprintf(tmp, tmplen, "%s.tmp", out);
    int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600); /* read back: its index */
    if (fd < 0)
        msg_warn("%s: could not create", tmp);
    return fd;
}

int cut_logs(const config *cfg, const pl_options *opt)
{
    char tmp[4096];
    int fd = open_out(cfg->output, tmp, sizeof tmp);
    if (fd < 0)
        return 2;
    seek *sk = window_plan(opt, cfg->logs, cfg->nlogs);
    cutter c = {.cfg = cfg, .opt = opt, .w = fpmlog_writer_new(fd, 3)};
    int rc = c.w ? 0 : -1, unreadable = 0;
    for (int i = 0; rc == 0 && i < cfg->nlogs; i++) {
        int f = cut_file(&c, sk, (size_t)i, cfg->logs[i]);
        unreadable += f == 1;
        rc = f < 0 ? FPM_EFAIL : 0;
    }
    if (rc == 0 && drop_all(&c) != 0) /* the rounds held to prime a window that never came */
        rc = FPM_EFAIL;
    if (rc == 0 && fpmlog_writer_end_frame(c.w) != 0) {
        c.err = errno;
        rc = FPM_EFAIL;
    }
    /* the index a window finds its frames by (fpmlog(5), "The index") */
    int ix = rc == 0 ? fpmidx_append(fd, 0) : 0;
    if (ix == FPM_ENOMEM || ix == -1) {
        c.err = ix == -1 ? errno : ENOMEM;
        rc = FPM_EFAIL;
    }
    if (rc == 0 && fsync(fd) != 0) {
        c.err = errno;
        rc = FPM_EFAIL;
    }
    if (close(fd) != 0 && rc == 0) {
        c.err = errno;
        rc = FPM_EFAIL;
    }
    if (rc == 0 && link(tmp, cfg->output) != 0) {
        c.err = errno;
        rc = FPM_EFAIL;
    }
    unlink(tmp);
    if (rc != 0) {
        errno = c.err ? c.err : ENOMEM;
        msg_warn("%s: nothing written", cfg->output);
    } else if (!cfg->quiet) {
        struct stat sb;
        msg_warnx("cut: %llu rounds (%llu in the window) to %s, %lld bytes%s",
                  (unsigned long long)c.rounds, (unsigned long long)c.in_window, cfg->output,
                  stat(cfg->output, &sb) == 0 ? (long long)sb.st_size : -1LL,
                  unreadable ? "; some LOGs could not be read" : "");
    }
    fpmlog_writer_free(c.w);
    seek_free(sk);
    free(c.blob);
    free(c.h);
    namemap_free(&c.known);
    for (size_t i = 0; i < c.nkeys; i++)
        free(c.keys[i]);
    free(c.keys);
    return rc != 0 ? 2 : unreadable ? 2 : 0;
}
