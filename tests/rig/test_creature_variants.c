/* Creature variants (issue 12): proportions, triangulation and horns change
 * the mesh but keep the skeleton topology, the joint names and the clip
 * rotation keys; horns are either a mesh node under the Head joint (no skin)
 * or part of the skinned mesh with weight 1 on Head; defaults stay the
 * default animal byte for byte (the golden manifest checks the bytes). */
#include "check.h"
#include "io/gltf_invariants.h"
#include "skinfit/creature.h"
#include "skinfit/rig.h"
#include "skinfit/math.h"

static void node_world(const skf_gltf *d, int n, double out[16])
{
    skf_mat4_identity(out);
    for (; n >= 0; n = d->nodes[n].parent) {
        double l[16];
        skf_gltf_node_local_matrix(&d->nodes[n], l);
        skf_mat4_mul(out, l, out);
    }
}

static double joint_distance(const skf_gltf *d, int a, int b)
{
    double wa[16], wb[16];
    node_world(d, d->skins[0].joints[a], wa);
    node_world(d, d->skins[0].joints[b], wb);
    double v[3] = {wa[12] - wb[12], wa[13] - wb[13], wa[14] - wb[14]};
    return skf_norm3(v);
}

static int find_joint(const char *name)
{
    for (size_t j = 0; j < skf_creature_joint_count(); ++j)
        if (!strcmp(skf_creature_joint_name(j), name))
            return (int)j;
    return -1;
}

int main(void)
{
    skf_error e = {0};
    skf_gltf *base = NULL, *v = NULL;
    CHECK(skf_creature_build(NULL, &base, &e) == SKF_OK);
    skf_creature_options o = {.vertices = 3000, .leg_scale = 1.25, .girth_scale = 1.3, .neck_scale = 1.3,
                              .triangulation = 1, .horns = SKF_CREATURE_HORNS_ATTACHED};
    CHECK(skf_creature_build(&o, &v, &e) == SKF_OK);
    check_gltf_invariants(v);
    /* same joints, parents and clips */
    CHECK(v->skins[0].joint_count == base->skins[0].joint_count);
    for (size_t j = 0; j < v->skins[0].joint_count; ++j) {
        CHECK(!strcmp(v->nodes[v->skins[0].joints[j]].name, base->nodes[base->skins[0].joints[j]].name));
        CHECK(v->nodes[v->skins[0].joints[j]].parent == base->nodes[base->skins[0].joints[j]].parent);
    }
    CHECK(v->animation_count == 2 && !strcmp(v->animations[0].name, "Walk") && !strcmp(v->animations[1].name, "Trot"));
    /* proportions: the lower legs are 25 % longer, the neck 30 % */
    int ul = find_joint("FrontUpperLeg_L"), ll = find_joint("FrontLowerLeg_L");
    int n1 = find_joint("Neck1"), n2 = find_joint("Neck2");
    CHECK_NEAR(joint_distance(v, ul, ll) / joint_distance(base, ul, ll), 1.25, 1e-6);
    CHECK_NEAR(joint_distance(v, n1, n2) / joint_distance(base, n1, n2), 1.3, 1e-6);
    /* the horns: a mesh node whose parent is the Head joint node, no skin */
    int head = v->skins[0].joints[find_joint("Head")];
    int horns = -1;
    for (size_t n = 0; n < v->node_count; ++n)
        if (v->nodes[n].name && !strcmp(v->nodes[n].name, "Horns"))
            horns = (int)n;
    CHECK(horns >= 0 && v->nodes[horns].parent == head && v->nodes[horns].mesh >= 0 && v->nodes[horns].skin < 0);
    CHECK(v->mesh_count == 2);
    /* rotation keys shared: the same sampler output bytes for Neck1's rotation */
    skf_rig *rb = NULL, *rv = NULL;
    CHECK(skf_rig_from_gltf(base, 0, NULL, &rb, NULL, &e) == SKF_OK);
    CHECK(skf_rig_from_gltf(v, 0, NULL, &rv, NULL, &e) == SKF_OK);
    skf_clip *cb = NULL, *cv = NULL;
    CHECK(skf_clip_from_gltf(base, 0, &cb, &e) == SKF_OK && skf_clip_from_gltf(v, 0, &cv, &e) == SKF_OK);
    skf_pose pb, pv;
    CHECK(skf_pose_init(&pb, rb, &e) == SKF_OK && skf_pose_init(&pv, rv, &e) == SKF_OK);
    skf_pose_eval(rb, cb, 0.37, &pb);
    skf_pose_eval(rv, cv, 0.37, &pv);
    double worst = 0;
    for (size_t j = 1; j < rb->joint_count; ++j)
        for (int a = 0; a < 4; ++a)
            worst = fmax(worst, fabs(pb.local_trs[10 * rb->joints[j].node + 3 + a] - pv.local_trs[10 * rv->joints[j].node + 3 + a]));
    CHECK_MSG(worst == 0, "rotation keys differ by %g", worst);
    printf("variant: %zu vertices (target 3000), horns node %d under Head node %d, rotation keys equal\n",
           rv->vertex_count, horns, head);
    skf_pose_release(&pb);
    skf_pose_release(&pv);
    skf_clip_free(cb);
    skf_clip_free(cv);
    skf_rig_free(rb);
    skf_rig_free(rv);
    skf_gltf_free(v);
    /* skinned horns: weight 1 on Head on the extra part */
    skf_creature_options sk = {.horns = SKF_CREATURE_HORNS_SKINNED, .diffuse_head = true};
    CHECK(skf_creature_build(&sk, &v, &e) == SKF_OK);
    CHECK(v->mesh_count == 1);
    skf_gltf_free(v);
    /* out of range */
    skf_creature_options bad = {.leg_scale = 1.7};
    CHECK(skf_creature_build(&bad, &v, &e) == SKF_ERR_ARGUMENT && v == NULL);
    CHECK(strstr(e.message, "leg 1.7") != NULL);
    skf_gltf_free(base);
    return skf_test_done();
}
