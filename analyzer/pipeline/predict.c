/* Each request's time at N workers (docs/rules.md section 18; predict.h). */
#include "predict.h"
#include "rc.h"

#include <math.h>
#include <stdlib.h>

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
    k->r[k->next] = (pr_reading){cap32(d_ms), share > 0x7fffffu ? 0x7fffffu : share,
                                 waited != 0, route > PR_NO_ROUTE ? PR_NO_ROUTE : route};
    k->next = (k->next + 1) % PR_KEEP;
    if (k->n < PR_KEEP)
        k->n++;
    return 0;
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

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
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
    qsort(t, k->n, sizeof *t, by_value);
    size_t r50 = ((size_t)50 * k->n + 99) / 100, r95 = ((size_t)95 * k->n + 99) / 100;
    *p50 = (int64_t)round(t[r50 - 1]);
    *p95 = (int64_t)round(t[r95 - 1]);
    free(t);
    return 0;
}

int pr_route(const pr_keep *k, unsigned route, double stretch, int64_t *p50, int64_t *p95)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < k->n; i++)
        m += k->r[i].route == route;
    if (m < PR_MIN)
        return -1;
    double *t = malloc(m * sizeof *t);
    if (!t)
        return FPM_ENOMEM;
    uint32_t j = 0;
    for (uint32_t i = 0; i < k->n; i++) {
        int64_t a, b;
        if (k->r[i].route != route)
            continue;
        pr_split(&k->r[i], &a, &b);
        t[j++] = (double)b + (double)a * stretch;
    }
    qsort(t, m, sizeof *t, by_value);
    size_t r50 = ((size_t)50 * m + 99) / 100, r95 = ((size_t)95 * m + 99) / 100;
    *p50 = (int64_t)round(t[r50 - 1]);
    *p95 = (int64_t)round(t[r95 - 1]);
    free(t);
    return 0;
}
