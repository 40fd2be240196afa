/* Per-vertex skinning weights with fixed bone transforms.
 *
 * B. H. Le and Z. Deng, "Smooth Skinning Decomposition with Rigid Bones",
 * ACM TOG 31(6), 2012, section 4.2: for vertex j, minimise
 *     Σ_f ‖ Σ_i w_ij T_fi ṽ_j − u_fj ‖²   s.t. w_ij ≥ 0, Σ_i w_ij = 1, ≤ K non-zeros,
 * a small non-negative least-squares problem per vertex, solved here by the
 * Lawson–Hanson active set with the sum-to-one constraint (nnls.c).
 *
 * Cost. With A_j = [T_f1 ṽ_j … T_fB ṽ_j] stacked over frames, the normal
 * equations are Q = A_jᵀA_j and c = A_jᵀu_j. Q_ik = ṽ_jᵀ G_ik ṽ_j with
 * G_ik = Σ_f T_fiᵀ T_fk (4×4, once per weight step for all bone pairs), so
 * only c costs O(F) per bone. Candidates: the bones whose single-bone fit
 * (error Q_ii − 2 c_i) is best — the ones that reduce the error most on
 * their own — K + 4 of them; if the solution has more than K non-zeros, the
 * K largest are kept and the problem re-solved on them.
 */
#include "decompose_internal.h"

#include <float.h>
#include <string.h>

#define MAX_CAND 64

skf_status skfi_decompose_solve_weights(const skfi_decompose_ctx *c, size_t B, const double *transforms, size_t K,
                            uint32_t *wb, double *w, skf_error *err)
{
    size_t N = c->N, F = c->F;
    size_t C = K + 4;
    if (C > B)
        C = B;
    if (C > MAX_CAND)
        C = MAX_CAND;
    /* Bone-major copy of the transforms: Tb[(i*F + f)*12]. */
    double *Tb = skf_malloc_array(B * F * 12, sizeof *Tb);
    double *G = skf_malloc_array(B * B * 16, sizeof *G);
    if (!Tb || !G) {
        skf_free(Tb);
        skf_free(G);
        return skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory in the weight solve");
    }
    for (size_t f = 0; f < F; ++f)
        for (size_t i = 0; i < B; ++i)
            memcpy(Tb + (i * F + f) * 12, transforms + (f * B + i) * 12, 12 * sizeof(double));
    long long BB = (long long)(B * B);
#pragma omp parallel for schedule(dynamic, 4)
    for (long long ik = 0; ik < BB; ++ik) {
        size_t i = (size_t)ik / B, k = (size_t)ik % B;
        double *g = G + (size_t)ik * 16;
        memset(g, 0, 16 * sizeof(double));
        if (k < i)
            continue;
        for (size_t f = 0; f < F; ++f) {
            const double *a = Tb + (i * F + f) * 12, *b = Tb + (k * F + f) * 12;
            /* (Tᵀ T)_{pq} = Σ_r a[p*3+r] b[q*3+r] over the 4 columns p, q */
            for (int p = 0; p < 4; ++p)
                for (int q = 0; q < 4; ++q)
                    g[p * 4 + q] += a[p * 3] * b[q * 3] + a[p * 3 + 1] * b[q * 3 + 1] +
                                    a[p * 3 + 2] * b[q * 3 + 2];
        }
    }
    for (size_t i = 0; i < B; ++i)
        for (size_t k = 0; k < i; ++k) {
            const double *s = G + (k * B + i) * 16;
            double *d = G + (i * B + k) * 16;
            for (int p = 0; p < 4; ++p)
                for (int q = 0; q < 4; ++q)
                    d[p * 4 + q] = s[q * 4 + p];
        }
    int failed = 0;
    size_t solves = 0, at_cap = 0;
    long long NN = (long long)N;
#pragma omp parallel
    {
        double *cb = skf_malloc_array(B, sizeof *cb);
        double *eb = skf_malloc_array(B, sizeof *eb);
        if (!cb || !eb) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 32) reduction(+ : solves, at_cap)
        for (long long jj = 0; jj < NN; ++jj) {
            if (!cb || !eb)
                continue;
            size_t j = (size_t)jj;
            const double *v = c->rest + 3 * j;
            double vt[4] = {v[0], v[1], v[2], 1};
            for (size_t i = 0; i < B; ++i) {
                /* c_i = Σ_f (T_fi ṽ)·u_fj = Σ_p ṽ_p Σ_f T[p]·u */
                double h[4] = {0, 0, 0, 0};
                const double *T = Tb + i * F * 12;
                const double *u = c->frames + j * 3;
                for (size_t f = 0; f < F; ++f, T += 12, u += N * 3)
                    for (int p = 0; p < 4; ++p)
                        h[p] += T[p * 3] * u[0] + T[p * 3 + 1] * u[1] + T[p * 3 + 2] * u[2];
                cb[i] = h[0] * vt[0] + h[1] * vt[1] + h[2] * vt[2] + h[3];
                const double *g = G + (i * B + i) * 16;
                double q = 0;
                for (int p = 0; p < 4; ++p)
                    for (int r = 0; r < 4; ++r)
                        q += vt[p] * g[p * 4 + r] * vt[r];
                eb[i] = q - 2 * cb[i];
            }
            /* C best single bones. */
            size_t cand[MAX_CAND];
            size_t nc = 0;
            for (size_t i = 0; i < B; ++i) {
                size_t pos = nc < C ? nc++ : C;
                if (pos == C) {
                    if (eb[i] >= eb[cand[C - 1]])
                        continue;
                    pos = C - 1;
                }
                while (pos > 0 && eb[cand[pos - 1]] > eb[i]) {
                    cand[pos] = cand[pos - 1];
                    --pos;
                }
                cand[pos] = i;
            }
            double Q[MAX_CAND * MAX_CAND], cc[MAX_CAND], x[MAX_CAND];
            size_t n = nc;
            for (int pass = 0; pass < 2; ++pass) {
                for (size_t a = 0; a < n; ++a) {
                    cc[a] = cb[cand[a]];
                    for (size_t b = 0; b < n; ++b) {
                        const double *g = G + (cand[a] * B + cand[b]) * 16;
                        double q = 0;
                        for (int p = 0; p < 4; ++p)
                            for (int r = 0; r < 4; ++r)
                                q += vt[p] * g[p * 4 + r] * vt[r];
                        Q[a * n + b] = q;
                    }
                }
                ++solves;
                at_cap += skf_nnls_simplex(n, Q, cc, x) >= (int)(4 * n + 16);
                size_t nnz = 0;
                for (size_t a = 0; a < n; ++a)
                    nnz += x[a] > 0;
                if (nnz <= K)
                    break;
                /* keep the K largest and re-solve on them */
                size_t keep[MAX_CAND];
                for (size_t a = 0; a < n; ++a)
                    keep[a] = a;
                for (size_t a = 1; a < n; ++a)
                    for (size_t b = a; b > 0 && x[keep[b]] > x[keep[b - 1]]; --b) {
                        size_t t = keep[b];
                        keep[b] = keep[b - 1];
                        keep[b - 1] = t;
                    }
                size_t nk[MAX_CAND];
                for (size_t a = 0; a < K; ++a)
                    nk[a] = cand[keep[a]];
                memcpy(cand, nk, K * sizeof *cand);
                n = K;
            }
            /* Write the K slots, sorted descending, zeros padded. */
            uint32_t *ob = wb + j * K;
            double *ow = w + j * K;
            for (size_t k = 0; k < K; ++k) {
                ob[k] = 0;
                ow[k] = 0;
            }
            size_t filled = 0;
            for (size_t a = 0; a < n; ++a) {
                if (!(x[a] > 0))
                    continue;
                size_t pos = filled < K ? filled++ : K;
                if (pos == K) {
                    if (x[a] <= ow[K - 1])
                        continue;
                    pos = K - 1;
                }
                while (pos > 0 && ow[pos - 1] < x[a]) {
                    ow[pos] = ow[pos - 1];
                    ob[pos] = ob[pos - 1];
                    --pos;
                }
                ow[pos] = x[a];
                ob[pos] = (uint32_t)cand[a];
            }
            double s = 0;
            for (size_t k = 0; k < K; ++k)
                s += ow[k];
            if (s > 0)
                for (size_t k = 0; k < K; ++k)
                    ow[k] /= s;
            else {
                ow[0] = 1;
                ob[0] = (uint32_t)cand[0];
            }
        }
        skf_free(cb);
        skf_free(eb);
    }
    skf_free(Tb);
    skf_free(G);
    if (c->nnls_solves)
        *c->nnls_solves += solves;
    if (c->nnls_at_cap)
        *c->nnls_at_cap += at_cap;
    if (failed)
        return skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory in the weight solve");
    return SKF_OK;
}
