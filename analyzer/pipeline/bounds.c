/* The bounds of docs/rules.md 15.1. */
#include "bounds.h"

int bounds_model(const pl_pool *p, const wi_view *v, uint64_t hm, bd_model *m)
{
    const hist *h = pl_hist(p);
    if (!v->shape || v->floor || v->host_millicores_per_worker <= 0 || hm == 0 || h->total == 0 ||
        h->busy_w == 0 || h->busy_c == 0)
        return -1;
    double n = h->total;
    m->r = (double)h->busy_w / n / 1000; /* seconds */
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
