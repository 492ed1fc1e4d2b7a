/* Each worker's own wait for the CPU (wait.h; docs/rules.md section 17). */
#include "wait.h"

#include <math.h>
#include <stdlib.h>

#include "grow.h"
#include "rc.h"

static int by_pid(const void *a, const void *b)
{
    const wt_worker *x = a, *y = b;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int tick_by_pid(const void *a, const void *b)
{
    const pl_tick *x = a, *y = b;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static const pl_tick *tick_of(const pl_tick *t, size_t nt, int64_t pid)
{
    pl_tick key = {.pid = pid};
    return nt ? bsearch(&key, t, nt, sizeof *t, tick_by_pid) : NULL;
}

/* A decimal number at *p (digits only), moved past; 0 when there is none. */
static int number(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
    const unsigned char *s = *p;
    uint64_t x = 0;
    while (s < end && *s >= '0' && *s <= '9') {
        if (x > (UINT64_MAX - 9) / 10)
            return 0; /* no number from outside is trusted to fit */
        x = x * 10 + (uint64_t)(*s++ - '0');
    }
    if (s == *p)
        return 0;
    *p = s;
    *v = x;
    return 1;
}

int wt_set(wt_map *m, const unsigned char *sched, size_t len, const pl_tick *t, size_t nt,
           uint64_t round_no)
{
    m->n = 0;
    m->round_no = round_no;
    const unsigned char *p = sched, *end = sched + len;
    while (p < end) {
        const unsigned char *nl = p;
        while (nl < end && *nl != '\n')
            nl++;
        uint64_t pid, cpu, delay;
        const unsigned char *q = p;
        int ok = number(&q, nl, &pid) && q < nl && *q++ == ' ' && number(&q, nl, &cpu) &&
                 q < nl && *q++ == ' ' && number(&q, nl, &delay) && pid <= INT64_MAX;
        const pl_tick *k = ok ? tick_of(t, nt, (int64_t)pid) : NULL;
        if (k && k->start >= 0) {
            if (grow(&m->w, &m->cap, m->n + 1, sizeof *m->w, 16))
                return FPM_ENOMEM;
            m->w[m->n++] = (wt_worker){(int64_t)pid, k->start, cpu, delay};
        }
        p = nl + 1;
    }
    qsort(m->w, m->n, sizeof *m->w, by_pid);
    return 0;
}

void wt_free(wt_map *m)
{
    free(m->w);
    *m = (wt_map){0};
}

static const wt_worker *find(const wt_map *m, int64_t pid)
{
    wt_worker key = {.pid = pid};
    return m->n ? bsearch(&key, m->w, m->n, sizeof *m->w, by_pid) : NULL;
}

int wt_growth(const wt_map *before, const wt_map *now, int64_t pid, uint64_t *dc, uint64_t *dw)
{
    const wt_worker *a = find(before, pid), *b = find(now, pid);
    if (!a || !b || a->start != b->start || b->cpu_ns < a->cpu_ns || b->delay_ns < a->delay_ns)
        return 0;
    *dc = b->cpu_ns - a->cpu_ns;
    *dw = b->delay_ns - a->delay_ns;
    return 1;
}

int wt_pool_growth(const wt_map *before, const wt_map *now, uint64_t *dc, uint64_t *dw)
{
    int any = 0;
    uint64_t c = 0, w = 0, a, b;
    for (size_t i = 0; i < now->n; i++)
        if (wt_growth(before, now, now->w[i].pid, &a, &b)) {
            c = a > UINT64_MAX - c ? UINT64_MAX : c + a;
            w = b > UINT64_MAX - w ? UINT64_MAX : w + b;
            any = 1;
        }
    *dc = c;
    *dw = w;
    return any;
}

double wt_ratio(uint64_t dc, uint64_t dw)
{
    return dc + dw == 0 ? 0 : (double)dw / ((double)dc + (double)dw);
}

wt_own wt_own_share(int64_t s, int64_t u, uint64_t dc, uint64_t dw)
{
    wt_own o = {s, u, 0, 0, 1};
    if (s < 0 || u <= 0)
        return o;
    o.cpu_us = (double)s * (double)u / 10000.0;
    /* 17.8: the wait clamped so that the own duration keeps a tenth of the
     * CPU; none where dc is 0 or the CPU is ten times the duration or more */
    double cap = (double)u - o.cpu_us / 10;
    double w = dc ? o.cpu_us * (double)dw / (double)dc : 0;
    o.wait_us = w < cap ? w : cap > 0 ? cap : 0;
    if (o.wait_us <= 0) {
        o.wait_us = 0;
        return o; /* the share and the duration as php-fpm gave them */
    }
    double own = (double)u - o.wait_us;
    double x = round((double)s * (double)u / own); /* half away from zero */
    o.share = x > (double)INT64_MAX ? INT64_MAX : (int64_t)x;
    o.duration_us = (int64_t)own;
    return o;
}

int64_t wt_shown_share(int64_t s, int64_t own)
{
    int64_t top = s > 10000 ? s : 10000;
    return own < top ? own : top;
}
