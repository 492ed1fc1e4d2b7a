/*
 * out_plot_int: what plot.c (the data, the files) hands to plot_gp.c (the
 * plots of the script, its datablocks, and gnuplot run on it): a pool's
 * plot state.
 */
#ifndef PLOT_INT_H
#define PLOT_INT_H

#include <stdint.h>
#include <stdio.h>

#include "joint.h"
#include "pipeline.h"
#include "signals.h"

#define PLOT_PRED_MAX 64 /* predictions drawn a pool */

typedef struct {
    const pl_host *h;
    const pl_pool *p;
    char           base[96];    /* file names start with it: safe characters only */
    FILE          *series, *points;
    size_t         npoints, nusable; /* fit points; rounds with a usable pair */
    size_t         nshown[SIG_N]; /* rounds whose pair gave a share the lower panel draws */
    double         sum_x;       /* of its points, for the band's centre */
    double         max_x;       /* their largest cores */
    double         t0, t1;      /* its first and last round (epoch seconds) */
    int64_t        queue_max, active_max; /* the series' largest, -1 none */
    joint_pool     jp;          /* its host's joint fit, at the end */
    joint_sol      sol;
    FILE          *memory;      /* the host's php and other memory, the pool's private */
    size_t         nmem;        /* rounds that gave them */
    size_t         nseries, nmemrows; /* the rows of its series and memory files */
    /* at the end, as measured (sections 14 and 15) */
    int            has_model;   /* its bounds: R, D, C and the knee */
    double         r, d, c, knee;
    int64_t        now, advice, ceiling, mem_ceiling, w_mib;
    int            has_budget;
    double         budget, total; /* B and M, bytes */
    size_t         npred;       /* section 18: the predicted p50 and p95 at pred_n workers */
    double         pred_n[PLOT_PRED_MAX];
    int64_t        pred_p50[PLOT_PRED_MAX], pred_p95[PLOT_PRED_MAX];
} plot_pool;

/* The bounds plot's widest worker count: twice the knee and one, now, the
 * advice, 4 at the least. */
double plot_bounds_top(const plot_pool *q);

/* The plots of pool q for the terminal term with its size ("svg size
 * 720,440"), images named after q->base with extension ext, into gp. */
void plot_draw(FILE *gp, const char *term, const char *ext, const plot_pool *q);

/* Copies the .dat file dat into the script gp as the datablock $name, one
 * row for each k of the file's: with most, the first row's time and the
 * most of each other column (NaN when the k rows have none: a peak is
 * never lost), else every k-th row as it is (every row at k = 1).  Comment
 * lines are copied.  0, or -1 when dat could not be read. */
int plot_datablock(FILE *gp, FILE *dat, const char *name, size_t k, int most);

/* Runs gnuplot in dir on the script, fed through a pipe.  0 ok, 1 gnuplot
 * is not installed, -1 it failed. */
int plot_run_gnuplot(const char *dir, const char *script);

#endif
