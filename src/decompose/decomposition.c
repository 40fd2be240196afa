/* The decomposition result object: release, reconstruction of a frame, and
 * the error metrics of docs/decompose.md (RMS as printed by Dem Bones;
 * E_RMS of L. Kavan, P.-P. Sloan and C. O'Sullivan, "Fast and Efficient
 * Skinning of Animated Meshes", Eurographics 2010). The algorithms that fill
 * it (ssdr.c, pca.c) call into this file; it calls none of them.
 */
#include "decompose_internal.h"
#include "base/lanes.h"

#include <math.h>
#include <omp.h>
#include <string.h>

void skf_decomposition_free(skf_decomposition *d)
{
    if (!d)
        return;
    skf_free(d->rest);
    skf_free(d->weight_bone);
    skf_free(d->weight);
    skf_free(d->transforms);
    skf_free(d->joint_rest);
    skf_free(d->parent);
    skf_free(d->shapes);
    skf_free(d->shape_weights);
    skf_free(d);
}

/* p = Σ_k w_k (R_k v + t_k) over vertex j's non-zero slots, in slot order; the
 * sums in locals (the compiler cannot keep p[] in registers across the
 * stores of a caller's buffer), the same operations in the same order as
 * p[r] += w·(T[r] v0 + T[3+r] v1 + T[6+r] v2 + T[9+r]). */
static inline void skin_vertex(const double *T0, const uint32_t *wb, const double *w, size_t K,
                               double v0, double v1, double v2, double p[3])
{
    double p0 = 0, p1 = 0, p2 = 0;
    for (size_t k = 0; k < K; ++k) {
        double wk = w[k];
        if (wk == 0)
            continue;
        const double *T = T0 + (size_t)wb[k] * 12;
        p0 += wk * (T[0] * v0 + T[3] * v1 + T[6] * v2 + T[9]);
        p1 += wk * (T[1] * v0 + T[4] * v1 + T[7] * v2 + T[10]);
        p2 += wk * (T[2] * v0 + T[5] * v1 + T[8] * v2 + T[11]);
    }
    p[0] = p0;
    p[1] = p1;
    p[2] = p2;
}

void skf_decomposition_frame(const skf_decomposition *d, size_t f, bool with_shapes, double *out)
{
    size_t N = d->vertex_count, K = d->max_influences, B = d->bone_count, M = d->shape_count;
    const double *T0 = d->transforms + f * B * 12;
    for (size_t j = 0; j < N; ++j) {
        double v[3] = {d->rest[3 * j], d->rest[3 * j + 1], d->rest[3 * j + 2]};
        if (with_shapes && M && d->shapes)
            for (size_t m = 0; m < M; ++m) {
                double cm = d->shape_weights[f * M + m];
                const double *s = d->shapes + m * N * 3 + 3 * j;
                v[0] += cm * s[0];
                v[1] += cm * s[1];
                v[2] += cm * s[2];
            }
        skin_vertex(T0, d->weight_bone + j * K, d->weight + j * K, K, v[0], v[1], v[2], out + 3 * j);
    }
}

/* ‖a − b‖² of one point added to *sum, and the largest kept in *mx. */
static inline void add_error(const double *a, const double *b, double *sum, double *mx)
{
    double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    double d2 = dx * dx + dy * dy + dz * dz;
    *sum += d2;
    if (d2 > *mx)
        *mx = d2;
}

void skf_decompose_measure(size_t N, size_t F, const double *a, const double *b, double diagonal,
                           skf_decompose_metrics *m)
{
    double sum = 0, mx = 0;
    for (size_t k = 0; k < N * F; ++k)
        add_error(a + 3 * k, b + 3 * k, &sum, &mx);
    double nf = (double)N * (double)F;
    m->diagonal = diagonal;
    m->rms = nf > 0 ? sqrt(sum / nf) : 0;
    m->erms = nf > 0 && diagonal > 0 ? 1000.0 * sqrt(sum) / (sqrt(3.0 * nf) * diagonal) : 0;
    m->max_error = sqrt(mx);
    m->max_error_pct = diagonal > 0 ? 100.0 * m->max_error / diagonal : 0;
}

/* The metric pass without shapes on SKF_LANES frames at once (frame l of
 * the group in lane l; lanes past nl repeat the last frame and are dropped):
 * per lane the operations of skin_vertex and add_error in their order, so
 * fsum[l] and the largest error are the one-frame loop's bit for bit
 * (base/lanes.h; test_decompose_measure compares them). T4: scratch of
 * B·12 vectors. */
static SKF_INL void measure_group_body(const skfi_decompose_ctx *c, const skf_decomposition *d,
                                       size_t f0, size_t nl, skf_v4d *T4, double *fsum, double *mx)
{
    const size_t N = c->N, K = d->max_influences, B12 = d->bone_count * 12;
    const double *u[SKF_LANES];
    for (size_t l = 0; l < SKF_LANES; ++l) {
        size_t f = f0 + (l < nl ? l : nl - 1);
        const double *T0 = d->transforms + f * B12;
        for (size_t e = 0; e < B12; ++e)
            T4[e][l] = T0[e];
        u[l] = c->frames + f * N * 3;
    }
    skf_v4d s = skf_vset(0), m = skf_vset(0);
    for (size_t k = 0; k < N; ++k) {
        const double *v = d->rest + 3 * k, *w = d->weight + k * K;
        const uint32_t *wb = d->weight_bone + k * K;
        const double v0 = v[0], v1 = v[1], v2 = v[2];
        skf_v4d p0 = skf_vset(0), p1 = skf_vset(0), p2 = skf_vset(0);
        for (size_t q = 0; q < K; ++q) {
            double wk = w[q];
            if (wk == 0)
                continue;
            const skf_v4d *T = T4 + (size_t)wb[q] * 12;
            p0 += wk * (T[0] * v0 + T[3] * v1 + T[6] * v2 + T[9]);
            p1 += wk * (T[1] * v0 + T[4] * v1 + T[7] * v2 + T[10]);
            p2 += wk * (T[2] * v0 + T[5] * v1 + T[8] * v2 + T[11]);
        }
        skf_v4d a0 = {u[0][3 * k], u[1][3 * k], u[2][3 * k], u[3][3 * k]};
        skf_v4d a1 = {u[0][3 * k + 1], u[1][3 * k + 1], u[2][3 * k + 1], u[3][3 * k + 1]};
        skf_v4d a2 = {u[0][3 * k + 2], u[1][3 * k + 2], u[2][3 * k + 2], u[3][3 * k + 2]};
        skf_v4d dx = a0 - p0, dy = a1 - p1, dz = a2 - p2;
        skf_v4d d2 = dx * dx + dy * dy + dz * dz;
        s += d2;
        m = skf_vsel((skf_v4l)(d2 > m), d2, m);
    }
    for (size_t l = 0; l < nl; ++l) {
        fsum[f0 + l] = s[l];
        if (m[l] > *mx)
            *mx = m[l];
    }
}

static void measure_group_generic(const skfi_decompose_ctx *c, const skf_decomposition *d,
                                  size_t f0, size_t nl, skf_v4d *T4, double *fsum, double *mx)
{
    measure_group_body(c, d, f0, nl, T4, fsum, mx);
}

#ifdef SKF_LANES_AVX2
SKF_TARGET_AVX2 static void measure_group_avx2(const skfi_decompose_ctx *c, const skf_decomposition *d,
                                               size_t f0, size_t nl, skf_v4d *T4, double *fsum,
                                               double *mx)
{
    measure_group_body(c, d, f0, nl, T4, fsum, mx);
}
#endif

/* Tests only: 1 (default) the lanes (AVX2 where the CPU has it), 2 the
 * generic vectors, 0 the one-frame loop. */
int skfi_decompose_measure_lanes = 1;

void skfi_decompose_measure(const skfi_decompose_ctx *c, const skf_decomposition *d, bool with_shapes,
                skf_decompose_metrics *m)
{
    size_t N = c->N;
    double sum = 0, mx = 0;
    long long F = (long long)c->F;
    /* per-frame sums added in frame order: the same bits at any thread count */
    double *fsum = skf_calloc(c->F, sizeof *fsum);
    const bool shapes = with_shapes && d->shape_count && d->shapes;
    bool done = false;
    if (!shapes && skfi_decompose_measure_lanes && fsum) {
        /* no shapes: the frames SKF_LANES at a time (each frame's sum and
         * the maximum bit for bit the loop's below) */
        long long G = (F + SKF_LANES - 1) / SKF_LANES;
        int failed = 0;
#pragma omp parallel reduction(max : mx)
        {
            /* 32-byte aligned scratch: one spare vector */
            size_t nv = d->bone_count * 12 + 1;
            void *raw = skf_malloc_array(nv, sizeof(skf_v4d));
            skf_v4d *T4 = raw ? (skf_v4d *)(((uintptr_t)raw + 31) & ~(uintptr_t)31) : NULL;
            if (!raw) {
#pragma omp atomic write
                failed = 1;
            }
#pragma omp for schedule(static)
            for (long long g = 0; g < G; ++g) {
                if (!T4)
                    continue;
                size_t f0 = (size_t)g * SKF_LANES;
                size_t nl = (size_t)F - f0 < SKF_LANES ? (size_t)F - f0 : SKF_LANES;
#ifdef SKF_LANES_AVX2
                if (skfi_decompose_measure_lanes != 2 && __builtin_cpu_supports("avx2")) {
                    measure_group_avx2(c, d, f0, nl, T4, fsum, &mx);
                    continue;
                }
#endif
                measure_group_generic(c, d, f0, nl, T4, fsum, &mx);
            }
            skf_free(raw);
        }
        done = !failed; /* else the loop below (out of memory for the scratch) */
    }
    if (!done) {
#pragma omp parallel reduction(max : mx)
    {
        double *buf = shapes ? skf_malloc_array(3 * N, sizeof *buf) : NULL;
#pragma omp for schedule(static)
        for (long long f = 0; f < F; ++f) {
            if (!fsum || (shapes && !buf))
                continue;
            const double *u = c->frames + (size_t)f * N * 3;
            double s = 0;
            if (shapes) {
                skf_decomposition_frame(d, (size_t)f, true, buf);
                for (size_t k = 0; k < N; ++k)
                    add_error(u + 3 * k, buf + 3 * k, &s, &mx);
            } else {
                /* no shapes: each vertex skinned and compared in one go */
                const double *T0 = d->transforms + (size_t)f * d->bone_count * 12;
                const size_t K = d->max_influences;
                for (size_t k = 0; k < N; ++k) {
                    const double *v = d->rest + 3 * k;
                    double p[3];
                    skin_vertex(T0, d->weight_bone + k * K, d->weight + k * K, K, v[0], v[1], v[2], p);
                    add_error(u + 3 * k, p, &s, &mx);
                }
            }
            fsum[f] = s;
        }
        skf_free(buf);
    }
    }
    if (fsum)
        for (size_t f = 0; f < c->F; ++f)
            sum += fsum[f];
    else
        sum = NAN; /* out of memory: the metrics say so rather than lie */
    skf_free(fsum);
    double nf = (double)N * (double)c->F;
    m->diagonal = c->diag;
    m->rms = sqrt(sum / nf);
    m->erms = c->diag > 0 ? 1000.0 * sqrt(sum) / (sqrt(3.0 * nf) * c->diag) : 0;
    m->max_error = sqrt(mx);
    m->max_error_pct = c->diag > 0 ? 100.0 * m->max_error / c->diag : 0;
}

/* CSR view of the K-slot weights for the solver (zeros dropped). */
void skfi_decompose_to_csr(const skf_decomposition *d, size_t *offsets, uint32_t *bone, double *weight)
{
    size_t N = d->vertex_count, K = d->max_influences, n = 0;
    offsets[0] = 0;
    for (size_t j = 0; j < N; ++j) {
        for (size_t k = 0; k < K; ++k)
            if (d->weight[j * K + k] > 0) {
                bone[n] = d->weight_bone[j * K + k];
                weight[n] = d->weight[j * K + k];
                ++n;
            }
        offsets[j + 1] = n;
    }
}
