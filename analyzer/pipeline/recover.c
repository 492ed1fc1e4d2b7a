/* The workers' CPU by pid and start time, and the CPU recovered from the
 * masters (docs/rules.md 11.1, 11.2). */
#include "recover.h"
#include "rc.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"

static int cmp_pid_line(const void *a, const void *b)
{
    const wk_key *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line); /* in line order: stable */
}

int wk_set(wk_map *m, const procfs_proc *t, size_t n)
{
    if (grow(&m->v, &m->cap, n ? n : 1, sizeof *m->v, 16))
        return FPM_ENOMEM;
    size_t i = 1;
    while (i < n && t[i - 1].pid < t[i].pid)
        i++;
    if (i >= n) { /* sorted, each pid once: as read */
        if (n)
            memcpy(m->v, t, n * sizeof *t);
        m->n = n;
        return 0;
    }
    if (grow(&m->idx, &m->idx_cap, n, sizeof *m->idx, 16))
        return FPM_ENOMEM;
    for (i = 0; i < n; i++)
        m->idx[i] = (wk_key){t[i].pid, i};
    qsort(m->idx, n, sizeof *m->idx, cmp_pid_line);
    m->n = 0;
    for (i = 0; i < n; i++) {
        const procfs_proc *w = &t[m->idx[i].line];
        if (m->n && m->v[m->n - 1].pid == w->pid)
            m->v[m->n - 1] = *w; /* the later line of a pid wins */
        else
            m->v[m->n++] = *w;
    }
    return 0;
}

void wk_free(wk_map *m)
{
    free(m->v);
    free(m->idx);
    memset(m, 0, sizeof *m);
}

int wk_same(const procfs_proc *before, const procfs_proc *now)
{
    return before->pid == now->pid &&
           (before->start < 0 || now->start < 0 || before->start == now->start);
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

uint64_t wk_since(const wk_map *before, const wk_map *now, wk_visit_fn visit, void *arg)
{
    uint64_t sum = 0;
    size_t i = 0;
    for (size_t l = 0; l < now->n; l++) {
        const procfs_proc *w = &now->v[l];
        while (i < before->n && before->v[i].pid < w->pid) {
            if (visit)
                visit(arg, &before->v[i], 1); /* not in now: left */
            i++;
        }
        const procfs_proc *b = i < before->n && before->v[i].pid == w->pid ? &before->v[i] : NULL;
        int same = b && wk_same(b, w);
        sum = add_sat(sum, same && b->ticks <= w->ticks ? w->ticks - b->ticks : w->ticks);
        if (visit) {
            if (b)
                visit(arg, b, !same); /* another worker under the same pid left */
            visit(arg, w, 0);
        }
        i += b != NULL;
    }
    for (; visit && i < before->n; i++)
        visit(arg, &before->v[i], 1);
    return sum;
}

typedef struct {
    mk_list *l;
    int      nomem;
} parse_ctx;

static void add_master(void *arg, const procfs_proc *p)
{
    parse_ctx *c = arg;
    if (grow(&c->l->v, &c->l->cap, c->l->n + 1, sizeof *c->l->v, 4)) {
        c->nomem = 1;
        return;
    }
    c->l->v[c->l->n++] = (mk_master){p->pid, p->start, p->child_ticks, 0};
}

static int cmp_master(const void *a, const void *b)
{
    int64_t x = ((const mk_master *)a)->pid, y = ((const mk_master *)b)->pid;
    return (x > y) - (x < y);
}

int mk_parse(mk_list *l, const unsigned char *p, size_t len)
{
    parse_ctx c = {l, 0};
    l->n = 0;
    procfs_each_pid((const char *)p, len, add_master, &c); /* a line that does not parse: left out */
    if (l->n > 1)
        qsort(l->v, l->n, sizeof *l->v, cmp_master);
    size_t o = 0; /* a pid listed twice (lines read at once) keeps one of its lines */
    for (size_t i = 0; i < l->n; i++) {
        if (o && l->v[o - 1].pid == l->v[i].pid)
            o--;
        l->v[o++] = l->v[i];
    }
    l->n = o;
    return c.nomem ? FPM_ENOMEM : 0;
}

static const mk_master *find_master(const mk_list *l, int64_t pid)
{
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->v[mid].pid == pid)
            return &l->v[mid];
        if (l->v[mid].pid < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static int same_master(const mk_master *a, const mk_master *b)
{
    return a->pid == b->pid && (a->start < 0 || b->start < 0 || a->start == b->start);
}

void mk_carry(const mk_list *prev, mk_list *cur)
{
    for (size_t i = 0; i < cur->n; i++) {
        const mk_master *b = find_master(prev, cur->v[i].pid);
        cur->v[i].carry = b && same_master(b, &cur->v[i]) ? b->carry : 0;
    }
}

void mk_free(mk_list *l)
{
    free(l->v);
    memset(l, 0, sizeof *l);
}

int mk_links_note(mk_links *l, size_t pool, const procfs_proc *w, int left)
{
    if (l->n == 0 || l->v[l->n - 1].pool != pool)
        l->from = l->n;
    size_t i = l->from;
    while (i < l->n && l->v[i].ppid != w->ppid)
        i++;
    if (i == l->n) {
        if (grow(&l->v, &l->cap, l->n + 1, sizeof *l->v, 16))
            return FPM_ENOMEM;
        l->v[l->n++] = (mk_link){w->ppid, pool, 0, 0};
    }
    if (left) {
        l->v[i].left++;
        l->v[i].left_ticks += (double)w->ticks;
    }
    return 0;
}

void mk_links_free(mk_links *l)
{
    free(l->v);
    memset(l, 0, sizeof *l);
}

static int cmp_link(const void *a, const void *b)
{
    const mk_link *x = a, *y = b;
    if (x->ppid != y->ppid)
        return (x->ppid > y->ppid) - (x->ppid < y->ppid);
    return (x->pool > y->pool) - (x->pool < y->pool);
}

/* lost shared among the pools of links[0..n), all of one master. */
static void share_lost(double lost, const mk_link *k, size_t n, mk_pool *pools)
{
    double left = 0, own = 0;
    for (size_t i = 0; i < n; i++) {
        left += (double)k[i].left;
        own += pools[k[i].pool].own_ticks;
    }
    for (size_t i = 0; i < n; i++) {
        mk_pool *p = &pools[k[i].pool];
        if (left > 0)
            p->recovered += lost * (double)k[i].left / left;
        else if (own > 0)
            p->recovered += lost * p->own_ticks / own;
    }
}

void mk_recover(mk_list *cur, const mk_list *prev, mk_links *links, mk_pool *pools)
{
    if (links->n > 1)
        qsort(links->v, links->n, sizeof *links->v, cmp_link);
    size_t at = 0;
    for (size_t i = 0; i < cur->n; i++) {
        mk_master *m = &cur->v[i];
        const mk_master *b = find_master(prev, m->pid);
        while (at < links->n && links->v[at].ppid < m->pid)
            at++;
        size_t end = at;
        while (end < links->n && links->v[end].ppid == m->pid)
            end++;
        if (!b || !same_master(b, m))
            continue;
        for (size_t l = at; l < end; l++)
            pools[links->v[l].pool].covered = 1;
        if (m->child < b->child)
            continue; /* its counter went back: no share */
        double d = (double)(m->child - b->child) + m->carry;
        for (size_t l = at; l < end; l++)
            d -= links->v[l].left_ticks;
        m->carry = d < 0 ? d : 0;
        if (d > 0 && end > at) /* no pool's workers under it: not assigned */
            share_lost(d, links->v + at, end - at, pools);
    }
}
