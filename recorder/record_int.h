/*
 * record_int: what record.c (the loop: schedule, log, reload) and round.c
 * (one round's reads and records) share.  Private to the recorder.
 */
#ifndef RECORD_INT_H
#define RECORD_INT_H

#include <stdint.h>
#include <sys/types.h>

#include "cgroups.h"
#include "config.h"
#include "logfile.h"
#include "msg.h"
#include "procscan.h"
#include "record.h"
#include "status.h"
#include "tail.h"

#define MONO(r) ((r)->clk->mono((r)->clk->arg))
#define REAL(r) ((r)->clk->real((r)->clk->arg))

#define REC_CG_FILES 8 /* the most cgroup files a round reads */

struct recorder {
    rec_config    *cfg;
    const rec_clock *clk;
    logfile       *log;
    ps_table       table;
    ps_host        host;
    cg_place       cg;              /* php-fpm's cgroups (docs/rules.md 16) */
    char           cpus[4200];      /* its master's CPU list, "-" unknown */
    uint64_t       quota_mc;
    uint64_t       mem_limit;       /* its memory limit below MemTotal, 0 none (14.3) */
    pid_t          master;          /* php-fpm's master, for its cgroup */
    pid_t          pid_master;      /* the master of the configuration's pid file, or 0 */
    char          *pid_file;
    uint64_t       seq, frame_start;
    uint64_t       last_stat;       /* MONO of the last STAT read, 0 none */
    msg_once       said_write;      /* the last write error said */
    int            rewrite_header;  /* HOST and POOL may be lost: write them again */
    uint64_t       lost_rounds;
    status_page    page;
    char          *pidbuf, *masterbuf;
    size_t         pidcap, mastercap;
    int            timed;           /* the clock check was written */
    int            scanned;         /* the process table was scanned this round */
    ps_stat_fds    fds;             /* the workers' stat files, kept open ... */
    ps_stat_fds    sched_fds;       /* ... their schedstat files (SCHED) ... */
    ps_stat_fds    statm_fds;       /* ... and their statm files (STATM) */
    char          *schedbuf, *statmbuf;
    size_t         schedcap, statmcap;
    ps_kept        stat_file, pressure_file, meminfo_file; /* a round's other files, kept open ... */
    ps_kept        cg_files[REC_CG_FILES];    /* ... and the cgroup's */
    const char    *cg_names[REC_CG_FILES];    /* their CGROUP sources */
    size_t         ncg;
    int            probe_cpus[1024], nprobe_cpus, probe_turn; /* --steal-probe's CPUs */
    msg_once       said_probe;      /* the last probe error said */
    tail_file     *tails;           /* the pools' access logs (access.c) */
    size_t         ntails;
    int            tails_started;   /* the state file was read once */
    unsigned char *accbuf, *redbuf; /* a round's lines, and them redacted */
    size_t         acccap, redcap;
    msg_once       said_state;      /* LOG.access could not be written */
};

/* A record added to the round in flight; one lost is said. */
void rec_add(recorder *r, const char *type, uint64_t mono, uint64_t real, const char *src,
             const void *payload, size_t len);
/* Writes what was added; says a write error once per kind, and when
 * writing works again.  0 written, -1 not. */
int rec_commit(recorder *r, int end_frame, int is_round);
/* A message to the recorder's standard error, or its log's NOTE. */
void rec_note(recorder *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* round.c: php-fpm's master: the pid in pid_file (*from_file 1), else the
 * master of the first pool whose workers table holds (scanned now), else
 * the table's only master; 0 none. */
pid_t rec_find_master(const rec_config *cfg, const char *pid_file, ps_table *table,
                      int *from_file);
/* round.c: HOST and POOL records, now. */
void rec_write_header(recorder *r);
/* round.c: the TIMING record, once. */
void rec_clock_check(recorder *r);
/* round.c: one round: every pool, the host, ROUND. */
void rec_do_round(recorder *r);

#endif
