/*
 * config: fpm-record's command line and the pools it records, from --pool
 * or from php-fpm's configuration (fpmconf).  Messages go through msg.h.
 */
#ifndef CONFIG_H
#define CONFIG_H

#define PROG "fpm-record" /* the program's name, in its help and messages */

#include <stdint.h>
#include <sys/types.h>

#include "accessfmt.h"
#include "fpmconf.h"
#include "msg.h"

/* A pool: its configuration, and what the recorder learns while recording. */
typedef struct {
    fpmconf_pool c;         /* name, endpoint, status path and listener, pm, max, where */
    pid_t    master;        /* the php-fpm master its workers were found under */
    pid_t    conf_master;   /* the master whose configuration filled it in (--pool) */
    uint32_t listen_ino;    /* its unix listen socket's inode, when found (sockdiag) */
    msg_once said_pids;       /* the last problem said about its workers */
    msg_once said_error;      /* "unreadable" while its status page is not read */
    uint64_t error_rounds;  /* rounds in a row it could not be read */
    pid_t   *known;         /* its workers at the last round's PIDS (STATM0 reads them) */
    size_t   nknown;
    int      tail;          /* its access log among the recorder's tails, -1 none ... */
    int      tail_owner;    /* ... and whether it is the first pool to name that file */
    af_format fmt;          /* its access.format, compiled (access.c) ... */
    int      fmt_ok;        /* ... when it has one */
    int      said_sample;   /* why its figures will be a sample: said */
    msg_once said_access;   /* why its access log cannot be opened */
} rec_pool;

typedef struct {
    rec_pool   *pools;
    size_t      npools;
    const char *fpm_config;
    const char *output;
    uint64_t    interval_ms, timeout_ms, duration_ms;
    uint64_t    steal_probe_ms;    /* --steal-probe: per round, 0 off */
    uint64_t    frame_bytes;       /* --frame-size: a frame ends after the round reaching it */
    long        rounds;
    int         redact, check, level, quiet;
    const char *proc_root, *sys_root;
    const char *hostname;          /* --hostname: recorded instead of the kernel's, or NULL */
} rec_config;

/* "30s", "1m", "2h", "500ms", or bare seconds; 0 ok with *ms, -1 if not. */
int config_parse_duration(const char *s, uint64_t *ms);


/* Fills cfg from argv; -1 to go on, else the exit code (usage errors are
 * said, --help and --version printed). */
int config_parse_args(int argc, char **argv, rec_config *cfg);

/* The pools of cfg->fpm_config (those without a status path or listen
 * address are said and skipped), replacing cfg's; the pid file's path in
 * *pid_file (malloc'd, or NULL).  0, or -1 (said). */
int config_load_pools(rec_config *cfg, char **pid_file);

/* The pool's endpoint for status requests: its pm.status_listen, else its
 * listen. */
const char *config_status_endpoint(const rec_pool *p);

void config_pools_free(rec_pool *p, size_t n);

#endif
