/*
 * cgroups: what bounds php-fpm's master (docs/rules.md 16): its cgroup
 * version, the folder of each controller fpm-record reads, its quota, and
 * the CPUs its affinity allows.  Everything is found from the master's
 * /proc/<pid>/cgroup and /proc/self/mountinfo under proc_root, and the
 * mounts under sys_root; no path is guessed.
 */
#ifndef CGROUPS_H
#define CGROUPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The controllers read.  On cgroup v2 they share one folder. */
enum { CG_CPU, CG_CPUACCT, CG_MEMORY, CG_NCTRL };

typedef struct {
    int  version;               /* 1, 2, 0 unknown */
    char dir[CG_NCTRL][4200];   /* each controller's folder; "" in the root
                                   cgroup, or not mounted */
    char rel[4200];             /* HOST cgroup=: the v2 path, or on v1 the cpu
                                   controller's; "-" in the root or unknown */
} cg_place;

/* Where pid's cgroups are.  A master in the root cgroup has a version and
 * no folders.  0, FPM_EFAIL when /proc/<pid>/cgroup cannot be read, or
 * FPM_ENOMEM (common/rc.h). */
int cg_find(const char *proc_root, const char *sys_root, pid_t pid, cg_place *cg);

/* The CPU quota of the place, in millicores (rounded down), 0 for none:
 * v2 cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us. */
uint64_t cg_quota(const cg_place *cg);

/* pid's CPU list, as the kernel prints its affinity ("0-1,4": the
 * Cpus_allowed_list of /proc/<pid>/status, which a cpuset narrows), into
 * out; 0, or -1 with "-" in out. */
int cg_cpus(const char *proc_root, pid_t pid, char *out, size_t outlen);

/* How the kernel's scheduler groups pid against the rest of the host
 * (fpmlog(5) HOST): its autogroup ("/autogroup-54 nice 0", "-" when the file
 * is absent or autogroups are off), its cgroup's CPU weight (v2 cpu.weight,
 * v1 cpu.shares, "-" unknown) and its kind ("weight", "shares", "-"), and
 * whether the cpu controller groups it ("1", "0", "-" unknown: v2 `cpu` in
 * its cgroup.controllers; v1 its cpu cgroup is not the root one). */
typedef struct {
    char autogroup[128], weight[24], weight_kind[8], controller[2];
} cg_sched;
void cg_sched_of(const char *proc_root, pid_t pid, const cg_place *cg, cg_sched *out);

#endif
