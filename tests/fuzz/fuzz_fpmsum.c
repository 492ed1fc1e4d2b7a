/* libFuzzer: frame summaries and the windows that trust them.  The bytes
 * are read once as a summary alone (fpmsum_read, its pools and records
 * visited), then as a log file indexed for a window and replayed through
 * it, jumping where the summaries allow (seek.c, the reader's skip, the
 * replay's jump), as fpm-analyze --from/--until does.  Nothing may crash,
 * leak or read out of bounds, whatever the summaries claim. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fpmsum.h"
#include "msg.h"
#include "replay.h"
#include "seek.h"
#include "window.h"

static int on_pool(void *arg, const char *name, size_t len)
{
    (void)name;
    *(size_t *)arg += len;
    return 0;
}

static int on_record(void *arg, const fpmlog_record *rec)
{
    *(size_t *)arg += rec->len;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *quiet;
    static fpmsum_reader *sr;
    if ((!quiet && !(quiet = fopen("/dev/null", "w"))) || (!sr && !(sr = fpmsum_reader_new())))
        return 0;
    msg_stream(quiet);
    fpmsum s;
    size_t seen = 0;
    fpmsum_visit v = {on_pool, on_record, &seen};
    (void)fpmsum_read(sr, data, size, &s, &v);

    int fd = memfd_create("log", MFD_CLOEXEC);
    if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size)) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    char *logs[1] = {path};
    /* the middle of the fixtures' and seeds' hours */
    pl_options opt = {.has_from = 1, .from_ns = 1795990300ull * 1000000000ull,
                      .has_until = 1, .until_ns = 1795990600ull * 1000000000ull};
    seek *sk = window_plan(&opt, logs, 1);
    msg_stream(quiet); /* the planning gave the messages back to stderr */
    pipeline *pl = pipeline_new(&opt);
    replay *r = pl ? replay_new(pl, 1) : NULL;
    if (r && sk)
        replay_set_seek(r, sk);
    if (r)
        (void)replay_file(r, path, 0);
    replay_free(r);
    pipeline_free(pl);
    seek_free(sk);
    close(fd);
    msg_stream(NULL);
    return 0;
}
