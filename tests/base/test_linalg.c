/* Dense Cholesky (src/base/cholesky.c) and 3×3 Jacobi SVD (src/base/svd3.c):
 * reconstruction and solve residuals on random, ill-conditioned and
 * rank-deficient inputs; worst figures printed. */
#include "check.h"
#include "skinfit/math.h"

#include <stdint.h>

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static void test_cholesky(size_t n, double cond_boost)
{
    /* A = G Gᵀ + δ I, column-major */
    double *G = malloc(n * n * sizeof *G), *A = malloc(n * n * sizeof *A),
           *L = malloc(n * n * sizeof *L), *x = malloc(n * sizeof *x), *b = malloc(n * sizeof *b);
    for (size_t i = 0; i < n * n; ++i)
        G[i] = urand();
    for (size_t c = 0; c < n; ++c)
        for (size_t r = 0; r < n; ++r) {
            double s = 0;
            for (size_t k = 0; k < n; ++k)
                s += G[k * n + r] * G[k * n + c];
            A[c * n + r] = s + (r == c ? cond_boost : 0);
        }
    for (size_t i = 0; i < n * n; ++i)
        L[i] = A[i];
    CHECK(skf_cholesky_factor(n, L) == 0);
    /* reconstruction of the lower triangle */
    double worst = 0, scale = 0;
    for (size_t c = 0; c < n; ++c)
        for (size_t r = c; r < n; ++r) {
            double s = 0;
            for (size_t k = 0; k <= c; ++k)
                s += L[k * n + r] * L[k * n + c];
            worst = fmax(worst, fabs(s - A[c * n + r]));
            scale = fmax(scale, fabs(A[c * n + r]));
        }
    printf("cholesky n=%zu: max |L Lt - A| / max|A| = %.3g\n", n, worst / scale);
    CHECK(worst <= 1e-13 * scale * (double)n);
    for (size_t i = 0; i < n; ++i)
        x[i] = urand();
    for (size_t r = 0; r < n; ++r) {
        double s = 0;
        for (size_t c = 0; c < n; ++c)
            s += A[c * n + r] * x[c];
        b[r] = s;
    }
    skf_cholesky_solve(n, L, b);
    double err = 0;
    for (size_t i = 0; i < n; ++i)
        err = fmax(err, fabs(b[i] - x[i]));
    printf("cholesky n=%zu: solve max |x - x*| = %.3g\n", n, err);
    CHECK(err <= 1e-8);
    free(G), free(A), free(L), free(x), free(b);
}

static void test_cholesky_indefinite(void)
{
    /* [[1,2],[2,1]] has eigenvalues 3, -1: the 2×2 minor fails */
    double A[4] = {1, 2, 2, 1};
    CHECK(skf_cholesky_factor(2, A) == 2);
    double Z[4] = {0, 0, 0, 1};
    CHECK(skf_cholesky_factor(2, Z) == 1);
    double N[1] = {NAN};
    CHECK(skf_cholesky_factor(1, N) == 1);
}

static double det3(const double m[9])
{
    return m[0] * (m[4] * m[8] - m[7] * m[5]) - m[3] * (m[1] * m[8] - m[7] * m[2]) +
           m[6] * (m[1] * m[5] - m[4] * m[2]);
}

static double svd_check(const double A[9], const char *what)
{
    double U[9], s[3], V[9];
    int sweeps = skf_svd3(A, U, s, V);
    double worst = 0, orth = 0, amax = 0;
    for (int i = 0; i < 9; ++i)
        amax = fmax(amax, fabs(A[i]));
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r) {
            double v = 0, uu = 0, vv = 0;
            for (int k = 0; k < 3; ++k) {
                v += U[k * 3 + r] * s[k] * V[k * 3 + c];
                uu += U[r * 3 + k] * U[c * 3 + k];
                vv += V[r * 3 + k] * V[c * 3 + k];
            }
            worst = fmax(worst, fabs(v - A[c * 3 + r]));
            orth = fmax(orth, fmax(fabs(uu - (r == c)), fabs(vv - (r == c))));
        }
    CHECK(s[0] >= s[1] && s[1] >= s[2] && s[2] >= 0);
    CHECK(orth <= 1e-14);
    CHECK(worst <= 4e-15 * (amax > 0 ? amax : 1));
    printf("svd3 %s: sweeps %d, max |U S Vt - A| = %.3g, orthogonality %.3g\n", what, sweeps, worst, orth);
    return s[2];
}

static void test_svd3(void)
{
    double worst_rand = 0;
    for (int t = 0; t < 200; ++t) {
        double A[9];
        for (int i = 0; i < 9; ++i)
            A[i] = urand();
        double U[9], s[3], V[9];
        skf_svd3(A, U, s, V);
        /* |det A| = s0 s1 s2 */
        worst_rand = fmax(worst_rand, fabs(fabs(det3(A)) - s[0] * s[1] * s[2]));
        if (t < 2)
            svd_check(A, "random");
    }
    printf("svd3: 200 random: max ||det| - prod(s)| = %.3g\n", worst_rand);
    CHECK(worst_rand <= 1e-14);
    double rank2[9] = {1, 2, 3, 4, 5, 6, 5, 7, 9}; /* third column = first + second */
    CHECK(svd_check(rank2, "rank 2") <= 1e-14);
    double rank1[9] = {1, 2, 3, 2, 4, 6, -1, -2, -3};
    svd_check(rank1, "rank 1");
    double zero[9] = {0};
    svd_check(zero, "zero");
    double U[9], s[3], V[9];
    skf_svd3(rank1, U, s, V);
    CHECK(fabs(det3(U) - 1) <= 1e-14); /* completed frame is right-handed */
    /* symmetric PSD: V's columns are eigenvectors, s eigenvalues */
    double S[9] = {4, 1, 0.5, 1, 3, 0.2, 0.5, 0.2, 1};
    skf_svd3(S, U, s, V);
    double ew = 0;
    for (int k = 0; k < 3; ++k)
        for (int r = 0; r < 3; ++r) {
            double sv = 0;
            for (int c = 0; c < 3; ++c)
                sv += S[c * 3 + r] * V[k * 3 + c];
            ew = fmax(ew, fabs(sv - s[k] * V[k * 3 + r]));
        }
    printf("svd3 symmetric: max |S v - s v| = %.3g\n", ew);
    CHECK(ew <= 1e-14);
    /* graded: singular values 1, 1e-8, 1e-16 recovered to relative accuracy of the largest */
    double D[9] = {1, 0, 0, 0, 1e-8, 0, 0, 0, 1e-16};
    skf_svd3(D, U, s, V);
    CHECK_NEAR(s[1], 1e-8, 1e-22);
}

int main(void)
{
    test_cholesky(12, 1e-3);
    test_cholesky(180, 1.0);
    test_cholesky_indefinite();
    test_svd3();
    return skf_test_done();
}
