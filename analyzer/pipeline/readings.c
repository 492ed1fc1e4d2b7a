/* The reading rules of docs/rules.md section 2. */
#include "readings.h"
#include "rc.h"

#include <stdlib.h>
#include <string.h>

const char *rd_name(rd_verdict v)
{
    static const char *const names[] = {"no_request", "running", "repeat", "own",
                                        "short", "invalid", "primed", "accepted"};
    return v <= RD_ACCEPTED ? names[v] : "?";
}

int rd_prefixes_add(rd_prefixes *p, const char *s, size_t len)
{
    if (len == 0)
        return 0;
    for (size_t i = 0; i < p->n; i++)
        if (p->len[i] == len && memcmp(p->v[i], s, len) == 0)
            return 0;
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 4;
        char **v = realloc(p->v, cap * sizeof *v);
        if (!v)
            return FPM_ENOMEM;
        p->v = v;
        size_t *l = realloc(p->len, cap * sizeof *l);
        if (!l)
            return FPM_ENOMEM;
        p->len = l;
        p->cap = cap;
    }
    char *c = malloc(len + 1);
    if (!c)
        return FPM_ENOMEM;
    memcpy(c, s, len);
    c[len] = '\0';
    p->v[p->n] = c;
    p->len[p->n++] = len;
    return 0;
}

void rd_prefixes_free(rd_prefixes *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->v[i]);
    free(p->v);
    free(p->len);
    memset(p, 0, sizeof *p);
}

static int is_idle(const status_worker *w)
{
    static const char idle[] = "idle";
    if (!w->has_state || w->state_len != 4)
        return 0;
    for (size_t i = 0; i < 4; i++) {
        char c = w->state[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != idle[i])
            return 0;
    }
    return 1;
}

int rd_own_uri(const rd_prefixes *own, const char *uri, size_t len)
{
    for (size_t i = 0; own && i < own->n; i++)
        if (len >= own->len[i] && memcmp(uri, own->v[i], own->len[i]) == 0)
            return 1;
    return 0;
}

static int is_own(const status_worker *w, const rd_prefixes *own)
{
    return w->has_uri && rd_own_uri(own, w->uri, w->uri_len);
}

rd_verdict rd_judge(const status_worker *w, pidmap *before, const rd_before *prev,
                    const rd_prefixes *own, int64_t *share)
{
    int64_t old;
    if (!w->has_pid || !w->has_requests || w->requests <= 0)
        return RD_NO_REQUEST;
    if (!is_idle(w))
        return RD_RUNNING;
    int known = pidmap_get(before, w->pid, &old);
    if (known && old == w->requests)
        return RD_REPEAT;
    int64_t start;
    if (!known && status_worker_start(w, &start) == 0 && start >= 0 &&
        !(prev && prev->has && start >= prev->real_s))
        return RD_PRIMED; /* its request may have finished before we watched */
    if (is_own(w, own))
        return RD_OWN;
    if (!w->has_duration)
        return RD_INVALID;
    if (w->duration < RD_MIN_DURATION_US)
        return RD_SHORT;
    if (!w->has_cpu || status_cpu_hundredths(w->cpu, w->cpu_len, share) != 0)
        return RD_INVALID;
    return RD_ACCEPTED;
}

int rd_page(const status_page *pg, pidmap *remembered, pidmap *scratch, const rd_before *prev,
            const rd_prefixes *own,
            void (*fn)(void *arg, const status_worker *w, rd_verdict v, int64_t share),
            void *arg)
{
    return rd_page_seek(pg, remembered, scratch, prev, own, fn, arg, 0, NULL);
}

int rd_page_seek(const status_page *pg, pidmap *remembered, pidmap *scratch,
                 const rd_before *prev, const rd_prefixes *own,
                 void (*fn)(void *arg, const status_worker *w, rd_verdict v, int64_t share),
                 void *arg, int uncertain, int *unsure)
{
    pidmap_clear(scratch);
    for (size_t i = 0; i < pg->nworkers; i++) {
        const status_worker *w = &pg->workers[i];
        int64_t share = 0, old;
        rd_verdict v = rd_judge(w, remembered, prev, own, &share);
        int rc = 0;
        if (unsure && v != RD_RUNNING && v != RD_NO_REQUEST &&
            (pidmap_get(remembered, w->pid, &old) ? old == RD_UNKNOWN : uncertain))
            *unsure = 1;
        if (v == RD_RUNNING) { /* its counter before, or seen running */
            int known = pidmap_get(remembered, w->pid, &old);
            int64_t keep = known ? old : uncertain ? RD_UNKNOWN : RD_SEEN_RUNNING;
            if (unsure && keep == RD_UNKNOWN)
                *unsure |= 2; /* an unknown is left in the map */
            rc = pidmap_put(scratch, w->pid, keep);
        }
        else if (v != RD_NO_REQUEST)
            rc = pidmap_put(scratch, w->pid, w->requests);
        else if (w->has_pid && w->has_requests && w->requests == 0)
            rc = pidmap_put(scratch, w->pid, 0); /* forked, nothing served: its first is new */
        if (rc != 0)
            return FPM_ENOMEM;
        if (fn)
            fn(arg, w, v, share);
    }
    pidmap_seal(scratch);
    pidmap_swap(remembered, scratch);
    return 0;
}
