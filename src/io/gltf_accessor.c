/* glTF accessor decoding: component types, normalised integers, byteStride,
 * matrix column padding and sparse substitution.
 *
 * Reference: glTF 2.0 specification, section 3.6.2 "Accessors" (data
 * alignment: matrix columns start on 4-byte boundaries; byteStride) and
 * 3.11 "Animations" / "Accessor Data Types" for normalisation:
 *   signed byte   f = max(c / 127.0, -1.0)    unsigned byte  f = c / 255.0
 *   signed short  f = max(c / 32767.0, -1.0)  unsigned short f = c / 65535.0
 * Sparse accessors (3.6.2.3): start from the bufferView data (or zeros), then
 * replace element indices[k] with values[k] (values tightly packed).
 * All ranges were checked when the document was loaded (gltf_read.c); the
 * per-element index check below is a second line of defence only.
 */
#include "io/gltf_views.h"

#include <math.h>
#include <string.h>

size_t skfi_component_size(int t)
{
    switch (t) {
    case SKF_GLTF_BYTE:
    case SKF_GLTF_UNSIGNED_BYTE: return 1;
    case SKF_GLTF_SHORT:
    case SKF_GLTF_UNSIGNED_SHORT: return 2;
    case SKF_GLTF_UNSIGNED_INT:
    case SKF_GLTF_FLOAT: return 4;
    default: return 0;
    }
}

bool skfi_accessor_type(const char *type, int *components, int *matrix_rows)
{
    static const struct { const char *name; int comps, rows; } types[] = {
        {"SCALAR", 1, 0}, {"VEC2", 2, 0}, {"VEC3", 3, 0}, {"VEC4", 4, 0},
        {"MAT2", 4, 2},   {"MAT3", 9, 3}, {"MAT4", 16, 4},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i)
        if (strcmp(type, types[i].name) == 0) {
            *components = types[i].comps;
            *matrix_rows = types[i].rows;
            return true;
        }
    return false;
}

static size_t column_bytes(const skf_gltf_accessor *a)
{
    size_t col = (size_t)a->matrix_rows * skfi_component_size(a->component_type);
    return (col + 3) & ~(size_t)3;
}

size_t skfi_element_size(const skf_gltf_accessor *a)
{
    if (a->matrix_rows)
        return column_bytes(a) * (size_t)a->matrix_rows;
    return (size_t)a->components * skfi_component_size(a->component_type);
}

size_t skfi_component_offset(const skf_gltf_accessor *a, int c)
{
    size_t cs = skfi_component_size(a->component_type);
    if (a->matrix_rows)
        return (size_t)(c / a->matrix_rows) * column_bytes(a) + (size_t)(c % a->matrix_rows) * cs;
    return (size_t)c * cs;
}

double skfi_read_component(const uint8_t *p, int t)
{
    switch (t) {
    case SKF_GLTF_BYTE: return (double)(int8_t)p[0];
    case SKF_GLTF_UNSIGNED_BYTE: return (double)p[0];
    case SKF_GLTF_SHORT: return (double)(int16_t)(uint16_t)(p[0] | p[1] << 8);
    case SKF_GLTF_UNSIGNED_SHORT: return (double)(uint16_t)(p[0] | p[1] << 8);
    case SKF_GLTF_UNSIGNED_INT:
        return (double)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                        (uint32_t)p[3] << 24);
    case SKF_GLTF_FLOAT: {
        uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24;
        float f;
        memcpy(&f, &u, sizeof f);
        return (double)f;
    }
    default: return 0.0;
    }
}

static double normalize(double v, int t)
{
    switch (t) {
    case SKF_GLTF_BYTE: return fmax(v / 127.0, -1.0);
    case SKF_GLTF_UNSIGNED_BYTE: return v / 255.0;
    case SKF_GLTF_SHORT: return fmax(v / 32767.0, -1.0);
    case SKF_GLTF_UNSIGNED_SHORT: return v / 65535.0;
    default: return v;   /* normalized UNSIGNED_INT / FLOAT are rejected at load */
    }
}

/* Raw (un-normalised) values of every component into out. */
static void decode_raw(const skf_gltf *doc, const skf_gltf_accessor *a, double *out)
{
    size_t comps = (size_t)a->components;
    size_t esize = skfi_element_size(a);
    if (a->buffer_view < 0) {
        for (size_t i = 0; i < a->count * comps; ++i)
            out[i] = 0.0;
    } else {
        const skf_gltf_buffer_view *v = &doc->buffer_views[a->buffer_view];
        const uint8_t *base = doc->buffers[v->buffer].data + v->offset + a->offset;
        size_t stride = v->stride ? v->stride : esize;
        size_t offs[16];
        for (int c = 0; c < a->components; ++c)
            offs[c] = skfi_component_offset(a, c);
        for (size_t e = 0; e < a->count; ++e) {
            const uint8_t *p = base + e * stride;
            for (size_t c = 0; c < comps; ++c)
                out[e * comps + c] = skfi_read_component(p + offs[c], a->component_type);
        }
    }
    if (a->sparse) {
        const skf_gltf_buffer_view *iv = &doc->buffer_views[a->sparse_indices_view];
        const skf_gltf_buffer_view *vv = &doc->buffer_views[a->sparse_values_view];
        const uint8_t *ib = doc->buffers[iv->buffer].data + iv->offset + a->sparse_indices_offset;
        const uint8_t *vb = doc->buffers[vv->buffer].data + vv->offset + a->sparse_values_offset;
        size_t isize = skfi_component_size(a->sparse_indices_type);
        for (size_t k = 0; k < a->sparse_count; ++k) {
            double idx = skfi_read_component(ib + k * isize, a->sparse_indices_type);
            if (!(idx >= 0 && idx < (double)a->count))
                continue;   /* rejected at load; never write out of bounds */
            size_t e = (size_t)idx;
            for (size_t c = 0; c < comps; ++c)
                out[e * comps + c] = skfi_read_component(
                    vb + k * esize + skfi_component_offset(a, (int)c), a->component_type);
        }
    }
}

skf_status skf_gltf_accessor_read(const skf_gltf *doc, int accessor, double *out,
                                  bool reject_nonfinite, skf_error *err)
{
    const char *name = doc->path ? doc->path : "<memory>";
    if (accessor < 0 || (size_t)accessor >= doc->accessor_count)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: accessors[%d]: no such accessor (%zu accessors)",
                        name, accessor, doc->accessor_count);
    const skf_gltf_accessor *a = &doc->accessors[accessor];
    decode_raw(doc, a, out);
    size_t n = a->count * (size_t)a->components;
    if (a->normalized)
        for (size_t i = 0; i < n; ++i)
            out[i] = normalize(out[i], a->component_type);
    if (reject_nonfinite)
        for (size_t i = 0; i < n; ++i)
            if (!isfinite(out[i]))
                return skf_fail(err, SKF_ERR_FORMAT,
                                "%s: accessors[%d]: element %zu component %zu is %s", name,
                                accessor, i / (size_t)a->components, i % (size_t)a->components,
                                isnan(out[i]) ? "NaN" : "infinite");
    return SKF_OK;
}

skf_status skf_gltf_accessor_read_uint(const skf_gltf *doc, int accessor, uint32_t *out,
                                       skf_error *err)
{
    const char *name = doc->path ? doc->path : "<memory>";
    if (accessor < 0 || (size_t)accessor >= doc->accessor_count)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: accessors[%d]: no such accessor (%zu accessors)",
                        name, accessor, doc->accessor_count);
    const skf_gltf_accessor *a = &doc->accessors[accessor];
    if (a->component_type == SKF_GLTF_FLOAT || a->normalized)
        return skf_fail(err, SKF_ERR_FORMAT,
                        "%s: accessors[%d].componentType: %s where integers are expected", name,
                        accessor, a->normalized ? "normalized integers" : "FLOAT (5126)");
    size_t n = a->count * (size_t)a->components;
    double *tmp = skf_malloc_array(n, sizeof *tmp);
    if (!tmp)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: accessors[%d]: out of memory", name, accessor);
    decode_raw(doc, a, tmp);
    for (size_t i = 0; i < n; ++i) {
        if (tmp[i] < 0) {
            skf_status st = skf_fail(err, SKF_ERR_FORMAT,
                                     "%s: accessors[%d]: element %zu is negative (%.0f)", name,
                                     accessor, i / (size_t)a->components, tmp[i]);
            skf_free(tmp);
            return st;
        }
        out[i] = (uint32_t)tmp[i];
    }
    skf_free(tmp);
    return SKF_OK;
}
