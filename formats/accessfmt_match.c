/* php-fpm's access.format: its lines matched (docs/rules.md 20.2;
 * accessfmt.h): one pass where the format has one split at most, else
 * backtracking, then the exact search for a hostile line.  Compiling is
 * in accessfmt.c. */
#define _GNU_SOURCE /* memmem */
#include "accessfmt.h"

#include <stdlib.h>
#include <string.h>

#include "accessfmt_split.h"
#include "rc.h"

/* The rows of the exact search: for each item i and position p, whether
 * items i.. match line[p..) to its end; a bit each, in 64-bit words. */
#define WORDS ((AF_MAX_LINE + 1 + 63) / 64)

int af_matcher_init(af_matcher *m, const af_format *f)
{
    memset(m, 0, sizeof *m);
    size_t n = f->n;
    m->n = n;
    m->span = calloc(n ? n : 1, sizeof *m->span);
    m->stack = calloc(2 * (n + 1), sizeof *m->stack);
    m->rows = calloc(n + 1, WORDS * sizeof *m->rows);
    if (!m->span || !m->stack || !m->rows) {
        af_matcher_free(m);
        return FPM_ENOMEM;
    }
    return 0;
}

void af_matcher_free(af_matcher *m)
{
    free(m->span);
    free(m->stack);
    free(m->rows);
    memset(m, 0, sizeof *m);
}

static int digit(unsigned char x)
{
    return (unsigned)(x - '0') < 10u;
}

/* php-fpm's time at line[pos..): its end, or 0.  [0-9]{2}/[^/ ]+/[0-9]{4}
 * :[0-9]{2}:[0-9]{2}:[0-9]{2} [-+][0-9]{4}: the month runs to the next '/'
 * (it cannot hold one), so there is one candidate at most. */
static size_t time_end(const unsigned char *l, size_t len, size_t pos)
{
    size_t i = pos;
    if (len - i < 3 || !digit(l[i]) || !digit(l[i + 1]) || l[i + 2] != '/')
        return 0;
    i += 3;
    size_t m = i;
    while (i < len && l[i] != '/' && l[i] != ' ')
        i++;
    if (i == m || i == len || l[i] != '/')
        return 0;
    i++;
    /* dddd:dd:dd:dd sdddd: d a digit, s a sign; the punctuation at 4, 7,
     * 10, 13, the sign at 14 */
    if (len - i < 19 || l[i + 4] != ':' || l[i + 7] != ':' || l[i + 10] != ':' ||
        l[i + 13] != ' ' || (l[i + 14] != '-' && l[i + 14] != '+'))
        return 0;
    static const unsigned char at[] = {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 15, 16, 17, 18};
    for (size_t k = 0; k < sizeof at; k++)
        if (!digit(l[i + at[k]]))
            return 0;
    return i + 19;
}

static unsigned char lit_first(const af_format *f, const af_item *it)
{
    return (unsigned char)f->lits[it->lit];
}

static unsigned char lit_last(const af_format *f, const af_item *it)
{
    return (unsigned char)f->lits[it->lit + it->len - 1];
}

static inline int lit_at(const af_format *f, const af_item *it, const unsigned char *l,
                         size_t len, size_t p)
{
    if (it->len == 1) /* most literals are a space: no call */
        return p < len && l[p] == lit_first(f, it);
    return len - p >= it->len && memcmp(l + p, f->lits + it->lit, it->len) == 0;
}

/* The first place of literal it in l[from..to), or to when it is not
 * there: a one-byte literal (most are a space) looked for a few bytes
 * without a call, then by memchr. */
static inline size_t lit_find(const af_format *f, const af_item *it, const unsigned char *l,
                              size_t from, size_t to)
{
    const unsigned char *hit = NULL;
    if (it->len == 1) {
        unsigned char c = lit_first(f, it);
        size_t k = from;
        for (; k < to && k - from < 16; k++)
            if (l[k] == c)
                return k;
        hit = k < to ? memchr(l + k, c, to - k) : NULL;
    } else if (from < to) {
        hit = memmem(l + from, to - from, f->lits + it->lit, it->len);
    }
    return hit ? (size_t)(hit - l) : to;
}

/* x in class c, by the format's table */
static int of_class(const af_format *f, af_class c, unsigned char x)
{
    return f->in[x] >> c & 1;
}

/* ---- the first pass: backtracking, candidates in the pattern's order */

#define NONE UINT32_MAX

/* Item i's first candidate at pos, into *next (NONE: none).  Literal and
 * time: their one end; a class of characters: the longest run; text: pos
 * itself. */
static inline void first_candidate(const af_format *f, size_t i, const unsigned char *l,
                                   size_t len, size_t pos, uint32_t *next)
{
    const af_item *it = &f->item[i];
    *next = NONE;
    switch ((af_class)it->cls) {
    case AF_LIT:
        if (lit_at(f, it, l, len, pos))
            *next = (uint32_t)(pos + it->len);
        break;
    case AF_TIME: {
        size_t e = time_end(l, len, pos);
        if (e)
            *next = (uint32_t)e;
        break;
    }
    case AF_TEXT:
        *next = (uint32_t)pos;
        break;
    default: {
        size_t e = pos;
        while (e < len && of_class(f, (af_class)it->cls, l[e]))
            e++;
        if (e > pos)
            *next = (uint32_t)e;
    }
    }
}

/* Item i's candidate to try now (from *next), advancing *next past it;
 * NONE when none is left.  A text item skips the ends at which the item
 * after it cannot begin (a literal that is not there, a class or a time
 * whose first character is not), and the last item, text, has one end,
 * the line's: what is tried keeps the backtracking matcher's order. */
static uint32_t take_candidate(const af_format *f, size_t i, const unsigned char *l, size_t len,
                               size_t pos, uint32_t *next)
{
    const af_item *it = &f->item[i];
    uint32_t e = *next;
    if (e == NONE)
        return NONE;
    switch ((af_class)it->cls) {
    case AF_LIT:
    case AF_TIME:
        *next = NONE;
        return e;
    case AF_TEXT: {
        if (i + 1 == f->n) { /* the last item: the rest of the line */
            *next = NONE;
            return (uint32_t)len;
        }
        const af_item *after = &f->item[i + 1];
        size_t k = e;
        if (after->cls == AF_LIT) {
            if ((k = lit_find(f, after, l, k, len)) == len) {
                *next = NONE;
                return NONE;
            }
        } else if (after->cls != AF_TEXT) { /* a class, or a time: its first character */
            while (k < len && !(after->cls == AF_TIME ? digit(l[k])
                                                      : of_class(f, (af_class)after->cls, l[k])))
                k++;
            if (k >= len) {
                *next = NONE;
                return NONE;
            }
        }
        *next = k < len ? (uint32_t)(k + 1) : NONE;
        return (uint32_t)k;
    }
    default: /* the longest run first, then one shorter at a time */
        *next = e - 1 > pos ? e - 1 : NONE;
        return e;
    }
}

/* The backtracking search, within budget steps: 1 matched (spans set), 0
 * not, -1 over budget. */
static int backtrack(af_matcher *m, const af_format *f, const unsigned char *l, size_t len,
                     uint64_t budget)
{
    size_t n = f->n, d = 0;
    uint32_t *st = m->stack; /* st[2 d]: where item d began; st[2 d + 1]: its next end */
    st[0] = 0;
    if (n)
        first_candidate(f, 0, l, len, 0, &st[1]);
    for (;;) {
        if (d == n) { /* every item placed */
            if (st[2 * d] == len)
                return 1;
            if (d == 0)
                return 0;
            d--; /* the end is not the line's: back to the last item */
            continue;
        }
        if (++m->steps > budget)
            return -1;
        uint32_t pos = st[2 * d];
        uint32_t e = take_candidate(f, d, l, len, pos, &st[2 * d + 1]);
        if (e == NONE) {
            if (d == 0)
                return 0;
            d--;
            continue;
        }
        m->span[d] = (af_span){pos, e - pos};
        d++;
        st[2 * d] = e;
        if (d < n)
            first_candidate(f, d, l, len, e, &st[2 * d + 1]);
    }
}

/* ---- the split: one pass where the format allows one split at most */

/* Whether every line has one split at most, found by split() (accessfmt.h):
 * before the first text item, literals, times, and classes each followed by
 * a literal whose first byte they cannot hold (or by the line's end); from
 * the first text item to the last, text and literal in turn; after it, a
 * literal, then classes each after a literal whose last byte they cannot
 * hold, and literals. */
void af_plan_split(af_format *f)
{
    size_t n = f->n, a = n, z = n;
    for (size_t i = 0; i < n; i++)
        if (f->item[i].cls == AF_TEXT) {
            if (a == n)
                a = i;
            z = i;
        }
    f->split = 0;
    f->text_first = (uint32_t)a;
    f->text_last = (uint32_t)z;
    for (size_t i = 0; i < n; i++) {
        const af_item *it = &f->item[i];
        af_class c = (af_class)it->cls;
        int field = c != AF_LIT && c != AF_TEXT && c != AF_TIME;
        if (i < a) { /* before: left to right */
            if (field && i + 1 < n &&
                (f->item[i + 1].cls != AF_LIT || of_class(f, c, lit_first(f, &f->item[i + 1]))))
                return;
        } else if (i <= z) { /* text, literal, text, ... */
            if (c != ((i - a) % 2 ? AF_LIT : AF_TEXT))
                return;
        } else if (i == z + 1 ? c != AF_LIT
                   : c == AF_TIME || (field && (f->item[i - 1].cls != AF_LIT ||
                                                of_class(f, c, lit_last(f, &f->item[i - 1]))))) {
            return; /* after: right to left */
        }
    }
    f->split = 1;
}

/* The one split of line[0..len), when f->split: 1 (spans set) or 0.  The
 * items before the text take backtracking's first candidate, their only
 * one; the helpers it calls are inline (called, they cost the census's
 * match a tenth). */
static int split(af_matcher *m, const af_format *f, const unsigned char *l, size_t len)
{
    size_t n = f->n, a = f->text_first, z = f->text_last, pos = 0, end = len;
    af_span *sp = m->span;
    for (size_t i = 0; i < a; i++) { /* before the text: each item's one end */
        uint32_t e;
        first_candidate(f, i, l, len, pos, &e);
        if (e == NONE)
            return 0;
        sp[i] = (af_span){(uint32_t)pos, e - (uint32_t)pos};
        pos = e;
    }
    if (a == n)
        return pos == len;
    for (size_t i = n; i-- > z + 1;) { /* after it: from the line's end */
        const af_item *it = &f->item[i];
        size_t s = end;
        if (it->cls == AF_LIT) {
            if (end - pos < it->len || !lit_at(f, it, l, end, end - it->len))
                return 0;
            s = end - it->len;
        } else {
            while (s > pos && of_class(f, (af_class)it->cls, l[s - 1]))
                s--;
            if (s == end)
                return 0;
        }
        sp[i] = (af_span){(uint32_t)s, (uint32_t)(end - s)};
        end = s;
    }
    for (size_t i = a; i < z; i += 2) { /* each text to its literal's first place */
        const af_item *it = &f->item[i + 1];
        size_t k = lit_find(f, it, l, pos, end);
        if (k == end)
            return 0;
        sp[i] = (af_span){(uint32_t)pos, (uint32_t)(k - pos)};
        sp[i + 1] = (af_span){(uint32_t)k, it->len};
        pos = k + it->len;
    }
    sp[z] = (af_span){(uint32_t)pos, (uint32_t)(end - pos)};
    return 1;
}

/* ---- the exact search: what backtracking would find, in items x length */

static int bit(const uint64_t *row, size_t p)
{
    return (int)(row[p / 64] >> (p % 64) & 1);
}

static void set_bit(uint64_t *row, size_t p)
{
    row[p / 64] |= (uint64_t)1 << (p % 64);
}

/* Row i from row i + 1: where items i.. match to the line's end.  A class
 * of characters at p: some end in (p, p + run] where the rest matches; text
 * at p: some end at or after p. */
static void fill_row(const af_format *f, size_t i, const unsigned char *l, size_t len,
                     uint64_t *row, const uint64_t *after)
{
    const af_item *it = &f->item[i];
    memset(row, 0, ((len + 64) / 64) * sizeof *row);
    size_t next = SIZE_MAX, run = 0; /* the nearest end past p where the rest matches */
    for (size_t p = len + 1; p-- > 0;) {
        int ok = 0;
        switch ((af_class)it->cls) {
        case AF_LIT:
            ok = lit_at(f, it, l, len, p) && bit(after, p + it->len);
            break;
        case AF_TIME: {
            size_t e = time_end(l, len, p);
            ok = e && bit(after, e);
            break;
        }
        case AF_TEXT:
            ok = bit(after, p) || next != SIZE_MAX;
            break;
        default:
            run = p < len && of_class(f, (af_class)it->cls, l[p]) ? run + 1 : 0;
            ok = run > 0 && next != SIZE_MAX && next <= p + run;
        }
        if (ok)
            set_bit(row, p);
        if (bit(after, p))
            next = p;
    }
}

static int exact(af_matcher *m, const af_format *f, const unsigned char *l, size_t len)
{
    size_t n = f->n;
    uint64_t *rows = m->rows;
    memset(rows + n * WORDS, 0, ((len + 64) / 64) * sizeof *rows);
    set_bit(rows + n * WORDS, len);
    for (size_t i = n; i-- > 0;) {
        fill_row(f, i, l, len, rows + i * WORDS, rows + (i + 1) * WORDS);
        m->steps += len + 1;
    }
    if (!bit(rows, 0))
        return 0;
    size_t pos = 0; /* each item's first end in its order at which the rest matches */
    for (size_t i = 0; i < n; i++) {
        const af_item *it = &f->item[i];
        const uint64_t *after = rows + (i + 1) * WORDS;
        size_t e = pos;
        if (it->cls == AF_LIT)
            e = pos + it->len;
        else if (it->cls == AF_TIME)
            e = time_end(l, len, pos);
        else if (it->cls == AF_TEXT)
            while (!bit(after, e))
                e++;
        else {
            while (e < len && of_class(f, (af_class)it->cls, l[e]))
                e++;
            while (!bit(after, e))
                e--;
        }
        m->span[i] = (af_span){(uint32_t)pos, (uint32_t)(e - pos)};
        pos = e;
    }
    return 1;
}

int af_match_exact(af_matcher *m, const af_format *f, const unsigned char *l, size_t len)
{
    m->steps = 0;
    return len <= AF_MAX_LINE && exact(m, f, l, len);
}

int af_match(af_matcher *m, const af_format *f, const unsigned char *l, size_t len)
{
    m->steps = 0;
    if (len > AF_MAX_LINE)
        return 0;
    if (f->split) {
        m->steps = f->n;
        return split(m, f, l, len);
    }
    /* most lines match on the first candidates: backtracking, until it has
     * taken a few times the line's length; past that, the exact search */
    int rc = backtrack(m, f, l, len, 4 * ((uint64_t)len + f->n + 16));
    return rc >= 0 ? rc : exact(m, f, l, len);
}
