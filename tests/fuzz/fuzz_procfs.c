/* libFuzzer: the /proc and cgroup parsers on what a log's STAT, PIDS,
 * CGROUP and PRESSURE records may hold, and the TIMING payload's.  A stat
 * line is also read with every space doubled: runs of spaces part fields,
 * so the answer is the same, though the doubled line is always skipped
 * field by field and the line itself mostly eight bytes at a time. */
#include <stddef.h>
#include <stdint.h>

#include <stdlib.h>
#include <string.h>

#include "procfs.h"
#include "timing.h"

static void each(void *arg, const procfs_proc *p)
{
    if (p->pid <= 0 || p->ticks > (uint64_t)INT64_MAX || p->child_ticks > p->ticks ||
        p->start < -1)
        __builtin_trap(); /* the parser promises a pid > 0 and ticks that fit */
    (void)arg;
}

/* procfs_proc_stat reads the same pid and ticks as procfs_pid_stat. */
static void same_as_pid_stat(const char *s, size_t n, int rc, int64_t pid, uint64_t ticks)
{
    procfs_proc p;
    int rc2 = procfs_proc_stat(s, n, &p);
    if (rc2 != rc || (rc == 0 && (p.pid != pid || p.ticks != ticks)))
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    uint64_t v;
    int64_t pid;
    (void)procfs_stat_busy(s, size, &v);
    int rc = procfs_pid_stat(s, size, &pid, &v);
    same_as_pid_stat(s, size, rc, pid, v);
    char *d = size && !memchr(s, '\n', size) ? malloc(2 * size) : NULL;
    if (d) {
        size_t n = 0;
        for (size_t i = 0; i < size; i++) {
            d[n++] = s[i];
            if (s[i] == ' ')
                d[n++] = ' ';
        }
        int64_t pid2;
        uint64_t v2;
        int rc2 = procfs_pid_stat(d, n, &pid2, &v2);
        if (rc2 != rc || (rc == 0 && (pid2 != pid || v2 != v)))
            __builtin_trap(); /* the fast skip and the field-by-field one disagree */
        same_as_pid_stat(d, n, rc2, pid2, v2);
        free(d);
    }
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
