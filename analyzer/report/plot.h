/*
 * plot: --plot DIR.  Per pool: the CPU-share histogram, the fit scatter
 * (pool cores against host cores, the fitted line) and a time series (host
 * busy cores, the pool's cores, its listen queue, starved rounds), as PNG
 * (pngcairo) and SVG, with the .dat files and a .gp script (data in
 * datablocks) beside them to re-plot.  The series stream to the .dat files
 * during the replay, so memory does not grow with the log.  gnuplot runs with
 * execvp, fed the script through a pipe; names from the log reach it only
 * inside single-quoted strings with quotes doubled and control bytes
 * replaced, and titles are noenhanced.
 */
#ifndef PLOT_H
#define PLOT_H

#include <stddef.h>

#include "pipeline.h"
#include "whatif.h"

typedef struct plotter plotter;

/* Makes DIR if needed; NULL with err on failure. */
plotter *plot_new(const char *dir, char *err, size_t errlen);

/* Registers the round hook. 0, or FPM_EFAIL. */
int plot_attach(plotter *pt, pipeline *pl);

/* Writes the histograms and scripts, runs gnuplot; the fit, memory and
 * bounds plots draw the run's answers as measured (each host's a->m).
 * Returns 0 when the images were made, 1 when gnuplot is not installed
 * (what to run is in note), -1 on an error (in note). */
int plot_finish(plotter *pt, const wi_answers *ans, char *note, size_t notelen);

/* Draws the SVGs alone (the page's charts), no PNG. */
void plot_svg_only(plotter *pt);

/* How p's files' names begin in DIR (as "01-host-pool", then "-hist.svg"
 * and the other charts) into out.  0, or -1 when p has none or out is too
 * small. */
int plot_base_of(const plotter *pt, const pl_pool *p, char *out, size_t n);

void plot_free(plotter *pt);

/* name as a gnuplot single-quoted string into out (4 * len + 3 bytes). */
void plot_quote(char *out, const char *name, size_t len);

#endif
