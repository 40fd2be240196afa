/* Rig extraction from glTF: a synthetic document exercising every weight
 * encoding (UNSIGNED_BYTE / UNSIGNED_SHORT normalized weights, two
 * JOINTS/WEIGHTS sets, duplicate joints, zero weights dropped),
 * strips and fans, ignored line primitives, joint parents across non-joint
 * nodes, rest TRS != bind pose, an ignored skinned-mesh-node transform,
 * node.weights overriding mesh.weights and an unskinned mesh parented to a
 * joint (since issue 12 an attached mesh: part of the skin's surface after
 * the skinned primitives, weight 1 on that joint, its morph target applied;
 * the skinned-only checks run with no_attached); then the Quaternius weld
 * counts. */
#include "check.h"
#include "skinfit/gltf.h"
#include "skinfit/rig.h"

#include <stdint.h>

static uint8_t buf[384];

static void f32(size_t off, float v) { memcpy(buf + off, &v, 4); }
static void u16(size_t off, uint16_t v) { memcpy(buf + off, &v, 2); }

static char *base64(const uint8_t *d, size_t n)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *o = malloc(4 * ((n + 2) / 3) + 1), *p = o;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0) | (i + 2 < n ? d[i + 2] : 0);
        *p++ = t[v >> 18 & 63];
        *p++ = t[v >> 12 & 63];
        *p++ = i + 1 < n ? t[v >> 6 & 63] : '=';
        *p++ = i + 2 < n ? t[v & 63] : '=';
    }
    *p = 0;
    return o;
}

static skf_gltf *synthetic(void)
{
    /* POSITION 5 x VEC3 float @0 */
    const float pos[15] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 2, 1, 0, 2, 2, 0};
    for (int i = 0; i < 15; ++i)
        f32(4 * (size_t)i, pos[i]);
    /* strip indices ushort @60 (0 1 2 3 4) */
    for (int i = 0; i < 5; ++i)
        u16(60 + 2 * (size_t)i, (uint16_t)i);
    /* JOINTS_0 ubyte @72, WEIGHTS_0 normalized ubyte @92 */
    const uint8_t j0[20] = {0, 1, 2, 0, 1, 1, 0, 0, 2, 1, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0};
    const uint8_t w0[20] = {51, 51, 0, 0, 102, 153, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0};
    memcpy(buf + 72, j0, 20);
    memcpy(buf + 92, w0, 20);
    /* JOINTS_1 ushort @112, WEIGHTS_1 normalized ushort @152: vertex 0 gets
     * joint 2 at 39321/65535 = 0.6 */
    u16(112, 2);
    u16(152, 39321);
    /* inverse bind matrices @192: I, T(-1,0,0), T(0,-2,0) */
    for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 16; ++k)
            f32(192 + 64 * (size_t)j + 4 * (size_t)k, (k % 5 == 0) ? 1.0f : 0.0f);
    f32(192 + 64 + 48, -1.0f);
    f32(192 + 128 + 52, -2.0f);
    char *b64 = base64(buf, sizeof buf);
    static char json[8192];
    snprintf(json, sizeof json,
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,4]}],"
        "\"nodes\":["
        "{\"name\":\"root\",\"children\":[1]},"
        "{\"name\":\"j1\",\"translation\":[1,0,0],\"children\":[2]},"
        "{\"name\":\"notajoint\",\"translation\":[0,1,0],\"children\":[3]},"
        "{\"name\":\"j3\",\"translation\":[0,1,0],\"children\":[5]},"
        "{\"name\":\"skinned\",\"mesh\":0,\"skin\":0,\"rotation\":[0.7071068,0,0,0.7071068],\"scale\":[100,100,100]},"
        "{\"name\":\"eye\",\"mesh\":1,\"weights\":[0.75]}],"
        "\"skins\":[{\"joints\":[0,1,3],\"inverseBindMatrices\":8}],"
        "\"meshes\":[{\"primitives\":["
        "{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":2,\"WEIGHTS_0\":3,\"JOINTS_1\":4,\"WEIGHTS_1\":5},\"indices\":1,\"mode\":5},"
        "{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":2,\"WEIGHTS_0\":3,\"JOINTS_1\":4,\"WEIGHTS_1\":5},\"mode\":6},"
        "{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":2,\"WEIGHTS_0\":3},\"mode\":1}]},"
        "{\"weights\":[0.25],\"primitives\":[{\"attributes\":{\"POSITION\":0},\"targets\":[{\"POSITION\":0}]}]}],"
        "\"buffers\":[{\"byteLength\":384,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":60},"
        "{\"buffer\":0,\"byteOffset\":60,\"byteLength\":10},"
        "{\"buffer\":0,\"byteOffset\":72,\"byteLength\":20},{\"buffer\":0,\"byteOffset\":92,\"byteLength\":20},"
        "{\"buffer\":0,\"byteOffset\":112,\"byteLength\":40},{\"buffer\":0,\"byteOffset\":152,\"byteLength\":40},"
        "{\"buffer\":0,\"byteOffset\":192,\"byteLength\":192}],"
        "\"accessors\":["
        "{\"bufferView\":0,\"componentType\":5126,\"count\":5,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[2,2,0]},"
        "{\"bufferView\":1,\"componentType\":5123,\"count\":5,\"type\":\"SCALAR\"},"
        "{\"bufferView\":2,\"componentType\":5121,\"count\":5,\"type\":\"VEC4\"},"
        "{\"bufferView\":3,\"componentType\":5121,\"normalized\":true,\"count\":5,\"type\":\"VEC4\"},"
        "{\"bufferView\":4,\"componentType\":5123,\"count\":5,\"type\":\"VEC4\"},"
        "{\"bufferView\":5,\"componentType\":5123,\"normalized\":true,\"count\":5,\"type\":\"VEC4\"},"
        "{},{},"
        "{\"bufferView\":6,\"componentType\":5126,\"count\":3,\"type\":\"MAT4\"}]}",
        b64);
    free(b64);
    /* accessors 6 and 7 are placeholders: drop them by renumbering IBM */
    char *p = strstr(json, "{},{},");
    memmove(p, p + 6, strlen(p + 6) + 1);
    p = strstr(json, "\"inverseBindMatrices\":8");
    p[22] = '6';
    skf_gltf *doc = NULL;
    skf_error err = {0};
    skf_warnings w = {0};
    skf_status st = skf_gltf_load_memory(json, strlen(json), "synthetic.gltf", NULL, &doc, &w, &err);
    CHECK_MSG(st == SKF_OK, "%s", err.message);
    skf_warnings_release(&w);
    return doc;
}

static double row_weight(const skf_rig *r, size_t v, uint32_t j)
{
    for (size_t e = r->weight_offsets[v]; e < r->weight_offsets[v + 1]; ++e)
        if (r->weight_joints[e] == j)
            return r->weights[e];
    return 0;
}

static void test_synthetic(void)
{
    skf_gltf *doc = synthetic();
    if (!doc)
        return;
    skf_rig *r = NULL;
    skf_error err = {0};
    skf_warnings w = {0};
    skf_rig_options skinned_only = {.no_attached = true};
    CHECK_MSG(skf_rig_from_gltf(doc, 0, &skinned_only, &r, &w, &err) == SKF_OK, "%s", err.message);
    for (size_t i = 0; i < w.count; ++i)
        printf("warning: %s\n", w.items[i].text);
    skf_warnings_release(&w);
    if (!r)
        return;
    CHECK(r->vertex_count == 10 && r->part_count == 2); /* strip + fan; lines ignored */
    CHECK(r->triangle_count == 6);
    uint32_t want[18] = {0, 1, 2, 1, 3, 2, 2, 3, 4, 6, 7, 5, 7, 8, 5, 8, 9, 5};
    CHECK(r->triangle_count == 6 && !memcmp(r->triangles, want, sizeof want));
    /* vertex 0: 0.2 on joints 0 and 1, 0.6 on joint 2 (second set) */
    CHECK_NEAR(row_weight(r, 0, 0), 0.2, 1e-6);
    CHECK_NEAR(row_weight(r, 0, 1), 0.2, 1e-6);
    CHECK_NEAR(row_weight(r, 0, 2), 0.6, 1e-5);
    /* vertex 1: joint 1 listed twice (0.4 + 0.6) -> one entry */
    CHECK(r->weight_offsets[2] - r->weight_offsets[1] == 1);
    CHECK_NEAR(row_weight(r, 1, 1), 1.0, 1e-12);
    /* vertex 2: the zero weight listed on joint 1 is not stored */
    CHECK(r->weight_offsets[3] - r->weight_offsets[2] == 1);
    /* joints: node 3's parent joint is node 1's (through a non-joint node) */
    CHECK(r->joint_count == 3 && r->joints[0].parent == -1 && r->joints[1].parent == 0 &&
          r->joints[2].parent == 1);
    CHECK(r->joints[0].has_weight && r->joints[1].has_weight && r->joints[2].has_weight);
    CHECK_NEAR(r->joints[1].mesh_to_joint[12], -1, 0);

    /* rest pose: joint 2 sits at (1,2,0) but was bound at (0,2,0): vertices
     * fully on it move by +1 in x; the skinned node's rotation and ×100 scale
     * are ignored. */
    skf_pose pose;
    CHECK(skf_pose_init(&pose, r, &err) == SKF_OK);
    skf_pose_eval(r, NULL, 0, &pose);
    double out[30];
    skf_skin(r, &pose, out, 1);
    CHECK_NEAR(out[3 * 4 + 0], 3, 1e-12); /* vertex 4 (2,2,0), joint 2 -> (3,2,0) */
    CHECK_NEAR(out[3 * 4 + 1], 2, 1e-12);
    CHECK_NEAR(out[3 * 1 + 0], 1, 1e-12); /* vertex 1 on joint 1 (bind = rest) */
    /* vertex 0 at the origin: only its (normalised) joint-2 share moves, +1 x */
    double w2 = 39321.0 / 65535.0, w01 = 51.0 / 255.0;
    CHECK_NEAR(out[0], w2 / (2 * w01 + w2), 1e-12);
    skf_pose_release(&pose);

    /* weld: the fan repeats the strip's vertices exactly */
    skf_rig *wr = NULL;
    uint32_t *map = NULL;
    CHECK(skf_rig_weld(r, &wr, &map, &err) == SKF_OK);
    CHECK(wr && wr->vertex_count == 5 && wr->triangle_count == 6);
    CHECK(map && map[5] == 0 && map[9] == 4);
    skf_free(map);
    skf_rig_free(wr);
    skf_rig_free(r);

    /* with the attached eye (default): 10 skinned + 5 attached vertices, weight 1 on j3 (joint 2),
     * the morph weight 0.75 of node.weights; at rest it lands where the unskinned surface below
     * puts it: vertex 4 (2,2,0) -> 1.75 * (2,2,0) + (1,2,0) = (4.5, 5.5, 0) */
    CHECK(skf_rig_from_gltf(doc, 0, NULL, &r, NULL, &err) == SKF_OK);
    if (r) {
        CHECK(r->vertex_count == 15 && r->part_count == 3 && !r->parts[0].attached && !r->parts[1].attached);
        CHECK(r->parts[2].attached && r->parts[2].node == 5 && r->parts[2].attached_joint == 2 &&
              r->parts[2].first_vertex == 10 && r->parts[2].vertex_count == 5);
        CHECK(r->target_count == 1 && r->default_morph_weights[0] == 0.75);
        CHECK(r->weight_offsets[11] - r->weight_offsets[10] == 1 && row_weight(r, 14, 2) == 1.0);
        CHECK(r->triangle_count == 7); /* the eye's 5 TRIANGLES vertices make one triangle */
        double out15[45];
        CHECK(skf_pose_init(&pose, r, &err) == SKF_OK);
        skf_pose_eval(r, NULL, 0, &pose);
        skf_skin(r, &pose, out15, 1);
        CHECK_NEAR(out15[3 * 14 + 0], 4.5, 1e-6);
        CHECK_NEAR(out15[3 * 14 + 1], 5.5, 1e-6);
        CHECK_NEAR(out15[3 * 4 + 0], 3, 1e-12); /* the skinned vertices as before */
        skf_pose_release(&pose);
        skf_rig_free(r);
    }

    /* the unskinned surface: the eye mesh parented to joint j3, morph
     * weight from node.weights (0.75) over mesh.weights (0.25); its target
     * doubles the positions: rest (1+0.75)·p, then node_to_world T(1,2,0):
     * vertex 4 (2,2,0) -> (3.5,3.5,0) + (1,2,0) */
    CHECK(skf_rig_from_gltf(doc, -1, NULL, &r, NULL, &err) == SKF_OK);
    if (r) {
        CHECK(r->vertex_count == 5 && r->target_count == 1 && r->joint_count == 1);
        CHECK_NEAR(r->default_morph_weights[0], 0.75, 0);
        CHECK(skf_pose_init(&pose, r, &err) == SKF_OK);
        skf_pose_eval(r, NULL, 0, &pose);
        skf_skin(r, &pose, out, 2);
        CHECK_NEAR(out[3 * 4 + 0], 4.5, 1e-6);
        CHECK_NEAR(out[3 * 4 + 1], 5.5, 1e-6);
        skf_pose_release(&pose);
        skf_rig_free(r);
    }
    skf_gltf_free(doc);
}

static int cmp3(const void *a, const void *b)
{
    const double *x = a, *y = b;
    for (int k = 0; k < 3; ++k)
        if (x[k] != y[k])
            return x[k] < y[k] ? -1 : 1;
    return 0;
}

static size_t distinct_positions(const skf_rig *r)
{
    double *p = malloc(r->vertex_count * 3 * sizeof *p);
    memcpy(p, r->rest_positions, r->vertex_count * 3 * sizeof *p);
    qsort(p, r->vertex_count, 3 * sizeof *p, cmp3);
    size_t n = r->vertex_count ? 1 : 0;
    for (size_t i = 1; i < r->vertex_count; ++i)
        n += cmp3(p + 3 * (i - 1), p + 3 * i) != 0;
    free(p);
    return n;
}

static void weld_file(const char *rel, size_t raw, size_t want_positions, int alpaca)
{
    const char *path = skf_test_data(rel);
    if (!path) {
        printf("%s absent: skipped\n", rel);
        return;
    }
    skf_gltf *doc = NULL;
    skf_rig *r = NULL, *w = NULL;
    skf_error err = {0};
    CHECK(skf_gltf_load(path, &doc, NULL, &err) == SKF_OK);
    CHECK(doc && skf_rig_from_gltf(doc, 0, NULL, &r, NULL, &err) == SKF_OK);
    if (!r) {
        skf_gltf_free(doc);
        return;
    }
    CHECK(skf_rig_weld(r, &w, NULL, &err) == SKF_OK);
    size_t dp = distinct_positions(r);
    printf("%s: %zu raw vertices, %zu distinct positions, %zu welded (position + weights)\n", rel,
           r->vertex_count, dp, w ? w->vertex_count : 0);
    CHECK(r->vertex_count == raw);
    if (want_positions)
        CHECK(dp == want_positions);
    if (alpaca)
        CHECK(w && w->vertex_count > dp); /* weights differ at coincident points */
    else
        CHECK(w && w->vertex_count == dp);
    /* every row sums to 1 */
    double worst = 0;
    for (size_t v = 0; v < r->vertex_count; ++v) {
        double s = 0;
        for (size_t e = r->weight_offsets[v]; e < r->weight_offsets[v + 1]; ++e)
            s += r->weights[e];
        worst = fmax(worst, fabs(s - 1));
    }
    CHECK(worst < 1e-12);
    skf_rig_free(w);
    skf_rig_free(r);
    skf_gltf_free(doc);
}

/* Fail every allocation in turn: extraction, welding and baking report
 * SKF_ERR_NOMEM (never crash or leak — ASan checks the leaks). */
static void test_alloc_failures(void)
{
    skf_gltf *doc = synthetic();
    if (!doc)
        return;
    size_t runs = 0, nomem = 0;
    for (size_t n = 1; n < 10000; ++n) {
        skf_error err = {0};
        skf_rig *r = NULL, *w = NULL;
        skf_alloc_fail_from(n);
        skf_status st = skf_rig_from_gltf(doc, 0, NULL, &r, NULL, &err);
        if (!st)
            st = skf_rig_weld(r, &w, NULL, &err);
        skf_meshseq *seq = NULL;
        skf_clip still = {0}; /* no channels: the rest pose, one frame */
        if (!st)
            st = skf_rig_bake(w, &still, 10, 1, NULL, &seq, &err);
        skf_alloc_fail_from(0);
        ++runs;
        CHECK(st || (seq && seq->frame_count == 1 && seq->vertex_count == 10)); /* 5 skinned + 5 attached (eye) */
        skf_meshseq_free(seq);
        skf_rig_free(r);
        skf_rig_free(w);
        if (st == SKF_OK)
            break;
        CHECK_MSG(st == SKF_ERR_NOMEM, "allocation %zu: %s", n, err.message);
        ++nomem;
    }
    printf("allocation failures: %zu runs, %zu reported out of memory, last succeeded\n", runs, nomem);
    CHECK(nomem > 10);
    skf_gltf_free(doc);
}

int main(void)
{
    test_synthetic();
    test_alloc_failures();
    weld_file("quaternius/animals/Horse.glb", 4400, 1093, 0);
    weld_file("quaternius/animals/Alpaca.glb", 4156, 0, 1);
    return skf_test_done();
}
