/* The analysis pipeline of docs/rules.md sections 1, 2, 5, 6 and 9. */
#define _POSIX_C_SOURCE 200809L /* strndup */
#include "pipeline.h"
#include "rc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpmlog.h"
#include "grow.h"
#include "procfs.h"
#include "pairs.h"
#include "records.h"

#include "pipeline_int.h"

int pl_name_cmp(const char *a, size_t al, const char *b, size_t bl)
{
    int c = memcmp(a, b, al < bl ? al : bl);
    if (c)
        return c;
    return al < bl ? -1 : al > bl;
}

static char *dup_bytes(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

pipeline *pipeline_new(const pl_options *opt)
{
    pipeline *pl = calloc(1, sizeof *pl);
    if (pl && opt)
        pl->opt = *opt;
    return pl;
}

int pipeline_on_reading(pipeline *pl, pl_reading_fn fn, void *arg)
{
    if (pl->nfn == PL_MAX_HOOKS)
        return FPM_EFAIL;
    pl->fn[pl->nfn] = fn;
    pl->fn_arg[pl->nfn++] = arg;
    return 0;
}

int pipeline_on_round(pipeline *pl, pl_round_fn fn, void *arg)
{
    if (pl->nround_fn == PL_MAX_HOOKS)
        return FPM_EFAIL;
    pl->round_fn[pl->nround_fn] = fn;
    pl->round_arg[pl->nround_fn++] = arg;
    return 0;
}

static void pool_free(pl_pool *p)
{
    if (!p)
        return;
    free(p->name);
    rd_prefixes_free(&p->own);
    pidmap_free(&p->remembered);
    wk_free(&p->workers);
    wt_free(&p->wait_before);
    wt_free(&p->wait_now);
    pidmap_free(&p->mem_now);
    pidmap_free(&p->mem_before);
    pr_free(&p->keep);
    pr_free(&p->keep_calm);
    rt_free(&p->routes);
    free(p->conf_file);
    free(p->conf_text);
    free(p->access_log);
    free(p->access_format);
    af_free(&p->fmt);
    af_matcher_free(&p->m);
    pr_free(&p->times);
    free(p);
}

static void host_free(pl_host *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->npools; i++)
        pool_free(h->pools[i]);
    free(h->pools);
    for (int k = 0; k < SIG_N; k++)
        free(h->shares[k].count);
    joint_free(&h->j);
    if (h->prev) {
        mk_free(&h->prev->masters);
        free(h->prev->seen);
        free(h->prev->had_pids);
        free(h->prev);
    }
    free(h->hostname);
    free(h->boot_id);
    free(h->cpus);
    free(h->cpus_text);
    free(h->autogroup);
    free(h);
}

void pipeline_free(pipeline *pl)
{
    if (!pl)
        return;
    for (size_t i = 0; i < pl->nhosts; i++)
        host_free(pl->hosts[i]);
    free(pl->hosts);
    status_page_free(&pl->page);
    pidmap_free(&pl->scratch);
    wk_free(&pl->workers);
    free(pl->tk);
    mk_free(&pl->masters);
    mk_links_free(&pl->links);
    free(pl->mkp);
    free(pl->x);
    free(pl->work);
    free(pl->need);
    free(pl);
}

size_t pipeline_hosts(const pipeline *pl, pl_host *const **hosts)
{
    *hosts = pl->hosts;
    return pl->nhosts;
}

static int insert_ptr(void ***arr, size_t *n, size_t at, void *item)
{
    void **a = realloc(*arr, (*n + 1) * sizeof *a);
    if (!a)
        return FPM_ENOMEM;
    memmove(a + at + 1, a + at, (*n - at) * sizeof *a);
    a[at] = item;
    *arr = a;
    (*n)++;
    return 0;
}

pl_pool *pl_get_pool(pipeline *pl, pl_host *h, const char *name, size_t len)
{
    size_t lo = 0, hi = h->npools;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = pl_name_cmp(h->pools[mid]->name, h->pools[mid]->name_len, name, len);
        if (c == 0)
            return h->pools[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    pl_pool *p = calloc(1, sizeof *p);
    if (!p || !(p->name = dup_bytes(name, len)))
        goto err;
    p->name_len = len;
    p->jx = h->j.k;
    p->unanswered_queue_max = -1;
    if (joint_grow(&h->j, h->j.k + 1))
        goto err;
    if (rd_prefixes_add(&p->own, RD_FPM_TUNE_PREFIX, strlen(RD_FPM_TUNE_PREFIX)))
        goto err;
    for (size_t i = 0; pl->opt.own_uri && i < pl->opt.own_uri->n; i++)
        if (rd_prefixes_add(&p->own, pl->opt.own_uri->v[i], pl->opt.own_uri->len[i]))
            goto err;
    if (insert_ptr((void ***)&h->pools, &h->npools, lo, p))
        goto err;
    return p;
err:
    pool_free(p);
    return NULL;
}

/* A number of a payload, or dflt; one of 20 digits is taken as none. */
uint64_t pl_kv_u64(const unsigned char *pl, size_t len, const char *key, uint64_t dflt)
{
    uint64_t x;
    return fpmlog_kv_u64(pl, len, key, &x) == 0 && x < 10000000000000000000ull ? x : dflt;
}

/* A reboot: what was measured under the old boot's pids means nothing now. */
static void forget_boot(pl_host *h)
{
    for (size_t i = 0; i < h->npools; i++) {
        pl_pool *p = h->pools[i];
        pidmap_clear(&p->remembered);
        p->workers.n = 0;
        p->wait_before.round_no = p->wait_now.round_no = 0;
        /* forgotten in any read (the page before and the activity's are not) */
        p->unsettled_pids = p->seen_uncertain = p->unknowns = 0;
    }
    h->prev->has = 0;
    h->unsettled_prev = 0;
    h->prev->masters.n = 0; /* and the masters' carry starts again */
}

const char *const PL_CPU_SOURCE[4] = {"host", "cpuset", "quota", "quota-v1"};

/* HOST cpus (docs/rules.md 16.1): the set, or none when absent or not a
 * CPU list.  0, FPM_ENOMEM. */
static int host_cpus(pl_host *h, const unsigned char *payload, size_t len)
{
    size_t vl;
    const char *v = fpmlog_kv(payload, len, HOST_CPUS, 0, &vl);
    procfs_cpuset set;
    free(h->cpus);
    free(h->cpus_text);
    h->cpus = NULL;
    h->cpus_text = NULL;
    if (!v || procfs_cpulist(v, vl, &set) != 0)
        return 0;
    if (!(h->cpus = malloc(sizeof set)) || !(h->cpus_text = dup_bytes(v, vl)))
        return FPM_ENOMEM;
    *h->cpus = set;
    return 0;
}

/* Sections 5 and 16: the millicores the host is judged against, and where
 * they come from.  A cpuset narrower than nproc bounds it; a quota bounds
 * it when lower (on a whole host, whenever there is one). */
static void host_size(pl_host *h)
{
    h->use_cpus = h->cpus && h->cpus->n < h->nproc;
    h->host_millicores = h->use_cpus ? (uint64_t)h->cpus->n * 1000 : h->nproc * 1000;
    h->cpu_source = h->use_cpus ? PL_CPU_CPUSET : PL_CPU_HOST;
    if (h->quota_millicores > 0 && (!h->use_cpus || h->quota_millicores < h->host_millicores)) {
        h->host_millicores = h->quota_millicores;
        h->cpu_source = h->cgroup_v1 ? PL_CPU_QUOTA_V1 : PL_CPU_QUOTA;
    }
}

int pipeline_host_named(const unsigned char *payload, size_t len)
{
    size_t nl;
    return fpmlog_kv(payload, len, HOST_HOSTNAME, 0, &nl) && nl > 0;
}

pl_host *pl_find_host(const pipeline *pl, const char *name, size_t nl, size_t *at)
{
    size_t lo = 0, hi = pl->nhosts;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = pl_name_cmp(pl->hosts[mid]->hostname, pl->hosts[mid]->hostname_len, name, nl);
        if (c == 0)
            return pl->hosts[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *at = lo;
    return NULL;
}

/* 16.4: the scheduler's groups, from a HOST record that has any of the
 * four keys (else the last one's stay); "-" or absent is null.  0,
 * FPM_ENOMEM. */
static int host_sched(pl_host *h, const unsigned char *payload, size_t len)
{
    size_t al, wl, kl, cl;
    const char *a = fpmlog_kv(payload, len, HOST_AUTOGROUP, 0, &al);
    const char *w = fpmlog_kv(payload, len, HOST_CPU_WEIGHT, 0, &wl);
    const char *k = fpmlog_kv(payload, len, HOST_CPU_WEIGHT_KIND, 0, &kl);
    const char *c = fpmlog_kv(payload, len, HOST_CPU_CONTROLLER, 0, &cl);
    if (!a && !w && !k && !c)
        return 0;
    h->has_sched = 1;
    free(h->autogroup);
    h->autogroup = NULL;
    if (a && !(al == 1 && a[0] == '-') && !(h->autogroup = dup_bytes(a, al)))
        return FPM_ENOMEM;
    uint64_t x;
    h->cpu_weight = w && fpmlog_kv_u64(payload, len, HOST_CPU_WEIGHT, &x) == 0 &&
                            x <= INT64_MAX ? (int64_t)x : -1;
    h->cpu_weight_kind = k && kl == 6 && memcmp(k, "weight", 6) == 0   ? "weight"
                         : k && kl == 6 && memcmp(k, "shares", 6) == 0 ? "shares"
                                                                       : NULL;
    h->cpu_controller = c && cl == 1 && (c[0] == '0' || c[0] == '1') ? c[0] - '0' : -1;
    return 0;
}

int pipeline_host(pipeline *pl, const unsigned char *payload, size_t len)
{
    size_t nl, bl = 0;
    const char *name = fpmlog_kv(payload, len, HOST_HOSTNAME, 0, &nl);
    const char *boot = fpmlog_kv(payload, len, HOST_BOOT_ID, 0, &bl);
    if (!pipeline_host_named(payload, len))
        return FPM_EFAIL;
    size_t lo = 0;
    pl_host *h = pl_find_host(pl, name, nl, &lo);
    if (!h) {
        h = calloc(1, sizeof *h);
        if (!h || !(h->hostname = dup_bytes(name, nl)) || !(h->prev = calloc(1, sizeof *h->prev)) ||
            insert_ptr((void ***)&pl->hosts, &pl->nhosts, lo, h)) {
            host_free(h);
            return FPM_ENOMEM;
        }
        h->hostname_len = nl;
    }
    char *b = dup_bytes(boot ? boot : "", boot ? bl : 0);
    if (!b)
        return FPM_ENOMEM;
    if (h->boot_id && strcmp(h->boot_id, b) != 0)
        forget_boot(h);
    free(h->boot_id);
    h->boot_id = b;
    h->run_no++; /* a recorder run: 20.6's requests_per_s starts again */
    /* numbers from a log are range-checked here: out of range is unknown */
    h->nproc = pl_kv_u64(payload, len, HOST_NPROC, 0);
    if (h->nproc > PL_MAX_NPROC)
        h->nproc = 0;
    h->clk_tck = pl_kv_u64(payload, len, HOST_CLK_TCK, 100);
    if (h->clk_tck == 0 || h->clk_tck > PL_MAX_CLK_TCK)
        h->clk_tck = 100;
    h->interval_ms = pl_kv_u64(payload, len, HOST_INTERVAL_MS, 0);
    h->quota_millicores = pl_kv_u64(payload, len, HOST_QUOTA_MC, 0);
    if (h->quota_millicores > PL_MAX_NPROC * 1000)
        h->quota_millicores = 0;
    size_t vl;
    const char *v = fpmlog_kv(payload, len, HOST_CGROUP_VERSION, 0, &vl);
    h->cgroup_v1 = v && vl == 1 && v[0] == '1';
    h->page_size = pl_kv_u64(payload, len, HOST_PAGE_SIZE, 0); /* never guessed (14.3) */
    if (h->page_size > PL_MAX_PAGE_SIZE)
        h->page_size = 0;
    h->mem_limit = pl_kv_u64(payload, len, HOST_MEM_LIMIT, 0);
    if (host_sched(h, payload, len) != 0 || host_cpus(h, payload, len) != 0)
        return FPM_ENOMEM;
    host_size(h);
    pl->cur = h;
    return 0;
}

/* 15.2: where the POOL record says pm.max_children is set: an absolute
 * file, a line from 1 and its text; all three, or none.  0, FPM_ENOMEM. */
static int pool_conf(pl_pool *p, const unsigned char *payload, size_t len)
{
    size_t fl, tl;
    const char *f = fpmlog_kv(payload, len, POOL_CONF_FILE, 0, &fl);
    const char *t = fpmlog_kv(payload, len, POOL_CONF_TEXT, 0, &tl);
    uint64_t line = pl_kv_u64(payload, len, POOL_CONF_LINE, 0);
    free(p->conf_file);
    free(p->conf_text);
    p->conf_file = p->conf_text = NULL;
    p->conf_line = 0;
    if (!f || !t || fl < 2 || f[0] != '/' || line == 0 || line > INT32_MAX ||
        memchr(f, '\0', fl) || memchr(t, '\0', tl))
        return 0;
    p->conf_file = strndup(f, fl);
    p->conf_text = strndup(t, tl);
    if (!p->conf_file || !p->conf_text)
        return FPM_ENOMEM;
    p->conf_line = (int64_t)line;
    return 0;
}

/* 20.1, 20.2: the pool's access log and its format, compiled, as the
 * latest POOL record says them (none: NULL).  0, FPM_ENOMEM. */
static int pool_access(pl_pool *p, const unsigned char *payload, size_t len)
{
    size_t ll, fl;
    const char *l = fpmlog_kv(payload, len, POOL_ACCESS_LOG, 0, &ll);
    const char *f = fpmlog_kv(payload, len, POOL_ACCESS_FORMAT, 0, &fl);
    free(p->access_log);
    p->access_log = l && ll ? strndup(l, ll) : NULL;
    if (l && ll && !p->access_log)
        return FPM_ENOMEM;
    if (!l || !ll)
        f = NULL, fl = 0;
    if (f && p->access_format && strlen(p->access_format) == fl &&
        memcmp(p->access_format, f, fl) == 0 && !memchr(f, '\0', fl))
        return 0; /* the same format: compiled already */
    free(p->access_format);
    p->access_format = NULL;
    af_free(&p->fmt);
    af_matcher_free(&p->m);
    if (!f)
        return 0;
    if (!(p->access_format = strndup(f, fl)) || af_compile(&p->fmt, f, fl) != 0 ||
        af_matcher_init(&p->m, &p->fmt) != 0)
        return FPM_ENOMEM;
    return 0;
}

int pipeline_pool(pipeline *pl, const char *name, size_t name_len,
                  const unsigned char *payload, size_t len)
{
    if (!pl->cur)
        return FPM_EFAIL;
    pl_pool *p = pl_get_pool(pl, pl->cur, name, name_len);
    if (!p)
        return FPM_ENOMEM;
    size_t vl;
    const char *v;
    for (unsigned i = 0; (v = fpmlog_kv(payload, len, POOL_OWN_URI, i, &vl)); i++)
        if (rd_prefixes_add(&p->own, v, vl))
            return FPM_ENOMEM;
    uint64_t mc = pl_kv_u64(payload, len, POOL_MAX_CHILDREN, 0);
    p->max_children = mc <= PL_MAX_CHILDREN ? (int64_t)mc : 0; /* out of range: unknown */
    v = fpmlog_kv(payload, len, POOL_PM, 0, &vl);
    p->is_static = v && vl == 6 && memcmp(v, "static", 6) == 0;
    if (pool_access(p, payload, len) != 0)
        return FPM_ENOMEM;
    return pool_conf(p, payload, len);
}

static int grow_work(pipeline *pl, size_t n)
{
    if (n <= pl->work_cap)
        return 0;
    size_t cap = n * 2;
    round_pool *w = realloc(pl->work, cap * sizeof *w);
    if (w)
        pl->work = w;
    mk_pool *m = w ? realloc(pl->mkp, cap * sizeof *m) : NULL;
    if (m)
        pl->mkp = m;
    if (!m)
        return FPM_ENOMEM;
    pl->work_cap = cap;
    return 0;
}

static int cmp_round_pool(const void *a, const void *b)
{
    const pl_pool_round *x = ((const round_pool *)a)->in, *y = ((const round_pool *)b)->in;
    return pl_name_cmp(x->name, x->name_len, y->name, y->name_len);
}

/* The round's pools, found or made. */
static int round_get_pools(pipeline *pl, pl_host *h, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(pl->work[i].pool = pl_get_pool(pl, h, pl->work[i].in->name, pl->work[i].in->name_len)))
            return FPM_ENOMEM;
    return 0;
}

/* Section 6: requests queued while the CPU was full; section 9: whether the
 * steal made it full, and pages not answered while it was. */
static void round_starved(pipeline *pl, const pl_host *h, const pl_round *r, const host_pair *hp,
                          size_t n)
{
    int by_steal = pair_full_by_steal(h, r, hp);
    for (size_t i = 0; i < n; i++) {
        round_pool *w = &pl->work[i];
        if (w->queued) {
            w->pool->starved++;
            w->starved = 1;
            w->pool->starved_by_steal += (uint64_t)by_steal;
            w->starved_by_steal = by_steal;
        }
        if (w->errored) { /* docs/rules.md 13.1: the kernel still saw the queue */
            pl_pool *p = w->pool;
            p->unanswered_full++;
            w->unanswered_full = 1;
            if (w->kernel_queue < 0)
                p->unanswered_unseen++;
            else if (w->kernel_queue > p->unanswered_queue_max)
                p->unanswered_queue_max = w->kernel_queue;
        }
    }
}

/* Section 9: requests queued while the quota throttled, whatever the busy
 * ratio. */
static void round_throttled(pipeline *pl, const host_pair *hp, size_t n)
{
    if (!hp->has_value[SIG_THROTTLED] || hp->grew[SIG_THROTTLED] == 0)
        return;
    for (size_t i = 0; i < n; i++)
        if (pl->work[i].queued) {
            pl->work[i].pool->throttled_rounds++;
            pl->work[i].throttled = 1;
        }
}

/* What each pool of the round gave, to the round hooks (CSV, plots). */
static void round_hooks(pipeline *pl, const pl_host *h, const pl_round *r, const host_pair *hp,
                        size_t n)
{
    for (size_t i = 0; pl->nround_fn && i < n; i++) {
        const round_pool *w = &pl->work[i];
        pl_pool_pair pair = {
            .usable = hp->usable, .interval_s = hp->interval, .busy_ratio = hp->ratio,
            .has_pool_cores = hp->usable && w->in->has_pids, .pool_cores = w->cores,
            .recovered_cores = hp->usable ? w->recovered / (double)h->clk_tck / hp->interval : 0,
            .first = i == 0, .joint_point = w->joint_point, .inconsistent = w->inconsistent,
            .listen_queue = w->listen_queue, .kernel_queue = w->kernel_queue,
            .active = w->active, .maxed = w->maxed, .point = w->point, .starved = w->starved,
            .starved_by_steal = w->starved_by_steal, .throttled = w->throttled,
            .unanswered_full = w->unanswered_full, .private_bytes = w->private_bytes,
            .host_other = pl->host_other, .host_php = pl->host_php};
        for (int k = 0; k < SIG_N; k++) {
            pair.signal[k] = hp->value[k];
            pair.has_signal[k] = hp->usable && hp->has_value[k];
        }
        for (size_t k = 0; k < pl->nround_fn; k++)
            pl->round_fn[k](pl->round_arg[k], h, w->pool, r, &pair);
    }
}

/* This round becomes the previous one.  0, or FPM_ENOMEM. */
static int round_remember(pipeline *pl, pl_host *h, const pl_round *r, const host_pair *hp,
                          size_t n)
{
    prev_round *pr = h->prev;
    if (n > pr->cap) {
        pl_pool **seen = realloc(pr->seen, n * sizeof *seen);
        if (seen)
            pr->seen = seen;
        unsigned char *had = seen ? realloc(pr->had_pids, n) : NULL;
        if (had)
            pr->had_pids = had;
        if (!seen || !had)
            return FPM_ENOMEM;
        pr->cap = n;
    }
    for (size_t i = 0; i < n; i++) {
        pr->seen[i] = pl->work[i].pool;
        pr->had_pids[i] = (unsigned char)pl->work[i].in->has_pids;
    }
    pr->nseen = n;
    pr->has = 1;
    h->unsettled_prev = 0;
    mk_list m = pr->masters; /* this round's masters, carries and all, are the next one's before */
    pr->masters = pl->masters;
    pl->masters = m;
    pr->has_stat = r->rec[PL_REC_STAT].has;
    pr->mono = r->stat_mono;
    for (int k = 0; k < SIG_N; k++) {
        pr->sig[k] = hp->sig[k];
        pr->sig_ok[k] = hp->sig_ok[k];
    }
    return 0;
}

int pipeline_round(pipeline *pl, const pl_round *r)
{
    pl_host *h = pl->cur;
    if (!h)
        return FPM_EFAIL;
    int in = (!pl->opt.has_from || r->real >= pl->opt.from_ns) &&
             (!pl->opt.has_until || r->real < pl->opt.until_ns);
    size_t n = r->npools;
    if (grow_work(pl, n + 1))
        return FPM_ENOMEM;
    for (size_t i = 0; i < n; i++)
        pl->work[i] = (round_pool){.in = &r->pools[i], .listen_queue = -1, .kernel_queue = -1,
                                   .active = -1, .private_bytes = -1, .pool_wait = -1};
    qsort(pl->work, n, sizeof *pl->work, cmp_round_pool);
    h->round_no++;
    if (round_get_pools(pl, h, n) != 0)
        return FPM_ENOMEM;
    if (in && h->unsettled_prev)
        pl_need(pl, h->skip_id);
    for (size_t i = 0; i < n; i++) {
        pl_pool *p = pl->work[i].pool;
        if (pl->work[i].in->has_pids && p->unsettled_pids) {
            if (in)
                pl_need(pl, p->skip_id);
            p->unsettled_pids = 0;
        }
    }
    host_pair hp = pair_of(h, r, in);
    sig_pair sp = {0};
    sp.pids_complete = pl_pids_complete(pl, h, n);
    int recover = hp.usable && sp.pids_complete && r->rec[PL_REC_MASTER].has &&
                  h->prev->masters.n > 0;
    if (pl_round_pool_ticks(pl, h, n, recover, &sp.pool_ticks) || pl_round_recover(pl, h, r, recover, in, n))
        return FPM_ENOMEM;
    if (hp.usable) {
        sp.interval_ns = r->stat_mono - h->prev->mono;
        pair_values(h, &hp, &sp);
        pl_round_pool_cores(pl, h, &hp, n, in, sp.pids_complete);
    }
    pl_round_census(pl, h, r, in, n);
    if (pl_round_memory(pl, h, r, in, n) != 0 || pl_round_waits(pl, h, n, in) != 0 ||
        pl_round_readings(pl, h, r, in, hp.usable, hp.usable && hp.saturated, n) != 0)
        return FPM_ENOMEM;
    if (hp.usable && in) {
        double pools = 0;
        int any = 0;
        for (size_t i = 0; i < n; i++) {
            pools += pl->work[i].in->has_pids ? pl->work[i].cores : 0;
            any |= pl->work[i].in->has_pids;
        }
        h->pools_pairs += (uint64_t)any;
        h->busy_core_seconds += hp.value[SIG_BUSY] * hp.interval;
        h->busy_seconds += hp.interval;
        h->busy_max = hp.value[SIG_BUSY] > h->busy_max ? hp.value[SIG_BUSY] : h->busy_max;
        h->pools_max = pools > h->pools_max ? pools : h->pools_max;
        h->pairs_saturated += (uint64_t)hp.saturated;
        h->pairs_unshared += (uint64_t)(!hp.saturated && !sp.pids_complete);
    }
    if (hp.usable && in && !hp.saturated && sp.pids_complete) {
        pl_round_fit_points(pl, &hp, n);
        if (PL_JOINT && pl_round_joint(pl, h, &hp, n))
            return FPM_ENOMEM;
    }
    if (hp.usable && in && hp.saturated)
        round_starved(pl, h, r, &hp, n);
    if (hp.usable && in) {
        round_throttled(pl, &hp, n);
        if (pair_shares(h, &hp) != 0)
            return FPM_ENOMEM;
    }
    if (in) {
        h->had_page_size |= h->page_size != 0; /* 14.5: by the rounds, not the latest HOST */
        pair_probe(h, r);
        round_hooks(pl, h, r, &hp, n);
    }
    pair_count(h, r, in);
    return round_remember(pl, h, r, &hp, n);
}
