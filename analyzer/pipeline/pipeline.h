/*
 * pipeline: replayed records in, per-pool state out (docs/rules.md sections
 * 1, 2, 5, 6 and 9).  HOST and POOL records take effect when given; a complete
 * round is given whole.  It never prints and never reads files: replay.c
 * feeds it, report.c reads the state it leaves.
 */
#ifndef PIPELINE_H
#define PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "rc.h"
#include "round.h"
#include "state.h"

typedef struct {
    const rd_prefixes *own_uri;    /* --own-uri, added to every pool */
    const rt_params   *route_params; /* --route-param (section 19), or NULL */
    int      has_from, has_until;
    uint64_t from_ns, until_ns;    /* REAL window [from, until) */
} pl_options;

typedef struct pipeline pipeline;

/* Seeking (analyzer/read/seek.h): frames of hostname's rounds were jumped over
 * (jump id): rounds rounds, REAL from min_real to max_real.  What they would
 * have changed is unknown until rounds show it again; a round in the window
 * that needs it notes the jump (pipeline_unsettled).  The pools those frames
 * named are made known first with pipeline_skipped_pool.  0, FPM_ENOMEM. */
int pipeline_skipped_pool(pipeline *pl, const char *hostname, size_t hostname_len,
                          const char *name, size_t name_len, uint64_t id);
void pipeline_skipped(pipeline *pl, const char *hostname, size_t hostname_len, uint64_t rounds,
                      uint64_t min_real, uint64_t max_real, uint64_t id);

/* The jumps whose unknowns a round of the window needed (each once, in the
 * order met): more rounds before the window must be read.  (size_t)-1 when
 * memory ran out while noting one: none can be trusted. */
size_t pipeline_unsettled(const pipeline *pl, const uint64_t **ids);

#define PL_MAX_HOOKS 4

/* Optional per-worker hook (CSV of readings, tests). */
typedef void (*pl_reading_fn)(void *arg, const pl_host *h, const pl_pool *p,
                              const pl_round *r, const status_worker *w,
                              rd_verdict v, int64_t share);

typedef void (*pl_round_fn)(void *arg, const pl_host *h, const pl_pool *p, const pl_round *r,
                            const pl_pool_pair *pair);

/* NULL on ENOMEM.  opt is copied; what it points to must outlive pl. */
pipeline *pipeline_new(const pl_options *opt);
void pipeline_free(pipeline *pl);
/* Adds a hook called for each worker judged in the window; 0, or FPM_EFAIL when
 * PL_MAX_HOOKS are there already. */
int pipeline_on_reading(pipeline *pl, pl_reading_fn fn, void *arg);

/* Adds a hook called for each pool of each round in the window. */
int pipeline_on_round(pipeline *pl, pl_round_fn fn, void *arg);

/* Whether a HOST payload names its host (else pipeline_host ignores it). */
int pipeline_host_named(const unsigned char *payload, size_t len);

/* A HOST record: it becomes the host in force.  0 ok, FPM_EFAIL when the payload
 * has no hostname (ignored), FPM_ENOMEM. */
int pipeline_host(pipeline *pl, const unsigned char *payload, size_t len);

/* A POOL record of the host in force.  0 ok, FPM_EFAIL no host yet, FPM_ENOMEM. */
int pipeline_pool(pipeline *pl, const char *name, size_t name_len,
                  const unsigned char *payload, size_t len);

/* A complete round.  0 ok, FPM_EFAIL no host yet (ignored), FPM_ENOMEM. */
int pipeline_round(pipeline *pl, const pl_round *r);

/* The hosts seen, sorted by hostname. */
size_t pipeline_hosts(const pipeline *pl, pl_host *const **hosts);

#endif
