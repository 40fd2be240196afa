/* Accessor decoding on documents built here: every component type, the
 * glTF normalisation rules, byteStride (interleaved), matrix column padding,
 * accessor byteOffset, sparse (with and without a base bufferView), integer
 * reads, non-finite rejection; plus data: URIs, node matrices, animation
 * lookup, reparse, and that unknown JSON survives loading. */
#include "gltf_fixture.h"
#include "gltf_invariants.h"
#include "skinfit/rig.h" /* skf_clip_find: the clip lookup by name is rig's */

#include <jansson.h>

static void put_i8(blob *b, int8_t v) { blob_put(b, &v, 1); }
static void put_i16(blob *b, int16_t v) { blob_put(b, &v, 2); }

static const char ACCESSOR_JSON[] =
    "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":244}],\n"
    "\"bufferViews\":[\n"
    "{\"buffer\":0,\"byteOffset\":0,\"byteLength\":4},{\"buffer\":0,\"byteOffset\":4,\"byteLength\":4},\n"
    "{\"buffer\":0,\"byteOffset\":8,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":16,\"byteLength\":8},\n"
    "{\"buffer\":0,\"byteOffset\":24,\"byteLength\":16},{\"buffer\":0,\"byteOffset\":40,\"byteLength\":16},\n"
    "{\"buffer\":0,\"byteOffset\":56,\"byteLength\":48,\"byteStride\":16},\n"
    "{\"buffer\":0,\"byteOffset\":104,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":112,\"byteLength\":12},\n"
    "{\"buffer\":0,\"byteOffset\":124,\"byteLength\":24},{\"buffer\":0,\"byteOffset\":148,\"byteLength\":4},\n"
    "{\"buffer\":0,\"byteOffset\":152,\"byteLength\":24},{\"buffer\":0,\"byteOffset\":176,\"byteLength\":48},\n"
    "{\"buffer\":0,\"byteOffset\":224,\"byteLength\":16},{\"buffer\":0,\"byteOffset\":240,\"byteLength\":4}],\n"
    "\"accessors\":[\n"
    "{\"bufferView\":0,\"componentType\":5120,\"count\":2,\"type\":\"VEC2\"},\n"
    "{\"bufferView\":0,\"componentType\":5120,\"count\":2,\"type\":\"VEC2\",\"normalized\":true},\n"
    "{\"bufferView\":1,\"componentType\":5121,\"count\":4,\"type\":\"SCALAR\"},\n"
    "{\"bufferView\":1,\"componentType\":5121,\"count\":4,\"type\":\"SCALAR\",\"normalized\":true},\n"
    "{\"bufferView\":2,\"componentType\":5122,\"count\":4,\"type\":\"SCALAR\"},\n"
    "{\"bufferView\":2,\"componentType\":5122,\"count\":4,\"type\":\"SCALAR\",\"normalized\":true},\n"
    "{\"bufferView\":3,\"componentType\":5123,\"count\":4,\"type\":\"SCALAR\"},\n"
    "{\"bufferView\":3,\"componentType\":5123,\"count\":2,\"type\":\"VEC2\",\"normalized\":true},\n"
    "{\"bufferView\":4,\"componentType\":5125,\"count\":4,\"type\":\"SCALAR\"},\n"
    "{\"bufferView\":5,\"componentType\":5126,\"count\":4,\"type\":\"SCALAR\"},\n"
    "{\"bufferView\":6,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},\n"
    "{\"bufferView\":6,\"byteOffset\":12,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},\n"
    "{\"bufferView\":7,\"componentType\":5121,\"count\":1,\"type\":\"MAT2\"},\n"
    "{\"bufferView\":8,\"componentType\":5120,\"count\":1,\"type\":\"MAT3\"},\n"
    "{\"bufferView\":9,\"componentType\":5122,\"count\":1,\"type\":\"MAT3\"},\n"
    "{\"componentType\":5126,\"count\":4,\"type\":\"VEC3\",\"sparse\":{\"count\":2,"
    "\"indices\":{\"bufferView\":10,\"componentType\":5123},\"values\":{\"bufferView\":11}}},\n"
    "{\"bufferView\":12,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\",\"sparse\":{\"count\":2,"
    "\"indices\":{\"bufferView\":10,\"componentType\":5123},\"values\":{\"bufferView\":11}}},\n"
    "{\"bufferView\":13,\"byteOffset\":8,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},\n"
    "{\"bufferView\":14,\"componentType\":5126,\"count\":1,\"type\":\"SCALAR\"}]}";

static void accessor_bin(blob *b)
{
    put_i8(b, -128); put_i8(b, 127); put_i8(b, -127); put_i8(b, 64);             /* 0 */
    blob_u8(b, 0); blob_u8(b, 255); blob_u8(b, 128); blob_u8(b, 1);                /* 4 */
    put_i16(b, -32768); put_i16(b, 32767); put_i16(b, -16384); put_i16(b, 0);     /* 8 */
    blob_u16(b, 0); blob_u16(b, 65535); blob_u16(b, 32768); blob_u16(b, 1);        /* 16 */
    blob_u32(b, 0); blob_u32(b, 4294967295u); blob_u32(b, 7); blob_u32(b, 123456789); /* 24 */
    blob_f32(b, 1.5f); blob_f32(b, -2.25f); blob_f32(b, 3e10f); blob_f32(b, 1e-20f); /* 40 */
    for (int e = 0; e < 3; ++e) {                                                  /* 56 */
        blob_f32(b, (float)e); blob_f32(b, (float)(10 * e)); blob_f32(b, -(float)e);
        blob_u8(b, (uint8_t)e); blob_u8(b, (uint8_t)(e + 1)); blob_u8(b, 200); blob_u8(b, 0xEE);
    }
    const uint8_t mat2[8] = {1, 2, 0xAA, 0xAA, 3, 4, 0xAA, 0xAA};                   /* 104 */
    blob_put(b, mat2, 8);
    for (int c = 0; c < 3; ++c) {                                                  /* 112 */
        put_i8(b, (int8_t)(3 * c + 1)); put_i8(b, (int8_t)(3 * c + 2)); put_i8(b, (int8_t)(3 * c + 3));
        put_i8(b, 0x55);
    }
    for (int c = 0; c < 3; ++c) {                                                  /* 124 */
        put_i16(b, (int16_t)(-100 * (3 * c + 1))); put_i16(b, (int16_t)(-100 * (3 * c + 2)));
        put_i16(b, (int16_t)(-100 * (3 * c + 3))); put_i16(b, 0x5555);
    }
    blob_u16(b, 1); blob_u16(b, 3);                                                /* 148 */
    for (int k = 0; k < 6; ++k)                                                    /* 152 */
        blob_f32(b, 100.0f + (float)k);
    for (int k = 0; k < 12; ++k)                                                   /* 176 */
        blob_f32(b, (float)k);
    blob_f32(b, 10); blob_f32(b, 20); blob_f32(b, 30); blob_f32(b, 40);            /* 224 */
    blob_f32(b, NAN);                                                              /* 240 */
}

static double *read_all(const skf_gltf *d, int a)
{
    static double buf[64];
    skf_error e;
    CHECK_MSG(skf_gltf_accessor_read(d, a, buf, false, &e) == SKF_OK, "accessor %d", a);
    return buf;
}

static void test_accessors(void)
{
    blob b = {0};
    accessor_bin(&b);
    CHECK(b.size == 244);
    size_t n;
    uint8_t *glb = make_glb(ACCESSOR_JSON, b.data, b.size, &n);
    skf_gltf *d;
    skf_error e;
    skf_status st = skf_gltf_load_memory(glb, n, "acc.glb", NULL, &d, NULL, &e);
    CHECK_MSG(st == SKF_OK, "%s", e.message);
    if (st)
        return;
    check_gltf_invariants(d);
    double *v;
    v = read_all(d, 0);   /* BYTE raw */
    CHECK(v[0] == -128 && v[1] == 127 && v[2] == -127 && v[3] == 64);
    v = read_all(d, 1);   /* BYTE normalized: max(c/127, -1) */
    CHECK(v[0] == -1.0 && v[1] == 1.0 && v[2] == -1.0);
    CHECK_NEAR(v[3], 64.0 / 127.0, 1e-15);
    v = read_all(d, 2);
    CHECK(v[0] == 0 && v[1] == 255 && v[2] == 128 && v[3] == 1);
    v = read_all(d, 3);   /* UBYTE normalized: c/255 */
    CHECK(v[0] == 0 && v[1] == 1.0);
    CHECK_NEAR(v[2], 128.0 / 255.0, 1e-15);
    v = read_all(d, 4);
    CHECK(v[0] == -32768 && v[1] == 32767 && v[2] == -16384 && v[3] == 0);
    v = read_all(d, 5);   /* SHORT normalized: max(c/32767, -1) */
    CHECK(v[0] == -1.0 && v[1] == 1.0);
    CHECK_NEAR(v[2], -16384.0 / 32767.0, 1e-15);
    v = read_all(d, 6);
    CHECK(v[0] == 0 && v[1] == 65535 && v[2] == 32768 && v[3] == 1);
    v = read_all(d, 7);   /* USHORT normalized VEC2: c/65535 */
    CHECK(v[0] == 0 && v[1] == 1.0);
    CHECK_NEAR(v[2], 32768.0 / 65535.0, 1e-15);
    CHECK_NEAR(v[3], 1.0 / 65535.0, 1e-18);
    v = read_all(d, 8);
    CHECK(v[0] == 0 && v[1] == 4294967295.0 && v[2] == 7 && v[3] == 123456789);
    v = read_all(d, 9);
    CHECK(v[0] == 1.5 && v[1] == -2.25 && v[2] == (double)3e10f && v[3] == (double)1e-20f);
    v = read_all(d, 10);  /* interleaved VEC3 float, stride 16 */
    for (int k = 0; k < 3; ++k)
        CHECK(v[3 * k] == k && v[3 * k + 1] == 10 * k && v[3 * k + 2] == -k);
    v = read_all(d, 11);  /* interleaved VEC4 ubyte at byteOffset 12, stride 16 */
    for (int k = 0; k < 3; ++k)
        CHECK(v[4 * k] == k && v[4 * k + 1] == k + 1 && v[4 * k + 2] == 200 && v[4 * k + 3] == 0xEE);
    v = read_all(d, 12);  /* MAT2 ubyte, columns padded to 4 bytes */
    CHECK(v[0] == 1 && v[1] == 2 && v[2] == 3 && v[3] == 4);
    v = read_all(d, 13);  /* MAT3 byte, columns padded */
    for (int k = 0; k < 9; ++k)
        CHECK(v[k] == k + 1);
    v = read_all(d, 14);  /* MAT3 short, columns padded to 8 bytes */
    for (int k = 0; k < 9; ++k)
        CHECK(v[k] == -100 * (k + 1));
    v = read_all(d, 15);  /* sparse over zeros: elements 1 and 3 replaced */
    const double want15[12] = {0, 0, 0, 100, 101, 102, 0, 0, 0, 103, 104, 105};
    for (int k = 0; k < 12; ++k)
        CHECK(v[k] == want15[k]);
    v = read_all(d, 16);  /* sparse over a base view */
    const double want16[12] = {0, 1, 2, 100, 101, 102, 6, 7, 8, 103, 104, 105};
    for (int k = 0; k < 12; ++k)
        CHECK(v[k] == want16[k]);
    v = read_all(d, 17);  /* accessor byteOffset 8 inside its view */
    CHECK(v[0] == 30 && v[1] == 40);
    v = read_all(d, 18);
    CHECK(isnan(v[0]));
    double tmp[4];
    st = skf_gltf_accessor_read(d, 18, tmp, true, &e);
    CHECK(st == SKF_ERR_FORMAT && strstr(e.message, "acc.glb: accessors[18]: element 0 component 0 is NaN"));
    st = skf_gltf_accessor_read(d, 19, tmp, false, &e);
    CHECK(st == SKF_ERR_ARGUMENT && strstr(e.message, "accessors[19]"));

    uint32_t u[16];
    CHECK(skf_gltf_accessor_read_uint(d, 8, u, &e) == SKF_OK && u[1] == 4294967295u &&
          u[3] == 123456789u);
    CHECK(skf_gltf_accessor_read_uint(d, 6, u, &e) == SKF_OK && u[1] == 65535 && u[2] == 32768);
    CHECK(skf_gltf_accessor_read_uint(d, 11, u, &e) == SKF_OK && u[4] == 1 && u[5] == 2);
    CHECK(skf_gltf_accessor_read_uint(d, 9, u, &e) == SKF_ERR_FORMAT &&
          strstr(e.message, "accessors[9].componentType"));
    CHECK(skf_gltf_accessor_read_uint(d, 3, u, &e) == SKF_ERR_FORMAT);   /* normalized */
    CHECK(skf_gltf_accessor_read_uint(d, 0, u, &e) == SKF_ERR_FORMAT &&
          strstr(e.message, "negative"));
    CHECK(d->accessors[12].components == 4 && d->accessors[12].matrix_rows == 2);
    CHECK(d->accessors[7].components == 2 && d->accessors[7].matrix_rows == 0);
    printf("accessors: %zu decoded, all component types, normalisation, stride, padding, sparse\n",
           d->accessor_count);
    skf_gltf_free(d);

    /* The same document as .gltf with the buffer as a data: URI, from memory. */
    char *b64 = b64_encode(b.data, b.size);
    size_t len = strlen(ACCESSOR_JSON) + strlen(b64) + 64;
    char *uri = malloc(len);
    snprintf(uri, len, "{\"byteLength\":244,\"uri\":\"data:application/octet-stream;base64,%s\"}", b64);
    char *json = replace_once(ACCESSOR_JSON, "{\"byteLength\":244}", uri);
    st = skf_gltf_load_memory(json, strlen(json), "acc.gltf", NULL, &d, NULL, &e);
    CHECK_MSG(st == SKF_OK, "%s", e.message);
    if (!st) {
        CHECK(d->buffers[0].size == 244 && memcmp(d->buffers[0].data, b.data, 244) == 0);
        v = read_all(d, 16);
        CHECK(v[3] == 100 && v[11] == 105);
        skf_gltf_free(d);
    }
    /* base64 without padding decodes too (length 244 = 81*3 + 1 -> "==" dropped) */
    char *nopad = replace_once(json, "==\"", "\"");
    CHECK(nopad != NULL);
    if (nopad) {
        st = skf_gltf_load_memory(nopad, strlen(nopad), "acc.gltf", NULL, &d, NULL, &e);
        CHECK_MSG(st == SKF_OK, "%s", e.message);
        if (!st)
            skf_gltf_free(d);
        free(nopad);
    }
    /* an external URI needs a base folder */
    char *ext = replace_once(ACCESSOR_JSON, "{\"byteLength\":244}", "{\"byteLength\":244,\"uri\":\"a.bin\"}");
    st = skf_gltf_load_memory(ext, strlen(ext), "ext.gltf", NULL, &d, NULL, &e);
    CHECK(st == SKF_ERR_ARGUMENT && strstr(e.message, "ext.gltf: buffers[0].uri"));
    free(ext);
    free(json);
    free(uri);
    free(b64);
    free(glb);
    free(b.data);
}

static skf_gltf *load_fixture(const char *json)
{
    uint8_t bin[FX_BIN_SIZE];
    fixture_bin(bin);
    size_t n;
    uint8_t *glb = make_glb(json, bin, FX_BIN_SIZE, &n);
    skf_gltf *d = NULL;
    skf_error e;
    skf_warnings w = {0};
    skf_status st = skf_gltf_load_memory(glb, n, "fixture.glb", NULL, &d, &w, &e);
    CHECK_MSG(st == SKF_OK, "%s", e.message);
    for (size_t i = 0; i < w.count; ++i)
        printf("  warning: %s\n", w.items[i].text);
    skf_warnings_release(&w);
    free(glb);
    return d;
}

static void test_document(void)
{
    skf_gltf *d = load_fixture(FIXTURE_JSON);
    if (!d)
        return;
    check_gltf_invariants(d);
    /* typed views */
    CHECK(d->scene == 0 && d->scene_count == 1 && d->scenes[0].node_count == 2);
    CHECK(d->nodes[2].parent == 1 && d->nodes[1].parent == -1 && d->nodes[0].mesh == 0);
    CHECK(strcmp(d->nodes[2].name, "arm") == 0);
    CHECK(d->skins[0].joint_count == 2 && d->skins[0].skeleton == 1 &&
          d->skins[0].inverse_bind_matrices == 4);
    CHECK(d->meshes[0].primitives[0].indices == 1 && d->meshes[0].primitives[0].mode == 4);
    CHECK(d->animations[0].samplers[0].interpolation == SKF_INTERP_LINEAR);
    CHECK(d->animations[0].channels[0].path == SKF_PATH_ROTATION &&
          d->animations[0].channels[0].node == 2);
    /* unknown JSON is kept */
    json_t *mat = json_array_get(json_object_get(d->json, "materials"), 0);
    CHECK(mat && json_integer_value(json_object_get(json_object_get(mat, "extras"), "answer")) == 42);
    CHECK(json_object_get(d->json, "extensionsUsed") != NULL);
    CHECK(strcmp(json_string_value(json_object_get(json_object_get(d->json, "extras"), "note")),
                 "unknown JSON survives") == 0);
    CHECK(json_integer_value(json_object_get(
              json_array_get(json_object_get(json_array_get(json_object_get(d->json, "meshes"), 0),
                                             "primitives"), 0), "material")) == 0);
    /* reparse after editing the tree */
    skf_error e;
    json_t *arm = json_array_get(json_object_get(d->json, "nodes"), 2);
    json_object_set_new(arm, "translation", json_pack("[f,f,f]", 0.0, 5.0, 0.0));
    CHECK(skf_gltf_reparse(d, NULL, &e) == SKF_OK);
    CHECK(d->nodes[2].translation[1] == 5.0 && d->node_count == 3);
    json_object_set_new(arm, "children", json_pack("[i]", 1));
    CHECK(skf_gltf_reparse(d, NULL, &e) == SKF_ERR_FORMAT && strstr(e.message, "fixture.glb: nodes[2].children[0]: cycle"));
    CHECK(d->node_count == 0);   /* views are cleared on failure */
    json_object_del(arm, "children");
    CHECK(skf_gltf_reparse(d, NULL, &e) == SKF_OK && d->node_count == 3);

    /* node matrices */
    skf_gltf_node nd;
    memset(&nd, 0, sizeof nd);
    nd.translation[0] = 1; nd.translation[1] = 2; nd.translation[2] = 3;
    nd.rotation[2] = sqrt(0.5); nd.rotation[3] = sqrt(0.5);   /* 90 deg about Z */
    nd.scale[0] = nd.scale[1] = nd.scale[2] = 2;
    double m[16];
    skf_gltf_node_local_matrix(&nd, m);
    /* x axis -> 2*y, then + t: point (1,0,0) -> (1, 4, 3) */
    CHECK_NEAR(m[0] * 1 + m[12], 1.0, 1e-12);
    CHECK_NEAR(m[1] * 1 + m[13], 4.0, 1e-12);
    CHECK_NEAR(m[2] * 1 + m[14], 3.0, 1e-12);
    nd.has_matrix = true;
    for (int k = 0; k < 16; ++k)
        nd.matrix[k] = k;
    skf_gltf_node_local_matrix(&nd, m);
    CHECK(m[7] == 7 && m[15] == 15);
    skf_gltf_free(d);

    /* matrix nodes load as given; rotation is normalised (with a warning) */
    char *json = replace_once(FIXTURE_JSON, "\"translation\":[0,0,0]",
                              "\"matrix\":[2,0,0,0, 0,2,0,0, 0,0,2,0, 1,2,3,1]");
    char *json2 = replace_once(json, "\"rotation\":[0,0,0,1]", "\"rotation\":[0,0,0,2]");
    d = load_fixture(json2);
    if (d) {
        CHECK(d->nodes[1].has_matrix && d->nodes[1].matrix[13] == 2 && d->nodes[1].matrix[0] == 2);
        CHECK(d->nodes[2].rotation[3] == 1.0);
        skf_gltf_free(d);
    }
    free(json);
    free(json2);

    /* animation lookup */
    const char *anim = "{\"samplers\":[{\"input\":5,\"output\":6}],\"channels\":[{\"sampler\":0,"
                       "\"target\":{\"node\":2,\"path\":\"rotation\"}}]";
    char anims[2048];
    snprintf(anims, sizeof anims,
             "\"animations\":[%s,\"name\":\"AnimalArmature|Walk\"},%s,\"name\":\"Idle\"},"
             "%s,\"name\":\"Armature|TRex_Run\"},%s,\"name\":\"Armature|Raptor_Run\"},"
             "%s,\"name\":\"Armature|TRex_Jump\"},%s}],",
             anim, anim, anim, anim, anim, anim);
    size_t start = (size_t)(strstr(FIXTURE_JSON, "\"animations\":") - FIXTURE_JSON);
    size_t end = (size_t)(strstr(FIXTURE_JSON, "\"buffers\":") - FIXTURE_JSON);
    char *doc = malloc(sizeof FIXTURE_JSON + sizeof anims);
    memcpy(doc, FIXTURE_JSON, start);
    strcpy(doc + start, anims);
    strcat(doc, FIXTURE_JSON + end);
    d = load_fixture(doc);
    if (d) {
        CHECK(d->animation_count == 6 && d->animations[5].name == NULL);
        CHECK(skf_clip_find(d, "AnimalArmature|Walk", NULL) == 0);
        CHECK(skf_clip_find(d, "Walk", NULL) == 0);
        CHECK(skf_clip_find(d, "Idle", NULL) == 1);
        CHECK(skf_clip_find(d, "Other|Idle", NULL) == 1);
        CHECK(skf_clip_find(d, "Jump", NULL) == 4);      /* unique _Jump suffix */
        CHECK(skf_clip_find(d, "Run", NULL) == -1);      /* TRex_Run and Raptor_Run */
        CHECK(skf_clip_find(d, "TRex_Run", NULL) == 2);
        CHECK(skf_clip_find(d, "alk", NULL) == -1);
        CHECK(skf_clip_find(d, "", NULL) == -1);
        CHECK(skf_clip_find(d, NULL, NULL) == -1);
        skf_gltf_free(d);
    }
    free(doc);
}

/* The reader's errors carry their place as data beside the one-line text. */
static void test_error_place(void)
{
    skf_gltf *d = NULL;
    skf_error e;
    const char *bad_index = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,"
                            "\"uri\":\"data:application/octet-stream;base64,AAAAAA==\"}],"
                            "\"bufferViews\":[{\"buffer\":0,\"byteLength\":4}],"
                            "\"accessors\":[{\"bufferView\":7,\"componentType\":5126,\"count\":1,"
                            "\"type\":\"SCALAR\"}]}";
    CHECK(skf_gltf_load_memory(bad_index, strlen(bad_index), "place.gltf", NULL, &d, NULL, &e) == SKF_ERR_FORMAT);
    printf("  %s\n", e.message);
    CHECK(!strcmp(e.place.file, "place.gltf"));
    CHECK(!strcmp(e.place.json_path, "accessors[0].bufferView"));
    CHECK(strstr(e.message, "place.gltf: accessors[0].bufferView: ") == e.message);
    CHECK(e.place.byte_offset == -1 && e.place.frame == -1 && e.place.element[0] == 0);
    CHECK(e.kind == SKF_KIND_UNSPECIFIED);
    const char *syntax = "{\"asset\": {\"version\": \"2.0\"},, }";
    CHECK(skf_gltf_load_memory(syntax, strlen(syntax), "syntax.gltf", NULL, &d, NULL, &e) == SKF_ERR_FORMAT);
    printf("  %s\n", e.message);
    char want[64];
    snprintf(want, sizeof want, "syntax.gltf: byte %lld ", (long long)e.place.byte_offset);
    CHECK(e.place.byte_offset > 0 && strstr(e.message, want) == e.message);
    CHECK(!strcmp(e.place.file, "syntax.gltf") && e.place.json_path[0] == 0);
}

/* Node TRS / matrix values and morph weights beyond ±SKF_GLTF_MAX_MAGNITUDE
 * are bad input naming the place and element (issue 17 §3); up to it they load. */
static void test_magnitude(void)
{
    struct { const char *node, *want; } cases[] = {
        {"\"translation\":[0,1e30,0]", "big.gltf: nodes[0].translation: element 1 is 1e+30, beyond ±1e+19"},
        {"\"scale\":[1,1,-2e19]", "big.gltf: nodes[0].scale: element 2 is -2e+19, beyond ±1e+19"},
        {"\"matrix\":[1,0,0,0,0,1,0,0,0,0,1,0,1e300,0,0,1]", "big.gltf: nodes[0].matrix: element 12 is 1e+300"},
        {"\"weights\":[1e20]", "big.gltf: nodes[0].weights: element 0 is 1e+20, beyond ±1e+19"},
        {"\"translation\":[0,1e19,-1e19]", NULL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; ++k) {
        char json[512];
        snprintf(json, sizeof json, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{%s}]}",
                 cases[k].node);
        skf_gltf *d = NULL;
        skf_error e = {0};
        skf_status st = skf_gltf_load_memory(json, strlen(json), "big.gltf", NULL, &d, NULL, &e);
        if (cases[k].want)
            CHECK_MSG(st == SKF_ERR_FORMAT && strstr(e.message, cases[k].want) == e.message,
                      "%s: %s", cases[k].node, e.message);
        else
            CHECK_MSG(st == SKF_OK, "%s: %s", cases[k].node, e.message);
        skf_gltf_free(d);
    }
}

int main(void)
{
    test_magnitude();
    test_error_place();
    test_accessors();
    test_document();
    return skf_test_done();
}
