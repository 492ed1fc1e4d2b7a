/*
 * probe: the active steal probe (a busy loop pinned to one CPU reading the
 * cycle counter; a gap between two reads above the threshold is time the
 * loop did not run) and the clock check (CLOCK_MONOTONIC read in a tight
 * loop, as PostgreSQL's pg_test_timing does).  The loops take their clocks
 * from probe_ops, so a test can give them a gap sequence; probe_run and
 * clockcheck_run use the real ones.  Payloads are fpmlog's STEAL and TIMING.
 */
#ifndef PROBE_H
#define PROBE_H

#include <stddef.h>
#include <stdint.h>

#define PROBE_THRESHOLD_NS 5000u   /* a gap: more than 5 us between two reads */
#define PROBE_BUCKETS      8       /* <10us 10-50us 50-100us 100-500us 500us-1ms 1-5ms 5-10ms >=10ms */

typedef struct {
    uint64_t (*cycles)(void *arg);  /* the cycle counter */
    uint64_t (*mono_ns)(void *arg); /* CLOCK_MONOTONIC */
    void    (*mark)(void *arg, int end); /* optional: called as the measured loop starts (0), ends (1) */
    void     *arg;
} probe_ops;

typedef struct {
    int      cpu;
    uint64_t duration_ns, threshold_ns, gap_count, gap_total_ns, gap_max_ns;
    uint64_t hist[PROBE_BUCKETS];
    uint64_t run_delay_ns, cpu_time_ns, wall_ns;
} probe_result;

/* Whether this machine has a cycle counter the probe can read (x86-64
 * rdtscp, aarch64 cntvct_el0). */
int probe_supported(void);

/* Counts one gap of ns (above the threshold) in r. */
void probe_gap(probe_result *r, uint64_t ns);

/* The loop: calibrates the counter against mono_ns for a tenth of the
 * duration (at least 1 ms), then reads it for duration_ns, counting gaps.
 * Fills duration_ns (the loop's span), threshold_ns and the gaps.  0, or -1
 * when the counter does not advance. */
int probe_loop(const probe_ops *ops, uint64_t duration_ns, probe_result *r);

/* The online CPUs the recorder may run on, in order; how many (at most n). */
int probe_cpus(int *cpus, int n);

/* The probe on cpu: pinned there, run_delay_ns from
 * /proc/thread-self/schedstat and cpu_time_ns around the loop, the
 * recorder's affinity restored after.  0, or -1 with err set. */
int probe_run(int cpu, uint64_t duration_ns, probe_result *r, char *err, size_t errlen);

/* r as a STEAL payload into b; its length (< n). */
size_t probe_format(const probe_result *r, char *b, size_t n);

/* ------------------------------------------------------------ clock check */

#define CLOCKCHECK_EXACT 1024

typedef struct {
    uint64_t duration_ns, loops, backwards, largest_ns;
    uint64_t log2[65];              /* 0, then <= 1, 3, 7, ... 2^k-1 ns */
    int      nlog2;                 /* up to the largest */
    uint64_t exact[CLOCKCHECK_EXACT];
} clockcheck;

/* One difference between successive reads (negative: went backwards). */
void clockcheck_add(clockcheck *c, int64_t diff_ns);

/* Reads ops->mono_ns in a tight loop for duration_ns. */
void clockcheck_loop(clockcheck *c, const probe_ops *ops, uint64_t duration_ns);

/* The same with CLOCK_MONOTONIC. */
void clockcheck_run(clockcheck *c, uint64_t duration_ns);

/* c as a TIMING payload, malloc'd (NULL on ENOMEM); *len its length. */
char *clockcheck_format(const clockcheck *c, size_t *len);

#endif
