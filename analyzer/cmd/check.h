/*
 * check: a CI regression check of a replayed history against a JSON output
 * saved earlier (docs/rules.md section 8).  What got worse: TYPICAL or P90 up
 * by more than tol buckets, a shape that moved toward cpu-bound, overhead up
 * by more than rise_pct percent, new starved rounds, a pool that now has too
 * few readings or is gone; a host whose steal, throttled or pressure p90
 * (section 9) rose by more than tol buckets.
 */
#ifndef CHECK_H
#define CHECK_H

#include <stddef.h>
#include <stdio.h>

#include "pipeline.h"
#include "whatif.h"

/* The scenario a check's answers are decided in: the run's, with section
 * 11's joint fit whatever --fit says (the baseline's overheads are its). */
wi_scenario check_scenario(const wi_scenario *sc);

/* Reads the baseline file, holds the run's answers (decided in
 * check_scenario's scenario) against it, writes one line per regression to
 * out and a summary line.  Returns how many regressions, or FPM_EFAIL with
 * err set when the baseline cannot be read or is not an fpm-analyze JSON
 * output. */
int check_against(FILE *out, const wi_answers *ans, const char *baseline, int tol,
                  double rise_pct, char *err, size_t errlen);

#endif
