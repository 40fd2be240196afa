/* The malformed-input corpus (issue 2, acceptance 6), generated from the
 * reference fixture (gltf_fixture.h) so it needs no shared data. Each entry
 * is a file in a fresh temporary folder plus the place its error must name.
 * Used by test_gltf_corpus (library) and test_cli_corpus (CLI). */
#ifndef SKF_TESTS_GLTF_CORPUS_H
#define SKF_TESTS_GLTF_CORPUS_H

#include "gltf_fixture.h"

#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

enum { CORPUS_FILE, CORPUS_MISSING, CORPUS_DIR };

typedef struct corpus_entry {
    char path[512];
    const char *expect;     /* substring the one-line message must contain */
    int kind;
} corpus_entry;

typedef struct corpus {
    char dir[256];
    corpus_entry e[256];
    size_t n;
    char extra[16][512];    /* side files and folders to delete */
    size_t extra_n;
} corpus;

/* out = dir/file (the copy keeps GCC's -Wrestrict quiet about c->dir and c->e[]). */
static inline void corpus_path(const corpus *c, char *out, size_t size, const char *file)
{
    char dir[256];
    memcpy(dir, c->dir, sizeof dir);
    snprintf(out, size, "%s/%s", dir, file);
}

static inline corpus_entry *corpus_add(corpus *c, const char *file, const void *data, size_t size,
                                       const char *expect)
{
    if (c->n >= sizeof c->e / sizeof c->e[0])
        abort();
    corpus_entry *e = &c->e[c->n++];
    corpus_path(c, e->path, sizeof e->path, file);
    e->expect = expect;
    e->kind = CORPUS_FILE;
    if (write_bytes(e->path, data, size) != 0)
        abort();
    return e;
}

static inline void corpus_glb(corpus *c, const char *file, const char *json, const uint8_t *bin,
                              const char *expect)
{
    size_t n;
    uint8_t *g = make_glb(json, bin, FX_BIN_SIZE, &n);
    corpus_add(c, file, g, n, expect);
    free(g);
}

/* A GLB of the fixture with JSON text `find` replaced by `rep`. */
static inline void corpus_json(corpus *c, const char *file, const char *find, const char *rep,
                               const char *expect)
{
    uint8_t bin[FX_BIN_SIZE];
    fixture_bin(bin);
    char *json = replace_once(FIXTURE_JSON, find, rep);
    if (!json) {
        fprintf(stderr, "corpus: '%s' not in fixture JSON\n", find);
        abort();
    }
    corpus_glb(c, file, json, bin, expect);
    free(json);
}

/* A GLB of the fixture with a float written at a BIN offset. */
static inline void corpus_bin_f32(corpus *c, const char *file, size_t at, float v,
                                  const char *expect)
{
    uint8_t bin[FX_BIN_SIZE];
    fixture_bin(bin);
    memcpy(bin + at, &v, 4);
    corpus_glb(c, file, FIXTURE_JSON, bin, expect);
}

static inline void corpus_bin_u8(corpus *c, const char *file, size_t at, uint8_t v,
                                 const char *expect)
{
    uint8_t bin[FX_BIN_SIZE];
    fixture_bin(bin);
    bin[at] = v;
    corpus_glb(c, file, FIXTURE_JSON, bin, expect);
}

/* Copy of the valid GLB with a 32-bit little-endian word patched. */
static inline void corpus_glb_word(corpus *c, const char *file, size_t at, uint32_t v,
                                   const char *expect)
{
    uint8_t bin[FX_BIN_SIZE];
    fixture_bin(bin);
    size_t n;
    uint8_t *g = make_glb(FIXTURE_JSON, bin, FX_BIN_SIZE, &n);
    memcpy(g + at, &v, 4);
    corpus_add(c, file, g, n, expect);
    free(g);
}

static inline void corpus_build(corpus *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->dir, sizeof c->dir, "/tmp/skf-gltf-corpus-XXXXXX");
    if (!mkdtemp(c->dir))
        abort();
    uint8_t bin[FX_BIN_SIZE];
    fixture_bin(bin);
    size_t glb_size;
    uint8_t *glb = make_glb(FIXTURE_JSON, bin, FX_BIN_SIZE, &glb_size);
    size_t json_padded = (strlen(FIXTURE_JSON) + 3) & ~(size_t)3;
    size_t bin_header = 20 + json_padded;

    /* -- GLB container -- */
    const size_t cuts[] = {0, 1, 3, 4, 8, 11, 12, 16, 19, 20, 21, 100, 20 + json_padded / 2,
                           bin_header - 1, bin_header, bin_header + 4, bin_header + 8,
                           bin_header + 100, glb_size - 4, glb_size - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; ++i) {
        char f[64];
        snprintf(f, sizeof f, "truncated-%zu.glb", cuts[i]);
        /* 0 bytes is an empty file; < 4 bytes cannot show the magic */
        corpus_add(c, f, glb, cuts[i], cuts[i] < 4 ? "byte 0" : "byte ");
    }
    /* truncated, with the header length patched to match: chunk checks fire */
    const size_t cuts2[] = {12, 16, 24, bin_header - 2, bin_header + 4, glb_size - 8};
    for (size_t i = 0; i < sizeof cuts2 / sizeof cuts2[0]; ++i) {
        char f[64];
        snprintf(f, sizeof f, "truncated-fixed-length-%zu.glb", cuts2[i]);
        uint32_t len = (uint32_t)cuts2[i];
        uint8_t *g = malloc(glb_size);
        memcpy(g, glb, glb_size);
        memcpy(g + 8, &len, 4);
        corpus_add(c, f, g, cuts2[i], cuts2[i] == 12 ? "byte 12" : "byte ");
        free(g);
    }
    corpus_glb_word(c, "wrong-magic.glb", 0, 0x46546C66u, "byte 0: bad GLB magic");
    corpus_glb_word(c, "wrong-version.glb", 4, 1, "byte 4: GLB version 1");
    corpus_glb_word(c, "length-past-end.glb", 8, (uint32_t)glb_size + 1, "byte 8: GLB length");
    corpus_glb_word(c, "json-chunk-past-end.glb", 12, 100000, "byte 12: chunk 0 length 100000");
    static char bin_place[64];
    snprintf(bin_place, sizeof bin_place, "byte %zu: chunk 1 length", bin_header);
    corpus_glb_word(c, "bin-chunk-past-end.glb", bin_header, 1000, bin_place);
    corpus_glb_word(c, "first-chunk-not-json.glb", 16, 0x004E4942u, "byte 16: first chunk");
    corpus_json(c, "buffer-past-bin-chunk.glb", "\"byteLength\":328", "\"byteLength\":400",
                "buffers[0]: byteLength 400");

    /* -- JSON syntax -- */
    corpus_json(c, "json-missing-brace.glb", "\"scene\":0,", "\"scene\":0,{", "JSON syntax error");
    corpus_json(c, "json-trailing-comma.glb", "[0,1]}]", "[0,1],}]", "JSON syntax error");
    corpus_json(c, "json-bad-literal.glb", "\"scene\":0", "\"scene\":NaN", "JSON syntax error");
    corpus_json(c, "json-number-overflow.glb", "\"translation\":[0,1,0]",
                "\"translation\":[0,1e999,0]", "JSON syntax error");
    {
        const char *text = "{\"asset\":{\"version\":\"2.0\"},\n  \"nodes\":[{\"name\":\"x\"}\n";
        corpus_add(c, "json-unterminated.gltf", text, strlen(text), "byte ");
        const char *arr = "[1,2,3]";
        corpus_add(c, "json-root-array.gltf", arr, strlen(arr), "JSON root is not an object");
        const char *garbage = "PK\x03\x04 this is a zip file";
        corpus_add(c, "garbage.gltf", garbage, strlen(garbage), "byte 0: bad GLB magic");
        corpus_add(c, "empty.gltf", "", 0, "byte 0: empty file");
        const char *v1 = "{\"asset\":{\"version\":\"1.0\"}}";
        corpus_add(c, "version-1.gltf", v1, strlen(v1), "asset.version");
        const char *noasset = "{\"nodes\":[]}";
        corpus_add(c, "no-asset.gltf", noasset, strlen(noasset), "asset: missing");
    }
    corpus_json(c, "skins-not-array.glb", "\"skins\":[{\"joints\":[1,2],\"inverseBindMatrices\":4,\"skeleton\":1}]",
                "\"skins\":{\"joints\":[1,2]}", "skins: expected an array, found an object");

    /* -- indices out of range -- */
    corpus_json(c, "accessor-bufferview-range.glb", "{\"bufferView\":0,", "{\"bufferView\":40,",
                "accessors[0].bufferView: 40 out of range (7 bufferViews)");
    corpus_json(c, "bufferview-buffer-range.glb", "{\"buffer\":0,\"byteOffset\":0,",
                "{\"buffer\":3,\"byteOffset\":0,", "bufferViews[0].buffer: 3 out of range (1 buffers)");
    corpus_json(c, "attribute-accessor-range.glb", "\"POSITION\":0", "\"POSITION\":99",
                "meshes[0].primitives[0].attributes.POSITION: 99 out of range (7 accessors)");
    corpus_json(c, "indices-accessor-range.glb", "\"indices\":1", "\"indices\":-1",
                "meshes[0].primitives[0].indices: -1 out of range");
    corpus_json(c, "node-child-range.glb", "\"children\":[2]", "\"children\":[3]",
                "nodes[1].children[0]: 3 out of range (3 nodes)");
    corpus_json(c, "node-mesh-range.glb", "\"mesh\":0,", "\"mesh\":1,",
                "nodes[0].mesh: 1 out of range (1 meshes)");
    corpus_json(c, "node-skin-range.glb", "\"skin\":0}", "\"skin\":2}",
                "nodes[0].skin: 2 out of range (1 skins)");
    corpus_json(c, "joint-node-range.glb", "\"joints\":[1,2]", "\"joints\":[1,5]",
                "skins[0].joints[1]: 5 out of range (3 nodes)");
    corpus_json(c, "joint-index-float.glb", "\"joints\":[1,2]", "\"joints\":[1,1.5]",
                "skins[0].joints[1]: expected an integer");
    corpus_bin_u8(c, "joint-value-range.glb", FX_JOINTS + 5, 7,
                  "meshes[0].primitives[0].attributes.JOINTS_0: joint index 7 at element 1 out of "
                  "range (2 joints in skins[0])");
    corpus_bin_u8(c, "index-value-range.glb", FX_IDX + 2, 9,
                  "meshes[0].primitives[0].indices: vertex index 9 at element 1");
    corpus_json(c, "ibm-accessor-range.glb", "\"inverseBindMatrices\":4", "\"inverseBindMatrices\":7",
                "skins[0].inverseBindMatrices: 7 out of range");
    corpus_json(c, "skeleton-range.glb", "\"skeleton\":1", "\"skeleton\":30",
                "skins[0].skeleton: 30 out of range");
    corpus_json(c, "sampler-input-range.glb", "\"input\":5", "\"input\":12",
                "animations[0].samplers[0].input: 12 out of range");
    corpus_json(c, "channel-sampler-range.glb", "{\"sampler\":0,", "{\"sampler\":1,",
                "animations[0].channels[0].sampler: 1 out of range (1 samplers)");
    corpus_json(c, "channel-node-range.glb", "{\"node\":2,", "{\"node\":3,",
                "animations[0].channels[0].target.node: 3 out of range (3 nodes)");
    corpus_json(c, "scene-node-range.glb", "\"nodes\":[0,1]", "\"nodes\":[0,4]",
                "scenes[0].nodes[1]: 4 out of range");
    corpus_json(c, "default-scene-range.glb", "\"scene\":0", "\"scene\":1",
                "scene: 1 out of range (1 scenes)");
    corpus_json(c, "huge-index.glb", "\"POSITION\":0", "\"POSITION\":9223372036854775807",
                "attributes.POSITION: 9223372036854775807 out of range");

    /* -- counts, offsets, strides past the end -- */
    corpus_json(c, "count-past-view.glb",
                "{\"bufferView\":0,\"componentType\":5126,\"count\":4,",
                "{\"bufferView\":0,\"componentType\":5126,\"count\":5,",
                "accessors[0]: data: byteOffset 0 + count 5 x stride 12 is past the end of "
                "bufferViews[0] (48 bytes)");
    corpus_json(c, "stride-past-view.glb", "\"byteOffset\":76,\"byteLength\":64}",
                "\"byteOffset\":76,\"byteLength\":64,\"byteStride\":20}",
                "accessors[3]: data: byteOffset 0 + count 4 x stride 20");
    corpus_json(c, "stride-too-small.glb", "\"byteOffset\":0,\"byteLength\":48}",
                "\"byteOffset\":0,\"byteLength\":48,\"byteStride\":8}",
                "accessors[0].bufferView: bufferViews[0].byteStride 8 is smaller than the element "
                "size 12");
    corpus_json(c, "accessor-offset-overflow.glb", "{\"bufferView\":0,",
                "{\"bufferView\":0,\"byteOffset\":9223372036854775807,", "accessors[0]: data");
    corpus_json(c, "view-past-buffer.glb", "\"byteOffset\":280,\"byteLength\":48",
                "\"byteOffset\":280,\"byteLength\":52",
                "bufferViews[6]: byteOffset 280 + byteLength 52 is past the end of buffers[0]");
    corpus_json(c, "view-offset-huge.glb", "\"byteOffset\":280,",
                "\"byteOffset\":18446744073709551615,", "JSON syntax error");
    corpus_json(c, "ibm-count-short.glb",
                "{\"bufferView\":4,\"componentType\":5126,\"count\":2,",
                "{\"bufferView\":4,\"componentType\":5126,\"count\":1,",
                "skins[0].inverseBindMatrices: accessors[4] has 1 matrices for 2 joints");

    corpus_json(c, "zero-accessor-limit.glb", "\"count\":3,\"type\":\"VEC4\"}]",
                "\"count\":3,\"type\":\"VEC4\"},{\"componentType\":5126,\"count\":1048577,"
                "\"type\":\"MAT4\"}]", "accessors[7].count: 1048577 elements of 16 values");

    /* -- component type / type invalid for usage -- */
    corpus_json(c, "component-type-invalid.glb", "\"componentType\":5126,\"count\":4,\"type\":\"VEC3\"",
                "\"componentType\":5127,\"count\":4,\"type\":\"VEC3\"", "accessors[0].componentType");
    corpus_json(c, "position-ubyte.glb", "\"componentType\":5126,\"count\":4,\"type\":\"VEC3\"",
                "\"componentType\":5121,\"count\":4,\"type\":\"VEC3\"",
                "attributes.POSITION: accessors[0] has componentType UNSIGNED_BYTE");
    corpus_json(c, "joints-float.glb", "{\"bufferView\":2,\"componentType\":5121,",
                "{\"bufferView\":3,\"componentType\":5126,", "attributes.JOINTS_0");
    corpus_json(c, "indices-float.glb", "{\"bufferView\":1,\"componentType\":5123,\"count\":6,",
                "{\"bufferView\":5,\"componentType\":5126,\"count\":3,",
                "primitives[0].indices: accessors[1] has componentType FLOAT");
    corpus_json(c, "type-invalid.glb", "\"count\":4,\"type\":\"VEC3\"", "\"count\":4,\"type\":\"VEC5\"",
                "accessors[0].type");
    corpus_json(c, "normalized-float.glb", "\"count\":4,\"type\":\"VEC3\"",
                "\"count\":4,\"type\":\"VEC3\",\"normalized\":true", "accessors[0].normalized");
    corpus_json(c, "ibm-not-mat4.glb", "\"count\":2,\"type\":\"MAT4\"", "\"count\":2,\"type\":\"VEC4\"",
                "skins[0].inverseBindMatrices: accessors[4] has type VEC4, expected MAT4");

    /* -- NaN / Inf -- */
    corpus_bin_f32(c, "nan-position.glb", FX_POS + 4 * 4, NAN,
                   "meshes[0].primitives[0].attributes.POSITION: accessors[0] element 1 component 1 "
                   "is NaN");
    corpus_bin_f32(c, "inf-position.glb", FX_POS + 11 * 4, INFINITY,
                   "attributes.POSITION: accessors[0] element 3 component 2 is infinite");
    corpus_bin_f32(c, "nan-ibm.glb", FX_IBM + 64 + 13 * 4, NAN,
                   "skins[0].inverseBindMatrices: accessors[4] element 1 component 13 is NaN");
    corpus_bin_f32(c, "nan-key-time.glb", FX_TIMES + 4, NAN, "animations[0].samplers[0].input");
    corpus_bin_f32(c, "nan-rotation-key.glb", FX_ROT + 20, NAN,
                   "animations[0].samplers[0].output: accessors[6] element 1 component 1 is NaN");
    corpus_bin_f32(c, "nan-weight.glb", FX_WEIGHTS, NAN, "attributes.WEIGHTS_0");

    /* -- hierarchy -- */
    corpus_json(c, "node-cycle.glb", "\"translation\":[0,1,0],", "\"children\":[1],\"translation\":[0,1,0],",
                "cycle in the node hierarchy");
    corpus_json(c, "node-self-child.glb", "\"translation\":[0,1,0],",
                "\"children\":[2],\"translation\":[0,1,0],", "nodes[2].children[0]: cycle");
    corpus_json(c, "node-two-parents.glb", "\"skin\":0}", "\"skin\":0,\"children\":[2]}",
                "already has parent nodes[0]");
    corpus_json(c, "node-rotation-zero.glb", "\"rotation\":[0,0,0,1]", "\"rotation\":[0,0,0,0]",
                "nodes[2].rotation: zero quaternion");
    corpus_json(c, "node-matrix-short.glb", "\"translation\":[0,0,0]", "\"matrix\":[1,0,0,0]",
                "nodes[1].matrix: expected 16 numbers");
    {
        /* a chain deeper than SKF_GLTF_MAX_NODE_DEPTH */
        blob j = {0};
        const char *head = "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[";
        blob_put(&j, head, strlen(head));
        for (int i = 0; i < 1100; ++i) {
            char node[48];
            int len = i + 1 < 1100 ? snprintf(node, sizeof node, "%s{\"children\":[%d]}", i ? "," : "", i + 1)
                                   : snprintf(node, sizeof node, ",{}");
            blob_put(&j, node, (size_t)len);
        }
        blob_put(&j, "]}", 2);
        corpus_add(c, "node-depth.gltf", j.data, j.size, "exceeds the limit node-depth=1024");
        free(j.data);
    }

    /* -- skins -- */
    {
        uint8_t b[FX_BIN_SIZE];
        fixture_bin(b);
        memset(b + FX_IBM + 64, 0, 48);   /* zero 3x3 part of matrix 1 */
        corpus_glb(c, "singular-ibm.glb", FIXTURE_JSON, b,
                   "skins[0].inverseBindMatrices: matrix 1 (joint 1 = nodes[2] 'arm') is singular");
    }
    corpus_json(c, "duplicate-joint.glb", "\"joints\":[1,2]", "\"joints\":[1,1]",
                "skins[0].joints[1]: node 1 is already joints[0]");

    /* -- animation -- */
    corpus_json(c, "sampler-count-mismatch.glb",
                "{\"bufferView\":6,\"componentType\":5126,\"count\":3,",
                "{\"bufferView\":6,\"componentType\":5126,\"count\":2,",
                "animations[0].samplers[0].output: accessors[6] has 2 values for 3 keys");
    corpus_json(c, "cubicspline-count.glb", "\"interpolation\":\"LINEAR\"",
                "\"interpolation\":\"CUBICSPLINE\"",
                "animations[0].samplers[0].output: accessors[6] has 3 values for 3 keys of "
                "channels[0] (rotation, CUBICSPLINE needs 3 per key)");
    corpus_json(c, "interpolation-unknown.glb", "\"interpolation\":\"LINEAR\"",
                "\"interpolation\":\"BEZIER\"", "animations[0].samplers[0].interpolation");
    corpus_bin_f32(c, "key-times-not-increasing.glb", FX_TIMES + 8, 0.5f,
                   "animations[0].samplers[0].input: key times not increasing: key 1 at 0.5 s, key 2");
    corpus_json(c, "output-wrong-width.glb", "\"path\":\"rotation\"", "\"path\":\"translation\"",
                "animations[0].samplers[0].output: accessors[6] has type VEC4, expected VEC3");

    /* -- sparse -- */
    corpus_json(c, "sparse-index-range.glb", "\"count\":4,\"type\":\"VEC3\"}",
                "\"count\":4,\"type\":\"VEC3\",\"sparse\":{\"count\":2,\"indices\":{\"bufferView\":1,"
                "\"componentType\":5125},\"values\":{\"bufferView\":0}}}",
                "accessors[0].sparse.indices: index 65536 at position 0 out of range (count 4)");
    corpus_json(c, "sparse-not-increasing.glb", "\"count\":4,\"type\":\"VEC3\"}",
                "\"count\":4,\"type\":\"VEC3\",\"sparse\":{\"count\":2,\"indices\":{\"bufferView\":1,"
                "\"byteOffset\":4,\"componentType\":5123},\"values\":{\"bufferView\":0}}}",
                "accessors[0].sparse.indices: index 0 at position 1 is not greater");
    corpus_json(c, "sparse-count-too-big.glb", "\"count\":4,\"type\":\"VEC3\"}",
                "\"count\":4,\"type\":\"VEC3\",\"sparse\":{\"count\":5,\"indices\":{\"bufferView\":1,"
                "\"componentType\":5123},\"values\":{\"bufferView\":0}}}",
                "accessors[0].sparse.count");

    /* -- files -- */
    {
        corpus_entry *e = &c->e[c->n++];
        corpus_path(c, e->path, sizeof e->path, "missing.glb");
        e->expect = "cannot open";
        e->kind = CORPUS_MISSING;
        e = &c->e[c->n++];
        corpus_path(c, e->path, sizeof e->path, "folder.glb");
        e->expect = "is a directory";
        e->kind = CORPUS_DIR;
        mkdir(e->path, 0755);
        memcpy(c->extra[c->extra_n++], e->path, sizeof e->path);

        char *json = replace_once(FIXTURE_JSON, "{\"byteLength\":328}",
                                  "{\"byteLength\":328,\"uri\":\"no%20such.bin\"}");
        corpus_add(c, "missing-bin.gltf", json, strlen(json), "buffers[0].uri");
        free(json);
        json = replace_once(FIXTURE_JSON, "{\"byteLength\":328}",
                            "{\"byteLength\":328,\"uri\":\"subdir\"}");
        corpus_add(c, "bin-is-dir.gltf", json, strlen(json), "buffers[0].uri");
        free(json);
        corpus_path(c, c->extra[c->extra_n], 512, "subdir");
        mkdir(c->extra[c->extra_n++], 0755);
        json = replace_once(FIXTURE_JSON, "{\"byteLength\":328}",
                            "{\"byteLength\":328,\"uri\":\"data:application/octet-stream;base64,AAA*\"}");
        corpus_add(c, "bad-base64.gltf", json, strlen(json), "buffers[0].uri: invalid base64");
        free(json);
        json = replace_once(FIXTURE_JSON, "{\"byteLength\":328}",
                            "{\"byteLength\":328,\"uri\":\"data:application/octet-stream;base64,AAAA\"}");
        corpus_add(c, "short-base64.gltf", json, strlen(json), "buffers[0]: byteLength 328");
        free(json);
        json = replace_once(FIXTURE_JSON, "{\"byteLength\":328}",
                            "{\"byteLength\":328,\"uri\":\"http://example.com/x.bin\"}");
        corpus_add(c, "remote-uri.gltf", json, strlen(json), "buffers[0].uri");
        free(json);
        json = replace_once(FIXTURE_JSON, "{\"byteLength\":328}",
                            "{\"byteLength\":328,\"uri\":\"/etc/passwd\"}");
        corpus_add(c, "absolute-uri.gltf", json, strlen(json), "buffers[0].uri");
        free(json);
        /* a .gltf without any uri for its buffer */
        corpus_add(c, "gltf-no-uri.gltf", FIXTURE_JSON, strlen(FIXTURE_JSON), "buffers[0].uri: missing");
        /* external .bin shorter than byteLength */
        json = replace_once(FIXTURE_JSON, "{\"byteLength\":328}",
                            "{\"byteLength\":328,\"uri\":\"short.bin\"}");
        corpus_add(c, "short-bin.gltf", json, strlen(json), "buffers[0]: byteLength 328 but the data holds 100 bytes");
        free(json);
        corpus_path(c, c->extra[c->extra_n], 512, "short.bin");
        write_bytes(c->extra[c->extra_n++], bin, 100);
    }
    free(glb);
}

static inline void corpus_remove(corpus *c)
{
    for (size_t i = 0; i < c->n; ++i)
        if (c->e[i].kind == CORPUS_FILE)
            unlink(c->e[i].path);
    for (size_t i = 0; i < c->extra_n; ++i)
        if (rmdir(c->extra[i]) != 0)
            unlink(c->extra[i]);
    rmdir(c->dir);
}

#endif
