/*
 * replay: reads logs with the fpmlog reader, forms rounds as fpmlog(5) says
 * and feeds them to the pipeline, itself or through the applier's threads.
 * Damage is said through msg.h as "PROG: LOG: offset N: what" and skipped.
 * Its state (threads, the files' spans, the recorder run's seq) is its own.
 */
#ifndef REPLAY_H
#define REPLAY_H

#include <stdint.h>

#include "rc.h"
#include "pipeline.h"

typedef struct replay replay;

/* What a replay counted, over every file so far. */
typedef struct {
    uint64_t records, rounds, damaged, dropped_rounds, hostless_rounds;
    uint64_t unreadable;       /* files that could not be opened or read */
    uint64_t copies;           /* rounds dropped as copies (seq not above the last) */
} replay_counts;

/* A replay into pl; above 1 thread, rounds are parsed and applied on
 * threads of their own (started with the first file).  NULL ENOMEM. */
replay *replay_new(pipeline *pl, int threads);

/* Replays one file (state carries over between calls).  A file whose
 * rounds of a host go back in time after the files before it is warned
 * about (given out of order, or given twice), once per file and host; with
 * progress, a line on a terminal says how far it is, at most four times a
 * second, and is wiped at the end.  Returns 0, FPM_EFAIL when the file could not
 * be opened or read to its end (counted unreadable), FPM_ENOMEM. */
int replay_file(replay *r, const char *path, int progress);

/* Seeking: the files' frames a window does not need are jumped over as
 * sk plans (seek.h); files are numbered in the order replayed.  Before the
 * first file; NULL reads everything. */
struct seek;
void replay_set_seek(replay *r, struct seek *sk);

/* Waits until every round read is applied to the pipeline (with threads);
 * 0, or -2 when it ran out of memory (said). */
int replay_drain(replay *r);

replay_counts replay_counts_of(const replay *r);

/* Stops the threads and frees; NULL is fine. */
void replay_free(replay *r);

#endif
