/* The 61-bucket CPU-share histogram. */
#include "hist.h"

int hist_bucket(int64_t s)
{
    if (s < 0)
        s = 0;
    if (s < 10000)
        return (int)(s / 500);
    if (s < 40000)
        return (int)(20 + (s - 10000) / 2500);
    if (s < 320000)
        return (int)(32 + (s - 40000) / 10000);
    return 60;
}

int hist_floor_pct(int i)
{
    if (i < 20)
        return 5 * i;
    if (i < 32)
        return 100 + 25 * (i - 20);
    if (i < 60)
        return 400 + 100 * (i - 32);
    return 3200;
}

void hist_add(hist *h, int64_t s)
{
    h->count[hist_bucket(s)]++;
    h->total++;
    if (h->total > HIST_LIMIT) {
        uint32_t sum = 0;
        for (int i = 0; i < HIST_BUCKETS; i++) {
            h->count[i] /= 2;
            sum += h->count[i];
        }
        h->total = sum;
    }
}

int hist_percentile(const hist *h, int pct)
{
    if (h->total == 0)
        return -1;
    uint64_t rank = ((uint64_t)pct * h->total + 99) / 100;
    if (rank < 1)
        rank = 1;
    uint64_t run = 0;
    for (int i = 0; i < HIST_BUCKETS; i++) {
        run += h->count[i];
        if (run >= rank)
            return i;
    }
    return HIST_BUCKETS - 1;
}
