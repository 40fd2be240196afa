/* Per-call limits of the rig layer (skf_limits in base.h): the rig build's
 * node-depth under the limits its document was loaded with (skf_gltf.limits),
 * clip sampling's frames under skf_clip_frames' limits, and skf_rig_bake's
 * under rig->limits (copied from the document, kept by skf_rig_weld). Each
 * stops below the process-wide value with a message naming the caller's
 * field; the process-wide table is not touched; two threads at once with
 * different limits each get their own answer. */
#include "faults/tube_rig.h"
#include "limits_check.h"
#include "skinfit/rig.h"

#include <stdio.h>
#include <string.h>

/* A chain of 6 nodes (depth 5) and nothing else. */
static const char *chain_json = "{\"asset\":{\"version\":\"2.0\"},"
                                "\"nodes\":[{\"children\":[1]},{\"children\":[2]},{\"children\":[3]},"
                                "{\"children\":[4]},{\"children\":[5]},{}],"
                                "\"scenes\":[{\"nodes\":[0]}],\"scene\":0}";
static skf_gltf *chain;

/* The rig of chain's surface with chain's limits replaced by lim (NULL: none). */
static skf_status rig_call(const skf_limits *lim, void *arg, skf_error *e)
{
    (void)arg;
    skf_gltf doc = *chain; /* the same arrays, this call's limits */
    memset(&doc.limits, 0, sizeof doc.limits);
    if (lim)
        doc.limits = *lim;
    skf_rig *r = NULL;
    skf_status st = skf_rig_from_gltf(&doc, -1, NULL, &r, NULL, e);
    if (!st)
        CHECK(r && r->node_count == 6 && !memcmp(&r->limits, &doc.limits, sizeof doc.limits));
    skf_rig_free(r);
    return st;
}

/* 1 s at 30 fps: 31 frames. */
static skf_status frames_call(const skf_limits *lim, void *arg, skf_error *e)
{
    (void)arg;
    skf_clip clip = {.start = 0, .end = 1, .duration = 1};
    size_t frames = 0;
    double fps = 0;
    skf_status st = skf_clip_frames(&clip, 30, lim, &frames, &fps, e);
    CHECK(st ? frames == 0 : frames == 31 && fps == 30);
    return st;
}

/* The tube's Bend clip baked at 30 fps (31 frames) from its welded rig
 * under lim: the document's limits, then the rig's. */
typedef struct bake_arg {
    skf_gltf *doc;
    skf_clip *clip;
} bake_arg;

static skf_status bake_call(const skf_limits *lim, void *arg, skf_error *e)
{
    bake_arg *b = arg;
    skf_gltf doc = *b->doc;
    memset(&doc.limits, 0, sizeof doc.limits);
    if (lim)
        doc.limits = *lim;
    skf_rig *r = NULL, *w = NULL;
    skf_meshseq *seq = NULL;
    skf_status st = skf_rig_from_gltf(&doc, 0, NULL, &r, NULL, e);
    if (!st)
        st = skf_rig_weld(r, &w, NULL, e);
    if (!st) {
        CHECK(!memcmp(&w->limits, &doc.limits, sizeof doc.limits));
        st = skf_rig_bake(w, b->clip, 30, 1, NULL, &seq, e);
    }
    if (!st)
        CHECK(seq && seq->frame_count == 31);
    else
        CHECK(!seq);
    skf_meshseq_free(seq);
    skf_rig_free(w);
    skf_rig_free(r);
    return st;
}

int main(void)
{
    skf_error e = {0};
    CHECK_MSG(skf_gltf_load_memory(chain_json, strlen(chain_json), "chain.gltf", NULL, &chain, NULL,
                                   &e) == SKF_OK,
              "%s", e.message);
    if (!chain)
        return skf_test_done();
    CHECK_MSG(rig_call(NULL, NULL, &e) == SKF_OK, "%s", e.message);
    limits_check_call(rig_call, NULL, SKF_LIMIT_NODE_DEPTH, 4, 0,
                      "chain.gltf: nodes[5]: node depth 5 exceeds the limit node-depth=4"
                      LIMITS_BY_CALLER(SKF_LIMIT_NODE_DEPTH));

    CHECK_MSG(frames_call(NULL, NULL, &e) == SKF_OK, "%s", e.message);
    limits_check_call(frames_call, NULL, SKF_LIMIT_FRAMES, 30, 0,
                      "31 frames at 30 fps exceed the limit frames=30" LIMITS_BY_CALLER(SKF_LIMIT_FRAMES));

    skf_gltf *tube = NULL;
    skf_clip *clip = NULL;
    CHECK_MSG(tube_rig_build(4, 6, 3, 5, &tube, &e) == SKF_OK, "%s", e.message);
    if (tube)
        CHECK_MSG(skf_clip_from_gltf(tube, 0, &clip, &e) == SKF_OK, "%s", e.message);
    bake_arg b = {tube, clip};
    if (clip) {
        CHECK_MSG(bake_call(NULL, &b, &e) == SKF_OK, "%s", e.message);
        limits_check_call(bake_call, &b, SKF_LIMIT_FRAMES, 30, 0,
                          "Bend: 31 frames at 30 fps exceed the limit frames=30" LIMITS_BY_CALLER(SKF_LIMIT_FRAMES));
    }

    limits_check_threads("rig build", rig_call, NULL, SKF_LIMIT_NODE_DEPTH, 4, 300);
    limits_check_threads("clip", frames_call, NULL, SKF_LIMIT_FRAMES, 30, 300);
    if (clip)
        limits_check_threads("bake", bake_call, &b, SKF_LIMIT_FRAMES, 30, 100);
    skf_clip_free(clip);
    skf_gltf_free(tube);
    skf_gltf_free(chain);
    return skf_test_done();
}
