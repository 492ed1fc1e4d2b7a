/* floor: what any recorder of php-fpm's workers must spend each round, for
 * make bench to set fpm-record beside: one pread each of every worker's
 * /proc/PID/stat, statm and schedstat, kept open, and a second of its statm
 * (the recorder reads it on both sides of the status page: STATM0 and
 * STATM, docs/rules.md 14.1), and nothing else.  The
 * workers are the children of the masters given.  Prints the CPU time
 * (user + system, getrusage) per round of ROUNDS rounds 100 ms apart (as
 * the recorder, it finds caches cooled between rounds), in microseconds,
 * the least of three tries, and how many workers.
 * usage: floor ROUNDS MASTER_PID... */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static long cpu_us(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000L + ru.ru_utime.tv_usec +
           ru.ru_stime.tv_usec;
}

int main(int argc, char **argv)
{
    static int fds[4 * 65536];
    static char buf[4096];
    static const char *const files[4] = {"statm", "stat", "statm", "schedstat"};
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
    long best = -1;
    for (int t = 0; t < 3; t++) {
        long c0 = cpu_us();
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < n; i++)
                if (pread(fds[i], buf, sizeof buf, 0) < 0)
                    return 1;
            usleep(100000);
        }
        long c = (cpu_us() - c0) / rounds;
        if (best < 0 || c < best)
            best = c;
    }
    printf("%ld %d\n", best, n / 4);
    return 0;
}
