/* A --pool's max_children and listen socket from its master's configuration. */
#define _GNU_SOURCE /* memrchr */
#include "masterconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procscan.h"

int mc_config_of(const char *proc_root, pid_t master, char *out, size_t outlen)
{
    char path[4200], *cmd;
    size_t n;
    snprintf(path, sizeof path, "%s/%ld/cmdline", proc_root, (long)master);
    if (ps_read_file(path, &cmd, &n) != 0)
        return -1;
    static const char prefix[] = "php-fpm: master process (";
    size_t len = strnlen(cmd, n);
    const char *close = len ? memrchr(cmd, ')', len) : NULL;
    int rc = -1;
    if (len > sizeof prefix && memcmp(cmd, prefix, sizeof prefix - 1) == 0 && close &&
        close > cmd + sizeof prefix - 1) {
        size_t pl = (size_t)(close - (cmd + sizeof prefix - 1));
        if (pl < outlen && cmd[sizeof prefix - 1] == '/') {
            memcpy(out, cmd + sizeof prefix - 1, pl);
            out[pl] = '\0';
            rc = 0;
        }
    }
    free(cmd);
    return rc;
}

int mc_fill_pool(const char *path, fpmconf_pool *p)
{
    fpmconf c;
    char err[512];
    if (fpmconf_load(path, &c, err, sizeof err) != 0)
        return -1;
    int rc = -1;
    for (size_t i = 0; i < c.n && rc < 0; i++) {
        fpmconf_pool *f = &c.pools[i];
        if (strcmp(f->name, p->name) != 0)
            continue;
        rc = 0;
        if (p->max_children == 0 && f->max_children > 0) {
            p->max_children = f->max_children;
            rc = 1;
        }
        if (!p->pm && f->pm && (p->pm = strdup(f->pm)))
            rc = 1;
        if (!p->access_log && f->access_log) { /* its access log and its format */
            p->access_log = f->access_log;
            p->access_format = f->access_format;
            f->access_log = f->access_format = NULL;
            rc = 1;
        }
        if (!p->conf_file && f->conf_file) { /* where its max_children is set */
            p->conf_file = f->conf_file;
            p->conf_text = f->conf_text;
            p->conf_line = f->conf_line;
            f->conf_file = f->conf_text = NULL;
            rc = 1;
        }
        if (f->endpoint && f->status_endpoint && p->endpoint && !p->status_endpoint &&
            strcmp(f->status_endpoint, p->endpoint) == 0) {
            char *own = strdup(f->endpoint);
            if (own) { /* the endpoint given was its status listener */
                p->status_endpoint = p->endpoint;
                p->endpoint = own;
                rc = 1;
            }
        }
    }
    fpmconf_free(&c);
    return rc;
}
