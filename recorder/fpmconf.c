/* php-fpm configuration discovery: an ini reader for what fpm-record needs. */
#define _POSIX_C_SOURCE 200809L
#include "fpmconf.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "numarg.h"

#define MAX_DEPTH 8

int fpmconf_endpoint(const char *listen, char *out, size_t outlen)
{
    int n;
    size_t i = 0;
    while (listen[i] >= '0' && listen[i] <= '9')
        i++;
    if (listen[0] == '/' || (strchr(listen, ':') == NULL && listen[i] != '\0'))
        n = snprintf(out, outlen, "unix:%s", listen);
    else if (listen[i] == '\0' && i > 0)
        n = snprintf(out, outlen, "tcp:127.0.0.1:%s", listen);
    else
        n = snprintf(out, outlen, "tcp:%s", listen);
    return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

static fpmconf_pool *pool_get(fpmconf *c, const char *name)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->pools[i].name, name) == 0)
            return &c->pools[i];
    fpmconf_pool *p = realloc(c->pools, (c->n + 1) * sizeof *p);
    if (!p)
        return NULL;
    c->pools = p;
    p = &c->pools[c->n];
    memset(p, 0, sizeof *p);
    if (!(p->name = strdup(name)))
        return NULL;
    c->n++;
    return p;
}

static void set(char **field, const char *v)
{
    free(*field);
    *field = strdup(v);
}

/* value with $pool replaced by the section's name */
static char *expand(const char *v, const char *pool)
{
    size_t n = 0;
    for (const char *p = v; *p; p++)
        n += strncmp(p, "$pool", 5) == 0 ? strlen(pool) : 1;
    char *o = malloc(n + 1), *d = o;
    if (!o)
        return NULL;
    while (*v) {
        if (strncmp(v, "$pool", 5) == 0) {
            strcpy(d, pool);
            d += strlen(pool);
            v += 5;
        } else {
            *d++ = *v++;
        }
    }
    *d = '\0';
    return o;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

/* The value after '=': quoted or bare up to a ';' comment, as php-fpm
 * reads it: in "...", \" is a quote and \\ a backslash (any other
 * backslash stays); '...' is as written. */
static char *value_of(char *v)
{
    v = trim(v);
    if (*v == '"') {
        char *d = ++v, *s = v;
        for (; *s && *s != '"'; s++) {
            if (*s == '\\' && (s[1] == '"' || s[1] == '\\'))
                s++;
            *d++ = *s;
        }
        *d = '\0';
        return v;
    }
    if (*v == '\'') {
        char *end = strchr(++v, '\'');
        if (end)
            *end = '\0';
        return v;
    }
    char *semi = strchr(v, ';');
    if (semi)
        *semi = '\0';
    return trim(v);
}

/* Where the reading is: the section in force and where it began. */
typedef struct {
    char section[256];
    char where[4200];     /* FILE:LINE of its "[name]" */
} cursor;

static int load(const char *path, fpmconf *c, cursor *cur, int depth, char *err, size_t errlen);

static int include(const char *from, const char *pattern, fpmconf *c, cursor *cur, int depth,
                   char *err, size_t errlen)
{
    char full[4096];
    if (pattern[0] != '/') {
        const char *slash = strrchr(from, '/');
        int dl = slash ? (int)(slash - from) : 1;
        snprintf(full, sizeof full, "%.*s/%s", dl, slash ? from : ".", pattern);
    } else {
        snprintf(full, sizeof full, "%s", pattern);
    }
    glob_t g;
    int rc = glob(full, 0, NULL, &g);
    if (rc == GLOB_NOMATCH)
        return 0; /* php-fpm accepts an include that matches nothing */
    if (rc != 0) {
        snprintf(err, errlen, "%s: include \"%s\" could not be read", from, full);
        return -1;
    }
    for (size_t i = 0; i < g.gl_pathc; i++) {
        if (load(g.gl_pathv[i], c, cur, depth + 1, err, errlen) != 0) {
            globfree(&g);
            return -1;
        }
    }
    globfree(&g);
    return 0;
}

/* Where pm.max_children is set: the file (absolute), the line and its
 * text as written (fpmlog(5) POOL conf_file, conf_line, conf_text). */
static void set_conf_line(fpmconf_pool *p, const char *path, int lineno, const char *raw)
{
    char *abs = realpath(path, NULL);
    free(p->conf_file);
    p->conf_file = abs ? abs : strdup(path);
    set(&p->conf_text, raw);
    p->conf_line = p->conf_file && p->conf_text ? lineno : 0;
}

/* One KEY = VALUE of a pool's section; the keys the recorder needs. */
static void pool_key(fpmconf_pool *p, const char *key, const char *v)
{
    char ep[4200];
    long long n;
    if (strcmp(key, "listen") == 0 && fpmconf_endpoint(v, ep, sizeof ep) == 0)
        set(&p->endpoint, ep);
    else if (strcmp(key, "pm.status_path") == 0)
        set(&p->status_path, v);
    else if (strcmp(key, "pm.status_listen") == 0 && fpmconf_endpoint(v, ep, sizeof ep) == 0)
        set(&p->status_endpoint, ep);
    else if (strcmp(key, "pm") == 0)
        set(&p->pm, v);
    else if (strcmp(key, "pm.max_children") == 0) /* not a number in range: unknown */
        p->max_children = num_whole(v, 1, FPMCONF_MAX_CHILDREN, &n) == 0 ? (long)n : 0;
    else if (strcmp(key, "access.log") == 0)
        set(&p->access_log, v);
    else if (strcmp(key, "access.format") == 0)
        set(&p->access_format, v);
    else if (strcmp(key, "prefix") == 0)
        set(&p->prefix, v);
}

/* A pool's access log as php-fpm opens it (a relative path under its
 * prefix), and its format where it sets none; neither without a log.  0,
 * or -1 out of memory. */
static int access_of(fpmconf_pool *p)
{
    if (!p->access_log || !p->access_log[0]) {
        free(p->access_log);
        free(p->access_format);
        p->access_log = p->access_format = NULL;
        return 0;
    }
    if (p->access_log[0] != '/') {
        const char *pre = p->prefix && p->prefix[0] ? p->prefix : FPMCONF_PREFIX;
        size_t n = strlen(pre) + strlen(p->access_log) + 2;
        char *full = malloc(n);
        if (!full)
            return -1;
        snprintf(full, n, "%s/%s", pre, p->access_log); /* as php-fpm joins them */
        free(p->access_log);
        p->access_log = full;
    }
    if (!p->access_format && !(p->access_format = strdup(FPMCONF_DEFAULT_FORMAT)))
        return -1;
    return 0;
}

/* A configuration file opened for reading, only a regular one (a FIFO
 * must not hang the open).  NULL with err. */
static FILE *open_config(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    FILE *f = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        snprintf(err, errlen, "%s: not a regular file (a configuration file is one)", path);
    else if (fcntl(fd, F_SETFL, 0) != 0 || !(f = fdopen(fd, "r")))
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
    if (!f)
        close(fd);
    return f;
}

static int load(const char *path, fpmconf *c, cursor *cur, int depth, char *err, size_t errlen)
{
    char *section = cur->section;
    if (depth > MAX_DEPTH) {
        snprintf(err, errlen, "%s: includes nested more than %d deep", path, MAX_DEPTH);
        return -1;
    }
    FILE *f = open_config(path, err, errlen);
    if (!f)
        return -1;
    char line[8192], written[8192];
    int lineno = 0, rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t ll = strlen(line);
        if (ll == sizeof line - 1 && line[ll - 1] != '\n' && !feof(f)) {
            snprintf(err, errlen, "%s:%d: line longer than %zu bytes", path, lineno,
                     sizeof line - 2);
            rc = -1;
            break;
        }
        memcpy(written, line, ll + 1); /* as written, for conf_text */
        if (ll && written[ll - 1] == '\n')
            written[ll - 1] = '\0';
        char *s = trim(line);
        if (*s == '\0' || *s == ';' || *s == '#')
            continue;
        if (*s == '[') {
            char *end = strchr(s, ']');
            if (!end) {
                snprintf(err, errlen, "%s:%d: section without \"]\"", path, lineno);
                rc = -1;
                break;
            }
            *end = '\0';
            snprintf(section, sizeof cur->section, "%s", trim(s + 1));
            snprintf(cur->where, sizeof cur->where, "%s:%d", path, lineno);
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq) {
            snprintf(err, errlen, "%s:%d: expected KEY = VALUE", path, lineno);
            rc = -1;
            break;
        }
        *eq = '\0';
        char *key = trim(s), *raw = value_of(eq + 1);
        int global = strcmp(section, "global") == 0 || section[0] == '\0';
        char *v = expand(raw, global ? "" : section);
        if (!v) {
            rc = -1;
            break;
        }
        if (strcmp(key, "include") == 0) {
            rc = include(path, v, c, cur, depth, err, errlen);
        } else if (global) {
            if (strcmp(key, "pid") == 0)
                set(&c->pid_file, v);
        } else {
            fpmconf_pool *p = pool_get(c, section);
            if (!p || (!p->where && !(p->where = strdup(cur->where)))) {
                snprintf(err, errlen, "%s", strerror(ENOMEM));
                rc = -1;
            } else {
                pool_key(p, key, v);
                if (strcmp(key, "pm.max_children") == 0)
                    set_conf_line(p, path, lineno, written);
            }
        }
        free(v);
        if (rc)
            break;
    }
    fclose(f);
    return rc;
}

int fpmconf_load(const char *path, fpmconf *c, char *err, size_t errlen)
{
    cursor cur = {"", ""};
    memset(c, 0, sizeof *c);
    if (load(path, c, &cur, 0, err, errlen) != 0) {
        fpmconf_free(c);
        return -1;
    }
    for (size_t i = 0; i < c->n; i++)
        if (access_of(&c->pools[i]) != 0) {
            snprintf(err, errlen, "%s", strerror(ENOMEM));
            fpmconf_free(c);
            return -1;
        }
    return 0;
}

void fpmconf_pool_clear(fpmconf_pool *p)
{
    free(p->name);
    free(p->endpoint);
    free(p->status_path);
    free(p->status_endpoint);
    free(p->pm);
    free(p->where);
    free(p->conf_file);
    free(p->conf_text);
    free(p->access_log);
    free(p->access_format);
    free(p->prefix);
    memset(p, 0, sizeof *p);
}

void fpmconf_free(fpmconf *c)
{
    for (size_t i = 0; i < c->n; i++)
        fpmconf_pool_clear(&c->pools[i]);
    free(c->pools);
    free(c->pid_file);
    memset(c, 0, sizeof *c);
}
