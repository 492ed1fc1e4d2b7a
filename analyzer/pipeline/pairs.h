/*
 * pairs: section 5 and 9's host side of a round and the one before it,
 * for pipeline.c's round: whether they make a usable pair (5 s to 5 min
 * apart, counters and clock forward, STAT in both), each signal's value
 * over it and the busy ratio, whether the steal alone made the host full,
 * the shares' counts and the throttled time, the steal probe's sums, the
 * rounds counted and their span.
 * Private to the pipeline.
 */
#ifndef PAIRS_H
#define PAIRS_H

#include "round.h"
#include "state.h"

/* The round before, as a pair with the next one needs it. */
typedef struct pl_prev {
    int            has, has_stat;
    uint64_t       mono;
    sig_counter    sig[SIG_N];  /* each signal's counter ... */
    int            sig_ok[SIG_N]; /* ... where the round had one */
    mk_list        masters;     /* its MASTER's masters, with their carry (11.2) */
    pl_pool      **seen;        /* pools that appeared in it, by name ... */
    unsigned char *had_pids;    /* ... and which had PIDS */
    size_t         nseen, cap;
} prev_round;

/* Section 5: the host's side of this round and the one before, and
 * section 9's signals over the same pair. */
typedef struct {
    int         usable, saturated;
    double      interval, ratio;               /* ratio -1 unknown */
    sig_counter sig[SIG_N];                    /* this round's counters ... */
    int         sig_ok[SIG_N];                 /* ... where it had them */
    double      value[SIG_N];                  /* the pair's values ... */
    int         has_value[SIG_N];              /* ... where it gave them */
    uint64_t    grew[SIG_N];                   /* ... and how much each v grew */
} host_pair;

/* A number of a key=value payload (pipeline.c), or dflt when it is not
 * there or not a number below 10^19. */
uint64_t pl_kv_u64(const unsigned char *pl, size_t len, const char *key, uint64_t dflt);

/* This round's counters, and whether it pairs with the one before (the
 * host's pairs usable and dropped counted when in the window). */
host_pair pair_of(pl_host *h, const pl_round *r, int in);

/* Each signal's value over a usable pair, and the busy ratio. */
void pair_values(pl_host *h, host_pair *hp, const sig_pair *sp);

/* Section 9: whether the host, measured by STAT, was full only because of
 * the steal. */
int pair_full_by_steal(const pl_host *h, const pl_round *r, const host_pair *hp);

/* Section 9: each share the pair gave, and the throttled time.  0, FPM_ENOMEM. */
int pair_shares(pl_host *h, const host_pair *hp);

/* Section 9: the steal probe's record of the round. */
void pair_probe(pl_host *h, const pl_round *r);

/* Sections 1 and 9: the rounds counted (in the window) and the span all of
 * them cover. */
void pair_count(pl_host *h, const pl_round *r, int in);

#endif
