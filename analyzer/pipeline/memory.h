/*
 * memory: what a worker holds and what the host can give php-fpm
 * (docs/rules.md section 14).  A worker's private memory is its resident
 * pages less those it shares (STATM); a memory reading adds the peak of the
 * request it just served (`last request memory`).  Readings go to a
 * 213-bucket histogram of MiB that halves as the CPU one does; W, the
 * per-worker memory, is its 95th percentile's top.
 */
#ifndef MEMORY_H
#define MEMORY_H

#include <stddef.h>
#include <stdint.h>

#define MEM_BUCKETS      213
#define MEM_LIMIT        4096 /* above this many readings every bucket halves */
#define MEM_MIN_READINGS 20   /* W is known from this many readings on */
#define MEM_MIB          1048576ull
#define MEM_MAX_BYTES    (1ull << 50) /* a reading is capped here (a petabyte) */

typedef struct {
    uint32_t count[MEM_BUCKETS];
    uint32_t total;          /* readings, after halving */
    uint64_t max_bytes;      /* the largest reading, never halved */
} mem_hist;

/* 14.2: the bucket of a reading of bytes: 1 MiB wide below 128 MiB, 16 MiB
 * to 1024, 256 MiB to 8192, then one. */
int mem_bucket(uint64_t bytes);

/* A bucket's top in MiB (its upper edge; bucket 212's is the largest
 * reading, rounded up). */
int64_t mem_top_mib(const mem_hist *h, int bucket);

/* 14.4: an estimated W in MiB: the top of the bucket that holds bytes
 * (bucket 212's: bytes rounded up to MiB). */
int64_t mem_estimate_mib(uint64_t bytes);

/* Adds a reading; above MEM_LIMIT readings every bucket is halved. */
void mem_add(mem_hist *h, uint64_t bytes);

/* 14.2: W in MiB, the top of the first bucket whose running count reaches
 * ceil(95 x total / 100); -1 under MEM_MIN_READINGS readings. */
int64_t mem_w_mib(const mem_hist *h);

/* 14.1: each line of a STATM payload that parses, as its pid and its
 * private bytes, (resident - shared) x page_size (saturated); how many
 * lines did not parse. */
size_t mem_each_statm(const unsigned char *buf, size_t len, uint64_t page_size,
                      void (*fn)(void *arg, int64_t pid, uint64_t private_bytes), void *arg);

/* 14.3: a round's other memory: MemTotal - MemAvailable - php from MEMINFO,
 * or, under a cgroup limit, (anon + shmem) - php from the cgroup's
 * memory.stat (v1: total_rss + total_shmem), floored at 0.  0 and *other,
 * *total (MemTotal, or the limit); 1 and *total alone where the limit's
 * memory.stat is missing; -1 when the records give neither. */
int mem_other(const unsigned char *meminfo, size_t mlen, const unsigned char *stat,
              size_t slen, uint64_t limit, int cgroup_v1, uint64_t php, uint64_t *other,
              uint64_t *total);

/* 14.3: B = M - other_max - M / 10, floored at 0. */
uint64_t mem_budget(uint64_t total, uint64_t other_max);

#endif
