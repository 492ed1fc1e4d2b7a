/*
 * readings: which workers on a status page give a reading (docs/rules.md
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
    RD_NO_REQUEST, RD_RUNNING, RD_REPEAT, RD_OWN, RD_SHORT, RD_INVALID, RD_PRIMED,
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

/* Rule 4: uri[0..len) begins with one of the prefixes (bytes, case-
 * sensitive; a status page's URI after JSON unescaping, an access log's as
 * written, 20.4). */
int rd_own_uri(const rd_prefixes *own, const char *uri, size_t len);

/* A pid remembered as seen running, without a counter (12.4). */
#define RD_SEEN_RUNNING INT64_MIN

/* A pid seen running while the map was not known (after frames were
 * jumped over): it may have had a counter before them.  Judged as seen
 * running. */
#define RD_UNKNOWN (INT64_MIN + 1)

/* The pool's previous round with a status page (12.4): whether there was
 * one, and its ROUND REAL in whole seconds. */
typedef struct {
    int     has;
    int64_t real_s;
} rd_before;

/* Judges one worker against the counters remembered before this round.
 * For RD_ACCEPTED, *share is its CPU share in hundredths of a percent.
 * An idle pid remembered not at all is primed unless its process started
 * at or after the pool's previous round (12.4). */
rd_verdict rd_judge(const status_worker *w, pidmap *before, const rd_before *prev,
                    const rd_prefixes *own, int64_t *share);

/* Judges every worker of pg, calling fn (may be NULL) with each verdict, and
 * replaces *remembered by what this round sets: idle pids with their counter
 * (a worker that served nothing yet with 0), running pids with the counter
 * they had before, or as seen running.  scratch is a map the caller keeps
 * to save allocations.  0 ok, FPM_ENOMEM (map unchanged). */
int rd_page(const status_page *pg, pidmap *remembered, pidmap *scratch, const rd_before *prev,
            const rd_prefixes *own,
            void (*fn)(void *arg, const status_worker *w, rd_verdict v, int64_t share),
            void *arg);

/* rd_page after frames were jumped over (seeking): with uncertain, the map
 * may have lacked pids it had (a running one is remembered RD_UNKNOWN).
 * With unsure (else NULL: nothing is looked at twice), bit 1 is set when an
 * idle worker's verdict rests on what was not known (no entry while
 * uncertain, or RD_UNKNOWN), bit 2 when an RD_UNKNOWN is left in the map. */
int rd_page_seek(const status_page *pg, pidmap *remembered, pidmap *scratch,
                 const rd_before *prev, const rd_prefixes *own,
                 void (*fn)(void *arg, const status_worker *w, rd_verdict v, int64_t share),
                 void *arg, int uncertain, int *unsure);

#endif
