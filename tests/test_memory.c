/* Sections 14 and 15 of docs/rules.md: memory readings, the memory
 * histogram and W, the host's php budget, the memory ceiling, the advice
 * (analyzer/pipeline/memory.h, whatif.h) and advise's bounds and line
 * (analyzer/pipeline/bounds.h, analyzer/cmd/advise.h); a rule a test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "advise.h"
#include "bounds.h"
#include "memory.h"
#include "pipeline_harness.h"
#include "procfs.h"
#include "whatif.h"

#define MIB 1048576ull
#define GIB (1024 * MIB)

typedef struct {
    int64_t  pid[8];
    uint64_t bytes[8];
    int      n;
} seen;

static void on_private(void *arg, int64_t pid, uint64_t bytes)
{
    seen *s = arg;
    s->pid[s->n] = pid;
    s->bytes[s->n++] = bytes;
}

/* 14.1: (resident - shared) x page_size: opcache's and the binary's
 * shared pages are not the worker's */
static void test_14_1_private_is_resident_less_shared(void **state)
{
    (void)state;
    seen s = {0};
    const char *statm = "4100 60000 13312 3072 300 0 9000 0\n4101 60000 3072 3072 300 0 9000 0\n";
    size_t bad = mem_each_statm((const unsigned char *)statm, strlen(statm), 4096, on_private, &s);
    assert_int_equal(bad, 0);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.pid[0], 4100);
    assert_int_equal(s.bytes[0], 10240ull * 4096); /* 40 MiB */
    assert_int_equal(s.bytes[1], 0);
}

/* 14.1: a line whose fields are not plain non-negative integers, or whose
 * shared exceeds resident, gives nothing */
static void test_14_1_statm_lines_that_do_not_parse(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "4100 60000 13312 3072 300 0 9000",         /* seven fields */
        "4100 60000 13312 3072 300 0 9000 0 1",     /* nine */
        "4100 60000 -13312 3072 300 0 9000 0",      /* a sign */
        "4100 60000 13312 30x2 300 0 9000 0",       /* not a number */
        "4100 60000 13312 3072.5 300 0 9000 0",     /* a fraction */
        "4100 60000 3072 3073 300 0 9000 0",        /* shared > resident */
        "0 60000 13312 3072 300 0 9000 0",          /* no pid */
        "4100 60000 99999999999999999999 3072 300 0 9000 0", /* does not fit */
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t pid;
        uint64_t res, sh;
        assert_int_equal(procfs_statm(bad[i], strlen(bad[i]), &pid, &res, &sh), -1);
    }
    seen s = {0};
    const char *t = "x y\n4100 60000 13312 3072 300 0 9000 0\n4101 1 2 3 4 5 6\n";
    assert_int_equal(mem_each_statm((const unsigned char *)t, strlen(t), 4096, on_private, &s), 2);
    assert_int_equal(s.n, 1);
}

/* 14.2: 1 MiB buckets below 128, 16 MiB to 1024, 256 MiB to 8192, then one;
 * a bucket's top is its upper edge, the last one's the largest reading */
static void test_14_2_buckets_and_their_tops(void **state)
{
    (void)state;
    mem_hist h = {0};
    assert_int_equal(mem_bucket(0), 0);
    assert_int_equal(mem_bucket(MIB - 1), 0);
    assert_int_equal(mem_bucket(MIB), 1);
    assert_int_equal(mem_bucket(128 * MIB - 1), 127);
    assert_int_equal(mem_bucket(128 * MIB), 128);
    assert_int_equal(mem_bucket(144 * MIB), 129);
    assert_int_equal(mem_bucket(1024 * MIB - 1), 183);
    assert_int_equal(mem_bucket(1024 * MIB), 184);
    assert_int_equal(mem_bucket(8192 * MIB - 1), 211);
    assert_int_equal(mem_bucket(8192 * MIB), 212);
    assert_int_equal(mem_top_mib(&h, 0), 1);
    assert_int_equal(mem_top_mib(&h, 127), 128);
    assert_int_equal(mem_top_mib(&h, 128), 144);
    assert_int_equal(mem_top_mib(&h, 183), 1024);
    assert_int_equal(mem_top_mib(&h, 184), 1280);
    assert_int_equal(mem_top_mib(&h, 211), 8192);
    mem_add(&h, 9000 * MIB + 1);
    assert_int_equal(mem_top_mib(&h, 212), 9001); /* rounded up */
    assert_int_equal(h.max_bytes, 9000 * MIB + 1);
}

/* 14.2: above 4096 readings every bucket halves, as the CPU histogram does */
static void test_14_2_the_histogram_halves(void **state)
{
    (void)state;
    mem_hist h = {0};
    for (int i = 0; i < MEM_LIMIT; i++)
        mem_add(&h, (uint64_t)(i % 2 ? 30 : 31) * MIB);
    assert_int_equal(h.total, 4096);
    assert_int_equal(h.count[30], 2048);
    mem_add(&h, 500 * MIB);
    assert_int_equal(h.count[30], 1024);
    assert_int_equal(h.count[31], 1024);
    assert_int_equal(h.count[mem_bucket(500 * MIB)], 0); /* 1 / 2 */
    assert_int_equal(h.total, 2048);
    assert_int_equal(h.max_bytes, 500 * MIB); /* the largest reading is never halved */
}

/* 14.2: W is known from 20 readings on */
static void test_14_2_w_at_19_and_at_20_readings(void **state)
{
    (void)state;
    mem_hist h = {0};
    for (int i = 0; i < 19; i++)
        mem_add(&h, 40 * MIB);
    assert_int_equal(mem_w_mib(&h), -1);
    mem_add(&h, 40 * MIB);
    assert_int_equal(mem_w_mib(&h), 41);
}

/* 14.2: W is the top of the bucket of the 95th percentile, rounded up */
static void test_14_2_w_is_the_95th_percentile_rounded_up(void **state)
{
    (void)state;
    mem_hist h = {0};
    for (int i = 0; i < 95; i++)
        mem_add(&h, 30 * MIB + 5);  /* bucket 30, top 31 */
    for (int i = 0; i < 5; i++)
        mem_add(&h, 200 * MIB);     /* bucket 132, top 208 */
    assert_int_equal(mem_w_mib(&h), 31); /* rank ceil(95 x 100 / 100) = 95 */
    mem_add(&h, 200 * MIB);             /* rank ceil(95 x 101 / 100) = 96 */
    assert_int_equal(mem_w_mib(&h), 208);
}

/* 14.3: other = MemTotal - MemAvailable - php, floored at 0 */
static void test_14_3_other_from_meminfo(void **state)
{
    (void)state;
    const char *mi = "MemTotal:        8388608 kB\nMemFree:         1000000 kB\n"
                     "MemAvailable:    6291456 kB\nShmem:             12288 kB\n";
    uint64_t other, total;
    assert_int_equal(mem_other((const unsigned char *)mi, strlen(mi), NULL, 0, 0, 0, 512 * MIB,
                               &other, &total), 0);
    assert_int_equal(total, 8 * GIB);
    assert_int_equal(other, 2 * GIB - 512 * MIB);
    assert_int_equal(mem_other((const unsigned char *)mi, strlen(mi), NULL, 0, 0, 0, 3 * GIB,
                               &other, &total), 0);
    assert_int_equal(other, 0);
    const char *no_avail = "MemTotal:        8388608 kB\n";
    assert_int_equal(mem_other((const unsigned char *)no_avail, strlen(no_avail), NULL, 0, 0, 0,
                               0, &other, &total), -1);
}

/* 14.3: under a cgroup limit below MemTotal, other is the cgroup's anon +
 * shmem less php, and the limit stands in for MemTotal: cgroup v2 */
static void test_14_3_a_cgroup_limit_below_memtotal_v2(void **state)
{
    (void)state;
    const char *mi = "MemTotal:        8388608 kB\nMemAvailable:    1000 kB\n";
    const char *st = "anon 1073741824\nfile 999999999\nkernel 5\nshmem 67108864\n";
    uint64_t other, total;
    assert_int_equal(mem_other((const unsigned char *)mi, strlen(mi), (const unsigned char *)st,
                               strlen(st), 2 * GIB, 0, 512 * MIB, &other, &total), 0);
    assert_int_equal(total, 2 * GIB);
    assert_int_equal(other, 1 * GIB + 64 * MIB - 512 * MIB);
    total = 0;
    assert_int_equal(mem_other((const unsigned char *)mi, strlen(mi), NULL, 0, 2 * GIB, 0,
                               512 * MIB, &other, &total), 1); /* no memory.stat: M alone */
    assert_int_equal(total, 2 * GIB);
}

/* ... cgroup v1: total_rss + total_shmem (its rss and shmem are the cgroup's
 * own alone) */
static void test_14_3_a_cgroup_limit_below_memtotal_v1(void **state)
{
    (void)state;
    const char *mi = "MemTotal:        8388608 kB\nMemAvailable:    1000 kB\n";
    const char *st = "cache 5\nrss 7\nshmem 1\ntotal_cache 9\ntotal_rss 805306368\n"
                     "total_shmem 33554432\n";
    uint64_t other, total;
    assert_int_equal(mem_other((const unsigned char *)mi, strlen(mi), (const unsigned char *)st,
                               strlen(st), 1280 * MIB, 1, 256 * MIB, &other, &total), 0);
    assert_int_equal(total, 1280 * MIB);
    assert_int_equal(other, 768 * MIB + 32 * MIB - 256 * MIB);
}

/* 14.3: B = M - max other - M / 10, floored at 0 */
static void test_14_3_the_budget_keeps_a_tenth(void **state)
{
    (void)state;
    assert_int_equal(mem_budget(8 * GIB, 1 * GIB), 8 * GIB - 1 * GIB - 858993459);
    assert_int_equal(mem_budget(1 * GIB, 1 * GIB), 0);
}

/* A pool of 20 readings at share hundredths, each 1 s long, and m memory
 * readings of bytes each; now workers (pm.max_children), the most of them
 * busy at once active. */
static pl_pool pool_of(const char *name, int64_t max_children, int64_t share, int m,
                       uint64_t bytes)
{
    pl_pool p;
    memset(&p, 0, sizeof p);
    p.name = (char *)name;
    p.name_len = strlen(name);
    p.max_children = max_children;
    p.most_workers = max_children;
    for (int i = 0; i < 20; i++)
        hist_add(&p.h, share, 1000000);
    for (int i = 0; i < m; i++)
        mem_add(&p.mem, bytes);
    return p;
}

/* shop: 100% (1000m, ceiling 8 of 4 cores), 100 MiB (W 101); api: 10%
 * (ceiling 80), 50 MiB (W 51); 8 GiB of which the rest holds 1 GiB */
typedef struct {
    pl_pool  shop, api;
    pl_pool *pools[2];
    pl_host  h;
} two_pools;

static void host_of(pl_host *h, pl_pool **pools, size_t n, uint64_t total, uint64_t other)
{
    memset(h, 0, sizeof *h);
    h->host_millicores = 4000;
    h->page_size = 4096;
    h->had_page_size = 1;
    h->pools = pools;
    h->npools = n;
    h->has_mem = h->has_mem_total = 1;
    h->mem_total = total;
    h->mem_other_max = other;
}

static void two_pools_init(two_pools *t)
{
    t->api = pool_of("api", 10, 1000, 20, 50 * MIB);
    t->shop = pool_of("shop", 20, 10000, 20, 100 * MIB);
    t->pools[0] = &t->api;
    t->pools[1] = &t->shop;
    host_of(&t->h, t->pools, 2, 8 * GIB, 1 * GIB);
}

/* 14.5: a memory ceiling is the most that fit beside every other pool at
 * its advice (or now): floor((B - that sum) / W) */
static void test_14_5_the_memory_ceiling_beside_the_others_advice(void **state)
{
    (void)state;
    two_pools t;
    two_pools_init(&t);
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
    wi_view *v = whatif_views(&t.h, &sc);
    assert_int_equal(v[1].w_mib, 101);
    assert_int_equal(v[0].w_mib, 51);
    assert_int_equal(v[1].w_source, WI_W_MEASURED);
    /* B = 8 GiB - 1 GiB - 858993459 = 6657199309; the ceilings (8 x 101 +
     * 80 x 51 MiB) fit: each its CPU ceiling; shop: (B - 80 x 51 MiB) / 101 MiB */
    assert_int_equal(v[1].advice, 8);
    assert_int_equal(v[0].advice, 80);
    assert_int_equal(v[1].mem_ceiling, 22);
    assert_int_equal(v[0].mem_ceiling, 108); /* (B - 8 x 101 MiB) / 51 MiB */
    whatif_views_free(v, (&t.h)->npools);
}

/* 14.4: a pool under 20 memory readings gets an estimated W (the top of the
 * bucket of the most a reading or a worker held), counts at it beside the
 * others and no longer blocks them; it is never cut itself */
static void test_14_4_an_estimated_w_stops_blocking(void **state)
{
    (void)state;
    two_pools t;
    two_pools_init(&t);
    memset(&t.api.mem, 0, sizeof t.api.mem);
    for (int i = 0; i < 19; i++)
        mem_add(&t.api.mem, 50 * MIB);
    t.api.has_private = 1;
    t.api.private_max = 70 * MIB + 1; /* a worker held more than any reading */
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
    wi_view *v = whatif_views(&t.h, &sc);
    assert_int_equal(v[0].w_source, WI_W_ESTIMATED);
    assert_int_equal(v[0].w_mib, 71);
    assert_int_equal(v[0].advice, -1);
    assert_int_equal(v[0].mem_ceiling, -1);
    assert_int_equal(v[0].no_advice, WI_NA_ESTIMATED);
    assert_int_equal(v[1].advice, 8);              /* shop: its CPU ceiling */
    assert_int_equal(v[1].mem_ceiling, 55);        /* (B - 10 x 71 MiB) / 101 MiB */
    whatif_views_free(v, (&t.h)->npools);
    t.api.has_private = 0; /* the largest reading alone */
    v = whatif_views(&t.h, &sc);
    assert_int_equal(v[0].w_mib, 51);
    whatif_views_free(v, (&t.h)->npools);
}

/* 14.4: a pool with workers and no memory figure at all (no STATM) leaves
 * its host's memory unshared; a pool without workers does not count */
static void test_14_4_no_statm_at_all_blocks_the_host(void **state)
{
    (void)state;
    two_pools t;
    two_pools_init(&t);
    memset(&t.api.mem, 0, sizeof t.api.mem);
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
    wi_view *v = whatif_views(&t.h, &sc);
    assert_int_equal(v[0].w_source, WI_W_NONE);
    assert_int_equal(v[1].mem_ceiling, -1);
    assert_int_equal(v[1].advice, -1);
    assert_int_equal(v[1].no_advice, WI_NA_OTHER_W);
    whatif_views_free(v, (&t.h)->npools);
    t.api.most_workers = 0;
    v = whatif_views(&t.h, &sc);
    assert_int_equal(v[1].mem_ceiling, 62); /* B / 101 MiB */
    assert_int_equal(v[1].advice, 8);
    whatif_views_free(v, (&t.h)->npools);
    t.h.has_mem = 0; /* no other memory known: B unknown */
    v = whatif_views(&t.h, &sc);
    assert_int_equal(v[1].mem_ceiling, -1);
    assert_int_equal(v[1].no_advice, WI_NA_NO_MEMINFO);
    whatif_views_free(v, (&t.h)->npools);
}

/* 14.3: --mem-limit replaces M */
static void test_14_3_mem_limit_replaces_m(void **state)
{
    (void)state;
    two_pools t;
    two_pools_init(&t);
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM, .has_mem_limit = 1,
                      .mem_limit = 2 * GIB};
    wi_view *v = whatif_views(&t.h, &sc);
    wi_memory m;
    whatif_host_memory(&t.h, &sc, v, &m);
    assert_int_equal(m.total, 2 * GIB);
    assert_int_equal(m.budget, 858993460); /* 2 GiB - 1 GiB - 214748364 */
    whatif_views_free(v, (&t.h)->npools);
}

/* The sharing host of 14.5: admin held (19 readings of 40 MiB: W 41
 * estimated, 4 workers); shop 100% (ceiling 8, W 208, 6 busy at most, 20
 * workers); api 10% (ceiling 80, W 51, 10 busy at most, 12 workers); M
 * MiB, nothing else on the host: B = M - M / 10. */
typedef struct {
    pl_pool  admin, api, shop;
    pl_pool *pools[3];
    pl_host  h;
} three_pools;

static void three_pools_init(three_pools *t, uint64_t m_mib)
{
    t->admin = pool_of("admin", 4, 2000, 19, 40 * MIB);
    t->api = pool_of("api", 12, 1000, 20, 50 * MIB);
    t->shop = pool_of("shop", 20, 10000, 20, 200 * MIB);
    t->api.act.active_max = 10;
    t->shop.act.active_max = 6;
    t->pools[0] = &t->admin;
    t->pools[1] = &t->api;
    t->pools[2] = &t->shop;
    memset(&t->admin.h, 0, sizeof t->admin.h); /* admin: too few readings for a shape */
    host_of(&t->h, t->pools, 3, m_mib * MIB, 0);
}

/* 14.5: the needs fit, and the room above them is shared: each sized pool
 * gets the same fraction g of (ceiling - need), in integers */
static void test_14_5_step_2_the_room_above_the_needs(void **state)
{
    (void)state;
    three_pools t;
    three_pools_init(&t, 3500); /* B 3150 MiB, B_s 3150 - 4 x 41 = 2986 */
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
    wi_view *v = whatif_views(&t.h, &sc);
    wi_memory m;
    whatif_host_memory(&t.h, &sc, v, &m);
    assert_int_equal(v[0].sized, 0);
    assert_int_equal(v[1].need, 10);
    assert_int_equal(v[2].need, 6);
    /* needs 10 x 51 + 6 x 208 = 1758 MiB; L = 1228; room 70 x 51 + 2 x 208 = 3986 */
    assert_int_equal(v[1].advice, 31);  /* 10 + floor(70 x 1228 / 3986) */
    assert_int_equal(v[2].advice, 6);   /* 6 + floor(2 x 1228 / 3986) */
    assert_int_equal(v[1].binds, WI_BINDS_MEMORY);
    assert_int_equal(v[2].binds, WI_BINDS_MEMORY);
    assert_int_equal(m.binds, WI_BINDS_MEMORY);
    assert_int_equal(m.needs_hundredths, 100);
    assert_int_equal(m.room_hundredths, 31); /* 1228 / 3986 = 0.308 */
    assert_int_equal(m.nheld, 1);
    /* each memory ceiling beside the others at their advice: shop (3150 -
     * 31 x 51 - 164) / 208, api (3150 - 6 x 208 - 164) / 51 */
    assert_int_equal(v[2].mem_ceiling, 6);
    assert_int_equal(v[1].mem_ceiling, 34);
    assert_int_equal(v[0].mem_ceiling, -1); /* an estimated W has none */
    assert_int_equal(v[2].limit, WI_LIMIT_MEMORY); /* 20 > 6 */
    whatif_views_free(v, (&t.h)->npools);
}

/* 14.5: a busy pool keeps what it was seen to use beside a neighbour
 * whose CPU ceiling is large (api's 80: a bound, not a need) */
static void test_14_5_a_pool_keeps_its_need_beside_a_large_cpu_ceiling(void **state)
{
    (void)state;
    three_pools t;
    three_pools_init(&t, 2400); /* B 2160, B_s 1996: the needs (1758) fit */
    t.shop.act.active_max = 7;  /* need 7: 10 x 51 + 7 x 208 = 1966 */
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
    wi_view *v = whatif_views(&t.h, &sc);
    assert_int_equal(v[2].advice, 7);   /* 7 + floor(1 x 30 / (70 x 51 + 208)) */
    assert_int_equal(v[1].advice, 10);  /* 10 + floor(70 x 30 / 3778) */
    whatif_views_free(v, (&t.h)->npools);
}

/* 14.5: the needs do not fit: every sized pool gets the same fraction f of
 * its need, floor(d x B_s / sum d x W) */
static void test_14_5_step_1_a_fraction_of_the_needs(void **state)
{
    (void)state;
    three_pools t;
    three_pools_init(&t, 2000); /* B 1800, B_s 1636 of the needs' 1758 */
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
    wi_view *v = whatif_views(&t.h, &sc);
    wi_memory m;
    whatif_host_memory(&t.h, &sc, v, &m);
    assert_int_equal(v[2].advice, 5); /* floor(6 x 1636 / 1758) */
    assert_int_equal(v[1].advice, 9); /* floor(10 x 1636 / 1758) */
    assert_int_equal(m.needs_hundredths, 93);
    assert_int_equal(m.room_hundredths, 0);
    whatif_views_free(v, (&t.h)->npools);
}

/* 14.5: an advice under 1 is none (php-fpm refuses pm.max_children = 0),
 * and advise gives no patch */
static void test_14_5_an_advice_of_0_is_none(void **state)
{
    (void)state;
    three_pools t;
    three_pools_init(&t, 400); /* B 360, B_s 196 */
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
    wi_view *v = whatif_views(&t.h, &sc);
    assert_int_equal(v[2].advice, -1); /* floor(6 x 196 / 1758) = 0 */
    assert_int_equal(v[2].binds, WI_BINDS_MEMORY); /* the advice is null, memory binds */
    assert_int_equal(v[2].no_advice, WI_NA_NO_ROOM);
    assert_int_equal(v[2].limit, WI_LIMIT_CPU); /* section 7's: 20 > 8 */
    assert_int_equal(v[1].advice, 1);  /* floor(10 x 196 / 1758) */
    whatif_views_free(v, (&t.h)->npools);
}

/* 14.5: the CPU binds where every ceiling fits beside the held pools */
static void test_14_5_the_cpu_binds_where_the_ceilings_fit(void **state)
{
    (void)state;
    three_pools t;
    three_pools_init(&t, 8000);
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
    wi_view *v = whatif_views(&t.h, &sc);
    wi_memory m;
    whatif_host_memory(&t.h, &sc, v, &m);
    assert_int_equal(v[2].advice, 8);
    assert_int_equal(v[1].advice, 80);
    assert_int_equal(v[2].binds, WI_BINDS_CPU);
    assert_int_equal(v[1].limit, WI_LIMIT_WORKERS); /* 12 <= 80 */
    assert_int_equal(m.needs_hundredths, 100);
    assert_int_equal(m.room_hundredths, 100);
    whatif_views_free(v, (&t.h)->npools);
    t.shop.max_children = 8;    /* the advice itself: within it */
    t.shop.act.active_max = 12; /* seen busier than its ceiling: its need is the ceiling */
    v = whatif_views(&t.h, &sc);
    assert_int_equal(v[2].limit, WI_LIMIT_WORKERS);
    assert_int_equal(v[2].need, 8);
    whatif_views_free(v, (&t.h)->npools);
}

/* 14.5: a held pool whose pm.max_children is unknown counts at the most
 * workers it had in one round */
static void test_14_5_a_held_pool_with_unknown_max_children(void **state)
{
    (void)state;
    three_pools t;
    three_pools_init(&t, 3500);
    t.admin.max_children = 0;
    t.admin.most_workers = 30; /* held at 30 x 41: B_s 3150 - 1230 = 1920 */
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
    wi_view *v = whatif_views(&t.h, &sc);
    assert_int_equal(v[0].now_guessed, 1);
    assert_int_equal(v[0].mem_now, 30);
    assert_int_equal(v[1].advice, 12); /* 10 + floor(70 x 162 / 3986) */
    assert_int_equal(v[2].advice, 6);
    whatif_views_free(v, (&t.h)->npools);
}

/* 14.5: the host sums: now x W over the pools with a W and a known now,
 * the advice (else now) x W; an empty sum is 0, null only without any W */
static void test_14_5_the_host_sums_and_the_empty_ones(void **state)
{
    (void)state;
    three_pools t;
    three_pools_init(&t, 3500);
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
    wi_view *v = whatif_views(&t.h, &sc);
    wi_memory m;
    whatif_host_memory(&t.h, &sc, v, &m);
    assert_int_equal(m.needed_now, (int64_t)(4 * 41 + 12 * 51 + 20 * 208) * (int64_t)MIB);
    assert_int_equal(m.needed_at_advice, (int64_t)(4 * 41 + 31 * 51 + 6 * 208) * (int64_t)MIB);
    whatif_views_free(v, (&t.h)->npools);
    for (int i = 0; i < 3; i++)
        t.pools[i]->max_children = 0; /* no now known: an empty sum */
    v = whatif_views(&t.h, &sc);
    whatif_host_memory(&t.h, &sc, v, &m);
    assert_int_equal(m.needed_now, 0);
    whatif_views_free(v, (&t.h)->npools);
    for (int i = 0; i < 3; i++)
        memset(&t.pools[i]->mem, 0, sizeof t.pools[i]->mem); /* no W at all */
    v = whatif_views(&t.h, &sc);
    whatif_host_memory(&t.h, &sc, v, &m);
    assert_int_equal(m.needed_now, -1);
    assert_int_equal(m.needed_at_advice, -1);
    assert_int_equal(m.needs_hundredths, -1);
    whatif_views_free(v, (&t.h)->npools);
}

/* 14.5: one ceiling alone gives no advice, and limit keeps section 7's
 * CPU-only meaning */
static void test_14_5_no_advice_with_one_ceiling(void **state)
{
    (void)state;
    two_pools t;
    two_pools_init(&t);
    memset(&t.shop.mem, 0, sizeof t.shop.mem);
    t.shop.most_workers = 0;
    t.api.most_workers = 0;
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
    wi_view *v = whatif_views(&t.h, &sc);
    assert_int_equal(v[1].has_fill, 1);
    assert_int_equal(v[1].mem_ceiling, -1);
    assert_int_equal(v[1].advice, -1);
    assert_int_equal(v[1].no_advice, WI_NA_NO_MEMORY);
    assert_int_equal(v[1].limit, WI_LIMIT_CPU);
    whatif_views_free(v, (&t.h)->npools);
    two_pools_init(&t);
    t.h.host_millicores = 0; /* no CPU ceiling: the memory ceiling alone */
    v = whatif_views(&t.h, &sc);
    assert_true(v[1].mem_ceiling >= 0);
    assert_int_equal(v[1].advice, -1);
    assert_int_equal(v[1].no_advice, WI_NA_NO_CEILING);
    assert_int_equal(v[1].limit, WI_LIMIT_UNKNOWN);
    whatif_views_free(v, (&t.h)->npools);
}

/* Round r of pool shop on host h: worker 101 idle after a new request,
 * its STATM line 30 MiB private; with a MEMINFO of 8 GiB if meminfo. */
static void statm_round_with(pipeline *pl, int r, int meminfo)
{
    th_round *x = th_round_at(30.0 * r, 1000 * (unsigned long long)r);
    tworker w[] = {{101, "Idle", 5 + r, 120000, "/buy", "80.00"}};
    th_status(x, "shop", 0, w, 1);
    th_pids(x, "shop", 1, 101LL, 10ULL);
    th_pool_round *p = th_p(x, "shop");
    p->has_statm = 1;
    buf_printf(&p->statm, "101 60000 10752 3072 300 0 9000 0\n");
    if (meminfo) {
        x->has_meminfo = 1;
        buf_printf(&x->meminfo, "MemTotal:        8388608 kB\nMemAvailable:    6291456 kB\n");
    }
    assert_int_equal(th_run(pl, x), 0);
}

static void statm_round(pipeline *pl, int r)
{
    statm_round_with(pl, r, 0);
}

/* 14.5 (amended in turn 7): no_page_size is "no counted round had a page
 * size in its HOST", not the latest HOST's: 24 rounds of a pool with a CPU
 * ceiling, the page size in effect for the first (came, estimated) or the
 * last rounds' HOST only after them (went: never in a counted round).  The
 * reasons in 14.5's order: with a page size once and 3 memory readings, W
 * is estimated (no MEMINFO would be next). */
static wi_no_advice page_size_came_and_went(int came)
{
    pipeline *pl = pipeline_new(&(pl_options){0});
    th_host_with(pl, "h", 4, "b", 0, came ? "page_size=4096\n" : NULL);
    th_pool(pl, "shop", 4, "/status");
    for (int r = 0; r < 24; r++) {
        if (came && r == 4) /* an older recorder: no page size from here on */
            th_host(pl, "h", 4, "b", 0);
        statm_round(pl, r);
    }
    if (!came) /* a recorder with a page size starts, and records nothing */
        th_host_with(pl, "h", 4, "b", 0, "page_size=4096\n");
    pl_host *h = th_find_host(pl, "h");
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
    wi_view *v = whatif_views(h, &sc);
    assert_int_equal(v[0].has_fill, 1);
    assert_int_equal(v[0].w_source, came ? WI_W_ESTIMATED : WI_W_NONE);
    wi_no_advice r = v[0].no_advice;
    whatif_views_free(v, h->npools);
    pipeline_free(pl);
    return r;
}

static void test_14_5_no_page_size_by_the_rounds(void **state)
{
    (void)state;
    assert_int_equal(page_size_came_and_went(1), WI_NA_ESTIMATED);
    assert_int_equal(page_size_came_and_went(0), WI_NA_NO_PAGE);
}

/* 14.1 and 14.3 through the pipeline: a reading is the worker's private
 * memory plus its request's peak; php counts the masters' rss */
static void test_14_1_a_reading_is_private_memory_plus_the_peak(void **state)
{
    (void)state;
    pipeline *pl = pipeline_new(&(pl_options){0});
    th_host_with(pl, "h", 4, "b", 0, "page_size=4096\n");
    th_pool(pl, "shop", 4, "/status");
    for (int r = 0; r < 3; r++) {
        th_round *x = th_round_at(30.0 * r, 1000 * (unsigned long long)r);
        tworker w[] = {{101, "Idle", 5 + r, 120000, "/buy", "80.00"},
                       {102, "Idle", 5 + r, 120000, "/status", "1.00"},
                       {103, "Running", 5 + r, 120000, "/buy", "0.00"},
                       {104, "Idle", 5 + r, 120000, "/buy", "80.00"},
                       {105, "Idle", 5 + r, 20000, "/buy", "80.00"}};
        th_status(x, "shop", 0, w, 5);
        th_pids(x, "shop", 5, 101LL, 10ULL, 102LL, 10ULL, 103LL, 10ULL, 104LL, 10ULL,
                105LL, 10ULL);
        th_pool_round *p = th_p(x, "shop");
        p->has_statm = 1; /* 104 has no STATM line: no reading */
        buf_printf(&p->statm, "101 60000 10752 3072 300 0 9000 0\n"
                              "102 60000 10752 3072 300 0 9000 0\n"
                              "103 60000 10752 3072 300 0 9000 0\n"
                              "105 60000 6656 3072 300 0 9000 0\n");
        x->has_meminfo = 1;
        buf_printf(&x->meminfo, "MemTotal:        8388608 kB\nMemAvailable:    6291456 kB\n");
        x->has_master = 1;
        proc_stat_line(&x->master, 100, 1, 0, 0, 5); /* field 24: 1675 pages */
        assert_int_equal(th_run(pl, x), 0);
    }
    pl_pool *p = th_find(pl, "h", "shop");
    /* rounds 2 and 3: 101's new request (102's is monitoring's, 103 runs,
     * 104 has no STATM): 30 MiB private + 2 MiB peak; 105's, under 50 ms
     * (no CPU reading, a memory reading all the same): 14 + 2 MiB */
    assert_int_equal(p->mem.total, 4);
    assert_int_equal(p->mem.count[32], 2);
    assert_int_equal(p->mem.count[16], 2);
    assert_int_equal(p->mem.max_bytes, 32 * MIB);
    assert_int_equal(p->filtered[RD_SHORT], 2);
    pl_host *h = th_find_host(pl, "h");
    assert_true(h->has_mem);
    /* php: 3 x 30 MiB + 14 MiB + 1675 pages; other: 2 GiB - php */
    assert_int_equal(h->mem_php_max, 104 * MIB + 1675 * 4096);
    assert_int_equal(h->mem_other_max, 2 * GIB - 104 * MIB - 1675 * 4096);
    pipeline_free(pl);
}

/* 15.1: throughput <= min(N / R, C / D), each >= max(R, N x D / C), the
 * knee C x R / D */
static void test_15_1_the_bounds(void **state)
{
    (void)state;
    pl_pool p = pool_of("shop", 20, 10000, 0, 0); /* 100% for 1 s: R = 1 s, D = 1 s */
    wi_view v = whatif_pool_view_cost(&p, 4000, 200, 20, WI_COST_BUSY, WI_FIT_DOMINANT, NULL,
                                      NULL);
    bd_model m;
    assert_int_equal(bounds_model(&p, &v, 4000, &m), 0);
    assert_true(m.r == 1.0 && m.d == 1.0 && m.c == 4.0);
    assert_true(m.c * m.r / m.d == 4.0);         /* the knee, where the bounds meet */
    assert_true(bounds_max_rps(&m, 1) == 1.0);
    assert_true(bounds_min_ms(&m, 1) == 1000.0);
    assert_true(bounds_max_rps(&m, 8) == 4.0);   /* the CPU's bound */
    assert_true(bounds_min_ms(&m, 8) == 2000.0); /* 8 x 1 / 4 s */
    pl_pool q = pool_of("half", 20, 5000, 0, 0); /* 50%: D = 0.5 s */
    v = whatif_pool_view_cost(&q, 2000, 200, 0, WI_COST_BUSY, WI_FIT_DOMINANT, NULL, NULL);
    assert_int_equal(bounds_model(&q, &v, 2000, &m), 0);
    assert_true(m.c * m.r / m.d == 4.0);         /* 2 x 1 / 0.5 */
    pl_pool few = pool_of("few", 0, 0, 0, 0);
    v = whatif_pool_view_cost(&few, 2000, 200, 0, WI_COST_BUSY, WI_FIT_DOMINANT, NULL, NULL);
    assert_int_equal(bounds_model(&few, &v, 2000, &m), -1); /* no shape */
}

/* 15.2: only the number changes: spelling, spacing, quotes, a trailing
 * comment and a CR kept */
static void test_15_2_the_line_keeps_its_spelling(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"pm.max_children = 40", "pm.max_children = 9"},
        {"pm.max_children=8", "pm.max_children=9"},
        {"\tpm.max_children\t=\t8", "\tpm.max_children\t=\t9"},
        {"  pm.max_children = 8 ; was 5", "  pm.max_children = 9 ; was 5"},
        {"pm.max_children = 8\r", "pm.max_children = 9\r"},
        {"pm.max_children = \"120\" ; quoted", "pm.max_children = \"9\" ; quoted"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *out = advise_line(cases[i][0], 9);
        assert_non_null(out);
        assert_string_equal(out, cases[i][1]);
        free(out);
    }
    assert_null(advise_line("pm.max_children = ${MAX}", 9));
    assert_null(advise_line("pm.max_children", 9));
    assert_null(advise_line("pm = static", 9));
    assert_null(advise_line("pm.max_children = \"8", 9));
}

/* 15.2: the diff: headers without the leading /, a hunk without context,
 * only for a pool whose advice differs from now */
static void test_15_2_the_diff_patch_applies(void **state)
{
    (void)state;
    pipeline *pl = pipeline_new(&(pl_options){0});
    th_replay_quiet(pl, "fixtures/logs/memory.fpmlog");
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
    wi_answers a = th_answers(pl, &sc);
    assert_int_equal(advise_print(f, &a, 0), 0);
    whatif_answers_free(&a);
    fclose(f);
    assert_non_null(strstr(text, "\n--- a/etc/php/8.2/fpm/pool.d/shop.conf\n"
                                 "+++ b/etc/php/8.2/fpm/pool.d/shop.conf\n@@ -9 +9 @@\n"
                                 "-pm.max_children = 40\n+pm.max_children = 9\n"));
    assert_non_null(strstr(text, "--- a/etc/php/8.2/fpm/pool.d/api.conf\n"
                                 "+++ b/etc/php/8.2/fpm/pool.d/api.conf\n@@ -12 +12 @@\n"
                                 "-\tpm.max_children=12 ; was 5\n+\tpm.max_children=52 ; was 5\n"));
    free(text);
    text = NULL;
    f = open_memstream(&text, &len);
    wi_override same[] = {{"shop", 9}, {"api", 52}};
    sc.max_children = same;
    sc.nmax_children = 2;
    a = th_answers(pl, &sc);
    assert_int_equal(advise_print(f, &a, 0), 0);
    whatif_answers_free(&a);
    fclose(f);
    assert_null(strstr(text, "--- a/")); /* the advice is now: nothing to change */
    free(text);
    text = NULL;
    f = open_memstream(&text, &len);
    a = th_answers(pl, &sc);
    assert_int_equal(advise_print(f, &a, 1), 0);
    whatif_answers_free(&a);
    fclose(f);
    assert_null(strstr(text, "--- a/"));
    assert_non_null(strstr(text, "\"advice\": 9, \"binds\": \"cpu\""));
    free(text);
    pipeline_free(pl);
}

/* 14.1: a memory reading's private memory from the STATM and STATM0 lines
 * of one round of pid 101 (page 4096, `last request memory` 2 MiB); the
 * readings' largest, in MiB, or -1 for none */
static long long bracket(const char *statm0, const char *statm)
{
    pipeline *pl = pipeline_new(&(pl_options){0});
    th_host_with(pl, "h", 4, "b", 0, "page_size=4096\n");
    th_pool(pl, "shop", 4, "/status");
    for (int r = 0; r < 2; r++) {
        th_round *x = th_round_at(30.0 * r, 1000 * (unsigned long long)r);
        tworker w[] = {{101, "Idle", 5 + r, 120000, "/buy", "80.00"}};
        th_status(x, "shop", 0, w, 1);
        th_pids(x, "shop", 1, 101LL, 10ULL);
        th_pool_round *p = th_p(x, "shop");
        if (statm) {
            p->has_statm = 1;
            buf_printf(&p->statm, "%s", statm);
        }
        if (statm0) {
            p->has_statm0 = 1;
            buf_printf(&p->statm0, "%s", statm0);
        }
        assert_int_equal(th_run(pl, x), 0);
    }
    pl_pool *p = th_find(pl, "h", "shop");
    long long mib = p->mem.total ? (long long)(p->mem.max_bytes / MEM_MIB) : -1;
    pipeline_free(pl);
    return mib;
}

/* 14.1: the smaller private memory of the two reads that bracket the page */
static void test_14_1_statm0_smaller(void **state)
{
    (void)state;
    /* STATM0 (10752 - 3072) x 4 KiB = 30 MiB, STATM 94 MiB (its next request's
     * 64 MiB): 30 + 2 */
    assert_int_equal(bracket("101 60000 10752 3072 300 0 9000 0\n",
                             "101 60000 27136 3072 300 0 9000 0\n"), 32);
}

static void test_14_1_statm_smaller(void **state)
{
    (void)state;
    assert_int_equal(bracket("101 60000 27136 3072 300 0 9000 0\n",
                             "101 60000 10752 3072 300 0 9000 0\n"), 32);
}

typedef struct {
    int64_t private_bytes, host_php, host_other;
} statm0_seen;

static void on_statm0_round(void *arg, const pl_host *h, const pl_pool *p, const pl_round *r,
                            const pl_pool_pair *pair)
{
    (void)h, (void)p, (void)r;
    statm0_seen *s = arg;
    s->private_bytes = pair->private_bytes;
    s->host_php = pair->host_php;
    s->host_other = pair->host_other;
}

/* 14.1 (amended in turn 7): a worker's private memory in a round is the
 * smaller of its STATM and STATM0 lines everywhere: the round's php (so
 * other is not pulled down), the pool's sum of the round, the most one
 * worker held (14.4's estimate).  Pid 101 holds its next request in STATM
 * (94 MiB; 30 MiB in STATM0), 102 holds 10 MiB in both; both are running,
 * so no memory reading: php 40 MiB, other 2048 - 40 = 2008 MiB, the most
 * one held 30 MiB, W estimated at bucket 30's top, 31 MiB (95 with STATM
 * alone). */
static void test_14_1_statm0_in_the_hosts_sums(void **state)
{
    (void)state;
    pipeline *pl = pipeline_new(&(pl_options){0});
    statm0_seen seen = {-2, -2, -2};
    assert_int_equal(pipeline_on_round(pl, on_statm0_round, &seen), 0);
    th_host_with(pl, "h", 4, "b", 0, "page_size=4096\n");
    th_pool(pl, "shop", 4, "/status");
    th_round *x = th_round_at(0, 0);
    tworker w[] = {{101, "Running", 5, 120000, "/buy", "80.00"},
                   {102, "Running", 5, 120000, "/buy", "80.00"}};
    th_status(x, "shop", 0, w, 2);
    th_pids(x, "shop", 2, 101LL, 10ULL, 102LL, 10ULL);
    th_pool_round *p = th_p(x, "shop");
    p->has_statm0 = 1;
    buf_printf(&p->statm0, "101 60000 10752 3072 300 0 9000 0\n102 60000 5632 3072 300 0 9000 0\n");
    p->has_statm = 1;
    buf_printf(&p->statm, "101 60000 27136 3072 300 0 9000 0\n102 60000 5632 3072 300 0 9000 0\n");
    x->has_meminfo = 1;
    buf_printf(&x->meminfo, "MemTotal:        8388608 kB\nMemAvailable:    6291456 kB\n");
    assert_int_equal(th_run(pl, x), 0);
    pl_host *h = th_find_host(pl, "h");
    pl_pool *pool = th_find(pl, "h", "shop");
    assert_int_equal(seen.private_bytes, 40 * MIB);
    assert_int_equal(seen.host_php, 40 * MIB);
    assert_int_equal(seen.host_other, 2008 * MIB);
    assert_int_equal(h->mem_php_max, 40 * MIB);
    assert_int_equal(h->mem_other_max, 2008 * MIB);
    assert_int_equal(pool->private_max, 30 * MIB);
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
    wi_view *v = whatif_views(h, &sc);
    assert_int_equal(v[0].w_source, WI_W_ESTIMATED);
    assert_int_equal(v[0].w_mib, 31);
    whatif_views_free(v, h->npools);
    pipeline_free(pl);
}

/* 14.1: without STATM0 (an older log), STATM alone */
static void test_14_1_statm0_missing(void **state)
{
    (void)state;
    assert_int_equal(bracket(NULL, "101 60000 27136 3072 300 0 9000 0\n"), 96);
    /* STATM0 without a line for the pid: STATM alone */
    assert_int_equal(bracket("102 60000 4096 3072 300 0 9000 0\n",
                             "101 60000 27136 3072 300 0 9000 0\n"), 96);
}

/* 14.1: a pid in STATM0 only gives no reading: a reading needs STATM */
static void test_14_1_a_pid_in_statm0_only(void **state)
{
    (void)state;
    assert_int_equal(bracket("101 60000 10752 3072 300 0 9000 0\n",
                             "102 60000 10752 3072 300 0 9000 0\n"), -1);
    assert_int_equal(bracket("101 60000 10752 3072 300 0 9000 0\n", NULL), -1);
}

/* 14.3: a host whose HOST record gives no page size has no memory
 * figures: its STATM lines count as absent (the page size is never
 * guessed) */
static void test_14_3_no_page_size_no_memory_figures(void **state)
{
    (void)state;
    pipeline *pl = pipeline_new(&(pl_options){0});
    th_host(pl, "h", 4, "b", 0);
    th_pool(pl, "shop", 4, "/status");
    for (int r = 0; r < 3; r++)
        statm_round_with(pl, r, 1);
    pl_pool *p = th_find(pl, "h", "shop");
    pl_host *h = th_find_host(pl, "h");
    assert_int_equal(h->page_size, 0);
    assert_int_equal(p->mem.total, 0);
    assert_int_equal(p->has_private, 0);
    /* M stays known from MEMINFO; php, other and B need the page size */
    assert_true(h->has_mem_total);
    assert_int_equal(h->mem_total, 8ull << 30);
    assert_false(h->has_php);
    assert_false(h->has_mem);
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
    wi_view *v = whatif_views(h, &sc);
    wi_memory m;
    whatif_host_memory(h, &sc, v, &m);
    assert_true(m.has_total);
    assert_int_equal(m.total, 8ull << 30);
    assert_false(m.has_budget);
    whatif_views_free(v, (h)->npools);
    pipeline_free(pl);
}

/* 14.3: the page size of the HOST in effect for each round: STATM lines of
 * a round under a HOST without page_size count as absent, those under one
 * with it count */
static void test_14_3_page_size_per_round(void **state)
{
    (void)state;
    pipeline *pl = pipeline_new(&(pl_options){0});
    th_host_with(pl, "h", 4, "b", 0, "page_size=4096\n");
    th_pool(pl, "shop", 4, "/status");
    for (int r = 0; r < 4; r++) {
        if (r == 2) /* the recorder restarted: an older one, without page_size */
            th_host(pl, "h", 4, "b", 0);
        statm_round(pl, r);
    }
    pl_pool *p = th_find(pl, "h", "shop");
    assert_int_equal(p->mem.total, 1); /* round 1 only: round 0 primes, 2 and 3 have no page size */
    pipeline_free(pl);
}

/* 14.3: where no round has MEMINFO, M is the HOST's limit or --mem-limit;
 * B stays unknown */
static void test_14_3_m_from_the_limit_without_meminfo(void **state)
{
    (void)state;
    pipeline *pl = pipeline_new(&(pl_options){0});
    th_host_with(pl, "h", 4, "b", 0, "page_size=4096\nmem_limit_bytes=1073741824\n");
    th_pool(pl, "shop", 4, "/status");
    th_run(pl, th_round_at(0, 0));
    pl_host *h = th_find_host(pl, "h");
    assert_false(h->has_mem_total);
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
    wi_view *v = whatif_views(h, &sc);
    wi_memory m;
    whatif_host_memory(h, &sc, v, &m);
    assert_true(m.has_total);
    assert_int_equal(m.total, 1073741824);
    assert_false(m.has_budget);
    assert_int_equal(m.needed_now, -1); /* no MEMINFO: the sums stay null */
    whatif_views_free(v, (h)->npools);
    sc.has_mem_limit = 1;
    sc.mem_limit = 2147483648ull;
    v = whatif_views(h, &sc);
    whatif_host_memory(h, &sc, v, &m);
    assert_int_equal(m.total, 2147483648ull);
    whatif_views_free(v, (h)->npools);
    pipeline_free(pl);
    pl = pipeline_new(&(pl_options){0});
    th_host_with(pl, "h", 4, "b", 0, "page_size=4096\n"); /* no limit, no MEMINFO */
    th_run(pl, th_round_at(0, 0));
    h = th_find_host(pl, "h");
    sc.has_mem_limit = 0;
    v = whatif_views(h, &sc);
    whatif_host_memory(h, &sc, v, &m);
    assert_false(m.has_total);
    whatif_views_free(v, (h)->npools);
    pipeline_free(pl);
}

/* 14.3: under a cgroup limit, M is the limit from MEMINFO alone; a round
 * without the cgroup's memory.stat gives no other, so B stays unknown */
static void test_14_3_the_limit_known_without_memory_stat(void **state)
{
    (void)state;
    pipeline *pl = pipeline_new(&(pl_options){0});
    th_host_with(pl, "h", 4, "b", 0, "page_size=4096\nmem_limit_bytes=1073741824\n");
    th_pool(pl, "shop", 4, "/status");
    for (int r = 0; r < 2; r++) {
        th_round *x = th_round_at(30.0 * r, 1000 * (unsigned long long)r);
        tworker w[] = {{101, "Idle", 5 + r, 120000, "/buy", "80.00"}};
        th_status(x, "shop", 0, w, 1);
        x->has_meminfo = 1;
        buf_printf(&x->meminfo, "MemTotal:        8388608 kB\nMemAvailable:    6291456 kB\n");
        assert_int_equal(th_run(pl, x), 0);
    }
    pl_host *h = th_find_host(pl, "h");
    assert_true(h->has_mem_total);
    assert_int_equal(h->mem_total, GIB);
    assert_false(h->has_mem);
    assert_true(h->has_php); /* php needs no other: still known */
    assert_int_equal(h->mem_php_max, 0);
    pipeline_free(pl);
}

/* 15.2: the N of advise's lines: none under 1, each once after rounding
 * to two decimals, ascending */
static void test_15_2_the_points_none_under_1_each_once(void **state)
{
    (void)state;
    wi_view v = {.knee_hundredths = 100, .knee = 1.0, .now = 1, .advice = -1};
    bd_point pts[4];
    assert_int_equal(bounds_points(&v, NULL, 0, pts), 1); /* 1, a knee of 1.00 and now 1 are one */
    assert_int_equal(pts[0].hundredths, 100);
    v = (wi_view){.knee_hundredths = 40, .knee = 0.4, .now = 0, .advice = 3};
    assert_int_equal(bounds_points(&v, NULL, 0, pts), 2); /* a knee of 0.40 is under 1 */
    assert_int_equal(pts[0].hundredths, 100);
    assert_int_equal(pts[1].hundredths, 300);
    v = (wi_view){.knee_hundredths = 2004, .knee = 20.04, .now = 40, .advice = 12};
    assert_int_equal(bounds_points(&v, NULL, 0, pts), 4);
    assert_int_equal(pts[1].hundredths, 1200);
    assert_int_equal(pts[2].hundredths, 2004);
    assert_int_equal(pts[3].hundredths, 4000);
    /* a knee of 0.996 prints as 1.00 but is under 1 */
    v = (wi_view){.knee_hundredths = 100, .knee = 0.996, .now = 0, .advice = -1};
    assert_int_equal(bounds_points(&v, NULL, 0, pts), 1);
    assert_true(pts[0].n == 1.0);
}

/* 15.2: each line at the exact N: the knee's line at the knee unrounded,
 * its bound exactly C / D and R */
static void test_15_2_each_line_at_the_exact_n(void **state)
{
    (void)state;
    wi_view v = {.knee_hundredths = 286, .knee = 2000.0 / 700, .now = 0, .advice = -1};
    bd_point pts[4];
    assert_int_equal(bounds_points(&v, NULL, 0, pts), 2);
    assert_int_equal(pts[1].hundredths, 286);
    assert_true(pts[1].n == 2000.0 / 700);
    /* R = 0.1 s, m = 700: D = 0.07 s, C = 2: the knee's line is C / D and R */
    bd_model m = {.r = 0.1, .d = 0.07, .c = 2};
    assert_true(fabs(bounds_max_rps(&m, pts[1].n) - 2 / 0.07) < 1e-9); /* 28.57, not 28.60 */
    assert_true(fabs(bounds_min_ms(&m, pts[1].n) - 100) < 1e-9);
    char b[16];
    snprintf(b, sizeof b, "%.2f", bounds_max_rps(&m, pts[1].n));
    assert_string_equal(b, "28.57");
}

/* 15.2: a pool whose shares are floors (17.4) gets no knee and no bounds
 * in advise */
static void test_15_2_no_knee_or_bounds_for_floors(void **state)
{
    (void)state;
    pl_pool p = pool_of("shop", 20, 10000, 0, 0);
    p.uncorrected_contended = 20; /* all readings while the CPU was full, no calm set */
    p.calm = p.h;
    memset(&p.calm, 0, sizeof p.calm);
    wi_view v = whatif_pool_view_cost(&p, 4000, 200, 20, WI_COST_BUSY, WI_FIT_DOMINANT, NULL,
                                      NULL);
    assert_int_equal(v.floor, 1);
    bd_model m;
    assert_int_equal(bounds_model(&p, &v, 4000, &m), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_14_1_private_is_resident_less_shared),
        cmocka_unit_test(test_14_1_statm_lines_that_do_not_parse),
        cmocka_unit_test(test_14_1_a_reading_is_private_memory_plus_the_peak),
        cmocka_unit_test(test_14_2_buckets_and_their_tops),
        cmocka_unit_test(test_14_2_the_histogram_halves),
        cmocka_unit_test(test_14_2_w_at_19_and_at_20_readings),
        cmocka_unit_test(test_14_2_w_is_the_95th_percentile_rounded_up),
        cmocka_unit_test(test_14_3_other_from_meminfo),
        cmocka_unit_test(test_14_3_a_cgroup_limit_below_memtotal_v2),
        cmocka_unit_test(test_14_3_a_cgroup_limit_below_memtotal_v1),
        cmocka_unit_test(test_14_3_the_budget_keeps_a_tenth),
        cmocka_unit_test(test_14_3_mem_limit_replaces_m),
        cmocka_unit_test(test_14_4_an_estimated_w_stops_blocking),
        cmocka_unit_test(test_14_4_no_statm_at_all_blocks_the_host),
        cmocka_unit_test(test_14_5_the_memory_ceiling_beside_the_others_advice),
        cmocka_unit_test(test_14_5_step_2_the_room_above_the_needs),
        cmocka_unit_test(test_14_5_a_pool_keeps_its_need_beside_a_large_cpu_ceiling),
        cmocka_unit_test(test_14_5_step_1_a_fraction_of_the_needs),
        cmocka_unit_test(test_14_5_an_advice_of_0_is_none),
        cmocka_unit_test(test_14_5_the_cpu_binds_where_the_ceilings_fit),
        cmocka_unit_test(test_14_5_a_held_pool_with_unknown_max_children),
        cmocka_unit_test(test_14_5_the_host_sums_and_the_empty_ones),
        cmocka_unit_test(test_14_5_no_advice_with_one_ceiling),
        cmocka_unit_test(test_14_5_no_page_size_by_the_rounds),
        cmocka_unit_test(test_14_1_statm0_smaller),
        cmocka_unit_test(test_14_1_statm_smaller),
        cmocka_unit_test(test_14_1_statm0_missing),
        cmocka_unit_test(test_14_1_statm0_in_the_hosts_sums),
        cmocka_unit_test(test_14_1_a_pid_in_statm0_only),
        cmocka_unit_test(test_14_3_no_page_size_no_memory_figures),
        cmocka_unit_test(test_14_3_page_size_per_round),
        cmocka_unit_test(test_14_3_m_from_the_limit_without_meminfo),
        cmocka_unit_test(test_14_3_the_limit_known_without_memory_stat),
        cmocka_unit_test(test_15_1_the_bounds),
        cmocka_unit_test(test_15_2_the_points_none_under_1_each_once),
        cmocka_unit_test(test_15_2_each_line_at_the_exact_n),
        cmocka_unit_test(test_15_2_no_knee_or_bounds_for_floors),
        cmocka_unit_test(test_15_2_the_line_keeps_its_spelling),
        cmocka_unit_test(test_15_2_the_diff_patch_applies),
    };
    return cmocka_run_group_tests_name("memory", tests, NULL, NULL);
}
