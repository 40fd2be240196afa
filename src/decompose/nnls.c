/* Non-negative least squares on the probability simplex.
 *
 * C. L. Lawson and R. J. Hanson, "Solving Least Squares Problems", 1974,
 * ch. 23 (algorithm NNLS): an active-set method that keeps a passive set P
 * of free variables, solves the unconstrained problem on P, and either steps
 * back to the boundary (dropping variables that would turn negative) or adds
 * the variable whose Lagrange multiplier most violates optimality. Here the
 * problem carries one more constraint, Σ w = 1 (skinning weights): the
 * subproblem on P is solved with its Lagrange multiplier λ (KKT system
 * [Q_PP 1; 1ᵀ 0][z; λ] = [c_P; 1]), and the optimality test for a variable i
 * outside P uses the multiplier-shifted gradient g_i + λ (g = Qw − c), which
 * must be ≥ 0. Starting from the best single vertex of the simplex keeps
 * every iterate feasible; so does a warm start from the solution on a given
 * set (the previous iterate's support) when it is strictly positive there.
 * Why not a penalty row (SSDR's choice): it only
 * approximately enforces Σ w = 1, and we promise 1e-6.
 */
#include "skinfit/decompose.h"

#include <math.h>
#include <string.h>

#define NNLS_MAX 64

/* Both bodies below are written once and instantiated per candidate count:
 * skf_nnls_simplex_start calls nnls_body with n a compile-time constant for
 * n = 1..8 (the weight step's candidate sets; weights.c), so the compiler
 * sizes and unrolls the small dense loops; larger n takes the generic
 * instance. The operations and their order are the same in every instance
 * (no contraction: -ffp-contract=off, CMakeLists.txt), so the same bits. */
#if defined(__GNUC__) || defined(__clang__)
#define NNLS_ALWAYS_INLINE __attribute__((always_inline))
#else
#define NNLS_ALWAYS_INLINE
#endif

/* fmax(a, b) for a not NaN (b NaN gives a, as fmax does), without the libm
 * call that fmax is where it is not inlined (300k calls in a 5-bone
 * Bone_Anim run) */
static inline double max_abs(double a, double b)
{
    return b > a ? b : a;
}

/* Solve the (p+1)x(p+1) KKT system by Gaussian elimination with partial
 * pivoting. A tiny ridge on Q_PP keeps collinear columns solvable. Returns
 * false when singular. */
static inline NNLS_ALWAYS_INLINE bool kkt_body(size_t n, const double *Q, const double *c, const size_t *P, size_t p,
                      double *z, double *lambda)
{
    double M[(NNLS_MAX + 1) * (NNLS_MAX + 2)];
    size_t m = p + 1, cols = m + 1;
    double scale = 0;
    for (size_t a = 0; a < p; ++a)
        scale = max_abs(scale, fabs(Q[P[a] * n + P[a]]));
    double ridge = 1e-13 * (scale > 0 ? scale : 1);
    for (size_t a = 0; a < p; ++a) {
        for (size_t b = 0; b < p; ++b)
            M[a * cols + b] = Q[P[a] * n + P[b]] + (a == b ? ridge : 0);
        M[a * cols + p] = 1;
        M[a * cols + m] = c[P[a]];
    }
    for (size_t b = 0; b < p; ++b)
        M[p * cols + b] = 1;
    M[p * cols + p] = 0;
    M[p * cols + m] = 1;
    for (size_t k = 0; k < m; ++k) {
        size_t piv = k;
        for (size_t r = k + 1; r < m; ++r)
            if (fabs(M[r * cols + k]) > fabs(M[piv * cols + k]))
                piv = r;
        if (fabs(M[piv * cols + k]) < 1e-300)
            return false;
        /* columns < k of rows ≥ k are eliminated (never read again):
         * neither swapped nor updated */
        if (piv != k)
            for (size_t j = k; j < cols; ++j) {
                double t = M[k * cols + j];
                M[k * cols + j] = M[piv * cols + j];
                M[piv * cols + j] = t;
            }
        for (size_t r = k + 1; r < m; ++r) {
            double f = M[r * cols + k] / M[k * cols + k];
            if (f != 0)
                for (size_t j = k + 1; j < cols; ++j)
                    M[r * cols + j] -= f * M[k * cols + j];
        }
    }
    double x[NNLS_MAX + 1];
    for (size_t k = m; k-- > 0;) {
        double s = M[k * cols + m];
        for (size_t j = k + 1; j < m; ++j)
            s -= M[k * cols + j] * x[j];
        x[k] = s / M[k * cols + k];
        if (!isfinite(x[k]))
            return false;
    }
    memcpy(z, x, p * sizeof *z);
    *lambda = x[p];
    return true;
}

/* kkt_body instantiated per passive-set size p = 1..8 (the elimination's
 * loops then have constant bounds), the generic one above that. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static bool kkt_solve(size_t n, const double *Q, const double *c, const size_t *P, size_t p, double *z,
                      double *lambda)
{
    switch (p) {
    case 1: return kkt_body(n, Q, c, P, 1, z, lambda);
    case 2: return kkt_body(n, Q, c, P, 2, z, lambda);
    case 3: return kkt_body(n, Q, c, P, 3, z, lambda);
    case 4: return kkt_body(n, Q, c, P, 4, z, lambda);
    case 5: return kkt_body(n, Q, c, P, 5, z, lambda);
    case 6: return kkt_body(n, Q, c, P, 6, z, lambda);
    case 7: return kkt_body(n, Q, c, P, 7, z, lambda);
    case 8: return kkt_body(n, Q, c, P, 8, z, lambda);
    default: return kkt_body(n, Q, c, P, p, z, lambda);
    }
}

int skf_nnls_simplex(size_t n, const double *Q, const double *c, double *w)
{
    return skf_nnls_simplex_start(n, Q, c, NULL, w);
}

static inline NNLS_ALWAYS_INLINE int nnls_body(size_t n, const double *Q, const double *c, const bool *start, double *w)
{
    memset(w, 0, n * sizeof *w);
    /* Best single bone: f(e_i) = ½ Q_ii − c_i. */
    size_t best = 0;
    for (size_t i = 1; i < n; ++i)
        if (0.5 * Q[i * n + i] - c[i] < 0.5 * Q[best * n + best] - c[best])
            best = i;
    w[best] = 1;
    if (n == 1)
        return 0;
    size_t P[NNLS_MAX];
    bool inP[NNLS_MAX] = {false};
    size_t p = 1;
    P[0] = best;
    inP[best] = true;
    double qscale = 0;
    for (size_t i = 0; i < n; ++i)
        qscale = max_abs(qscale, fabs(Q[i * n + i]));
    double tol = 1e-12 * (qscale > 0 ? qscale : 1);
    if (start) {
        /* Warm start: the solution on the given set, when it is strictly
         * inside the simplex there, is a feasible point whose support is P;
         * the iterations go on from it (else from the best vertex). */
        size_t P0[NNLS_MAX], p0 = 0;
        for (size_t i = 0; i < n; ++i)
            if (start[i])
                P0[p0++] = i;
        double z[NNLS_MAX], l;
        bool pos = p0 > 1 && kkt_solve(n, Q, c, P0, p0, z, &l);
        for (size_t k = 0; pos && k < p0; ++k)
            pos = z[k] > 0;
        if (pos) {
            w[best] = 0;
            inP[best] = false;
            for (size_t k = 0; k < p0; ++k) {
                P[k] = P0[k];
                inP[P0[k]] = true;
                w[P0[k]] = z[k];
            }
            p = p0;
        }
    }
    int cap = (int)(4 * n + 16), it = 0;
    for (; it < cap; ++it) {
        /* Optimality test outside P. */
        double g[NNLS_MAX], lam = 0;
        for (size_t i = 0; i < n; ++i) {
            double s = -c[i];
            for (size_t k = 0; k < p; ++k)
                s += Q[i * n + P[k]] * w[P[k]];
            g[i] = s;
        }
        for (size_t k = 0; k < p; ++k)
            lam -= g[P[k]];
        lam /= (double)p;
        size_t add = n;
        double most = -tol;
        for (size_t i = 0; i < n; ++i)
            if (!inP[i] && g[i] + lam < most) {
                most = g[i] + lam;
                add = i;
            }
        if (add == n)
            break;
        P[p++] = add;
        inP[add] = true;
        /* Inner loop: solve on P, step back to feasibility. */
        for (int inner = 0; inner < cap; ++inner) {
            double z[NNLS_MAX], l;
            if (!kkt_solve(n, Q, c, P, p, z, &l)) {
                /* Degenerate: undo the addition and stop. */
                inP[P[--p]] = false;
                goto done;
            }
            bool allpos = true;
            for (size_t k = 0; k < p; ++k)
                if (z[k] <= 0)
                    allpos = false;
            if (allpos) {
                for (size_t k = 0; k < p; ++k)
                    w[P[k]] = z[k];
                break;
            }
            double alpha = 1;
            for (size_t k = 0; k < p; ++k)
                if (z[k] <= 0) {
                    double den = w[P[k]] - z[k];
                    double a = den > 0 ? w[P[k]] / den : 0;
                    if (a < alpha)
                        alpha = a;
                }
            for (size_t k = 0; k < p; ++k)
                w[P[k]] += alpha * (z[k] - w[P[k]]);
            /* Drop variables that reached zero (always keep the largest). */
            size_t keep = 0;
            for (size_t k = 1; k < p; ++k)
                if (w[P[k]] > w[P[keep]])
                    keep = k;
            size_t q = 0;
            for (size_t k = 0; k < p; ++k) {
                if (w[P[k]] <= 1e-15 && k != keep) {
                    w[P[k]] = 0;
                    inP[P[k]] = false;
                } else {
                    P[q++] = P[k];
                }
            }
            p = q;
        }
    }
done:;
    /* Exact sum to one (the iterates are feasible up to rounding). */
    double s = 0;
    for (size_t i = 0; i < n; ++i) {
        if (w[i] < 0)
            w[i] = 0;
        s += w[i];
    }
    if (s > 0)
        for (size_t i = 0; i < n; ++i)
            w[i] /= s;
    else
        w[best] = 1;
    return it;
}

int skf_nnls_simplex_start(size_t n, const double *Q, const double *c, const bool *start, double *w)
{
    if (n == 0)
        return 0;
    if (n > NNLS_MAX)
        n = NNLS_MAX; /* contract: n ≤ 64 */
    switch (n) {
    case 1: return nnls_body(1, Q, c, start, w);
    case 2: return nnls_body(2, Q, c, start, w);
    case 3: return nnls_body(3, Q, c, start, w);
    case 4: return nnls_body(4, Q, c, start, w);
    case 5: return nnls_body(5, Q, c, start, w);
    case 6: return nnls_body(6, Q, c, start, w);
    case 7: return nnls_body(7, Q, c, start, w);
    case 8: return nnls_body(8, Q, c, start, w);
    default: return nnls_body(n, Q, c, start, w);
    }
}
