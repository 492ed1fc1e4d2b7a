/*
 * fpmsum: the summary every writer of a compressed log puts right after each
 * zstd frame it ends, in a zstd skippable frame of its own (readers that do
 * not know it skip it: zstd -dc, zstd -t and every older reader).
 *
 *   summary := 5E 2A 4D 18  size(4, little-endian)  content(size)
 *   content := "fpmsum1\n" SUMMARY-record own-HOST/POOL* in-force-HOST/POOL*
 *
 * The records are plain fpmlog records, CRCs and all.  SUMMARY's payload is
 * key=value lines: version=1, frame_bytes (the compressed size of the frame
 * just before it), rounds, first_real, last_real, min_real, max_real,
 * first_mono, last_mono (of its ROUND records), hostname and boot_id (of the
 * HOST in force for its rounds), seekable (0 when the frame ends inside a
 * round or holds rounds of two hostnames), pool= (repeated, percent-encoded:
 * each pool with a record in one of its complete rounds), own (how many of
 * the records after it are the frame's own HOST and POOL records, in order)
 * and in_force (how many follow those: the latest HOST and its POOLs in
 * force when the frame began, for a reader of the frame alone).
 *
 * A summary is a hint: a reader checks it against the frame it describes
 * (that frame's size and magic) and reads a frame whose summary does not
 * check out.  Nothing prints.
 */
#ifndef FPMSUM_H
#define FPMSUM_H

#include <stddef.h>
#include <stdint.h>

#include "fpmlog.h"

#define FPMSUM_MAGIC0   0x5E            /* first byte of the skippable magic 0x184D2A5E */
#define FPMSUM_TAG      "fpmsum1\n"
#define FPMSUM_TAG_LEN  8
#define FPMSUM_VERSION  1
#define FPMSUM_MAX      (16u << 20)     /* a larger one is not ours */

/* ---- the writer's side: what the frame being written holds */
typedef struct fpmsum_acc fpmsum_acc;

fpmsum_acc *fpmsum_acc_new(void);
void fpmsum_acc_free(fpmsum_acc *a);

/* A record as written: its header line (with '\n') and payload.  0, FPM_ENOMEM. */
int fpmsum_acc_record(fpmsum_acc *a, const char *type, uint64_t mono, uint64_t real,
                      const char *source, size_t source_len, const char *hdr, size_t hdr_len,
                      const void *payload, size_t len);

/* The frame just ended, zbytes long: its summary's bytes (valid until the next
 * call), and the next frame begins.  0, FPM_ENOMEM. */
int fpmsum_acc_end(fpmsum_acc *a, uint64_t zbytes, const unsigned char **out, size_t *out_len);

/* The frame in progress was lost: the next record begins a new one. */
void fpmsum_acc_lost(fpmsum_acc *a);

/* ---- the reader's side */
typedef struct {
    uint64_t frame_bytes, rounds;
    uint64_t first_real, last_real, min_real, max_real, first_mono, last_mono;
    int      seekable;
    size_t   own, in_force;
    char     hostname[256];   /* "" none; a longer one makes the summary not seekable */
    size_t   hostname_len;
} fpmsum;

typedef struct fpmsum_reader fpmsum_reader;

fpmsum_reader *fpmsum_reader_new(void);
void fpmsum_reader_free(fpmsum_reader *sr);

/* Called for each pool of the summary, then for each of the frame's own
 * HOST and POOL records, in order. */
typedef struct {
    int (*pool)(void *arg, const char *name, size_t len);
    int (*record)(void *arg, const fpmlog_record *rec);
    void *arg;
} fpmsum_visit;

/* Whether p[0..n) is a whole summary (magic, size, tag, a SUMMARY first
 * with every number, and the frame's own records, CRCs matching; the
 * records in force after them are not read): 0 and *s, else -1.  With
 * visit, its pools and records are given to it once it checked out; a
 * visitor's nonzero return stops and is returned. */
int fpmsum_read(fpmsum_reader *sr, const unsigned char *p, size_t n, fpmsum *s,
                const fpmsum_visit *visit);

#endif
