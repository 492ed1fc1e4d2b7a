/*
 * masterconf: what a pool given by --pool NAME=ENDPOINT (no --fpm-config)
 * still learns from php-fpm's own configuration: its master's command line
 * names the file ("php-fpm: master process (/etc/php/8.2/fpm/php-fpm.conf)"),
 * which fpmconf reads, includes and all.  It never prints.
 */
#ifndef MASTERCONF_H
#define MASTERCONF_H

#include <stddef.h>
#include <sys/types.h>

#include "fpmconf.h"

/* The configuration file master's command line names, into out.  0, or -1
 * when the command line cannot be read or names none. */
int mc_config_of(const char *proc_root, pid_t master, char *out, size_t outlen);

/* From the configuration at path, the pool of p's name: its pm.max_children
 * and its access log and format where p has none, and its own listen
 * socket where p's endpoint is that pool's pm.status_listen (p's endpoint
 * becomes its status endpoint).
 * 1 when p changed, 0 when not, -1 when the file cannot be read or has no
 * pool of that name. */
int mc_fill_pool(const char *path, fpmconf_pool *p);

#endif
