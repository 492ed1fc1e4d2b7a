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

#include "patch.h" /* advise_line, advise_patch */

#define ADVISE_MAX_AT WI_MAX_AT

/* The report of the run's answers: text, or JSON with json (--at's worker
 * counts are in the answers' lines).  0, FPM_ENOMEM. */
int advise_print(FILE *out, const wi_answers *ans, int json);

#endif
