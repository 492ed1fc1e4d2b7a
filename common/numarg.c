/* Numbers from outside, checked. */
#include "numarg.h"

#include <errno.h>
#include <stdlib.h>

int num_whole(const char *s, long long lo, long long hi, long long *v)
{
    char *end;
    if (!((*s >= '0' && *s <= '9') || (*s == '-' && lo < 0)))
        return -1; /* strtoll would skip spaces and take a '+' */
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || end == s || *end || x < lo || x > hi)
        return -1;
    *v = x;
    return 0;
}

int num_real(const char *s, double lo, double hi, double *v)
{
    char *end;
    if (!((*s >= '0' && *s <= '9') || *s == '.' || (*s == '-' && lo < 0)))
        return -1;
    errno = 0;
    double x = strtod(s, &end);
    if (errno || end == s || *end || !(x >= lo && x <= hi))
        return -1;
    *v = x;
    return 0;
}
