/* The bounds of docs/rules.md 15.1. */
#include "bounds.h"

int bounds_model(const pl_pool *p, const wi_view *v, uint64_t hm, bd_model *m)
{
    const hist *h = pl_hist(p);
    if (!v->shape || v->floor || v->host_millicores_per_worker <= 0 || hm == 0 || h->total == 0 ||
        h->busy_w == 0 || h->busy_c == 0)
        return -1;
    double n = h->total;
    m->r = (double)h->busy_w / n / 1000 / (double)hist_per_ms(h); /* seconds */
    /* 15.1: D = m x R / 1000, m the host millicores per worker that size the
     * pool: the knee C x R / D is host / m, 17.5's, whatever the cost */
    m->d = (double)v->host_millicores_per_worker * m->r / 1000;
    m->c = (double)hm / 1000;
    return 0;
}

double bounds_max_rps(const bd_model *m, double n)
{
    double a = n / m->r, b = m->c / m->d;
    return a < b ? a : b;
}

double bounds_min_ms(const bd_model *m, double n)
{
    double a = m->r, b = n * m->d / m->c;
    return 1000 * (a > b ? a : b);
}

size_t bounds_points(const wi_view *v, const int64_t *at, size_t nat, bd_point *out)
{
    size_t n = 0;
    for (size_t i = 0; i < 4 + nat; i++) {
        double x = i == 0 ? 1 : i == 1 ? v->knee : i == 2 ? (double)v->now
                 : i == 3 ? (double)v->advice : (double)at[i - 4];
        if (!(x >= 1)) /* none under 1 (nor a knee not known) */
            continue;
        int64_t c = i == 1 ? v->knee_hundredths : (int64_t)x * 100;
        int seen = 0;
        for (size_t k = 0; k < n; k++)
            seen |= out[k].hundredths == c;
        if (!seen)
            out[n++] = (bd_point){x, c};
    }
    for (size_t i = 1; i < n; i++) /* ascending */
        for (size_t k = i; k > 0 && out[k - 1].hundredths > out[k].hundredths; k--) {
            bd_point t = out[k];
            out[k] = out[k - 1];
            out[k - 1] = t;
        }
    return n;
}

