/* The fpmlog reader's input modes: the bytes at the input position moved
 * forward and decoded (fpmlog_reader.h draws the modes). */
#define _POSIX_C_SOURCE 200809L
#include "fpmlog_reader.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "zframe.h"

/* Reads more of the file into ib, keeping the unconsumed bytes.  Returns the
 * number of new bytes, 0 at end of file, -1 on error. */
ssize_t fl_fill_input(fpmlog_reader *r)
{
    if (r->ib_pos > 0) {
        memmove(r->ib, r->ib + r->ib_pos, r->ib_len - r->ib_pos);
        r->ib_off += r->ib_pos;
        r->ib_len -= r->ib_pos;
        r->ib_pos = 0;
    }
    if (r->ib_len == IB_SIZE)
        return 1; /* full already: caller consumes first */
    ssize_t n;
    do
        n = r->src.read(r->src.arg, r->ib + r->ib_len, IB_SIZE - r->ib_len);
    while (n < 0 && errno == EINTR);
    if (n > 0)
        r->ib_len += (size_t)n;
    else if (n == 0)
        r->eof = 1;
    return n;
}

/* Moves the input to file offset off.  Within the buffer that is free; past
 * it, the source seeks; a pipe that cannot go back goes on from where it is. */
void fl_seek_input(fpmlog_reader *r, uint64_t off)
{
    if (off >= r->ib_off && off <= r->ib_off + r->ib_len) {
        r->ib_pos = (size_t)(off - r->ib_off);
        return;
    }
    if (!r->src.seek || r->src.seek(r->src.arg, off) != 0)
        return;
    r->ib_off = off;
    r->ib_len = r->ib_pos = 0;
    r->eof = 0;
}

void fl_add_segment(fpmlog_reader *r, uint64_t file_off, int compressed)
{
    uint64_t start = r->rb_soff + r->rb_len;
    /* drop segments whose successor starts at or before the oldest byte kept */
    size_t drop = 0;
    while (drop + 1 < r->nsegs && r->segs[drop + 1].start <= r->rb_soff + r->rb_pos)
        drop++;
    if (drop) {
        memmove(r->segs, r->segs + drop, (r->nsegs - drop) * sizeof(segment));
        r->nsegs -= drop;
    }
    if (r->nsegs && r->segs[r->nsegs - 1].start == start)
        r->nsegs--; /* the previous segment gave no bytes */
    if (r->nsegs == MAX_SEGS) { /* absurdly many tiny frames: merge the oldest */
        memmove(r->segs, r->segs + 1, (MAX_SEGS - 1) * sizeof(segment));
        r->nsegs--;
    }
    r->segs[r->nsegs++] = (segment){start, file_off, compressed};
}

/* FRAMEPOS: what starts here, a frame, a skippable frame or plain records. */
static int feed_framepos(fpmlog_reader *r)
{
    while (r->ib_len - r->ib_pos < 8 && !r->eof)
        if (fl_fill_input(r) < 0)
            return -1;
    size_t avail = r->ib_len - r->ib_pos;
    unsigned char *p = r->ib + r->ib_pos;
    if (r->after_skippable) {
        /* a skippable frame's size is trusted only when it leads to a frame,
         * a record or the end: else a damaged size would cost the frames
         * after it, so the next magic is looked for from just past its start
         * (at the end too, which a size too large also leads to: the bytes
         * between are scanned once) */
        r->after_skippable = 0;
        if (avail < 8 ? r->ib_off + r->ib_pos > r->skippable_start + 8 :
            !zf_is_frame(p) && !zf_is_skippable(p) && memcmp(p, FPMLOG_MAGIC, 8) != 0) {
            fl_seek_input(r, r->skippable_start + 1);
            r->mode = M_SCAN;
            return 0;
        }
    }
    if (avail == 0) {
        r->mode = M_DONE;
        r->stream_ended = 1;
    } else if (avail >= 4 && zf_is_frame(p) && r->skip &&
               (r->skip_len = r->skip(r->skip_arg, r->ib_off + r->ib_pos)) > 0) {
        /* frames the caller does not need: the stream ends before them */
        r->skip_off = r->ib_off + r->ib_pos;
        fl_seek_input(r, r->skip_off + r->skip_len);
        r->stream_ended = 1;
        r->pending_skip = 1;
    } else if (avail >= 4 && zf_is_frame(p)) {
        r->frame_start = r->ib_off + r->ib_pos;
        fl_add_segment(r, r->frame_start, 1);
        if (r->ahead && zahead_take(r->ahead, r->frame_start, &r->ahead_size)) {
            r->mode = M_AHEAD;
            return 0;
        }
        ZSTD_DCtx_reset(r->dctx, ZSTD_reset_session_only);
        r->zhint = 5; /* the smallest frame header */
        r->block_end = r->frame_start;
        r->mode = M_FRAME;
    } else if (avail >= 8 && zf_is_skippable(p)) {
        r->skippable_start = r->ib_off + r->ib_pos;
        r->after_skippable = 1;
        fl_seek_input(r, r->skippable_start + zf_skippable_size(p));
    } else {
        fl_add_segment(r, r->ib_off + r->ib_pos, 0);
        r->mode = M_PLAIN;
    }
    return 0;
}

/* PLAIN: the bytes as they are, to the end of the file. */
static int feed_plain(fpmlog_reader *r)
{
    if (r->ib_pos == r->ib_len && fl_fill_input(r) < 0)
        return -1;
    size_t n = r->ib_len - r->ib_pos;
    if (n == 0 && r->eof) {
        r->mode = M_DONE;
        r->stream_ended = 1;
        return 0;
    }
    size_t room = r->rb_cap - r->rb_len;
    if (n > room)
        n = room;
    memcpy(r->rb + r->rb_len, r->ib + r->ib_pos, n);
    r->rb_len += n;
    r->ib_pos += n;
    return 0;
}

/* The frame at frame_start is broken: what it gave stays, damage is
 * reported after it, and the next frame is looked for from its start + 1. */
static void frame_broke(fpmlog_reader *r, const char *why)
{
    fl_set_damage(&r->break_dmg, (fpmlog_pos){r->frame_start, 1, 0}, 1,
               "broken zstd frame (%s), skipped to the next frame", why);
    r->pending_break = 1;
    r->stream_ended = 1;
    fl_seek_input(r, r->frame_start + 1);
    r->mode = M_SCAN;
}

/* AHEAD: the frame's bytes, as a decoder thread decoded them. */
static int feed_ahead(fpmlog_reader *r)
{
    const char *why;
    ssize_t n = zahead_read(r->ahead, r->rb + r->rb_len, r->rb_cap - r->rb_len, &why);
    if (n > 0) {
        r->rb_len += (size_t)n;
    } else if (n == 0) {
        fl_seek_input(r, r->frame_start + r->ahead_size);
        r->mode = M_FRAMEPOS;
    } else {
        frame_broke(r, why);
    }
    return 0;
}

/* FRAME: one block of the frame decoded. */
static int feed_frame(fpmlog_reader *r)
{
    if (r->ib_pos == r->ib_len) {
        if (fl_fill_input(r) < 0)
            return -1;
        if (r->ib_pos == r->ib_len) {
            /* end of file inside the frame: a live or crashed recorder's
             * open frame, or one whose torn block swallowed the frames
             * after it; look for another frame from its start */
            r->stream_ended = 1;
            r->scan_after_cut = 1;
            fl_seek_input(r, r->frame_start + 1);
            r->mode = M_SCAN;
            return 0;
        }
    }
    /* one block per call: a call that fails gives back none of the
     * output it made, so a torn block must not take good ones with it.
     * zstd's hint is the next block plus the header after it (3 bytes):
     * give the block alone, then the header alone. */
    size_t give = r->ib_len - r->ib_pos;
    size_t want = r->zhint > 3 ? r->zhint - 3 : r->zhint;
    if (give > want)
        give = want;
    /* zstd's hint counts what it already holds of the block: all of it
     * given, the block is whole (a hint of 3 or less is the next header) */
    if (give == want && r->zhint > 3)
        r->block_end = r->ib_off + r->ib_pos + give;
    ZSTD_inBuffer in = {r->ib, r->ib_pos + give, r->ib_pos};
    ZSTD_outBuffer out = {r->rb + r->rb_len, r->rb_cap - r->rb_len, 0};
    size_t ret = ZSTD_decompressStream(r->dctx, &out, &in);
    r->rb_len += out.pos;
    r->ib_pos = in.pos;
    if (ZSTD_isError(ret)) {
        frame_broke(r, ZSTD_getErrorName(ret));
    } else if (ret == 0) {
        r->mode = M_FRAMEPOS;
    } else {
        r->zhint = ret;
    }
    return 0;
}

/* SCAN: forward to the next frame or skippable magic. */
static int feed_scan(fpmlog_reader *r)
{
    for (;;) {
        size_t avail = r->ib_len - r->ib_pos;
        unsigned char *p = r->ib + r->ib_pos;
        for (size_t i = 0; i + 4 <= avail; i++) {
            if (zf_is_frame(p + i) || zf_is_skippable(p + i)) {
                r->ib_pos += i;
                r->mode = M_FRAMEPOS;
                if (r->scan_after_cut) {
                    fl_set_damage(&r->break_dmg, (fpmlog_pos){r->frame_start, 1, 0}, 1,
                               "zstd frame cut short (never closed), skipped to the "
                               "next frame at offset %llu",
                               (unsigned long long)(r->ib_off + r->ib_pos));
                    r->pending_break = 1;
                    r->stream_ended = 1;
                    r->scan_after_cut = 0;
                }
                return 0;
            }
        }
        if (r->eof) {
            if (r->scan_after_cut) { /* no frame after the open one: said, not damage */
                int mid_block = r->ib_off + r->ib_len > r->block_end;
                fl_set_damage(&r->break_dmg, (fpmlog_pos){r->frame_start, 1, 0}, 0,
                              "the last zstd frame %s at offset %llu (a recorder still "
                              "writing, or a file cut short)",
                              mid_block ? "ends mid-block" : "is not closed",
                              (unsigned long long)r->block_end);
                r->break_dmg.open_tail = 1;
                r->pending_break = 1;
            }
            r->ib_pos = r->ib_len;
            r->mode = M_DONE;
            r->scan_after_cut = 0;
            r->stream_ended = 1;
            return 0;
        }
        if (avail > 3)
            r->ib_pos += avail - 3;
        if (fl_fill_input(r) < 0)
            return -1;
    }
}

/* Reads and decodes more of the file in the current mode.  0 ok, -1 read
 * error (errno). */
int fl_feed(fpmlog_reader *r)
{
    if (fl_rb_reserve(r) != 0)
        return -1;
    switch (r->mode) {
    case M_FRAMEPOS: return feed_framepos(r);
    case M_PLAIN: return feed_plain(r);
    case M_FRAME: return feed_frame(r);
    case M_AHEAD: return feed_ahead(r);
    case M_SCAN: return feed_scan(r);
    case M_DONE: break;
    }
    r->stream_ended = 1;
    return 0;
}
