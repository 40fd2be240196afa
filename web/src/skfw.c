/* skfw — the flat C entry points of skinfit's WebAssembly build (web/skinfit.js wraps them).
 *
 * Why this file exists: the browser parses a GLB (its JSON with JSON.parse, its
 * BIN chunk as bytes) and the core must not need jansson, so the page hands the
 * parsed document to C through the builder below, which fills the same typed
 * views (skf_gltf, include/skinfit/gltf.h) that the native reader fills, with
 * the same defaults, and range-checks every index, span and accessor use that
 * the code reading them (rig.c, clip_gltf.c, gltf_accessor.c) relies on. From
 * there the page runs the library's own transfer session (skf_transfer_new,
 * skf_transfer_run_clip) and heat-map scene (skf_heatmap_*), so its figures
 * are the CLI's figures by construction, not a re-implementation.
 *
 * Compiled into the WASM module (web/CMakeLists.txt) and, unchanged, into the
 * native test program tests/web/skfw_native.c, so the two builds run the same
 * code on the same arrays.
 *
 * Conventions: every function returns 0 on success or an skf_status; the last
 * error's text is read with skfw_error_text(). Pointers handed in are copied
 * unless a comment says the call takes ownership. No global state other than
 * the last-error buffer (one per module instance; the module is single-threaded).
 */
#include "skfw.h"

#include "io/gltf_views.h"
#include "skinfit/math.h"
#include "skinfit/render.h"
#include "skinfit/report.h"
#include "skinfit/rig.h"
#include "skinfit/solve.h"
#include "skinfit/transfer.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static skf_error last_err;

const char *skfw_error_text(void) { return last_err.message; }

void skfw_set_error(const skf_error *e) { last_err = *e; }

static int fail(skf_status st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(skf_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    last_err.status = st;
    vsnprintf(last_err.message, sizeof last_err.message, fmt, ap);
    va_end(ap);
    return (int)st;
}

static int keep(skf_status st, const skf_error *e)
{
    if (st) {
        last_err = *e;
    }
    return (int)st;
}

void *skfw_alloc(size_t bytes) { return skf_malloc(bytes ? bytes : 1); }
void skfw_free(void *p) { skf_free(p); }

/* ---- document builder ------------------------------------------------------ */

skf_gltf *skfw_doc_new(const char *name, size_t buffers, size_t views, size_t accessors, size_t nodes,
                       size_t meshes, size_t skins, size_t animations)
{
    skf_gltf *d = skf_calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->scene = -1;
    d->path = skf_strdup(name ? name : "web.glb");
#define ALLOC(field, count, n)                                                                                \
    do {                                                                                                      \
        d->field = skf_calloc(n ? n : 1, sizeof *d->field);                                                   \
        if (!d->field)                                                                                        \
            goto nomem;                                                                                       \
        d->count = n;                                                                                         \
    } while (0)
    ALLOC(buffers, buffer_count, buffers);
    ALLOC(buffer_views, buffer_view_count, views);
    ALLOC(accessors, accessor_count, accessors);
    ALLOC(nodes, node_count, nodes);
    ALLOC(meshes, mesh_count, meshes);
    ALLOC(skins, skin_count, skins);
    ALLOC(animations, animation_count, animations);
#undef ALLOC
    if (!d->path)
        goto nomem;
    for (size_t i = 0; i < nodes; ++i) {
        skf_gltf_node *n = &d->nodes[i];
        n->parent = n->mesh = n->skin = -1;
        n->rotation[3] = 1;
        n->scale[0] = n->scale[1] = n->scale[2] = 1;
        skf_mat4_identity(n->matrix);
    }
    for (size_t i = 0; i < accessors; ++i)
        d->accessors[i].buffer_view = -1;
    for (size_t i = 0; i < skins; ++i)
        d->skins[i].inverse_bind_matrices = d->skins[i].skeleton = -1;
    return d;
nomem:
    skfw_doc_free(d);
    fail(SKF_ERR_NOMEM, "document: out of memory");
    return NULL;
}

void skfw_doc_free(skf_gltf *d)
{
    if (!d)
        return;
    skfi_gltf_free_views(d);
    for (size_t i = 0; i < d->buffer_count && d->buffers; ++i)
        skf_free(d->buffers[i].data);
    skf_free(d->buffers);
    skf_free(d->path);
    skf_free(d);
}

static bool in_range(long long v, size_t n) { return v >= 0 && (unsigned long long)v < n; }

int skfw_doc_buffer(skf_gltf *d, size_t i, uint8_t *data, size_t size)
{
    if (i >= d->buffer_count) {
        skf_free(data);
        return fail(SKF_ERR_ARGUMENT, "%s: buffers[%zu]: out of range", d->path, i);
    }
    d->buffers[i].data = data; /* ownership taken (skfw_alloc'ed) */
    d->buffers[i].size = size;
    return 0;
}

int skfw_doc_view(skf_gltf *d, size_t i, int buffer, size_t offset, size_t length, size_t stride)
{
    if (i >= d->buffer_view_count || !in_range(buffer, d->buffer_count))
        return fail(SKF_ERR_FORMAT, "%s: bufferViews[%zu].buffer: out of range", d->path, i);
    size_t size = d->buffers[buffer].size;
    if (offset > size || length > size - offset)
        return fail(SKF_ERR_FORMAT, "%s: bufferViews[%zu]: byteOffset %zu + byteLength %zu past the end of "
                    "buffers[%d] (%zu bytes)", d->path, i, offset, length, buffer, size);
    if (stride && (stride < 4 || stride > 252 || stride % 4))
        return fail(SKF_ERR_FORMAT, "%s: bufferViews[%zu].byteStride: %zu not in 4..252 or not a multiple of 4",
                    d->path, i, stride);
    d->buffer_views[i] = (skf_gltf_buffer_view){buffer, offset, length, stride};
    return 0;
}

static int span(const skf_gltf *d, size_t acc, int view, size_t offset, size_t count, size_t esize)
{
    if (!in_range(view, d->buffer_view_count))
        return fail(SKF_ERR_FORMAT, "%s: accessors[%zu]: bufferView %d out of range", d->path, acc, view);
    const skf_gltf_buffer_view *v = &d->buffer_views[view];
    size_t stride = v->stride ? v->stride : esize, len = v->length;
    bool ok = count > 0 && offset <= len && esize <= len - offset;
    if (ok && count > 1)
        ok = (count - 1) <= (len - offset - esize) / stride;
    if (!ok)
        return fail(SKF_ERR_FORMAT, "%s: accessors[%zu]: byteOffset %zu + count %zu x stride %zu is past the "
                    "end of bufferViews[%d] (%zu bytes)", d->path, acc, offset, count, stride, view, len);
    return 0;
}

int skfw_doc_accessor(skf_gltf *d, size_t i, int view, size_t offset, int component_type, int normalized,
                      size_t count, const char *type)
{
    if (i >= d->accessor_count)
        return fail(SKF_ERR_ARGUMENT, "%s: accessors[%zu]: out of range", d->path, i);
    skf_gltf_accessor *a = &d->accessors[i];
    a->buffer_view = view;
    a->offset = offset;
    a->component_type = component_type;
    a->normalized = normalized != 0;
    a->count = count;
    if (!type || !skfi_accessor_type(type, &a->components, &a->matrix_rows))
        return fail(SKF_ERR_FORMAT, "%s: accessors[%zu].type: unknown", d->path, i);
    if (skfi_component_size(component_type) == 0 ||
        (a->normalized && (component_type == SKF_GLTF_FLOAT || component_type == SKF_GLTF_UNSIGNED_INT)))
        return fail(SKF_ERR_FORMAT, "%s: accessors[%zu].componentType: %d not allowed", d->path, i, component_type);
    if (count == 0)
        return fail(SKF_ERR_FORMAT, "%s: accessors[%zu].count: 0", d->path, i);
    if (view >= 0)
        return span(d, i, view, offset, count, skfi_element_size(a));
    return 0;
}

int skfw_doc_sparse(skf_gltf *d, size_t i, size_t count, int indices_view, size_t indices_offset,
                    int indices_type, int values_view, size_t values_offset)
{
    if (i >= d->accessor_count)
        return fail(SKF_ERR_ARGUMENT, "%s: accessors[%zu]: out of range", d->path, i);
    skf_gltf_accessor *a = &d->accessors[i];
    if (count == 0 || count > a->count)
        return fail(SKF_ERR_FORMAT, "%s: accessors[%zu].sparse.count: %zu not in 1..%zu", d->path, i, count, a->count);
    if (indices_type != SKF_GLTF_UNSIGNED_BYTE && indices_type != SKF_GLTF_UNSIGNED_SHORT &&
        indices_type != SKF_GLTF_UNSIGNED_INT)
        return fail(SKF_ERR_FORMAT, "%s: accessors[%zu].sparse.indices.componentType: %d", d->path, i, indices_type);
    int st = span(d, i, indices_view, indices_offset, count, skfi_component_size(indices_type));
    if (!st)
        st = span(d, i, values_view, values_offset, count, skfi_element_size(a));
    if (st)
        return st;
    /* sparse indices must be strictly increasing and below count */
    const skf_gltf_buffer_view *v = &d->buffer_views[indices_view];
    const uint8_t *p = d->buffers[v->buffer].data + v->offset + indices_offset;
    size_t cs = skfi_component_size(indices_type);
    double prev = -1;
    for (size_t k = 0; k < count; ++k) {
        double x = skfi_read_component(p + k * cs, indices_type);
        if (!(x > prev) || !(x < (double)a->count))
            return fail(SKF_ERR_FORMAT, "%s: accessors[%zu].sparse.indices[%zu]: %.0f not increasing or >= count",
                        d->path, i, k, x);
        prev = x;
    }
    a->sparse = true;
    a->sparse_count = count;
    a->sparse_indices_view = indices_view;
    a->sparse_indices_offset = indices_offset;
    a->sparse_indices_type = indices_type;
    a->sparse_values_view = values_view;
    a->sparse_values_offset = values_offset;
    return 0;
}

/* trs: translation[3], rotation[4] (x y z w), scale[3]; matrix: [16] or NULL. */
int skfw_doc_node(skf_gltf *d, size_t i, const char *name, int mesh, int skin, const double *trs,
                  const double *matrix, const int *children, size_t child_count, const double *weights,
                  size_t weight_count)
{
    if (i >= d->node_count)
        return fail(SKF_ERR_ARGUMENT, "%s: nodes[%zu]: out of range", d->path, i);
    skf_gltf_node *n = &d->nodes[i];
    if (mesh != -1 && !in_range(mesh, d->mesh_count))
        return fail(SKF_ERR_FORMAT, "%s: nodes[%zu].mesh: %d out of range", d->path, i, mesh);
    if (skin != -1 && !in_range(skin, d->skin_count))
        return fail(SKF_ERR_FORMAT, "%s: nodes[%zu].skin: %d out of range", d->path, i, skin);
    n->mesh = mesh;
    n->skin = skin;
    if (name && !(n->name = skf_strdup(name)))
        return fail(SKF_ERR_NOMEM, "%s: out of memory", d->path);
    if (matrix) {
        n->has_matrix = true;
        memcpy(n->matrix, matrix, sizeof n->matrix);
    }
    if (trs) {
        memcpy(n->translation, trs, 3 * sizeof(double));
        memcpy(n->rotation, trs + 3, 4 * sizeof(double));
        memcpy(n->scale, trs + 7, 3 * sizeof(double));
        double len = sqrt(n->rotation[0] * n->rotation[0] + n->rotation[1] * n->rotation[1] +
                          n->rotation[2] * n->rotation[2] + n->rotation[3] * n->rotation[3]);
        if (!(len > 0))
            return fail(SKF_ERR_FORMAT, "%s: nodes[%zu].rotation: zero quaternion", d->path, i);
        for (int k = 0; k < 4; ++k)
            n->rotation[k] /= len;
    }
    for (int k = 0; k < 16; ++k)
        if (!isfinite(n->matrix[k]) || (k < 10 && !isfinite(trs ? trs[k] : 0)))
            return fail(SKF_ERR_FORMAT, "%s: nodes[%zu]: non-finite transform", d->path, i);
    if (child_count) {
        n->children = skf_malloc_array(child_count, sizeof *n->children);
        if (!n->children)
            return fail(SKF_ERR_NOMEM, "%s: out of memory", d->path);
        for (size_t c = 0; c < child_count; ++c) {
            int ch = children[c];
            if (!in_range(ch, d->node_count) || (size_t)ch == i)
                return fail(SKF_ERR_FORMAT, "%s: nodes[%zu].children[%zu]: %d out of range or the node itself",
                            d->path, i, c, ch);
            if (d->nodes[ch].parent >= 0)
                return fail(SKF_ERR_FORMAT, "%s: nodes[%zu].children[%zu]: node %d already has parent nodes[%d]",
                            d->path, i, c, ch, d->nodes[ch].parent);
            d->nodes[ch].parent = (int)i;
            n->children[n->child_count++] = ch;
        }
    }
    if (weight_count) {
        n->weights = skf_malloc_array(weight_count, sizeof *n->weights);
        if (!n->weights)
            return fail(SKF_ERR_NOMEM, "%s: out of memory", d->path);
        memcpy(n->weights, weights, weight_count * sizeof *weights);
        n->weight_count = weight_count;
    }
    return 0;
}

int skfw_doc_mesh(skf_gltf *d, size_t i, const char *name, size_t primitive_count, const double *weights,
                  size_t weight_count)
{
    if (i >= d->mesh_count)
        return fail(SKF_ERR_ARGUMENT, "%s: meshes[%zu]: out of range", d->path, i);
    skf_gltf_mesh *m = &d->meshes[i];
    if ((name && !(m->name = skf_strdup(name))) ||
        !(m->primitives = skf_calloc(primitive_count ? primitive_count : 1, sizeof *m->primitives)))
        return fail(SKF_ERR_NOMEM, "%s: out of memory", d->path);
    m->primitive_count = primitive_count;
    for (size_t p = 0; p < primitive_count; ++p) {
        m->primitives[p].indices = -1;
        m->primitives[p].mode = 4;
    }
    if (weight_count) {
        if (!(m->weights = skf_malloc_array(weight_count, sizeof *m->weights)))
            return fail(SKF_ERR_NOMEM, "%s: out of memory", d->path);
        memcpy(m->weights, weights, weight_count * sizeof *weights);
        m->weight_count = weight_count;
    }
    return 0;
}

/* attribute names separated by '\n' (one per accessor in attr_accessors);
 * targets: [target_count*3] POSITION, NORMAL, TANGENT accessors (-1 absent). */
int skfw_doc_primitive(skf_gltf *d, size_t m, size_t p, int indices, int mode, const char *attr_names,
                       const int *attr_accessors, size_t attr_count, const int *targets, size_t target_count)
{
    if (m >= d->mesh_count || p >= d->meshes[m].primitive_count)
        return fail(SKF_ERR_ARGUMENT, "%s: meshes[%zu].primitives[%zu]: out of range", d->path, m, p);
    skf_gltf_primitive *pr = &d->meshes[m].primitives[p];
    if (indices != -1 && !in_range(indices, d->accessor_count))
        return fail(SKF_ERR_FORMAT, "%s: meshes[%zu].primitives[%zu].indices: out of range", d->path, m, p);
    if (mode < 0 || mode > 6)
        return fail(SKF_ERR_FORMAT, "%s: meshes[%zu].primitives[%zu].mode: %d", d->path, m, p, mode);
    pr->indices = indices;
    pr->mode = mode;
    pr->attributes = skf_calloc(attr_count ? attr_count : 1, sizeof *pr->attributes);
    pr->targets = skf_calloc(target_count ? target_count : 1, sizeof *pr->targets);
    if (!pr->attributes || !pr->targets)
        return fail(SKF_ERR_NOMEM, "%s: out of memory", d->path);
    const char *s = attr_names;
    for (size_t k = 0; k < attr_count; ++k) {
        const char *e = strchr(s, '\n');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        char *nm = skf_malloc(len + 1);
        if (!nm)
            return fail(SKF_ERR_NOMEM, "%s: out of memory", d->path);
        memcpy(nm, s, len);
        nm[len] = 0;
        pr->attributes[k].name = nm;
        pr->attributes[k].accessor = attr_accessors[k];
        pr->attribute_count = k + 1;
        if (!in_range(attr_accessors[k], d->accessor_count))
            return fail(SKF_ERR_FORMAT, "%s: meshes[%zu].primitives[%zu].attributes.%s: out of range", d->path, m, p,
                        nm);
        s = e ? e + 1 : s + len;
    }
    for (size_t k = 0; k < target_count; ++k) {
        int *t = (int[3]){targets[3 * k], targets[3 * k + 1], targets[3 * k + 2]};
        for (int c = 0; c < 3; ++c)
            if (t[c] != -1 && !in_range(t[c], d->accessor_count))
                return fail(SKF_ERR_FORMAT, "%s: meshes[%zu].primitives[%zu].targets[%zu]: out of range", d->path, m,
                            p, k);
        pr->targets[k] = (skf_gltf_morph_target){t[0], t[1], t[2]};
    }
    pr->target_count = target_count;
    return 0;
}

int skfw_doc_skin(skf_gltf *d, size_t i, const char *name, const int *joints, size_t joint_count,
                  int inverse_bind_matrices, int skeleton)
{
    if (i >= d->skin_count)
        return fail(SKF_ERR_ARGUMENT, "%s: skins[%zu]: out of range", d->path, i);
    skf_gltf_skin *s = &d->skins[i];
    if ((name && !(s->name = skf_strdup(name))) ||
        !(s->joints = skf_malloc_array(joint_count ? joint_count : 1, sizeof *s->joints)))
        return fail(SKF_ERR_NOMEM, "%s: out of memory", d->path);
    for (size_t k = 0; k < joint_count; ++k) {
        if (!in_range(joints[k], d->node_count))
            return fail(SKF_ERR_FORMAT, "%s: skins[%zu].joints[%zu]: out of range", d->path, i, k);
        s->joints[k] = joints[k];
    }
    s->joint_count = joint_count;
    if (inverse_bind_matrices != -1) {
        if (!in_range(inverse_bind_matrices, d->accessor_count))
            return fail(SKF_ERR_FORMAT, "%s: skins[%zu].inverseBindMatrices: out of range", d->path, i);
        const skf_gltf_accessor *a = &d->accessors[inverse_bind_matrices];
        if (a->components != 16 || a->component_type != SKF_GLTF_FLOAT || a->count < joint_count)
            return fail(SKF_ERR_FORMAT, "%s: skins[%zu].inverseBindMatrices: not %zu float MAT4", d->path, i,
                        joint_count);
    }
    if (skeleton != -1 && !in_range(skeleton, d->node_count))
        return fail(SKF_ERR_FORMAT, "%s: skins[%zu].skeleton: out of range", d->path, i);
    s->inverse_bind_matrices = inverse_bind_matrices;
    s->skeleton = skeleton;
    return 0;
}

/* samplers: [sampler_count*3] input, output, interpolation (0 LINEAR, 1 STEP, 2 CUBICSPLINE);
 * channels: [channel_count*3] sampler, node (-1: none), path (0 T, 1 R, 2 S, 3 weights). */
int skfw_doc_animation(skf_gltf *d, size_t i, const char *name, const int *samplers, size_t sampler_count,
                       const int *channels, size_t channel_count)
{
    if (i >= d->animation_count)
        return fail(SKF_ERR_ARGUMENT, "%s: animations[%zu]: out of range", d->path, i);
    skf_gltf_animation *an = &d->animations[i];
    if ((name && !(an->name = skf_strdup(name))) ||
        !(an->samplers = skf_calloc(sampler_count ? sampler_count : 1, sizeof *an->samplers)) ||
        !(an->channels = skf_calloc(channel_count ? channel_count : 1, sizeof *an->channels)))
        return fail(SKF_ERR_NOMEM, "%s: out of memory", d->path);
    for (size_t k = 0; k < sampler_count; ++k) {
        int in = samplers[3 * k], out = samplers[3 * k + 1], ip = samplers[3 * k + 2];
        if (!in_range(in, d->accessor_count) || !in_range(out, d->accessor_count) || ip < 0 || ip > 2)
            return fail(SKF_ERR_FORMAT, "%s: animations[%zu].samplers[%zu]: out of range", d->path, i, k);
        const skf_gltf_accessor *ai = &d->accessors[in];
        if (ai->components != 1 || ai->component_type != SKF_GLTF_FLOAT)
            return fail(SKF_ERR_FORMAT, "%s: animations[%zu].samplers[%zu].input: not float SCALAR", d->path, i, k);
        an->samplers[k] = (skf_gltf_sampler){in, out, (skf_gltf_interp)ip};
    }
    an->sampler_count = sampler_count;
    for (size_t k = 0; k < channel_count; ++k) {
        int sm = channels[3 * k], node = channels[3 * k + 1], path = channels[3 * k + 2];
        if (!in_range(sm, sampler_count) || (node != -1 && !in_range(node, d->node_count)) || path < 0 || path > 3)
            return fail(SKF_ERR_FORMAT, "%s: animations[%zu].channels[%zu]: out of range", d->path, i, k);
        an->channels[k] = (skf_gltf_channel){sm, node, (skf_gltf_path)path};
    }
    an->channel_count = channel_count;
    return 0;
}

/* After every part is set: the hierarchy has no cycle (every chain of parents ends at a root
 * within node_count steps), and the attributes the rig reads have the types it assumes. */
int skfw_doc_finish(skf_gltf *d)
{
    for (size_t i = 0; i < d->node_count; ++i) {
        size_t steps = 0;
        for (int p = d->nodes[i].parent; p >= 0; p = d->nodes[p].parent)
            if (++steps > d->node_count)
                return fail(SKF_ERR_FORMAT, "%s: nodes[%zu]: cycle in the node hierarchy", d->path, i);
        if (steps > SKF_GLTF_MAX_NODE_DEPTH)
            return fail(SKF_ERR_LIMIT, "%s: nodes[%zu]: hierarchy deeper than %d", d->path, i,
                        SKF_GLTF_MAX_NODE_DEPTH);
    }
    for (size_t m = 0; m < d->mesh_count; ++m)
        for (size_t p = 0; p < d->meshes[m].primitive_count; ++p) {
            const skf_gltf_primitive *pr = &d->meshes[m].primitives[p];
            size_t nv = 0;
            for (size_t k = 0; k < pr->attribute_count; ++k)
                if (!strcmp(pr->attributes[k].name, "POSITION")) {
                    const skf_gltf_accessor *a = &d->accessors[pr->attributes[k].accessor];
                    if (a->components != 3 || a->matrix_rows || a->component_type != SKF_GLTF_FLOAT)
                        return fail(SKF_ERR_FORMAT, "%s: meshes[%zu].primitives[%zu].attributes.POSITION: not float VEC3",
                                    d->path, m, p);
                    nv = a->count;
                }
            for (size_t k = 0; k < pr->attribute_count; ++k) {
                const char *nm = pr->attributes[k].name;
                const skf_gltf_accessor *a = &d->accessors[pr->attributes[k].accessor];
                bool j = !strncmp(nm, "JOINTS_", 7), w = !strncmp(nm, "WEIGHTS_", 8);
                if ((j || w) && (a->components != 4 || a->matrix_rows || a->count != nv))
                    return fail(SKF_ERR_FORMAT, "%s: meshes[%zu].primitives[%zu].attributes.%s: not VEC4 x %zu",
                                d->path, m, p, nm, nv);
                if (j && (a->normalized || (a->component_type != SKF_GLTF_UNSIGNED_BYTE &&
                                            a->component_type != SKF_GLTF_UNSIGNED_SHORT)))
                    return fail(SKF_ERR_FORMAT, "%s: meshes[%zu].primitives[%zu].attributes.%s: not unsigned byte/short",
                                d->path, m, p, nm);
            }
            if (pr->indices >= 0) {
                const skf_gltf_accessor *a = &d->accessors[pr->indices];
                if (a->components != 1 || a->normalized || (a->component_type != SKF_GLTF_UNSIGNED_BYTE &&
                    a->component_type != SKF_GLTF_UNSIGNED_SHORT && a->component_type != SKF_GLTF_UNSIGNED_INT))
                    return fail(SKF_ERR_FORMAT, "%s: meshes[%zu].primitives[%zu].indices: not unsigned SCALAR",
                                d->path, m, p);
                uint32_t *idx = skf_malloc_array(a->count, sizeof *idx);
                if (!idx)
                    return fail(SKF_ERR_NOMEM, "%s: out of memory", d->path);
                skf_error e;
                skf_status st = skf_gltf_accessor_read_uint(d, pr->indices, idx, &e);
                size_t bad = SIZE_MAX;
                for (size_t k = 0; !st && k < a->count && bad == SIZE_MAX; ++k)
                    if (idx[k] >= nv)
                        bad = k;
                skf_free(idx);
                if (st)
                    return keep(st, &e);
                if (bad != SIZE_MAX)
                    return fail(SKF_ERR_FORMAT, "%s: meshes[%zu].primitives[%zu].indices[%zu]: >= %zu vertices",
                                d->path, m, p, bad, nv);
            }
            for (size_t t = 0; t < pr->target_count; ++t) {
                int acc = pr->targets[t].position;
                if (acc >= 0 && (d->accessors[acc].components != 3 || d->accessors[acc].count != nv))
                    return fail(SKF_ERR_FORMAT, "%s: meshes[%zu].primitives[%zu].targets[%zu].POSITION: not VEC3 x %zu",
                                d->path, m, p, t, nv);
            }
        }
    return 0;
}

/* ---- transfer ------------------------------------------------------------- */

struct skfw_result {
    skf_transfer_info info;
    skf_transfer_clip clip;
    skf_transfer *session;
};

typedef struct progress_box {
    skfw_progress_fn fn;
} progress_box;

static int progress_cb(void *user, double fraction, const char *what)
{
    const progress_box *b = user;
    return b->fn(fraction, what);
}

skfw_result *skfw_transfer(const skf_gltf *source, const skf_gltf *target, const char *clip, int mode,
                           size_t max_constraints, skfw_progress_fn progress)
{
    skfw_result *r = skf_calloc(1, sizeof *r);
    if (!r) {
        fail(SKF_ERR_NOMEM, "transfer: out of memory");
        return NULL;
    }
    skf_transfer_options o;
    memset(&o, 0, sizeof o);
    o.mode = mode;
    o.max_constraints = max_constraints;
    o.threads = 1;
    o.vertex_output = true; /* the heat-map scene draws the transfer's own per-vertex errors */
    skf_error e;
    skf_status st = skf_transfer_new(source, target, &o, &r->session, NULL, &e);
    if (!st) {
        skf_transfer_get_info(r->session, &r->info);
        progress_box box = {progress};
        skf_progress pg = {progress_cb, &box};
        st = skf_transfer_run_clip(r->session, clip, &r->clip, progress ? &pg : NULL, &e);
    }
    if (st) {
        keep(st, &e);
        skfw_result_free(r);
        return NULL;
    }
    return r;
}

void skfw_result_free(skfw_result *r)
{
    if (!r)
        return;
    skf_transfer_clip_release(&r->clip);
    skf_transfer_free(r->session);
    skf_free(r);
}

static const skf_transfer_metrics *run_of(const skfw_result *r, int run)
{
    return run == 0 ? &r->clip.control : run == 1 ? &r->clip.free : &r->clip.rotation_only;
}

/* figures: [8] quality, mean_error_pct, max_error_pct, sweeps_per_frame, iterations_per_frame,
 * frames_at_cap, max_length_error, present (1/0). run: 0 control, 1 free, 2 rotation-only. */
void skfw_result_figures(const skfw_result *r, int run, double *out)
{
    const skf_transfer_metrics *m = run_of(r, run);
    double v[8] = {m->quality, m->mean_error_pct, m->max_error_pct, m->sweeps_per_frame, m->iterations_per_frame,
                   (double)m->frames_at_cap, m->max_length_error, m->present ? 1 : 0};
    memcpy(out, v, sizeof v);
}

/* what: 0 quality, 1 mean %, 2 max % per frame: [frames] owned by the result (NULL when not run). */
const double *skfw_result_frame_series(const skfw_result *r, int run, int what)
{
    const skf_transfer_metrics *m = run_of(r, run);
    return what == 0 ? m->frame_quality : what == 1 ? m->frame_mean_pct : m->frame_max_pct;
}

/* info: [10] frames, fps, start, duration, target joints, constraints, source welded,
 * target welded, source diagonal, target diagonal. */
void skfw_result_info(const skfw_result *r, double *out)
{
    double v[10] = {(double)r->clip.frames, r->clip.fps, r->clip.start, r->clip.duration,
                    (double)r->clip.joint_count, (double)r->info.constraints, (double)r->info.source_welded,
                    (double)r->info.target_welded, r->info.source_diagonal, r->info.target_diagonal};
    memcpy(out, v, sizeof v);
}

const char *skfw_result_clip_name(const skfw_result *r) { return r->clip.name; }
/* [frames*joints*12] (solve.h 3x4 layout); run 1 free, 2 rotation-only. */
const double *skfw_result_transforms(const skfw_result *r, int run)
{
    return run == 2 ? r->clip.rotonly_transforms : r->clip.free_transforms;
}
/* The baked local TRS: which 0 translation [F*B*3], 1 rotation [F*B*4], 2 scale [F*B*3]. */
const double *skfw_result_trs(const skfw_result *r, int which)
{
    return which == 0 ? r->clip.translation : which == 1 ? r->clip.rotation : r->clip.scale;
}
/* [joints] 1 when the joint is animated (carries weight on the constraints). */
int skfw_result_animated(const skfw_result *r, size_t joint) { return r->clip.animated[joint] ? 1 : 0; }

/* ---- heat-map scene (skinfit render's panels, from what the transfer returned) -- */

/* The ground truth of r's clip (r must come from skfw_transfer, which asks for vertex output). */
skf_heatmap *skfw_scene_new(const skfw_result *r)
{
    skf_heatmap *h = NULL;
    skf_error e;
    skf_status st = skf_heatmap_new(&r->clip, &h, &e);
    if (st) {
        keep(st, &e);
        return NULL;
    }
    return h;
}

void skfw_scene_free(skf_heatmap *h) { skf_heatmap_free(h); }

/* Add run (0 control, 1 free, 2 rotation-only) of r as a panel. */
int skfw_scene_add(skf_heatmap *h, const char *label, const skfw_result *r, int run)
{
    skf_error e;
    skf_report_run rr = run == 0 ? SKF_REPORT_CONTROL : run == 1 ? SKF_REPORT_FREE : SKF_REPORT_ROTATION_ONLY;
    return keep(skf_heatmap_add_run(h, label, &r->clip, rr, run == 0 ? NULL : &r->info.alignment, &e), &e);
}

size_t skfw_scene_frames(const skf_heatmap *h) { return skf_heatmap_frame_count(h); }
size_t skfw_scene_rigs(const skf_heatmap *h) { return skf_heatmap_rig_count(h); }

/* Panel p (0 = ground truth, k = run k-1): vertex and triangle counts, and per-frame world
 * positions [N*3] and triangles [T*3] — pointers into the scene, valid until the next add. */
size_t skfw_scene_vertex_count(const skf_heatmap *h, size_t panel)
{
    return skf_heatmap_scene(h)->panels[panel].surface.vertex_count;
}
size_t skfw_scene_triangle_count(const skf_heatmap *h, size_t panel)
{
    return skf_heatmap_scene(h)->panels[panel].surface.triangle_count;
}
const uint32_t *skfw_scene_triangles(const skf_heatmap *h, size_t panel)
{
    return skf_heatmap_scene(h)->panels[panel].surface.triangles;
}
const double *skfw_scene_positions(const skf_heatmap *h, size_t panel, size_t frame)
{
    const skf_render_surface *s = &skf_heatmap_scene(h)->panels[panel].surface;
    return s->positions + frame * s->vertex_count * 3;
}
/* Run r's per-vertex errors of frame f over its rig's welded vertices ([vertex count], scene
 * units; 0 where the vertex is no constraint) and its diagonal. */
const double *skfw_scene_errors(const skf_heatmap *h, size_t rig, size_t frame)
{
    size_t n;
    return skf_heatmap_rig_errors(h, rig, frame, &n);
}
double skfw_scene_diagonal(const skf_heatmap *h, size_t rig) { return skf_heatmap_rig_diagonal(h, rig); }

/* Colour bins of n errors (scene units) over diagonal: bins[n] (skf_colormap_bin of 100·e/diag). */
void skfw_error_bins(size_t n, const double *errors, double diagonal, int32_t *bins)
{
    for (size_t j = 0; j < n; ++j)
        bins[j] = skf_colormap_bin(100.0 * errors[j] / diagonal);
}
uint32_t skfw_colormap_color(int bin) { return skf_colormap_color(bin); }
int skfw_colormap_bins(void) { return SKF_COLORMAP_BINS; }
