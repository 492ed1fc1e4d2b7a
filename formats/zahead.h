/*
 * zahead: a log file's zstd frames decoded ahead of its reader, on threads.
 *
 * Frames are independent, so while the reader takes the bytes of one frame,
 * decoder threads find the frames after it (ZSTD_findFrameCompressedSize on
 * bytes read with pread) and decode them.  The reader takes each frame's
 * decoded bytes in file order.  What a frame gives is what the reader's own
 * one-block-per-call decoding gives, bytes and error alike; a frame that
 * cannot be sized (cut short by the file's end, a reserved block type,
 * larger than ZA_MAX_FRAME compressed, not a frame at all) is left to the
 * reader, which decodes it itself.
 *
 * Memory is bounded whatever the file: at most ZA_MAX_AHEAD bytes of decoded
 * chunks wait, plus two chunks of the frame the reader is at; each decoder
 * holds one compressed frame.  Nothing prints.
 */
#ifndef ZAHEAD_H
#define ZAHEAD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ZA_MAX_DECODERS 4
#define ZA_CHUNK        (256u << 10)  /* a piece of decoded bytes */
#define ZA_MAX_AHEAD    (3u << 20)    /* decoded bytes waiting, in all */
#define ZA_MAX_FRAME    (1u << 20)    /* the largest frame decoded ahead, compressed */

typedef struct zahead zahead;

/* Decoders (1 to ZA_MAX_DECODERS) reading fd, a regular file the caller
 * keeps open, whose offset base is the caller's offset 0.  They wait for
 * the first zahead_take.  NULL when the threads or memory could not be had. */
zahead *zahead_new(int fd, uint64_t base, int decoders);

/* The reader is at a zstd frame magic at file offset off.  1: the frame is
 * decoded ahead, *size its compressed size; take its bytes with zahead_read.
 * 0: it is not (decode it yourself).  Whatever was ahead of another offset
 * is dropped and the decoders start again from off. */
int zahead_take(zahead *z, uint64_t off, uint64_t *size);

/* Up to cap decoded bytes of the frame taken, into dst.  n > 0: bytes;
 * 0: the frame ended well; -1: the frame broke here (zstd's error name
 * in *why, valid until the next call). */
ssize_t zahead_read(zahead *z, void *dst, size_t cap, const char **why);

/* Stops the decoders and frees. */
void zahead_free(zahead *z);

#endif
