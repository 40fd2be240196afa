/* bench_decompose: skinning decomposition timings against Dem Bones (issue 16).
 *   1. Bone_Anim (754 vertices x 400 frames) at 5 / 10 / 20 bones, one
 *      thread, default options (converged by the stopping rule): CPU seconds
 *      and RMS printed beside Dem Bones' figures of the issue (measured on
 *      this machine type, one thread, nnz = 4) as ratios, and against the
 *      targets (1/10 of its CPU time, RMS of its transAffine=0 run);
 *   2. the weight step at 1, 2 and 3 threads (Bone_Anim, 20 bones): speed-up,
 *      its bound from thread CPU times, and whether the results are
 *      bit-identical;
 *   3. --skeleton on Bone_Anim at 10 bones (skeletal error beside the flat);
 *   4. the procedural creature: 5000 v x 24 f x 30 bones, and 50k v x 100 f x
 *      60 bones (CPU, peak memory against the decoded input).
 * Ends with the markdown table that README.md and docs/decompose.md quote.
 *   Bone_Anim and the creatures also with the opt-in Anderson acceleration, Bone_Anim
 *   also with the opt-in over-relaxed weight steps (weight_relaxation 0.5).
 *   --threads-only: only section 2, at 5 / 10 / 20 bones and on the creature
 *      5000 v x 24 f x 30 bones, at 1, 2 and 3 threads.
 *   --repeat R: section 2 runs each thread count R times (default 5) and
 *      reports each count's fastest weight step (wall): the step is ~0.1 s
 *      of work, so one run's wall ratio scatters by ±20 % on an idle machine;
 *      the thread-CPU figures and the bit-identity are the first run's.
 * usage: bench_decompose [--skip-creature] [--skip-anderson] [--threads-only] [--repeat R]
 *        [--vertices N]
 *        (env SKF_DATA) */
#include "skinfit/creature.h"
#include "skinfit/decompose.h"
#include "skinfit/gltf.h"
#include "skinfit/rig.h"
#include "skinfit/meshseq.h"

#include <omp.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Process CPU seconds (all threads): on a shared machine the wall time
 * mostly measures the other jobs; CPU time is the comparable figure. */
static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

static double peak_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

/* Dem Bones on Bone_Anim (issue 16's table): CPU s and RMS at its defaults,
 * and the RMS of its transAffine=0 run (the error bar). */
static const size_t db_bones[3] = {5, 10, 20};
static const double db_cpu[3] = {1.09, 2.49, 6.09};
static const double db_rms[3] = {0.02687, 0.01570, 0.01011};
static const double db_bar[3] = {0.0155, 0.0062, 0.0029};

typedef struct row {
    double cpu, rms, erms;
    size_t it;
    bool converged;
} row;

/* One decomposition of seq with options o, its process CPU seconds in *cpu:
 * NULL (the error printed) on failure. */
static skf_decomposition *timed_decompose(const skf_meshseq *seq, const skf_decompose_options *o,
                                          double *cpu)
{
    skf_error err;
    skf_decomposition *d = NULL;
    double c0 = cpu_seconds();
    if (skf_decompose(seq->vertex_count, seq->frame_count, seq->positions, NULL,
                      seq->triangle_count, seq->triangles, o, &d, &err)) {
        printf("Bone_Anim: %s\n", err.message);
        return NULL;
    }
    *cpu = cpu_seconds() - c0;
    return d;
}

/* The procedural creature of `verts` vertices baked at `frames` frames over
 * its first clip; false (message printed) on failure, the caller frees all. */
static bool creature_bake(size_t verts, size_t frames, skf_gltf **doc, skf_rig **rig,
                          skf_clip **clip, skf_meshseq **cs)
{
    skf_error err;
    skf_creature_options co = {.vertices = verts};
    if (skf_creature_build(&co, doc, &err) || skf_rig_from_gltf(*doc, 0, NULL, rig, NULL, &err) ||
        skf_clip_from_gltf(*doc, 0, clip, &err) ||
        skf_rig_bake(*rig, *clip, (double)(frames - 1) / (*clip)->duration, 0, NULL, cs, &err)) {
        printf("creature: %s\n", err.message);
        return false;
    }
    return true;
}

static int run_creature(size_t verts, size_t frames, size_t bones, int threads, int anderson,
                        const char *note)
{
    skf_error err;
    skf_gltf *doc = NULL;
    skf_rig *rig = NULL;
    skf_clip *clip = NULL;
    skf_meshseq *cs = NULL;
    skf_decomposition *d = NULL;
    int rc = 1;
    if (!creature_bake(verts, frames, &doc, &rig, &clip, &cs))
        goto out;
    double input_mib = (double)cs->vertex_count * (double)cs->frame_count * 24.0 / 1048576.0;
    double mem0 = peak_mib();
    skf_decompose_options o = {.bone_count = bones, .threads = threads, .anderson = anderson};
    double c0 = cpu_seconds();
    if (skf_decompose(cs->vertex_count, cs->frame_count, cs->positions, rig->rest_positions,
                      cs->triangle_count, cs->triangles, &o, &d, &err)) {
        printf("creature decompose: %s\n", err.message);
        goto out;
    }
    double cpu = cpu_seconds() - c0;
    printf("creature %zu v x %zu f x %zu bones, %d thread(s)%s: CPU %.2f s (wall %.2f, init %.2f, "
           "frame basis %.2f: rank %zu of %zu; weight steps %.2f), %zu iterations (%s; %zu mixed, %zu rejected), RMS %.3g = %.4f %% of the diagonal; peak "
           "memory %.0f MiB (%.0f before), decoded input %.0f MiB  %s\n",
           cs->vertex_count, cs->frame_count, bones, threads, anderson > 0 ? ", --anderson 5" : "",
           cpu, d->seconds_total, d->seconds_init, d->seconds_basis,
           d->frame_reduced ? d->frame_rank : 3 * d->frame_count, 3 * d->frame_count,
           d->seconds_weights, d->iterations,
           d->hit_cap ? "CAP" : d->floor_reached ? "converged: RMS floor" : "converged",
           d->accel_steps, d->accel_rejected, d->metrics.rms,
           100 * d->metrics.rms / d->metrics.diagonal, peak_mib(), mem0, input_mib, note);
    rc = 0;
out:
    skf_decomposition_free(d);
    skf_meshseq_free(cs);
    skf_clip_free(clip);
    skf_rig_free(rig);
    skf_gltf_free(doc);
    return rc;
}

/* The weight step at 1, 2 and 3 threads (20 alternations): wall speed-up,
 * whether the results are bit-identical, and the same from thread CPU
 * times, which a loaded machine moves much less than wall time: the serial
 * share (the caller's CPU outside the parallel regions), the regions' work
 * summed over threads, and their critical path (the busiest thread). */
static int g_repeat = 5;

static void thread_figure(const char *name, size_t bones, size_t N, size_t F, const double *frames,
                          const double *rest, size_t T, const uint32_t *tris)
{
    skf_error err;
    skf_decomposition *dt[3] = {NULL, NULL, NULL};
    double best_w[3] = {0, 0, 0}, best_total[3] = {0, 0, 0};
    for (int rep = 0; rep < g_repeat; ++rep)
        for (int t = 0; t < 3; ++t) {
            skf_decompose_options o = {.bone_count = bones, .threads = t + 1, .max_iterations = 20};
            skf_decomposition *d = NULL;
            if (skf_decompose(N, F, frames, rest, T, tris, &o, &d, &err)) {
                printf("threads: %s\n", err.message);
                continue;
            }
            if (!rep || d->seconds_weights < best_w[t])
                best_w[t] = d->seconds_weights;
            if (!rep || d->seconds_total < best_total[t])
                best_total[t] = d->seconds_total;
            if (rep)
                skf_decomposition_free(d);
            else
                dt[t] = d;
        }
    if (dt[0] && dt[1] && dt[2]) {
        size_t K = dt[0]->max_influences;
        bool same = true;
        for (int t = 1; t < 3; ++t)
            same = same && dt[t]->iterations == dt[0]->iterations &&
                   !memcmp(dt[0]->transforms, dt[t]->transforms,
                           dt[0]->frame_count * dt[0]->bone_count * 12 * sizeof(double)) &&
                   !memcmp(dt[0]->weight, dt[t]->weight, N * K * sizeof(double)) &&
                   !memcmp(dt[0]->weight_bone, dt[t]->weight_bone, N * K * sizeof(uint32_t));
        printf("weight step, %s %zu bones, 20 iterations, fastest of %d runs: 1 thread %.3f s, "
               "2 threads %.3f s wall: %.2fx (3 threads %.3f s); whole run %.2fx; results at 1/2/3 "
               "threads %s\n",
               name, bones, g_repeat, best_w[0], best_w[1], best_w[0] / best_w[1], best_w[2],
               best_total[0] / best_total[1], same ? "bit-identical" : "DIFFERENT");
        double serial = dt[0]->cpu_weights - dt[0]->cpu_weights_loop_sum;
        double t1 = serial + dt[0]->cpu_weights_loop_sum;
        double t2 = serial + dt[1]->cpu_weights_loop_max;
        /* the same with the dynamic loops' items scheduled as on two idle
         * cores (the busiest thread above also measures the load) */
        double t2s = serial + dt[1]->cpu_weights_loop_sched;
        printf("weight step by thread CPU: serial part %.4f s (%.1f %%), parallel regions %.4f s "
               "at 1 thread, %.4f s summed over 2 threads (work x%.2f), busiest thread %.4f s "
               "(balance %.2f): 2-core speed-up on idle cores <= %.2fx; items scheduled as on "
               "idle cores %.4f s (balance %.2f): <= %.2fx, without the work's growth <= %.2fx\n",
               serial, 100 * serial / t1, dt[0]->cpu_weights_loop_sum, dt[1]->cpu_weights_loop_sum,
               dt[1]->cpu_weights_loop_sum / dt[0]->cpu_weights_loop_sum,
               dt[1]->cpu_weights_loop_max,
               dt[1]->cpu_weights_loop_sum / (2 * dt[1]->cpu_weights_loop_max), t1 / t2,
               dt[1]->cpu_weights_loop_sched,
               dt[1]->cpu_weights_loop_sum / (2 * dt[1]->cpu_weights_loop_sched), t1 / t2s,
               t1 / (serial + dt[1]->cpu_weights_loop_sched * dt[0]->cpu_weights_loop_sum /
                                  dt[1]->cpu_weights_loop_sum));
    }
    for (int t = 0; t < 3; ++t)
        skf_decomposition_free(dt[t]);
}

/* thread_figure on the procedural creature (verts x frames, the rig's rest pose) */
static void creature_thread_figure(size_t verts, size_t frames, size_t bones)
{
    skf_gltf *doc = NULL;
    skf_rig *rig = NULL;
    skf_clip *clip = NULL;
    skf_meshseq *cs = NULL;
    if (creature_bake(verts, frames, &doc, &rig, &clip, &cs))
        thread_figure("creature", bones, cs->vertex_count, cs->frame_count, cs->positions,
                      rig->rest_positions, cs->triangle_count, cs->triangles);
    skf_meshseq_free(cs);
    skf_clip_free(clip);
    skf_rig_free(rig);
    skf_gltf_free(doc);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* as `skinfit decompose` does: no idle OpenBLAS pool polling beside the
     * first rows (skinfit/decompose.h) */
    skf_decompose_release_blas_pool();
    bool creature = true, plain = true, threads_only = false, threads_all = false;
    size_t verts = 50000;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--skip-creature"))
            creature = false;
        else if (!strcmp(argv[i], "--skip-anderson"))
            plain = false;
        else if (!strcmp(argv[i], "--threads-only"))
            threads_only = threads_all = true;
        else if (!strcmp(argv[i], "--vertices") && i + 1 < argc)
            verts = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc && atoi(argv[i + 1]) > 0)
            g_repeat = atoi(argv[++i]);
    }
    const char *dir = getenv("SKF_DATA") ? getenv("SKF_DATA") : "../shared/data";
    char path[4096];
    snprintf(path, sizeof path, "%s/dembones/Bone_Anim.abc", dir);
    skf_error err;
    skf_meshseq *seq = NULL;
    row rows[3] = {{0}}, prow[3] = {{0}};
    bool have = false;
    if (skf_alembic_read(path, NULL, &seq, &err) == SKF_OK) {
        have = true;
        for (int i = 0; i < 3 && plain && !threads_only; ++i) {
            /* the opt-in Anderson acceleration (m = 5) beside the default */
            skf_decompose_options o = {.bone_count = db_bones[i], .threads = 1, .anderson = 5};
            double cpu = 0;
            skf_decomposition *d = timed_decompose(seq, &o, &cpu);
            if (!d)
                continue;
            prow[i] = (row){cpu, d->metrics.rms, d->metrics.erms, d->iterations, !d->hit_cap};
            printf("Bone_Anim %2zu bones, 1 thread, --anderson 5: CPU %.3f s, %zu iterations "
                   "(%s; %zu from mixed states, %zu rejected), RMS %.5f\n", db_bones[i], prow[i].cpu,
                   d->iterations, d->hit_cap ? "CAP" : "converged", d->accel_steps,
                   d->accel_rejected, d->metrics.rms);
            skf_decomposition_free(d);
        }
        for (int i = 0; i < 3 && plain && !threads_only; ++i) {
            /* the opt-in over-relaxed weight steps (β = 0.5) beside the default */
            skf_decompose_options o = {.bone_count = db_bones[i], .threads = 1,
                                       .weight_relaxation = 0.5};
            double cpu = 0;
            skf_decomposition *d = timed_decompose(seq, &o, &cpu);
            if (!d)
                continue;
            printf("Bone_Anim %2zu bones, 1 thread, --relax-weights 0.5: CPU %.3f s, %zu iterations "
                   "(%s; %zu relaxed solves), RMS %.7f\n", db_bones[i], cpu,
                   d->iterations, d->hit_cap ? "CAP" : "converged", d->relaxed_solves,
                   d->metrics.rms);
            skf_decomposition_free(d);
        }
        for (int i = 0; i < 3 && plain && !threads_only; ++i) {
            /* the opt-in Gauss–Newton steps (every 3 alternations) beside
             * the default, in the same run */
            skf_decompose_options o = {.bone_count = db_bones[i], .threads = 1, .gauss_newton = 3};
            double cpu = 0;
            skf_decomposition *d = timed_decompose(seq, &o, &cpu);
            if (!d)
                continue;
            printf("Bone_Anim %2zu bones, 1 thread, --gauss-newton 3: CPU %.3f s, %zu iterations "
                   "(%s; %zu from Gauss-Newton steps, %zu rejected), RMS %.7f\n", db_bones[i], cpu,
                   d->iterations, d->hit_cap ? "CAP" : "converged", d->newton_steps,
                   d->newton_rejected, d->metrics.rms);
            skf_decomposition_free(d);
        }
        for (int i = 0; i < 3 && !threads_only; ++i) {
            skf_decompose_options o = {.bone_count = db_bones[i], .threads = 1};
            double cpu = 0;
            skf_decomposition *d = timed_decompose(seq, &o, &cpu);
            if (!d) {
                have = false;
                continue;
            }
            rows[i] = (row){cpu, d->metrics.rms, d->metrics.erms, d->iterations, !d->hit_cap};
            printf("Bone_Anim %2zu bones, 1 thread: CPU %.3f s (init %.3f, frame basis %.3f: rank %zu "
                   "of %zu, sketch %zu, discarded %.2g; weight steps %.3f wall), "
                   "%zu iterations (%s), RMS %.7f; vs Dem Bones: CPU ratio theirs/ours %.2f (target "
                   ">= 10, i.e. <= %.3f s), RMS %.2f of its default run, %.2f of its transAffine=0 "
                   "run (target <= 1)\n",
                   db_bones[i], rows[i].cpu, d->seconds_init, d->seconds_basis,
                   d->frame_reduced ? d->frame_rank : 3 * d->frame_count, 3 * d->frame_count,
                   d->frame_sketch, d->frame_discarded, d->seconds_weights, d->iterations,
                   d->hit_cap ? "CAP" : d->floor_reached ? "converged: RMS floor" : "converged",
                   d->metrics.rms, db_cpu[i] / rows[i].cpu,
                   db_cpu[i] / 10, d->metrics.rms / db_rms[i], d->metrics.rms / db_bar[i]);
            skf_decomposition_free(d);
        }
        /* weight step: 1 vs 2 (and 3) threads, bit-identity */
        for (int i = 0; i < 3; ++i)
            if (threads_all || db_bones[i] == 20)
                thread_figure("Bone_Anim", db_bones[i], seq->vertex_count, seq->frame_count,
                              seq->positions, NULL, seq->triangle_count, seq->triangles);
        if (threads_only) {
            skf_meshseq_free(seq);
            seq = NULL;
            goto creature_threads;
        }
        /* skeleton */
        {
            skf_decompose_options o = {.bone_count = 10, .threads = 1, .skeleton = true};
            skf_decomposition *d = NULL;
            double c0 = cpu_seconds();
            if (!skf_decompose(seq->vertex_count, seq->frame_count, seq->positions, NULL,
                               seq->triangle_count, seq->triangles, &o, &d, &err)) {
                printf("Bone_Anim 10 bones --skeleton: CPU %.3f s (skeleton %.3f wall): RMS "
                       "skeletal %.5f, flat %.5f (x%.2f)\n",
                       cpu_seconds() - c0, d->seconds_skeleton, d->metrics.rms,
                       d->metrics_flat.rms, d->metrics.rms / d->metrics_flat.rms);
            }
            skf_decomposition_free(d);
        }
        skf_meshseq_free(seq);
    } else {
        printf("Bone_Anim: %s (skipped)\n", err.message);
    }
creature_threads:
    if (threads_only) {
        if (creature)
            creature_thread_figure(5000, 24, 30);
        return 0;
    }
    int rc = 0;
    if (creature) {
        for (int a = 0; a < (plain ? 2 : 1); ++a) {
            if (!rc)
                rc = run_creature(5000, 24, 30, 1, a ? 5 : 0, "(Dem Bones anchor ~10 s in total)");
            if (!rc)
                rc = run_creature(verts, 100, 60, 1, a ? 5 : 0,
                                  "(target <= 10 s; Dem Bones' weight solve alone ~6 min)");
        }
    }
    if (have) {
        printf("\n| Bone_Anim 754 × 400, bones | Dem Bones CPU s | Dem Bones RMS (defaults) | Dem Bones "
               "RMS (transAffine=0) | skinfit CPU s | skinfit RMS | iterations | CPU ratio (DB / ours) |\n"
               "|---|---|---|---|---|---|---|---|\n");
        for (int i = 0; i < 3; ++i)
            printf("| %zu | %.2f | %.5f | %.4f | %.2f | %.5f | %zu%s | %.2f |\n", db_bones[i],
                   db_cpu[i], db_rms[i], db_bar[i], rows[i].cpu, rows[i].rms, rows[i].it,
                   rows[i].converged ? "" : " (cap)", db_cpu[i] / rows[i].cpu);
    }
    return rc;
}
