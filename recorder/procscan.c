/* Reading the process table, /proc and cgroup files. */
#define _POSIX_C_SOURCE 200809L
#include "procscan.h"

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
        return -1;
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
                return -1;
            }
            break;
        }
        n += (size_t)r;
    }
    close(fd);
    if (!b) {
        errno = ENOMEM;
        return -1;
    }
    b[n] = '\0';
    *out = b;
    *len = n;
    return 0;
}

static int add_worker(ps_table *t, pid_t pid, pid_t ppid, const char *pool, size_t pl)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        ps_worker *w = realloc(t->w, cap * sizeof *w);
        if (!w)
            return -1;
        t->w = w;
        t->cap = cap;
    }
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
    if (oom)
        errno = ENOMEM;
    return oom ? -1 : 0;
}

void ps_table_free(ps_table *t)
{
    free(t->w);
    memset(t, 0, sizeof *t);
}

size_t ps_pid_stats(const char *proc_root, const pid_t *pids, size_t n, char **buf,
                    size_t *len, size_t *cap)
{
    size_t got = 0;
    for (size_t i = 0; i < n; i++) {
        char path[4200], *b;
        size_t bl;
        snprintf(path, sizeof path, "%s/%d/stat", proc_root, (int)pids[i]);
        if (ps_read_file(path, &b, &bl) != 0)
            continue; /* it exited in between */
        if (bl == 0 || b[bl - 1] != '\n')
            b[bl++] = '\n'; /* room: ps_read_file keeps one byte for the NUL */
        if (*len + bl + 1 > *cap) {
            size_t nc = (*len + bl + 1) * 2;
            char *nb = realloc(*buf, nc);
            if (!nb) {
                free(b);
                break;
            }
            *buf = nb;
            *cap = nc;
        }
        memcpy(*buf + *len, b, bl);
        *len += bl;
        free(b);
        got++;
    }
    return got;
}

int ps_cpu_lines(const char *proc_root, char **out, size_t *len)
{
    char path[4200], *b;
    size_t n;
    snprintf(path, sizeof path, "%s/stat", proc_root);
    if (ps_read_file(path, &b, &n) != 0)
        return -1;
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
    *out = b;
    *len = o;
    return 0;
}

/* The cgroup2 mount point from proc_root/self/mountinfo, under sys_root. */
static int cgroup2_mount(const char *proc_root, const char *sys_root, char *out, size_t outlen)
{
    char path[4200], *b;
    size_t n;
    snprintf(path, sizeof path, "%s/self/mountinfo", proc_root);
    if (ps_read_file(path, &b, &n) == 0) {
        for (char *line = strtok(b, "\n"); line; line = strtok(NULL, "\n")) {
            char *sep = strstr(line, " - cgroup2 ");
            if (!sep)
                continue;
            char mp[4096];
            if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) == 1) {
                /* the mount point is under /sys: keep the part after it */
                const char *rest = strncmp(mp, "/sys", 4) == 0 ? mp + 4 : mp;
                snprintf(out, outlen, "%s%s", sys_root, rest);
                free(b);
                return 0;
            }
        }
        free(b);
    }
    snprintf(out, outlen, "%s/fs/cgroup", sys_root);
    return 0;
}

int ps_cgroup_dir(const char *proc_root, const char *sys_root, pid_t pid, char *dir,
                  size_t dirlen, char *rel, size_t rellen)
{
    char path[4200], *b;
    size_t n;
    snprintf(path, sizeof path, "%s/%d/cgroup", proc_root, (int)pid);
    if (ps_read_file(path, &b, &n) != 0)
        return -1;
    int rc = -1;
    for (char *line = strtok(b, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "0::", 3) != 0)
            continue;
        const char *cg = line + 3;
        if (strcmp(cg, "/") == 0 || cg[0] != '/')
            break;
        char mount[4200];
        cgroup2_mount(proc_root, sys_root, mount, sizeof mount);
        snprintf(dir, dirlen, "%s%s", mount, cg);
        snprintf(rel, rellen, "%s", cg);
        char probe[8400];
        snprintf(probe, sizeof probe, "%s/cpu.stat", dir);
        rc = access(probe, R_OK) == 0 ? 0 : -1;
        break;
    }
    free(b);
    return rc;
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
