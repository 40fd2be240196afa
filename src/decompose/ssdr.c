/* Skinning decomposition: the alternation.
 *
 * B. H. Le and Z. Deng, "Smooth Skinning Decomposition with Rigid Bones",
 * ACM TOG 31(6), 2012 (SSDR): after an initial clustering into rigid bones
 * (init_split.c, or proxy bones by mean shift, init_meanshift.c after
 * D. L. James and C. D. Twigg, "Skinning Mesh Animations", SIGGRAPH 2005),
 * alternate (1) the per-vertex weights with the transforms fixed (weights.c)
 * and (2) the per-frame rigid bone transforms with the weights fixed — the
 * weighted absolute-orientation sweeps of skinfit/solve.h (Horn 1987 per
 * bone, moment sums, Gauss–Seidel over bones) warm-started from the previous
 * iterate, each frame's sweeps ended early once they stall (SWEEP_TOL) —
 * until the stopping rule below holds (the best energy's relative decrease
 * over a window, or an accuracy floor), or the cap. On request
 * (gauss_newton), in the alternation's tail every few alternations start
 * from a joint Gauss–Newton step on both blocks (gauss_newton.c), kept only
 * when the alternation from it ends below the best energy. A bone that loses its
 * skin on the way is re-seeded once (reseed.c). The result object and its metrics live in
 * decomposition.c.
 */
#include "decompose_internal.h"
#include "skinfit/solve.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <omp.h>
#include <string.h>
#include <time.h>

#define INIT_FRAMES 32
/* Bone sweeps per alternation: at most 5, ended early by this fraction of the
 * initial mean energy per frame (Bone_Anim 5/10/20 bones: 1.2–1.3 sweeps per
 * frame instead of 5, 4–5× fewer Horn fits, RMS within 1.1 % of 5 full
 * sweeps; docs/bench.md) */
#define SWEEP_TOL 1e-3
/* Anderson acceleration (opt-in) starts once an alternation lowers the best
 * energy by less than this fraction: mixing from the first iterations, far
 * from the linear regime, slowed Bone_Anim at 5 bones (E 164 instead of 151
 * at iteration 3); docs/bench.md */
#define ANDERSON_START 0.02
/* Gauss–Newton steps (opt.gauss_newton) start once an alternation lowers
 * the best energy by less than this fraction (the alternation's tail, where
 * it crawls; before it the plain steps are large and the step's linear
 * model of the rotations is poor); each is GN_CG conjugate-gradient steps
 * on normal equations damped by GN_LAMBDA (relative to their blocks'
 * diagonals). Bone_Anim 5 / 10 / 20 bones: docs/bench.md 2026-12-04. */
#define GN_START 0.02
#define GN_CG 4
#define GN_LAMBDA 1e-3
/* ... adapted (K. Levenberg; D. W. Marquardt): ×GN_LAMBDA_UP after a
 * rejected step, ÷GN_LAMBDA_DOWN after a kept one, within [MIN, MAX] */
#define GN_LAMBDA_UP 10.0
#define GN_LAMBDA_DOWN 3.0
#define GN_LAMBDA_MIN 1e-4
#define GN_LAMBDA_MAX 1e4

/* CPU seconds of the calling thread (the weight step's serial share) */
static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void joint_positions(skf_decomposition *d, const uint32_t *labels)
{
    size_t N = d->vertex_count, K = d->max_influences, B = d->bone_count;
    double *acc = d->joint_rest;
    memset(acc, 0, 3 * B * sizeof *acc);
    double *ws = skf_calloc(B, sizeof *ws);
    if (!ws)
        return;
    for (size_t j = 0; j < N; ++j)
        for (size_t k = 0; k < K; ++k) {
            double wk = d->weight[j * K + k];
            if (wk <= 0)
                continue;
            uint32_t b = d->weight_bone[j * K + k];
            for (int a = 0; a < 3; ++a)
                acc[3 * b + a] += wk * d->rest[3 * j + a];
            ws[b] += wk;
        }
    for (size_t b = 0; b < B; ++b) {
        if (ws[b] > 0) {
            for (int a = 0; a < 3; ++a)
                acc[3 * b + a] /= ws[b];
        } else {
            /* no weight: centroid of its initial cluster, else the origin */
            size_t n = 0;
            for (size_t j = 0; j < N; ++j)
                if (labels[j] == b) {
                    for (int a = 0; a < 3; ++a)
                        acc[3 * b + a] += d->rest[3 * j + a];
                    ++n;
                }
            if (n)
                for (int a = 0; a < 3; ++a)
                    acc[3 * b + a] /= (double)n;
        }
    }
    skf_free(ws);
}

/* The transform step's solver options (the alternation and the final
 * polish): warm-started bone sweeps, at most 5 per frame (the alternation
 * needs descent, not a converged frame), the energy from the moment form (no
 * residual pass) and only at the end (the warm start's is not needed), Horn
 * fits by the characteristic polynomial. */
static skf_solve_options sweep_options(const skf_decompose_options *opt)
{
    skf_solve_options so;
    memset(&so, 0, sizeof so);
    so.start = SKF_SOLVE_START_WARM;
    so.max_sweeps = 5;
    so.method = SKF_SOLVE_METHOD_SWEEPS;
    so.threads = opt->threads;
    so.skip_residual = true;
    so.skip_start_energy = true;
    so.fast_rotation = true;
    so.limits = opt->limits;
    return so;
}

skf_status skf_decompose(size_t N, size_t F, const double *frames, const double *rest,
                         size_t T, const uint32_t *tris, const skf_decompose_options *opt_in,
                         skf_decomposition **out, skf_error *err)
{
    *out = NULL;
    skf_decompose_options opt;
    memset(&opt, 0, sizeof opt);
    if (opt_in)
        opt = *opt_in;
    size_t K = opt.max_influences ? opt.max_influences : 4;
    size_t iters = opt.max_iterations ? opt.max_iterations : SKF_DECOMPOSE_DEFAULT_MAX_ITERATIONS;
    double tol = opt.tolerance > 0 ? opt.tolerance : SKF_DECOMPOSE_DEFAULT_TOLERANCE;
    size_t patience = opt.patience ? opt.patience : SKF_DECOMPOSE_DEFAULT_PATIENCE;
    if (N == 0 || F == 0)
        return skf_fail(err, SKF_ERR_ARGUMENT, "decompose: the animation has %zu vertices and %zu "
                        "frames (need at least one of each)", N, F);
    if (F == 1)
        return skf_fail(err, SKF_ERR_ARGUMENT, "decompose: the animation has 1 frame: bones are "
                        "told apart by their motion, so at least 2 frames are needed");
    if (K > 16) {
        skf_fail(err, SKF_ERR_ARGUMENT, "decompose: max_influences %zu (at most 16)", K);
        skf_error_set_kind(err, SKF_KIND_OPTION, "skf_decompose_options.max_influences");
        return SKF_ERR_ARGUMENT;
    }
    /* counts that size histories allocated up front (iters + 1 entries:
     * SIZE_MAX would wrap to an empty array) */
    const struct {
        size_t v;
        const char *field;
    } counts[] = {{iters, "skf_decompose_options.max_iterations"},
                  {patience, "skf_decompose_options.patience"},
                  {opt.skeleton_rounds, "skf_decompose_options.skeleton_rounds"},
                  {opt.max_skeleton_rounds, "skf_decompose_options.max_skeleton_rounds"}};
    for (size_t q = 0; q < sizeof counts / sizeof counts[0]; ++q)
        if (counts[q].v > SKF_DECOMPOSE_MAX_ROUNDS) {
            const char *name = strrchr(counts[q].field, '.') + 1;
            skf_fail(err, SKF_ERR_ARGUMENT, "decompose: %s %zu (at most %zu)", name, counts[q].v,
                     SKF_DECOMPOSE_MAX_ROUNDS);
            skf_error_set_kind(err, SKF_KIND_OPTION, counts[q].field);
            return SKF_ERR_ARGUMENT;
        }
    if (opt.gauss_newton > 0 && opt.anderson > 0) {
        skf_fail(err, SKF_ERR_ARGUMENT, "decompose: anderson and gauss_newton exclude each other (the "
                 "steps would leave Anderson's history describing another map)");
        skf_error_set_kind(err, SKF_KIND_OPTION, "skf_decompose_options.gauss_newton");
        return SKF_ERR_ARGUMENT;
    }
    if (!(opt.weight_relaxation >= 0 && opt.weight_relaxation <= 1)) {
        skf_fail(err, SKF_ERR_ARGUMENT, "decompose: weight_relaxation %g (need 0 ... 1)",
                 opt.weight_relaxation);
        skf_error_set_kind(err, SKF_KIND_OPTION, "skf_decompose_options.weight_relaxation");
        return SKF_ERR_ARGUMENT;
    }
    if (!rest)
        rest = frames;
    for (size_t k = 0; k < 3 * N * F; ++k)
        if (!isfinite(frames[k]))
            return skf_fail(err, SKF_ERR_FORMAT, "decompose: frame %zu vertex %zu: not finite",
                            k / (3 * N), k / 3 % N);
    for (size_t k = 0; k < 3 * N; ++k)
        if (!isfinite(rest[k]))
            return skf_fail(err, SKF_ERR_FORMAT, "decompose: rest vertex %zu: not finite", k / 3);
    {
        size_t f = 0;
        while (f < F && !memcmp(frames + f * 3 * N, rest, 3 * N * sizeof *rest))
            ++f;
        if (f == F)
            skf_warn(opt.warnings, "decompose: the animation does not move (every frame equals the "
                     "rest pose): every bone stays the identity");
    }
    size_t *adj_off = NULL;
    uint32_t *adj = NULL, *rep_of = NULL;
    if (tris && T) {
        for (size_t t = 0; t < 3 * T; ++t)
            if (tris[t] >= N)
                return skf_fail(err, SKF_ERR_ARGUMENT, "decompose: triangle %zu: vertex %u out "
                                "of range (%zu vertices)", t / 3, tris[t], N);
        if (!skfi_decompose_adjacency(N, T, tris, rest ? rest : frames, &adj_off, &adj, &rep_of))
            return skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory");
    }
    int saved_threads = omp_get_max_threads();
    if (opt.threads > 0)
        omp_set_num_threads(opt.threads);
    /* The products of the weight pass (weights.c) run one per vertex block
     * inside our own parallel loop: OpenBLAS must not thread them itself
     * (oversubscription, and sums that would depend on its thread count). */
    int saved_blas = openblas_get_num_threads();
    /* not when already 1: OpenBLAS's setter starts its pool again when it
     * was ended (skf_decompose_release_blas_pool) */
    if (saved_blas != 1)
        openblas_set_num_threads(1);
    double t0 = omp_get_wtime();

    size_t nnls_solves = 0, nnls_at_cap = 0, relaxed = 0;
    skfi_decompose_ctx c = {.N = N, .F = F, .frames = frames, .rest = rest, .warnings = opt.warnings,
                .progress = opt.progress, .nnls_solves = &nnls_solves, .nnls_at_cap = &nnls_at_cap,
                .relaxed = &relaxed};
    c.diag = skf_bbox_diagonal(N, rest);
    skfi_decompose_arena arena = {NULL, 0, {0}, 0};
    c.arena = &arena;
    skfi_frame_basis fbasis;
    memset(&fbasis, 0, sizeof fbasis);
    skf_status st = SKF_OK;
    c.adj_off = adj_off;
    c.adj = adj;
    c.rep = rep_of;
    c.limits = opt.limits;
    skf_decomposition *d = skf_calloc(1, sizeof *d);
    uint32_t *labels = skf_calloc(N, sizeof *labels);
    size_t *offsets = skf_malloc_array(N + 1, sizeof *offsets);
    uint32_t *cbone = skf_malloc_array(N * K, sizeof *cbone);
    double *cweight = skf_malloc_array(N * K, sizeof *cweight);
    skf_solver *solver = NULL;
    skfi_anderson aa;
    memset(&aa, 0, sizeof aa);
    double *best_T = NULL, *best_w = NULL, *hist = NULL, *moments = NULL, *sq = NULL, *x_in = NULL;
    double *best_moments = NULL;
    double centre[3] = {0, 0, 0};
    skf_solve_stats *fstats = NULL;
    uint32_t *best_b = NULL, *seed = NULL;
    uint8_t *spent = NULL, *at_best = NULL;
    if (!d || !labels || !offsets || !cbone || !cweight) {
        st = skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory");
        goto done;
    }
    d->vertex_count = N;
    d->frame_count = F;
    d->max_influences = K;
    d->rest = skf_malloc_array(3 * N, sizeof *d->rest);
    if (!d->rest) {
        st = skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory");
        goto done;
    }
    memcpy(d->rest, rest, 3 * N * sizeof *rest);

    /* 1. Initialisation. */
    size_t B = 1;
    skf_decompose_init init = opt.init;
    if (init == SKF_DECOMPOSE_INIT_DEFAULT)
        init = opt.bone_count ? SKF_DECOMPOSE_INIT_SPLIT : SKF_DECOMPOSE_INIT_MEANSHIFT;
    if (init == SKF_DECOMPOSE_INIT_MEANSHIFT) {
        if (!tris || T == 0) {
            st = skf_fail(err, SKF_ERR_ARGUMENT,
                          "decompose: mean shift initialisation (init meanshift, or no bone count) needs "
                          "the mesh's triangles; give a rest mesh or a bone_count");
            skf_error_set_kind(err, SKF_KIND_OPTION, "skf_decompose_options.bone_count");
            goto done;
        }
        double h = opt.meanshift_bandwidth > 0 ? opt.meanshift_bandwidth : 0.3;
        if ((st = skfi_decompose_init_meanshift(&c, T, tris, h, labels, &B, err)))
            goto done;
        d->init_bones = B;
    }
    size_t target = opt.bone_count ? opt.bone_count : B;
    if (target > UINT32_MAX / 2) {
        st = skf_fail(err, SKF_ERR_ARGUMENT, "decompose: %zu bones is too many", target);
        goto done;
    }
    d->transforms = skf_malloc_array(F * (target > B ? target : B) * 12, sizeof *d->transforms);
    if (!d->transforms) {
        st = skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory for %zu x %zu transforms", F,
                      target);
        goto done;
    }
    {
        /* The clustering only seeds the alternation: on long animations it
         * runs on at most INIT_FRAMES evenly spaced frames (first and last
         * included), then every frame's cluster transforms are fitted. */
        skfi_decompose_ctx ci = c;
        double *sub = NULL;
        if (F > INIT_FRAMES) {
            sub = skf_malloc_array(INIT_FRAMES * 3 * N, sizeof *sub);
            if (!sub) {
                st = skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory");
                goto done;
            }
            for (size_t s = 0; s < INIT_FRAMES; ++s)
                memcpy(sub + s * 3 * N, frames + (s * (F - 1) / (INIT_FRAMES - 1)) * 3 * N,
                       3 * N * sizeof *sub);
            ci.frames = sub;
            ci.F = INIT_FRAMES;
        }
        st = skfi_decompose_init_split(&ci, target, labels, &B, d->transforms, err);
        if (!st && sub)
            st = skfi_decompose_fit_clusters(&c, B, labels, d->transforms, err);
        skf_free(sub);
        if (st)
            goto done;
    }
    d->bone_count = B;
    if (init == SKF_DECOMPOSE_INIT_SPLIT)
        d->init_bones = B;
    d->seconds_init = omp_get_wtime() - t0;
    {
        /* The alternation's products in a reduced frame space, exact to
         * its discarded energy (frame_basis.c; docs/decompose.md). */
        double tb = omp_get_wtime();
        double rtol = opt.rank_tolerance != 0 ? opt.rank_tolerance : SKF_DECOMPOSE_DEFAULT_RANK_TOLERANCE;
        if ((st = skfi_frame_basis_build(&c, rtol, &fbasis, err)))
            goto done;
        if (fbasis.coords) {
            c.basis = &fbasis;
            d->frame_reduced = true;
            d->frame_rank = fbasis.r;
            d->frame_sketch = fbasis.sketch;
            d->frame_discarded = fbasis.energy > 0 ? fbasis.discarded / fbasis.energy : 0;
        }
        d->seconds_basis = omp_get_wtime() - tb;
    }
    d->weight_bone = skf_malloc_array(N * K, sizeof *d->weight_bone);
    d->weight = skf_malloc_array(N * K, sizeof *d->weight);
    d->joint_rest = skf_malloc_array(3 * B, sizeof *d->joint_rest);
    best_T = skf_malloc_array(F * B * 12, sizeof *best_T);
    best_w = skf_malloc_array(N * K, sizeof *best_w);
    best_b = skf_malloc_array(N * K, sizeof *best_b);
    hist = skf_malloc_array(iters + 1, sizeof *hist);
    at_best = skf_malloc_array(iters + 1, sizeof *at_best);
    fstats = skf_malloc_array(F, sizeof *fstats);
    moments = skf_malloc_array(F * B * 12, sizeof *moments);
    best_moments = skf_malloc_array(F * B * 12, sizeof *best_moments);
    sq = skf_malloc_array(F, sizeof *sq);
    /* re-seeding (reseed.c): by default, not with --skeleton, whose pruning
     * removes such bones instead (skeleton.c) */
    bool reseed = opt.reseed >= 0 && !opt.skeleton;
    if (reseed) {
        seed = skf_malloc_array(N, sizeof *seed);
        spent = skf_calloc(B, sizeof *spent);
    }
    if (!d->weight_bone || !d->weight || !d->joint_rest || !best_T || !best_w || !best_b || !hist || !at_best ||
        !fstats || !moments || !best_moments || !sq || (reseed && (!seed || !spent))) {
        st = skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory");
        goto done;
    }
    /* Hard weights of the clustering: the starting point. */
    for (size_t j = 0; j < N; ++j) {
        for (size_t k = 0; k < K; ++k) {
            d->weight_bone[j * K + k] = 0;
            d->weight[j * K + k] = 0;
        }
        d->weight_bone[j * K] = labels[j];
        d->weight[j * K] = 1;
    }
    /* The stopping rule works on the energy E = Σ_f Σ_j ‖s_fj − u_fj‖² as the
     * transform step leaves it (the solver's moment form, summed over frames
     * in frame order: no extra pass over the vertices). */
    skf_decompose_metrics m;
    skfi_decompose_measure(&c, d, false, &m);
    double best_E = m.rms * m.rms * (double)N * (double)F;
    hist[0] = best_E;
    at_best[0] = 1;
    memcpy(best_T, d->transforms, F * B * 12 * sizeof *best_T);
    memcpy(best_w, d->weight, N * K * sizeof *best_w);
    memcpy(best_b, d->weight_bone, N * K * sizeof *best_b);
    /* The accuracy floor (docs/decompose.md step 4): converged once
     * RMS ≤ rms_floor · diag. Never below 1e-8 of the diagonal: on exact data
     * the moment form's rounding floor is ~1e-16 of Σ‖u‖². */
    double rms_floor = opt.rms_floor > 0   ? opt.rms_floor
                       : opt.rms_floor < 0 ? 0
                                           : SKF_DECOMPOSE_DEFAULT_RMS_FLOOR;
    if (rms_floor < 1e-8)
        rms_floor = 1e-8;
    double floor_E = rms_floor * rms_floor * (c.diag > 0 ? c.diag * c.diag : 1) * (double)N *
                     (double)F;

    /* 2-4. Alternate weights and transforms. */
    size_t it = 0;
    bool converged = false;
    /* the energy of the iterate the current alternation starts from (the
     * stopping rule's guard below) */
    double cur_prev = best_E;
    {
        /* The transform step's solver, on the clustering's hard weights
         * (its centre is needed by the first pass's moments). */
        skfi_decompose_to_csr(d, offsets, cbone, cweight);
        skf_solve_rig rig = {.vertex_count = N, .rest = rest, .offsets = offsets,
                             .bone = cbone, .weight = cweight, .bone_count = B};
        skf_solve_options so = sweep_options(&opt);
        /* A frame's sweeps end when one lowers its energy by less than
         * SWEEP_TOL of the starting point's mean energy per frame (the
         * solver's tolerance is in units of N·diag²): the alternation
         * needs descent, and later alternations continue from here. */
        double scale = (double)N * c.diag * c.diag;
        if (scale > 0 && best_E > 0)
            so.tolerance = SWEEP_TOL * best_E / (double)F / scale;
        if ((st = skf_solver_new(&rig, &so, &solver, err)))
            goto done;
        skf_solver_centre(solver, centre);
        /* the moments' sums of squares Σ_j ‖u_fj − o‖²: fixed by the data */
        for (size_t f = 0; f < F; ++f) {
            const double *u = frames + f * 3 * N;
            double q = 0;
            for (size_t k = 0; k < 3 * N; ++k)
                q += (u[k] - centre[k % 3]) * (u[k] - centre[k % 3]);
            sq[f] = q;
        }
    }
    /* Anderson acceleration over the transforms (anderson.c): the state x
     * is the transforms entering an alternation, g(x) those it leaves;
     * translations weigh 1/diag against the rotation entries. */
    int am = opt.anderson;
    double aa_wt[12];
    for (int e = 0; e < 12; ++e)
        aa_wt[e] = e < 9 ? 1.0 : c.diag > 0 ? 1.0 / c.diag : 1.0;
    bool mixed = false, aa_on = false;
    /* Gauss–Newton steps: every gn_every alternations (0: off) */
    size_t gn_every = opt.gauss_newton > 0 ? (size_t)opt.gauss_newton : 0;
    bool gn_on = false, gn_mixed = false; /* in the tail; the current state is a step's */
    size_t gn_last = 0;                    /* the alternation after which the last step was taken */
    size_t rk = 0;                         /* the stopping rule's entries (below) */
    double gn_lambda = GN_LAMBDA;          /* the damping, adapted as Levenberg–Marquardt's */
    if (am > 0) {
        x_in = skf_malloc_array(F * B * 12, sizeof *x_in);
        if (!x_in || !skfi_anderson_init(&aa, F * B * 12, (size_t)am, aa_wt, 12)) {
            st = skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory");
            goto done;
        }
    }
    c.relax = opt.weight_relaxation; /* the alternation's weight steps only */
    for (; it < iters && !converged; ++it) {
        if (x_in)
            memcpy(x_in, d->transforms, F * B * 12 * sizeof *x_in);
        /* One pass over the animation: the weights with the transforms
         * fixed, and the moments of the new weights for the transform step
         * (weights.c). */
        double tw = omp_get_wtime(), loop[4] = {0, 0, 0, 0}, cw = thread_cpu();
        c.loop_seconds = loop;
        st = skfi_decompose_solve_weights(&c, B, d->transforms, K, d->weight_bone, d->weight, true,
                                          centre, moments, err);
        c.loop_seconds = NULL;
        c.seed = NULL; /* a re-seed's candidates: for one weight step */
        if (st)
            goto done;
        d->seconds_weights += omp_get_wtime() - tw;
        d->cpu_weights += thread_cpu() - cw;
        d->seconds_weights_loop += loop[0];
        d->cpu_weights_loop_sum += loop[1];
        d->cpu_weights_loop_max += loop[2];
        d->cpu_weights_loop_sched += loop[3];
        skfi_decompose_to_csr(d, offsets, cbone, cweight);
        if ((st = skf_solver_update_weights(solver, offsets, cbone, cweight, err)))
            goto done;
        if ((st = skf_solver_frames_moments(solver, F, moments, sq, d->transforms, fstats, err)))
            goto done;
        double E = 0;
        for (size_t f = 0; f < F; ++f)
            E += fstats[f].energy;
        double cur = E; /* the energy of the iterate the next alternation starts from */
        bool gn_rejected = gn_mixed && !(E <= best_E);
        if (mixed && !(E <= best_E)) {
            /* Safeguard: the alternation from the mixed state (Anderson's,
             * or a Gauss–Newton step's, which is taken from the best
             * iterate) ended above the best energy. Forget Anderson's
             * history, damp the next Gauss–Newton step more, and continue
             * from the best iterate with a plain step (its energy is kept,
             * never a worse one). */
            if (gn_mixed) {
                ++d->newton_rejected;
                gn_lambda = fmin(gn_lambda * GN_LAMBDA_UP, GN_LAMBDA_MAX);
            } else {
                ++d->accel_rejected;
            }
            cur = best_E;
            skfi_anderson_reset(&aa);
            memcpy(d->transforms, best_T, F * B * 12 * sizeof *best_T);
            memcpy(d->weight, best_w, N * K * sizeof *best_w);
            memcpy(d->weight_bone, best_b, N * K * sizeof *best_b);
            mixed = gn_mixed = false;
        } else {
            if (E < best_E) {
                best_E = E;
                d->best_iteration = it + 1;
                memcpy(best_T, d->transforms, F * B * 12 * sizeof *best_T);
                memcpy(best_w, d->weight, N * K * sizeof *best_w);
                memcpy(best_b, d->weight_bone, N * K * sizeof *best_b);
                /* the best iterate keeps its weight pass's moments for the
                 * polish: swap the buffers (the next pass overwrites every
                 * entry of `moments`) instead of copying F·B·12 numbers */
                double *t = best_moments;
                best_moments = moments;
                moments = t;
            }
            if (x_in && !aa_on) {
                double prev = hist[rk];
                aa_on = prev - best_E < ANDERSON_START * prev;
            }
            if (x_in && aa_on) {
                mixed = skfi_anderson_step(&aa, x_in, d->transforms, d->transforms);
                d->accel_steps += mixed;
            }
            if (gn_mixed) /* kept: a less damped next step */
                gn_lambda = fmax(gn_lambda / GN_LAMBDA_DOWN, GN_LAMBDA_MIN);
            gn_mixed = false;
            if (gn_every && !gn_on)
                gn_on = hist[rk] - best_E < GN_START * hist[rk];
            if (gn_every && gn_on && (gn_last == 0 || it + 1 - gn_last >= gn_every) &&
                d->best_iteration == it + 1) {
                /* From this iterate when it has just become the best (its
                 * weight pass's moments went to best_moments then; the
                 * safeguard above goes back to it). One above the best (a
                 * K-sparse weight step's excursion) is left to the plain
                 * alternation, which often descends from it below the best:
                 * steps from such an iterate, or from the best after going
                 * back to it, formed cycles the rule then ended (the 5000 ×
                 * 24 × 30 creature at twice the error the floor ends it at,
                 * the Quaternius Horse at 20 bones 19 % above the plain
                 * run; docs/bench.md 2026-12-04). */
                skfi_gn_stats gs;
                if ((st = skfi_decompose_gn_step(&c, B, K, centre, best_moments, gn_lambda, GN_CG, d->weight_bone,
                                                 d->weight, d->transforms, &gs, err)))
                    goto done;
                gn_last = it + 1;
                mixed = gn_mixed = true;
                ++d->newton_steps;
            }
        }
        /* The rule's record (hist, at_best: rk entries after the start),
         * one per alternation except those from a rejected Gauss–Newton
         * step: the run went back to the iterate before it, so the plain
         * alternation's progress is measured without them (counted, they
         * flatten the windows: Bone_Anim at 10 bones then ended at 90
         * alternations, RMS 0.00491 instead of 0.00467, the Quaternius Cow
         * at 20 bones at 34, 0.00416 instead of 0.00399; docs/bench.md
         * 2026-12-04). Without the steps rk is the iteration count. The cap
         * counts every alternation. */
        if (!gn_rejected) {
            hist[++rk] = best_E;
            /* whether this iteration leaves the run at its best energy (the
             * next alternation starts from the best iterate) */
            at_best[rk] = !(cur > best_E);
        }
        if (skf_progress_report(opt.progress, 0.3 + 0.6 * (double)(it + 1) / (double)iters,
                                "alternation")) {
            st = skf_fail(err, SKF_ERR_CANCELLED, "decompose: cancelled");
            goto done;
        }
        /* Stopping rule (docs/decompose.md): the best energy fell by less
         * than tol per iteration on average over every window ending now,
         * from the last `patience` iterations (a window, because the
         * K-sparse weight step is not monotone: one bad step is often
         * followed by good ones) back to the last `patience` iterations
         * that left the run at its best. An iteration whose iterate lies
         * above the best (a weight step raised E, the alternation is
         * climbing back down) does not count towards that reach, so a
         * window made mostly of such an excursion is not the only measure
         * (Bone_Anim 20 bones: E* flat over iterations 42–47 while E rose
         * 0.4–0.7 % above it and came back, then 2.5 % lower by 64; the
         * window of the last 5 iterations ended the run at 46). Every
         * window, not only the longest: a longer one can dilute a recent
         * drop, and the rule only withholds stops. Or its
         * RMS reached the accuracy floor (data the model reproduces exactly,
         * where E falls geometrically and its relative rate never drops).
         * Not while the current iterate lies above the best and its last
         * alternation still lowered E by more than the window's whole
         * allowance tol·patience: a K-sparse weight step that raised E is
         * being undone, and the descent goes on below the best (the 5000 ×
         * 24 × 30 creature: E 0.1 % above the best at iteration 49, 1.8 %
         * lower than at 48; the best fell by half in the next 10). */
        if (!gn_rejected && rk >= patience) {
            /* every window from the last `patience` iterations back to the
             * last `patience` at the best (q ≥ patience) must be flat */
            size_t k = rk, n = 0;
            converged = !(cur > best_E && cur_prev - cur > tol * (double)patience * cur_prev);
            while (converged && k > 0 && n < patience) {
                n += at_best[k--];
                size_t q = rk - k; /* the window, iterations */
                double old = hist[k];
                if (q >= patience && old - best_E > tol * (double)q * old)
                    converged = false;
            }
        }
        cur_prev = cur;
        if (best_E <= floor_E) {
            d->floor_reached = !converged;
            converged = true;
        } else if (reseed && it + 1 < iters) {
            /* A bone with less than 3 vertices' worth of weight is re-seeded
             * once (reseed.c; docs/decompose.md step 4); the run goes on
             * then, the relative rule measuring the alternation after it. */
            size_t nr = 0;
            if ((st = skfi_decompose_reseed(&c, d, spent, seed, &nr, err)))
                goto done;
            if (nr) {
                c.seed = seed;
                d->reseeded += nr;
                converged = false;
                /* the re-seeded alternation is measured by the rule, not
                 * the safeguard (its energy may rise first) */
                mixed = gn_mixed = false;
                if (x_in)
                    skfi_anderson_reset(&aa); /* the history no longer describes the map's iterates */
            }
        }
    }
    c.relax = 0;
    d->relaxed_solves = relaxed;
    c.basis = NULL; /* the polish, metrics and skeleton read the full frames */
    skfi_frame_basis_free(&fbasis);
    d->hit_cap = !converged;
    if (d->hit_cap)
        skf_warn_as(opt.warnings, SKF_KIND_ITERATION_CAP, "skf_decompose_options.max_iterations",
                    "decompose: stopped at the iteration cap max_iterations=%zu with the error still "
                    "improving", iters);
    if (nnls_at_cap)
        skf_warn(opt.warnings, "decompose: %zu of %zu weight solves stopped at the NNLS cap of "
                 "4n+16 active-set steps (n candidate bones; fixed) and kept their last feasible "
                 "weights", nnls_at_cap, nnls_solves);
    d->iterations = it;
    memcpy(d->transforms, best_T, F * B * 12 * sizeof *best_T);
    memcpy(d->weight, best_w, N * K * sizeof *best_w);
    memcpy(d->weight_bone, best_b, N * K * sizeof *best_b);
    {
        /* Polish the best iterate's transforms with full sweeps (the solver's
         * own tolerance, at most 5): the alternation's sweeps stopped early
         * (SWEEP_TOL), and --skeleton's joints are read off these transforms.
         * Sweeps never raise the energy. The frames' moments of the best
         * weights are those its weight pass summed (kept with it): no pass
         * over the animation. The clustering's start (best_iteration 0) has
         * none and reads the frames. */
        skfi_decompose_to_csr(d, offsets, cbone, cweight);
        skf_solve_rig rig = {.vertex_count = N, .rest = rest, .offsets = offsets,
                             .bone = cbone, .weight = cweight, .bone_count = B};
        skf_solve_options so = sweep_options(&opt);
        skf_solver *polish = NULL;
        if ((st = skf_solver_new(&rig, &so, &polish, err)))
            goto done;
        if (d->best_iteration > 0)
            st = skf_solver_frames_moments(polish, F, best_moments, sq, d->transforms, fstats, err);
        else
            st = skf_solver_frames(polish, F, frames, d->transforms, fstats, err);
        skf_solver_free(polish);
        if (st)
            goto done;
    }
    joint_positions(d, labels);
    skfi_decompose_measure(&c, d, false, &d->metrics);
    d->metrics_flat = d->metrics;
    if (opt.skeleton) {
        double ts = omp_get_wtime();
        if ((st = skfi_decompose_skeleton(&c, d, opt.skeleton_rounds, opt.max_skeleton_rounds, tol, patience, err)))
            goto done;
        d->seconds_skeleton = omp_get_wtime() - ts;
        B = d->bone_count; /* the skeleton may prune bones (skeleton.c) */
        skfi_decompose_measure(&c, d, false, &d->metrics);
    }
    d->metrics_pca = d->metrics;
    {
        size_t unused = 0;
        double *ws = skf_calloc(B, sizeof *ws);
        if (ws) {
            for (size_t k = 0; k < N * K; ++k)
                ws[d->weight_bone[k]] += d->weight[k];
            for (size_t b = 0; b < B; ++b)
                unused += ws[b] == 0;
            skf_free(ws);
        }
        if (unused)
            skf_warn(opt.warnings, "decompose: %zu of %zu bones ended with no weight "
                     "(they are kept as joints)", unused, B);
    }
    if (opt.pca_shapes) {
        if ((st = skfi_decompose_pca(&c, d, opt.pca_shapes, err)))
            goto done;
        skfi_decompose_measure(&c, d, true, &d->metrics_pca);
    }
    d->size_ratio = ((double)N * 3 + (double)N * (double)K * 2 + (double)F * (double)B * 7 +
                     (double)d->shape_count * (double)N * 3 + (double)F * (double)d->shape_count) /
                    (3.0 * (double)N * (double)F);
    d->seconds_total = omp_get_wtime() - t0;
    skf_progress_report(opt.progress, 1.0, "done");
done:
    skf_solver_free(solver);
    skf_free(labels);
    skf_free(offsets);
    skf_free(cbone);
    skf_free(cweight);
    skf_free(x_in);
    skfi_anderson_free(&aa);
    skf_free(best_T);
    skf_free(best_w);
    skf_free(best_b);
    skf_free(hist);
    skf_free(at_best);
    skf_free(fstats);
    skf_free(moments);
    skf_free(best_moments);
    skf_free(sq);
    skf_free(seed);
    skf_free(spent);
    skf_free(arena.mem);
    skfi_frame_basis_free(&fbasis);
    skf_free(adj_off);
    skf_free(adj);
    skf_free(rep_of);
    if (opt.threads > 0)
        omp_set_num_threads(saved_threads);
    if (saved_blas != 1)
        openblas_set_num_threads(saved_blas);
    if (st) {
        skf_decomposition_free(d);
        return st;
    }
    *out = d;
    return SKF_OK;
}
