/*
 * csvout: the CSV exports, written through libcsv (RFC 4180 quoting, CRLF
 * line ends, a header on the first line, ISO 8601 UTC times, the C locale's
 * decimal point).  It hooks into the pipeline; nothing else writes CSV.
 */
#ifndef ROWS_H
#define ROWS_H

#include <stdio.h>

#include "pipeline.h"
#include "whatif.h"

typedef struct {
    FILE *readings;   /* --csv-readings: one row per worker seen per round */
    FILE *rounds;     /* --csv-rounds: one row per round and pool */
} csvout;

/* Writes the header lines and registers the hooks for the streams given
 * (either may be NULL).  The caller closes the streams. */
void rows_attach(csvout *c, pipeline *pl);

/* --csv-routes (docs/rules.md 19.3): a header, then a row per host, pool and
 * route of the run's answers in 19.4's order, every figure of the route, an
 * empty field for null; the first column the columns' version.  0,
 * FPM_ENOMEM. */
#define ROWS_ROUTES_SCHEMA "2" /* 2: requests, requests_per_s (20.6) */
int rows_routes(FILE *f, const wi_answers *ans);

#endif
