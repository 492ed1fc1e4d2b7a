/* libFuzzer: php-fpm's configuration, written to a file of its own in an
 * empty folder (relative includes find nothing else there). */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fpmconf.h"

static char dir[] = "/tmp/fpmcpu-fuzzconf-XXXXXX", path[64];

static void cleanup(void)
{
    unlink(path);
    rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!path[0]) {
        if (!mkdtemp(dir))
            abort();
        snprintf(path, sizeof path, "%s/php-fpm.conf", dir);
        atexit(cleanup);
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    fwrite(data, 1, size, f);
    fclose(f);
    fpmconf c;
    char err[512];
    if (fpmconf_load(path, &c, err, sizeof err) == 0)
        fpmconf_free(&c);
    return 0;
}
