/*
 * procfs: parsers for what fpm-record copies out of /proc and the cgroups.
 * Each takes bytes and a length, never assumes a NUL, never reads past the
 * end, never prints.  Returns 0 when it found what it looks for, -1 if not.
 */
#ifndef PROCFS_H
#define PROCFS_H

#include <stddef.h>
#include <stdint.h>

/* The aggregate `cpu ` line of /proc/stat: user + nice + system + irq +
 * softirq + steal, in ticks (everything but idle and iowait; guest time is
 * already inside user and nice).  Missing trailing fields count 0. */
int procfs_stat_busy(const char *buf, size_t len, uint64_t *busy_ticks);

/* The same line's steal and its total: user + nice + system + idle + iowait
 * + irq + softirq + steal.  -1 when the line has fewer than 8 numbers or
 * the total does not fit. */
int procfs_stat_steal(const char *buf, size_t len, uint64_t *steal, uint64_t *total);

/* The same of the line NAME ("cpu3" for CPU 3). */
int procfs_stat_steal_of(const char *buf, size_t len, const char *name, uint64_t *steal,
                         uint64_t *total);

/* One /proc/<pid>/stat line: the pid and utime + stime + cutime + cstime
 * (fields 14 to 17) in ticks: procfs_proc_stat's, for callers that need no
 * more.  comm (field 2) may hold spaces and
 * parentheses: fields are counted after its last ')'. */
int procfs_pid_stat(const char *line, size_t len, int64_t *pid, uint64_t *ticks);

/* What the analyzer reads of a /proc/<pid>/stat line (docs/rules.md 5, 11). */
typedef struct {
    int64_t  pid, ppid;       /* fields 1 and 4 (ppid -1 when not a number) */
    uint64_t ticks;           /* utime + stime + cutime + cstime (14 to 17) */
    uint64_t child_ticks;     /* cutime + cstime (16, 17): the reaped children's */
    int64_t  start;           /* starttime (22), -1 when the line stops before it */
    int64_t  rss;             /* rss (24, pages), -1 when the line stops before it */
} procfs_proc;

/* The same line as procfs_pid_stat, with the parent, the children's part
 * and the start time; a line cut after field 17 is read without start. */
int procfs_proc_stat(const char *line, size_t len, procfs_proc *p);

/* Calls fn for each line of a PIDS (or MASTER) payload procfs_proc_stat
 * reads; returns how many lines could not be parsed. */
size_t procfs_each_pid(const char *buf, size_t len,
                       void (*fn)(void *arg, const procfs_proc *p), void *arg);

/* The number after KEY in a flat-keyed file ("KEY N" lines: cgroup v2
 * cpu.stat's usage_usec, nr_periods, nr_throttled, throttled_usec). */
int procfs_flat_key(const char *buf, size_t len, const char *key, uint64_t *v);

/* One line of a STATM record, "PID size resident shared text lib data dt"
 * (pages, proc(5)): its pid, resident and shared.  -1 unless all eight
 * fields are plain non-negative integers and shared <= resident
 * (docs/rules.md 14.1). */
int procfs_statm(const char *line, size_t len, int64_t *pid, uint64_t *resident,
                 uint64_t *shared);

/* A /proc/meminfo line "KEY   N kB" (key with its colon: "MemTotal:") in
 * bytes. */
int procfs_meminfo(const char *buf, size_t len, const char *key, uint64_t *bytes);

/* `usage_usec` of a cgroup v2 cpu.stat. */
int procfs_cgroup_usage(const char *buf, size_t len, uint64_t *usage_usec);

/* The `total=` (microseconds) of the `some` line of a pressure file
 * (/proc/pressure/cpu, cgroup v2 cpu.pressure). */
int procfs_pressure_some(const char *buf, size_t len, uint64_t *total_usec);

/* cgroup v2 cpu.max ("max 100000" or "QUOTA PERIOD") as millicores, rounded
 * down; 0 for "max" (no quota). */
int procfs_cgroup_max(const char *buf, size_t len, uint64_t *millicores);

/* cgroup v1 cpu.cfs_quota_us and cpu.cfs_period_us as millicores, rounded
 * down; 0 when the quota is -1 (none).  -1 when either does not parse. */
int procfs_cfs_quota(const char *quota, size_t ql, const char *period, size_t pl,
                     uint64_t *millicores);

/* The first number of a one-number file (cgroup v1 cpuacct.usage). */
int procfs_first_u64(const char *buf, size_t len, uint64_t *v);

/* A CPU list as the kernel prints it ("0-1,4", as in Cpus_allowed_list of
 * /proc/<pid>/status), as a set; n is how many CPUs it names. */
#define PROCFS_MAX_CPUS 8192
typedef struct {
    uint64_t bits[PROCFS_MAX_CPUS / 64];
    unsigned n;
} procfs_cpuset;

/* -1 for anything else: empty, "-", a range that runs down, a CPU past
 * PROCFS_MAX_CPUS - 1 (docs/rules.md 16.1). */
int procfs_cpulist(const char *s, size_t len, procfs_cpuset *set);

static inline int procfs_cpuset_has(const procfs_cpuset *set, unsigned cpu)
{
    return cpu < PROCFS_MAX_CPUS && (set->bits[cpu / 64] >> (cpu % 64) & 1);
}

/* The named CPUs' `cpuN` lines of /proc/stat summed: busy as
 * procfs_stat_busy counts it, and steal and total as procfs_stat_steal
 * does (steal_ok 0 when a line has fewer than 8 numbers).  -1 when a named
 * CPU has no line (or one with fewer than 4 numbers), or a sum does not
 * fit. */
typedef struct {
    uint64_t busy, steal, total;
    int      steal_ok;
} procfs_cpu_sum;
int procfs_stat_cpus(const char *buf, size_t len, const procfs_cpuset *set, procfs_cpu_sum *s);

#endif
