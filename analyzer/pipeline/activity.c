/* A pool's activity: docs/rules.md 12.1 and 12.2. */
#include "activity.h"

#include "fpmlog.h"
#include "records.h"

int64_t act_kernel_queue(const unsigned char *listen, size_t listen_len)
{
    uint64_t k;
    return listen && fpmlog_kv_u64(listen, listen_len, LISTEN_QUEUE, &k) == 0 &&
                   k <= (uint64_t)INT64_MAX ? (int64_t)k : -1;
}

int64_t act_queue(const status_page *pg, int64_t kernel)
{
    int64_t q = pg && pg->has_listen_queue && pg->listen_queue >= 0 ? pg->listen_queue : -1;
    return kernel > q ? kernel : q;
}

void act_round(pl_activity *a, const status_page *pg, int64_t queue, int64_t max_children,
               int in, int *maxed, int64_t *active)
{
    *maxed = 0;
    *active = -1;
    if (in && queue >= 0 && (!a->has_queue || queue > a->queue_max)) {
        a->has_queue = 1;
        a->queue_max = queue;
    }
    if (!pg)
        return;
    a->full_known |= in && max_children > 0; /* docs/rules.md 13: else full_rounds is null */
    if (pg->has_active && pg->active >= 0) {
        *active = pg->active;
        if (in && (!a->has_active || pg->active > a->active_max)) {
            a->has_active = 1;
            a->active_max = pg->active;
        }
        if (in && max_children > 0 && pg->active >= max_children)
            a->full_rounds++;
    }
    if (!pg->has_max_reached)
        return;
    int64_t start = pg->has_start_time ? pg->start_time : -1;
    *maxed = a->has_prev && a->prev_start == start && pg->max_reached > a->prev_reached;
    a->maxed_rounds += (uint64_t)(in && *maxed);
    a->has_prev = 1; /* a new start time: a restarted master, counting from 0 */
    a->prev_reached = pg->max_reached;
    a->prev_start = start;
}

void act_pair(pl_activity *a, double ticks, double clk_tck, double interval_s,
              double host_cores, double others_cores)
{
    a->host_core_seconds += host_cores * interval_s;
    a->others_core_seconds += others_cores * interval_s;
    double cores = ticks / clk_tck / interval_s;
    if (a->pairs == 0 || cores > a->cores_max)
        a->cores_max = cores;
    a->pairs++;
    a->core_seconds += ticks / clk_tck;
    a->seconds += interval_s;
}
