/*
 * msg: the one message style of both programs: "PROG: what went wrong" on
 * standard error, lower-case, no final period.
 */
#ifndef MSG_H
#define MSG_H

/* Says a usage error and how to get help; returns 2, the exit code. */
int msg_usage(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
