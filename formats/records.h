/*
 * records: the record vocabulary of the fpmlog format, shared by the
 * recorder (which writes the records) and the analyzer (which dispatches on
 * them): each type's name, and whether it takes effect when read (HOST,
 * POOL), belongs to a round (STATUS ... PRESSURE), closes one (ROUND) or
 * only informs (NOTE, TIMING).  A type not listed is skipped by readers, so
 * later versions can add types.  The HOST and POOL keys are listed too.
 */
#ifndef RECORDS_H
#define RECORDS_H

#include <string.h>

typedef enum {
    REC_HOST, REC_POOL,                              /* take effect when read */
    REC_STATUS, REC_ERROR, REC_PIDS, REC_LISTEN,     /* a pool's, in a round */
    REC_SCHED, REC_STATM, REC_STATM0, REC_ACCESS,
    REC_STAT, REC_CGROUP, REC_STEAL, REC_PRESSURE,   /* the host's, in a round */
    REC_MASTER, REC_MEMINFO,
    REC_ROUND,                                       /* closes a round */
    REC_NOTE, REC_TIMING,                            /* inform only */
    REC_UNKNOWN
} rec_type;

typedef enum { REC_TAKES_EFFECT, REC_IN_ROUND, REC_CLOSES_ROUND, REC_INFORMS } rec_role;

typedef struct {
    const char *name;
    rec_type    type;
    rec_role    role;
    int         per_pool;   /* SOURCE names a pool */
} rec_kind;

static const rec_kind REC_KINDS[] = {
    {"HOST", REC_HOST, REC_TAKES_EFFECT, 0},   {"POOL", REC_POOL, REC_TAKES_EFFECT, 1},
    {"STATUS", REC_STATUS, REC_IN_ROUND, 1},   {"ERROR", REC_ERROR, REC_IN_ROUND, 1},
    {"PIDS", REC_PIDS, REC_IN_ROUND, 1},       {"LISTEN", REC_LISTEN, REC_IN_ROUND, 1},
    {"SCHED", REC_SCHED, REC_IN_ROUND, 1},     {"STATM", REC_STATM, REC_IN_ROUND, 1},
    {"STATM0", REC_STATM0, REC_IN_ROUND, 1},   {"ACCESS", REC_ACCESS, REC_IN_ROUND, 1},
    {"STAT", REC_STAT, REC_IN_ROUND, 0},
    {"CGROUP", REC_CGROUP, REC_IN_ROUND, 0},   {"STEAL", REC_STEAL, REC_IN_ROUND, 0},
    {"PRESSURE", REC_PRESSURE, REC_IN_ROUND, 0}, {"MASTER", REC_MASTER, REC_IN_ROUND, 0},
    {"MEMINFO", REC_MEMINFO, REC_IN_ROUND, 0},
    {"ROUND", REC_ROUND, REC_CLOSES_ROUND, 0},
    {"NOTE", REC_NOTE, REC_INFORMS, 0},        {"TIMING", REC_TIMING, REC_INFORMS, 0},
};

/* The kind of a record type, or a REC_UNKNOWN one for a type not listed. */
static inline rec_kind rec_kind_of(const char *name)
{
    for (size_t i = 0; i < sizeof REC_KINDS / sizeof REC_KINDS[0]; i++)
        if (strcmp(REC_KINDS[i].name, name) == 0)
            return REC_KINDS[i];
    return (rec_kind){name, REC_UNKNOWN, REC_INFORMS, 0};
}

/* The name of a type, for writers. */
static inline const char *rec_name(rec_type t)
{
    return REC_KINDS[t].name;
}

/* HOST keys */
#define HOST_FORMAT      "format"
#define HOST_RECORDER    "recorder"
#define HOST_HOSTNAME    "hostname"
#define HOST_BOOT_ID     "boot_id"
#define HOST_KERNEL      "kernel"
#define HOST_NPROC       "nproc"
#define HOST_CLK_TCK     "clk_tck"
#define HOST_INTERVAL_MS "interval_ms"
#define HOST_QUOTA_MC    "cpu_quota_millicores"
#define HOST_CGROUP      "cgroup"
#define HOST_CLOCKSOURCE "clocksource"
#define HOST_CPUS        "cpus"           /* the master's CPU list, "-" unknown */
#define HOST_CGROUP_VERSION "cgroup_version" /* 1, 2 or "-" */
#define HOST_PAGE_SIZE   "page_size"      /* sysconf(_SC_PAGESIZE) */
#define HOST_MEM_LIMIT   "mem_limit_bytes" /* php-fpm's cgroup's limit below MemTotal; 0 none */
/* how the kernel's scheduler groups php-fpm against the rest (fpmlog(5)) */
#define HOST_AUTOGROUP   "autogroup"      /* the master's /proc/<pid>/autogroup, "-" none */
#define HOST_CPU_WEIGHT  "cpu_weight"     /* v2 cpu.weight, v1 cpu.shares; "-" unknown */
#define HOST_CPU_WEIGHT_KIND "cpu_weight_kind" /* "weight", "shares" or "-" */
#define HOST_CPU_CONTROLLER  "cpu_controller"  /* 1, 0 or "-" */

/* POOL keys */
#define POOL_NAME         "name"
#define POOL_ENDPOINT     "endpoint"
#define POOL_STATUS_PATH  "status_path"
#define POOL_PM           "pm"
#define POOL_MAX_CHILDREN "max_children"
#define POOL_OWN_URI      "own_uri"
#define POOL_LISTEN       "listen"
#define POOL_CONF_FILE    "conf_file"     /* where pm.max_children is set: the file, */
#define POOL_CONF_LINE    "conf_line"     /* its line (from 1) */
#define POOL_CONF_TEXT    "conf_text"     /* and that line as written */
#define POOL_ACCESS_LOG   "access_log"    /* the pool's access.log, absolute, as php-fpm opens it */
#define POOL_ACCESS_FORMAT "access_format" /* its access.format, quotes removed */

/* LISTEN keys */
#define LISTEN_QUEUE      "queue"
#define LISTEN_BACKLOG    "backlog"

/* ROUND keys */
#define ROUND_SEQ         "seq"
#define ROUND_TOOK_US     "took_us"
#define ROUND_SELF_CPU_US "self_cpu_us"

#endif
