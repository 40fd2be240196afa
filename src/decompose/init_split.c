/* Bone initialisation by split / regrow clustering.
 *
 * B. H. Le and Z. Deng, "Smooth Skinning Decomposition with Rigid Bones",
 * ACM TOG 31(6) (SIGGRAPH Asia 2012), section 4.3: vertices are clustered
 * into rigid groups, each group's per-frame rigid transform is the absolute
 * orientation of its vertices (Horn 1987), vertices are reassigned to the
 * bone that reproduces their trajectory best (k-means in trajectory space),
 * and new bones are grown by splitting the clusters with the largest error
 * at their worst vertex. We double the bone count per growth step (never past
 * the target) and split spatially: the worst vertex seeds the new cluster and
 * takes the members closer to it (in the rest pose) than to the cluster's
 * best-fitting vertex. Clusters that empty out are regrown the same way, so
 * the result has exactly the requested number of non-degenerate bones; when
 * that is impossible (fewer than 3 vertices per bone) it fails and says why.
 * Shrinking (mean shift found more bones than asked) merges the cluster with
 * the fewest vertices into the others, one at a time.
 */
#include "decompose_internal.h"
#include "skinfit/math.h"
#include "skinfit/solve.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <string.h>

#define MIN_CLUSTER 3

double skfi_decompose_vertex_bone_error(const skfi_decompose_ctx *c, size_t j, const double *T0, size_t stride)
{
    const double *v = c->rest + 3 * j;
    double e = 0;
    for (size_t f = 0; f < c->F; ++f) {
        const double *T = T0 + f * stride, *u = c->frames + (f * c->N + j) * 3;
        for (int r = 0; r < 3; ++r) {
            double p = T[r] * v[0] + T[3 + r] * v[1] + T[6 + r] * v[2] + T[9 + r] - u[r];
            e += p * p;
        }
    }
    return e;
}

skf_status skfi_decompose_fit_clusters(const skfi_decompose_ctx *c, size_t B, const uint32_t *labels, double *transforms,
                           skf_error *err)
{
    size_t N = c->N, F = c->F;
    size_t *start = skf_calloc(B + 1, sizeof *start);
    size_t *order = skf_malloc_array(N, sizeof *order);
    double *src = skf_malloc_array(3 * N, sizeof *src);
    if (!start || !order || !src) {
        skf_free(start);
        skf_free(order);
        skf_free(src);
        return skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory fitting clusters");
    }
    for (size_t j = 0; j < N; ++j)
        start[labels[j] + 1]++;
    for (size_t b = 0; b < B; ++b)
        start[b + 1] += start[b];
    {
        size_t *fill = skf_malloc_array(B, sizeof *fill);
        if (!fill) {
            skf_free(start);
            skf_free(order);
            skf_free(src);
            return skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory fitting clusters");
        }
        memcpy(fill, start, B * sizeof *fill);
        for (size_t j = 0; j < N; ++j)
            order[fill[labels[j]]++] = j;
        skf_free(fill);
    }
    for (size_t k = 0; k < N; ++k)
        memcpy(src + 3 * k, c->rest + 3 * order[k], 3 * sizeof(double));
    int failed = 0;
#pragma omp parallel
    {
        double *dst = skf_malloc_array(3 * N, sizeof *dst);
        if (!dst) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 1)
        for (size_t f = 0; f < F; ++f) {
            if (!dst)
                continue;
            const double *u = c->frames + f * N * 3;
            for (size_t k = 0; k < N; ++k)
                memcpy(dst + 3 * k, u + 3 * order[k], 3 * sizeof(double));
            for (size_t b = 0; b < B; ++b) {
                double *T = transforms + (f * B + b) * 12;
                size_t n = start[b + 1] - start[b];
                const double *s = src + 3 * start[b], *d = dst + 3 * start[b];
                if (n >= MIN_CLUSTER && skf_rigid_fit_fast(n, s, d, NULL, T))
                    continue;
                skf_transform34_identity(T);
                for (size_t k = 0; k < n; ++k)
                    for (int r = 0; r < 3; ++r)
                        T[9 + r] += (d[3 * k + r] - s[3 * k + r]) / (double)n;
            }
        }
        skf_free(dst);
    }
    skf_free(start);
    skf_free(order);
    skf_free(src);
    if (failed)
        return skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory fitting clusters");
    return SKF_OK;
}

/* Reassign every vertex to its best bone; returns the number that moved.
 * The single-bone error in Gram form, in coordinates centred on o (the
 * rest's bounding-box centre; T' = [R | R o + t − o], u' = u − o, ṽ' = [v − o; 1]):
 *     e_jb = ṽ'ᵀ G_b ṽ' − 2 ṽ'ᵀ h_jb + Σ_f ‖u'_fj‖²,
 *     G_b = Σ_f T'_fbᵀ T'_fb,  h_jb = Σ_f T'_fbᵀ u'_fj,
 * the last term the same for every bone; h for a block of RB vertices and
 * all bones is one product (RB × 3F trajectories) · (3F × 4B stacked
 * transforms). Same result at any thread count (the blocks are fixed). Out
 * of memory: the direct per-vertex sums. */
#define RB 64
static size_t reassign_direct(const skfi_decompose_ctx *c, size_t B, const double *transforms,
                              uint32_t *labels)
{
    size_t moved = 0;
    long long N = (long long)c->N;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : moved)
    for (long long jj = 0; jj < N; ++jj) {
        size_t j = (size_t)jj;
        double best = DBL_MAX;
        uint32_t arg = labels[j];
        for (size_t b = 0; b < B; ++b) {
            double e = skfi_decompose_vertex_bone_error(c, j, transforms + b * 12, B * 12);
            if (e < best) {
                best = e;
                arg = (uint32_t)b;
            }
        }
        if (arg != labels[j])
            ++moved;
        labels[j] = arg;
    }
    return moved;
}

static size_t reassign(const skfi_decompose_ctx *c, size_t B, const double *transforms, uint32_t *labels)
{
    size_t N = c->N, F = c->F, F3 = 3 * F, B4 = 4 * B;
    double o[3];
    {
        double lo[3] = {c->rest[0], c->rest[1], c->rest[2]}, hi[3] = {lo[0], lo[1], lo[2]};
        for (size_t j = 1; j < N; ++j)
            for (int k = 0; k < 3; ++k) {
                lo[k] = fmin(lo[k], c->rest[3 * j + k]);
                hi[k] = fmax(hi[k], c->rest[3 * j + k]);
            }
        for (int k = 0; k < 3; ++k)
            o[k] = 0.5 * (lo[k] + hi[k]);
    }
    double *Tall = skf_malloc_array(F3 * B4, sizeof *Tall);
    double *G = skf_calloc(B * 16, sizeof *G);
    if (!Tall || !G) {
        skf_free(Tall);
        skf_free(G);
        return reassign_direct(c, B, transforms, labels);
    }
    for (size_t f = 0; f < F; ++f)
        for (size_t b = 0; b < B; ++b) {
            const double *T = transforms + (f * B + b) * 12;
            for (int r = 0; r < 3; ++r) {
                double *row = Tall + (3 * f + (size_t)r) * B4 + 4 * b;
                for (int p = 0; p < 3; ++p)
                    row[p] = T[p * 3 + r];
                row[3] = T[r] * o[0] + T[3 + r] * o[1] + T[6 + r] * o[2] + T[9 + r] - o[r];
            }
        }
    for (size_t e = 0; e < F3; ++e)
        for (size_t b = 0; b < B; ++b) {
            const double *t = Tall + e * B4 + 4 * b;
            double *g = G + 16 * b;
            for (int p = 0; p < 4; ++p)
                for (int q = 0; q < 4; ++q)
                    g[p * 4 + q] += t[p] * t[q];
        }
    size_t moved = 0;
    int failed = 0;
    long long NB = (long long)((N + RB - 1) / RB);
#pragma omp parallel
    {
        double *U = skf_malloc_array(RB * F3, sizeof *U);
        double *H = skf_malloc_array(RB * B4, sizeof *H);
        if (!U || !H) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 1) reduction(+ : moved)
        for (long long blk = 0; blk < NB; ++blk) {
            if (!U || !H)
                continue;
            size_t j0 = (size_t)blk * RB, nv = N - j0 < RB ? N - j0 : RB;
            for (size_t f = 0; f < F; ++f) {
                const double *src = c->frames + (f * N + j0) * 3;
                for (size_t v = 0; v < nv; ++v)
                    for (int r = 0; r < 3; ++r)
                        U[v * F3 + 3 * f + (size_t)r] = src[3 * v + (size_t)r] - o[r];
            }
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)nv, (int)B4, (int)F3, 1.0,
                        U, (int)F3, Tall, (int)B4, 0.0, H, (int)B4);
            for (size_t v = 0; v < nv; ++v) {
                size_t j = j0 + v;
                const double *x = c->rest + 3 * j;
                double vt[4] = {x[0] - o[0], x[1] - o[1], x[2] - o[2], 1};
                double best = DBL_MAX;
                uint32_t arg = labels[j];
                for (size_t b = 0; b < B; ++b) {
                    const double *g = G + 16 * b, *h = H + v * B4 + 4 * b;
                    double e = 0;
                    for (int p = 0; p < 4; ++p) {
                        double gv = g[p * 4] * vt[0] + g[p * 4 + 1] * vt[1] + g[p * 4 + 2] * vt[2] +
                                    g[p * 4 + 3];
                        e += vt[p] * (gv - 2 * h[p]);
                    }
                    if (e < best) {
                        best = e;
                        arg = (uint32_t)b;
                    }
                }
                if (arg != labels[j])
                    ++moved;
                labels[j] = arg;
            }
        }
        skf_free(U);
        skf_free(H);
    }
    skf_free(Tall);
    skf_free(G);
    if (failed)
        return moved + reassign_direct(c, B, transforms, labels);
    return moved;
}

bool skfi_decompose_split_cluster(const skfi_decompose_ctx *c, uint32_t *labels, const double *err_j, uint32_t from,
                          uint32_t to)
{
    size_t N = c->N, n = 0, s = SIZE_MAX, m = SIZE_MAX;
    for (size_t j = 0; j < N; ++j) {
        if (labels[j] != from)
            continue;
        ++n;
        if (s == SIZE_MAX || err_j[j] > err_j[s])
            s = j;
        if (m == SIZE_MAX || err_j[j] < err_j[m])
            m = j;
    }
    if (n < 2 * MIN_CLUSTER)
        return false;
    const double *vs = c->rest + 3 * s, *vm = c->rest + 3 * m;
    double dir[3] = {vs[0] - vm[0], vs[1] - vm[1], vs[2] - vm[2]};
    if (skf_dot3(dir, dir) == 0) {
        /* Worst and best vertex coincide in rest: split along the largest
         * extent of the cluster instead. */
        double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
        for (size_t j = 0; j < N; ++j)
            if (labels[j] == from)
                for (int a = 0; a < 3; ++a) {
                    lo[a] = fmin(lo[a], c->rest[3 * j + a]);
                    hi[a] = fmax(hi[a], c->rest[3 * j + a]);
                }
        int ax = 0;
        for (int a = 1; a < 3; ++a)
            if (hi[a] - lo[a] > hi[ax] - lo[ax])
                ax = a;
        dir[ax] = 1;
    }
    double mid[3] = {0.5 * (vs[0] + vm[0]), 0.5 * (vs[1] + vm[1]), 0.5 * (vs[2] + vm[2])};
    /* Closer to the seed than to the anchor: on the seed's side of the
     * bisecting plane. Count first; fall back to a median split. */
    size_t k = 0;
    for (size_t j = 0; j < N; ++j) {
        if (labels[j] != from)
            continue;
        const double *v = c->rest + 3 * j;
        double d[3] = {v[0] - mid[0], v[1] - mid[1], v[2] - mid[2]};
        k += skf_dot3(d, dir) > 0;
    }
    double thresh = 0;
    if (k < MIN_CLUSTER || n - k < MIN_CLUSTER) {
        /* median of the projection (selection by repeated halving of range) */
        double lo = DBL_MAX, hi = -DBL_MAX;
        for (size_t j = 0; j < N; ++j)
            if (labels[j] == from) {
                const double *v = c->rest + 3 * j;
                double d[3] = {v[0] - mid[0], v[1] - mid[1], v[2] - mid[2]};
                double p = skf_dot3(d, dir);
                lo = fmin(lo, p);
                hi = fmax(hi, p);
            }
        for (int it = 0; it < 60; ++it) {
            double t = 0.5 * (lo + hi);
            size_t above = 0;
            for (size_t j = 0; j < N; ++j)
                if (labels[j] == from) {
                    const double *v = c->rest + 3 * j;
                    double d[3] = {v[0] - mid[0], v[1] - mid[1], v[2] - mid[2]};
                    above += skf_dot3(d, dir) > t;
                }
            if (above > n / 2)
                lo = t;
            else
                hi = t;
        }
        thresh = 0.5 * (lo + hi);
    }
    size_t moved = 0;
    for (size_t j = 0; j < N; ++j) {
        if (labels[j] != from)
            continue;
        const double *v = c->rest + 3 * j;
        double d[3] = {v[0] - mid[0], v[1] - mid[1], v[2] - mid[2]};
        if (skf_dot3(d, dir) > thresh) {
            labels[j] = to;
            ++moved;
        }
    }
    if (moved == 0 || moved == n) {
        /* Degenerate geometry (all on one point): alternate by index. */
        size_t i = 0;
        for (size_t j = 0; j < N; ++j)
            if (labels[j] == from || labels[j] == to)
                labels[j] = (i++ & 1) ? to : from;
    }
    return true;
}

/* e_j = skfi_decompose_vertex_bone_error of vertex j under its own bone
 * (w NULL: bone wb[j]) — the same sums in the same order (frame by frame,
 * then x, y, z) — or under its blend of K bones, Σ_k w[jK+k] T_{wb[jK+k]}
 * (reseed.c), run frame-major over chunks of EC consecutive vertices:
 * vertex by vertex, each frame's coordinates are 3N numbers apart in the
 * input, and on the 50k-vertex creature those cache misses were a fifth of
 * the initialisation (docs/bench.md). The same sums at any thread count. */
#define EC 512
void skfi_decompose_vertex_errors(const skfi_decompose_ctx *c, size_t B, const double *transforms,
                                  size_t K, const uint32_t *wb, const double *w, double *e)
{
    size_t N = c->N, F = c->F;
    long long NC = (long long)((N + EC - 1) / EC);
#pragma omp parallel for schedule(static)
    for (long long ch = 0; ch < NC; ++ch) {
        size_t j0 = (size_t)ch * EC, j1 = j0 + EC < N ? j0 + EC : N;
        for (size_t j = j0; j < j1; ++j)
            e[j] = 0;
        for (size_t f = 0; f < F; ++f) {
            const double *Tf = transforms + f * B * 12, *uf = c->frames + f * N * 3;
            for (size_t j = j0; j < j1; ++j) {
                const double *v = c->rest + 3 * j, *u = uf + 3 * j;
                double s[3];
                if (!w) {
                    const double *T = Tf + (size_t)wb[j] * 12;
                    for (int r = 0; r < 3; ++r)
                        s[r] = T[r] * v[0] + T[3 + r] * v[1] + T[6 + r] * v[2] + T[9 + r];
                } else {
                    s[0] = s[1] = s[2] = 0;
                    for (size_t k = 0; k < K; ++k) {
                        double wk = w[j * K + k];
                        if (!(wk > 0))
                            continue;
                        const double *T = Tf + (size_t)wb[j * K + k] * 12;
                        for (int r = 0; r < 3; ++r)
                            s[r] += wk * (T[r] * v[0] + T[3 + r] * v[1] + T[6 + r] * v[2] + T[9 + r]);
                    }
                }
                double ej = e[j];
                for (int r = 0; r < 3; ++r) {
                    double p = s[r] - u[r];
                    ej += p * p;
                }
                e[j] = ej;
            }
        }
    }
}

/* Make every cluster hold ≥ MIN_CLUSTER vertices by splitting the worst
 * clusters into the small ones' labels. */
static bool regrow(const skfi_decompose_ctx *c, size_t B, double *transforms, uint32_t *labels, double *e,
                   size_t *count, double *cerr)
{
    for (int guard = 0; guard < (int)(2 * B + 4); ++guard) {
        memset(count, 0, B * sizeof *count);
        memset(cerr, 0, B * sizeof *cerr);
        for (size_t j = 0; j < c->N; ++j) {
            count[labels[j]]++;
            cerr[labels[j]] += e[j];
        }
        size_t small = B;
        for (size_t b = 0; b < B; ++b)
            if (count[b] < MIN_CLUSTER) {
                small = b;
                break;
            }
        if (small == B)
            return true;
        /* give the small cluster's vertices back to the worst cluster's pool */
        size_t worst = B;
        for (size_t b = 0; b < B; ++b)
            if (b != small && count[b] >= 2 * MIN_CLUSTER && (worst == B || cerr[b] > cerr[worst]))
                worst = b;
        if (worst == B)
            return false;
        for (size_t j = 0; j < c->N; ++j)
            if (labels[j] == small)
                labels[j] = (uint32_t)worst;
        if (!skfi_decompose_split_cluster(c, labels, e, (uint32_t)worst, (uint32_t)small))
            return false;
        (void)transforms;
    }
    return false;
}

skf_status skfi_decompose_init_split(const skfi_decompose_ctx *c, size_t target, uint32_t *labels, size_t *B_io,
                         double *transforms, skf_error *err)
{
    size_t N = c->N, B = *B_io;
    if (target * MIN_CLUSTER > N)
        return skf_fail(err, SKF_ERR_ARGUMENT,
                        "decompose: %zu bones need at least %d vertices each, the mesh has %zu "
                        "vertices (at most %zu bones possible)",
                        target, MIN_CLUSTER, N, N / MIN_CLUSTER);
    double *e = skf_malloc_array(N, sizeof *e);
    size_t cap = target > B ? target : B;
    size_t *count = skf_malloc_array(cap, sizeof *count);
    double *cerr = skf_malloc_array(cap, sizeof *cerr);
    size_t *order = skf_malloc_array(cap, sizeof *order);
    if (!e || !count || !cerr || !order) {
        skf_free(e);
        skf_free(count);
        skf_free(cerr);
        skf_free(order);
        return skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory in the initialisation");
    }
    skf_status st = SKF_OK;
    /* Shrink: merge the smallest cluster into the others until B == target. */
    while (B > target) {
        memset(count, 0, B * sizeof *count);
        for (size_t j = 0; j < N; ++j)
            count[labels[j]]++;
        size_t small = 0;
        for (size_t b = 1; b < B; ++b)
            if (count[b] < count[small])
                small = b;
        if ((st = skfi_decompose_fit_clusters(c, B, labels, transforms, err)))
            goto done;
        for (size_t j = 0; j < N; ++j) {
            if (labels[j] != small)
                continue;
            double best = DBL_MAX;
            uint32_t arg = 0;
            for (size_t b = 0; b < B; ++b) {
                if (b == small)
                    continue;
                double ev = skfi_decompose_vertex_bone_error(c, j, transforms + b * 12, B * 12);
                if (ev < best) {
                    best = ev;
                    arg = (uint32_t)b;
                }
            }
            labels[j] = arg;
        }
        for (size_t j = 0; j < N; ++j)
            if (labels[j] == B - 1)
                labels[j] = (uint32_t)small;
        --B;
    }
    for (int step = 0; step < 64; ++step) {
        if ((st = skfi_decompose_fit_clusters(c, B, labels, transforms, err)))
            goto done;
        int rounds = B == target ? 12 : 4;
        for (int r = 0; r < rounds; ++r) {
            size_t moved = reassign(c, B, transforms, labels);
            skfi_decompose_vertex_errors(c, B, transforms, 1, labels, NULL, e);
            if (!regrow(c, B, transforms, labels, e, count, cerr)) {
                st = skf_fail(err, SKF_ERR_ARGUMENT,
                              "decompose: cannot keep %zu bones with at least %d vertices each "
                              "(mesh has %zu vertices)",
                              B, MIN_CLUSTER, N);
                goto done;
            }
            if ((st = skfi_decompose_fit_clusters(c, B, labels, transforms, err)))
                goto done;
            if (moved == 0)
                break;
        }
        if (skf_progress_report(c->progress, 0.3 * (double)B / (double)target, "initialisation")) {
            st = skf_fail(err, SKF_ERR_CANCELLED, "decompose: cancelled");
            goto done;
        }
        if (B >= target)
            break;
        /* Grow: split the clusters with the largest error. */
        skfi_decompose_vertex_errors(c, B, transforms, 1, labels, NULL, e);
        memset(count, 0, B * sizeof *count);
        memset(cerr, 0, B * sizeof *cerr);
        for (size_t j = 0; j < N; ++j) {
            count[labels[j]]++;
            cerr[labels[j]] += e[j];
        }
        for (size_t b = 0; b < B; ++b)
            order[b] = b;
        for (size_t a = 1; a < B; ++a) /* insertion sort by error, descending */
            for (size_t k = a; k > 0 && cerr[order[k]] > cerr[order[k - 1]]; --k) {
                size_t t = order[k];
                order[k] = order[k - 1];
                order[k - 1] = t;
            }
        size_t want = target - B < B ? target - B : B, grown = 0;
        for (size_t k = 0; k < B && grown < want; ++k)
            if (skfi_decompose_split_cluster(c, labels, e, (uint32_t)order[k], (uint32_t)(B + grown)))
                ++grown;
        if (grown == 0) {
            st = skf_fail(err, SKF_ERR_ARGUMENT,
                          "decompose: cannot grow past %zu bones: every cluster has fewer than "
                          "%d vertices (asked for %zu)",
                          B, 2 * MIN_CLUSTER, target);
            goto done;
        }
        B += grown;
    }
    if (B != target)
        st = skf_fail(err, SKF_ERR_ARGUMENT, "decompose: reached %zu of %zu bones", B, target);
done:
    *B_io = B;
    skf_free(e);
    skf_free(count);
    skf_free(cerr);
    skf_free(order);
    return st;
}
