/* The native side of the WebAssembly comparison (tests/web/test_wasm_core.js): runs the SAME
 * glue (web/src/skfw.c) as the WASM module, natively, on documents loaded by the native glTF
 * reader, and writes what the node test compares:
 *   OUT.json  figures and per-frame series of every run (control, free, rotation-only)
 *   OUT.bin   per-vertex errors (scene units, float64 little-endian) of the heat-map scene:
 *             rig 0 (control) then rig 1 (the target, free transforms), frame-major.
 * Usage: skfw_native SOURCE.glb TARGET.glb CLIP OUT   (exit 1 with one line on bad input). */
#include "skfw.h"

#include "skinfit/gltf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void series(FILE *f, const skfw_result *r, int run, int what, size_t frames)
{
    const double *s = skfw_result_frame_series(r, run, what);
    fputc('[', f);
    for (size_t k = 0; s && k < frames; ++k)
        fprintf(f, "%s%.17g", k ? "," : "", s[k]);
    fputc(']', f);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: skfw_native SOURCE.glb TARGET.glb CLIP OUT\n");
        return 2;
    }
    skf_gltf *src = NULL, *tgt = NULL;
    skf_error e;
    if (skf_gltf_load(argv[1], &src, NULL, &e) || skf_gltf_load(argv[2], &tgt, NULL, &e)) {
        fprintf(stderr, "skfw_native: %s\n", e.message);
        return 1;
    }
    skfw_result *r = skfw_transfer(src, tgt, argv[3], 3, 0, NULL);
    skf_heatmap *sc = r ? skfw_scene_new(r) : NULL;
    if (!r || !sc || skfw_scene_add(sc, "control", r, 0) || skfw_scene_add(sc, "target", r, 1)) {
        fprintf(stderr, "skfw_native: %s\n", skfw_error_text());
        return 1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s.json", argv[4]);
    FILE *f = fopen(path, "w");
    double info[10];
    skfw_result_info(r, info);
    size_t F = (size_t)info[0];
    fprintf(f, "{\"frames\": %zu, \"runs\": [", F);
    for (int run = 0; run < 3; ++run) {
        double fig[8];
        skfw_result_figures(r, run, fig);
        fprintf(f, "%s{\"figures\": [", run ? "," : "");
        for (int k = 0; k < 8; ++k)
            fprintf(f, "%s%.17g", k ? "," : "", fig[k]);
        fprintf(f, "], \"quality\": ");
        series(f, r, run, 0, F);
        fprintf(f, ", \"mean\": ");
        series(f, r, run, 1, F);
        fprintf(f, ", \"max\": ");
        series(f, r, run, 2, F);
        fputc('}', f);
    }
    fprintf(f, "], \"scene_frames\": %zu, \"vertices\": [%zu, %zu], \"diagonals\": [%.17g, %.17g]}\n",
            skfw_scene_frames(sc), skfw_scene_vertex_count(sc, 1), skfw_scene_vertex_count(sc, 2),
            skfw_scene_diagonal(sc, 0), skfw_scene_diagonal(sc, 1));
    fclose(f);
    snprintf(path, sizeof path, "%s.bin", argv[4]);
    f = fopen(path, "wb");
    for (size_t rig = 0; rig < 2; ++rig)
        for (size_t fr = 0; fr < skfw_scene_frames(sc); ++fr)
            fwrite(skfw_scene_errors(sc, rig, fr), sizeof(double), skfw_scene_vertex_count(sc, rig + 1), f);
    fclose(f);
    skfw_scene_free(sc);
    skfw_result_free(r);
    skf_gltf_free(src);
    skf_gltf_free(tgt);
    return 0;
}
