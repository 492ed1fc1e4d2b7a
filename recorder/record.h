/*
 * record: the recorder's rounds on schedule.  Each round reads every
 * pool's status page (STATUS or ERROR) and its workers' /proc/<pid>/stat
 * (PIDS), then /proc/stat, the pressure and cgroup files and the steal
 * probe, and ends with ROUND; the round's records are written together.
 * Rounds keep start + k x interval on the monotonic clock, skip the slots
 * a stall missed, and never start less than one interval after the last
 * STAT read.  SIGHUP reopens the log (and re-reads php-fpm's
 * configuration); SIGTERM and SIGINT end the round, the frame and the run.
 * Its clocks are given, so the loop is tested without sleeping.
 */
#ifndef RECORD_H
#define RECORD_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"

typedef struct {
    uint64_t (*mono)(void *arg);                  /* CLOCK_MONOTONIC, ns */
    uint64_t (*real)(void *arg);                  /* CLOCK_REALTIME, ns */
    /* Waits until mono reaches when, or until rec_stop_signal or rec_hup
     * is set. */
    void (*sleep_until)(void *arg, uint64_t when);
    void *arg;
} rec_clock;

extern const rec_clock rec_system_clock;

/* What a signal asked for: set by the program's handlers (and by tests). */
extern volatile sig_atomic_t rec_stop_signal, rec_hup;

typedef struct recorder recorder;

/* A recorder of cfg's pools into cfg->output on clk; pid_file (malloc'd,
 * or NULL) is php-fpm's pid file, and the recorder's from now on.  NULL
 * when /proc cannot be read (errno). */
recorder *recorder_new(rec_config *cfg, char *pid_file, const rec_clock *clk);

/* Opens the log and records until --rounds, --duration or a signal, the
 * log then closed with a NOTE saying why.  0, or 2 (said). */
int recorder_run(recorder *r);

void recorder_free(recorder *r);

/* -n: what bounds php-fpm's CPU, in words on out: its master's cgroups,
 * the CPUs it may run on and its quota (docs/rules.md 16). */
void recorder_say_bounds(const rec_config *cfg, const char *pid_file, FILE *out);

#endif
