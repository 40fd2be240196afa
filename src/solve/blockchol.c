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
 * The numeric factorisation is right-looking by columns of blocks; the
 * updates of a column run over its rows in ascending order (fixed order:
 * results independent of threads; the same code builds for WebAssembly).
 * Block (i, t) of L, i ≥ t in elimination steps, is found through a dense
 * n × n table of block indices (4n² bytes: 1 MB at 500 nodes).
 */
#include "solve_internal.h"

#include <math.h>
#include <string.h>

void skfi_bchol_release(skfi_bchol *c)
{
    skf_free(c->perm);
    skf_free(c->iperm);
    skf_free(c->col_off);
    skf_free(c->row);
    skf_free(c->map);
    skf_free(c->L);
    skf_free(c->dn);
    skf_free(c->dn_first);
    skf_free(c->dn_nfirst);
    skf_free(c->dn_off);
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
    c->L = skf_malloc_array(9 * (c->nnz ? c->nnz : 1), sizeof *c->L);
    c->map = skf_malloc_array(n * n > 0 ? n * n : 1, sizeof *c->map);
    if (!c->row || !c->L || !c->map)
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
    /* the trailing clique: from step t0 on every column holds all later rows;
     * factored there as one dense block (envelope.c's kernel, contiguous sums) */
    c->t0 = n;
    while (c->t0 > 0 && c->col_off[c->t0] - c->col_off[c->t0 - 1] == n - c->t0 + 1)
        --c->t0;
    {
        const size_t m = 3 * (n - c->t0);
        c->dn_first = skf_calloc(m ? m : 1, sizeof *c->dn_first);
        c->dn_nfirst = skf_calloc(n - c->t0 ? n - c->t0 : 1, sizeof *c->dn_nfirst);
        c->dn_off = skf_malloc_array(m + 1, sizeof *c->dn_off);
        if (!c->dn_first || !c->dn_nfirst || !c->dn_off)
            goto fail;
        c->dn_off[0] = 0;
        for (size_t r = 0; r < m; ++r)
            c->dn_off[r + 1] = c->dn_off[r] + r + 1;
        c->dn = skf_malloc_array(c->dn_off[m] ? c->dn_off[m] : 1, sizeof *c->dn);
        if (!c->dn)
            goto fail;
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

size_t skfi_bchol_factor(skfi_bchol *c, const size_t *nfirst, const size_t *eoff, const double *A)
{
    const size_t n = c->n;
    double *L = c->L;
    memset(L, 0, 9 * c->nnz * sizeof *L);
    /* load A's lower envelope (3×3 blocks by node) into the blocks of L, in
     * elimination steps: block (R, C) of A goes to (tR, tC) or, transposed,
     * (tC, tR). An envelope block outside the pattern is zero. */
    for (size_t R = 0; R < n; ++R) {
        const size_t tR = c->iperm[R];
        for (size_t C = nfirst[R]; C <= R; ++C) {
            const size_t tC = c->iperm[C];
            const int32_t b = tR >= tC ? c->map[tC * n + tR] : c->map[tR * n + tC];
            if (b < 0)
                continue;
            double *d = L + 9 * (size_t)b; /* d[p*3+q] = L(3·row + p, 3·col + q) */
            for (int p = 0; p < 3; ++p) {
                const double *Ar = A + eoff[3 * R + (size_t)p] + (3 * C - 3 * nfirst[R]);
                for (int q = 0; q < 3 && (C < R || q <= p); ++q) {
                    if (tR >= tC)
                        d[p * 3 + q] = Ar[q];
                    else
                        d[q * 3 + p] = Ar[q];
                    if (C == R)
                        d[q * 3 + p] = Ar[q];
                }
            }
        }
    }
    for (size_t t = 0; t < c->t0; ++t) {
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
            double *X = L + 9 * b;
            for (int p = 0; p < 3; ++p)
                for (int q = 0; q < 3; ++q) {
                    double v = X[p * 3 + q];
                    for (int k = 0; k < q; ++k)
                        v -= X[p * 3 + k] * D[q * 3 + k];
                    X[p * 3 + q] = v / D[q * 3 + q];
                }
        }
        /* the update of the later columns: A(i, k) −= L(i, t) L(k, t)ᵀ */
        for (size_t bk = b0; bk < b1; ++bk) {
            const size_t k = c->row[bk];
            const double *Y = L + 9 * bk;
            for (size_t bi = bk; bi < b1; ++bi) {
                const double *X = L + 9 * bi;
                double *Z = L + 9 * (size_t)c->map[k * n + c->row[bi]];
                for (int p = 0; p < 3; ++p)
                    for (int q = 0; q < 3; ++q)
                        Z[p * 3 + q] -= X[p * 3] * Y[q * 3] + X[p * 3 + 1] * Y[q * 3 + 1] + X[p * 3 + 2] * Y[q * 3 + 2];
            }
        }
    }
    if (c->t0 == n)
        return 0;
    /* the trailing clique, dense: rows of its lower triangle, factored by
     * envelope.c (an envelope that starts at column 0), then back into blocks */
    const size_t t0 = c->t0;
    for (size_t t = t0; t < n; ++t)
        for (size_t b = c->col_off[t]; b < c->col_off[t + 1]; ++b) {
            const size_t i = c->row[b];
            const double *X = L + 9 * b;
            for (int p = 0; p < 3; ++p) {
                double *d = c->dn + c->dn_off[3 * (i - t0) + (size_t)p] + 3 * (t - t0);
                for (int q = 0; q < 3 && (i > t || q <= p); ++q)
                    d[q] = X[p * 3 + q];
            }
        }
    const size_t fail = skfi_env_factor3(n - t0, c->dn_nfirst, c->dn_off, c->dn);
    if (fail)
        return 3 * t0 + fail;
    for (size_t t = t0; t < n; ++t)
        for (size_t b = c->col_off[t]; b < c->col_off[t + 1]; ++b) {
            const size_t i = c->row[b];
            double *X = L + 9 * b;
            for (int p = 0; p < 3; ++p) {
                const double *d = c->dn + c->dn_off[3 * (i - t0) + (size_t)p] + 3 * (t - t0);
                for (int q = 0; q < 3; ++q)
                    X[p * 3 + q] = i > t || q <= p ? d[q] : 0;
            }
        }
    return 0;
}

void skfi_bchol_solve(const skfi_bchol *c, double *x, double *work)
{
    const size_t n = c->n;
    const double *L = c->L;
    for (size_t t = 0; t < n; ++t)
        memcpy(work + 3 * t, x + 3 * c->perm[t], 3 * sizeof *x);
    for (size_t t = 0; t < n; ++t) { /* L y = b by columns */
        const double *D = L + 9 * c->col_off[t];
        double *y = work + 3 * t;
        y[0] = y[0] / D[0];
        y[1] = (y[1] - D[3] * y[0]) / D[4];
        y[2] = (y[2] - D[6] * y[0] - D[7] * y[1]) / D[8];
        for (size_t b = c->col_off[t] + 1; b < c->col_off[t + 1]; ++b) {
            const double *X = L + 9 * b;
            double *z = work + 3 * c->row[b];
            for (int p = 0; p < 3; ++p)
                z[p] -= X[p * 3] * y[0] + X[p * 3 + 1] * y[1] + X[p * 3 + 2] * y[2];
        }
    }
    for (size_t t = n; t-- > 0;) { /* Lᵀ x = y */
        const double *D = L + 9 * c->col_off[t];
        double *y = work + 3 * t;
        for (size_t b = c->col_off[t] + 1; b < c->col_off[t + 1]; ++b) {
            const double *X = L + 9 * b, *z = work + 3 * c->row[b];
            for (int q = 0; q < 3; ++q)
                y[q] -= X[q] * z[0] + X[3 + q] * z[1] + X[6 + q] * z[2];
        }
        y[2] = y[2] / D[8];
        y[1] = (y[1] - D[7] * y[2]) / D[4];
        y[0] = (y[0] - D[3] * y[1] - D[6] * y[2]) / D[0];
    }
    for (size_t t = 0; t < n; ++t)
        memcpy(x + 3 * c->perm[t], work + 3 * t, 3 * sizeof *x);
}
