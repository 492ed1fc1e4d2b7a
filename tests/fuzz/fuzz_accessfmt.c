/* libFuzzer: php-fpm's access.format and the lines it writes (docs/rules.md
 * 20.2).  The input's first line is the format, each line after it a line
 * of the log.  A matched line's spans cover it in order, each field's
 * value is of its class, the URI and the redacted line fit where they
 * must, the work stays within its bound, and where the format splits in
 * one pass, the split is the exact search's. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "accessfmt.h"

static void spans_hold(const af_format *f, const af_matcher *m, const unsigned char *l, size_t n)
{
    size_t at = 0;
    for (size_t i = 0; i < f->n; i++) {
        const af_span s = m->span[i];
        if (s.off != at || s.len > n - at)
            __builtin_trap(); /* the items cover the line, in order */
        if (f->item[i].cls == AF_LIT &&
            (s.len != f->item[i].len || memcmp(l + s.off, f->lits + f->item[i].lit, s.len)))
            __builtin_trap();
        if (f->item[i].cls == AF_INTEGER)
            for (size_t k = 0; k < s.len; k++)
                if (l[s.off + k] < '0' || l[s.off + k] > '9')
                    __builtin_trap();
        at += s.len;
    }
    if (at != n)
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const unsigned char *nl = memchr(data, '\n', size);
    size_t fl = nl ? (size_t)(nl - data) : size;
    af_format f = {0};
    af_matcher m, x;
    if (af_compile(&f, (const char *)data, fl) != 0)
        return 0;
    if (af_matcher_init(&m, &f) != 0) {
        af_free(&f);
        return 0;
    }
    if (af_matcher_init(&x, &f) != 0) {
        af_matcher_free(&m);
        af_free(&f);
        return 0;
    }
    static char uri[AF_MAX_LINE + 1];
    const char *u;
    static unsigned char red[AF_MAX_LINE];
    size_t i = nl ? fl + 1 : size;
    while (i < size) {
        const unsigned char *e = memchr(data + i, '\n', size - i);
        size_t n = e ? (size_t)(e - (data + i)) : size - i;
        const unsigned char *l = data + i;
        int matched = af_match(&m, &f, l, n);
        if (f.split) { /* the one-pass split is the exact search's */
            uint64_t steps = m.steps;
            if (af_match_exact(&x, &f, l, n) != matched ||
                (matched && memcmp(m.span, x.span, f.n * sizeof *m.span) != 0))
                __builtin_trap();
            m.steps = steps;
        }
        if (matched) {
            spans_hold(&f, &m, l, n);
            if (af_uri(&m, &f, l, uri, &u) > (long)n + 1)
                __builtin_trap();
            if (af_redact(&m, &f, l, n, red) > n)
                __builtin_trap();
        }
        if (m.steps > 4 * ((uint64_t)n + f.n + 16) + 1 + (uint64_t)f.n * (n + 1))
            __builtin_trap(); /* polynomial, whatever the line */
        i += n + 1;
    }
    af_matcher_free(&m);
    af_matcher_free(&x);
    af_free(&f);
    return 0;
}
