/* The recorder's rounds on schedule: php-fpm's status pages and the CPU
 * counters, read every interval and appended raw to an fpmlog. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "record.h"
#include "record_int.h"

#include "access.h"
#include "config.h"
#include "fcgi.h"
#include "fpmconf.h"
#include "fpmlog.h"
#include "logfile.h"
#include "masterconf.h"
#include "probe.h"
#include "procfs.h"
#include "procscan.h"
#include "records.h"
#include "sockdiag.h"
#include "workers.h"
#include "status.h"
#include "msg.h"
#include "version.h"


volatile sig_atomic_t rec_stop_signal, rec_hup;

static uint64_t system_mono(void *arg)
{
    (void)arg;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t system_real(void *arg)
{
    (void)arg;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void system_sleep_until(void *arg, uint64_t when)
{
    (void)arg;
    struct timespec ts = {(time_t)(when / 1000000000ull), (long)(when % 1000000000ull)};
    while (!rec_stop_signal && !rec_hup &&
           clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

const rec_clock rec_system_clock = {system_mono, system_real, system_sleep_until, NULL};

/* ------------------------------------------------------------------ a round */



void rec_add(recorder *r, const char *type, uint64_t mono, uint64_t real, const char *src,
                const void *payload, size_t len)
{
    if (logfile_add(r->log, type, mono, real, src, src ? strlen(src) : 0, payload, len) != 0)
        msg_warn("%s: a %s record is lost", r->cfg->output, type);
}

/* Writes what was added; says a write error once per kind, and when
 * writing works again. */
int rec_commit(recorder *r, int end_frame, int is_round)
{
    if (logfile_commit(r->log, end_frame) != 0) {
        r->rewrite_header = 1;
        if (msg_changed(&r->said_write, strerror(errno)) == MSG_NEW)
            msg_warnx("%s: could not write: %s (rounds are lost until it can write again)",
                r->cfg->output, r->said_write.last);
        r->lost_rounds += is_round;
        return -1;
    }
    r->rewrite_header = 0;
    if (msg_changed(&r->said_write, "") == MSG_GONE) {
        msg_warnx("%s: writing again; %llu round(s) were lost", r->cfg->output,
            (unsigned long long)r->lost_rounds);
        r->lost_rounds = 0;
    }
    return 0;
}

static int open_log(recorder *r)
{
    char repaired[512], err[512];
    r->log = logfile_open(r->cfg->output, r->cfg->level, repaired, sizeof repaired, err, sizeof err);
    if (!r->log) {
        msg_warnx("%s: %s", r->cfg->output, err);
        return -1;
    }
    r->frame_start = MONO(r);
    rec_write_header(r);
    if (!r->timed)
        rec_clock_check(r);
    if (repaired[0]) {
        rec_note(r, "repaired: %s", repaired);
        if (!r->cfg->quiet)
            msg_warnx("%s: %s", r->cfg->output, repaired);
    }
    return 0;
}

static void reload(recorder *r)
{
    rec_config *cfg = r->cfg;
    rec_note(r, "SIGHUP: reopening the log");
    rec_commit(r, 1, 0);
    logfile_close(r->log);
    r->log = NULL;
    if (cfg->fpm_config) {
        rec_pool *old = cfg->pools;
        size_t oldn = cfg->npools;
        cfg->pools = NULL;
        cfg->npools = 0;
        free(r->pid_file);
        r->pid_file = NULL;
        if (config_load_pools(cfg, &r->pid_file) != 0) {
            msg_warnx("%s: keeping the pools read before", cfg->fpm_config);
            config_pools_free(cfg->pools, cfg->npools);
            cfg->pools = old;
            cfg->npools = oldn;
        } else {
            config_pools_free(old, oldn);
        }
        if (access_setup(r) != 0) /* the files still named are followed where they were */
            msg_warnx("out of memory: the access logs are not followed");
    }
    if (open_log(r) != 0)
        return;
    rec_note(r, "reopened on SIGHUP");
    rec_commit(r, 0, 0);
}


/* When the next round starts: the next slot of the schedule (start + k x
 * interval, slots missed in a stall skipped), but never less than one
 * interval after the last STAT read, which comes a little after a round's
 * start: STAT to STAT is then at least one interval, as the analyzer's
 * pairs need. */
static uint64_t next_round(uint64_t start, uint64_t interval, uint64_t last_stat, uint64_t now)
{
    uint64_t next = start + ((now - start) / interval + 1) * interval;
    if (last_stat && next < last_stat + interval)
        next = last_stat + interval;
    return next;
}


/* Sleeps until next, reopening the log on SIGHUP.  0, or -1 when the log
 * could not be opened again. */
static int wait_for(recorder *r, uint64_t next)
{
    for (;;) {
        r->clk->sleep_until(r->clk->arg, next);
        if (!rec_hup)
            return 0;
        rec_hup = 0;
        reload(r);
        if (!r->log)
            return -1;
    }
}

/* Rounds on schedule until --rounds, --duration or a signal; the log
 * closed with a NOTE saying why.  0, or 2. */
static int record(recorder *r)
{
    rec_config *cfg = r->cfg;
    rec_note(r, "start: %zu pool(s), interval %llu ms", cfg->npools,
         (unsigned long long)cfg->interval_ms);
    rec_commit(r, 0, 0);
    uint64_t start = MONO(r), interval = cfg->interval_ms * 1000000ull;
    uint64_t limit = cfg->duration_ms * 1000000ull;
    for (long k = 0; !rec_stop_signal; k++) {
        rec_do_round(r);
        if (cfg->rounds && k + 1 >= cfg->rounds)
            break;
        uint64_t now = MONO(r);
        uint64_t next = next_round(start, interval, r->last_stat, now);
        if (limit && (now - start >= limit || next - start > limit))
            break;
        if (wait_for(r, next) != 0)
            return 2;
    }
    if (rec_stop_signal)
        rec_note(r, "stop: %s", rec_stop_signal == SIGTERM ? "SIGTERM" : "SIGINT");
    else
        rec_note(r, "stop: %llu round(s) done", (unsigned long long)r->seq);
    int rc = logfile_close(r->log);
    r->log = NULL;
    if (rc != 0) {
        msg_warn("%s: could not write the end of the log", cfg->output);
        return 2;
    }
    return 0;
}

recorder *recorder_new(rec_config *cfg, char *pid_file, const rec_clock *clk)
{
    recorder *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->cfg = cfg;
    r->clk = clk;
    r->pid_file = pid_file;
    /* the workers' stat, schedstat and statm files kept open, a third of the
     * limit each */
    struct rlimit nofile;
    if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
        nofile.rlim_cur = nofile.rlim_max > 196736 ? 196736 : nofile.rlim_max; /* as allowed */
        if (setrlimit(RLIMIT_NOFILE, &nofile) != 0)
            getrlimit(RLIMIT_NOFILE, &nofile);
    }
    if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur > 256)
        r->fds.max = (nofile.rlim_cur - 128 > 196608 ? 196608 : (size_t)nofile.rlim_cur - 128) / 3;
    r->sched_fds = (ps_stat_fds){.max = r->fds.max, .file = "schedstat", .pid_first = 1};
    r->statm_fds = (ps_stat_fds){.max = r->fds.max, .file = "statm", .pid_first = 1};
    if (ps_kept_set(&r->stat_file, cfg->proc_root, "stat") != 0 ||
        ps_kept_set(&r->meminfo_file, cfg->proc_root, "meminfo") != 0 ||
        ps_kept_set(&r->pressure_file, cfg->proc_root, "pressure/cpu") != 0) {
        recorder_free(r);
        return NULL;
    }
    return r;
}

int recorder_run(recorder *r)
{
    if (open_log(r) != 0)
        return 2;
    /* the access logs, once the log is open: where each starts is a NOTE */
    if (access_setup(r) != 0) {
        msg_warnx("out of memory");
        return 2;
    }
    return record(r);
}

void recorder_free(recorder *r)
{
    if (!r)
        return;
    logfile_close(r->log);
    ps_table_free(&r->table);
    ps_stat_fds_free(&r->fds);
    ps_stat_fds_free(&r->sched_fds);
    ps_stat_fds_free(&r->statm_fds);
    for (size_t i = 0; r->cfg && i < r->cfg->npools; i++) {
        free(r->cfg->pools[i].known);
        r->cfg->pools[i].known = NULL;
        r->cfg->pools[i].nknown = 0;
    }
    free(r->schedbuf);
    free(r->statmbuf);
    ps_kept_free(&r->meminfo_file);
    ps_kept_free(&r->stat_file);
    ps_kept_free(&r->pressure_file);
    for (size_t i = 0; i < REC_CG_FILES; i++)
        ps_kept_free(&r->cg_files[i]);
    status_page_free(&r->page);
    access_free(r);
    free(r->pidbuf);
    free(r->masterbuf);
    free(r->pid_file);
    free(r);
}
