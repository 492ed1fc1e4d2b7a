/* php-fpm's access.format compiled, and the values of a line matched
 * (docs/rules.md 20.2, 20.4; accessfmt.h).  The matching is in
 * accessfmt_match.c. */
#include "accessfmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "accessfmt_split.h"
#include "grow.h"
#include "rc.h"

/* ------------------------------------------------------------- compiling */


typedef struct {
    af_format *f;
    size_t     icap, lcap, llen;
} builder;

static int add_item(builder *b, af_class cls, af_role role)
{
    af_format *f = b->f;
    if (grow(&f->item, &b->icap, f->n + 1, sizeof *f->item, 16))
        return FPM_ENOMEM;
    f->item[f->n] = (af_item){(uint8_t)cls, (uint8_t)role, 0, 0};
    if (role != AF_NO_ROLE && f->first[role] < 0)
        f->first[role] = (int)f->n;
    f->n++;
    return 0;
}

/* Literal bytes: the last item grows where it is a literal. */
static int add_lit(builder *b, const char *s, size_t n)
{
    af_format *f = b->f;
    if (n > UINT32_MAX - b->llen || grow(&f->lits, &b->lcap, b->llen + n, 1, 64))
        return FPM_ENOMEM;
    memcpy(f->lits + b->llen, s, n);
    if (f->n == 0 || f->item[f->n - 1].cls != AF_LIT) {
        if (add_item(b, AF_LIT, AF_NO_ROLE))
            return FPM_ENOMEM;
        f->item[f->n - 1].lit = (uint32_t)b->llen;
    }
    f->item[f->n - 1].len += (uint32_t)n;
    b->llen += n;
    return 0;
}

static int arg_is(const char *a, size_t al, const char *word)
{
    return al == strlen(word) && strncasecmp(a, word, al) == 0;
}

/* A field's class and role, from its letter and argument (a NULL: none),
 * as php-fpm 8.2 reads them; -1 for one it does not know. */
static int field_of(builder *b, char x, const char *a, size_t al)
{
    af_format *f = b->f;
    switch (x) {
    case 'C': /* the arguments of %C, %d and %M ignore case */
        if (!a || arg_is(a, al, "total"))
            return add_item(b, AF_SHARE, AF_CPU);
        if (arg_is(a, al, "user") || arg_is(a, al, "system"))
            return add_item(b, AF_SHARE, AF_NO_ROLE);
        return -1;
    case 'd': {
        af_unit u;
        if (!a || arg_is(a, al, "seconds"))
            u = AF_SECONDS;
        else if (arg_is(a, al, "mili") || arg_is(a, al, "milli") ||
                 arg_is(a, al, "miliseconds") || arg_is(a, al, "milliseconds"))
            u = AF_MILLI;
        else if (arg_is(a, al, "micro") || arg_is(a, al, "microseconds"))
            u = AF_MICRO;
        else
            return -1;
        if (f->first[AF_DURATION] < 0)
            f->duration_unit = u;
        return add_item(b, AF_DECIMAL, AF_DURATION);
    }
    case 'M': {
        uint32_t unit;
        if (!a || arg_is(a, al, "bytes"))
            unit = 1;
        else if (arg_is(a, al, "kilo") || arg_is(a, al, "kilobytes"))
            unit = 1024;
        else if (arg_is(a, al, "mega") || arg_is(a, al, "megabytes"))
            unit = 1048576;
        else
            return -1;
        if (f->first[AF_MEMORY] < 0)
            f->memory_unit = unit;
        return add_item(b, AF_INTEGER, AF_MEMORY);
    }
    case 'e': /* a FastCGI parameter: its name is required */
        if (!a)
            return -1;
        return add_item(b, AF_TEXT, al == 11 && memcmp(a, "REQUEST_URI", 11) == 0
                                        ? AF_REQUEST_URI : AF_NO_ROLE);
    case 'o': /* a response header: its name is required */
        return a ? add_item(b, AF_TEXT, AF_NO_ROLE) : -1;
    case 't':
    case 'T': /* php-fpm's time, or one in a strftime format of the user's */
        return add_item(b, a ? AF_TEXT : AF_TIME, AF_NO_ROLE);
    default:
        break;
    }
    if (a) /* no other field takes an argument */
        return -1;
    switch (x) {
    case 'p': return add_item(b, AF_INTEGER, AF_PID);
    case 'P': case 'l': case 's': return add_item(b, AF_INTEGER, AF_NO_ROLE);
    case 'm': return add_item(b, AF_TEXT, AF_METHOD);
    case 'n': return add_item(b, AF_TEXT, AF_POOL);
    case 'r': return add_item(b, AF_TEXT, AF_SCRIPT);
    case 'q': return add_item(b, AF_TEXT, AF_QUERY);
    case 'Q': case 'f': case 'R': case 'u': return add_item(b, AF_TEXT, AF_NO_ROLE);
    case '%': return add_lit(b, "%", 1);
    default: return -1;
    }
}

/* "unusable: %{foo}d unknown", the field as written (at most 64 bytes). */
static void unknown(af_format *f, const char *s, size_t n)
{
    f->usable = 0;
    snprintf(f->reason, sizeof f->reason, "unusable: %.*s%s unknown", n > 64 ? 64 : (int)n, s,
             n > 64 ? "..." : "");
}

/* x in class c: share [-+0-9.a-zA-Z], decimal [0-9.], integer [0-9]; the
 * format's table (f->in) is made of it, and matching reads the table */
static int in_class(af_class c, unsigned char x)
{
    int digit = (unsigned)(x - '0') < 10u;
    if (c == AF_INTEGER)
        return digit;
    if (c == AF_DECIMAL)
        return digit || x == '.';
    return c == AF_SHARE && (digit || x == '.' || x == '-' || x == '+' ||
                             (unsigned)((x | 0x20) - 'a') < 26u);
}

int af_compile(af_format *f, const char *fmt, size_t len)
{
    af_free(f);
    for (int r = 0; r < AF_NROLES; r++)
        f->first[r] = -1;
    f->memory_unit = 1;
    builder b = {f, 0, 0, 0};
    size_t i = 0;
    while (i < len) {
        if (fmt[i] != '%') {
            size_t j = i;
            while (j < len && fmt[j] != '%')
                j++;
            if (add_lit(&b, fmt + i, j - i))
                return FPM_ENOMEM;
            i = j;
            continue;
        }
        size_t start = i++;
        if (i == len) /* a lone % at the end writes nothing */
            break;
        const char *a = NULL;
        size_t al = 0;
        if (fmt[i] == '{') {
            const char *close = memchr(fmt + i + 1, '}', len - i - 1);
            if (!close || (size_t)(close - fmt) + 1 == len) { /* unclosed, or no letter */
                unknown(f, fmt + start, len - start);
                return 0;
            }
            a = fmt + i + 1;
            al = (size_t)(close - a);
            i = (size_t)(close - fmt) + 1;
            if (al == 0) /* %{}X is %X */
                a = NULL;
        }
        int rc = field_of(&b, fmt[i], a, al);
        if (rc == FPM_ENOMEM)
            return rc;
        if (rc < 0) {
            unknown(f, fmt + start, i + 1 - start);
            return 0;
        }
        i++;
    }
    for (int x = 0; x < 256; x++)
        for (int c = AF_SHARE; c <= AF_INTEGER; c++)
            f->in[x] |= (uint8_t)(in_class((af_class)c, (unsigned char)x) << c);
    af_plan_split(f);
    f->usable = f->first[AF_CPU] >= 0 && f->first[AF_DURATION] >= 0 && f->first[AF_PID] >= 0;
    snprintf(f->reason, sizeof f->reason, "%s",
             f->usable                   ? "usable"
             : f->first[AF_CPU] < 0      ? "unusable: no %C"
             : f->first[AF_DURATION] < 0 ? "unusable: no duration"
                                         : "unusable: no %p");
    return 0;
}

void af_free(af_format *f)
{
    free(f->item);
    free(f->lits);
    memset(f, 0, sizeof *f);
}

/* ---------------------------------------------------------------- values */

int af_duration_us(const unsigned char *v, size_t n, af_unit u, uint64_t *us)
{
    size_t i = 0;
    uint64_t whole = 0, frac = 0;
    while (i < n && v[i] >= '0' && v[i] <= '9') {
        if (whole > (UINT64_MAX - 9) / 10)
            return -1;
        whole = whole * 10 + (uint64_t)(v[i++] - '0');
    }
    if (i == 0)
        return -1;
    if (u == AF_MICRO) {
        if (i != n)
            return -1;
        *us = whole;
        return 0;
    }
    size_t fd = 0; /* 0 to 3 decimals after a '.' */
    if (i < n) {
        if (v[i++] != '.' || i == n || n - i > 3)
            return -1;
        for (; i < n; i++, fd++) {
            if (v[i] < '0' || v[i] > '9')
                return -1;
            frac = frac * 10 + (uint64_t)(v[i] - '0');
        }
    }
    for (; fd < 3; fd++)
        frac *= 10; /* thousandths */
    if (u == AF_SECONDS) { /* a constant divisor each: no division a line */
        if (whole > (UINT64_MAX - frac * 1000) / 1000000)
            return -1;
        *us = whole * 1000000 + frac * 1000;
        return 0;
    }
    if (whole > (UINT64_MAX - frac) / 1000)
        return -1;
    *us = whole * 1000 + frac;
    return 0;
}

long af_uri(const af_matcher *m, const af_format *f, const unsigned char *l, char *buf,
            const char **uri)
{
    af_span s, q;
    int request_uri = af_value(m, f, AF_REQUEST_URI, &s);
    if (!request_uri && !af_value(m, f, AF_SCRIPT, &s))
        return -1;
    if (request_uri || !af_value(m, f, AF_QUERY, &q) || q.len == 0) {
        *uri = (const char *)l + s.off; /* one span of the line: no copy */
        return (long)s.len;
    }
    memcpy(buf, l + s.off, s.len); /* %r, '?' and %q: both within one line */
    buf[s.len] = '?';
    memcpy(buf + s.len + 1, l + q.off, q.len);
    *uri = buf;
    return (long)(s.len + 1 + q.len);
}

size_t af_redact(const af_matcher *m, const af_format *f, const unsigned char *l, size_t len,
                 unsigned char *out)
{
    size_t o = 0, at = 0;
    for (size_t i = 0; i < f->n; i++) {
        af_role r = (af_role)f->item[i].role;
        if (r != AF_REQUEST_URI && r != AF_SCRIPT && r != AF_QUERY)
            continue;
        af_span s = m->span[i];
        size_t keep = 0;
        if (r != AF_QUERY) {
            const unsigned char *qm = memchr(l + s.off, '?', s.len);
            keep = qm ? (size_t)(qm - (l + s.off)) : s.len;
        }
        memcpy(out + o, l + at, s.off + keep - at);
        o += s.off + keep - at;
        at = s.off + s.len;
    }
    memcpy(out + o, l + at, len - at);
    return o + len - at;
}
