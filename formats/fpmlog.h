/*
 * fpmlog: the log format shared by fpm-record and fpm-analyze (version 1).
 * Longer than a screen on purpose: the format's whole layout comes first.
 *
 * The whole layout, as man/fpmlog.5 defines it:
 *
 *   file    := (zstd frame | skippable frame)* plain-tail?
 *   stream  := record*          (frames decode into one continuous stream)
 *   record  := "#fpmlog1 " TYPE " " MONO " " REAL " " SOURCE " " LEN " " CRC "\n"
 *              <LEN bytes of payload> "\n"
 *
 * TYPE [A-Z][A-Z0-9_]*; MONO, REAL, LEN decimal u64 (LEN <= 64 MiB); SOURCE
 * percent-encoded, "-" for none; CRC the zlib CRC-32 of the payload as 8
 * lower-case hex digits.  The magic "#fpmlog1 " never changes; a new version
 * gets a new magic.  Strict when writing, tolerant when reading.
 *
 * Reader: open, call fpmlog_reader_next() until it returns 0, free.  It never
 * prints and never exits; damage comes back as -1 with its byte offset.
 */
#ifndef FPMLOG_H
#define FPMLOG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FPMLOG_MAGIC     "#fpmlog1 "
#define FPMLOG_MAGIC_LEN 9
#define FPMLOG_MAX_LEN   67108864u /* 64 MiB */
#define FPMLOG_HDR_MAX   4096      /* longest header line accepted */
#define FPMLOG_WINDOW_LOG 19      /* the writer's zstd window: 512 KiB */
#define FPMLOG_FRAME_BYTES (4u << 20) /* the recorder ends a frame past 4 MiB of records */
#define FPMLOG_FRAME_NS (300ull * 1000000000ull) /* ... or 5 minutes of rounds: a damaged
                                                  * frame costs at most that much */

typedef struct fpmlog_reader fpmlog_reader;

/* Where a byte of the decoded stream came from.  For plain data, offset is
 * the byte's file offset.  Inside a zstd frame, offset is the frame's file
 * offset and in_frame the byte's position in the frame's decoded output. */
typedef struct {
    uint64_t offset;
    int      compressed;
    uint64_t in_frame;
} fpmlog_pos;

/* One record.  Every pointer stays valid until the next call on the reader. */
typedef struct {
    const char          *type;       /* NUL-terminated */
    uint64_t             mono, real;
    const char          *source;     /* percent-decoded, NUL-terminated, "" for "-" */
    size_t               source_len; /* may contain NUL bytes in theory */
    int                  has_source; /* 0 when SOURCE was "-" */
    const unsigned char *payload;
    size_t               len;
    fpmlog_pos           pos;        /* where the header starts */
} fpmlog_record;

/* One piece of damage: reported once, with its position. */
typedef struct {
    fpmlog_pos pos;
    int        breaks_round; /* the records since the last ROUND are lost */
    int        open_tail;    /* no damage: the file ends inside its last zstd
                              * frame (a recorder still writing, or a file cut
                              * short); what says where */
    char       what[192];    /* "bad CRC, record skipped", ... */
} fpmlog_damage;

/* Opens path for reading ("-" is standard input).  NULL on failure, with
 * the reason (strerror text) in err.  The caller frees the reader. */
fpmlog_reader *fpmlog_reader_open(const char *path, char *err, size_t errlen);

/* Where a reader's bytes come from: read() gives up to len bytes (0 at the
 * end, -1 with errno), seek() moves to a file offset (0, or -1 when it
 * cannot; NULL for a stream that only goes forward).  The reader never asks
 * for an offset it has not been given bytes up to. */
typedef struct {
    ssize_t (*read)(void *arg, void *buf, size_t len);
    int     (*seek)(void *arg, uint64_t off);
    void    *arg;
} fpmlog_source;

/* Reads from src (copied).  NULL on ENOMEM. */
fpmlog_reader *fpmlog_reader_new(const fpmlog_source *src);

/* Reads from fd, which the reader does not close. */
fpmlog_reader *fpmlog_reader_fdopen(int fd);

/* Starts reading fd (or src) afresh, as a new reader would, keeping the
 * buffers (fuzzing, many small inputs); a file the reader opened is closed. */
void fpmlog_reader_reset(fpmlog_reader *r, int fd);
void fpmlog_reader_reset_source(fpmlog_reader *r, const fpmlog_source *src);

/* 1: a record in *rec.  0: end of the file.  -1: damage described in *dmg
 * (reading may go on), or, with dmg->open_tail, the notice that the file
 * ends inside its last frame (pos.offset the frame's).  -2: read error,
 * described in dmg->what (stop). */
int fpmlog_reader_next(fpmlog_reader *r, fpmlog_record *rec, fpmlog_damage *dmg);

/* Decodes the zstd frames ahead on decoders threads (1 to 4) while the
 * caller takes records; what comes back is what the reader alone gives,
 * record for record and damage for damage.  For a reader of a regular
 * file only: 0, or -1 when it is not one or the threads could not start
 * (the reader goes on alone). */
int fpmlog_reader_ahead(fpmlog_reader *r, int decoders);

/* Seeking: at each zstd frame magic, at file offset off, skip(arg, off)
 * says how many bytes to jump over (0: read the frame).  After a jump the
 * stream starts afresh, as at a file's start, and fpmlog_reader_next
 * returns 2 once, with the jump's offset in rec->pos.offset (and its length
 * in rec->len).  NULL (the default): everything is read. */
typedef uint64_t (*fpmlog_skip_fn)(void *arg, uint64_t off);
void fpmlog_reader_set_skip(fpmlog_reader *r, fpmlog_skip_fn skip, void *arg);

/* Bytes of the file consumed so far, for progress lines. */
uint64_t fpmlog_reader_tell(const fpmlog_reader *r);

/* Holding, so that a caller gathering records need not copy them: from
 * fpmlog_reader_hold(r, p), p a byte of the record just returned, that byte
 * and every one decoded after it stay in the reader until the hold is
 * released (or swapped), at the offset fpmlog_reader_offset(r, p) gave;
 * fpmlog_reader_at maps such an offset to where the byte is now (the reader
 * may move them while it grows).  A hold already taken stays where it is. */
void fpmlog_reader_hold(fpmlog_reader *r, const void *p);
int fpmlog_reader_holds(const fpmlog_reader *r, const void *p); /* p in the held or current bytes */
uint64_t fpmlog_reader_offset(const fpmlog_reader *r, const void *p);
const unsigned char *fpmlog_reader_at(const fpmlog_reader *r, uint64_t off);
void fpmlog_reader_release(fpmlog_reader *r);
/* The held bytes given away whole, with the hold: *buf becomes the
 * reader's buffer (of *cap bytes, the offset of its first in *off), and the
 * reader takes the caller's *buf (of *cap bytes; NULL and 0 are fine) for
 * the bytes it has not returned yet.  0, or FPM_ENOMEM (nothing
 * changed). */
int fpmlog_reader_swap(fpmlog_reader *r, unsigned char **buf, size_t *cap, uint64_t *off);

void fpmlog_reader_free(fpmlog_reader *r);

/* Writer: records into fd, plain or as zstd frames.  It never prints. */
typedef struct fpmlog_writer fpmlog_writer;

/* level 0 writes plain records; 1..19 zstd at that level.  NULL on ENOMEM. */
fpmlog_writer *fpmlog_writer_new(int fd, int level);

/* The same, giving the bytes to sink instead (it returns 0, or -1 with
 * errno); the recorder buffers a round this way. */
typedef int (*fpmlog_sink)(void *arg, const void *buf, size_t len);
fpmlog_writer *fpmlog_writer_to(fpmlog_sink sink, void *arg, int level);

/* Forgets the frame in progress (its bytes were lost): the next record
 * starts a new frame. */
void fpmlog_writer_reset(fpmlog_writer *w);

/* Appends one record; source NULL means "-".  0 ok, -1 with errno set. */
int fpmlog_write(fpmlog_writer *w, const char *type, uint64_t mono, uint64_t real,
                 const char *source, size_t source_len,
                 const void *payload, size_t len);

/* Formats the header line of a record (with its '\n') into buf, which holds
 * FPMLOG_HDR_MAX bytes.  Returns its length, or -1 (errno EINVAL) when the
 * record cannot be written (too long a payload or source). */
int fpmlog_header(char *buf, const char *type, uint64_t mono, uint64_t real,
                  const char *source, size_t source_len, const void *payload, size_t len);

/* The bytes of the records written since the current frame began (headers
 * and all, as they are before compression); 0 after a frame ends or a reset. */
uint64_t fpmlog_writer_frame_bytes(const fpmlog_writer *w);

/* Pushes everything written so far to fd (zstd: ZSTD_e_flush); nothing
 * when no record was written since the frame began. */
int fpmlog_writer_flush(fpmlog_writer *w);

/* Ends the current zstd frame (ZSTD_e_end); the next record starts a new
 * one.  For plain writers the same as flush. */
int fpmlog_writer_end_frame(fpmlog_writer *w);

/* Frees w without writing anything more; NULL is fine. */
void fpmlog_writer_free(fpmlog_writer *w);

/* Percent-encodes src into dst (every byte <= 0x20, 0x7F and '%' as %XX; a
 * source equal to "-" as %2D; an empty one as "-", none).
 * Returns the encoded length; dst needs 3 * len + 4 bytes. */
size_t fpmlog_encode_source(char *dst, const char *src, size_t len);

/* The reverse, as readers decode SOURCE: "%XX" (either case of hex) is the
 * byte; a '%' not followed by two hex digits stays.  Returns the decoded
 * length; dst holds len bytes. */
size_t fpmlog_decode_source(char *dst, const char *src, size_t len);

/* Finds key in a key=value payload (HOST, POOL, ROUND).  Returns the n-th
 * (from 0) value's start and sets *vlen, or NULL when there is none. */
const char *fpmlog_kv(const unsigned char *payload, size_t len, const char *key,
                      unsigned n, size_t *vlen);

/* n bytes of decimal digits as a number that fits in 64 bits: 0, or -1 when
 * they are none, not all digits, or too many (the header's MONO, REAL, LEN
 * and every number of a key=value payload). */
int fpmlog_u64(const char *s, size_t n, uint64_t *v);

/* Writes "key=v\n" at d (which has room for the key and 22 bytes more), as
 * the recorder's ROUND payload has them, without printf; its length. */
size_t fpmlog_kv_put(char *d, const char *key, uint64_t v);

/* The first value of key as such a number: 0, or -1 when it is missing or
 * is not one. */
int fpmlog_kv_u64(const unsigned char *payload, size_t len, const char *key, uint64_t *v);

#endif
