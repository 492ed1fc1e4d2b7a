/* libFuzzer: a whole replay of the bytes as a log (plain records or zstd
 * frames, what the reader makes of them), through every rule of the
 * pipeline (MASTER, the joint fit, ...), then the JSON and text reports,
 * and the JSON must parse: no NaN or infinity, whatever the numbers in the
 * log.  Replayed alone and on threads, the JSON is the same.  Damage
 * messages go to /dev/null. */
#define _GNU_SOURCE
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rc.h"
#include "msg.h"
#include "replay.h"
#include "report.h"

/* The replay of path on threads (1: none), its JSON report in *out (NULL
 * when it ran out of memory or printed nothing). */
static void replay_json(const char *path, int threads, char **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    pipeline *pl = pipeline_new(NULL);
    replay *r = pl ? replay_new(pl, threads) : NULL;
    wi_scenario sc = {.headroom = WI_DEFAULT_HEADROOM};
    wi_answers a;
    if (r && replay_file(r, path, 0) != FPM_ENOMEM && replay_drain(r) == 0 &&
        whatif_answers(pl, &sc, &a) == 0) { /* the answers, as fpm-analyze decides them */
        FILE *m = open_memstream(out, len);
        if (m && report_print(m, report_format("json"), &a, &sc) == 0 && fclose(m) == 0) {
            json_error_t je;
            json_t *j = json_loadb(*out, *len, 0, &je);
            if (!j)
                __builtin_trap(); /* the JSON output must always parse */
            json_decref(j);
        } else {
            if (m)
                fclose(m);
            free(*out);
            *out = NULL;
        }
        if (threads == 1) {
            char *text = NULL;
            size_t tl = 0;
            m = open_memstream(&text, &tl);
            if (m) {
                (void)report_print(m, report_format("text"), &a, &sc);
                fclose(m);
            }
            free(text);
        }
        whatif_answers_free(&a);
    }
    replay_free(r);
    pipeline_free(pl);
}

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
    /* alone, then on threads (frames decoded ahead, rounds parsed on a
     * thread of their own, the reader's buffer handed over with each
     * round): the same JSON, byte for byte */
    char *one, *many;
    size_t one_len, many_len;
    replay_json(path, 1, &one, &one_len);
    replay_json(path, 5, &many, &many_len);
    if (one && many && (one_len != many_len || memcmp(one, many, one_len) != 0))
        __builtin_trap();
    free(one);
    free(many);
    close(fd);
    msg_stream(NULL);
    return 0;
}
