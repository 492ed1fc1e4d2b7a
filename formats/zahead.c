/* zstd frames decoded ahead on threads (zahead.h says what and why). */
#define _POSIX_C_SOURCE 200809L
#include "zahead.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "zframe.h"

#define BLOCK_MAX  (128u << 10)          /* zstd's largest block, decoded */
#define MAX_CHUNKS (ZA_MAX_AHEAD / ZA_CHUNK)
#define FIRST_READ (128u << 10)

typedef struct chunk {
    struct chunk *next;
    size_t len;
    unsigned char data[ZA_CHUNK];
} chunk;

enum fstate { F_DECODING, F_DONE, F_BROKEN };

/* A frame ahead: decoded (or being decoded) by one decoder. */
typedef struct {
    uint64_t off, size;
    enum fstate state;
    chunk *head, *tail;
    unsigned nchunks;
    const char *why;
} frame;

typedef struct {
    zahead *z;
    pthread_t tid;
    ZSTD_DCtx *dctx;
    unsigned char *cbuf;  /* the compressed frame */
    size_t ccap;
} decoder;

/*
 * The ring holds the frames ahead in file order, ring[first] the one the
 * reader is at.  One decoder at a time scouts: it sizes the frame at
 * next_off outside the lock, then appends it and decodes it.  A restart
 * (the reader went somewhere else) bumps gen; decoders drop work of an old
 * gen, and the restart waits until none is busy before emptying the ring.
 */
struct zahead {
    int fd;
    uint64_t base;         /* fd's offset of the reader's offset 0 */
    pthread_mutex_t mu;
    pthread_cond_t work;   /* decoders: a frame to scout, room, a restart, quit */
    pthread_cond_t ready;  /* reader: bytes, a frame's end, the scout's verdict, idle */
    frame ring[ZA_MAX_DECODERS + 1];
    unsigned nslots, first, count;
    uint64_t gen, next_off;
    int started, scouting, stopped, quit;
    unsigned busy, chunks_out;
    unsigned room_waiters; /* decoders of frames ahead waiting for room */
    unsigned head_waits;   /* the decoder of the reader's frame waits for room */
    int reader_waits;      /* the reader waits for the frame it is at */
    chunk *spare;
    int ndec;
    decoder dec[ZA_MAX_DECODERS];
    chunk *cur;            /* the reader's chunk, and how far it has read it */
    size_t cur_pos;
};

static chunk *get_chunk(zahead *z)
{
    chunk *c = z->spare;
    if (c)
        z->spare = c->next;
    else if (!(c = malloc(sizeof *c)))
        return NULL;
    c->next = NULL;
    c->len = 0;
    z->chunks_out++;
    return c;
}

static void put_chunk(zahead *z, chunk *c)
{
    c->next = z->spare;
    z->spare = c;
    z->chunks_out--;
}

/* Every chunk of the frames ahead and the reader's back to spare, the
 * ring emptied (the decoders are idle or gone). */
static void drop_all(zahead *z)
{
    for (unsigned i = 0; i < z->count; i++) {
        frame *f = &z->ring[(z->first + i) % z->nslots];
        while (f->head) {
            chunk *c = f->head;
            f->head = c->next;
            put_chunk(z, c);
        }
        f->tail = NULL;
        f->nchunks = 0;
    }
    if (z->cur)
        put_chunk(z, z->cur);
    z->cur = NULL;
    z->first = z->count = 0;
}

/* What is at off: 1 a zstd frame of *size bytes (in d->cbuf), 2 a
 * skippable frame of *size bytes, 0 anything else (cut short, broken, too
 * large, not a frame, the end of the file). */
static int size_frame(zahead *z, decoder *d, uint64_t off, uint64_t *size)
{
    size_t have = 0, want = FIRST_READ;
    for (;;) {
        if (d->ccap < want) {
            unsigned char *nb = realloc(d->cbuf, want);
            if (!nb)
                return 0;
            d->cbuf = nb;
            d->ccap = want;
        }
        have += zf_pread_all(z->fd, d->cbuf + have, want - have, z->base + off + have);
        if (have >= 4 && zf_is_skippable(d->cbuf)) {
            if (have < 8)
                return 0;
            *size = zf_skippable_size(d->cbuf);
            return 2;
        }
        if (have < 4 || !zf_is_frame(d->cbuf))
            return 0;
        size_t s = ZSTD_findFrameCompressedSize(d->cbuf, have);
        if (!ZSTD_isError(s)) {
            *size = s;
            return 1;
        }
        if (have < want || want == ZA_MAX_FRAME)
            return 0; /* the end of the file, or too large */
        want = want * 2 > ZA_MAX_FRAME ? ZA_MAX_FRAME : want * 2;
    }
}

static int is_head(const zahead *z, const frame *f)
{
    return f == &z->ring[z->first];
}

/* Room for one more chunk of f: the frame the reader is at may always hold
 * HEAD_CHUNKS; the others share MAX_CHUNKS.  A waiting decoder is woken
 * only when the reader has taken a few (each wake-up costs a context
 * switch): the reader's frame's at HEAD_CHUNKS / 2 left, the others' at
 * MAX_CHUNKS / 2 used. */
#define HEAD_CHUNKS 4u
static int room_for(const zahead *z, const frame *f)
{
    return (is_head(z, f) && f->nchunks < HEAD_CHUNKS) || z->chunks_out < MAX_CHUNKS;
}

static void publish(zahead *z, frame *f, chunk *c)
{
    if (c->len == 0) {
        put_chunk(z, c);
        return;
    }
    if (f->tail)
        f->tail->next = c;
    else
        f->head = c;
    f->tail = c;
    f->nchunks++;
    if (is_head(z, f) && z->reader_waits)
        pthread_cond_broadcast(&z->ready);
}

/* The reader took or freed a chunk: wake the decoders when there is room
 * enough. */
static void room_made(zahead *z)
{
    if ((z->head_waits && z->ring[z->first].nchunks <= HEAD_CHUNKS / 2) ||
        (z->room_waiters && z->chunks_out <= MAX_CHUNKS / 2))
        pthread_cond_broadcast(&z->work);
}

/* Decodes f from d->cbuf as the reader would: one block per call, with
 * room for a whole block.  Called and returns with the lock held. */
static void decode_frame(zahead *z, decoder *d, frame *f, uint64_t gen)
{
    ZSTD_DCtx_reset(d->dctx, ZSTD_reset_session_only);
    size_t pos = 0, hint = 5;
    chunk *c = NULL;
    const char *why = NULL;
    for (;;) {
        if (!c || ZA_CHUNK - c->len < BLOCK_MAX) {
            if (c)
                publish(z, f, c);
            c = NULL;
            while (gen == z->gen && !z->quit && !room_for(z, f)) {
                unsigned *waits = is_head(z, f) ? &z->head_waits : &z->room_waiters;
                ++*waits;
                pthread_cond_wait(&z->work, &z->mu);
                --*waits;
            }
            if (gen != z->gen || z->quit)
                return; /* the restart drops f */
            if (!(c = get_chunk(z))) {
                why = "out of memory";
                break;
            }
        }
        pthread_mutex_unlock(&z->mu);
        size_t want = hint > 3 ? hint - 3 : hint, give = (size_t)f->size - pos;
        if (give > want)
            give = want;
        ZSTD_inBuffer in = {d->cbuf, pos + give, pos};
        ZSTD_outBuffer out = {c->data + c->len, ZA_CHUNK - c->len, 0};
        size_t ret = give ? ZSTD_decompressStream(d->dctx, &out, &in) : 1;
        c->len += out.pos;
        pos = in.pos;
        pthread_mutex_lock(&z->mu);
        if (gen != z->gen || z->quit) {
            put_chunk(z, c);
            return;
        }
        if (ZSTD_isError(ret)) {
            why = ZSTD_getErrorName(ret);
            break;
        }
        if (ret == 0)
            break;
        if (!give) { /* sized as shorter than its blocks: cannot happen */
            why = "frame shorter than its blocks";
            break;
        }
        hint = ret;
    }
    if (c)
        publish(z, f, c);
    f->state = why ? F_BROKEN : F_DONE;
    f->why = why;
    pthread_cond_broadcast(&z->ready);
}

static int can_scout(const zahead *z)
{
    return z->started && !z->scouting && !z->stopped && z->count < z->nslots;
}

static void *decoder_main(void *arg)
{
    decoder *d = arg;
    zahead *z = d->z;
    pthread_mutex_lock(&z->mu);
    for (;;) {
        while (!z->quit && !can_scout(z))
            pthread_cond_wait(&z->work, &z->mu);
        if (z->quit)
            break;
        uint64_t gen = z->gen, off = z->next_off, size = 0;
        z->scouting = 1;
        z->busy++;
        pthread_mutex_unlock(&z->mu);
        int kind = size_frame(z, d, off, &size);
        pthread_mutex_lock(&z->mu);
        z->scouting = 0;
        if (gen == z->gen && kind == 1) {
            frame *f = &z->ring[(z->first + z->count++) % z->nslots];
            *f = (frame){off, size, F_DECODING, NULL, NULL, 0, NULL};
            z->next_off = off + size;
            pthread_cond_broadcast(&z->work); /* the next decoder may scout */
            pthread_cond_broadcast(&z->ready);
            decode_frame(z, d, f, gen);
        } else if (gen == z->gen && kind == 2) {
            z->next_off = off + size;
        } else if (gen == z->gen) {
            z->stopped = 1;
        }
        z->busy--;
        pthread_cond_broadcast(&z->ready);
    }
    pthread_mutex_unlock(&z->mu);
    return NULL;
}

zahead *zahead_new(int fd, uint64_t base, int decoders)
{
    if (decoders < 1)
        decoders = 1;
    if (decoders > ZA_MAX_DECODERS)
        decoders = ZA_MAX_DECODERS;
    zahead *z = calloc(1, sizeof *z);
    if (!z)
        return NULL;
    z->fd = fd;
    z->base = base;
    z->nslots = (unsigned)decoders + 1;
    pthread_mutex_init(&z->mu, NULL);
    pthread_cond_init(&z->work, NULL);
    pthread_cond_init(&z->ready, NULL);
    for (int i = 0; i < decoders; i++) {
        decoder *d = &z->dec[i];
        d->z = z;
        if (!(d->dctx = ZSTD_createDCtx()) || pthread_create(&d->tid, NULL, decoder_main, d)) {
            ZSTD_freeDCtx(d->dctx);
            zahead_free(z);
            return NULL;
        }
        z->ndec++;
    }
    return z;
}

/* Drops everything ahead and starts again from off.  Lock held.  No
 * decoder may scout while the busy ones finish: one that finished its frame
 * would otherwise scout the next of the old offsets in the new generation,
 * fill the ring and wait for room that never comes, and this wait for it
 * would never end (a hang of readlog with 2 decoders, make bench). */
static void restart(zahead *z, uint64_t off)
{
    z->gen++;
    z->started = 0;
    pthread_cond_broadcast(&z->work);
    while (z->busy)
        pthread_cond_wait(&z->ready, &z->mu);
    drop_all(z);
    z->next_off = off;
    z->stopped = 0;
    z->started = 1;
    pthread_cond_broadcast(&z->work);
}

int zahead_take(zahead *z, uint64_t off, uint64_t *size)
{
    pthread_mutex_lock(&z->mu);
    int ret;
    for (;;) {
        if (z->started && z->count > 0 && z->ring[z->first].off == off) {
            *size = z->ring[z->first].size;
            ret = 1;
            break;
        }
        if (z->started && z->count == 0 && z->next_off == off) {
            if (z->stopped) {
                ret = 0;
                break;
            }
            pthread_cond_wait(&z->ready, &z->mu); /* the scout is on its way */
            continue;
        }
        restart(z, off);
    }
    pthread_mutex_unlock(&z->mu);
    return ret;
}

ssize_t zahead_read(zahead *z, void *dst, size_t cap, const char **why)
{
    if (!z->cur) {
        pthread_mutex_lock(&z->mu);
        frame *f = &z->ring[z->first];
        while (!f->head && f->state == F_DECODING) {
            z->reader_waits = 1;
            pthread_cond_wait(&z->ready, &z->mu);
            z->reader_waits = 0;
        }
        if (!f->head) {
            int broken = f->state == F_BROKEN;
            *why = f->why;
            z->first = (z->first + 1) % z->nslots;
            z->count--;
            pthread_cond_broadcast(&z->work); /* a slot for the scout */
            pthread_mutex_unlock(&z->mu);
            return broken ? -1 : 0;
        }
        z->cur = f->head;
        if (!(f->head = z->cur->next))
            f->tail = NULL;
        f->nchunks--;
        z->cur_pos = 0;
        room_made(z);
        pthread_mutex_unlock(&z->mu);
    }
    size_t n = z->cur->len - z->cur_pos;
    if (n > cap)
        n = cap;
    memcpy(dst, z->cur->data + z->cur_pos, n);
    z->cur_pos += n;
    if (z->cur_pos == z->cur->len) {
        pthread_mutex_lock(&z->mu);
        put_chunk(z, z->cur);
        z->cur = NULL;
        room_made(z);
        pthread_mutex_unlock(&z->mu);
    }
    return (ssize_t)n;
}

void zahead_free(zahead *z)
{
    if (!z)
        return;
    pthread_mutex_lock(&z->mu);
    z->quit = 1;
    z->gen++;
    pthread_cond_broadcast(&z->work);
    pthread_mutex_unlock(&z->mu);
    for (int i = 0; i < z->ndec; i++)
        pthread_join(z->dec[i].tid, NULL);
    drop_all(z);
    while (z->spare) {
        chunk *c = z->spare;
        z->spare = c->next;
        free(c);
    }
    for (int i = 0; i < z->ndec; i++) {
        ZSTD_freeDCtx(z->dec[i].dctx);
        free(z->dec[i].cbuf);
    }
    pthread_cond_destroy(&z->work);
    pthread_cond_destroy(&z->ready);
    pthread_mutex_destroy(&z->mu);
    free(z);
}
