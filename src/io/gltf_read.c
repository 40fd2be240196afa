/* glTF reader, part 3 of 3: the parser, JSON tree -> range-checked typed
 * views (skinfit/gltf.h), and the load-from-memory entry points (a file by
 * name: load.c). The JSON getters are in
 * gltf_json.c, buffer and URI loading in gltf_buffers.c.
 *
 * Reference: Khronos glTF 2.0 specification (buffers, bufferViews, accessors,
 * meshes, nodes, skins, animations, scenes; "Properties Reference" for every
 * default and constraint used below). Robustness model after cgltf and ufbx:
 * every index stays an integer until it is checked against its array, every
 * offset/length/stride is checked against the bytes that remain, the node
 * hierarchy is checked for cycles, shared children and depth, and the binary
 * data the rest of skinfit interprets (positions, joints, weights, indices,
 * inverse bind matrices, key times and values) is checked for NaN/Inf, range
 * and ordering here, once, so later stages can trust the typed views.
 *
 * Errors are one line "<file>: <JSON path or byte offset>: <what>".
 * The JSON tree is kept whole in doc->json so unknown content (materials,
 * extensions, extras) survives for the writer.
 */
#include "io/gltf_internal.h"
#include "base/base_internal.h"
#include "skinfit/math.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { ACC_FINITE = 1, ACC_INCREASING = 2, ACC_BOUNDED = 4 };

/* ---- freeing ------------------------------------------------------------ */

void skf_gltf_free(skf_gltf *doc)
{
    if (!doc)
        return;
    skfi_gltf_free_views(doc);
    for (size_t i = 0; i < doc->buffer_count; ++i)
        skf_free(doc->buffers[i].data);
    skf_free(doc->buffers);
    if (doc->json)
        json_decref(doc->json);
    skf_free(doc->path);
    skf_free(doc->base_dir);
    skf_free(doc);
}

/* ---- accessor content checks ------------------------------------------- */

/* Allowed component types, one bit per (type, normalized) pair. */
enum {
    CT_F = 1 << 0,
    CT_B = 1 << 1, CT_BN = 1 << 2, CT_UB = 1 << 3, CT_UBN = 1 << 4,
    CT_S = 1 << 5, CT_SN = 1 << 6, CT_US = 1 << 7, CT_USN = 1 << 8,
    CT_UI = 1 << 9,
    CT_QUANT = CT_F | CT_B | CT_BN | CT_UB | CT_UBN | CT_S | CT_SN | CT_US | CT_USN
};

static int ct_bit(int component_type, bool normalized)
{
    switch (component_type) {
    case SKF_GLTF_FLOAT: return CT_F;
    case SKF_GLTF_BYTE: return normalized ? CT_BN : CT_B;
    case SKF_GLTF_UNSIGNED_BYTE: return normalized ? CT_UBN : CT_UB;
    case SKF_GLTF_SHORT: return normalized ? CT_SN : CT_S;
    case SKF_GLTF_UNSIGNED_SHORT: return normalized ? CT_USN : CT_US;
    case SKF_GLTF_UNSIGNED_INT: return CT_UI;
    }
    return 0;
}

static const char *type_name(int components, int rows)
{
    if (rows)
        return rows == 2 ? "MAT2" : rows == 3 ? "MAT3" : "MAT4";
    static const char *v[] = {"?", "SCALAR", "VEC2", "VEC3", "VEC4"};
    return components >= 1 && components <= 4 ? v[components] : "?";
}

static const char *ct_name(int t, bool normalized)
{
    switch (t) {
    case SKF_GLTF_FLOAT: return "FLOAT";
    case SKF_GLTF_BYTE: return normalized ? "normalized BYTE" : "BYTE";
    case SKF_GLTF_UNSIGNED_BYTE: return normalized ? "normalized UNSIGNED_BYTE" : "UNSIGNED_BYTE";
    case SKF_GLTF_SHORT: return normalized ? "normalized SHORT" : "SHORT";
    case SKF_GLTF_UNSIGNED_SHORT:
        return normalized ? "normalized UNSIGNED_SHORT" : "UNSIGNED_SHORT";
    case SKF_GLTF_UNSIGNED_INT: return "UNSIGNED_INT";
    }
    return "?";
}

/* Accessor `acc` used at `place` must have `components` (rows for matrices,
 * components == 0: any) and one of the allowed component types. */
static skf_status check_usage(skfi_parser *p, int acc, const char *place, int components, int rows,
                              int allowed)
{
    const skf_gltf_accessor *a = &p->doc->accessors[acc];
    if (components && (a->components != components || a->matrix_rows != rows))
        return skfi_fail(p, SKF_ERR_FORMAT, place, "accessors[%d] has type %s, expected %s", acc,
                         type_name(a->components, a->matrix_rows), type_name(components, rows));
    if (!(ct_bit(a->component_type, a->normalized) & allowed))
        return skfi_fail(p, SKF_ERR_FORMAT, place, "accessors[%d] has componentType %s (%d), not "
                         "allowed here", acc, ct_name(a->component_type, a->normalized),
                         a->component_type);
    return SKF_OK;
}

/* Decode accessor values (normalised) into a new array. */
static skf_status decode(skfi_parser *p, int acc, const char *place, double **out)
{
    const skf_gltf_accessor *a = &p->doc->accessors[acc];
    *out = skf_malloc_array(a->count, (size_t)a->components * sizeof **out);
    if (!*out)
        return skfi_nomem(p, place);
    skf_gltf_accessor_read(p->doc, acc, *out, false, NULL);
    return SKF_OK;
}

/* Values of accessor acc used at place must be finite; bounded: also within
 * ±SKF_GLTF_MAX_MAGNITUDE (geometry and key values; key times are bounded by
 * the frame limits instead). */
static skf_status check_values(skfi_parser *p, int acc, const char *place, bool bounded)
{
    int want = bounded ? ACC_FINITE | ACC_BOUNDED : ACC_FINITE;
    if ((p->acc_flags[acc] & want) == want)
        return SKF_OK;
    const skf_gltf_accessor *a = &p->doc->accessors[acc];
    if (a->component_type != SKF_GLTF_FLOAT) {   /* integers: finite and below 2^32 */
        p->acc_flags[acc] |= ACC_FINITE | ACC_BOUNDED;
        return SKF_OK;
    }
    double *v;
    skf_status st = decode(p, acc, place, &v);
    if (st)
        return st;
    size_t n = a->count * (size_t)a->components;
    for (size_t i = 0; i < n; ++i)
        if (!isfinite(v[i])) {
            st =
                skfi_fail(p, SKF_ERR_FORMAT, place, "accessors[%d] element %zu component %zu is %s",
                          acc, i / (size_t)a->components, i % (size_t)a->components,
                          isnan(v[i]) ? "NaN" : "infinite");
            break;
        } else if (bounded && fabs(v[i]) > SKF_GLTF_MAX_MAGNITUDE) {
            st = skfi_fail(p, SKF_ERR_FORMAT, place,
                           "accessors[%d] element %zu component %zu is %g, beyond ±%g (%s)", acc,
                           i / (size_t)a->components, i % (size_t)a->components, v[i],
                           SKF_GLTF_MAX_MAGNITUDE, SKFI_MAGNITUDE_WHY);
            break;
        }
    if (!st && bounded)
        p->acc_flags[acc] |= ACC_BOUNDED;
    skf_free(v);
    if (!st)
        p->acc_flags[acc] |= ACC_FINITE;
    return st;
}

/* Largest integer value of accessor acc (cached: many primitives or nodes
 * may share one accessor, and the checks must stay linear in the input). */
static skf_status accessor_max(skfi_parser *p, int acc, const char *place, int64_t *max)
{
    if (p->acc_max[acc] >= 0) {
        *max = p->acc_max[acc];
        return SKF_OK;
    }
    const skf_gltf_accessor *a = &p->doc->accessors[acc];
    size_t n = a->count * (size_t)a->components;
    uint32_t *v = skf_malloc_array(n, sizeof *v);
    if (!v)
        return skfi_nomem(p, place);
    skf_error e;
    skf_status st = skf_gltf_accessor_read_uint(p->doc, acc, v, &e);
    if (st) {
        skf_free(v);
        /* e.message already names the file: keep only its place and text */
        size_t skip = strlen(p->name);
        const char *what = strncmp(e.message, p->name, skip) == 0 && e.message[skip] == ':'
                               ? e.message + skip + 2 : e.message;
        return skfi_fail(p, st, place, "%s", what);
    }
    int64_t m = 0;
    for (size_t i = 0; i < n; ++i)
        if (v[i] > m)
            m = v[i];
    skf_free(v);
    p->acc_max[acc] = m;
    *max = m;
    return SKF_OK;
}

/* Integer values of accessor acc must be < limit (indices, joints). */
static skf_status check_uint_below(skfi_parser *p, int acc, const char *place, size_t limit,
                                   const char *what, const char *limit_what)
{
    int64_t max;
    skf_status st = accessor_max(p, acc, place, &max);
    if (st || (uint64_t)max < (uint64_t)limit)
        return st;
    /* failing: find the first offender for the message */
    const skf_gltf_accessor *a = &p->doc->accessors[acc];
    size_t n = a->count * (size_t)a->components;
    uint32_t *v = skf_malloc_array(n, sizeof *v);
    if (!v)
        return skfi_nomem(p, place);
    skf_gltf_accessor_read_uint(p->doc, acc, v, NULL);
    size_t i = 0;
    while (i + 1 < n && v[i] < limit)
        ++i;
    st = skfi_fail(p, SKF_ERR_FORMAT, place, "%s %u at element %zu out of range (%zu %s)", what,
                   (unsigned)v[i], i / (size_t)a->components, limit, limit_what);
    skf_free(v);
    return st;
}

/* ---- bufferViews and accessors ------------------------------------------ */

static skf_status parse_buffer_views(skfi_parser *p, json_t *arr)
{
    skf_gltf *doc = p->doc;
    skf_status st;
    doc->buffer_views = skfi_alloc_top(p, arr, "bufferViews", sizeof *doc->buffer_views,
                                       &doc->buffer_view_count, &st);
    for (size_t i = 0; i < doc->buffer_view_count; ++i) {
        char place[SKFI_PLACE_MAX];
        json_t *o;
        if ((st = skfi_get_element(p, arr, "bufferViews", i, place, &o)))
            return st;
        skf_gltf_buffer_view *v = &doc->buffer_views[i];
        if ((st = skfi_get_index(p, o, "buffer", place, doc->buffer_count, "buffers", true,
                                 &v->buffer)) ||
            (st = skfi_get_size(p, o, "byteOffset", place, 0, LLONG_MAX, false, 0, &v->offset)) ||
            (st = skfi_get_size(p, o, "byteLength", place, 1, LLONG_MAX, true, 0, &v->length)) ||
            (st = skfi_get_size(p, o, "byteStride", place, 4, 252, false, 0, &v->stride)))
            return st;
        size_t bsize = doc->buffers[v->buffer].size;
        if (v->offset > bsize || v->length > bsize - v->offset)
            return skfi_fail(
                p, SKF_ERR_FORMAT, place,
                "byteOffset %zu + byteLength %zu is past the end of buffers[%d] (%zu bytes)",
                v->offset, v->length, v->buffer, bsize);
        if (v->stride % 4)
            skf_warn(p->warn, "%s: %s.byteStride: %zu is not a multiple of 4", p->name, place,
                     v->stride);
    }
    return st;
}

/* Is [offset, offset + count*stride) inside bufferView view? For the last
 * element only its own size counts (stride may exceed element size). */
static skf_status check_span(skfi_parser *p, const char *place, int view, size_t offset,
                             size_t count, size_t stride, size_t esize, const char *what)
{
    const skf_gltf_buffer_view *v = &p->doc->buffer_views[view];
    size_t len = v->length;
    /* need = offset + stride*(count-1) + esize <= len, without overflow */
    bool ok = offset <= len && esize <= len - offset;
    if (ok && count > 1) {
        size_t room = len - offset - esize;
        ok = stride == 0 || (count - 1) <= room / stride;
    }
    if (!ok)
        return skfi_fail(
            p, SKF_ERR_FORMAT, place,
            "%s: byteOffset %zu + count %zu x stride %zu is past the end of bufferViews[%d] "
            "(%zu bytes)",
            what, offset, count, stride, view, len);
    return SKF_OK;
}

static skf_status parse_sparse(skfi_parser *p, skf_gltf_accessor *a, json_t *o, const char *place0)
{
    skf_gltf *doc = p->doc;
    char place[SKFI_PLACE_MAX], ip[SKFI_PLACE_MAX], vp[SKFI_PLACE_MAX];
    skfi_place(place, "%s.sparse", place0);
    skfi_place(ip, "%s.indices", place);
    skfi_place(vp, "%s.values", place);
    json_t *ind, *val;
    skf_status st;
    if ((st = skfi_get_size(p, o, "count", place, 1, (long long)a->count, true, 0,
                            &a->sparse_count)) ||
        (st = skfi_get_object(p, o, "indices", place, true, &ind)) ||
        (st = skfi_get_object(p, o, "values", place, true, &val)) ||
        (st = skfi_get_index(p, ind, "bufferView", ip, doc->buffer_view_count, "bufferViews", true,
                             &a->sparse_indices_view)) ||
        (st = skfi_get_size(p, ind, "byteOffset", ip, 0, LLONG_MAX, false, 0,
                            &a->sparse_indices_offset)) ||
        (st = skfi_get_index(p, val, "bufferView", vp, doc->buffer_view_count, "bufferViews", true,
                             &a->sparse_values_view)) ||
        (st = skfi_get_size(p, val, "byteOffset", vp, 0, LLONG_MAX, false, 0,
                            &a->sparse_values_offset)))
        return st;
    size_t ict;
    if ((st = skfi_get_size(p, ind, "componentType", ip, 0, INT_MAX, true, 0, &ict)))
        return st;
    a->sparse_indices_type = (int)ict;
    if (ict != SKF_GLTF_UNSIGNED_BYTE && ict != SKF_GLTF_UNSIGNED_SHORT &&
        ict != SKF_GLTF_UNSIGNED_INT)
        return skfi_fail_at(p, SKF_ERR_FORMAT, ip, "componentType",
                            "%zu is not UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT", ict);
    size_t isize = skfi_component_size(a->sparse_indices_type);
    size_t esize = skfi_element_size(a);
    if ((st = check_span(p, ip, a->sparse_indices_view, a->sparse_indices_offset, a->sparse_count,
                         isize, isize, "indices")) ||
        (st = check_span(p, vp, a->sparse_values_view, a->sparse_values_offset, a->sparse_count,
                         esize, esize, "values")))
        return st;
    a->sparse = true;
    /* Indices must be strictly increasing and < count (spec). */
    const skf_gltf_buffer_view *iv = &doc->buffer_views[a->sparse_indices_view];
    const uint8_t *ib = doc->buffers[iv->buffer].data + iv->offset + a->sparse_indices_offset;
    double prev = -1;
    for (size_t k = 0; k < a->sparse_count; ++k) {
        double idx = skfi_read_component(ib + k * isize, a->sparse_indices_type);
        if (idx >= (double)a->count)
            return skfi_fail(p, SKF_ERR_FORMAT, ip,
                             "index %.0f at position %zu out of range (count %zu)", idx, k,
                             a->count);
        if (idx <= prev)
            return skfi_fail(p, SKF_ERR_FORMAT, ip,
                             "index %.0f at position %zu is not greater than the previous (%.0f)",
                             idx, k, prev);
        prev = idx;
    }
    return SKF_OK;
}

/* Accessors without bufferView read as zeros and so are not bounded by the
 * file size; cap their values (count x components, limit accessor-values,
 * default 2^24 doubles = 128 MiB) so callers' allocations stay sane. */

static skf_status parse_accessors(skfi_parser *p, json_t *arr)
{
    skf_gltf *doc = p->doc;
    const skf_limits *lim = &doc->limits;
    skf_status st;
    /* The total a document may materialise (limit document-values): the
     * per-accessor cap alone lets 20 zero-filled morph targets of 5.6M
     * vertices (a 2.5 KB file) take 3.2 GB, and accessors may alias one
     * bufferView any number of times. Refused here, before any reader
     * allocates. */
    size_t total = 0;
    doc->accessors =
        skfi_alloc_top(p, arr, "accessors", sizeof *doc->accessors, &doc->accessor_count, &st);
    for (size_t i = 0; i < doc->accessor_count; ++i) {
        char place[SKFI_PLACE_MAX];
        json_t *o;
        if ((st = skfi_get_element(p, arr, "accessors", i, place, &o)))
            return st;
        skf_gltf_accessor *a = &doc->accessors[i];
        a->sparse_indices_view = a->sparse_values_view = -1;
        size_t ct;
        json_t *type, *norm;
        if ((st = skfi_get_index(p, o, "bufferView", place, doc->buffer_view_count, "bufferViews",
                                 false, &a->buffer_view)) ||
            (st = skfi_get_size(p, o, "byteOffset", place, 0, LLONG_MAX, false, 0, &a->offset)) ||
            (st = skfi_get_size(p, o, "componentType", place, 0, INT_MAX, true, 0, &ct)) ||
            (st = skfi_get_size(p, o, "count", place, 1, LLONG_MAX, true, 0, &a->count)) ||
            (st = skfi_get_typed(p, o, "type", place, JSON_STRING, "a string", true, &type)))
            return st;
        a->component_type = (int)ct;
        if (!skfi_component_size(a->component_type))
            return skfi_fail_at(p, SKF_ERR_FORMAT, place, "componentType",
                                "%zu is not a glTF component type", ct);
        if (!skfi_accessor_type(json_string_value(type), &a->components, &a->matrix_rows))
            return skfi_fail_at(p, SKF_ERR_FORMAT, place, "type", "'%.40s' is not an accessor type",
                                json_string_value(type));
        norm = json_object_get(o, "normalized");
        if (norm && !json_is_boolean(norm))
            return skfi_fail_at(p, SKF_ERR_FORMAT, place, "normalized", "expected a boolean");
        a->normalized = json_is_true(norm);
        if (a->normalized &&
            (a->component_type == SKF_GLTF_FLOAT || a->component_type == SKF_GLTF_UNSIGNED_INT))
            return skfi_fail_at(p, SKF_ERR_FORMAT, place, "normalized", "must not be true for %s",
                                ct_name(a->component_type, false));
        size_t esize = skfi_element_size(a);
        if (a->buffer_view >= 0) {
            const skf_gltf_buffer_view *v = &doc->buffer_views[a->buffer_view];
            size_t stride = v->stride ? v->stride : esize;
            if (stride < esize)
                return skfi_fail_at(
                    p, SKF_ERR_FORMAT, place, "bufferView",
                    "bufferViews[%d].byteStride %zu is smaller than the element size %zu",
                    a->buffer_view, stride, esize);
            if ((st = check_span(p, place, a->buffer_view, a->offset, a->count, stride, esize,
                                 "data")))
                return st;
        } else if (a->count > skf_limits_value(lim, SKF_LIMIT_ACCESSOR_VALUES) /
                                  (size_t)a->components)
            return skfi_fail_at(p, SKF_ERR_LIMIT, place, "count",
                                "%zu elements of %d values without a bufferView exceed %s",
                                a->count, a->components,
                                skf_limits_exceeded(lim, SKF_LIMIT_ACCESSOR_VALUES).text);
        size_t values = a->count * (size_t)a->components;
        size_t dcap = skf_limits_value(lim, SKF_LIMIT_DOCUMENT_VALUES);
        if (a->count > SIZE_MAX / 16 || values > dcap - total)
            return skfi_fail_at(p, SKF_ERR_LIMIT, place, "count",
                                "the document's accessors 0..%zu hold more than %zu values in "
                                "total, above %s", i, dcap,
                                skf_limits_exceeded(lim, SKF_LIMIT_DOCUMENT_VALUES).text);
        total += values;
        json_t *sparse;
        if ((st = skfi_get_object(p, o, "sparse", place, false, &sparse)))
            return st;
        if (sparse && (st = parse_sparse(p, a, sparse, place)))
            return st;
    }
    return st;
}

/* ---- meshes ------------------------------------------------------------- */

static skf_status parse_target(skfi_parser *p, json_t *o, const char *place,
                               skf_gltf_morph_target *t, size_t vertex_count)
{
    skf_status st;
    t->position = t->normal = t->tangent = -1;
    if (!json_is_object(o))
        return skfi_fail(p, SKF_ERR_FORMAT, place, "expected an object");
    size_t n = p->doc->accessor_count;
    if ((st = skfi_get_index(p, o, "POSITION", place, n, "accessors", false, &t->position)) ||
        (st = skfi_get_index(p, o, "NORMAL", place, n, "accessors", false, &t->normal)) ||
        (st = skfi_get_index(p, o, "TANGENT", place, n, "accessors", false, &t->tangent)))
        return st;
    int ids[2] = {t->position, t->normal};
    const char *names[2] = {"POSITION", "NORMAL"};
    for (int k = 0; k < 2; ++k) {
        if (ids[k] < 0)
            continue;
        char pl[SKFI_PLACE_MAX];
        skfi_place(pl, "%s.%s", place, names[k]);
        int allowed = p->quantized ? (CT_F | CT_B | CT_BN | CT_S | CT_SN) : CT_F;
        if ((st = check_usage(p, ids[k], pl, 3, 0, allowed)) ||
            (st = check_values(p, ids[k], pl, true)))
            return st;
        if (p->doc->accessors[ids[k]].count != vertex_count)
            return skfi_fail(p, SKF_ERR_FORMAT, pl,
                             "accessors[%d] count %zu differs from the "
                             "primitive's vertex count %zu",
                             ids[k], p->doc->accessors[ids[k]].count, vertex_count);
    }
    return SKF_OK;
}

static bool attr_is(const char *name, const char *prefix)
{
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) != 0 || !name[n])
        return false;
    for (const char *c = name + n; *c; ++c)
        if (*c < '0' || *c > '9')
            return false;
    return true;
}

static skf_status parse_primitive(skfi_parser *p, json_t *o, const char *place,
                                  skf_gltf_primitive *pr)
{
    skf_gltf *doc = p->doc;
    skf_status st;
    pr->indices = -1;
    if (!json_is_object(o))
        return skfi_fail(p, SKF_ERR_FORMAT, place, "expected an object");
    json_t *attrs, *targets;
    size_t mode;
    if ((st = skfi_get_object(p, o, "attributes", place, true, &attrs)) ||
        (st = skfi_get_index(p, o, "indices", place, doc->accessor_count, "accessors", false,
                             &pr->indices)) ||
        (st = skfi_get_size(p, o, "mode", place, 0, 6, false, 4, &mode)) ||
        (st = skfi_get_array(p, o, "targets", place, false, &targets)))
        return st;
    pr->mode = (int)mode;
    size_t na = json_object_size(attrs);
    pr->attributes = skf_calloc(na ? na : 1, sizeof *pr->attributes);
    if (!pr->attributes)
        return skfi_nomem(p, place);
    const char *key;
    json_t *v;
    size_t vertex_count = 0;
    int position = -1;
    json_object_foreach(attrs, key, v) {
        char pl[SKFI_PLACE_MAX];
        skfi_place(pl, "%s.attributes.%.64s", place, key);
        skf_gltf_attribute *at = &pr->attributes[pr->attribute_count];
        at->name = skf_strdup(key);
        if (!at->name)
            return skfi_nomem(p, pl);
        ++pr->attribute_count;
        if ((st = skfi_check_index(p, v, pl, doc->accessor_count, "accessors", &at->accessor)))
            return st;
        if (strcmp(key, "POSITION") == 0)
            position = at->accessor;
    }
    if (position < 0) {
        char pl[SKFI_PLACE_MAX];
        skfi_place(pl, "%s.attributes.POSITION", place);
        return skfi_fail(p, SKF_ERR_FORMAT, pl, "missing (skinfit needs positions)");
    }
    vertex_count = doc->accessors[position].count;
    for (size_t k = 0; k < pr->attribute_count; ++k) {
        const skf_gltf_attribute *at = &pr->attributes[k];
        char pl[SKFI_PLACE_MAX];
        skfi_place(pl, "%s.attributes.%.64s", place, at->name);
        const skf_gltf_accessor *a = &doc->accessors[at->accessor];
        if (a->count != vertex_count)
            return skfi_fail(p, SKF_ERR_FORMAT, pl, "accessors[%d] count %zu differs from POSITION "
                             "count %zu", at->accessor, a->count, vertex_count);
        if (strcmp(at->name, "POSITION") == 0) {
            if ((st = check_usage(p, at->accessor, pl, 3, 0, p->quantized ? CT_QUANT : CT_F)) ||
                (st = check_values(p, at->accessor, pl, true)))
                return st;
        } else if (strcmp(at->name, "NORMAL") == 0) {
            if ((st = check_usage(p, at->accessor, pl, 3, 0,
                                  p->quantized ? (CT_F | CT_BN | CT_SN) : CT_F)))
                return st;
        } else if (attr_is(at->name, "JOINTS_")) {
            if ((st = check_usage(p, at->accessor, pl, 4, 0, CT_UB | CT_US)))
                return st;
        } else if (attr_is(at->name, "WEIGHTS_")) {
            if ((st = check_usage(p, at->accessor, pl, 4, 0, CT_F | CT_UBN | CT_USN)) ||
                (st = check_values(p, at->accessor, pl, true)))
                return st;
        }
    }
    if (pr->indices >= 0) {
        char pl[SKFI_PLACE_MAX];
        skfi_place(pl, "%s.indices", place);
        if ((st = check_usage(p, pr->indices, pl, 1, 0, CT_UB | CT_US | CT_UI)) ||
            (st = check_uint_below(p, pr->indices, pl, vertex_count, "vertex index", "vertices")))
            return st;
    }
    if (targets) {
        size_t nt = json_array_size(targets);
        pr->targets = skf_calloc(nt ? nt : 1, sizeof *pr->targets);
        if (!pr->targets)
            return skfi_nomem(p, place);
        for (size_t t = 0; t < nt; ++t) {
            char pl[SKFI_PLACE_MAX];
            skfi_place(pl, "%s.targets[%zu]", place, t);
            ++pr->target_count;
            if ((st = parse_target(p, json_array_get(targets, t), pl, &pr->targets[t],
                                   vertex_count)))
                return st;
        }
    }
    return SKF_OK;
}

static skf_status parse_meshes(skfi_parser *p, json_t *arr)
{
    skf_gltf *doc = p->doc;
    skf_status st;
    doc->meshes = skfi_alloc_top(p, arr, "meshes", sizeof *doc->meshes, &doc->mesh_count, &st);
    for (size_t i = 0; i < doc->mesh_count; ++i) {
        char place[SKFI_PLACE_MAX];
        json_t *o;
        if ((st = skfi_get_element(p, arr, "meshes", i, place, &o)))
            return st;
        skf_gltf_mesh *m = &doc->meshes[i];
        json_t *prims;
        if ((st = skfi_get_string(p, o, "name", place, &m->name)) ||
            (st = skfi_get_array(p, o, "primitives", place, true, &prims)) ||
            (st = skfi_get_number_list(p, o, "weights", place, &m->weights, &m->weight_count)))
            return st;
        size_t np = json_array_size(prims);
        if (!np)
            return skfi_fail_at(p, SKF_ERR_FORMAT, place, "primitives",
                                "empty (at least one primitive required)");
        m->primitives = skf_calloc(np, sizeof *m->primitives);
        if (!m->primitives)
            return skfi_nomem(p, place);
        for (size_t j = 0; j < np; ++j) {
            char pl[SKFI_PLACE_MAX];
            skfi_place(pl, "%s.primitives[%zu]", place, j);
            ++m->primitive_count;
            if ((st = parse_primitive(p, json_array_get(prims, j), pl, &m->primitives[j])))
                return st;
            if (m->primitives[j].target_count != m->primitives[0].target_count)
                return skfi_fail(p, SKF_ERR_FORMAT, pl,
                                 "has %zu morph targets, primitives[0] has %zu",
                                 m->primitives[j].target_count, m->primitives[0].target_count);
        }
        if (m->weights && m->weight_count != m->primitives[0].target_count)
            return skfi_fail_at(p, SKF_ERR_FORMAT, place, "weights",
                                "%zu weights for %zu morph targets", m->weight_count,
                                m->primitives[0].target_count);
    }
    return st;
}

static size_t mesh_targets(const skf_gltf *doc, int mesh)
{
    return doc->meshes[mesh].primitive_count ? doc->meshes[mesh].primitives[0].target_count : 0;
}

/* ---- nodes -------------------------------------------------------------- */

static skf_status parse_nodes(skfi_parser *p, json_t *arr)
{
    skf_gltf *doc = p->doc;
    skf_status st;
    doc->nodes = skfi_alloc_top(p, arr, "nodes", sizeof *doc->nodes, &doc->node_count, &st);
    size_t n = doc->node_count;
    if (!n)
        return st;
    for (size_t i = 0; i < n; ++i)
        doc->nodes[i].parent = -1;
    for (size_t i = 0; i < n; ++i) {
        char place[SKFI_PLACE_MAX];
        json_t *o;
        if ((st = skfi_get_element(p, arr, "nodes", i, place, &o)))
            return st;
        skf_gltf_node *nd = &doc->nodes[i];
        nd->rotation[3] = 1;
        nd->scale[0] = nd->scale[1] = nd->scale[2] = 1;
        skf_mat4_identity(nd->matrix);
        json_t *children;
        bool has_t, has_r, has_s;
        if ((st = skfi_get_string(p, o, "name", place, &nd->name)) ||
            (st = skfi_get_index(p, o, "mesh", place, doc->mesh_count, "meshes", false,
                                 &nd->mesh)) ||
            (st = skfi_get_index(p, o, "skin", place, p->skin_json_count, "skins", false,
                                 &nd->skin)) ||
            (st = skfi_get_numbers(p, o, "matrix", place, 16, nd->matrix, &nd->has_matrix)) ||
            (st = skfi_get_numbers(p, o, "translation", place, 3, nd->translation, &has_t)) ||
            (st = skfi_get_numbers(p, o, "rotation", place, 4, nd->rotation, &has_r)) ||
            (st = skfi_get_numbers(p, o, "scale", place, 3, nd->scale, &has_s)) ||
            (st = skfi_get_number_list(p, o, "weights", place, &nd->weights, &nd->weight_count)) ||
            (st = skfi_get_array(p, o, "children", place, false, &children)))
            return st;
        if (nd->has_matrix && (has_t || has_r || has_s))
            skf_warn(p->warn, "%s: %s: has both matrix and TRS; using matrix", p->name, place);
        if (has_r) {
            double len = sqrt(nd->rotation[0] * nd->rotation[0] + nd->rotation[1] * nd->rotation[1] +
                              nd->rotation[2] * nd->rotation[2] + nd->rotation[3] * nd->rotation[3]);
            if (!(len > 0))
                return skfi_fail_at(p, SKF_ERR_FORMAT, place, "rotation", "zero quaternion");
            if (fabs(len - 1) > 1e-3)
                skf_warn(p->warn, "%s: %s.rotation: quaternion length %g normalised", p->name,
                         place, len);
            for (int k = 0; k < 4; ++k)
                nd->rotation[k] /= len;
        }
        if (nd->mesh >= 0 && nd->weights && nd->weight_count != mesh_targets(doc, nd->mesh))
            return skfi_fail_at(p, SKF_ERR_FORMAT, place, "weights",
                                "%zu weights for %zu morph targets of meshes[%d]", nd->weight_count,
                                mesh_targets(doc, nd->mesh), nd->mesh);
        if (children) {
            size_t nc = json_array_size(children);
            nd->children = skf_malloc_array(nc ? nc : 1, sizeof *nd->children);
            if (!nd->children)
                return skfi_nomem(p, place);
            for (size_t c = 0; c < nc; ++c) {
                char pl[SKFI_PLACE_MAX];
                skfi_place(pl, "%s.children[%zu]", place, c);
                int ch;
                if ((st = skfi_check_index(p, json_array_get(children, c), pl, n, "nodes", &ch)))
                    return st;
                if ((size_t)ch == i)
                    return skfi_fail(p, SKF_ERR_FORMAT, pl,
                                     "cycle in the node hierarchy (node %d is its own child)", ch);
                if (doc->nodes[ch].parent >= 0)
                    return skfi_fail(p, SKF_ERR_FORMAT, pl, "node %d already has parent nodes[%d]",
                                     ch, doc->nodes[ch].parent);
                doc->nodes[ch].parent = (int)i;
                nd->children[nd->child_count++] = ch;
            }
        }
    }
    /* Every node has at most one parent, so following parents from any node
     * either reaches a root or loops. Walk each chain once, marking the walk
     * with its start so a revisit within the same walk is a cycle; then give
     * every node on the walk its depth. O(nodes) overall. */
    int *depth = skf_malloc_array(n, sizeof *depth);
    int *mark = skf_calloc(n, sizeof *mark);
    size_t *stack = skf_malloc_array(n, sizeof *stack);
    if (!depth || !mark || !stack)
        st = skfi_nomem(p, "nodes");
    for (size_t i = 0; i < n && !st; ++i)
        depth[i] = -1;
    for (size_t i = 0; i < n && !st; ++i) {
        if (depth[i] >= 0)
            continue;
        size_t len = 0, cur = i;
        int base = -1;
        for (;;) {
            mark[cur] = (int)i + 1;
            stack[len++] = cur;
            int par = doc->nodes[cur].parent;
            if (par < 0)
                break;
            if (depth[par] >= 0) {
                base = depth[par];
                break;
            }
            if (mark[par] == (int)i + 1) {
                /* par is on this walk: name the edge into it */
                int pp = doc->nodes[par].parent;
                size_t k = 0;
                while (k < doc->nodes[pp].child_count && doc->nodes[pp].children[k] != par)
                    ++k;
                char pl[SKFI_PLACE_MAX];
                skfi_place(pl, "nodes[%d].children[%zu]", pp, k);
                st = skfi_fail(p, SKF_ERR_FORMAT, pl,
                               "cycle in the node hierarchy (node %d is its own ancestor)", par);
                break;
            }
            cur = (size_t)par;
        }
        if (st)
            break;
        for (size_t k = len; k-- > 0;)
            depth[stack[k]] = base + (int)(len - k);
        if ((size_t)depth[i] > skf_limits_value(&doc->limits, SKF_LIMIT_NODE_DEPTH)) {
            char pl[SKFI_PLACE_MAX];
            skfi_place(pl, "nodes[%zu]", i);
            st = skfi_fail(p, SKF_ERR_LIMIT, pl, "node depth %d exceeds %s", depth[i],
                           skf_limits_exceeded(&doc->limits, SKF_LIMIT_NODE_DEPTH).text);
        }
    }
    skf_free(depth);
    skf_free(mark);
    skf_free(stack);
    return st;
}

/* ---- skins -------------------------------------------------------------- */

static skf_status parse_skins_seen(skfi_parser *p, json_t *arr, int *seen)
{
    skf_gltf *doc = p->doc;
    skf_status st;
    doc->skins = skfi_alloc_top(p, arr, "skins", sizeof *doc->skins, &doc->skin_count, &st);
    for (size_t i = 0; i < doc->skin_count; ++i) {
        char place[SKFI_PLACE_MAX];
        json_t *o;
        if ((st = skfi_get_element(p, arr, "skins", i, place, &o)))
            return st;
        skf_gltf_skin *s = &doc->skins[i];
        json_t *joints;
        if ((st = skfi_get_string(p, o, "name", place, &s->name)) ||
            (st = skfi_get_index(p, o, "inverseBindMatrices", place, doc->accessor_count,
                                 "accessors", false, &s->inverse_bind_matrices)) ||
            (st = skfi_get_index(p, o, "skeleton", place, doc->node_count, "nodes", false,
                                 &s->skeleton)) ||
            (st = skfi_get_array(p, o, "joints", place, true, &joints)))
            return st;
        size_t nj = json_array_size(joints);
        if (!nj)
            return skfi_fail_at(p, SKF_ERR_FORMAT, place, "joints",
                                "empty (at least one joint required)");
        s->joints = skf_malloc_array(nj, sizeof *s->joints);
        if (!s->joints)
            return skfi_nomem(p, place);
        for (size_t j = 0; j < nj; ++j) {
            char pl[SKFI_PLACE_MAX];
            skfi_place(pl, "%s.joints[%zu]", place, j);
            int node;
            if ((st = skfi_check_index(p, json_array_get(joints, j), pl, doc->node_count, "nodes",
                                       &node)))
                return st;
            s->joints[s->joint_count++] = node;
        }
        /* duplicate joints; `seen` is all -1 between skins (entries reset below) */
        for (size_t j = 0; j < nj && !st; ++j) {
            int node = s->joints[j];
            if (seen[node] >= 0) {
                char pl[SKFI_PLACE_MAX];
                skfi_place(pl, "%s.joints[%zu]", place, j);
                st = skfi_fail(p, SKF_ERR_FORMAT, pl, "node %d is already joints[%d]", node,
                               seen[node]);
            }
            seen[node] = (int)j;
        }
        for (size_t j = 0; j < nj; ++j)
            seen[s->joints[j]] = -1;
        if (st)
            return st;
        if (s->inverse_bind_matrices >= 0) {
            char pl[SKFI_PLACE_MAX];
            skfi_place(pl, "%s.inverseBindMatrices", place);
            int acc = s->inverse_bind_matrices;
            if ((st = check_usage(p, acc, pl, 16, 4, CT_F)) || (st = check_values(p, acc, pl, true)))
                return st;
            if (doc->accessors[acc].count < nj)
                return skfi_fail(p, SKF_ERR_FORMAT, pl,
                                 "accessors[%d] has %zu matrices for %zu joints", acc,
                                 doc->accessors[acc].count, nj);
            double *m;
            if ((st = decode(p, acc, pl, &m)))
                return st;
            for (size_t j = 0; j < nj && !st; ++j) {
                const double *a = m + 16 * j;
                /* determinant of the 3x3 part, relative to its column lengths */
                double det = a[0] * (a[5] * a[10] - a[9] * a[6]) -
                             a[4] * (a[1] * a[10] - a[9] * a[2]) +
                             a[8] * (a[1] * a[6] - a[5] * a[2]);
                double c0 = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
                double c1 = sqrt(a[4] * a[4] + a[5] * a[5] + a[6] * a[6]);
                double c2 = sqrt(a[8] * a[8] + a[9] * a[9] + a[10] * a[10]);
                if (!(fabs(det) > 1e-12 * c0 * c1 * c2) || det == 0) {
                    const char *jn = doc->nodes[s->joints[j]].name;
                    st = skfi_fail(
                        p, SKF_ERR_NUMERIC, pl,
                        "matrix %zu (joint %zu = nodes[%d]%s%.60s%s) is singular (det %g)", j, j,
                        s->joints[j], jn ? " '" : "", jn ? jn : "", jn ? "'" : "", det);
                }
            }
            skf_free(m);
            if (st)
                return st;
        }
    }
    return SKF_OK;
}

static skf_status parse_skins(skfi_parser *p, json_t *arr)
{
    size_t nn = p->doc->node_count;
    int *seen = skf_malloc_array(nn ? nn : 1, sizeof *seen);
    if (!seen)
        return skfi_nomem(p, "skins");
    for (size_t k = 0; k < nn; ++k)
        seen[k] = -1;
    skf_status st = parse_skins_seen(p, arr, seen);
    skf_free(seen);
    return st;
}

/* Nodes that bind a mesh to a skin: joint indices must be < joint count.
 * The largest joint index per mesh is computed once, so this stays linear. */
static skf_status check_skinned_nodes(skfi_parser *p)
{
    skf_gltf *doc = p->doc;
    int64_t *mesh_max = skf_malloc_array(doc->mesh_count ? doc->mesh_count : 1, sizeof *mesh_max);
    if (!mesh_max)
        return skfi_nomem(p, "nodes");
    for (size_t m = 0; m < doc->mesh_count; ++m)
        mesh_max[m] = -2;   /* -2: not computed, -1: no JOINTS_n */
    skf_status st = SKF_OK;
    for (size_t i = 0; i < doc->node_count && !st; ++i) {
        const skf_gltf_node *nd = &doc->nodes[i];
        if (nd->skin >= 0 && nd->mesh < 0)
            skf_warn(p->warn, "%s: nodes[%zu].skin: node has a skin but no mesh", p->name, i);
        if (nd->skin < 0 || nd->mesh < 0)
            continue;
        const skf_gltf_mesh *m = &doc->meshes[nd->mesh];
        size_t nj = doc->skins[nd->skin].joint_count;
        bool compute = mesh_max[nd->mesh] == -2;
        if (!compute && mesh_max[nd->mesh] < (int64_t)nj)
            continue;
        if (compute)
            mesh_max[nd->mesh] = -1;
        char what[64];
        skfi_place(what, "joints in skins[%d]", nd->skin);
        for (size_t j = 0; j < m->primitive_count && !st; ++j) {
            const skf_gltf_primitive *pr = &m->primitives[j];
            for (size_t k = 0; k < pr->attribute_count && !st; ++k) {
                if (!attr_is(pr->attributes[k].name, "JOINTS_"))
                    continue;
                char pl[SKFI_PLACE_MAX];
                skfi_place(pl, "meshes[%d].primitives[%zu].attributes.%.64s", nd->mesh, j,
                           pr->attributes[k].name);
                int64_t amax;
                if ((st = accessor_max(p, pr->attributes[k].accessor, pl, &amax)))
                    break;
                if (amax > mesh_max[nd->mesh])
                    mesh_max[nd->mesh] = amax;
                if (amax >= (int64_t)nj)
                    st = check_uint_below(p, pr->attributes[k].accessor, pl, nj, "joint index",
                                          what);
            }
        }
    }
    skf_free(mesh_max);
    return st;
}

/* ---- animations --------------------------------------------------------- */

static skf_status check_key_times(skfi_parser *p, int acc, const char *place)
{
    if (p->acc_flags[acc] & ACC_INCREASING)
        return SKF_OK;
    double *t;
    skf_status st = decode(p, acc, place, &t);
    if (st)
        return st;
    size_t n = p->doc->accessors[acc].count;
    for (size_t k = 1; k < n && !st; ++k)
        if (!(t[k] > t[k - 1]))
            st = skfi_fail(p, SKF_ERR_FORMAT, place,
                           "key times not increasing: key %zu at %.9g s, key %zu at %.9g s", k - 1,
                           t[k - 1], k, t[k]);
    if (!st && n && t[0] < 0)
        st = skfi_fail(p, SKF_ERR_FORMAT, place, "negative key time %.9g s", t[0]);
    skf_free(t);
    if (!st)
        p->acc_flags[acc] |= ACC_INCREASING;
    return st;
}

static skf_status parse_animation(skfi_parser *p, json_t *o, const char *place,
                                  skf_gltf_animation *an)
{
    skf_gltf *doc = p->doc;
    json_t *samplers, *channels;
    skf_status st;
    if (!json_is_object(o))
        return skfi_fail(p, SKF_ERR_FORMAT, place, "expected an object");
    if ((st = skfi_get_string(p, o, "name", place, &an->name)) ||
        (st = skfi_get_array(p, o, "samplers", place, true, &samplers)) ||
        (st = skfi_get_array(p, o, "channels", place, true, &channels)))
        return st;
    size_t ns = json_array_size(samplers), nc = json_array_size(channels);
    an->samplers = skf_calloc(ns ? ns : 1, sizeof *an->samplers);
    an->channels = skf_calloc(nc ? nc : 1, sizeof *an->channels);
    if (!an->samplers || !an->channels)
        return skfi_nomem(p, place);
    for (size_t s = 0; s < ns; ++s) {
        char pl[SKFI_PLACE_MAX];
        skfi_place(pl, "%s.samplers[%zu]", place, s);
        json_t *so = json_array_get(samplers, s);
        if (!json_is_object(so))
            return skfi_fail(p, SKF_ERR_FORMAT, pl, "expected an object");
        skf_gltf_sampler *sm = &an->samplers[s];
        json_t *interp;
        if ((st = skfi_get_index(p, so, "input", pl, doc->accessor_count, "accessors", true,
                                 &sm->input)) ||
            (st = skfi_get_index(p, so, "output", pl, doc->accessor_count, "accessors", true,
                                 &sm->output)) ||
            (st = skfi_get_typed(p, so, "interpolation", pl, JSON_STRING, "a string", false,
                                 &interp)))
            return st;
        ++an->sampler_count;
        sm->interpolation = SKF_INTERP_LINEAR;
        if (interp) {
            const char *s2 = json_string_value(interp);
            if (strcmp(s2, "LINEAR") == 0)
                sm->interpolation = SKF_INTERP_LINEAR;
            else if (strcmp(s2, "STEP") == 0)
                sm->interpolation = SKF_INTERP_STEP;
            else if (strcmp(s2, "CUBICSPLINE") == 0)
                sm->interpolation = SKF_INTERP_CUBICSPLINE;
            else {
                char pl2[SKFI_PLACE_MAX];
                skfi_place(pl2, "%s.interpolation", pl);
                return skfi_fail(p, SKF_ERR_FORMAT, pl2,
                                 "'%.40s' is not LINEAR, STEP or CUBICSPLINE", s2);
            }
        }
        char ip[SKFI_PLACE_MAX], op[SKFI_PLACE_MAX];
        skfi_place(ip, "%s.input", pl);
        skfi_place(op, "%s.output", pl);
        if ((st = check_usage(p, sm->input, ip, 1, 0, CT_F)) ||
            (st = check_values(p, sm->input, ip, false)) || (st = check_key_times(p, sm->input, ip)) ||
            (st = check_usage(p, sm->output, op, 0, 0,
                              CT_F | CT_BN | CT_UBN | CT_SN | CT_USN |
                                  (p->quantized ? CT_QUANT : 0))) ||
            (st = check_values(p, sm->output, op, true)))
            return st;
        if (sm->interpolation == SKF_INTERP_CUBICSPLINE && doc->accessors[sm->input].count < 2)
            return skfi_fail(p, SKF_ERR_FORMAT, ip, "CUBICSPLINE needs at least 2 keys");
    }
    for (size_t c = 0; c < nc; ++c) {
        char pl[SKFI_PLACE_MAX], tp[SKFI_PLACE_MAX];
        skfi_place(pl, "%s.channels[%zu]", place, c);
        skfi_place(tp, "%s.target", pl);
        json_t *co = json_array_get(channels, c);
        if (!json_is_object(co))
            return skfi_fail(p, SKF_ERR_FORMAT, pl, "expected an object");
        skf_gltf_channel *ch = &an->channels[c];
        json_t *target, *path;
        if ((st = skfi_get_index(p, co, "sampler", pl, ns, "samplers", true, &ch->sampler)) ||
            (st = skfi_get_object(p, co, "target", pl, true, &target)) ||
            (st = skfi_get_index(p, target, "node", tp, doc->node_count, "nodes", false,
                                 &ch->node)) ||
            (st = skfi_get_typed(p, target, "path", tp, JSON_STRING, "a string", true, &path)))
            return st;
        ++an->channel_count;
        const char *ps = json_string_value(path);
        int width = 3, rows = 0;
        int allowed = CT_F | (p->quantized ? CT_QUANT : 0);
        if (strcmp(ps, "translation") == 0) {
            ch->path = SKF_PATH_TRANSLATION;
        } else if (strcmp(ps, "scale") == 0) {
            ch->path = SKF_PATH_SCALE;
        } else if (strcmp(ps, "rotation") == 0) {
            ch->path = SKF_PATH_ROTATION;
            width = 4;
            allowed |= CT_BN | CT_UBN | CT_SN | CT_USN;
        } else if (strcmp(ps, "weights") == 0) {
            ch->path = SKF_PATH_WEIGHTS;
            width = 1;
            allowed |= CT_BN | CT_UBN | CT_SN | CT_USN;
        } else {
            skf_warn(p->warn, "%s: %s.path: '%.40s' is not supported; channel ignored", p->name,
                     tp, ps);
            ch->node = -1;
            ch->path = SKF_PATH_TRANSLATION;
            continue;
        }
        if (ch->node < 0)
            continue;
        const skf_gltf_sampler *sm = &an->samplers[ch->sampler];
        size_t keys = doc->accessors[sm->input].count;
        size_t per_key = 1;
        if (ch->path == SKF_PATH_WEIGHTS) {
            int mesh = doc->nodes[ch->node].mesh;
            if (mesh < 0 || mesh_targets(doc, mesh) == 0) {
                skf_warn(p->warn, "%s: %s.node: nodes[%d] has no morph targets; weights channel "
                         "ignored", p->name, tp, ch->node);
                ch->node = -1;
                continue;
            }
            per_key = mesh_targets(doc, mesh);
        }
        if (sm->interpolation == SKF_INTERP_CUBICSPLINE)
            per_key *= 3;
        char op[SKFI_PLACE_MAX];
        skfi_place(op, "%s.samplers[%d].output", place, ch->sampler);
        if ((st = check_usage(p, sm->output, op, width, rows, allowed)))
            return st;
        size_t out_count = doc->accessors[sm->output].count;
        if (keys > SIZE_MAX / per_key || out_count != keys * per_key)
            return skfi_fail(
                p, SKF_ERR_FORMAT, op,
                "accessors[%d] has %zu values for %zu keys of channels[%zu] (%s%s needs "
                "%zu per key)",
                sm->output, out_count, keys, c, ps,
                sm->interpolation == SKF_INTERP_CUBICSPLINE ? ", CUBICSPLINE" : "", per_key);
    }
    return SKF_OK;
}

static skf_status parse_animations(skfi_parser *p, json_t *arr)
{
    skf_gltf *doc = p->doc;
    skf_status st;
    doc->animations =
        skfi_alloc_top(p, arr, "animations", sizeof *doc->animations, &doc->animation_count, &st);
    for (size_t i = 0; !st && i < doc->animation_count; ++i) {
        char place[SKFI_PLACE_MAX];
        skfi_place(place, "animations[%zu]", i);
        st = parse_animation(p, json_array_get(arr, i), place, &doc->animations[i]);
    }
    return st;
}

/* ---- scenes ------------------------------------------------------------- */

static skf_status parse_scenes(skfi_parser *p, json_t *root, json_t *arr)
{
    skf_gltf *doc = p->doc;
    size_t n = json_array_size(arr);
    skf_status st;
    doc->scenes = skfi_alloc_top(p, arr, "scenes", sizeof *doc->scenes, &doc->scene_count, &st);
    if (st)
        return st;
    for (size_t i = 0; i < n; ++i) {
        char place[SKFI_PLACE_MAX];
        json_t *o;
        if ((st = skfi_get_element(p, arr, "scenes", i, place, &o)))
            return st;
        skf_gltf_scene *sc = &doc->scenes[i];
        json_t *nodes;
        if ((st = skfi_get_string(p, o, "name", place, &sc->name)) ||
            (st = skfi_get_array(p, o, "nodes", place, false, &nodes)))
            return st;
        size_t nn = json_array_size(nodes);
        sc->nodes = skf_malloc_array(nn ? nn : 1, sizeof *sc->nodes);
        if (!sc->nodes)
            return skfi_nomem(p, place);
        for (size_t k = 0; k < nn; ++k) {
            char pl[SKFI_PLACE_MAX];
            skfi_place(pl, "%s.nodes[%zu]", place, k);
            int node;
            if ((st = skfi_check_index(p, json_array_get(nodes, k), pl, doc->node_count, "nodes",
                                       &node)))
                return st;
            sc->nodes[sc->node_count++] = node;
            if (doc->nodes[node].parent >= 0)
                skf_warn(p->warn, "%s: %s: nodes[%d] is not a root (parent nodes[%d])", p->name,
                         pl, node, doc->nodes[node].parent);
        }
    }
    json_t *dflt = json_object_get(root, "scene");
    if (dflt && (st = skfi_check_index(p, dflt, "scene", n, "scenes", &doc->scene)))
        return st;
    return SKF_OK;
}

/* ---- document ----------------------------------------------------------- */

static bool string_in(json_t *arr, const char *s)
{
    for (size_t i = 0; i < json_array_size(arr); ++i) {
        json_t *v = json_array_get(arr, i);
        if (json_is_string(v) && strcmp(json_string_value(v), s) == 0)
            return true;
    }
    return false;
}

static skf_status check_asset(skfi_parser *p, json_t *root)
{
    json_t *asset, *version, *req, *used;
    skf_status st;
    if ((st = skfi_get_object(p, root, "asset", "", true, &asset)) ||
        (st = skfi_get_typed(p, asset, "version", "asset", JSON_STRING, "a string", true,
                             &version)) ||
        (st = skfi_get_array(p, root, "extensionsRequired", "", false, &req)) ||
        (st = skfi_get_array(p, root, "extensionsUsed", "", false, &used)))
        return st;
    const char *v = json_string_value(version);
    if (v[0] != '2' || v[1] != '.')
        return skfi_fail(p, SKF_ERR_FORMAT, "asset.version",
                         "'%.20s' is not supported (glTF 2.x only)", v);
    p->quantized = string_in(used, "KHR_mesh_quantization") ||
                   string_in(req, "KHR_mesh_quantization");
    static const char *unsupported[] = {"KHR_draco_mesh_compression", "EXT_meshopt_compression",
                                        "KHR_meshopt_compression", "EXT_mesh_gpu_instancing"};
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; ++i)
        if (string_in(req, unsupported[i]))
            return skfi_fail(p, SKF_ERR_FORMAT, "extensionsRequired",
                             "%s is not supported (decompress the file first)", unsupported[i]);
    return SKF_OK;
}

static skf_status reparse(skfi_parser *p)
{
    skf_gltf *doc = p->doc;
    json_t *root = doc->json;
    skfi_gltf_free_views(doc);
    static const char *keys[] = {"buffers", "bufferViews", "accessors", "meshes",
                                 "nodes",   "skins",       "animations", "scenes"};
    json_t *arr[8];
    skf_status st = check_asset(p, root);
    if (st)
        return st;
    for (int k = 0; k < 8; ++k) {
        if ((st = skfi_get_array(p, root, keys[k], "", false, &arr[k])))
            return st;
        if (json_array_size(arr[k]) > (size_t)INT_MAX)
            return skfi_fail(p, SKF_ERR_LIMIT, keys[k],
                             "more than %d elements (the reader's fixed limit: indices are int)",
                             INT_MAX);
    }
    if (json_array_size(arr[0]) != doc->buffer_count)
        return skfi_fail(p, SKF_ERR_ARGUMENT, "buffers",
                         "JSON lists %zu buffers, document holds %zu", json_array_size(arr[0]),
                         doc->buffer_count);
    for (size_t i = 0; i < doc->buffer_count; ++i) {
        char place[SKFI_PLACE_MAX];
        skfi_place(place, "buffers[%zu]", i);
        size_t len;
        if ((st = skfi_get_size(p, json_array_get(arr[0], i), "byteLength", place, 1, LLONG_MAX,
                                true, 0, &len)))
            return st;
        if (len > doc->buffers[i].size)
            return skfi_fail_at(p, SKF_ERR_FORMAT, place, "byteLength",
                                "%zu bytes declared, %zu available", len, doc->buffers[i].size);
    }
    size_t accessor_n = json_array_size(arr[2]);
    p->acc_flags = skf_calloc(accessor_n ? accessor_n : 1, 1);
    p->acc_max = skf_malloc_array(accessor_n ? accessor_n : 1, sizeof *p->acc_max);
    if (!p->acc_flags || !p->acc_max) {
        skf_free(p->acc_flags);
        skf_free(p->acc_max);
        p->acc_flags = NULL;
        p->acc_max = NULL;
        return skfi_nomem(p, "accessors");
    }
    for (size_t i = 0; i < accessor_n; ++i)
        p->acc_max[i] = -1;
    if ((st = parse_buffer_views(p, arr[1])) || (st = parse_accessors(p, arr[2])) ||
        (st = parse_meshes(p, arr[3])))
        goto done;
    p->skin_json_count = json_array_size(arr[5]);
    if ((st = parse_nodes(p, arr[4])))
        goto done;
    if ((st = parse_skins(p, arr[5])) || (st = check_skinned_nodes(p)) ||
        (st = parse_animations(p, arr[6])) || (st = parse_scenes(p, root, arr[7])))
        goto done;
done:
    skf_free(p->acc_flags);
    skf_free(p->acc_max);
    p->acc_flags = NULL;
    p->acc_max = NULL;
    if (st)
        skfi_gltf_free_views(doc);
    return st;
}

skf_status skf_gltf_reparse(skf_gltf *doc, skf_warnings *warnings, skf_error *err)
{
    skfi_parser p = {.doc = doc, .name = doc->path ? doc->path : "<memory>", .warn = warnings,
                .err = err};
    return reparse(&p);
}

/* ---- entry points ------------------------------------------------------- */

skf_status skf_gltf_load_memory_opts(const void *data, size_t size, const char *name,
                                     const char *base_dir, const skf_gltf_load_options *options,
                                     skf_gltf **out, skf_warnings *warnings, skf_error *err)
{
    *out = NULL;
    if (!name)
        name = "<memory>";
    const uint8_t *bytes = data;
    const skf_limits *limits = options ? options->limits : NULL;
    if (size > skf_limits_value(limits, SKF_LIMIT_FILE_BYTES))
        return skf_fail(err, SKF_ERR_LIMIT, "%s: %zu bytes exceed %s", name, size,
                        skf_limits_exceeded(limits, SKF_LIMIT_FILE_BYTES).text);
    skf_gltf *doc = skf_calloc(1, sizeof *doc);
    if (!doc)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", name);
    doc->scene = -1;
    if (limits)
        doc->limits = *limits;
    doc->allow_outside_refs = options && options->allow_outside_refs;
    doc->path = skf_strdup(name);
    doc->base_dir = base_dir ? skf_strdup(base_dir) : NULL;
    if (!doc->path || (base_dir && !doc->base_dir)) {
        skf_gltf_free(doc);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", name);
    }
    skfi_parser p = {.doc = doc, .name = doc->path, .options = options, .warn = warnings,
                     .err = err};
    skfi_glb glb;
    const uint8_t *json_bytes;
    size_t json_size, json_offset;
    bool is_glb = skfi_glb_is_glb(bytes, size);
    skf_status st;
    if (is_glb) {
        if ((st = skfi_glb_parse(bytes, size, doc->path, &glb, warnings, err)))
            goto fail;
        json_bytes = glb.json;
        json_size = glb.json_size;
        json_offset = glb.json_offset;
        /* Some writers pad the JSON chunk with NULs instead of spaces. */
        while (json_size && json_bytes[json_size - 1] == 0)
            --json_size;
    } else {
        size_t i = 0;
        if (size >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF)
            i = 3;
        size_t j = i;
        while (j < size && (bytes[j] == ' ' || bytes[j] == '\t' || bytes[j] == '\r' ||
                            bytes[j] == '\n'))
            ++j;
        if (size == 0) {
            st = skf_fail(err, SKF_ERR_FORMAT, "%s: byte 0: empty file", name);
            goto fail;
        }
        if (j >= size || (bytes[j] != '{' && bytes[j] != '[')) {
            unsigned magic = 0;
            for (size_t k = 0; k < 4 && k < size; ++k)
                magic |= (unsigned)bytes[k] << (8 * k);
            st = skf_fail(err, SKF_ERR_FORMAT,
                          "%s: byte 0: bad GLB magic 0x%08x (expected 'glTF'), and not JSON "
                          "either", name, magic);
            goto fail;
        }
        json_bytes = bytes + i;
        json_size = size - i;
        json_offset = i;
    }
    json_error_t je;
    bool nomem;
    json_t *root = skfi_json_loadb((const char *)json_bytes, json_size, 0, &je, &nomem);
    if (nomem) {
        st = skf_fail(err, SKF_ERR_NOMEM, "%s: JSON: out of memory", name);
        goto fail;
    }
    if (!root) {
        size_t at = json_offset + (size_t)(je.position > 0 ? je.position : 0);
        st = skf_fail(err, SKF_ERR_FORMAT, "%s: byte %zu (line %d, column %d): JSON syntax error: %s",
                      name, at, je.line, je.column, je.text);
        skf_error_set_place(err, name, NULL, (int64_t)at, NULL, -1);
        goto fail;
    }
    doc->json = root;
    if (!json_is_object(root)) {
        st = skf_fail(err, SKF_ERR_FORMAT, "%s: byte %zu: JSON root is not an object", name,
                      json_offset);
        skf_error_set_place(err, name, NULL, (int64_t)json_offset, NULL, -1);
        goto fail;
    }
    if ((st = check_asset(&p, root)) ||
        (st = skfi_load_buffers(&p, root, is_glb ? &glb : NULL, base_dir)) ||
        (st = skfi_check_image_uris(&p, root, base_dir)) ||
        (st = reparse(&p)))
        goto fail;
    *out = doc;
    return SKF_OK;
fail:
    skf_gltf_free(doc);
    return st;
}

skf_status skf_gltf_load_memory(const void *data, size_t size, const char *name,
                                const char *base_dir, skf_gltf **out, skf_warnings *warnings,
                                skf_error *err)
{
    return skf_gltf_load_memory_opts(data, size, name, base_dir, NULL, out, warnings, err);
}
