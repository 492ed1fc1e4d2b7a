/* The per-round host signals. */
#include "signals.h"

#include "pipeline.h"
#include "procfs.h"

typedef unsigned __int128 u128;

/* num / den in hundredths of a percent; num and den as wide as they come. */
static uint32_t share128(u128 num, u128 den)
{
    if (num >= den)
        return SIG_SHARE_MAX;
    /* num < den: num x 20000 + den fits whenever den < 2^113 */
    if (den >> 112)
        return share128(num >> 16, den >> 16);
    return (uint32_t)((num * 2 * SIG_SHARE_MAX + den) / (2 * den));
}

uint32_t sig_share(uint64_t num, uint64_t den)
{
    return share128(num, den);
}

/* busy: usage_usec on a quota host with cgroup cpu.stat, else the STAT cpu
 * line's everything-but-idle-and-iowait ticks. */
static int busy_counter(const pl_host *h, const pl_round *r, sig_counter *c)
{
    if (h->quota_millicores > 0 && r->has_cpu_stat &&
        procfs_cgroup_usage((const char *)r->cpu_stat, r->cpu_stat_len, &c->v) == 0) {
        c->unit = 1;
        return 0;
    }
    c->unit = 0;
    return r->has_stat && procfs_stat_busy((const char *)r->stat, r->stat_len, &c->v) == 0 ? 0
                                                                                             : -1;
}

/* busy: host cores over the pair */
static int busy_value(const pl_host *h, const sig_counter *a, const sig_counter *b,
                      const sig_pair *p, double *v)
{
    double interval = (double)p->interval_ns / 1e9;
    *v = b->unit ? (double)(b->v - a->v) / 1e6 / interval
                 : (double)(b->v - a->v) / (double)h->clk_tck / interval;
    return 0;
}

/* steal: the cpu line's steal (v), its total of eight (w) and its busy
 * ticks (x: busy less steal says whether the steal made the host full) */
static int steal_counter(const pl_host *h, const pl_round *r, sig_counter *c)
{
    (void)h;
    const char *b = (const char *)r->stat;
    return r->has_stat && procfs_stat_steal(b, r->stat_len, &c->v, &c->w) == 0 &&
           procfs_stat_busy(b, r->stat_len, &c->x) == 0 ? 0 : -1;
}

static int steal_value(const pl_host *h, const sig_counter *a, const sig_counter *b,
                       const sig_pair *p, double *v)
{
    (void)h, (void)p;
    if (b->w <= a->w)
        return -1; /* the total did not grow */
    *v = sig_share(b->v - a->v, b->w - a->w);
    return 0;
}

/* throttled: cpu.stat's nr_throttled (v), nr_periods (w), throttled_usec (x,
 * absent as 0) */
static int throttled_counter(const pl_host *h, const pl_round *r, sig_counter *c)
{
    (void)h;
    const char *b = (const char *)r->cpu_stat;
    if (!r->has_cpu_stat || procfs_flat_key(b, r->cpu_stat_len, "nr_throttled", &c->v) != 0 ||
        procfs_flat_key(b, r->cpu_stat_len, "nr_periods", &c->w) != 0)
        return -1;
    if (procfs_flat_key(b, r->cpu_stat_len, "throttled_usec", &c->x) != 0)
        c->x = 0;
    return 0;
}

#define THROTTLE_MIN_PERIODS 10 /* fewer periods say nothing */

static int throttled_value(const pl_host *h, const sig_counter *a, const sig_counter *b,
                           const sig_pair *p, double *v)
{
    (void)h, (void)p;
    if (b->w < a->w || b->w - a->w < THROTTLE_MIN_PERIODS)
        return -1;
    *v = sig_share(b->v - a->v, b->w - a->w);
    return 0;
}

/* pressure: the some line's total= of cgroup cpu.pressure on a quota host,
 * else of /proc/pressure/cpu */
static int pressure_counter(const pl_host *h, const pl_round *r, sig_counter *c)
{
    int quota = h->quota_millicores > 0;
    int has = quota ? r->has_cpu_pressure : r->has_pressure;
    const unsigned char *b = quota ? r->cpu_pressure : r->pressure;
    size_t n = quota ? r->cpu_pressure_len : r->pressure_len;
    return has && procfs_pressure_some((const char *)b, n, &c->v) == 0 ? 0 : -1;
}

static int pressure_value(const pl_host *h, const sig_counter *a, const sig_counter *b,
                          const sig_pair *p, double *v)
{
    (void)h;
    if (p->interval_ns == 0)
        return -1;
    *v = share128((u128)(b->v - a->v) * 1000, p->interval_ns); /* usec over ns */
    return 0;
}

/* php_accounted: cpu.stat's usage_usec, quota or not */
static int accounted_counter(const pl_host *h, const pl_round *r, sig_counter *c)
{
    (void)h;
    return r->has_cpu_stat &&
           procfs_cgroup_usage((const char *)r->cpu_stat, r->cpu_stat_len, &c->v) == 0 ? 0 : -1;
}

static int accounted_value(const pl_host *h, const sig_counter *a, const sig_counter *b,
                           const sig_pair *p, double *v)
{
    if (!p->pids_complete || b->v <= a->v)
        return -1;
    /* ticks x 10^6 / clk_tck over the usage's growth */
    *v = share128((u128)p->pool_ticks * 1000000u, (u128)(b->v - a->v) * h->clk_tck);
    return 0;
}

const pl_signal PL_SIGNALS[SIG_N] = {
    [SIG_BUSY] = {"busy", REC_STAT, "host_cores", 0, busy_counter, busy_value},
    [SIG_STEAL] = {"steal", REC_STAT, "steal_pct", 1, steal_counter, steal_value},
    [SIG_THROTTLED] = {"throttled", REC_CGROUP, "throttled_pct", 1, throttled_counter,
                       throttled_value},
    [SIG_PRESSURE] = {"pressure", REC_PRESSURE, "pressure_pct", 1, pressure_counter,
                      pressure_value},
    [SIG_ACCOUNTED] = {"php_accounted", REC_CGROUP, "php_accounted_pct", 1, accounted_counter,
                       accounted_value},
};

void truth_of(const pl_host *h, truth *t)
{
    for (int k = 0; k < SIG_N; k++) {
        t->pairs[k] = h->shares[k].n;
        pl_shares_pct(&h->shares[k], t->pct[k]);
    }
    t->throttled_usec = h->throttled_usec;
    t->probes = h->probe.probes;
    t->probe_pct = t->probe_naive_pct = -1;
    if (h->probe.probes && h->probe.duration_ns) {
        t->probe_pct = sig_share(h->probe.net_ns, h->probe.duration_ns);
        t->probe_naive_pct = sig_share(h->probe.gap_ns, h->probe.duration_ns);
    }
}
