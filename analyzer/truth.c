/* A host's section 9 figures. */
#include "truth.h"

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
