/* php-fpm status page parser; see status.h for what it tolerates. */
#include "status.h"
#include "rc.h"

#include "escape.h"
#include "grow.h"

#include <stdlib.h>
#include <string.h>

/* A worker's keys, in the order php-fpm writes them (fpm_status.c), with
 * their lengths: the parser compares them for every key it reads. */
#define KEY(s) {s, sizeof s - 1}
static const struct {
    const char *s;
    size_t      n;
} KEYS[] = {
    KEY("pid"), KEY("state"), KEY("start time"), KEY("start since"), KEY("requests"),
    KEY("request duration"), KEY("request method"), KEY("request uri"),
    KEY("content length"), KEY("user"), KEY("script"), KEY("last request cpu"),
    KEY("last request memory"),
};
#define NKEYS (sizeof KEYS / sizeof KEYS[0])
enum { K_PID = 0, K_STATE = 1, K_START = 2, K_REQUESTS = 4, K_DURATION = 5, K_URI = 7, K_CPU = 11,
       K_MEMORY = 12 };

typedef struct {
    const char *b;
    size_t n, i;
} cursor;

static void skip_ws(cursor *c)
{
    while (c->i < c->n && (c->b[c->i] == ' ' || c->b[c->i] == '\t' || c->b[c->i] == '\n' ||
                           c->b[c->i] == '\r'))
        c->i++;
}

static int eat(cursor *c, char ch)
{
    skip_ws(c);
    if (c->i < c->n && c->b[c->i] == ch) {
        c->i++;
        return 1;
    }
    return 0;
}

/* Where needle first begins in b[from, n), or NULL.  Inline: every needle
 * is a literal, so its length and its comparison fold into the caller. */
static inline const char *find(const char *b, size_t n, const char *needle, size_t from)
{
    size_t k = strlen(needle);
    for (size_t i = from; i + k <= n; i++) {
        const char *c = memchr(b + i, needle[0], n - k + 1 - i); /* its first byte */
        if (!c)
            return NULL;
        i = (size_t)(c - b);
        if (memcmp(c, needle, k) == 0)
            return c;
    }
    return NULL;
}

static inline int parse_int(const char *s, size_t n, int64_t *out);

int status_parse_int(const char *s, size_t n, int64_t *out)
{
    return parse_int(s, n, out);
}

static inline int parse_int(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (i < n && s[i] == '-') {
        neg = 1;
        i++;
    }
    if (i == n)
        return -1;
    uint64_t v = 0;
    if (n - i <= 18) { /* 18 digits always fit */
        for (; i < n; i++) {
            unsigned d = (unsigned char)(s[i] - '0');
            if (d > 9)
                return -1;
            v = v * 10 + d;
        }
        *out = neg ? -(int64_t)v : (int64_t)v;
        return 0;
    }
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > ((uint64_t)INT64_MAX - d) / 10)
            return -1; /* does not fit in int64 */
        v = v * 10 + d;
    }
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

int status_cpu_hundredths(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    int neg = 0, nonzero = 0;
    if (i < n && s[i] == '-') {
        neg = 1;
        i++;
    }
    size_t int_start = i;
    int64_t v = 0;
    const int64_t cap = INT64_MAX / 1000;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        nonzero |= s[i] != '0';
        if (v < cap)
            v = v * 10 + (s[i] - '0');
    }
    if (i == int_start)
        return -1;
    int frac = 0;
    if (i < n && s[i] == '.') {
        size_t f0 = ++i;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
            nonzero |= s[i] != '0';
            if (i - f0 < 2)
                frac = frac * 10 + (s[i] - '0');
        }
        if (i == f0)
            return -1;
        if (i - f0 == 1)
            frac *= 10;
    }
    if (i != n)
        return -1;
    if (neg && nonzero)
        return 1;
    *out = v >= cap ? INT64_MAX : v * 100 + frac;
    return 0;
}

/* The index of key k, trying first the one php-fpm writes after the key
 * before (prev), then all. */
static int key_index(const char *k, size_t n, int prev)
{
    size_t want = (size_t)(prev + 1);
    if (want < NKEYS && KEYS[want].n == n && memcmp(KEYS[want].s, k, n) == 0)
        return (int)want;
    for (size_t i = 0; i < NKEYS; i++)
        if (KEYS[i].n == n && memcmp(KEYS[i].s, k, n) == 0)
            return (int)i;
    return -1;
}

/* True when b[q..] is `","KEY":` for the key php-fpm writes after key k. */
static int is_terminator(const char *b, size_t n, size_t q, int k)
{
    if ((size_t)k + 1 >= NKEYS || q + 3 > n || b[q] != '"' || b[q + 1] != ',' ||
        b[q + 2] != '"')
        return 0;
    const char *next = KEYS[k + 1].s;
    size_t kl = KEYS[k + 1].n;
    return q + 3 + kl + 2 <= n && memcmp(b + q + 3, next, kl) == 0 &&
           b[q + 3 + kl] == '"' && b[q + 4 + kl] == ':';
}

/* Where the worker object after the one at `from` begins, as php-fpm
 * writes it (`{"pid":`), or n: a worker's keys are read from its own object
 * only (docs/rules.md, "A worker's fields belong to its own object"), so a
 * key one worker lacks is never looked for in the next one. */
static size_t next_worker(const char *b, size_t n, size_t from)
{
    const char *w = find(b, n, "{\"pid\":", from);
    return w ? (size_t)(w - b) : n;
}

/* The end (position of the closing quote) of a string value starting at
 * c->i, just after its opening quote.  A known key's value ends where the
 * key php-fpm writes after it begins, looked for before lim (the next
 * worker's object); an unknown key's, or one whose next key never comes,
 * at the first quote that is not escaped.  Returns n when the string never
 * ends. */
static size_t string_end(const cursor *c, int k, size_t lim)
{
    const char *b = c->b;
    size_t n = c->n;
    if (k >= 0) {
        for (size_t q = c->i; q < lim; q++) {
            const char *at = memchr(b + q, '"', lim - q);
            if (!at)
                break;
            q = (size_t)(at - b);
            if (is_terminator(b, n, q, k))
                return q;
        }
    }
    for (size_t q = c->i; q < n; q++) {
        if (b[q] == '\\')
            q++;
        else if (b[q] == '"')
            return q;
    }
    return n;
}

static int grow_workers(status_page *pg)
{
    return grow(&pg->workers, &pg->cap, pg->nworkers + 1, sizeof *pg->workers, 64);
}

/* A number's text at c, for key k: it runs to the `,` before the next key
 * or to the `}` (a comma-locale php-fpm writes "last request cpu":67,57),
 * white space trimmed; c past it. */
static void number_value(cursor *c, int k, status_worker *w)
{
    size_t s = c->i;
    while (c->i < c->n && c->b[c->i] != '}' && c->b[c->i] != ']') {
        if (c->b[c->i] == ',') {
            size_t q = c->i + 1;
            while (q < c->n && (c->b[q] == ' ' || c->b[q] == '\n' || c->b[q] == '\t' ||
                                c->b[q] == '\r'))
                q++;
            if (q >= c->n || c->b[q] == '"')
                break;
        }
        c->i++;
    }
    size_t e = c->i;
    while (e > s && (c->b[e - 1] == ' ' || c->b[e - 1] == '\n' || c->b[e - 1] == '\t' ||
                     c->b[e - 1] == '\r'))
        e--;
    const char *t = c->b + s;
    size_t tl = e - s;
    if (k == K_PID)
        w->has_pid = status_parse_int(t, tl, &w->pid) == 0;
    else if (k == K_START) {
        w->start = t;
        w->start_len = tl;
    }
    else if (k == K_REQUESTS)
        w->has_requests = status_parse_int(t, tl, &w->requests) == 0;
    else if (k == K_DURATION)
        w->has_duration = status_parse_int(t, tl, &w->duration) == 0;
    else if (k == K_CPU) {
        w->has_cpu = 1;
        w->cpu = t;
        w->cpu_len = tl;
    } else if (k == K_MEMORY) /* 14.1: ASCII digits only, no sign ("-0" is none) */
        w->has_memory = tl > 0 && t[0] != '-' && status_parse_int(t, tl, &w->memory) == 0;
}

/* Parses one worker object at c (just past its '{'), the next worker's
 * object at lim (next_worker).  Returns 0 when the object closed, -1 when
 * the page ends or breaks inside it. */
static int parse_worker(status_page *pg, cursor *c, status_worker *w, size_t *so, size_t lim)
{
    int k = -1;
    for (;;) {
        skip_ws(c);
        if (c->i < c->n && c->b[c->i] == '}') {
            c->i++;
            return 0;
        }
        if (!eat(c, '"'))
            return -1;
        size_t ks = c->i;
        const char *kq = memchr(c->b + ks, '"', c->n - ks);
        if (!kq)
            return -1;
        c->i = (size_t)(kq - c->b);
        k = key_index(c->b + ks, c->i - ks, k);
        c->i++;
        if (!eat(c, ':'))
            return -1;
        skip_ws(c);
        if (c->i >= c->n)
            return -1;
        if (c->b[c->i] == '"') {
            c->i++;
            size_t e = string_end(c, k, lim);
            if (e >= c->n)
                return -1;
            if (k != K_STATE && k != K_URI) { /* the rules read no other string */
                c->i = e + 1;
                goto next;
            }
            char *d = pg->strbuf + *so;
            size_t dl = esc_json_unescape(d, c->b + c->i, e - c->i);
            d[dl] = '\0';
            *so += dl + 1;
            if (k == K_STATE) {
                w->has_state = 1;
                w->state = d;
                w->state_len = dl;
            } else if (k == K_URI) {
                w->has_uri = 1;
                w->uri = d;
                w->uri_len = dl;
            }
            c->i = e + 1;
        } else {
            number_value(c, k, w);
        }
    next:
        skip_ws(c);
        if (c->i < c->n && c->b[c->i] == ',')
            c->i++;
    }
}

/* The fast path: a worker object exactly as php-fpm writes it, its keys in
 * order, no white space, numbers plain.  Returns 0 with *w filled and c past
 * the '}', or -1 (c untouched) when the object is anything else: then the
 * general parser reads it.  The literals are constants, so the compiler
 * compares them inline. */
#define LIT(lit)                                                                  \
    do {                                                                          \
        if (i + sizeof lit - 1 > n || memcmp(b + i, lit, sizeof lit - 1) != 0)    \
            goto slow;                                                            \
        i += sizeof lit - 1;                                                      \
    } while (0)
/* a string value up to `"` + the next key's literal, in this worker's own
 * object: one where the next worker's object (`{"pid":`, first at lim)
 * begins before that quote is left to the general parser; [vs, ve).  lim
 * is looked for once a worker: no `{"pid":` can begin in the literals and
 * numbers before vs, and one in an earlier string sent the worker to the
 * general parser already, so lim < i says whether one begins in [vs, i). */
#define STR(next)                                                                 \
    do {                                                                          \
        vs = i;                                                                   \
        for (;;) {                                                                \
            const char *q = i < n ? memchr(b + i, '"', n - i) : NULL;             \
            if (!q)                                                               \
                goto slow;                                                        \
            i = (size_t)(q - b);                                                  \
            if (i + sizeof next <= n && memcmp(b + i + 1, next, sizeof next - 1) == 0) \
                break;                                                            \
            i++;                                                                  \
        }                                                                         \
        if (lim < i)                                                              \
            goto slow;                                                            \
        ve = i++;                                                                 \
    } while (0)
/* a number: [vs, ve) */
#define NUM()                                                                     \
    do {                                                                          \
        vs = i;                                                                   \
        while (i < n && ((b[i] >= '0' && b[i] <= '9') || b[i] == '.' || b[i] == '-')) \
            i++;                                                                  \
        if (i == vs)                                                              \
            goto slow;                                                            \
        ve = i;                                                                   \
    } while (0)

/* a number as NUM reads it, its value as status_parse_int gives it (has 0
 * when it is not -?[0-9]+ or does not fit), in the same pass over its
 * digits: [vs, ve) */
#define INT(out, has)                                                             \
    do {                                                                          \
        vs = i;                                                                   \
        i += i < n && b[i] == '-';                                                \
        size_t d0_ = i;                                                           \
        uint64_t v_ = 0;                                                          \
        unsigned c_;                                                              \
        while (i < n && (c_ = (unsigned char)(b[i] - '0')) <= 9)                  \
            v_ = v_ * 10 + c_, i++;                                               \
        if (i < n && (b[i] == '.' || b[i] == '-')) { /* not a plain integer */    \
            while (i < n && ((b[i] >= '0' && b[i] <= '9') || b[i] == '.' || b[i] == '-')) \
                i++;                                                              \
            if (i == vs)                                                          \
                goto slow;                                                        \
            (has) = parse_int(b + vs, i - vs, &(out)) == 0;                       \
        } else if (i == vs) {                                                     \
            goto slow;                                                            \
        } else if (i - d0_ > 18 || i == d0_) {                                    \
            (has) = parse_int(b + vs, i - vs, &(out)) == 0;                       \
        } else {                                                                  \
            (out) = d0_ > vs ? -(int64_t)v_ : (int64_t)v_;                        \
            (has) = 1;                                                            \
        }                                                                         \
        ve = i;                                                                   \
    } while (0)

/* state and uri are the strings the rules read: decoded into strbuf */
static void keep_string(status_page *pg, size_t *so, const char *s, size_t n, const char **out,
                        size_t *out_len)
{
    char *d = pg->strbuf + *so;
    size_t dl = esc_json_unescape(d, s, n);
    d[dl] = '\0';
    *so += dl + 1;
    *out = d;
    *out_len = dl;
}

static int parse_worker_fast(status_page *pg, cursor *c, status_worker *w, size_t *so,
                             size_t lim)
{
    const char *b = c->b;
    size_t n = c->n, i = c->i, vs, ve, so0 = *so;
    LIT("\"pid\":");
    INT(w->pid, w->has_pid);
    LIT(",\"state\":\"");
    STR(",\"start time\":");
    keep_string(pg, so, b + vs, ve - vs, &w->state, &w->state_len);
    w->has_state = 1;
    LIT(",\"start time\":");
    NUM();
    w->start = b + vs;
    w->start_len = ve - vs;
    LIT(",\"start since\":");
    NUM();
    LIT(",\"requests\":");
    INT(w->requests, w->has_requests);
    LIT(",\"request duration\":");
    INT(w->duration, w->has_duration);
    LIT(",\"request method\":\"");
    STR(",\"request uri\":");
    LIT(",\"request uri\":\"");
    STR(",\"content length\":");
    keep_string(pg, so, b + vs, ve - vs, &w->uri, &w->uri_len);
    w->has_uri = 1;
    LIT(",\"content length\":");
    NUM();
    LIT(",\"user\":\"");
    STR(",\"script\":");
    LIT(",\"script\":\"");
    STR(",\"last request cpu\":");
    LIT(",\"last request cpu\":");
    NUM();
    w->has_cpu = 1;
    w->cpu = b + vs;
    w->cpu_len = ve - vs;
    LIT(",\"last request memory\":");
    INT(w->memory, w->has_memory);
    w->has_memory &= b[vs] != '-'; /* 14.1: ASCII digits only, no sign */
    LIT("}");
    c->i = i;
    return 0;
slow:
    memset(w, 0, sizeof *w);
    *so = so0;
    return -1;
}
#undef LIT
#undef STR
#undef NUM
#undef INT

int status_worker_start(const status_worker *w, int64_t *v)
{
    return w->start && status_parse_int(w->start, w->start_len, v) == 0 ? 0 : -1;
}

int status_parse(status_page *pg, const char *buf, size_t len)
{
    return status_parse_as(pg, buf, len, 1);
}

/* The number after "KEY": in the page's head (before its processes),
 * looked for from *at (where the key before it ended: php-fpm writes them
 * in one order), else from the start. */
static int head_number(const char *buf, size_t head, const char *key, size_t keylen,
                       int64_t *v, size_t *at)
{
    const char *k = find(buf, head, key, *at);
    if (!k && *at)
        k = find(buf, head, key, 0);
    if (!k)
        return 0;
    *at = (size_t)(k - buf) + keylen;
    cursor l = {buf, head, (size_t)(k - buf) + keylen};
    if (!eat(&l, ':'))
        return 0;
    skip_ws(&l);
    size_t s = l.i;
    while (l.i < l.n && l.b[l.i] != ',' && l.b[l.i] != '}' && l.b[l.i] != ' ' && l.b[l.i] != '\n')
        l.i++;
    return status_parse_int(buf + s, l.i - s, v) == 0;
}

/* The page's `pool`: the raw bytes of its string. */
static void head_pool(status_page *pg, const char *buf, size_t head)
{
    const char *k = find(buf, head, "\"pool\"", 0);
    if (!k)
        return;
    cursor l = {buf, head, (size_t)(k - buf) + 6};
    if (!eat(&l, ':') || !eat(&l, '"'))
        return;
    const char *e = memchr(buf + l.i, '"', head - l.i);
    if (!e)
        return;
    pg->has_pool = 1;
    pg->pool = buf + l.i;
    pg->pool_len = (size_t)(e - (buf + l.i));
}

#define HEAD(key, v) head_number(buf, head, "\"" key "\"", sizeof key + 1, v, &at)

int status_parse_as(status_page *pg, const char *buf, size_t len, int fast)
{
    pg->nworkers = 0;
    pg->has_listen_queue = 0;
    pg->listen_queue = 0;
    pg->has_pool = pg->has_start_time = pg->has_active = pg->has_max_reached = 0;
    const char *pr = find(buf, len, "\"processes\"", 0);
    if (!pr)
        return -1;
    cursor c = {buf, len, (size_t)(pr - buf) + 11};
    if (!eat(&c, ':') || !eat(&c, '['))
        return -1;
    size_t head = (size_t)(pr - buf), at = 0;
    head_pool(pg, buf, head);
    pg->has_start_time = HEAD("start time", &pg->start_time); /* in php-fpm's order */
    pg->has_listen_queue = HEAD("listen queue", &pg->listen_queue);
    pg->has_active = HEAD("active processes", &pg->active);
    pg->has_max_reached = HEAD("max children reached", &pg->max_reached);
    if (pg->strcap < len + 1) {
        char *nb = realloc(pg->strbuf, len + 1);
        if (!nb)
            return FPM_ENOMEM;
        pg->strbuf = nb;
        pg->strcap = len + 1;
    }
    size_t so = 0;
    for (;;) {
        if (eat(&c, ']') || !eat(&c, '{'))
            break;
        if (grow_workers(pg) != 0)
            return FPM_ENOMEM;
        status_worker *w = &pg->workers[pg->nworkers];
        memset(w, 0, sizeof *w);
        size_t lim = next_worker(buf, len, c.i); /* bounds both parsers */
        if ((!fast || parse_worker_fast(pg, &c, w, &so, lim) != 0) &&
            parse_worker(pg, &c, w, &so, lim) != 0)
            break; /* cut short: the unfinished worker is left out */
        pg->nworkers++;
        if (!eat(&c, ','))
            break;
    }
    return 0;
}

int status_redact_query(const char *buf, size_t len, char **out, size_t *outlen)
{
    static const char key[] = "\"request uri\":\"";
    char *o = malloc(len + 1);
    if (!o)
        return FPM_ENOMEM;
    size_t i = 0, n = 0;
    for (;;) {
        const char *k = find(buf, len, key, i);
        if (!k)
            break;
        size_t vs = (size_t)(k - buf) + sizeof key - 1;
        cursor c = {buf, len, vs};
        size_t ve = string_end(&c, K_URI, next_worker(buf, len, vs));
        const char *q = memchr(buf + vs, '?', ve - vs);
        size_t keep = q ? (size_t)(q - buf) : ve;
        memcpy(o + n, buf + i, keep - i);
        n += keep - i;
        i = ve;
        if (ve >= len)
            break;
    }
    memcpy(o + n, buf + i, len - i);
    n += len - i;
    o[n] = '\0';
    *out = o;
    *outlen = n;
    return 0;
}

void status_page_free(status_page *pg)
{
    free(pg->workers);
    free(pg->strbuf);
    memset(pg, 0, sizeof *pg);
}
