/* libFuzzer: a whole replay of the bytes as a log (plain records or zstd
 * frames, what the reader makes of them), through every rule of the
 * pipeline (MASTER, the joint fit, ...), then the JSON and text reports,
 * and the JSON must parse: no NaN or infinity, whatever the numbers in the
 * log.  Damage messages go to /dev/null. */
#define _GNU_SOURCE
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rc.h"
#include "msg.h"
#include "replay.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *quiet;
    if (!quiet && !(quiet = fopen("/dev/null", "w")))
        return 0;
    msg_stream(quiet);
    int fd = memfd_create("log", MFD_CLOEXEC);
    if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size)) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    pipeline *pl = pipeline_new(NULL);
    replay *r = pl ? replay_new(pl, 1) : NULL;
    if (r && replay_file(r, path, 0) != FPM_ENOMEM) {
        wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
        char *out = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&out, &len);
        if (m && report_print(m, report_format("json"), pl, &sc) == 0 && fclose(m) == 0) {
            json_error_t je;
            json_t *j = json_loadb(out, len, 0, &je);
            if (!j)
                __builtin_trap(); /* the JSON output must always parse */
            json_decref(j);
        } else if (m) {
            fclose(m);
        }
        free(out);
        out = NULL;
        m = open_memstream(&out, &len);
        if (m) {
            (void)report_print(m, report_format("text"), pl, &sc);
            fclose(m);
        }
        free(out);
    }
    replay_free(r);
    pipeline_free(pl);
    close(fd);
    msg_stream(NULL);
    return 0;
}
