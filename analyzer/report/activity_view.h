/*
 * The text's activity table (docs/rules.md 12.2): per pool, the cores it used
 * on average and at its busiest pair, the most workers busy (of
 * max_children), the rounds none was idle, the rounds it ran out of them
 * (php-fpm's `max children reached` grew) and the longest queue (the
 * kernel's or php-fpm's).  Printed whatever the pool's readings.
 */
#ifndef ACTIVITY_VIEW_H
#define ACTIVITY_VIEW_H

#include <stdio.h>

#include "pipeline.h"

/* The table, a header row and a row per pool.  0, or FPM_ENOMEM. */
int out_activity_table(FILE *out, const pl_host *h);

#endif
