/*
 * replay: reads logs with the fpmlog reader, forms rounds as fpmlog.md says
 * and feeds them to the pipeline.  Damage is reported on the given stream
 * as "PROG: LOG: offset N: what" and skipped.
 */
#ifndef REPLAY_H
#define REPLAY_H

#include <stdint.h>
#include <stdio.h>

#include "pipeline.h"

typedef struct {
    uint64_t records, rounds, damaged, dropped_rounds, hostless_rounds;
    uint64_t unreadable;       /* files that could not be opened or read */
    double   progress_start, progress_shown; /* the progress line's clock, over files */
    uint64_t progress_bytes;   /* bytes of the files replayed before this one */
    uint64_t files;            /* files replayed so far */
    uint64_t copies;           /* rounds dropped as copies (seq not above the last) */
    uint64_t seq;              /* the last ROUND's seq in this recorder run ... */
    int      has_seq;          /* ... since its HOST record */
    struct replay_seen *seen;  /* which rounds each file held, per host (private) */
    int      threads;          /* set before the first file: above 1, rounds are parsed
                                * and applied on threads of their own */
    int      has_host;         /* a HOST with a hostname was given */
    struct applier *apply;     /* those threads (private) */
} replay_stats;

/* Frees what the replays kept in st (not st itself); stops the threads. */
void replay_stats_free(replay_stats *st);

/* Waits until every round read is applied to the pipeline (with threads);
 * 0, or -2 when it ran out of memory (said on err). */
int replay_drain(replay_stats *st, const char *prog, FILE *err);

/* Replays one file into pl (state carries over between calls).  Messages
 * go to err prefixed with prog; a file whose rounds of a host go back in
 * time after the files before it is warned about (given out of order, or
 * given twice), once per file and host; with progress, a line on err (a terminal)
 * says how far it is, at most four times a second, and is wiped at the end.
 * Returns 0, -1 when the file could not be opened or read to its end
 * (stats->unreadable counts it), -2 ENOMEM. */
int replay_file(pipeline *pl, const char *path, const char *prog, FILE *err, int progress,
                replay_stats *stats);

#endif
