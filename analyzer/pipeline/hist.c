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

void hist_add(hist *h, int64_t s, int64_t duration_us)
{
    hist_add_shown(h, s, s, duration_us);
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void hist_add_shown(hist *h, int64_t shown, int64_t s, int64_t duration_us)
{
    h->count[hist_bucket(shown)]++;
    h->total++;
    uint64_t cs = s < 0 ? 0 : s > HIST_BUSY_MAX_SHARE ? HIST_BUSY_MAX_SHARE : (uint64_t)s;
    uint64_t per_ms = hist_per_ms(h);
    uint64_t d = duration_us < 0 ? 0 : h->us ? (uint64_t)duration_us : (uint64_t)duration_us / 1000;
    if (d > HIST_BUSY_MAX_MS * per_ms)
        d = HIST_BUSY_MAX_MS * per_ms;
    /* in ms C stays under 2 x 4097 x 10^9 x 10^6 < 2^64: halved at least
     * every 4097 readings; in microseconds it is held at 2^64 - 1 */
    h->busy_w += d;
    h->busy_c = sat_add(h->busy_c, cs * d);
    if (h->total > (h->us ? HIST_LIMIT_CENSUS : HIST_LIMIT)) {
        h->total = counts_halve(h->count, HIST_BUCKETS);
        h->busy_w /= 2;
        h->busy_c /= 2;
    }
}

void hist_to_us(hist *h)
{
    if (h->us)
        return;
    h->us = 1;
    h->busy_w *= 1000; /* under 2 x 4097 x 10^9 x 1000 */
    h->busy_c = h->busy_c > UINT64_MAX / 1000 ? UINT64_MAX : h->busy_c * 1000;
}

int hist_busy(const hist *h, int64_t *hundredths, int64_t *millicores)
{
    if (h->busy_w == 0)
        return -1;
    /* round(C / W) and round(C / (10 W)), halves up: all values are >= 0 */
    *hundredths = (int64_t)(h->busy_c / h->busy_w +
                            (2 * (h->busy_c % h->busy_w) >= h->busy_w));
    uint64_t w10 = 10 * h->busy_w;
    *millicores = (int64_t)(h->busy_c / w10 + (2 * (h->busy_c % w10) >= w10));
    return 0;
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
