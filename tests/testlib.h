/*
 * Helpers shared by the unit tests: byte buffers, files from bytes, and
 * builders for status pages, PIDS and STAT payloads in the layout the real
 * programs write (php-fpm 8.2, Linux).
 */
#ifndef TESTLIB_H
#define TESTLIB_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    char  *p;
    size_t n, cap;
} buf;

/* A fresh file name of our own in path (made by mkstemp from template
 * "/tmp/...-XXXXXX"), the file itself not there: 0, or -1. */
static inline int tl_fresh_name(char *path, size_t n, const char *template_)
{
    snprintf(path, n, "%s", template_);
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    close(fd);
    unlink(path);
    return 0;
}

/* The test's own directory, made by mkdtemp from template "/tmp/...-XXXXXX"
 * and removed, whole, by tl_dir_teardown even when an assertion stopped the
 * test first (make mutate's mutants do): tl_mkdtemp gives its path, or NULL.
 * At most 63 bytes. */
static inline char *tl_dir_slot(void)
{
    static char dir[64];
    return dir;
}
static inline char *tl_mkdtemp(const char *template_)
{
    char *d = tl_dir_slot();
    snprintf(d, 64, "%s", template_);
    return mkdtemp(d);
}
static inline int tl_dir_teardown(void **state)
{
    (void)state;
    char *d = tl_dir_slot();
    char rm[160];
    snprintf(rm, sizeof rm, "rm -rf -- '%s'", d); /* mkdtemp's name: no quote in it */
    int r = d[0] ? system(rm) : 0;
    d[0] = '\0';
    return r;
}

/* The words of line (cut in place at spaces) into argv, at most max - 1 of
 * them and a NULL after; how many. */
static inline int tl_split(char *line, char **argv, int max)
{
    int argc = 0;
    for (char *w = strtok(line, " "); w && argc < max - 1; w = strtok(NULL, " "))
        argv[argc++] = w;
    argv[argc] = NULL;
    return argc;
}

static inline void buf_add(buf *b, const void *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static inline void buf_printf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void buf_printf(buf *b, const char *fmt, ...)
{
    char tmp[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    buf_add(b, tmp, (size_t)n);
}

static inline void buf_free(buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* An unlinked temporary file holding bytes, positioned at 0. */
static inline int file_of(const void *p, size_t n)
{
    FILE *f = tmpfile();
    int fd = dup(fileno(f));
    fclose(f);
    if (n && write(fd, p, n) != (ssize_t)n)
        abort();
    lseek(fd, 0, SEEK_SET);
    return fd;
}

/* One worker of a status page. */
typedef struct {
    long long   pid;
    const char *state;     /* "Idle", "Running", ... */
    long long   requests;
    long long   duration;  /* microseconds */
    const char *uri;       /* as php-fpm writes it inside the quotes */
    const char *cpu;       /* `last request cpu` as written */
} tworker;

/* A full status page in php-fpm 8.2's byte layout.  Its workers started
 * in 2096, after any round of the tests: 12.4 primes them only in their
 * pool's first round. */
static inline void status_page_text(buf *b, const char *pool, long long listen_queue,
                                    const tworker *w, size_t n)
{
    buf_printf(b, "{\"pool\":\"%s\",\"process manager\":\"static\",\"start time\":1795987656,"
                  "\"start since\":4,\"accepted conn\":7,\"listen queue\":%lld,"
                  "\"max listen queue\":0,\"listen queue len\":0,\"idle processes\":2,"
                  "\"active processes\":1,\"total processes\":3,\"max active processes\":1,"
                  "\"max children reached\":0,\"slow requests\":0, \"processes\":[",
               pool, listen_queue);
    for (size_t i = 0; i < n; i++)
        buf_printf(b, "%s{\"pid\":%lld,\"state\":\"%s\",\"start time\":4000000000,"
                      "\"start since\":4,\"requests\":%lld,\"request duration\":%lld,"
                      "\"request method\":\"GET\",\"request uri\":\"%s\","
                      "\"content length\":0,\"user\":\"-\",\"script\":\"\\/srv\\/index.php\","
                      "\"last request cpu\":%s,\"last request memory\":2097152}",
                   i ? "," : "", w[i].pid, w[i].state, w[i].requests, w[i].duration,
                   w[i].uri, w[i].cpu);
    buf_add(b, "]}", 2);
}

/* One /proc/<pid>/stat line whose fields 14..17 sum to ticks. */
static inline void pid_stat_line(buf *b, long long pid, unsigned long long ticks)
{
    buf_printf(b, "%lld (php-fpm8.2) S 1 %lld %lld 0 -1 4194368 96 0 0 0 %llu %llu 0 0 20 0 "
                  "1 0 11692 206438400 1675 18446744073709551615 1 1 0 0 0 0 0 4096 84487 "
                  "1 0 0 17 0 0 0 0 0 0 1 1 1 1 1 1 1 0\n",
               pid, pid, pid, ticks - ticks / 4, ticks / 4);
}

/* A /proc/<pid>/stat line with its parent, own ticks (utime + stime),
 * children's ticks (cutime + cstime) and start time; start < 0 cuts the
 * line after field 17. */
static inline void proc_stat_line(buf *b, long long pid, long long ppid, unsigned long long own,
                                  unsigned long long child, long long start)
{
    buf_printf(b, "%lld (php-fpm8.2) S %lld %lld %lld 0 -1 4194368 96 0 0 0 %llu %llu %llu %llu",
               pid, ppid, pid, pid, own - own / 4, own / 4, child - child / 2, child / 2);
    if (start >= 0)
        buf_printf(b, " 20 0 1 0 %lld 206438400 1675 18446744073709551615 1 1 0", start);
    buf_add(b, "\n", 1);
}

/* /proc/stat's cpu lines with a given busy and idle total. */
static inline void stat_text(buf *b, unsigned long long busy, unsigned long long idle)
{
    /* user nice system idle iowait irq softirq steal guest guest_nice */
    buf_printf(b, "cpu  %llu 0 %llu %llu 77 0 0 0 0 0\ncpu0 1 0 1 1 0 0 0 0 0 0\n",
               busy - busy / 3, busy / 3, idle);
}

#endif
