/*
 * fit: the host-overhead line host = base + overhead x pool (docs/rules.md
 * section 5), five running sums that forget with factor 0.9975.
 */
#ifndef FIT_H
#define FIT_H

#define FIT_FORGET       0.9975
#define FIT_BELIEF_N     30.0
#define FIT_BELIEF_SD_X  0.2
#define FIT_MAX_SLOPE    20.0
#define FIT_VAR_EPSILON  1e-12

typedef struct {
    double n, sx, sy, sxx, sxy;
} fit;

/* Adds the point (x, y) after decaying the sums. */
void fit_add(fit *f, double x, double y);

typedef struct {
    int    exists;      /* n >= 2 and var_x > 1e-12 */
    double n, slope, intercept, sd_x;
    int    believed;    /* n >= 30, sd_x >= 0.2, slope <= 20 */
    double overhead;    /* max(slope, 1) when believed, else 1 */
} fit_line;

/* The line as it stands; a pure function of the sums. */
fit_line fit_solve(const fit *f);

#endif
