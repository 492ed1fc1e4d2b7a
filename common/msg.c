/* Messages on standard error: every one of both programs. */
#include "msg.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

static const char *prog = "fpm-cpu";
static FILE *stream;

void msg_init(const char *name)
{
    prog = name;
}

const char *msg_prog(void)
{
    return prog;
}

void msg_stream(FILE *f)
{
    stream = f;
}

static FILE *out(void)
{
    return stream ? stream : stderr;
}

static void say(const char *fmt, va_list ap, const char *tail)
{
    fprintf(out(), "%s: ", prog);
    vfprintf(out(), fmt, ap);
    if (tail)
        fprintf(out(), ": %s", tail);
    fputc('\n', out());
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

void msg_start(const char *fmt, ...)
{
    va_list ap;
    fprintf(out(), "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(out(), fmt, ap);
    va_end(ap);
}

void msg_more(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(out(), fmt, ap);
    va_end(ap);
}

void msg_end(void)
{
    fputc('\n', out());
}

void msg_damage(const char *log, uint64_t offset, int in_frame, uint64_t decoded,
                const char *what)
{
    if (in_frame)
        fprintf(out(), "%s: %s: offset %llu: in the zstd frame there, decoded byte %llu: %s\n",
                prog, log, (unsigned long long)offset, (unsigned long long)decoded, what);
    else
        fprintf(out(), "%s: %s: offset %llu: %s\n", prog, log, (unsigned long long)offset, what);
}

void msg_progress(const char *fmt, ...)
{
    va_list ap;
    fprintf(out(), "\r%s: ", prog);
    va_start(ap, fmt);
    vfprintf(out(), fmt, ap);
    va_end(ap);
    fputs("\033[K", out());
    fflush(out());
}

void msg_progress_clear(void)
{
    fputs("\r\033[K", out());
}

int msg_changed(msg_once *o, const char *now)
{
    int was = o->last[0] != '\0';
    if (strncmp(o->last, now, sizeof o->last - 1) == 0)
        return 0;
    snprintf(o->last, sizeof o->last, "%s", now);
    return now[0] ? MSG_NEW : was ? MSG_GONE : 0;
}

int msg_usage(const char *fmt, ...)
{
    va_list ap;
    fprintf(out(), "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(out(), fmt, ap);
    va_end(ap);
    fprintf(out(), "\nTry \"%s --help\" for more information.\n", prog);
    return 2;
}
