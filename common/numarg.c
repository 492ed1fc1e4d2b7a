/* Numbers from outside, checked. */
#include "numarg.h"

#include <errno.h>
#include <stdint.h>
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

int num_size(const char *s, uint64_t *bytes, uint64_t min, uint64_t max)
{
    char *end;
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = *end == 'k' || *end == 'K'   ? 10
                   : *end == 'm' || *end == 'M' ? 20
                   : *end == 'g' || *end == 'G' ? 30 : 0;
    if (shift)
        end++;
    if (errno || *end || v > (UINT64_MAX >> shift) || (v << shift) < min || (v << shift) > max)
        return -1;
    *bytes = (uint64_t)v << shift;
    return 0;
}

