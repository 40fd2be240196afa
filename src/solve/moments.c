/* Moment sums: make bone sweeps independent of the vertex count.
 *
 * Reference: B. H. Le and Z. Deng, "Smooth Skinning Decomposition with Rigid
 * Bones", ACM TOG 31(6), 2012 (SSDR) — the rewriting of the LBS energy through
 * per-bone-pair moment matrices that Dem Bones implements; derivation and
 * notation: docs/solver.md, D1.
 *
 * Once per rig:   M_ik = Σ_j c_j w_ij w_kj ṽ_j ṽ_jᵀ   (4×4, bones i, k sharing a vertex)
 * Once per frame: C_i  = Σ_j c_j w_ij u_j ṽ_jᵀ    (3×4), U = Σ_j c_j ‖u_j‖²
 * Then E(T) = U − 2 Σ_i ⟨T_i, C_i⟩ + Σ_i Σ_k ⟨T_i M_ik, T_k⟩.
 *
 * M_ik is symmetric and equals M_ki, so one 4×4 is stored per unordered pair.
 * The moment form of E loses digits to cancellation near E = 0 (U and the
 * cross terms are of size N·diag²): it drives the convergence test only; the
 * reported residual comes from a direct pass over the vertices.
 */
#include "solve_internal.h"

#include <math.h>
#include <string.h>

skf_status skfi_solve_moments(skf_solver *s, skf_error *err)
{
    const size_t B = s->B, n = s->n;
    skf_free(s->nb_off);
    skf_free(s->nb_bone);
    skf_free(s->nb_pair);
    skf_free(s->pair_M);
    skf_free(s->self_pair);
    skf_free(s->mu);
    skf_free(s->bm_off);
    skf_free(s->bm_vert);
    skf_free(s->bm_weight);
    s->bm_off = NULL;
    s->bm_vert = NULL;
    s->bm_weight = NULL;
    s->nb_off = NULL;
    s->nb_bone = NULL;
    s->nb_pair = NULL;
    s->pair_M = NULL;
    s->self_pair = NULL;
    s->mu = NULL;

    /* Dense B×B table of the co-influencing pairs (a ≤ b): at most
     * SKF_SOLVE_MAX_BONES² entries (16 MiB), transient. Enumerating it row by
     * row yields the pairs already sorted. Every bone gets its self pair,
     * even with no vertex (keeps lookups simple). */
    uint32_t *tab = skf_calloc(B * B, sizeof *tab);
    if (!tab)
        return skf_fail(err, SKF_ERR_NOMEM, "solver: moments: out of memory (%zu bones)", B);
    for (size_t j = 0; j < n; ++j)
        for (size_t p = s->offsets[j]; p < s->offsets[j + 1]; ++p)
            for (size_t q = p; q < s->offsets[j + 1]; ++q) {
                size_t a = s->bone[p], b = s->bone[q];
                tab[a < b ? a * B + b : b * B + a] = 1;
            }
    size_t u = 0;
    for (size_t a = 0; a < B; ++a) {
        tab[a * B + a] = 1;
        for (size_t b = a; b < B; ++b)
            u += tab[a * B + b];
    }
    uint64_t *keys = skf_malloc_array(u, sizeof *keys);
    if (!keys) {
        skf_free(tab);
        return skf_fail(err, SKF_ERR_NOMEM, "solver: moments: out of memory (%zu pairs)", u);
    }
    u = 0;
    for (size_t a = 0; a < B; ++a)
        for (size_t b = a; b < B; ++b)
            if (tab[a * B + b]) {
                keys[u] = (uint64_t)a * B + b;
                tab[a * B + b] = (uint32_t)(++u); /* pair index + 1 */
            }
    s->pair_count = u;
    s->nb_off = skf_calloc(B + 1, sizeof *s->nb_off);
    s->nb_bone = skf_malloc_array(2 * u, sizeof *s->nb_bone);
    s->nb_pair = skf_malloc_array(2 * u, sizeof *s->nb_pair);
    s->pair_M = skf_calloc(u * 16, sizeof *s->pair_M);
    s->self_pair = skf_malloc_array(B, sizeof *s->self_pair);
    s->mu = skf_calloc(B, sizeof *s->mu);
    size_t *fill = skf_calloc(B, sizeof *fill);
    if (!s->nb_off || !s->nb_bone || !s->nb_pair || !s->pair_M || !s->self_pair || !s->mu || !fill) {
        skf_free(fill);
        skf_free(keys);
        skf_free(tab);
        return skf_fail(err, SKF_ERR_NOMEM, "solver: moments: out of memory (%zu bone pairs)", u);
    }
    for (size_t i = 0; i < u; ++i) {
        size_t a = keys[i] / B, b = keys[i] % B;
        s->nb_off[a + 1]++;
        if (a != b)
            s->nb_off[b + 1]++;
    }
    for (size_t b = 0; b < B; ++b)
        s->nb_off[b + 1] += s->nb_off[b];
    /* keys sorted by (a, b): for bone x, entries with a = x come in b order,
     * entries with b = x (a < x) must precede them; fill in two passes. */
    for (size_t i = 0; i < u; ++i) {
        size_t a = keys[i] / B, b = keys[i] % B;
        if (a != b) {
            size_t at = s->nb_off[b] + fill[b]++;
            s->nb_bone[at] = (uint32_t)a;
            s->nb_pair[at] = i;
        }
    }
    for (size_t i = 0; i < u; ++i) {
        size_t a = keys[i] / B, b = keys[i] % B;
        size_t at = s->nb_off[a] + fill[a]++;
        s->nb_bone[at] = (uint32_t)b;
        s->nb_pair[at] = i;
        if (a == b)
            s->self_pair[a] = i;
    }
    skf_free(fill);
    skf_free(keys);

    for (size_t j = 0; j < n; ++j) {
        const double *v = s->rest + 3 * j;
        double vt[4] = {v[0], v[1], v[2], 1.0}, vv[16];
        const double cj = s->vweight ? s->vweight[j] : 1.0;
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 4; ++c)
                vv[r * 4 + c] = vt[r] * vt[c];
        for (size_t p = s->offsets[j]; p < s->offsets[j + 1]; ++p)
            for (size_t q = p; q < s->offsets[j + 1]; ++q) {
                double ww = s->vweight ? cj * s->weight[p] * s->weight[q] : s->weight[p] * s->weight[q];
                size_t a = s->bone[p], b = s->bone[q];
                double *M = s->pair_M + 16 * (tab[a < b ? a * B + b : b * B + a] - 1);
                for (int e = 0; e < 16; ++e)
                    M[e] += ww * vv[e];
            }
    }
    skf_free(tab);
    for (size_t b = 0; b < B; ++b)
        s->mu[b] = s->pair_M[16 * s->self_pair[b] + 15];

    /* Bone-major lists per vertex block (counting sort, vertices ascending). */
    const size_t nnz = s->offsets[n], nbk = s->blocks * B;
    s->bm_off = skf_calloc(nbk + 1, sizeof *s->bm_off);
    s->bm_vert = skf_malloc_array(nnz ? nnz : 1, sizeof *s->bm_vert);
    s->bm_weight = skf_malloc_array(nnz ? nnz : 1, sizeof *s->bm_weight);
    if (!s->bm_off || !s->bm_vert || !s->bm_weight)
        return skf_fail(err, SKF_ERR_NOMEM, "solver: moments: out of memory (%zu weights)", nnz);
    for (size_t j = 0; j < n; ++j)
        for (size_t p = s->offsets[j]; p < s->offsets[j + 1]; ++p)
            s->bm_off[(j / SKF_SOLVE_BLOCK) * B + s->bone[p] + 1]++;
    for (size_t e = 0; e < nbk; ++e)
        s->bm_off[e + 1] += s->bm_off[e];
    size_t *at = skf_malloc_array(nbk ? nbk : 1, sizeof *at);
    if (!at)
        return skf_fail(err, SKF_ERR_NOMEM, "solver: moments: out of memory (%zu weights)", nnz);
    memcpy(at, s->bm_off, nbk * sizeof *at);
    for (size_t j = 0; j < n; ++j)
        for (size_t p = s->offsets[j]; p < s->offsets[j + 1]; ++p) {
            size_t e = at[(j / SKF_SOLVE_BLOCK) * B + s->bone[p]]++;
            s->bm_vert[e] = (uint32_t)(j % SKF_SOLVE_BLOCK);
            s->bm_weight[e] = (s->vweight ? s->vweight[j] : 1.0) * s->weight[p]; /* c_j w_ij */
        }
    skf_free(at);
    return SKF_OK;
}

static void block_range(const skf_solver *s, size_t blk, size_t *j0, size_t *j1)
{
    *j0 = blk * SKF_SOLVE_BLOCK;
    *j1 = *j0 + SKF_SOLVE_BLOCK;
    if (*j1 > s->n)
        *j1 = s->n;
}

static void moments_block(const skf_solver *s, skfi_solve_ws *ws, const double *target, size_t blk)
{
    const size_t B = s->B;
    double *C = ws->Cblk + blk * B * 12;
    double U = 0;
    size_t j0, j1;
    block_range(s, blk, &j0, &j1);
    for (size_t j = j0; j < j1; ++j) {
        const double uj[3] = {target[3 * j] - s->centre[0], target[3 * j + 1] - s->centre[1],
                              target[3 * j + 2] - s->centre[2]};   /* centred like rest */
        const double cj = s->vweight ? s->vweight[j] : 1.0;
        U += cj * (uj[0] * uj[0] + uj[1] * uj[1] + uj[2] * uj[2]);
    }
    /* Bone by bone, with the 12 sums in registers; each sum runs over the
     * block's vertices in ascending order with the same products as a
     * vertex-major scatter, so C is bit-identical to that. */
    const size_t *off = s->bm_off + blk * B;
    for (size_t b = 0; b < B; ++b) {
        double c0 = 0, c1 = 0, c2 = 0, c3 = 0, c4 = 0, c5 = 0, c6 = 0, c7 = 0, c8 = 0, c9 = 0,
               c10 = 0, c11 = 0;
        for (size_t e = off[b]; e < off[b + 1]; ++e) {
            size_t j = j0 + s->bm_vert[e];
            const double *v = s->rest + 3 * j, *t = target + 3 * j;
            double w = s->bm_weight[e];
            double wu0 = w * (t[0] - s->centre[0]), wu1 = w * (t[1] - s->centre[1]),
                   wu2 = w * (t[2] - s->centre[2]); /* centred like rest */
            double v0 = v[0], v1 = v[1], v2 = v[2];
            c0 += wu0 * v0, c1 += wu1 * v0, c2 += wu2 * v0;
            c3 += wu0 * v1, c4 += wu1 * v1, c5 += wu2 * v1;
            c6 += wu0 * v2, c7 += wu1 * v2, c8 += wu2 * v2;
            c9 += wu0, c10 += wu1, c11 += wu2;
        }
        double *Ci = C + 12 * b;
        Ci[0] = c0, Ci[1] = c1, Ci[2] = c2, Ci[3] = c3, Ci[4] = c4, Ci[5] = c5;
        Ci[6] = c6, Ci[7] = c7, Ci[8] = c8, Ci[9] = c9, Ci[10] = c10, Ci[11] = c11;
    }
    ws->sblk[blk] = U;
}

void skfi_solve_frame_moments(const skf_solver *s, skfi_solve_ws *ws, const double *target,
                              bool parallel)
{
    const size_t B12 = s->B * 12;
    const long nb = (long)s->blocks;
    if (parallel && nb > 1) {
#pragma omp parallel for schedule(static) num_threads(s->threads)
        for (long blk = 0; blk < nb; ++blk)
            moments_block(s, ws, target, (size_t)blk);
    } else {
        for (long blk = 0; blk < nb; ++blk)
            moments_block(s, ws, target, (size_t)blk);
    }
    memcpy(ws->C, ws->Cblk, B12 * sizeof *ws->C);
    ws->U = ws->sblk[0];
    for (size_t blk = 1; blk < s->blocks; ++blk) {
        const double *Cb = ws->Cblk + blk * B12;
        for (size_t e = 0; e < B12; ++e)
            ws->C[e] += Cb[e];
        ws->U += ws->sblk[blk];
    }
}

/* ⟨Ta M, Tb⟩ with M symmetric 4×4 row-major, T 3×4 column-major. (Fused:
 * skfi_solve_TM and a second loop for the sum measured slower here.) */
static double pair_term(const double *Ta, const double *M, const double *Tb)
{
    double e = 0;
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 3; ++r) {
            double tm = Ta[r] * M[c] + Ta[3 + r] * M[4 + c] + Ta[6 + r] * M[8 + c] +
                        Ta[9 + r] * M[12 + c];
            e += tm * Tb[c * 3 + r];
        }
    return e;
}

double skfi_solve_energy(const skf_solver *s, const skfi_solve_ws *ws, const double *T)
{
    double lin = 0, quad = 0;
    for (size_t i = 0; i < s->B; ++i) {
        const double *Ti = T + 12 * i, *Ci = ws->C + 12 * i;
        for (int e = 0; e < 12; ++e)
            lin += Ti[e] * Ci[e];
        for (size_t at = s->nb_off[i]; at < s->nb_off[i + 1]; ++at) {
            size_t k = s->nb_bone[at];
            if (k < i)
                continue;
            double t = pair_term(Ti, s->pair_M + 16 * s->nb_pair[at], T + 12 * k);
            quad += (k == i) ? t : 2 * t;
        }
    }
    return ws->U - 2 * lin + quad;
}

static void residual_block(const skf_solver *s, skfi_solve_ws *ws, const double *T,
                           const double *target, size_t blk)
{
    size_t j0, j1;
    block_range(s, blk, &j0, &j1);
    double sum = 0;
    for (size_t j = j0; j < j1; ++j) {
        const double *v = s->rest + 3 * j;
        double d[3] = {s->centre[0] - target[3 * j], s->centre[1] - target[3 * j + 1],
                       s->centre[2] - target[3 * j + 2]};
        for (size_t p = s->offsets[j]; p < s->offsets[j + 1]; ++p) {
            const double *Tb = T + 12 * (size_t)s->bone[p];
            double w = s->weight[p];
            for (int r = 0; r < 3; ++r)
                d[r] += w * (Tb[r] * v[0] + Tb[3 + r] * v[1] + Tb[6 + r] * v[2] + Tb[9 + r]);
        }
        const double cj = s->vweight ? s->vweight[j] : 1.0;
        sum += cj * (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    }
    ws->sblk[blk] = sum;
}

double skfi_solve_residual(const skf_solver *s, skfi_solve_ws *ws, const double *T,
                           const double *target, bool parallel)
{
    const long nb = (long)s->blocks;
    if (parallel && nb > 1) {
#pragma omp parallel for schedule(static) num_threads(s->threads)
        for (long blk = 0; blk < nb; ++blk)
            residual_block(s, ws, T, target, (size_t)blk);
    } else {
        for (long blk = 0; blk < nb; ++blk)
            residual_block(s, ws, T, target, (size_t)blk);
    }
    double sum = 0;
    for (size_t blk = 0; blk < s->blocks; ++blk)
        sum += ws->sblk[blk];
    return sum;
}

void skf_solver_skin(const skf_solver *s, const double *T, double *out)
{
    /* T is in the caller's coordinates, the rest centred: s = Σ w (R (v' + c) + t) */
    for (size_t j = 0; j < s->n; ++j) {
        const double *v0 = s->rest + 3 * j;
        const double v[3] = {v0[0] + s->centre[0], v0[1] + s->centre[1], v0[2] + s->centre[2]};
        double d[3] = {0, 0, 0};
        for (size_t p = s->offsets[j]; p < s->offsets[j + 1]; ++p) {
            const double *Tb = T + 12 * (size_t)s->bone[p];
            double w = s->weight[p];
            for (int r = 0; r < 3; ++r)
                d[r] += w * (Tb[r] * v[0] + Tb[3 + r] * v[1] + Tb[6 + r] * v[2] + Tb[9 + r]);
        }
        memcpy(out + 3 * j, d, sizeof d);
    }
}
