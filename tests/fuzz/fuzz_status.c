/* libFuzzer: php-fpm's status page, however invalid its JSON. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "routes.h"
#include "status.h"

/* 19.1: a route is "-" or begins with "/", is at most RT_MAX_BYTES long and
 * is valid UTF-8, whatever the URI's bytes. */
static void route_holds(const status_worker *w)
{
    static const rt_params params = {{"route", "action", "q"}, {5, 6, 1}, 3};
    char out[RT_MAX_BYTES + 1];
    size_t n = rt_route_of(w->has_uri ? w->uri : NULL, w->has_uri ? w->uri_len : 0, &params,
                           out);
    if (n == 0 || n > RT_MAX_BYTES || (out[0] != '/' && !(n == 1 && out[0] == '-')))
        __builtin_trap();
    for (size_t i = 0; i < n;) {
        size_t l = esc_utf8_len((const unsigned char *)out + i, n - i);
        if (!l)
            __builtin_trap();
        i += l;
    }
}

/* The same worker, read by the fast and the general parser. */
static int same_worker(const status_worker *a, const status_worker *b)
{
#define SAME_STR(f, l) (a->f == NULL) == (b->f == NULL) && a->l == b->l && \
                       (!a->f || memcmp(a->f, b->f, a->l) == 0)
    return a->has_pid == b->has_pid && a->has_requests == b->has_requests &&
           a->has_duration == b->has_duration && a->has_state == b->has_state &&
           a->has_uri == b->has_uri && a->has_cpu == b->has_cpu &&
           (!a->has_pid || a->pid == b->pid) && (!a->has_requests || a->requests == b->requests) &&
           (!a->has_duration || a->duration == b->duration) && SAME_STR(state, state_len) &&
           SAME_STR(uri, uri_len) && SAME_STR(cpu, cpu_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static status_page page, general;
    int rc = status_parse(&page, (const char *)data, size);
    if (status_parse_as(&general, (const char *)data, size, 0) != rc)
        __builtin_trap(); /* the fast path never changes what a page says */
    if (rc == 0) {
        if (page.nworkers != general.nworkers ||
            page.has_listen_queue != general.has_listen_queue)
            __builtin_trap();
        for (size_t i = 0; i < page.nworkers; i++)
            if (!same_worker(&page.workers[i], &general.workers[i]))
                __builtin_trap();
    }
    if (rc == 0) {
        for (size_t i = 0; i < page.nworkers; i++) {
            int64_t v;
            const status_worker *w = &page.workers[i];
            if (w->has_cpu)
                (void)status_cpu_hundredths(w->cpu, w->cpu_len, &v);
            route_holds(w);
        }
    }
    char *red = NULL;
    size_t rl;
    if (status_redact_query((const char *)data, size, &red, &rl) == 0) {
        if (rl > size)
            __builtin_trap(); /* redacting never makes a page longer */
        free(red);
    }
    return 0;
}
