/*
 * patch: a pool's pm.max_children line with its advice, as the unified
 * diff that `patch -p1 -d /` applies on its host (docs/rules.md 15.2):
 * advise prints it, the HTML page shows it to copy.
 */
#ifndef PATCH_H
#define PATCH_H

#include "state.h"
#include "whatif.h"

/* conf_text with its pm.max_children's number replaced by n, the
 * spelling, spacing and comment kept; malloc'd, NULL when the line does
 * not set it as a plain number (or out of memory). */
char *advise_line(const char *text, long long n);

/* The pool's diff, malloc'd; NULL when there is none to give: no advice,
 * the advice is now, or the line unknown.  An advice of 0 gets none:
 * php-fpm refuses pm.max_children = 0. */
char *advise_patch(const pl_pool *p, const wi_view *v);

#endif
