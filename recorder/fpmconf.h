/*
 * fpmconf: the pools of a php-fpm configuration (php-fpm.conf and what it
 * includes): each pool's listen address, status path or status listener,
 * process manager, pm.max_children, and its access log and its format.
 * Values are read as php-fpm reads them: "double quoted" (\" and \\ are
 * a quote and a backslash), 'single quoted' (as written), or bare up to a
 * ';' comment; $pool is the pool's name.  It never prints.
 */
#ifndef FPMCONF_H
#define FPMCONF_H

#include <stddef.h>

#define FPMCONF_MAX_CHILDREN 1000000 /* past this the analyzer takes it as unknown */

/* php-fpm's prefix, where a pool sets none and its -p is not known: the
 * one Debian's php-fpm is built with (a relative access.log is under it) */
#define FPMCONF_PREFIX "/usr"

/* php-fpm's access.format where a pool with an access.log sets none */
#define FPMCONF_DEFAULT_FORMAT "%R - %u %t \"%m %r\" %s"

typedef struct {
    char *name;
    char *endpoint;        /* unix:/path or tcp:host:port; NULL without listen */
    char *status_path;     /* pm.status_path; NULL when the pool has none */
    char *status_endpoint; /* pm.status_listen as an endpoint, or NULL */
    char *pm;              /* static, dynamic, ondemand; NULL when not set */
    long  max_children;    /* 0 when not set or not 1..FPMCONF_MAX_CHILDREN */
    char *where;           /* "FILE:LINE" of its "[name]" section header */
    char *conf_file;       /* where pm.max_children is set (the last one read): the */
    long  conf_line;       /* file's absolute path, the line (from 1) and the line as */
    char *conf_text;       /* written, without its newline; NULL, 0 when not set */
    char *access_log;      /* access.log as php-fpm opens it: absolute, a relative one
                              under the pool's prefix (else FPMCONF_PREFIX); NULL none */
    char *access_format;   /* access.format as php-fpm reads it, its default where unset;
                              NULL without access_log */
    char *prefix;          /* the pool's prefix, or NULL */
} fpmconf_pool;

typedef struct {
    fpmconf_pool *pools;   /* in the order php-fpm reads them */
    size_t        n;
    char         *pid_file; /* [global] pid, or NULL */
} fpmconf;

/* Reads path and its includes (globs, sorted; relative to the including
 * file's folder) into c, replacing $pool in values.  0 ok; -1 with the
 * reason in err ("FILE:LINE: ..."). */
int fpmconf_load(const char *path, fpmconf *c, char *err, size_t errlen);
void fpmconf_free(fpmconf *c);

/* Frees one pool's fields and zeroes it. */
void fpmconf_pool_clear(fpmconf_pool *p);

/* A listen value ("/run/x.sock", "9000", "127.0.0.1:9000", "[::1]:9000")
 * as an endpoint.  0 ok, -1 when out is too small. */
int fpmconf_endpoint(const char *listen, char *out, size_t outlen);

#endif
