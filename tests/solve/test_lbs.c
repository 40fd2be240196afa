/* Free-mode solver on synthetic exact LBS: single bone, cold (affine) start,
 * warm start, non-sequential pose, bones without weight, control-style
 * residual, clip API determinism across thread counts, weight updates. */
#include "check.h"
#include "skinfit/solve.h"
#include "solve/synth.h"

static void identities(size_t B, double *T)
{
    for (size_t b = 0; b < B; ++b)
        skf_transform34_identity(T + 12 * b);
}

static void test_single_bone(void)
{
    synth_rng r = {42};
    synth_rig g;
    synth_rig_make(&g, &r, 300, 1, 1, 3.0, NULL, 0);
    skf_solve_rig rig = synth_rig_view(&g);
    skf_solver *s = NULL;
    skf_error err;
    CHECK(skf_solver_new(&rig, NULL, &s, &err) == SKF_OK);
    double worst = 0;
    for (int t = 0; t < 20; ++t) {
        double T0[12], T[12], u[3 * 300];
        synth_rigid(&r, M_PI, 5, T0);
        synth_skin(&g, T0, u);
        skf_transform34_identity(T);
        skf_solve_stats st;
        CHECK(skf_solver_frame(s, u, T, &st, &err) == SKF_OK);
        worst = fmax(worst, synth_transform_diff(1, T, T0, 3.0, s));
        CHECK(st.sweeps <= 2);
    }
    printf("single bone: worst transform error %.3g\n", worst);
    CHECK(worst < 1e-12);
    skf_solver_free(s);
    synth_rig_free(&g);
}

/* 40 bones, 3000 vertices, ≤ 4 influences; bones 7 and 23 carry no weight. */
static void test_exact_lbs(void)
{
    synth_rng r = {2024};
    const size_t B = 40, n = 3000, unused[2] = {7, 23};
    const double scale = 1.7;
    synth_rig g;
    synth_rig_make(&g, &r, n, B, 4, scale, unused, 2);
    skf_solve_rig rig = synth_rig_view(&g);
    skf_solver *s = NULL;
    skf_error err;
    CHECK(skf_solver_new(&rig, NULL, &s, &err) == SKF_OK);
    if (!s)
        return;
    const double diag = skf_solver_diagonal(s);
    CHECK(skf_solver_bone_mass(s, 7) == 0 && skf_solver_bone_mass(s, 23) == 0);
    CHECK(skf_solver_bone_mass(s, 0) > 0);

    double *T0 = malloc(B * 12 * sizeof *T0), *T = malloc(B * 12 * sizeof *T);
    double *u = malloc(3 * n * sizeof *u);
    /* keep-value for the weightless bones: a recognisable transform */
    double keep[12];
    synth_rigid(&r, 1.0, 1.0, keep);

    /* cold start (identity in) → affine start → exact */
    double worst_cold = 0, worst_res = 0;
    int max_sweeps_cold = 0;
    for (int t = 0; t < 5; ++t) {
        for (size_t b = 0; b < B; ++b)
            synth_rigid(&r, M_PI, scale, T0 + 12 * b);
        synth_skin(&g, T0, u);
        identities(B, T);
        memcpy(T + 12 * 7, keep, sizeof keep);
        memcpy(T + 12 * 23, keep, sizeof keep);
        skf_solve_stats st;
        CHECK(skf_solver_frame(s, u, T, &st, &err) == SKF_OK);
        CHECK(st.used_affine);
        worst_cold = fmax(worst_cold, synth_transform_diff(B, T, T0, diag, s));
        worst_res = fmax(worst_res, sqrt(st.residual / (double)n) / diag);
        max_sweeps_cold = st.sweeps > max_sweeps_cold ? st.sweeps : max_sweeps_cold;
        /* μ = 0 bones keep the transform passed in, bit for bit */
        CHECK(memcmp(T + 12 * 7, keep, sizeof keep) == 0);
        CHECK(memcmp(T + 12 * 23, keep, sizeof keep) == 0);
    }
    printf("exact LBS, cold start: worst transform error %.3g, worst rms/diag %.3g, sweeps ≤ %d\n",
           worst_cold, worst_res, max_sweeps_cold);
    CHECK(worst_cold < 1e-6);
    /* control-style: exact data lands on zero to ~1e-10 of the diagonal or better */
    CHECK(worst_res < 1e-10);

    /* warm start only, from a perturbed solution (every bone off by up to 0.3 rad) */
    skf_solve_options wopt = {0};
    wopt.start = SKF_SOLVE_START_WARM;
    skf_solver *sw = NULL;
    CHECK(skf_solver_new(&rig, &wopt, &sw, &err) == SKF_OK);
    double worst_warm = 0;
    int max_sweeps_warm = 0;
    for (int t = 0; t < 3; ++t) {
        for (size_t b = 0; b < B; ++b)
            synth_rigid(&r, M_PI, scale, T0 + 12 * b);
        synth_skin(&g, T0, u);
        for (size_t b = 0; b < B; ++b) {
            double P[12], R[9];
            synth_rigid(&r, 0.3, 0.1 * scale, P);
            /* T = P ∘ T0 */
            for (int c = 0; c < 3; ++c)
                for (int row = 0; row < 3; ++row)
                    R[c * 3 + row] = P[row] * T0[12 * b + c * 3] + P[3 + row] * T0[12 * b + c * 3 + 1] +
                                     P[6 + row] * T0[12 * b + c * 3 + 2];
            memcpy(T + 12 * b, R, sizeof R);
            skf_transform34_apply(P, T0 + 12 * b + 9, T + 12 * b + 9);
        }
        double Tin[12];
        memcpy(Tin, T + 12 * 7, sizeof Tin);
        skf_solve_stats st;
        CHECK(skf_solver_frame(sw, u, T, &st, &err) == SKF_OK);
        CHECK(!st.used_affine);
        CHECK(!st.hit_cap);
        CHECK(st.energy <= st.energy_start);
        CHECK(memcmp(T + 12 * 7, Tin, sizeof Tin) == 0);
        worst_warm = fmax(worst_warm, synth_transform_diff(B, T, T0, diag, s));
        max_sweeps_warm = st.sweeps > max_sweeps_warm ? st.sweeps : max_sweeps_warm;
    }
    printf("exact LBS, warm start (0.3 rad off): worst transform error %.3g, sweeps ≤ %d\n",
           worst_warm, max_sweeps_warm);
    CHECK(worst_warm < 1e-6);
    skf_solver_free(sw);

    /* non-sequential pose: warm start from an unrelated pose, default (best) start */
    double worst_jump = 0;
    for (size_t b = 0; b < B; ++b)
        synth_rigid(&r, M_PI, scale, T0 + 12 * b);
    synth_skin(&g, T0, u);
    skf_solve_stats st;
    CHECK(skf_solver_frame(s, u, T, &st, &err) == SKF_OK);
    worst_jump = synth_transform_diff(B, T, T0, diag, s);
    printf("non-sequential pose: transform error %.3g, %d sweeps\n", worst_jump, st.sweeps);
    CHECK(worst_jump < 1e-6);

    /* non-finite target → error naming the vertex */
    u[3 * 17 + 1] = NAN;
    CHECK(skf_solver_frame(s, u, T, &st, &err) == SKF_ERR_FORMAT);
    CHECK(strstr(err.message, "vertex 17") != NULL);

    free(T0);
    free(T);
    free(u);
    skf_solver_free(s);
    synth_rig_free(&g);
}

/* Inexact data (noise): sweeps decrease E, stop by the absolute test, and the
 * clip call is bit-identical for 1 and 2 threads. */
static void test_clip_determinism(void)
{
    synth_rng r = {99};
    const size_t B = 30, n = 2500, F = 20;
    synth_rig g;
    synth_rig_make(&g, &r, n, B, 4, 1.0, NULL, 0);
    skf_solve_rig rig = synth_rig_view(&g);
    double *targets = malloc(F * 3 * n * sizeof *targets);
    double *T0 = malloc(B * 12 * sizeof *T0), *V = malloc(B * 3 * sizeof *V);
    for (size_t b = 0; b < B; ++b) {
        synth_rigid(&r, 0.5, 0.3, T0 + 12 * b);
        for (int k = 0; k < 3; ++k)
            V[3 * b + k] = synth_range(&r, -0.05, 0.05);
    }
    for (size_t f = 0; f < F; ++f) {
        /* a smooth motion: translations drift, then noise of 1 % of the size */
        double Tf[12 * 30];
        memcpy(Tf, T0, sizeof Tf);
        for (size_t b = 0; b < B; ++b)
            for (int k = 0; k < 3; ++k)
                Tf[12 * b + 9 + k] += (double)f * V[3 * b + k];
        synth_skin(&g, Tf, targets + f * 3 * n);
        for (size_t e = 0; e < 3 * n; ++e)
            targets[f * 3 * n + e] += synth_range(&r, -0.01, 0.01);
    }
    double *Ta = malloc(F * B * 12 * sizeof *Ta), *Tb = malloc(F * B * 12 * sizeof *Tb);
    skf_solve_stats *sa = malloc(F * sizeof *sa), *sb = malloc(F * sizeof *sb);
    skf_error err;
    for (int threads = 1; threads <= 2; ++threads) {
        skf_solve_options opt = {0};
        opt.threads = threads;
        opt.chunk_frames = 6;
        skf_solver *s = NULL;
        CHECK(skf_solver_new(&rig, &opt, &s, &err) == SKF_OK);
        double *T = threads == 1 ? Ta : Tb;
        identities(B, T);
        CHECK(skf_solver_clip(s, F, targets, T, threads == 1 ? sa : sb, NULL, &err) == SKF_OK);
        skf_solver_free(s);
    }
    CHECK(memcmp(Ta, Tb, F * B * 12 * sizeof *Ta) == 0);
    {
        /* a NaN in frame 13 is reported with its frame and vertex */
        skf_solve_options opt = {0};
        opt.threads = 2;
        skf_solver *s = NULL;
        CHECK(skf_solver_new(&rig, &opt, &s, &err) == SKF_OK);
        double keep = targets[13 * 3 * n + 3 * 77 + 2];
        targets[13 * 3 * n + 3 * 77 + 2] = NAN;
        identities(B, Tb);
        CHECK(skf_solver_clip(s, F, targets, Tb, NULL, NULL, &err) == SKF_ERR_FORMAT);
        CHECK(strstr(err.message, "frame 13: target: vertex 77") != NULL);
        printf("NaN in a clip: %s\n", err.message);
        targets[13 * 3 * n + 3 * 77 + 2] = keep;
        skf_solver_free(s);
    }
    double mean_sweeps = 0, worst_rms = 0;
    int capped = 0;
    for (size_t f = 0; f < F; ++f) {
        CHECK(sa[f].residual == sb[f].residual);
        CHECK(sa[f].energy <= sa[f].energy_start * (1 + 1e-12));
        /* moment form and direct residual agree away from zero */
        CHECK(fabs(sa[f].energy - sa[f].residual) <= 1e-8 * sa[f].residual);
        mean_sweeps += sa[f].sweeps / (double)F;
        capped += sa[f].hit_cap;
        worst_rms = fmax(worst_rms, sa[f].rms);
    }
    /* noise uniform ±0.01 per coordinate: rms ≈ 0.01·sqrt(3)/sqrt(3)·… ≤ 0.0175 */
    printf("noisy clip: %zu frames, mean sweeps %.1f, capped %d, worst rms %.4g; 1 vs 2 threads "
           "bit-identical\n", F, mean_sweeps, capped, worst_rms);
    CHECK(worst_rms < 0.0175);
    CHECK(capped == 0);

    /* independent-frames API gives the same as one-by-one frame calls */
    skf_solver *s = NULL;
    skf_solve_options opt = {0};
    opt.threads = 2;
    CHECK(skf_solver_new(&rig, &opt, &s, &err) == SKF_OK);
    memcpy(Tb, Ta, F * B * 12 * sizeof *Ta);
    CHECK(skf_solver_frames(s, F, targets, Tb, NULL, &err) == SKF_OK);
    bool same = true;
    for (size_t f = 0; f < F; ++f) {
        double T[12 * 30];
        memcpy(T, Ta + f * B * 12, sizeof T);
        CHECK(skf_solver_frame(s, targets + f * 3 * n, T, NULL, &err) == SKF_OK);
        same &= memcmp(T, Tb + f * B * 12, sizeof T) == 0;
    }
    CHECK(same);

    /* moments summed by the caller (decompose's fused pass) about the
     * solver's centre: the same transforms as from the targets, up to the
     * order of the sums */
    {
        double o[3];
        skf_solver_centre(s, o);
        double *mom = calloc(F * B * 12, sizeof *mom), *sq = calloc(F, sizeof *sq);
        double *Tc = malloc(F * B * 12 * sizeof *Tc);
        for (size_t f = 0; f < F; ++f)
            for (size_t j = 0; j < n; ++j) {
                const double *u = targets + f * 3 * n + 3 * j, *v = g.rest + 3 * j;
                double uc[3] = {u[0] - o[0], u[1] - o[1], u[2] - o[2]};
                double vt[4] = {v[0] - o[0], v[1] - o[1], v[2] - o[2], 1};
                sq[f] += uc[0] * uc[0] + uc[1] * uc[1] + uc[2] * uc[2];
                for (size_t p = g.offsets[j]; p < g.offsets[j + 1]; ++p)
                    for (int a = 0; a < 4; ++a)
                        for (int r = 0; r < 3; ++r)
                            mom[(f * B + g.bone[p]) * 12 + (size_t)(a * 3 + r)] +=
                                g.weight[p] * uc[r] * vt[a];
            }
        memcpy(Tc, Ta, F * B * 12 * sizeof *Ta);
        skf_solve_stats *sm = malloc(F * sizeof *sm);
        CHECK(skf_solver_frames_moments(s, F, mom, sq, Tc, sm, &err) == SKF_OK);
        double worst = 0;
        for (size_t e = 0; e < F * B * 12; ++e)
            worst = fmax(worst, fabs(Tc[e] - Tb[e]));
        printf("frames from caller's moments: worst transform difference %.3g; residual %g\n",
               worst, sm[0].residual);
        CHECK(worst < 1e-10);
        CHECK(isnan(sm[0].residual) && sm[0].energy >= 0);
        /* skip_start_energy with warm starts: the same transforms and final
         * energies bit for bit, energy_start not computed (NaN) */
        {
            skf_solve_options o2 = {0};
            o2.threads = 2;
            o2.start = SKF_SOLVE_START_WARM;
            skf_solver *sw = NULL, *sk = NULL;
            CHECK(skf_solver_new(&rig, &o2, &sw, &err) == SKF_OK);
            o2.skip_start_energy = true;
            CHECK(skf_solver_new(&rig, &o2, &sk, &err) == SKF_OK);
            double *Tw = malloc(F * B * 12 * sizeof *Tw), *Tk = malloc(F * B * 12 * sizeof *Tk);
            skf_solve_stats *sw_st = malloc(F * sizeof *sw_st), *sk_st = malloc(F * sizeof *sk_st);
            memcpy(Tw, Ta, F * B * 12 * sizeof *Ta);
            memcpy(Tk, Ta, F * B * 12 * sizeof *Ta);
            CHECK(skf_solver_frames_moments(sw, F, mom, sq, Tw, sw_st, &err) == SKF_OK);
            CHECK(skf_solver_frames_moments(sk, F, mom, sq, Tk, sk_st, &err) == SKF_OK);
            bool same_T = memcmp(Tw, Tk, F * B * 12 * sizeof *Tw) == 0, same_E = true,
                 nan_start = true, finite_start = true;
            for (size_t f = 0; f < F; ++f) {
                same_E &= sw_st[f].energy == sk_st[f].energy && sw_st[f].sweeps == sk_st[f].sweeps;
                nan_start &= isnan(sk_st[f].energy_start) != 0;
                finite_start &= isfinite(sw_st[f].energy_start) != 0;
            }
            printf("skip_start_energy: same transforms %d, same energies and sweeps %d, "
                   "energy_start NaN %d (computed without the flag %d)\n", same_T, same_E,
                   nan_start, finite_start);
            CHECK(same_T && same_E && nan_start && finite_start);
            free(Tw);
            free(Tk);
            free(sw_st);
            free(sk_st);
            skf_solver_free(sw);
            skf_solver_free(sk);
        }
        /* a non-finite moment names the frame */
        mom[(3 * B + 1) * 12 + 4] = NAN;
        CHECK(skf_solver_frames_moments(s, F, mom, sq, Tc, NULL, &err) == SKF_ERR_FORMAT);
        CHECK(strstr(err.message, "frame 3") != NULL);
        printf("NaN moment: %s\n", err.message);
        free(mom);
        free(sq);
        free(Tc);
        free(sm);
    }

    /* weights update: new weights (every vertex → its first bone only) give
     * the same result as a fresh solver with those weights */
    size_t *off1 = malloc((n + 1) * sizeof *off1);
    for (size_t j = 0; j <= n; ++j)
        off1[j] = j;
    uint32_t *b1 = malloc(n * sizeof *b1);
    double *w1 = malloc(n * sizeof *w1);
    for (size_t j = 0; j < n; ++j) {
        b1[j] = g.bone[g.offsets[j]];
        w1[j] = 1.0;
    }
    CHECK(skf_solver_update_weights(s, off1, b1, w1, &err) == SKF_OK);
    skf_solve_rig rig1 = {n, g.rest, off1, b1, w1, B, NULL};
    skf_solver *s1 = NULL;
    CHECK(skf_solver_new(&rig1, &opt, &s1, &err) == SKF_OK);
    double Tx[12 * 30], Ty[12 * 30];
    identities(B, Tx);
    identities(B, Ty);
    CHECK(skf_solver_frame(s, targets, Tx, NULL, &err) == SKF_OK);
    CHECK(skf_solver_frame(s1, targets, Ty, NULL, &err) == SKF_OK);
    CHECK(memcmp(Tx, Ty, sizeof Tx) == 0);
    skf_solver_free(s1);
    skf_solver_free(s);
    free(off1);
    free(b1);
    free(w1);
    free(targets);
    free(T0);
    free(V);
    free(Ta);
    free(Tb);
    free(sa);
    free(sb);
    synth_rig_free(&g);
}

static void test_bad_rig(void)
{
    double rest[6] = {0, 0, 0, 1, 0, 0};
    size_t off[3] = {0, 1, 2};
    uint32_t bone[2] = {0, 5};
    double w[2] = {1, 1};
    skf_solve_rig rig = {2, rest, off, bone, w, 2, NULL};
    skf_solver *s = NULL;
    skf_error err;
    CHECK(skf_solver_new(&rig, NULL, &s, &err) == SKF_ERR_ARGUMENT);
    CHECK(s == NULL);
    CHECK(strstr(err.message, "vertex 1") != NULL);
    printf("bad rig: %s\n", err.message);
}

int main(void)
{
    test_single_bone();
    test_exact_lbs();
    test_clip_determinism();
    test_bad_rig();
    return skf_test_done();
}
