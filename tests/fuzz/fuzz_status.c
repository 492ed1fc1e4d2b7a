/* libFuzzer: php-fpm's status page, however invalid its JSON. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static status_page page;
    if (status_parse(&page, (const char *)data, size) == 0) {
        for (size_t i = 0; i < page.nworkers; i++) {
            int64_t v;
            const status_worker *w = &page.workers[i];
            if (w->has_cpu)
                (void)status_cpu_hundredths(w->cpu, w->cpu_len, &v);
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
