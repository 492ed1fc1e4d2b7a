/* Parsing and printing the times of --from and --until. */
#include "timearg.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>

/* n digits at *p into *v; advances. */
static int digits(const char **p, int n, int *v)
{
    *v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)(*p)[i]))
            return -1;
        *v = *v * 10 + ((*p)[i] - '0');
    }
    *p += n;
    return 0;
}

/* HH:MM[:SS[.fff]] at *p; advances. */
static int clock_part(const char **p, int *h, int *m, int *sec, long *nsec)
{
    *sec = 0;
    *nsec = 0;
    if (digits(p, 2, h) || **p != ':' || (++*p, digits(p, 2, m)))
        return -1;
    if (**p == ':') {
        ++*p;
        if (digits(p, 2, sec))
            return -1;
        if (**p == '.' || **p == ',') {
            ++*p;
            long scale = 100000000;
            if (!isdigit((unsigned char)**p))
                return -1;
            while (isdigit((unsigned char)**p)) {
                *nsec += (**p - '0') * scale;
                scale /= 10;
                ++*p;
            }
        }
    }
    return *h > 23 || *m > 59 || *sec > 60 ? -1 : 0;
}

ta_result timearg_parse(const char *s, uint64_t *ns, long *sec_of_day)
{
    const char *p = s;
    int y, mo, d, h, mi, sec;
    long nsec;
    if (*p == '@') {
        char *end;
        unsigned long long e = strtoull(p + 1, &end, 10);
        if (end == p + 1 || *end || !isdigit((unsigned char)p[1]))
            return TA_BAD;
        *ns = (uint64_t)e * 1000000000ull;
        return TA_OK;
    }
    if (strlen(s) <= 8 && clock_part(&p, &h, &mi, &sec, &nsec) == 0 && *p == '\0') {
        *sec_of_day = h * 3600L + mi * 60L + sec;
        return TA_CLOCK;
    }
    p = s;
    if (digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) || *p++ != '-' ||
        digits(&p, 2, &d) || (*p != 'T' && *p != 't' && *p != ' '))
        return TA_BAD;
    p++;
    if (clock_part(&p, &h, &mi, &sec, &nsec) || mo < 1 || mo > 12 || d < 1 || d > 31)
        return TA_BAD;
    long offset = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int sign = *p++ == '-' ? -1 : 1, oh, om = 0;
        if (digits(&p, 2, &oh))
            return TA_BAD;
        if (*p == ':')
            p++;
        if (*p && digits(&p, 2, &om))
            return TA_BAD;
        offset = sign * (oh * 3600L + om * 60L);
    } else if (*p == '\0') {
        return TA_NO_ZONE;
    }
    if (*p)
        return TA_BAD;
    struct tm tm = {0};
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = sec;
    time_t t = timegm(&tm) - offset;
    if (t < 0)
        return TA_BAD;
    *ns = (uint64_t)t * 1000000000ull + (uint64_t)nsec;
    return TA_OK;
}

void timearg_format(uint64_t ns, char *out)
{
    time_t t = (time_t)(ns / 1000000000ull);
    struct tm tm;
    gmtime_r(&t, &tm);
    size_t n = strftime(out, 40, "%Y-%m-%dT%H:%M:%S", &tm);
    unsigned ms = (unsigned)(ns % 1000000000ull / 1000000);
    if (ns % 1000000000ull)
        snprintf(out + n, 40 - n, ".%03uZ", ms);
    else
        snprintf(out + n, 40 - n, "Z");
}
