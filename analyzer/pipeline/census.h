/*
 * census: a line of php-fpm's access log as section 20 reads it
 * (docs/rules.md 20.2, 20.4, 20.5): matched against its pool's compiled
 * access.format, its values judged.  Pure: no state, no file, no print.
 */
#ifndef CENSUS_H
#define CENSUS_H

#include <stddef.h>
#include <stdint.h>

#include "accessfmt.h"
#include "routes.h"

/* What a line is before the pool's own-URI prefixes and rule 5 judge it. */
typedef enum {
    CS_READING,    /* a line reading (20.4), unless own or short */
    CS_UNPARSABLE, /* it does not match the format (20.4 rule 1) */
    CS_INVALID,    /* its pid, share or duration does not parse (rule 2) */
} cs_verdict;

#define CS_MAX_METHOD 16

typedef struct {
    int64_t              pid;
    int64_t              share;       /* %C in hundredths of a percent */
    int64_t              duration_us; /* %d, exactly */
    int64_t              memory;      /* %M in bytes; -1 none */
    int                  has_pool;    /* %n: its value ... */
    const unsigned char *pool;        /* ... in the line */
    size_t               pool_len;
    long                 uri_len;     /* 20.2's URI, at uri (in the line, or buf); -1 none */
    const char          *uri;
    char                 buf[AF_MAX_LINE + 1];
    size_t               method_len;  /* 1 to 16 bytes of A-Z in method; 0 none */
    char                 method[CS_MAX_METHOD];
} cs_line;

/* Matches line[0..len) (without its newline) against f (usable) and reads
 * its values into *out (for CS_INVALID, its pool's %n alone); what it is. */
cs_verdict cs_read(af_matcher *m, const af_format *f, const unsigned char *line, size_t len,
                   cs_line *out);

/* 20.5: the line's route (19.1 from its URI as written, the method and a
 * space before it where it has one) into out (RT_MAX_BYTES); its length. */
size_t cs_route(const cs_line *l, const rt_params *params, char *out);

#endif
