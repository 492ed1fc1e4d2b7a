/* The steal probe and the clock check. */
#define _GNU_SOURCE
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------ the counters */

int probe_supported(void)
{
#if defined(__x86_64__) || defined(__aarch64__)
    return 1;
#else
    return 0;
#endif
}

static uint64_t read_cycles(void *arg)
{
    (void)arg;
#if defined(__x86_64__)
    uint32_t lo, hi, aux;
    __asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
    return (uint64_t)hi << 32 | lo;
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
    return 0;
#endif
}

static uint64_t clock_of(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t read_mono(void *arg)
{
    (void)arg;
    return clock_of(CLOCK_MONOTONIC);
}

static const probe_ops REAL_OPS = {read_cycles, read_mono, NULL, NULL};

/* ------------------------------------------------------------- the probe */

void probe_gap(probe_result *r, uint64_t ns)
{
    static const uint64_t upper[PROBE_BUCKETS - 1] = {10000, 50000, 100000, 500000, 1000000,
                                                      5000000, 10000000};
    int b = 0;
    while (b < PROBE_BUCKETS - 1 && ns >= upper[b])
        b++;
    r->hist[b]++;
    r->gap_count++;
    r->gap_total_ns += ns;
    if (ns > r->gap_max_ns)
        r->gap_max_ns = ns;
}

#define BRACKET_NS 2000 /* a counter read this close between two clock reads */

/* The counter read between two CLOCK_MONOTONIC reads at most BRACKET_NS
 * apart (a preemption between them would skew the calibration), the clock
 * at their middle in *mono; the best of 1000 tries. */
static uint64_t bracketed(const probe_ops *ops, uint64_t *mono)
{
    uint64_t best = UINT64_MAX, c = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t a = ops->mono_ns(ops->arg), k = ops->cycles(ops->arg), b = ops->mono_ns(ops->arg);
        if (b >= a && b - a < best) {
            best = b - a;
            c = k;
            *mono = a + (b - a) / 2;
        }
        if (best <= BRACKET_NS)
            break;
    }
    return c;
}

int probe_loop(const probe_ops *ops, uint64_t duration_ns, probe_result *r)
{
    r->threshold_ns = PROBE_THRESHOLD_NS;
    /* calibration: cycles per ns over a tenth of the duration */
    uint64_t cal = duration_ns / 10 > 1000000 ? duration_ns / 10 : 1000000;
    uint64_t m0, m1, c0 = bracketed(ops, &m0), c1;
    do
        c1 = bracketed(ops, &m1);
    while (m1 - m0 < cal && m1 >= m0);
    if (c1 <= c0 || m1 <= m0)
        return -1; /* the counter does not advance */
    double ns_per_cycle = (double)(m1 - m0) / (double)(c1 - c0);
    uint64_t thr = (uint64_t)((double)PROBE_THRESHOLD_NS / ns_per_cycle);
    uint64_t span = (uint64_t)((double)duration_ns / ns_per_cycle);
    if (ops->mark)
        ops->mark(ops->arg, 0);
    uint64_t start = ops->cycles(ops->arg), prev = start, c;
    uint64_t stop_by = ops->mono_ns(ops->arg) + 2 * duration_ns + 1000000000ull;
    for (uint64_t k = 1;; k++) {
        c = ops->cycles(ops->arg);
        if (c < prev) /* a counter that went back: start over from here */
            prev = c;
        if (c - prev > thr)
            probe_gap(r, (uint64_t)((double)(c - prev) * ns_per_cycle));
        prev = c;
        if (c - start >= span || c < start)
            break;
        if ((k & 0xffff) == 0 && ops->mono_ns(ops->arg) > stop_by)
            break; /* a counter slower than calibrated: never past twice the time */
    }
    if (ops->mark)
        ops->mark(ops->arg, 1);
    r->duration_ns = (uint64_t)((double)(prev - start) * ns_per_cycle);
    return 0;
}

int probe_cpus(int *cpus, int n)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 0;
    int k = 0;
    for (int c = 0; c < CPU_SETSIZE && k < n; c++)
        if (CPU_ISSET(c, &set))
            cpus[k++] = c;
    return k;
}

/* The second field of /proc/thread-self/schedstat (proc(5)): time runnable,
 * waiting.  The file is opened once per probe and read with one pread. */
static int run_delay(int fd, uint64_t *v)
{
    char buf[128];
    ssize_t n = fd >= 0 ? pread(fd, buf, sizeof buf - 1, 0) : -1;
    if (n <= 0)
        return -1;
    buf[n] = 0;
    unsigned long long run, wait;
    if (sscanf(buf, "%llu %llu", &run, &wait) != 2)
        return -1;
    *v = wait;
    return 0;
}

/* What is read around the measured loop: wall, CPU time, run delay. */
typedef struct {
    int      fd;
    uint64_t wall[2], cpu[2], delay[2];
    int      has_delay[2];
} around;

/* The three counters at one moment: the run delay read before and after the
 * clocks and equal, so no wait fell between the reads (the kernel adds a wait
 * to it when the thread runs again).  A few tries, then the last reads. */
static void mark(void *arg, int end)
{
    around *a = arg;
    for (int try = 0; try < 4; try++) {
        uint64_t d0 = 0, d1 = 0;
        int ok = run_delay(a->fd, &d0) == 0;
        a->cpu[end] = clock_of(CLOCK_THREAD_CPUTIME_ID);
        a->wall[end] = clock_of(CLOCK_MONOTONIC);
        ok = ok && run_delay(a->fd, &d1) == 0;
        a->has_delay[end] = ok;
        a->delay[end] = d1;
        if (!ok || d0 == d1)
            break;
    }
}

int probe_run(int cpu, uint64_t duration_ns, probe_result *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->cpu = cpu;
    if (!probe_supported()) {
        snprintf(err, errlen, "the steal probe needs a cycle counter (x86-64 or aarch64)");
        return -1;
    }
    cpu_set_t old, one;
    if (sched_getaffinity(0, sizeof old, &old) != 0) {
        snprintf(err, errlen, "cannot read the CPU affinity: %s", strerror(errno));
        return -1;
    }
    CPU_ZERO(&one);
    if (cpu < 0 || cpu >= CPU_SETSIZE) {
        snprintf(err, errlen, "no CPU %d", cpu);
        return -1;
    }
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) {
        snprintf(err, errlen, "cannot run on CPU %d: %s", cpu, strerror(errno));
        return -1;
    }
    sched_yield(); /* move there before the counters start */
    around a = {.fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC)};
    probe_ops ops = {read_cycles, read_mono, mark, &a};
    int rc = probe_loop(&ops, duration_ns, r);
    r->wall_ns = a.wall[1] - a.wall[0];
    r->cpu_time_ns = a.cpu[1] - a.cpu[0];
    if (a.has_delay[0] && a.has_delay[1] && a.delay[1] >= a.delay[0])
        r->run_delay_ns = a.delay[1] - a.delay[0];
    if (a.fd >= 0)
        close(a.fd);
    sched_setaffinity(0, sizeof old, &old);
    if (rc != 0)
        snprintf(err, errlen, "the cycle counter of CPU %d does not advance", cpu);
    return rc;
}

size_t probe_format(const probe_result *r, char *b, size_t n)
{
    int k = snprintf(b, n, "cpu=%d\nduration_ns=%llu\nthreshold_ns=%llu\ngap_count=%llu\n"
                           "gap_total_ns=%llu\ngap_max_ns=%llu\nhist=", r->cpu,
                     (unsigned long long)r->duration_ns, (unsigned long long)r->threshold_ns,
                     (unsigned long long)r->gap_count, (unsigned long long)r->gap_total_ns,
                     (unsigned long long)r->gap_max_ns);
    for (int i = 0; i < PROBE_BUCKETS && k > 0 && (size_t)k < n; i++)
        k += snprintf(b + k, n - (size_t)k, "%s%llu", i ? "," : "",
                      (unsigned long long)r->hist[i]);
    if (k > 0 && (size_t)k < n)
        k += snprintf(b + k, n - (size_t)k, "\nrun_delay_ns=%llu\ncpu_time_ns=%llu\nwall_ns=%llu\n",
                      (unsigned long long)r->run_delay_ns, (unsigned long long)r->cpu_time_ns,
                      (unsigned long long)r->wall_ns);
    return k < 0 ? 0 : (size_t)k < n ? (size_t)k : n - 1;
}

/* ------------------------------------------------------------ clock check */

void clockcheck_add(clockcheck *c, int64_t diff)
{
    c->loops++;
    if (diff < 0) {
        c->backwards++;
        return;
    }
    uint64_t d = (uint64_t)diff;
    int b = 0;
    while (b < 64 && (d >> b) != 0)
        b++; /* the bit length: 0 for 0, k for 2^(k-1) .. 2^k-1 */
    c->log2[b]++;
    if (b + 1 > c->nlog2)
        c->nlog2 = b + 1;
    if (d < CLOCKCHECK_EXACT)
        c->exact[d]++;
    if (d > c->largest_ns)
        c->largest_ns = d;
}

void clockcheck_loop(clockcheck *c, const probe_ops *ops, uint64_t duration_ns)
{
    memset(c, 0, sizeof *c);
    uint64_t start = ops->mono_ns(ops->arg), prev = start, now;
    do {
        now = ops->mono_ns(ops->arg);
        clockcheck_add(c, (int64_t)(now - prev));
        prev = now;
    } while (now - start < duration_ns && now >= start);
    c->duration_ns = now - start;
}

void clockcheck_run(clockcheck *c, uint64_t duration_ns)
{
    clockcheck_loop(c, &REAL_OPS, duration_ns);
}

char *clockcheck_format(const clockcheck *c, size_t *len)
{
    size_t cap = 512 + 24 * (size_t)c->nlog2 + 46 * CLOCKCHECK_EXACT;
    char *b = malloc(cap);
    if (!b)
        return NULL;
    uint64_t per100 = c->loops ? (c->duration_ns * 100 + c->loops / 2) / c->loops : 0;
    size_t k = (size_t)snprintf(b, cap, "clock=monotonic\nduration_ns=%llu\nloops=%llu\n"
                                        "per_loop_ns=%llu.%02llu\nbackwards=%llu\nlog2=",
                                (unsigned long long)c->duration_ns, (unsigned long long)c->loops,
                                (unsigned long long)(per100 / 100),
                                (unsigned long long)(per100 % 100),
                                (unsigned long long)c->backwards);
    for (int i = 0; i < c->nlog2; i++)
        k += (size_t)snprintf(b + k, cap - k, "%s%llu", i ? "," : "",
                              (unsigned long long)c->log2[i]);
    k += (size_t)snprintf(b + k, cap - k, "\nexact=");
    int first = 1;
    for (int ns = 0; ns < CLOCKCHECK_EXACT; ns++)
        if (c->exact[ns]) {
            k += (size_t)snprintf(b + k, cap - k, "%s%d:%llu", first ? "" : ",", ns,
                                  (unsigned long long)c->exact[ns]);
            first = 0;
        }
    k += (size_t)snprintf(b + k, cap - k, "\nlargest_ns=%llu\n", (unsigned long long)c->largest_ns);
    *len = k;
    return b;
}
