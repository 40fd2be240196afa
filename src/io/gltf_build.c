/* glTF document builder: append binary data, accessors, nodes, meshes, skins
 * and animations to a document (see include/skinfit/gltf.h, "building").
 *
 * Reference: glTF 2.0 specification (Khronos), sections 3.6 (buffers,
 * bufferViews, accessors; alignment rules in 3.6.2.4) and 3.11
 * (animations: input accessors need min/max, rotations are unit
 * quaternions, CUBICSPLINE needs at least two keys).
 *
 * All binary data goes to buffers[0], which grows by realloc; every append
 * starts 4-byte aligned (the largest glTF component is 4 bytes), so an
 * accessor at offset 0 of its own view is aligned for any component type.
 */
#include "skinfit/gltf.h"
#include "base/base_internal.h"

#include "skinfit/math.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *doc_name(const skf_gltf *doc)
{
    return doc->path ? doc->path : "(document)";
}

static json_t *top_array(skf_gltf *doc, const char *name)
{
    json_t *a = json_object_get(doc->json, name);
    if (json_is_array(a))
        return a;
    a = json_array();
    if (!a || json_object_set_new(doc->json, name, a) != 0)
        return NULL;
    return a;
}

skf_status skf_gltf_new_empty(const char *name, skf_gltf **out, skf_error *err)
{
    *out = NULL;
    const char *nm = name ? name : "(new document)";
    skf_gltf *doc = skf_calloc(1, sizeof *doc);
    if (!doc)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", nm);
    doc->scene = -1;
    doc->path = skf_strdup(nm);
    skfi_json_alloc_install();
    doc->json = json_pack("{s:{s:s,s:s}}", "asset", "version", "2.0", "generator",
                          "skinfit " SKF_VERSION_STRING);
    if (!doc->path || !doc->json) {
        skf_gltf_free(doc);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", nm);
    }
    *out = doc;
    return SKF_OK;
}

skf_status skf_gltf_json_append(skf_gltf *doc, const char *array_name, json_t *item, int *index,
                                skf_error *err)
{
    json_t *a = item ? top_array(doc, array_name) : NULL;
    if (!a || json_array_size(a) >= (size_t)INT32_MAX || json_array_append_new(a, item) != 0) {
        if (a)
            item = NULL; /* json_array_append_new releases item on failure */
        json_decref(item);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: %s: out of memory", doc_name(doc), array_name);
    }
    if (index)
        *index = (int)json_array_size(a) - 1;
    return SKF_OK;
}

/* Make sure buffers[0] exists in memory and in JSON; returns it or NULL. */
static skf_gltf_buffer *builder_buffer(skf_gltf *doc, skf_error *err)
{
    json_t *buffers = top_array(doc, "buffers");
    if (!buffers) {
        skf_fail(err, SKF_ERR_NOMEM, "%s: buffers: out of memory", doc_name(doc));
        return NULL;
    }
    if (doc->buffer_count == 0) {
        skf_gltf_buffer *b = skf_calloc(1, sizeof *b);
        json_t *jb = json_pack("{s:I}", "byteLength", (json_int_t)0);
        if (!b || !jb) {
            skf_free(b);
            json_decref(jb);
            skf_fail(err, SKF_ERR_NOMEM, "%s: buffers: out of memory", doc_name(doc));
            return NULL;
        }
        if (json_array_size(buffers) == 0) {
            if (json_array_append_new(buffers, jb) != 0) {
                skf_free(b);
                skf_fail(err, SKF_ERR_NOMEM, "%s: buffers: out of memory", doc_name(doc));
                return NULL;
            }
        } else {
            json_decref(jb);
        }
        doc->buffers = b;
        doc->buffer_count = 1;
    }
    json_t *jb = json_array_get(buffers, 0);
    if (!json_is_object(jb)) {
        skf_fail(err, SKF_ERR_FORMAT, "%s: buffers[0]: not an object", doc_name(doc));
        return NULL;
    }
    /* Its bytes live in memory now; a uri would point at stale data. */
    json_object_del(jb, "uri");
    return &doc->buffers[0];
}

skf_status skf_gltf_append_bytes(skf_gltf *doc, const void *data, size_t size, int target,
                                 int *view_index, skf_error *err)
{
    if (size == 0)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: bufferViews: cannot add an empty bufferView",
                        doc_name(doc));
    skf_gltf_buffer *b = builder_buffer(doc, err);
    if (!b)
        return err ? err->status : SKF_ERR_NOMEM;
    size_t start = (b->size + 3) & ~(size_t)3;
    if (start < b->size || size > SKF_GLTF_MAX_FILE_BYTES || start > SKF_GLTF_MAX_FILE_BYTES - size)
        return skf_fail(err, SKF_ERR_LIMIT, "%s: buffers[0]: would exceed %zu bytes",
                        doc_name(doc), SKF_GLTF_MAX_FILE_BYTES);
    size_t end = start + size;
    uint8_t *p = skf_realloc_array(b->data, end, 1);
    if (!p)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: buffers[0]: out of memory growing to %zu bytes",
                        doc_name(doc), end);
    b->data = p;
    memset(p + b->size, 0, start - b->size);
    if (data)
        memcpy(p + start, data, size);
    else
        memset(p + start, 0, size);
    b->size = end;
    json_t *jb = json_array_get(json_object_get(doc->json, "buffers"), 0);
    if (json_object_set_new(jb, "byteLength", json_integer((json_int_t)end)) != 0)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: buffers[0]: out of memory", doc_name(doc));
    json_t *view = json_pack("{s:i,s:I,s:I}", "buffer", 0, "byteOffset", (json_int_t)start,
                             "byteLength", (json_int_t)size);
    if (view && target && json_object_set_new(view, "target", json_integer(target)) != 0) {
        json_decref(view);
        view = NULL;
    }
    if (!view)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: bufferViews: out of memory", doc_name(doc));
    return skf_gltf_json_append(doc, "bufferViews", view, view_index, err);
}

static size_t component_size(int component_type)
{
    switch (component_type) {
    case SKF_GLTF_BYTE:
    case SKF_GLTF_UNSIGNED_BYTE:
        return 1;
    case SKF_GLTF_SHORT:
    case SKF_GLTF_UNSIGNED_SHORT:
        return 2;
    case SKF_GLTF_UNSIGNED_INT:
    case SKF_GLTF_FLOAT:
        return 4;
    default:
        return 0;
    }
}

static const char *type_name(int components)
{
    switch (components) {
    case 1: return "SCALAR";
    case 2: return "VEC2";
    case 3: return "VEC3";
    case 4: return "VEC4";
    case 9: return "MAT3";
    case 16: return "MAT4";
    default: return NULL;
    }
}

static json_t *number_array(const double *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; ++i)
        if (json_array_append_new(a, json_real(v[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

skf_status skf_gltf_add_accessor(skf_gltf *doc, int view, size_t byte_offset, int component_type,
                                 bool normalized, size_t count, int components,
                                 const double *min, const double *max, int *accessor_index,
                                 skf_error *err)
{
    size_t cs = component_size(component_type);
    const char *type = type_name(components);
    if (!cs || !type || count == 0 || byte_offset % cs != 0 || view < 0)
        return skf_fail(err, SKF_ERR_ARGUMENT,
                        "%s: accessors: invalid accessor (componentType %d, %d components, "
                        "count %zu, byteOffset %zu, bufferView %d)",
                        doc_name(doc), component_type, components, count, byte_offset, view);
    for (int c = 0; c < components; ++c)
        if ((min && !isfinite(min[c])) || (max && !isfinite(max[c])))
            return skf_fail(err, SKF_ERR_ARGUMENT, "%s: accessors: min/max not finite",
                            doc_name(doc));
    json_t *a = json_pack("{s:i,s:i,s:I,s:s}", "bufferView", view, "componentType",
                          component_type, "count", (json_int_t)count, "type", type);
    bool ok = a != NULL;
    if (ok && byte_offset)
        ok = json_object_set_new(a, "byteOffset", json_integer((json_int_t)byte_offset)) == 0;
    if (ok && normalized)
        ok = json_object_set_new(a, "normalized", json_true()) == 0;
    if (ok && min)
        ok = json_object_set_new(a, "min", number_array(min, components)) == 0;
    if (ok && max)
        ok = json_object_set_new(a, "max", number_array(max, components)) == 0;
    if (!ok) {
        json_decref(a);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: accessors: out of memory", doc_name(doc));
    }
    return skf_gltf_json_append(doc, "accessors", a, accessor_index, err);
}

skf_status skf_gltf_add_float_accessor(skf_gltf *doc, const float *data, size_t count,
                                       int components, int target, bool with_bounds,
                                       int *accessor_index, skf_error *err)
{
    if (!type_name(components) || count == 0 || count > SKF_GLTF_MAX_FILE_BYTES / 64)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: accessors: invalid float accessor (%zu x %d)",
                        doc_name(doc), count, components);
    size_t n = count * (size_t)components;
    double lo[16], hi[16];
    for (size_t i = 0; i < n; ++i) {
        double v = data[i];
        if (!isfinite(v))
            return skf_fail(err, SKF_ERR_ARGUMENT,
                            "%s: accessors: value %zu (element %zu) is not finite", doc_name(doc),
                            i, i / (size_t)components);
        int c = (int)(i % (size_t)components);
        if (i < (size_t)components || v < lo[c])
            lo[c] = v;
        if (i < (size_t)components || v > hi[c])
            hi[c] = v;
    }
    int view;
    skf_status st = skf_gltf_append_bytes(doc, data, n * sizeof(float), target, &view, err);
    if (st)
        return st;
    return skf_gltf_add_accessor(doc, view, 0, SKF_GLTF_FLOAT, false, count, components,
                                 with_bounds ? lo : NULL, with_bounds ? hi : NULL, accessor_index,
                                 err);
}

skf_status skf_gltf_add_uint_accessor(skf_gltf *doc, const uint32_t *data, size_t count,
                                      int components, int component_type, int target,
                                      int *accessor_index, skf_error *err)
{
    size_t cs = component_size(component_type);
    if (!type_name(components) || count == 0 || count > SKF_GLTF_MAX_FILE_BYTES / 64 ||
        (component_type != SKF_GLTF_UNSIGNED_BYTE && component_type != SKF_GLTF_UNSIGNED_SHORT &&
         component_type != SKF_GLTF_UNSIGNED_INT))
        return skf_fail(err, SKF_ERR_ARGUMENT,
                        "%s: accessors: invalid integer accessor (%zu x %d, componentType %d)",
                        doc_name(doc), count, components, component_type);
    size_t n = count * (size_t)components;
    uint32_t limit = cs == 1 ? 0xffu : cs == 2 ? 0xffffu : 0xffffffffu;
    uint8_t *packed = skf_malloc_array(n, cs);
    if (!packed)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: accessors: out of memory", doc_name(doc));
    for (size_t i = 0; i < n; ++i) {
        if (data[i] > limit) {
            skf_free(packed);
            return skf_fail(err, SKF_ERR_ARGUMENT,
                            "%s: accessors: value %u at %zu does not fit componentType %d",
                            doc_name(doc), data[i], i, component_type);
        }
        if (cs == 1) {
            packed[i] = (uint8_t)data[i];
        } else if (cs == 2) {
            uint16_t v = (uint16_t)data[i];
            memcpy(packed + 2 * i, &v, 2);
        } else {
            memcpy(packed + 4 * i, &data[i], 4);
        }
    }
    int view;
    skf_status st = skf_gltf_append_bytes(doc, packed, n * cs, target, &view, err);
    skf_free(packed);
    if (st)
        return st;
    return skf_gltf_add_accessor(doc, view, 0, component_type, false, count, components, NULL,
                                 NULL, accessor_index, err);
}

skf_status skf_gltf_add_node(skf_gltf *doc, const char *name, int parent, const double t[3],
                             const double r[4], const double s[3], int *node_index,
                             skf_error *err)
{
    json_t *nodes = top_array(doc, "nodes");
    if (!nodes)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: nodes: out of memory", doc_name(doc));
    for (int a = 0; a < 4; ++a)
        if ((a < 3 && t && !isfinite(t[a])) || (r && !isfinite(r[a])) ||
            (a < 3 && s && !isfinite(s[a])))
            return skf_fail(err, SKF_ERR_ARGUMENT, "%s: nodes: '%s': TRS is not finite",
                            doc_name(doc), name ? name : "unnamed");
    if (parent >= 0 && !json_is_object(json_array_get(nodes, (size_t)parent)))
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: nodes: parent %d out of range (%zu nodes)",
                        doc_name(doc), parent, json_array_size(nodes));
    json_t *n = json_object();
    bool ok = n != NULL;
    if (ok && name)
        ok = json_object_set_new(n, "name", json_string(name)) == 0;
    if (ok && t && (t[0] != 0 || t[1] != 0 || t[2] != 0))
        ok = json_object_set_new(n, "translation", number_array(t, 3)) == 0;
    if (ok && r && (r[0] != 0 || r[1] != 0 || r[2] != 0 || r[3] != 1))
        ok = json_object_set_new(n, "rotation", number_array(r, 4)) == 0;
    if (ok && s && (s[0] != 1 || s[1] != 1 || s[2] != 1))
        ok = json_object_set_new(n, "scale", number_array(s, 3)) == 0;
    if (!ok) {
        json_decref(n);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: nodes: out of memory", doc_name(doc));
    }
    int index;
    skf_status st = skf_gltf_json_append(doc, "nodes", n, &index, err);
    if (st)
        return st;
    json_t *list;
    if (parent >= 0) {
        json_t *p = json_array_get(nodes, (size_t)parent);
        list = json_object_get(p, "children");
        if (!json_is_array(list)) {
            list = json_array();
            if (!list || json_object_set_new(p, "children", list) != 0)
                list = NULL;
        }
    } else {
        json_t *scenes = top_array(doc, "scenes");
        json_t *sc = json_object_get(doc->json, "scene");
        size_t si = json_is_integer(sc) ? (size_t)json_integer_value(sc) : 0;
        if (scenes && json_array_size(scenes) == 0)
            json_array_append_new(scenes, json_object());
        if (scenes && !sc)
            json_object_set_new(doc->json, "scene", json_integer(0));
        json_t *scene = json_array_get(scenes, si);
        list = json_object_get(scene, "nodes");
        if (scene && !json_is_array(list)) {
            list = json_array();
            if (!list || json_object_set_new(scene, "nodes", list) != 0)
                list = NULL;
        }
    }
    if (!list || json_array_append_new(list, json_integer(index)) != 0)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: nodes[%d]: out of memory linking the node",
                        doc_name(doc), index);
    if (node_index)
        *node_index = index;
    return SKF_OK;
}

skf_status skf_gltf_add_mesh(skf_gltf *doc, const char *name, const char *const *attribute_names,
                             const int *attribute_accessors, size_t attribute_count, int indices,
                             int *mesh_index, skf_error *err)
{
    json_t *attrs = json_object();
    bool ok = attrs != NULL;
    for (size_t i = 0; ok && i < attribute_count; ++i)
        ok = json_object_set_new(attrs, attribute_names[i],
                                 json_integer(attribute_accessors[i])) == 0;
    json_t *prim = ok ? json_pack("{s:o,s:i}", "attributes", attrs, "mode", 4) : NULL;
    if (!ok)
        json_decref(attrs);
    ok = prim != NULL;
    if (ok && indices >= 0)
        ok = json_object_set_new(prim, "indices", json_integer(indices)) == 0;
    json_t *mesh = ok ? json_pack("{s:[o]}", "primitives", prim) : NULL;
    if (!ok)
        json_decref(prim);
    ok = mesh != NULL;
    if (ok && name)
        ok = json_object_set_new(mesh, "name", json_string(name)) == 0;
    if (!ok) {
        json_decref(mesh);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: meshes: out of memory", doc_name(doc));
    }
    return skf_gltf_json_append(doc, "meshes", mesh, mesh_index, err);
}

skf_status skf_gltf_add_skin(skf_gltf *doc, const char *name, const int *joints,
                             size_t joint_count, int inverse_bind_matrices, int skeleton,
                             int *skin_index, skf_error *err)
{
    if (joint_count == 0)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: skins: a skin needs at least one joint",
                        doc_name(doc));
    json_t *js = json_array();
    bool ok = js != NULL;
    for (size_t i = 0; ok && i < joint_count; ++i)
        ok = json_array_append_new(js, json_integer(joints[i])) == 0;
    json_t *skin = ok ? json_pack("{s:o}", "joints", js) : NULL;
    if (!ok)
        json_decref(js);
    ok = skin != NULL;
    if (ok && name)
        ok = json_object_set_new(skin, "name", json_string(name)) == 0;
    if (ok && inverse_bind_matrices >= 0)
        ok = json_object_set_new(skin, "inverseBindMatrices",
                                 json_integer(inverse_bind_matrices)) == 0;
    if (ok && skeleton >= 0)
        ok = json_object_set_new(skin, "skeleton", json_integer(skeleton)) == 0;
    if (!ok) {
        json_decref(skin);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: skins: out of memory", doc_name(doc));
    }
    return skf_gltf_json_append(doc, "skins", skin, skin_index, err);
}

/* ---- animations ------------------------------------------------------ */

static const char *path_name(skf_gltf_path p)
{
    switch (p) {
    case SKF_PATH_TRANSLATION: return "translation";
    case SKF_PATH_ROTATION: return "rotation";
    case SKF_PATH_SCALE: return "scale";
    case SKF_PATH_WEIGHTS: return "weights";
    }
    return "?";
}

static const char *interp_name(skf_gltf_interp i)
{
    switch (i) {
    case SKF_INTERP_LINEAR: return "LINEAR";
    case SKF_INTERP_STEP: return "STEP";
    case SKF_INTERP_CUBICSPLINE: return "CUBICSPLINE";
    }
    return "?";
}

static size_t morph_target_count(const skf_gltf *doc, int node)
{
    int m = doc->nodes[node].mesh;
    if (m < 0 || (size_t)m >= doc->mesh_count || doc->meshes[m].primitive_count == 0)
        return 0;
    return doc->meshes[m].primitives[0].target_count;
}

/* Check one channel before anything is added (so a failure leaves the
 * document unchanged). */
static skf_status check_channel(const skf_gltf *doc, const char *name,
                                const skf_gltf_new_channel *c, size_t ci, skf_error *err)
{
    const char *dn = doc_name(doc);
    if (c->node < 0 || (size_t)c->node >= doc->node_count)
        return skf_fail(err, SKF_ERR_ARGUMENT,
                        "%s: animation '%s': channels[%zu].node: %d out of range (%zu nodes)", dn,
                        name, ci, c->node, doc->node_count);
    size_t width = c->path == SKF_PATH_ROTATION ? 4
                   : c->path == SKF_PATH_WEIGHTS ? morph_target_count(doc, c->node)
                                                 : 3;
    if (width == 0 || c->width != width)
        return skf_fail(err, SKF_ERR_ARGUMENT,
                        "%s: animation '%s': channels[%zu]: width %zu, expected %zu for %s of "
                        "node %d",
                        dn, name, ci, c->width, width, path_name(c->path), c->node);
    if (c->key_count == 0 || c->key_count > SKF_GLTF_MAX_FILE_BYTES / 64 ||
        (c->interpolation == SKF_INTERP_CUBICSPLINE && c->key_count < 2))
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: animation '%s': channels[%zu]: %zu keys", dn,
                        name, ci, c->key_count);
    for (size_t k = 0; k < c->key_count; ++k) {
        if (!isfinite(c->times[k]) || (k > 0 && !(c->times[k] > c->times[k - 1])))
            return skf_fail(err, SKF_ERR_ARGUMENT,
                            "%s: animation '%s': channels[%zu].times[%zu]: %g is not finite and "
                            "increasing",
                            dn, name, ci, k, (double)c->times[k]);
    }
    size_t per_key = c->interpolation == SKF_INTERP_CUBICSPLINE ? 3 * width : width;
    for (size_t i = 0; i < c->key_count * per_key; ++i)
        if (!isfinite(c->values[i]))
            return skf_fail(err, SKF_ERR_ARGUMENT,
                            "%s: animation '%s': channels[%zu].values[%zu] is not finite", dn,
                            name, ci, i);
    if (c->path == SKF_PATH_ROTATION)
        for (size_t k = 0; k < c->key_count; ++k) {
            const float *q = c->values + k * per_key + (per_key == 12 ? 4 : 0);
            double n2 = (double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
                        (double)q[3] * q[3];
            if (!(n2 > 1e-12))
                return skf_fail(err, SKF_ERR_ARGUMENT,
                                "%s: animation '%s': channels[%zu] key %zu: zero quaternion", dn,
                                name, ci, k);
        }
    return SKF_OK;
}

skf_status skf_gltf_add_animation(skf_gltf *doc, const char *name,
                                  const skf_gltf_new_channel *channels, size_t channel_count,
                                  skf_error *err)
{
    const char *dn = doc_name(doc);
    const char *nm = name ? name : "";
    if (channel_count == 0)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: animation '%s': no channels", dn, nm);
    for (size_t i = 0; i < channel_count; ++i) {
        skf_status st = check_channel(doc, nm, &channels[i], i, err);
        if (st)
            return st;
        for (size_t j = 0; j < i; ++j)
            if (channels[j].node == channels[i].node && channels[j].path == channels[i].path)
                return skf_fail(err, SKF_ERR_ARGUMENT,
                                "%s: animation '%s': channels[%zu] and [%zu] both target %s of "
                                "node %d",
                                dn, nm, j, i, path_name(channels[i].path), channels[i].node);
    }
    /* glTF forbids animating T/R/S of a node given by "matrix": re-express
     * such nodes as TRS first (fails for shear, which TRS cannot hold). */
    for (size_t i = 0; i < channel_count; ++i) {
        const skf_gltf_node *node = &doc->nodes[channels[i].node];
        if (channels[i].path == SKF_PATH_WEIGHTS || !node->has_matrix)
            continue;
        double t[3], q[4], sc[3];
        if (!skf_mat4_to_trs(node->matrix, t, q, sc, 1e-6))
            return skf_fail(err, SKF_ERR_NUMERIC,
                            "%s: nodes[%d].matrix: has shear or is singular, cannot be animated "
                            "(animation '%s')",
                            dn, channels[i].node, nm);
    }
    for (size_t i = 0; i < channel_count; ++i) {
        const skf_gltf_node *node = &doc->nodes[channels[i].node];
        if (channels[i].path == SKF_PATH_WEIGHTS || !node->has_matrix)
            continue;
        double t[3], q[4], sc[3];
        skf_mat4_to_trs(node->matrix, t, q, sc, 1e-6);
        json_t *jn = json_array_get(json_object_get(doc->json, "nodes"), (size_t)channels[i].node);
        json_t *jt = number_array(t, 3), *jq = number_array(q, 4), *js = number_array(sc, 3);
        if (!jt || !jq || !js) {
            json_decref(jt);
            json_decref(jq);
            json_decref(js);
            return skf_fail(err, SKF_ERR_NOMEM, "%s: nodes[%d]: out of memory", dn,
                            channels[i].node);
        }
        /* each set_new takes its value even when it fails: call all three */
        int bad = json_object_set_new(jn, "translation", jt) != 0;
        bad |= json_object_set_new(jn, "rotation", jq) != 0;
        bad |= json_object_set_new(jn, "scale", js) != 0;
        if (bad) {
            return skf_fail(err, SKF_ERR_NOMEM, "%s: nodes[%d]: out of memory", dn,
                            channels[i].node);
        }
        json_object_del(jn, "matrix");
    }
    int *inputs = skf_malloc_array(channel_count, sizeof *inputs);
    json_t *samplers = json_array(), *chans = json_array();
    skf_status st = SKF_OK;
    if (!inputs || !samplers || !chans) {
        st = skf_fail(err, SKF_ERR_NOMEM, "%s: animation '%s': out of memory", dn, nm);
        goto done;
    }
    for (size_t i = 0; i < channel_count && !st; ++i) {
        const skf_gltf_new_channel *c = &channels[i];
        /* Share the input accessor between channels with identical key times. */
        inputs[i] = -1;
        for (size_t j = 0; j < i; ++j)
            if (channels[j].key_count == c->key_count &&
                memcmp(channels[j].times, c->times, c->key_count * sizeof(float)) == 0) {
                inputs[i] = inputs[j];
                break;
            }
        if (inputs[i] < 0)
            st = skf_gltf_add_float_accessor(doc, c->times, c->key_count, 1, 0, true, &inputs[i],
                                             err);
        if (st)
            break;
        size_t per_key = c->interpolation == SKF_INTERP_CUBICSPLINE ? 3 * c->width : c->width;
        size_t n = c->key_count * per_key;
        const float *values = c->values;
        float *normalized = NULL;
        if (c->path == SKF_PATH_ROTATION) {
            /* Unit quaternions (value elements only; tangents are free). */
            normalized = skf_malloc_array(n, sizeof *normalized);
            if (!normalized) {
                st = skf_fail(err, SKF_ERR_NOMEM, "%s: animation '%s': out of memory", dn, nm);
                break;
            }
            memcpy(normalized, c->values, n * sizeof *normalized);
            for (size_t k = 0; k < c->key_count; ++k) {
                float *q = normalized + k * per_key + (per_key == 12 ? 4 : 0);
                double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] +
                                  (double)q[2] * q[2] + (double)q[3] * q[3]);
                for (int a = 0; a < 4; ++a)
                    q[a] = (float)(q[a] / len);
            }
            values = normalized;
        }
        int output;
        /* Morph weights are SCALAR (key_count * targets values); T/R/S are VECn. */
        bool scalar = c->path == SKF_PATH_WEIGHTS;
        st = skf_gltf_add_float_accessor(doc, values, scalar ? n : n / c->width,
                                         scalar ? 1 : (int)c->width, 0, false, &output, err);
        skf_free(normalized);
        if (st)
            break;
        json_t *s = json_pack("{s:i,s:i,s:s}", "input", inputs[i], "output", output,
                              "interpolation", interp_name(c->interpolation));
        json_t *ch = json_pack("{s:I,s:{s:i,s:s}}", "sampler", (json_int_t)i, "target", "node",
                               c->node, "path", path_name(c->path));
        /* json_array_append_new takes its value even when it fails */
        bool ok = s && ch;
        if (!ok) {
            json_decref(s);
            json_decref(ch);
        } else if (json_array_append_new(samplers, s) != 0) {
            json_decref(ch);
            ok = false;
        } else {
            ok = json_array_append_new(chans, ch) == 0;
        }
        if (!ok)
            st = skf_fail(err, SKF_ERR_NOMEM, "%s: animation '%s': out of memory", dn, nm);
    }
    if (!st) {
        json_t *anim = json_pack("{s:O,s:O}", "samplers", samplers, "channels", chans);
        if (anim && name && json_object_set_new(anim, "name", json_string(name)) != 0) {
            json_decref(anim);
            anim = NULL;
        }
        json_t *list = top_array(doc, "animations");
        size_t replace = (size_t)-1;
        for (size_t a = 0; list && name && a < json_array_size(list); ++a) {
            const char *an = json_string_value(json_object_get(json_array_get(list, a), "name"));
            if (an && strcmp(an, name) == 0) {
                replace = a;
                break;
            }
        }
        if (!anim || !list) {
            json_decref(anim);
            st = skf_fail(err, SKF_ERR_NOMEM, "%s: animation '%s': out of memory", dn, nm);
        }
        else if (replace != (size_t)-1 ? json_array_set_new(list, replace, anim) != 0
                                       : json_array_append_new(list, anim) != 0)
            st = skf_fail(err, SKF_ERR_NOMEM, "%s: animation '%s': out of memory", dn, nm);
    }
    if (!st)
        st = skf_gltf_reparse(doc, NULL, err);
done:
    skf_free(inputs);
    json_decref(samplers);
    json_decref(chans);
    return st;
}
