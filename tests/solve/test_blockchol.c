/* src/solve/blockchol.c: the sparse Cholesky by 3×3 blocks in a minimum-degree
 * order (rotation-only's whole-problem factorisation on large rigs, docs/solver.md
 * D6d) against the dense Cholesky of src/base/cholesky.c on random symmetric
 * block-sparse SPD matrices given in the envelope layout: the order is a
 * permutation, the solution agrees, A x = b holds, a non-positive pivot is
 * reported, its operation count is below the envelope's on a scattered
 * pattern, and the trailing dense clique path (a dense pattern) agrees too.
 * The factor is, entry for entry and bit for bit, the textbook Cholesky of
 * the permuted matrix (each entry's products subtracted one at a time in
 * ascending order, then divided by its pivot or square-rooted), with the
 * dense kernels on AVX2 and on generic vectors, whatever the split between
 * sparse columns and dense part, and so is a solve's result (the textbook
 * substitutions); a non-positive pivot is reported at the same step as that
 * reference's. */
#include "check.h"
#include "solve/solve_internal.h"
#include "skinfit/math.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x2545f4914f6cdd1dull;
static double uni(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

/* The reference: B (n×n, row-major, the permuted matrix) → its lower factor
 * in place, column by column, v = b_ij − Σ_{k<j} l_ik l_jk in ascending k one
 * product at a time, l_jj = √v, l_ij = v / l_jj; returns 0 or j + 1 at the
 * first pivot that is not positive. */
static size_t reference(size_t n, double *B)
{
    for (size_t j = 0; j < n; ++j)
        for (size_t i = j; i < n; ++i) {
            double v = B[i * n + j];
            for (size_t k = 0; k < j; ++k)
                v -= B[i * n + k] * B[j * n + k];
            if (i == j) {
                if (!(v > 0))
                    return j + 1;
                B[j * n + j] = sqrt(v);
            } else {
                B[i * n + j] = v / B[j * n + j];
            }
        }
    return 0;
}

/* The reference substitutions on its factor: x_i = (b_i − Σ_{j<i} l_ij x_j) / l_ii,
 * then x_j = (y_j − Σ_{i>j} l_ij x_i) / l_jj, each sum in ascending index. */
static void reference_solve(size_t n, const double *B, double *x)
{
    for (size_t i = 0; i < n; ++i) {
        double v = x[i];
        for (size_t j = 0; j < i; ++j)
            v -= B[i * n + j] * x[j];
        x[i] = v / B[i * n + i];
    }
    for (size_t j = n; j-- > 0;) {
        double v = x[j];
        for (size_t i = j + 1; i < n; ++i)
            v -= B[i * n + j] * x[i];
        x[j] = v / B[j * n + j];
    }
}

/* The factor against the reference, every entry (== : a structural zero may
 * be −0 on one side), and a solve's result; returns the number of entries
 * that differ. */
static size_t against_reference(const skfi_bchol *bc, const double *dense, size_t n, size_t bad, size_t *rbad)
{
    double *B = malloc(n * n * sizeof *B);
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j)
            B[i * n + j] = dense[(3 * bc->perm[i / 3] + i % 3) * n + 3 * bc->perm[j / 3] + j % 3];
    *rbad = reference(n, B);
    size_t diff = 0;
    if (!bad && !*rbad)
        for (size_t j = 0; j < n; ++j)
            for (size_t i = j; i < n; ++i)
                diff += !(skfi_bchol_entry(bc, i, j) == B[i * n + j]);
    if (!bad && !*rbad) {
        double *x = malloc(n * sizeof *x), *xr = malloc(n * sizeof *xr), *work = malloc(n * sizeof *work);
        for (size_t r = 0; r < n; ++r)
            x[r] = sin((double)r);
        for (size_t t = 0; t < n; ++t) /* the reference works in elimination order */
            xr[t] = x[3 * bc->perm[t / 3] + t % 3];
        skfi_bchol_solve(bc, x, work);
        reference_solve(n, B, xr);
        for (size_t t = 0; t < n; ++t)
            diff += !(x[3 * bc->perm[t / 3] + t % 3] == xr[t]);
        free(x);
        free(xr);
        free(work);
    }
    free(B);
    return diff;
}

/* indefinite: the diagonal made negative in row n/2 or, with fail_step ≥ 0,
 * in the first row of the node eliminated at that fraction of the steps */
static double fail_step = -1;

/* density: probability of an off-diagonal block */
static void one(size_t nodes, double density, bool indefinite)
{
    const size_t n = 3 * nodes, W = (nodes + 63) / 64;
    uint64_t *pat = calloc(nodes * W, sizeof *pat);
    double *dense = calloc(n * n, sizeof *dense);
    size_t *nfirst = malloc(nodes * sizeof *nfirst), *first = malloc(n * sizeof *first);
    size_t *off = malloc((n + 1) * sizeof *off);
    for (size_t R = 0; R < nodes; ++R) {
        nfirst[R] = R;
        for (size_t C = 0; C <= R; ++C) {
            if (C < R && !(uni() < density))
                continue;
            pat[R * W + C / 64] |= (uint64_t)1 << (C % 64);
            pat[C * W + R / 64] |= (uint64_t)1 << (R % 64);
            if (C < nfirst[R])
                nfirst[R] = C;
            for (int p = 0; p < 3; ++p)
                for (int q = 0; q < 3; ++q) {
                    if (C == R && q > p)
                        continue;
                    const double v = uni() - 0.5;
                    dense[(3 * R + p) * n + 3 * C + q] = dense[(3 * C + q) * n + 3 * R + p] = v;
                }
        }
    }
    skfi_bchol bc;
    CHECK(skfi_bchol_analyse(&bc, nodes, pat) == SKF_OK);
    const size_t bad_row = fail_step < 0 ? n / 2 : 3 * bc.perm[(size_t)(fail_step * (double)(nodes - 1))];
    for (size_t r = 0; r < n; ++r) { /* diagonally dominant: SPD */
        double s = 0;
        for (size_t c = 0; c < n; ++c)
            s += c == r ? 0 : fabs(dense[r * n + c]);
        dense[r * n + r] = s + 0.5 + (indefinite && r == bad_row ? -4 * s - 10 : 0);
    }
    off[0] = 0;
    for (size_t r = 0; r < n; ++r) {
        first[r] = 3 * nfirst[r / 3];
        off[r + 1] = off[r] + r - first[r] + 1;
    }
    double *A = malloc(off[n] * sizeof *A);
    for (size_t r = 0; r < n; ++r)
        for (size_t c = first[r]; c <= r; ++c)
            A[off[r] + c - first[r]] = dense[r * n + c];
    CHECK(skfi_bchol_plan(&bc, nfirst, off) == SKF_OK);
    bool perm = true;
    for (size_t t = 0; t < nodes; ++t)
        perm &= bc.perm[t] < nodes && bc.iperm[bc.perm[t]] == t;
    CHECK_MSG(perm, "nodes %zu: not a permutation", nodes);
    size_t bad = 0;
    for (int mode = 1; mode >= 0; mode = mode == 1 ? 2 : mode - 2) { /* generic vectors, AVX2, then AVX-512 where the CPU has them */
        skfi_bchol_kernel_mode = mode;
        bad = skfi_bchol_factor(&bc, A);
        size_t rbad;
        const size_t diff = against_reference(&bc, dense, n, bad, &rbad);
        CHECK_MSG(bad == rbad && diff == 0, "nodes %zu density %.2f mode %d: pivot %zu (reference %zu), %zu entries "
                  "differ from the reference", nodes, density, mode, bad, rbad, diff);
    }
    printf("nodes %4zu density %.2f: dense from step %zu (the clique from %zu), pivot %zu: "
           "bit for bit the reference\n", nodes, density, bc.t1, bc.t0, bad);
    const size_t dbad = skf_cholesky_factor(n, dense);
    double env_ops = 0;
    for (size_t R = 0; R < nodes; ++R)
        for (size_t C = nfirst[R]; C <= R; ++C)
            env_ops += 27.0 * (double)(C - (nfirst[R] > nfirst[C] ? nfirst[R] : nfirst[C]));
    if (indefinite) {
        CHECK_MSG(bad != 0 && dbad != 0, "indefinite: sparse %zu dense %zu", bad, dbad);
    } else {
        CHECK_MSG(bad == 0 && dbad == 0, "SPD: sparse %zu dense %zu", bad, dbad);
        double *b = malloc(n * sizeof *b), *x = malloc(n * sizeof *x), *xd = malloc(n * sizeof *xd);
        double *y = malloc(n * sizeof *y), *work = malloc(n * sizeof *work);
        for (size_t r = 0; r < n; ++r)
            b[r] = x[r] = xd[r] = uni() - 0.5;
        skfi_bchol_solve(&bc, x, work);
        skf_cholesky_solve(n, dense, xd);
        double dx = 0, nx = 0;
        for (size_t r = 0; r < n; ++r) {
            dx = fmax(dx, fabs(x[r] - xd[r]));
            nx = fmax(nx, fabs(xd[r]));
        }
        CHECK_MSG(dx <= 1e-12 * nx, "nodes %zu: |x − x_dense| %g of %g", nodes, dx, nx);
        skfi_env_symv(n, first, off, A, x, y);
        double res = 0, nb = 0;
        for (size_t r = 0; r < n; ++r) {
            res = fmax(res, fabs(y[r] - b[r]));
            nb = fmax(nb, fabs(b[r]));
        }
        CHECK_MSG(res <= 1e-11 * nb, "nodes %zu: |A x − b| %g of %g", nodes, res, nb);
        printf("nodes %4zu density %.2f: L %6zu blocks, dense clique from step %4zu, ops %.3g (envelope %.3g); "
               "|x - x_dense| %.2g, |Ax - b| %.2g\n", nodes, density, bc.nnz, bc.t0, bc.ops, env_ops, dx / nx,
               res / nb);
        if (nodes >= 100 && density < 0.05)
            CHECK_MSG(bc.ops < 0.5 * env_ops, "scattered pattern: ops %g against the envelope's %g", bc.ops, env_ops);
        free(b);
        free(x);
        free(xd);
        free(y);
        free(work);
    }
    skfi_bchol_release(&bc);
    free(pat);
    free(dense);
    free(nfirst);
    free(first);
    free(off);
    free(A);
}

int main(void)
{
    const size_t sizes[] = {1, 2, 5, 17, 60, 150, 300};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k)
        one(sizes[k], 0.02, false);
    one(40, 1.0, false); /* dense: one clique */
    one(120, 0.3, false);
    one(40, 0.1, true);
    one(1, 0, true);
    fail_step = 0.9;
    one(200, 0.05, true); /* the failing pivot in the dense part */
    fail_step = 0.1;
    one(200, 0.05, true); /* in the sparse columns */
    return skf_test_done();
}
