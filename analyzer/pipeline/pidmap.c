/* A sorted pid map. */
#include "pidmap.h"
#include "rc.h"

#include <stdlib.h>

#include "grow.h"

int pidmap_put(pidmap *m, int64_t pid, int64_t val)
{
    if (grow(&m->e, &m->cap, m->n + 1, sizeof *m->e, 32))
        return FPM_ENOMEM;
    m->e[m->n] = (pidmap_entry){pid, val, m->n};
    m->n++;
    return 0;
}

static int cmp(const void *a, const void *b)
{
    const pidmap_entry *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void pidmap_seal(pidmap *m)
{
    if (m->n < 2)
        return;
    size_t k = 1;
    while (k < m->n && m->e[k - 1].pid < m->e[k].pid)
        k++;
    if (k == m->n)
        return; /* put in order already, as PIDS usually are */
    qsort(m->e, m->n, sizeof *m->e, cmp);
    size_t o = 0;
    for (size_t i = 0; i < m->n; i++) {
        if (o > 0 && m->e[o - 1].pid == m->e[i].pid)
            o--;
        m->e[o++] = m->e[i];
    }
    m->n = o;
}

int pidmap_get(pidmap *m, int64_t pid, int64_t *val)
{
    if (m->hint < m->n && m->e[m->hint].pid == pid) {
        *val = m->e[m->hint++].val;
        return 1;
    }
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->e[mid].pid < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    m->hint = lo + 1;
    if (lo < m->n && m->e[lo].pid == pid) {
        *val = m->e[lo].val;
        return 1;
    }
    return 0;
}

void pidmap_clear(pidmap *m)
{
    m->n = 0;
}

void pidmap_swap(pidmap *a, pidmap *b)
{
    pidmap t = *a;
    *a = *b;
    *b = t;
}

void pidmap_free(pidmap *m)
{
    free(m->e);
    m->e = NULL;
    m->n = m->cap = 0;
}
