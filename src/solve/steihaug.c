/* Truncated, preconditioned conjugate gradients for the trust-region
 * subproblem  min q(s) = gᵀs + ½ sᵀHs  subject to ‖s‖_M ≤ Δ,  ‖s‖_M² = sᵀMs.
 *
 * References: T. Steihaug, "The conjugate gradient method and trust regions
 * in large scale optimization", SIAM J. Numer. Anal. 20(3), 1983; Ph. L.
 * Toint, "Towards an efficient sparsity exploiting Newton method for
 * minimization", in Sparse Matrices and Their Uses, 1981; the M-norm
 * recurrences as in A. R. Conn, N. I. M. Gould and Ph. L. Toint,
 * "Trust-Region Methods", SIAM 2000, Algorithm 7.5.1.
 *
 * H may be indefinite; M (the preconditioner) must be symmetric positive
 * definite. From s = 0, CG on Hs = −g in the M inner product; the iterates'
 * M-norms grow monotonically (Steihaug's theorem 2.1), so the first iterate
 * past the boundary, or a direction of non-positive curvature, ends the
 * solve on the boundary along the current direction. Otherwise it stops
 * when the preconditioned residual ‖r‖_{M⁻¹} falls to tol·‖g‖_{M⁻¹}, or after
 * max_it products with H (the iterate then interior, truncated). Used by
 * rotation_only.c (docs/solver.md D6f); arrays only, no allocation.
 */
#include "solve_internal.h"

#include <math.h>

static double dot(size_t n, const double *a, const double *b)
{
    double s = 0;
    for (size_t k = 0; k < n; ++k)
        s += a[k] * b[k];
    return s;
}

/* σ ≥ 0 with ‖s + σp‖_M = Δ, from ss = sᵀMs < Δ², sp = sᵀMp, pp = pᵀMp > 0 */
static double to_boundary(double ss, double sp, double pp, double delta)
{
    const double c = ss - delta * delta, disc = sqrt(fmax(sp * sp - pp * c, 0));
    /* the positive root of pp σ² + 2 sp σ + c = 0 (c ≤ 0), in its stable form */
    return sp > 0 ? -c / (sp + disc) : (disc - sp) / pp;
}

int skfi_steihaug(size_t n, const double *g, double delta, double tol, int max_it,
                  void (*hmul)(void *ctx, const double *x, double *y), void (*msolve)(void *ctx, double *x),
                  void *ctx, double *s, double *work, skfi_steihaug_info *info)
{
    double *r = work, *z = work + n, *p = work + 2 * n, *hp = work + 3 * n;
    for (size_t k = 0; k < n; ++k) {
        s[k] = 0;
        r[k] = g[k];
        z[k] = g[k];
    }
    msolve(ctx, z);
    double rz = dot(n, r, z);
    info->iterations = 0;
    info->gnorm_m = sqrt(fmax(rz, 0));
    info->snorm_m = 0;
    if (!(rz > 0))
        return SKFI_STEIHAUG_INTERIOR; /* g = 0: s = 0 */
    const double stop = tol * tol * rz;
    for (size_t k = 0; k < n; ++k)
        p[k] = -z[k];
    double ss = 0, sp = 0, pp = rz;
    for (int it = 0;; ++it) {
        if (it >= max_it) {
            info->snorm_m = sqrt(ss);
            return SKFI_STEIHAUG_TRUNCATED;
        }
        hmul(ctx, p, hp);
        ++info->iterations;
        const double kappa = dot(n, p, hp);
        if (!(kappa > 0) || !isfinite(kappa)) { /* negative curvature: to the boundary along p */
            if (!isfinite(delta)) { /* no boundary (a linear solve): s as it is */
                info->snorm_m = sqrt(ss);
                return SKFI_STEIHAUG_NEGATIVE;
            }
            const double sig = to_boundary(ss, sp, pp, delta);
            for (size_t k = 0; k < n; ++k)
                s[k] += sig * p[k];
            info->snorm_m = delta;
            return SKFI_STEIHAUG_NEGATIVE;
        }
        const double alpha = rz / kappa;
        const double ss_next = ss + 2 * alpha * sp + alpha * alpha * pp;
        if (ss_next >= delta * delta) { /* past the boundary: stop on it */
            const double sig = to_boundary(ss, sp, pp, delta);
            for (size_t k = 0; k < n; ++k)
                s[k] += sig * p[k];
            info->snorm_m = delta;
            return SKFI_STEIHAUG_BOUNDARY;
        }
        for (size_t k = 0; k < n; ++k) {
            s[k] += alpha * p[k];
            r[k] += alpha * hp[k];
            z[k] = r[k];
        }
        ss = ss_next;
        msolve(ctx, z);
        const double rz_next = dot(n, r, z);
        if (!(rz_next > stop)) {
            info->snorm_m = sqrt(ss);
            return SKFI_STEIHAUG_INTERIOR;
        }
        const double beta = rz_next / rz;
        for (size_t k = 0; k < n; ++k)
            p[k] = -z[k] + beta * p[k];
        sp = beta * (sp + alpha * pp);
        pp = rz_next + beta * beta * pp;
        rz = rz_next;
    }
}
