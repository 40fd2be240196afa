/* Corrective shapes: PCA of the skinning residual in rest space.
 *
 * The residual u_fj − s_fj of frame f is pulled back to the rest pose
 * through the vertex's blended rotation A_fj = Σ_i w_ij R_fi, so that a
 * rest-space offset δ_fj = A_fj⁻¹ (u_fj − s_fj) reproduces it exactly after
 * skinning (glTF morph targets are added before skinning). The F × 3N matrix
 * X of these offsets is approximated at rank M by its truncated singular
 * value decomposition (Eckart–Young; LAPACKE dgesdd, no centring — a mean
 * shape would need a weight fixed at 1): shapes d_m = the M leading right
 * singular vectors, coefficients c_fm = U_fm σ_m, rescaled so that
 * max_f |c_fm| = 1 (morph weights of the usual size). This is the residual
 * compression of Kavan et al., "Fast and Efficient Skinning of Animated
 * Meshes", Eurographics 2010, section 5, applied to the rigid-bone model.
 */
#include "decompose_internal.h"
#include "skinfit/math.h"

#include <lapacke.h>
#include <math.h>
#include <string.h>

skf_status skfi_decompose_pca(const skfi_decompose_ctx *c, skf_decomposition *d, size_t M, skf_error *err)
{
    size_t N = c->N, F = c->F, K = d->max_influences, B = d->bone_count, D = 3 * N;
    size_t r = F < D ? F : D;
    if (M > r) {
        skf_warn_as(c->warnings, SKF_KIND_OPTION, "skf_decompose_options.pca_shapes",
                    "decompose: pca_shapes %zu reduced to %zu (frames x coordinates)", M, r);
        M = r;
    }
    double *X = skf_malloc_array(F * D, sizeof *X);
    double *S = skf_malloc_array(r, sizeof *S);
    double *U = skf_malloc_array(F * r, sizeof *U);
    double *VT = skf_malloc_array(r * D, sizeof *VT);
    d->shapes = skf_calloc(M * D, sizeof *d->shapes);
    d->shape_weights = skf_calloc(F * M, sizeof *d->shape_weights);
    if (!X || !S || !U || !VT || !d->shapes || !d->shape_weights) {
        skf_free(X);
        skf_free(S);
        skf_free(U);
        skf_free(VT);
        return skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory for the PCA shapes");
    }
    long long FF = (long long)F;
#pragma omp parallel for schedule(static)
    for (long long ff = 0; ff < FF; ++ff) {
        size_t f = (size_t)ff;
        double *x = X + f * D;
        skf_decomposition_frame(d, f, false, x);
        const double *u = c->frames + f * D;
        const double *T0 = d->transforms + f * B * 12;
        for (size_t j = 0; j < N; ++j) {
            double A[9] = {0}, Ai[9];
            for (size_t k = 0; k < K; ++k) {
                double wk = d->weight[j * K + k];
                if (wk == 0)
                    continue;
                const double *T = T0 + d->weight_bone[j * K + k] * 12;
                for (int q = 0; q < 9; ++q)
                    A[q] += wk * T[q];
            }
            double e[3] = {u[3 * j] - x[3 * j], u[3 * j + 1] - x[3 * j + 1],
                           u[3 * j + 2] - x[3 * j + 2]};
            if (skf_mat3_invert(Ai, A, 1e-8)) {
                for (int q = 0; q < 3; ++q)
                    x[3 * j + q] = Ai[q] * e[0] + Ai[3 + q] * e[1] + Ai[6 + q] * e[2];
            } else {
                x[3 * j] = x[3 * j + 1] = x[3 * j + 2] = 0;
            }
        }
    }
    lapack_int info = LAPACKE_dgesdd(LAPACK_ROW_MAJOR, 'S', (lapack_int)F, (lapack_int)D, X,
                                     (lapack_int)D, S, U, (lapack_int)r, VT, (lapack_int)D);
    skf_status st = SKF_OK;
    if (info != 0) {
        st = skf_fail(err, SKF_ERR_NUMERIC, "decompose: SVD of the residual failed (info %d)",
                      (int)info);
    } else {
        for (size_t m = 0; m < M; ++m) {
            double mx = 0;
            for (size_t f = 0; f < F; ++f)
                mx = fmax(mx, fabs(U[f * r + m] * S[m]));
            double scale = mx > 0 ? mx : 1;
            for (size_t f = 0; f < F; ++f)
                d->shape_weights[f * M + m] = U[f * r + m] * S[m] / scale;
            for (size_t k = 0; k < D; ++k)
                d->shapes[m * D + k] = VT[m * D + k] * scale;
        }
        d->shape_count = M;
    }
    skf_free(X);
    skf_free(S);
    skf_free(U);
    skf_free(VT);
    return st;
}
