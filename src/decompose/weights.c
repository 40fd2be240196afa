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
#include <stdlib.h>
#include <string.h>

#define MAX_CAND 64
#define VB 4  /* vertices per block of the weight pass (the kernel below is written for 4) */
#define SB 64 /* vertices per gathered super-block (a multiple of VB) */

/* Candidate bones: every bone when B ≤ C (or no adjacency), else appends to
 * list[n..] the bones that weigh on vertex j, on its seam twins or on its
 * mesh neighbours in the previous weights (old_wb, old_w), each bone once
 * per stamp. Returns the new count. */
static size_t gather_candidates(const skfi_decompose_ctx *c, size_t B, size_t C, size_t K, size_t j,
                                const uint32_t *old_wb, const double *old_w, uint32_t *mark,
                                uint32_t stamp, size_t *list, size_t n)
{
    if (B <= C || !c->adj_off || !old_wb) {
        for (size_t i = 0; i < B; ++i)
            list[i] = i;
        return B;
    }
    size_t r = c->rep[j];
    /* the neighbours of the representative, then j itself and r */
    for (size_t a = c->adj_off[r]; a < c->adj_off[r + 1] + 2; ++a) {
        size_t v = a < c->adj_off[r + 1] ? c->adj[a] : a == c->adj_off[r + 1] ? j : r;
        for (size_t k = 0; k < K; ++k) {
            if (!(old_w[v * K + k] > 0))
                continue;
            uint32_t b = old_wb[v * K + k];
            if (mark[b] != stamp) {
                mark[b] = stamp;
                list[n++] = b;
            }
        }
    }
    return n;
}

skf_status skfi_decompose_solve_weights(const skfi_decompose_ctx *c, size_t B, const double *transforms, size_t K,
                            uint32_t *wb, double *w, bool warm, skf_error *err)
{
    size_t N = c->N, F = c->F, F3 = 3 * F;
    size_t C = K + 4;
    if (C > B)
        C = B;
    if (C > MAX_CAND)
        C = MAX_CAND;
    /* Bone-major, frame-contiguous transforms: Tt[((i*3F) + 3f + r)*4 + p] =
     * row r, column p of T_fi, so that h_i = Σ_f T_fiᵀ u_fj (4 numbers) is
     * one contiguous pass over the vertex's trajectory uj [3F]. */
    double *Tt = skf_malloc_array(B * 4 * F3, sizeof *Tt);
    double *G = skf_malloc_array(B * B * 16, sizeof *G);
    uint32_t *old_wb = warm && c->adj_off ? skf_malloc_array(N * K, sizeof *old_wb) : NULL;
    double *old_w = old_wb ? skf_malloc_array(N * K, sizeof *old_w) : NULL;
    if (!Tt || !G || (warm && c->adj_off && (!old_wb || !old_w))) {
        skf_free(Tt);
        skf_free(G);
        skf_free(old_wb);
        skf_free(old_w);
        return skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory in the weight solve");
    }
    if (old_wb) {
        memcpy(old_wb, wb, N * K * sizeof *old_wb);
        memcpy(old_w, w, N * K * sizeof *old_w);
    }
    for (size_t i = 0; i < B; ++i)
        for (size_t f = 0; f < F; ++f) {
            const double *T = transforms + (f * B + i) * 12;
            for (int p = 0; p < 4; ++p)
                for (int r = 0; r < 3; ++r)
                    Tt[(i * F3 + 3 * f + (size_t)r) * 4 + (size_t)p] = T[p * 3 + r];
        }
    long long BB = (long long)(B * B);
#pragma omp parallel for schedule(dynamic, 4)
    for (long long ik = 0; ik < BB; ++ik) {
        size_t i = (size_t)ik / B, k = (size_t)ik % B;
        double *g = G + (size_t)ik * 16;
        memset(g, 0, 16 * sizeof(double));
        if (k < i)
            continue;
        /* (Tᵀ T)_{pq} = Σ_f Σ_r T_fi[r,p] T_fk[r,q] over the 4 columns p, q */
        const double *a = Tt + i * F3 * 4, *b = Tt + k * F3 * 4;
        for (size_t e = 0; e < F3; ++e, a += 4, b += 4)
            for (int p = 0; p < 4; ++p)
                for (int q = 0; q < 4; ++q)
                    g[p * 4 + q] += a[p] * b[q];
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
    long long NS = (long long)((N + SB - 1) / SB);
#pragma omp parallel
    {
        double *cb = skf_malloc_array(B, sizeof *cb);
        double *eb = skf_malloc_array(B, sizeof *eb);
        double *hb = skf_malloc_array(B * 4 * VB, sizeof *hb);
        double *ublk = skf_malloc_array(F3 * SB, sizeof *ublk);
        size_t *list = skf_malloc_array(B, sizeof *list);
        uint32_t *mark = skf_calloc(B, sizeof *mark);
        bool ok = cb && eb && hb && ublk && list && mark;
        if (!ok) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 1) reduction(+ : solves, at_cap)
        for (long long sb = 0; sb < NS; ++sb) {
            if (!ok)
                continue;
            /* SB consecutive vertices' trajectories, gathered once (frame by
             * frame: SB·3 contiguous numbers per frame) into blocks of VB
             * vertices, ublk[(blk·3F + e)·VB + v]. */
            size_t s0 = (size_t)sb * SB, ns = N - s0 < SB ? N - s0 : SB;
            for (size_t f = 0; f < F; ++f) {
                const double *src = c->frames + (f * N + s0) * 3;
                for (size_t v = 0; v < SB; ++v)
                    for (int r = 0; r < 3; ++r)
                        ublk[((v / VB) * F3 + 3 * f + (size_t)r) * VB + v % VB] =
                            v < ns ? src[3 * v + (size_t)r] : 0;
            }
          for (size_t j0 = s0; j0 < s0 + ns; j0 += VB) {
            /* A block of VB consecutive vertices (fixed by index: the same
             * result at any thread count) shares one pass over the bones'
             * transforms: h_i = Σ_f T_fiᵀ u_fj for every vertex of the block
             * and every bone in the union of their candidate lists. */
            size_t nv = s0 + ns - j0 < VB ? s0 + ns - j0 : VB;
            const double *ub = ublk + ((j0 - s0) / VB) * F3 * VB;
            size_t nl = 0;
            uint32_t stamp = (uint32_t)(j0 / VB) + 1;
            for (size_t v = 0; v < nv; ++v)
                nl = gather_candidates(c, B, C, K, j0 + v, old_wb, old_w, mark, stamp, list, nl);
            for (size_t l = 0; l < nl; ++l) {
                /* 16 accumulators in registers: h[p][v] */
                double h00 = 0, h01 = 0, h02 = 0, h03 = 0, h10 = 0, h11 = 0, h12 = 0, h13 = 0,
                       h20 = 0, h21 = 0, h22 = 0, h23 = 0, h30 = 0, h31 = 0, h32 = 0, h33 = 0;
                const double *t = Tt + list[l] * F3 * 4, *u = ub;
                for (size_t e = 0; e < F3; ++e, t += 4, u += VB) {
                    double u0 = u[0], u1 = u[1], u2 = u[2], u3 = u[3];
                    double t0 = t[0], t1 = t[1], t2 = t[2], t3 = t[3];
                    h00 += t0 * u0, h01 += t0 * u1, h02 += t0 * u2, h03 += t0 * u3;
                    h10 += t1 * u0, h11 += t1 * u1, h12 += t1 * u2, h13 += t1 * u3;
                    h20 += t2 * u0, h21 += t2 * u1, h22 += t2 * u2, h23 += t2 * u3;
                    h30 += t3 * u0, h31 += t3 * u1, h32 += t3 * u2, h33 += t3 * u3;
                }
                double *o = hb + l * 4 * VB;
                o[0] = h00, o[1] = h01, o[2] = h02, o[3] = h03;
                o[4] = h10, o[5] = h11, o[6] = h12, o[7] = h13;
                o[8] = h20, o[9] = h21, o[10] = h22, o[11] = h23;
                o[12] = h30, o[13] = h31, o[14] = h32, o[15] = h33;
            }
          for (size_t vv = 0; vv < nv; ++vv) {
            size_t j = j0 + vv;
            const double *v = c->rest + 3 * j;
            double vt[4] = {v[0], v[1], v[2], 1};
            for (size_t l = 0; l < nl; ++l) {
                size_t i = list[l];
                /* c_i = Σ_f (T_fi ṽ)·u_fj = Σ_p ṽ_p h_ip */
                const double *h = hb + l * 4 * VB + vv;
                cb[l] = h[0] * vt[0] + h[VB] * vt[1] + h[2 * VB] * vt[2] + h[3 * VB];
                const double *g = G + (i * B + i) * 16;
                double q = 0;
                for (int p = 0; p < 4; ++p)
                    for (int r = 0; r < 4; ++r)
                        q += vt[p] * g[p * 4 + r] * vt[r];
                eb[l] = q - 2 * cb[l];
            }
            /* C best single bones (positions in list / cb). */
            size_t cand[MAX_CAND], cpos[MAX_CAND];
            size_t nc = 0, Cj = C < nl ? C : nl;
            for (size_t l = 0; l < nl; ++l) {
                size_t pos = nc < Cj ? nc++ : Cj;
                if (pos == Cj) {
                    if (eb[l] >= eb[cpos[Cj - 1]])
                        continue;
                    pos = Cj - 1;
                }
                while (pos > 0 && eb[cpos[pos - 1]] > eb[l]) {
                    cpos[pos] = cpos[pos - 1];
                    --pos;
                }
                cpos[pos] = l;
            }
            double cval[MAX_CAND];
            for (size_t a = 0; a < nc; ++a) {
                cand[a] = list[cpos[a]];
                cval[a] = cb[cpos[a]];
            }
            double Q[MAX_CAND * MAX_CAND], cc[MAX_CAND], x[MAX_CAND];
            size_t n = nc;
            for (int pass = 0; pass < 2; ++pass) {
                for (size_t a = 0; a < n; ++a) {
                    cc[a] = cval[a];
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
                double nv[MAX_CAND];
                for (size_t a = 0; a < K; ++a) {
                    nk[a] = cand[keep[a]];
                    nv[a] = cval[keep[a]];
                }
                memcpy(cand, nk, K * sizeof *cand);
                memcpy(cval, nv, K * sizeof *cval);
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
          }
        }
        skf_free(cb);
        skf_free(eb);
        skf_free(hb);
        skf_free(ublk);
        skf_free(list);
        skf_free(mark);
    }
    skf_free(Tt);
    skf_free(G);
    skf_free(old_wb);
    skf_free(old_w);
    if (c->nnls_solves)
        *c->nnls_solves += solves;
    if (c->nnls_at_cap)
        *c->nnls_at_cap += at_cap;
    if (failed)
        return skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory in the weight solve");
    return SKF_OK;
}

typedef struct pos_key {
    double x, y, z;
    uint32_t j;
} pos_key;

static int cmp_pos(const void *pa, const void *pb)
{
    const pos_key *a = pa, *b = pb;
    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    if (a->y != b->y)
        return a->y < b->y ? -1 : 1;
    if (a->z != b->z)
        return a->z < b->z ? -1 : 1;
    return a->j < b->j ? -1 : a->j > b->j;
}

bool skfi_decompose_adjacency(size_t N, size_t T, const uint32_t *tris, const double *rest, size_t **off_out,
                  uint32_t **adj_out, uint32_t **rep_out)
{
    *off_out = NULL;
    *adj_out = NULL;
    *rep_out = NULL;
    size_t *off = skf_calloc(N + 1, sizeof *off);
    size_t *fill = skf_malloc_array(N + 1, sizeof *fill);
    uint32_t *adj = skf_malloc_array(6 * T + 1, sizeof *adj);
    uint32_t *rep = skf_malloc_array(N, sizeof *rep);
    pos_key *keys = skf_malloc_array(N, sizeof *keys);
    if (!off || !fill || !adj || !rep || !keys) {
        skf_free(off);
        skf_free(fill);
        skf_free(adj);
        skf_free(rep);
        skf_free(keys);
        return false;
    }
    /* Vertices at the same rest position (seams split by UVs or normals)
     * share one representative, so the adjacency crosses the seams. */
    for (size_t j = 0; j < N; ++j)
        keys[j] = (pos_key){rest[3 * j], rest[3 * j + 1], rest[3 * j + 2], (uint32_t)j};
    qsort(keys, N, sizeof *keys, cmp_pos);
    for (size_t k = 0; k < N; ++k)
        rep[keys[k].j] = k > 0 && keys[k].x == keys[k - 1].x && keys[k].y == keys[k - 1].y &&
                                 keys[k].z == keys[k - 1].z
                             ? rep[keys[k - 1].j]
                             : keys[k].j;
    skf_free(keys);
    for (size_t t = 0; t < T; ++t)
        for (int e = 0; e < 3; ++e)
            off[rep[tris[3 * t + (size_t)e]] + 1] += 2;
    for (size_t j = 0; j < N; ++j)
        off[j + 1] += off[j];
    memcpy(fill, off, (N + 1) * sizeof *fill);
    for (size_t t = 0; t < T; ++t)
        for (int e = 0; e < 3; ++e) {
            uint32_t a = rep[tris[3 * t + (size_t)e]], b = rep[tris[3 * t + (size_t)(e + 1) % 3]],
                     c = rep[tris[3 * t + (size_t)(e + 2) % 3]];
            adj[fill[a]++] = b;
            adj[fill[a]++] = c;
        }
    /* sort each list (insertion: lists are short) and drop duplicates */
    size_t n = 0;
    for (size_t j = 0; j < N; ++j) {
        size_t a0 = off[j], a1 = off[j + 1], start = n;
        for (size_t a = a0 + 1; a < a1; ++a)
            for (size_t b = a; b > a0 && adj[b] < adj[b - 1]; --b) {
                uint32_t x = adj[b];
                adj[b] = adj[b - 1];
                adj[b - 1] = x;
            }
        for (size_t a = a0; a < a1; ++a)
            if ((a == a0 || adj[a] != adj[a - 1]) && adj[a] != j)
                adj[n++] = adj[a];
        off[j] = start;
    }
    off[N] = n;
    skf_free(fill);
    *off_out = off;
    *adj_out = adj;
    *rep_out = rep;
    return true;
}
