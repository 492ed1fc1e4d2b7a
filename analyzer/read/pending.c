/* A round's records gathered until its ROUND (pending.h). */
#include "pending.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "rc.h"

/* Appends n bytes at src (and a NUL) to the blob; their offset in *at.
 * 0, or FPM_ENOMEM. */
static int append(bytes *b, const void *src, size_t n, size_t *at)
{
    return grow_append(&b->p, &b->cap, &b->len, src, n, at);
}

/* Replaces the copy by n bytes at src (and a NUL after them): a pool's
 * name, so its room starts small, not at a round blob's 64 KiB. */
static int keep(bytes *b, const void *src, size_t n)
{
    if (grow(&b->p, &b->cap, n + 1, 1, 64))
        return FPM_ENOMEM;
    memcpy(b->p, src, n);
    b->p[n] = '\0';
    b->len = n;
    return 0;
}

/* Forgets the round gathered so far; the buffers stay for the next. */
void pend_drop(pending *p)
{
    if (p->rd)
        fpmlog_reader_release(p->rd);
    p->copies = 0;
    p->taken = 0;
    p->n = 0;
    namemap_clear(&p->index);
    p->any = 0;
    memset(p->has, 0, sizeof p->has);
    p->blob.len = 0;
}

void pend_free(pending *p)
{
    for (size_t i = 0; i < p->cap; i++)
        free(p->pools[i].name.p);
    free(p->blob.p);
    free(p->pools);
    free(p->rp);
    namemap_free(&p->index);
}

static pend_pool *pend_pool_get(pending *p, const fpmlog_record *rec)
{
    uintptr_t at;
    if (namemap_get(&p->index, rec->source, rec->source_len, &at))
        return &p->pools[at];
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 8;
        pend_pool *np = realloc(p->pools, cap * sizeof *np);
        if (!np)
            return NULL;
        memset(np + p->cap, 0, (cap - p->cap) * sizeof *np);
        p->pools = np;
        pl_pool_round *nr = realloc(p->rp, cap * sizeof *nr);
        if (!nr)
            return NULL;
        p->rp = nr;
        p->cap = cap;
    }
    pend_pool *pp = &p->pools[p->n];
    if (keep(&pp->name, rec->source, rec->source_len) != 0 ||
        namemap_put(&p->index, (const char *)pp->name.p, pp->name.len, p->n) != 0)
        return NULL;
    memset(pp->has, 0, sizeof pp->has);
    pp->is_error = 0;
    p->n++;
    return pp;
}

/* Where rec's payload is: held by the reader where it was decoded, else a
 * copy in the blob.  0, or FPM_ENOMEM. */
static int place(pending *p, const fpmlog_record *rec, span *s)
{
    s->len = rec->len;
    if (rec->len == 0) {
        s->held = SPAN_EMPTY;
        return 0;
    }
    if (p->rd && fpmlog_reader_holds(p->rd, rec->payload)) {
        fpmlog_reader_hold(p->rd, rec->payload);
        s->held = SPAN_HELD;
        s->at = fpmlog_reader_offset(p->rd, rec->payload);
        return 0;
    }
    size_t at = 0;
    s->held = SPAN_COPY;
    p->copies++;
    int rc = append(&p->blob, rec->payload, rec->len, &at);
    s->at = at;
    return rc;
}

/* Where a payload's bytes are now. */
static const unsigned char *where(const pending *p, const span *s)
{
    if (s->held == SPAN_EMPTY)
        return (const unsigned char *)"";
    if (s->held == SPAN_COPY)
        return p->blob.p + s->at;
    return p->taken ? p->blob.p + (s->at - p->base) : fpmlog_reader_at(p->rd, s->at);
}

/* A pool's kind that keeps all (ACCESS) met twice in one round: s becomes
 * a copy of its bytes and rec's after them.  0, or FPM_ENOMEM. */
static int join(pending *p, const fpmlog_record *rec, span *s)
{
    bytes *b = &p->blob;
    if (rec->len > SIZE_MAX - 1 - s->len - b->len ||
        grow(&b->p, &b->cap, b->len + s->len + rec->len + 1, 1, 65536))
        return FPM_ENOMEM;
    size_t at = b->len;
    if (s->len)
        memmove(b->p + at, where(p, s), s->len); /* after the grow: it may be in the blob */
    if (rec->len)
        memcpy(b->p + at + s->len, rec->payload, rec->len);
    b->p[at + s->len + rec->len] = '\0';
    b->len += s->len + rec->len + 1;
    p->copies++;
    *s = (span){at, s->len + rec->len, SPAN_COPY};
    return 0;
}

/* The row of PL_POOL_RECORDS a record type is gathered in, and whether it
 * keeps all; -1 for a type no rule reads. */
static int pool_row(rec_type t, int *all)
{
    switch (t) {
#define PL_PREC_CASE(type, name, keeps_all) \
    case type:                              \
        *all = keeps_all;                   \
        return PL_PREC_##name;
    PL_POOL_RECORDS(PL_PREC_CASE)
#undef PL_PREC_CASE
    case REC_ERROR:
        *all = 0;
        return PL_PREC_status;
    default:
        return -1;
    }
}

/* Gathers a record of a round (where a kind appears twice, the later one
 * stands, or both for a pool's kind that keeps all); 0 ok, FPM_ENOMEM. */
int pend_gather(pending *p, rec_kind k, const fpmlog_record *rec)
{
    int hr = pl_host_rec_kind(k.type, rec->source);
    if (hr >= 0) {
        if (hr == PL_REC_STAT)
            p->stat_mono = rec->mono;
        p->any = p->has[hr] = 1;
        return place(p, rec, &p->host[hr]);
    }
    int all, row = pool_row(k.type, &all);
    if (row < 0 || !rec->has_source)
        return 0; /* read by no rule yet */
    pend_pool *pp = pend_pool_get(p, rec);
    if (!pp)
        return FPM_ENOMEM;
    p->any = 1;
    if (row == PL_PREC_status)
        pp->is_error = k.type == REC_ERROR;
    if (pp->has[row] && all)
        return join(p, rec, &pp->rec[row]);
    pp->has[row] = 1;
    return place(p, rec, &pp->rec[row]);
}

/* Every span of the round, for f. */
static int each_span(pending *p, int (*f)(pending *, span *))
{
    int rc = 0;
    for (int k = 0; k < PL_NREC; k++)
        if (p->has[k] && !rc)
            rc = f(p, &p->host[k]);
    for (size_t i = 0; i < p->n && !rc; i++)
        for (int k = 0; k < PL_NPREC && !rc; k++)
            if (p->pools[i].has[k])
                rc = f(p, &p->pools[i].rec[k]);
    return rc;
}

/* A held payload copied into the blob. */
static int copy_held(pending *p, span *s)
{
    if (s->held != SPAN_HELD)
        return 0;
    size_t at = 0;
    if (append(&p->blob, fpmlog_reader_at(p->rd, s->at), s->len, &at))
        return FPM_ENOMEM;
    s->at = at;
    s->held = SPAN_COPY;
    return 0;
}

int pend_take(pending *p)
{
    if (!p->rd || p->taken)
        return 0;
    if (p->copies == 0) {
        if (fpmlog_reader_swap(p->rd, &p->blob.p, &p->blob.cap, &p->base))
            return FPM_ENOMEM;
        p->taken = 1;
        return 0;
    }
    int rc = each_span(p, copy_held);
    fpmlog_reader_release(p->rd);
    return rc;
}

pl_round pend_round(pending *p, uint64_t real, uint64_t mono)
{
    pl_round r = {0};
    r.real = real;
    r.mono = mono;
    r.stat_mono = p->stat_mono;
    for (int k = 0; k < PL_NREC; k++)
        r.rec[k] = (pl_host_rec){p->has[k], p->has[k] ? where(p, &p->host[k]) : NULL,
                                 p->host[k].len};
    for (size_t i = 0; i < p->n; i++) {
        pend_pool *pp = &p->pools[i];
        pl_pool_round *rp = &p->rp[i];
        *rp = (pl_pool_round){.name = (const char *)pp->name.p, .name_len = pp->name.len,
                              .is_error = pp->has[PL_PREC_status] && pp->is_error};
#define PL_PREC_HAND(type, name, all)                                \
        if (pp->has[PL_PREC_##name]) {                               \
            rp->has_##name = 1;                                      \
            rp->name = where(p, &pp->rec[PL_PREC_##name]);           \
            rp->name##_len = pp->rec[PL_PREC_##name].len;            \
        }
        PL_POOL_RECORDS(PL_PREC_HAND)
#undef PL_PREC_HAND
    }
    r.pools = p->rp;
    r.npools = p->n;
    return r;
}
