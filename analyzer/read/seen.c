/* Which rounds each file held: logs given twice or out of order. */
#include "seen.h"
#include "rc.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "msg.h"
#include "escape.h"

/* Where a file's rounds of one host and boot lie on that boot's clock. */
typedef struct {
    char    *host, *boot;
    uint64_t file;             /* its index among the files */
    char    *path;
    uint64_t mono_min, mono_max, real_max;
} seen_span;

struct seen {
    seen_span *span;
    size_t     n, cap;
    char      *host, *boot;    /* the host in force in the file being read */
    int        warned;         /* this file was warned about for this host */
};

static void clear_host(seen *s)
{
    free(s->host);
    free(s->boot);
    s->host = s->boot = NULL;
}

seen *seen_new(void)
{
    return calloc(1, sizeof(seen));
}

void seen_free(seen *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        free(s->span[i].host);
        free(s->span[i].boot);
        free(s->span[i].path);
    }
    free(s->span);
    clear_host(s);
    free(s);
}

static char *dup_n(const char *v, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, v ? v : "", v ? n : 0);
        d[v ? n : 0] = '\0';
    }
    return d;
}

int seen_host(seen *s, const char *host, size_t host_len, const char *boot, size_t boot_len)
{
    clear_host(s);
    s->warned = 0;
    s->host = dup_n(host, host ? host_len : 0);
    s->boot = dup_n(boot, boot ? boot_len : 0);
    return s->host && s->boot ? 0 : FPM_ENOMEM;
}

void seen_file_end(seen *s)
{
    s->warned = 0;
}

/* The spans of earlier files that this round of the host in force lies
 * inside (given twice) or before (out of order), and this file's own. */
static void compare(seen *s, uint64_t file, uint64_t mono, uint64_t real, seen_span **mine,
                    seen_span **twice, seen_span **back)
{
    for (size_t i = 0; i < s->n; i++) {
        seen_span *x = &s->span[i];
        if (strcmp(x->host, s->host) != 0)
            continue;
        int same_boot = strcmp(x->boot, s->boot) == 0;
        if (x->file == file) {
            if (same_boot)
                *mine = x;
            continue;
        }
        if (same_boot && mono >= x->mono_min && mono <= x->mono_max)
            *twice = x;
        else if (same_boot ? mono < x->mono_max : real < x->real_max)
            *back = x;
    }
}

int seen_round(seen *s, uint64_t file, const char *path, uint64_t mono, uint64_t real)
{
    if (!s->host)
        return 0;
    seen_span *mine = NULL, *back = NULL, *twice = NULL;
    compare(s, file, mono, real, &mine, &twice, &back);
    if ((twice || back) && !s->warned) {
        char *hn = esc_display_name(s->host, strlen(s->host), NULL);
        if (twice)
            msg_warnx("%s: its rounds of %s repeat rounds already read from %s: the same log "
                      "given twice? (they are counted again)", path, hn, twice->path);
        else
            msg_warnx("%s: its rounds of %s go back in time after %s: logs given out of order? "
                      "(give them oldest first, such as LOG.1 LOG)", path, hn, back->path);
        free(hn);
        s->warned = 1;
    }
    if (!mine) {
        if (grow(&s->span, &s->cap, s->n + 1, sizeof *s->span, 8))
            return FPM_ENOMEM;
        mine = &s->span[s->n];
        *mine = (seen_span){strdup(s->host), strdup(s->boot), file, strdup(path), mono, mono,
                            real};
        if (!mine->host || !mine->boot || !mine->path) {
            free(mine->host);
            free(mine->boot);
            free(mine->path);
            return FPM_ENOMEM;
        }
        s->n++;
    }
    if (mono < mine->mono_min)
        mine->mono_min = mono;
    if (mono > mine->mono_max)
        mine->mono_max = mono;
    if (real > mine->real_max)
        mine->real_max = real;
    return 0;
}
