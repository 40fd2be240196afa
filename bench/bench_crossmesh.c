/* Issue 12 §4.6: cost of the other-shape path, CPU time, one thread.
 * For N = 5k and 50k: the default creature (source) and a variant with legs
 * +25 %, girth +30 % and the other triangulation (target) of about N
 * vertices each; similarity alignment, non-rigid registration, deformation
 * transfer factorisation (the transfer's form: the target's skinning
 * subspace, its joints as pivots), and the per-frame solve (mean over the 37
 * Walk frames, each the best of 3 calls). Peak resident memory of the process after each size.
 * usage: bench_crossmesh [N...]   (default 5000 50000) */
#include "bench_util.h"
#include "skinfit/creature.h"
#include "skinfit/rig.h"
#include "skinfit/surface.h"
#include "skinfit/math.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static skf_rig *creature(const skf_creature_options *o, skf_clip **clip)
{
    skf_error e = {0};
    skf_gltf *d = NULL;
    skf_rig *raw = NULL, *w = NULL;
    if (skf_creature_build(o, &d, &e) || skf_rig_from_gltf(d, 0, NULL, &raw, NULL, &e) ||
        skf_rig_weld(raw, &w, NULL, &e) || (clip && skf_clip_from_gltf(d, 0, clip, &e))) {
        fprintf(stderr, "bench_crossmesh: %s\n", e.message);
        exit(1);
    }
    skf_rig_free(raw);
    skf_gltf_free(d);
    return w;
}

int main(int argc, char **argv)
{
    omp_set_num_threads(1);
    size_t sizes[8] = {5000, 50000};
    int ns = 2;
    if (argc > 1) {
        ns = 0;
        for (int i = 1; i < argc && ns < 8; ++i)
            sizes[ns++] = (size_t)atol(argv[i]);
    }
    printf("%8s %8s | %9s %9s %9s | %8s %9s | %9s\n", "source", "target", "align s", "register s", "iters",
           "DT fac s", "DT ms/fr", "peak MiB");
    for (int k = 0; k < ns; ++k) {
        skf_clip *clip = NULL;
        skf_rig *S = creature(&(skf_creature_options){.vertices = sizes[k]}, &clip);
        skf_rig *T = creature(&(skf_creature_options){.vertices = sizes[k], .leg_scale = 1.25, .girth_scale = 1.3,
                                                      .triangulation = 1},
                              NULL);
        skf_error e = {0};
        skf_alignment al;
        skf_align_options ao = {.max_residual = 1};
        double c0 = bench_cpu();
        if (skf_align_surfaces(S->rest_positions, S->vertex_count, S->triangles, S->triangle_count,
                               T->rest_positions, T->vertex_count, T->triangles, T->triangle_count, &ao, &al, &e)) {
            fprintf(stderr, "%s\n", e.message);
            return 1;
        }
        double c1 = bench_cpu();
        skf_registration r;
        if (skf_register_surfaces(S->rest_positions, S->vertex_count, S->triangles, S->triangle_count,
                                  T->rest_positions, T->vertex_count, T->triangles, T->triangle_count, &al, NULL, &r,
                                  &e)) {
            fprintf(stderr, "%s\n", e.message);
            return 1;
        }
        double c2 = bench_cpu();
        /* the transfer's options: root-weight anchors, the target's skinning
         * subspace with its joints as pivots (transfer_register.c) */
        double *aw = malloc(T->vertex_count * sizeof(double)), *piv = malloc(T->joint_count * 3 * sizeof(double));
        uint32_t *pb = malloc(T->joint_count * 2 * sizeof(uint32_t));
        skf_rig_root_weights(T, aw);
        skf_dt_options dto = {.anchor_weight = aw,
                              .bone_count = T->joint_count,
                              .weight_offsets = T->weight_offsets,
                              .weight_bones = T->weight_joints,
                              .weights = T->weights,
                              .pivot_count = skf_rig_joint_pivots(T, NULL, piv, pb),
                              .pivots = piv,
                              .pivot_bones = pb};
        skf_deformation_transfer *dt = NULL;
        if (skf_deformation_transfer_new(S->rest_positions, S->vertex_count, S->triangles, S->triangle_count,
                                         T->rest_positions, T->vertex_count, T->triangles, T->triangle_count, &r,
                                         al.target_to_source, &dto, &dt, &e)) {
            fprintf(stderr, "%s\n", e.message);
            return 1;
        }
        double c3 = bench_cpu();
        size_t F = 37, n = S->vertex_count;
        double *frame = malloc(n * 3 * sizeof(double)), *anchor = malloc(T->vertex_count * 3 * sizeof(double)),
               *x = malloc(T->vertex_count * 3 * sizeof(double));
        skf_pose pose;
        skf_pose_init(&pose, S, &e);
        skf_correspondence full = {T->vertex_count, malloc(T->vertex_count * sizeof(uint32_t)), r.source_vertex,
                                   r.bary, 0};
        for (size_t v = 0; v < T->vertex_count; ++v)
            full.target_vertex[v] = (uint32_t)v;
        double s2t[16];
        skf_mat4_invert(s2t, al.target_to_source);
        /* per frame the best of 3 timed calls (the shared machine's load only
         * adds time), summed over the 37 frames */
        double dt_cpu = 0;
        for (size_t f = 0; f < F; ++f) {
            skf_pose_eval(S, clip, clip->start + (double)f / 30.0, &pose);
            skf_skin(S, &pose, frame, 1);
            skf_correspondence_apply(&full, s2t, frame, anchor);
            double best = HUGE_VAL;
            for (int rep = 0; rep < 3; ++rep) {
                double a = bench_cpu();
                skf_deformation_transfer_frame(dt, frame, anchor, x, &e);
                double used = bench_cpu() - a;
                best = used < best ? used : best;
            }
            dt_cpu += best;
        }
        printf("%8zu %8zu | %9.3f %9.3f %9d | %8.3f %9.2f | %9.1f\n", S->vertex_count, T->vertex_count, c1 - c0,
               c2 - c1, r.iterations, c3 - c2, 1e3 * dt_cpu / (double)F, bench_peak_mib());
        free(full.target_vertex);
        free(aw);
        free(piv);
        free(pb);
        free(frame);
        free(anchor);
        free(x);
        skf_pose_release(&pose);
        skf_deformation_transfer_free(dt);
        skf_registration_release(&r);
        skf_clip_free(clip);
        skf_rig_free(S);
        skf_rig_free(T);
    }
    return 0;
}
