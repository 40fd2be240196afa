/* Render benchmark (issue 6, acceptance 5): 24 frames x 5 panels at
 * 1280x320 — the artist's Horse Walk as ground truth and four rig panels
 * (the control run, solved once and drawn four times, so every panel costs
 * what a real rig panel costs) — rasterised with 4x4 supersampling, then
 * encoded as an animated GIF and as PNGs. Prints wall and process CPU time
 * per frame and per panel, with 1 thread and with all OpenMP threads.
 * Usage: bench_render [path/to/Horse.glb] */
#include "skinfit/report.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "../shared/data/quaternius/animals/Horse.glb";
    skf_error err;
    skf_gltf *doc = NULL;
    skf_heatmap *clip = NULL;
    if (skf_gltf_load(path, &doc, NULL, &err) || skf_heatmap_play(doc, "Walk", 0, &clip, NULL, &err) ||
        skf_heatmap_add_control(clip, "control", &err)) {
        fprintf(stderr, "bench_render: %s\n", err.message);
        return 1;
    }
    enum { FRAMES = 24, PANELS = 5, W = 1280, H = 320 };
    const skf_render_scene *base = skf_heatmap_scene(clip);
    if (base->frame_count < FRAMES) {
        fprintf(stderr, "bench_render: the clip has %zu frames, need %d\n", base->frame_count, FRAMES);
        return 1;
    }
    skf_render_panel panels[PANELS];
    panels[0] = base->panels[0];
    for (int k = 1; k < PANELS; ++k)
        panels[k] = base->panels[1];
    skf_render_scene scene = {FRAMES, base->ground_truth, PANELS, panels};
    printf("bench_render: %s Walk, %d frames x %d panels at %dx%d, 4x4 supersampling, %zu + %zu "
           "triangles per rig panel (surface + silhouette)\n",
           path, FRAMES, PANELS, W, H, panels[1].surface.triangle_count,
           base->ground_truth->triangle_count);
    int max_threads = omp_get_max_threads();
    skf_image frames[FRAMES];
    for (int f = 0; f < FRAMES; ++f)
        skf_image_init(&frames[f], W, H, 0xFFFFFFFF, &err);
    for (int pass = 0; pass < 2; ++pass) {
        int threads = pass == 0 ? 1 : max_threads;
        skf_render_options opt = {.width = W, .height = H, .threads = threads};
        double w0 = wall();
        skf_renderer *r;
        if (skf_renderer_new(&scene, &opt, &r, &err)) {
            fprintf(stderr, "bench_render: %s\n", err.message);
            return 1;
        }
        double w1 = wall(), c1 = cpu();
        for (int f = 0; f < FRAMES; ++f)
            skf_render_frame(r, (size_t)f, &frames[f], NULL, &err);
        double w2 = wall(), c2 = cpu();
        skf_renderer_free(r);
        printf("threads %d: setup %.1f ms; %d frames %.3f s wall (%.1f ms/frame, %.2f ms/panel), "
               "%.3f s CPU (%.1f ms/frame CPU)\n",
               threads, 1e3 * (w1 - w0), FRAMES, w2 - w1, 1e3 * (w2 - w1) / FRAMES,
               1e3 * (w2 - w1) / (FRAMES * PANELS), c2 - c1, 1e3 * (c2 - c1) / FRAMES);
    }
    uint32_t reserved[SKF_GIF_MAX_RESERVED];
    skf_gif_options go = {reserved, skf_render_reserved_colors(reserved, SKF_GIF_MAX_RESERVED)};
    double w0 = wall(), c0 = cpu();
    if (skf_gif_write("/tmp/bench_render.gif", frames, FRAMES, NULL, &go, &err))
        fprintf(stderr, "bench_render: %s\n", err.message);
    double w1 = wall(), c1 = cpu();
    for (int f = 0; f < FRAMES; ++f) {
        uint8_t *png;
        size_t n;
        if (!skf_png_encode(&frames[f], &png, &n, &err))
            skf_free(png);
    }
    double w2 = wall(), c2 = cpu();
    printf("encode: animated GIF %.3f s wall / %.3f s CPU (%.1f ms/frame); PNG %.1f ms/frame wall "
           "(%.1f CPU)\n",
           w1 - w0, c1 - c0, 1e3 * (w1 - w0) / FRAMES, 1e3 * (w2 - w1) / FRAMES,
           1e3 * (c2 - c1) / FRAMES);
    remove("/tmp/bench_render.gif");
    for (int f = 0; f < FRAMES; ++f)
        skf_image_release(&frames[f]);
    skf_heatmap_free(clip);
    skf_gltf_free(doc);
    return 0;
}
