/* Where php-fpm's master runs, as its cgroups bound it (docs/rules.md 16). */
#define _POSIX_C_SOURCE 200809L
#include "cgroups.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"
#include "procscan.h"
#include "rc.h"

static const char *const CTRL_NAME[CG_NCTRL] = {"cpu", "cpuacct", "memory"};

/* Whether the comma-separated list s (n bytes) holds word. */
static int has_item(const char *s, size_t n, const char *word)
{
    size_t wl = strlen(word);
    for (size_t i = 0; i <= n;) {
        size_t j = i;
        while (j < n && s[j] != ',')
            j++;
        if (j - i == wl && memcmp(s + i, word, wl) == 0)
            return 1;
        i = j + 1;
    }
    return 0;
}

/* One mount of mountinfo: the mount's root and point (fields 4 and 5), its
 * file system type and super options (after " - "). */
typedef struct {
    char root[4096], point[4096], type[64], opts[4096];
} mount_line;

static int parse_mount(const char *line, mount_line *m)
{
    const char *sep = strstr(line, " - ");
    char src[4096];
    return sep && sscanf(line, "%*s %*s %*s %4095s %4095s", m->root, m->point) == 2 &&
           sscanf(sep + 3, "%63s %4095s %4095s", m->type, src, m->opts) == 3 ? 0 : -1;
}

/* The folder of cgroup path cg on the mount m, under sys_root: the mount
 * point's part past /sys, and the path past the mount's root. */
static void folder(const char *sys_root, const mount_line *m, const char *cg, char *out, size_t n)
{
    const char *point = strncmp(m->point, "/sys", 4) == 0 ? m->point + 4 : m->point;
    size_t rl = strlen(m->root);
    if (strcmp(m->root, "/") != 0 && strncmp(cg, m->root, rl) == 0)
        cg += rl;
    snprintf(out, n, "%s%s%s", sys_root, point, cg);
}

/* The v2 folder needs cpu.stat to be there: a cgroup without the cpu
 * controller says nothing of CPU. */
static void v2_place(const char *sys_root, const char *mounts, const char *path, cg_place *cg)
{
    char *copy = strdup(mounts);
    mount_line m;
    int found = 0;
    for (char *l = copy ? strtok(copy, "\n") : NULL; l; l = strtok(NULL, "\n"))
        if (parse_mount(l, &m) == 0 && strcmp(m.type, "cgroup2") == 0) {
            found = 1;
            break;
        }
    free(copy);
    if (!found) { /* no mountinfo to go by: the usual place */
        strcpy(m.root, "/");
        strcpy(m.point, "/sys/fs/cgroup");
    }
    char d[4200], probe[8400];
    folder(sys_root, &m, path, d, sizeof d);
    snprintf(probe, sizeof probe, "%s/cpu.stat", d);
    if (access(probe, R_OK) != 0)
        return;
    for (int k = 0; k < CG_NCTRL; k++)
        snprintf(cg->dir[k], sizeof cg->dir[k], "%s", d);
    snprintf(cg->rel, sizeof cg->rel, "%s", path);
}

/* A v1 controller's folder: the cgroup line that names it, on the cgroup
 * (v1) mount whose super options name it; its cgroup path into path when
 * path is not NULL. */
static int v1_place(const char *sys_root, const char *mounts, const char *lines, int k,
                    char *out, size_t n, char *path, size_t pathlen)
{
    char *copy = strdup(lines);
    const char *cgpath = NULL;
    for (char *l = copy ? strtok(copy, "\n") : NULL; l && !cgpath; l = strtok(NULL, "\n")) {
        char *c1 = strchr(l, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (c2 && c2 > c1 + 1 && has_item(c1 + 1, (size_t)(c2 - c1 - 1), CTRL_NAME[k]))
            cgpath = c2 + 1;
    }
    int rc = -1;
    if (cgpath) {
        if (path)
            snprintf(path, pathlen, "%s", cgpath);
        char *mc = strdup(mounts);
        mount_line m;
        for (char *l = mc ? strtok(mc, "\n") : NULL; l; l = strtok(NULL, "\n"))
            if (parse_mount(l, &m) == 0 && strcmp(m.type, "cgroup") == 0 &&
                has_item(m.opts, strlen(m.opts), CTRL_NAME[k])) {
                if (strcmp(cgpath, "/") != 0)
                    folder(sys_root, &m, cgpath, out, n);
                rc = 0;
                break;
            }
        free(mc);
    }
    free(copy);
    return rc;
}

int cg_find(const char *proc_root, const char *sys_root, pid_t pid, cg_place *cg)
{
    char path[4200], *lines, *mounts = NULL;
    size_t n;
    memset(cg, 0, sizeof *cg);
    strcpy(cg->rel, "-");
    snprintf(path, sizeof path, "%s/%d/cgroup", proc_root, (int)pid);
    int rc = ps_read_file(path, &lines, &n);
    if (rc != 0)
        return rc;
    snprintf(path, sizeof path, "%s/self/mountinfo", proc_root);
    if ((rc = ps_read_file(path, &mounts, &n)) == FPM_ENOMEM) {
        free(lines);
        return rc;
    }
    if (rc != 0)
        mounts = NULL;
    const char *mi = mounts ? mounts : "";
    char cpupath[4200];
    if (v1_place(sys_root, mi, lines, CG_CPU, cg->dir[CG_CPU], sizeof cg->dir[CG_CPU], cpupath,
                 sizeof cpupath) == 0) {
        cg->version = 1;
        if (cg->dir[CG_CPU][0])
            snprintf(cg->rel, sizeof cg->rel, "%s", cpupath);
        for (int k = CG_CPUACCT; k < CG_NCTRL; k++)
            (void)v1_place(sys_root, mi, lines, k, cg->dir[k], sizeof cg->dir[k], NULL, 0);
    } else {
        for (char *l = strtok(lines, "\n"); l; l = strtok(NULL, "\n"))
            if (strncmp(l, "0::", 3) == 0) {
                cg->version = 2;
                if (l[3] == '/' && l[4])
                    v2_place(sys_root, mi, l + 3, cg);
                break;
            }
    }
    free(mounts);
    free(lines);
    return 0;
}

/* The whole of dir/file into a buffer of n bytes; its length, or -1. */
static long small_file(const char *dir, const char *file, char *buf, size_t n)
{
    char path[8400], *b;
    size_t len;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (ps_read_file(path, &b, &len) != 0)
        return -1;
    len = len < n - 1 ? len : n - 1;
    memcpy(buf, b, len);
    buf[len] = '\0';
    free(b);
    return (long)len;
}

uint64_t cg_quota(const cg_place *cg)
{
    const char *d = cg->dir[CG_CPU];
    char q[128], p[128];
    long ql, pl;
    uint64_t mc = 0;
    if (!d[0])
        return 0;
    if (cg->version == 2) {
        if ((ql = small_file(d, "cpu.max", q, sizeof q)) < 0 ||
            procfs_cgroup_max(q, (size_t)ql, &mc) != 0)
            return 0;
    } else if ((ql = small_file(d, "cpu.cfs_quota_us", q, sizeof q)) < 0 ||
               (pl = small_file(d, "cpu.cfs_period_us", p, sizeof p)) < 0 ||
               procfs_cfs_quota(q, (size_t)ql, p, (size_t)pl, &mc) != 0) {
        return 0;
    }
    return mc;
}

int cg_cpus(const char *proc_root, pid_t pid, char *out, size_t outlen)
{
    char path[4200], *b;
    size_t n;
    snprintf(out, outlen, "-");
    snprintf(path, sizeof path, "%s/%d/status", proc_root, (int)pid);
    if (ps_read_file(path, &b, &n) != 0)
        return -1;
    int rc = -1;
    for (char *l = strtok(b, "\n"); l; l = strtok(NULL, "\n")) {
        if (strncmp(l, "Cpus_allowed_list:", 18) != 0)
            continue;
        const char *v = l + 18;
        v += strspn(v, " \t");
        procfs_cpuset set;
        /* the kernel's own list; anything else is not written */
        if (procfs_cpulist(v, strlen(v), &set) == 0 && strlen(v) < outlen) {
            snprintf(out, outlen, "%s", v);
            rc = 0;
        }
        break;
    }
    free(b);
    return rc;
}

/* A file's first line into out (without its newline), when it is printable
 * text that fits; 0, or -1 with out unchanged. */
static int first_line(const char *path, char *out, size_t n)
{
    char *b;
    size_t len;
    if (ps_read_file(path, &b, &len) != 0)
        return -1;
    size_t l = 0;
    while (l < len && b[l] != '\n')
        l++;
    int ok = l > 0 && l < n;
    for (size_t i = 0; ok && i < l; i++)
        ok = (unsigned char)b[i] >= 0x20 && b[i] != 0x7f;
    if (ok) {
        memcpy(out, b, l);
        out[l] = '\0';
    }
    free(b);
    return ok ? 0 : -1;
}

void cg_sched_of(const char *proc_root, pid_t pid, const cg_place *cg, cg_sched *out)
{
    char path[8400], v[128];
    strcpy(out->autogroup, "-");
    strcpy(out->weight, "-");
    strcpy(out->weight_kind, "-");
    strcpy(out->controller, "-");
    snprintf(path, sizeof path, "%s/sys/kernel/sched_autogroup_enabled", proc_root);
    int off = first_line(path, v, sizeof v) == 0 && strcmp(v, "0") == 0;
    snprintf(path, sizeof path, "%s/%d/autogroup", proc_root, (int)pid);
    if (!off && pid > 0)
        (void)first_line(path, out->autogroup, sizeof out->autogroup);
    const char *d = cg->dir[CG_CPU];
    if (cg->version == 1)
        strcpy(out->controller, d[0] ? "1" : "0");
    if (!d[0] || (cg->version != 1 && cg->version != 2))
        return;
    snprintf(path, sizeof path, "%s/%s", d, cg->version == 2 ? "cpu.weight" : "cpu.shares");
    uint64_t w;
    if (first_line(path, v, sizeof v) == 0 && procfs_first_u64(v, strlen(v), &w) == 0) {
        snprintf(out->weight, sizeof out->weight, "%llu", (unsigned long long)w);
        strcpy(out->weight_kind, cg->version == 2 ? "weight" : "shares");
    }
    if (cg->version == 2) {
        snprintf(path, sizeof path, "%s/cgroup.controllers", d);
        char *b;
        size_t len;
        if (ps_read_file(path, &b, &len) == 0) {
            int has = 0;
            for (size_t i = 0; i + 3 <= len; i++)
                if (memcmp(b + i, "cpu", 3) == 0 && (i == 0 || b[i - 1] == ' ') &&
                    (i + 3 == len || b[i + 3] == ' ' || b[i + 3] == '\n'))
                    has = 1;
            strcpy(out->controller, has ? "1" : "0");
            free(b);
        }
    }
}
