/* Builder API and GLB writer on small hand-built documents: alignment, GLB
 * layout, argument checks, and each repair (skeleton, weights, bounds) with
 * its warning. */
#include "check.h"
#include "io/gltf_invariants.h"
#include "skinfit/gltf.h"
#include "skinfit/rig.h" /* skf_clip_find: the clip lookup by name is rig's */

#include <jansson.h>
#include <sys/stat.h>
#include <unistd.h>

static uint32_t u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Two-bone skin over a quad; skeleton and weights deliberately wrong. */
static skf_gltf *build_doc(int skeleton_mode)
{
    skf_error e;
    skf_gltf *d = NULL;
    CHECK(skf_gltf_new_empty("test-doc", &d, &e) == SKF_OK);
    if (!d)
        return NULL;
    int v3;
    CHECK(skf_gltf_append_bytes(d, "abc", 3, 0, &v3, &e) == SKF_OK); /* misalign the buffer */
    float pos[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    int apos, aidx, aj, aw, aibm;
    CHECK(skf_gltf_add_float_accessor(d, pos, 4, 3, 34962, false, &apos, &e) == SKF_OK);
    uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    CHECK(skf_gltf_add_uint_accessor(d, idx, 6, 1, SKF_GLTF_UNSIGNED_SHORT, 34963, &aidx, &e) ==
          SKF_OK);
    uint32_t jn[16] = {0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0};
    CHECK(skf_gltf_add_uint_accessor(d, jn, 4, 4, SKF_GLTF_UNSIGNED_BYTE, 34962, &aj, &e) ==
          SKF_OK);
    /* normalized ubyte weights: 100+100 (sum 0.78), 255, 0 (all zero), 200+55 */
    uint8_t wb[16] = {100, 100, 0, 0, 255, 0, 0, 0, 0, 0, 0, 0, 200, 55, 0, 0};
    int vw;
    CHECK(skf_gltf_append_bytes(d, wb, sizeof wb, 34962, &vw, &e) == SKF_OK);
    CHECK(skf_gltf_add_accessor(d, vw, 0, SKF_GLTF_UNSIGNED_BYTE, true, 4, 4, NULL, NULL, &aw,
                                &e) == SKF_OK);
    float ibm[32] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                     1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, 0, 0, 1};
    CHECK(skf_gltf_add_float_accessor(d, ibm, 2, 16, 0, false, &aibm, &e) == SKF_OK);
    int root, j0, j1, other, mesh, skin, mn;
    double t1[3] = {1, 0, 0};
    CHECK(skf_gltf_add_node(d, "Armature", -1, NULL, NULL, NULL, &root, &e) == SKF_OK);
    CHECK(skf_gltf_add_node(d, "Bone0", root, NULL, NULL, NULL, &j0, &e) == SKF_OK);
    CHECK(skf_gltf_add_node(d, "Bone1", j0, t1, NULL, NULL, &j1, &e) == SKF_OK);
    CHECK(skf_gltf_add_node(d, "Other", -1, NULL, NULL, NULL, &other, &e) == SKF_OK);
    const char *names[] = {"POSITION", "JOINTS_0", "WEIGHTS_0"};
    int accs[] = {apos, aj, aw};
    CHECK(skf_gltf_add_mesh(d, "Quad", names, accs, 3, aidx, &mesh, &e) == SKF_OK);
    int joints[2] = {j0, j1};
    if (skeleton_mode == 1)
        joints[1] = other; /* joints in two trees: no common root */
    CHECK(skf_gltf_add_skin(d, "Skin", joints, 2, aibm, j1 /* a leaf: invalid */, &skin, &e) ==
          SKF_OK);
    CHECK(skf_gltf_add_node(d, "QuadNode", -1, NULL, NULL, NULL, &mn, &e) == SKF_OK);
    json_t *node = json_array_get(json_object_get(d->json, "nodes"), (size_t)mn);
    json_object_set_new(node, "mesh", json_integer(mesh));
    json_object_set_new(node, "skin", json_integer(skin));
    json_object_set_new(d->json, "extras", json_pack("{s:s}", "kept", "yes"));
    CHECK_MSG(skf_gltf_reparse(d, NULL, &e) == SKF_OK, "%s", e.message);
    return d;
}

static void test_builder_and_layout(const char *dir)
{
    skf_gltf *d = build_doc(0);
    if (!d)
        return;
    check_gltf_invariants(d);
    for (size_t i = 0; i < d->buffer_view_count; ++i)
        CHECK(d->buffer_views[i].offset % 4 == 0);
    CHECK(d->node_count == 5 && d->nodes[2].parent == 1 && d->nodes[1].parent == 0);
    CHECK(d->scene == 0 && d->scene_count == 1 && d->scenes[0].node_count == 3);
    skf_error e;
    uint32_t big = 300;
    int dummy;
    CHECK(skf_gltf_add_uint_accessor(d, &big, 1, 1, SKF_GLTF_UNSIGNED_BYTE, 0, &dummy, &e) ==
          SKF_ERR_ARGUMENT);
    CHECK(skf_gltf_append_bytes(d, NULL, 0, 0, &dummy, &e) == SKF_ERR_ARGUMENT);
    CHECK(skf_gltf_add_node(d, "x", 99, NULL, NULL, NULL, &dummy, &e) == SKF_ERR_ARGUMENT);
    double nan3[3] = {0, NAN, 0};
    CHECK(skf_gltf_add_node(d, "x", -1, nan3, NULL, NULL, &dummy, &e) == SKF_ERR_ARGUMENT);
    float fnan[3] = {0, NAN, 0};
    CHECK(skf_gltf_add_float_accessor(d, fnan, 1, 3, 0, true, &dummy, &e) == SKF_ERR_ARGUMENT);

    char path[4200];
    snprintf(path, sizeof path, "%s/builder.glb", dir);
    skf_warnings w = {0};
    CHECK_MSG(skf_gltf_write_glb(d, path, &w, &e) == SKF_OK, "%s", e.message);
    for (size_t i = 0; i < w.count; ++i)
        printf("  warning: %s\n", w.items[i].text);
    /* skeleton repaired, weights renormalised, POSITION bounds added */
    bool skel = false, weights = false, bounds = false;
    for (size_t i = 0; i < w.count; ++i) {
        skel |= strstr(w.items[i].text, "skins[0].skeleton") != NULL;
        weights |= strstr(w.items[i].text, "renormalised") != NULL;
        bounds |= strstr(w.items[i].text, "POSITION") != NULL;
    }
    CHECK(skel && weights && bounds && w.count == 3);
    skf_warnings_release(&w);

    /* GLB layout */
    uint8_t *bytes;
    size_t size;
    CHECK(skf_read_file(path, SIZE_MAX, &bytes, &size, &e) == SKF_OK);
    CHECK(size >= 28 && !memcmp(bytes, "glTF", 4) && u32(bytes + 4) == 2 && u32(bytes + 8) == size);
    uint32_t jlen = u32(bytes + 12);
    CHECK(jlen % 4 == 0 && !memcmp(bytes + 16, "JSON", 4) && 20 + jlen + 8 <= size);
    CHECK(bytes[20 + jlen - 1] == '}' || bytes[20 + jlen - 1] == ' ');
    uint32_t blen = u32(bytes + 20 + jlen);
    CHECK(blen % 4 == 0 && !memcmp(bytes + 24 + jlen, "BIN\0", 4) && 28 + jlen + blen == size);
    skf_free(bytes);

    skf_gltf *b = NULL;
    CHECK_MSG(skf_gltf_load(path, &b, NULL, &e) == SKF_OK, "%s", e.message);
    if (b) {
        check_gltf_invariants(b);
        CHECK(b->skins[0].skeleton == 1); /* Bone0: the common root of Bone0, Bone1 */
        const skf_gltf_primitive *p = &b->meshes[0].primitives[0];
        int aw = -1, ap = -1;
        for (size_t i = 0; i < p->attribute_count; ++i) {
            if (!strcmp(p->attributes[i].name, "WEIGHTS_0"))
                aw = p->attributes[i].accessor;
            if (!strcmp(p->attributes[i].name, "POSITION"))
                ap = p->attributes[i].accessor;
        }
        CHECK(aw >= 0 && b->accessors[aw].component_type == SKF_GLTF_FLOAT);
        double wv[16];
        CHECK(skf_gltf_accessor_read(b, aw, wv, false, &e) == SKF_OK);
        CHECK_NEAR(wv[0], 0.5, 1e-7);
        CHECK_NEAR(wv[1], 0.5, 1e-7);
        CHECK(wv[4] == 1.0);
        CHECK(wv[8] == 1.0); /* all-zero vertex given to slot 0 */
        CHECK_NEAR(wv[12], 200.0 / 255.0, 1e-7);
        json_t *acc = json_array_get(json_object_get(b->json, "accessors"), (size_t)ap);
        json_t *mn = json_object_get(acc, "min"), *mx = json_object_get(acc, "max");
        CHECK(json_array_size(mn) == 3 && json_array_size(mx) == 3);
        CHECK(json_number_value(json_array_get(mx, 0)) == 1.0 &&
              json_number_value(json_array_get(mn, 2)) == 0.0);
        const char *kept = json_string_value(json_object_get(json_object_get(b->json, "extras"),
                                                             "kept"));
        CHECK(kept && !strcmp(kept, "yes"));
        CHECK(!strcmp(b->nodes[2].name, "Bone1") && b->nodes[2].translation[0] == 1.0);
        /* writing the reread file again needs no repair */
        char path2[4300];
        snprintf(path2, sizeof path2, "%s/builder2.glb", dir);
        skf_warnings w2 = {0};
        CHECK(skf_gltf_write_glb(b, path2, &w2, &e) == SKF_OK);
        CHECK_MSG(w2.count == 0, "second write repaired again: %s", w2.count ? w2.items[0].text : "");
        skf_warnings_release(&w2);
        unlink(path2);
    }
    skf_gltf_free(b);
    skf_gltf_free(d);
    unlink(path);
}

static void test_no_common_root(const char *dir)
{
    skf_gltf *d = build_doc(1);
    if (!d)
        return;
    char path[4200];
    snprintf(path, sizeof path, "%s/builder_noroot.glb", dir);
    skf_warnings w = {0};
    skf_error e;
    CHECK(skf_gltf_write_glb(d, path, &w, &e) == SKF_OK);
    bool dropped = false;
    for (size_t i = 0; i < w.count; ++i)
        dropped |= strstr(w.items[i].text, "removed") != NULL;
    CHECK(dropped);
    skf_warnings_release(&w);
    skf_gltf *b = NULL;
    CHECK(skf_gltf_load(path, &b, NULL, &e) == SKF_OK);
    if (b)
        CHECK(b->skins[0].skeleton == -1);
    skf_gltf_free(b);
    skf_gltf_free(d);
    unlink(path);
}

static void test_animation_args(void)
{
    skf_gltf *d = build_doc(0);
    if (!d)
        return;
    skf_error e;
    float t[3] = {0, 1, 1}; /* not increasing */
    float v[9] = {0};
    skf_gltf_new_channel c = {1, SKF_PATH_TRANSLATION, SKF_INTERP_LINEAR, 3, t, v, 3};
    CHECK(skf_gltf_add_animation(d, "A", &c, 1, &e) == SKF_ERR_ARGUMENT);
    printf("rejected: %s\n", e.message);
    t[2] = 2;
    c.node = 42;
    CHECK(skf_gltf_add_animation(d, "A", &c, 1, &e) == SKF_ERR_ARGUMENT);
    c.node = 1;
    skf_gltf_new_channel two[2] = {c, c};
    CHECK(skf_gltf_add_animation(d, "A", two, 2, &e) == SKF_ERR_ARGUMENT); /* duplicate target */
    c.path = SKF_PATH_WEIGHTS;
    CHECK(skf_gltf_add_animation(d, "A", &c, 1, &e) == SKF_ERR_ARGUMENT); /* no morph targets */
    c.path = SKF_PATH_TRANSLATION;
    CHECK(skf_gltf_add_animation(d, NULL, &c, 1, &e) == SKF_OK); /* unnamed is fine */
    /* quaternions are stored normalised */
    float q[8] = {0, 0, 0, 2, 0, 3, 0, 4};
    float t2[2] = {0, 1};
    skf_gltf_new_channel r = {2, SKF_PATH_ROTATION, SKF_INTERP_LINEAR, 2, t2, q, 4};
    CHECK(skf_gltf_add_animation(d, "R", &r, 1, &e) == SKF_OK);
    int a = skf_clip_find(d, "R", NULL);
    CHECK(a >= 0);
    if (a >= 0) {
        double out[8];
        CHECK(skf_gltf_accessor_read(d, d->animations[a].samplers[0].output, out, false, &e) ==
              SKF_OK);
        CHECK(out[3] == 1.0);
        CHECK_NEAR(out[5], 0.6, 1e-7);
        CHECK_NEAR(out[7], 0.8, 1e-7);
    }
    /* CUBICSPLINE: (in-tangent, value, out-tangent) per key; only the value
     * quaternion is normalised */
    float qc[24] = {1, 1, 1, 1, 0, 0, 0, 2, 5, 5, 5, 5, 2, 2, 2, 2, 0, 0, 3, 4, 7, 7, 7, 7};
    skf_gltf_new_channel cs = {2, SKF_PATH_ROTATION, SKF_INTERP_CUBICSPLINE, 2, t2, qc, 4};
    CHECK(skf_gltf_add_animation(d, "C", &cs, 1, &e) == SKF_OK);
    cs.key_count = 1;
    CHECK(skf_gltf_add_animation(d, "C1", &cs, 1, &e) == SKF_ERR_ARGUMENT);
    a = skf_clip_find(d, "C", NULL);
    CHECK(a >= 0);
    if (a >= 0) {
        int o = d->animations[a].samplers[0].output;
        CHECK(d->accessors[o].count == 6 &&
              d->animations[a].samplers[0].interpolation == SKF_INTERP_CUBICSPLINE);
        double out[24];
        CHECK(skf_gltf_accessor_read(d, o, out, false, &e) == SKF_OK);
        CHECK(out[0] == 1.0 && out[8] == 5.0 && out[7] == 1.0); /* tangents kept, value unit */
        CHECK_NEAR(out[18], 0.6, 1e-7);
        CHECK_NEAR(out[19], 0.8, 1e-7);
    }
    skf_gltf_free(d);
}


/* Two weight sets (8 influences) that sum to 0.5 together: both rewritten. */
static void test_two_weight_sets(const char *dir)
{
    skf_error e;
    skf_gltf *d = NULL;
    CHECK(skf_gltf_new_empty("two-sets", &d, &e) == SKF_OK);
    if (!d)
        return;
    float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    float w0[12] = {0.1f, 0.1f, 0, 0, 0.25f, 0, 0, 0, 0.2f, 0.2f, 0.2f, 0.2f};
    float w1[12] = {0.1f, 0.1f, 0.1f, 0, 0.25f, 0, 0, 0, 0.05f, 0.05f, 0.05f, 0.05f};
    uint32_t j0[12] = {0, 1, 2, 3, 0, 0, 0, 0, 0, 1, 2, 3};
    uint32_t j1[12] = {4, 5, 6, 0, 1, 0, 0, 0, 4, 5, 6, 7};
    uint32_t idx[3] = {0, 1, 2};
    int ap, a0, a1, aj0, aj1, ai, mesh, skin, mn, joints[8];
    CHECK(skf_gltf_add_float_accessor(d, pos, 3, 3, 34962, true, &ap, &e) == SKF_OK);
    CHECK(skf_gltf_add_float_accessor(d, w0, 3, 4, 34962, false, &a0, &e) == SKF_OK);
    CHECK(skf_gltf_add_float_accessor(d, w1, 3, 4, 34962, false, &a1, &e) == SKF_OK);
    CHECK(skf_gltf_add_uint_accessor(d, j0, 3, 4, SKF_GLTF_UNSIGNED_BYTE, 34962, &aj0, &e) ==
          SKF_OK);
    CHECK(skf_gltf_add_uint_accessor(d, j1, 3, 4, SKF_GLTF_UNSIGNED_BYTE, 34962, &aj1, &e) ==
          SKF_OK);
    CHECK(skf_gltf_add_uint_accessor(d, idx, 3, 1, SKF_GLTF_UNSIGNED_SHORT, 34963, &ai, &e) ==
          SKF_OK);
    for (int j = 0; j < 8; ++j) {
        char name[16];
        snprintf(name, sizeof name, "J%d", j);
        CHECK(skf_gltf_add_node(d, name, j ? joints[0] : -1, NULL, NULL, NULL, &joints[j], &e) ==
              SKF_OK);
    }
    const char *names[] = {"POSITION", "WEIGHTS_0", "WEIGHTS_1", "JOINTS_0", "JOINTS_1"};
    int accs[] = {ap, a0, a1, aj0, aj1};
    CHECK(skf_gltf_add_mesh(d, NULL, names, accs, 5, ai, &mesh, &e) == SKF_OK);
    CHECK(skf_gltf_add_skin(d, NULL, joints, 8, -1, joints[0], &skin, &e) == SKF_OK);
    CHECK(skf_gltf_add_node(d, "M", -1, NULL, NULL, NULL, &mn, &e) == SKF_OK);
    json_t *node = json_array_get(json_object_get(d->json, "nodes"), (size_t)mn);
    json_object_set_new(node, "mesh", json_integer(mesh));
    json_object_set_new(node, "skin", json_integer(skin));
    CHECK_MSG(skf_gltf_reparse(d, NULL, &e) == SKF_OK, "%s", e.message);
    char path[4200];
    snprintf(path, sizeof path, "%s/two_sets.glb", dir);
    skf_warnings w = {0};
    CHECK(skf_gltf_write_glb(d, path, &w, &e) == SKF_OK);
    CHECK(w.count == 1);
    skf_warnings_release(&w);
    skf_gltf *b = NULL;
    CHECK(skf_gltf_load(path, &b, NULL, &e) == SKF_OK);
    if (b) {
        const skf_gltf_primitive *p = &b->meshes[0].primitives[0];
        double x[12], y[12];
        int n0 = -1, n1 = -1;
        for (size_t i = 0; i < p->attribute_count; ++i) {
            if (!strcmp(p->attributes[i].name, "WEIGHTS_0"))
                n0 = p->attributes[i].accessor;
            if (!strcmp(p->attributes[i].name, "WEIGHTS_1"))
                n1 = p->attributes[i].accessor;
        }
        CHECK(n0 != a0 && n1 != a1 && n0 >= 0 && n1 >= 0);
        if (n0 >= 0 && n1 >= 0) {
            CHECK(skf_gltf_accessor_read(b, n0, x, false, &e) == SKF_OK);
            CHECK(skf_gltf_accessor_read(b, n1, y, false, &e) == SKF_OK);
            for (int v = 0; v < 3; ++v) {
                double s = 0;
                for (int c = 0; c < 4; ++c)
                    s += x[4 * v + c] + y[4 * v + c];
                CHECK_NEAR(s, 1.0, 1e-7);
            }
            CHECK_NEAR(x[0], 0.2, 1e-7);  /* 0.1 / 0.5 */
            CHECK_NEAR(y[2], 0.2, 1e-7);
            CHECK_NEAR(x[4], 0.5, 1e-7);  /* 0.25 / 0.5 */
            CHECK_NEAR(y[8], 0.05, 1e-7); /* 0.05 / 1.0: in a repaired primitive, kept */
        }
    }
    skf_gltf_free(b);
    skf_gltf_free(d);
    unlink(path);
}

static void put_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        CHECK(fwrite(data, 1, n, f) == n);
        fclose(f);
    }
}

/* json written to <dir>/<name>.gltf (path), loaded, and written as
 * <dir>/<name>.glb (out) with the writer's warnings in *w; the loaded
 * document, or NULL (a failed check) when it did not load. */
static skf_gltf *load_and_write(const char *dir, const char *name, const char *json, char *path,
                                char *out, skf_warnings *w)
{
    snprintf(path, 4200, "%s/%s.gltf", dir, name);
    put_file(path, json, strlen(json));
    snprintf(out, 4200, "%s/%s.glb", dir, name);
    skf_error e;
    skf_gltf *d = NULL;
    CHECK_MSG(skf_gltf_load(path, &d, NULL, &e) == SKF_OK, "%s", e.message);
    if (d)
        CHECK_MSG(skf_gltf_write_glb(d, out, w, &e) == SKF_OK, "%s", e.message);
    return d;
}

/* A .gltf with an external image (percent-encoded name), a data: URI image
 * and a missing image: the first two are embedded, the third kept. */
static void test_images(const char *dir)
{
    static const uint8_t png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I',
                                  'H', 'D', 'R', 1, 2, 3};
    static const uint8_t jpg[] = {0xff, 0xd8, 0xff, 0xe0, 'J', 'F', 'I', 'F', 0};
    char path[4200], img[4200], out[4200];
    snprintf(img, sizeof img, "%s/tex one.png", dir);
    put_file(img, png, sizeof png);
    /* 3 floats (0,0,0) as a base64 buffer */
    const char *json =
        "{\"asset\":{\"version\":\"2.0\"},"
        "\"buffers\":[{\"byteLength\":12,\"uri\":\"geo.bin\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":12}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":1,\"type\":\"VEC3\","
        "\"min\":[0,0,0],\"max\":[0,0,0]}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"mode\":0}]}],"
        "\"nodes\":[{\"mesh\":0,\"name\":\"n\",\"extras\":{\"k\":[1,2]}}],"
        "\"scenes\":[{\"nodes\":[0]}],\"scene\":0,"
        "\"images\":[{\"uri\":\"tex%20one.png\",\"name\":\"ext\"},"
        "{\"uri\":\"data:application/octet-stream;base64,/9j/4EpGSUYA\"},{\"uri\":\"missing.png\"}],"
        "\"textures\":[{\"source\":0},{\"source\":1},{\"source\":2}],"
        "\"materials\":[{\"name\":\"m\",\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}}}]}";
    char bin[4200];
    snprintf(bin, sizeof bin, "%s/geo.bin", dir);
    static const uint8_t zeros[12] = {0};
    put_file(bin, zeros, sizeof zeros); /* an external buffer is merged into BIN too */
    skf_error e;
    skf_warnings w = {0};
    skf_gltf *d = load_and_write(dir, "images", json, path, out, &w), *b = NULL;
    if (!d)
        return;
    CHECK(w.count == 1 && strstr(w.items[0].text, "images[2]"));
    for (size_t i = 0; i < w.count; ++i)
        printf("  warning: %s\n", w.items[i].text);
    skf_warnings_release(&w);
    CHECK(skf_gltf_load(out, &b, NULL, &e) == SKF_OK);
    if (b) {
        json_t *imgs = json_object_get(b->json, "images");
        json_t *i0 = json_array_get(imgs, 0), *i1 = json_array_get(imgs, 1),
               *i2 = json_array_get(imgs, 2);
        CHECK(!strcmp(json_string_value(json_object_get(i0, "mimeType")), "image/png"));
        CHECK(!strcmp(json_string_value(json_object_get(i1, "mimeType")), "image/jpeg"));
        CHECK(!strcmp(json_string_value(json_object_get(i0, "name")), "ext"));
        CHECK(!strcmp(json_string_value(json_object_get(i2, "uri")), "missing.png"));
        int v0 = (int)json_integer_value(json_object_get(i0, "bufferView"));
        int v1 = (int)json_integer_value(json_object_get(i1, "bufferView"));
        CHECK(v0 >= 1 && v1 >= 1 && (size_t)v0 < b->buffer_view_count &&
              (size_t)v1 < b->buffer_view_count);
        if (v0 >= 1 && v1 >= 1 && (size_t)v0 < b->buffer_view_count &&
            (size_t)v1 < b->buffer_view_count) {
            const skf_gltf_buffer_view *bv0 = &b->buffer_views[v0], *bv1 = &b->buffer_views[v1];
            CHECK(bv0->length == sizeof png &&
                  !memcmp(b->buffers[0].data + bv0->offset, png, sizeof png));
            CHECK(bv1->length == sizeof jpg &&
                  !memcmp(b->buffers[0].data + bv1->offset, jpg, sizeof jpg));
            CHECK(bv0->offset % 4 == 0 && bv1->offset % 4 == 0);
        }
        CHECK(json_equal(json_object_get(b->json, "materials"),
                         json_object_get(d->json, "materials")));
        CHECK(json_equal(json_object_get(json_array_get(json_object_get(b->json, "nodes"), 0),
                                         "extras"),
                         json_object_get(json_array_get(json_object_get(d->json, "nodes"), 0),
                                         "extras")));
        CHECK(json_array_size(json_object_get(b->json, "buffers")) == 1 &&
              !json_object_get(json_array_get(json_object_get(b->json, "buffers"), 0), "uri"));
    }
    skf_gltf_free(b);
    skf_gltf_free(d);
    unlink(out);
    unlink(path);
    unlink(img);
    unlink(bin);
}

/* The writer resolves image URIs with the reader's strict resolver: a
 * scheme ("file:", "C:"), an absolute path or %00 is kept as an external URI
 * with a warning even when a file of that name exists, and a query is
 * dropped ("tex.png?v=2" embeds tex.png). Before, the writer embedded
 * "file:tex.png" and "C:tex.png" from the document's folder. */
static void test_image_uris(const char *dir)
{
    static const uint8_t png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I',
                                  'H', 'D', 'R', 1, 2, 3};
    char plain[4200], scheme[4200], drive[4200], path[4200], out[4200], abs[4200];
    snprintf(plain, sizeof plain, "%s/tex.png", dir);
    snprintf(scheme, sizeof scheme, "%s/file:tex.png", dir);
    snprintf(drive, sizeof drive, "%s/C:tex.png", dir);
    put_file(plain, png, sizeof png);
    put_file(scheme, png, sizeof png);
    put_file(drive, png, sizeof png);
    CHECK(realpath(plain, abs) != NULL); /* the same file by its absolute path */
    char json[16384];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},"
             "\"images\":[{\"uri\":\"file:tex.png\"},{\"uri\":\"C:tex.png\"},{\"uri\":\"%s\"},"
             "{\"uri\":\"tex%%00.png\"},{\"uri\":\"tex.png?v=2\"}]}",
             abs);
    skf_error e;
    skf_warnings w = {0};
    skf_gltf *d = load_and_write(dir, "uris", json, path, out, &w), *b = NULL;
    if (!d)
        return;
    CHECK_MSG(w.count == 4, "%zu warnings", w.count);
    for (size_t i = 0; i < w.count; ++i) {
        printf("  warning: %s\n", w.items[i].text);
        char want[64];
        snprintf(want, sizeof want, "images[%zu].uri: '", i);
        CHECK(strstr(w.items[i].text, want) && strstr(w.items[i].text, "cannot be resolved (") &&
              strstr(w.items[i].text, "kept as an external URI"));
    }
    skf_warnings_release(&w);
    CHECK(skf_gltf_load(out, &b, NULL, &e) == SKF_OK);
    if (b) {
        json_t *imgs = json_object_get(b->json, "images");
        const char *kept[] = {"file:tex.png", "C:tex.png", abs, "tex%00.png"};
        for (size_t i = 0; i < 4; ++i) {
            json_t *im = json_array_get(imgs, i);
            const char *u = json_string_value(json_object_get(im, "uri"));
            CHECK_MSG(u && !strcmp(u, kept[i]) && !json_object_get(im, "bufferView"),
                      "images[%zu] %s", i, u ? u : "(embedded)");
        }
        json_t *q = json_array_get(imgs, 4);
        CHECK(!json_object_get(q, "uri") && json_object_get(q, "bufferView") &&
              !strcmp(json_string_value(json_object_get(q, "mimeType")), "image/png"));
    }
    skf_gltf_free(b);
    skf_gltf_free(d);
    unlink(out);
    unlink(path);
    unlink(plain);
    unlink(scheme);
    unlink(drive);
}

/* A document without binary data writes a GLB without a BIN chunk. */
static void test_empty(const char *dir)
{
    skf_error e;
    skf_gltf *d = NULL, *b = NULL;
    CHECK(skf_gltf_new_empty(NULL, &d, &e) == SKF_OK);
    if (!d)
        return;
    int n;
    CHECK(skf_gltf_add_node(d, "only", -1, NULL, NULL, NULL, &n, &e) == SKF_OK);
    CHECK(skf_gltf_reparse(d, NULL, &e) == SKF_OK);
    char path[4200];
    snprintf(path, sizeof path, "%s/empty.glb", dir);
    CHECK(skf_gltf_write_glb(d, path, NULL, &e) == SKF_OK);
    uint8_t *bytes;
    size_t size;
    CHECK(skf_read_file(path, SIZE_MAX, &bytes, &size, &e) == SKF_OK);
    CHECK(size >= 20 && u32(bytes + 8) == size && 20 + u32(bytes + 12) == size);
    skf_free(bytes);
    CHECK(skf_gltf_load(path, &b, NULL, &e) == SKF_OK);
    CHECK(b && b->node_count == 1 && b->buffer_count == 0 && !strcmp(b->nodes[0].name, "only"));
    skf_gltf_free(b);
    skf_gltf_free(d);
    unlink(path);
}

int main(void)
{
    const char *bd = getenv("SKF_BUILD_DIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/gltfwrite_tmp", bd && *bd ? bd : ".");
    mkdir(dir, 0777);
    test_builder_and_layout(dir);
    test_no_common_root(dir);
    test_animation_args();
    test_two_weight_sets(dir);
    test_images(dir);
    test_image_uris(dir);
    test_empty(dir);
    return skf_test_done();
}
