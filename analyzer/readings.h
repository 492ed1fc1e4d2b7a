/*
 * readings: which workers on a status page give a reading (pipeline.md
 * section 2).  A pure function of the page, the counters remembered from
 * the round before and the pool's own-URI prefixes.
 */
#ifndef READINGS_H
#define READINGS_H

#include <stddef.h>
#include <stdint.h>

#include "pidmap.h"
#include "status.h"

/* Why a worker gave no reading; RD_ACCEPTED when it did. */
typedef enum {
    RD_NO_REQUEST, RD_RUNNING, RD_REPEAT, RD_OWN, RD_SHORT, RD_INVALID,
    RD_NREASONS,
    RD_ACCEPTED = RD_NREASONS,
} rd_verdict;

#define RD_MIN_DURATION_US 50000
#define RD_FPM_TUNE_PREFIX "/cbox-phpfpm-opcache-"

/* The names used in JSON and CSV: "no_request", ..., "accepted". */
const char *rd_name(rd_verdict v);

typedef struct {
    char  **v;
    size_t *len;
    size_t  n, cap;
} rd_prefixes;

/* Adds a prefix (copied) unless it is empty or already there.  0 / -1. */
int rd_prefixes_add(rd_prefixes *p, const char *s, size_t len);
void rd_prefixes_free(rd_prefixes *p);

/* Judges one worker against the counters remembered before this round.
 * For RD_ACCEPTED, *share is its CPU share in hundredths of a percent. */
rd_verdict rd_judge(const status_worker *w, pidmap *before,
                    const rd_prefixes *own, int64_t *share);

/* Judges every worker of pg, calling fn (may be NULL) with each verdict, and
 * replaces *remembered by what this round sets: idle pids with their counter,
 * running pids with the counter they had before.  scratch is a map the
 * caller keeps to save allocations.  0 ok, -1 ENOMEM (map unchanged). */
int rd_page(const status_page *pg, pidmap *remembered, pidmap *scratch,
            const rd_prefixes *own,
            void (*fn)(void *arg, const status_worker *w, rd_verdict v, int64_t share),
            void *arg);

#endif
