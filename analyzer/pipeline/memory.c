/* Memory readings, the memory histogram and the host's php budget
 * (docs/rules.md section 14). */
#include "memory.h"

#include <string.h>

#include "hist.h"
#include "procfs.h"

int mem_bucket(uint64_t bytes)
{
    uint64_t mib = bytes / MEM_MIB;
    if (mib < 128)
        return (int)mib;
    if (mib < 1024)
        return (int)(128 + (mib - 128) / 16);
    if (mib < 8192)
        return (int)(184 + (mib - 1024) / 256);
    return 212;
}

int64_t mem_top_mib(const mem_hist *h, int b)
{
    if (b < 128)
        return b + 1;
    if (b < 184)
        return 128 + 16 * (int64_t)(b - 127);
    if (b < 212)
        return 1024 + 256 * (int64_t)(b - 183);
    return (int64_t)((h->max_bytes + MEM_MIB - 1) / MEM_MIB);
}

int64_t mem_estimate_mib(uint64_t bytes)
{
    mem_hist one = {.max_bytes = bytes > MEM_MAX_BYTES ? MEM_MAX_BYTES : bytes};
    return mem_top_mib(&one, mem_bucket(one.max_bytes));
}

void mem_add(mem_hist *h, uint64_t bytes)
{
    if (bytes > MEM_MAX_BYTES)
        bytes = MEM_MAX_BYTES; /* W x 2^20 and its sums stay in int64 */
    h->count[mem_bucket(bytes)]++;
    h->total++;
    if (bytes > h->max_bytes)
        h->max_bytes = bytes;
    if (h->total > MEM_LIMIT)
        h->total = counts_halve(h->count, MEM_BUCKETS);
}

int64_t mem_w_mib(const mem_hist *h)
{
    if (h->total < MEM_MIN_READINGS)
        return -1;
    uint64_t rank = (95ull * h->total + 99) / 100, run = 0;
    for (int i = 0; i < MEM_BUCKETS; i++) {
        run += h->count[i];
        if (run >= rank)
            return mem_top_mib(h, i);
    }
    return mem_top_mib(h, MEM_BUCKETS - 1);
}

size_t mem_each_statm(const unsigned char *buf, size_t len, uint64_t page_size,
                      void (*fn)(void *arg, int64_t pid, uint64_t private_bytes), void *arg)
{
    const char *b = (const char *)buf;
    size_t i = 0, bad = 0;
    while (i < len) {
        const char *nl = memchr(b + i, '\n', len - i);
        size_t ll = nl ? (size_t)(nl - (b + i)) : len - i;
        int64_t pid;
        uint64_t res, shared;
        if (ll > 0 && procfs_statm(b + i, ll, &pid, &res, &shared) == 0) {
            uint64_t pages = res - shared;
            fn(arg, pid, page_size && pages > UINT64_MAX / page_size ? UINT64_MAX
                                                                     : pages * page_size);
        } else if (ll > 0) {
            bad++;
        }
        i += ll + 1;
    }
    return bad;
}

/* a - b floored at 0 */
static uint64_t minus(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

int mem_other(const unsigned char *meminfo, size_t mlen, const unsigned char *stat,
              size_t slen, uint64_t limit, int cgroup_v1, uint64_t php, uint64_t *other,
              uint64_t *total)
{
    if (!meminfo)
        return -1;
    if (limit) { /* under a cgroup limit: the cgroup's own anon and shmem */
        uint64_t anon, shmem;
        const char *s = (const char *)stat;
        *total = limit;
        if (!stat || procfs_flat_key(s, slen, cgroup_v1 ? "total_rss" : "anon", &anon) != 0 ||
            procfs_flat_key(s, slen, cgroup_v1 ? "total_shmem" : "shmem", &shmem) != 0 ||
            anon > UINT64_MAX - shmem)
            return 1;
        *other = minus(anon + shmem, php);
        return 0;
    }
    uint64_t t, avail;
    const char *m = (const char *)meminfo;
    if (procfs_meminfo(m, mlen, "MemTotal:", &t) != 0 ||
        procfs_meminfo(m, mlen, "MemAvailable:", &avail) != 0)
        return -1;
    *other = minus(minus(t, avail), php);
    *total = t;
    return 0;
}

uint64_t mem_budget(uint64_t total, uint64_t other_max)
{
    return minus(minus(total, other_max), total / 10);
}
