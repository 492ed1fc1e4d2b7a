/*
 * cut: fpm-analyze cut.  The records a window needs, from LOGs into a new
 * log OUT: the HOST and POOL records, the window's rounds and the notes
 * between, the round just before the window that primes it (and the rounds
 * before that back to one where every pool was read, when one was not),
 * nothing past --until; and for the frames a seeking window jumps over their HOST
 * and POOL records and a POOL record naming each pool those frames' rounds
 * held that OUT has not named yet (so that the pool is listed, as it is over
 * the LOGs).  Without a window, every record.  Rounds are copied whole or not
 * at all: what a reader of the LOGs drops (a round cut short, a file's
 * unfinished round) is not copied.  OUT is written through OUT.tmp (mode
 * 0600) and linked into place: never over an existing file.
 */
#ifndef CUT_H
#define CUT_H

#include "options.h"
#include "pipeline.h"

/* The exit code: 0, or 2 (said). */
int cut_logs(const config *cfg, const pl_options *opt);

#endif
