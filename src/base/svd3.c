/* Singular value decomposition of a 3×3 matrix by one-sided Jacobi rotations.
 *
 * References: M. R. Hestenes, "Inversion of matrices by biorthogonalization
 * and related results", J. SIAM 6(1), 1958 (one-sided Jacobi);
 * J. Demmel & K. Veselić, "Jacobi's method is more accurate than QR",
 * SIAM J. Matrix Anal. Appl. 13(4), 1992 (its accuracy and stopping rule).
 *
 * Why: the rest-surface alignment needs the SVD of a 3×3 cross-covariance
 * (Umeyama's similarity) and an eigen-frame of a 3×3 second-moment matrix
 * (for a symmetric positive semi-definite matrix the right singular vectors
 * are its eigenvectors). LAPACK's dgesvd/dsyev did this before; this code is
 * the same in the native and the WebAssembly build, so both compute the same
 * numbers. Rotations are applied on the right, A V = U Σ: columns of A·V are
 * made pairwise orthogonal; V stays orthonormal to rounding whatever the rank,
 * the singular values are the column norms. Columns of U for zero singular
 * values are completed to a right-handed orthonormal frame.
 */
#include "skinfit/math.h"

#include <math.h>
#include <string.h>

static void unit_orthogonal(const double a[3], double out[3])
{
    /* a unit vector orthogonal to the unit vector a */
    int k = (fabs(a[0]) <= fabs(a[1]) && fabs(a[0]) <= fabs(a[2])) ? 0 : (fabs(a[1]) <= fabs(a[2]) ? 1 : 2);
    double e[3] = {0, 0, 0};
    e[k] = 1;
    skf_cross3(out, a, e);
    double n = skf_norm3(out);
    for (int r = 0; r < 3; ++r)
        out[r] /= n;
}

int skf_svd3(const double A[9], double U[9], double s[3], double V[9])
{
    double a[9];
    memcpy(a, A, sizeof a);
    memset(V, 0, 9 * sizeof *V);
    V[0] = V[4] = V[8] = 1;
    int sweep = 0;
    for (; sweep < 64; ++sweep) {
        int rotated = 0;
        for (int p = 0; p < 2; ++p)
            for (int q = p + 1; q < 3; ++q) {
                double *ap = a + 3 * p, *aq = a + 3 * q;
                double alpha = 0, beta = 0, gamma = 0;
                for (int r = 0; r < 3; ++r) {
                    alpha += ap[r] * ap[r];
                    beta += aq[r] * aq[r];
                    gamma += ap[r] * aq[r];
                }
                /* Demmel–Veselić: stop when |γ| ≤ ε √(αβ) */
                if (gamma == 0 || fabs(gamma) <= 2.2e-16 * sqrt(alpha * beta))
                    continue;
                rotated = 1;
                double zeta = (beta - alpha) / (2.0 * gamma);
                double t = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1.0 + zeta * zeta));
                double c = 1.0 / sqrt(1.0 + t * t), sn = c * t;
                double *vp = V + 3 * p, *vq = V + 3 * q;
                for (int r = 0; r < 3; ++r) {
                    double x = ap[r], y = aq[r];
                    ap[r] = c * x - sn * y;
                    aq[r] = sn * x + c * y;
                    x = vp[r];
                    y = vq[r];
                    vp[r] = c * x - sn * y;
                    vq[r] = sn * x + c * y;
                }
            }
        if (!rotated)
            break;
    }
    double n[3];
    for (int k = 0; k < 3; ++k)
        n[k] = skf_norm3(a + 3 * k);
    /* sort descending (columns of a and V together) */
    for (int i = 0; i < 2; ++i)
        for (int j = i + 1; j < 3; ++j)
            if (n[j] > n[i]) {
                double t = n[i];
                n[i] = n[j];
                n[j] = t;
                for (int r = 0; r < 3; ++r) {
                    t = a[3 * i + r]; a[3 * i + r] = a[3 * j + r]; a[3 * j + r] = t;
                    t = V[3 * i + r]; V[3 * i + r] = V[3 * j + r]; V[3 * j + r] = t;
                }
            }
    /* a column is treated as zero below ε·σ₁ (its direction is rounding noise) */
    double tiny = 8.9e-16 * n[0];
    int rank = 0;
    for (int k = 0; k < 3; ++k) {
        s[k] = n[k];
        if (n[k] > tiny && n[k] > 0) {
            for (int r = 0; r < 3; ++r)
                U[3 * k + r] = a[3 * k + r] / n[k];
            rank = k + 1;
        }
    }
    if (rank == 0) {
        memset(U, 0, 9 * sizeof *U);
        U[0] = U[4] = U[8] = 1;
    } else if (rank == 1) {
        unit_orthogonal(U, U + 3);
        skf_cross3(U + 6, U, U + 3);
    } else if (rank == 2) {
        skf_cross3(U + 6, U, U + 3);
    }
    return sweep;
}
