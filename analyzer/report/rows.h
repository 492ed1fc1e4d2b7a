/*
 * csvout: the CSV exports, written through libcsv (RFC 4180 quoting, CRLF
 * line ends, a header on the first line, ISO 8601 UTC times, the C locale's
 * decimal point).  It hooks into the pipeline; nothing else writes CSV.
 */
#ifndef ROWS_H
#define ROWS_H

#include <stdio.h>

#include "pipeline.h"

typedef struct {
    FILE *readings;   /* --csv-readings: one row per worker seen per round */
    FILE *rounds;     /* --csv-rounds: one row per round and pool */
} csvout;

/* Writes the header lines and registers the hooks for the streams given
 * (either may be NULL).  The caller closes the streams. */
void rows_attach(csvout *c, pipeline *pl);

#endif
