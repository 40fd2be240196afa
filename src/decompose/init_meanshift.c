/* Proxy bones by mean shift over per-triangle rotation sequences.
 *
 * D. L. James and C. D. Twigg, "Skinning Mesh Animations", ACM TOG 24(3)
 * (SIGGRAPH 2005), section 4: each triangle's deformation in every frame is
 * measured relative to the rest pose (the frame [e1, e2, n] of two edges and
 * the scaled normal, deformation gradient D_f D_rest⁻¹), its rotation part
 * taken by polar decomposition (here: Horn's quaternion fit of the gradient,
 * which gives the same nearest rotation); triangles whose rotation sequences
 * are alike move together, and mean shift clustering of the sequences finds
 * how many near-rigid parts the data has without being told.
 *
 * Feature: the 9 rotation entries of S frames (≤ 16, evenly spaced),
 * scaled by 1/sqrt(S), so distances are the RMS over frames of ‖R_a − R_b‖_F.
 * Flat-kernel mean shift (bandwidth h) from ≤ 256 seeds over ≤ 2048 sample
 * triangles; modes closer than h/2 merge; modes that attract fewer than 3 %
 * of the samples are dropped. Every triangle then joins its nearest mode and
 * every vertex the cluster most of its triangles belong to. The sampling
 * bounds the cost at O(seeds · samples · 9S) per iteration, independent of
 * the mesh size.
 */
#include "decompose_internal.h"
#include "skinfit/math.h"
#include "skinfit/solve.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define MS_FRAMES 16
#define MS_SAMPLES 2048
#define MS_SEEDS 256
#define MS_DIM (9 * MS_FRAMES)

static void tri_frame(const double *P, const uint32_t *t, double D[9])
{
    const double *a = P + 3 * t[0], *b = P + 3 * t[1], *c = P + 3 * t[2];
    double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double n[3];
    skf_cross3(n, e1, e2);
    double l = sqrt(skf_norm3(n));
    if (l > 0)
        for (int i = 0; i < 3; ++i)
            n[i] /= l;
    memcpy(D, e1, sizeof e1);
    memcpy(D + 3, e2, sizeof e2);
    memcpy(D + 6, n, sizeof n);
}

static void mul3(const double a[9], const double b[9], double o[9])
{
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r)
            o[c * 3 + r] = a[r] * b[c * 3] + a[3 + r] * b[c * 3 + 1] + a[6 + r] * b[c * 3 + 2];
}

static double dist2(const double *a, const double *b, size_t dim)
{
    double s = 0;
    for (size_t k = 0; k < dim; ++k) {
        double d = a[k] - b[k];
        s += d * d;
    }
    return s;
}

/* Index of the mode (of nm, dim values each) nearest to y; the first on ties. */
static size_t nearest_mode(const double *y, const double *modes, size_t nm, size_t dim)
{
    size_t best = 0;
    double bd = DBL_MAX;
    for (size_t q = 0; q < nm; ++q) {
        double dd = dist2(y, modes + q * dim, dim);
        if (dd < bd) {
            bd = dd;
            best = q;
        }
    }
    return best;
}

skf_status skfi_decompose_init_meanshift(const skfi_decompose_ctx *c, size_t T, const uint32_t *tris, double h,
                             uint32_t *labels, size_t *B_out, skf_error *err)
{
    size_t N = c->N, F = c->F;
    size_t S = F < MS_FRAMES ? F : MS_FRAMES, dim = 9 * S;
    for (size_t t = 0; t < T; ++t)
        for (int k = 0; k < 3; ++k)
            if (tris[3 * t + k] >= N)
                return skf_fail(err, SKF_ERR_FORMAT, "decompose: triangle %zu: vertex %u out of "
                                "range (%zu vertices)", t, tris[3 * t + k], N);
    double *feat = skf_malloc_array(T * dim, sizeof *feat);
    if (!feat)
        return skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory for mean shift");
    double scale = 1.0 / sqrt((double)S);
    long long TT = (long long)T;
#pragma omp parallel for schedule(static)
    for (long long tt = 0; tt < TT; ++tt) {
        size_t t = (size_t)tt;
        double Dr[9], Dri[9], Df[9], G[9], R[9];
        tri_frame(c->rest, tris + 3 * t, Dr);
        bool ok = skf_mat3_invert(Dri, Dr, 1e-300);
        for (size_t s = 0; s < S; ++s) {
            size_t f = S > 1 ? s * (F - 1) / (S - 1) : 0;
            if (ok) {
                tri_frame(c->frames + f * N * 3, tris + 3 * t, Df);
                mul3(Df, Dri, G);
                skf_horn_rotation(G, R);
            } else {
                memset(R, 0, sizeof R);
                R[0] = R[4] = R[8] = 1;
            }
            for (int k = 0; k < 9; ++k)
                feat[t * dim + 9 * s + (size_t)k] = R[k] * scale;
        }
    }
    size_t ns = T < MS_SAMPLES ? T : MS_SAMPLES;
    size_t nseed = ns < MS_SEEDS ? ns : MS_SEEDS;
    double *modes = skf_malloc_array(nseed * dim, sizeof *modes);
    size_t *support = skf_calloc(nseed, sizeof *support);
    uint32_t *tlab = skf_malloc_array(T ? T : 1, sizeof *tlab);
    if (!modes || !support || !tlab) {
        skf_free(feat);
        skf_free(modes);
        skf_free(support);
        skf_free(tlab);
        return skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory for mean shift");
    }
    double h2 = h * h;
    long long NS = (long long)nseed;
#pragma omp parallel for schedule(dynamic, 1)
    for (long long si = 0; si < NS; ++si) {
        double x[MS_DIM], m[MS_DIM];
        memcpy(x, feat + ((size_t)si * T / nseed) * dim, dim * sizeof *x);
        for (int it = 0; it < 50; ++it) {
            memset(m, 0, dim * sizeof *m);
            size_t cnt = 0;
            for (size_t k = 0; k < ns; ++k) {
                const double *y = feat + (k * T / ns) * dim;
                if (dist2(x, y, dim) <= h2) {
                    for (size_t q = 0; q < dim; ++q)
                        m[q] += y[q];
                    ++cnt;
                }
            }
            if (!cnt)
                break;
            for (size_t q = 0; q < dim; ++q)
                m[q] /= (double)cnt;
            double shift = dist2(x, m, dim);
            memcpy(x, m, dim * sizeof *x);
            if (shift < 1e-8 * h2)
                break;
        }
        memcpy(modes + (size_t)si * dim, x, dim * sizeof *x);
    }
    /* Merge modes within h/2. */
    size_t nm = 0;
    for (size_t s = 0; s < nseed; ++s) {
        const double *x = modes + s * dim;
        size_t k = 0;
        for (; k < nm; ++k)
            if (dist2(x, modes + k * dim, dim) <= 0.25 * h2)
                break;
        if (k == nm) {
            memmove(modes + nm * dim, x, dim * sizeof *x);
            ++nm;
        }
    }
    /* Support of each mode among the samples; drop weak ones. */
    for (int pass = 0; pass < 2; ++pass) {
        memset(support, 0, nm * sizeof *support);
        for (size_t k = 0; k < ns; ++k) {
            support[nearest_mode(feat + (k * T / ns) * dim, modes, nm, dim)]++;
        }
        if (pass == 1)
            break;
        size_t keep = 0;
        for (size_t q = 0; q < nm; ++q)
            if (support[q] * 33 >= ns || nm == 1) {
                memmove(modes + keep * dim, modes + q * dim, dim * sizeof *modes);
                ++keep;
            }
        if (keep == 0)
            keep = 1;
        nm = keep;
    }
    /* Every triangle joins its nearest mode. */
#pragma omp parallel for schedule(static)
    for (long long tt = 0; tt < TT; ++tt) {
        tlab[tt] = (uint32_t)nearest_mode(feat + (size_t)tt * dim, modes, nm, dim);
    }
    /* Vertices: majority of incident triangles (ties: the lower label);
     * isolated vertices go to cluster 0 and are reassigned by k-means. */
    uint32_t *votes = skf_calloc(N * (nm < 8 ? nm : 8), sizeof *votes);
    if (nm <= 8 && votes) {
        for (size_t t = 0; t < T; ++t)
            for (int k = 0; k < 3; ++k)
                votes[tris[3 * t + k] * nm + tlab[t]]++;
        for (size_t j = 0; j < N; ++j) {
            uint32_t best = 0;
            for (size_t q = 1; q < nm; ++q)
                if (votes[j * nm + q] > votes[j * nm + best])
                    best = (uint32_t)q;
            labels[j] = best;
        }
    } else {
        /* many clusters: the label of the last incident triangle seen */
        for (size_t j = 0; j < N; ++j)
            labels[j] = 0;
        for (size_t t = 0; t < T; ++t)
            for (int k = 0; k < 3; ++k)
                labels[tris[3 * t + k]] = tlab[t];
    }
    skf_free(votes);
    /* Compact labels (some modes may own no vertex). */
    uint32_t *map = skf_malloc_array(nm, sizeof *map);
    size_t B = 0;
    if (map) {
        for (size_t q = 0; q < nm; ++q)
            map[q] = UINT32_MAX;
        for (size_t j = 0; j < N; ++j) {
            if (map[labels[j]] == UINT32_MAX)
                map[labels[j]] = (uint32_t)B++;
            labels[j] = map[labels[j]];
        }
    }
    skf_free(map);
    skf_free(feat);
    skf_free(modes);
    skf_free(support);
    skf_free(tlab);
    if (B == 0)
        return skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory for mean shift");
    *B_out = B;
    return SKF_OK;
}
