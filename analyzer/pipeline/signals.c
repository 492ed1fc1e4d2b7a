/* The per-round host signals. */
#include "signals.h"

#include "round.h"
#include "state.h"
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

/* The cgroup's CPU usage in microseconds: v2 cpu.stat's usage_usec (unit
 * 1), or on cgroup v1 cpuacct.usage / 10^3 (unit 2) (docs/rules.md 5, 16.2). */
static int cgroup_usage(const pl_host *h, const pl_round *r, sig_counter *c)
{
    const pl_host_rec *cg = &r->rec[h->cgroup_v1 ? PL_REC_CPUACCT : PL_REC_CPU_STAT];
    if (!cg->has)
        return -1;
    if (h->cgroup_v1) {
        if (procfs_first_u64((const char *)cg->p, cg->len, &c->v) != 0)
            return -1;
        c->v /= 1000;
        c->unit = 2;
        return 0;
    }
    c->unit = 1;
    return procfs_cgroup_usage((const char *)cg->p, cg->len, &c->v);
}

/* busy: the cgroup's usage on a quota host, else STAT's ticks: the `cpu`
 * line's everything-but-idle-and-iowait (unit 0), or the named CPUs' lines
 * summed where a cpuset is narrower than the host (unit 3).  A named CPU
 * without its line makes the round pair with nothing (docs/rules.md 16.1). */
static int busy_counter(const pl_host *h, const pl_round *r, sig_counter *c)
{
    const pl_host_rec *st = &r->rec[PL_REC_STAT];
    procfs_cpu_sum sum;
    if (h->use_cpus &&
        (!st->has || procfs_stat_cpus((const char *)st->p, st->len, h->cpus, &sum) != 0))
        return -1;
    if (h->quota_millicores > 0 && cgroup_usage(h, r, c) == 0)
        return 0;
    if (h->use_cpus) {
        c->v = sum.busy;
        c->unit = 3;
        return 0;
    }
    c->unit = 0;
    return st->has && procfs_stat_busy((const char *)st->p, st->len, &c->v) == 0 ? 0 : -1;
}

/* busy: host cores over the pair */
static int busy_value(const pl_host *h, const sig_counter *a, const sig_counter *b,
                      const sig_pair *p, double *v)
{
    double interval = (double)p->interval_ns / 1e9;
    *v = b->unit == 1 || b->unit == 2 ? (double)(b->v - a->v) / 1e6 / interval
                                      : (double)(b->v - a->v) / (double)h->clk_tck / interval;
    return 0;
}

/* steal: the cpu line's steal (v), its total of eight (w) and its busy
 * ticks (x: busy less steal says whether the steal made the host full);
 * the named CPUs' lines summed where a cpuset is narrower (16.1) */
static int steal_counter(const pl_host *h, const pl_round *r, sig_counter *c)
{
    const pl_host_rec *st = &r->rec[PL_REC_STAT];
    const char *b = (const char *)st->p;
    if (h->use_cpus) {
        procfs_cpu_sum sum;
        if (!st->has || procfs_stat_cpus(b, st->len, h->cpus, &sum) != 0 || !sum.steal_ok)
            return -1;
        c->v = sum.steal, c->w = sum.total, c->x = sum.busy;
        return 0;
    }
    return st->has && procfs_stat_steal(b, st->len, &c->v, &c->w) == 0 &&
           procfs_stat_busy(b, st->len, &c->x) == 0 ? 0 : -1;
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
 * absent as 0; cgroup v1's throttled_time in ns / 10^3) */
static int throttled_counter(const pl_host *h, const pl_round *r, sig_counter *c)
{
    (void)h;
    const pl_host_rec *cg = &r->rec[PL_REC_CPU_STAT];
    const char *b = (const char *)cg->p;
    if (!cg->has || procfs_flat_key(b, cg->len, "nr_throttled", &c->v) != 0 ||
        procfs_flat_key(b, cg->len, "nr_periods", &c->w) != 0)
        return -1;
    if (procfs_flat_key(b, cg->len, "throttled_usec", &c->x) != 0) {
        if (procfs_flat_key(b, cg->len, "throttled_time", &c->x) == 0)
            c->x /= 1000;
        else
            c->x = 0;
    }
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
    const pl_host_rec *ps = &r->rec[h->quota_millicores > 0 ? PL_REC_CPU_PRESSURE : PL_REC_PRESSURE];
    return ps->has && procfs_pressure_some((const char *)ps->p, ps->len, &c->v) == 0 ? 0 : -1;
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

/* php_accounted: the cgroup's usage, quota or not */
static int accounted_counter(const pl_host *h, const pl_round *r, sig_counter *c)
{
    return cgroup_usage(h, r, c);
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
    [SIG_BUSY] = {.name = "busy", .record = REC_STAT, .csv = "host_cores",
                  .counter = busy_counter, .value = busy_value},
    [SIG_STEAL] = {
        .name = "steal", .record = REC_STAT, .csv = "steal_pct", .share = 1,
        .om_help = "Share of the CPU the hypervisor stole, over round pairs (kernel's count)",
        .text = "steal: the hypervisor took {q} of the CPU ({n} round pairs, the kernel's count).",
        .text_when = SIG_TEXT_MAX, .check = 1,
        .plot = "steal (hypervisor)", .plot_short = "steal", .plot_nonzero = 1,
        .counter = steal_counter, .value = steal_value},
    [SIG_THROTTLED] = {
        .name = "throttled", .record = REC_CGROUP, .csv = "throttled_pct", .share = 1,
        .om_help = "Share of the quota's periods that were throttled, over round pairs",
        .text = "throttled by its quota in {q} of the periods, {secs} s in all ({n} round pairs).",
        .text_when = SIG_TEXT_MAX, .check = 1,
        .counter = throttled_counter, .value = throttled_value},
    [SIG_PRESSURE] = {
        .name = "pressure", .record = REC_PRESSURE, .csv = "pressure_pct", .share = 1,
        .om_help = "Share of the time tasks waited for a CPU, over round pairs",
        .text = "CPU pressure: tasks waited for a CPU {q} of the time ({n} round pairs).",
        .text_when = SIG_TEXT_P90_1, .check = 1,
        .plot = "CPU pressure (some)", .plot_short = "CPU pressure",
        .counter = pressure_counter, .value = pressure_value},
    [SIG_ACCOUNTED] = {
        .name = "php_accounted", .record = REC_CGROUP, .csv = "php_accounted_pct", .share = 1,
        .om_help = "Share of php-fpm's cgroup CPU its workers' ticks account for",
        .text = "the workers' ticks account for a p50 of {p50}% of php-fpm's CPU (p10 {p10}%, "
                "{n} round pairs): recycled workers, the master or other processes in its "
                "cgroup spent the rest, and the host overhead fit does not see it.",
        .text_when = SIG_TEXT_P50_UNDER_90,
        .counter = accounted_counter, .value = accounted_value},
};

void sig_truth(const pl_host *h, truth *t)
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
