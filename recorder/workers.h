/*
 * workers: which processes are a pool's workers, so that its CPU is read
 * from the right /proc/<pid>/stat even where several php-fpm masters (two
 * PHP versions, a staging instance) each have a pool of the same name.
 * Pure: the process table and the status page in, pids out.  Nothing prints.
 */
#ifndef WORKERS_H
#define WORKERS_H

#include <stddef.h>
#include <sys/types.h>

#include "procscan.h"
#include "status.h"

/* The pool's workers: the children named "php-fpm: pool POOL" of the pool's
 * own master.  The master is the parent of the page's workers (page parsed,
 * or NULL in a round without one); without a page, *master (found in an
 * earlier round), else pid_master (the configuration's pid file, 0 none),
 * else the only master with a pool of that name.  *master gets the master
 * used.  Without a process table, or when it has none of the page's
 * workers, the page's pids.  Returns how many (*pids malloc'd), or -1 when
 * they cannot be known (FPM_ENOMEM out of memory): then why says so, or is
 * "" when the page's read error says enough. */
long workers_of_pool(const ps_table *t, const char *pool, const status_page *page,
                     pid_t pid_master, pid_t *master, pid_t **pids, char *why, size_t whylen);

/* Whether the table still says what the pool's page says: every worker on
 * the page is in the table under the pool's name and one master, and the
 * table has no other worker of that name under that master.  When it does
 * not (a worker spawned, exited, or its pid reused), the table is scanned
 * again. */
int workers_table_agrees(const ps_table *t, const char *pool, const status_page *page);

/* The one master with workers named like pool; 0 when none, -1 when several. */
pid_t workers_only_master(const ps_table *t, const char *pool);

#endif
