/* Dense Cholesky factorisation A = L Lᵀ and its solve, for the small
 * symmetric positive definite systems of the solver (the affine start's
 * 4B×4B moment matrix, the rotation-only Levenberg–Marquardt step).
 *
 * Reference: G. H. Golub & C. F. Van Loan, "Matrix Computations" (4th ed.),
 * §4.2.5, Algorithm 4.2.2 (outer-product Cholesky).
 *
 * Why our own and not LAPACK's dpotrf/dposv: the same code builds natively
 * and for WebAssembly (where no LAPACK exists), so both builds compute the
 * same numbers. The outer-product form updates the trailing columns with
 * unit-stride axpys in column-major storage, which is what a compiler
 * vectorises; at a few hundred unknowns that is within a small factor of a
 * blocked BLAS-3 factorisation and has no call overhead.
 */
#include "skinfit/math.h"

#include <math.h>

size_t skf_cholesky_factor(size_t n, double *A)
{
    for (size_t j = 0; j < n; ++j) {
        double *cj = A + j * n;
        double d = cj[j];
        if (!(d > 0)) /* not positive definite (or NaN) */
            return j + 1;
        d = sqrt(d);
        cj[j] = d;
        double inv = 1.0 / d;
        for (size_t i = j + 1; i < n; ++i)
            cj[i] *= inv;
        /* trailing update A[k:, k] -= L[k:, j] · L[k, j] for every k > j */
        for (size_t k = j + 1; k < n; ++k) {
            double l = cj[k];
            if (l == 0)
                continue;
            double *ck = A + k * n;
            for (size_t i = k; i < n; ++i)
                ck[i] -= cj[i] * l;
        }
    }
    return 0;
}

void skf_cholesky_solve(size_t n, const double *L, double *b)
{
    for (size_t i = 0; i < n; ++i) { /* L y = b, column-oriented */
        const double *col = L + i * n;
        double yi = b[i] / col[i];
        b[i] = yi;
        for (size_t k = i + 1; k < n; ++k)
            b[k] -= col[k] * yi;
    }
    for (size_t i = n; i-- > 0;) { /* Lᵀ x = y */
        const double *col = L + i * n;
        double xi = b[i];
        for (size_t k = i + 1; k < n; ++k)
            xi -= col[k] * b[k];
        b[i] = xi / col[i];
    }
}
