/* Which processes are a pool's workers. */
#define _POSIX_C_SOURCE 200809L
#include "rc.h"
#include "workers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The master whose children are most of the page's workers, or 0: of the
 * page's workers that the table names like the pool, the parent shared by
 * the most page workers (the first such in page order on a tie). */
static pid_t master_of_page(const ps_table *t, const char *pool, const status_page *pg)
{
    pid_t cand[8];
    size_t votes[8], nc = 0;
    for (size_t i = 0; i < pg->nworkers; i++) { /* each parent's page workers */
        const ps_worker *w = pg->workers[i].has_pid ? ps_find(t, (pid_t)pg->workers[i].pid) : NULL;
        if (!w)
            continue;
        size_t k = 0;
        while (k < nc && cand[k] != w->ppid)
            k++;
        if (k == nc && nc < 8) {
            cand[nc] = w->ppid;
            votes[nc++] = 0;
        }
        if (k < nc)
            votes[k]++;
    }
    pid_t best = 0;
    size_t best_n = 0;
    for (size_t i = 0; i < pg->nworkers; i++) {
        const ps_worker *w = pg->workers[i].has_pid ? ps_find(t, (pid_t)pg->workers[i].pid) : NULL;
        if (!w || strcmp(w->pool, pool) != 0)
            continue;
        for (size_t k = 0; k < nc; k++)
            if (cand[k] == w->ppid && votes[k] > best_n) {
                best = w->ppid;
                best_n = votes[k];
            }
    }
    return best;
}

/* The one parent of the table's workers named like the pool; 0 when none,
 * -1 when several masters have a pool of that name. */
pid_t workers_only_master(const ps_table *t, const char *name)
{
    pid_t m = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (strcmp(t->w[i].pool, name) != 0)
            continue;
        if (m && t->w[i].ppid != m)
            return -1;
        m = t->w[i].ppid;
    }
    return m;
}

int workers_table_agrees(const ps_table *t, const char *pool, const status_page *page)
{
    pid_t m = 0;
    size_t on_page = 0;
    for (size_t i = 0; i < page->nworkers; i++) {
        if (!page->workers[i].has_pid)
            continue;
        on_page++;
        const ps_worker *w = ps_find(t, (pid_t)page->workers[i].pid);
        if (!w || strcmp(w->pool, pool) != 0 || (m && w->ppid != m))
            return 0;
        m = w->ppid;
    }
    size_t in_table = 0;
    for (size_t j = 0; j < t->n; j++) /* with no worker on the page: none of that name */
        in_table += (!m || t->w[j].ppid == m) && strcmp(t->w[j].pool, pool) == 0;
    return in_table == on_page;
}

static int has_children(const ps_table *t, pid_t master)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->w[i].ppid == master)
            return 1;
    return 0;
}

long workers_of_pool(const ps_table *t, const char *pool, const status_page *page,
                     pid_t pid_master, pid_t *master, pid_t **pids, char *why, size_t whylen)
{
    size_t on_page = 0;
    for (size_t i = 0; page && i < page->nworkers; i++)
        on_page += page->workers[i].has_pid;
    pid_t m = 0;
    why[0] = '\0';
    if (t->any_fpm) {
        if (page && on_page)
            m = master_of_page(t, pool, page);
        else if (*master && has_children(t, *master))
            m = *master;
        else if (pid_master && (page || has_children(t, pid_master)))
            m = pid_master;
        else if ((m = workers_only_master(t, pool)) < 0) {
            snprintf(why, whylen, "several php-fpm masters have a pool \"%s\" and its status page "
                     "could not be read to tell which: no PIDS this round", pool);
            return -1;
        }
    }
    *pids = malloc((t->n + on_page + 1) * sizeof **pids);
    if (!*pids) {
        snprintf(why, whylen, "out of memory: no PIDS this round");
        return FPM_ENOMEM;
    }
    size_t n = 0;
    if (m > 0) {
        *master = m;
        for (size_t i = 0; i < t->n; i++)
            if (t->w[i].ppid == m && strcmp(t->w[i].pool, pool) == 0)
                (*pids)[n++] = t->w[i].pid;
    }
    if (n == 0 && on_page) {
        /* php-fpm in another pid namespace, or titles not rewritten */
        for (size_t i = 0; i < page->nworkers; i++)
            if (page->workers[i].has_pid)
                (*pids)[n++] = (pid_t)page->workers[i].pid;
    }
    if (n == 0 && !page && !(m > 0 && t->any_fpm)) {
        /* no page and no worker of that name: the read error says enough */
        free(*pids);
        *pids = NULL;
        return -1;
    }
    return (long)n;
}
