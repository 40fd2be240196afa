/* Affine start: the global linear least-squares solution without rigidity.
 *
 * Reference: docs/solver.md, D4 (the derivation); the same linear system is
 * the transform step of unconstrained skinning decomposition (James & Twigg
 * 2005, "Skinning Mesh Animations", ACM TOG 24(3), §4).
 *
 * Stationarity of E in every T_i (no rigidity): Σ_k T_k M_ki = C_i for all i,
 * i.e. M Tᵀ = Cᵀ with M the 4B×4B block matrix [M_ik] — symmetric positive
 * semi-definite, shared by all frames and by the three coordinates. It is
 * factored ONCE per rig (dense Cholesky, src/base/cholesky.c; 45 bones → 180×180,
 * under a millisecond; dense stays cheap up to a few hundred bones, SKF_SOLVE_MAX_BONES
 * caps it) and each frame is one pair of triangular solves with three right-hand sides
 * (plain substitution, plus one refinement step against the un-ridged M).
 * Ridge: bones whose vertices are coplanar or collinear make M singular; each
 * diagonal block gets ε·(M_ii[d][d] + μ_i·diag²) on its spatial diagonal and
 * ε·μ_i on the homogeneous one (ε = opt.ridge, default 1e-10), which only
 * picks the minimum-norm solution along the flat directions. A bone with μ = 0
 * has an all-zero block; its diagonal block is set to the identity (T = 0,
 * then replaced by the caller's fallback transform).
 * Each 3×3 part is projected to the nearest rotation (Horn with H = A, i.e.
 * the polar factor) and the translation moves so that the bone's weighted
 * rest centroid lands where the affine map puts it.
 */
#include "solve_internal.h"

#include "skinfit/math.h"

#include <math.h>
#include <string.h>

skf_status skfi_solve_affine_factor(skf_solver *s, skf_error *err)
{
    const size_t B = s->B, D = 4 * B;
    skf_free(s->chol);
    s->chol = skf_calloc(D * D, sizeof *s->chol);
    if (!s->chol)
        return skf_fail(err, SKF_ERR_NOMEM, "solver: affine start: out of memory (%zu×%zu matrix)",
                        D, D);
    double *A = s->chol;
    const double eps = s->opt.ridge, d2 = s->diag * s->diag;
    for (size_t i = 0; i < B; ++i)
        for (size_t at = s->nb_off[i]; at < s->nb_off[i + 1]; ++at) {
            size_t k = s->nb_bone[at];
            const double *M = s->pair_M + 16 * s->nb_pair[at];
            /* block (row i, col k) = M_ik; column-major A[col*D + row] */
            for (int r = 0; r < 4; ++r)
                for (int c = 0; c < 4; ++c)
                    A[(4 * k + c) * D + 4 * i + r] = M[r * 4 + c];
        }
    for (size_t i = 0; i < B; ++i) {
        double mu = s->mu[i];
        for (int d = 0; d < 4; ++d) {
            double *a = &A[(4 * i + d) * D + 4 * i + d];
            if (mu > 0)
                *a += (d < 3) ? eps * (*a + mu * d2) : eps * mu;
            else
                *a = 1.0;
        }
    }
    size_t info = skf_cholesky_factor(D, A);
    if (info != 0)
        return skf_fail(err, SKF_ERR_NUMERIC,
                        "solver: affine start: moment matrix not positive definite at row %d "
                        "(raise the ridge)", (int)info);
    return SKF_OK;
}

/* Solve L Lᵀ X = X in place for 3 right-hand sides (columns of length D).
 * The three right-hand sides share one pass over L (skf_cholesky_solve does one). */
static void chol_solve(const double *L, size_t D, double *X)
{
    /* the three right-hand sides advance together: L is read once per pass */
    double *x0 = X, *x1 = X + D, *x2 = X + 2 * D;
    for (size_t i = 0; i < D; ++i) { /* L y = b, column-oriented */
        const double *col = L + i * D;
        double inv = 1.0 / col[i];
        double a0 = x0[i] * inv, a1 = x1[i] * inv, a2 = x2[i] * inv;
        x0[i] = a0;
        x1[i] = a1;
        x2[i] = a2;
        for (size_t k = i + 1; k < D; ++k) {
            double l = col[k];
            x0[k] -= l * a0;
            x1[k] -= l * a1;
            x2[k] -= l * a2;
        }
    }
    for (size_t i = D; i-- > 0;) { /* Lᵀ x = y */
        const double *col = L + i * D;
        double a0 = x0[i], a1 = x1[i], a2 = x2[i];
        for (size_t k = i + 1; k < D; ++k) {
            double l = col[k];
            a0 -= l * x0[k];
            a1 -= l * x1[k];
            a2 -= l * x2[k];
        }
        x0[i] = a0 / col[i];
        x1[i] = a1 / col[i];
        x2[i] = a2 / col[i];
    }
}

void skfi_solve_affine_start(const skf_solver *s, skfi_solve_ws *ws, const double *fallback)
{
    const size_t B = s->B, D = 4 * B;
    double *X = ws->rhs;
    for (size_t i = 0; i < B; ++i)
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 3; ++r)
                X[r * D + 4 * i + c] = (s->mu[i] > 0) ? ws->C[12 * i + c * 3 + r] : 0.0;
    chol_solve(s->chol, D, X);
    /* Iterative refinement against the un-ridged M: the ridge biases the
     * solution by ~ε relatively; one refinement step removes that (to ~ε²) along
     * every well-determined direction (the control run needs ~1e-10 of the
     * diagonal or better), while flat directions stay regularised. */
    double *Rr = ws->rhs2;
    for (int it = 0; it < 1; ++it) {
        for (size_t i = 0; i < B; ++i)
            for (int c = 0; c < 4; ++c)
                for (int r = 0; r < 3; ++r)
                    Rr[r * D + 4 * i + c] = (s->mu[i] > 0) ? ws->C[12 * i + c * 3 + r] : 0.0;
        for (size_t i = 0; i < B; ++i) {
            if (!(s->mu[i] > 0))
                continue;
            for (size_t at = s->nb_off[i]; at < s->nb_off[i + 1]; ++at) {
                size_t k = s->nb_bone[at];
                const double *M = s->pair_M + 16 * s->nb_pair[at];
                for (int r = 0; r < 3; ++r)
                    for (int c = 0; c < 4; ++c) {
                        double acc = 0;
                        for (int l = 0; l < 4; ++l)
                            acc += M[c * 4 + l] * X[r * D + 4 * k + l];
                        Rr[r * D + 4 * i + c] -= acc;
                    }
            }
        }
        chol_solve(s->chol, D, Rr);
        for (size_t e = 0; e < 3 * D; ++e)
            X[e] += Rr[e];
    }
    for (size_t i = 0; i < B; ++i) {
        double *T = ws->Taff + 12 * i;
        if (!(s->mu[i] > 0)) {
            memcpy(T, fallback + 12 * i, 12 * sizeof *T);
            continue;
        }
        double A[12];
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 3; ++r)
                A[c * 3 + r] = X[r * D + 4 * i + c];
        skf_horn_rotation(A, T);
        const double *M = s->pair_M + 16 * s->self_pair[i];
        double cen[3] = {M[3] / s->mu[i], M[7] / s->mu[i], M[11] / s->mu[i]};
        for (int r = 0; r < 3; ++r) {
            double d = 0;
            for (int c = 0; c < 3; ++c)
                d += (A[c * 3 + r] - T[c * 3 + r]) * cen[c];
            T[9 + r] = A[9 + r] + d;
        }
    }
}
