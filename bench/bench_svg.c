/* bench_svg: frames per second of the Pose Animator pipeline on one thread —
 * per frame: smoothing + face + bone update + deformation of every path
 * ("deform"), and writing the frame's SVG document ("serialise").
 * usage: bench_svg [CHARACTER.svg] [frames]   (default ../shared/data/poseanimator/boy.svg) */
#include "skinfit/svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "../shared/data/poseanimator/boy.svg";
    int frames = argc > 2 ? atoi(argv[2]) : 5000;
    if (frames < 10)
        frames = 10;
    skf_error err = {0};
    skf_svg_character *c = NULL;
    double t0 = now();
    if (skf_svg_load(path, NULL, &c, NULL, &err) != SKF_OK) {
        fprintf(stderr, "bench_svg: %s\n", err.message);
        return 1;
    }
    double t_load = now() - t0;
    /* a sequence: arm wave + body drift + breathing scale, face valid */
    enum { SEQ = 240 };
    skf_svg_pose_frame *seq = malloc(SEQ * sizeof *seq);
    for (int i = 0; i < SEQ; ++i) {
        skf_svg_pose_frame *f = &seq[i];
        memset(f, 0, sizeof *f);
        f->pose_score = 0.9;
        double s = 1 + 0.05 * sin(i * 0.1), tx = 20 * sin(i * 0.05), ty = 10 * cos(i * 0.07);
        for (int j = 0; j < SKF_SVG_JOINT_COUNT; ++j) {
            double xy[2] = {500, 150};
            if (!skf_svg_rest_joint(c, j, xy))
                skf_svg_rest_joint(c, skf_svg_joint_index(j == 12 ? "leftJaw2" : "rightJaw2"), xy);
            if (j == 3 || j == 4) { /* left wrist / elbow wave about the shoulder */
                double sh[2];
                skf_svg_rest_joint(c, 5, sh);
                double th = -0.8 * sin(i * 0.2), x = xy[0] - sh[0], y = xy[1] - sh[1];
                xy[0] = sh[0] + cos(th) * x - sin(th) * y;
                xy[1] = sh[1] + sin(th) * x + cos(th) * y;
            }
            double px = 500 + s * (xy[0] - 500) + tx, py = 500 + s * (xy[1] - 500) + ty;
            if (j < SKF_SVG_POSE_JOINT_COUNT) {
                f->xy[j][0] = px;
                f->xy[j][1] = py;
                f->score[j] = 0.6 + 0.3 * ((i + j) % 3) / 2.0;
            } else {
                f->face_xy[j - SKF_SVG_POSE_JOINT_COUNT][0] = px;
                f->face_xy[j - SKF_SVG_POSE_JOINT_COUNT][1] = py;
            }
        }
        f->has_face = true;
        f->face_score = 0.95;
    }
    skf_svg_animator *a = NULL;
    skf_svg_animator_new(c, NULL, &a, &err);
    /* warm up */
    for (int i = 0; i < 50; ++i)
        skf_svg_animator_update(a, &seq[i % SEQ]);

    double t_deform = 0, t_write = 0;
    size_t bytes = 0;
    double start = now();
    for (int i = 0; i < frames; ++i) {
        double a0 = now();
        skf_svg_animator_update(a, &seq[i % SEQ]);
        double a1 = now();
        char *svg;
        size_t size;
        if (skf_svg_write_frame(a, &svg, &size, &err) != SKF_OK) {
            fprintf(stderr, "bench_svg: %s\n", err.message);
            return 1;
        }
        double a2 = now();
        bytes += size;
        skf_free(svg);
        t_deform += a1 - a0;
        t_write += a2 - a1;
    }
    double total = now() - start;
    size_t nodes = 0;
    for (size_t i = 0; i < skf_svg_path_count(c); ++i)
        nodes += skf_svg_path_node_count(c, i);
    printf("bench_svg: %s: %zu paths, %zu nodes (%zu points with handles), %zu secondary bones; load+bind %.2f ms\n",
           path, skf_svg_path_count(c), nodes, 3 * nodes, skf_svg_secondary_bone_count(c), 1e3 * t_load);
    printf("bench_svg: %d frames, one thread: %.0f frames/s (deform + serialise), %.1f us/frame "
           "(deform %.1f us = %.0f%%, serialise %.1f us = %.0f%%), %.1f KB/frame\n",
           frames, frames / total, 1e6 * total / frames, 1e6 * t_deform / frames,
           100 * t_deform / total, 1e6 * t_write / frames, 100 * t_write / total,
           bytes / 1024.0 / frames);
    printf("bench_svg: deform alone %.0f frames/s, serialise alone %.0f frames/s\n",
           frames / t_deform, frames / t_write);
    skf_svg_animator_free(a);
    skf_svg_free(c);
    free(seq);
    return 0;
}
