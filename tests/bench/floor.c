/* floor: what any recorder of php-fpm's workers must spend each round, for
 * make bench to set fpm-record beside: one pread each of every worker's
 * /proc/PID/stat, statm and schedstat, kept open, and a second of its statm
 * (the recorder reads it on both sides of the status page: STATM0 and
 * STATM, docs/rules.md 14.1); with --status, one FastCGI request of each
 * pool's full status page (GET PATH?json&full on the unix socket given: a
 * connection, the request, the answer read to its end); with --level, the
 * round's bytes (the files' and the pages') compressed at that zstd level
 * and flushed, as a round is; nothing else.  The workers are the children
 * of the masters given.  Prints the CPU time (user + system, getrusage) per
 * round of ROUNDS rounds 100 ms apart (as the recorder, it finds caches
 * cooled between rounds), in microseconds, the least of three tries, and
 * how many workers.
 * usage: floor ROUNDS [--level N] [--status SOCKET:PATH]... MASTER_PID... */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <zstd.h>

static long cpu_us(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000L + ru.ru_utime.tv_usec +
           ru.ru_stime.tv_usec;
}

/* A FastCGI record's header and a name-value pair (short lengths) */
static size_t rec(unsigned char *b, int type, size_t len)
{
    unsigned char h[8] = {1, (unsigned char)type, 0, 1, (unsigned char)(len >> 8),
                          (unsigned char)len, 0, 0};
    memcpy(b, h, 8);
    return 8;
}

static size_t nv(unsigned char *b, const char *k, const char *v)
{
    size_t kl = strlen(k), vl = strlen(v);
    b[0] = (unsigned char)kl;
    b[1] = (unsigned char)vl;
    memcpy(b + 2, k, kl);
    memcpy(b + 2 + kl, v, vl);
    return 2 + kl + vl;
}

/* One status page over FastCGI, its answer (records and all) appended to
 * out at *len; the bytes read, or -1. */
static long status_page(const char *sock, const char *path, unsigned char *out, size_t cap,
                        size_t *len)
{
    unsigned char q[1024], params[900];
    size_t pl = 0, ql = 0;
    pl += nv(params + pl, "SCRIPT_NAME", path);
    pl += nv(params + pl, "SCRIPT_FILENAME", path);
    pl += nv(params + pl, "QUERY_STRING", "json&full");
    pl += nv(params + pl, "REQUEST_METHOD", "GET");
    static const unsigned char begin[8] = {0, 1, 0, 0, 0, 0, 0, 0}; /* responder, close */
    ql += rec(q + ql, 1, 8);
    memcpy(q + ql, begin, 8);
    ql += 8;
    ql += rec(q + ql, 4, pl);
    memcpy(q + ql, params, pl);
    ql += pl;
    ql += rec(q + ql, 4, 0);
    ql += rec(q + ql, 5, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(sock) >= sizeof a.sun_path)
        return -1;
    memcpy(a.sun_path, sock, strlen(sock) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        write(fd, q, ql) != (ssize_t)ql) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    long got = 0;
    ssize_t r;
    while ((r = read(fd, out + *len, cap - *len)) > 0) {
        *len += (size_t)r;
        got += r;
    }
    close(fd);
    return got;
}

int main(int argc, char **argv)
{
    static int fds[4 * 65536];
    static char buf[4096];
    static const char *const files[4] = {"statm", "stat", "statm", "schedstat"};
    const char *status[64];
    int nstatus = 0, level = -1;
    while (argc > 3 && argv[2][0] == '-') { /* options after ROUNDS */
        if (strcmp(argv[2], "--level") == 0)
            level = atoi(argv[3]);
        else if (strcmp(argv[2], "--status") == 0 && nstatus < 64)
            status[nstatus++] = argv[3];
        else
            break;
        memmove(argv + 2, argv + 4, (size_t)(argc - 4) * sizeof *argv);
        argc -= 2;
    }
    int n = 0, rounds = argc > 2 ? atoi(argv[1]) : 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d)) && n + 4 <= (int)(sizeof fds / sizeof fds[0])) {
        char p[300];
        long ppid = 0;
        snprintf(p, sizeof p, "/proc/%s/stat", e->d_name);
        FILE *f = e->d_name[0] >= '1' && e->d_name[0] <= '9' ? fopen(p, "r") : NULL;
        if (f && fgets(buf, sizeof buf, f) && strrchr(buf, ')'))
            ppid = strtol(strrchr(buf, ')') + 4, NULL, 10);
        if (f)
            fclose(f);
        for (int i = 2; ppid && i < argc; i++)
            if (ppid == atol(argv[i]))
                for (int k = 0; k < 4; k++) {
                    snprintf(p, sizeof p, "/proc/%s/%s", e->d_name, files[k]);
                    if ((fds[n] = open(p, O_RDONLY | O_CLOEXEC)) >= 0)
                        n++;
                }
    }
    if (d)
        closedir(d);
    if (rounds < 1 || n == 0) {
        fprintf(stderr, "usage: floor ROUNDS MASTER_PID... (the masters' workers)\n");
        return 2;
    }
    size_t cap = (size_t)n * sizeof buf + (size_t)nstatus * (16u << 20);
    unsigned char *round = level >= 0 ? malloc(cap) : NULL, *z = NULL;
    size_t zcap = level >= 0 ? ZSTD_compressBound(cap) : 0;
    ZSTD_CCtx *cc = level >= 0 ? ZSTD_createCCtx() : NULL;
    if (level >= 0 && (!round || !(z = malloc(zcap)) || !cc ||
                       ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, level))))
        return 1;
    long best = -1;
    for (int t = 0; t < 3; t++) {
        long c0 = cpu_us();
        for (int r = 0; r < rounds; r++) {
            size_t len = 0;
            for (int k = 0; k < nstatus; k++) { /* SOCKET:PATH */
                char sock[4096];
                const char *colon = strrchr(status[k], ':');
                snprintf(sock, sizeof sock, "%.*s", colon ? (int)(colon - status[k]) : 0,
                         status[k]);
                static unsigned char page[16u << 20];
                size_t pl = 0;
                if (!colon || status_page(sock, colon + 1, round ? round : page,
                                          round ? cap : sizeof page, round ? &len : &pl) < 0)
                    return 1;
            }
            for (int i = 0; i < n; i++) {
                ssize_t got = pread(fds[i], round ? (char *)round + len : buf, sizeof buf, 0);
                if (got < 0)
                    return 1;
                len += round ? (size_t)got : 0;
            }
            if (cc) { /* the round's bytes, compressed and flushed */
                ZSTD_inBuffer in = {round, len, 0};
                ZSTD_outBuffer out = {z, zcap, 0};
                while (ZSTD_compressStream2(cc, &out, &in, ZSTD_e_flush) > 0)
                    ;
            }
            usleep(100000);
        }
        long c = (cpu_us() - c0) / rounds;
        if (best < 0 || c < best)
            best = c;
    }
    printf("%ld %d\n", best, n / 4);
    return 0;
}
