/* The text's second table (docs/rules.md 12.2): what each pool did, readings
 * or not, so that the replay of an incident shows the pool that was
 * saturated: the cores it used, its busiest round, how often none of its
 * workers was idle or it ran out of them, how long its queue got. */
#include "activity_view.h"

#include "escape.h"
#include "table.h"

static void cores_cell(table *t, int has, double v)
{
    if (has)
        tbl_cell(t, "%.2f", v);
    else
        tbl_cell(t, "-");
}

int out_activity_table(FILE *out, const pl_host *h)
{
    static const int left[] = {1, 0, 0, 0, 0, 0, 0};
    table t = tbl_new(7, left);
    static const char *const head[] = {"ACTIVITY", "CORES", "PEAK", "BUSY MAX", "ALL BUSY",
                                       "RAN OUT", "QUEUE MAX"};
    for (size_t k = 0; k < 7; k++)
        tbl_cell(&t, "%s", head[k]);
    for (size_t i = 0; i < h->npools; i++) {
        const pl_pool *p = h->pools[i];
        const pl_activity *a = &p->act;
        size_t w = 0;
        char *name = esc_display_name(p->name, p->name_len, &w); /* before w is read */
        tbl_cell_owned(&t, name, w);
        cores_cell(&t, a->pairs && a->seconds > 0, a->pairs ? a->core_seconds / a->seconds : 0);
        cores_cell(&t, a->pairs > 0, a->cores_max);
        if (!a->has_active)
            tbl_cell(&t, "-");
        else if (p->max_children > 0)
            tbl_cell(&t, "%lld of %lld", (long long)a->active_max, (long long)p->max_children);
        else
            tbl_cell(&t, "%lld", (long long)a->active_max);
        if (a->full_known)
            tbl_cell(&t, "%llu", (unsigned long long)a->full_rounds);
        else
            tbl_cell(&t, "-");
        if (p->is_static) /* php-fpm counts running out only when it would fork */
            tbl_cell(&t, "-");
        else
            tbl_cell(&t, "%llu", (unsigned long long)a->maxed_rounds);
        if (a->has_queue)
            tbl_cell(&t, "%lld", (long long)a->queue_max);
        else
            tbl_cell(&t, "-");
    }
    int rc = tbl_print(out, &t);
    tbl_free(&t);
    return rc;
}
