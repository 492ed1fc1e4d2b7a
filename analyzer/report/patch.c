/* The line to change, as a diff (patch.h; docs/rules.md 15.2). */
#include "patch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *advise_line(const char *text, long long n)
{
    static const char key[] = "pm.max_children";
    const char *k = strstr(text, key);
    if (!k)
        return NULL;
    const char *p = k + sizeof key - 1;
    p += strspn(p, " \t");
    if (*p != '=')
        return NULL;
    p++;
    p += strspn(p, " \t");
    int quoted = *p == '"';
    p += quoted;
    size_t digits = strspn(p, "0123456789");
    if (digits == 0 || (quoted && p[digits] != '"'))
        return NULL;
    char num[24];
    int nl = snprintf(num, sizeof num, "%lld", n);
    size_t head = (size_t)(p - text), tail = strlen(p + digits);
    char *out = malloc(head + (size_t)nl + tail + 1);
    if (!out)
        return NULL;
    memcpy(out, text, head);
    memcpy(out + head, num, (size_t)nl);
    memcpy(out + head + (size_t)nl, p + digits, tail + 1);
    return out;
}

/* A path patch may be given: absolute, printable, without a ".." part. */
static int patchable_path(const char *f)
{
    if (f[0] != '/' || strstr(f, "/../") || (strlen(f) >= 3 && !strcmp(f + strlen(f) - 3, "/..")))
        return 0;
    for (const unsigned char *c = (const unsigned char *)f; *c; c++)
        if (*c < 0x20 || *c == 0x7f)
            return 0;
    return 1;
}

char *advise_patch(const pl_pool *p, const wi_view *v)
{
    if (v->advice <= 0 || v->advice == v->now || !p->conf_file || !p->conf_text ||
        !patchable_path(p->conf_file))
        return NULL;
    char *line = advise_line(p->conf_text, (long long)v->advice);
    if (!line)
        return NULL;
    const char *rel = p->conf_file + 1;
    size_t n = 2 * strlen(rel) + strlen(p->conf_text) + strlen(line) + 96;
    char *d = malloc(n);
    if (d)
        snprintf(d, n, "--- a/%s\n+++ b/%s\n@@ -%lld +%lld @@\n-%s\n+%s\n", rel, rel,
                 (long long)p->conf_line, (long long)p->conf_line, p->conf_text, line);
    free(line);
    return d;
}

