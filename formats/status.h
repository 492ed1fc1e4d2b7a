/*
 * status: php-fpm's full status page (`?json&full`), read tolerantly.
 *
 * Before PHP 8.3 php-fpm writes `request uri`, `user` and `script` without
 * escaping, so a value may hold `"`, `\`, newlines and any byte.  php-fpm
 * writes a worker's keys in a fixed order, so a string value ends where
 * `","` and the next known key begin; valid JSON escapes (`\/`, `\"`,
 * `\u0026`, ...) are decoded, anything else is kept byte for byte.
 *
 * The parser takes bytes and a length, never assumes a NUL, never reads past
 * the end, never prints.
 */
#ifndef STATUS_H
#define STATUS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int         has_pid, has_requests, has_duration, has_state, has_uri, has_cpu, has_memory;
    int64_t     pid, requests, duration;  /* duration in microseconds */
    int64_t     memory;                   /* `last request memory` (bytes), with has_memory only
                                             where it is ASCII digits: no sign, "-0" none */
    const char *start;                    /* `start time` as written, read by */
    size_t      start_len;                /* status_worker_start; NULL none */
    const char *state;                    /* decoded, NUL-terminated */
    size_t      state_len;
    const char *uri;                      /* decoded, NUL-terminated */
    size_t      uri_len;
    const char *cpu;                      /* `last request cpu` as written */
    size_t      cpu_len;
} status_worker;

typedef struct {
    int            has_listen_queue;
    int64_t        listen_queue;
    /* the page's own keys: `pool` (raw bytes of its string, pointing into
     * the buffer parsed), `start time`, `active processes`, `max children
     * reached` */
    int            has_pool, has_start_time, has_active, has_max_reached;
    const char    *pool;
    size_t         pool_len;
    int64_t        start_time, active, max_reached;
    status_worker *workers;
    size_t         nworkers;
    /* private */
    size_t         cap;
    char          *strbuf;
    size_t         strcap;
} status_page;

/* Parses buf into pg, whose earlier contents are replaced; pg's strings point
 * into pg itself.  Returns 0 for a status page (one with a `processes`
 * list, complete or cut short), -1 when buf holds none (`File not found.`,
 * the plain-text page, ...), FPM_ENOMEM (common/rc.h) when out of memory.  pg starts zeroed. */
int status_parse(status_page *pg, const char *buf, size_t len);

/* The same; fast 0 reads every worker with the general parser only, not
 * first with the one for php-fpm's exact layout (tests compare the two). */
int status_parse_as(status_page *pg, const char *buf, size_t len, int fast);

/* Copies a status page to out (malloc'd, *outlen) with every `request uri`
 * cut at its first '?': the query strings, which may carry tokens, are left
 * out and the rest stays byte for byte.  0, or FPM_ENOMEM. */
int status_redact_query(const char *buf, size_t len, char **out, size_t *outlen);

/* A worker's `start time` (epoch seconds): 0 and *v, or -1 when it has none
 * or it is not a number.  Read only when a rule needs it (12.4). */
int status_worker_start(const status_worker *w, int64_t *v);

/* Frees what pg holds and zeroes it. */
void status_page_free(status_page *pg);

/* `last request cpu` into hundredths of a percent, digits past the second
 * decimal dropped ("67.57" is 6757, "4.999" is 499, "-0.00" is 0; huge values
 * saturate).  Returns 0 for a plain number >= 0, 1 for one below 0 (judged as
 * written: "-0.001" is below 0), -1 for anything that is not
 * -?[0-9]+(\.[0-9]+)?. */
int status_cpu_hundredths(const char *s, size_t n, int64_t *out);

/* A plain integer -?[0-9]+ that fits in int64: 0 ok, -1 not. */
int status_parse_int(const char *s, size_t n, int64_t *out);

#endif
