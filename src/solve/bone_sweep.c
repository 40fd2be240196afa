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

#include <math.h>
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
