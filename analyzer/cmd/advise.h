/*
 * advise: the line to change and what N workers can give (docs/rules.md
 * section 15).  Per host and pool: pm.max_children now, the CPU and the
 * memory ceilings, the advice and what binds it, the bounds at 1 worker,
 * the knee, now and the advice, then the unified diff that sets the advice
 * in the pool's configuration (patch -p1 -d /).
 */
#ifndef ADVISE_H
#define ADVISE_H

#include <stdio.h>

#include "pipeline.h"
#include "whatif.h"

/* 15.1: a pool's bounds for N busy workers: throughput <= min(N / R, C /
 * D) requests a second, each request >= max(R, N x D / C) seconds; the
 * knee C x R / D.  R the mean duration, D the host CPU seconds a request
 * costs, C the host's cores. */
typedef struct {
    double r, d, c;
} adv_model;

/* The model of a pool with a shape and a host cost per worker; 0, or -1
 * when it has none. */
int advise_model(const pl_pool *p, const wi_view *v, uint64_t host_millicores, adv_model *m);
double advise_max_rps(const adv_model *m, double n);
double advise_min_ms(const adv_model *m, double n);
double advise_knee(const adv_model *m);

/* 15.2: conf_text with its pm.max_children's number replaced by n, the
 * spelling, spacing and comment kept; malloc'd, NULL when the line does
 * not set it as a plain number (or out of memory). */
char *advise_line(const char *text, long long n);

/* The report: text, or JSON with json.  0, FPM_ENOMEM. */
int advise_print(FILE *out, const pipeline *pl, const wi_scenario *sc, int json);

#endif
