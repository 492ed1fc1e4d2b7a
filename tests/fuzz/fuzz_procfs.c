/* libFuzzer: the /proc and cgroup parsers on what a log's STAT, PIDS and
 * CGROUP records may hold. */
#include <stddef.h>
#include <stdint.h>

#include "procfs.h"

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
    return 0;
}
