/* libFuzzer: the /proc and cgroup parsers on what a log's STAT, PIDS,
 * CGROUP and PRESSURE records may hold, and the TIMING payload's. */
#include <stddef.h>
#include <stdint.h>

#include <stdlib.h>

#include "procfs.h"
#include "timing.h"

static void each(void *arg, int64_t pid, uint64_t ticks)
{
    if (pid <= 0 || ticks > (uint64_t)INT64_MAX)
        __builtin_trap(); /* the parser promises a pid > 0 and ticks that fit */
    (void)arg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    uint64_t v;
    int64_t pid;
    (void)procfs_stat_busy(s, size, &v);
    (void)procfs_pid_stat(s, size, &pid, &v);
    (void)procfs_each_pid(s, size, each, NULL);
    (void)procfs_cgroup_usage(s, size, &v);
    (void)procfs_cgroup_max(s, size, &v);
    uint64_t w;
    if (procfs_stat_steal(s, size, &v, &w) == 0 && v > w)
        __builtin_trap(); /* steal is part of its total */
    (void)procfs_flat_key(s, size, "nr_throttled", &v);
    (void)procfs_pressure_some(s, size, &v);
    timing_rec *t = malloc(sizeof *t);
    if (t && timing_parse(data, size, t) == 0 && (t->nlog2 < 0 || t->nlog2 > TIMING_LOG2_MAX))
        __builtin_trap();
    free(t);
    return 0;
}
