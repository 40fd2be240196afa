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
    size_t n = a->n, m = a->m;
    if (a->have_prev && m > 0) {
        double *df = a->dF + a->head * n, *dg = a->dG + a->head * n;
        for (size_t e = 0; e < n; ++e) {
            double f = (g[e] - x[e]) * a->wt[e % a->period];
            df[e] = f - a->f_prev[e];
            dg[e] = g[e] - a->g_prev[e];
        }
        a->head = (a->head + 1) % m;
        if (a->count < m)
            ++a->count;
    }
    for (size_t e = 0; e < n; ++e) {
        a->f_prev[e] = (g[e] - x[e]) * a->wt[e % a->period];
        a->g_prev[e] = g[e];
    }
    a->have_prev = true;
    if (x_next != g)
        memcpy(x_next, g, n * sizeof *x_next);
    size_t q = a->count;
    if (q == 0)
        return false;
    /* normal equations (ΔFᵀΔF + μI) γ = ΔFᵀ f_k, in slot order */
    double Mq[SKFI_ANDERSON_MAX_M * SKFI_ANDERSON_MAX_M], r[SKFI_ANDERSON_MAX_M];
    for (size_t i = 0; i < q; ++i) {
        const double *di = a->dF + i * n;
        double s = 0;
        for (size_t e = 0; e < n; ++e)
            s += di[e] * a->f_prev[e];
        r[i] = s;
        for (size_t k = 0; k <= i; ++k) {
            const double *dk = a->dF + k * n;
            double t = 0;
            for (size_t e = 0; e < n; ++e)
                t += di[e] * dk[e];
            Mq[i * q + k] = Mq[k * q + i] = t;
        }
    }
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
        const double *dg = a->dG + i * n;
        for (size_t e = 0; e < n; ++e)
            x_next[e] -= gam[i] * dg[e];
    }
    return true;
}
