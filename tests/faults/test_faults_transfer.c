/* Issue 7, fault injection: every allocation of a whole `skinfit transfer`
 * run fails in turn (tests/faults/sweep.h): load the source rig and clip and
 * the target rig, align, control solve, free and rotation-only solves, TRS
 * conversion, glTF animation writing, the JSON report. The inputs are a
 * small skinned tube (tube_rig.h: 5 x 5 vertices, 2 bones, clip "Bend" of 3
 * keys, sampled at its key rate: 3 frames) and an autoweights rig of it,
 * both with a small mesh attached to the tip joint (issue 12 §3: its
 * weighting, per-attachment figures and report entries are swept too).
 * (The procedural creature at its smallest makes 19,806 allocations per run,
 * most of them JSON values of its 28-joint document, after a 0.7 s solve
 * under ASan: too many to sweep each.) */
#include "sweep.h"
#include "cli.h"
#include "tube_rig.h"
#include "skinfit/gltf.h"

#include <jansson.h>

/* A one-triangle mesh "Tag" on a node under the last joint, no skin. */
static skf_status attach_tag(skf_gltf *doc, skf_error *err)
{
    const float p[9] = {0.05f, 0, 0, 0, 0.05f, 0, 0, 0, 0.05f};
    const char *names[1] = {"POSITION"};
    int acc = -1, mesh = -1, node = -1;
    int joint = doc->skins[0].joints[doc->skins[0].joint_count - 1];
    skf_status st = skf_gltf_add_float_accessor(doc, p, 3, 3, 34962, true, &acc, err);
    if (!st)
        st = skf_gltf_add_mesh(doc, "Tag", names, &acc, 1, -1, &mesh, err);
    if (!st)
        st = skf_gltf_add_node(doc, "Tag", joint, NULL, NULL, NULL, &node, err);
    if (!st) {
        json_object_set_new(json_array_get(json_object_get(doc->json, "nodes"), (size_t)node), "mesh",
                            json_integer(mesh));
        st = skf_gltf_reparse(doc, NULL, err);
    }
    return st;
}

int main(void)
{
    const char *build = getenv("SKF_BUILD_DIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/faults_transfer", build && *build ? build : "/tmp");
    sweep_rm_rf(dir);
    if (mkdir(dir, 0777) != 0) {
        perror(dir);
        return 1;
    }
    char src[4200], tgt[4200];
    snprintf(src, sizeof src, "%s/tube.glb", dir);
    snprintf(tgt, sizeof tgt, "%s/target.glb", dir);
    skf_gltf *doc = NULL;
    skf_error err;
    skf_status st = tube_rig_build(5, 5, 2, 3, &doc, &err);
    if (!st)
        st = attach_tag(doc, &err);
    if (!st)
        st = skf_gltf_write_glb(doc, src, NULL, &err);
    skf_gltf_free(doc);
    doc = NULL;
    /* the target: a different mesh of the same tube (6 rings), so the
     * surfaces differ and every target vertex needs a correspondence */
    if (!st)
        st = tube_rig_build(6, 5, 2, 3, &doc, &err);
    if (!st)
        st = attach_tag(doc, &err);
    if (!st)
        st = skf_gltf_write_glb(doc, tgt, NULL, &err);
    skf_gltf_free(doc);
    CHECK_MSG(st == SKF_OK, "tube: %s", err.message);
    if (st)
        return skf_test_done();

    const char *args[] = {"transfer", "--source", "tube.glb", "--target", "target.glb", "--clip", "Bend",
                          "--mode", "both", "-o", "out.glb", "--report", "report.json", NULL};
    const char *inputs[] = {"tube.glb", "target.glb", NULL};
    const char *outputs[] = {"out.glb", "report.json", NULL};
    sweep_case c = {"transfer", cmd_transfer, args, dir, inputs, outputs, 0, 0};
    sweep_result r = sweep_cli(&c);
    CHECK(r.allocations > 0);
    CHECK(r.points >= r.allocations);
    CHECK(r.leaks == 0);
    return skf_test_done();
}
