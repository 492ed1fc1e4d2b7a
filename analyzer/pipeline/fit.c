/* Least-squares line with a forgetting factor. */
#include "fit.h"

#include <math.h>

void fit_add(fit *f, double x, double y)
{
    f->n = f->n * FIT_FORGET + 1;
    f->sx = f->sx * FIT_FORGET + x;
    f->sy = f->sy * FIT_FORGET + y;
    f->sxx = f->sxx * FIT_FORGET + x * x;
    f->sxy = f->sxy * FIT_FORGET + x * y;
}

fit_line fit_solve(const fit *f)
{
    fit_line l = {0, f->n, 0, 0, 0, 0, 1};
    if (f->n <= 0)
        return l;
    double mx = f->sx / f->n, my = f->sy / f->n;
    double var_x = f->sxx / f->n - mx * mx;
    if (f->n < 2 || !(var_x > FIT_VAR_EPSILON))
        return l;
    l.exists = 1;
    l.slope = (f->sxy / f->n - mx * my) / var_x;
    l.intercept = my - l.slope * mx;
    l.sd_x = sqrt(var_x);
    if (f->n >= FIT_BELIEF_N && l.sd_x >= FIT_BELIEF_SD_X && l.slope <= FIT_MAX_SLOPE) {
        l.believed = 1;
        l.overhead = l.slope < 1 ? 1 : l.slope;
    }
    return l;
}
