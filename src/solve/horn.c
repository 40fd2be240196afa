/* Weighted absolute orientation by unit quaternions.
 *
 * Reference: B. K. P. Horn, "Closed-form solution of absolute orientation
 * using unit quaternions", J. Opt. Soc. Am. A 4(4):629–642, 1987.
 * Derivation in our symbols: docs/solver.md, D3.
 *
 * Given the 3×3 cross-covariance H = Σ w (target)(source)ᵀ of centred point
 * sets, the rotation maximising ⟨R, H⟩ = trace(Rᵀ H) is the unit quaternion
 * that is the eigenvector of the largest eigenvalue of Horn's symmetric 4×4
 * matrix N built from S = Hᵀ (S_ab = Σ w source_a target_b), eq. (4.3)–(4.5)
 * of the paper. The eigenproblem is solved with cyclic Jacobi rotations
 * (src/base/jacobi4.c), exact to rounding even when the top eigenvalues are
 * close — which is where power iteration stalls.
 */
#include "skinfit/solve.h"
#include "skinfit/math.h"

#include <math.h>
#include <string.h>

/* Horn's symmetric 4×4 N of eq. (4.3)–(4.5) from S = Hᵀ. */
static void horn_matrix(const double H[9], double N[16])
{
    /* S_ab = H[b][a]; H column-major: H[c*3 + r] = H[r][c] → S_ab = H[a*3 + b]. */
#define S(a, b) H[(a) * 3 + (b)]
    double sxx = S(0, 0), sxy = S(0, 1), sxz = S(0, 2);
    double syx = S(1, 0), syy = S(1, 1), syz = S(1, 2);
    double szx = S(2, 0), szy = S(2, 1), szz = S(2, 2);
#undef S
    const double M[16] = {
        sxx + syy + szz, syz - szy,        szx - sxz,        sxy - syx,
        syz - szy,       sxx - syy - szz,  sxy + syx,        szx + sxz,
        szx - sxz,       sxy + syx,        -sxx + syy - szz, syz + szy,
        sxy - syx,       szx + sxz,        syz + szy,        -sxx - syy + szz,
    };
    memcpy(N, M, sizeof M);
}

void skf_horn_rotation(const double H[9], double R[9])
{
    double N[16];
    horn_matrix(H, N);
    double ev[4], V[16];
    skf_sym4_eigen(N, ev, V);
    /* Horn's quaternion order is (w, x, y, z); skinfit's is (x, y, z, w). */
    double q[4] = {V[1 * 4 + 0], V[2 * 4 + 0], V[3 * 4 + 0], V[0 * 4 + 0]};
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 0)) {
        memset(R, 0, 9 * sizeof *R);
        R[0] = R[4] = R[8] = 1;
        return;
    }
    for (int k = 0; k < 4; ++k)
        q[k] /= n;
    skf_quat_to_mat3(R, q);
}

/* 3×3 determinant of rows r0, r1, r2 and columns c0, c1, c2 of a 4×4. */
static inline double minor3(const double A[16], int r0, int r1, int r2, int c0, int c1, int c2)
{
#define X(r, c) A[(r) * 4 + (c)]
    return X(r0, c0) * (X(r1, c1) * X(r2, c2) - X(r1, c2) * X(r2, c1)) -
           X(r0, c1) * (X(r1, c0) * X(r2, c2) - X(r1, c2) * X(r2, c0)) +
           X(r0, c2) * (X(r1, c0) * X(r2, c1) - X(r1, c1) * X(r2, c0));
#undef X
}

/* The three indices of 0..3 other than k, ascending. */
static const int others3[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};

/* Cofactor (r, c) of a 4×4: (−1)^{r+c} times the minor without row r and
 * column c. Inline: with constant r, c the indices fold away. */
static inline double cofactor4(const double A[16], int r, int c)
{
    const int *rr = others3[r], *cc = others3[c];
    double m = minor3(A, rr[0], rr[1], rr[2], cc[0], cc[1], cc[2]);
    return (r + c) % 2 ? -m : m;
}

void skf_horn_rotation_fast(const double H[9], double R[9])
{
    double N[16];
    horn_matrix(H, N);
    double f2 = 0;
    for (int k = 0; k < 9; ++k)
        f2 += H[k] * H[k];
    if (!(f2 > 0) || !isfinite(f2)) {
        skf_horn_rotation(H, R);
        return;
    }
    /* det(N − λI) = λ⁴ + b λ² + c λ + d (N is traceless): b = −½ tr N² =
     * −2‖S‖², c = −8 det S (Horn 1987, eq. 4.6), d = det N. */
    double b = -2 * f2;
    /* det S = det H */
    double detS = H[0] * (H[4] * H[8] - H[5] * H[7]) - H[1] * (H[3] * H[8] - H[5] * H[6]) +
                  H[2] * (H[3] * H[7] - H[4] * H[6]);
    double c = -8 * detS;
    double d = N[0] * cofactor4(N, 0, 0) + N[1] * cofactor4(N, 0, 1) + N[2] * cofactor4(N, 0, 2) +
               N[3] * cofactor4(N, 0, 3);
    /* Newton from above the largest root (λ_max = σ1 + σ2 ± σ3 ≤ √3‖S‖): on a
     * polynomial with real roots it descends monotonically onto λ_max. */
    double lam = sqrt(3 * f2);
    for (int it = 0; it < 60; ++it) {
        double l2 = lam * lam;
        double p = (l2 + b) * l2 + c * lam + d, dp = (4 * l2 + 2 * b) * lam + c;
        if (!(dp > 0))
            break;
        double step = p / dp;
        lam -= step;
        if (!(fabs(step) > 1e-15 * lam))
            break;
    }
    /* The eigenvector: the column of adj(N − λI) (rank one, ∝ q qᵀ) with the
     * largest diagonal entry. Its trace is −P'(λ) = Π (λ − λ_j) over the other
     * eigenvalues: when the top eigenvalue is not well separated the
     * column is inaccurate, and the Jacobi solver decides. */
    double A[16];
    memcpy(A, N, sizeof A);
    for (int k = 0; k < 4; ++k)
        A[k * 5] -= lam;
    double diag[4], tr = 0;
    int best = 0;
    diag[0] = cofactor4(A, 0, 0);
    diag[1] = cofactor4(A, 1, 1);
    diag[2] = cofactor4(A, 2, 2);
    diag[3] = cofactor4(A, 3, 3);
    for (int k = 0; k < 4; ++k) {
        tr += diag[k];
        if (fabs(diag[k]) > fabs(diag[best]))
            best = k;
    }
    double scale = 2 * lam;
    double qh[4];
    for (int k = 0; k < 4; ++k)
        qh[k] = k == best ? diag[best] : cofactor4(A, k, best);
    double n2 = qh[0] * qh[0] + qh[1] * qh[1] + qh[2] * qh[2] + qh[3] * qh[3];
    bool good = isfinite(lam) && lam > 0 && fabs(tr) > 1e-3 * scale * scale * scale && n2 > 0 &&
                isfinite(n2);
    if (good) {
        /* residual ‖N q − λ q‖ of the unit vector */
        double inv = 1 / sqrt(n2), r2 = 0;
        for (int k = 0; k < 4; ++k)
            qh[k] *= inv;
        for (int r = 0; r < 4; ++r) {
            double e = -lam * qh[r];
            for (int k = 0; k < 4; ++k)
                e += N[r * 4 + k] * qh[k];
            r2 += e * e;
        }
        good = r2 <= 1e-24 * lam * lam;
    }
    if (!good) {
        skf_horn_rotation(H, R);
        return;
    }
    /* Horn's order (w, x, y, z); skinfit's (x, y, z, w). */
    double q[4] = {qh[1], qh[2], qh[3], qh[0]};
    skf_quat_to_mat3(R, q);
}

void skf_transform34_identity(double T[12])
{
    memset(T, 0, 12 * sizeof *T);
    T[0] = T[4] = T[8] = 1;
}

void skf_transform34_to_mat4(const double T[12], double m[16])
{
    for (int c = 0; c < 4; ++c) {
        for (int r = 0; r < 3; ++r)
            m[c * 4 + r] = T[c * 3 + r];
        m[c * 4 + 3] = (c == 3) ? 1.0 : 0.0;
    }
}

void skf_transform34_from_mat4(const double m[16], double T[12])
{
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 3; ++r)
            T[c * 3 + r] = m[c * 4 + r];
}

void skf_transform34_apply(const double T[12], const double p[3], double out[3])
{
    double o[3];
    for (int r = 0; r < 3; ++r)
        o[r] = T[r] * p[0] + T[3 + r] * p[1] + T[6 + r] * p[2] + T[9 + r];
    memcpy(out, o, sizeof o);
}

static bool rigid_fit(size_t n, const double *src, const double *dst, const double *w, double T[12],
                      bool fast)
{
    double W = 0, cs[3] = {0, 0, 0}, cd[3] = {0, 0, 0};
    for (size_t j = 0; j < n; ++j) {
        double wj = w ? w[j] : 1.0;
        W += wj;
        for (int k = 0; k < 3; ++k) {
            cs[k] += wj * src[3 * j + k];
            cd[k] += wj * dst[3 * j + k];
        }
    }
    skf_transform34_identity(T);
    if (!(W > 0))
        return false;
    for (int k = 0; k < 3; ++k) {
        cs[k] /= W;
        cd[k] /= W;
    }
    double H[9] = {0};
    for (size_t j = 0; j < n; ++j) {
        double wj = w ? w[j] : 1.0;
        double a[3], b[3];
        for (int k = 0; k < 3; ++k) {
            a[k] = src[3 * j + k] - cs[k];
            b[k] = dst[3 * j + k] - cd[k];
        }
        for (int c = 0; c < 3; ++c)
            for (int r = 0; r < 3; ++r)
                H[c * 3 + r] += wj * b[r] * a[c];
    }
    if (fast)
        skf_horn_rotation_fast(H, T);
    else
        skf_horn_rotation(H, T);
    double rc[3];
    for (int r = 0; r < 3; ++r)
        rc[r] = T[r] * cs[0] + T[3 + r] * cs[1] + T[6 + r] * cs[2];
    for (int r = 0; r < 3; ++r)
        T[9 + r] = cd[r] - rc[r];
    return true;
}

bool skf_rigid_fit(size_t n, const double *src, const double *dst, const double *w, double T[12])
{
    return rigid_fit(n, src, dst, w, T, false);
}

bool skf_rigid_fit_fast(size_t n, const double *src, const double *dst, const double *w, double T[12])
{
    return rigid_fit(n, src, dst, w, T, true);
}
