/* Symmetric 4×4 eigen-decomposition by cyclic Jacobi rotations.
 *
 * Reference: C. G. J. Jacobi (1846); the cyclic-by-row variant and its
 * stopping rule as in Golub & Van Loan, "Matrix Computations", §8.5.
 *
 * Why Jacobi and not power iteration: Horn's quaternion method needs the
 * eigenvector of the largest eigenvalue of a 4×4 symmetric matrix to machine
 * precision. A shifted power iteration converges at the rate of the eigenvalue
 * gap ratio and stalls near 1e-5 rad when the gap is small; Jacobi converges
 * quadratically once the off-diagonal is small and is exact to rounding for
 * any spectrum, including repeated eigenvalues. A 4×4 needs 3–6 sweeps.
 */
#include "skinfit/math.h"

#include <math.h>
#include <string.h>

int skf_sym4_eigen(const double A[16], double evals[4], double evecs[16])
{
    double a[4][4], v[4][4];
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) {
            /* symmetrise defensively: use the mean of the two triangles */
            a[r][c] = 0.5 * (A[r * 4 + c] + A[c * 4 + r]);
            v[r][c] = (r == c) ? 1.0 : 0.0;
        }
    int sweep = 0;
    for (; sweep < 64; ++sweep) {
        double off = 0;
        for (int p = 0; p < 4; ++p)
            for (int q = p + 1; q < 4; ++q)
                off += a[p][q] * a[p][q];
        if (off == 0)
            break;
        for (int p = 0; p < 3; ++p)
            for (int q = p + 1; q < 4; ++q) {
                double apq = a[p][q];
                if (apq == 0)
                    continue;
                double app = a[p][p], aqq = a[q][q];
                /* Negligible against both diagonal entries: zero it (the
                 * rotation would change nothing representable). */
                if (sweep > 2 && fabs(app) + 1e2 * fabs(apq) == fabs(app) &&
                    fabs(aqq) + 1e2 * fabs(apq) == fabs(aqq)) {
                    a[p][q] = a[q][p] = 0;
                    continue;
                }
                double theta = (aqq - app) / (2.0 * apq);
                double t = 1.0 / (fabs(theta) + sqrt(theta * theta + 1.0));
                if (theta < 0)
                    t = -t;
                double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                a[p][p] = app - t * apq;
                a[q][q] = aqq + t * apq;
                a[p][q] = a[q][p] = 0;
                for (int r = 0; r < 4; ++r) {
                    if (r != p && r != q) {
                        double arp = a[r][p], arq = a[r][q];
                        a[r][p] = a[p][r] = c * arp - s * arq;
                        a[r][q] = a[q][r] = s * arp + c * arq;
                    }
                    double vrp = v[r][p], vrq = v[r][q];
                    v[r][p] = c * vrp - s * vrq;
                    v[r][q] = s * vrp + c * vrq;
                }
            }
    }
    /* sort descending (selection sort on 4 entries) */
    int idx[4] = {0, 1, 2, 3};
    for (int i = 0; i < 4; ++i)
        for (int j = i + 1; j < 4; ++j)
            if (a[idx[j]][idx[j]] > a[idx[i]][idx[i]]) {
                int tmp = idx[i];
                idx[i] = idx[j];
                idx[j] = tmp;
            }
    for (int k = 0; k < 4; ++k) {
        evals[k] = a[idx[k]][idx[k]];
        for (int r = 0; r < 4; ++r)
            evecs[r * 4 + k] = v[r][idx[k]];
    }
    return sweep;
}
