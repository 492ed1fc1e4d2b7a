/*
 * pending: the records of the round being read, gathered until its ROUND
 * closes it (docs/rules.md section 1): the host's by kind and each pool's,
 * their payloads copied one after the other into one blob (the applier
 * takes the blob whole and gives one back).  replay.c's.
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

/* A payload of the round: where it is in the round's blob. */
typedef struct {
    size_t at, len;
} span;

typedef struct {
    bytes name;
    span  status, pids, listen, sched, statm;
    int   has_status, is_error, has_pids, has_listen, has_sched, has_statm;
} pend_pool;

typedef struct {
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
 * stands); 0 ok, FPM_ENOMEM. */
int pend_gather(pending *p, rec_kind k, const fpmlog_record *rec);

/* The round gathered, as the pipeline takes it (pointing into p's blob),
 * closed by a ROUND at real. */
pl_round pend_round(pending *p, uint64_t real);

#endif
