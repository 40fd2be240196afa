/* Per-vertex importance of the fit (skf_solve_rig.vertex_weight, docs/solver.md D8):
 *  1. c_j ∈ {0, 1, 2} solves like the rig where the c = 2 vertices are listed twice and the
 *     c = 0 ones not at all (same transforms within 1e-9, same residual within 1e-9 relative),
 *     on inexact targets (exact ones would be fitted whatever the weights);
 *  2. all c_j = 1 gives the NULL solve bit for bit;
 *  3. a negative or non-finite importance is refused, naming the vertex. */
#include "check.h"
#include "synth.h"

int main(void)
{
    synth_rng rng = {0x9e3779b97f4a7c15ull};
    synth_rig g;
    const size_t n = 600, B = 6;
    synth_rig_make(&g, &rng, n, B, 3, 1.0, NULL, 0);
    double T[12 * 6], *u = malloc(3 * n * sizeof *u);
    for (size_t b = 0; b < B; ++b)
        synth_rigid(&rng, 0.6, 0.3, T + 12 * b);
    synth_skin(&g, T, u);
    for (size_t e = 0; e < 3 * n; ++e) /* inexact: the weighting matters */
        u[e] += 0.02 * synth_range(&rng, -1, 1);
    double *c = malloc(n * sizeof *c);
    for (size_t j = 0; j < n; ++j)
        c[j] = j % 3 == 0 ? 2 : j % 3 == 1 ? 0 : 1;

    /* the listed rig: c = 2 twice, c = 0 dropped */
    size_t m = 0, nnz = 0;
    for (size_t j = 0; j < n; ++j)
        m += (size_t)c[j], nnz += (size_t)c[j] * (g.offsets[j + 1] - g.offsets[j]);
    double *rest = malloc(3 * m * sizeof *rest), *ud = malloc(3 * m * sizeof *ud), *w = malloc(nnz * sizeof *w);
    size_t *off = malloc((m + 1) * sizeof *off);
    uint32_t *bone = malloc(nnz * sizeof *bone);
    size_t r = 0, e = 0;
    off[0] = 0;
    for (size_t j = 0; j < n; ++j)
        for (int k = 0; k < (int)c[j]; ++k, ++r) {
            memcpy(rest + 3 * r, g.rest + 3 * j, 3 * sizeof *rest);
            memcpy(ud + 3 * r, u + 3 * j, 3 * sizeof *ud);
            for (size_t p = g.offsets[j]; p < g.offsets[j + 1]; ++p, ++e)
                bone[e] = g.bone[p], w[e] = g.weight[p];
            off[r + 1] = e;
        }
    skf_error err;
    skf_solve_options opt = {.threads = 1};
    skf_solve_rig wr = synth_rig_view(&g), lr = {m, rest, off, bone, w, B, NULL};
    wr.vertex_weight = c;
    skf_solver *sw = NULL, *sl = NULL;
    CHECK_MSG(skf_solver_new(&wr, &opt, &sw, &err) == SKF_OK, "%s", err.message);
    CHECK_MSG(skf_solver_new(&lr, &opt, &sl, &err) == SKF_OK, "%s", err.message);
    double Tw[12 * 6], Tl[12 * 6];
    for (size_t b = 0; b < B; ++b)
        skf_transform34_identity(Tw + 12 * b), skf_transform34_identity(Tl + 12 * b);
    skf_solve_stats stw, stl;
    CHECK(skf_solver_frame(sw, u, Tw, &stw, &err) == SKF_OK);
    CHECK(skf_solver_frame(sl, ud, Tl, &stl, &err) == SKF_OK);
    double d = synth_transform_diff(B, Tw, Tl, 1.0, sw);
    double rel = fabs(stw.residual - stl.residual) / stl.residual;
    printf("1. importance {0,1,2} vs vertices listed {0,1,2} times: transforms differ by %.3g, residual %.6g vs %.6g "
           "(relative %.3g); bone mass %.6g vs %.6g\n",
           d, stw.residual, stl.residual, rel, skf_solver_bone_mass(sw, 0), skf_solver_bone_mass(sl, 0));
    CHECK(d <= 1e-9);
    CHECK(rel <= 1e-9);
    CHECK(fabs(skf_solver_bone_mass(sw, 0) - skf_solver_bone_mass(sl, 0)) <= 1e-12 * skf_solver_bone_mass(sl, 0));

    /* 2. all ones == NULL, bit for bit */
    for (size_t j = 0; j < n; ++j)
        c[j] = 1;
    skf_solver *s1 = NULL, *s0 = NULL;
    skf_solve_rig r0 = synth_rig_view(&g);
    CHECK(skf_solver_new(&wr, &opt, &s1, &err) == SKF_OK);
    CHECK(skf_solver_new(&r0, &opt, &s0, &err) == SKF_OK);
    double T1[12 * 6], T0[12 * 6];
    for (size_t b = 0; b < B; ++b)
        skf_transform34_identity(T1 + 12 * b), skf_transform34_identity(T0 + 12 * b);
    CHECK(skf_solver_frame(s1, u, T1, NULL, &err) == SKF_OK);
    CHECK(skf_solver_frame(s0, u, T0, NULL, &err) == SKF_OK);
    printf("2. all importances 1 vs NULL: transforms %s\n", memcmp(T1, T0, sizeof T0) ? "differ" : "bit-identical");
    CHECK(memcmp(T1, T0, sizeof T0) == 0);

    /* 3. refused */
    c[17] = -1;
    skf_solver *bad = NULL;
    CHECK(skf_solver_new(&wr, &opt, &bad, &err) == SKF_ERR_ARGUMENT && !bad);
    printf("3. %s\n", err.message);
    CHECK(strstr(err.message, "vertex 17") != NULL);
    c[17] = NAN;
    CHECK(skf_solver_new(&wr, &opt, &bad, &err) == SKF_ERR_ARGUMENT && !bad);

    skf_solver_free(sw), skf_solver_free(sl), skf_solver_free(s1), skf_solver_free(s0);
    free(u), free(c), free(rest), free(ud), free(w), free(off), free(bone);
    synth_rig_free(&g);
    return skf_test_done();
}
