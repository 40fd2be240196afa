/* bench_skinning: linear blend skinning throughput (vertices × frames per
 * second) on the procedural creature (include/skinfit/creature.h) at 5k, 50k
 * and 200k vertices, one thread and all OpenMP threads, with the per-frame
 * pose evaluation (clip sampling + hierarchy) timed apart, and the peak
 * resident memory (getrusage) after each size.
 *
 * Each measurement evaluates every frame of the creature's Walk clip at its
 * key rate, skinning into one caller buffer (what `bake` does per frame);
 * the figure is the minimum over repetitions.
 *
 * Usage: bench_skinning [repetitions=5] */
#include "skinfit/creature.h"
#include "skinfit/gltf.h"
#include "skinfit/rig.h"

#include <omp.h>
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

/* Seconds to skin all frames with `threads` (min over reps); pose time out. */
static double time_clip(const skf_rig *rig, const skf_clip *clip, skf_pose *pose, double *out,
                        size_t frames, double fps, int threads, int reps, double *pose_s,
                        double *cpu_s)
{
    double best = 1e300, best_pose = 1e300, best_cpu = 1e300;
    for (int r = 0; r < reps; ++r) {
        double tp = 0, t0 = bench_wall(), c0 = bench_cpu();
        for (size_t f = 0; f < frames; ++f) {
            double a = bench_wall();
            skf_pose_eval(rig, clip, clip->start + (double)f / fps, pose);
            tp += bench_wall() - a;
            skf_skin(rig, pose, out, threads);
        }
        double t = bench_wall() - t0, c = bench_cpu() - c0;
        if (c < best_cpu)
            best_cpu = c;
        if (t < best)
            best = t;
        if (tp < best_pose)
            best_pose = tp;
    }
    *pose_s = best_pose;
    *cpu_s = best_cpu;
    return best;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    if (reps < 1)
        reps = 1;
    int all = omp_get_max_threads();
    const size_t sizes[3] = {5000, 50000, 200000};
    double load[1] = {0};
    getloadavg(load, 1);
    printf("bench_skinning: creature Walk clip, every frame at the key rate, min of %d runs, %d threads available, load average %.1f\n",
           reps, all, load[0]);
    printf("wall-clock figures, and (cpu) = from process CPU time, what an idle core would give\n");
    printf("%9s %6s %6s | %15s %15s %14s %7s | %10s %10s | %9s\n", "vertices", "nnz/v", "frames",
           "1 thr Mv*f/s", "1 thr (cpu)", "all Mv*f/s", "speedup", "ns/vertex", "pose us/f", "peak MiB");
    for (int s = 0; s < 3; ++s) {
        skf_creature_options opt = {.vertices = sizes[s]};
        skf_gltf *doc = NULL;
        skf_rig *rig = NULL;
        skf_clip *clip = NULL;
        skf_error err;
        if (skf_creature_build(&opt, &doc, &err) || skf_rig_from_gltf(doc, 0, NULL, &rig, NULL, &err) ||
            skf_clip_from_gltf(doc, skf_clip_find(doc, "Walk", NULL), &clip, &err)) {
            fprintf(stderr, "bench_skinning: %s\n", err.message);
            return 1;
        }
        skf_gltf_free(doc);
        double fps = skf_clip_frame_fps(clip, 0);
        size_t frames = skf_clip_frame_count(clip, 0);
        double *out = malloc(rig->vertex_count * 3 * sizeof *out);
        skf_pose pose;
        if (!out || skf_pose_init(&pose, rig, &err)) {
            fprintf(stderr, "bench_skinning: out of memory\n");
            return 1;
        }
        double p1, pa, c1, ca;
        double t1 = time_clip(rig, clip, &pose, out, frames, fps, 1, reps, &p1, &c1);
        double ta = time_clip(rig, clip, &pose, out, frames, fps, all, reps, &pa, &ca);
        double vf = (double)rig->vertex_count * (double)frames;
        double nnz = (double)rig->weight_offsets[rig->vertex_count] / (double)rig->vertex_count;
        printf("%9zu %6.2f %6zu | %15.1f %15.1f %14.1f %7.2f | %10.2f %10.2f | %9.1f\n", rig->vertex_count,
               nnz, frames, vf / t1 / 1e6, vf / c1 / 1e6, vf / ta / 1e6, t1 / ta, c1 / vf * 1e9,
               p1 / (double)frames * 1e6, bench_peak_mib());
        (void)ca;
        skf_pose_release(&pose);
        free(out);
        skf_clip_free(clip);
        skf_rig_free(rig);
    }
    return 0;
}
