/* A round's records as read: the host's by kind, a pool's, its PIDS parsed. */
#include "round.h"
#include "rc.h"

#include <string.h>

#include "grow.h"
#include "procfs.h"

typedef struct {
    pl_tick *v;
    size_t   n, cap;
    int      nomem;
} tick_list;

static void list_tick(void *arg, const procfs_proc *p)
{
    tick_list *l = arg;
    if (grow(&l->v, &l->cap, l->n + 1, sizeof *l->v, 64)) {
        l->nomem = 1;
        return;
    }
    l->v[l->n++] = *p;
}

int pl_host_rec_kind(rec_type type, const char *source)
{
    switch (type) {
    case REC_STAT:
        return PL_REC_STAT;
    case REC_CGROUP:
        return strcmp(source, "cpu.stat") == 0       ? PL_REC_CPU_STAT
             : strcmp(source, "cpuacct.usage") == 0 ? PL_REC_CPUACCT
             : strcmp(source, "cpu.pressure") == 0 ? PL_REC_CPU_PRESSURE
             : strcmp(source, "memory.stat") == 0 ? PL_REC_MEM_STAT : -1;
    case REC_PRESSURE:
        return PL_REC_PRESSURE;
    case REC_STEAL:
        return PL_REC_STEAL;
    case REC_MASTER:
        return PL_REC_MASTER;
    case REC_MEMINFO:
        return PL_REC_MEMINFO;
    default:
        return -1;
    }
}

pl_pool_round pl_pool_round_of(const char *name, size_t name_len, const unsigned char *status,
                               size_t status_len, int is_error, const unsigned char *pids,
                               size_t pids_len)
{
    return (pl_pool_round){.name = name, .name_len = name_len, .has_status = status != NULL,
                           .is_error = status && is_error, .has_pids = pids != NULL,
                           .status = status, .pids = pids, .status_len = status ? status_len : 0,
                           .pids_len = pids ? pids_len : 0};
}

long pl_parse_ticks(const unsigned char *pids, size_t len, pl_tick **out, size_t *cap)
{
    tick_list l = {*out, 0, *cap, 0};
    procfs_each_pid((const char *)pids, len, list_tick, &l);
    *out = l.v;
    *cap = l.cap;
    return l.nomem ? FPM_ENOMEM : (long)l.n;
}

/* The pool's CPU ticks spent since its previous PIDS; replaces its map. */
