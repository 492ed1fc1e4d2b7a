/* Section 5 and 9's host side of a pair of rounds: whether it is usable,
 * each signal's value over it, the shares and the steal probe. */
#include "pairs.h"
#include "rc.h"

#include <stdlib.h>

/* Whether this round and the one before make a usable pair (section 5):
 * -1 when they do, else why not (a pl_drop; PL_NDROP with no round before). */
static int pair_drop(const prev_round *pr, const pl_round *r, int busy_ok, const sig_counter *busy)
{
    if (!pr->has)
        return PL_NDROP;
    if (!pr->has_stat || !r->rec[PL_REC_STAT].has || !busy_ok || !pr->sig_ok[SIG_BUSY])
        return PL_DROP_NO_STAT;
    if (pr->sig[SIG_BUSY].unit != busy->unit)
        return PL_DROP_MEASURE;
    if (busy->v < pr->sig[SIG_BUSY].v || r->stat_mono < pr->mono)
        return PL_DROP_BACK;
    if (r->stat_mono - pr->mono < PL_MIN_INTERVAL_NS)
        return PL_DROP_SHORT;
    if (r->stat_mono - pr->mono > PL_MAX_INTERVAL_NS)
        return PL_DROP_LONG;
    return -1;
}


/* This round's counters, and whether it pairs with the one before. */
host_pair pair_of(pl_host *h, const pl_round *r, int in)
{
    host_pair hp = {0};
    hp.ratio = -1;
    for (int k = 0; k < SIG_N; k++)
        hp.sig_ok[k] = PL_SIGNALS[k].counter(h, r, &hp.sig[k]) == 0;
    prev_round *pr = h->prev;
    int drop = pair_drop(pr, r, hp.sig_ok[SIG_BUSY], &hp.sig[SIG_BUSY]);
    hp.usable = drop < 0;
    if (in && pr->has) {
        if (hp.usable)
            h->pairs_usable++;
        else
            h->pairs_dropped[drop]++;
    }
    if (hp.usable)
        hp.interval = (double)(r->stat_mono - pr->mono) / 1e9;
    return hp;
}

/* Each signal's value over a usable pair, and the busy ratio. */
void pair_values(pl_host *h, host_pair *hp, const sig_pair *sp)
{
    const prev_round *pr = h->prev;
    for (int k = 0; k < SIG_N; k++) {
        const sig_counter *a = &pr->sig[k], *b = &hp->sig[k];
        if (!hp->sig_ok[k] || !pr->sig_ok[k] || a->unit != b->unit || b->v < a->v)
            continue;
        hp->grew[k] = b->v - a->v;
        hp->has_value[k] = PL_SIGNALS[k].value(h, a, b, sp, &hp->value[k]) == 0;
    }
    if (h->host_millicores > 0) {
        hp->ratio = hp->value[SIG_BUSY] / ((double)h->host_millicores / 1000.0);
        if (hp->ratio > 1)
            hp->ratio = 1;
        hp->saturated = hp->ratio >= PL_SATURATED;
    }
}

typedef unsigned __int128 u128;

/* Section 9: whether the host, measured by STAT, was full only because of
 * the steal: (busy - steal) / clk_tck / interval / (host millicores / 1000)
 * below 0.95, exactly. */
int pair_full_by_steal(const pl_host *h, const pl_round *r, const host_pair *hp)
{
    const sig_counter *was = &h->prev->sig[SIG_STEAL], *now = &hp->sig[SIG_STEAL];
    if (!sig_by_stat(&hp->sig[SIG_BUSY]) || !hp->has_value[SIG_STEAL] || now->x < was->x)
        return 0;
    uint64_t busy = now->x - was->x, steal = hp->grew[SIG_STEAL];
    uint64_t own = busy > steal ? busy - steal : 0;
    u128 interval_ns = r->stat_mono - h->prev->mono;
    return (u128)own * 100000000000000u <
           (u128)95 * h->clk_tck * interval_ns * h->host_millicores;
}

void pl_shares_pct(const pl_shares *s, int64_t out[4])
{
    static const uint64_t q[4] = {10, 50, 90, 100};
    for (int k = 0; k < 4; k++) {
        out[k] = -1;
        if (!s->n || !s->count)
            continue;
        uint64_t rank = s->n / 100 * q[k] + (s->n % 100 * q[k] + 99) / 100; /* ceil(q n) */
        if (rank == 0)
            rank = 1;
        uint64_t seen = 0;
        for (int64_t v = 0; v <= SIG_SHARE_MAX; v++)
            if ((seen += s->count[v]) >= rank) {
                out[k] = v;
                break;
            }
    }
}

/* Section 9: each share the pair gave, and the throttled time.  0, FPM_ENOMEM. */
int pair_shares(pl_host *h, const host_pair *hp)
{
    for (int k = SIG_FIRST_SHARE; k < SIG_N; k++) {
        if (!hp->has_value[k])
            continue;
        pl_shares *s = &h->shares[k];
        if (!s->count && !(s->count = calloc(SIG_SHARE_MAX + 1, sizeof *s->count)))
            return FPM_ENOMEM;
        s->count[(uint32_t)hp->value[k]]++;
        s->n++;
    }
    if (hp->has_value[SIG_THROTTLED] && hp->sig[SIG_THROTTLED].x >= h->prev->sig[SIG_THROTTLED].x) {
        uint64_t d = hp->sig[SIG_THROTTLED].x - h->prev->sig[SIG_THROTTLED].x;
        h->throttled_usec = d > UINT64_MAX - h->throttled_usec ? UINT64_MAX : h->throttled_usec + d;
    }
    return 0;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

/* Section 9: the steal probe's record of the round. */
void pair_probe(pl_host *h, const pl_round *r)
{
    if (!r->rec[PL_REC_STEAL].has)
        return;
    const unsigned char *b = r->rec[PL_REC_STEAL].p;
    size_t n = r->rec[PL_REC_STEAL].len;
    uint64_t dur = pl_kv_u64(b, n, "duration_ns", 0);
    uint64_t gap = pl_kv_u64(b, n, "gap_total_ns", UINT64_MAX);
    if (dur == 0 || gap == UINT64_MAX)
        return;
    uint64_t delay = pl_kv_u64(b, n, "run_delay_ns", 0);
    h->probe.probes++;
    h->probe.duration_ns = add_sat(h->probe.duration_ns, dur);
    h->probe.gap_ns = add_sat(h->probe.gap_ns, gap);
    h->probe.net_ns = add_sat(h->probe.net_ns, gap > delay ? gap - delay : 0);
}

const char *pl_drop_name(pl_drop d)
{
    static const char *const names[PL_NDROP] = {
        "under 5 s apart", "over 5 min apart", "a counter or the clock went back",
        "a round without STAT", "host CPU measured two ways"};
    return d < PL_NDROP ? names[d] : "?";
}

/* Section 1 and 9: the rounds counted and the span they cover. */
void pair_count(pl_host *h, const pl_round *r, int in)
{
    if (!h->span_first || r->real < h->span_first)
        h->span_first = r->real;
    if (r->real > h->span_last)
        h->span_last = r->real;
    if (in) {
        h->rounds++;
        if (!h->first_real)
            h->first_real = r->real;
        h->last_real = r->real;
    }
}
