/* Each request's time at N workers (docs/rules.md section 18; predict.h). */
#include "predict.h"
#include "rc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint32_t cap32(int64_t v)
{
    return v < 0 ? 0 : v > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

int pr_add(pr_keep *k, int64_t d_ms, int64_t s, int waited)
{
    return pr_add_route(k, d_ms, s, waited, PR_NO_ROUTE);
}

int pr_add_route(pr_keep *k, int64_t d_ms, int64_t s, int waited, unsigned route)
{
    if (!k->r && !(k->r = malloc(PR_KEEP * sizeof *k->r)))
        return FPM_ENOMEM;
    uint32_t share = cap32(s);
    pr_reading v = {cap32(d_ms), share > 0x7fffffu ? 0x7fffffu : share, waited != 0,
                    route > PR_NO_ROUTE ? PR_NO_ROUTE : route};
    if (k->stride) { /* 20.6: the systematic sample */
        if ((k->offered++ & (k->stride - 1)) != 0) /* a power of two: no division */
            return 0;
        if (k->n == PR_KEEP) { /* the 4097th: the odd places go, the stride doubles */
            for (uint32_t i = 1; 2 * i < PR_KEEP; i++)
                k->r[i] = k->r[2 * i];
            k->n = PR_KEEP / 2;
            k->stride *= 2;
        }
        k->r[k->n++] = v;
        k->next = k->n % PR_KEEP;
        return 0;
    }
    /* stored whole: field by field the compiler first read the old reading
     * back, a cache miss per reading that showed in the replay */
    memcpy(&k->r[k->next], &v, sizeof v);
    k->next = (k->next + 1) % PR_KEEP;
    if (k->n < PR_KEEP)
        k->n++;
    return 0;
}

void pr_systematic(pr_keep *k)
{
    k->n = k->next = 0;
    k->stride = 1;
    k->offered = 0;
}

void pr_free(pr_keep *k)
{
    free(k->r);
    *k = (pr_keep){0};
}

double pr_waited(const pr_keep *k)
{
    uint32_t w = 0;
    for (uint32_t i = 0; i < k->n; i++)
        w += k->r[i].waited;
    return k->n ? (double)w / k->n : 0;
}

void pr_split(const pr_reading *r, int64_t *p, int64_t *q)
{
    int64_t d = r->d_ms, c = (int64_t)r->s * d / 10000;
    *p = c < d ? c : d;
    *q = d - *p;
}

void pr_sums(const pr_keep *k, double *p, double *q)
{
    *p = *q = 0;
    for (uint32_t i = 0; i < k->n; i++) {
        int64_t a, b;
        pr_split(&k->r[i], &a, &b);
        *p += (double)a;
        *q += (double)b;
    }
}

double pr_stretch(double h, double m, double o, double p, double q, double n)
{
    if (p <= 0 || h <= 0)
        return 1;
    double b = n * m * (p + q) + o * p - h * q;
    double k = (b + sqrt(b * b + 4 * h * p * o * q)) / (2 * h * p);
    return k > 1 ? k : 1;
}

void pr_forget_routes(pr_keep *k, const unsigned char *gone)
{
    for (uint32_t i = 0; i < k->n; i++)
        if (k->r[i].route != PR_NO_ROUTE && gone[k->r[i].route])
            k->r[i].route = PR_NO_ROUTE;
}

double pr_stretch_at(const pr_keep *k, double h, double m, double o, double n)
{
    double P, Q;
    pr_sums(k, &P, &Q);
    return pr_stretch(h, m, o, P, Q, n);
}

/* t[k] as if t[0..n) were sorted ascending, t reordered around it: every
 * value before k is no greater, every one after no smaller (selection with
 * a three-way partition, so that many equal times stay linear).  A sort
 * per call showed in the replay once each view asked for its lines. */
static double kth(double *t, size_t n, size_t k)
{
    size_t lo = 0, hi = n;
    while (hi - lo > 1) {
        double a = t[lo], b = t[lo + (hi - lo) / 2], c = t[hi - 1];
        double pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
        size_t lt = lo, i = lo, gt = hi;
        while (i < gt) {
            double x = t[i];
            if (x < pivot) {
                t[i++] = t[lt];
                t[lt++] = x;
            } else if (x > pivot) {
                t[i] = t[--gt];
                t[gt] = x;
            } else {
                i++;
            }
        }
        if (k < lt)
            hi = lt;
        else if (k >= gt)
            lo = gt;
        else
            return pivot;
    }
    return t[k];
}

/* The p50 and p95 of t[0..n) (n > 0; nearest rank, whole ms half away from
 * zero); t is reordered. */
static void percentiles(double *t, size_t n, int64_t *p50, int64_t *p95)
{
    size_t r50 = (50 * n + 99) / 100, r95 = (95 * n + 99) / 100;
    *p95 = (int64_t)round(kth(t, n, r95 - 1));
    /* the r95 - 1 values before it are the smallest: the p50 is among them */
    *p50 = r50 == r95 ? *p95 : (int64_t)round(kth(t, r95 - 1, r50 - 1));
}

int pr_predict(const pr_keep *k, double h, double m, double o, double n, int64_t *p50,
               int64_t *p95)
{
    if (k->n < PR_MIN)
        return -1;
    double P, Q;
    pr_sums(k, &P, &Q);
    double st = pr_stretch(h, m, o, P, Q, n);
    double *t = malloc(k->n * sizeof *t);
    if (!t)
        return FPM_ENOMEM;
    for (uint32_t i = 0; i < k->n; i++) {
        int64_t a, b;
        pr_split(&k->r[i], &a, &b);
        t[i] = (double)b + (double)a * st;
    }
    percentiles(t, k->n, p50, p95);
    free(t);
    return 0;
}

int pr_route(const pr_keep *k, unsigned route, double stretch, int64_t *p50, int64_t *p95)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < k->n; i++)
        m += route == PR_ALL_ROUTES || k->r[i].route == route;
    if (m < PR_MIN)
        return -1;
    double *t = malloc(m * sizeof *t);
    if (!t)
        return FPM_ENOMEM;
    uint32_t j = 0;
    for (uint32_t i = 0; i < k->n; i++) {
        int64_t a, b;
        if (route != PR_ALL_ROUTES && k->r[i].route != route)
            continue;
        pr_split(&k->r[i], &a, &b);
        t[j++] = (double)b + (double)a * stretch;
    }
    percentiles(t, m, p50, p95);
    free(t);
    return 0;
}

int pr_measured(const pr_keep *k, unsigned route, int64_t *p50, int64_t *p95)
{
    return pr_route(k, route, 1.0, p50, p95); /* q + p x 1: each its own duration */
}
