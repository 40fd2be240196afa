/* A joint Gauss–Newton step on the weights and the bone transforms.
 *
 * A. M. Buchanan and A. W. Fitzgibbon, "Damped Newton algorithms for matrix
 * factorization with missing data", CVPR 2005: alternating the two factors
 * of a bilinear model (here SSDR's weight and transform steps, ssdr.c)
 * crawls along the directions in which both move together, where a damped
 * Newton step on both at once does not. Here one Levenberg–Marquardt step
 * (K. Levenberg 1944; D. W. Marquardt, SIAM J. Appl. Math. 11(2), 1963)
 * on E = Σ_f Σ_j ‖Σ_i w_ij T_fi ṽ_j − u_fj‖² over
 *   - each vertex's weights on its current support (the bones of its
 *     non-zero slots; the sum stays one: slot 0's change is minus the
 *     others'), and
 *   - each frame's rigid bone transforms, T_fi ← exp([ω_fi]×) T_fi + τ_fi
 *     in coordinates centred on o (the rotation about o, then a shift),
 * its normal equations (JᵀJ + λ D) δ = −Jᵀr solved inexactly by a few
 * steps of conjugate gradients (M. R. Hestenes and E. Stiefel 1952)
 * preconditioned by the diagonal blocks of JᵀJ (a vertex's weights; a
 * bone's six parameters in one frame), D their diagonal. The step is then
 * taken (weights clipped at zero and renormalised, rotations by the
 * exponential map); the caller's safeguard decides whether it is kept
 * (ssdr.c).
 *
 * Every product is in moment form, never a pass over the animation:
 * with ṽ_j = [v_j − o; 1] and T the centred transforms,
 *   G_bc  = Σ_f T_fbᵀ T_fc              (4×4, bone pairs: Q_j = ṽᵀ G ṽ)
 *   M_bc  = Σ_j w_jb w_jc ṽ_j ṽ_jᵀ       (4×4, the weights' pair moments)
 *   C_fb  = Σ_j w_jb (u_fj − o) ṽ_jᵀ     (3×4, the transform step's moments)
 *   h_jb  = Σ_f T_fbᵀ (u_fj − o)         (4, from the reduced frame space)
 * and, per product with a direction (y, ω, τ), Δ_fb = [ω_fb]× T_fb + τ_fb e₄ᵀ,
 *   N_bc  = Σ_j w_jb δw_jc ṽ_j ṽ_jᵀ,     G'_bc = Σ_f T_fbᵀ Δ_fc,
 * so one product costs a few (3F × 4B)·(4B × 4B) products and O(N·K²)
 * (docs/decompose.md "Gauss–Newton steps" derives each block).
 * Deterministic: every sum in a fixed order, loops split over frames or
 * pairs whose results do not depend on who computes them.
 */
#include "decompose_internal.h"
#include "skinfit/math.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

#define HB 64 /* vertices per product block of h */

/* the inverse of an SPD n×n matrix A (symmetric: row- or column-major
 * alike; destroyed) into Ai; false when A is not SPD. n ≤ 3 (the
 * 4-influence case) by the adjugate (one division, not a factorisation's n
 * and its solves' 2n²: they were a fifth of a step), the leading minors
 * checked; larger n by Cholesky, column by column. */
static bool spd_inverse(double *A, size_t n, double *Ai)
{
    if (n == 1) {
        if (!(A[0] > 0))
            return false;
        Ai[0] = 1 / A[0];
        return true;
    }
    if (n == 2) {
        double det = A[0] * A[3] - A[1] * A[2];
        if (!(A[0] > 0) || !(det > 0))
            return false;
        double id = 1 / det;
        Ai[0] = A[3] * id;
        Ai[1] = Ai[2] = -A[1] * id;
        Ai[3] = A[0] * id;
        return true;
    }
    if (n == 3)
        return A[0] > 0 && A[0] * A[4] - A[1] * A[3] > 0 && skf_mat3_invert(Ai, A, 0) && Ai[8] > 0;
    if (skf_cholesky_factor(n, A))
        return false;
    for (size_t k = 0; k < n; ++k) {
        double *col = Ai + k * n;
        for (size_t i = 0; i < n; ++i)
            col[i] = i == k;
        skf_cholesky_solve(n, A, col);
    }
    return true;
}

typedef struct gn_state {
    size_t N, F, B, K;
    const double *rest, *o;
    const uint32_t *wb;
    const double *w;
    size_t *nsup;       /* [N] support size n_j (slots 0..n_j−1 non-zero) */
    double *Qv;         /* [N*K*K] Q_j on the support (n_j × n_j, ld K) */
    double *Iw;         /* [N*K*K] inverses of the (1+λ)-damped vertex blocks (m × m, m = n_j − 1) */
    double *Dw;         /* [N*K] the vertex blocks' diagonals (free slots 1..m) */
    double *It;         /* [F*B*10] the damped bone-frame blocks, inverted through their Schur
                           complement: S⁻¹ (00 01 02 11 12 22), m, 1/μ′ (see the setup) */
    double *Dt;         /* [F*B*6] their diagonals */
    uint8_t *tblock;    /* [F*B] 1 when the bone-frame block is used (the bone has weight) */
    double lambda;
    size_t B4, R3;      /* 4B, 3F */
    double *Tall;       /* [3F*4B] Tall[(3f + r)*4B + 4b + a] = row r, column a of centred T_fb */
    double *AM;         /* [4B*4B] AM[(4c + e)*4B + 4b + a] = (M_bc)_ae (0 off the shared pairs) */
    /* product scratch */
    double *Dall;       /* [3F*4B] Δ_fb in Tall's layout */
    double *AN;         /* [4B*4B] N_bc in AM's layout */
    double *Y;          /* [3F*4B] Tall · AN + Dall · AM */
    double *Gp;         /* [4B*4B] Tallᵀ Dall: G'_bc at rows 4b.., columns 4c.. */
    /* the bone pairs (b, c) that share a vertex, in order of first use
     * (vertex order): a pair's 4×4 sums from its own list of (vertex, slot
     * s, slot t) entries, each summed in vertex order into registers */
    size_t np;
    uint32_t *pair_bc;  /* [np] b·B + c */
    size_t *poff;       /* [np+1] the pair's entries ent[poff[p] .. poff[p+1]) */
    uint32_t *ent;      /* [3·entries] j·K + s, j·K + t, j */
    int32_t *pidx;      /* [N*K*K] the pair of vertex j's slots (s, t) */
    double *m10;        /* [N*10] ṽ_a ṽ_e, a ≤ e (SYM10 order) */
    double *dw;         /* [N*K] the weights' change of the product's direction (scratch) */
    double *g10;        /* [np*10] the symmetric part of G'_bc as 10 coefficients (scratch) */
} gn_state;

/* 4×4 symmetric matrices as 10 numbers, (a, e) with a ≤ e in the order
 * (0,0) (0,1) (0,2) (0,3) (1,1) (1,2) (1,3) (2,2) (2,3) (3,3) */
static const uint8_t SYM10[4][4] = {{0, 1, 2, 3}, {1, 4, 5, 6}, {2, 5, 7, 8}, {3, 6, 8, 9}};

/* The pairs' sums S_p = Σ_entries x[j·K + s] · y[j·K + t] · ṽ_j ṽ_jᵀ (10
 * numbers each) written as full 4×4 blocks into A (AM's layout; entries
 * off the pairs left as they are). */
static void pair_sums(const gn_state *g, const double *xs, const double *yt, double *A)
{
    size_t B = g->B, B4 = g->B4;
#pragma omp parallel for schedule(static)
    for (long long pl = 0; pl < (long long)g->np; ++pl) {
        size_t p = (size_t)pl;
        double acc[10] = {0};
        for (size_t e = g->poff[p]; e < g->poff[p + 1]; ++e) {
            const uint32_t *en = g->ent + 3 * e;
            double f = xs[en[0]] * yt[en[1]];
            const double *m = g->m10 + 10 * (size_t)en[2];
            for (size_t k = 0; k < 10; ++k)
                acc[k] += f * m[k];
        }
        size_t b = g->pair_bc[p] / B, c = g->pair_bc[p] % B;
        double *At = A + 4 * c * B4 + 4 * b;
        for (size_t e = 0; e < 4; ++e)
            for (size_t a = 0; a < 4; ++a)
                At[e * B4 + a] = acc[SYM10[a][e]];
    }
}

/* the 10 coefficients of ṽᵀ X ṽ for the 4×4 block X (row stride B4) at
 * rows 4b, columns 4c: X_aa, and X_ae + X_ea for a < e */
static inline void quad10(const double *X, size_t B4, double *q)
{
    for (size_t a = 0; a < 4; ++a)
        for (size_t e = a; e < 4; ++e)
            q[SYM10[a][e]] = a == e ? X[a * B4 + a] : X[a * B4 + e] + X[e * B4 + a];
}

static inline void vtil(const gn_state *g, size_t j, double *v)
{
    const double *r = g->rest + 3 * j;
    v[0] = r[0] - g->o[0];
    v[1] = r[1] - g->o[1];
    v[2] = r[2] - g->o[2];
    v[3] = 1;
}

/* slot s's weight change of vertex j from the free variables y (slot 0's
 * is minus the others') */
static inline void weight_change(const gn_state *g, const double *y, size_t j, double *dw)
{
    size_t n = g->nsup[j], K = g->K;
    double sy = 0;
    for (size_t s = 1; s < n; ++s) {
        dw[s] = y[j * K + s];
        sy += dw[s];
    }
    dw[0] = -sy;
}

/* The transforms' rows of a product from Y = Σ_c (N_bc T_fcᵀ + M_bc Δ_fcᵀ)
 * (or its gradient form) in Yᵀ's layout: per (f, b), X = T_fb Y_b(f) (3×3),
 * ω = axial(X) = Σ a × b of X = Σ a bᵀ, τ = row 3 of Y_b(f). */
static void transform_rows(const gn_state *g, const double *Yt, double *ot)
{
    size_t F = g->F, B = g->B, B4 = g->B4;
#pragma omp parallel for schedule(static)
    for (long long fl = 0; fl < (long long)F; ++fl) {
        size_t f = (size_t)fl;
        for (size_t b = 0; b < B; ++b) {
            double *o6 = ot + (f * B + b) * 6;
            if (!g->tblock[f * B + b]) {
                memset(o6, 0, 6 * sizeof *o6);
                continue;
            }
            const double *T0 = g->Tall + 3 * f * B4 + 4 * b, *Y0 = Yt + 3 * f * B4 + 4 * b;
            double X[9];
            for (size_t r = 0; r < 3; ++r)
                for (size_t q = 0; q < 3; ++q) {
                    const double *Tr = T0 + r * B4, *Yq = Y0 + q * B4;
                    X[r * 3 + q] = Tr[0] * Yq[0] + Tr[1] * Yq[1] + Tr[2] * Yq[2] + Tr[3] * Yq[3];
                }
            o6[0] = X[5] - X[7];
            o6[1] = X[6] - X[2];
            o6[2] = X[1] - X[3];
            o6[3] = Y0[3];
            o6[4] = Y0[B4 + 3];
            o6[5] = Y0[2 * B4 + 3];
        }
    }
}

/* out = (JᵀJ + λ D) x; x, out: [N*K + F*B*6] */
static void apply_op(gn_state *g, const double *x, double *out)
{
    size_t N = g->N, F = g->F, B = g->B, K = g->K, B4 = g->B4, R3 = g->R3;
    const double *y = x, *th = x + N * K;
    double *ow = out, *ot = out + N * K;
    /* Δ_fb = [ω]× T_fb + τ e₄ᵀ, in Tall's layout */
#pragma omp parallel for schedule(static)
    for (long long fl = 0; fl < (long long)F; ++fl) {
        size_t f = (size_t)fl;
        for (size_t b = 0; b < B; ++b) {
            const double *t6 = th + (f * B + b) * 6, *T0 = g->Tall + 3 * f * B4 + 4 * b;
            double *D0 = g->Dall + 3 * f * B4 + 4 * b;
            for (size_t a = 0; a < 4; ++a) {
                double c0 = T0[a], c1 = T0[B4 + a], c2 = T0[2 * B4 + a];
                D0[a] = t6[1] * c2 - t6[2] * c1;
                D0[B4 + a] = t6[2] * c0 - t6[0] * c2;
                D0[2 * B4 + a] = t6[0] * c1 - t6[1] * c0;
            }
            D0[3] += t6[3];
            D0[B4 + 3] += t6[4];
            D0[2 * B4 + 3] += t6[5];
        }
    }
    /* N_bc = Σ_j w_jb δw_jc ṽṽᵀ */
    for (size_t j = 0; j < N; ++j)
        if (g->nsup[j] >= 2)
            weight_change(g, y, j, g->dw + j * K);
    pair_sums(g, g->w, g->dw, g->AN);
    /* Y = Tall · AN + Dall · AM; G' = Tallᵀ Dall */
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)R3, (int)B4, (int)B4, 1.0, g->Tall, (int)B4,
                g->AN, (int)B4, 0.0, g->Y, (int)B4);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)R3, (int)B4, (int)B4, 1.0, g->Dall, (int)B4,
                g->AM, (int)B4, 1.0, g->Y, (int)B4);
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)B4, (int)B4, (int)R3, 1.0, g->Tall, (int)B4,
                g->Dall, (int)B4, 0.0, g->Gp, (int)B4);
    /* the weights' rows: (Q_j δw)_s + Σ_t w_t ṽᵀ G'_{b_s b_t} ṽ, then the
     * free variables' map (slot s minus slot 0) */
#pragma omp parallel for schedule(static)
    for (long long pl = 0; pl < (long long)g->np; ++pl) {
        size_t b = g->pair_bc[pl] / B, c = g->pair_bc[pl] % B;
        quad10(g->Gp + 4 * b * B4 + 4 * c, B4, g->g10 + 10 * (size_t)pl);
    }
#pragma omp parallel for schedule(static)
    for (long long jl = 0; jl < (long long)N; ++jl) {
        size_t j = (size_t)jl, n = g->nsup[j];
        for (size_t s = 0; s < K; ++s)
            ow[j * K + s] = 0;
        if (n < 2)
            continue;
        const double *m = g->m10 + 10 * j, *dw = g->dw + j * K;
        double r[16];
        for (size_t s = 0; s < n; ++s) {
            double a = 0;
            for (size_t t = 0; t < n; ++t)
                a += g->Qv[(j * K + s) * K + t] * dw[t] +
                     g->w[j * K + t] * skfi_sym10(g->g10 + 10 * (size_t)g->pidx[(j * K + s) * K + t], m);
            r[s] = a;
        }
        for (size_t s = 1; s < n; ++s)
            ow[j * K + s] = r[s] - r[0] + g->lambda * g->Dw[j * K + s] * y[j * K + s];
    }
    transform_rows(g, g->Y, ot);
    for (size_t q = 0; q < F * B; ++q)
        if (g->tblock[q])
            for (size_t a = 0; a < 6; ++a)
                ot[q * 6 + a] += g->lambda * g->Dt[q * 6 + a] * th[q * 6 + a];
}

/* z = P⁻¹ r for the damped block preconditioner */
static void precondition(const gn_state *g, const double *r, double *z)
{
    size_t N = g->N, F = g->F, B = g->B, K = g->K;
#pragma omp parallel for schedule(static)
    for (long long jl = 0; jl < (long long)N; ++jl) {
        size_t j = (size_t)jl, n = g->nsup[j], m = n ? n - 1 : 0;
        for (size_t s = 0; s < K; ++s)
            z[j * K + s] = 0;
        const double *Ii = g->Iw + j * K * K, *rj = r + j * K + 1;
        for (size_t a = 0; a < m; ++a) {
            double acc = 0;
            for (size_t e = 0; e < m; ++e)
                acc += Ii[a * m + e] * rj[e];
            z[j * K + 1 + a] = acc;
        }
    }
#pragma omp parallel for schedule(static)
    for (long long q = 0; q < (long long)(F * B); ++q) {
        const double *Ii = g->It + (size_t)q * 10, *rq = r + N * K + (size_t)q * 6;
        double *zq = z + N * K + (size_t)q * 6;
        if (!g->tblock[q]) {
            memset(zq, 0, 6 * sizeof *zq);
            continue;
        }
        /* zω = S⁻¹ (rω − m × rτ / μ′), zτ = (rτ + m × zω) / μ′ */
        const double *m = Ii + 6, im = Ii[9];
        double t[3] = {rq[0] - (m[1] * rq[5] - m[2] * rq[4]) * im, rq[1] - (m[2] * rq[3] - m[0] * rq[5]) * im,
                       rq[2] - (m[0] * rq[4] - m[1] * rq[3]) * im};
        zq[0] = Ii[0] * t[0] + Ii[1] * t[1] + Ii[2] * t[2];
        zq[1] = Ii[1] * t[0] + Ii[3] * t[1] + Ii[4] * t[2];
        zq[2] = Ii[2] * t[0] + Ii[4] * t[1] + Ii[5] * t[2];
        zq[3] = (rq[3] + m[1] * zq[2] - m[2] * zq[1]) * im;
        zq[4] = (rq[4] + m[2] * zq[0] - m[0] * zq[2]) * im;
        zq[5] = (rq[5] + m[0] * zq[1] - m[1] * zq[0]) * im;
    }
}

/* Σ a_e b_e in four interleaved partial sums (a fixed order: the same
 * bits on every run) */
static double dot(const double *a, const double *b, size_t n)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t e = 0;
    for (; e + 4 <= n; e += 4) {
        s0 += a[e] * b[e];
        s1 += a[e + 1] * b[e + 1];
        s2 += a[e + 2] * b[e + 2];
        s3 += a[e + 3] * b[e + 3];
    }
    for (; e < n; ++e)
        s0 += a[e] * b[e];
    return (s0 + s1) + (s2 + s3);
}

static void gn_free(gn_state *g)
{
    skf_free(g->nsup);
    skf_free(g->Qv);
    skf_free(g->pair_bc);
    skf_free(g->poff);
    skf_free(g->ent);
    skf_free(g->pidx);
    skf_free(g->m10);
    skf_free(g->dw);
    skf_free(g->g10);
    skf_free(g->Iw);
    skf_free(g->Dw);
    skf_free(g->It);
    skf_free(g->Dt);
    skf_free(g->tblock);
    skf_free(g->Tall);
    skf_free(g->Dall);
    skf_free(g->Y);
    skf_free(g->AM);
    skf_free(g->AN);
    skf_free(g->Gp);
}

/* The step's normal equations at (wb, w, transforms): *out's blocks, pair
 * lists and moments, and r = −Jᵀr (the right-hand side, [N·K + F·B·6]).
 * On failure nothing is left allocated. */
static skf_status gn_setup(const skfi_decompose_ctx *c, size_t B, size_t K, const double *centre,
                           const double *moments, double lambda, const uint32_t *wb, const double *w,
                           const double *transforms, gn_state *out, double *r, skf_error *err)
{
    size_t N = c->N, F = c->F, B4 = 4 * B, R3 = 3 * F;
    gn_state g = {.N = N, .F = F, .B = B, .K = K, .B4 = B4, .R3 = R3, .rest = c->rest, .o = centre,
                  .wb = wb, .w = w, .lambda = lambda};
    skfi_frame_basis *fb = c->basis && c->basis->coords && c->basis->rows_o ? c->basis : NULL;
    size_t D = fb ? fb->D : 0;
    g.nsup = skf_malloc_array(N, sizeof *g.nsup);
    g.Qv = skf_calloc(N * K * K, sizeof *g.Qv);
    g.Iw = skf_calloc(N * K * K, sizeof *g.Iw);
    g.Dw = skf_calloc(N * K, sizeof *g.Dw);
    g.It = skf_calloc(F * B * 10, sizeof *g.It);
    g.Dt = skf_calloc(F * B * 6, sizeof *g.Dt);
    g.tblock = skf_calloc(F * B, sizeof *g.tblock);
    g.Tall = skf_malloc_array(R3 * B4, sizeof *g.Tall);
    g.Dall = skf_malloc_array(R3 * B4, sizeof *g.Dall);
    g.Y = skf_malloc_array(R3 * B4, sizeof *g.Y);
    g.AM = skf_calloc(B4 * B4, sizeof *g.AM);
    g.AN = skf_calloc(B4 * B4, sizeof *g.AN); /* zero off the pairs, which pair_sums never writes */
    g.Gp = skf_malloc_array(B4 * B4, sizeof *g.Gp);
    double *G = skf_malloc_array(B4 * B4, sizeof *G);
    double *h = skf_malloc_array(N * K * 4, sizeof *h); /* h_{j,b_s} = Σ_f T_fb_sᵀ (u_fj − o) */
    double *Hb = fb ? skf_malloc_array(HB * B4, sizeof *Hb) : NULL; /* a block of vertices' h, all bones */
    double *P = fb ? skf_malloc_array(D * B4, sizeof *P) : NULL;
    skf_status st = SKF_OK;
    if (!g.nsup || !g.Qv || !g.Iw || !g.Dw || !g.It || !g.Dt || !g.tblock || !g.Tall || !g.Dall || !g.Y ||
        !g.AM || !g.AN || !g.Gp || !G || !h || (fb && (!P || !Hb))) {
        st = skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory in the Gauss-Newton step");
        goto done;
    }
    /* supports, ṽṽᵀ, and the bone pairs sharing a vertex (first use in
     * vertex order) with their entry lists */
    {
        int32_t *pair_of = skf_malloc_array(B * B, sizeof *pair_of);
        g.pair_bc = skf_malloc_array(B * B, sizeof *g.pair_bc);
        g.poff = skf_calloc(B * B + 1, sizeof *g.poff);
        g.pidx = skf_malloc_array(N * K * K, sizeof *g.pidx);
        g.m10 = skf_malloc_array(N * 10, sizeof *g.m10);
        g.dw = skf_calloc(N * K, sizeof *g.dw);
        if (!pair_of || !g.pair_bc || !g.poff || !g.pidx || !g.m10 || !g.dw) {
            skf_free(pair_of);
            st = skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory in the Gauss-Newton step");
            goto done;
        }
        for (size_t q = 0; q < B * B; ++q)
            pair_of[q] = -1;
        size_t nent = 0;
        for (size_t j = 0; j < N; ++j) {
            size_t n = 0;
            while (n < K && w[j * K + n] > 0)
                ++n;
            g.nsup[j] = n;
            double v[4];
            vtil(&g, j, v);
            for (size_t a = 0; a < 4; ++a)
                for (size_t e = a; e < 4; ++e)
                    g.m10[10 * j + SYM10[a][e]] = v[a] * v[e];
            for (size_t s = 0; s < n; ++s)
                for (size_t t = 0; t < n; ++t) {
                    size_t key = (size_t)wb[j * K + s] * B + wb[j * K + t];
                    if (pair_of[key] < 0) {
                        pair_of[key] = (int32_t)g.np;
                        g.pair_bc[g.np++] = (uint32_t)key;
                    }
                    g.pidx[(j * K + s) * K + t] = pair_of[key];
                    ++g.poff[(size_t)pair_of[key] + 1];
                    ++nent;
                }
        }
        skf_free(pair_of);
        for (size_t q = 0; q < g.np; ++q)
            g.poff[q + 1] += g.poff[q];
        g.ent = skf_malloc_array(3 * nent + 1, sizeof *g.ent);
        size_t *fill = skf_malloc_array(g.np + 1, sizeof *fill);
        g.g10 = skf_malloc_array(g.np * 10 + 1, sizeof *g.g10);
        if (!g.ent || !fill || !g.g10) {
            skf_free(fill);
            st = skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory in the Gauss-Newton step");
            goto done;
        }
        memcpy(fill, g.poff, g.np * sizeof *fill);
        for (size_t j = 0; j < N; ++j)
            for (size_t s = 0; s < g.nsup[j]; ++s)
                for (size_t t = 0; t < g.nsup[j]; ++t) {
                    size_t e = fill[g.pidx[(j * K + s) * K + t]]++;
                    g.ent[3 * e] = (uint32_t)(j * K + s);
                    g.ent[3 * e + 1] = (uint32_t)(j * K + t);
                    g.ent[3 * e + 2] = (uint32_t)j;
                }
        skf_free(fill);
    }
    /* M_bc = Σ_j w_jb w_jc ṽṽᵀ in AM's layout */
    pair_sums(&g, w, w, g.AM);
    /* centred transforms, p − o = R (v − o) + (R o + t − o), in Tall's layout */
    for (size_t f = 0; f < F; ++f)
        for (size_t b = 0; b < B; ++b) {
            const double *T = transforms + (f * B + b) * 12;
            double *T0 = g.Tall + 3 * f * B4 + 4 * b;
            for (size_t r2 = 0; r2 < 3; ++r2) {
                for (size_t a = 0; a < 3; ++a)
                    T0[r2 * B4 + a] = T[a * 3 + r2];
                T0[r2 * B4 + 3] = T[9 + r2] + T[r2] * centre[0] + T[3 + r2] * centre[1] +
                                  T[6 + r2] * centre[2] - centre[r2];
            }
        }
    /* G = Tallᵀ Tall (G_bc at rows 4b, columns 4c); the gradient's Y0 =
     * Tall · AM (its Cᵀ part below); H = coords · (rows_o · Tall) */
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)B4, (int)B4, (int)R3, 1.0, g.Tall, (int)B4,
                g.Tall, (int)B4, 0.0, G, (int)B4);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)R3, (int)B4, (int)B4, 1.0, g.Tall, (int)B4,
                g.AM, (int)B4, 0.0, g.Y, (int)B4);
    double *G10 = g.g10; /* G's pairs as 10 coefficients (g10 is the products' scratch later) */
    for (size_t q = 0; q < g.np; ++q)
        quad10(G + 4 * (g.pair_bc[q] / B) * B4 + 4 * (g.pair_bc[q] % B), B4, G10 + 10 * q);
    /* h_{j,b} for the support bones only (N·K·4 numbers, not N·4B) */
    if (fb) {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)D, (int)B4, (int)R3, 1.0, fb->rows_o,
                    (int)R3, g.Tall, (int)B4, 0.0, P, (int)B4);
        for (size_t j0 = 0; j0 < N; j0 += HB) {
            size_t nb = N - j0 < HB ? N - j0 : HB;
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)nb, (int)B4, (int)D, 1.0,
                        fb->coords + j0 * D, (int)D, P, (int)B4, 0.0, Hb, (int)B4);
            for (size_t j = j0; j < j0 + nb; ++j)
                for (size_t s = 0; s < g.nsup[j]; ++s)
                    memcpy(h + (j * K + s) * 4, Hb + (j - j0) * B4 + 4 * wb[j * K + s], 4 * sizeof *h);
        }
    } else {
        /* without a reduced frame space: the centred frames (frame-major input) */
#pragma omp parallel for schedule(static)
        for (long long jl = 0; jl < (long long)N; ++jl) {
            size_t j = (size_t)jl;
            for (size_t s = 0; s < g.nsup[j]; ++s)
                for (size_t a = 0; a < 4; ++a) {
                    size_t e = 4 * wb[j * K + s] + a;
                    double acc = 0;
                    for (size_t f = 0; f < F; ++f) {
                        const double *u = c->frames + (f * N + j) * 3;
                        acc += g.Tall[(3 * f) * B4 + e] * (u[0] - centre[0]) +
                               g.Tall[(3 * f + 1) * B4 + e] * (u[1] - centre[1]) +
                               g.Tall[(3 * f + 2) * B4 + e] * (u[2] - centre[2]);
                    }
                    h[(j * K + s) * 4 + a] = acc;
                }
        }
    }
    /* the weights' gradient Jᵀr and their blocks */
#pragma omp parallel for schedule(static)
    for (long long jl = 0; jl < (long long)N; ++jl) {
        size_t j = (size_t)jl, n = g.nsup[j];
        for (size_t s = 0; s < K; ++s)
            r[j * K + s] = 0;
        if (n < 2)
            continue;
        double v[4], gs[16];
        vtil(&g, j, v);
        double *Q = g.Qv + j * K * K;
        for (size_t s = 0; s < n; ++s)
            for (size_t t = s; t < n; ++t)
                Q[s * K + t] = Q[t * K + s] = skfi_sym10(G10 + 10 * (size_t)g.pidx[(j * K + s) * K + t], g.m10 + 10 * j);
        for (size_t s = 0; s < n; ++s) {
            const double *hs = h + (j * K + s) * 4;
            double a = -(hs[0] * v[0] + hs[1] * v[1] + hs[2] * v[2] + hs[3] * v[3]);
            for (size_t t = 0; t < n; ++t)
                a += Q[s * K + t] * w[j * K + t];
            gs[s] = a;
        }
        size_t m = n - 1;
        double L[256], sc = 0;
        for (size_t s = 1; s < n; ++s) {
            r[j * K + s] = -(gs[s] - gs[0]);
            for (size_t t = 1; t < n; ++t)
                L[(s - 1) * m + (t - 1)] = Q[s * K + t] - Q[s * K] - Q[t] + Q[0];
            g.Dw[j * K + s] = L[(s - 1) * m + (s - 1)];
            sc = fmax(sc, g.Dw[j * K + s]);
        }
        for (size_t a = 0; a < m; ++a)
            L[a * m + a] = L[a * m + a] * (1 + lambda) + 1e-12 * sc;
        if (!spd_inverse(L, m, g.Iw + j * K * K)) {
            /* a degenerate block (collinear bones at this vertex): its
             * weights stay */
            for (size_t s = 1; s < n; ++s)
                r[j * K + s] = 0;
            memset(g.Iw + j * K * K, 0, m * m * sizeof *g.Iw);
        }
    }
    /* the transforms' gradient: Y0 − Cᵀ into Y's layout, then the rows */
    for (size_t f = 0; f < F; ++f)
        for (size_t b = 0; b < B; ++b) {
            const double *Cb = moments + (f * B + b) * 12;
            double *Y0 = g.Y + 3 * f * B4 + 4 * b;
            for (size_t q = 0; q < 3; ++q)
                for (size_t a = 0; a < 4; ++a)
                    Y0[q * B4 + a] -= Cb[a * 3 + q];
            /* the block is used where the bone has weight (M_bb's mass) */
            g.tblock[f * B + b] = g.AM[(4 * b + 3) * B4 + 4 * b + 3] > 0;
        }
    transform_rows(&g, g.Y, r + N * K);
    /* the bone-frame blocks Σ_j w² [[|p|² I − p pᵀ, [m]×], [−[m]×, μ I]]
     * with X2 = T M_bb Tᵀ = Σ w² p pᵀ, m = T M_bb e₄ = Σ w² p, μ = Σ w² */
#pragma omp parallel for schedule(static)
    for (long long ql = 0; ql < (long long)(F * B); ++ql) {
        size_t q = (size_t)ql, f = q / B, b = q % B;
        double *r6 = r + N * K + q * 6;
        for (size_t a = 0; a < 6; ++a)
            r6[a] = -r6[a];
        if (!g.tblock[q])
            continue;
        const double *T0 = g.Tall + 3 * f * B4 + 4 * b, *Mbb = g.AM + 4 * b * B4 + 4 * b;
        double Yb[12], X2[9], mv[3], mu = Mbb[3 * B4 + 3];
        for (size_t a = 0; a < 4; ++a)
            for (size_t r2 = 0; r2 < 3; ++r2) {
                double s = 0;
                for (size_t e = 0; e < 4; ++e)
                    s += Mbb[e * B4 + a] * T0[r2 * B4 + e];
                Yb[a * 3 + r2] = s;
            }
        for (size_t r2 = 0; r2 < 3; ++r2) {
            for (size_t q2 = 0; q2 < 3; ++q2)
                X2[r2 * 3 + q2] = T0[r2 * B4] * Yb[q2] + T0[r2 * B4 + 1] * Yb[3 + q2] +
                                  T0[r2 * B4 + 2] * Yb[6 + q2] + T0[r2 * B4 + 3] * Yb[9 + q2];
            mv[r2] = Yb[9 + r2];
        }
        /* The block [[A, [m]×], [−[m]×, μ I]], A = tr(X2) I − X2, damped on
         * its diagonal: A′ = A + λ diag A + ε, μ′ = (1 + λ) μ + ε. Its
         * inverse through the Schur complement of μ′ I, S = A′ + [m]×[m]× / μ′
         * = A′ + (m mᵀ − |m|² I) / μ′ (the damped rotational inertia about
         * the weighted centroid): 3×3, by its adjugate. */
        double tr = X2[0] + X2[4] + X2[8], A[9];
        for (size_t a = 0; a < 3; ++a)
            for (size_t e = 0; e < 3; ++e)
                A[a * 3 + e] = (a == e ? tr : 0) - X2[a * 3 + e];
        double sc = fmax(fmax(A[0], A[4]), fmax(A[8], mu));
        double *Dq = g.Dt + q * 6;
        for (size_t a = 0; a < 3; ++a) {
            Dq[a] = A[a * 4];
            Dq[3 + a] = mu;
            A[a * 4] = A[a * 4] * (1 + lambda) + 1e-12 * sc;
        }
        double mup = mu * (1 + lambda) + 1e-12 * sc, im = 1 / mup, mm = mv[0] * mv[0] + mv[1] * mv[1] + mv[2] * mv[2];
        double S[9];
        for (size_t a = 0; a < 3; ++a)
            for (size_t e = 0; e < 3; ++e)
                S[a * 3 + e] = A[a * 3 + e] + (mv[a] * mv[e] - (a == e ? mm : 0)) * im;
        double Si[9], *Iq = g.It + q * 10;
        if (!(mup > 0) || !spd_inverse(S, 3, Si)) {
            g.tblock[q] = 0;
            memset(r6, 0, 6 * sizeof *r6);
            continue;
        }
        Iq[0] = Si[0];
        Iq[1] = Si[1];
        Iq[2] = Si[2];
        Iq[3] = Si[4];
        Iq[4] = Si[5];
        Iq[5] = Si[8];
        Iq[6] = mv[0];
        Iq[7] = mv[1];
        Iq[8] = mv[2];
        Iq[9] = im;
    }
done:
    skf_free(G);
    skf_free(h);
    skf_free(Hb);
    skf_free(P);
    if (st)
        gn_free(&g);
    else
        *out = g;
    return st;
}

skf_status skfi_decompose_gn_step(const skfi_decompose_ctx *c, size_t B, size_t K, const double *centre,
                                  const double *moments, double lambda, int cg_steps, uint32_t *wb,
                                  double *w, double *transforms, skfi_gn_stats *stats, skf_error *err)
{
    size_t N = c->N, F = c->F, B4 = 4 * B, nx = N * K + F * B * 6;
    memset(stats, 0, sizeof *stats);
    gn_state g;
    double *x = skf_calloc(nx, sizeof *x), *r = skf_malloc_array(nx, sizeof *r);
    double *z = skf_malloc_array(nx, sizeof *z), *p = skf_malloc_array(nx, sizeof *p);
    double *Ap = skf_malloc_array(nx, sizeof *Ap);
    skf_status st = !x || !r || !z || !p || !Ap
                        ? skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory in the Gauss-Newton step")
                        : gn_setup(c, B, K, centre, moments, lambda, wb, w, transforms, &g, r, err);
    if (st) {
        skf_free(x);
        skf_free(r);
        skf_free(z);
        skf_free(p);
        skf_free(Ap);
        return st;
    }
    /* preconditioned conjugate gradients from 0 */
    precondition(&g, r, z);
    memcpy(p, z, nx * sizeof *p);
    double rz = dot(r, z, nx);
    for (int it = 0; it < cg_steps && rz > 0; ++it) {
        apply_op(&g, p, Ap);
        double pAp = dot(p, Ap, nx);
        if (!(pAp > 0))
            break;
        double al = rz / pAp;
        for (size_t e = 0; e < nx; ++e) {
            x[e] += al * p[e];
            r[e] -= al * Ap[e];
        }
        ++stats->cg_steps;
        if (it + 1 == cg_steps)
            break;
        precondition(&g, r, z);
        double rzn = dot(r, z, nx), be = rzn / rz;
        rz = rzn;
        for (size_t e = 0; e < nx; ++e)
            p[e] = z[e] + be * p[e];
    }
    /* take the step: weights clipped at 0 and renormalised (slots sorted
     * descending again), rotations by the exponential map about o */
    for (size_t j = 0; j < N; ++j) {
        size_t n = g.nsup[j];
        if (n < 2)
            continue;
        double dw[16], nw[16], sum = 0;
        uint32_t nb[16];
        weight_change(&g, x, j, dw);
        for (size_t s = 0; s < n; ++s) {
            double v = w[j * K + s] + dw[s];
            nw[s] = v > 0 ? v : 0;
            nb[s] = wb[j * K + s];
            sum += nw[s];
        }
        if (!(sum > 0))
            continue;
        for (size_t s = 1; s < n; ++s)
            for (size_t t = s; t > 0 && nw[t] > nw[t - 1]; --t) {
                double tw = nw[t];
                nw[t] = nw[t - 1];
                nw[t - 1] = tw;
                uint32_t tb = nb[t];
                nb[t] = nb[t - 1];
                nb[t - 1] = tb;
            }
        for (size_t s = 0; s < n; ++s) {
            w[j * K + s] = nw[s] > 0 ? nw[s] / sum : 0;
            wb[j * K + s] = nw[s] > 0 ? nb[s] : 0;
            stats->clipped += !(nw[s] > 0);
        }
    }
    for (size_t f = 0; f < F; ++f)
        for (size_t b = 0; b < B; ++b) {
            size_t q = f * B + b;
            if (!g.tblock[q])
                continue;
            const double *th = x + N * K + q * 6, *T0 = g.Tall + 3 * f * B4 + 4 * b;
            /* exp([ω]×) as the unit quaternion (ω̂ sin(|ω|/2), cos(|ω|/2));
             * skf_quat_to_mat3 writes it column-major */
            double a = sqrt(th[0] * th[0] + th[1] * th[1] + th[2] * th[2]), hs = a > 0 ? sin(0.5 * a) / a : 0.5;
            double qr[4] = {th[0] * hs, th[1] * hs, th[2] * hs, cos(0.5 * a)}, R[9];
            skf_quat_to_mat3(R, qr);
            double *T = transforms + q * 12;
            for (size_t col = 0; col < 4; ++col)
                for (size_t row = 0; row < 3; ++row)
                    T[col * 3 + row] = R[row] * T0[col] + R[3 + row] * T0[B4 + col] + R[6 + row] * T0[2 * B4 + col] +
                                       (col == 3 ? th[3 + row] : 0);
            /* back to the uncentred rest_to_frame: t = t_c − R o + o */
            for (size_t row = 0; row < 3; ++row)
                T[9 + row] -= T[row] * centre[0] + T[3 + row] * centre[1] + T[6 + row] * centre[2] - centre[row];
        }
    gn_free(&g);
    skf_free(x);
    skf_free(r);
    skf_free(z);
    skf_free(p);
    skf_free(Ap);
    return SKF_OK;
}

skf_status skfi_decompose_gn_products(const skfi_decompose_ctx *c, size_t B, size_t K, const double *centre,
                                      const double *moments, const uint32_t *wb, const double *w,
                                      const double *transforms, const double *x, double *grad, double *Ax,
                                      skf_error *err)
{
    gn_state g;
    skf_status st = gn_setup(c, B, K, centre, moments, 0, wb, w, transforms, &g, grad, err);
    if (st)
        return st;
    size_t nx = c->N * K + c->F * B * 6;
    for (size_t e = 0; e < nx; ++e)
        grad[e] = -grad[e];
    apply_op(&g, x, Ax);
    gn_free(&g);
    return SKF_OK;
}
