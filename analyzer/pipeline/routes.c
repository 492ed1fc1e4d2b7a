/* A pool by its routes (routes.h; docs/rules.md section 19). */
#include "routes.h"

#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "hist.h"
#include "rc.h"

/* Each byte's class, for the one pass of fold: a digit, a hex digit or
 * '-' (19.1's identifier bytes), a byte that ends a path ('?', '#'), '/',
 * and a byte that is not ASCII. */
enum { C_DIGIT = 1, C_HEX = 2, C_END = 4, C_SLASH = 8, C_HIGH = 16 };
#define D_ C_DIGIT | C_HEX
#define H8_ C_HIGH, C_HIGH, C_HIGH, C_HIGH, C_HIGH, C_HIGH, C_HIGH, C_HIGH
#define H64_ H8_, H8_, H8_, H8_, H8_, H8_, H8_, H8_
static const unsigned char cls[256] = {
    ['0'] = D_, ['1'] = D_, ['2'] = D_, ['3'] = D_, ['4'] = D_,
    ['5'] = D_, ['6'] = D_, ['7'] = D_, ['8'] = D_, ['9'] = D_,
    ['a'] = C_HEX, ['b'] = C_HEX, ['c'] = C_HEX, ['d'] = C_HEX, ['e'] = C_HEX, ['f'] = C_HEX,
    ['A'] = C_HEX, ['B'] = C_HEX, ['C'] = C_HEX, ['D'] = C_HEX, ['E'] = C_HEX, ['F'] = C_HEX,
    ['-'] = C_HEX, ['?'] = C_END, ['#'] = C_END, ['/'] = C_SLASH,
    [128] = H64_, H64_,
};
#undef D_
#undef H8_
#undef H64_

/* 19.1: a segment of len bytes whose classes AND to all and OR to any is
 * an identifier when it is not empty and is ASCII digits only, or at least
 * 8 bytes of hex digits and '-' with a digit among them. */
static int identifier(size_t len, unsigned all, unsigned any)
{
    return len > 0 && ((all & C_DIGIT) || (len >= 8 && (all & C_HEX) && (any & C_DIGIT)));
}

/* s[0..n), up to the first byte of class stop, with each identifier segment
 * between '/' folded to {id}, appended to out at *o, never past room (out
 * holds room + 1 bytes at least); a byte that is not ASCII sets *high.  One
 * pass: each segment is copied as it is read, and written over with {id}
 * at its end when it is one (a pass to judge and one to copy showed in the
 * replay).  The bytes of s it read. */
static size_t fold(const char *s, size_t n, unsigned stop, char *out, size_t *o, size_t room,
                   int *high)
{
    size_t w = *o, seg = w, start = 0, i = 0;
    unsigned all = 0xff, any = 0, seen = 0;
    for (;; i++) {
        unsigned c = 0, k = 0;
        if (i < n) {
            c = (unsigned char)s[i];
            k = cls[c];
        }
        if (i == n || (k & (C_SLASH | stop))) {
            if (identifier(i - start, all, any)) {
                w = seg;
                for (const char *id = "{id}"; *id && w < room; id++)
                    out[w++] = *id;
            }
            seen |= any;
            if (i == n || !(k & C_SLASH) || w >= room)
                break;
            out[w++] = '/';
            seg = w;
            start = i + 1;
            all = 0xff;
            any = 0;
            continue;
        }
        all &= k;
        any |= k;
        out[w] = (char)c; /* out[room] is written over, never kept */
        w += w < room;
    }
    *o = w;
    *high |= (seen & C_HIGH) != 0;
    return i;
}

size_t rt_route_of(const char *uri, size_t len, const rt_params *params, char *out)
{
    return rt_route_of_method(NULL, 0, uri, len, params, out);
}

size_t rt_route_of_method(const char *method, size_t ml, const char *uri, size_t len,
                          const rt_params *params, char *out)
{
    if (!uri || len == 0 || uri[0] != '/') {
        out[0] = '-';
        return 1;
    }
    /* built in out a little past the cut (every step appends at most what
     * is left of RT_CUT plus one byte), then cut; first the method and a
     * space (20.5: ASCII, at most 16 bytes), then the path: before the
     * first '?' or '#' */
    char *tmp = out;
    size_t o = 0, room = RT_CUT + 1;
    int high = 0;
    if (method && ml) {
        memcpy(tmp, method, ml < RT_CUT ? ml : RT_CUT);
        o = ml < RT_CUT ? ml : RT_CUT;
        tmp[o++] = ' ';
    }
    size_t path = fold(uri, len, C_END, tmp, &o, room, &high);
    /* the query: after the first '?' */
    const char *q = NULL;
    size_t qlen = 0;
    if (params->n && path < len) {
        q = uri[path] == '?' ? uri + path : memchr(uri + path, '?', len - path);
        qlen = q ? len - (size_t)(q + 1 - uri) : 0;
        q = q ? q + 1 : NULL;
    }
    int first = 1;
    for (size_t k = 0; q && k < params->n && o < room; k++) {
        const char *name = params->name[k];
        size_t nl = params->len[k];
        for (size_t i = 0; i <= qlen;) {
            size_t j = i;
            while (j < qlen && q[j] != '&')
                j++;
            if (j - i > nl && memcmp(q + i, name, nl) == 0 && q[i + nl] == '=') {
                const char *v = q + i + nl + 1;
                size_t vl = j - (i + nl + 1), cut = 0;
                while (cut < vl && v[cut] != '#')
                    cut++;
                const char *sep = first ? "?" : "&";
                first = 0;
                for (const char *p = sep; *p && o < room; p++)
                    tmp[o++] = *p;
                for (size_t b = 0; b < nl && o < room; b++) {
                    tmp[o++] = name[b];
                    high |= (unsigned char)name[b] >= 0x80;
                }
                if (o < room)
                    tmp[o++] = '=';
                if (o < room)
                    fold(v, cut, 0, tmp, &o, room, &high);
                break;
            }
            i = j + 1;
        }
    }
    if (o > RT_CUT)
        o = RT_CUT;
    /* ASCII, nearly every route, is the route as it is */
    if (!high)
        return o;
    /* each invalid UTF-8 byte as U+FFFD */
    char in[RT_CUT];
    memcpy(in, tmp, o);
    size_t w = 0;
    for (size_t i = 0; i < o;) {
        size_t l = esc_utf8_len((const unsigned char *)in + i, o - i);
        if (l) {
            memcpy(out + w, in + i, l);
            w += l;
            i += l;
        } else {
            memcpy(out + w, "\xEF\xBF\xBD", 3);
            w += 3;
            i++;
        }
    }
    return w;
}

/* A route's hash for the index: eight bytes at a time (a byte at a time,
 * FNV-1a's chain of multiplies showed in the replay); the order of the
 * routes never depends on it. */
static uint32_t hash_of(const char *s, size_t n)
{
    const uint64_t k = 0xff51afd7ed558ccdu;
    uint64_t h = 0x9e3779b97f4a7c15u ^ n, w;
    for (; n >= 8; s += 8, n -= 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * k;
        h ^= h >> 32;
    }
    w = 0;
    for (size_t i = 0; i < n; i++)
        w |= (uint64_t)(unsigned char)s[i] << (8 * i);
    h = (h ^ w) * k;
    h ^= h >> 29;
    return (uint32_t)h;
}

#define RT_INDEX (sizeof ((rt_table *)0)->index / sizeof ((rt_table *)0)->index[0])

unsigned rt_find(const rt_table *t, const char *name, size_t len)
{
    if (!t->r)
        return RT_NONE;
    uint32_t h = hash_of(name, len);
    for (size_t i = h % RT_INDEX;; i = (i + 1) % RT_INDEX) {
        int s = t->index[i];
        if (s < 0)
            return RT_NONE;
        const rt_route *r = &t->r[s];
        if (r->hash == h && r->len == len && memcmp(r->name, name, len) == 0)
            return (unsigned)s;
    }
}

static void index_put(rt_table *t, unsigned slot)
{
    size_t i = t->r[slot].hash % RT_INDEX;
    while (t->index[i] >= 0)
        i = (i + 1) % RT_INDEX;
    t->index[i] = (int16_t)slot;
}

/* The slots in use again after a halving forgot some: the index rebuilt. */
static void reindex(rt_table *t)
{
    memset(t->index, 0xff, sizeof t->index);
    for (unsigned s = 0; s < RT_MAX; s++)
        if (t->r[s].used)
            index_put(t, s);
}

static void forget(rt_table *t, unsigned s)
{
    free(t->r[s].name);
    t->r[s] = (rt_route){0};
    t->gone[s] = 1;
    t->any_gone = 1;
    if (s < RT_MAX)
        t->named--;
}

/* Every route's n, W and C halved; a route left with none forgotten, its
 * place free again (M is not halved). */
static void halve(rt_table *t)
{
    t->total = 0;
    int dropped = 0;
    for (unsigned s = 0; s < RT_SLOTS; s++) {
        rt_route *r = &t->r[s];
        if (!r->used)
            continue;
        r->n /= 2;
        r->w /= 2;
        r->c /= 2;
        if (r->n == 0) {
            forget(t, s);
            dropped |= s < RT_MAX;
            continue;
        }
        t->total += r->n;
    }
    if (dropped)
        reindex(t);
}

int rt_add(rt_table *t, const char *name, size_t len, int64_t s, int64_t d_ms, int64_t mem,
           unsigned *slot)
{
    if (!t->r) {
        if (!(t->r = calloc(RT_SLOTS, sizeof *t->r)))
            return FPM_ENOMEM;
        memset(t->index, 0xff, sizeof t->index);
    }
    /* the route of the reading before, first: most readings of a pool
     * are of a few routes, and the hash showed in the replay */
    unsigned k = t->last;
    const rt_route *l = &t->r[k];
    if (k >= RT_MAX || !l->used || l->len != len || memcmp(l->name, name, len) != 0)
        k = rt_find(t, name, len);
    if (k == RT_NONE && t->named < RT_MAX) {
        for (k = 0; t->r[k].used; k++)
            ;
        rt_route *r = &t->r[k];
        if (!(r->name = malloc(len + 1)))
            return FPM_ENOMEM;
        memcpy(r->name, name, len);
        r->name[len] = '\0'; /* printed as bytes and a length; the NUL for the tests */
        r->len = (uint32_t)len;
        r->hash = hash_of(name, len);
        r->used = 1;
        r->mem_max = -1;
        t->named++;
        index_put(t, k);
    } else if (k == RT_NONE) {
        k = RT_OTHER;
        rt_route *r = &t->r[k];
        if (!r->used)
            *r = (rt_route){.used = 1, .mem_max = -1};
    }
    rt_route *r = &t->r[k];
    /* s and d capped as section 10 caps them */
    uint64_t cs = s < 0 ? 0 : s > HIST_BUSY_MAX_SHARE ? HIST_BUSY_MAX_SHARE : (uint64_t)s;
    uint64_t dmax = HIST_BUSY_MAX_MS * (t->us ? 1000ull : 1);
    uint64_t d = d_ms < 0 ? 0 : (uint64_t)d_ms > dmax ? dmax : (uint64_t)d_ms;
    r->n++;
    r->w += d;
    /* in ms under 4097 x 10^6 x 10^9 before it halves: fits; in us held */
    r->c = r->c > UINT64_MAX - cs * d ? UINT64_MAX : r->c + cs * d;
    if (mem >= 0 && mem > r->mem_max)
        r->mem_max = mem;
    t->total++;
    *slot = k;
    t->last = k;
    if (t->total > (t->us ? RT_LIMIT_CENSUS : RT_LIMIT))
        halve(t);
    return 0;
}

void rt_to_us(rt_table *t)
{
    if (t->us)
        return;
    t->us = 1;
    for (unsigned s = 0; t->r && s < RT_SLOTS; s++) {
        rt_route *r = &t->r[s];
        r->w *= 1000;
        r->c = r->c > UINT64_MAX / 1000 ? UINT64_MAX : r->c * 1000;
        r->requests = r->rate_requests = 0;
    }
}

void rt_request(rt_table *t, unsigned slot, int rate)
{
    if (!t->r || slot >= RT_SLOTS || !t->r[slot].used)
        return; /* forgotten by the halving its reading made */
    t->r[slot].requests++;
    t->r[slot].rate_requests += (uint64_t)(rate != 0);
}

void rt_clear_gone(rt_table *t)
{
    memset(t->gone, 0, sizeof t->gone);
    t->any_gone = 0;
}

void rt_free(rt_table *t)
{
    for (unsigned s = 0; t->r && s < RT_SLOTS; s++)
        free(t->r[s].name);
    free(t->r);
    *t = (rt_table){0};
}

/* a / b in hundredths, half away from zero (all >= 0, b > 0) */
static int64_t hundredths(unsigned __int128 a, unsigned __int128 b)
{
    return (int64_t)((200 * a + b) / (2 * b));
}

static int by_order(const void *a, const void *b)
{
    const rt_fig *x = a, *y = b;
    if (x->other != y->other)
        return x->other - y->other;
    if (x->c != y->c)
        return x->c > y->c ? -1 : 1;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->name, y->name, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

int rt_figures(const rt_table *t, rt_fig **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!t->r)
        return 0;
    unsigned __int128 sum = 0;
    size_t k = 0;
    for (unsigned s = 0; s < RT_SLOTS; s++)
        if (t->r[s].used && t->r[s].n) {
            sum += t->r[s].c;
            k++;
        }
    if (!k)
        return 0;
    rt_fig *f = calloc(k, sizeof *f);
    if (!f)
        return FPM_ENOMEM;
    size_t i = 0;
    for (unsigned s = 0; s < RT_SLOTS; s++) {
        const rt_route *r = &t->r[s];
        if (!r->used || !r->n)
            continue;
        rt_fig *x = &f[i++];
        x->slot = s;
        x->other = s == RT_OTHER;
        x->name = x->other ? RT_OTHER_NAME : r->name;
        x->len = x->other ? strlen(RT_OTHER_NAME) : r->len;
        x->readings = r->n;
        x->c = r->c;
        x->cpu_share_h = sum ? hundredths((unsigned __int128)100 * r->c, sum) : -1;
        unsigned __int128 nd = (unsigned __int128)r->n * (t->us ? 1000 : 1); /* 20.6 */
        x->cpu_ms_h = (int64_t)(((unsigned __int128)r->c + 50 * nd) / (100 * nd));
        /* C / W is in hundredths of a percent already (section 10) */
        x->busy_h = r->w ? (int64_t)((2 * (unsigned __int128)r->c + r->w) / (2 * r->w)) : -1;
        x->p50_ms = x->p95_ms = x->p95_at_advice_ms = -1;
        x->mem_max = r->mem_max;
        x->requests = r->requests;
        x->rate_requests = r->rate_requests;
    }
    qsort(f, k, sizeof *f, by_order);
    *out = f;
    *n = k;
    return 0;
}
