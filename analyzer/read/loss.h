/*
 * loss: what damage in a log cost, in rounds and in time (docs/rules.md,
 * "Damage is said"): the rounds the recorder wrote between the last round
 * read before the damage and the first one after it (by the ROUND records'
 * seq, which counts a recorder run's rounds), the span of time between the
 * two, and the rounds read from the frame a file ends inside.  Pure: the
 * replay hands in what it reads and prints the sentences this makes.
 */
#ifndef LOSS_H
#define LOSS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int      open;                 /* damage since the last complete round ... */
    uint64_t at;                   /* ... the first one's file offset */
    int      has_prev, prev_has_seq;
    uint64_t prev_real, prev_seq;  /* the last complete round */
    uint64_t lost;                 /* the file's rounds lost, counted ... */
    uint64_t uncounted;            /* ... and the stretches whose count is unknown */
    uint64_t from, to;             /* the span of time they covered, 0 none */
    int      tail;                 /* the file's damage ran to its end ... */
    uint64_t tail_after;           /* ... after the round of this time (0 none) */
    uint64_t frame_off, frame_rounds; /* the rounds read from the last frame */
    int      frame_known;
} loss;

/* A file begins: its totals start at 0 (the last round before stays). */
void loss_file(loss *l);

/* Damage at file offset off. */
void loss_damage(loss *l, uint64_t off);

/* A HOST record (a new recorder run counts its seq from 1) or a jump over
 * frames: the seq before is no measure of what followed. */
void loss_new_run(loss *l);

/* A complete round at real (ns), with its seq (has_seq 0: none), from the
 * zstd frame at frame_off (compressed 0: plain records).  When it closes a
 * damaged stretch, the sentence that says what it cost goes into say
 * ("offset 1234: 125 rounds lost, from ... to ..."), else say is "".
 * Returns the rounds lost (0 also when the count is unknown). */
uint64_t loss_round(loss *l, uint64_t real, int has_seq, uint64_t seq, int compressed,
                    uint64_t frame_off, char *say, size_t n);

/* The rounds read from the zstd frame at frame_off. */
uint64_t loss_frame_rounds(const loss *l, uint64_t frame_off);

/* The file's end: a damaged stretch still open (no round after it) into
 * say, else "". */
void loss_file_end(loss *l, char *say, size_t n);

/* The file's totals as the end of "N damaged record(s) skipped; ...":
 * "125 rounds lost, from ... to ..." or "every complete round around them
 * was used". */
void loss_summary(const loss *l, char *say, size_t n);

#endif
