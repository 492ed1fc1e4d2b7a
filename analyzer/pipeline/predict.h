/*
 * predict: what N workers would see, each request's time at N
 * (docs/rules.md section 18).  Per pool the latest 4096 readings that
 * enter the busy sums (section 10, after 17.3) are kept: each one's own
 * duration and own share.  Each splits into a CPU part and the rest; at N
 * busy workers the CPU part stretches by the k at which the CPU's demand
 * meets its capacity (processor sharing), and the p50 and p95 of the
 * stretched times are the prediction.
 */
#ifndef PREDICT_H
#define PREDICT_H

#include <stdint.h>

#define PR_KEEP 4096 /* the latest readings kept */
#define PR_MIN  20   /* under this many kept, no prediction */

typedef struct {
    uint32_t d_ms;       /* its own duration, ms (capped at 2^32 - 1) */
    uint32_t s : 23;     /* its own share, hundredths of a percent (capped at
                            83,886%: from 100% on a reading's CPU part is its
                            whole duration, 18.1) */
    uint32_t waited : 1; /* contended (17.3): its own time carries its worker's
                            average wait over the pair */
    uint32_t route : 8;  /* its route's slot (section 19), PR_NO_ROUTE none */
} pr_reading;

#define PR_NO_ROUTE 255

/* A ring of the latest PR_KEEP readings, in the order they came; or, for
 * a censused pool (20.6), a systematic sample of them: the i-th reading
 * offered (i from 0) kept when i is a multiple of the stride, which doubles
 * (the kept readings at odd places dropped) when a kept one would be the
 * PR_KEEP + 1st.  r is allocated at the first reading (memory flat in the
 * log's length). */
typedef struct {
    pr_reading *r;
    uint32_t    n, next;
    uint64_t    stride;  /* 0: the ring; else the sample's */
    uint64_t    offered; /* readings offered to the sample */
} pr_keep;

/* Keeps a reading of d_ms and share s (waited: contended), forgetting the
 * oldest past PR_KEEP.  0, FPM_ENOMEM. */
int pr_add(pr_keep *k, int64_t d_ms, int64_t s, int waited);

/* The same, with the slot of its route (section 19), or PR_NO_ROUTE. */
int pr_add_route(pr_keep *k, int64_t d_ms, int64_t s, int waited, unsigned route);

/* 20.6: k forgets what it kept and becomes a systematic sample (stride 1). */
void pr_systematic(pr_keep *k);

/* 18.3: the p50 and p95 (nearest rank) of the kept readings' own durations
 * d, those of route slot (PR_ALL_ROUTES: every one): 20.6's `measured` of
 * the time sample.  0, -1 under PR_MIN such readings, or FPM_ENOMEM. */
#define PR_ALL_ROUTES 256u
int pr_measured(const pr_keep *k, unsigned route, int64_t *p50, int64_t *p95);

/* The kept readings whose route's slot is marked in gone[slot] (a route
 * forgotten, its slot free for another) lose their route. */
void pr_forget_routes(pr_keep *k, const unsigned char *gone);

/* 19.3: the p50 and p95 (nearest rank, whole ms half away from zero) of
 * q + p x stretch over the kept readings of route slot (PR_ALL_ROUTES:
 * every one; stretch 1: their own durations).  0, -1 under PR_MIN such
 * readings, or FPM_ENOMEM. */
int pr_route(const pr_keep *k, unsigned route, double stretch, int64_t *p50, int64_t *p95);

/* The share of the kept readings that were contended, 0 to 1. */
double pr_waited(const pr_keep *k);
void pr_free(pr_keep *k);

/* 18.1: a reading's CPU part p = min(d, floor(s x d / 10000)) and the rest
 * q = d - p, ms. */
void pr_split(const pr_reading *r, int64_t *p, int64_t *q);

/* The sums over the kept readings: P of the CPU parts, Q of the rests. */
void pr_sums(const pr_keep *k, double *p, double *q);

/* 18.2: the stretch of a CPU part at n busy workers, on a host of h
 * millicores, a worker costing m millicores of the host, the rest of the
 * host using o: max(1, (B + sqrt(B^2 + 4 h P o Q)) / (2 h P)), B = n m D +
 * o P - h Q, D = P + Q; 1 where P is 0. */
double pr_stretch(double h, double m, double o, double p, double q, double n);

/* 18.3: p50 and p95 (nearest rank, whole ms half away from zero) of the
 * kept readings' times q + p x k(n).  0, -1 under PR_MIN kept, or
 * FPM_ENOMEM. */
int pr_predict(const pr_keep *k, double h, double m, double o, double n, int64_t *p50,
               int64_t *p95);

/* 18.2's k(n) for the kept readings (their P and Q), 1 where P is 0. */
double pr_stretch_at(const pr_keep *k, double h, double m, double o, double n);

#endif
