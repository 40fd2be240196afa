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

#define SKF_TEST_PI 3.14159265358979323846

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

static double mat3_diff(const double a[16], const double b[16])
{
    double d = 0;
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r)
            d = fmax(d, fabs(a[4 * c + r] - b[4 * c + r]));
    return d;
}

/* A bent front knee (knee_bend, issue 12 §1 "a leg bent differently"): the
 * knee node's rest rotation is the bend, the inverse bind matrices are the
 * inverses of the bent rest joint_to_world, the rest mesh is the straight
 * mesh skinned at the bent pose, the knee plays bend · key and every other
 * joint the shared keys, so each bone's world rotation relative to its rest
 * equals the straight animal's at every time. */
static void bent_knee(const skf_gltf *base)
{
    skf_error e = {0};
    const double bend = 40;
    skf_gltf *v = NULL;
    skf_creature_options o = {.knee_bend = {bend, 0, 0, 0}};
    CHECK(skf_creature_build(&o, &v, &e) == SKF_OK);
    if (!v)
        return;
    check_gltf_invariants(v);
    int knee = find_joint("FrontLowerLeg_L");
    double qb[4] = {sin(0.5 * bend * SKF_TEST_PI / 180), 0, 0, cos(0.5 * bend * SKF_TEST_PI / 180)};
    /* rest rotations: the bend on the knee, identity elsewhere */
    for (size_t j = 0; j < v->skins[0].joint_count; ++j) {
        const skf_gltf_node *n = &v->nodes[v->skins[0].joints[j]];
        double dq = 0;
        for (int a = 0; a < 4; ++a)
            dq = fmax(dq, fabs(n->rotation[a] - ((int)j == knee ? qb[a] : a == 3)));
        CHECK_MSG(dq < 1e-15, "joint %zu rest rotation off by %g", j, dq);
    }
    skf_rig *rb = NULL, *rv = NULL;
    CHECK(skf_rig_from_gltf(base, 0, NULL, &rb, NULL, &e) == SKF_OK);
    CHECK(skf_rig_from_gltf(v, 0, NULL, &rv, NULL, &e) == SKF_OK);
    CHECK(rv->vertex_count == rb->vertex_count && rv->triangle_count == rb->triangle_count);
    skf_pose pb, pv;
    CHECK(skf_pose_init(&pb, rb, &e) == SKF_OK && skf_pose_init(&pv, rv, &e) == SKF_OK);
    skf_pose_eval(rb, NULL, 0, &pb);
    skf_pose_eval(rv, NULL, 0, &pv);
    /* IBMs match the bent rest: every skinning matrix at rest is I */
    double ibm_err = 0;
    for (size_t j = 0; j < rv->joint_count; ++j)
        for (int k = 0; k < 16; ++k)
            ibm_err = fmax(ibm_err, fabs(pv.skin_matrices[16 * j + k] - (k % 5 == 0)));
    CHECK_MSG(ibm_err < 1e-6, "bent rest x IBM - I: %g", ibm_err);
    /* the rest mesh is the straight mesh skinned at the bent pose:
     * Σ w_j (bent rest joint_to_world_j × straight mesh_to_joint_j) p */
    double mesh_err = 0, moved = 0;
    for (size_t i = 0; i < rb->vertex_count; ++i) {
        double acc[3] = {0, 0, 0};
        for (size_t k = rb->weight_offsets[i]; k < rb->weight_offsets[i + 1]; ++k) {
            uint32_t j = rb->weight_joints[k];
            double S[16], q[3];
            skf_mat4_mul(S, pv.node_to_world + 16 * rv->joints[j].node, rb->joints[j].mesh_to_joint);
            skf_mat4_transform_point(q, S, rb->rest_positions + 3 * i);
            for (int a = 0; a < 3; ++a)
                acc[a] += rb->weights[k] * q[a];
        }
        double d[3], m[3];
        for (int a = 0; a < 3; ++a) {
            d[a] = acc[a] - rv->rest_positions[3 * i + a];
            m[a] = rv->rest_positions[3 * i + a] - rb->rest_positions[3 * i + a];
        }
        mesh_err = fmax(mesh_err, skf_norm3(d));
        moved = fmax(moved, skf_norm3(m));
    }
    CHECK_MSG(mesh_err < 1e-6, "bent mesh vs the straight one skinned at the bent pose: %g m", mesh_err);
    CHECK_MSG(moved > 0.2, "the bent leg moved only %g m", moved);
    /* the shin (knee -> ankle) turned by the bend about X */
    int ankle = find_joint("FrontFoot_L");
    double sb[3], sv[3];
    for (int a = 0; a < 3; ++a) {
        sb[a] = pb.node_to_world[16 * rb->joints[ankle].node + 12 + a] - pb.node_to_world[16 * rb->joints[knee].node + 12 + a];
        sv[a] = pv.node_to_world[16 * rv->joints[ankle].node + 12 + a] - pv.node_to_world[16 * rv->joints[knee].node + 12 + a];
    }
    double turn = atan2(sv[2], -sv[1]) - atan2(sb[2], -sb[1]);
    CHECK_NEAR(turn * 180 / SKF_TEST_PI, -bend, 1e-9); /* the lower leg swings back (−Z) */
    /* keys: the knee plays bend · key, the others the shared keys bit for bit;
     * world rotations relative to rest equal the straight animal's */
    double rest_b[64][16], rest_v[64][16];
    CHECK(rb->joint_count <= 64);
    for (size_t j = 0; j < rb->joint_count; ++j) {
        memcpy(rest_b[j], pb.node_to_world + 16 * rb->joints[j].node, sizeof rest_b[j]);
        memcpy(rest_v[j], pv.node_to_world + 16 * rv->joints[j].node, sizeof rest_v[j]);
    }
    for (size_t clip = 0; clip < 2; ++clip) {
        skf_clip *cb = NULL, *cv = NULL;
        CHECK(skf_clip_from_gltf(base, (int)clip, &cb, &e) == SKF_OK && skf_clip_from_gltf(v, (int)clip, &cv, &e) == SKF_OK);
        double key_other = 0, key_knee = 0, rel = 0;
        for (int f = 0; f < 12; ++f) {
            double t = 0.083 * f;
            skf_pose_eval(rb, cb, t, &pb);
            skf_pose_eval(rv, cv, t, &pv);
            for (size_t j = 1; j < rb->joint_count; ++j) {
                const double *lb = pb.local_trs + 10 * rb->joints[j].node + 3, *lv = pv.local_trs + 10 * rv->joints[j].node + 3;
                double want[4];
                if ((int)j == knee)
                    skf_quat_mul(want, qb, lb);
                else
                    memcpy(want, lb, sizeof want);
                for (int a = 0; a < 4; ++a)
                    *((int)j == knee ? &key_knee : &key_other) =
                        fmax((int)j == knee ? key_knee : key_other, fabs(lv[a] - want[a]));
                double ib[16], iv[16], db[16], dv[16];
                skf_mat4_invert_affine(ib, rest_b[j]);
                skf_mat4_invert_affine(iv, rest_v[j]);
                skf_mat4_mul(db, pb.node_to_world + 16 * rb->joints[j].node, ib);
                skf_mat4_mul(dv, pv.node_to_world + 16 * rv->joints[j].node, iv);
                rel = fmax(rel, mat3_diff(db, dv));
            }
        }
        printf("bent knee %g deg, clip %zu: knee key vs bend.key %.2g, other keys %.2g, world rotation vs rest "
               "differs from the straight animal's by %.2g\n", bend, clip, key_knee, key_other, rel);
        CHECK_MSG(key_other == 0, "shared keys differ by %g", key_other);
        CHECK_MSG(key_knee < 1e-7, "knee key vs bend.key: %g", key_knee);
        CHECK_MSG(rel < 1e-6, "world rotations relative to rest differ by %g", rel);
        skf_clip_free(cb);
        skf_clip_free(cv);
    }
    printf("bent knee: %zu vertices, IBM x rest - I %.2g, mesh vs skinned straight %.2g m (moved up to %.3f m), "
           "shin turned %.9f deg\n",
           rv->vertex_count, ibm_err, mesh_err, moved, turn * 180 / SKF_TEST_PI);
    skf_pose_release(&pb);
    skf_pose_release(&pv);
    skf_rig_free(rb);
    skf_rig_free(rv);
    skf_gltf_free(v);
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
    bent_knee(base);
    /* out of range */
    skf_creature_options kb = {.knee_bend = {0, 0, 70, 0}};
    CHECK(skf_creature_build(&kb, &v, &e) == SKF_ERR_ARGUMENT && v == NULL);
    CHECK(strstr(e.message, "knee_bend[2]: 70") != NULL);
    skf_creature_options bad = {.leg_scale = 1.7};
    CHECK(skf_creature_build(&bad, &v, &e) == SKF_ERR_ARGUMENT && v == NULL);
    CHECK(strstr(e.message, "leg 1.7") != NULL);
    skf_gltf_free(base);
    return skf_test_done();
}
