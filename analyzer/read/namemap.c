/* Open addressing with linear probing, at most half full. */
#include "namemap.h"
#include "rc.h"

#include <stdlib.h>
#include <string.h>

struct namemap_slot {
    const char *name;       /* NULL: empty */
    size_t      len;
    uint64_t    hash;
    uintptr_t   val;
};

static uint64_t hash_of(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static struct namemap_slot *find(const namemap *m, const char *name, size_t len, uint64_t h)
{
    size_t mask = m->cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        struct namemap_slot *s = &m->slot[i];
        if (!s->name || (s->hash == h && s->len == len && memcmp(s->name, name, len) == 0))
            return s;
    }
}

int namemap_get(const namemap *m, const char *name, size_t len, uintptr_t *val)
{
    if (m->n == 0)
        return 0;
    struct namemap_slot *s = find(m, name, len, hash_of(name, len));
    if (!s->name)
        return 0;
    *val = s->val;
    return 1;
}

static int grow(namemap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 16;
    struct namemap_slot *slot = calloc(cap, sizeof *slot);
    if (!slot)
        return FPM_ENOMEM;
    namemap bigger = {slot, cap, 0};
    for (size_t i = 0; i < m->cap; i++)
        if (m->slot[i].name)
            *find(&bigger, m->slot[i].name, m->slot[i].len, m->slot[i].hash) = m->slot[i];
    free(m->slot);
    m->slot = slot;
    m->cap = cap;
    return 0;
}

int namemap_put(namemap *m, const char *name, size_t len, uintptr_t val)
{
    if ((m->n + 1) * 2 > m->cap && grow(m) != 0)
        return FPM_ENOMEM;
    uint64_t h = hash_of(name, len);
    *find(m, name, len, h) = (struct namemap_slot){name, len, h, val};
    m->n++;
    return 0;
}

void namemap_clear(namemap *m)
{
    if (m->n)
        memset(m->slot, 0, m->cap * sizeof *m->slot);
    m->n = 0;
}

void namemap_free(namemap *m)
{
    free(m->slot);
    m->slot = NULL;
    m->cap = m->n = 0;
}
