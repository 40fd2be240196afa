/* Hand-built glTF fixtures for reader tests: a byte blob builder, a GLB
 * packer, base64 for data: URIs, and string replacement to derive broken
 * variants from a valid document. Test-only (plain malloc). */
#ifndef SKF_TESTS_GLTF_FIXTURE_H
#define SKF_TESTS_GLTF_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct blob {
    uint8_t *data;
    size_t size, cap;
} blob;

static inline void blob_put(blob *b, const void *p, size_t n)
{
    if (b->size + n > b->cap) {
        b->cap = (b->size + n) * 2 + 64;
        b->data = realloc(b->data, b->cap);
        if (!b->data)
            abort();
    }
    memcpy(b->data + b->size, p, n);
    b->size += n;
}
static inline void blob_f32(blob *b, float f) { blob_put(b, &f, 4); }
static inline void blob_u8(blob *b, uint8_t v) { blob_put(b, &v, 1); }
static inline void blob_u16(blob *b, uint16_t v) { blob_put(b, &v, 2); }
static inline void blob_u32(blob *b, uint32_t v) { blob_put(b, &v, 4); }
static inline void blob_pad4(blob *b, uint8_t fill)
{
    while (b->size % 4)
        blob_u8(b, fill);
}

/* GLB v2 with a JSON chunk and (when bin_size > 0) a BIN chunk. */
static inline uint8_t *make_glb(const char *json, const uint8_t *bin, size_t bin_size,
                                size_t *out_size)
{
    blob j = {0}, out = {0};
    blob_put(&j, json, strlen(json));
    blob_pad4(&j, ' ');
    size_t bin_padded = (bin_size + 3) & ~(size_t)3;
    uint32_t total = (uint32_t)(12 + 8 + j.size + (bin_size ? 8 + bin_padded : 0));
    blob_u32(&out, 0x46546C67u);
    blob_u32(&out, 2);
    blob_u32(&out, total);
    blob_u32(&out, (uint32_t)j.size);
    blob_u32(&out, 0x4E4F534Au);
    blob_put(&out, j.data, j.size);
    if (bin_size) {
        blob_u32(&out, (uint32_t)bin_padded);
        blob_u32(&out, 0x004E4942u);
        blob_put(&out, bin, bin_size);
        blob_pad4(&out, 0);
    }
    free(j.data);
    *out_size = out.size;
    return out.data;
}

static inline char *b64_encode(const uint8_t *p, size_t n)
{
    static const char *abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *s = malloc(n / 3 * 4 + 8);
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        s[o++] = abc[v >> 18 & 63];
        s[o++] = abc[v >> 12 & 63];
        s[o++] = i + 1 < n ? abc[v >> 6 & 63] : '=';
        s[o++] = i + 2 < n ? abc[v & 63] : '=';
    }
    s[o] = 0;
    return s;
}

/* Copy of s with the first occurrence of find replaced; NULL if absent. */
static inline char *replace_once(const char *s, const char *find, const char *rep)
{
    const char *at = strstr(s, find);
    if (!at)
        return NULL;
    size_t a = (size_t)(at - s), f = strlen(find), r = strlen(rep), n = strlen(s);
    char *out = malloc(n - f + r + 1);
    memcpy(out, s, a);
    memcpy(out + a, rep, r);
    memcpy(out + a + r, at + f, n - a - f + 1);
    return out;
}

static inline int write_bytes(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(p, 1, n, f);
    return fclose(f) == 0 && w == n ? 0 : -1;
}

/* ---- the reference skinned document -----------------------------------
 * 4 vertices (one quad), 2 joints (root, arm), inverse bind matrices, one
 * rotation clip "AnimalArmature|Walk" with 3 keys, a material with extras
 * (unknown to the reader). Binary layout (offsets in bytes): */
enum {
    FX_POS = 0,       /* 4 x VEC3 float   48 */
    FX_IDX = 48,      /* 6 x ushort       12 */
    FX_JOINTS = 60,   /* 4 x VEC4 ubyte   16 */
    FX_WEIGHTS = 76,  /* 4 x VEC4 float   64 */
    FX_IBM = 140,     /* 2 x MAT4 float  128 */
    FX_TIMES = 268,   /* 3 x float        12 */
    FX_ROT = 280,     /* 3 x VEC4 float   48 */
    FX_BIN_SIZE = 328
};

static inline void fixture_bin(uint8_t out[FX_BIN_SIZE])
{
    blob b = {0};
    const float pos[12] = {0, 0, 0, 1, 0, 0, 1, 2, 0, 0, 2, 0};
    for (int i = 0; i < 12; ++i)
        blob_f32(&b, pos[i]);
    const uint16_t idx[6] = {0, 1, 2, 0, 2, 3};
    for (int i = 0; i < 6; ++i)
        blob_u16(&b, idx[i]);
    const uint8_t jnt[16] = {0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    blob_put(&b, jnt, 16);
    const float w[16] = {1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    for (int i = 0; i < 16; ++i)
        blob_f32(&b, w[i]);
    for (int j = 0; j < 2; ++j)   /* IBM: translate by (0, -j, 0) */
        for (int k = 0; k < 16; ++k)
            blob_f32(&b, k % 5 == 0 ? 1.0f : (k == 13 ? (float)-j : 0.0f));
    const float t[3] = {0, 0.5f, 1};
    for (int i = 0; i < 3; ++i)
        blob_f32(&b, t[i]);
    const float r[12] = {0, 0, 0, 1, 0, 0, 0.38268343f, 0.92387953f, 0, 0, 0.70710678f, 0.70710678f};
    for (int i = 0; i < 12; ++i)
        blob_f32(&b, r[i]);
    memcpy(out, b.data, FX_BIN_SIZE);
    free(b.data);
}

static const char FIXTURE_JSON[] =
    "{\"asset\":{\"version\":\"2.0\",\"generator\":\"skinfit test\"},\n"
    "\"scene\":0,\"scenes\":[{\"nodes\":[0,1]}],\n"
    "\"nodes\":[{\"name\":\"body\",\"mesh\":0,\"skin\":0},\n"
    " {\"name\":\"root\",\"children\":[2],\"translation\":[0,0,0]},\n"
    " {\"name\":\"arm\",\"translation\":[0,1,0],\"rotation\":[0,0,0,1]}],\n"
    "\"meshes\":[{\"name\":\"quad\",\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":2,"
    "\"WEIGHTS_0\":3},\"indices\":1,\"material\":0}]}],\n"
    "\"materials\":[{\"name\":\"keep-me\",\"extras\":{\"answer\":42}}],\n"
    "\"skins\":[{\"joints\":[1,2],\"inverseBindMatrices\":4,\"skeleton\":1}],\n"
    "\"animations\":[{\"name\":\"AnimalArmature|Walk\",\"samplers\":[{\"input\":5,\"output\":6,"
    "\"interpolation\":\"LINEAR\"}],\"channels\":[{\"sampler\":0,\"target\":{\"node\":2,"
    "\"path\":\"rotation\"}}]}],\n"
    "\"buffers\":[{\"byteLength\":328}],\n"
    "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":48},\n"
    " {\"buffer\":0,\"byteOffset\":48,\"byteLength\":12},\n"
    " {\"buffer\":0,\"byteOffset\":60,\"byteLength\":16},\n"
    " {\"buffer\":0,\"byteOffset\":76,\"byteLength\":64},\n"
    " {\"buffer\":0,\"byteOffset\":140,\"byteLength\":128},\n"
    " {\"buffer\":0,\"byteOffset\":268,\"byteLength\":12},\n"
    " {\"buffer\":0,\"byteOffset\":280,\"byteLength\":48}],\n"
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\"},\n"
    " {\"bufferView\":1,\"componentType\":5123,\"count\":6,\"type\":\"SCALAR\"},\n"
    " {\"bufferView\":2,\"componentType\":5121,\"count\":4,\"type\":\"VEC4\"},\n"
    " {\"bufferView\":3,\"componentType\":5126,\"count\":4,\"type\":\"VEC4\"},\n"
    " {\"bufferView\":4,\"componentType\":5126,\"count\":2,\"type\":\"MAT4\"},\n"
    " {\"bufferView\":5,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\"},\n"
    " {\"bufferView\":6,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"}],\n"
    "\"extensionsUsed\":[\"EXT_unknown_to_us\"],\n"
    "\"extras\":{\"note\":\"unknown JSON survives\"}}";

#endif
