/*
 * msg: the one message style of both programs: "PROG: what went wrong" on
 * standard error, lower-case, no final period.  The program names itself
 * once with msg_init; shared code that must stay quiet takes a stream and
 * a name instead (replay), or returns the text (everything else).
 */
#ifndef MSG_H
#define MSG_H

/* The program's name for every message (default "fpm-cpu"). */
void msg_init(const char *prog);
const char *msg_prog(void);

/* "PROG: TEXT" and a newline on standard error. */
void msg_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The same, then ": " and strerror(errno) of the errno at the call. */
void msg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Says a usage error and how to get help; returns 2, the exit code. */
int msg_usage(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
