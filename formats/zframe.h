/*
 * zframe: the bits of zstd's frame format (RFC 8878) that both programs
 * read by hand: the magics, a frame header's size, a block header, the
 * empty last block that closes a frame left open; and write_all and
 * pread_all, which the writers of a log and its readers by offset need.  The reader finds frames with it, the recorder
 * repairs a log a killed recorder left open with it.  Nothing prints.
 *
 *   frame     := magic(28 B5 2F FD) header block* [checksum(4)]
 *   header    := descriptor(1) [window(1)] [dict id(0,1,2,4)] [content size(0,1,2,4,8)]
 *   block     := block header(3, little-endian: last:1 type:2 size:21) content
 *   skippable := magic(5? 2A 4D 18) size(4, little-endian) bytes
 */
#ifndef ZFRAME_H
#define ZFRAME_H

#include <stddef.h>
#include <stdint.h>

#define ZF_MAGIC_LEN 4

/* p holds at least 4 bytes: a zstd frame's magic, a skippable frame's. */
int zf_is_frame(const unsigned char *p);
int zf_is_skippable(const unsigned char *p);

/* p holds a skippable frame's 8 header bytes: its whole size. */
uint64_t zf_skippable_size(const unsigned char *p);

/* The size of a frame header after the magic, from its descriptor byte, and
 * whether the frame ends with a checksum. */
size_t zf_header_size(unsigned char descriptor);
int zf_has_checksum(unsigned char descriptor);

/* A block header (3 bytes): whether it is the last block, its type (3 is
 * reserved: not a block), and how many bytes of content follow it. */
typedef struct {
    int      last, type;
    uint32_t content;
} zf_block;
zf_block zf_block_header(const unsigned char *p);

/* What zf_frame_extent found besides a frame (common/rc.h keeps -2 for out
 * of memory everywhere). */
enum { ZF_OPEN = 1, ZF_HEADER_CUT = -1, ZF_NOT_BLOCKS = -3 };

/* The zstd frame whose magic is at file offset off of fd (size bytes long),
 * walked block header by block header: 0 and its whole size in *len (which
 * may run past the end by a checksum cut short); ZF_OPEN it runs past the
 * file's end (an open frame: *len is its header and whole blocks, a partial
 * block or none starts there); ZF_HEADER_CUT its header is cut short;
 * ZF_NOT_BLOCKS a block is of the reserved type (not a frame). */
int zf_frame_extent(int fd, uint64_t off, uint64_t size, uint64_t *len);

/* The 3 bytes of an empty last (raw) block: they close an open frame. */
extern const unsigned char ZF_EMPTY_LAST_BLOCK[3];

/* Writes all of buf to fd, across short writes and EINTR.  0, or -1 (errno). */
int zf_write_all(int fd, const void *buf, size_t len);

/* Reads up to len bytes of fd at file offset off into buf, across short
 * reads and EINTR: the bytes read, fewer at the end of the file or on an
 * error. */
size_t zf_pread_all(int fd, void *buf, size_t len, uint64_t off);

/* Whether fd's first bytes are those of a log: a zstd frame, a skippable
 * frame or a record header (a plain log cut inside its first header still
 * begins like one).  An empty file does not; nor one that cannot be read. */
int zf_begins_like_log(int fd);

#endif
