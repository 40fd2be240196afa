/* Joint Newton steps (src/solve/newton.c) against the bone sweeps on a
 * coupled, INEXACT problem: targets made by one rig (K ≤ 4 random weights
 * ∝ 1/d²), solved with a second rig on the same points and bones whose
 * weights differ (diffuse: ∝ 1/d over the 6 nearest bones) — what a transfer
 * onto autoweights sees. Asserts: Newton reaches an energy ≤ the sweeps' at
 * their cap (500) with ≤ 1/10 of the sweeps and ≤ 30 Newton iterations, E
 * never rises above the start nor along the iterations (budgets 1..40),
 * rotations stay orthonormal; exact data is still
 * recovered exactly and in one sweep (Newton never runs); 1 vs 2 threads
 * bit-identical; bones with μ = 0 kept bit for bit. */
#include "check.h"
#include "skinfit/solve.h"
#include "solve/synth.h"

static void identities(size_t B, double *T)
{
    for (size_t b = 0; b < B; ++b)
        skf_transform34_identity(T + 12 * b);
}

/* Rig B: same rest points and centres as g, weights ∝ 1/d over the K nearest
 * usable centres (bones in unused get nothing). */
static void diffuse_weights(const synth_rig *g, size_t K, const size_t *unused, size_t nu,
                            size_t *off, uint32_t *bone, double *weight)
{
    size_t m = 0;
    off[0] = 0;
    for (size_t j = 0; j < g->n; ++j) {
        const double *v = g->rest + 3 * j;
        size_t best[8];
        double bd[8];
        size_t nb = 0;
        for (size_t b = 0; b < g->B; ++b) {
            bool skip = false;
            for (size_t u = 0; u < nu; ++u)
                skip |= unused[u] == b;
            if (skip)
                continue;
            double d[3] = {v[0] - g->centres[3 * b], v[1] - g->centres[3 * b + 1],
                           v[2] - g->centres[3 * b + 2]};
            double dd = sqrt(skf_dot3(d, d)) + 1e-3;
            synth_keep_nearest(K, &nb, best, bd, b, dd);
        }
        double sum = 0;
        for (size_t i = 0; i < nb; ++i)
            sum += 1.0 / bd[i];
        for (size_t i = 0; i < nb; ++i) {
            bone[m] = (uint32_t)best[i];
            weight[m++] = (1.0 / bd[i]) / sum;
        }
        off[j + 1] = m;
    }
}

static double orthonormality(size_t B, const double *T, const skf_solver *s)
{
    double worst = 0;
    for (size_t b = 0; b < B; ++b) {
        if (!(skf_solver_bone_mass(s, b) > 0))
            continue;
        const double *R = T + 12 * b;
        for (int p = 0; p < 3; ++p)
            for (int q = 0; q < 3; ++q) {
                double d = R[3 * p] * R[3 * q] + R[3 * p + 1] * R[3 * q + 1] +
                           R[3 * p + 2] * R[3 * q + 2] - (p == q);
                worst = fmax(worst, fabs(d));
            }
    }
    return worst;
}

static void test_coupled_inexact(void)
{
    synth_rng r = {777};
    const size_t B = 30, n = 3000, F = 6, unused[1] = {11};
    synth_rig g;
    synth_rig_make(&g, &r, n, B, 4, 1.0, unused, 1);
    size_t *off = malloc((n + 1) * sizeof *off);
    uint32_t *bone = malloc(8 * n * sizeof *bone);
    double *weight = malloc(8 * n * sizeof *weight);
    diffuse_weights(&g, 8, unused, 1, off, bone, weight);
    skf_solve_rig rigB = {n, g.rest, off, bone, weight, B, NULL};

    double *targets = malloc(F * 3 * n * sizeof *targets);
    double *Tt = malloc(B * 12 * sizeof *Tt);
    for (size_t f = 0; f < F; ++f) {
        for (size_t b = 0; b < B; ++b)
            synth_rigid(&r, 1.0, 0.3, Tt + 12 * b);
        synth_skin(&g, Tt, targets + f * 3 * n);
    }

    double *Ts = malloc(B * 12 * sizeof *Ts), *Tn = malloc(B * 12 * sizeof *Tn);
    double *T2 = malloc(B * 12 * sizeof *T2);
    skf_error err;
    skf_solve_options os = {0}, on = {0}, on2 = {0};
    os.method = SKF_SOLVE_METHOD_SWEEPS;
    os.threads = 1;
    on.threads = 1;
    on2.threads = 2;
    skf_solver *ss = NULL, *sn = NULL, *sn2 = NULL;
    CHECK(skf_solver_new(&rigB, &os, &ss, &err) == SKF_OK);
    CHECK(skf_solver_new(&rigB, &on, &sn, &err) == SKF_OK);
    CHECK(skf_solver_new(&rigB, &on2, &sn2, &err) == SKF_OK);
    if (!ss || !sn || !sn2)
        return;
    const double diag = skf_solver_diagonal(sn);
    int sweeps_old = 0, sweeps_new = 0, iters_new = 0, capped_old = 0, max_iters = 0;
    double worst_ratio = 0, worst_ortho = 0, sum_gain = 0;
    for (size_t f = 0; f < F; ++f) {
        const double *u = targets + f * 3 * n;
        skf_solve_stats so, sn_st, s2;
        identities(B, Ts);
        identities(B, Tn);
        /* a recognisable keep-value for the weightless bone */
        Tn[12 * 11 + 9] = Ts[12 * 11 + 9] = 0.125;
        memcpy(T2, Tn, B * 12 * sizeof *T2);
        CHECK(skf_solver_frame(ss, u, Ts, &so, &err) == SKF_OK);
        CHECK(skf_solver_frame(sn, u, Tn, &sn_st, &err) == SKF_OK);
        CHECK(skf_solver_frame(sn2, u, T2, &s2, &err) == SKF_OK);
        CHECK(memcmp(Tn, T2, B * 12 * sizeof *Tn) == 0);
        CHECK(Tn[12 * 11 + 9] == 0.125 && Tn[12 * 11] == 1.0);
        /* the problem is coupled: the old method needs many sweeps */
        sweeps_old += so.sweeps;
        capped_old += so.hit_cap;
        sweeps_new += sn_st.sweeps;
        iters_new += sn_st.iterations;
        max_iters = sn_st.iterations > max_iters ? sn_st.iterations : max_iters;
        CHECK(!sn_st.hit_cap);
        CHECK(sn_st.energy <= sn_st.energy_start);
        /* Newton's energy ≤ the sweeps' (direct residuals; tiny slack for
         * rounding of two different summation paths near equality) */
        double ratio = sn_st.residual / so.residual;
        worst_ratio = fmax(worst_ratio, ratio);
        sum_gain += (so.residual - sn_st.residual) / (diag * diag * (double)n);
        CHECK(sn_st.residual <= so.residual * (1 + 1e-12));
        worst_ortho = fmax(worst_ortho, orthonormality(B, Tn, sn));
    }
    printf("coupled inexact (%zu bones, %zu v, %zu frames): sweeps method %.1f sweeps/frame "
           "(%d at the cap 500); newton %.1f sweeps + %.1f iterations/frame (max %d); "
           "residual ratio newton/sweeps ≤ %.12f, mean gain %.3g·N·diag²; orthonormality %.2g\n",
           B, n, F, sweeps_old / (double)F, capped_old, sweeps_new / (double)F,
           iters_new / (double)F, max_iters, worst_ratio, sum_gain / (double)F, worst_ortho);
    /* monotone: with NEWTON, max_sweeps bounds sweeps + iterations, so budget
     * k runs a prefix of budget k+1's path; E must never go up along it */
    {
        double prev = HUGE_VAL, worst_rise = 0;
        int newton_steps_seen = 0;
        for (int k = 1; k <= 40; ++k) {
            skf_solve_options ok = {0};
            ok.threads = 1;
            ok.max_sweeps = k;
            skf_solver *sk = NULL;
            CHECK(skf_solver_new(&rigB, &ok, &sk, &err) == SKF_OK);
            if (!sk)
                break;
            skf_solve_stats st;
            identities(B, Tn);
            CHECK(skf_solver_frame(sk, targets, Tn, &st, &err) == SKF_OK);
            newton_steps_seen += st.iterations > 0;
            worst_rise = fmax(worst_rise, (st.residual - prev) / st.residual);
            CHECK(st.residual <= prev * (1 + 1e-13));
            prev = st.residual;
            skf_solver_free(sk);
        }
        printf("monotone in the budget (1..40 sweeps + iterations): worst relative rise %.3g, "
               "%d budgets reached Newton\n", worst_rise, newton_steps_seen);
        CHECK(newton_steps_seen > 0);
    }
    CHECK(sweeps_old >= 50 * (int)F); /* really coupled (else the test proves nothing) */
    CHECK(sweeps_new * 10 <= sweeps_old);
    CHECK(max_iters <= 30);
    CHECK(worst_ortho < 1e-13);
    skf_solver_free(ss);
    skf_solver_free(sn);
    skf_solver_free(sn2);
    free(Ts);
    free(Tn);
    free(T2);
    free(Tt);
    free(targets);
    free(off);
    free(bone);
    free(weight);
    synth_rig_free(&g);
}

/* Exact data: Newton mode recovers the transforms exactly, from the affine
 * start in one sweep, and from a warm start 0.3 rad off with Newton steps. */
static void test_exact(void)
{
    synth_rng r = {31337};
    const size_t B = 25, n = 2000;
    synth_rig g;
    synth_rig_make(&g, &r, n, B, 4, 2.0, NULL, 0);
    skf_solve_rig rig = synth_rig_view(&g);
    skf_solve_options ow = {0};
    ow.start = SKF_SOLVE_START_WARM;
    ow.warmup_sweeps = -1; /* straight to Newton after the first sweep */
    ow.tolerance = 1e-26;  /* the default 1e-14·N·diag² bounds E, i.e. errors ~1e-7 */
    skf_solver *s = NULL, *sw = NULL;
    skf_error err;
    CHECK(skf_solver_new(&rig, NULL, &s, &err) == SKF_OK);
    CHECK(skf_solver_new(&rig, &ow, &sw, &err) == SKF_OK);
    if (!s || !sw)
        return;
    double *T0 = malloc(B * 12 * sizeof *T0), *T = malloc(B * 12 * sizeof *T);
    double *u = malloc(3 * n * sizeof *u);
    double worst_cold = 0, worst_warm = 0;
    int max_sweeps = 0, max_iters = 0;
    for (int t = 0; t < 5; ++t) {
        for (size_t b = 0; b < B; ++b)
            synth_rigid(&r, 1.0, 1.0, T0 + 12 * b);
        synth_skin(&g, T0, u);
        skf_solve_stats st;
        identities(B, T);
        CHECK(skf_solver_frame(s, u, T, &st, &err) == SKF_OK);
        CHECK(st.sweeps == 1 && st.iterations == 0);
        worst_cold = fmax(worst_cold, synth_transform_diff(B, T, T0, 2.0, s));
        /* warm start: every bone 0.3 rad off */
        for (size_t b = 0; b < B; ++b) {
            double D[12], *Tb = T + 12 * b;
            synth_rigid(&r, 0.3, 0.05, D);
            for (int c = 0; c < 4; ++c)
                for (int q = 0; q < 3; ++q)
                    Tb[c * 3 + q] = D[q] * T0[12 * b + c * 3] + D[3 + q] * T0[12 * b + c * 3 + 1] +
                                    D[6 + q] * T0[12 * b + c * 3 + 2] + (c == 3 ? D[9 + q] : 0);
        }
        CHECK(skf_solver_frame(sw, u, T, &st, &err) == SKF_OK);
        CHECK(!st.hit_cap);
        worst_warm = fmax(worst_warm, synth_transform_diff(B, T, T0, 2.0, sw));
        max_sweeps = st.sweeps > max_sweeps ? st.sweeps : max_sweeps;
        max_iters = st.iterations > max_iters ? st.iterations : max_iters;
    }
    printf("exact data, newton mode: cold (affine) error %.3g in 1 sweep; warm start 0.3 rad off: "
           "error %.3g, ≤ %d sweeps + %d iterations\n", worst_cold, worst_warm, max_sweeps,
           max_iters);
    CHECK(worst_cold < 1e-10);
    CHECK(worst_warm < 1e-9); /* sweeps alone stop at ~1e-6 here (linear convergence) */
    free(T0);
    free(T);
    free(u);
    skf_solver_free(s);
    skf_solver_free(sw);
    synth_rig_free(&g);
}

int main(void)
{
    test_coupled_inexact();
    test_exact();
    return skf_test_done();
}
