/*
 * routes_cmd: fpm-analyze routes, a pool by its routes (docs/rules.md
 * section 19): per host and pool the top N routes by CPU as a table (or
 * JSON), what the rest hold, and where the pool is one front controller,
 * what it can see.
 */
#ifndef ROUTES_CMD_H
#define ROUTES_CMD_H

#include <stdio.h>

#include "pipeline.h"
#include "whatif.h"

/* Whether a pool's routes are one front controller: a single route holds
 * every reading, and its path ends in .php. */
int routes_front_controller(const rt_fig *f, size_t n);

/* The routes of every pool of the run's answers (only those named pool,
 * when not NULL), the top top of each; text, or JSON with json.  0,
 * FPM_ENOMEM. */
int routes_print(FILE *out, const wi_answers *ans, const char *pool, long top, int json);

#endif
