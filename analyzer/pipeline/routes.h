/*
 * routes: a pool by its routes (docs/rules.md section 19).  A reading's
 * route is the script php-fpm ran, its ids folded to {id}, and the query
 * parameters the user named (--route-param); per pool and route the
 * readings, the time and the CPU are summed like section 10's, halved on
 * their own count, at most 200 routes and (other).  Pure: no file, no
 * print.
 */
#ifndef ROUTES_H
#define ROUTES_H

#include <stddef.h>
#include <stdint.h>

#define RT_MAX_PARAMS 8     /* --route-param, at most */
#define RT_CUT        128   /* a route's bytes, at most, before U+FFFD */
#define RT_MAX_BYTES  (3 * RT_CUT) /* ... and after */
#define RT_MAX        200   /* named routes a pool keeps */
#define RT_OTHER      RT_MAX     /* the slot of (other) */
#define RT_SLOTS      (RT_MAX + 1)
#define RT_NONE       255   /* a kept reading without a route (18.1) */
#define RT_LIMIT      4096  /* above this many readings the routes halve */
#define RT_OTHER_NAME "(other)"

/* The --route-param names, in the order given. */
typedef struct {
    const char *name[RT_MAX_PARAMS];
    size_t      len[RT_MAX_PARAMS];
    size_t      n;
} rt_params;

/* 19.1: the route of a `request uri` (JSON-unescaped; NULL when missing)
 * into out (RT_MAX_BYTES): its length.  "-" for a URI that is missing,
 * empty or does not begin with "/". */
size_t rt_route_of(const char *uri, size_t len, const rt_params *params, char *out);

/* 20.5: the same for a line of the access log with a method (ml > 0; NULL
 * none): the method, a space and the route, the cut on the whole ("-"
 * stays "-"). */
size_t rt_route_of_method(const char *method, size_t ml, const char *uri, size_t len,
                          const rt_params *params, char *out);

/* One route's sums (19.2). */
typedef struct {
    char    *name;
    uint32_t len, hash;
    int      used;
    uint64_t n, w, c;   /* readings; sum of d (ms, or us: rt_table's us); sum of s x d */
    int64_t  mem_max;   /* the largest `last request memory`, -1 none */
    uint64_t requests;  /* 20.6: a censused pool's line readings, never halved ... */
    uint64_t rate_requests; /* ... of them, those of its rounds that count in requests_per_s */
} rt_route;

/* A pool's routes: slots 0..199 named, RT_OTHER (other); allocated at the
 * first reading, so memory is flat in the log's length. */
typedef struct {
    rt_route *r;
    uint64_t  total;           /* the sum of n */
    int16_t   index[1024];     /* open addressing: hash -> slot, -1 empty */
    unsigned  named;           /* named slots in use */
    unsigned  last;            /* the slot of the last reading (a memo) */
    unsigned char gone[RT_SLOTS]; /* forgotten by the last halving (the caller
                                     clears them from its kept readings) */
    int       any_gone;
    int       us;              /* a censused pool's (20.6): d in microseconds, halved past
                                  RT_LIMIT_CENSUS */
} rt_table;

#define RT_LIMIT_CENSUS (1u << 20)

/* 20.6: a pool censused from now: W and C from milliseconds to
 * microseconds (at most 2^64 - 1), halved past RT_LIMIT_CENSUS, and every
 * route's requests from 0. */
void rt_to_us(rt_table *t);

/* 20.6: a request of route slot counted (rate: in requests_per_s too). */
void rt_request(rt_table *t, unsigned slot, int rate);

/* 19.2: a route reading of share s (hundredths), own duration d_ms (in
 * microseconds where t->us) and
 * `last request memory` mem (< 0 none) for the route name[0..len); the
 * slot it was counted under, in *slot.  Halves past RT_LIMIT (routes left
 * with 0 readings forgotten: gone[] and any_gone set).  0, FPM_ENOMEM. */
int rt_add(rt_table *t, const char *name, size_t len, int64_t s, int64_t d_ms, int64_t mem,
           unsigned *slot);

/* The slot of a route name, RT_NONE when it is not kept (no allocation). */
unsigned rt_find(const rt_table *t, const char *name, size_t len);

void rt_clear_gone(rt_table *t);
void rt_free(rt_table *t);

/* 19.3: a route's figures, each -1 where null; hundredths where said. */
typedef struct {
    const char *name;
    size_t      len;
    unsigned    slot;
    int         other;            /* (other) */
    uint64_t    readings;
    uint64_t    c;                /* its C, for the order */
    int64_t     cpu_share_h;      /* cpu_share_pct x 100 */
    int64_t     cpu_ms_h;         /* cpu_ms_per_request x 100 */
    int64_t     busy_h;           /* busy_pct x 100 */
    int64_t     p50_ms, p95_ms, p95_at_advice_ms;
    int64_t     mem_max;
    uint64_t    requests, rate_requests; /* 20.6, a censused pool's ... */
    int         censused;         /* ... (else requests and requests_per_s are null) */
    int64_t     rps_h;            /* requests_per_s x 100, -1 null */
} rt_fig;

/* The routes of t in the order of 19.4 (C descending, then the bytes, then
 * (other)), each with its figures but the percentiles (rt_percentiles):
 * malloc'd into *out (NULL when there is none), their number in *n.
 * 0, FPM_ENOMEM. */
int rt_figures(const rt_table *t, rt_fig **out, size_t *n);

#endif
