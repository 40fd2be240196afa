/* Synthetic exact-LBS rigs for the solver tests and bench: random rest
 * points, bone centres, ≤ K influences per vertex (nearest centres, weights
 * ∝ 1/d², normalised), random rigid transforms. Deterministic (xorshift). */
#ifndef SKF_TESTS_SOLVE_SYNTH_H
#define SKF_TESTS_SOLVE_SYNTH_H

#include "skinfit/base.h"
#include "skinfit/math.h"
#include "skinfit/solve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Offer candidate idx at distance dd to the list of the k nearest seen so
 * far: best[0..*n) / bd[0..*n), sorted by distance ascending, *n <= k. */
static inline void synth_keep_nearest(size_t k, size_t *n, size_t *best, double *bd, size_t idx,
                                      double dd)
{
    size_t at;
    if (*n < k)
        at = (*n)++;
    else if (dd < bd[k - 1])
        at = k - 1;
    else
        return;
    while (at > 0 && bd[at - 1] > dd) {
        bd[at] = bd[at - 1];
        best[at] = best[at - 1];
        --at;
    }
    bd[at] = dd;
    best[at] = idx;
}

typedef struct synth_rng {
    uint64_t s;
} synth_rng;

static inline double synth_uniform(synth_rng *r) /* [0,1) */
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (double)(r->s >> 11) * (1.0 / 9007199254740992.0);
}

static inline double synth_range(synth_rng *r, double a, double b)
{
    return a + (b - a) * synth_uniform(r);
}

/* Random rigid transform: rotation of angle up to max_angle about a random
 * axis, translation in [-tr, tr]³. */
static inline void synth_rigid(synth_rng *r, double max_angle, double tr, double T[12])
{
    double ax[3];
    double n;
    do {
        for (int k = 0; k < 3; ++k)
            ax[k] = synth_range(r, -1, 1);
        n = skf_norm3(ax);
    } while (n < 0.1 || n > 1);
    double ang = synth_range(r, -max_angle, max_angle);
    double q[4] = {ax[0] / n * sin(ang / 2), ax[1] / n * sin(ang / 2), ax[2] / n * sin(ang / 2),
                   cos(ang / 2)};
    skf_quat_to_mat3(T, q);
    for (int k = 0; k < 3; ++k)
        T[9 + k] = synth_range(r, -tr, tr);
}

typedef struct synth_rig {
    size_t n, B, K;
    double *rest;       /* [3n] */
    size_t *offsets;    /* [n+1] */
    uint32_t *bone;
    double *weight;
    double *centres;    /* [3B] */
} synth_rig;

/* n vertices in a 2×1×1 box scaled by `scale`, B bone centres; bones listed
 * in `unused` (count nu) get no vertex. */
static inline void synth_rig_make(synth_rig *g, synth_rng *r, size_t n, size_t B, size_t K,
                                  double scale, const size_t *unused, size_t nu)
{
    memset(g, 0, sizeof *g);
    g->n = n;
    g->B = B;
    g->K = K;
    g->rest = malloc(3 * n * sizeof *g->rest);
    g->offsets = malloc((n + 1) * sizeof *g->offsets);
    g->bone = malloc(n * K * sizeof *g->bone);
    g->weight = malloc(n * K * sizeof *g->weight);
    g->centres = malloc(3 * B * sizeof *g->centres);
    for (size_t b = 0; b < B; ++b) {
        g->centres[3 * b] = synth_range(r, 0, 2) * scale;
        g->centres[3 * b + 1] = synth_range(r, 0, 1) * scale;
        g->centres[3 * b + 2] = synth_range(r, 0, 1) * scale;
    }
    g->offsets[0] = 0;
    size_t m = 0;
    for (size_t j = 0; j < n; ++j) {
        double *v = g->rest + 3 * j;
        v[0] = synth_range(r, 0, 2) * scale;
        v[1] = synth_range(r, 0, 1) * scale;
        v[2] = synth_range(r, 0, 1) * scale;
        /* K nearest usable centres */
        size_t best[16];
        double bd[16];
        size_t nb = 0;
        for (size_t b = 0; b < B; ++b) {
            bool skip = false;
            for (size_t u = 0; u < nu; ++u)
                skip |= (unused[u] == b);
            if (skip)
                continue;
            double d[3] = {v[0] - g->centres[3 * b], v[1] - g->centres[3 * b + 1],
                           v[2] - g->centres[3 * b + 2]};
            double dd = skf_dot3(d, d) + 1e-6 * scale * scale;
            synth_keep_nearest(K, &nb, best, bd, b, dd);
        }
        /* random number of influences 1..K, weights ∝ random/d² */
        size_t k = 1 + (size_t)(synth_uniform(r) * (double)nb);
        if (k > nb)
            k = nb;
        double sum = 0;
        for (size_t i = 0; i < k; ++i) {
            g->bone[m + i] = (uint32_t)best[i];
            g->weight[m + i] = (0.2 + synth_uniform(r)) / bd[i];
            sum += g->weight[m + i];
        }
        for (size_t i = 0; i < k; ++i)
            g->weight[m + i] /= sum;
        m += k;
        g->offsets[j + 1] = m;
    }
}

static inline skf_solve_rig synth_rig_view(const synth_rig *g)
{
    skf_solve_rig v = {g->n, g->rest, g->offsets, g->bone, g->weight, g->B, NULL};
    return v;
}

/* u = Σ w T v */
static inline void synth_skin(const synth_rig *g, const double *T, double *u)
{
    for (size_t j = 0; j < g->n; ++j) {
        double acc[3] = {0, 0, 0};
        for (size_t p = g->offsets[j]; p < g->offsets[j + 1]; ++p) {
            double x[3];
            skf_transform34_apply(T + 12 * g->bone[p], g->rest + 3 * j, x);
            for (int k = 0; k < 3; ++k)
                acc[k] += g->weight[p] * x[k];
        }
        memcpy(u + 3 * j, acc, sizeof acc);
    }
}

/* One joint of a length-keeping pose, parents first: G_i = G_parent Q
 * (column-major 3×3), p_i = p_parent + G_parent (b_i − b_parent) (a root:
 * p_i = root_p), T_i = [G_i | p_i − G_i b_i]; b, p [3B], G [9B], T [12B]. */
static inline void synth_fk_joint(size_t i, int32_t par, const double *b, const double Q[9],
                                  const double root_p[3], double *G, double *p, double *T)
{
    if (par < 0) {
        memcpy(G + 9 * i, Q, 9 * sizeof(double));
        memcpy(p + 3 * i, root_p, 3 * sizeof(double));
    } else {
        const size_t pp = (size_t)par;
        for (int cc = 0; cc < 3; ++cc)
            for (int rr = 0; rr < 3; ++rr) {
                double s = 0;
                for (int l = 0; l < 3; ++l)
                    s += G[9 * pp + l * 3 + rr] * Q[cc * 3 + l];
                G[9 * i + cc * 3 + rr] = s;
            }
        for (int rr = 0; rr < 3; ++rr) {
            double s = 0;
            for (int l = 0; l < 3; ++l)
                s += G[9 * pp + l * 3 + rr] * (b[3 * i + l] - b[3 * pp + l]);
            p[3 * i + rr] = p[3 * pp + rr] + s;
        }
    }
    memcpy(T + 12 * i, G + 9 * i, 9 * sizeof(double));
    for (int rr = 0; rr < 3; ++rr)
        T[12 * i + 9 + rr] = p[3 * i + rr] - (G[9 * i + rr] * b[3 * i] + G[9 * i + 3 + rr] * b[3 * i + 1] +
                                              G[9 * i + 6 + rr] * b[3 * i + 2]);
}

static inline void synth_rig_free(synth_rig *g)
{
    free(g->rest);
    free(g->offsets);
    free(g->bone);
    free(g->weight);
    free(g->centres);
    memset(g, 0, sizeof *g);
}

/* max over bones (with mass) of the largest entry difference of two transform sets,
 * translations divided by scale. */
static inline double synth_transform_diff(size_t B, const double *A, const double *Bt, double scale,
                                          const skf_solver *s)
{
    double worst = 0;
    for (size_t b = 0; b < B; ++b) {
        if (s && !(skf_solver_bone_mass(s, b) > 0))
            continue;
        for (int e = 0; e < 12; ++e) {
            double d = fabs(A[12 * b + e] - Bt[12 * b + e]) / (e >= 9 ? scale : 1.0);
            if (d > worst)
                worst = d;
        }
    }
    return worst;
}

#endif
