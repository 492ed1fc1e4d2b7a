/* The joint fit of docs/rules.md section 11.3-11.5. */
#include "joint.h"
#include "rc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int joint_grow(joint *j, size_t k)
{
    if (k <= j->k)
        return 0;
    if (k > j->cap) {
        size_t cap = j->cap ? j->cap * 2 : 8;
        while (cap < k)
            cap *= 2;
        if (cap > SIZE_MAX / sizeof(double) / cap)
            return FPM_ENOMEM;
        double *S = calloc(cap * cap, sizeof *S);
        double *s = realloc(j->s, cap * sizeof *s);
        if (s)
            j->s = s;
        double *sy_p = s ? realloc(j->sy_p, cap * sizeof *sy_p) : NULL;
        if (sy_p)
            j->sy_p = sy_p;
        if (!S || !s || !sy_p) {
            free(S);
            return FPM_ENOMEM;
        }
        for (size_t p = 0; p < j->k; p++)
            memcpy(S + p * cap, j->S + p * j->cap, j->k * sizeof *S);
        free(j->S);
        j->S = S;
        j->cap = cap;
    }
    for (size_t p = j->k; p < k; p++)
        j->s[p] = j->sy_p[p] = 0;
    j->k = k;
    return 0;
}

void joint_free(joint *j)
{
    free(j->S);
    free(j->s);
    free(j->sy_p);
    memset(j, 0, sizeof *j);
}

double joint_decay(double interval_s)
{
    return pow(JOINT_FORGET, interval_s / JOINT_FORGET_S);
}

int joint_inconsistent(double total_cores, double host_cores)
{
    return total_cores > JOINT_INCONSISTENT * host_cores + JOINT_INCONSISTENT_ADD;
}

void joint_add(joint *j, const double *x, double y, double d)
{
    j->n = j->n * d + 1;
    j->sy = j->sy * d + y;
    j->syy = j->syy * d + y * y;
    for (size_t p = 0; p < j->k; p++) {
        double xp = x[p], *row = j->S + p * j->cap;
        j->s[p] = j->s[p] * d + xp;
        j->sy_p[p] = j->sy_p[p] * d + xp * y;
        if (xp == 0)
            for (size_t q = p; q < j->k; q++)
                row[q] *= d;
        else
            for (size_t q = p; q < j->k; q++)
                row[q] = row[q] * d + xp * x[q];
    }
    j->points++;
}

/* The centred sums, in the order given. */
typedef struct {
    size_t  k;
    double  n, my, vy;
    double *m, *c, *C;       /* k, k, k x k */
} centred;

static int centre(const joint *j, const size_t *order, size_t k, centred *z)
{
    z->k = k;
    z->n = j->n;
    z->m = malloc((k ? k : 1) * sizeof *z->m);
    z->c = malloc((k ? k : 1) * sizeof *z->c);
    z->C = malloc((k ? k * k : 1) * sizeof *z->C);
    if (!z->m || !z->c || !z->C)
        return FPM_ENOMEM;
    double n = j->n;
    z->my = j->sy / n;
    z->vy = j->syy / n - z->my * z->my;
    for (size_t i = 0; i < k; i++)
        z->m[i] = j->s[order[i]] / n;
    for (size_t i = 0; i < k; i++) {
        z->c[i] = j->sy_p[order[i]] / n - z->m[i] * z->my;
        for (size_t l = 0; l < k; l++) {
            size_t a = order[i], b = order[l];
            double S = a <= b ? j->S[a * j->cap + b] : j->S[b * j->cap + a];
            z->C[i * k + l] = S / n - z->m[i] * z->m[l];
        }
    }
    return 0;
}

/* s2 of a fit whose explained part of v_y is expl, with kk parameters. */
static double resid_var(double vy, double expl, double n, double kk)
{
    double r = vy - expl;
    return r <= JOINT_S2_FLOOR * vy || !(r > 0) ? 0 : r * n / (n - kk); /* r <= 0: rounding */
}

static int believed(double n, double slope, double se)
{
    return n >= JOINT_BELIEF_N && slope <= JOINT_MAX_SLOPE &&
           se <= JOINT_SE * (slope > 1 ? slope : 1);
}

/* The common line: the host against the pools' total. */
static void common_line(const centred *z, joint_sol *sol)
{
    double var = 0, cov = 0;
    for (size_t i = 0; i < z->k; i++) {
        cov += z->c[i];
        for (size_t l = 0; l < z->k; l++)
            var += z->C[i * z->k + l];
    }
    if (!(z->n - 2 > 0) || !(var > JOINT_VAR_EPSILON))
        return;
    sol->common_exists = 1;
    sol->common_slope = cov / var;
    double s2 = resid_var(z->vy, sol->common_slope * cov, z->n, 2);
    sol->common_se = sqrt(s2 / (var * z->n));
    sol->common_sd_x = sqrt(var);
    sol->common_believed = sol->common_sd_x >= JOINT_COMMON_SD_X &&
                           believed(z->n, sol->common_slope, sol->common_se);
    if (!isfinite(sol->common_slope) || !isfinite(sol->common_se) || !isfinite(sol->common_sd_x))
        sol->common_exists = sol->common_believed = 0; /* sums past what a double holds */
}

/* The active set in order, with its Cholesky factor L (row r of A, k
 * wide); how many joined. */
static size_t active_set(const centred *z, size_t *A, double *L)
{
    size_t na = 0, k = z->k;
    for (size_t i = 0; i < k; i++) {
        double cpp = z->C[i * k + i];
        if (!(cpp > JOINT_VAR_EPSILON))
            continue;
        double *row = L + na * k, sum = 0;
        for (size_t r = 0; r < na; r++) {
            double v = z->C[A[r] * k + i];
            for (size_t t = 0; t < r; t++)
                v -= L[r * k + t] * row[t];
            row[r] = v / L[r * k + r];
            sum += row[r] * row[r];
        }
        double pivot = cpp - sum;
        if (pivot > JOINT_PIVOT * cpp) {
            row[na] = sqrt(pivot);
            A[na++] = i;
        }
    }
    return na;
}

/* a = C_AA^-1 c_A through L, and the diagonal of C_AA^-1 into inv. */
static void solve_active(const centred *z, const size_t *A, size_t na, const double *L,
                         double *a, double *inv, double *work)
{
    size_t k = z->k;
    for (size_t r = 0; r < na; r++) { /* L w = c_A */
        double v = z->c[A[r]];
        for (size_t t = 0; t < r; t++)
            v -= L[r * k + t] * work[t];
        work[r] = v / L[r * k + r];
    }
    for (size_t r = na; r-- > 0;) { /* L^T a = w */
        double v = work[r];
        for (size_t t = r + 1; t < na; t++)
            v -= L[t * k + r] * a[t];
        a[r] = v / L[r * k + r];
    }
    for (size_t r = 0; r < na; r++)
        inv[r] = 0;
    for (size_t col = 0; col < na; col++) { /* column col of L^-1, into work */
        for (size_t r = 0; r < na; r++) {
            double v = r == col ? 1 : 0;
            for (size_t t = col; t < r; t++)
                v -= L[r * k + t] * work[t];
            work[r] = r < col ? 0 : v / L[r * k + r];
        }
        for (size_t r = col; r < na; r++)
            inv[col] += work[r] * work[r]; /* (L^-T L^-1)_col,col */
    }
}

int joint_solve(const joint *j, const size_t *order, size_t k, joint_sol *sol,
                joint_pool *pools)
{
    memset(sol, 0, sizeof *sol);
    sol->n = j->n;
    sol->points = j->points;
    sol->inconsistent = j->inconsistent;
    if (pools)
        memset(pools, 0, k * sizeof *pools);
    if (!(j->n > 0))
        return 0;
    centred z = {0};
    size_t *A = malloc((k ? k : 1) * sizeof *A);
    double *L = calloc(k ? k * k : 1, sizeof *L), *a = malloc((k ? k : 1) * 3 * sizeof *a);
    int rc = FPM_ENOMEM;
    if (!A || !L || !a || centre(j, order, k, &z) != 0)
        goto out;
    common_line(&z, sol);
    size_t na = active_set(&z, A, L);
    double kk = (double)na + 1, *inv = a + k, *work = a + 2 * k;
    rc = 0;
    if (!(z.n - kk > 0)) /* an empty active set too: k = 1 (docs/rules.md 11.5) */
        goto out;
    solve_active(&z, A, na, L, a, inv, work);
    double expl = 0, base = z.my;
    for (size_t r = 0; r < na; r++) {
        expl += a[r] * z.c[A[r]];
        base -= a[r] * z.m[A[r]];
    }
    double s2 = resid_var(z.vy, expl, z.n, kk);
    if (!isfinite(base) || !isfinite(s2))
        goto out; /* sums past what a double holds: no line */
    sol->exists = 1;
    sol->base = base;
    sol->resid_sd = sqrt(s2);
    for (size_t r = 0; pools && r < na; r++) {
        joint_pool *p = &pools[A[r]];
        p->in_a = 1;
        p->slope = a[r];
        p->se = sqrt(s2 * inv[r] / z.n);
        p->partial_sd = sqrt(1 / inv[r]);
        p->believed = p->partial_sd >= JOINT_PARTIAL_SD && believed(z.n, p->slope, p->se);
        if (!isfinite(p->slope) || !isfinite(p->se) || !isfinite(p->partial_sd))
            *p = (joint_pool){0};
    }
out:
    free(z.m);
    free(z.c);
    free(z.C);
    free(A);
    free(L);
    free(a);
    return rc;
}
