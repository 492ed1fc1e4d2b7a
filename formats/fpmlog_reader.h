/*
 * fpmlog_reader: the reader's state, private to its two files:
 * fpmlog_read.c takes records (and damage) out of the decoded stream,
 * fpmlog_feed.c moves the input forward in the current mode and decodes.
 */
#ifndef FPMLOG_READER_H
#define FPMLOG_READER_H

#include <stdint.h>
#include <sys/types.h>
#include <zstd.h>

#include "fpmlog.h"
#include "zahead.h"

#define IB_SIZE   (128 * 1024)
#define RB_SPARE  (128 * 1024)
#define MAX_SEGS  4096

/* ---------------------------------------------------------------- reader */

/* Where the decoded stream's bytes came from, from stream offset start on. */
typedef struct {
    uint64_t start;
    uint64_t file_off;
    int      compressed;
} segment;

/*
 * The reader's modes: what the bytes at the input position are.
 *
 *   FRAMEPOS --zstd magic, the frame decoded ahead------> AHEAD
 *            --zstd magic------------------------------> FRAME
 *            --skippable magic: skipped-----------------> FRAMEPOS
 *            --anything else----------------------------> PLAIN
 *            --end of the file--------------------------> DONE
 *   AHEAD    --the frame ends---------------------------> FRAMEPOS
 *            --broken-----------------------------------> SCAN, from its start + 1
 *   FRAME    --the frame ends---------------------------> FRAMEPOS
 *            --broken, or cut short by the file's end---> SCAN, from its start + 1
 *   SCAN     --a frame or skippable magic---------------> FRAMEPOS
 *            --end of the file--------------------------> DONE
 *   PLAIN    --a zstd magic in damage (frame_in_garbage)-> FRAMEPOS
 *            --end of the file--------------------------> DONE
 *
 * fl_feed() moves the input forward in the current mode and appends decoded
 * bytes to rb; parse_one() takes records (or damage) out of rb.  A stream
 * (decoded bytes that continue one another) ends at a broken or cut-short
 * frame and at the end of the file: what is left of it then is dropped.
 */
enum mode { M_FRAMEPOS, M_FRAME, M_AHEAD, M_PLAIN, M_SCAN, M_DONE };

struct fpmlog_reader {
    fpmlog_source src;
    int fd, own_fd;             /* for a reader of a file descriptor ... */
    uint64_t fd_base;           /* ... whose offset 0 is fd's offset fd_base */

    unsigned char *ib;          /* file input */
    size_t ib_len, ib_pos;
    uint64_t ib_off;            /* file offset of ib[0] */
    int eof;

    enum mode mode;
    uint64_t frame_start;
    ZSTD_DCtx *dctx;
    size_t zhint;               /* input zstd asks for next: one block */
    zahead *ahead;              /* frames decoded ahead on threads, or NULL */
    uint64_t ahead_size;        /* the compressed size of the frame in AHEAD */
    fpmlog_skip_fn skip;        /* seeking: frames to jump over, or NULL */
    void    *skip_arg;
    uint64_t skip_off, skip_len; /* the jump taken, said once the stream before it is read */

    unsigned char *rb;          /* decoded stream not yet consumed */
    size_t rb_len, rb_pos, rb_cap;
    uint64_t rb_soff;           /* stream offset of rb[0] */
    int holding;                /* the bytes from hold_soff on are kept */
    uint64_t hold_soff;

    segment segs[MAX_SEGS];
    size_t nsegs;

    int stream_ended;           /* no more bytes for this stream */
    int skipping, at_line_start;
    int pending_break;          /* a frame broke: report after the rest */
    int pending_skip;           /* frames were jumped over: said after the rest */
    int after_skippable;        /* the input just skipped a skippable frame ... */
    uint64_t skippable_start;   /* ... that began here */
    int scan_after_cut;         /* a frame was cut short: is there another? */
    uint64_t block_end;         /* the end of the last whole block of the frame */
    fpmlog_damage break_dmg;

    char *hdr;                  /* type + decoded source of the last record */
};

/* fpmlog_feed.c: reads and decodes more of the file in the current mode,
 * appending to rb.  1 more bytes, 0 none for now (the stream ended, or the
 * file), -2 a read error (in r->break_dmg). */
int fl_feed(fpmlog_reader *r);

/* fpmlog_feed.c: the input buffer refilled (the bytes read, 0 at the end,
 * -1 on error); the input moved to file offset off; a segment of the
 * stream begun at file offset file_off. */
ssize_t fl_fill_input(fpmlog_reader *r);
void fl_seek_input(fpmlog_reader *r, uint64_t off);
void fl_add_segment(fpmlog_reader *r, uint64_t file_off, int compressed);

/* fpmlog_read.c: room in rb for one more chunk (0, or FPM_ENOMEM); damage
 * described at pos. */
int fl_rb_reserve(fpmlog_reader *r);
void fl_set_damage(fpmlog_damage *d, fpmlog_pos pos, int breaks, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
