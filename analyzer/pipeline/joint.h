/*
 * joint: docs/rules.md section 11.3-11.5, the host's cores against all of its
 * pools' cores at once, from decayed sums (n, s_p, s_y, S_pq, s_py, s_yy):
 * per pool a slope with its standard error and partial sd, and the common
 * line of the host against the pools' total.  The sums are O(k^2) for k
 * pools; a pool keeps the index it entered with, and the solution takes
 * the pools in the order given (name order).
 */
#ifndef JOINT_H
#define JOINT_H

#include <stddef.h>
#include <stdint.h>

#define JOINT_FORGET        0.9975   /* per 300 s of pair interval */
#define JOINT_FORGET_S      300.0
#define JOINT_VAR_EPSILON   1e-12    /* C_pp at or below: no variance */
#define JOINT_PIVOT         1e-6     /* of C_pp: explained by the pools before */
#define JOINT_S2_FLOOR      1e-9     /* of v_y: an exact sum of its pools */
#define JOINT_BELIEF_N      30.0
#define JOINT_MAX_SLOPE     20.0
#define JOINT_PARTIAL_SD    0.01     /* cores */
#define JOINT_SE            0.05     /* of max(slope, 1) */
#define JOINT_COMMON_SD_X   0.2      /* cores */
#define JOINT_INCONSISTENT  1.1      /* pools' cores above 1.1 x host + 0.1 */
#define JOINT_INCONSISTENT_ADD 0.1

typedef struct {
    size_t   k, cap;        /* pools in the sums, room */
    double   n, sy, syy;
    double  *s, *sy_p;      /* s_p, s_py by pool index */
    double  *S;             /* S_pq, cap x cap, q >= p kept */
    uint64_t points, inconsistent;
} joint;

/* Room for pool index k - 1; a new pool enters with zeros.  0, FPM_ENOMEM. */
int joint_grow(joint *j, size_t k);
void joint_free(joint *j);

/* 11.4: the decay before a point of a pair interval_s long. */
double joint_decay(double interval_s);

/* 11.3: whether a pair's pools' cores exceed what the host had. */
int joint_inconsistent(double total_cores, double host_cores);

/* 11.3-11.4: a point; x has j->k entries, by pool index. */
void joint_add(joint *j, const double *x, double y, double decay);

typedef struct {
    int    in_a;                  /* joined the active set: a line of its own */
    double slope, se, partial_sd;
    int    believed;
} joint_pool;

typedef struct {
    int      exists;              /* n > k, an empty active set too (k = 1) */
    double   n, base, resid_sd;
    uint64_t points, inconsistent;
    int      common_exists;
    double   common_slope, common_se, common_sd_x;
    int      common_believed;
} joint_sol;

/* 11.5: the solution with the pools in order (order[i] the index of the
 * i-th), into *sol and pools[0..k) (NULL for none).  0, FPM_ENOMEM. */
int joint_solve(const joint *j, const size_t *order, size_t k, joint_sol *sol,
                joint_pool *pools);

#endif
