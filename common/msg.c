/* Messages on standard error. */
#include "msg.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *prog = "fpm-cpu";

void msg_init(const char *name)
{
    prog = name;
}

const char *msg_prog(void)
{
    return prog;
}

static void say(const char *fmt, va_list ap, const char *tail)
{
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    if (tail)
        fprintf(stderr, ": %s", tail);
    fputc('\n', stderr);
}

void msg_warnx(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(fmt, ap, NULL);
    va_end(ap);
}

void msg_warn(const char *fmt, ...)
{
    int e = errno;
    va_list ap;
    va_start(ap, fmt);
    say(fmt, ap, strerror(e));
    va_end(ap);
}

int msg_usage(const char *name, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry \"%s --help\" for more information.\n", name);
    return 2;
}
