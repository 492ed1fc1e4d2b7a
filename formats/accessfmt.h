/*
 * accessfmt: php-fpm's access.format compiled into a matcher of the lines
 * it writes (docs/rules.md 20.2), for the recorder (--redact-query) and
 * the analyzer (every request of a censused pool).
 *
 * A format is a list of items: literal bytes (every byte but a field, `%%`
 * a literal %) and fields (`%X`, `%{ARG}X`), each of a class of value:
 * share `[-+0-9.a-zA-Z]+`, decimal `[0-9.]+`, integer `[0-9]+`, time
 * (php-fpm's `%d/%b/%Y:%H:%M:%S %z`), each longest first, and text (any
 * bytes, the empty run included), shortest first.  A line matches when
 * the whole of it fits; where several splits fit, the one a backtracking
 * matcher finds first (Python's re.fullmatch of the same pattern).  Lines
 * are matched by backtracking for a few times their length in steps;
 * past that, by an exact search that knows for each (item, position)
 * whether the rest can match from there and takes the same split: a
 * hostile line costs at most items x (length + 1) steps more, never the
 * exponential time of plain backtracking.
 *
 * Most formats have one split at most, found in one pass: 20.7's and any
 * whose fields before the first text field and after the last are each
 * bounded by literals they cannot hold (`%p `, ` %C%%`), and whose text
 * fields are separated by a literal each (`%m %{REQUEST_URI}e`).  The
 * fields before are read left to right, those after right to left from
 * the line's end, and each text field ends at its literal's first place:
 * the split backtracking would find (tests/accessfmt/re_equal.py).
 */
#ifndef ACCESSFMT_H
#define ACCESSFMT_H

#include <stddef.h>
#include <stdint.h>

#define AF_MAX_LINE 4096 /* a longer line does not match (php-fpm 8.2 writes 1024) */

/* 20.7: the access.format that censuses a pool, as the recorder, the
 * report and `routes` tell operators to add it */
#define AF_CENSUS_FORMAT "%t %p %m %{REQUEST_URI}e %s %{mili}d %{kilo}M %C%%"

typedef enum { AF_LIT, AF_SHARE, AF_DECIMAL, AF_INTEGER, AF_TIME, AF_TEXT } af_class;

/* What a field's value is to the rules; AF_NO_ROLE for the rest. */
typedef enum {
    AF_CPU,          /* %C, %{total}C */
    AF_DURATION,     /* %d in any unit */
    AF_PID,          /* %p */
    AF_MEMORY,       /* %M in any unit */
    AF_METHOD,       /* %m */
    AF_POOL,         /* %n */
    AF_REQUEST_URI,  /* %{REQUEST_URI}e: the visitor's URI */
    AF_SCRIPT,       /* %r: the script php-fpm ran */
    AF_QUERY,        /* %q: its query string */
    AF_NROLES,
    AF_NO_ROLE = 255
} af_role;

typedef enum { AF_SECONDS, AF_MILLI, AF_MICRO } af_unit;

typedef struct {
    uint8_t  cls;        /* af_class */
    uint8_t  role;       /* af_role, every place of it (first[] says the first) */
    uint32_t lit, len;   /* AF_LIT: its bytes, lits[lit .. lit + len) */
} af_item;

typedef struct {
    af_item *item;
    size_t   n;
    char    *lits;
    int      first[AF_NROLES]; /* the item of each role's first place, -1 none */
    af_unit  duration_unit;    /* of the first %d */
    uint32_t memory_unit;      /* bytes per unit of the first %M: 1, 1024, 1048576 */
    int      usable;           /* not unusable, with %C, a duration and %p */
    int      split;            /* af_match splits its lines by their literals (below) */
    uint32_t text_first, text_last; /* its first and last text items; n when none */
    uint8_t  in[256];          /* bit c of in[x]: byte x is in class c (a share, ...) */
    char     reason[112];      /* "usable", "unusable: no %C", "unusable: no duration",
                                  "unusable: no %p", "unusable: %{foo}d unknown" */
} af_format;

/* Compiles fmt[0..len) (the access.format as php-fpm reads it, its quotes
 * removed) into f, which is replaced: f->usable and f->reason say what it
 * is.  0, or FPM_ENOMEM. */
int af_compile(af_format *f, const char *fmt, size_t len);
void af_free(af_format *f);

typedef struct {
    uint32_t off, len;
} af_span;

/* What matching needs, sized for one format: the items' spans of the last
 * line matched, the backtracking's stack, the exact search's rows. */
typedef struct {
    af_span  *span;
    uint32_t *stack;
    uint64_t *rows;
    size_t    n;
    uint64_t  steps;     /* candidates tried and cells filled by the last af_match */
} af_matcher;

/* 0, or FPM_ENOMEM. */
int af_matcher_init(af_matcher *m, const af_format *f);
void af_matcher_free(af_matcher *m);

/* 1 when line[0..len) (without its newline) matches f, its items' spans
 * then in m->span; 0 when not (a line over AF_MAX_LINE bytes never does). */
int af_match(af_matcher *m, const af_format *f, const unsigned char *line, size_t len);

/* The same by the exact search alone (tests compare the two). */
int af_match_exact(af_matcher *m, const af_format *f, const unsigned char *line, size_t len);

/* The span of role r's first place in the line last matched: 1, or 0 when
 * the format has none. */
static inline int af_value(const af_matcher *m, const af_format *f, af_role r, af_span *out)
{
    if (r >= AF_NROLES || f->first[r] < 0)
        return 0;
    *out = m->span[f->first[r]];
    return 1;
}

/* 20.4: a duration's value in microseconds in unit u: seconds and
 * milliseconds are digits, optionally '.' and one to three digits,
 * converted exactly; microseconds digits only.  0, or -1 (no duration). */
int af_duration_us(const unsigned char *v, size_t n, af_unit u, uint64_t *us);

/* 20.2: the URI of the line last matched, in *uri: %{REQUEST_URI}e's
 * value where the format has it, else %r's, and '?' and %q's where the
 * format has %q and it is not empty.  *uri points into the line where the
 * URI is one span of it, else into buf (at least AF_MAX_LINE + 1 bytes).
 * Its length, or -1 when the format has neither. */
long af_uri(const af_matcher *m, const af_format *f, const unsigned char *line, char *buf,
            const char **uri);

/* --redact-query: the line last matched into out (at least len bytes) with
 * every place of %r and %{REQUEST_URI}e cut at its first '?' and every %q
 * emptied; returns the new length. */
size_t af_redact(const af_matcher *m, const af_format *f, const unsigned char *line, size_t len,
                 unsigned char *out);

#endif
