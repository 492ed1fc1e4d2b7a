/*
 * applier: the replay's rounds applied to the pipeline on threads of their
 * own.  The reader (the caller's thread) hands over HOST, POOL and rounds in
 * file order; parse threads parse the rounds' status pages and PIDS; one
 * apply thread gives everything to the pipeline in the order handed over,
 * so the figures, hooks and outputs are the serial replay's, byte for byte.
 * A ring of slots bounds the memory whatever the log's length.
 */
#ifndef APPLIER_H
#define APPLIER_H

#include <stddef.h>

#include "pipeline.h"

typedef struct applier applier;

/* An applier over pl with parsers parse threads (0 to 5: the ring holds
 * parsers + 2 rounds) and an apply thread, which parses the rounds no
 * parse thread took.  NULL when the threads or memory could not be had. */
applier *applier_new(pipeline *pl, int parsers);

/* Copies of a HOST, a POOL, a complete round, queued (waiting for room).
 * A round's payloads are not copied: they must all lie in *blob (malloc'd,
 * *blob_cap bytes, or NULL), which the applier takes, leaving another in
 * its place.  0, or -2 when the pipeline ran out of memory (now or before);
 * -1 where the pipeline would answer -1, answered now: a HOST without a
 * hostname, a POOL or round before any HOST (nothing queued). */
int applier_host(applier *a, const unsigned char *payload, size_t len);
int applier_pool(applier *a, const char *name, size_t name_len, const unsigned char *payload,
                 size_t len);
int applier_round(applier *a, const pl_round *r, unsigned char **blob, size_t *blob_cap);

/* Waits until everything handed over is applied: 0, or FPM_ENOMEM. */
int applier_drain(applier *a);

/* Drains, stops the threads, frees. */
void applier_free(applier *a);

#endif
