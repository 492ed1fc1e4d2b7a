/* gnuplot plots of each pool. */
#define _POSIX_C_SOURCE 200809L
#include "plot.h"
#include "rc.h"
#include "plot_int.h"

#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fit.h"
#include "bounds.h"
#include "hist.h"
#include "memory.h"
#include "outfile.h"
#include "whatif.h"


/* A joint point of the round being seen: its pools' cores, by plot_pool. */
typedef struct {
    size_t pool;
    double cores;
} plot_x;

struct plotter {
    char      *dir;
    plot_pool *pools;
    size_t     n;
    FILE      *joint;      /* every joint point: y, then "pool cores" pairs (a temp file) */
    plot_x    *round;      /* the round being seen ... */
    size_t     nround, round_cap;
    double     round_y;    /* ... and its host cores */
    int        failed;
    int        svg_only;   /* the page's charts: no PNG */
    char       why[4400];  /* the first file that could not be opened, and why */
};

/* The SVG charts of a long log draw at most PLOT_SVG_ROWS rows of a series
 * (one for each 2.3 pixels of the page's chart): a row for each span
 * of rounds, the most of each column in it (a peak is never lost); and at
 * most PLOT_SVG_POINTS fit points, one in so many.  The PNGs draw every
 * row. */
#define PLOT_SVG_ROWS   250
#define PLOT_SVG_POINTS 200

static void safe_part(char *out, size_t cap, const char *s, size_t n)
{
    size_t o = strlen(out);
    for (size_t i = 0; i < n && o + 1 < cap; i++) {
        char c = s[i];
        out[o++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   c == '.' || c == '-' ? c : '_';
    }
    out[o] = '\0';
}

plotter *plot_new(const char *dir, char *err, size_t errlen)
{
    struct stat st;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s: could not make the folder: %s", dir, strerror(errno));
        return NULL;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: --plot wants a folder, and this is not one", dir);
        return NULL;
    }
    plotter *pt = calloc(1, sizeof *pt);
    if (!pt || !(pt->dir = strdup(dir))) {
        free(pt);
        snprintf(err, errlen, "%s", strerror(ENOMEM));
        return NULL;
    }
    return pt;
}

static FILE *open_in(plotter *pt, const char *base, const char *suffix, const char *mode)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s%s", pt->dir, base, suffix);
    if (mode[0] == 'r')
        return fopen(path, mode);
    char err[200];
    FILE *f = outfile_open(path, err, sizeof err); /* never into a device or through a link */
    if (!f && !pt->why[0])
        snprintf(pt->why, sizeof pt->why, "%s: %s", path, err);
    return f;
}

static plot_pool *pool_of(plotter *pt, const pl_host *h, const pl_pool *p)
{
    for (size_t i = 0; i < pt->n; i++)
        if (pt->pools[i].p == p)
            return &pt->pools[i];
    plot_pool *np = realloc(pt->pools, (pt->n + 1) * sizeof *np);
    if (!np)
        return NULL;
    pt->pools = np;
    plot_pool *q = &pt->pools[pt->n];
    memset(q, 0, sizeof *q);
    q->h = h;
    q->p = p;
    snprintf(q->base, sizeof q->base, "%02zu-", pt->n + 1);
    safe_part(q->base, 48, h->hostname, h->hostname_len);
    strcat(q->base, "-");
    safe_part(q->base, sizeof q->base - 8, p->name, p->name_len);
    q->queue_max = q->active_max = -1;
    q->t0 = -1;
    q->series = open_in(pt, q->base, ".series.dat", "w");
    q->points = open_in(pt, q->base, ".points.dat", "w");
    q->memory = open_in(pt, q->base, ".memory.dat", "w");
    pt->n++;
    if (!q->series || !q->points || !q->memory)
        return NULL;
    fputs("# time host_php_gib host_other_gib pool_private_gib (section 14)\n", q->memory);
    fputs("# time host_busy_cores pool_cores listen_queue starved inconsistent active",
          q->series);
    for (int k = 0; k < SIG_N; k++) /* the lower panel's signals, a column each */
        if (PL_SIGNALS[k].plot)
            fprintf(q->series, " %s", PL_SIGNALS[k].csv);
    fputc('\n', q->series);
    fputs("# pool_cores host_cores_less_the_other_pools_part (the joint fit's points)\n",
          q->points);
    return q;
}

/* The round seen so far, as one line of the joint file. */
static void flush_round(plotter *pt)
{
    if (pt->nround && pt->joint) {
        fprintf(pt->joint, "%.6f", pt->round_y);
        for (size_t i = 0; i < pt->nround; i++)
            fprintf(pt->joint, " %zu %.6f", pt->round[i].pool, pt->round[i].cores);
        fputc('\n', pt->joint);
    }
    pt->nround = 0;
}

/* A pool's joint point of this round, to its line. */
static void note_joint(plotter *pt, const plot_pool *q, const pl_pool_pair *pair)
{
    if (!pt->joint) {
        pt->joint = open_in(pt, "joint-points", ".tmp", "w");
        if (!pt->joint) {
            pt->failed = 1;
            return;
        }
    }
    if (pt->nround == pt->round_cap) {
        size_t cap = pt->round_cap ? 2 * pt->round_cap : 16;
        plot_x *r = realloc(pt->round, cap * sizeof *r);
        if (!r) {
            pt->failed = 1;
            return;
        }
        pt->round = r;
        pt->round_cap = cap;
    }
    pt->round[pt->nround++] = (plot_x){(size_t)(q - pt->pools), pair->pool_cores};
    pt->round_y = pair->signal[SIG_BUSY];
}

static void on_round(void *arg, const pl_host *h, const pl_pool *p, const pl_round *r,
                     const pl_pool_pair *pair)
{
    plotter *pt = arg;
    if (pair->first)
        flush_round(pt);
    plot_pool *q = pool_of(pt, h, p);
    if (!q || !q->series || !q->points || !q->memory) {
        pt->failed = 1;
        return;
    }
    if (pair->host_other >= 0 || pair->private_bytes >= 0) {
        double gib = 1073741824.0;
        fprintf(q->memory, "%.3f", (double)r->real / 1e9);
        if (pair->host_other >= 0)
            fprintf(q->memory, " %.4f %.4f", pair->host_php / gib, pair->host_other / gib);
        else
            fputs(" NaN NaN", q->memory);
        if (pair->private_bytes >= 0)
            fprintf(q->memory, " %.4f\n", pair->private_bytes / gib);
        else
            fputs(" NaN\n", q->memory);
        q->nmem += pair->host_other >= 0;
        q->nmemrows++;
    }
    fprintf(q->series, "%.3f ", (double)r->real / 1e9);
    if (pair->usable)
        fprintf(q->series, "%.4f ", pair->signal[SIG_BUSY]);
    else
        fputs("NaN ", q->series);
    if (pair->has_pool_cores)
        fprintf(q->series, "%.4f ", pair->pool_cores);
    else
        fputs("NaN ", q->series);
    if (pair->listen_queue >= 0)
        fprintf(q->series, "%lld %d %d", (long long)pair->listen_queue, pair->starved,
                pair->inconsistent);
    else
        fprintf(q->series, "NaN %d %d", pair->starved, pair->inconsistent);
    if (pair->active >= 0)
        fprintf(q->series, " %lld", (long long)pair->active);
    else
        fputs(" NaN", q->series);
    q->queue_max = pair->listen_queue > q->queue_max ? pair->listen_queue : q->queue_max;
    q->active_max = pair->active > q->active_max ? pair->active : q->active_max;
    double t = (double)r->real / 1e9;
    if (q->t0 < 0)
        q->t0 = t;
    q->t1 = t;
    for (int k = 0; k < SIG_N; k++) {
        if (!PL_SIGNALS[k].plot)
            continue;
        if (pair->has_signal[k])
            fprintf(q->series, " %.2f", pair->signal[k] / 100.0);
        else
            fputs(" NaN", q->series);
        q->nshown[k] += pair->has_signal[k] && (!PL_SIGNALS[k].plot_nonzero || pair->signal[k] > 0);
    }
    fputc('\n', q->series);
    q->nseries++;
    q->nusable += pair->usable;
    if (pair->joint_point)
        note_joint(pt, q, pair);
}

/* Each joint point as each pool's partial-regression point: its own
 * cores, and the host's less the other pools' part (the slopes a[] of the
 * host's joint fit, 0 for a pool without one).  Reads the joint file once;
 * -1 when it cannot. */
static int partial_points(plotter *pt, const double *a)
{
    flush_round(pt);
    if (!pt->joint)
        return 0;
    int bad = fclose(pt->joint) != 0;
    pt->joint = bad ? NULL : open_in(pt, "joint-points", ".tmp", "r");
    if (!pt->joint)
        return FPM_EFAIL;
    char *line = NULL;
    size_t cap = 0;
    plot_x *x = NULL;
    size_t xcap = 0;
    while (getline(&line, &cap, pt->joint) > 0) {
        char *s = line, *e;
        double y = strtod(s, &e), others = 0;
        size_t n = 0;
        for (s = e;; s = e) {
            unsigned long i = strtoul(s, &e, 10);
            if (e == s || i >= pt->n)
                break;
            double c = strtod(s = e, &e);
            if (n == xcap) {
                plot_x *nx = realloc(x, (xcap = xcap ? 2 * xcap : 16) * sizeof *nx);
                if (!nx)
                    break;
                x = nx;
            }
            x[n++] = (plot_x){i, c};
            others += a[i] * c;
        }
        for (size_t k = 0; k < n; k++) {
            plot_pool *q = &pt->pools[x[k].pool];
            fprintf(q->points, "%.4f %.4f\n", x[k].cores, y - others + a[x[k].pool] * x[k].cores);
            q->npoints++;
            q->sum_x += x[k].cores;
            q->max_x = x[k].cores > q->max_x ? x[k].cores : q->max_x;
        }
    }
    free(line);
    free(x);
    return 0;
}

int plot_attach(plotter *pt, pipeline *pl)
{
    return pipeline_on_round(pl, on_round, pt);
}

/* The .dat file base + suffix into the script as the datablock $name,
 * one row for each k of the file's (plot_datablock). */
static int block(FILE *gp, plotter *pt, const plot_pool *q, const char *suffix, const char *name,
                 size_t k, int most)
{
    FILE *f = open_in(pt, q->base, suffix, "r");
    if (!f)
        return FPM_EFAIL;
    int rc = plot_datablock(gp, f, name, k, most);
    fclose(f);
    return rc;
}

/* The memory readings' buckets (14.2), from the first that holds one to
 * the last, W's marked: "top_mib readings readings_of_W's_bucket label". */
static int write_memhist(plotter *pt, const plot_pool *q)
{
    FILE *m = open_in(pt, q->base, ".memhist.dat", "w");
    if (!m)
        return FPM_EFAIL;
    const mem_hist *h = &q->p->mem;
    int first = -1, last = -1;
    for (int b = 0; b < MEM_BUCKETS; b++)
        if (h->count[b]) {
            first = first < 0 ? b : first;
            last = b;
        }
    fputs("# bucket_top_mib readings readings_of_w label\n", m);
    for (int b = first < 2 ? 0 : first - 2; first >= 0 && b <= last + 1 && b < MEM_BUCKETS; b++) {
        int64_t top = mem_top_mib(h, b);
        int is_w = q->w_mib >= 0 && top == q->w_mib;
        fprintf(m, "%lld %u %u %lld\n", (long long)top, is_w ? 0 : h->count[b],
                is_w ? h->count[b] : 0, (long long)top);
    }
    return fclose(m) != 0 ? FPM_EFAIL : 0;
}

static int write_script(plotter *pt, plot_pool *q)
{
    if (write_memhist(pt, q) != 0)
        return FPM_EFAIL;
    FILE *h = open_in(pt, q->base, ".hist.dat", "w");
    if (!h)
        return FPM_EFAIL;
    /* the buckets up to the largest one observed, and at least 0-100% */
    int last = 19;
    for (int b = 0; b < HIST_BUCKETS; b++)
        if (pl_hist(q->p)->count[b] && b > last)
            last = b;
    fputs("# bucket_floor_pct requests label\n", h);
    for (int b = 0; b <= last; b++)
        fprintf(h, "%d %u %d%%\n", hist_floor_pct(b), pl_hist(q->p)->count[b], hist_floor_pct(b));
    if (fclose(h) != 0)
        return FPM_EFAIL;
    FILE *gp = open_in(pt, q->base, ".gp", "w");
    if (!gp)
        return FPM_EFAIL;
    size_t nl = q->p->name_len + q->h->hostname_len;
    char *qn = malloc(4 * nl + 16), *qh = malloc(4 * q->h->hostname_len + 3);
    if (!qn || !qh) {
        free(qn);
        free(qh);
        fclose(gp);
        return FPM_EFAIL;
    }
    plot_quote(qn, q->p->name, q->p->name_len);
    plot_quote(qh, q->h->hostname, q->h->hostname_len);
    fprintf(gp, "# fpm-analyze plots of one pool; re-render with: gnuplot %s.gp\n", q->base);
    fprintf(gp, "name = %s.' on '.%s\n", qn, qh);
    free(qn);
    free(qh);
    /* a long log's SVG draws fewer rows (PLOT_SVG_ROWS): the same names,
     * redefined after the PNGs (or alone, for the page's SVGs) */
    size_t ks = (q->nseries + PLOT_SVG_ROWS - 1) / PLOT_SVG_ROWS,
           km = (q->nmemrows + PLOT_SVG_ROWS - 1) / PLOT_SVG_ROWS,
           kp = (q->npoints + PLOT_SVG_POINTS - 1) / PLOT_SVG_POINTS;
    int all = !pt->svg_only;
    int rc = block(gp, pt, q, ".hist.dat", "hist", 1, 0) |
             block(gp, pt, q, ".memhist.dat", "memhist", 1, 0);
    if (all || kp <= 1)
        rc |= block(gp, pt, q, ".points.dat", "points", 1, 0);
    if (all || ks <= 1)
        rc |= block(gp, pt, q, ".series.dat", "series", 1, 0);
    if (all || km <= 1)
        rc |= block(gp, pt, q, ".memory.dat", "memory", 1, 0);
    if (all)
        plot_draw(gp, "pngcairo size 1000,600", "png", q);
    if (ks > 1 || km > 1 || kp > 1)
        fprintf(gp, "# the SVGs: a row for every %zu rounds (the most of each), every %zu of "
                    "memory, one point in %zu\n", ks ? ks : 1, km ? km : 1, kp ? kp : 1);
    if (ks > 1)
        rc |= block(gp, pt, q, ".series.dat", "series", ks, 1);
    if (km > 1)
        rc |= block(gp, pt, q, ".memory.dat", "memory", km, 1);
    if (kp > 1)
        rc |= block(gp, pt, q, ".points.dat", "points", kp, 0);
    /* smaller: the page shows two side by side, its words still legible */
    plot_draw(gp, "svg size 720,440", "svg", q);
    if (fclose(gp) != 0)
        rc = FPM_EFAIL;
    return rc;
}

/* gnuplot follows links: its images must be new or regular files.  0, or
 * -1 with why in note. */
static int images_replaceable(const plotter *pt, const plot_pool *q, char *note, size_t notelen)
{
    static const char *const kinds[] = {"hist", "fit", "series", "memory", "bounds"},
                             *const exts[] = {"svg", "png"};
    for (int k = 0; k < 5; k++)
        for (int e = 0; e < (pt->svg_only ? 1 : 2); e++) {
            char path[4200], why[200];
            snprintf(path, sizeof path, "%s/%s-%s.%s", pt->dir, q->base, kinds[k], exts[e]);
            if (outfile_replaceable(path, why, sizeof why) != 0) {
                snprintf(note, notelen, "%s: %s", path, why);
                return FPM_EFAIL;
            }
        }
    return 0;
}

/* Each pool's partial-regression points, by its joint result (taken with
 * the answer in pools_at_the_end). */
static int joint_slopes(plotter *pt)
{
    double *a = calloc(pt->n ? pt->n : 1, sizeof *a);
    if (!a)
        return FPM_ENOMEM;
    for (size_t i = 0; i < pt->n; i++)
        a[i] = pt->pools[i].sol.exists && pt->pools[i].jp.in_a ? pt->pools[i].jp.slope : 0;
    int rc = partial_points(pt, a);
    free(a);
    return rc;
}

/* Section 18: the p50 and p95 predicted at 1 to the bounds plot's widest
 * worker count, in at most PLOT_PRED_MAX even steps. */
static void predictions(plot_pool *q, const wi_view *v)
{
    q->npred = 0;
    if (!q->has_model || !v->predicts)
        return;
    double top = plot_bounds_top(q), step = ceil(top / PLOT_PRED_MAX);
    for (double n = 1; n <= top && q->npred < PLOT_PRED_MAX; n += step) {
        size_t i = q->npred;
        if (whatif_predict(v, n, &q->pred_p50[i], &q->pred_p95[i]) != 0)
            return;
        q->pred_n[i] = n;
        q->npred++;
    }
}

/* Sections 11, 14 and 15 as measured, for the fit, memory and bounds
 * plots: each pool's joint result, W, ceilings, advice and bounds, and its
 * host's budget, from the run's answers (each host's as measured). */
static void pools_at_the_end(plotter *pt, const wi_answers *ans)
{
    for (size_t k = 0; k < ans->n; k++) {
        const wi_host *w = &ans->host[k];
        const pl_host *h = w->h;
        const wi_view *v = w->m;
        const wi_memory m = w->mem_m;
        for (size_t i = 0; i < pt->n; i++)
            for (size_t x = 0; pt->pools[i].h == h && x < h->npools; x++) {
                if (h->pools[x] != pt->pools[i].p)
                    continue;
                plot_pool *q = &pt->pools[i];
                q->jp = v[x].joint; /* as measured: the answer's joint fit */
                q->sol = w->joint;
                q->has_model = v[x].has_bounds; /* the answer's bounds (15.1) */
                if (q->has_model) {
                    q->r = v[x].bd_r, q->d = v[x].bd_d, q->c = v[x].bd_c;
                    q->knee = (double)v[x].knee_hundredths / 100; /* the table's knee */
                }
                q->now = v[x].now;
                q->advice = v[x].advice;
                q->ceiling = v[x].has_fill ? v[x].ceiling : -1;
                q->mem_ceiling = v[x].mem_ceiling;
                q->w_mib = v[x].w_mib;
                q->has_budget = m.has_budget;
                predictions(q, &v[x]);
                q->budget = (double)m.budget;
                q->total = (double)m.total;
            }
    }
}

/* The joint file is scratch: gone once read, or on the way out. */
static void drop_joint(plotter *pt)
{
    if (pt->joint) {
        fclose(pt->joint);
        pt->joint = NULL;
        char path[4200];
        snprintf(path, sizeof path, "%s/joint-points.tmp", pt->dir);
        unlink(path);
    }
}

int plot_finish(plotter *pt, const wi_answers *ans, char *note, size_t notelen)
{
    note[0] = '\0';
    /* pools with no round in the window still get their histogram */
    for (size_t k = 0; k < ans->n; k++)
        for (size_t i = 0; i < ans->host[k].h->npools; i++)
            if (!pool_of(pt, ans->host[k].h, ans->host[k].h->pools[i]))
                pt->failed = 1;
    pools_at_the_end(pt, ans);
    int jrc = joint_slopes(pt);
    drop_joint(pt);
    if (jrc != 0) {
        snprintf(note, notelen, "%s: could not write the joint fit's points: %s", pt->dir,
                 strerror(errno));
        return FPM_EFAIL;
    }
    for (size_t i = 0; i < pt->n; i++) {
        plot_pool *q = &pt->pools[i];
        int bad = !q->series || fclose(q->series) != 0;
        bad |= !q->points || fclose(q->points) != 0;
        bad |= !q->memory || fclose(q->memory) != 0;
        q->series = q->points = q->memory = NULL;
        if (!bad)
            bad = images_replaceable(pt, q, note, notelen);
        if (bad && !note[0] && pt->why[0])
            snprintf(note, notelen, "%s", pt->why);
        if (bad && note[0])
            return FPM_EFAIL;
        if (bad || write_script(pt, q) != 0) {
            if (pt->why[0]) /* an open that was refused says why */
                snprintf(note, notelen, "%s", pt->why);
            else
                snprintf(note, notelen, "%s: could not write the plot files of %s: %s", pt->dir,
                         q->base, strerror(errno));
            return FPM_EFAIL;
        }
    }
    if (pt->failed) {
        snprintf(note, notelen, "%s: could not write the plot data", pt->dir);
        return FPM_EFAIL;
    }
    for (size_t i = 0; i < pt->n; i++) {
        char script[128];
        snprintf(script, sizeof script, "%s.gp", pt->pools[i].base);
        int rc = plot_run_gnuplot(pt->dir, script);
        if (rc == 1) {
            snprintf(note, notelen, "gnuplot is not installed (Debian: gnuplot-nox); the data "
                     "and scripts are in %s: render them with: cd %s && for f in *.gp; do "
                     "gnuplot \"$f\"; done", pt->dir, pt->dir);
            return 1;
        }
        if (rc != 0) {
            snprintf(note, notelen, "%s: gnuplot failed on %s (see %s/gnuplot.log)", pt->dir,
                     script, pt->dir);
            return FPM_EFAIL;
        }
    }
    snprintf(note, notelen, "%s: %zu pool(s) plotted", pt->dir, pt->n);
    return 0;
}

void plot_svg_only(plotter *pt)
{
    pt->svg_only = 1;
}

int plot_base_of(const plotter *pt, const pl_pool *p, char *out, size_t n)
{
    for (size_t i = 0; pt && i < pt->n; i++)
        if (pt->pools[i].p == p)
            return (size_t)snprintf(out, n, "%s", pt->pools[i].base) < n ? 0 : -1;
    return -1;
}

void plot_free(plotter *pt)
{
    if (!pt)
        return;
    for (size_t i = 0; i < pt->n; i++) {
        if (pt->pools[i].series)
            fclose(pt->pools[i].series);
        if (pt->pools[i].points)
            fclose(pt->pools[i].points);
        if (pt->pools[i].memory)
            fclose(pt->pools[i].memory);
    }
    drop_joint(pt);
    free(pt->round);
    free(pt->pools);
    free(pt->dir);
    free(pt);
}
