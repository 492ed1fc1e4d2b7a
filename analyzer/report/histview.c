/* The hist view: each pool's distribution of CPU shares, the way
 * pg_test_timing prints its timings. */
#include "report.h"
#include "rc.h"

#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "table.h"

static void bucket_range(char *b, size_t n, int i)
{
    if (i == HIST_BUCKETS - 1)
        snprintf(b, n, "%d%%+", hist_floor_pct(i));
    else
        snprintf(b, n, "%d-%d%%", hist_floor_pct(i), hist_floor_pct(i + 1));
}

int out_hist_print(FILE *out, const pipeline *pl, const char *pool, double cutoff)
{
    static const int left[4] = {0, 0, 0, 0};
    pl_host *const *hosts;
    size_t nh = pipeline_hosts(pl, &hosts), shown = 0;
    for (size_t k = 0; k < nh; k++) {
        const pl_host *h = hosts[k];
        for (size_t i = 0; i < h->npools; i++) {
            const pl_pool *p = h->pools[i];
            if (pool && (strlen(pool) != p->name_len || memcmp(pool, p->name, p->name_len)))
                continue;
            size_t hw, pw;
            char *hn = esc_display_name(h->hostname, h->hostname_len, &hw);
            char *pn = esc_display_name(p->name, p->name_len, &pw);
            fprintf(out, "%s%s on %s: %u readings; CPU share of requests up to %.4f%%:\n",
                    shown++ ? "\n" : "", pn ? pn : "?", hn ? hn : "?", pl_hist(p)->total, cutoff);
            free(hn);
            free(pn);
            table t = tbl_new(4, left);
            tbl_cell(&t, "CPU share");
            tbl_cell(&t, "%% of total");
            tbl_cell(&t, "running %%");
            tbl_cell(&t, "count");
            int last = -1;
            for (int b = 0; b < HIST_BUCKETS; b++)
                if (pl_hist(p)->count[b])
                    last = b;
            uint64_t run = 0;
            int stopped = -1;
            char r[32];
            for (int b = 0; b <= last; b++) {
                if (!pl_hist(p)->count[b])
                    continue;
                run += pl_hist(p)->count[b];
                bucket_range(r, sizeof r, b);
                tbl_cell(&t, "%s", r);
                tbl_cell(&t, "%.4f", 100.0 * pl_hist(p)->count[b] / pl_hist(p)->total);
                tbl_cell(&t, "%.4f", 100.0 * (double)run / pl_hist(p)->total);
                tbl_cell(&t, "%u", pl_hist(p)->count[b]);
                if (100.0 * (double)run / pl_hist(p)->total >= cutoff) {
                    stopped = b;
                    break;
                }
            }
            if (stopped >= 0 && stopped < last) {
                tbl_cell(&t, "...");
                tbl_cell(&t, "%s", "");
                tbl_cell(&t, "%s", "");
                tbl_cell(&t, "%s", "");
                bucket_range(r, sizeof r, last);
                tbl_cell(&t, "%s", r);
                tbl_cell(&t, "%.4f", 100.0 * pl_hist(p)->count[last] / pl_hist(p)->total);
                tbl_cell(&t, "%.4f", 100.0);
                tbl_cell(&t, "%u", pl_hist(p)->count[last]);
            }
            int rc = tbl_print(out, &t);
            tbl_free(&t);
            if (rc)
                return FPM_ENOMEM;
            int64_t busy, busy_mc;
            char b[ESC_HUNDREDTHS];
            if (pl_hist(p)->total >= WI_MIN_READINGS && hist_busy(pl_hist(p), &busy, &busy_mc) == 0)
                fprintf(out, "busy share (duration-weighted): %s%%\n", esc_hundredths(b, busy));
        }
    }
    if (!shown)
        fprintf(out, pool ? "no pool named \"%s\"\n" : "no pool%s\n", pool ? pool : "");
    return 0;
}
