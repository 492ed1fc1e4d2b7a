/*
 * procscan: what fpm-record reads from the machine: the php-fpm workers in
 * the process table, their /proc/<pid>/stat lines, /proc/stat, kept files
 * (the cgroup's among them, found by cgroups.h), and the HOST facts.  Every
 * path is under a root (normally "/proc" and "/sys"), so tests point it at fixture trees.
 * Nothing prints.
 */
#ifndef PROCSCAN_H
#define PROCSCAN_H

#include <stddef.h>
#include <sys/types.h>

typedef struct {
    pid_t pid, ppid;
    char  pool[128];
} ps_worker;

typedef struct {
    ps_worker *w;
    size_t     n, cap;
    size_t    *by_pid;      /* indices of w in pid order, for ps_find */
    pid_t      master;      /* a "php-fpm: master process" seen, or 0 */
    int        any_fpm;     /* any php-fpm process was visible */
} ps_table;

/* Scans proc_root for processes whose command line is "php-fpm: pool NAME"
 * (and the master).  0 ok, -1 when proc_root cannot be listed or memory ran
 * out (the table is then not to be trusted). */
int ps_scan(const char *proc_root, ps_table *t);
void ps_table_free(ps_table *t);

/* Makes the pid index of t->w (ps_scan does); 0, or FPM_ENOMEM. */
int ps_table_index(ps_table *t);

/* The table's worker with that pid, or NULL. */
const ps_worker *ps_find(const ps_table *t, pid_t pid);

/* Reads a whole small file into a malloc'd, NUL-terminated buffer.  0 ok,
 * FPM_EFAIL with errno set (it cannot be opened or read), FPM_ENOMEM. */
int ps_read_file(const char *path, char **out, size_t *len);

/* The workers' stat files (or another file of theirs: file, "schedstat"),
 * kept open from round to round: a read is then one pread.  A descriptor
 * stays bound to the process it was opened for, so once that process exits
 * the read fails and a reused pid is opened afresh.  At most max are kept
 * (the rest are opened and closed). */
typedef struct {
    struct ps_fd *e;         /* sorted by pid */
    size_t        n, cap, max;
    const char   *file;      /* the file of /proc/<pid>/ read; NULL: "stat" */
    int           pid_first; /* each line begins with the pid and a space */
} ps_stat_fds;

/* Appends the /proc/<pid>/stat line (with its newline) of each pid to *buf
 * (malloc'd, grown), or fds's file with the pid first; pids that exited are
 * left out.  fds may be NULL (each stat file opened and closed).  Returns
 * how many were read. */
size_t ps_pid_stats(ps_stat_fds *fds, const char *proc_root, const pid_t *pids, size_t n,
                    char **buf, size_t *len, size_t *cap);

/* Closes the descriptors no ps_pid_stats used since the last sweep (workers
 * that are gone); ps_stat_fds_free closes them all. */
void ps_stat_fds_sweep(ps_stat_fds *fds);
void ps_stat_fds_free(ps_stat_fds *fds);

/* The lines of /proc/stat that begin with "cpu".  0 ok, -1. */
int ps_cpu_lines(const char *proc_root, char **out, size_t *len);

/* Keeps only those lines of the n bytes at b (in place); their length. */
size_t ps_cpu_lines_in(char *b, size_t n);

/* A small file read every round (/proc/stat, the pressure and cgroup CPU
 * files) through a descriptor kept open: one pread from offset 0, into a
 * buffer kept too.  A read that fails opens the file again once (a cgroup
 * removed and made again).  A zeroed ps_kept is empty. */
typedef struct {
    char  *path;
    int    fd, open;
    char  *buf;              /* the last read, NUL-terminated */
    size_t cap;
} ps_kept;

/* Points k at dir/file, closing what it had open; 0, or FPM_ENOMEM. */
int ps_kept_set(ps_kept *k, const char *dir, const char *file);

/* Reads the whole file into k->buf: its length, or -1 with errno. */
long ps_kept_read(ps_kept *k);

/* Closes and frees; k is empty again. */
void ps_kept_free(ps_kept *k);

typedef struct {
    char     hostname[256], boot_id[64], kernel[128], clocksource[64];
    long     nproc, clk_tck;
} ps_host;

/* The HOST facts, read from the machine (never assumed). */
void ps_host_facts(const char *proc_root, const char *sys_root, ps_host *h);

#endif
