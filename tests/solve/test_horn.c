/* Jacobi 4×4 eigen-decomposition against known eigensystems (incl. repeated
 * and near-degenerate spectra), Horn's rotation, weighted rigid fits. */
#include "check.h"
#include "skinfit/math.h"
#include "skinfit/solve.h"
#include "solve/synth.h"

/* Random orthogonal 4×4 (row-major, columns orthonormal) by Gram–Schmidt. */
static void random_orthogonal(synth_rng *r, double V[16])
{
    for (int c = 0; c < 4; ++c) {
        double v[4];
        for (;;) {
            for (int k = 0; k < 4; ++k)
                v[k] = synth_range(r, -1, 1);
            for (int p = 0; p < c; ++p) {
                double d = 0;
                for (int k = 0; k < 4; ++k)
                    d += v[k] * V[k * 4 + p];
                for (int k = 0; k < 4; ++k)
                    v[k] -= d * V[k * 4 + p];
            }
            double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
            if (n > 0.1) {
                for (int k = 0; k < 4; ++k)
                    V[k * 4 + c] = v[k] / n;
                break;
            }
        }
    }
}

static double worst_eig = 0, worst_vec = 0;

static void check_eigensystem(synth_rng *r, const double lam[4], bool distinct_top)
{
    double V[16], A[16];
    random_orthogonal(r, V);
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
            double s = 0;
            for (int k = 0; k < 4; ++k)
                s += V[i * 4 + k] * lam[k] * V[j * 4 + k];
            A[i * 4 + j] = s;
        }
    double scale = 0;
    for (int k = 0; k < 4; ++k)
        scale = fmax(scale, fabs(lam[k]));
    double ev[4], E[16];
    int sweeps = skf_sym4_eigen(A, ev, E);
    CHECK(sweeps < 20);
    double sorted[4];
    memcpy(sorted, lam, sizeof sorted);
    for (int i = 0; i < 4; ++i)
        for (int j = i + 1; j < 4; ++j)
            if (sorted[j] > sorted[i]) {
                double t = sorted[i];
                sorted[i] = sorted[j];
                sorted[j] = t;
            }
    for (int k = 0; k < 4; ++k) {
        double d = fabs(ev[k] - sorted[k]) / scale;
        worst_eig = fmax(worst_eig, d);
        /* backward stable: error ≤ c·eps·‖A‖ (A itself is rounded when built) */
        CHECK_MSG(d < 1e-13, "eigenvalue %d: %.17g vs %.17g", k, ev[k], sorted[k]);
        /* residual ‖A e − λ e‖ and unit norm */
        double res = 0, nn = 0;
        for (int i = 0; i < 4; ++i) {
            double s = 0;
            for (int j = 0; j < 4; ++j)
                s += A[i * 4 + j] * E[j * 4 + k];
            res += (s - ev[k] * E[i * 4 + k]) * (s - ev[k] * E[i * 4 + k]);
            nn += E[i * 4 + k] * E[i * 4 + k];
        }
        worst_vec = fmax(worst_vec, sqrt(res) / scale);
        CHECK(sqrt(res) / scale < 1e-14);
        CHECK_NEAR(nn, 1.0, 1e-14);
    }
    if (distinct_top) {
        /* top eigenvector equals ±V column of the largest λ */
        int top = 0;
        for (int k = 1; k < 4; ++k)
            if (lam[k] > lam[top])
                top = k;
        double d = 0;
        for (int i = 0; i < 4; ++i)
            d += E[i * 4] * V[i * 4 + top];
        CHECK_NEAR(fabs(d), 1.0, 1e-13);
    }
}

static void test_jacobi(void)
{
    synth_rng r = {0x9e3779b97f4a7c15ull};
    const double cases[][4] = {
        {4, 3, 2, 1},
        {-1, 5, 0.5, 2},
        {1, 1, 1, 1},                 /* identity × 1: any basis */
        {2, 2, -1, 0},                /* repeated top */
        {1, 1 - 1e-9, 0.3, -0.2},     /* near-degenerate top (distinct) */
        {1e6, 1e6 * (1 - 1e-12), 1, -1e6},
        {0, 0, 0, 1e-100},
        {3, -3, 1e-15, 0},
    };
    for (int t = 0; t < 200; ++t)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
            check_eigensystem(&r, cases[c], c == 0 || c == 1);
    /* a matrix that is already diagonal */
    double D[16] = {1, 0, 0, 0, 0, 5, 0, 0, 0, 0, -2, 0, 0, 0, 0, 3}, ev[4], E[16];
    skf_sym4_eigen(D, ev, E);
    CHECK(ev[0] == 5 && ev[1] == 3 && ev[2] == 1 && ev[3] == -2);
    printf("jacobi: worst eigenvalue error %.3g, worst residual %.3g (relative to |λ|max)\n",
           worst_eig, worst_vec);
}

static double rot_diff(const double *A, const double *B)
{
    double w = 0;
    for (int e = 0; e < 9; ++e)
        w = fmax(w, fabs(A[e] - B[e]));
    return w;
}

static void test_horn(void)
{
    synth_rng r = {12345};
    double worst = 0, worst_deg = 0;
    for (int t = 0; t < 500; ++t) {
        double T0[12];
        synth_rigid(&r, M_PI, 0, T0); /* any angle incl. near 180° */
        /* H = R0 · D with D SPD diagonal: the maximiser of ⟨R, H⟩ is R0 */
        double d[3] = {synth_range(&r, 0.1, 3), synth_range(&r, 0.1, 3), synth_range(&r, 0.1, 3)};
        double H[9], R[9];
        for (int c = 0; c < 3; ++c)
            for (int row = 0; row < 3; ++row)
                H[c * 3 + row] = T0[c * 3 + row] * d[c];
        skf_horn_rotation(H, R);
        worst = fmax(worst, rot_diff(R, T0));
        /* planar points: D = diag(1, a, 0) still determines R */
        double a = synth_range(&r, 1e-6, 1);
        double dd[3] = {1, a, 0};
        int perm = t % 3;
        double dp[3] = {dd[perm], dd[(perm + 1) % 3], dd[(perm + 2) % 3]};
        for (int c = 0; c < 3; ++c)
            for (int row = 0; row < 3; ++row)
                H[c * 3 + row] = T0[c * 3 + row] * dp[c];
        skf_horn_rotation(H, R);
        worst_deg = fmax(worst_deg, rot_diff(R, T0) * a); /* error scales like 1/gap */
    }
    printf("horn: worst |R - R0| %.3g (generic), %.3g·gap (planar)\n", worst, worst_deg);
    CHECK(worst < 1e-13);
    CHECK(worst_deg < 1e-13);
    /* a tiny rotation (a thousandth of a degree) is resolved, not stalled */
    double q[4] = {0, 0, sin(0.5 * 1e-3 * M_PI / 180), cos(0.5 * 1e-3 * M_PI / 180)}, R0[9], R[9];
    skf_quat_to_mat3(R0, q);
    skf_horn_rotation(R0, R);
    CHECK(rot_diff(R, R0) < 1e-15);
}

/* skf_horn_rotation_fast (characteristic polynomial + adjugate, Jacobi
 * fallback) against the exact rotation and against skf_horn_rotation. */
static void test_horn_fast(void)
{
    synth_rng r = {4242};
    double worst = 0, worst_deg = 0, worst_rand = 0;
    for (int t = 0; t < 2000; ++t) {
        double T0[12];
        synth_rigid(&r, M_PI, 0, T0);
        double d[3] = {synth_range(&r, 0.1, 3), synth_range(&r, 0.1, 3), synth_range(&r, 0.1, 3)};
        double H[9], R[9], Rj[9];
        for (int c = 0; c < 3; ++c)
            for (int row = 0; row < 3; ++row)
                H[c * 3 + row] = T0[c * 3 + row] * d[c];
        skf_horn_rotation_fast(H, R);
        worst = fmax(worst, rot_diff(R, T0));
        double a = synth_range(&r, 1e-6, 1);
        double dd[3] = {1, a, 0};
        int perm = t % 3;
        double dp[3] = {dd[perm], dd[(perm + 1) % 3], dd[(perm + 2) % 3]};
        for (int c = 0; c < 3; ++c)
            for (int row = 0; row < 3; ++row)
                H[c * 3 + row] = T0[c * 3 + row] * dp[c];
        skf_horn_rotation_fast(H, R);
        worst_deg = fmax(worst_deg, rot_diff(R, T0) * a);
        /* any H (reflections, rank-deficient, mixed scales): same maximiser
         * as the Jacobi path */
        double sc = pow(10, synth_range(&r, -6, 6));
        for (int e = 0; e < 9; ++e)
            H[e] = sc * synth_range(&r, -1, 1);
        if (t % 7 == 0)
            for (int row = 0; row < 3; ++row)
                H[6 + row] = 0.5 * H[row] - 2 * H[3 + row]; /* rank 2 */
        skf_horn_rotation_fast(H, R);
        skf_horn_rotation(H, Rj);
        /* compare the objective ⟨R, H⟩ (the maximiser may be non-unique) and
         * orthonormality */
        double fo = 0, fj = 0, hn = 0;
        for (int e = 0; e < 9; ++e) {
            fo += R[e] * H[e];
            fj += Rj[e] * H[e];
            hn += fabs(H[e]);
        }
        worst_rand = fmax(worst_rand, (fj - fo) / hn);
        double RtR = 0;
        for (int i = 0; i < 3; ++i)
            for (int k = 0; k < 3; ++k) {
                double s = 0;
                for (int m = 0; m < 3; ++m)
                    s += R[i * 3 + m] * R[k * 3 + m];
                RtR = fmax(RtR, fabs(s - (i == k)));
            }
        CHECK(RtR < 1e-14);
    }
    printf("horn fast: worst |R - R0| %.3g (generic), %.3g·gap (planar), objective below "
           "Jacobi's by at most %.3g of Σ|H|\n", worst, worst_deg, worst_rand);
    CHECK(worst < 1e-13);
    CHECK(worst_deg < 1e-13);
    CHECK(worst_rand < 1e-14);
    double q[4] = {0, 0, sin(0.5 * 1e-3 * M_PI / 180), cos(0.5 * 1e-3 * M_PI / 180)}, R0[9], R[9];
    skf_quat_to_mat3(R0, q);
    skf_horn_rotation_fast(R0, R);
    CHECK(rot_diff(R, R0) < 1e-15);
    double Z[9] = {0}, I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    skf_horn_rotation_fast(Z, R);
    CHECK(rot_diff(R, I) == 0);
}

static void test_rigid_fit(void)
{
    synth_rng r = {777};
    double worst = 0, worst_noisy = 0;
    for (int t = 0; t < 50; ++t) {
        enum { n = 40 };
        double src[3 * n], dst[3 * n], w[n], T0[12], T[12];
        synth_rigid(&r, M_PI, 10, T0);
        for (int j = 0; j < n; ++j) {
            for (int k = 0; k < 3; ++k)
                src[3 * j + k] = synth_range(&r, -2, 2);
            w[j] = synth_uniform(&r);
            skf_transform34_apply(T0, src + 3 * j, dst + 3 * j);
        }
        CHECK(skf_rigid_fit(n, src, dst, (t & 1) ? w : NULL, T));
        for (int e = 0; e < 12; ++e)
            worst = fmax(worst, fabs(T[e] - T0[e]));
        /* the fast rotation: the same fit up to rounding, exact and with
         * noise on the targets (no exact rigid motion left) */
        CHECK(skf_rigid_fit_fast(n, src, dst, (t & 1) ? w : NULL, T));
        for (int e = 0; e < 12; ++e)
            worst = fmax(worst, fabs(T[e] - T0[e]));
        double noisy[3 * n], Tj[12];
        for (int e = 0; e < 3 * n; ++e)
            noisy[e] = dst[e] + synth_range(&r, -0.3, 0.3);
        CHECK(skf_rigid_fit(n, src, noisy, (t & 1) ? w : NULL, Tj));
        CHECK(skf_rigid_fit_fast(n, src, noisy, (t & 1) ? w : NULL, T));
        for (int e = 0; e < 12; ++e)
            worst_noisy = fmax(worst_noisy, fabs(T[e] - Tj[e]));
    }
    printf("rigid fit: worst entry error %.3g; fast against Jacobi with noise %.3g\n", worst,
           worst_noisy);
    CHECK(worst < 1e-12);
    CHECK(worst_noisy < 1e-12);
    double T[12];
    CHECK(!skf_rigid_fit(0, NULL, NULL, NULL, T));
    CHECK(T[0] == 1 && T[4] == 1 && T[8] == 1 && T[9] == 0);
    CHECK(!skf_rigid_fit_fast(0, NULL, NULL, NULL, T));
    CHECK(T[0] == 1 && T[4] == 1 && T[8] == 1 && T[9] == 0);
}

int main(void)
{
    test_jacobi();
    test_horn();
    test_horn_fast();
    test_rigid_fit();
    return skf_test_done();
}
