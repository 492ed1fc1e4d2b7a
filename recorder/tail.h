/*
 * tail: php-fpm's access logs followed as `tail -F` follows a file
 * (fpmlog(5) ACCESS).  Each read gives the complete lines the file gained
 * since the last, byte for byte, each with its newline, and loses none it
 * can keep: a file renamed away (logrotate; php-fpm reopens its path on
 * SIGUSR1) is read to its end before the new file at its path is opened
 * and read from its start; a file shorter than what was read (logrotate's
 * copytruncate) is read again from 0; a line still being written waits for
 * the next read, and one that grows past 64 KiB without its newline is
 * dropped up to it; at most 16 MiB a read, the rest waiting for the next.
 * A file renamed away is followed until a new one is at its path, and
 * then read again at each read until it gains nothing: php-fpm's workers,
 * restarted gracefully when it reopens its logs, finish their requests
 * into the old file.
 * Every byte it skips, and why, is said through a note callback.  Where
 * each file stands is kept in a state file (tail_state_write), from which
 * a new start resumes.  It never prints.
 */
#ifndef TAIL_H
#define TAIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define TAIL_MAX_READ    (16u << 20) /* the most lines one read gives, bytes */
#define TAIL_MAX_PARTIAL 65536       /* a line without its newline past this is dropped */

typedef void (*tail_note_fn)(void *arg, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* One open file and where its reading stands. */
typedef struct {
    int            fd;        /* -1 while not open */
    uint64_t       pos;       /* the next byte of fd to read */
    unsigned char *part;      /* a line begun, its newline not written yet */
    size_t         plen, pcap;
    int            dropping;  /* a line past TAIL_MAX_PARTIAL, dropped up to its newline */
} tail_src;

typedef struct {
    char     *path;
    tail_src  cur;            /* the file at path (or renamed away, no new one yet) */
    tail_src  old;            /* one renamed away, read until it gains nothing */
    dev_t     dev;            /* cur's */
    ino_t     ino;
    int       moved;          /* cur is renamed away, no file at path yet: said once */
    int       behind;         /* more waited than one read gives: said once */
    int       err;            /* why path could not be opened (errno; EINVAL: not a
                                 regular file), 0 none */
} tail_file;

/* A file as a state file keeps it. */
typedef struct {
    char    *path;
    dev_t    dev;
    ino_t    ino;
    uint64_t pos;
    int      dropping;
} tail_saved;

/* Starts following path: where saved (n entries) has it with the file's
 * device and inode and the file is not shorter, there; else after the last
 * complete line of the file as it is (a new file, a restart after a
 * rotation); note says which, with the bytes skipped.  A file that cannot
 * be opened is tried again at each read.  0, or FPM_ENOMEM. */
int tail_start(tail_file *t, const char *path, const tail_saved *saved, size_t n,
               tail_note_fn note, void *arg);

/* The complete lines the file gained, at (*buf)[0..) (grown, *cap its
 * room): their length, 0 for none; -1 when the file is not open (t->err,
 * errno's number, says why; a file that appears later is read from its
 * start), FPM_ENOMEM (-2). */
long tail_read(tail_file *t, unsigned char **buf, size_t *cap, tail_note_fn note, void *arg);

void tail_close(tail_file *t);

/* The state of n files into path, through path.tmp renamed into place,
 * mode 0600: a line each, "DEV INO POS DROPPING PATH" (PATH percent-
 * encoded), POS the start of a line begun.  0, or -1 (errno). */
int tail_state_write(const char *path, const tail_file *t, size_t n);

/* The state file at path into *out (malloc'd, *n entries); a missing or
 * unreadable file is no state (0 entries), a line that does not parse is
 * skipped.  0, or FPM_ENOMEM. */
int tail_state_read(const char *path, tail_saved **out, size_t *n);
void tail_saved_free(tail_saved *s, size_t n);

#endif
