/* accessbench: what an ACCESS record of 1,000 access log lines costs the
 * recorder (recorder/tail.c reading them, recorder/logfile.c compressing
 * and writing them, flushed, as a round does), beside its floor: one pread
 * of those bytes and compressing them at the recorder's zstd level
 * (ZSTD_e_flush), nothing else.  Each round 1,000 lines of php-fpm's census
 * format (about 100 bytes each) are appended to a file first (not timed).
 * Prints the CPU time (user + system) per record of each, in microseconds,
 * the least of three tries of ROUNDS rounds, and the ratio.
 * usage: accessbench DIR [ROUNDS] */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "logfile.h"
#include "tail.h"

static double cpu_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void note(void *arg, const char *fmt, ...)
{
    (void)arg, (void)fmt;
}

/* 1,000 lines as php-fpm writes them, request i onwards */
static size_t lines(char *b, long i)
{
    size_t n = 0;
    for (int k = 0; k < 1000; k++, i++)
        n += (size_t)sprintf(b + n, "07/Dec/2026:00:%02ld:%02ld +0000 %ld GET "
                             "/product/%ld?ref=home&utm=%ld 200 %ld.%03ld %ld %ld.%02ld%%\n",
                             (i / 60) % 60, i % 60, 4000 + i % 40, i % 9000, i % 77,
                             20 + i % 400, i % 1000, 2048 + i % 512, i % 100, i % 100);
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    int rounds = argc > 2 ? atoi(argv[2]) : 200;
    char path[4096], logp[4096];
    snprintf(path, sizeof path, "%s/bench.access.log", argv[1]);
    snprintf(logp, sizeof logp, "%s/bench.fpmlog", argv[1]);
    char *b = malloc(1 << 20);
    double best_rec = 1e18, best_floor = 1e18;
    size_t bytes = 0;
    for (int tri = 0; tri < 3; tri++) {
        unlink(path);
        unlink(logp);
        int w = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
        tail_file t;
        char rep[256], err[256];
        logfile *lf = logfile_open(logp, 3, rep, sizeof rep, err, sizeof err);
        if (w < 0 || !lf || tail_start(&t, path, NULL, 0, note, NULL) != 0)
            return 1;
        unsigned char *buf = NULL;
        size_t cap = 0;
        double rec = 0, flo = 0;
        ZSTD_CCtx *z = ZSTD_createCCtx();
        ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, 3);
        char *rbuf = malloc(1 << 20), *zbuf = malloc(ZSTD_compressBound(1 << 20));
        int r = open(path, O_RDONLY);
        off_t pos = 0;
        for (int k = 0; k < rounds; k++) {
            size_t n = lines(b, (long)k * 1000);
            if (write(w, b, n) != (ssize_t)n)
                return 1;
            bytes = n;
            double t0 = cpu_us(); /* the recorder: tail, record, compress, write */
            long got = tail_read(&t, &buf, &cap, note, NULL);
            if (got != (long)n || logfile_add(lf, "ACCESS", 1, 1, "shop", 4, buf, (size_t)got) ||
                logfile_commit(lf, 0))
                return 1;
            double t1 = cpu_us(); /* the floor: one pread of the bytes, compressed, flushed */
            ssize_t m = pread(r, rbuf, n, pos);
            pos += m;
            ZSTD_inBuffer in = {rbuf, (size_t)m, 0};
            ZSTD_outBuffer out = {zbuf, ZSTD_compressBound(1 << 20), 0};
            while (ZSTD_compressStream2(z, &out, &in, ZSTD_e_flush) > 0)
                ;
            double t2 = cpu_us();
            rec += t1 - t0;
            flo += t2 - t1;
        }
        if (rec < best_rec)
            best_rec = rec;
        if (flo < best_floor)
            best_floor = flo;
        close(r);
        close(w);
        tail_close(&t);
        logfile_close(lf);
        ZSTD_freeCCtx(z);
        free(buf);
        free(rbuf);
        free(zbuf);
    }
    printf("%.1f %.1f %.2f %zu\n", best_rec / rounds, best_floor / rounds, best_rec / best_floor,
           bytes);
    unlink(path);
    unlink(logp);
    free(b);
    return 0;
}
