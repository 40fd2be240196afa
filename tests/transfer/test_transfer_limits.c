/* Per-call limits of the transfer session (skf_transfer_options.limits,
 * copied at skf_transfer_new; skf_limits in base.h), of the solver it runs
 * (skf_solve_options.limits) and of the decomposition's solves
 * (skf_decompose_options.limits): frames stops a clip's sampling, bones a
 * solver's set-up, each below the process-wide value with a message naming
 * the caller's field; the process-wide table is not touched; two threads at
 * once with different limits each get their own answer. */
#include "faults/tube_rig.h"
#include "limits_check.h"
#include "skinfit/decompose.h"
#include "skinfit/rig.h"
#include "skinfit/solve.h"
#include "skinfit/transfer.h"

#include <stdio.h>
#include <string.h>

static skf_gltf *tube; /* 3 bones, clip Bend: 1 s, 31 frames at 30 fps */

/* The control run of Bend at 30 fps under lim (the options struct is
 * gone before the clip runs: the session keeps a copy). */
static skf_status transfer_call(const skf_limits *lim, void *arg, skf_error *e)
{
    (void)arg;
    skf_transfer_options o;
    memset(&o, 0, sizeof o);
    o.fps = 30;
    o.threads = 1;
    o.limits = lim;
    skf_transfer *t = NULL;
    skf_status st = skf_transfer_new(tube, NULL, &o, &t, NULL, e);
    memset(&o, 0, sizeof o);
    if (st)
        return st;
    skf_transfer_clip r;
    memset(&r, 0, sizeof r);
    st = skf_transfer_run_clip(t, "Bend", &r, NULL, e);
    if (!st)
        CHECK(r.frames == 31);
    skf_transfer_clip_release(&r);
    skf_transfer_free(t);
    return st;
}

/* A solver for 3 bones over one vertex. */
static skf_status solver_call(const skf_limits *lim, void *arg, skf_error *e)
{
    (void)arg;
    double rest[3] = {0, 0, 0}, weight[1] = {1};
    size_t offsets[2] = {0, 1};
    uint32_t bone[1] = {0};
    skf_solve_rig rig = {1, rest, offsets, bone, weight, 3, NULL};
    skf_solve_options o = {.threads = 1, .limits = lim};
    skf_solver *s = NULL;
    skf_status st = skf_solver_new(&rig, &o, &s, e);
    skf_solver_free(s);
    return st;
}

/* Bend baked at 30 fps, decomposed into 3 bones. */
static skf_meshseq *seq;
static skf_status decompose_call(const skf_limits *lim, void *arg, skf_error *e)
{
    (void)arg;
    skf_decompose_options o = {.bone_count = 3, .max_iterations = 2, .threads = 1, .limits = lim};
    skf_decomposition *d = NULL;
    skf_status st = skf_decompose(seq->vertex_count, seq->frame_count, seq->positions, NULL,
                                  seq->triangle_count, seq->triangles, &o, &d, e);
    if (st)
        CHECK(!d);
    skf_decomposition_free(d);
    return st;
}

int main(void)
{
    skf_error e = {0};
    CHECK_MSG(tube_rig_build(4, 6, 3, 5, &tube, &e) == SKF_OK, "%s", e.message);
    if (!tube)
        return skf_test_done();
    CHECK_MSG(transfer_call(NULL, NULL, &e) == SKF_OK, "%s", e.message);
    limits_check_call(transfer_call, NULL, SKF_LIMIT_FRAMES, 30, 0,
                      "tube: animations[0] ('Bend'): "
                      "31 frames at 30 fps exceed the limit frames=30" LIMITS_BY_CALLER(SKF_LIMIT_FRAMES));
    limits_check_call(transfer_call, NULL, SKF_LIMIT_BONES, 2, 0,
                      "solver: rig: 3 bones exceed the limit bones=2" LIMITS_BY_CALLER(SKF_LIMIT_BONES));
    limits_check_call(solver_call, NULL, SKF_LIMIT_BONES, 2, 0,
                      "solver: rig: 3 bones exceed the limit bones=2" LIMITS_BY_CALLER(SKF_LIMIT_BONES));

    skf_rig *r = NULL;
    skf_clip *clip = NULL;
    CHECK(skf_rig_from_gltf(tube, 0, NULL, &r, NULL, &e) == SKF_OK);
    CHECK(r && skf_clip_from_gltf(tube, 0, &clip, &e) == SKF_OK);
    if (clip)
        CHECK_MSG(skf_rig_bake(r, clip, 30, 1, NULL, &seq, &e) == SKF_OK, "%s", e.message);
    if (seq) {
        CHECK_MSG(decompose_call(NULL, NULL, &e) == SKF_OK, "%s", e.message);
        limits_check_call(decompose_call, NULL, SKF_LIMIT_BONES, 2, 0,
                          "solver: rig: 3 bones exceed the limit bones=2" LIMITS_BY_CALLER(SKF_LIMIT_BONES));
    }

    limits_check_threads("transfer", transfer_call, NULL, SKF_LIMIT_FRAMES, 30, 20);
    limits_check_threads("solver", solver_call, NULL, SKF_LIMIT_BONES, 2, 300);
    if (seq)
        limits_check_threads("decompose", decompose_call, NULL, SKF_LIMIT_BONES, 2, 10);
    skf_meshseq_free(seq);
    skf_clip_free(clip);
    skf_rig_free(r);
    skf_gltf_free(tube);
    return skf_test_done();
}
