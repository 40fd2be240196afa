/* Joint Newton steps over all bones on the rigid manifold, with
 * Levenberg–Marquardt damping and a monotone safeguard.
 *
 * References: J. Nocedal and S. J. Wright, "Numerical Optimization", 2nd ed.,
 * Springer 2006 — §10.3 (Levenberg–Marquardt: damped step, accept only on
 * decrease, raise λ otherwise) and §4 (trust-region view of the damping);
 * P.-A. Absil, R. Mahony and R. Sepulchre, "Optimization Algorithms on Matrix
 * Manifolds", Princeton 2008, §4.1 and §6.2 (Newton with a retraction: the
 * step is taken in the tangent space and mapped back by the exponential);
 * A. George and J. W. H. Liu, "Computer Solution of Large Sparse Positive
 * Definite Systems", Prentice-Hall 1981, §4 (envelope / profile Cholesky);
 * moment sums from B. H. Le and Z. Deng 2012 (src/solve/moments.c).
 * Derivation of g and H below: docs/solver.md, D5.
 *
 * Why: the bone sweeps (bone_sweep.c) are block coordinate descent. On a
 * target the rig cannot express exactly (a transfer onto different weights)
 * the bones are strongly coupled through shared vertices and the sweeps
 * converge linearly with a rate close to 1 — hundreds of sweeps per frame.
 * A Newton step couples all bones at once and converges quadratically near
 * the minimum; its matrix is assembled from the same moment sums, so its cost
 * does not depend on the vertex count.
 *
 * Parameters. Per bone i with μ_i > 0 (an "active" bone, compact index a):
 * x_a = (ω, τ) ∈ R⁶. With c_i = T_i [m_i; μ_i]/μ_i (where the bone's weighted
 * rest centroid lands; the rotation pivot, which keeps ω and τ apart) and
 * Y_i = T_i − c_i e₄ᵀ, the retraction is
 *     T_i(x) = Exp(ω) Y_i + (c_i + τ) e₄ᵀ,   i.e. R ← Exp(ω) R, t ← Exp(ω)(t − c) + c + τ,
 * so T_i(x) − T_i = [ω]× Y_i + ½[ω]×² Y_i + τ e₄ᵀ + O(|ω|³).
 *
 * Model. E is quadratic in T: with G_i = Σ_k T_k M_ki − C_i (½ the gradient),
 *     E(T + Δ) = E(T) + 2 Σ_i ⟨Δ_i, G_i⟩ + Σ_i Σ_k ⟨Δ_i M_ik, Δ_k⟩        (exact).
 * To second order in x this is E + 2 gᵀx + xᵀ H x with
 *     g_ω = Σ_c Y_i[:,c] × G_i[:,c],  g_τ = G_i[:,3];
 *     H(i,k): ωω = tr(Z) I − Zᵀ (Z = Y_i M_ik Y_kᵀ), ωτ = [Y_i M_ik e₄]×,
 *             τω = −[Y_k M_ik e₄]×, ττ = (M_ik)₃₃ I;
 *     plus on the ωω diagonal block of bone i the curvature of the
 *     retraction: sym(W_i) − tr(W_i) I with W_i = Y_i G_iᵀ (from ⟨[ω]×² Y_i, G_i⟩).
 * Without the curvature term this is Gauss–Newton (the residuals are linear
 * in T); with it, it is the exact Hessian of E∘retraction, hence Newton, which
 * matters here because transfer targets leave large residuals.
 *
 * Step: (H + λD) x = −g, D = diag of the Gauss–Newton part (floored at
 * 1e-12 of its maximum), solved by an envelope Cholesky with 6×6 blocks
 * (bones share vertices only with skeleton neighbours, so H is block-sparse;
 * the active bones are numbered in reverse Cuthill–McKee order, which keeps
 * the envelope narrow whatever the joint order of the file: Horse on
 * autoweights, 45 active bones, 64 % → 32 % of the triangle). A failed
 * factorisation (H indefinite far from a minimum) raises λ. The step is
 * accepted only if the EXACT change of E (the formula above, evaluated on Δ
 * without cancellation against U) is ≤ 0: E never increases. Accept →
 * λ /= 10; reject → λ ×= 10 (at least 1e-4), retry (≤ 16 tries, else the
 * caller falls back to sweeps).
 *
 * Chord steps (the simplified Newton method; Kelley, "Iterative Methods for
 * Linear and Nonlinear Equations", SIAM 1995, §5.4 — Shamanskii's variant):
 * after an accepted step, up to SKF_SOLVE_NEWTON_CHORD further steps reuse the
 * factor with the new gradient (two triangular solves instead of a
 * factorisation), each accepted only if E does not rise, and given up (back
 * to a fresh factorisation) once a step lowers E by more than a quarter of the
 * previous decrease — i.e. when it stops converging fast.
 *
 * Stop: the accepted step lowered E by less than tolerance·N·diag² (the same
 * absolute test as a bone sweep), or the least-damped step of an iteration
 * predicts less than that. Everything is sequential with fixed orders:
 * deterministic, independent of the thread count.
 */
#include "solve_internal.h"

#include <math.h>
#include <string.h>

/* Order the active bones by reverse Cuthill–McKee on the co-influence graph
 * (E. Cuthill and J. McKee, ACM '69; George & Liu 1981, §4.3): a breadth-first
 * order from a low-degree bone, neighbours by increasing degree, reversed.
 * It keeps the envelope of H narrow (skeleton neighbours get close indices),
 * whatever order the file lists its joints in. Deterministic (ties by index). */
static void rcm_order(const skf_solver *s, size_t *order, size_t *deg, bool *seen, size_t A)
{
    const size_t B = s->B;
    for (size_t i = 0; i < B; ++i) {
        deg[i] = 0;
        seen[i] = !(s->mu[i] > 0);
        if (seen[i])
            continue;
        for (size_t at = s->nb_off[i]; at < s->nb_off[i + 1]; ++at)
            deg[i] += s->nb_bone[at] != i && s->mu[s->nb_bone[at]] > 0;
    }
    size_t head = 0, tail = 0;
    while (tail < A) {
        size_t start = SIZE_MAX;
        for (size_t i = 0; i < B; ++i)
            if (!seen[i] && (start == SIZE_MAX || deg[i] < deg[start]))
                start = i;
        seen[start] = true;
        order[tail++] = start;
        while (head < tail) {
            const size_t i = order[head++], first_new = tail;
            for (size_t at = s->nb_off[i]; at < s->nb_off[i + 1]; ++at) {
                const size_t k = s->nb_bone[at];
                if (seen[k])
                    continue;
                seen[k] = true;
                /* insertion by (degree, index) among this node's new neighbours */
                size_t pos = tail++;
                while (pos > first_new && (deg[order[pos - 1]] > deg[k] ||
                                           (deg[order[pos - 1]] == deg[k] && order[pos - 1] > k))) {
                    order[pos] = order[pos - 1];
                    --pos;
                }
                order[pos] = k;
            }
        }
    }
    for (size_t a = 0; a < A / 2; ++a) {
        size_t t = order[a];
        order[a] = order[A - 1 - a];
        order[A - 1 - a] = t;
    }
}

skf_status skfi_solve_newton_setup(skf_solver *s, skf_error *err)
{
    skf_free(s->nt_act);
    skf_free(s->nt_first);
    s->nt_act = NULL;
    s->nt_first = NULL;
    s->nt_count = 0;
    if (!s->nt_enabled)
        return SKF_OK;
    const size_t B = s->B;
    s->nt_act = skf_malloc_array(B, sizeof *s->nt_act);
    s->nt_first = skf_malloc_array(6 * B, sizeof *s->nt_first);
    size_t *order = skf_malloc_array(B, sizeof *order), *deg = skf_malloc_array(B, sizeof *deg);
    bool *seen = skf_malloc_array(B, sizeof *seen);
    if (!s->nt_act || !s->nt_first || !order || !deg || !seen) {
        skf_free(order);
        skf_free(deg);
        skf_free(seen);
        return skf_fail(err, SKF_ERR_NOMEM, "solver: newton: out of memory (%zu bones)", B);
    }
    size_t A = 0;
    for (size_t i = 0; i < B; ++i) {
        s->nt_act[i] = SIZE_MAX;
        A += s->mu[i] > 0;
    }
    s->nt_count = A;
    rcm_order(s, order, deg, seen, A);
    for (size_t a = 0; a < A; ++a)
        s->nt_act[order[a]] = a;
    for (size_t i = 0; i < B; ++i) {
        size_t a = s->nt_act[i];
        if (a == SIZE_MAX)
            continue;
        size_t first = a;
        for (size_t at = s->nb_off[i]; at < s->nb_off[i + 1]; ++at) {
            size_t b = s->nt_act[s->nb_bone[at]];
            if (b != SIZE_MAX && b < first)
                first = b;
        }
        for (int p = 0; p < 6; ++p)
            s->nt_first[6 * a + (size_t)p] = 6 * first;
    }
    skf_free(order);
    skf_free(deg);
    skf_free(seen);
    return SKF_OK;
}

/* Y M (3×4 column-major) for Y 3×4 column-major, M symmetric 4×4 row-major. */
static void ym(const double *Y, const double *M, double *out)
{
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 3; ++r)
            out[c * 3 + r] = Y[r] * M[c] + Y[3 + r] * M[4 + c] + Y[6 + r] * M[8 + c] +
                             Y[9 + r] * M[12 + c];
}

/* ⟨A M, Bm⟩ for 3×4 column-major A, Bm and symmetric M. */
/* out = A_3ᵀ B_3 over the 4 columns of two 3×4 column-major blocks:
 * out[r*3+q] = Σ_c A[c*3+r] B[c*3+q]. */
static void cols_dot33(const double *A, const double *B, double out[9])
{
    for (int r = 0; r < 3; ++r)
        for (int q = 0; q < 3; ++q) {
            double z = 0;
            for (int c = 0; c < 4; ++c)
                z += A[c * 3 + r] * B[c * 3 + q];
            out[r * 3 + q] = z;
        }
}

static double pair_dot(const double *A, const double *M, const double *Bm)
{
    double am[12], e = 0;
    ym(A, M, am);
    for (int k = 0; k < 12; ++k)
        e += am[k] * Bm[k];
    return e;
}

/* Rodrigues: R = Exp([w]×), column-major 3×3. */
static void expmap(const double w[3], double R[9])
{
    double th2 = w[0] * w[0] + w[1] * w[1] + w[2] * w[2], a, b;
    if (th2 < 1e-16) {
        a = 1 - th2 / 6;
        b = 0.5 - th2 / 24;
    } else {
        double th = sqrt(th2), sh = sin(0.5 * th);
        a = sin(th) / th;
        b = 2 * sh * sh / th2;
    }
    /* R = I + a[w]× + b[w]×², [w]×² = w wᵀ − |w|² I */
    double K[9] = {0, w[2], -w[1], -w[2], 0, w[0], w[1], -w[0], 0};
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r)
            R[c * 3 + r] = (r == c ? 1 - b * th2 : 0) + a * K[c * 3 + r] + b * w[r] * w[c];
}

/* Envelope Cholesky in place, by 6×6 blocks (one block per bone pair;
 * left-looking, George & Liu §4). Row r of the lower factor occupies
 * A[r*n + first[r] .. r*n + r]; the matrix to factor is read from the strict
 * upper triangle (H(r,c) for c < r at A[c*n + r]) and the diagonal d[r].
 * The block products S −= L_ac L_bcᵀ are fixed-size 6×6×6 loops (register
 * reuse; the scalar dot-product form was load-bound). Fixed order:
 * deterministic. Returns false when a pivot is not positive. */
static bool env_cholesky(size_t n, double *A, const double *d, const size_t *first)
{
    const size_t nb = n / 6;
    for (size_t a = 0; a < nb; ++a) {
        const size_t fa = first[6 * a] / 6;
        for (size_t b = fa; b <= a; ++b) {
            double S[36];
            for (int p = 0; p < 6; ++p)
                for (int q = 0; q < 6; ++q) {
                    const size_t r = 6 * a + (size_t)p, c = 6 * b + (size_t)q;
                    S[p * 6 + q] = c < r ? A[c * n + r] : c == r ? d[r] : 0;
                }
            const size_t fb = first[6 * b] / 6, k0 = fa > fb ? fa : fb;
            for (size_t k = k0; k < b; ++k) {
                const double *La = A + 6 * a * n + 6 * k, *Lb = A + 6 * b * n + 6 * k;
                for (int p = 0; p < 6; ++p)
                    for (int q = 0; q < 6; ++q) {
                        const double *x = La + (size_t)p * n, *y = Lb + (size_t)q * n;
                        S[p * 6 + q] -= x[0] * y[0] + x[1] * y[1] + x[2] * y[2] + x[3] * y[3] +
                                        x[4] * y[4] + x[5] * y[5];
                    }
            }
            double *Lab = A + 6 * a * n + 6 * b;
            if (b < a) {
                const double *Lbb = A + 6 * b * n + 6 * b;
                for (int p = 0; p < 6; ++p)
                    for (int q = 0; q < 6; ++q) {
                        double v = S[p * 6 + q];
                        for (int t = 0; t < q; ++t)
                            v -= Lab[(size_t)p * n + (size_t)t] * Lbb[(size_t)q * n + (size_t)t];
                        Lab[(size_t)p * n + (size_t)q] = v / Lbb[(size_t)q * n + (size_t)q];
                    }
            } else {
                for (int p = 0; p < 6; ++p)
                    for (int q = 0; q <= p; ++q) {
                        double v = S[p * 6 + q];
                        for (int t = 0; t < q; ++t)
                            v -= Lab[(size_t)p * n + (size_t)t] * Lab[(size_t)q * n + (size_t)t];
                        if (q < p) {
                            Lab[(size_t)p * n + (size_t)q] = v / Lab[(size_t)q * n + (size_t)q];
                        } else {
                            if (!(v > 0))
                                return false;
                            Lab[(size_t)p * n + (size_t)p] = sqrt(v);
                        }
                    }
            }
        }
    }
    return true;
}

/* x = −(L Lᵀ)⁻¹ g. */
static void env_solve(size_t n, const double *A, const size_t *first, const double *g, double *x)
{
    for (size_t r = 0; r < n; ++r) {
        const double *Lr = A + r * n;
        double sum = -g[r];
        for (size_t k = first[r]; k < r; ++k)
            sum -= Lr[k] * x[k];
        x[r] = sum / Lr[r];
    }
    for (size_t r = n; r-- > 0;) {
        const double *Lr = A + r * n;
        x[r] /= Lr[r];
        for (size_t k = first[r]; k < r; ++k)
            x[k] -= Lr[k] * x[r];
    }
}

/* The skew matrix [y]× written into rows/cols of a 6×6 block (row-major). */
static void put_skew(double *blk, int r0, int c0, const double y[3], double sign)
{
    blk[(r0 + 0) * 6 + c0 + 1] = -sign * y[2];
    blk[(r0 + 0) * 6 + c0 + 2] = sign * y[1];
    blk[(r0 + 1) * 6 + c0 + 0] = sign * y[2];
    blk[(r0 + 1) * 6 + c0 + 2] = -sign * y[0];
    blk[(r0 + 2) * 6 + c0 + 0] = -sign * y[1];
    blk[(r0 + 2) * 6 + c0 + 1] = sign * y[0];
}

/* Pivots c_i, Y_i, G_i and the gradient g at T. */
static void gradient(const skf_solver *s, skfi_solve_ws *ws, const double *T)
{
    double *g = ws->ntg;
    for (size_t i = 0; i < s->B; ++i) {
        const size_t a = s->nt_act[i];
        if (a == SIZE_MAX)
            continue;
        const double *Ti = T + 12 * i, *Mii = s->pair_M + 16 * s->self_pair[i];
        double *G = ws->ntG + 12 * i, *Y = ws->ntY + 12 * i, *c = ws->ntC + 3 * i;
        const double mu = Mii[15];
        for (int r = 0; r < 3; ++r) {
            c[r] = Ti[9 + r] + (Ti[r] * Mii[3] + Ti[3 + r] * Mii[7] + Ti[6 + r] * Mii[11]) / mu;
        }
        memcpy(Y, Ti, 12 * sizeof *Y);
        for (int r = 0; r < 3; ++r)
            Y[9 + r] = Ti[9 + r] - c[r];
        for (int k = 0; k < 12; ++k)
            G[k] = -ws->C[12 * i + k];
        for (size_t at = s->nb_off[i]; at < s->nb_off[i + 1]; ++at) {
            double tm[12];
            ym(T + 12 * (size_t)s->nb_bone[at], s->pair_M + 16 * s->nb_pair[at], tm);
            for (int k = 0; k < 12; ++k)
                G[k] += tm[k];
        }
    }
    for (size_t i = 0; i < s->B; ++i) {
        const size_t a = s->nt_act[i];
        if (a == SIZE_MAX)
            continue;
        const double *G = ws->ntG + 12 * i, *Y = ws->ntY + 12 * i;
        double *gi = g + 6 * a;
        memset(gi, 0, 6 * sizeof *gi);
        for (int c = 0; c < 4; ++c) {
            const double *y = Y + 3 * c, *gc = G + 3 * c;
            gi[0] += y[1] * gc[2] - y[2] * gc[1];
            gi[1] += y[2] * gc[0] - y[0] * gc[2];
            gi[2] += y[0] * gc[1] - y[1] * gc[0];
        }
        for (int r = 0; r < 3; ++r)
            gi[3 + r] = G[9 + r];
    }
}

/* H (strict upper triangle + hd diagonal) and the damping diagonal D from
 * the Y_i, G_i of gradient(). */
static void hessian(const skf_solver *s, skfi_solve_ws *ws)
{
    const size_t n = 6 * s->nt_count;
    double *H = ws->ntH, *hd = ws->nthd, *D = ws->ntD;
    for (size_t r = 0; r < n; ++r)
        for (size_t c = s->nt_first[r]; c < r; ++c)
            H[c * n + r] = 0;
    for (size_t i = 0; i < s->B; ++i) {
        const size_t a = s->nt_act[i];
        if (a == SIZE_MAX)
            continue;
        const double *Y = ws->ntY + 12 * i;
        for (size_t at = s->nb_off[i]; at < s->nb_off[i + 1]; ++at) {
            const size_t k = s->nb_bone[at], b = s->nt_act[k];
            if (b == SIZE_MAX || b > a)
                continue;
            const double *M = s->pair_M + 16 * s->nb_pair[at], *Yk = ws->ntY + 12 * k;
            double YiM[12], YkM[12], Z[9], blk[36];
            ym(Y, M, YiM);
            ym(Yk, M, YkM);
            cols_dot33(YiM, Yk, Z);
            const double trZ = Z[0] + Z[4] + Z[8];
            memset(blk, 0, sizeof blk);
            for (int p = 0; p < 3; ++p)
                for (int q = 0; q < 3; ++q)
                    blk[p * 6 + q] = (p == q ? trZ : 0) - Z[q * 3 + p];
            put_skew(blk, 0, 3, YiM + 9, 1.0);
            put_skew(blk, 3, 0, YkM + 9, -1.0);
            for (int p = 0; p < 3; ++p)
                blk[(3 + p) * 6 + 3 + p] = M[15];
            for (int p = 0; p < 6; ++p) {
                const size_t r = 6 * a + (size_t)p;
                for (int q = 0; q < 6; ++q) {
                    const size_t cc = 6 * b + (size_t)q;
                    if (cc < r)
                        H[cc * n + r] = blk[p * 6 + q];
                    else if (cc == r)
                        hd[r] = blk[p * 6 + q];
                }
            }
        }
    }
    /* damping diagonal: the Gauss–Newton part, floored */
    double dmax = 0;
    for (size_t r = 0; r < n; ++r)
        dmax = hd[r] > dmax ? hd[r] : dmax;
    for (size_t r = 0; r < n; ++r)
        D[r] = hd[r] > 1e-12 * dmax ? hd[r] : 1e-12 * dmax;
    /* curvature of the retraction on each ωω block: sym(W) − tr(W) I */
    for (size_t i = 0; i < s->B; ++i) {
        const size_t a = s->nt_act[i];
        if (a == SIZE_MAX)
            continue;
        const double *G = ws->ntG + 12 * i, *Y = ws->ntY + 12 * i;
        double W[9];
        cols_dot33(Y, G, W);
        const double trW = W[0] + W[4] + W[8];
        for (int p = 0; p < 3; ++p)
            for (int q = 0; q <= p; ++q) {
                double v = 0.5 * (W[p * 3 + q] + W[q * 3 + p]) - (p == q ? trW : 0);
                const size_t r = 6 * a + (size_t)p, cc = 6 * a + (size_t)q;
                if (cc < r)
                    H[cc * n + r] += v;
                else
                    hd[r] += v;
            }
    }
}

/* Apply x to T into Tn (active bones; others copied) and return the exact
 * change of E (moment form, without U). */
static double trial(const skf_solver *s, skfi_solve_ws *ws, const double *T, const double *x,
                    double *Tn)
{
    double *Dl = ws->ntDelta;
    memcpy(Tn, T, 12 * s->B * sizeof *Tn);
    memset(Dl, 0, 12 * s->B * sizeof *Dl);
    for (size_t i = 0; i < s->B; ++i) {
        const size_t a = s->nt_act[i];
        if (a == SIZE_MAX)
            continue;
        const double *xi = x + 6 * a, *Y = ws->ntY + 12 * i, *c = ws->ntC + 3 * i;
        double R[9];
        expmap(xi, R);
        double *Tni = Tn + 12 * i;
        for (int col = 0; col < 4; ++col)
            for (int r = 0; r < 3; ++r)
                Tni[col * 3 + r] = R[r] * Y[col * 3] + R[3 + r] * Y[col * 3 + 1] +
                                   R[6 + r] * Y[col * 3 + 2];
        for (int r = 0; r < 3; ++r)
            Tni[9 + r] += c[r] + xi[3 + r];
        for (int k = 0; k < 12; ++k)
            Dl[12 * i + k] = Tni[k] - T[12 * i + k];
    }
    double lin = 0, quad = 0;
    for (size_t i = 0; i < s->B; ++i) {
        if (s->nt_act[i] == SIZE_MAX)
            continue;
        const double *Di = Dl + 12 * i, *G = ws->ntG + 12 * i;
        for (int k = 0; k < 12; ++k)
            lin += Di[k] * G[k];
        for (size_t at = s->nb_off[i]; at < s->nb_off[i + 1]; ++at) {
            size_t k = s->nb_bone[at];
            if (k < i || s->nt_act[k] == SIZE_MAX)
                continue;
            double t = pair_dot(Di, s->pair_M + 16 * s->nb_pair[at], Dl + 12 * k);
            quad += (k == i) ? t : 2 * t;
        }
    }
    return 2 * lin + quad;
}

skfi_newton_result skfi_solve_newton(const skf_solver *s, skfi_solve_ws *ws, double *T,
                                    int max_iterations, int *iterations)
{
    const size_t n = 6 * s->nt_count;
    const double stop = s->opt.tolerance * (double)s->n * s->diag * s->diag;
    double lambda = 1e-8;
    *iterations = 0;
    if (n == 0)
        return SKF_NEWTON_CONVERGED;
    for (int it = 0; it < max_iterations; ++it) {
        gradient(s, ws, T);
        hessian(s, ws);
        *iterations = it + 1;
        bool accepted = false, first_ok = true;
        double last = 0; /* decrease of the last accepted step */
        for (int attempt = 0; attempt < 16 && !accepted; ++attempt) {
            for (size_t r = 0; r < n; ++r)
                ws->ntd[r] = ws->nthd[r] + lambda * ws->ntD[r];
            if (!env_cholesky(n, ws->ntH, ws->ntd, s->nt_first)) {
                lambda = lambda * 10 > 1e-4 ? lambda * 10 : 1e-4;
                first_ok = false;
                continue;
            }
            env_solve(n, ws->ntH, s->nt_first, ws->ntg, ws->ntx);
            double gx = 0, xdx = 0;
            for (size_t r = 0; r < n; ++r) {
                gx += ws->ntg[r] * ws->ntx[r];
                xdx += ws->ntx[r] * ws->ntD[r] * ws->ntx[r];
            }
            const double pred = -gx + lambda * xdx;
            if (first_ok && attempt == 0 && pred < stop)
                return SKF_NEWTON_CONVERGED;
            const double change = trial(s, ws, T, ws->ntx, ws->ntTn);
            if (isfinite(change) && change <= 0) {
                memcpy(T, ws->ntTn, 12 * s->B * sizeof *T);
                lambda = lambda / 10 > 1e-12 ? lambda / 10 : 1e-12;
                accepted = true;
                last = -change;
                if (last < stop)
                    return SKF_NEWTON_CONVERGED;
            } else {
                lambda = lambda * 10 > 1e-4 ? lambda * 10 : 1e-4;
            }
        }
        if (!accepted)
            return SKF_NEWTON_STUCK;
        /* chord steps: the same factor, the new gradient (two triangular
         * solves instead of a factorisation); stop reusing the factor when a
         * step raises E or lowers it by more than a quarter of the previous
         * decrease (convergence no longer fast) */
        for (int chord = 0; chord < SKF_SOLVE_NEWTON_CHORD; ++chord) {
            gradient(s, ws, T);
            env_solve(n, ws->ntH, s->nt_first, ws->ntg, ws->ntx);
            const double change = trial(s, ws, T, ws->ntx, ws->ntTn);
            if (!(isfinite(change) && change <= 0))
                break;
            memcpy(T, ws->ntTn, 12 * s->B * sizeof *T);
            if (-change < stop)
                return SKF_NEWTON_CONVERGED;
            const bool slow = -change > 0.25 * last;
            last = -change;
            if (slow)
                break;
        }
    }
    return SKF_NEWTON_CAP;
}
