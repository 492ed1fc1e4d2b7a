/*
 * seek: a window (--from/--until) that reads only the frames it needs, on
 * logs whose zstd frames carry summaries (fpmsum.h).
 *
 * Each LOG is indexed first: its frames and the summary after each, read
 * from the index that ends a closed log (fpmidx.h), or, without one that
 * checks out, walked block header by block header, each summary checked
 * against the frame (its size, and that it follows it).  A frame is skipped only when its summary checks
 * out, says its rounds all fall outside the window and the frame ends
 * between rounds, and the frame before it ends between rounds too; every
 * other frame is read.  What a skipped frame holds that the window's figures
 * use goes on: its HOST and POOL records take effect, its pools are made
 * known, and what its rounds would have changed is marked unknown in the
 * pipeline (pipeline_skipped).  Of each stretch of skipped frames the last
 * ones are read to settle that state (first one frame); a try whose window
 * still met an unknown (pipeline_unsettled) reads more of that stretch
 * (twice as many frames) and is replayed again.  The one state not proven
 * is the masters' carry of section 11.2: it restarts at 0 after a jump,
 * as after a restarted master.
 *
 * Memory: some twenty words per frame, and its pools' names where they
 * change.  Nothing prints.
 */
#ifndef SEEK_H
#define SEEK_H

#include <stddef.h>
#include <stdint.h>

#include "rc.h"
#include "fpmlog.h"
#include "fpmsum.h"
#include "pipeline.h"

typedef struct seek seek;

/* A seek for the window [from, until) (REAL, ns; a side not given is open).
 * NULL ENOMEM. */
seek *seek_new(int has_from, uint64_t from, int has_until, uint64_t until);
void seek_free(seek *s);

/* Indexes the next LOG (they are given in order).  A file that is not a
 * regular file, or cannot be read, is read whole.  0, FPM_ENOMEM. */
int seek_add(seek *s, const char *path);

/* The first plan: each stretch of skippable frames but its last frame,
 * where anything is read after it. */
void seek_plan(seek *s);

/* More of the stretches the ids name are read (twice as many frames).
 * 1 when the plan changed, 0 when it cannot read more of any. */
int seek_more(seek *s, const uint64_t *ids, size_t n);

/* The reader's callback and its argument for LOG number i. */
uint64_t seek_skip(void *file, uint64_t off);
void *seek_file(seek *s, size_t i);

/* A frame jumped over: its summary, its pools (names and lengths, npools
 * of them) and the jump's id. */
typedef struct {
    const fpmsum       *sum;
    const char *const  *pools;
    const size_t       *lens;
    size_t              npools;
    uint64_t            id;
} seek_frame;

/* After the reader jumped over [off, off + len) of LOG i: each frame's
 * summary, read again, its records to record (the frame's own HOST and
 * POOL, in order), then the frame to done.  0, or record's or done's
 * nonzero, or FPM_EFAIL when a summary no longer checks out (the file
 * changed), FPM_ENOMEM when memory ran out (common/rc.h). */
typedef int (*seek_record_fn)(void *arg, const fpmlog_record *rec);
typedef int (*seek_done_fn)(void *arg, const seek_frame *f);
int seek_jumped(seek *s, size_t i, uint64_t off, uint64_t len, seek_record_fn record,
                seek_done_fn done, void *arg);

/* When LOG i ends with a damaged index (fpmidx.h): what is wrong with it,
 * and where it begins in *at; else NULL.  Its frames were then walked. */
const char *seek_index_damage(const seek *s, size_t i, uint64_t *at);

/* What the plan reads: frames indexed, skipped, and their bytes; the
 * frames found in a trailing index. */
typedef struct {
    uint64_t frames, skipped, bytes, skipped_bytes, indexed;
} seek_stats;
seek_stats seek_stats_of(const seek *s);

#endif
