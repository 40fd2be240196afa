/* Sparse Cholesky factorisation A = L Lᵀ by 3×3 blocks in a minimum-degree
 * order — for rotation-only's normal equations on rigs whose spatial
 * neighbours sit in unrelated subtrees, where the post-order envelope of
 * envelope.c fills most of the triangle (docs/solver.md D6, D6d).
 *
 * References: W. F. Tinney and J. W. Walker, "Direct solutions of sparse
 * network equations by optimally ordered triangular factorization", Proc.
 * IEEE 55(11), 1967 (the minimum-degree rule); A. George and J. W. H. Liu,
 * "The evolution of the minimum degree ordering algorithm", SIAM Review
 * 31(1), 1989 (the elimination-graph model used here), and "Computer Solution
 * of Large Sparse Positive Definite Systems", Prentice-Hall 1981, ch. 5 (the
 * symbolic factorisation: the structure of column v of L is v's neighbour set
 * in the elimination graph when v is eliminated).
 *
 * The ordering is the plain elimination-graph form (no quotient graph, no
 * multiple elimination), with the graph's rows as bitsets: O(n²·deg/64) once
 * per rig, meant for the few thousand nodes of a skeleton. Ties go to the
 * smallest node, so the order, and every sum after it, is deterministic.
 * The numeric factorisation: the first t1 steps right-looking by columns of
 * 3×3 blocks (block (i, t) of L, i ≥ t in elimination steps, found through a
 * dense n × n table of block indices: 4n² bytes, 1 MB at 500 nodes; each
 * block update on vectors over its nine entries), A's pattern entries loaded
 * through a list built once per envelope (skfi_bchol_plan), the rest
 * — where the remaining triangle is nearly full, with the trailing clique of
 * every later row present — as one dense column-major matrix: those columns'
 * updates of it by 12×3 register tiles over whole columns (SYRK), then its own
 * dense Cholesky by panels and 12×4 tiles — 24-row tiles with AVX-512F — (the split t1 where the estimated
 * instructions are least; D6d). Every entry of L is the textbook one: its
 * products subtracted one at a time in ascending elimination order, then
 * divided by its pivot or square-rooted — a structural zero adds only exact
 * zeros — so the bits do not depend on the split, the tiles, AVX2 or generic
 * vectors, or threads, and the same code builds for WebAssembly
 * (test_solve_blockchol checks the factor against that reference entry for
 * entry).
 */
#include "solve_internal.h"
#include "base/lanes.h"

#include <math.h>
#include <string.h>

int skfi_bchol_kernel_mode;

static SKF_INL skf_v4d ld4(const double *p)
{
    skf_v4d v;
    memcpy(&v, p, sizeof v);
    return v;
}

static SKF_INL void st4(double *p, skf_v4d v) { memcpy(p, &v, sizeof v); }

/* Eight doubles per vector: the AVX-512 kernels (x86-64 CPUs with AVX-512F,
 * chosen at run time) take 24-row tiles where the rows allow; element for
 * element the same operations as the four-wide tiles. */
typedef double skf_v8d __attribute__((vector_size(64)));

static SKF_INL skf_v8d ld8(const double *p)
{
    skf_v8d v;
    memcpy(&v, p, sizeof v);
    return v;
}

static SKF_INL void st8(double *p, skf_v8d v) { memcpy(p, &v, sizeof v); }

#ifdef SKF_LANES_AVX2
#define SKF_TARGET_AVX512 __attribute__((target("avx512f")))

/* the kernels' vector width by skfi_bchol_kernel_mode and the CPU: 8 (AVX-512F),
 * 4 (AVX2) or 0 (generic vectors) */
static int kernel_width(void)
{
    if (skfi_bchol_kernel_mode != 1 && __builtin_cpu_supports("avx2"))
        return skfi_bchol_kernel_mode == 0 && __builtin_cpu_supports("avx512f") ? 8 : 4;
    return 0;
}
#endif

/* Register tiles: c(i, j) −= Σ_k x_k(i) b_k(j) for 4R rows i (R vectors) and
 * C columns j of c (stride ld), one product at a time in the order of k.
 * tile_run: nk columns k at stride ld from x and b; tile_nodes: the three
 * columns of each listed node, x and b offset by 3·node·ld. */
#define SKF_TILE_LOAD(R, C)                                                                        \
    skf_v4d s[3][4];                                                                               \
    _Pragma("GCC unroll 4") for (int q = 0; q < (C); ++q)                                          \
    _Pragma("GCC unroll 3") for (int r = 0; r < (R); ++r) s[r][q] = ld4(c + (size_t)q * ld + 4 * (size_t)r)
#define SKF_TILE_STEP(R, C, xk, bk)                                                                \
    do {                                                                                           \
        skf_v4d xv[3];                                                                             \
        _Pragma("GCC unroll 3") for (int r = 0; r < (R); ++r) xv[r] = ld4((xk) + 4 * r);           \
        _Pragma("GCC unroll 4") for (int q = 0; q < (C); ++q) {                                    \
            const skf_v4d bv = skf_vset((bk)[q]);                                                  \
            _Pragma("GCC unroll 3") for (int r = 0; r < (R); ++r) s[r][q] -= xv[r] * bv;           \
        }                                                                                          \
    } while (0)
#define SKF_TILE_STORE(R, C)                                                                       \
    _Pragma("GCC unroll 4") for (int q = 0; q < (C); ++q)                                          \
    _Pragma("GCC unroll 3") for (int r = 0; r < (R); ++r) st4(c + (size_t)q * ld + 4 * (size_t)r, s[r][q])

static SKF_INL void tile_run(double *c, size_t ld, const double *x, const double *b, size_t nk, const int R,
                             const int C)
{
    SKF_TILE_LOAD(R, C);
    for (size_t k = 0; k < nk; ++k, x += ld, b += ld)
        SKF_TILE_STEP(R, C, x, b);
    SKF_TILE_STORE(R, C);
}

static SKF_INL void tile_nodes(double *c, size_t ld, const double *x, const double *b, const size_t *tl,
                               size_t nt, const int R, const int C)
{
    SKF_TILE_LOAD(R, C);
    for (size_t e = 0; e < nt; ++e) {
        const size_t o = 3 * tl[e] * ld;
        const double *xk = x + o, *bk = b + o;
        _Pragma("GCC unroll 1") for (int k = 0; k < 3; ++k, xk += ld, bk += ld)
            SKF_TILE_STEP(R, C, xk, bk); /* one column at a time: no spills */
    }
    SKF_TILE_STORE(R, C);
}

#define SKF_TILE8_LOAD(R, C)                                                                       \
    skf_v8d s[3][4];                                                                               \
    _Pragma("GCC unroll 4") for (int q = 0; q < (C); ++q)                                          \
    _Pragma("GCC unroll 3") for (int r = 0; r < (R); ++r) s[r][q] = ld8(c + (size_t)q * ld + 8 * (size_t)r)
#define SKF_TILE8_STEP(R, C, xk, bk)                                                               \
    do {                                                                                           \
        skf_v8d xv[3];                                                                             \
        _Pragma("GCC unroll 3") for (int r = 0; r < (R); ++r) xv[r] = ld8((xk) + 8 * r);           \
        _Pragma("GCC unroll 4") for (int q = 0; q < (C); ++q) {                                    \
            const double bq = (bk)[q];                                                             \
            const skf_v8d bv = {bq, bq, bq, bq, bq, bq, bq, bq};                                   \
            _Pragma("GCC unroll 3") for (int r = 0; r < (R); ++r) s[r][q] -= xv[r] * bv;           \
        }                                                                                          \
    } while (0)
#define SKF_TILE8_STORE(R, C)                                                                      \
    _Pragma("GCC unroll 4") for (int q = 0; q < (C); ++q)                                          \
    _Pragma("GCC unroll 3") for (int r = 0; r < (R); ++r) st8(c + (size_t)q * ld + 8 * (size_t)r, s[r][q])

static SKF_INL void tile8_run(double *c, size_t ld, const double *x, const double *b, size_t nk, const int R,
                              const int C)
{
    SKF_TILE8_LOAD(R, C);
    for (size_t k = 0; k < nk; ++k, x += ld, b += ld)
        SKF_TILE8_STEP(R, C, x, b);
    SKF_TILE8_STORE(R, C);
}

static SKF_INL void tile8_nodes(double *c, size_t ld, const double *x, const double *b, const size_t *tl,
                                size_t nt, const int R, const int C)
{
    SKF_TILE8_LOAD(R, C);
    for (size_t e = 0; e < nt; ++e) {
        const size_t o = 3 * tl[e] * ld;
        const double *xk = x + o, *bk = b + o;
        _Pragma("GCC unroll 1") for (int k = 0; k < 3; ++k, xk += ld, bk += ld)
            SKF_TILE8_STEP(R, C, xk, bk);
    }
    SKF_TILE8_STORE(R, C);
}

/* The trailing clique's dense Cholesky, in place: a is column-major with
 * leading dimension ld (a multiple of 4, ≥ m; rows m .. ld−1 zero), the lower
 * triangle holds A and gets L, the upper part is scratch (zeroed on load).
 * Right-looking by panels of SKF_BCHOL_NB columns; inside a panel column by
 * column, then the later columns updated by the panel through 12×4 tiles held
 * in registers (tile_run). Every entry gets its products subtracted one at a time in
 * ascending k and is then divided by (or is the square root of) its pivot —
 * the order of envelope.c's skfi_env_factor3, so the same bits whatever the
 * panel or tile shape and whether the lanes are AVX2 or generic vectors.
 * Returns 0, or j + 1 when pivot j is not positive. */
#define SKF_BCHOL_NB 32
/* instructions per multiply-add of the sparse columns' updates of one another
 * against the dense kernels' (callgrind, bench_solve's random tree: 4.5 and
 * about 1, with the scalar block updates; the vector ones of sparse_body run
 * at about 1.6, and the split that constant gives costs within 2 % of this
 * one's: kept, docs/solver.md D6h) */
#define SKF_BCHOL_SPARSE_COST 4.5
static SKF_INL size_t dense_body(size_t m, size_t ld, double *a, const bool wide)
{
    for (size_t k0 = 0; k0 < m; k0 += SKF_BCHOL_NB) {
        const size_t k1 = k0 + SKF_BCHOL_NB < m ? k0 + SKF_BCHOL_NB : m;
        for (size_t j = k0; j < k1; ++j) {
            double *cj = a + j * ld;
            const double d = cj[j];
            if (!(d > 0)) /* not positive definite (or NaN) */
                return j + 1;
            cj[j] = sqrt(d);
            for (size_t i = j + 1; i < ld; ++i)
                cj[i] = cj[i] / cj[j];
            for (size_t q = j + 1; q < k1; ++q) {
                const double l = cj[q];
                double *cq = a + q * ld;
                for (size_t i = q; i < ld; ++i)
                    cq[i] -= cj[i] * l;
            }
        }
        /* columns k1 .. (by fours; those past m are padding), rows from the
         * column group's first: a(i, j) −= Σ_{k0 ≤ k < k1} l(i, k) l(j, k) */
        for (size_t j = k1; j < m; j += 4) {
            const double *x = a + k0 * ld, *b = x + j;
            size_t i = j;
            if (wide)
                for (; i + 24 <= ld; i += 24)
                    tile8_run(a + j * ld + i, ld, x + i, b, k1 - k0, 3, 4);
            for (; i + 12 <= ld; i += 12)
                tile_run(a + j * ld + i, ld, x + i, b, k1 - k0, 3, 4);
            if (i + 8 <= ld)
                tile_run(a + j * ld + i, ld, x + i, b, k1 - k0, 2, 4);
            else if (i < ld)
                tile_run(a + j * ld + i, ld, x + i, b, k1 - k0, 1, 4);
        }
    }
    return 0;
}

static size_t dense_generic(size_t m, size_t ld, double *a) { return dense_body(m, ld, a, false); }

#ifdef SKF_LANES_AVX2
SKF_TARGET_AVX2 static size_t dense_avx2(size_t m, size_t ld, double *a) { return dense_body(m, ld, a, false); }
SKF_TARGET_AVX512 static size_t dense_avx512(size_t m, size_t ld, double *a) { return dense_body(m, ld, a, true); }
#endif

static size_t dense_factor(size_t m, size_t ld, double *a)
{
#ifdef SKF_LANES_AVX2
    const int w = kernel_width();
    if (w == 8)
        return dense_avx512(m, ld, a);
    if (w == 4)
        return dense_avx2(m, ld, a);
#endif
    return dense_generic(m, ld, a);
}

void skfi_bchol_release(skfi_bchol *c)
{
    skf_free(c->perm);
    skf_free(c->iperm);
    skf_free(c->col_off);
    skf_free(c->row);
    skf_free(c->map);
    skf_free(c->L);
    skf_free(c->dn);
    skf_free(c->P);
    skf_free(c->jl_off);
    skf_free(c->jl);
    skf_free(c->cur);
    skf_free(c->xe);
    skf_free(c->pat);
    skf_free(c->ld_src);
    skf_free(c->ld_dst);
    memset(c, 0, sizeof *c);
}

skf_status skfi_bchol_analyse(skfi_bchol *c, size_t n, const uint64_t *pattern)
{
    memset(c, 0, sizeof *c);
    const size_t W = (n + 63) / 64;
    uint64_t *g = skf_malloc_array(n * W > 0 ? n * W : 1, sizeof *g);
    size_t *deg = skf_malloc_array(n ? n : 1, sizeof *deg), *nbr = skf_malloc_array(n ? n : 1, sizeof *nbr);
    size_t *soff = skf_calloc(n + 1, sizeof *soff), *snode = NULL, cap = 0;
    bool *done = skf_calloc(n ? n : 1, sizeof *done);
    c->n = n;
    c->perm = skf_malloc_array(n ? n : 1, sizeof *c->perm);
    c->iperm = skf_malloc_array(n ? n : 1, sizeof *c->iperm);
    c->col_off = skf_malloc_array(n + 1, sizeof *c->col_off);
    skf_status st = SKF_ERR_NOMEM;
    if (!g || !deg || !nbr || !soff || !done || !c->perm || !c->iperm || !c->col_off)
        goto fail;
    memcpy(g, pattern, n * W * sizeof *g);
    c->pat = skf_malloc_array(n * W > 0 ? n * W : 1, sizeof *c->pat);
    if (!c->pat)
        goto fail;
    memcpy(c->pat, pattern, n * W * sizeof *c->pat);
    for (size_t v = 0; v < n; ++v) {
        g[v * W + v / 64] &= ~((uint64_t)1 << (v % 64));
        deg[v] = 0;
        for (size_t w = 0; w < W; ++w)
            deg[v] += (size_t)__builtin_popcountll(g[v * W + w]);
    }
    /* elimination: the node of least degree; its neighbours become a clique */
    for (size_t t = 0; t < n; ++t) {
        size_t v = SIZE_MAX;
        for (size_t u = 0; u < n; ++u)
            if (!done[u] && (v == SIZE_MAX || deg[u] < deg[v]))
                v = u;
        done[v] = true;
        c->perm[t] = v;
        size_t m = 0;
        for (size_t w = 0; w < W; ++w)
            for (uint64_t bits = g[v * W + w]; bits; bits &= bits - 1)
                nbr[m++] = 64 * w + (size_t)__builtin_ctzll(bits);
        if (soff[t] + m > cap) {
            size_t ncap = 2 * cap + m + 64;
            size_t *ns = skf_realloc_array(snode, ncap, sizeof *ns);
            if (!ns)
                goto fail;
            snode = ns;
            cap = ncap;
        }
        if (m > 0)
            memcpy(snode + soff[t], nbr, m * sizeof *nbr);
        soff[t + 1] = soff[t] + m;
        for (size_t q = 0; q < m; ++q) {
            uint64_t *gu = g + nbr[q] * W;
            const uint64_t *gv = g + v * W;
            for (size_t w = 0; w < W; ++w)
                gu[w] |= gv[w];
            gu[nbr[q] / 64] &= ~((uint64_t)1 << (nbr[q] % 64));
            gu[v / 64] &= ~((uint64_t)1 << (v % 64));
        }
        for (size_t q = 0; q < m; ++q) {
            const size_t u = nbr[q];
            deg[u] = 0;
            for (size_t w = 0; w < W; ++w)
                deg[u] += (size_t)__builtin_popcountll(g[u * W + w]);
        }
    }
    for (size_t t = 0; t < n; ++t)
        c->iperm[c->perm[t]] = t;
    /* columns by step: the diagonal block, then the rows' steps ascending */
    c->nnz = n + soff[n];
    c->row = skf_malloc_array(c->nnz ? c->nnz : 1, sizeof *c->row);
    c->map = skf_malloc_array(n * n > 0 ? n * n : 1, sizeof *c->map);
    if (!c->row || !c->map)
        goto fail;
    for (size_t e = 0; e < n * n; ++e)
        c->map[e] = -1;
    c->ops = 0;
    size_t at = 0;
    for (size_t t = 0; t < n; ++t) {
        c->col_off[t] = at;
        c->row[at++] = t;
        const size_t s0 = at;
        for (size_t q = soff[t]; q < soff[t + 1]; ++q)
            c->row[at++] = c->iperm[snode[q]];
        for (size_t a = s0 + 1; a < at; ++a) /* insertion sort: the columns are short */
            for (size_t b = a; b > s0 && c->row[b - 1] > c->row[b]; --b) {
                size_t tmp = c->row[b];
                c->row[b] = c->row[b - 1];
                c->row[b - 1] = tmp;
            }
        for (size_t a = c->col_off[t]; a < at; ++a)
            c->map[t * n + c->row[a]] = (int32_t)a;
        const double m = (double)(at - s0);
        c->ops += 27 * (m * (m + 1) / 2) + 9 * m;
    }
    c->col_off[n] = at;
    /* the trailing clique: from step t0 on every column holds all later rows */
    c->t0 = n;
    while (c->t0 > 0 && c->col_off[c->t0] - c->col_off[c->t0 - 1] == n - c->t0 + 1)
        --c->t0;
    /* the dense part: steps t1 .. n−1 (t1 ≤ t0, its zeros included), where
     * the estimated instructions are least: the sparse columns' updates of
     * one another (block table) at SKF_BCHOL_SPARSE_COST each, their updates
     * of the dense part (whole columns from the target's row down) and its
     * own factorisation at 1 each. As functions of t1, by differences: a
     * column t < t1 with k of its m rows before t1 costs 27(k(k+1)/2 + k(m−k))
     * sparse multiply-adds (k steps up at each row r, from t1 = r + 1 on), and
     * each row r ≥ t1 adds 9·3(n − r) to the dense part's (for t < t1 ≤ r).
     * Integers (and halves) in doubles: exact, so the sums' order is moot. */
    {
        double *dsp = skf_calloc(n + 2, sizeof *dsp), *ddn = skf_calloc(n + 2, sizeof *ddn);
        if (!dsp || !ddn) {
            skf_free(dsp);
            skf_free(ddn);
            goto fail;
        }
        for (size_t t = 0; t < n; ++t) {
            const double m = (double)(c->col_off[t + 1] - c->col_off[t] - 1);
            double k = 0;
            for (size_t a2 = c->col_off[t] + 1; a2 < c->col_off[t + 1]; ++a2) {
                const size_t r = c->row[a2];
                const double w = 27.0 * (double)(n - r);
                ddn[t + 1] += w;
                ddn[r + 1] -= w;
                k += 1;
                dsp[r + 1] += 27 * (k * (k + 1) / 2 + k * (m - k)) - 27 * ((k - 1) * k / 2 + (k - 1) * (m - k + 1));
            }
        }
        double best = -1, sp = 0, dn = 0;
        c->t1 = c->t0;
        for (size_t t1 = 0; t1 <= c->t0; ++t1) {
            sp += dsp[t1];
            dn += ddn[t1];
            const double m = 3.0 * (double)(n - t1);
            const double cost = SKF_BCHOL_SPARSE_COST * sp + dn + m * m * m / 6;
            if (best < 0 || cost < best) {
                best = cost;
                c->t1 = t1;
            }
        }
        skf_free(dsp);
        skf_free(ddn);
    }
    const size_t t1 = c->t1, nd = n - t1;
    c->dn_ld = (3 * nd + 3) / 4 * 4;
    c->dn = skf_malloc_array(c->dn_ld * c->dn_ld > 0 ? c->dn_ld * c->dn_ld : 1, sizeof *c->dn);
    c->P = skf_calloc(3 * t1 * c->dn_ld > 0 ? 3 * t1 * c->dn_ld : 1, sizeof *c->P);
    c->jl_off = skf_calloc(nd + 1, sizeof *c->jl_off);
    c->L = skf_malloc_array(9 * (c->col_off[t1] > 0 ? c->col_off[t1] : 1), sizeof *c->L);
    c->jl = skf_malloc_array(c->col_off[t1] > 0 ? c->col_off[t1] : 1, sizeof *c->jl);
    c->cur = skf_malloc_array(nd > 0 ? nd : 1, sizeof *c->cur);
    {
        size_t mc = 1;
        for (size_t t = 0; t < t1; ++t)
            if (c->col_off[t + 1] - c->col_off[t] - 1 > mc)
                mc = c->col_off[t + 1] - c->col_off[t] - 1;
        c->xe = skf_malloc_array(72 * mc, sizeof *c->xe);
    }
    if (!c->L || !c->dn || !c->P || !c->jl_off || !c->jl || !c->cur || !c->xe)
        goto fail;
    /* by dense node J: the sparse columns t whose structure holds it, ascending */
    for (size_t t = 0; t < t1; ++t)
        for (size_t a2 = c->col_off[t] + 1; a2 < c->col_off[t + 1]; ++a2)
            if (c->row[a2] >= t1)
                c->jl_off[c->row[a2] - t1 + 1] += 1;
    for (size_t J = 0; J < nd; ++J)
        c->jl_off[J + 1] += c->jl_off[J];
    {
        size_t *fill = nbr; /* reused: n ≥ nd */
        memcpy(fill, c->jl_off, nd * sizeof *fill);
        for (size_t t = 0; t < t1; ++t)
            for (size_t a2 = c->col_off[t] + 1; a2 < c->col_off[t + 1]; ++a2)
                if (c->row[a2] >= t1)
                    c->jl[fill[c->row[a2] - t1]++] = t;
    }
    st = SKF_OK;
fail:
    skf_free(g);
    skf_free(deg);
    skf_free(nbr);
    skf_free(soff);
    skf_free(snode);
    skf_free(done);
    if (st != SKF_OK)
        skfi_bchol_release(c);
    return st;
}

/* The sparse columns' updates of the dense part, in place: for each dense
 * node J (columns 3J' .. 3J'+2 of a, J' = J − t1) and rows from its first
 * down, a(i, j) −= Σ_k P(i, k) P(j, k) over the scalar columns k of the
 * sparse nodes whose structure holds J, ascending (the others' P(j, k) are
 * zero); P column-major, leading dimension ld, its rows those of a. By
 * chunks of SKF_BCHOL_KC sparse nodes (their columns of P stay in cache
 * while every J takes their updates), 12×3 tiles in registers; one product
 * at a time per entry, in ascending k, as dense_body. cur: [n − t1]. */
#define SKF_BCHOL_KC 8
static SKF_INL void syrk_body(const skfi_bchol *c, double *a, const double *P, size_t *cur, const bool wide)
{
    const size_t ld = c->dn_ld, nd = c->n - c->t1;
    memcpy(cur, c->jl_off, nd * sizeof *cur);
    for (size_t tc = 0; tc < c->t1; tc += SKF_BCHOL_KC) {
        const size_t te = tc + SKF_BCHOL_KC;
        for (size_t J = 0; J < nd; ++J) {
            const size_t *tl = c->jl + cur[J];
            size_t nt = 0;
            while (cur[J] + nt < c->jl_off[J + 1] && tl[nt] < te)
                ++nt;
            if (nt == 0)
                continue;
            cur[J] += nt;
            const size_t j = 3 * J;
            size_t i = j & ~(size_t)3;
            if (wide)
                for (; i + 24 <= ld; i += 24)
                    tile8_nodes(a + j * ld + i, ld, P + i, P + j, tl, nt, 3, 3);
            for (; i + 12 <= ld; i += 12)
                tile_nodes(a + j * ld + i, ld, P + i, P + j, tl, nt, 3, 3);
            if (i + 8 <= ld)
                tile_nodes(a + j * ld + i, ld, P + i, P + j, tl, nt, 2, 3);
            else if (i < ld)
                tile_nodes(a + j * ld + i, ld, P + i, P + j, tl, nt, 1, 3);
        }
    }
}

static void syrk_generic(const skfi_bchol *c, double *a, const double *P, size_t *cur)
{
    syrk_body(c, a, P, cur, false);
}

#ifdef SKF_LANES_AVX2
SKF_TARGET_AVX2 static void syrk_avx2(const skfi_bchol *c, double *a, const double *P, size_t *cur)
{
    syrk_body(c, a, P, cur, false);
}

SKF_TARGET_AVX512 static void syrk_avx512(const skfi_bchol *c, double *a, const double *P, size_t *cur)
{
    syrk_body(c, a, P, cur, true);
}
#endif

/* The sparse columns t < t1, right-looking by 3×3 blocks through the block
 * table. Each column's blocks are expanded once (xe: per block, for k = 0..2,
 * the 9-vectors X(e/3, k) and X(e%3, k), e = 0..8, padded to 12) so that an
 * update Z −= X Yᵀ of a later block runs on vectors: entry (p, q) gets
 * X(p, 0)Y(q, 0), X(p, 1)Y(q, 1), X(p, 2)Y(q, 2) subtracted one at a time in
 * that order, the textbook order of the scalar loop it replaces (the same
 * bits). Returns 0, or 3t + p + 1 when pivot 3t + p is not positive. */
static SKF_INL size_t sparse_body(skfi_bchol *c)
{
    const size_t n = c->n, t1 = c->t1;
    double *L = c->L, *xe = c->xe;
    for (size_t t = 0; t < t1; ++t) {
        double *D = L + 9 * c->col_off[t];
        /* the diagonal block: D = chol(D) (lower; the upper part cleared) */
        for (int p = 0; p < 3; ++p)
            for (int q = 0; q <= p; ++q) {
                double v = D[p * 3 + q];
                for (int k = 0; k < q; ++k)
                    v -= D[p * 3 + k] * D[q * 3 + k];
                if (q < p) {
                    D[p * 3 + q] = v / D[q * 3 + q];
                } else {
                    if (!(v > 0))
                        return 3 * t + (size_t)p + 1;
                    D[p * 3 + p] = sqrt(v);
                }
            }
        D[1] = D[2] = D[5] = 0;
        /* the column: L(i, t) = A(i, t) D⁻ᵀ, row by row of each block */
        const size_t b0 = c->col_off[t] + 1, b1 = c->col_off[t + 1];
        for (size_t b = b0; b < b1; ++b) {
            double *X = L + 9 * b, *E = xe + 72 * (b - b0);
            for (int p = 0; p < 3; ++p)
                for (int q = 0; q < 3; ++q) {
                    double v = X[p * 3 + q];
                    for (int k = 0; k < q; ++k)
                        v -= X[p * 3 + k] * D[q * 3 + k];
                    X[p * 3 + q] = v / D[q * 3 + q];
                }
            for (int k = 0; k < 3; ++k) {
                for (int e = 0; e < 9; ++e) {
                    E[12 * k + e] = X[(e / 3) * 3 + k];
                    E[36 + 12 * k + e] = X[(e % 3) * 3 + k];
                }
                E[12 * k + 9] = E[12 * k + 10] = E[12 * k + 11] = 0;
                E[36 + 12 * k + 9] = E[36 + 12 * k + 10] = E[36 + 12 * k + 11] = 0;
            }
        }
        /* the update of the later sparse columns: A(i, k) −= L(i, t) L(k, t)ᵀ */
        for (size_t bk = b0; bk < b1 && c->row[bk] < t1; ++bk) {
            const size_t k = c->row[bk];
            const double *Ye = xe + 72 * (bk - b0) + 36;
            const skf_v4d y00 = ld4(Ye), y01 = ld4(Ye + 4), y10 = ld4(Ye + 12), y11 = ld4(Ye + 16);
            const skf_v4d y20 = ld4(Ye + 24), y21 = ld4(Ye + 28);
            const double y02 = Ye[8], y12 = Ye[20], y22 = Ye[32];
            const int32_t *mk = c->map + k * n;
            for (size_t bi = bk; bi < b1; ++bi) {
                const double *Xe = xe + 72 * (bi - b0);
                double *Z = L + 9 * (size_t)mk[c->row[bi]];
                skf_v4d z0 = ld4(Z), z1 = ld4(Z + 4);
                double z2 = Z[8];
                z0 -= ld4(Xe) * y00;
                z1 -= ld4(Xe + 4) * y01;
                z2 -= Xe[8] * y02;
                z0 -= ld4(Xe + 12) * y10;
                z1 -= ld4(Xe + 16) * y11;
                z2 -= Xe[20] * y12;
                z0 -= ld4(Xe + 24) * y20;
                z1 -= ld4(Xe + 28) * y21;
                z2 -= Xe[32] * y22;
                st4(Z, z0);
                st4(Z + 4, z1);
                Z[8] = z2;
            }
        }
    }
    return 0;
}

static size_t sparse_generic(skfi_bchol *c) { return sparse_body(c); }

#ifdef SKF_LANES_AVX2
SKF_TARGET_AVX2 static size_t sparse_avx2(skfi_bchol *c) { return sparse_body(c); }
#endif

/* The load of A's lower envelope (3×3 blocks by node) in elimination steps,
 * once per envelope: block (R, C) of A goes to (tR, tC) or, transposed,
 * (tC, tR) — entries of the sparse columns' blocks first (a diagonal block's
 * upper part too), then of the dense part. Blocks outside the pattern given
 * to skfi_bchol_analyse are zero in A and are left to the zeroing. */
skf_status skfi_bchol_plan(skfi_bchol *c, const size_t *nfirst, const size_t *eoff)
{
    const size_t n = c->n, t1 = c->t1, ld = c->dn_ld, W = (n + 63) / 64;
    skf_free(c->ld_src);
    skf_free(c->ld_dst);
    c->ld_src = c->ld_dst = NULL;
    c->ld_n = c->ld_ns = 0;
    for (int pass = 0; pass < 2; ++pass) {
        size_t at = 0;
        for (int dense = 0; dense < 2; ++dense) {
            for (size_t R = 0; R < n; ++R) {
                const size_t tR = c->iperm[R];
                if (dense && tR < t1)
                    continue;
                for (size_t C = nfirst[R]; C <= R; ++C) {
                    if (!(c->pat[R * W + C / 64] >> (C % 64) & 1))
                        continue;
                    const size_t tC = c->iperm[C];
                    const bool lower = tR >= tC;
                    const size_t ti = lower ? tR : tC, tj = lower ? tC : tR;
                    if ((tj >= t1) != (dense != 0))
                        continue;
                    const int32_t b = c->map[tj * n + ti];
                    if (b < 0)
                        continue;
                    for (int p = 0; p < 3; ++p)
                        for (int q = 0; q < 3 && (C < R || q <= p); ++q) {
                            /* entry (3ti + pi, 3tj + qj) of the factor's lower part */
                            const int pi = lower ? p : q, qj = lower ? q : p;
                            const size_t src = eoff[3 * R + (size_t)p] + (3 * C - 3 * nfirst[R]) + (size_t)q;
                            for (int mirror = 0; mirror < (!dense && C == R ? 2 : 1); ++mirror) {
                                const size_t dst =
                                    dense ? (3 * (tj - t1) + (size_t)qj) * ld + 3 * (ti - t1) + (size_t)pi
                                    : mirror ? 9 * (size_t)b + (size_t)(qj * 3 + pi)
                                             : 9 * (size_t)b + (size_t)(pi * 3 + qj);
                                if (pass == 1) {
                                    c->ld_src[at] = (uint32_t)src;
                                    c->ld_dst[at] = (uint32_t)dst;
                                }
                                ++at;
                            }
                        }
                }
            }
            if (pass == 1 && !dense)
                c->ld_ns = at;
        }
        if (pass == 0) {
            c->ld_n = at;
            if (eoff[3 * n] > UINT32_MAX || 9 * c->col_off[t1] > UINT32_MAX || ld * ld > UINT32_MAX)
                return SKF_ERR_NOMEM; /* beyond any skeleton */
            c->ld_src = skf_malloc_array(at ? at : 1, sizeof *c->ld_src);
            c->ld_dst = skf_malloc_array(at ? at : 1, sizeof *c->ld_dst);
            if (!c->ld_src || !c->ld_dst)
                return SKF_ERR_NOMEM;
        }
    }
    return SKF_OK;
}

double skfi_bchol_entry(const skfi_bchol *c, size_t i, size_t j)
{
    const size_t ti = i / 3, tj = j / 3;
    if (tj >= c->t1)
        return c->dn[(j - 3 * c->t1) * c->dn_ld + (i - 3 * c->t1)];
    const int32_t b = c->map[tj * c->n + ti];
    return b < 0 ? 0 : c->L[9 * (size_t)b + (i % 3) * 3 + j % 3];
}

size_t skfi_bchol_factor(skfi_bchol *c, const double *A)
{
    const size_t n = c->n, t1 = c->t1, ld = c->dn_ld;
    double *L = c->L, *dn = c->dn;
    /* the sparse columns' blocks from A; the dense part is loaded once they
     * are factored (a non-positive pivot there stops before) */
    memset(L, 0, 9 * c->col_off[t1] * sizeof *L);
    for (size_t e = 0; e < c->ld_ns; ++e)
        L[c->ld_dst[e]] = A[c->ld_src[e]];
#ifdef SKF_LANES_AVX2
    const size_t sfail = kernel_width() ? sparse_avx2(c) : sparse_generic(c);
#else
    const size_t sfail = sparse_generic(c);
#endif
    if (sfail)
        return sfail;
    if (t1 == n)
        return 0;
    /* the dense part's lower triangle (and the rows its tiles cross above
     * the diagonal) zeroed and loaded; the sparse columns' rows in it as
     * whole columns (P), their updates of it, then its factorisation */
    for (size_t j = 0; j < 3 * (n - t1); ++j) {
        const size_t i0 = j & ~(size_t)3;
        memset(dn + j * ld + i0, 0, (ld - i0) * sizeof *dn);
    }
    for (size_t e = c->ld_ns; e < c->ld_n; ++e)
        dn[c->ld_dst[e]] = A[c->ld_src[e]];
    if (t1 > 0) { /* P: the same entries every time, the others zero since analyse */
        double *P = c->P;
        for (size_t t = 0; t < t1; ++t)
            for (size_t b = c->col_off[t] + 1; b < c->col_off[t + 1]; ++b) {
                if (c->row[b] < t1)
                    continue;
                const double *X = L + 9 * b;
                for (int q = 0; q < 3; ++q)
                    for (int p = 0; p < 3; ++p)
                        P[(3 * t + (size_t)q) * ld + 3 * (c->row[b] - t1) + (size_t)p] = X[p * 3 + q];
            }
#ifdef SKF_LANES_AVX2
        const int w = kernel_width();
        if (w == 8)
            syrk_avx512(c, dn, P, c->cur);
        else if (w == 4)
            syrk_avx2(c, dn, P, c->cur);
        else
#endif
            syrk_generic(c, dn, P, c->cur);
    }
    const size_t fail = dense_factor(3 * (n - t1), ld, dn);
    return fail ? 3 * t1 + fail : 0;
}

/* Forward and back substitution in the textbook order too — x_i = (b_i −
 * Σ_{j<i} l_ij x_j) / l_ii, then x_j = (y_j − Σ_{i>j} l_ij x_i) / l_jj, each
 * sum one product at a time in ascending index — so the solution's bits do
 * not depend on the split either. */
void skfi_bchol_solve(const skfi_bchol *c, double *x, double *work)
{
    const size_t n = c->n, t1 = c->t1, ld = c->dn_ld, m = 3 * (n - t1);
    const double *L = c->L, *dn = c->dn;
    for (size_t t = 0; t < n; ++t)
        memcpy(work + 3 * t, x + 3 * c->perm[t], 3 * sizeof *x);
    for (size_t t = 0; t < t1; ++t) { /* L y = b by columns: the sparse ones */
        const double *D = L + 9 * c->col_off[t];
        double *y = work + 3 * t;
        y[0] = y[0] / D[0];
        y[1] = (y[1] - D[3] * y[0]) / D[4];
        y[2] = (y[2] - D[6] * y[0] - D[7] * y[1]) / D[8];
        for (size_t b = c->col_off[t] + 1; b < c->col_off[t + 1]; ++b) {
            const double *X = L + 9 * b;
            double *z = work + 3 * c->row[b];
            for (int p = 0; p < 3; ++p) {
                double v = z[p];
                v -= X[p * 3] * y[0];
                v -= X[p * 3 + 1] * y[1];
                v -= X[p * 3 + 2] * y[2];
                z[p] = v;
            }
        }
    }
    double *w = work + 3 * t1; /* the dense part, by columns, then by rows of Lᵀ */
    for (size_t j = 0; j < m; ++j) {
        const double *cj = dn + j * ld;
        const double yj = w[j] / cj[j];
        w[j] = yj;
        for (size_t i = j + 1; i < m; ++i)
            w[i] -= cj[i] * yj;
    }
    for (size_t j = m; j-- > 0;) {
        const double *cj = dn + j * ld;
        double v = w[j];
        for (size_t i = j + 1; i < m; ++i)
            v -= cj[i] * w[i];
        w[j] = v / cj[j];
    }
    for (size_t t = t1; t-- > 0;) { /* Lᵀ x = y: the sparse columns, last unknown first */
        const double *D = L + 9 * c->col_off[t];
        double *y = work + 3 * t;
        for (int q = 2; q >= 0; --q) {
            double v = y[q];
            for (int p = q + 1; p < 3; ++p) /* the node's own later rows */
                v -= D[p * 3 + q] * y[p];
            for (size_t b = c->col_off[t] + 1; b < c->col_off[t + 1]; ++b) {
                const double *X = L + 9 * b, *z = work + 3 * c->row[b];
                v -= X[q] * z[0];
                v -= X[3 + q] * z[1];
                v -= X[6 + q] * z[2];
            }
            y[q] = v / D[q * 4];
        }
    }
    for (size_t t = 0; t < n; ++t)
        memcpy(x + 3 * c->perm[t], work + 3 * t, 3 * sizeof *x);
}
