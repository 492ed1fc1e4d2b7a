/* Messages on standard error. */
#include "msg.h"

#include <stdarg.h>
#include <stdio.h>

int msg_usage(const char *prog, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry \"%s --help\" for more information.\n", prog);
    return 2;
}
