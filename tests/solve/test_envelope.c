/* src/solve/envelope.c: the envelope Cholesky by 3×3 blocks (rotation-only's
 * normal equations) against the dense Cholesky of src/base/cholesky.c on
 * random sparse SPD matrices whose block rows start at random columns —
 * solution agreement, A x = b residual, no write outside the envelope, a
 * non-positive pivot reported with its row, and the symmetric product. */
#include "check.h"
#include "solve/solve_internal.h"
#include "skinfit/math.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double uni(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

static void one(size_t nodes, bool indefinite)
{
    const size_t n = 3 * nodes;
    size_t *nfirst = malloc(nodes * sizeof *nfirst), *first = malloc(n * sizeof *first);
    size_t *off = malloc((n + 1) * sizeof *off);
    for (size_t R = 0; R < nodes; ++R)
        nfirst[R] = R - (size_t)(uni() * (double)(R + 1) * (uni() < 0.3 ? 1.0 : 0.2));
    off[0] = 0;
    for (size_t r = 0; r < n; ++r) {
        first[r] = 3 * nfirst[r / 3];
        off[r + 1] = off[r] + r - first[r] + 1;
    }
    const size_t S = off[n];
    /* A = G Gᵀ + n I with G lower-triangular inside the envelope: SPD with that envelope */
    double *dense = calloc(n * n, sizeof *dense), *G = calloc(n * n, sizeof *G);
    for (size_t r = 0; r < n; ++r)
        for (size_t c = first[r]; c <= r; ++c)
            G[r * n + c] = uni() < 0.5 ? 0 : uni() - 0.5;
    for (size_t r = 0; r < n; ++r)
        for (size_t c = 0; c <= r; ++c) {
            double s = 0;
            for (size_t k = 0; k <= c; ++k)
                s += G[r * n + k] * G[c * n + k];
            if (r == c)
                s += indefinite && r == n / 2 ? -1e3 * (double)n : 0.1;
            dense[c * n + r] = dense[r * n + c] = s; /* symmetric: column-major = row-major */
        }
    double *L = malloc((S + 8) * sizeof *L), *A = malloc(S * sizeof *A);
    for (size_t r = 0; r < n; ++r)
        for (size_t c = first[r]; c <= r; ++c)
            A[off[r] + c - first[r]] = dense[r * n + c];
    /* outside the envelope the matrix is zero (G's envelope is A's) */
    bool zero_outside = true;
    for (size_t r = 0; r < n; ++r)
        for (size_t c = 0; c < first[r]; ++c)
            zero_outside &= dense[r * n + c] == 0;
    CHECK(zero_outside);
    memcpy(L, A, S * sizeof *L);
    for (int k = 0; k < 8; ++k)
        L[S + k] = 12345.0; /* guard */
    size_t bad = skfi_env_factor3(nodes, nfirst, off, L);
    size_t dbad = skf_cholesky_factor(n, dense);
    if (indefinite) {
        CHECK_MSG(bad != 0 && dbad != 0, "indefinite: envelope %zu dense %zu", bad, dbad);
        CHECK_MSG(bad == dbad, "first bad pivot: envelope row %zu, dense %zu", bad, dbad);
    } else {
        CHECK_MSG(bad == 0 && dbad == 0, "SPD: envelope %zu dense %zu", bad, dbad);
        double *b = malloc(n * sizeof *b), *x = malloc(n * sizeof *x), *xd = malloc(n * sizeof *xd);
        double *y = malloc(n * sizeof *y);
        for (size_t r = 0; r < n; ++r)
            b[r] = x[r] = xd[r] = uni() - 0.5;
        skfi_env_solve(n, first, off, L, x);
        skf_cholesky_solve(n, dense, xd);
        double dx = 0, nx = 0;
        for (size_t r = 0; r < n; ++r) {
            dx = fmax(dx, fabs(x[r] - xd[r]));
            nx = fmax(nx, fabs(xd[r]));
        }
        CHECK_MSG(dx <= 1e-12 * nx, "n %zu: |x − x_dense| %g of %g", n, dx, nx);
        skfi_env_symv(n, first, off, A, x, y);
        double res = 0, nb = 0;
        for (size_t r = 0; r < n; ++r) {
            res = fmax(res, fabs(y[r] - b[r]));
            nb = fmax(nb, fabs(b[r]));
        }
        CHECK_MSG(res <= 1e-11 * nb, "n %zu: |A x − b| %g of %g", n, res, nb);
        printf("n %4zu envelope %7zu of %7zu: |x - x_dense| %.2g, |Ax - b| %.2g\n", n, S, n * (n + 1) / 2,
               dx / nx, res / nb);
        free(b);
        free(x);
        free(xd);
        free(y);
    }
    bool guard = true;
    for (int k = 0; k < 8; ++k)
        guard &= L[S + k] == 12345.0;
    CHECK_MSG(guard, "write past the envelope");
    free(nfirst);
    free(first);
    free(off);
    free(dense);
    free(G);
    free(L);
    free(A);
}

int main(void)
{
    const size_t sizes[] = {1, 2, 5, 17, 60, 150};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k)
        one(sizes[k], false);
    one(40, true);
    return skf_test_done();
}
