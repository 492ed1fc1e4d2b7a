/* genlog: a long fpmlog for make bench, fast: HOURS hours of POOLS pools of
 * WORKERS workers at INTERVAL s on a CPUS-core host, zstd frames ended
 * as the recorder ends them by default: after the round that brings the
 * frame to 4 MiB of records, or an hour.  Deterministic (its own LCG).
 * A log written to a regular file ends with its index, as one the recorder
 * closed (GENLOG_NOINDEX=1: without, as one still being written).
 * GENLOG_ACCESS=N: each pool has an access log in the census's format
 * (docs/rules.md 20.7) and N requests a second, an ACCESS record a round.
 * usage: genlog HOURS POOLS WORKERS INTERVAL CPUS > LOG */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "accessfmt.h"
#include "fpmidx.h"
#include "fpmlog.h"

static uint64_t seed = 88172645463325252ull;

static uint32_t rnd(uint32_t n)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return (uint32_t)(seed % n);
}

typedef struct {
    char  *p;
    size_t n, cap;
} text;

static void add(text *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(t->p + t->n, t->cap - t->n, fmt, ap);
        va_end(ap);
        if ((size_t)k < t->cap - t->n) {
            t->n += (size_t)k;
            return;
        }
        t->cap = t->cap * 2 + (size_t)k + 4096;
        if (!(t->p = realloc(t->p, t->cap)))
            exit(2);
    }
}

typedef struct {
    long long requests, ticks;
    int       running, cpu;   /* cpu in hundredths */
    long long duration;
} worker;

static void out(fpmlog_writer *w, const char *type, uint64_t mono, const char *src,
                const text *t)
{
    if (fpmlog_write(w, type, mono, 1795990000000000000ull + mono, src, src ? strlen(src) : 0,
                     t->p, t->n) != 0) {
        perror("genlog");
        exit(2);
    }
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: genlog HOURS POOLS WORKERS INTERVAL CPUS > LOG\n");
        return 2;
    }
    long hours = atol(argv[1]), pools = atol(argv[2]), workers = atol(argv[3]);
    long interval = atol(argv[4]), cpus = atol(argv[5]);
    fpmlog_writer *w = fpmlog_writer_new(1, 3);
    worker *wk = calloc((size_t)(pools * workers), sizeof *wk);
    text t = {0};
    char name[32];
    uint64_t mono = 1000000000ull;
    add(&t, "format=1\nrecorder=genlog 1\nhostname=bench1\nboot_id=b\nkernel=6.1\nnproc=%ld\n"
            "clk_tck=100\ninterval_ms=%ld\ncpu_quota_millicores=0\ncgroup=-\nclocksource=tsc\n",
        cpus, interval * 1000);
    out(w, "HOST", mono, NULL, &t);
    const char *acc = getenv("GENLOG_ACCESS");
    long per_s = acc ? atol(acc) : 0;
    for (long p = 0; p < pools; p++) {
        t.n = 0;
        snprintf(name, sizeof name, "pool%02ld", p);
        add(&t, "name=%s\nendpoint=unix:/run/php/%s.sock\nstatus_path=/status\npm=static\n"
                "max_children=%ld\nown_uri=/status\n", name, name, workers);
        if (per_s > 0)
            add(&t, "access_log=/var/log/php/%s.access.log\naccess_format=%s\n", name,
                AF_CENSUS_FORMAT);
        out(w, "POOL", mono, name, &t);
    }
    static const char *const route[] = {"GET /product/%u?ref=home", "GET /category/%u",
                                        "POST /cart", "GET /cart", "GET /search?q=red+shoes",
                                        "GET /api/v2/orders/%u"};
    unsigned long long busy = 0, idle = 0;
    long rounds = hours * 3600 / interval;
    long per_frame = (long)(FPMLOG_FRAME_NS / 1000000000ull) / interval; /* as the recorder */
    if (getenv("GENLOG_HOURLY")) /* make bench: the frames of the recorder before */
        per_frame = 3600 / interval;
    if (per_frame < 1)
        per_frame = 1;
    for (long r = 1; r <= rounds; r++) {
        mono += (uint64_t)interval * 1000000000ull + rnd(30000000);
        long long pool_ticks = 0;
        for (long p = 0; p < pools; p++) {
            snprintf(name, sizeof name, "pool%02ld", p);
            t.n = 0;
            add(&t, "{\"pool\":\"%s\",\"process manager\":\"static\",\"start time\":1795987656,"
                    "\"start since\":%ld,\"accepted conn\":%ld,\"listen queue\":%u,"
                    "\"max listen queue\":3,\"listen queue len\":511,\"idle processes\":%ld,"
                    "\"active processes\":%ld,\"total processes\":%ld,\"max active processes\":%ld,"
                    "\"max children reached\":0,\"slow requests\":0, \"processes\":[",
                name, r * interval, r * 40, rnd(20) == 0 ? rnd(5) : 0, workers / 2,
                workers / 2, workers, workers);
            for (long k = 0; k < workers; k++) {
                worker *x = &wk[p * workers + k];
                long long n = rnd(4), spent = n * (5 + rnd(20));
                x->requests += n;
                x->ticks += spent;
                pool_ticks += spent;
                x->running = rnd(3) == 0;
                x->duration = x->running ? rnd(90000) : 50000 + rnd(900000);
                x->cpu = x->running ? 0 : 1000 + (int)rnd(9000);
                add(&t, "%s{\"pid\":%ld,\"state\":\"%s\",\"start time\":1795987656,"
                        "\"start since\":%ld,\"requests\":%lld,\"request duration\":%lld,"
                        "\"request method\":\"GET\",\"request uri\":\"\\/product\\/%u?ref=home"
                        "&utm_source=newsletter\",\"content length\":0,\"user\":\"-\","
                        "\"script\":\"\\/srv\\/www\\/shop\\/public\\/index.php\","
                        "\"last request cpu\":%d.%02d,\"last request memory\":%u}",
                    k ? "," : "", 10000 + p * 1000 + k, x->running ? "Running" : "Idle",
                    r * interval, x->requests, x->duration, rnd(5000), x->cpu / 100,
                    x->cpu % 100, 2097152 * (1 + rnd(8)));
            }
            add(&t, "]}");
            out(w, "STATUS", mono + 1000000, name, &t);
            t.n = 0;
            for (long k = 0; k < workers; k++) {
                const worker *x = &wk[p * workers + k];
                add(&t, "%ld (php-fpm8.2) S 1 %ld %ld 0 -1 4194368 96 0 0 0 %lld %lld 0 0 20 0 "
                        "1 0 11692 206438400 1675 18446744073709551615 1 1 0 0 0 0 0 4096 "
                        "84487 1 0 0 17 0 0 0 0 0 0 1 1 1 1 1 1 1 0\n",
                    10000 + p * 1000 + k, 10000 + p * 1000, 10000 + p * 1000,
                    x->ticks - x->ticks / 4, x->ticks / 4);
            }
            out(w, "PIDS", mono + 1500000, name, &t);
            if (per_s <= 0)
                continue;
            t.n = 0; /* what the pool's access log gained: N a second */
            for (long i = 0; i < per_s * interval; i++) {
                const char *rt = route[rnd(6)];
                unsigned ms = 5 + rnd(400), id = rnd(100000);
                add(&t, "07/Dec/2026:00:%02ld:%02ld +0000 %ld ", (r * interval / 60) % 60,
                    (r * interval) % 60, 10000 + p * 1000 + (long)rnd((uint32_t)workers));
                add(&t, rt, id);
                add(&t, " 200 %u.%03u %u %u.%02u%%\n", ms, rnd(1000), 2048 * (1 + rnd(8)),
                    rnd(100), rnd(100));
            }
            out(w, "ACCESS", mono + 1700000, name, &t);
        }
        unsigned long long cap = (unsigned long long)(cpus * interval * 100);
        unsigned long long b = (unsigned long long)pool_ticks * 13 / 10 + 200 + rnd(200);
        b = b < cap ? b : cap; /* the host's busy ticks: the pools' and some overhead */
        busy += b;
        idle += cap - b;
        t.n = 0;
        add(&t, "cpu  %llu 0 %llu %llu 1000 0 500 0 0 0\n", busy - busy / 4, busy / 4, idle);
        for (long c = 0; c < cpus; c++)
            add(&t, "cpu%ld %llu 0 %llu %llu 10 0 5 0 0 0\n", c, (busy - busy / 4) / (unsigned long long)cpus,
                busy / 4 / (unsigned long long)cpus, idle / (unsigned long long)cpus);
        out(w, "STAT", mono + 2000000, NULL, &t);
        t.n = 0;
        add(&t, "some avg10=1.00 avg60=1.00 avg300=1.00 total=%lld\n"
                "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", r * 300000);
        out(w, "PRESSURE", mono + 2000000, NULL, &t);
        t.n = 0;
        add(&t, "seq=%ld\ntook_us=%u\nself_cpu_us=%ld\n", r, 3000 + rnd(2000), r * 5000);
        out(w, "ROUND", mono + 2100000, NULL, &t);
        int end = r % per_frame == 0 || fpmlog_writer_frame_bytes(w) >= FPMLOG_FRAME_BYTES;
        if (end ? fpmlog_writer_end_frame(w) : fpmlog_writer_flush(w)) {
            perror("genlog");
            return 2;
        }
    }
    if (fpmlog_writer_end_frame(w) != 0)
        return 2;
    fpmlog_writer_free(w);
    const char *noindex = getenv("GENLOG_NOINDEX");
    int rw = noindex && *noindex == '1' ? -1 : open("/proc/self/fd/1", O_RDWR | O_CLOEXEC);
    if (rw >= 0 && fpmidx_append(rw, 0) == -1) { /* a pipe is not indexed */
        perror("genlog: index");
        return 2;
    }
    free(wk);
    free(t.p);
    return 0;
}
