/* Anderson acceleration of a fixed-point iteration x ← g(x).
 *
 * D. G. Anderson, "Iterative Procedures for Nonlinear Integral Equations",
 * J. ACM 12(4), 1965; in the "type II" form of H. F. Walker and P. Ni,
 * "Anderson Acceleration for Fixed-Point Iterations", SIAM J. Numer. Anal.
 * 49(4), 2011: with residuals f_k = g(x_k) − x_k and the differences of the
 * last m steps ΔF = [f_{i+1} − f_i], ΔG = [g_{i+1} − g_i],
 *     γ = argmin ‖f_k − ΔF γ‖,   x_{k+1} = g(x_k) − ΔG γ.
 * The safeguard (accept the mixed step only if the energy does not rise,
 * else restart from the plain step) follows Y. Peng, B. Deng, J. Zhang,
 * F. Geng, W. Qin and L. Liu, "Anderson Acceleration for Geometry
 * Optimization and Physics Simulation", ACM TOG 37(4), 2018; it lives in the
 * caller (ssdr.c), which owns the energy.
 *
 * The inner products are weighted per entry (period-p pattern wt[0..p-1]):
 * the alternation's state mixes rotation entries (no unit) with translations
 * (scene units), which are scaled by 1/diagonal. The m×m normal equations
 * get a Tikhonov term of 1e-10 of their largest diagonal entry; when their
 * Cholesky factorisation fails the plain step is returned.
 */
#include "decompose_internal.h"
#include "skinfit/math.h"

#include <math.h>
#include <string.h>

bool skfi_anderson_init(skfi_anderson *a, size_t n, size_t m, const double *wt, size_t period)
{
    memset(a, 0, sizeof *a);
    if (m > SKFI_ANDERSON_MAX_M)
        m = SKFI_ANDERSON_MAX_M;
    a->n = n;
    a->m = m;
    a->wt = wt;
    a->period = period;
    a->g_prev = skf_malloc_array(n, sizeof *a->g_prev);
    a->f_prev = skf_malloc_array(n, sizeof *a->f_prev);
    a->dG = skf_malloc_array(m * n, sizeof *a->dG);
    a->dF = skf_malloc_array(m * n, sizeof *a->dF);
    if (!a->g_prev || !a->f_prev || !a->dG || !a->dF) {
        skfi_anderson_free(a);
        return false;
    }
    return true;
}

void skfi_anderson_free(skfi_anderson *a)
{
    skf_free(a->g_prev);
    skf_free(a->f_prev);
    skf_free(a->dG);
    skf_free(a->dF);
    memset(a, 0, sizeof *a);
}

void skfi_anderson_reset(skfi_anderson *a)
{
    a->have_prev = false;
    a->count = 0;
    a->head = 0;
}

bool skfi_anderson_step(skfi_anderson *a, const double *x, const double *g, double *x_next)
{
    size_t n = a->n, m = a->m, per = a->period;
    /* the new slot (when a previous step exists): its difference column and,
     * in the same pass, the new weighted residual */
    size_t h = a->head;
    bool add = a->have_prev && m > 0;
    double *df = add ? a->dF + h * n : NULL, *dg = add ? a->dG + h * n : NULL;
    for (size_t e0 = 0; e0 < n; e0 += per)
        for (size_t p = 0; p < per && e0 + p < n; ++p) {
            size_t e = e0 + p;
            double f = (g[e] - x[e]) * a->wt[p];
            if (add) {
                df[e] = f - a->f_prev[e];
                dg[e] = g[e] - a->g_prev[e];
            }
            a->f_prev[e] = f;
            a->g_prev[e] = g[e];
        }
    if (add) {
        a->head = (h + 1) % m;
        if (a->count < m)
            ++a->count;
    }
    a->have_prev = true;
    if (x_next != g)
        memcpy(x_next, g, n * sizeof *x_next);
    size_t q = a->count;
    if (q == 0)
        return false;
    /* One pass over the entries for the dot products this step needs: the
     * right-hand side ΔFᵀ f_k (every slot) and the new slot's row of ΔFᵀΔF
     * (the other slots' rows are unchanged since they were made). Each sum
     * runs over e in order from 0, as a dot product of its own would: the
     * same values as recomputing the whole matrix, with independent
     * accumulators instead of one latency-bound chain per entry. */
    double r[SKFI_ANDERSON_MAX_M], gh[SKFI_ANDERSON_MAX_M];
    const double *col[SKFI_ANDERSON_MAX_M];
    for (size_t i = 0; i < q; ++i) {
        r[i] = gh[i] = 0;
        col[i] = a->dF + i * n;
    }
    /* (q > 0 only after a difference was added: init and reset clear both
     * count and have_prev, so this step added slot h) */
    const double *fk = a->f_prev;
    for (size_t e = 0; e < n; ++e) {
        double dh = df[e], fe = fk[e];
        for (size_t i = 0; i < q; ++i) {
            double di = col[i][e];
            r[i] += di * fe;
            gh[i] += di * dh;
        }
    }
    for (size_t i = 0; i < q; ++i)
        a->gram[h * SKFI_ANDERSON_MAX_M + i] = a->gram[i * SKFI_ANDERSON_MAX_M + h] = gh[i];
    /* normal equations (ΔFᵀΔF + μI) γ = ΔFᵀ f_k, in slot order */
    double Mq[SKFI_ANDERSON_MAX_M * SKFI_ANDERSON_MAX_M];
    for (size_t i = 0; i < q; ++i)
        for (size_t k = 0; k < q; ++k)
            Mq[i * q + k] = a->gram[i * SKFI_ANDERSON_MAX_M + k];
    double dmax = 0;
    for (size_t i = 0; i < q; ++i)
        dmax = Mq[i * q + i] > dmax ? Mq[i * q + i] : dmax;
    if (!(dmax > 0) || !isfinite(dmax))
        return false;
    for (size_t i = 0; i < q; ++i)
        Mq[i * q + i] += 1e-10 * dmax;
    /* Mq is symmetric, so its row-major fill is also the column-major one */
    double gam[SKFI_ANDERSON_MAX_M];
    memcpy(gam, r, q * sizeof *gam);
    if (skf_cholesky_factor(q, Mq) != 0)
        return false;
    skf_cholesky_solve(q, Mq, gam);
    for (size_t i = 0; i < q; ++i)
        if (!isfinite(gam[i]))
            return false;
    for (size_t i = 0; i < q; ++i) {
        const double *dgi = a->dG + i * n;
        for (size_t e = 0; e < n; ++e)
            x_next[e] -= gam[i] * dgi[e];
    }
    return true;
}
