/* Fuzz harness: a hostile glTF through the numeric code. The document is
 * loaded, then
 *   - transferred onto itself: skf_transfer_new (weld, BVH, alignment,
 *     correspondence, solver set-up), one clip solved as control, free and
 *     rotation-only (Horn/Jacobi sweeps, affine start, Levenberg–Marquardt),
 *     TRS conversion, and the baked clip added back to the document;
 *   - aligned (axis/PCA candidates, ICP) and put in correspondence with a
 *     turned, scaled and moved copy of its own rest surface;
 *   - baked and decomposed: a few frames of the first clip played on the
 *     first skin, SSDR with split or mean-shift initialisation, NNLS weights,
 *     PCA corrections, and the decomposition exported as glTF.
 * So NaN-free but hostile numbers (huge or tiny coordinates, degenerate
 * triangles, bones without weight, singular or sheared bind matrices, zero
 * durations) reach the solvers. Work is kept short: at most 4096 vertices
 * and about five frames per run; anything larger is skipped, not truncated.
 * Seeds: scripts/fuzz.sh writes small procedural creatures (demo-asset). */
#include "skinfit/decompose.h"
#include "skinfit/gltf.h"
#include "skinfit/rig.h"
#include "skinfit/meshseq.h"
#include "skinfit/transfer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_VERTICES 4096
#define MAX_FRAMES 5

/* FUZZ_PIPELINE_VERBOSE=1 prints how far each input got (for checking that
 * the seeds reach the solvers; silent while fuzzing). */
static void trace(const char *stage, skf_status st, const skf_error *err)
{
    static int verbose = -1;
    if (verbose < 0)
        verbose = getenv("FUZZ_PIPELINE_VERBOSE") != NULL;
    if (verbose)
        fprintf(stderr, "pipeline: %s: %s%s%s\n", stage, skf_status_name(st),
                st == SKF_OK ? "" : ": ", st == SKF_OK ? "" : err->message);
}

/* A frame rate that samples the clip in at most about MAX_FRAMES frames. */
static double short_fps(const skf_clip *clip)
{
    double d = clip->duration;
    if (!(d > 0) || !isfinite(d))
        return 4.0;
    double fps = (MAX_FRAMES - 1) / d;
    if (!(fps > 1e-6))
        fps = 1e-6;
    return fps > 4.0 ? 4.0 : fps;
}

static void run_transfer(skf_gltf *doc, const skf_clip *clip, int variant)
{
    skf_error err;
    skf_warnings warnings = {0};
    skf_transfer_options opt = {0};
    opt.mode = SKF_TRANSFER_BOTH;
    opt.fps = short_fps(clip);
    opt.max_constraints = (variant & 1) ? 48 : 0;
    opt.threads = 1;
    opt.align.icp_iterations = 5;
    opt.align.sample_count = 256;
    skf_transfer *t = NULL;
    skf_status st = skf_transfer_new(doc, doc, &opt, &t, &warnings, &err);
    trace("transfer_new", st, &err);
    if (st == SKF_OK) {
        skf_transfer_clip out = {0};
        st = skf_transfer_run_clip(t, clip->name, &out, NULL, &err);
        trace("transfer_run_clip", st, &err);
        if (st == SKF_OK) {
            st = skf_transfer_add_animation(t, doc, &out, &err);
            trace("transfer_add_animation", st, &err);
        }
        skf_transfer_clip_release(&out);
        skf_transfer_free(t);
    }
    skf_warnings_release(&warnings);
}

/* Alignment and correspondence of the rest surface against a copy of itself
 * turned a quarter turn about Z, scaled by 2 and moved: the identity test
 * fails, so the axis/PCA candidates and ICP run on the hostile geometry. */
static void run_align(const skf_rig *rig)
{
    if (rig->triangle_count == 0)
        return;
    size_t n = rig->vertex_count;
    double *moved = skf_malloc_array(n * 3 + 1, sizeof *moved);
    if (!moved)
        return;
    for (size_t v = 0; v < n; ++v) {
        const double *p = rig->rest_positions + 3 * v;
        moved[3 * v + 0] = -2.0 * p[1] + 0.5;
        moved[3 * v + 1] = 2.0 * p[0] - 0.25;
        moved[3 * v + 2] = 2.0 * p[2] + 1.0;
    }
    skf_error err;
    skf_align_options opt = {0};
    opt.icp_iterations = 5;
    opt.sample_count = 256;
    skf_alignment al;
    skf_status st = skf_align_surfaces(rig->rest_positions, n, rig->triangles, rig->triangle_count,
                                       moved, n, rig->triangles, rig->triangle_count, &opt, &al,
                                       &err);
    trace("align_surfaces", st, &err);
    if (st == SKF_OK) {
        skf_correspondence c = {0};
        st = skf_correspond(rig->rest_positions, n, rig->triangles, rig->triangle_count, moved, n,
                            &al, NULL, 0, &c, &err);
        trace("correspond", st, &err);
        skf_correspondence_release(&c);
    }
    skf_free(moved);
}

static void run_decompose(const skf_rig *rig, const skf_clip *clip, int variant)
{
    skf_error err;
    skf_meshseq *seq = NULL;
    skf_status st = skf_rig_bake(rig, clip, short_fps(clip), 1, NULL, &seq, &err);
    trace("rig_bake", st, &err);
    if (st != SKF_OK)
        return;
    if (seq->frame_count <= MAX_FRAMES + 1) {
        skf_warnings warnings = {0};
        skf_decompose_options opt = {0};
        opt.bone_count = (variant & 2) ? 0 : 3; /* 0: mean shift decides */
        opt.max_influences = 2;
        opt.max_iterations = 3;
        opt.pca_shapes = (variant & 4) ? 1 : 0;
        opt.threads = 1;
        opt.warnings = &warnings;
        skf_decomposition *d = NULL;
        st = skf_decompose(seq->vertex_count, seq->frame_count, seq->positions,
                           rig->rest_positions, rig->triangle_count, rig->triangles, &opt, &d,
                           &err);
        trace("decompose", st, &err);
        if (st == SKF_OK) {
            skf_gltf *out = NULL;
            if (rig->triangle_count > 0) {
                st = skf_decomposition_to_gltf(d, rig->triangle_count, rig->triangles, 0, &out,
                                               &err);
                trace("decomposition_to_gltf", st, &err);
                skf_gltf_free(out);
            }
            skf_decomposition_free(d);
        }
        skf_warnings_release(&warnings);
    }
    skf_meshseq_free(seq);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    skf_gltf *doc = NULL;
    skf_error err;
    skf_warnings warnings = {0};
    if (skf_gltf_load_memory(data, size, "fuzz.glb", NULL, &doc, &warnings, &err) != SKF_OK) {
        skf_warnings_release(&warnings);
        return 0;
    }
    skf_rig *rig = NULL;
    skf_clip *clip = NULL;
    if (doc->skin_count > 0 && doc->animation_count > 0 &&
        skf_rig_from_gltf(doc, 0, NULL, &rig, NULL, &err) == SKF_OK &&
        rig->vertex_count <= MAX_VERTICES &&
        skf_clip_from_gltf(doc, 0, &clip, &err) == SKF_OK &&
        skf_clip_frame_count(clip, short_fps(clip)) <= MAX_FRAMES + 1) {
        int variant = (int)(size % 8);
        run_align(rig);
        run_decompose(rig, clip, variant);
        /* The transfer finds its clip by name: only when that name leads
         * back to animation 0 is the frame count above the one it solves. */
        if (clip->name && skf_clip_find(doc, clip->name, NULL) == 0)
            run_transfer(doc, clip, variant);
    }
    skf_clip_free(clip);
    skf_rig_free(rig);
    skf_gltf_free(doc);
    skf_warnings_release(&warnings);
    return 0;
}
