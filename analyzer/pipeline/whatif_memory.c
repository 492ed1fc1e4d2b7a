/* The answer's memory: section 14.4 and 14.5's host advice as one, decided
 * once per host in a scenario (whatif.h, whatif_int.h). */
#include "whatif.h"
#include "whatif_int.h"
#include "memory.h"

#include <string.h>

/* 14.3: M in the scenario: --mem-limit, else MEMINFO's (MemTotal, or the
 * limit), else the HOST's limit where no round had MEMINFO; 0 unknown. */
static uint64_t mem_total(const pl_host *h, const wi_scenario *sc)
{
    if (sc->has_mem_limit)
        return sc->mem_limit;
    return h->has_mem_total ? h->mem_total : h->mem_limit;
}

/* x / 10^-2 of a fraction num / den >= 0, half away from zero */
static int64_t hundredths(__int128 num, __int128 den)
{
    return (int64_t)((200 * num + den) / (2 * den));
}

/* 14.4: each pool's W and where it comes from, whether it had workers, and
 * the workers it counts at (now, else the most it had in one round). */
static void memory_w(const pl_host *h, wi_view *v)
{
    for (size_t i = 0; i < h->npools; i++) {
        const pl_pool *p = h->pools[i];
        wi_view *x = &v[i];
        x->w_mib = mem_w_mib(&p->mem);
        x->w_source = x->w_mib >= 0 ? WI_W_MEASURED : WI_W_NONE;
        if (x->w_mib < 0 && (p->mem.total > 0 || p->has_private)) {
            uint64_t most = p->has_private && p->private_max > p->mem.max_bytes
                                ? p->private_max : p->mem.max_bytes;
            x->w_mib = mem_estimate_mib(most);
            x->w_source = WI_W_ESTIMATED;
        }
        x->with_workers = p->most_workers > 0 || x->w_source != WI_W_NONE;
        x->now_guessed = x->now <= 0;
        x->mem_now = x->now > 0 ? x->now : p->most_workers;
        x->sized = x->has_fill && x->w_source == WI_W_MEASURED;
        if (x->sized) {
            int64_t a = p->act.active_max > 1 ? p->act.active_max : 1;
            x->need = a < x->ceiling ? a : x->ceiling;
        }
    }
}

/* 14.5's sums: what the workers with a W would hold at now and at the
 * advice (or now where none); -1 with no W at all or no MEMINFO. */
static void memory_sums(const pl_host *h, const wi_view *v, wi_memory *m)
{
    int any_w = 0;
    m->needed_now = m->needed_at_advice = -1;
    for (size_t i = 0; i < h->npools; i++) {
        const wi_view *x = &v[i];
        if (!x->with_workers || x->w_source == WI_W_NONE)
            continue;
        any_w = 1;
        int64_t w = x->w_mib * (int64_t)MEM_MIB;
        if (x->now > 0)
            m->needed_now = mul_add_sat(x->now, w, m->needed_now < 0 ? 0 : m->needed_now);
        int64_t at = x->advice >= 0 ? x->advice : x->mem_now;
        m->needed_at_advice = mul_add_sat(at, w, m->needed_at_advice < 0 ? 0 : m->needed_at_advice);
    }
    if (!h->has_mem_total || !any_w) /* 14.5: null only with no W at all or no MEMINFO */
        m->needed_now = m->needed_at_advice = -1;
    else {
        m->needed_now = m->needed_now < 0 ? 0 : m->needed_now;
        m->needed_at_advice = m->needed_at_advice < 0 ? 0 : m->needed_at_advice;
    }
}

/* 14.5: how the host's memory is shared, from the views memory_w filled
 * (and, for its sums, the advices): the sums, B less the held pools, f and
 * g.  The one place these are decided; memory_views applies them. */
void whatif_host_memory(const pl_host *h, const wi_scenario *sc, const wi_view *v,
                        wi_memory *m)
{
    memset(m, 0, sizeof *m);
    m->needed_now = m->needed_at_advice = m->needs_hundredths = m->room_hundredths = -1;
    m->total = mem_total(h, sc);
    m->has_total = m->total > 0;
    m->has_budget = h->has_mem && m->has_total;
    m->has_php = h->has_php;
    m->php_max = h->mem_php_max;
    if (m->has_budget) {
        m->other_max = h->mem_other_max;
        m->budget = mem_budget(m->total, m->other_max);
    }
    memory_sums(h, v, m);
    __int128 held = 0, ceil_w = 0, need_w = 0;
    for (size_t i = 0; i < h->npools; i++) {
        const wi_view *x = &v[i];
        if (!x->with_workers)
            continue;
        if (x->w_source == WI_W_NONE) {
            m->unknown_w = 1;
            continue;
        }
        int64_t w = x->w_mib * (int64_t)MEM_MIB;
        if (x->sized) {
            m->nsized++;
            ceil_w += (__int128)x->ceiling * w;
            need_w += (__int128)x->need * w;
        } else {
            m->nheld++;
            held += (__int128)x->mem_now * w;
        }
    }
    if (!m->has_budget || m->unknown_w || m->nsized == 0)
        return;
    m->shared = 1;
    __int128 bs = (__int128)m->budget - held;
    m->ceilings_bytes = ceil_w;
    m->needs_bytes = need_w;
    m->sized_budget = bs;
    if (ceil_w <= bs) {
        m->binds = WI_BINDS_CPU;
        m->needs_hundredths = m->room_hundredths = 100;
    } else if (need_w > bs) {
        m->binds = WI_BINDS_MEMORY;
        m->needs_hundredths = hundredths(bs > 0 ? bs : 0, need_w);
        m->room_hundredths = 0;
    } else {
        m->binds = WI_BINDS_MEMORY;
        m->needs_hundredths = 100;
        m->room_hundredths = hundredths(bs - need_w, ceil_w - need_w);
    }
}

/* 14.5: a sized pool's advice from the share, in integers; -1 under one
 * worker. */
static int64_t advice_of(const wi_view *x, const wi_memory *m)
{
    __int128 bs = m->sized_budget, a;
    if (m->binds == WI_BINDS_CPU)
        return x->ceiling;
    if (m->needs_bytes > bs) /* every sized pool the same fraction of its need */
        a = (__int128)x->need * (bs > 0 ? bs : 0) / m->needs_bytes;
    else /* each its need, and the same fraction of the room above it */
        a = x->need + (__int128)(x->ceiling - x->need) * (bs - m->needs_bytes) /
                          (m->ceilings_bytes - m->needs_bytes);
    return a >= 1 ? (int64_t)a : -1;
}

/* 14.4 and 14.5: each pool's W, the host's advice as one, each pool's
 * memory ceiling beside the others at their advice (or now), and limit;
 * how the host's memory was shared in *mo. */
void whatif_memory_views(const pl_host *h, const wi_scenario *sc, wi_view *v, wi_memory *mo)
{
    memory_w(h, v);
    wi_memory m;
    whatif_host_memory(h, sc, v, &m);
    for (size_t i = 0; i < h->npools; i++) {
        wi_view *x = &v[i];
        if (x->sized && m.shared) { /* an advice under 1 is none; memory still binds */
            x->advice = advice_of(x, &m);
            x->binds = m.binds;
        }
        x->no_advice = x->advice >= 0          ? WI_NA_NONE
                       : x->floor              ? WI_NA_FLOOR
                       : !x->has_fill          ? WI_NA_NO_CEILING
                       : !h->had_page_size     ? WI_NA_NO_PAGE
                       : x->w_source == WI_W_NONE ? WI_NA_NO_MEMORY
                       : x->w_source == WI_W_ESTIMATED ? WI_NA_ESTIMATED
                       : !m.has_budget         ? WI_NA_NO_MEMINFO
                       : m.unknown_w           ? WI_NA_OTHER_W
                                               : WI_NA_NO_ROOM;
    }
    for (size_t i = 0; m.has_budget && !m.unknown_w && i < h->npools; i++) {
        wi_view *x = &v[i];
        if (x->w_source != WI_W_MEASURED)
            continue;
        __int128 others = 0; /* every other pool at its advice, else at now */
        for (size_t q = 0; q < h->npools; q++)
            if (q != i && v[q].with_workers)
                others += (__int128)(v[q].advice >= 0 ? v[q].advice : v[q].mem_now) *
                          v[q].w_mib * (__int128)MEM_MIB;
        __int128 room = (__int128)m.budget - others, w = (__int128)x->w_mib * MEM_MIB;
        x->mem_ceiling = room > 0 ? (int64_t)(room / w) : 0;
    }
    for (size_t i = 0; i < h->npools; i++) {
        wi_view *x = &v[i];
        if (x->advice >= 0 && x->now > 0)
            x->limit = x->now <= x->advice ? WI_LIMIT_WORKERS
                       : x->binds == WI_BINDS_MEMORY ? WI_LIMIT_MEMORY : WI_LIMIT_CPU;
    }
    memory_sums(h, v, &m); /* at the advices just decided */
    *mo = m;
}
