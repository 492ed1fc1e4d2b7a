/* The per-round host signals. */
#include "signals.h"

#include "pipeline.h"
#include "procfs.h"

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
                      double interval, double *v)
{
    *v = b->unit ? (double)(b->v - a->v) / 1e6 / interval
                 : (double)(b->v - a->v) / (double)h->clk_tck / interval;
    return 0;
}

const pl_signal PL_SIGNALS[SIG_N] = {
    [SIG_BUSY] = {"busy", REC_STAT, "host_cores", busy_counter, busy_value},
};
