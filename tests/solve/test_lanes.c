/* The moment-form frames on vector lanes (bone_sweep.c "Four frames at
 * once") against the one-frame path: transforms, sweeps, caps and energies
 * bit for bit, on the AVX2 kernel (where the CPU has it) and on the generic
 * vectors, at 1 and 2 threads, with a frame count that leaves a partial
 * group, frames whose sweeps stop at different counts (some at the cap), a
 * bone without weight and a bone whose vertices lie on a line (its Horn
 * fits are degenerate: the fast fit hands them to Jacobi, lane by lane). */
#include "check.h"
#include "skinfit/solve.h"
#include "solve/solve_internal.h"
#include "solve/synth.h"

#include <float.h>

#define B 12
#define NV 900
#define F 11

int main(void)
{
    synth_rng r = {777};
    const size_t unused[1] = {5};
    synth_rig g;
    synth_rig_make(&g, &r, NV, B, 4, 1.3, unused, 1);
    /* bone 9's vertices on a line along x */
    size_t collinear = 0;
    for (size_t j = 0; j < NV; ++j)
        for (size_t p = g.offsets[j]; p < g.offsets[j + 1]; ++p)
            if (g.bone[p] == 9) {
                g.rest[3 * j + 1] = 0.4;
                g.rest[3 * j + 2] = 0.6;
                ++collinear;
                break;
            }
    CHECK(collinear >= 3);
    skf_solve_rig rig = synth_rig_view(&g);
    /* targets: per frame new transforms; noise growing with the frame */
    double *targets = malloc(F * 3 * NV * sizeof *targets);
    double *truth = malloc(F * B * 12 * sizeof *truth);
    for (size_t f = 0; f < F; ++f) {
        for (size_t b = 0; b < B; ++b)
            synth_rigid(&r, 1.2, 0.5, truth + (f * B + b) * 12);
        synth_skin(&g, truth + f * B * 12, targets + f * 3 * NV);
        for (size_t e = 0; e < 3 * NV; ++e)
            targets[f * 3 * NV + e] += synth_range(&r, -1, 1) * 0.002 * (double)f;
    }
    skf_error err;
    skf_solve_options opt = {0};
    opt.start = SKF_SOLVE_START_WARM;
    opt.skip_start_energy = true;
    opt.skip_residual = true;
    opt.fast_rotation = true;
    opt.method = SKF_SOLVE_METHOD_SWEEPS;
    opt.max_sweeps = 5;
    opt.tolerance = 1e-7;
    skf_solver *s0 = NULL;
    CHECK(skf_solver_new(&rig, &opt, &s0, &err) == SKF_OK);
    if (!s0)
        return skf_test_done();
    /* the caller's moments about the solver's centre */
    double o[3];
    skf_solver_centre(s0, o);
    double *mom = calloc(F * B * 12, sizeof *mom), *sq = calloc(F, sizeof *sq);
    for (size_t f = 0; f < F; ++f)
        for (size_t j = 0; j < NV; ++j) {
            const double *u = targets + f * 3 * NV + 3 * j, *v = g.rest + 3 * j;
            double uc[3] = {u[0] - o[0], u[1] - o[1], u[2] - o[2]};
            double vt[4] = {v[0] - o[0], v[1] - o[1], v[2] - o[2], 1};
            sq[f] += uc[0] * uc[0] + uc[1] * uc[1] + uc[2] * uc[2];
            for (size_t p = g.offsets[j]; p < g.offsets[j + 1]; ++p)
                for (int a = 0; a < 4; ++a)
                    for (int k = 0; k < 3; ++k)
                        mom[(f * B + g.bone[p]) * 12 + (size_t)(a * 3 + k)] +=
                            g.weight[p] * uc[k] * vt[a];
        }
    /* warm starts: the truth for even frames (few sweeps), identities for
     * odd ones (far: up to the cap) */
    double *start = malloc(F * B * 12 * sizeof *start);
    for (size_t f = 0; f < F; ++f)
        for (size_t b = 0; b < B; ++b) {
            if (f % 2 == 0)
                memcpy(start + (f * B + b) * 12, truth + (f * B + b) * 12, 12 * sizeof *start);
            else
                skf_transform34_identity(start + (f * B + b) * 12);
        }
    double *Tref = malloc(F * B * 12 * sizeof *Tref), *T = malloc(F * B * 12 * sizeof *T);
    skf_solve_stats sref[F], st[F];
    skfi_solve_lanes_mode = 1; /* the one-frame path */
    memcpy(Tref, start, F * B * 12 * sizeof *Tref);
    CHECK(skf_solver_frames_moments(s0, F, mom, sq, Tref, sref, &err) == SKF_OK);
    int smin = 99, smax = 0, capped = 0;
    for (size_t f = 0; f < F; ++f) {
        smin = sref[f].sweeps < smin ? sref[f].sweeps : smin;
        smax = sref[f].sweeps > smax ? sref[f].sweeps : smax;
        capped += sref[f].hit_cap;
    }
    printf("one-frame path: sweeps %d..%d per frame, %d of %d frames at the cap\n", smin, smax,
           capped, F);
    CHECK(smin < smax && capped > 0 && capped < F);
    const char *mode_name[3] = {"auto (AVX2 where the CPU has it)", "", "generic vectors"};
    for (int mode = 0; mode <= 2; mode += 2)
        for (int threads = 1; threads <= 2; ++threads) {
            skf_solve_options o2 = opt;
            o2.threads = threads;
            skf_solver *s = NULL;
            CHECK(skf_solver_new(&rig, &o2, &s, &err) == SKF_OK);
            if (!s)
                continue;
            skfi_solve_lanes_mode = mode;
            memcpy(T, start, F * B * 12 * sizeof *T);
            memset(st, 0xff, sizeof st);
            CHECK(skf_solver_frames_moments(s, F, mom, sq, T, st, &err) == SKF_OK);
            bool same_T = memcmp(T, Tref, F * B * 12 * sizeof *T) == 0, same_st = true;
            for (size_t f = 0; f < F; ++f)
                same_st &= st[f].sweeps == sref[f].sweeps && st[f].hit_cap == sref[f].hit_cap &&
                           memcmp(&st[f].energy, &sref[f].energy, sizeof st[f].energy) == 0 &&
                           isnan(st[f].energy_start) && isnan(st[f].residual) &&
                           st[f].iterations == 0 && !st[f].used_affine;
            printf("lanes, %s, %d thread%s: transforms bit-identical %d, stats %d\n",
                   mode_name[mode], threads, threads > 1 ? "s" : "", same_T, same_st);
            CHECK(same_T && same_st);
            /* and without stats */
            memcpy(T, start, F * B * 12 * sizeof *T);
            CHECK(skf_solver_frames_moments(s, F, mom, sq, T, NULL, &err) == SKF_OK);
            CHECK(memcmp(T, Tref, F * B * 12 * sizeof *T) == 0);
            skf_solver_free(s);
        }
    skfi_solve_lanes_mode = 0;
    /* the finiteness check (solver.c all_finite, by exponent bits): ±inf and
     * NaN anywhere, the last entry included, name their frame; the largest
     * finite number and subnormals pass */
    {
        const double bad[3] = {-INFINITY, INFINITY, NAN};
        const size_t at[3] = {(3 * B + 5) * 12 + 7, (7 * B + 2) * 12 + 1, F * B * 12 - 1};
        for (int t = 0; t < 3; ++t) {
            double keep = mom[at[t]];
            mom[at[t]] = bad[t];
            memcpy(T, start, F * B * 12 * sizeof *T);
            CHECK(skf_solver_frames_moments(s0, F, mom, sq, T, NULL, &err) == SKF_ERR_FORMAT);
            char want[32];
            snprintf(want, sizeof want, "frame %zu", at[t] / (B * 12));
            CHECK_MSG(strstr(err.message, want) != NULL, "%s\n", err.message);
            mom[at[t]] = keep;
        }
        double keep0 = start[5], keep1 = start[6];
        start[5] = DBL_MAX;
        start[6] = 4.9e-324;
        memcpy(T, start, F * B * 12 * sizeof *T);
        CHECK(skf_solver_frames_moments(s0, F, mom, sq, T, NULL, &err) == SKF_OK);
        start[5] = keep0;
        start[6] = keep1;
    }
    /* the fits are real: frame 0 (exact data, warm from the truth) ends at it */
    double worst = 0;
    for (size_t b = 0; b < B; ++b)
        if (b != 5 && b != 9) /* weightless; rotation about its line free */
            for (int e = 0; e < 9; ++e)
                worst = fmax(worst, fabs(Tref[b * 12 + e] - truth[b * 12 + e]));
    printf("frame 0 (exact data, warm from the truth): worst rotation entry error %.3g\n", worst);
    CHECK(worst < 1e-9);
    skf_solver_free(s0);
    free(targets);
    free(truth);
    free(mom);
    free(sq);
    free(start);
    free(Tref);
    free(T);
    synth_rig_free(&g);
    return skf_test_done();
}
