/* Keyframe interpolation (glTF 2.0 Appendix C) against hand-computed values,
 * frame-time rules, and skinning of a hand-built two-joint rig. */
#include "check.h"
#include "skinfit/creature.h"
#include "skinfit/rig.h"
#include "skinfit/math.h"

static skf_clip_channel channel(skf_gltf_path path, skf_gltf_interp interp, size_t keys,
                                const double *times, size_t width, const double *values)
{
    skf_clip_channel c = {0};
    c.node = 0;
    c.path = path;
    c.interpolation = interp;
    c.key_count = keys;
    c.times = (double *)times;
    c.width = width;
    c.values = (double *)values;
    return c;
}

static void test_linear_step(void)
{
    const double t[3] = {0, 1, 3};
    const double v[9] = {0, 0, 0, 2, 4, 6, 2, 0, 0};
    skf_clip_channel c = channel(SKF_PATH_TRANSLATION, SKF_INTERP_LINEAR, 3, t, 3, v);
    double o[3];
    skf_clip_channel_eval(&c, 0.25, o);
    CHECK_NEAR(o[0], 0.5, 1e-15);
    CHECK_NEAR(o[1], 1.0, 1e-15);
    CHECK_NEAR(o[2], 1.5, 1e-15);
    skf_clip_channel_eval(&c, 2.0, o);
    CHECK_NEAR(o[0], 2.0, 1e-15);
    CHECK_NEAR(o[1], 2.0, 1e-15);
    CHECK_NEAR(o[2], 3.0, 1e-15);
    skf_clip_channel_eval(&c, -1.0, o); /* clamped before */
    CHECK(o[0] == 0 && o[1] == 0 && o[2] == 0);
    skf_clip_channel_eval(&c, 5.0, o); /* clamped after */
    CHECK(o[0] == 2 && o[1] == 0 && o[2] == 0);
    skf_clip_channel_eval(&c, 1.0, o); /* exactly on a key */
    CHECK(o[0] == 2 && o[1] == 4 && o[2] == 6);

    c.interpolation = SKF_INTERP_STEP;
    skf_clip_channel_eval(&c, 0.999, o);
    CHECK(o[0] == 0 && o[1] == 0);
    skf_clip_channel_eval(&c, 1.0, o);
    CHECK(o[0] == 2 && o[1] == 4);
    skf_clip_channel_eval(&c, 2.9, o);
    CHECK(o[1] == 4);
    skf_clip_channel_eval(&c, 3.0, o);
    CHECK(o[1] == 0);
}

static void test_slerp(void)
{
    const double t[2] = {0, 1};
    double s45 = sin(M_PI / 4), c45 = cos(M_PI / 4);
    /* second key negated: the shortest path is still the 90° turn */
    const double v[8] = {0, 0, 0, 1, 0, 0, -s45, -c45};
    skf_clip_channel c = channel(SKF_PATH_ROTATION, SKF_INTERP_LINEAR, 2, t, 4, v);
    double o[4];
    skf_clip_channel_eval(&c, 0.5, o);
    /* 45° about z (either sign of the quaternion is the same rotation) */
    double sg = o[3] < 0 ? -1 : 1;
    CHECK_NEAR(sg * o[2], sin(M_PI / 8), 1e-12);
    CHECK_NEAR(sg * o[3], cos(M_PI / 8), 1e-12);
    CHECK_NEAR(o[0], 0, 1e-15);
    skf_clip_channel_eval(&c, 0.25, o);
    sg = o[3] < 0 ? -1 : 1;
    CHECK_NEAR(sg * o[2], sin(M_PI / 16), 1e-12);
}

static void test_cubic(void)
{
    /* keys: (in, value, out) — key0 (9, 1, 0.5), key1 (-1, 3, 9); td = 2.
     * t = 0.5 -> s = 0.25: h00 = 0.84375, h10 = 0.140625, h01 = 0.15625,
     * h11 = -0.046875; p = 0.84375·1 + 0.140625·2·0.5 + 0.15625·3
     * + (-0.046875)·2·(-1) = 1.546875 */
    const double t[2] = {1, 3};
    const double v[6] = {9, 1, 0.5, -1, 3, 9};
    skf_clip_channel c = channel(SKF_PATH_WEIGHTS, SKF_INTERP_CUBICSPLINE, 2, t, 1, v);
    double o[1];
    skf_clip_channel_eval(&c, 1.5, o);
    CHECK_NEAR(o[0], 1.546875, 1e-14);
    skf_clip_channel_eval(&c, 0.0, o);
    CHECK(o[0] == 1); /* clamped to the value, not the tangent */
    skf_clip_channel_eval(&c, 3.0, o);
    CHECK(o[0] == 3);
    skf_clip_channel_eval(&c, 9.0, o);
    CHECK(o[0] == 3);
    /* midpoint s = 0.5: h00 = h01 = 0.5, h10 = 0.125, h11 = -0.125:
     * 0.5 + 0.125·2·0.5 + 1.5 + (-0.125)·2·(-1) = 2.375 */
    skf_clip_channel_eval(&c, 2.0, o);
    CHECK_NEAR(o[0], 2.375, 1e-14);

    /* rotation cubic: result normalised */
    const double rv[24] = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0,
                           0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0};
    skf_clip_channel r = channel(SKF_PATH_ROTATION, SKF_INTERP_CUBICSPLINE, 2, t, 4, rv);
    double q[4];
    skf_clip_channel_eval(&r, 2.0, q);
    /* Hermite gives (0, 0, 0.5+0.125·2, 0.5) before normalisation */
    double n = sqrt(0.75 * 0.75 + 0.25);
    CHECK_NEAR(q[2], 0.75 / n, 1e-14);
    CHECK_NEAR(q[3], 0.5 / n, 1e-14);
    CHECK_NEAR(sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]), 1, 1e-14);
}

static void test_frames(void)
{
    skf_clip c = {0};
    c.start = 0;
    c.end = 1;
    c.duration = 1;
    c.key_rate = 24;
    CHECK(skf_clip_frame_count(&c, 0) == 25);
    CHECK(skf_clip_frame_fps(&c, 0) == 24);
    CHECK(skf_clip_frame_count(&c, 10) == 11);
    CHECK(skf_clip_frame_count(&c, 7) == 8);  /* 7/7 lands on the end */
    CHECK(skf_clip_frame_count(&c, 6.5) == 7); /* last frame at 6/6.5 */
    c.key_rate = 0;
    CHECK(skf_clip_frame_fps(&c, 0) == 30);
    c.end = c.duration = 0;
    CHECK(skf_clip_frame_count(&c, 24) == 1);
    /* a key rate measured as (K-1)/span lands the last key on a frame */
    c.end = c.duration = 35.0 / 24.0;
    c.key_rate = 35.0 / c.duration;
    CHECK(skf_clip_frame_count(&c, 0) == 36);
}

/* skf_clip_find: the lookup by name (tests/io/test_gltf_accessor.c has the
 * prefix and suffix cases), and on a miss an
 * error whose data names the clip and the place. */
static void test_clip_find(void)
{
    skf_creature_options co = {.vertices = 800};
    skf_gltf *doc = NULL;
    skf_error err;
    CHECK(skf_creature_build(&co, &doc, &err) == SKF_OK);
    if (!doc)
        return;
    CHECK(skf_clip_find(doc, "Trot", &err) == 1);
    CHECK(skf_clip_find(doc, "Walk", NULL) == 0);
    CHECK(skf_clip_find(doc, "Gallop", &err) == -1);
    printf("  %s\n", err.message);
    CHECK(err.status == SKF_ERR_ARGUMENT && err.kind == SKF_KIND_UNKNOWN_CLIP && !strcmp(err.name, "Gallop"));
    CHECK(!strcmp(err.place.json_path, "animations") && !strcmp(err.place.file, doc->path ? doc->path : "glTF"));
    CHECK(strstr(err.message, ": animations: no clip named 'Gallop'") != NULL);
    CHECK(skf_clip_find(doc, "Gallop", NULL) == -1);
    skf_gltf_free(doc);
}

static void test_short_name(void)
{
    const char *n = "AnimalArmature|Walk";
    CHECK(skf_clip_short_name(n) == n + 15);
    CHECK(strcmp(skf_clip_short_name("A|B|Run"), "Run") == 0); /* after the last bar */
    CHECK(strcmp(skf_clip_short_name("Walk"), "Walk") == 0);
    CHECK(strcmp(skf_clip_short_name("Armature|"), "") == 0);
    CHECK(skf_clip_short_name(NULL) == NULL);
}

/* Two joints on the x axis; joint 1 at x = 1 rotates 90° about z.
 * Vertex at (2,0,0) fully on joint 1 -> (1,1,0); vertex at (1,0,0) half on
 * each -> 0.5·(1,0,0) + 0.5·(1,0,0) = (1,0,0); vertex (2,0,0) half/half ->
 * 0.5·(2,0,0) + 0.5·(1,1,0) = (1.5,0.5,0). Morph target moves vertex 0 by
 * (0,0,1) at weight 0.5 before skinning. */
static void test_skin(void)
{
    skf_rig r = {0};
    r.skin = 0;
    r.vertex_count = 3;
    double rest[9] = {2, 0, 0, 1, 0, 0, 2, 0, 0};
    size_t off[4] = {0, 1, 3, 5};
    uint32_t jj[5] = {1, 0, 1, 0, 1};
    double ww[5] = {1, 0.5, 0.5, 0.5, 0.5};
    r.rest_positions = rest;
    r.weight_offsets = off;
    r.weight_joints = jj;
    r.weights = ww;
    skf_rig_node nodes[2] = {{0}, {0}};
    for (int i = 0; i < 2; ++i) {
        nodes[i].rotation[3] = 1;
        nodes[i].scale[0] = nodes[i].scale[1] = nodes[i].scale[2] = 1;
    }
    nodes[0].parent = -1;
    nodes[1].parent = 0;
    nodes[1].translation[0] = 1;
    r.node_count = 2;
    r.nodes = nodes;
    skf_rig_joint joints[2] = {{0}, {0}};
    joints[0].node = 0;
    joints[0].parent = -1;
    skf_mat4_identity(joints[0].mesh_to_joint);
    joints[1].node = 1;
    joints[1].parent = 0;
    skf_mat4_identity(joints[1].mesh_to_joint);
    joints[1].mesh_to_joint[12] = -1; /* bind: joint 1 at x = 1 */
    r.joint_count = 2;
    r.joints = joints;
    double deltas[9] = {0, 0, 1, 0, 0, 0, 0, 0, 0};
    skf_rig_part part = {0};
    part.node = 0;
    part.vertex_count = 3;
    part.target_count = 1;
    part.target_deltas = deltas;
    r.part_count = 1;
    r.parts = &part;
    r.target_count = 1;
    double dmw[1] = {0.5};
    int mtn[1] = {0};
    r.default_morph_weights = dmw;
    r.morph_target_node = mtn;

    const double t[1] = {0};
    double rot[4] = {0, 0, sin(M_PI / 4), cos(M_PI / 4)};
    skf_clip_channel ch = channel(SKF_PATH_ROTATION, SKF_INTERP_LINEAR, 1, t, 4, rot);
    ch.node = 1;
    skf_clip clip = {0};
    clip.channel_count = 1;
    clip.channels = &ch;

    skf_pose pose;
    skf_error err;
    CHECK(skf_pose_init(&pose, &r, &err) == SKF_OK);
    double out[9];
    skf_pose_eval(&r, NULL, 0, &pose);
    skf_skin(&r, &pose, out, 1);
    CHECK_NEAR(out[0], 2, 1e-15);
    CHECK_NEAR(out[2], 0.5, 1e-15); /* morph applied in the rest pose */
    skf_pose_eval(&r, &clip, 0, &pose);
    for (int threads = 1; threads <= 2; ++threads) {
        skf_skin(&r, &pose, out, threads);
        CHECK_NEAR(out[0], 1, 1e-15);
        CHECK_NEAR(out[1], 1, 1e-15);
        CHECK_NEAR(out[2], 0.5, 1e-15); /* z unaffected by a z rotation */
        CHECK_NEAR(out[3], 1, 1e-15);
        CHECK_NEAR(out[4], 0, 1e-15);
        CHECK_NEAR(out[6], 1.5, 1e-15);
        CHECK_NEAR(out[7], 0.5, 1e-15);
    }
    skf_pose_release(&pose);

    /* welding: vertices 0 and 2 share a position but not weights or
     * morph deltas; none merge. Make vertex 2 a true copy of vertex 0. */
    uint32_t jj2[5] = {1, 0, 1, 1, 0};
    double ww2[5] = {1, 0.5, 0.5, 1, 0};
    size_t off2[4] = {0, 1, 3, 4};
    double deltas2[9] = {0, 0, 1, 0, 0, 0, 0, 0, 1};
    r.weight_joints = jj2;
    r.weights = ww2;
    r.weight_offsets = off2;
    part.target_deltas = deltas2;
    uint32_t tris[6] = {0, 1, 2, 1, 2, 0};
    r.triangles = tris;
    r.triangle_count = 2;
    skf_rig *w = NULL;
    uint32_t *map = NULL;
    CHECK(skf_rig_weld(&r, &w, &map, &err) == SKF_OK);
    CHECK(w && w->vertex_count == 2);
    CHECK(map && map[0] == 0 && map[1] == 1 && map[2] == 0);
    CHECK(w && w->triangle_count == 0); /* both triangles collapse */
    deltas2[8] = 0.5; /* different morph delta: no merge */
    skf_rig *w2 = NULL;
    CHECK(skf_rig_weld(&r, &w2, NULL, &err) == SKF_OK);
    CHECK(w2 && w2->vertex_count == 3);
    printf("weld: hand rig 3 -> %zu (same weights and deltas), 3 -> %zu (deltas differ)\n",
           w ? w->vertex_count : 0, w2 ? w2->vertex_count : 0);
    skf_rig_free(w);
    skf_rig_free(w2);
    skf_free(map);
}

int main(void)
{
    test_linear_step();
    test_slerp();
    test_cubic();
    test_frames();
    test_short_name();
    test_clip_find();
    test_skin();
    return skf_test_done();
}
