/*
 * round: what a reader hands the pipeline, a complete round of one host: its
 * host records by kind and each pool's records, raw or parsed already
 * (docs/design.md, "The analyzer").  Nothing here holds state.
 */
#ifndef ROUND_H
#define ROUND_H

#include <stddef.h>
#include <stdint.h>

#include "procfs.h"
#include "records.h"
#include "status.h"

/* A worker of a PIDS record: pid, ppid, CPU ticks, start time. */
typedef procfs_proc pl_tick;

/* A pool's records of a round, one row each, as PostgreSQL's rmgrlist.h
 * lists its resource managers: the gathering (analyzer/read/pending.c), the
 * copying for threads and the hand-over to the pipeline all read this list,
 * so a new kind of a pool's record is one row here.  X(TYPE, NAME, ALL):
 * the record's type; pl_pool_round's has_NAME, NAME and NAME_len; and what
 * two of them in one round (a damaged ROUND merged two rounds, fpmlog(5))
 * give: 0, the later one stands (a snapshot); 1, both, one after the other
 * in file order (ACCESS: what the access log gained).  STATUS and ERROR
 * share the row of status (is_error says which). */
#define PL_POOL_RECORDS(X)          \
    X(REC_STATUS, status, 0)        \
    X(REC_PIDS,   pids,   0)        \
    X(REC_LISTEN, listen, 0)        \
    X(REC_SCHED,  sched,  0)        \
    X(REC_STATM,  statm,  0)        \
    X(REC_STATM0, statm0, 0)        \
    X(REC_ACCESS, access, 1)

enum {
#define PL_PREC_ENUM(type, name, all) PL_PREC_##name,
    PL_POOL_RECORDS(PL_PREC_ENUM)
#undef PL_PREC_ENUM
    PL_NPREC
};

/* One pool's records in a round, as read: has_NAME, NAME and NAME_len
 * for each row of PL_POOL_RECORDS (STATM0: statm read just before the page,
 * 14.1; ACCESS: the lines its access log gained, section 20).  A caller
 * that parsed them already (on other threads) gives page and ticks; else
 * they are parsed here. */
typedef struct {
    const char          *name;
    size_t               name_len;
    int                  is_error;  /* the status row is an ERROR record */
#define PL_PREC_FIELDS(type, name, all) \
    int has_##name;                     \
    const unsigned char *name;          \
    size_t name##_len;
    PL_POOL_RECORDS(PL_PREC_FIELDS)
#undef PL_PREC_FIELDS
    const status_page   *page;      /* the STATUS parsed, or NULL */
    int                  page_rc;   /* with page: status_parse's result */
    const pl_tick       *ticks;     /* the PIDS parsed, or NULL */
    size_t               nticks;
} pl_pool_round;

/* A pool's records in a round, as read (NULL for a record it did not
 * have): the one constructor, for replay and the tests. */
pl_pool_round pl_pool_round_of(const char *name, size_t name_len, const unsigned char *status,
                               size_t status_len, int is_error, const unsigned char *pids,
                               size_t pids_len);

/* A PIDS payload's workers into *out (grown as needed, *cap its room);
 * how many.  FPM_ENOMEM. */
long pl_parse_ticks(const unsigned char *pids, size_t len, pl_tick **out, size_t *cap);

/* The host's records of a round, by kind: STAT, CGROUP cpu.stat, CGROUP
 * cpuacct.usage (cgroup v1), CGROUP cpu.pressure, PRESSURE, STEAL, MASTER,
 * MEMINFO, CGROUP memory.stat.  A new kind is an entry here and in
 * pl_host_rec_kind; the signals and the pairs read them by kind. */
enum { PL_REC_STAT, PL_REC_CPU_STAT, PL_REC_CPUACCT, PL_REC_CPU_PRESSURE, PL_REC_PRESSURE,
       PL_REC_STEAL, PL_REC_MASTER, PL_REC_MEMINFO, PL_REC_MEM_STAT, PL_NREC };

typedef struct {
    int                  has;
    const unsigned char *p;
    size_t               len;
} pl_host_rec;

/* The kind of a host record of a round (its type and SOURCE), or -1 when
 * no rule reads it. */
int pl_host_rec_kind(rec_type type, const char *source);

/* A complete round. */
typedef struct pl_round_s {
    uint64_t             real;      /* REAL of its ROUND record ... */
    uint64_t             mono;      /* ... and its MONO (20.6's requests_per_s) */
    uint64_t             stat_mono; /* MONO of its STAT */
    pl_host_rec          rec[PL_NREC];
    pl_pool_round       *pools;
    size_t               npools;
} pl_round;

#endif
