/*
 * timearg: the times of --from and --until (docs/rules.md section 7b).
 */
#ifndef TIMEARG_H
#define TIMEARG_H

#include <stdint.h>

typedef enum {
    TA_OK,          /* *ns is set */
    TA_CLOCK,       /* HH:MM[:SS]: *sec_of_day is set; the day comes from the log */
    TA_NO_ZONE,     /* a date and time without Z or an offset */
    TA_BAD,         /* not a time */
} ta_result;

/* Parses ISO 8601 with Z or an offset (2026-11-29T14:00:00Z,
 * 2026-11-29T15:00+01:00, fractions of a second allowed), @EPOCH seconds, or
 * HH:MM[:SS]. */
ta_result timearg_parse(const char *s, uint64_t *ns, long *sec_of_day);

/* ns since the epoch as 2026-11-29T14:00:00Z (or with .mmm when not whole);
 * out holds 40 bytes. */
void timearg_format(uint64_t ns, char *out);

#endif
