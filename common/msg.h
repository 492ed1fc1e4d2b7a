/*
 * msg: the one message style of both programs: "PROG: what went wrong" on
 * standard error, lower-case, no final period.  The program names itself
 * once with msg_init; every message of both programs is written here, and
 * nowhere else (tests point the stream at memory with msg_stream).
 */
#ifndef MSG_H
#define MSG_H

#include <stdint.h>
#include <stdio.h>

/* The program's name for every message (default "fpm-cpu"). */
void msg_init(const char *prog);
const char *msg_prog(void);

/* Where messages go: f, or standard error again for NULL. */
void msg_stream(FILE *f);

/* "PROG: TEXT" and a newline. */
void msg_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The same, then ": " and strerror(errno) of the errno at the call. */
void msg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A message said in parts: "PROG: " and the first part, more parts, then
 * the newline (a list whose length is known only as it is written). */
void msg_start(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_more(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_end(void);

/* Damage at a position of a log: "PROG: LOG: offset N: WHAT", with "in the
 * zstd frame there, decoded byte M: " before WHAT when it is inside a
 * frame (offset is then the frame's). */
void msg_damage(const char *log, uint64_t offset, int in_frame, uint64_t decoded,
                const char *what);

/* A progress line on a terminal: "\rPROG: TEXT", the rest of the line
 * wiped; msg_progress_clear wipes it when the work is done. */
void msg_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_progress_clear(void);

/* A problem said once until it changes: msg_changed(&o, now), now the
 * problem's text ("" for none), is MSG_NEW when now is a problem other
 * than the one said last (say it), MSG_GONE when the one said is gone (say
 * so, if that is news), else 0; o remembers now. */
typedef struct {
    char last[600];
} msg_once;
enum { MSG_NEW = 1, MSG_GONE = 2 };
int msg_changed(msg_once *o, const char *now);

/* Says a usage error and how to get help; returns 2, the exit code. */
int msg_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
