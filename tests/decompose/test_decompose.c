/* Decomposition: NNLS on the simplex (KKT conditions), exact-LBS recovery on
 * the cylinder (acceptance 1), Bone_Anim at 5/10/20 bones against Dem Bones'
 * own decompositions recomputed here from Decomposition_NN.glb with the rig
 * evaluator (acceptance 2), weight validity (acceptance 3), --pca lowers the
 * error (acceptance 5). */
#include "check.h"
#include "skinfit/creature.h"
#include "skinfit/decompose.h"
#include "skinfit/gltf.h"
#include "skinfit/rig.h"
#include "skinfit/meshseq.h"

#include <jansson.h>
#include <stdint.h>

static void check_weights(const skf_decomposition *d, const char *what)
{
    size_t bad = 0, K = d->max_influences;
    double worst = 0;
    for (size_t j = 0; j < d->vertex_count; ++j) {
        double s = 0;
        size_t nnz = 0;
        for (size_t k = 0; k < K; ++k) {
            double w = d->weight[j * K + k];
            if (w < 0 || d->weight_bone[j * K + k] >= d->bone_count)
                ++bad;
            nnz += w > 0;
            s += w;
        }
        if (nnz > K)
            ++bad;
        if (fabs(s - 1) > worst)
            worst = fabs(s - 1);
    }
    printf("%s: weights: %zu invalid, max |sum - 1| = %.3g, K = %zu\n", what, bad, worst, K);
    CHECK(bad == 0);
    CHECK(worst <= 1e-6);
}

static unsigned long long rng = 88172645463325252ULL;
static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static void test_nnls(void)
{
    size_t worst_kkt_fail = 0, warm_fewer = 0;
    double max_sum = 0, max_resid = 0, max_warm = 0;
    for (int trial = 0; trial < 300; ++trial) {
        size_t n = 1 + (size_t)(urand() * 10), m = 3 + (size_t)(urand() * 20);
        double A[30 * 10], b[30], Q[100], c[10], w[10];
        for (size_t r = 0; r < m; ++r) {
            for (size_t i = 0; i < n; ++i)
                A[r * n + i] = urand() * 2 - 1;
            b[r] = urand() * 2 - 1;
        }
        bool exact = trial % 3 == 0; /* b a convex combination: recover it */
        double wt[10], s = 0;
        if (exact) {
            for (size_t i = 0; i < n; ++i)
                s += wt[i] = (i % 2 == 0) ? urand() : 0;
            if (s == 0)
                wt[0] = s = 1;
            for (size_t i = 0; i < n; ++i)
                wt[i] /= s;
            for (size_t r = 0; r < m; ++r) {
                b[r] = 0;
                for (size_t i = 0; i < n; ++i)
                    b[r] += A[r * n + i] * wt[i];
            }
        }
        for (size_t i = 0; i < n; ++i) {
            c[i] = 0;
            for (size_t r = 0; r < m; ++r)
                c[i] += A[r * n + i] * b[r];
            for (size_t k = 0; k < n; ++k) {
                Q[i * n + k] = 0;
                for (size_t r = 0; r < m; ++r)
                    Q[i * n + k] += A[r * n + i] * A[r * n + k];
            }
        }
        int it_cold = skf_nnls_simplex(n, Q, c, w);
        {
            /* warm starts: from the optimum's support (fewer iterations),
             * from a wrong set and from none: the same optimum */
            bool sup[10], wrong[10];
            for (size_t i = 0; i < n; ++i) {
                sup[i] = w[i] > 0;
                wrong[i] = !sup[i] || i == 0;
            }
            double ws[10], ww[10];
            int it_warm = skf_nnls_simplex_start(n, Q, c, sup, ws);
            skf_nnls_simplex_start(n, Q, c, wrong, ww);
            warm_fewer += it_warm <= it_cold;
            /* the objective ½wᵀQw − cᵀw (the minimiser is not unique when
             * m < n), relative to ½‖b‖²-sized terms */
            double fo[3] = {0, 0, 0}, scale = 1e-300;
            const double *xs[3] = {w, ws, ww};
            for (int v = 0; v < 3; ++v)
                for (size_t i = 0; i < n; ++i) {
                    fo[v] -= c[i] * xs[v][i];
                    for (size_t k = 0; k < n; ++k)
                        fo[v] += 0.5 * xs[v][i] * Q[i * n + k] * xs[v][k];
                }
            for (size_t i = 0; i < n; ++i)
                scale = fmax(scale, fabs(Q[i * n + i]) + fabs(c[i]));
            max_warm = fmax(max_warm, fabs(fo[1] - fo[0]) / scale);
            max_warm = fmax(max_warm, fabs(fo[2] - fo[0]) / scale);
        }
        double sum = 0, g[10], lam = 0;
        size_t np = 0;
        for (size_t i = 0; i < n; ++i) {
            CHECK(w[i] >= 0);
            sum += w[i];
            g[i] = -c[i];
            for (size_t k = 0; k < n; ++k)
                g[i] += Q[i * n + k] * w[k];
        }
        for (size_t i = 0; i < n; ++i)
            if (w[i] > 0) {
                lam -= g[i];
                ++np;
            }
        lam /= (double)np;
        max_sum = fmax(max_sum, fabs(sum - 1));
        for (size_t i = 0; i < n; ++i) {
            double kkt = g[i] + lam; /* = 0 on the support, >= 0 off it */
            if (w[i] > 1e-9 ? fabs(kkt) > 1e-8 : kkt < -1e-8)
                ++worst_kkt_fail;
        }
        if (exact && m >= n)
            for (size_t i = 0; i < n; ++i)
                max_resid = fmax(max_resid, fabs(w[i] - wt[i]));
    }
    printf("nnls: 300 problems, KKT violations %zu, max |sum-1| %.3g, max |w - w_true| %.3g; "
           "warm starts: objective within %.3g of the cold start's, no more iterations than cold in %zu of 300\n",
           worst_kkt_fail, max_sum, max_resid, max_warm, warm_fewer);
    CHECK(max_warm <= 1e-12);
    CHECK(warm_fewer == 300);
    CHECK(worst_kkt_fail == 0);
    CHECK(max_sum <= 1e-12);
    CHECK(max_resid <= 1e-6);
}

static void test_cylinder(const char *set)
{
    char rel[256];
    const char *rp = skf_test_data("cylinder/cylinder.obj");
    if (!rp) {
        printf("cylinder data absent: skipped\n");
        return;
    }
    skf_error err;
    skf_meshseq *rest = NULL;
    CHECK(skf_obj_read(rp, &rest, &err) == SKF_OK);
    if (!rest)
        return;
    size_t N = rest->vertex_count, F = 4;
    double *frames = malloc(F * N * 3 * sizeof(double));
    for (size_t f = 0; f < F; ++f) {
        snprintf(rel, sizeof rel, "cylinder/%s/cylinder-%zu.obj", set, f + 1);
        skf_meshseq *s = NULL;
        const char *p = skf_test_data(rel);
        CHECK(p && skf_obj_read(p, &s, &err) == SKF_OK);
        if (!s) {
            free(frames);
            skf_meshseq_free(rest);
            return;
        }
        CHECK(s->vertex_count == N);
        memcpy(frames + f * N * 3, s->positions, N * 3 * sizeof(double));
        skf_meshseq_free(s);
    }
    skf_decompose_options o = {.bone_count = 4, .max_iterations = 300, .tolerance = 1e-6};
    skf_decomposition *d = NULL;
    skf_status st = skf_decompose(N, F, frames, rest->positions, rest->triangle_count,
                                  rest->triangles, &o, &d, &err);
    CHECK_MSG(st == SKF_OK, "%s", err.message);
    if (d) {
        printf("cylinder %s: 4 bones, %zu iterations: RMS %.3g, max %.3g = %.3g of diagonal %.4g\n",
               set, d->iterations, d->metrics.rms, d->metrics.max_error,
               d->metrics.max_error / d->metrics.diagonal, d->metrics.diagonal);
        CHECK(d->bone_count == 4);
        CHECK(d->metrics.max_error <= 1e-4 * d->metrics.diagonal);
        check_weights(d, "cylinder");
    }
    skf_decomposition_free(d);
    free(frames);
    skf_meshseq_free(rest);
}

/* Dem Bones' RMS recomputed from its decomposition GLB against the cache in
 * world space (its output includes the parent Xform). */
static double dembones_rms(const char *glb, const skf_meshseq *world)
{
    const char *mp = skf_test_data("dembones/glb_vertex_to_abc_index.json");
    skf_error err;
    skf_gltf *doc = NULL;
    skf_rig *rig = NULL;
    skf_clip *clip = NULL;
    skf_meshseq *b = NULL;
    double rms = -1;
    json_error_t je;
    json_t *j = mp ? json_load_file(mp, 0, &je) : NULL;
    json_t *map = j ? json_object_get(j, "map") : NULL;
    if (!map || skf_gltf_load(glb, &doc, NULL, &err) ||
        skf_rig_from_gltf(doc, 0, NULL, &rig, NULL, &err) ||
        skf_clip_from_gltf(doc, 0, &clip, &err) || skf_rig_bake(rig, clip, 24, 0, NULL, &b, &err)) {
        fprintf(stderr, "%s: %s\n", glb, err.message);
        goto out;
    }
    CHECK(b->frame_count == world->frame_count);
    CHECK(json_array_size(map) == b->vertex_count);
    if (b->frame_count != world->frame_count || json_array_size(map) != b->vertex_count)
        goto out;
    /* Each cache vertex once: the first GLB vertex mapping to it. */
    size_t N = world->vertex_count;
    long *first = malloc(N * sizeof *first);
    for (size_t v = 0; v < N; ++v)
        first[v] = -1;
    for (size_t g = 0; g < b->vertex_count; ++g) {
        json_int_t a = json_integer_value(json_array_get(map, g));
        if (a >= 0 && (size_t)a < N && first[a] < 0)
            first[a] = (long)g;
    }
    double s = 0;
    size_t n = 0;
    for (size_t f = 0; f < world->frame_count; ++f)
        for (size_t v = 0; v < N; ++v) {
            if (first[v] < 0)
                continue;
            const double *p = b->positions + (f * b->vertex_count + (size_t)first[v]) * 3;
            const double *q = world->positions + (f * N + v) * 3;
            for (int k = 0; k < 3; ++k)
                s += (p[k] - q[k]) * (p[k] - q[k]);
            ++n;
        }
    rms = sqrt(s / (double)n);
    free(first);
out:
    json_decref(j);
    skf_meshseq_free(b);
    skf_clip_free(clip);
    skf_rig_free(rig);
    skf_gltf_free(doc);
    return rms;
}

/* The same bits at 1, 2 and 3 threads (iterations, weights, transforms,
 * joints, metrics): a run of `iters` alternations at each count against the
 * one-thread run (without_two: 1 and 3 only, for the slow ASan build). */
static void check_threads(const char *name, size_t N, size_t F, const double *frames,
                          const double *rest, size_t T, const uint32_t *tris, size_t bones,
                          size_t iters, bool without_two, int gauss_newton)
{
    skf_decomposition *d[3] = {NULL, NULL, NULL};
    for (int t = 0; t < 3; ++t) {
        if (t == 1 && without_two)
            continue;
        skf_error err;
        skf_decompose_options o = {.bone_count = bones, .threads = t + 1, .max_iterations = iters,
                                   .gauss_newton = gauss_newton};
        CHECK_MSG(skf_decompose(N, F, frames, rest, T, tris, &o, &d[t], &err) == SKF_OK, "%s",
                  err.message);
    }
    if (d[0] && gauss_newton > 0)
        CHECK_MSG(d[0]->newton_steps > 0, "%s: no Gauss-Newton step in %zu iterations", name,
                  d[0]->iterations);
    for (int t = 1; t < 3; ++t) {
        if (!d[0] || !d[t])
            continue;
        size_t K = d[0]->max_influences;
        bool same = d[0]->iterations == d[t]->iterations &&
                    d[0]->newton_steps == d[t]->newton_steps &&
                    d[0]->frame_reduced == d[t]->frame_reduced &&
                    d[0]->frame_rank == d[t]->frame_rank &&
                    !memcmp(d[0]->transforms, d[t]->transforms,
                            d[0]->frame_count * d[0]->bone_count * 12 * sizeof(double)) &&
                    !memcmp(d[0]->weight, d[t]->weight, N * K * sizeof(double)) &&
                    !memcmp(d[0]->weight_bone, d[t]->weight_bone, N * K * sizeof(uint32_t)) &&
                    !memcmp(d[0]->joint_rest, d[t]->joint_rest, d[0]->bone_count * 3 * sizeof(double)) &&
                    d[0]->metrics.rms == d[t]->metrics.rms;
        printf("%s, %zu bones: threads 1 vs %d: %s (RMS %.17g vs %.17g, %zu iterations, %zu "
               "Gauss-Newton steps, frame basis %s)\n",
               name, bones, t + 1, same ? "bit-identical" : "DIFFERENT", d[0]->metrics.rms,
               d[t]->metrics.rms, d[0]->iterations, d[0]->newton_steps,
               d[0]->frame_reduced ? "used" : "skipped");
        CHECK(same);
    }
    for (int t = 0; t < 3; ++t)
        skf_decomposition_free(d[t]);
}

static void test_bone_anim(int only)
{
    const char *abc = skf_test_data("dembones/Bone_Anim.abc");
    if (!abc) {
        printf("dembones data absent: skipped\n");
        return;
    }
    skf_error err;
    skf_meshseq *seq = NULL;
    skf_alembic_options ao = {.apply_parent_xform = true};
    CHECK(skf_alembic_read(abc, &ao, &seq, &err) == SKF_OK);
    if (!seq)
        return;
    static const int bones[3] = {5, 10, 20};
    for (int i = 0; i < 3; ++i) {
        if (only && bones[i] != only)
            continue;
        char rel[128];
        snprintf(rel, sizeof rel, "dembones/Decomposition_%02d.glb", bones[i]);
        const char *glb = skf_test_data(rel);
        double ref = glb ? dembones_rms(glb, seq) : -1;
        CHECK(ref > 0);
        skf_decompose_options o = {.bone_count = (size_t)bones[i], .pca_shapes = i == 0 ? 4 : 0};
#if defined(__SANITIZE_ADDRESS__)
        /* ASan build: fewer alternations keep it under a minute; the
         * assertion (at or below Dem Bones) is unchanged. */
        o.max_iterations = 4;
#endif
        skf_decomposition *d = NULL;
        skf_status st = skf_decompose(seq->vertex_count, seq->frame_count, seq->positions, NULL,
                                      seq->triangle_count, seq->triangles, &o, &d, &err);
        CHECK_MSG(st == SKF_OK, "%s", err.message);
        if (!d)
            continue;
        printf("Bone_Anim %2d bones: ours RMS %.5f (E_RMS %.3f, max %.3f %% of diag, %zu it, "
               "%.2f s) vs Dem Bones %.5f\n",
               bones[i], d->metrics.rms, d->metrics.erms, d->metrics.max_error_pct,
               d->iterations, d->seconds_total, ref);
        CHECK(d->bone_count == (size_t)bones[i]);
        CHECK(d->metrics.rms <= ref);
#if !defined(__SANITIZE_ADDRESS__)
        /* the default run ends by the stopping rule, not at the cap */
        printf("  stopped by %s after %zu iterations (cap %d), best iterate %zu\n",
               d->hit_cap ? "the CAP" : "the stopping rule", d->iterations,
               SKF_DECOMPOSE_DEFAULT_MAX_ITERATIONS, d->best_iteration);
        CHECK(!d->hit_cap);
        CHECK(d->iterations < SKF_DECOMPOSE_DEFAULT_MAX_ITERATIONS);
        /* by the relative decrease: Bone_Anim's RMS (~0.1 % of the
         * diagonal) is far above the accuracy floor */
        CHECK(!d->floor_reached);
#endif
        check_weights(d, rel);
        if (o.pca_shapes) {
            printf("  with --pca %zu: RMS %.5f (without %.5f)\n", d->shape_count,
                   d->metrics_pca.rms, d->metrics.rms);
            CHECK(d->shape_count == 4);
            CHECK(d->metrics_pca.rms < d->metrics.rms);
            /* The stored metric equals a direct reconstruction. */
            double *buf = malloc(seq->vertex_count * 3 * sizeof(double));
            double s = 0;
            for (size_t f = 0; f < seq->frame_count; ++f) {
                skf_decomposition_frame(d, f, true, buf);
                for (size_t k = 0; k < seq->vertex_count * 3; ++k) {
                    double x = buf[k] - seq->positions[f * seq->vertex_count * 3 + k];
                    s += x * x;
                }
            }
            free(buf);
            CHECK_NEAR(sqrt(s / (double)(seq->vertex_count * seq->frame_count)),
                       d->metrics_pca.rms, 1e-9);
        }
        skf_decomposition_free(d);
    }
    /* The weight step's threads on the bench's input (the reduced frame
     * space, candidate lists from the mesh): the same bits at 1, 2, 3. */
    if (only == 20) {
#if defined(__SANITIZE_ADDRESS__)
        size_t iters = 2;
        bool without_two = true;
#else
        size_t iters = 12;
        bool without_two = false;
#endif
        check_threads("Bone_Anim", seq->vertex_count, seq->frame_count, seq->positions, NULL,
                      seq->triangle_count, seq->triangles, 20, iters, without_two, 0);
#if !defined(__SANITIZE_ADDRESS__)
        /* with Gauss–Newton steps (opt-in), products in the reduced frame
         * space: every alternation from the tail's start, 25 in all */
        check_threads("Bone_Anim, --gauss-newton 1", seq->vertex_count, seq->frame_count, seq->positions,
                      NULL, seq->triangle_count, seq->triangles, 20, 25, false, 1);
#endif
    }
    if (only > 0)
        goto done;
    /* Never fewer bones than asked: too many is an error that says why. */
    skf_decompose_options o = {.bone_count = 400};
    skf_decomposition *d = NULL;
    skf_status st = skf_decompose(seq->vertex_count, 2, seq->positions, NULL, 0, NULL, &o, &d, &err);
    CHECK(st == SKF_ERR_ARGUMENT && strstr(err.message, "at most 251 bones"));
    printf("too many bones: %s\n", err.message);
done:
    skf_meshseq_free(seq);
}

/* Acceptance 1b: a Quaternius clip baked from its artist rig (exact LBS) and
 * decomposed with as many bones as the rig has weighted joints. */
static void test_quaternius(void)
{
    const char *path = skf_test_data("quaternius/animals/Horse.glb");
    if (!path) {
        printf("quaternius data absent: skipped\n");
        return;
    }
    skf_error err;
    skf_gltf *doc = NULL;
    skf_rig *rig = NULL;
    skf_clip *clip = NULL;
    skf_meshseq *seq = NULL;
    double *rest = NULL;
    skf_pose pose;
    memset(&pose, 0, sizeof pose);
    int anim;
    if (skf_gltf_load(path, &doc, NULL, &err) || (anim = skf_clip_find(doc, "Walk", NULL)) < 0 ||
        skf_rig_from_gltf(doc, 0, NULL, &rig, NULL, &err) || skf_clip_from_gltf(doc, anim, &clip, &err) ||
        skf_rig_bake(rig, clip, 0, 0, NULL, &seq, &err) || skf_pose_init(&pose, rig, &err)) {
        CHECK_MSG(0, "%s", err.message);
        goto out;
    }
    rest = malloc(rig->vertex_count * 3 * sizeof *rest);
    skf_pose_eval(rig, NULL, 0, &pose);
    skf_skin(rig, &pose, rest, 0);
    size_t weighted = 0;
    for (size_t i = 0; i < rig->joint_count; ++i)
        weighted += rig->joints[i].has_weight;
    skf_decompose_options o = {.bone_count = weighted, .max_iterations = 60, .tolerance = 1e-6};
#if defined(__SANITIZE_ADDRESS__)
    o.max_iterations = 10; /* ASan: same assertion, fewer alternations */
#endif
    skf_decomposition *d = NULL;
    skf_status st = skf_decompose(seq->vertex_count, seq->frame_count, seq->positions, rest,
                                  seq->triangle_count, seq->triangles, &o, &d, &err);
    CHECK_MSG(st == SKF_OK, "%s", err.message);
    if (d) {
        printf("Horse Walk (%zu vertices x %zu frames, %zu weighted joints): RMS %.4g = %.4f %% of "
               "diagonal %.4g, max %.4f %%, %zu iterations\n",
               d->vertex_count, d->frame_count, weighted, d->metrics.rms,
               100 * d->metrics.rms / d->metrics.diagonal, d->metrics.diagonal,
               d->metrics.max_error_pct, d->iterations);
        CHECK(d->bone_count == weighted);
        CHECK(d->metrics.rms <= 1e-3 * d->metrics.diagonal);
        check_weights(d, "Horse");
    }
    skf_decomposition_free(d);
out:
    free(rest);
    skf_pose_release(&pose);
    skf_meshseq_free(seq);
    skf_clip_free(clip);
    skf_rig_free(rig);
    skf_gltf_free(doc);
}

/* The creature baked to a vertex animation: vertices ~ nv, F frames of clip. */
static skf_meshseq *creature_seq(size_t nv, size_t clip_index, size_t F, double **rest)
{
    skf_error err;
    skf_creature_options co = {.vertices = nv};
    skf_gltf *doc = NULL;
    skf_rig *rig = NULL;
    skf_clip *clip = NULL;
    skf_meshseq *seq = NULL;
    *rest = NULL;
    if (skf_creature_build(&co, &doc, &err) || skf_rig_from_gltf(doc, 0, NULL, &rig, NULL, &err) ||
        skf_clip_from_gltf(doc, (int)clip_index, &clip, &err) ||
        skf_rig_bake(rig, clip, (double)(F - 1) / clip->duration, 0, NULL, &seq, &err)) {
        CHECK_MSG(0, "creature: %s", err.message);
    } else {
        *rest = malloc(rig->vertex_count * 3 * sizeof **rest);
        memcpy(*rest, rig->rest_positions, rig->vertex_count * 3 * sizeof **rest);
    }
    skf_clip_free(clip);
    skf_rig_free(rig);
    skf_gltf_free(doc);
    return seq;
}

static bool finite_decomposition(const skf_decomposition *d)
{
    for (size_t k = 0; k < d->frame_count * d->bone_count * 12; ++k)
        if (!isfinite(d->transforms[k]))
            return false;
    for (size_t k = 0; k < d->vertex_count * d->max_influences; ++k)
        if (!isfinite(d->weight[k]))
            return false;
    for (size_t k = 0; k < 3 * d->bone_count; ++k)
        if (!isfinite(d->joint_rest[k]))
            return false;
    return isfinite(d->metrics.rms);
}

/* Default runs on the creature's clips converge (stopping rule, not the cap),
 * with --bones N and with the mean-shift count; --max-influences 1..8. */
static void test_creature_converges(void)
{
    static const char *clips[2] = {"Walk", "Trot"};
    for (size_t ci = 0; ci < 2; ++ci) {
        double *rest = NULL;
        skf_meshseq *seq = creature_seq(1000, ci, 31, &rest);
        if (!seq)
            return;
        for (int mode = 0; mode < 2; ++mode) {
            skf_error err;
            skf_decompose_options o = {.bone_count = mode ? 0 : 20};
#if defined(__SANITIZE_ADDRESS__)
            o.max_iterations = 8; /* ASan: memory checks on a shorter run; no convergence check */
#endif
            skf_decomposition *d = NULL;
            skf_status st = skf_decompose(seq->vertex_count, seq->frame_count, seq->positions, rest,
                                          seq->triangle_count, seq->triangles, &o, &d, &err);
            CHECK_MSG(st == SKF_OK, "%s", err.message);
            if (!d)
                continue;
            printf("creature %s %zu v x %zu f, %s: %zu bones, %zu iterations (%s), RMS %.3g %% of "
                   "diagonal\n", clips[ci], d->vertex_count, d->frame_count,
                   mode ? "--bones auto" : "--bones 20", d->bone_count, d->iterations,
                   d->hit_cap ? "CAP" : "converged", 100 * d->metrics.rms / d->metrics.diagonal);
#if !defined(__SANITIZE_ADDRESS__)
            CHECK(!d->hit_cap);
#endif
            CHECK(finite_decomposition(d));
            check_weights(d, "creature");
            skf_decomposition_free(d);
        }
        if (ci == 0)
            for (size_t K = 1; K <= 8; ++K) {
                skf_error err;
                skf_decompose_options o = {.bone_count = 12, .max_influences = K};
#if defined(__SANITIZE_ADDRESS__)
                o.max_iterations = 8;
#endif
                skf_decomposition *d = NULL;
                skf_status st = skf_decompose(seq->vertex_count, seq->frame_count, seq->positions,
                                              rest, seq->triangle_count, seq->triangles, &o, &d,
                                              &err);
                CHECK_MSG(st == SKF_OK, "K=%zu: %s", K, err.message);
                if (!d)
                    continue;
                printf("  --max-influences %zu: %zu iterations (%s), RMS %.4g\n", K, d->iterations,
                       d->hit_cap ? "CAP" : "converged", d->metrics.rms);
#if !defined(__SANITIZE_ADDRESS__)
                CHECK(!d->hit_cap);
#endif
                CHECK(d->max_influences == K);
                CHECK(finite_decomposition(d));
                check_weights(d, "creature K");
                skf_decomposition_free(d);
            }
        free(rest);
        skf_meshseq_free(seq);
    }
}

/* The accuracy floor of the stopping rule (issue 16 §1; docs/decompose.md
 * step 4). With more bones than the creature's 27 weighted joints its exact
 * LBS animation can be reproduced exactly, the energy falls geometrically
 * towards 0 and its relative decrease stays at the linear rate: the
 * relative rule alone does not end the run (it runs to the cap, like the
 * bench's 50k-vertex creature at 60 bones). By default the run ends
 * converged, by the floor, at RMS ≤ rms_floor · diagonal; Bone_Anim (test
 * bones N) still ends by the relative rule. The creature: 5000 vertices x
 * 100 frames of the Walk, 60 bones (the bench's 50k case at a tenth of the
 * vertices). The run without the floor also has the re-seeding off (reseed
 * = -1): it shows the plain alternation's geometric descent, which only the
 * floor ends; with the re-seeding (the default; 2 bones re-seeded by
 * iteration 7) that run stalls and ends by the relative rule at 88
 * iterations, RMS 7.4e-7 of the diagonal (docs/bench.md). */
#define FLOOR_NV 5000
#define FLOOR_F 100
#define FLOOR_B 60
static void test_creature_floor(void)
{
    double *rest = NULL;
    skf_meshseq *seq = creature_seq(FLOOR_NV, 0, FLOOR_F, &rest);
    if (!seq)
        return;
    skf_decomposition *d[2] = {NULL, NULL};
    for (int off = 0; off < 2; ++off) {
        skf_error err;
        skf_decompose_options o = {.bone_count = FLOOR_B, .rms_floor = off ? -1 : 0,
                                   .reseed = off ? -1 : 0, .max_iterations = off ? 200 : 0};
#if defined(__SANITIZE_ADDRESS__)
        if (off)
            break; /* ASan: the default run only */
#endif
        skf_status st = skf_decompose(seq->vertex_count, seq->frame_count, seq->positions, rest,
                                      seq->triangle_count, seq->triangles, &o, &d[off], &err);
        CHECK_MSG(st == SKF_OK, "%s", err.message);
        if (!d[off])
            continue;
        printf("creature Walk %zu v x %zu f, %d bones, rms_floor %s: %zu iterations (%s), RMS "
               "%.4g %% of the diagonal\n", d[off]->vertex_count, d[off]->frame_count, FLOOR_B,
               off ? "off" : "default", d[off]->iterations,
               d[off]->hit_cap ? "CAP" : d[off]->floor_reached ? "converged: floor" : "converged",
               100 * d[off]->metrics.rms / d[off]->metrics.diagonal);
        CHECK(finite_decomposition(d[off]));
        check_weights(d[off], "creature floor");
    }
    if (d[0]) {
        CHECK(!d[0]->hit_cap && d[0]->floor_reached);
        CHECK(d[0]->metrics.rms <= SKF_DECOMPOSE_DEFAULT_RMS_FLOOR * d[0]->metrics.diagonal);
    }
    if (d[0] && d[1]) {
        /* without the floor (and the re-seeding): the relative rule alone
         * runs to the cap (200 here, the former default, to keep the test
         * short), further down than the floor's run */
        CHECK(d[1]->hit_cap && !d[1]->floor_reached);
        CHECK(d[1]->iterations > d[0]->iterations);
        CHECK(d[1]->metrics.rms <= d[0]->metrics.rms);
    }
    skf_decomposition_free(d[0]);
    skf_decomposition_free(d[1]);
    free(rest);
    skf_meshseq_free(seq);
}

#if !defined(__SANITIZE_ADDRESS__)
/* The lightest bone's weight, in vertices' worth (Σ_j w_ij). */
static double lightest_bone(const skf_decomposition *d)
{
    size_t B = d->bone_count, K = d->max_influences;
    double *m = calloc(B, sizeof *m), least = HUGE_VAL;
    if (!m)
        return least;
    for (size_t k = 0; k < d->vertex_count * K; ++k)
        m[d->weight_bone[k]] += d->weight[k];
    for (size_t b = 0; b < B; ++b)
        least = m[b] < least ? m[b] : least;
    free(m);
    return least;
}
#endif

/* Re-seeding bones that lose their skin (issue 16 §1; docs/decompose.md
 * step 4, reseed.c). The creature at the bench's anchor size (5000 v x 24 f
 * x 30 bones, Walk): without it 4 bones fall below 3 vertices' worth of
 * weight by iteration 20 and stay there, and the alternation crawls to the
 * cap (100 here, to keep the test short) still improving by more than the
 * tolerance. By default (cap 500) the run ends converged, by the floor
 * after ~350 alternations (it ended by the relative rule at 49 before the
 * rule's guard against stopping mid-descent, 3.7 times higher in RMS), at a
 * lower RMS. Also the same bits at 1, 2 and 3 threads over 15
 * iterations (3 re-seeds). */
static void test_creature_reseed(void)
{
    double *rest = NULL;
#if defined(__SANITIZE_ADDRESS__)
    skf_meshseq *seq = creature_seq(1000, 0, 24, &rest); /* ASan: the re-seed's memory, 5 of them */
#else
    skf_meshseq *seq = creature_seq(5000, 0, 24, &rest);
#endif
    if (!seq)
        return;
#if !defined(__SANITIZE_ADDRESS__)
    skf_decomposition *d[2] = {NULL, NULL};
    for (int off = 0; off < 2; ++off) {
        skf_error err;
        skf_decompose_options o = {.bone_count = 30, .max_iterations = off ? 100 : 0,
                                   .reseed = off ? -1 : 0};
        skf_status st = skf_decompose(seq->vertex_count, seq->frame_count, seq->positions, rest,
                                      seq->triangle_count, seq->triangles, &o, &d[off], &err);
        CHECK_MSG(st == SKF_OK, "%s", err.message);
        if (!d[off])
            continue;
        printf("creature Walk %zu v x %zu f, 30 bones, re-seeding %s: %zu re-seeded, %zu iterations "
               "(%s, best %zu), RMS %.4g %% of the diagonal, lightest bone %.2f vertices of "
               "weight\n", d[off]->vertex_count, d[off]->frame_count, off ? "off" : "on (default)",
               d[off]->reseeded, d[off]->iterations, d[off]->hit_cap ? "CAP" : "converged",
               d[off]->best_iteration, 100 * d[off]->metrics.rms / d[off]->metrics.diagonal,
               lightest_bone(d[off]));
        CHECK(finite_decomposition(d[off]));
        check_weights(d[off], "creature reseed");
    }
    if (d[0]) {
        CHECK(!d[0]->hit_cap && d[0]->floor_reached); /* converged, by the floor (~350 alternations) */
        CHECK(d[0]->reseeded > 0 && d[0]->reseeded <= 30);
    }
    if (d[1]) {
        /* without it: bones without skin, and the cap */
        CHECK(d[1]->reseeded == 0);
        CHECK(lightest_bone(d[1]) < 3);
        CHECK(d[1]->hit_cap);
    }
    if (d[0] && d[1])
        CHECK(d[0]->metrics.rms < d[1]->metrics.rms);
    skf_decomposition_free(d[0]);
    skf_decomposition_free(d[1]);
#endif
    check_threads("creature re-seeded", seq->vertex_count, seq->frame_count, seq->positions, rest,
                  seq->triangle_count, seq->triangles, 30, 15, false, 0);
    free(rest);
    skf_meshseq_free(seq);
}

/* Converged by default, by the relative rule (issue 16 §1; docs/decompose.md
 * step 4): the creature's Walk at 2021 v x 24 f x 30 bones, which main of
 * 2026-12-02 ran to its cap of 200 still improving. It ends by the rule, not
 * the floor, after more than 200 alternations (the default cap is 500), and
 * it is converged in the rule's sense: a run with a 100 times tighter
 * tolerance, given 50 more alternations, lowers the energy (N·F·RMS²) by
 * at most the rule's tolerance per alternation on average. With Gauss–Newton
 * steps (gauss_newton = 3, opt-in; gauss_newton.c) the run ends lower, in
 * fewer alternations (measured 2026-12-04: 99 alternations, RMS 1.76e-4,
 * against 223 and 2.15e-4).
 * Not in ASan (a few seconds here, minutes there). */
static void test_creature_rule(void)
{
#if !defined(__SANITIZE_ADDRESS__)
    double *rest = NULL;
    skf_meshseq *seq = creature_seq(2000, 0, 24, &rest);
    if (!seq)
        return;
    skf_decomposition *d[3] = {NULL, NULL, NULL};
    for (int tight = 0; tight < 3; ++tight) {
        skf_error err;
        skf_decompose_options o = {.bone_count = 30};
        if (tight == 1) {
            if (!d[0])
                break;
            o.tolerance = SKF_DECOMPOSE_DEFAULT_TOLERANCE / 100;
            o.max_iterations = d[0]->iterations + 50;
        }
        if (tight == 2)
            o.gauss_newton = 3;
        skf_status st = skf_decompose(seq->vertex_count, seq->frame_count, seq->positions, rest,
                                      seq->triangle_count, seq->triangles, &o, &d[tight], &err);
        CHECK_MSG(st == SKF_OK, "%s", err.message);
        if (!d[tight])
            continue;
        printf("creature Walk %zu v x %zu f, 30 bones, tolerance %s: %zu iterations (%s, best %zu), "
               "RMS %.6g (%.5f %% of the diagonal)\n", d[tight]->vertex_count, d[tight]->frame_count,
               tight == 1 ? "default / 100" : tight == 2 ? "default, Gauss-Newton steps every 3" : "default",
               d[tight]->iterations,
               d[tight]->hit_cap ? "CAP" : d[tight]->floor_reached ? "floor" : "rule",
               d[tight]->best_iteration, d[tight]->metrics.rms,
               100 * d[tight]->metrics.rms / d[tight]->metrics.diagonal);
        CHECK(finite_decomposition(d[tight]));
    }
    if (d[0]) {
        CHECK(!d[0]->hit_cap && !d[0]->floor_reached);
        CHECK(d[0]->iterations > 200);
    }
    if (d[0] && d[1]) {
        double e0 = d[0]->metrics.rms * d[0]->metrics.rms, e1 = d[1]->metrics.rms * d[1]->metrics.rms;
        double extra = (double)(d[1]->iterations - d[0]->iterations), rate = (e0 - e1) / (e0 * extra);
        printf("  the %g further alternations lowered E by %.3g per alternation (tolerance %g)\n",
               extra, rate, SKF_DECOMPOSE_DEFAULT_TOLERANCE);
        CHECK(d[1]->iterations > d[0]->iterations);
        CHECK(rate <= SKF_DECOMPOSE_DEFAULT_TOLERANCE);
    }
    if (d[0] && d[2]) {
        CHECK(d[0]->newton_steps == 0 && d[2]->newton_steps > 0);
        CHECK(!d[2]->hit_cap);
        CHECK(d[2]->metrics.rms < d[0]->metrics.rms);
        CHECK(d[2]->iterations < d[0]->iterations);
    }
    skf_decomposition_free(d[0]);
    skf_decomposition_free(d[1]);
    skf_decomposition_free(d[2]);
    free(rest);
    skf_meshseq_free(seq);
#endif
}

/* The same bits at 1, 2 and 3 threads (check_threads). */
static void test_threads_bit_identical(void)
{
    double *rest = NULL;
    skf_meshseq *seq = creature_seq(3000, 0, 25, &rest);
    if (!seq)
        return;
    check_threads("creature 3000", seq->vertex_count, seq->frame_count, seq->positions, rest,
                  seq->triangle_count, seq->triangles, 20, 12, false, 0);
    /* with Gauss–Newton steps (opt-in; every alternation, so that 30 hold a few) */
    check_threads("creature 3000, --gauss-newton 1", seq->vertex_count, seq->frame_count, seq->positions,
                  rest, seq->triangle_count, seq->triangles, 20, 30, false, 1);
    free(rest);
    skf_meshseq_free(seq);
}

/* Anderson acceleration (issue 16 §1). (a) On the creature at the bench's
 * anchor size (5000 v x 24 f x 30 bones, exact LBS: without re-seeding the
 * plain alternation keeps improving by more than the tolerance until the
 * cap of 200; with it, the default, it ends by the rule at 49) the
 * accelerated run (m = 5) ends by the stopping rule. (b) The safeguard: the
 * written iterate is the lowest-energy one met, never a worse last one. */
static void test_anderson(void)
{
    double *rest = NULL;
#if defined(__SANITIZE_ADDRESS__)
    /* ASan: a smaller creature, long enough that the mixed steps (and a
     * rejection) run under the memory checks */
    skf_meshseq *seq = creature_seq(1000, 0, 24, &rest);
#else
    skf_meshseq *seq = creature_seq(5000, 0, 24, &rest);
#endif
    if (!seq)
        return;
    size_t N = seq->vertex_count, F = seq->frame_count;
    skf_error err;
#if !defined(__SANITIZE_ADDRESS__)
    for (int plain = 0; plain < 2; ++plain) {
        skf_decompose_options o = {.bone_count = 30, .anderson = plain ? 0 : 5};
        skf_decomposition *d = NULL;
        CHECK(skf_decompose(N, F, seq->positions, rest, seq->triangle_count, seq->triangles, &o,
                            &d, &err) == SKF_OK);
        if (!d)
            continue;
        printf("creature 5000 x 24, 30 bones, %s: %zu iterations (%s), %zu mixed, %zu rejected, "
               "RMS %.4g %% of the diagonal\n", plain ? "plain" : "Anderson", d->iterations,
               d->hit_cap ? "CAP" : "converged", d->accel_steps, d->accel_rejected,
               100 * d->metrics.rms / d->metrics.diagonal);
        if (!plain) {
            CHECK(!d->hit_cap);
            CHECK(d->accel_steps > 0);
        } else {
            CHECK(d->accel_steps == 0);
        }
        CHECK(finite_decomposition(d));
        skf_decomposition_free(d);
    }
#endif
    /* The runs are deterministic, so a larger budget repeats a smaller one's
     * iterations: the kept (lowest) energy can only fall with the budget,
     * whatever the mixed steps did in between. Not asserted: that it stays at
     * or below the plain alternation's at every budget — measured, it does
     * not (50 iterations: 1.6 % higher RMS; docs/bench.md). The re-seeding is
     * off here (reseed = -1): after a re-seed the best energy can stay flat
     * for `patience` iterations (the 5000 x 24 Walk: iterations 45-49),
     * which ends a run even at tolerance 1e-300, short of its budget. */
    static const size_t budgets[3] = {10, 25, 50};
    double last = HUGE_VAL;
    for (size_t bi = 0; bi < 3; ++bi) {
        double rms[2] = {0, 0};
        size_t rejected = 0;
        for (int plain = 0; plain < 2; ++plain) {
            skf_decompose_options o = {.bone_count = 30, .anderson = plain ? 0 : 5,
                                       .max_iterations = budgets[bi], .tolerance = 1e-300,
                                       .reseed = -1};
            skf_decomposition *d = NULL;
            CHECK(skf_decompose(N, F, seq->positions, rest, seq->triangle_count, seq->triangles,
                                &o, &d, &err) == SKF_OK);
            if (!d)
                continue;
            rms[plain] = d->metrics.rms;
            if (!plain)
                rejected = d->accel_rejected;
            CHECK(d->iterations == budgets[bi]);
            CHECK(d->best_iteration <= d->iterations);
            CHECK(finite_decomposition(d));
            skf_decomposition_free(d);
        }
        printf("  %zu iterations: RMS Anderson %.6g (%zu steps rejected), plain %.6g (ratio "
               "%.4f)\n", budgets[bi], rms[0], rejected, rms[1], rms[0] / rms[1]);
        CHECK(rms[0] > 0 && rms[0] <= last);
        last = rms[0];
    }
    free(rest);
    skf_meshseq_free(seq);
}

/* Over-relaxed weight steps (skf_decompose_options.weight_relaxation): (a)
 * out-of-range values are refused naming the option; (b) on Bone_Anim at 20
 * bones, β = 0.5 moves vertices (relaxed_solves > 0; none with β = 0), ends
 * by the rule below issue 16's error bar 0.0029 (measured 0.0025084, the
 * plain run's 0.0028699), with valid weights; (c) the same bits at 1 and 2
 * threads (each vertex's step is its own). */
static void test_relax(void)
{
    skf_error err;
    double rest1[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, frames1[18] = {0};
    memcpy(frames1, rest1, sizeof rest1);
    memcpy(frames1 + 9, rest1, sizeof rest1);
    const double bad[3] = {-0.1, 1.5, NAN};
    for (int b = 0; b < 3; ++b) {
        skf_decompose_options o = {.bone_count = 1, .weight_relaxation = bad[b]};
        skf_decomposition *d = NULL;
        skf_status st = skf_decompose(3, 2, frames1, rest1, 0, NULL, &o, &d, &err);
        CHECK(st == SKF_ERR_ARGUMENT && !d);
        CHECK(st == SKF_ERR_ARGUMENT && strstr(err.message, "weight_relaxation"));
        skf_decomposition_free(d);
    }
    const char *abc = skf_test_data("dembones/Bone_Anim.abc");
    if (!abc) {
        if (skf_checks_failed) /* the option checks above failed: report that */
            return;
        SKF_SKIP("dembones data absent (the option checks passed)");
    }
    skf_meshseq *seq = NULL;
    skf_alembic_options ao = {.apply_parent_xform = true};
    CHECK(skf_alembic_read(abc, &ao, &seq, &err) == SKF_OK);
    if (!seq)
        return;
    skf_decomposition *dt[3] = {NULL, NULL, NULL};
    for (int r = 0; r < 3; ++r) { /* β 0.5 at 1 and 2 threads, β 0 at 1 */
        skf_decompose_options o = {.bone_count = 20, .weight_relaxation = r < 2 ? 0.5 : 0,
                                   .threads = r == 1 ? 2 : 1};
#if defined(__SANITIZE_ADDRESS__)
        o.max_iterations = 6; /* ASan: the relaxed steps run under the checks */
#endif
        CHECK(skf_decompose(seq->vertex_count, seq->frame_count, seq->positions, NULL,
                            seq->triangle_count, seq->triangles, &o, &dt[r], &err) == SKF_OK);
        if (dt[r])
            printf("Bone_Anim 20 bones, weight_relaxation %.1f, %d thread(s): %zu iterations (%s), "
                   "%zu relaxed solves, RMS %.7f\n", o.weight_relaxation, r == 1 ? 2 : 1,
                   dt[r]->iterations, dt[r]->hit_cap ? "cap" : "converged", dt[r]->relaxed_solves,
                   dt[r]->metrics.rms);
    }
    if (dt[0] && dt[1] && dt[2]) {
        size_t N = seq->vertex_count, K = dt[0]->max_influences;
        CHECK(dt[0]->relaxed_solves > 0);
        CHECK(dt[2]->relaxed_solves == 0);
        CHECK(finite_decomposition(dt[0]));
#if !defined(__SANITIZE_ADDRESS__)
        CHECK(!dt[0]->hit_cap);
        CHECK(dt[0]->metrics.rms <= 0.0029);
#endif
        CHECK(dt[1]->iterations == dt[0]->iterations);
        CHECK(dt[1]->relaxed_solves == dt[0]->relaxed_solves);
        CHECK(!memcmp(dt[0]->transforms, dt[1]->transforms,
                      dt[0]->frame_count * dt[0]->bone_count * 12 * sizeof(double)));
        CHECK(!memcmp(dt[0]->weight, dt[1]->weight, N * K * sizeof(double)));
        CHECK(!memcmp(dt[0]->weight_bone, dt[1]->weight_bone, N * K * sizeof(uint32_t)));
    }
    for (int r = 0; r < 3; ++r)
        skf_decomposition_free(dt[r]);
    skf_meshseq_free(seq);
}

/* Degenerate inputs: a clear error or a warning, never NaN. */
static void test_degenerate(void)
{
    double *rest = NULL;
    skf_meshseq *seq = creature_seq(600, 0, 9, &rest);
    if (!seq)
        return;
    size_t N = seq->vertex_count, F = seq->frame_count, T = seq->triangle_count;
    skf_error err;
    /* static: every frame is the rest pose */
    double *stat = malloc(F * N * 3 * sizeof *stat);
    for (size_t f = 0; f < F; ++f)
        memcpy(stat + f * N * 3, rest, N * 3 * sizeof *stat);
    skf_warnings w = {0};
    skf_decompose_options o = {.bone_count = 8, .warnings = &w};
    skf_decomposition *d = NULL;
    skf_status st = skf_decompose(N, F, stat, rest, T, seq->triangles, &o, &d, &err);
    CHECK_MSG(st == SKF_OK, "%s", err.message);
    if (d) {
        printf("static sequence: %zu iterations, RMS %.3g, %zu warnings%s%s\n", d->iterations,
               d->metrics.rms, w.count, w.count ? ": " : "", w.count ? w.items[0].text : "");
        CHECK(finite_decomposition(d));
        CHECK(d->metrics.rms <= 1e-9 * d->metrics.diagonal);
        CHECK(!d->hit_cap);
        CHECK(w.count >= 1 && strstr(w.items[0].text, "does not move"));
        check_weights(d, "static");
    }
    skf_decomposition_free(d);
    skf_warnings_release(&w);
    /* one frame: an error that says why */
    d = NULL;
    o = (skf_decompose_options){.bone_count = 8};
    st = skf_decompose(N, 1, seq->positions + 4 * N * 3, rest, T, seq->triangles, &o, &d, &err);
    printf("one frame: %s\n", st ? err.message : "accepted?");
    CHECK(st == SKF_ERR_ARGUMENT && strstr(err.message, "at least 2 frames"));
    CHECK(d == NULL);
    /* more bones than vertices */
    d = NULL;
    o = (skf_decompose_options){.bone_count = N + 1};
    st = skf_decompose(N, F, seq->positions, rest, T, seq->triangles, &o, &d, &err);
    printf("more bones than vertices: %s\n", st ? err.message : "accepted?");
    CHECK(st == SKF_ERR_ARGUMENT && strstr(err.message, "bones possible"));
    CHECK(d == NULL);
    /* counts that size the histories: SIZE_MAX (which wrapped iters + 1 to
     * an empty array) and one past the bound are refused naming the field;
     * the bound itself passes the check */
    const char *fields[] = {"max_iterations", "patience", "skeleton_rounds", "max_skeleton_rounds"};
    for (int q = 0; q < 4; ++q)
        for (int big = 0; big < 2; ++big) {
            size_t v = big ? SIZE_MAX : SKF_DECOMPOSE_MAX_ROUNDS + 1;
            o = (skf_decompose_options){.bone_count = 8, .skeleton = q >= 2};
            size_t *dst = q == 0 ? &o.max_iterations : q == 1 ? &o.patience
                        : q == 2 ? &o.skeleton_rounds : &o.max_skeleton_rounds;
            *dst = v;
            d = NULL;
            st = skf_decompose(N, F, seq->positions, rest, T, seq->triangles, &o, &d, &err);
            CHECK_MSG(st == SKF_ERR_ARGUMENT && err.kind == SKF_KIND_OPTION && err.option &&
                          strstr(err.option, fields[q]) && strstr(err.message, fields[q]) && d == NULL,
                      "%s = %zu: status %d, %s", fields[q], v, (int)st, st ? err.message : "accepted");
            if (q == 0 && big)
                printf("max_iterations SIZE_MAX: %s\n", err.message);
        }
    /* NaN in a frame */
    o = (skf_decompose_options){.bone_count = 8};
    double *nan_frames = malloc(F * N * 3 * sizeof *nan_frames);
    memcpy(nan_frames, seq->positions, F * N * 3 * sizeof *nan_frames);
    nan_frames[(3 * N + 7) * 3 + 1] = NAN;
    st = skf_decompose(N, F, nan_frames, rest, T, seq->triangles, &o, &d, &err);
    printf("NaN frame: %s\n", st ? err.message : "accepted?");
    CHECK(st == SKF_ERR_FORMAT && strstr(err.message, "frame 3 vertex 7"));
    free(nan_frames);
    free(stat);
    free(rest);
    skf_meshseq_free(seq);
}

/* No argument: NNLS, cylinder, the bone-count error. "floor": the stopping
 * rule's accuracy floor on the creature. "rule": a formerly capped creature
 * run ends by the relative rule. "reseed": bones that lose their
 * skin, re-seeded. "bones N": Bone_Anim
 * at N bones (separate ctest entries keep each under a minute in ASan). */
int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "quaternius")) {
        test_quaternius();
        return skf_test_done();
    }
    if (argc > 1 && !strcmp(argv[1], "creature")) {
        test_creature_converges();
        test_threads_bit_identical();
        return skf_test_done();
    }
    if (argc > 1 && !strcmp(argv[1], "reseed")) {
        test_creature_reseed();
        return skf_test_done();
    }
    if (argc > 1 && !strcmp(argv[1], "rule")) {
        test_creature_rule();
        return skf_test_done();
    }
    if (argc > 1 && !strcmp(argv[1], "floor")) {
        test_creature_floor();
        return skf_test_done();
    }
    if (argc > 1 && !strcmp(argv[1], "anderson")) {
        test_anderson();
        return skf_test_done();
    }
    if (argc > 1 && !strcmp(argv[1], "relax")) {
        test_relax();
        return skf_test_done();
    }
    if (argc > 1 && !strcmp(argv[1], "degenerate")) {
        test_degenerate();
        return skf_test_done();
    }
    if (argc > 2 && !strcmp(argv[1], "bones")) {
        test_bone_anim(atoi(argv[2]));
        return skf_test_done();
    }
    test_nnls();
    test_cylinder("poses-1");
    test_cylinder("poses-2");
    test_bone_anim(-1);
    return skf_test_done();
}
