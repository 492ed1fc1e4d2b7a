/*
 * bounds: what N busy workers of a pool can give (docs/rules.md 15.1),
 * the asymptotic bounds of a closed system without think time:
 * throughput <= min(N / R, C / D) requests a second, each request >=
 * max(R, N x D / C) seconds; they meet at the knee C x R / D, which is
 * the view's knee_hundredths (17.5: host / cost), decided in whatif.c.
 * R is the mean duration of the readings the pool's figures come from, D
 * the host CPU seconds one request costs (m x R / 1000, m the host
 * millicores per worker that size the pool), C the host's cores.
 */
#ifndef BOUNDS_H
#define BOUNDS_H

#include <stdint.h>

#include "state.h"
#include "whatif.h"

typedef struct {
    double r, d, c;
} bd_model;

/* The model of a pool with a shape and a host cost per worker, on a host
 * of host_millicores, its shares not floors (17.4); 0, or -1 when it has none. */
int bounds_model(const pl_pool *p, const wi_view *v, uint64_t host_millicores, bd_model *m);
double bounds_max_rps(const bd_model *m, double n);
double bounds_min_ms(const bd_model *m, double n);

/* A line's N: exact (the knee unrounded), and rounded to hundredths. */
typedef struct {
    double  n;
    int64_t hundredths;
} bd_point;

/* 15.2, 18.4: the N of a pool's lines: 1, the knee, now, the advice and the
 * nat of at (advise --at), none under 1, each once after rounding to two
 * decimals (the first of them kept), ascending; how many (out has room
 * for 4 + nat).  Each line is computed at its exact N and printed rounded. */
size_t bounds_points(const wi_view *v, const int64_t *at, size_t nat, bd_point *out);

#endif
