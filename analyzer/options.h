/*
 * options: fpm-analyze's command line: the command (the report, hist,
 * check or timing), which options go with it, and their values, checked.
 */
#ifndef OPTIONS_H
#define OPTIONS_H

#define PROG "fpm-analyze" /* the program's name, in its help and messages */

#include <stdint.h>

#include "readings.h"
#include "routes.h"
#include "report.h"
#include "whatif.h"

typedef struct {
    const rp_format *format;
    wi_scenario      scenario;
    rd_prefixes      own_uri;
    rt_params        route_params;   /* --route-param NAME (section 19) */
    wi_override      max_children[64];
    const char      *from, *until;
    long             from_sod, until_sod; /* HH:MM[:SS] given: its seconds, to resolve; else -1 */
    const char      *output;         /* -o FILE: FILE.tmp renamed into place */
    const char      *csv_readings, *csv_rounds, *csv_routes;
    const char      *plot_dir;
    int              quiet;
    int              threads;        /* --threads: 1 serial */
    enum { CMD_REPORT = 1, CMD_HIST = 2, CMD_CHECK = 4, CMD_TIMING = 8, CMD_CUT = 16,
                     CMD_ADVISE = 32, CMD_ROUTES = 64 } command;
    long             top;            /* routes --top N */
    int              redact;         /* cut --redact-query */
    uint64_t         frame_bytes;    /* cut --frame-size */
    const char      *baseline;
    int64_t          at[16];         /* advise --at N[,N...] */
    size_t           nat;
    int              tolerance;
    double           max_rise;
    const char      *pool;           /* hist and routes --pool */
    double           cutoff;         /* hist and timing --cutoff */
    char           **logs;
    int              nlogs;
} config;

/* Fills cfg from argv (--help and --version print and return 0; usage
 * errors are said and return 2); -1 to go on.  It opens no file: a
 * --from or --until given as HH:MM[:SS] is left in from_sod, until_sod. */
int options_parse(int argc, char **argv, config *cfg);

/* The window made whole: HH:MM[:SS] on the day day_ns (UTC midnight of the
 * first log's first record; has_day 0 when the log holds no time), and
 * --from before --until.  -1 to go on, else 2 (said). */
int options_window(config *cfg, uint64_t day_ns, int has_day);

#endif
