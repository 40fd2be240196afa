/* Gauss–Seidel bone sweeps with the closed-form one-bone update.
 *
 * References: B. H. Le and Z. Deng, "Smooth Skinning Decomposition with Rigid
 * Bones", ACM TOG 31(6), 2012 (bone-by-bone transform update on moment sums);
 * B. K. P. Horn 1987 for the rigid fit (src/solve/horn.c). Derivation:
 * docs/solver.md, D2.
 *
 * With the other bones held, E as a function of T_i = [R | t] is
 *     f(T_i) = ⟨T_i M_ii, T_i⟩ − 2 ⟨T_i, Q_i⟩ + const,  Q_i = C_i − Σ_{k≠i} T_k M_ki.
 * Split M_ii = [[S, m], [mᵀ, μ]] and Q_i = [P | q]: the best translation for a
 * given R is t = (q − R m)/μ, and R maximises ⟨R, H⟩ with H = P − q mᵀ/μ.
 * Every bone update is exact, so E never increases. The decrease of a sweep
 * is summed from the per-bone f differences (local quantities, no
 * cancellation against U), and the sweeps stop when it falls below
 * tolerance·N·diag² — an absolute test on the model's scale; a relative test
 * quits while the sweeps are still creeping down.
 * A bone with μ = 0 has no weighted vertex: it keeps its transform.
 */
#include "solve_internal.h"
#include "base/lanes.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* f(T) − const = ⟨T M, T⟩ − 2 ⟨T, Q⟩, summed entry by entry (column c, row r). */
static double local_f(const double *T, const double *M, const double *Q)
{
    double P[3][4];
    skfi_solve_TM(T, M, P);
    double e = 0;
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 3; ++r)
            e += (P[r][c] - 2 * Q[c * 3 + r]) * T[c * 3 + r];
    return e;
}

/* One bone: returns the decrease of E (≥ 0 up to rounding). */
static double update_bone(const skf_solver *s, const skfi_solve_ws *ws, double *T, size_t i)
{
    /* Q = C_i − Σ_{k≠i} T_k M_ki, held by rows (Qr[r][c] = Q entry [c*3 + r])
     * so each neighbour's product is subtracted along rows of M */
    double Qr[3][4];
    const double *Ci = ws->C + 12 * i;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c)
            Qr[r][c] = Ci[c * 3 + r];
    const double *Mii = NULL;
    for (size_t at = s->nb_off[i]; at < s->nb_off[i + 1]; ++at) {
        size_t k = s->nb_bone[at];
        const double *M = s->pair_M + 16 * s->nb_pair[at];
        if (k == i) {
            Mii = M;
            continue;
        }
        double P[3][4];
        skfi_solve_TM(T + 12 * k, M, P);
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 4; ++c)
                Qr[r][c] -= P[r][c];
    }
    double Q[12];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c)
            Q[c * 3 + r] = Qr[r][c];
    const double mu = Mii[15];
    const double m[3] = {Mii[3], Mii[7], Mii[11]};
    double H[9], Tn[12];
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r)
            H[c * 3 + r] = Q[c * 3 + r] - Q[9 + r] * m[c] / mu;
    if (s->opt.fast_rotation)
        skf_horn_rotation_fast(H, Tn);
    else
        skf_horn_rotation(H, Tn);
    for (int r = 0; r < 3; ++r)
        Tn[9 + r] = (Q[9 + r] - (Tn[r] * m[0] + Tn[3 + r] * m[1] + Tn[6 + r] * m[2])) / mu;
    double *Ti = T + 12 * i;
    for (int e = 0; e < 12; ++e)
        if (!isfinite(Tn[e]))
            return 0;
    /* The update is the exact minimiser of f: accept it always. Comparing
     * f_new ≤ f_old would decide on rounding noise near convergence (f is of
     * size μ·diag², its change there of size 1e-20 of that) and could freeze
     * a start that is 1e-10 off. */
    double dec = local_f(Ti, Mii, Q) - local_f(Tn, Mii, Q);
    memcpy(Ti, Tn, sizeof Tn);
    return dec > 0 ? dec : 0;
}

void skfi_solve_sweeps(const skf_solver *s, const skfi_solve_ws *ws, double *T, skf_solve_stats *st,
                       int max_sweeps)
{
    const double stop = s->opt.tolerance * (double)s->n * s->diag * s->diag;
    st->hit_cap = true;
    for (int sweep = 0; sweep < max_sweeps; ++sweep) {
        double dec = 0;
        for (size_t i = 0; i < s->B; ++i)
            if (s->mu[i] > 0)
                dec += update_bone(s, ws, T, i);
        st->sweeps++;
        if (dec < stop) {
            st->hit_cap = false;
            break;
        }
    }
}

/* ---- Four frames at once ------------------------------------------------
 *
 * skf_solver_frames_moments' frames are independent problems of the same
 * shape (the same bones, neighbours and M_ik; only C_i, U and the warm start
 * differ), and the decomposition solves hundreds of them per alternation. So
 * the sweeps run on LANES frames in lockstep, frame l in lane l of GCC/Clang
 * vector types: every lane performs exactly the IEEE operations, in exactly
 * the order, of update_bone / skf_horn_rotation_fast / skfi_solve_energy on
 * its frame (no contraction: the file is built -ffp-contract=off), and where
 * the scalar code branches per frame — a frame's sweeps stopping, the Newton
 * steps of the fast Horn fit, its eigenvector column, a non-finite update —
 * the lane is masked or finished on its own (the Jacobi fallback runs per
 * lane). So each frame's result is the scalar path's, bit for bit, whatever
 * frames share its group (tested: test_solve_lanes). The vectors, and the
 * kernel's AVX2 build chosen at run time: src/base/lanes.h. */
#define LANES SKF_LANES
#define INL SKF_INL
typedef skf_v4d v4d;
typedef skf_v4l v4l;
#define vset skf_vset
#define vsel skf_vsel
#define vabs skf_vabs
#define vfinite skf_vfinite
#define vany skf_vany

int skfi_solve_lanes_mode;

static INL void tm4(const v4d *T, const double *M, v4d P[3][4])
{
    for (int r = 0; r < 3; ++r) {
        const v4d a = T[r], b = T[3 + r], c2 = T[6 + r], d = T[9 + r];
        for (int c = 0; c < 4; ++c)
            P[r][c] = a * M[c] + b * M[4 + c] + c2 * M[8 + c] + d * M[12 + c];
    }
}

static INL v4d local_f4(const v4d *T, const double *M, const v4d *Q)
{
    v4d P[3][4];
    tm4(T, M, P);
    v4d e = vset(0);
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 3; ++r)
            e += (P[r][c] - 2 * Q[c * 3 + r]) * T[c * 3 + r];
    return e;
}

/* horn.c's minor3 / cofactor4 on lanes (same products, same order) */
static INL v4d minor3v(const v4d A[16], int r0, int r1, int r2, int c0, int c1, int c2)
{
#define X(r, c) A[(r) * 4 + (c)]
    return X(r0, c0) * (X(r1, c1) * X(r2, c2) - X(r1, c2) * X(r2, c1)) -
           X(r0, c1) * (X(r1, c0) * X(r2, c2) - X(r1, c2) * X(r2, c0)) +
           X(r0, c2) * (X(r1, c0) * X(r2, c1) - X(r1, c1) * X(r2, c0));
#undef X
}

static const int others3v[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};

static INL v4d cofactor4v(const v4d A[16], int r, int c)
{
    const int *rr = others3v[r], *cc = others3v[c];
    v4d m = minor3v(A, rr[0], rr[1], rr[2], cc[0], cc[1], cc[2]);
    return (r + c) % 2 ? -m : m;
}

/* skf_horn_rotation_fast on lanes; lanes it cannot decide (the scalar
 * code's fallbacks) get skf_horn_rotation, one lane at a time. */
static INL void horn_fast4(const v4d H[9], v4d R[9])
{
#define S(a, b) H[(a) * 3 + (b)]
    const v4d sxx = S(0, 0), sxy = S(0, 1), sxz = S(0, 2);
    const v4d syx = S(1, 0), syy = S(1, 1), syz = S(1, 2);
    const v4d szx = S(2, 0), szy = S(2, 1), szz = S(2, 2);
#undef S
    const v4d N[16] = {
        sxx + syy + szz, syz - szy,        szx - sxz,        sxy - syx,
        syz - szy,       sxx - syy - szz,  sxy + syx,        szx + sxz,
        szx - sxz,       sxy + syx,        -sxx + syy - szz, syz + szy,
        sxy - syx,       szx + sxz,        syz + szy,        -sxx - syy + szz,
    };
    v4d f2 = vset(0);
    for (int k = 0; k < 9; ++k)
        f2 += H[k] * H[k];
    v4l fall = ~((v4l)(f2 > vset(0)) & vfinite(f2));
    const v4d b = -2.0 * f2;
    const v4d detS = H[0] * (H[4] * H[8] - H[5] * H[7]) - H[1] * (H[3] * H[8] - H[5] * H[6]) +
                     H[2] * (H[3] * H[7] - H[4] * H[6]);
    const v4d c = -8.0 * detS;
    const v4d d = N[0] * cofactor4v(N, 0, 0) + N[1] * cofactor4v(N, 0, 1) +
                  N[2] * cofactor4v(N, 0, 2) + N[3] * cofactor4v(N, 0, 3);
    const v4d f3 = 3 * f2;
    v4d lam = vset(0);
    for (int l = 0; l < LANES; ++l)
        lam[l] = sqrt(f3[l]);
    v4l act = ~fall;
    for (int it = 0; it < 60 && vany(act); ++it) {
        v4d l2 = lam * lam;
        v4d p = (l2 + b) * l2 + c * lam + d, dp = (4 * l2 + 2 * b) * lam + c;
        act &= (v4l)(dp > vset(0));
        v4d step = p / dp;
        lam = vsel(act, lam - step, lam);
        act &= (v4l)(vabs(step) > 1e-15 * lam);
    }
    v4d A[16];
    for (int k = 0; k < 16; ++k)
        A[k] = N[k];
    for (int k = 0; k < 4; ++k)
        A[k * 5] -= lam;
    v4d diag[4];
    diag[0] = cofactor4v(A, 0, 0);
    diag[1] = cofactor4v(A, 1, 1);
    diag[2] = cofactor4v(A, 2, 2);
    diag[3] = cofactor4v(A, 3, 3);
    v4d tr = vset(0), babs = vabs(diag[0]);
    v4l best = {0, 0, 0, 0};
    for (int k = 0; k < 4; ++k) {
        tr += diag[k];
        v4d ak = vabs(diag[k]);
        v4l m = (v4l)(ak > babs);
        best = (m & (v4l){k, k, k, k}) | (~m & best);
        babs = vsel(m, ak, babs);
    }
    const v4d scale = 2 * lam;
    /* the column of adj(A) at each lane's best index: one vector column
     * per index some lane chose (usually one) */
    v4d qh[4] = {vset(0), vset(0), vset(0), vset(0)};
    for (int bc = 0; bc < 4; ++bc) {
        v4l m = (v4l)(best == (v4l){bc, bc, bc, bc});
        if (!vany(m))
            continue;
        for (int k = 0; k < 4; ++k)
            qh[k] = vsel(m, k == bc ? diag[bc] : cofactor4v(A, k, bc), qh[k]);
    }
    v4d n2 = qh[0] * qh[0] + qh[1] * qh[1] + qh[2] * qh[2] + qh[3] * qh[3];
    v4l good = vfinite(lam) & (v4l)(lam > vset(0)) &
               (v4l)(vabs(tr) > 1e-3 * scale * scale * scale) & (v4l)(n2 > vset(0)) & vfinite(n2);
    v4d sq = vset(0);
    for (int l = 0; l < LANES; ++l)
        sq[l] = sqrt(n2[l]);
    v4d inv = 1.0 / sq, r2 = vset(0);
    for (int k = 0; k < 4; ++k)
        qh[k] *= inv;
    for (int r = 0; r < 4; ++r) {
        v4d e = -lam * qh[r];
        for (int k = 0; k < 4; ++k)
            e += N[r * 4 + k] * qh[k];
        r2 += e * e;
    }
    good &= (v4l)(r2 <= 1e-24 * lam * lam);
    fall |= ~good;
    /* skf_quat_to_mat3 of Horn's (w, x, y, z) = (qh0, qh1, qh2, qh3) */
    const v4d x = qh[1], y = qh[2], z = qh[3], w = qh[0];
    const v4d xx = x * x, yy = y * y, zz = z * z;
    const v4d xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y, wz = w * z;
    R[0] = 1 - 2 * (yy + zz);
    R[1] = 2 * (xy + wz);
    R[2] = 2 * (xz - wy);
    R[3] = 2 * (xy - wz);
    R[4] = 1 - 2 * (xx + zz);
    R[5] = 2 * (yz + wx);
    R[6] = 2 * (xz + wy);
    R[7] = 2 * (yz - wx);
    R[8] = 1 - 2 * (xx + yy);
    if (vany(fall))
        for (int l = 0; l < LANES; ++l) {
            if (!fall[l])
                continue;
            double Hl[9], Rl[9];
            for (int k = 0; k < 9; ++k)
                Hl[k] = H[k][l];
            skf_horn_rotation(Hl, Rl);
            for (int k = 0; k < 9; ++k)
                R[k][l] = Rl[k];
        }
}

/* update_bone on lanes: lanes outside act keep their transform and add 0. */
static INL v4d update_bone4(const skf_solver *s, const v4d *C, v4d *T, size_t i, const v4l *act)
{
    v4d Qr[3][4];
    const v4d *Ci = C + 12 * i;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c)
            Qr[r][c] = Ci[c * 3 + r];
    const double *Mii = NULL;
    for (size_t at = s->nb_off[i]; at < s->nb_off[i + 1]; ++at) {
        size_t k = s->nb_bone[at];
        const double *M = s->pair_M + 16 * s->nb_pair[at];
        if (k == i) {
            Mii = M;
            continue;
        }
        v4d P[3][4];
        tm4(T + 12 * k, M, P);
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 4; ++c)
                Qr[r][c] -= P[r][c];
    }
    v4d Q[12];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c)
            Q[c * 3 + r] = Qr[r][c];
    const double mu = Mii[15];
    const double m[3] = {Mii[3], Mii[7], Mii[11]};
    v4d H[9], Tn[12];
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r)
            H[c * 3 + r] = Q[c * 3 + r] - Q[9 + r] * m[c] / mu;
    horn_fast4(H, Tn);
    for (int r = 0; r < 3; ++r)
        Tn[9 + r] = (Q[9 + r] - (Tn[r] * m[0] + Tn[3 + r] * m[1] + Tn[6 + r] * m[2])) / mu;
    v4d *Ti = T + 12 * i;
    v4l ok = *act;
    for (int e = 0; e < 12; ++e)
        ok &= vfinite(Tn[e]);
    v4d dec = local_f4(Ti, Mii, Q) - local_f4(Tn, Mii, Q);
    for (int e = 0; e < 12; ++e)
        Ti[e] = vsel(ok, Tn[e], Ti[e]);
    return vsel(ok & (v4l)(dec > vset(0)), dec, vset(0));
}

/* skfi_solve_energy on lanes */
static INL v4d energy4(const skf_solver *s, const v4d *C, const v4d *U, const v4d *T)
{
    v4d lin = vset(0), quad = vset(0);
    for (size_t i = 0; i < s->B; ++i) {
        const v4d *Ti = T + 12 * i, *Ci = C + 12 * i;
        for (int e = 0; e < 12; ++e)
            lin += Ti[e] * Ci[e];
        for (size_t at = s->nb_off[i]; at < s->nb_off[i + 1]; ++at) {
            size_t k = s->nb_bone[at];
            if (k < i)
                continue;
            const double *M = s->pair_M + 16 * s->nb_pair[at];
            const v4d *Tb = T + 12 * k;
            v4d t = vset(0);
            for (int c = 0; c < 4; ++c)
                for (int r = 0; r < 3; ++r) {
                    v4d tm = Ti[r] * M[c] + Ti[3 + r] * M[4 + c] + Ti[6 + r] * M[8 + c] +
                             Ti[9 + r] * M[12 + c];
                    t += tm * Tb[c * 3 + r];
                }
            quad += (k == i) ? t : 2 * t;
        }
    }
    return *U - 2 * lin + quad;
}

/* solver.c's shift_centre (massless false) on lanes */
static INL void shift4(const skf_solver *s, v4d *T, double sign)
{
    const double *c = s->centre;
    for (size_t i = 0; i < s->B; ++i) {
        if (!(s->mu[i] > 0))
            continue;
        v4d *Ti = T + 12 * i;
        for (int r = 0; r < 3; ++r)
            Ti[9 + r] += sign * (Ti[r] * c[0] + Ti[3 + r] * c[1] + Ti[6 + r] * c[2] - c[r]);
    }
}

/* One group: nl ≤ LANES frames (moments [nl*B*12], sq [nl], transforms
 * [nl*B*12] in/out, stats [nl] or NULL); scratch: 2·B·12 vectors. Lanes
 * past nl repeat the last frame and are dropped. */
static INL void group_body(const skf_solver *s, size_t nl, const double *moments, const double *sq,
                    double *transforms, skf_solve_stats *stats, v4d *scratch)
{
    const size_t B = s->B, B12 = B * 12;
    v4d *T = scratch, *C = scratch + B12, U = vset(0);
    for (size_t l = 0; l < LANES; ++l) {
        size_t src = l < nl ? l : nl - 1;
        for (size_t e = 0; e < B12; ++e) {
            T[e][l] = transforms[src * B12 + e];
            C[e][l] = moments[src * B12 + e];
        }
        U[l] = sq[src];
    }
    shift4(s, T, 1.0);
    const double stop = s->opt.tolerance * (double)s->n * s->diag * s->diag;
    v4l act = {-1, -1, -1, -1}, capped = act;
    int sweeps[LANES] = {0, 0, 0, 0};
    for (int sweep = 0; sweep < s->opt.max_sweeps && vany(act); ++sweep) {
        v4d dec = vset(0);
        for (size_t i = 0; i < B; ++i)
            if (s->mu[i] > 0)
                dec += update_bone4(s, C, T, i, &act);
        for (int l = 0; l < LANES; ++l)
            sweeps[l] += act[l] != 0;
        v4l done = act & (v4l)(dec < vset(stop));
        capped &= ~done;
        act &= ~done;
    }
    v4d E = energy4(s, C, &U, T);
    shift4(s, T, -1.0);
    for (size_t l = 0; l < nl; ++l) {
        for (size_t e = 0; e < B12; ++e)
            transforms[l * B12 + e] = T[e][l];
        if (stats) {
            skf_solve_stats *st = &stats[l];
            memset(st, 0, sizeof *st);
            st->energy_start = NAN;
            st->sweeps = sweeps[l];
            st->hit_cap = capped[l] != 0;
            st->energy = E[l];
            st->residual = st->rms = NAN;
        }
    }
}

static void group_generic(const skf_solver *s, size_t nl, const double *moments, const double *sq,
                          double *transforms, skf_solve_stats *stats, v4d *scratch)
{
    group_body(s, nl, moments, sq, transforms, stats, scratch);
}

#ifdef SKF_LANES_AVX2
SKF_TARGET_AVX2 static void group_avx2(const skf_solver *s, size_t nl,
                                                       const double *moments, const double *sq,
                                                       double *transforms, skf_solve_stats *stats,
                                                       v4d *scratch)
{
    group_body(s, nl, moments, sq, transforms, stats, scratch);
}
#endif

size_t skfi_solve_lanes_scratch(const skf_solver *s) { return 2 * s->B * 12 * sizeof(v4d) + sizeof(v4d); }

void skfi_solve_sweeps_lanes(const skf_solver *s, size_t nl, const double *moments, const double *sq,
                             double *transforms, skf_solve_stats *stats, void *scratch)
{
    /* 32-byte alignment for the vectors (the caller's block has one spare) */
    uintptr_t a = ((uintptr_t)scratch + 31) & ~(uintptr_t)31;
    v4d *sc = (v4d *)a;
#ifdef SKF_LANES_AVX2
    if (skfi_solve_lanes_mode != 2 && __builtin_cpu_supports("avx2")) {
        group_avx2(s, nl, moments, sq, transforms, stats, sc);
        return;
    }
#endif
    group_generic(s, nl, moments, sq, transforms, stats, sc);
}
