/* Parsers for /proc/stat, /proc/<pid>/stat and the cgroups' cpu files. */
#define _GNU_SOURCE /* memrchr */
#include "procfs.h"

#include <stdint.h>
#include <string.h>

/* The line of buf at *i, without its '\n', in *line and *ll; *i moves past
 * it.  0 when no line is left. */
static int next_line(const char *buf, size_t len, size_t *i, const char **line, size_t *ll)
{
    if (*i >= len)
        return 0;
    *line = buf + *i;
    const char *nl = memchr(*line, '\n', len - *i);
    *ll = nl ? (size_t)(nl - *line) : len - *i;
    *i += *ll + 1;
    return 1;
}

/* Reads an unsigned decimal at *i (after spaces); 0 ok, -1 none there or
 * one that does not fit.  *i moves past what was read.  (Locals, not *i,
 * in the loops: a char store may alias *i and would be reloaded per byte.) */
static inline int next_u64(const char *b, size_t n, size_t *i, uint64_t *v)
{
    size_t j = *i;
    while (j < n && b[j] == ' ')
        j++;
    size_t s = j;
    uint64_t x = 0;
    while (j < n && (unsigned char)(b[j] - '0') <= 9)
        x = x * 10 + (uint64_t)(b[j++] - '0'); /* 19 digits always fit */
    *i = j;
    if (j == s)
        return -1;
    if (j - s >= 20) { /* 20 or more: read again, checking each step */
        x = 0;
        for (size_t k = s; k < j; k++) {
            uint64_t d = (uint64_t)(b[k] - '0');
            if (x > (UINT64_MAX - d) / 10)
                return -1; /* a number that does not fit is invalid */
            x = x * 10 + d;
        }
    }
    *v = x;
    return 0;
}

/* A signed field of /proc/<pid>/stat (cutime, cstime are `long`). */
static inline int next_i64(const char *b, size_t n, size_t *i, int64_t *v)
{
    size_t j = *i;
    while (j < n && b[j] == ' ')
        j++;
    int neg = j < n && b[j] == '-';
    j += (size_t)neg;
    *i = j;
    if (neg && (j >= n || (unsigned char)(b[j] - '0') > 9))
        return -1; /* a sign stands right before its digits */
    uint64_t u;
    if (next_u64(b, n, i, &u) != 0 || u > (uint64_t)INT64_MAX + neg)
        return -1;
    *v = neg ? (u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u) : (int64_t)u;
    return 0;
}

static inline void skip_field(const char *b, size_t n, size_t *i)
{
    size_t j = *i;
    while (j < n && b[j] == ' ')
        j++;
    while (j < n && b[j] != ' ' && b[j] != '\n')
        j++;
    *i = j;
}

/* The first line of buf that begins with key and a space ("KEY ..."), in
 * *line and *ll; 0 when there is none. */
static int keyed_line(const char *buf, size_t len, const char *key, const char **line,
                      size_t *ll)
{
    size_t i = 0, kl = strlen(key);
    while (next_line(buf, len, &i, line, ll))
        if (*ll > kl && memcmp(*line, key, kl) == 0 && (*line)[kl] == ' ')
            return 1;
    return 0;
}

/* The numbers of the line NAME (`cpu` is the aggregate), up to 8; how
 * many, or -1 when there is no such line. */
static int cpu_line_of(const char *buf, size_t len, const char *name, uint64_t f[8])
{
    const char *line;
    size_t ll, j = strlen(name);
    if (!keyed_line(buf, len, name, &line, &ll))
        return -1;
    int got = 0;
    memset(f, 0, 8 * sizeof *f);
    while (got < 8 && next_u64(line, ll, &j, &f[got]) == 0)
        got++;
    return got;
}

static int cpu_line(const char *buf, size_t len, uint64_t f[8])
{
    return cpu_line_of(buf, len, "cpu", f);
}

/* The sum of the fields listed, or -1 when it does not fit. */
static int sum_fields(const uint64_t f[8], const int *which, int n, uint64_t *sum)
{
    uint64_t s = 0;
    for (int k = 0; k < n; k++) {
        if (f[which[k]] > UINT64_MAX - s)
            return -1;
        s += f[which[k]];
    }
    *sum = s;
    return 0;
}

int procfs_stat_busy(const char *buf, size_t len, uint64_t *busy)
{
    uint64_t f[8];
    if (cpu_line(buf, len, f) < 4)
        return -1;
    /* user nice system idle iowait irq softirq steal */
    static const int busy_fields[6] = {0, 1, 2, 5, 6, 7};
    return sum_fields(f, busy_fields, 6, busy);
}

int procfs_stat_steal_of(const char *buf, size_t len, const char *name, uint64_t *steal,
                         uint64_t *total)
{
    uint64_t f[8];
    static const int all[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    if (cpu_line_of(buf, len, name, f) < 8 || sum_fields(f, all, 8, total) != 0)
        return -1;
    *steal = f[7];
    return 0;
}

int procfs_stat_steal(const char *buf, size_t len, uint64_t *steal, uint64_t *total)
{
    return procfs_stat_steal_of(buf, len, "cpu", steal, total);
}

/* Of the 8 bytes in x, those equal to c, flagged by their bit 7 (exact: no
 * carry runs from one byte into the next). */
static inline uint64_t bytes_equal(uint64_t x, unsigned char c)
{
    const uint64_t lo7 = 0x7f7f7f7f7f7f7f7fULL;
    uint64_t t = x ^ (0x0101010101010101ULL * c);
    return ~(((t & lo7) + lo7) | t | lo7);
}

/* skip_field `fields` times from i, 8 bytes at a time, for the line it was
 * made for: single spaces, the first at i, no '\n' before the last.  Where
 * the space after the last field skipped is, or SIZE_MAX for any other line
 * (skipped field by field). */
static size_t skip_fast(const char *b, size_t n, size_t i, unsigned fields)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (i >= n || b[i] != ' ')
        return SIZE_MAX;
    unsigned left = fields + 1; /* spaces to pass, the one at i included */
    uint64_t last = 0;       /* the previous 8 bytes ended in a space */
    for (; i + 8 <= n; i += 8) {
        uint64_t x;
        memcpy(&x, b + i, 8);
        uint64_t sp = bytes_equal(x, ' ');
        if (bytes_equal(x, '\n') || (sp & ((sp << 8) | last)))
            return SIZE_MAX; /* two spaces together, or the line's end */
        unsigned c = (unsigned)(((sp >> 7) * 0x0101010101010101ULL) >> 56); /* bytes flagged */
        if (c >= left) {
            while (--left)
                sp &= sp - 1; /* drop the spaces before the one wanted */
            return i + (size_t)__builtin_ctzll(sp) / 8;
        }
        left -= c;
        last = sp >> 63 << 7;
    }
#else
    (void)b, (void)n, (void)i, (void)fields;
#endif
    return SIZE_MAX;
}


/* A time field, counted 0 when negative (cutime, cstime are `long`). */
static int time_field(const char *b, size_t n, size_t *i, uint64_t *v)
{
    int64_t t;
    if (next_i64(b, n, i, &t) != 0)
        return -1;
    *v = t > 0 ? (uint64_t)t : 0;
    return 0;
}

int procfs_proc_stat(const char *line, size_t len, procfs_proc *p)
{
    size_t i = 0;
    int64_t pid, ppid;
    if (next_i64(line, len, &i, &pid) != 0 || pid <= 0)
        return -1;
    const char *close = i < len ? memrchr(line + i, ')', len - i) : NULL; /* comm's end */
    if (!close)
        return -1;
    i = (size_t)(close - line) + 1;
    skip_field(line, len, &i); /* 3: state */
    size_t at4 = i;
    if (next_i64(line, len, &i, &ppid) != 0 || (i < len && line[i] != ' ')) {
        ppid = -1; /* not a number: no parent known, the times still read */
        i = at4;
        skip_field(line, len, &i);
    }
    size_t fast = skip_fast(line, len, i, 9);
    if (fast != SIZE_MAX)
        i = fast;
    else
        for (int f = 5; f <= 13; f++)
            skip_field(line, len, &i);
    uint64_t t[4];
    for (int k = 0; k < 4; k++)
        if (time_field(line, len, &i, &t[k]) != 0)
            return -1;
    uint64_t sum = 0;
    for (int k = 0; k < 4; k++) {
        if (t[k] > (uint64_t)INT64_MAX - sum)
            return -1; /* the sum must fit in int64, as procfs_pid_stat's */
        sum += t[k];
    }
    size_t fast18 = skip_fast(line, len, i, 4);
    if (fast18 != SIZE_MAX)
        i = fast18;
    else
        for (int f = 18; f <= 21; f++)
            skip_field(line, len, &i);
    int64_t start, rss = -1;
    size_t at = i;
    int has_start = next_i64(line, len, &at, &start) == 0 && start >= 0;
    if (has_start) { /* 23 vsize, 24 rss (pages) */
        skip_field(line, len, &at);
        if (next_i64(line, len, &at, &rss) != 0 || rss < 0)
            rss = -1;
    }
    *p = (procfs_proc){pid, ppid, sum, t[2] + t[3],
                       has_start ? start : -1, rss};
    return 0;
}

int procfs_pid_stat(const char *line, size_t len, int64_t *pid, uint64_t *ticks)
{
    procfs_proc p;
    if (procfs_proc_stat(line, len, &p) != 0)
        return -1;
    *pid = p.pid;
    *ticks = p.ticks;
    return 0;
}

size_t procfs_each_pid(const char *buf, size_t len,
                       void (*fn)(void *arg, const procfs_proc *p), void *arg)
{
    size_t bad = 0, i = 0;
    const char *line;
    size_t ll;
    while (next_line(buf, len, &i, &line, &ll)) {
        procfs_proc p;
        if (ll > 0) {
            if (procfs_proc_stat(line, ll, &p) == 0)
                fn(arg, &p);
            else
                bad++;
        }
    }
    return bad;
}

int procfs_flat_key(const char *buf, size_t len, const char *key, uint64_t *v)
{
    const char *line;
    size_t ll, j = strlen(key);
    return keyed_line(buf, len, key, &line, &ll) ? next_u64(line, ll, &j, v) : -1;
}

int procfs_statm(const char *line, size_t len, int64_t *pid, uint64_t *resident,
                 uint64_t *shared)
{
    uint64_t f[8];
    size_t i = 0, k = 0;
    while (i < len && k < 8) {
        if (line[i] == ' ') {
            i++;
            continue;
        }
        if (next_u64(line, len, &i, &f[k]) != 0 || (i < len && line[i] != ' '))
            return -1; /* a field that is not a plain non-negative integer */
        k++;
    }
    while (i < len && line[i] == ' ')
        i++;
    if (k != 8 || i != len || f[0] == 0 || f[0] > INT64_MAX || f[3] > f[2])
        return -1;
    *pid = (int64_t)f[0];
    *resident = f[2];
    *shared = f[3];
    return 0;
}

int procfs_meminfo(const char *buf, size_t len, const char *key, uint64_t *bytes)
{
    uint64_t kb;
    if (procfs_flat_key(buf, len, key, &kb) != 0 || kb > UINT64_MAX / 1024)
        return -1;
    *bytes = kb * 1024;
    return 0;
}

int procfs_cgroup_usage(const char *buf, size_t len, uint64_t *usage)
{
    return procfs_flat_key(buf, len, "usage_usec", usage);
}

int procfs_pressure_some(const char *buf, size_t len, uint64_t *total)
{
    size_t i = 0;
    const char *line;
    size_t ll;
    while (next_line(buf, len, &i, &line, &ll)) {
        if (ll > 5 && memcmp(line, "some ", 5) == 0) {
            for (size_t j = 5; j + 6 <= ll; j++)
                if (memcmp(line + j, "total=", 6) == 0 && line[j - 1] == ' ') {
                    size_t k = j + 6;
                    if (k < ll && line[k] >= '0' && line[k] <= '9')
                        return next_u64(line, ll, &k, total);
                    return -1;
                }
            return -1;
        }
    }
    return -1;
}

int procfs_cgroup_max(const char *buf, size_t len, uint64_t *millicores)
{
    size_t i = 0;
    uint64_t quota, period;
    if (len >= 3 && memcmp(buf, "max", 3) == 0) {
        *millicores = 0;
        return 0;
    }
    if (next_u64(buf, len, &i, &quota) != 0 || next_u64(buf, len, &i, &period) != 0 ||
        period == 0 || quota > UINT64_MAX / 1000)
        return -1;
    *millicores = quota * 1000 / period;
    return 0;
}

int procfs_cfs_quota(const char *quota, size_t ql, const char *period, size_t pl,
                     uint64_t *millicores)
{
    size_t i = 0, j = 0;
    uint64_t q, per;
    while (i < ql && quota[i] == ' ')
        i++;
    if (i + 2 <= ql && memcmp(quota + i, "-1", 2) == 0 &&
        (i + 2 == ql || quota[i + 2] == '\n')) {
        *millicores = 0;
        return 0;
    }
    if (next_u64(quota, ql, &i, &q) != 0 || next_u64(period, pl, &j, &per) != 0 || per == 0 ||
        q > UINT64_MAX / 1000)
        return -1;
    *millicores = q * 1000 / per;
    return 0;
}

int procfs_first_u64(const char *buf, size_t len, uint64_t *v)
{
    size_t i = 0;
    return next_u64(buf, len, &i, v);
}

int procfs_cpulist(const char *s, size_t len, procfs_cpuset *set)
{
    size_t i = 0;
    memset(set, 0, sizeof *set);
    while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == ' '))
        len--;
    if (len == 0)
        return -1;
    for (;;) {
        uint64_t lo, hi;
        if (i >= len || s[i] < '0' || s[i] > '9' || next_u64(s, len, &i, &lo) != 0)
            return -1;
        hi = lo;
        if (i < len && s[i] == '-') {
            i++;
            if (i >= len || s[i] < '0' || s[i] > '9' || next_u64(s, len, &i, &hi) != 0)
                return -1;
        }
        if (hi < lo || hi >= PROCFS_MAX_CPUS)
            return -1;
        for (uint64_t c = lo; c <= hi; c++)
            if (!procfs_cpuset_has(set, (unsigned)c)) {
                set->bits[c / 64] |= 1ull << (c % 64);
                set->n++;
            }
        if (i == len)
            return 0;
        if (s[i++] != ',')
            return -1;
    }
}

int procfs_stat_cpus(const char *buf, size_t len, const procfs_cpuset *set, procfs_cpu_sum *s)
{
    static const int busy_fields[6] = {0, 1, 2, 5, 6, 7}, all[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    procfs_cpuset seen;
    memset(&seen, 0, sizeof seen);
    memset(s, 0, sizeof *s);
    s->steal_ok = 1;
    size_t i = 0, ll;
    const char *line;
    while (next_line(buf, len, &i, &line, &ll)) {
        size_t j = 3;
        uint64_t cpu, f[8] = {0}, busy, total;
        if (ll < 4 || memcmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9' ||
            next_u64(line, ll, &j, &cpu) != 0 || j >= ll || line[j] != ' ' ||
            cpu >= PROCFS_MAX_CPUS || !procfs_cpuset_has(set, (unsigned)cpu) ||
            procfs_cpuset_has(&seen, (unsigned)cpu))
            continue;
        int got = 0;
        while (got < 8 && next_u64(line, ll, &j, &f[got]) == 0)
            got++;
        if (got < 4 || sum_fields(f, busy_fields, 6, &busy) != 0 || busy > UINT64_MAX - s->busy)
            return -1;
        s->busy += busy;
        if (got < 8 || sum_fields(f, all, 8, &total) != 0 || total > UINT64_MAX - s->total ||
            f[7] > UINT64_MAX - s->steal)
            s->steal_ok = 0;
        else {
            s->total += total;
            s->steal += f[7];
        }
        seen.bits[cpu / 64] |= 1ull << (cpu % 64);
        seen.n++;
    }
    return seen.n == set->n ? 0 : -1;
}
