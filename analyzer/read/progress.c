/* The replay's progress line: see progress.h. */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <stdio.h>
#include <time.h>

#include "msg.h"

double progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void progress_show(const char *path, uint64_t done, uint64_t total, double rate, uint64_t rounds)
{
    char of[64] = " MB";
    if (total)
        snprintf(of, sizeof of, " of %.1f MB (%.0f%%)", (double)total / 1e6,
                 100.0 * (double)done / (double)total);
    msg_progress("%s: %.1f%s, %.1f MB/s, %llu rounds", path, (double)done / 1e6, of, rate / 1e6,
                 (unsigned long long)rounds);
}
