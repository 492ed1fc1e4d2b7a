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
    pp->has_status = pp->is_error = pp->has_pids = pp->has_listen = pp->has_sched =
        pp->has_statm = 0;
    p->n++;
    return pp;
}

/* Gathers a record of a round (where a kind appears twice, the later one
 * stands); 0 ok, FPM_ENOMEM. */
int pend_gather(pending *p, rec_kind k, const fpmlog_record *rec)
{
    int hr = pl_host_rec_kind(k.type, rec->source);
    if (hr >= 0) {
        if (hr == PL_REC_STAT)
            p->stat_mono = rec->mono;
        p->any = p->has[hr] = 1;
        p->host[hr].len = rec->len;
        return append(&p->blob, rec->payload, rec->len, &p->host[hr].at);
    }
    if ((k.type != REC_STATUS && k.type != REC_ERROR && k.type != REC_PIDS &&
         k.type != REC_LISTEN && k.type != REC_SCHED && k.type != REC_STATM) ||
        !rec->has_source)
        return 0; /* read by no rule yet */
    pend_pool *pp = pend_pool_get(p, rec);
    if (!pp)
        return FPM_ENOMEM;
    p->any = 1;
    if (k.type == REC_PIDS) {
        pp->has_pids = 1;
        pp->pids.len = rec->len;
        return append(&p->blob, rec->payload, rec->len, &pp->pids.at);
    }
    if (k.type == REC_SCHED) {
        pp->has_sched = 1;
        pp->sched.len = rec->len;
        return append(&p->blob, rec->payload, rec->len, &pp->sched.at);
    }
    if (k.type == REC_STATM) {
        pp->has_statm = 1;
        pp->statm.len = rec->len;
        return append(&p->blob, rec->payload, rec->len, &pp->statm.at);
    }
    if (k.type == REC_LISTEN) {
        pp->has_listen = 1;
        pp->listen.len = rec->len;
        return append(&p->blob, rec->payload, rec->len, &pp->listen.at);
    }
    pp->has_status = 1;
    pp->is_error = k.type == REC_ERROR;
    pp->status.len = rec->len;
    return append(&p->blob, rec->payload, rec->len, &pp->status.at);
}

pl_round pend_round(pending *p, uint64_t real)
{
    pl_round r = {0};
    r.real = real;
    const unsigned char *b = p->blob.p;
    r.stat_mono = p->stat_mono;
    for (int k = 0; k < PL_NREC; k++)
        r.rec[k] = (pl_host_rec){p->has[k], p->has[k] ? b + p->host[k].at : NULL,
                                 p->host[k].len};
    for (size_t i = 0; i < p->n; i++) {
        pend_pool *pp = &p->pools[i];
        p->rp[i] = pl_pool_round_of((const char *)pp->name.p, pp->name.len,
                                    pp->has_status ? b + pp->status.at : NULL, pp->status.len,
                                    pp->is_error, pp->has_pids ? b + pp->pids.at : NULL,
                                    pp->pids.len);
        if (pp->has_listen) {
            p->rp[i].has_listen = 1;
            p->rp[i].listen = b + pp->listen.at;
            p->rp[i].listen_len = pp->listen.len;
        }
        if (pp->has_sched) {
            p->rp[i].has_sched = 1;
            p->rp[i].sched = b + pp->sched.at;
            p->rp[i].sched_len = pp->sched.len;
        }
        if (pp->has_statm) {
            p->rp[i].has_statm = 1;
            p->rp[i].statm = b + pp->statm.at;
            p->rp[i].statm_len = pp->statm.len;
        }
    }
    r.pools = p->rp;
    r.npools = p->n;
    return r;
}
