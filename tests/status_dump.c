/* status_dump FILE: prints what the status parser reads from a page, one
 * line per worker, bytes outside printable ASCII as \xHH.  Exit 0 for a
 * status page, 3 for none, 2 for usage.  For the integration tests. */
#include <stdio.h>
#include <stdlib.h>

#include "status.h"

static void show(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c >= 0x7F || c == '\\')
            printf("\\x%02x", c);
        else
            putchar(c);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: status_dump FILE\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    static char buf[16 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    status_page pg = {0};
    int rc = status_parse(&pg, buf, n);
    if (rc != 0) {
        printf("no status page\n");
        return 3;
    }
    printf("listen_queue=%lld workers=%zu\n", pg.has_listen_queue ? (long long)pg.listen_queue : -1,
           pg.nworkers);
    for (size_t i = 0; i < pg.nworkers; i++) {
        const status_worker *w = &pg.workers[i];
        int64_t h = -1;
        int cv = w->has_cpu ? status_cpu_hundredths(w->cpu, w->cpu_len, &h) : -1;
        printf("pid=%lld state=", w->has_pid ? (long long)w->pid : -1);
        show(w->state ? w->state : "?", w->state ? w->state_len : 1);
        printf(" requests=%lld duration=%lld cpu=%lld%s uri=",
               w->has_requests ? (long long)w->requests : -1,
               w->has_duration ? (long long)w->duration : -1, (long long)h,
               cv == 0 ? "" : cv == 1 ? "(negative)" : "(invalid)");
        show(w->uri ? w->uri : "?", w->uri ? w->uri_len : 1);
        putchar('\n');
    }
    status_page_free(&pg);
    return 0;
}
