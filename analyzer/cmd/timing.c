/* fpm-analyze timing: the TIMING records, as pg_test_timing prints. */
#include "timing.h"
#include "rc.h"

#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "escape.h"
#include "fpmlog.h"
#include "records.h"
#include "timearg.h"

/* "a,b,c" into at most max numbers; how many, or -1 when one is not a number. */
static int num_list(const char *s, size_t n, uint64_t *out, int max)
{
    int k = 0;
    size_t i = 0;
    while (i < n) {
        const char *c = memchr(s + i, ',', n - i);
        size_t e = c ? (size_t)(c - s) : n;
        if (k == max || fpmlog_u64(s + i, e - i, &out[k]) != 0)
            return FPM_EFAIL;
        k++;
        i = e + 1;
    }
    return k;
}

int timing_parse(const unsigned char *p, size_t len, timing_rec *t)
{
    memset(t, 0, sizeof *t);
    size_t n;
    const char *s = fpmlog_kv(p, len, "clock", 0, &n);
    if (!s || n != 9 || memcmp(s, "monotonic", 9) != 0)
        return FPM_EFAIL;
    if (fpmlog_kv_u64(p, len, "loops", &t->loops) != 0 ||
        fpmlog_kv_u64(p, len, "duration_ns", &t->duration_ns) != 0)
        return FPM_EFAIL;
    fpmlog_kv_u64(p, len, "backwards", &t->backwards);
    t->has_largest = fpmlog_kv_u64(p, len, "largest_ns", &t->largest_ns) == 0;
    if ((s = fpmlog_kv(p, len, "per_loop_ns", 0, &n)) && n < sizeof t->per_loop) {
        memcpy(t->per_loop, s, n);
        t->per_loop[n] = '\0';
    }
    if (!(s = fpmlog_kv(p, len, "log2", 0, &n)) ||
        (t->nlog2 = num_list(s, n, t->log2, TIMING_LOG2_MAX)) < 0)
        return FPM_EFAIL;
    if ((s = fpmlog_kv(p, len, "exact", 0, &n))) {
        size_t i = 0;
        while (i < n) { /* ns:count,... */
            const char *c = memchr(s + i, ',', n - i);
            size_t e = c ? (size_t)(c - s) : n;
            const char *colon = memchr(s + i, ':', e - i);
            uint64_t ns, count;
            if (!colon || fpmlog_u64(s + i, (size_t)(colon - s) - i, &ns) != 0 ||
                fpmlog_u64(colon + 1, e - (size_t)(colon - s) - 1, &count) != 0 ||
                ns >= TIMING_EXACT_MAX)
                return FPM_EFAIL;
            t->exact[ns] = count;
            i = e + 1;
        }
    }
    return 0;
}

static double pct(uint64_t part, uint64_t total)
{
    return total ? 100.0 * (double)part / (double)total : 0;
}

void timing_print(FILE *out, const timing_rec *t, double cutoff)
{
    uint64_t total = 0;
    for (int k = 0; k < t->nlog2; k++)
        total += t->log2[k];
    fprintf(out, "Average loop time including overhead: %s ns\n",
            t->per_loop[0] ? t->per_loop : "?");
    fputs("Histogram of timing durations:\n"
          "   <= ns   % of total  running %      count\n", out);
    uint64_t run = 0;
    for (int k = 0; k < t->nlog2; k++) {
        run += t->log2[k];
        unsigned long long le = k == 0 ? 0 : k >= 64 ? UINT64_MAX : (1ull << k) - 1;
        fprintf(out, "%8llu %12.4f %10.4f %10llu\n", le, pct(t->log2[k], total), pct(run, total),
                (unsigned long long)t->log2[k]);
    }
    fprintf(out, "\nObserved timing durations up to %.4f%%:\n", cutoff);
    fputs("      ns   % of total  running %      count\n", out);
    run = 0;
    int64_t last = -1;
    for (int ns = 0; ns < TIMING_EXACT_MAX; ns++) {
        if (!t->exact[ns])
            continue;
        run += t->exact[ns];
        fprintf(out, "%8d %12.4f %10.4f %10llu\n", ns, pct(t->exact[ns], total), pct(run, total),
                (unsigned long long)t->exact[ns]);
        last = ns;
        if (pct(run, total) >= cutoff)
            break;
    }
    if (t->has_largest && (int64_t)t->largest_ns != last) {
        fputs("...\n", out);
        if (t->largest_ns < TIMING_EXACT_MAX && t->exact[t->largest_ns])
            fprintf(out, "%8llu %12.4f %10.4f %10llu\n", (unsigned long long)t->largest_ns,
                    pct(t->exact[t->largest_ns], total), 100.0,
                    (unsigned long long)t->exact[t->largest_ns]);
        else /* over 1023 ns: counted in the histogram only */
            fprintf(out, "%8llu %12s %10.4f %10s\n", (unsigned long long)t->largest_ns, "-",
                    100.0, "-");
    }
}

/* One log's TIMING records, each headed by the HOST in force.  *found
 * counts them; 0, or -1 when the log could not be read. */
static int timing_log(FILE *out, const char *path, double cutoff, int *found)
{
    char why[256];
    fpmlog_reader *r = fpmlog_reader_open(path, why, sizeof why);
    if (!r) {
        msg_warnx("%s: could not open: %s", path, why);
        return FPM_EFAIL;
    }
    char host[256] = "(no HOST record yet)";
    fpmlog_record rec;
    fpmlog_damage dmg;
    int ret, rc = 0;
    timing_rec *t = malloc(sizeof *t);
    while (t && (ret = fpmlog_reader_next(r, &rec, &dmg)) != 0) {
        if (ret < 0) {
            msg_damage(path, dmg.pos.offset, dmg.pos.compressed, dmg.pos.in_frame, dmg.what);
            if (ret == -2) {
                rc = FPM_EFAIL;
                break;
            }
            continue;
        }
        rec_type k = rec_kind_of(rec.type).type;
        if (k == REC_HOST) {
            size_t n;
            const char *h = fpmlog_kv(rec.payload, rec.len, HOST_HOSTNAME, 0, &n);
            char *d = esc_display_name(h ? h : "?", h ? n : 1, NULL);
            snprintf(host, sizeof host, "%s", d ? d : "?");
            free(d);
        } else if (k == REC_TIMING) {
            char at[40];
            timearg_format(rec.real - rec.real % 1000000000ull, at);
            if (*found)
                fputc('\n', out);
            (*found)++;
            if (timing_parse(rec.payload, rec.len, t) != 0) {
                fprintf(out, "%s: recorder start %s: a TIMING record that could not be read\n",
                        host, at);
                continue;
            }
            fprintf(out, "%s: recorder start %s: CLOCK_MONOTONIC read %llu times in %llu.%03llu "
                         "ms, %llu went backwards\n", host, at, (unsigned long long)t->loops,
                    (unsigned long long)(t->duration_ns / 1000000),
                    (unsigned long long)(t->duration_ns / 1000 % 1000),
                    (unsigned long long)t->backwards);
            timing_print(out, t, cutoff);
        }
    }
    free(t);
    fpmlog_reader_free(r);
    return rc;
}

int timing_logs(FILE *out, char **logs, int nlogs, double cutoff)
{
    int found = 0, bad = 0;
    for (int i = 0; i < nlogs; i++)
        bad |= timing_log(out, logs[i], cutoff, &found) != 0;
    if (!found && !bad)
        msg_warnx("no TIMING record in the log%s (fpm-record writes one at each start)",
                  nlogs == 1 ? "" : "s");
    return bad || !found ? 2 : 0;
}
