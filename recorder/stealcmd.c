/* fpm-record steal: the probe on its own. */
#include "stealcmd.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "msg.h"
#include "numarg.h"
#include "probe.h"
#include "procfs.h"
#include "procscan.h"


/* CPU cpu's steal and total ticks from /proc/stat; 0, or -1. */
static int kernel_steal(int cpu, uint64_t *steal, uint64_t *total)
{
    char *b, name[32];
    size_t n;
    if (ps_cpu_lines("/proc", &b, &n) != 0)
        return -1;
    snprintf(name, sizeof name, "cpu%d", cpu);
    int rc = procfs_stat_steal_of(b, n, name, steal, total);
    free(b);
    return rc;
}

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* "3.1 ms", "840 us" */
static const char *span(char *b, size_t n, uint64_t ns)
{
    if (ns >= 1000000)
        snprintf(b, n, "%.1f ms", (double)ns / 1e6);
    else
        snprintf(b, n, "%llu us", (unsigned long long)(ns / 1000));
    return b;
}

typedef struct {
    probe_result sum;
    uint64_t     k_steal, k_total;
    int          k_ok;
} tally;

/* One CPU's probe and its row; 0, or -1 (said). */
static int probe_one(int cpu, uint64_t ns, tally *all)
{
    probe_result r;
    char err[256], a[32], b[32];
    uint64_t s0 = 0, t0 = 0, s1 = 0, t1 = 0;
    int k = kernel_steal(cpu, &s0, &t0) == 0;
    if (probe_run(cpu, ns, &r, err, sizeof err) != 0) {
        msg_warnx("%s", err);
        return -1;
    }
    k = k && kernel_steal(cpu, &s1, &t1) == 0 && s1 >= s0 && t1 > t0;
    uint64_t net = r.gap_total_ns > r.run_delay_ns ? r.gap_total_ns - r.run_delay_ns : 0;
    if (k)
        printf("%4d %7.2f%%", cpu, pct(s1 - s0, t1 - t0));
    else
        printf("%4d %8s", cpu, "-");
    printf(" %7.2f%% %9.2f%% %6llu %8s %10s\n", pct(r.gap_total_ns, r.duration_ns),
           pct(net, r.duration_ns), (unsigned long long)r.gap_count,
           span(a, sizeof a, r.gap_max_ns), span(b, sizeof b, r.run_delay_ns));
    probe_result *s = &all->sum;
    s->duration_ns += r.duration_ns;
    s->gap_total_ns += r.gap_total_ns;
    s->gap_count += r.gap_count;
    s->run_delay_ns += r.run_delay_ns;
    if (r.gap_max_ns > s->gap_max_ns)
        s->gap_max_ns = r.gap_max_ns;
    for (int i = 0; i < PROBE_BUCKETS; i++)
        s->hist[i] += r.hist[i];
    if (k) {
        all->k_steal += s1 - s0;
        all->k_total += t1 - t0;
        all->k_ok = 1;
    }
    return 0;
}

/* What the figures say, in one sentence. */
static void verdict(const tally *t)
{
    const probe_result *s = &t->sum;
    uint64_t net = s->gap_total_ns > s->run_delay_ns ? s->gap_total_ns - s->run_delay_ns : 0;
    double plain = pct(s->gap_total_ns, s->duration_ns), corrected = pct(net, s->duration_ns);
    double kernel = t->k_ok ? pct(t->k_steal, t->k_total) : -1;
    if (corrected >= 1 && kernel >= 0 && kernel < 0.1)
        printf("The hypervisor took %.2f%% and the kernel says 0: this guest is not told about "
               "steal, and its CPU is smaller than its size claims.\n", corrected);
    else if (corrected >= 1)
        printf("The hypervisor took %.2f%% of the CPU%s.\n", corrected,
               kernel >= 0 ? " (the kernel's count agrees where it is told)" : "");
    else if (plain >= 1)
        printf("No steal to speak of: the gaps (%.2f%%) were this guest's own tasks, which its "
               "scheduler ran on the probed CPU.\n", plain);
    else
        printf("No steal to speak of (%.2f%%).\n", corrected);
}

int steal_command(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"duration", required_argument, NULL, 'd'}, {"cpu", required_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    uint64_t ms = 1000;
    long long cpu = -1;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":d:c:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'd':
            if (config_parse_duration(optarg, &ms) || ms < 10 || ms > 600000)
                return msg_usage("--duration must be from 10ms to 10m, not \"%s\"", optarg);
            break;
        case 'c':
            if (num_whole(optarg, 0, 1023, &cpu))
                return msg_usage("--cpu must be a CPU number in range 0..1023, not \"%s\"",
                                 optarg);
            break;
        case 'h':
            printf("Usage: " PROG " steal [--duration D] [--cpu N]\n"
                   "Busy-loops D (default 1s) on each CPU in turn, or on CPU N, reading the\n"
                   "cycle counter, and prints per CPU: the kernel's steal over the probe, the\n"
                   "plain gap count (every gap over 5 us), the same less the time this guest's\n"
                   "own scheduler kept the loop waiting (what the hypervisor took), the gaps,\n"
                   "the largest, and that run delay; then the gap histogram.\n");
            return 0;
        case ':': return msg_usage("option \"%s\" needs an argument", argv[optind - 1]);
        default: return msg_usage("unknown option \"%s\"", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return msg_usage("unexpected argument \"%s\"", argv[optind]);
    if (!probe_supported()) {
        msg_warnx("the steal probe needs a cycle counter it can read (x86-64 or aarch64); "
                  "this machine has none");
        return 2;
    }
    int cpus[1024], n = probe_cpus(cpus, 1024);
    if (cpu >= 0) { /* checked before a line is printed */
        int k = 0;
        while (k < n && cpus[k] != cpu)
            k++;
        if (k == n)
            return msg_usage("--cpu %lld: no such CPU, or not one this process may run on",
                             cpu);
        cpus[0] = (int)cpu;
        n = 1;
    }
    if (n == 0) {
        msg_warnx("no CPU to probe");
        return 2;
    }
    printf("%d CPU%s, %llu ms each, gaps over %u us:\n", n, n == 1 ? "" : "s",
           (unsigned long long)ms, PROBE_THRESHOLD_NS / 1000);
    printf(" CPU   KERNEL    PLAIN  CORRECTED   GAPS  LARGEST  RUN DELAY\n");
    tally t = {0};
    for (int i = 0; i < n; i++)
        if (probe_one(cpus[i], ms * 1000000ull, &t) != 0)
            return 2;
    static const char *const heads[PROBE_BUCKETS] = {"<10us", "10-50us", "50-100us",
        "100-500us", "500us-1ms", "1-5ms", "5-10ms", ">=10ms"};
    printf("\ngaps ");
    for (int i = 0; i < PROBE_BUCKETS; i++)
        printf(" %9s", heads[i]);
    printf("\n     ");
    for (int i = 0; i < PROBE_BUCKETS; i++)
        printf(" %9llu", (unsigned long long)t.sum.hist[i]);
    printf("\n\n");
    verdict(&t);
    return 0;
}
