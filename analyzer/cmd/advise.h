/*
 * advise: the line to change and what N workers can give (docs/rules.md
 * section 15).  Per host and pool: pm.max_children now, the CPU and the
 * memory ceilings, the advice and what binds it, the bounds (bounds.h) at 1
 * worker, the knee, now and the advice, then the unified diff that sets the advice
 * in the pool's configuration (patch -p1 -d /).
 */
#ifndef ADVISE_H
#define ADVISE_H

#include <stdio.h>

#include "pipeline.h"
#include "whatif.h"

/* 15.2: conf_text with its pm.max_children's number replaced by n, the
 * spelling, spacing and comment kept; malloc'd, NULL when the line does
 * not set it as a plain number (or out of memory). */
char *advise_line(const char *text, long long n);

#define ADVISE_MAX_AT WI_MAX_AT

/* The report: text, or JSON with json (--at's worker counts are the
 * scenario's).  0, FPM_ENOMEM. */
int advise_print(FILE *out, const pipeline *pl, const wi_scenario *sc, int json);

#endif
