/* Reading the process table, /proc and cgroup files. */
#define _POSIX_C_SOURCE 200809L
#include "procscan.h"
#include "rc.h"

#include "grow.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

int ps_read_file(const char *path, char **out, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return FPM_EFAIL;
    size_t cap = 4096, n = 0;
    char *b = malloc(cap + 1);
    for (;;) {
        if (!b)
            break;
        if (n == cap) {
            char *nb = realloc(b, cap * 2 + 1);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, b + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r < 0) {
                int e = errno;
                free(b);
                close(fd);
                errno = e;
                return FPM_EFAIL;
            }
            break;
        }
        n += (size_t)r;
    }
    close(fd);
    if (!b) {
        errno = ENOMEM;
        return FPM_ENOMEM;
    }
    b[n] = '\0';
    *out = b;
    *len = n;
    return 0;
}

static int add_worker(ps_table *t, pid_t pid, pid_t ppid, const char *pool, size_t pl)
{
    if (grow(&t->w, &t->cap, t->n + 1, sizeof *t->w, 64))
        return -1;
    ps_worker *w = &t->w[t->n++];
    w->pid = pid;
    w->ppid = ppid;
    if (pl >= sizeof w->pool)
        pl = sizeof w->pool - 1;
    memcpy(w->pool, pool, pl);
    w->pool[pl] = '\0';
    return 0;
}

static pid_t parent_of(const char *proc_root, pid_t pid)
{
    char path[4200], *b;
    size_t n;
    snprintf(path, sizeof path, "%s/%d/stat", proc_root, (int)pid);
    if (ps_read_file(path, &b, &n) != 0)
        return 0;
    pid_t ppid = 0;
    char *close = strrchr(b, ')');
    if (close)
        sscanf(close + 1, " %*c %d", &ppid);
    free(b);
    return ppid;
}

int ps_scan(const char *proc_root, ps_table *t)
{
    t->n = 0;
    t->master = 0;
    t->any_fpm = 0;
    DIR *d = opendir(proc_root);
    if (!d)
        return -1;
    struct dirent *e;
    int oom = 0;
    static const char pool_prefix[] = "php-fpm: pool ";
    while ((e = readdir(d))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        char path[4200], *cmd;
        size_t n;
        snprintf(path, sizeof path, "%s/%ld/cmdline", proc_root, pid);
        if (ps_read_file(path, &cmd, &n) != 0)
            continue;
        /* php-fpm rewrites its argv: the title, then NULs or spaces */
        size_t len = strnlen(cmd, n);
        while (len > 0 && cmd[len - 1] == ' ')
            len--;
        if (len > sizeof pool_prefix - 1 && memcmp(cmd, pool_prefix, sizeof pool_prefix - 1) == 0) {
            t->any_fpm = 1;
            if (add_worker(t, (pid_t)pid, parent_of(proc_root, (pid_t)pid),
                           cmd + sizeof pool_prefix - 1, len - (sizeof pool_prefix - 1)) != 0)
                oom = 1; /* a table with workers missing is no table */
        } else if (len > 24 && memcmp(cmd, "php-fpm: master process", 23) == 0) {
            t->any_fpm = 1;
            if (!t->master)
                t->master = (pid_t)pid;
        }
        free(cmd);
    }
    closedir(d);
    if (!oom && ps_table_index(t) != 0)
        oom = 1;
    if (oom) {
        t->n = 0; /* a table with workers missing is no table */
        errno = ENOMEM;
    }
    return oom ? -1 : 0;
}

int ps_table_index(ps_table *t)
{
    size_t *idx = realloc(t->by_pid, (t->n ? t->n : 1) * sizeof *idx);
    if (!idx)
        return FPM_ENOMEM;
    t->by_pid = idx;
    for (size_t i = 0; i < t->n; i++) { /* in pid order: readdir's, nearly, so cheap */
        size_t j = i;
        while (j > 0 && t->w[idx[j - 1]].pid > t->w[i].pid) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = i;
    }
    return 0;
}

const ps_worker *ps_find(const ps_table *t, pid_t pid)
{
    size_t lo = 0, hi = t->by_pid ? t->n : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->w[t->by_pid[mid]].pid < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < (t->by_pid ? t->n : 0) && t->w[t->by_pid[lo]].pid == pid ? &t->w[t->by_pid[lo]]
                                                                         : NULL;
}

void ps_table_free(ps_table *t)
{
    free(t->w);
    free(t->by_pid);
    memset(t, 0, sizeof *t);
}

struct ps_fd {
    pid_t pid;
    int   fd, used;
};

/* The kept descriptor of pid, opened now if need be; -1 when it cannot be
 * opened.  *kept says whether it stays open. */
static int stat_fd(ps_stat_fds *c, const char *proc_root, pid_t pid, int *kept)
{
    size_t lo = 0, hi = c ? c->n : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->e[mid].pid < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (c && lo < c->n && c->e[lo].pid == pid) {
        c->e[lo].used = 1;
        *kept = 1;
        return c->e[lo].fd;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/%d/%s", proc_root, (int)pid, c && c->file ? c->file : "stat");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    *kept = 0;
    if (fd < 0 || !c || c->n >= c->max)
        return fd;
    if (grow(&c->e, &c->cap, c->n + 1, sizeof *c->e, 64))
        return fd;
    memmove(c->e + lo + 1, c->e + lo, (c->n - lo) * sizeof *c->e);
    c->e[lo] = (struct ps_fd){pid, fd, 1};
    c->n++;
    *kept = 1;
    return fd;
}

/* Forgets pid's descriptor (its process is gone). */
static void stat_fd_drop(ps_stat_fds *c, pid_t pid)
{
    for (size_t i = 0; c && i < c->n; i++)
        if (c->e[i].pid == pid) {
            close(c->e[i].fd);
            memmove(c->e + i, c->e + i + 1, (c->n - i - 1) * sizeof *c->e);
            c->n--;
            return;
        }
}

size_t ps_pid_stats(ps_stat_fds *fds, const char *proc_root, const pid_t *pids, size_t n,
                    char **buf, size_t *len, size_t *cap)
{
    size_t got = 0;
    for (size_t i = 0; i < n; i++) {
        if (*cap - *len < 4096 + 32) { /* room for a pid and a stat line, read in place */
            size_t nc = (*cap + 4096 + 32) * 2;
            char *nb = realloc(*buf, nc);
            if (!nb)
                break;
            *buf = nb;
            *cap = nc;
        }
        ssize_t r = -1;
        size_t pre = fds && fds->pid_first
                         ? (size_t)snprintf(*buf + *len, 32, "%d ", (int)pids[i]) : 0;
        for (int attempt = 0; attempt < 2 && r <= 0; attempt++) {
            int kept, fd = stat_fd(fds, proc_root, pids[i], &kept);
            if (fd < 0)
                break; /* it exited in between */
            do
                r = pread(fd, *buf + *len + pre, 4096, 0);
            while (r < 0 && errno == EINTR);
            if (!kept)
                close(fd);
            if (r <= 0 && kept)
                stat_fd_drop(fds, pids[i]); /* that process is gone: its pid may be
                                             * another's now, opened afresh */
            else
                break;
        }
        if (r <= 0)
            continue;
        size_t bl = pre + (size_t)r;
        if ((*buf)[*len + bl - 1] != '\n')
            (*buf)[*len + bl++] = '\n';
        *len += bl;
        got++;
    }
    if (*buf)
        (*buf)[*len] = '\0';
    return got;
}

void ps_stat_fds_sweep(ps_stat_fds *c)
{
    size_t o = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (!c->e[i].used) {
            close(c->e[i].fd);
            continue;
        }
        c->e[i].used = 0;
        c->e[o++] = c->e[i];
    }
    c->n = o;
}

void ps_stat_fds_free(ps_stat_fds *c)
{
    for (size_t i = 0; i < c->n; i++)
        close(c->e[i].fd);
    free(c->e);
    memset(c, 0, sizeof *c);
}

size_t ps_cpu_lines_in(char *b, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        char *nl = memchr(b + i, '\n', n - i);
        size_t ll = nl ? (size_t)(nl - (b + i)) + 1 : n - i;
        if (ll >= 3 && memcmp(b + i, "cpu", 3) == 0) {
            memmove(b + o, b + i, ll);
            o += ll;
        }
        i += ll;
    }
    b[o] = '\0';
    return o;
}

int ps_cpu_lines(const char *proc_root, char **out, size_t *len)
{
    char path[4200], *b;
    size_t n;
    snprintf(path, sizeof path, "%s/stat", proc_root);
    if (ps_read_file(path, &b, &n) != 0)
        return -1;
    *out = b;
    *len = ps_cpu_lines_in(b, n);
    return 0;
}

int ps_kept_set(ps_kept *k, const char *dir, const char *file)
{
    size_t dl = strlen(dir), fl = strlen(file);
    char *p = malloc(dl + fl + 2);
    if (!p)
        return FPM_ENOMEM;
    memcpy(p, dir, dl);
    p[dl] = '/';
    memcpy(p + dl + 1, file, fl + 1);
    if (k->open)
        close(k->fd);
    k->open = 0;
    free(k->path);
    k->path = p;
    return 0;
}

/* The file from offset 0 into k->buf, grown until a read leaves room (a
 * whole /proc file is made at once, so a read that fills the buffer is
 * made again into a larger one).  Its length, or -1 with errno. */
static long kept_pread(ps_kept *k)
{
    for (size_t need = 4096;; need = k->cap * 2) {
        if (need > ((size_t)1 << 30)) {
            errno = EFBIG; /* no file read this way is that large */
            return -1;
        }
        if (grow(&k->buf, &k->cap, need, 1, 4096)) {
            errno = ENOMEM;
            return -1;
        }
        ssize_t r;
        do
            r = pread(k->fd, k->buf, k->cap - 1, 0);
        while (r < 0 && errno == EINTR);
        if (r < 0)
            return -1;
        if ((size_t)r < k->cap - 1) {
            k->buf[r] = '\0';
            return (long)r;
        }
    }
}

long ps_kept_read(ps_kept *k)
{
    if (!k->path) {
        errno = ENOENT;
        return -1;
    }
    for (int attempt = 0; attempt < 2; attempt++) {
        if (!k->open) {
            if ((k->fd = open(k->path, O_RDONLY | O_CLOEXEC)) < 0)
                return -1;
            k->open = 1;
        }
        long n = kept_pread(k);
        if (n >= 0 || errno == ENOMEM || errno == EFBIG)
            return n;
        int e = errno; /* the file went away under the descriptor: open it again */
        close(k->fd);
        k->open = 0;
        errno = e;
    }
    return -1;
}

void ps_kept_free(ps_kept *k)
{
    if (k->open)
        close(k->fd);
    free(k->path);
    free(k->buf);
    memset(k, 0, sizeof *k);
}

static void first_line(const char *path, char *out, size_t outlen, const char *dflt)
{
    char *b;
    size_t n;
    snprintf(out, outlen, "%s", dflt);
    if (ps_read_file(path, &b, &n) != 0)
        return;
    b[strcspn(b, "\n")] = '\0';
    if (b[0])
        snprintf(out, outlen, "%s", b);
    free(b);
}

void ps_host_facts(const char *proc_root, const char *sys_root, ps_host *h)
{
    char path[4200];
    struct utsname u;
    memset(h, 0, sizeof *h);
    if (gethostname(h->hostname, sizeof h->hostname - 1) != 0 || !h->hostname[0])
        strcpy(h->hostname, "-");
    snprintf(path, sizeof path, "%s/sys/kernel/random/boot_id", proc_root);
    first_line(path, h->boot_id, sizeof h->boot_id, "-");
    snprintf(h->kernel, sizeof h->kernel, "%s", uname(&u) == 0 ? u.release : "-");
    snprintf(path, sizeof path, "%s/devices/system/clocksource/clocksource0/current_clocksource",
             sys_root);
    first_line(path, h->clocksource, sizeof h->clocksource, "-");
    h->nproc = sysconf(_SC_NPROCESSORS_ONLN);
    h->clk_tck = sysconf(_SC_CLK_TCK);
}
