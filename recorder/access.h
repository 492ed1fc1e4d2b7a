/*
 * access: the recorder's ACCESS records (fpmlog(5)): each pool's access
 * log followed (tail.h), a file that several pools name read once, under
 * the first of them; its lines recorded each round after the pool's other
 * records, their URIs' queries cut with --redact-query (the pool's
 * access.format finds them, formats/accessfmt.h); where each file stands
 * kept in LOG.access after every round written.  At start, a pool that
 * cannot be counted from its access log is said, with the lines to add.
 * Private to the recorder.
 */
#ifndef ACCESS_H
#define ACCESS_H

#include <stdio.h>

#include "accessfmt.h"
#include "config.h"

typedef struct recorder recorder;

/* php-fpm's access.format that gives every figure a census needs
 * (docs/rules.md 20.7): the visitor's URI, its method, the worker, the
 * duration in ms, the peak memory and the CPU share */
#define ACCESS_CENSUS_FORMAT AF_CENSUS_FORMAT

/* The tails of the recorder's pools' access logs, from their POOL
 * configuration; those of paths already followed are kept where they are,
 * the others started from the state file (the first time) or their end.
 * Says once for each pool that will be a sample why, and what to add.
 * 0, or FPM_ENOMEM. */
int access_setup(recorder *r);

/* The round's ACCESS records, after every pool's other records. */
void access_round(recorder *r);

/* LOG.access, after a round was written: where each file stands. */
void access_save(recorder *r);

void access_free(recorder *r);

/* Why a pool's figures will be a sample, with the lines that would make
 * them a census, into out (a sentence, no newline); 0 when its access
 * log and format make it a census. */
int access_why_sample(const rec_pool *p, char *out, size_t outlen);

#endif
