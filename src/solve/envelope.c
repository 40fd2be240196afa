/* Envelope (profile, skyline) Cholesky factorisation A = L Lᵀ of a sparse
 * symmetric positive definite matrix stored by rows of its lower envelope, its
 * triangular solves and the symmetric product — for rotation-only's normal
 * equations (rotation_only.c), whose nonzeros stay inside an envelope that the
 * skeleton's post-order keeps narrow (docs/solver.md, D6).
 *
 * Reference: A. George and J. W. H. Liu, "Computer Solution of Large Sparse
 * Positive Definite Systems", Prentice-Hall 1981, §4.2 (the envelope of a
 * matrix; Theorem 4.1.1: the factor L has the envelope of A, so no fill
 * outside it) and §4.3.1 (the bordering / row-oriented scheme used here).
 *
 * Storage: row r holds columns first[r] .. r (first[r] ≤ r, the diagonal
 * last) at L[off[r] .. off[r+1]−1], off[r+1] = off[r] + r − first[r] + 1.
 * The factorisation works by 3×3 blocks (the unknowns come in threes: one
 * rotation or translation per node): the three rows of node R start at column
 * 3·nfirst[R], and each block L(R, C) is one pass over the shared columns with
 * nine independent sums — the scalar dot-product form waits on one addition
 * at a time, this keeps the floating-point units busy (2.7–3× fewer CPU seconds
 * per rotation-only frame on bench_solve's 500-joint tree: 562 → 190–212 ms).
 *
 * Why our own: the same code builds natively and for WebAssembly (which has no
 * LAPACK or CHOLMOD), so both compute the same numbers; every sum runs in a
 * fixed order (ascending column), so the result does not depend on threads.
 * Cost: Σ_r Σ_{c ∈ env(r)} (c − max(first[r], first[c])) multiply-adds.
 * Every sum runs over ascending columns in a fixed order.
 */
#include "solve_internal.h"

#include <math.h>

/* Σ_k x[k]·y[k], k = 0 .. len−1, ascending (the solves). */
static double dot(const double *x, const double *y, size_t len)
{
    double s = 0;
    for (size_t k = 0; k < len; ++k)
        s += x[k] * y[k];
    return s;
}

size_t skfi_env_factor3(size_t nodes, const size_t *nfirst, const size_t *off, double *L)
{
    for (size_t R = 0; R < nodes; ++R) {
        const size_t fr = 3 * nfirst[R];
        double *Lr[3]; /* Lr[p][c − fr] = L(3R + p, c) */
        for (int p = 0; p < 3; ++p)
            Lr[p] = L + off[3 * R + (size_t)p];
        for (size_t C = nfirst[R]; C <= R; ++C) {
            const size_t fc = 3 * nfirst[C], k0 = fr > fc ? fr : fc, c0 = 3 * C;
            const double *Lc[3];
            for (int q = 0; q < 3; ++q)
                Lc[q] = L + off[c0 + (size_t)q];
            /* S = A(R, C) − Σ_{k0 ≤ k < 3C} L(R, k) L(C, k)ᵀ: nine independent sums
             * (on the diagonal block six), each over ascending k */
            double S[3][3];
            for (int p = 0; p < 3; ++p)
                for (int q = 0; q < 3; ++q)
                    S[p][q] = C < R || q <= p ? Lr[p][c0 + (size_t)q - fr] : 0;
            const double *x0 = Lr[0] + (k0 - fr), *x1 = Lr[1] + (k0 - fr), *x2 = Lr[2] + (k0 - fr);
            const double *y0 = Lc[0] + (k0 - fc), *y1 = Lc[1] + (k0 - fc), *y2 = Lc[2] + (k0 - fc);
            const size_t len = c0 - k0;
            if (C < R) {
                for (size_t k = 0; k < len; ++k) {
                    S[0][0] -= x0[k] * y0[k], S[0][1] -= x0[k] * y1[k], S[0][2] -= x0[k] * y2[k];
                    S[1][0] -= x1[k] * y0[k], S[1][1] -= x1[k] * y1[k], S[1][2] -= x1[k] * y2[k];
                    S[2][0] -= x2[k] * y0[k], S[2][1] -= x2[k] * y1[k], S[2][2] -= x2[k] * y2[k];
                }
                /* L(R, C) = S L(C, C)⁻ᵀ, by columns of the 3×3 triangle */
                for (int p = 0; p < 3; ++p)
                    for (int q = 0; q < 3; ++q) {
                        double v = S[p][q];
                        for (int t = 0; t < q; ++t)
                            v -= Lr[p][c0 + (size_t)t - fr] * Lc[q][c0 + (size_t)t - fc];
                        Lr[p][c0 + (size_t)q - fr] = v / Lc[q][c0 + (size_t)q - fc];
                    }
            } else {
                for (size_t k = 0; k < len; ++k) {
                    S[0][0] -= x0[k] * x0[k];
                    S[1][0] -= x1[k] * x0[k], S[1][1] -= x1[k] * x1[k];
                    S[2][0] -= x2[k] * x0[k], S[2][1] -= x2[k] * x1[k], S[2][2] -= x2[k] * x2[k];
                }
                /* the 3×3 diagonal block: L(R, R) L(R, R)ᵀ = S */
                for (int p = 0; p < 3; ++p)
                    for (int q = 0; q <= p; ++q) {
                        double v = S[p][q];
                        for (int t = 0; t < q; ++t)
                            v -= Lr[p][c0 + (size_t)t - fr] * Lr[q][c0 + (size_t)t - fr];
                        if (q < p) {
                            Lr[p][c0 + (size_t)q - fr] = v / Lr[q][c0 + (size_t)q - fr];
                        } else {
                            if (!(v > 0)) /* not positive definite (or NaN) */
                                return c0 + (size_t)p + 1;
                            Lr[p][c0 + (size_t)p - fr] = sqrt(v);
                        }
                    }
            }
        }
    }
    return 0;
}

void skfi_env_solve(size_t n, const size_t *first, const size_t *off, const double *L, double *b)
{
    for (size_t r = 0; r < n; ++r) { /* L y = b, by rows */
        const double *Lr = L + off[r];
        const size_t fr = first[r];
        b[r] = (b[r] - dot(Lr, b + fr, r - fr)) / Lr[r - fr];
    }
    for (size_t r = n; r-- > 0;) { /* Lᵀ x = y, by columns of Lᵀ (rows of L) */
        const double *Lr = L + off[r];
        const size_t fr = first[r];
        const double xr = b[r] / Lr[r - fr];
        b[r] = xr;
        for (size_t c = fr; c < r; ++c)
            b[c] -= Lr[c - fr] * xr;
    }
}

void skfi_env_symv(size_t n, const size_t *first, const size_t *off, const double *A, const double *x,
                   double *y)
{
    for (size_t r = 0; r < n; ++r)
        y[r] = 0;
    for (size_t r = 0; r < n; ++r) {
        const double *Ar = A + off[r];
        const size_t fr = first[r];
        double s = 0;
        for (size_t c = fr; c < r; ++c) {
            s += Ar[c - fr] * x[c];
            y[c] += Ar[c - fr] * x[r];
        }
        y[r] += s + Ar[r - fr] * x[r];
    }
}
