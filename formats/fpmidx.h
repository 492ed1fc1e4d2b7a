/*
 * fpmidx: the frames of a compressed log and what their summaries say
 * (fpmsum.h), walked from the file or read from its trailing index.
 *
 * A closed log (rotated by the recorder, or written by cut) ends with an
 * index: one skippable frame, text after its 8-byte header, that a seeking
 * reader finds with one read of the file's last bytes (as zip's central
 * directory is found), instead of walking every frame block by block.
 *
 *   index  := 5D 2A 4D 18  size(4, little-endian)  "fpmidx1\n"  body  footer
 *   body   := "version=1\n" "start=S\n" "end=E\n" "frames=N\n" frame*
 *   frame  := "F off len sum_len rounds first_real last_real min_real max_real
 *              first_mono last_mono seekable own host npools\n" ("P pool\n")*
 *   footer := "fpmidx1 crc=XXXXXXXX total=T\n" (T in 20 digits: the index's
 *             bytes, header and all; the CRC-32 of body, 8 hex digits)
 *
 * It lists the frames of [S, E) in order, E being where the index begins;
 * the frames before S (a log the recorder appended to after a crash) are
 * walked.  sum_len is the bytes of the summary after the frame (0: none
 * that checks out; its numbers are then 0); npools "=" says the pools of the
 * frame before.  host and pool are percent-encoded: every byte <= 0x20, >=
 * 0x7F and '%' as %XX, a host "" as "-": the index is ASCII, so no zstd
 * magic can be read in it.  An index is believed only whole: its header,
 * footer and CRC, every line, the frames in order inside [S, E) and E where
 * it begins; anything else is a damaged index (the frames are then walked,
 * and the reader says so).  Nothing prints.
 */
#ifndef FPMIDX_H
#define FPMIDX_H

#include <stddef.h>
#include <stdint.h>

#include "fpmsum.h"

#define FPMIDX_MAGIC0  0x5D             /* first byte of the skippable magic 0x184D2A5D */
#define FPMIDX_MAX     (64u << 20)      /* a larger one is not ours */

/* A frame: where it is, its summary's size (0 none) and what it says (all
 * 0 without one): its numbers, its host (names[host]) and its pools
 * (names[pool0 .. pool0 + npools)). */
typedef struct {
    uint64_t off, len, sum_len;
    uint64_t rounds, first_real, last_real, min_real, max_real, first_mono, last_mono;
    int      seekable;
    size_t   own;
    size_t   host, pool0, npools;
} fpmidx_frame;

typedef struct {
    uint64_t      start, end;   /* the frames of [start, end) */
    int           whole;        /* the walk reached end: every byte is a frame or a skippable one */
    fpmidx_frame *f;
    size_t        n, cap;
    char        **names;        /* the pools, percent-decoded, NUL-terminated */
    size_t       *lens;
    size_t        nnames, cap_names;
} fpmidx;

void fpmidx_free(fpmidx *x);

/* Frame k's summary as fpmsum_read gives it (frame_bytes its len). */
void fpmidx_sum(const fpmidx *x, size_t k, fpmsum *s);

/* Appends to x the frames of fd from start to end (a frame and the summary
 * after it checked as fpmsum.h says), walked block header by block header,
 * until something is not a frame; x->end is then where the walk stopped and
 * x->whole whether it reached end.  0, FPM_ENOMEM. */
int fpmidx_walk(int fd, uint64_t start, uint64_t end, fpmidx *x);

/* The index at the end of fd (size bytes) into x (zeroed first).  0;
 * FPMIDX_NONE no index ends the file; FPMIDX_DAMAGED one whose footer is
 * there but does not check out (*at where it begins, *why what is wrong);
 * FPM_ENOMEM. */
enum { FPMIDX_NONE = 1, FPMIDX_DAMAGED = 3 };
int fpmidx_load(int fd, uint64_t size, fpmidx *x, uint64_t *at, const char **why);

/* Where the index at the end of fd (size bytes) begins and the start it
 * covers from, when its header and footer are there (its body unread):
 * 0, else -1.  The recorder cuts an index off before it appends. */
int fpmidx_find(int fd, uint64_t size, uint64_t *at, uint64_t *start);

/* Appends the index of fd's frames from start to its end, when they can all
 * be walked: 0 written, FPMIDX_NONE not (damage, plain records, an open
 * frame), -1 a write error (errno), FPM_ENOMEM. */
int fpmidx_append(int fd, uint64_t start);

#endif
