/* Rounds parsed and applied on threads of their own, in order. */
#include "applier.h"
#include "rc.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

enum { K_HOST, K_POOL, K_ROUND };
#define MAX_PARSERS 5 /* with 2 slots more: a ring of at most 7 rounds in memory */
enum { S_FREE, S_FILLED, S_PARSING, S_READY };

/* One thing handed over: a HOST or POOL copied into blob; a round with its
 * pools' names copied into blob and its payloads in the memory taken from
 * the reader (payloads). */
typedef struct {
    int            kind, state;
    unsigned char *blob;
    size_t         blob_len, blob_cap;
    unsigned char *payloads;   /* a round's payloads, taken from the reader */
    size_t         payloads_cap;
    size_t         name_at, name_len, payload_at, payload_len; /* HOST, POOL */
    pl_round       r;                                          /* a round */
    pl_pool_round *pools;
    size_t        *name_of;    /* per pool: its name's offset in blob */
    size_t         npools, pools_cap;
    status_page   *pages;
    pl_tick      **ticks;
    size_t        *ticks_cap;
    int            nomem;      /* parsing ran out of memory */
} slot;

struct applier {
    pipeline       *pl;
    slot           *ring;
    size_t          k;           /* slots */
    uint64_t        head, tail;  /* next to fill, next to apply */
    pthread_mutex_t m;
    pthread_cond_t  room, work, ready;
    pthread_t      *threads;
    int             nthreads, closing, nomem;
    int             has_host;    /* a HOST the pipeline takes was handed over */
};

/* ------------------------------------------------------------- copying */

/* Appends n bytes to the slot's blob (and a NUL); their offset, or SIZE_MAX
 * on ENOMEM. */
static size_t put(slot *s, const void *p, size_t n)
{
    if (grow(&s->blob, &s->blob_cap, s->blob_len + n + 1, 1, 65536))
        return SIZE_MAX;
    size_t at = s->blob_len;
    if (n)
        memcpy(s->blob + at, p, n);
    s->blob[at + n] = '\0';
    s->blob_len += n + 1;
    return at;
}

static int grow_pools(slot *s, size_t n)
{
    if (n <= s->pools_cap)
        return 0;
    size_t cap = n * 2;
    pl_pool_round *p = realloc(s->pools, cap * sizeof *p);
    if (p)
        s->pools = p;
    size_t *at = p ? realloc(s->name_of, cap * sizeof *at) : NULL;
    if (at)
        s->name_of = at;
    status_page *pg = at ? realloc(s->pages, cap * sizeof *pg) : NULL;
    if (pg) {
        memset(pg + s->pools_cap, 0, (cap - s->pools_cap) * sizeof *pg);
        s->pages = pg;
    }
    pl_tick **t = pg ? realloc(s->ticks, cap * sizeof *t) : NULL;
    if (t) {
        memset(t + s->pools_cap, 0, (cap - s->pools_cap) * sizeof *t);
        s->ticks = t;
    }
    size_t *tc = t ? realloc(s->ticks_cap, cap * sizeof *tc) : NULL;
    if (tc) {
        memset(tc + s->pools_cap, 0, (cap - s->pools_cap) * sizeof *tc);
        s->ticks_cap = tc;
    }
    if (!tc)
        return FPM_ENOMEM;
    s->pools_cap = cap;
    return 0;
}

/* The round into the slot: its pools, their names copied (the reader
 * reuses its own), the payloads where they are.  0, or FPM_ENOMEM. */
static int copy_round(slot *s, const pl_round *r)
{
    s->r = *r;
    if (grow_pools(s, r->npools))
        return FPM_ENOMEM;
    for (size_t i = 0; i < r->npools; i++) {
        s->pools[i] = r->pools[i];
        s->pools[i].page = NULL;
        s->pools[i].ticks = NULL;
        if ((s->name_of[i] = put(s, r->pools[i].name, r->pools[i].name_len)) == SIZE_MAX)
            return FPM_ENOMEM;
    }
    s->npools = r->npools;
    for (size_t i = 0; i < s->npools; i++) /* the blob will not move now */
        s->pools[i].name = (const char *)s->blob + s->name_of[i];
    s->r.pools = s->pools;
    return 0;
}

/* The round's status pages and PIDS parsed (a parse thread's work). */
static void parse_round(slot *s)
{
    for (size_t i = 0; i < s->npools; i++) {
        pl_pool_round *p = &s->pools[i];
        if (p->has_status && !p->is_error) {
            p->page_rc = status_parse(&s->pages[i], (const char *)p->status, p->status_len);
            if (p->page_rc == FPM_ENOMEM)
                s->nomem = 1;
            p->page = &s->pages[i];
        }
        if (p->has_pids) {
            long n = pl_parse_ticks(p->pids, p->pids_len, &s->ticks[i], &s->ticks_cap[i]);
            if (n < 0) {
                s->nomem = 1;
                continue;
            }
            static const pl_tick none[1];
            p->ticks = s->ticks[i] ? s->ticks[i] : none; /* parsed, and empty */
            p->nticks = (size_t)n;
        }
    }
}

/* --------------------------------------------------------------- threads */

/* The oldest slot waiting to be parsed, or NULL. */
static slot *next_filled(applier *a)
{
    for (uint64_t i = a->tail; i < a->head; i++)
        if (a->ring[i % a->k].state == S_FILLED)
            return &a->ring[i % a->k];
    return NULL;
}

static void *parser(void *arg)
{
    applier *a = arg;
    pthread_mutex_lock(&a->m);
    for (;;) {
        slot *s = next_filled(a);
        if (!s) {
            if (a->closing)
                break;
            pthread_cond_wait(&a->work, &a->m);
            continue;
        }
        s->state = S_PARSING;
        pthread_mutex_unlock(&a->m);
        parse_round(s);
        pthread_mutex_lock(&a->m);
        s->state = S_READY;
        pthread_cond_broadcast(&a->ready);
    }
    pthread_mutex_unlock(&a->m);
    return NULL;
}

/* One slot to the pipeline: 0, or FPM_ENOMEM. */
static int apply(applier *a, slot *s)
{
    int rc;
    if (s->kind == K_HOST)
        rc = pipeline_host(a->pl, s->blob + s->payload_at, s->payload_len);
    else if (s->kind == K_POOL)
        rc = pipeline_pool(a->pl, (const char *)s->blob + s->name_at, s->name_len,
                           s->blob + s->payload_at, s->payload_len);
    else
        rc = s->nomem ? FPM_ENOMEM : pipeline_round(a->pl, &s->r);
    return rc == FPM_ENOMEM ? FPM_ENOMEM : 0;
}

static void *applying(void *arg)
{
    applier *a = arg;
    pthread_mutex_lock(&a->m);
    for (;;) {
        if (a->tail == a->head) {
            if (a->closing)
                break;
            pthread_cond_wait(&a->ready, &a->m);
            continue;
        }
        slot *s = &a->ring[a->tail % a->k];
        if (s->state == S_FILLED) { /* no parser took it yet: parse it here */
            s->state = S_PARSING;
            pthread_mutex_unlock(&a->m);
            parse_round(s);
            pthread_mutex_lock(&a->m);
            s->state = S_READY;
        }
        if (s->state != S_READY) {
            pthread_cond_wait(&a->ready, &a->m);
            continue;
        }
        int nomem = a->nomem; /* then what is left is only drained */
        pthread_mutex_unlock(&a->m);
        int rc = nomem ? 0 : apply(a, s);
        pthread_mutex_lock(&a->m);
        if (rc == FPM_ENOMEM)
            a->nomem = 1;
        s->state = S_FREE;
        a->tail++;
        pthread_cond_broadcast(&a->room);
    }
    pthread_mutex_unlock(&a->m);
    return NULL;
}

/* ----------------------------------------------------------- the reader */

/* The next slot to fill, once it is free; NULL when the pipeline ran out
 * of memory. */
static slot *take_slot(applier *a)
{
    pthread_mutex_lock(&a->m);
    slot *s = &a->ring[a->head % a->k];
    while (s->state != S_FREE && !a->nomem)
        pthread_cond_wait(&a->room, &a->m);
    int nomem = a->nomem;
    pthread_mutex_unlock(&a->m);
    if (nomem)
        return NULL;
    s->blob_len = 0;
    s->npools = 0;
    s->nomem = 0;
    return s;
}

static void hand_over(applier *a, slot *s, int state)
{
    pthread_mutex_lock(&a->m);
    s->state = state;
    a->head++;
    pthread_cond_broadcast(state == S_FILLED ? &a->work : &a->ready);
    if (state == S_FILLED)
        pthread_cond_broadcast(&a->ready); /* the apply thread may parse it itself */
    pthread_mutex_unlock(&a->m);
}

/* The reader ran out of memory: the threads only drain from now on: FPM_ENOMEM. */
static int out_of_memory(applier *a)
{
    pthread_mutex_lock(&a->m);
    a->nomem = 1;
    pthread_mutex_unlock(&a->m);
    return FPM_ENOMEM;
}

static int record(applier *a, int kind, const char *name, size_t nl, const unsigned char *p,
                  size_t n)
{
    slot *s = take_slot(a);
    if (!s)
        return FPM_ENOMEM;
    s->kind = kind;
    s->name_len = nl;
    if ((s->name_at = put(s, name, nl)) == SIZE_MAX || (s->payload_at = put(s, p, n)) == SIZE_MAX)
        s->nomem = 1;
    s->payload_len = n;
    if (s->nomem)
        return out_of_memory(a);
    hand_over(a, s, S_READY);
    return 0;
}

/* What the pipeline will answer is answered now, by its own rules: a HOST
 * without a hostname is ignored, and so are POOLs and rounds before the
 * first HOST it takes. */
int applier_host(applier *a, const unsigned char *payload, size_t len)
{
    if (!pipeline_host_named(payload, len))
        return -1;
    a->has_host = 1;
    return record(a, K_HOST, "", 0, payload, len);
}

int applier_pool(applier *a, const char *name, size_t name_len, const unsigned char *payload,
                 size_t len)
{
    return a->has_host ? record(a, K_POOL, name, name_len, payload, len) : -1;
}

int applier_round(applier *a, const pl_round *r, unsigned char **blob, size_t *blob_cap)
{
    if (!a->has_host)
        return -1;
    slot *s = take_slot(a);
    if (!s)
        return FPM_ENOMEM;
    s->kind = K_ROUND;
    unsigned char *b = *blob; /* the payloads stay where they are, in memory the slot now owns */
    size_t cap = *blob_cap;
    *blob = s->payloads;
    *blob_cap = s->payloads_cap;
    s->payloads = b;
    s->payloads_cap = cap;
    if (copy_round(s, r) != 0)
        return out_of_memory(a);
    hand_over(a, s, S_FILLED);
    return 0;
}

int applier_drain(applier *a)
{
    pthread_mutex_lock(&a->m);
    while (a->tail != a->head)
        pthread_cond_wait(&a->room, &a->m);
    int nomem = a->nomem;
    pthread_mutex_unlock(&a->m);
    return nomem ? FPM_ENOMEM : 0;
}

applier *applier_new(pipeline *pl, int parsers)
{
    applier *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->pl = pl;
    if (parsers < 0)
        parsers = 0; /* the apply thread parses what no parse thread took */
    if (parsers > MAX_PARSERS)
        parsers = MAX_PARSERS; /* more would only wait for slots */
    a->k = (size_t)parsers + 2;
    a->ring = calloc(a->k, sizeof *a->ring);
    a->threads = calloc((size_t)parsers + 1, sizeof *a->threads);
    if (!a->ring || !a->threads || pthread_mutex_init(&a->m, NULL) != 0) {
        free(a->ring);
        free(a->threads);
        free(a);
        return NULL;
    }
    pthread_cond_init(&a->room, NULL);
    pthread_cond_init(&a->work, NULL);
    pthread_cond_init(&a->ready, NULL);
    int ok = pthread_create(&a->threads[0], NULL, applying, a) == 0;
    a->nthreads = ok;
    for (int i = 0; ok && i < parsers; i++)
        if (pthread_create(&a->threads[a->nthreads], NULL, parser, a) == 0)
            a->nthreads++;
    if (!ok) {
        applier_free(a);
        return NULL;
    }
    return a;
}

void applier_free(applier *a)
{
    if (!a)
        return;
    if (a->nthreads)
        applier_drain(a);
    pthread_mutex_lock(&a->m);
    a->closing = 1;
    pthread_cond_broadcast(&a->work);
    pthread_cond_broadcast(&a->ready);
    pthread_mutex_unlock(&a->m);
    for (int i = 0; i < a->nthreads; i++)
        pthread_join(a->threads[i], NULL);
    for (size_t i = 0; i < a->k; i++) {
        slot *s = &a->ring[i];
        free(s->blob);
        free(s->payloads);
        free(s->pools);
        free(s->name_of);
        for (size_t p = 0; p < s->pools_cap; p++) {
            status_page_free(&s->pages[p]);
            free(s->ticks[p]);
        }
        free(s->pages);
        free(s->ticks);
        free(s->ticks_cap);
    }
    pthread_cond_destroy(&a->room);
    pthread_cond_destroy(&a->work);
    pthread_cond_destroy(&a->ready);
    pthread_mutex_destroy(&a->m);
    free(a->ring);
    free(a->threads);
    free(a);
}
