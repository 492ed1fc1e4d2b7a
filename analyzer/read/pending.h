/*
 * pending: the records of the round being read, gathered until its ROUND
 * closes it (docs/rules.md section 1): the host's by kind and each pool's.
 * Their payloads stay where the reader decoded them (it holds them from the
 * round's first: no copy); with threads, pend_take gives the reader's
 * buffer to the round and the applier takes it whole, giving one back.  A
 * payload from elsewhere is copied into the blob.  replay.c's.
 */
#ifndef PENDING_H
#define PENDING_H

#include <stddef.h>
#include <stdint.h>

#include "fpmlog.h"
#include "namemap.h"
#include "records.h"
#include "round.h"

/* A copy of a payload; the memory is kept from round to round. */
typedef struct {
    unsigned char *p;
    size_t         len, cap;
} bytes;

/* A payload of the round: its offset in the reader's stream (held), or
 * in the round's blob (a copy); an empty one is neither. */
enum { SPAN_COPY, SPAN_HELD, SPAN_EMPTY };
typedef struct {
    uint64_t at;
    size_t   len;
    int      held;
} span;

/* A pool's records of the round, by their row of PL_POOL_RECORDS. */
typedef struct {
    bytes name;
    span  rec[PL_NPREC];
    int   has[PL_NPREC];
    int   is_error;
} pend_pool;

typedef struct {
    fpmlog_reader *rd;           /* the reader the records come from, or NULL */
    size_t         copies;       /* payloads copied into blob this round */
    int            taken;        /* blob is the reader's buffer: its first byte at base */
    uint64_t       base;
    int            any;          /* a record was gathered */
    int            has[PL_NREC];  /* the host's records of the round, by kind */
    uint64_t       stat_mono;
    bytes          blob;         /* the round's payloads, one after the other */
    span           host[PL_NREC];
    pend_pool     *pools;        /* n in this round; up to cap keep their memory */
    size_t         n, cap;
    namemap        index;        /* name -> index in pools, this round's */
    pl_pool_round *rp;
} pending;

/* Forgets the round gathered so far; the buffers stay for the next. */
void pend_drop(pending *p);
void pend_free(pending *p);

/* Gathers a record of a round (where a kind appears twice, the later one
 * stands, or for a pool's kind that keeps all, both, one after the other);
 * 0 ok, FPM_ENOMEM. */
int pend_gather(pending *p, rec_kind k, const fpmlog_record *rec);

/* The payloads held by the reader made the blob's (the round's bytes, to
 * be handed over with it): the reader's buffer taken, or, when some
 * payloads were copies, the held ones copied after them.  0, or
 * FPM_ENOMEM. */
int pend_take(pending *p);

/* The round gathered, as the pipeline takes it (pointing into the reader's
 * bytes or p's blob, valid until the next record is read or pend_drop),
 * closed by a ROUND at real and mono. */
pl_round pend_round(pending *p, uint64_t real, uint64_t mono);

#endif
