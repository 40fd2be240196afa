/* glTF 2.0 GLB writer with validator-driven repairs (see gltf.h,
 * skf_gltf_write_glb).
 *
 * References: glTF 2.0 specification (Khronos), section 4.4 "GLB File Format
 * Specification" (12-byte header; JSON chunk padded with spaces, BIN chunk
 * padded with zeros, both to 4 bytes; buffers[0] without uri refers to the
 * BIN chunk), 3.6.2.4 (data alignment), 3.7.3 (skins: `skeleton` is the
 * joints' closest common root or one of its ancestors), 3.7.3.3 (joint
 * weights sum to 1, not negative), 3.6.2.5 (POSITION and animation input
 * accessors carry min/max). The repairs mirror the Khronos glTF-Validator
 * issues SKIN_SKELETON_INVALID, ACCESSOR_WEIGHTS_NON_NORMALIZED,
 * ACCESSOR_WEIGHTS_NEGATIVE, *_WITHOUT_BOUNDS and ACCESSOR_MIN/MAX_MISMATCH.
 *
 * Approach: deep-copy the JSON tree, rebuild one BIN from every bufferView
 * (same order, so every index in the document stays valid), append embedded
 * images and repaired accessors at the end of their arrays, then emit. The
 * input document is not modified.
 */
#include "skinfit/gltf.h"

#include "io/assimp_internal.h"
#include "io/gltf_internal.h"
#include "base/base_internal.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Largest |sum - 1| of a vertex's weights left alone. The validator accepts
 * float rounding of a correctly normalised vertex (about 4 ulp); anything
 * above this is an authoring error worth a repair. */
#define WEIGHT_SUM_TOLERANCE 1e-6

typedef struct bin {
    uint8_t *data;
    size_t size, cap;
} bin;

typedef struct writer {
    const skf_gltf *doc;
    const char *dn;       /* document name for messages */
    json_t *root;         /* our copy */
    bin bin;
    skf_warnings *warnings;
    skf_error *err;
} writer;

static skf_status nomem(writer *w, const char *place)
{
    return skf_fail(w->err, SKF_ERR_NOMEM, "%s: %s: out of memory", w->dn, place);
}

/* Append n bytes at a 4-aligned offset; *offset receives it. */
static skf_status bin_append(writer *w, const void *data, size_t n, size_t *offset)
{
    bin *b = &w->bin;
    size_t start = (b->size + 3) & ~(size_t)3;
    if (n > UINT32_MAX || start > UINT32_MAX - n)
        return skf_fail(w->err, SKF_ERR_LIMIT, "%s: BIN chunk: exceeds the GLB limit of 4 GiB",
                        w->dn);
    size_t end = start + n;
    if (end > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < end)
            cap *= 2;
        uint8_t *p = skf_realloc_array(b->data, cap, 1);
        if (!p)
            return nomem(w, "BIN chunk");
        b->data = p;
        b->cap = cap;
    }
    memset(b->data + b->size, 0, start - b->size);
    if (n)
        memcpy(b->data + start, data, n);
    b->size = end;
    *offset = start;
    return SKF_OK;
}

/* Append bytes as a new bufferView of the output; returns its index. */
static skf_status add_view(writer *w, const void *data, size_t n, int target, int *index)
{
    size_t off = 0; /* set when st is SKF_OK; GCC 12 -O2 cannot tell (-Wmaybe-uninitialized) */
    skf_status st = bin_append(w, data, n, &off);
    if (st)
        return st;
    json_t *views = json_object_get(w->root, "bufferViews");
    if (!json_is_array(views)) {
        views = json_array();
        if (!views || json_object_set_new(w->root, "bufferViews", views) != 0)
            return nomem(w, "bufferViews");
    }
    json_t *v = json_pack("{s:i,s:I,s:I}", "buffer", 0, "byteOffset", (json_int_t)off,
                          "byteLength", (json_int_t)n);
    if (v && target && json_object_set_new(v, "target", json_integer(target)) != 0) {
        json_decref(v);
        v = NULL;
    }
    if (!v || json_array_append_new(views, v) != 0)
        return nomem(w, "bufferViews");
    *index = (int)json_array_size(views) - 1;
    return SKF_OK;
}

/* ---- buffers and views ------------------------------------------------ */

static skf_status copy_views(writer *w)
{
    const skf_gltf *doc = w->doc;
    json_t *views = json_object_get(w->root, "bufferViews");
    size_t n = json_is_array(views) ? json_array_size(views) : 0;
    if (n != doc->buffer_view_count)
        return skf_fail(w->err, SKF_ERR_ARGUMENT,
                        "%s: bufferViews: JSON has %zu, typed view %zu (call skf_gltf_reparse "
                        "after editing)",
                        w->dn, n, doc->buffer_view_count);
    for (size_t i = 0; i < n; ++i) {
        const skf_gltf_buffer_view *bv = &doc->buffer_views[i];
        if (bv->buffer < 0 || (size_t)bv->buffer >= doc->buffer_count ||
            bv->offset > doc->buffers[bv->buffer].size ||
            bv->length > doc->buffers[bv->buffer].size - bv->offset)
            return skf_fail(w->err, SKF_ERR_FORMAT,
                            "%s: bufferViews[%zu]: outside buffer %d (call skf_gltf_reparse "
                            "after editing)",
                            w->dn, i, bv->buffer);
        size_t off = 0; /* see add_view */
        skf_status st = bin_append(w, doc->buffers[bv->buffer].data + bv->offset, bv->length, &off);
        if (st)
            return st;
        json_t *v = json_array_get(views, i);
        if (json_object_set_new(v, "buffer", json_integer(0)) != 0 ||
            json_object_set_new(v, "byteOffset", json_integer((json_int_t)off)) != 0)
            return nomem(w, "bufferViews");
    }
    return SKF_OK;
}

/* ---- images ------------------------------------------------------------ */

static const char *sniff_mime(const uint8_t *d, size_t n)
{
    if (n >= 8 && memcmp(d, "\x89PNG\r\n\x1a\n", 8) == 0)
        return "image/png";
    if (n >= 3 && d[0] == 0xff && d[1] == 0xd8 && d[2] == 0xff)
        return "image/jpeg";
    if (n >= 12 && memcmp(d, "RIFF", 4) == 0 && memcmp(d + 8, "WEBP", 4) == 0)
        return "image/webp";
    if (n >= 12 && memcmp(d, "\xabKTX 20\xbb\r\n\x1a\n", 12) == 0)
        return "image/ktx2";
    return NULL;
}

static skf_status embed_images(writer *w)
{
    json_t *images = json_object_get(w->root, "images");
    size_t n = json_is_array(images) ? json_array_size(images) : 0;
    for (size_t i = 0; i < n; ++i) {
        json_t *img = json_array_get(images, i);
        const char *uri = json_string_value(json_object_get(img, "uri"));
        if (!uri)
            continue;
        uint8_t *data = NULL;
        size_t size = 0;
        const char *mime = NULL;
        char declared[64] = "";
        if (strncmp(uri, "data:", 5) == 0) {
            const char *comma = strchr(uri, ',');
            const char *b64 = comma ? strstr(uri, ";base64") : NULL;
            if (!comma || !b64 || b64 > comma) {
                skf_warn(w->warnings, "%s: images[%zu].uri: data URI is not base64; kept as a URI",
                         w->dn, i);
                continue;
            }
            size_t mlen = (size_t)(b64 - (uri + 5));
            if (mlen < sizeof declared) {
                memcpy(declared, uri + 5, mlen);
                declared[mlen] = 0;
            }
            size_t bad_at;
            if (!skfi_base64_decode(comma + 1, strlen(comma + 1), &data, &size, &bad_at)) {
                if (bad_at == SIZE_MAX)
                    return nomem(w, "images");
                skf_warn(w->warnings,
                         "%s: images[%zu].uri: invalid base64 at character %zu; kept as a URI",
                         w->dn, i, bad_at);
                continue;
            }
        } else {
            /* the reader's resolver, as strict: relative references only, no
             * scheme, nothing outside the folder unless the load allowed it */
            char *file;
            const char *why;
            skf_status rs =
                skfi_uri_to_path(uri, w->doc->base_dir, skfi_uri_flags(w->doc, NULL), &file, &why);
            if (rs == SKF_ERR_NOMEM)
                return nomem(w, "images");
            if (rs) {
                skf_warn(w->warnings,
                         "%s: images[%zu].uri: '%s' cannot be resolved (%s); kept as an external "
                         "URI", w->dn, i, uri, why);
                continue;
            }
            skf_error e;
            skf_status st = skfi_read_uri_file(w->doc->base_dir, file, skfi_uri_flags(w->doc, NULL),
                                               &w->doc->limits, &data, &size, &e);
            skf_free(file);
            if (st) {
                skf_warn(w->warnings,
                         "%s: images[%zu].uri: cannot embed '%s' (%s); kept as an external URI",
                         w->dn, i, uri, e.message);
                continue;
            }
        }
        const char *mt = json_string_value(json_object_get(img, "mimeType"));
        /* declared mimeType, else the data URI's image/ media type, else sniffed */
        mime = mt ? mt : strncmp(declared, "image/", 6) == 0 ? declared : sniff_mime(data, size);
        if (!mime || size == 0) {
            skf_free(data);
            skf_warn(w->warnings,
                     "%s: images[%zu].uri: unknown image type; kept as a URI", w->dn, i);
            continue;
        }
        int view;
        skf_status st = add_view(w, data, size, 0, &view);
        skf_free(data);
        if (st)
            return st;
        if (json_object_set_new(img, "bufferView", json_integer(view)) != 0 ||
            json_object_set_new(img, "mimeType", json_string(mime)) != 0)
            return nomem(w, "images");
        json_object_del(img, "uri");
    }
    return SKF_OK;
}

/* ---- skins ------------------------------------------------------------- */

/* The node-depth cap the document was loaded with: bounds every walk up. */
static size_t max_depth(const skf_gltf *doc)
{
    return skf_limits_value(&doc->limits, SKF_LIMIT_NODE_DEPTH);
}

static int node_depth(const skf_gltf *doc, int n)
{
    int d = 0;
    while (n >= 0 && (size_t)d <= max_depth(doc)) {
        n = doc->nodes[n].parent;
        ++d;
    }
    return d;
}

/* Lowest common ancestor-or-self of a and b, -1 when in different trees. */
static int lca(const skf_gltf *doc, int a, int b)
{
    int da = node_depth(doc, a), db = node_depth(doc, b);
    while (da > db) {
        a = doc->nodes[a].parent;
        --da;
    }
    while (db > da) {
        b = doc->nodes[b].parent;
        --db;
    }
    for (int k = 0; a != b && a >= 0 && b >= 0 && (size_t)k <= max_depth(doc); ++k) {
        a = doc->nodes[a].parent;
        b = doc->nodes[b].parent;
    }
    return a == b ? a : -1;
}

static bool is_ancestor_or_self(const skf_gltf *doc, int anc, int n)
{
    for (size_t k = 0; n >= 0 && k <= max_depth(doc); ++k, n = doc->nodes[n].parent)
        if (n == anc)
            return true;
    return false;
}

static const char *node_label(const skf_gltf *doc, int n)
{
    return n >= 0 && doc->nodes[n].name ? doc->nodes[n].name : "unnamed";
}

static skf_status repair_skins(writer *w)
{
    const skf_gltf *doc = w->doc;
    json_t *skins = json_object_get(w->root, "skins");
    for (size_t s = 0; s < doc->skin_count; ++s) {
        const skf_gltf_skin *sk = &doc->skins[s];
        if (sk->skeleton < 0 || sk->joint_count == 0)
            continue;
        int root = sk->joints[0];
        for (size_t j = 1; j < sk->joint_count && root >= 0; ++j)
            root = lca(doc, root, sk->joints[j]);
        if (root >= 0 && is_ancestor_or_self(doc, sk->skeleton, root))
            continue;
        json_t *js = json_array_get(skins, s);
        if (root >= 0) {
            if (json_object_set_new(js, "skeleton", json_integer(root)) != 0)
                return nomem(w, "skins");
            skf_warn(w->warnings,
                     "%s: skins[%zu].skeleton: node %d (%s) is not a common root of the joints; "
                     "set to their closest common root, node %d (%s)",
                     w->dn, s, sk->skeleton, node_label(doc, sk->skeleton), root,
                     node_label(doc, root));
        } else {
            json_object_del(js, "skeleton");
            skf_warn(w->warnings,
                     "%s: skins[%zu].skeleton: node %d (%s) is not a common root and the joints "
                     "share none; removed",
                     w->dn, s, sk->skeleton, node_label(doc, sk->skeleton));
        }
    }
    return SKF_OK;
}

/* ---- weights ----------------------------------------------------------- */

#define MAX_WEIGHT_SETS 8

typedef struct weight_fix {
    int sets;
    int old_acc[MAX_WEIGHT_SETS];
    int new_acc[MAX_WEIGHT_SETS];
} weight_fix;

static skf_status add_float_accessor_json(writer *w, int view, size_t count, const char *type,
                                          int *index)
{
    json_t *accs = json_object_get(w->root, "accessors");
    json_t *a = json_pack("{s:i,s:i,s:I,s:s}", "bufferView", view, "componentType",
                          SKF_GLTF_FLOAT, "count", (json_int_t)count, "type", type);
    if (!a || !json_is_array(accs) || json_array_append_new(accs, a) != 0)
        return nomem(w, "accessors");
    *index = (int)json_array_size(accs) - 1;
    return SKF_OK;
}

/* Renormalise the WEIGHTS_0..n of one primitive if needed; fills fix. */
static skf_status fix_weights(writer *w, const int *acc, int sets, const char *place,
                              weight_fix *fix, bool *changed)
{
    const skf_gltf *doc = w->doc;
    *changed = false;
    size_t count = doc->accessors[acc[0]].count;
    for (int k = 0; k < sets; ++k)
        if (doc->accessors[acc[k]].components != 4 || doc->accessors[acc[k]].count != count)
            return SKF_OK; /* malformed beyond what we repair */
    if (count == 0)
        return SKF_OK;
    double *v = skf_malloc_array(count * 4 * (size_t)sets, sizeof *v);
    if (!v)
        return nomem(w, place);
    for (int k = 0; k < sets; ++k) {
        skf_status st = skf_gltf_accessor_read(doc, acc[k], v + count * 4 * (size_t)k, false,
                                               w->err);
        if (st) {
            skf_free(v);
            return st;
        }
    }
    size_t bad = 0, zero = 0;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < count; ++i) {
        double sum = 0;
        bool negative = false;
        for (int k = 0; k < sets; ++k)
            for (int c = 0; c < 4; ++c) {
                double x = v[(count * (size_t)k + i) * 4 + (size_t)c];
                if (!(x >= 0))
                    negative = true;
                else
                    sum += x;
            }
        if (negative || !(fabs(sum - 1.0) <= WEIGHT_SUM_TOLERANCE)) {
            ++bad;
            if (sum < lo)
                lo = sum;
            if (sum > hi)
                hi = sum;
        }
    }
    if (bad == 0) {
        skf_free(v);
        return SKF_OK;
    }
    float *f = skf_malloc_array(count * 4 * (size_t)sets, sizeof *f);
    if (!f) {
        skf_free(v);
        return nomem(w, place);
    }
    for (size_t i = 0; i < count; ++i) {
        double sum = 0;
        for (int k = 0; k < sets; ++k)
            for (int c = 0; c < 4; ++c) {
                double *x = &v[(count * (size_t)k + i) * 4 + (size_t)c];
                if (!(*x >= 0))
                    *x = 0;
                sum += *x;
            }
        if (!(sum > 0)) {
            v[i * 4] = 1; /* all zero: give the vertex to its first joint */
            sum = 1;
            ++zero;
        }
        /* Divide, round to float, then put the float rounding residue on the
         * largest weight so the stored sum is as close to 1 as floats allow. */
        double fsum = 0;
        size_t big = i * 4;
        for (int k = 0; k < sets; ++k)
            for (int c = 0; c < 4; ++c) {
                size_t at = (count * (size_t)k + i) * 4 + (size_t)c;
                f[at] = (float)(v[at] / sum);
                fsum += f[at];
                if (f[at] > f[big])
                    big = at;
            }
        f[big] = (float)((double)f[big] + (1.0 - fsum));
    }
    skf_free(v);
    fix->sets = sets;
    for (int k = 0; k < sets; ++k) {
        int view;
        skf_status st = add_view(w, f + count * 4 * (size_t)k, count * 4 * sizeof(float), 34962,
                                 &view);
        if (!st)
            st = add_float_accessor_json(w, view, count, "VEC4", &fix->new_acc[k]);
        if (st) {
            skf_free(f);
            return st;
        }
        fix->old_acc[k] = acc[k];
    }
    skf_free(f);
    *changed = true;
    skf_warn(w->warnings,
             "%s: %s: weights of %zu of %zu vertices did not sum to 1 (sums %.6g..%.6g%s); "
             "renormalised and written as FLOAT",
             w->dn, place, bad, count, lo, hi, zero ? ", some all zero: given to joint slot 0" : "");
    return SKF_OK;
}

static skf_status repair_weights(writer *w)
{
    const skf_gltf *doc = w->doc;
    json_t *meshes = json_object_get(w->root, "meshes");
    weight_fix *fixes = NULL;
    size_t fix_count = 0;
    skf_status st = SKF_OK;
    for (size_t m = 0; m < doc->mesh_count && !st; ++m) {
        for (size_t p = 0; p < doc->meshes[m].primitive_count && !st; ++p) {
            const skf_gltf_primitive *prim = &doc->meshes[m].primitives[p];
            int acc[MAX_WEIGHT_SETS];
            int sets = 0;
            for (int k = 0; k < MAX_WEIGHT_SETS; ++k) {
                char name[32];
                snprintf(name, sizeof name, "WEIGHTS_%d", k);
                int a = -1;
                for (size_t i = 0; i < prim->attribute_count; ++i)
                    if (strcmp(prim->attributes[i].name, name) == 0)
                        a = prim->attributes[i].accessor;
                if (a < 0)
                    break;
                acc[sets++] = a;
            }
            if (sets == 0)
                continue;
            json_t *attrs = json_object_get(
                json_array_get(json_object_get(json_array_get(meshes, m), "primitives"), p),
                "attributes");
            const weight_fix *use = NULL;
            for (size_t f = 0; f < fix_count && !use; ++f)
                if (fixes[f].sets == sets && memcmp(fixes[f].old_acc, acc, sizeof(int) * (size_t)sets) == 0)
                    use = &fixes[f];
            if (!use) {
                weight_fix fx;
                bool changed;
                char place[96];
                snprintf(place, sizeof place, "meshes[%zu].primitives[%zu]", m, p);
                st = fix_weights(w, acc, sets, place, &fx, &changed);
                if (st || !changed)
                    continue;
                weight_fix *grown = skf_realloc_array(fixes, fix_count + 1, sizeof *fixes);
                if (!grown) {
                    st = nomem(w, "meshes");
                    break;
                }
                fixes = grown;
                fixes[fix_count] = fx;
                use = &fixes[fix_count++];
            }
            for (int k = 0; k < sets; ++k) {
                char name[32];
                snprintf(name, sizeof name, "WEIGHTS_%d", k);
                if (json_object_set_new(attrs, name, json_integer(use->new_acc[k])) != 0)
                    st = nomem(w, "meshes");
            }
        }
    }
    skf_free(fixes);
    return st;
}

/* ---- bounds ------------------------------------------------------------ */

static skf_status fix_bounds(writer *w, int a, const char *why, bool *done)
{
    const skf_gltf *doc = w->doc;
    if (a < 0 || (size_t)a >= doc->accessor_count || done[a])
        return SKF_OK;
    done[a] = true;
    const skf_gltf_accessor *ac = &doc->accessors[a];
    if (ac->component_type != SKF_GLTF_FLOAT || ac->count == 0 || ac->components > 16)
        return SKF_OK;
    size_t n = ac->count * (size_t)ac->components;
    double *v = skf_malloc_array(n, sizeof *v);
    if (!v)
        return nomem(w, "accessors");
    skf_status st = skf_gltf_accessor_read(doc, a, v, false, w->err);
    if (st) {
        skf_free(v);
        return st;
    }
    int c = ac->components;
    double lo[16], hi[16];
    for (int k = 0; k < c; ++k)
        lo[k] = hi[k] = v[k];
    for (size_t i = 0; i < n; ++i) {
        int k = (int)(i % (size_t)c);
        if (v[i] < lo[k])
            lo[k] = v[i];
        if (v[i] > hi[k])
            hi[k] = v[i];
    }
    skf_free(v);
    json_t *ja = json_array_get(json_object_get(w->root, "accessors"), (size_t)a);
    json_t *jmin = json_object_get(ja, "min"), *jmax = json_object_get(ja, "max");
    bool present = json_is_array(jmin) && json_is_array(jmax);
    bool ok = present && json_array_size(jmin) == (size_t)c && json_array_size(jmax) == (size_t)c;
    for (int k = 0; ok && k < c; ++k) {
        json_t *x = json_array_get(jmin, (size_t)k), *y = json_array_get(jmax, (size_t)k);
        ok = json_is_number(x) && json_is_number(y) &&
             (float)json_number_value(x) == (float)lo[k] &&
             (float)json_number_value(y) == (float)hi[k];
    }
    if (ok)
        return SKF_OK;
    json_t *nmin = json_array(), *nmax = json_array();
    bool good = nmin && nmax;
    for (int k = 0; good && k < c; ++k)
        good = json_array_append_new(nmin, json_real(lo[k])) == 0 &&
               json_array_append_new(nmax, json_real(hi[k])) == 0;
    if (!good || json_object_set_new(ja, "min", nmin) != 0) {
        json_decref(nmax);
        return nomem(w, "accessors");
    }
    if (json_object_set_new(ja, "max", nmax) != 0)
        return nomem(w, "accessors");
    skf_warn(w->warnings, "%s: accessors[%d] (%s): min/max %s; written from the data", w->dn, a,
             why, present ? "did not match the data" : "missing");
    return SKF_OK;
}

static skf_status repair_bounds(writer *w)
{
    const skf_gltf *doc = w->doc;
    bool *done = skf_calloc(doc->accessor_count ? doc->accessor_count : 1, sizeof *done);
    if (!done)
        return nomem(w, "accessors");
    skf_status st = SKF_OK;
    for (size_t m = 0; m < doc->mesh_count && !st; ++m)
        for (size_t p = 0; p < doc->meshes[m].primitive_count && !st; ++p) {
            const skf_gltf_primitive *prim = &doc->meshes[m].primitives[p];
            for (size_t i = 0; i < prim->attribute_count && !st; ++i)
                if (strcmp(prim->attributes[i].name, "POSITION") == 0)
                    st = fix_bounds(w, prim->attributes[i].accessor, "POSITION", done);
            for (size_t t = 0; t < prim->target_count && !st; ++t)
                st = fix_bounds(w, prim->targets[t].position, "morph target POSITION", done);
        }
    for (size_t a = 0; a < doc->animation_count && !st; ++a)
        for (size_t s = 0; s < doc->animations[a].sampler_count && !st; ++s)
            st = fix_bounds(w, doc->animations[a].samplers[s].input, "animation input", done);
    skf_free(done);
    return st;
}

/* ---- output ------------------------------------------------------------ */

static void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static skf_status emit(writer *w, const char *path)
{
    if (w->bin.size > 0) {
        json_t *buffers = json_pack("[{s:I}]", "byteLength", (json_int_t)w->bin.size);
        if (!buffers || json_object_set_new(w->root, "buffers", buffers) != 0)
            return nomem(w, "buffers");
    } else {
        json_object_del(w->root, "buffers");
    }
    size_t flags = JSON_COMPACT | JSON_PRESERVE_ORDER;
    skfi_json_oom_reset();
    size_t jlen = json_dumpb(w->root, NULL, 0, flags);
    if (jlen == 0 && skfi_json_oom())
        return nomem(w, "JSON");
    if (jlen == 0)
        return skf_fail(w->err, SKF_ERR_FORMAT, "%s: JSON: cannot be encoded", w->dn);
    size_t jpad = (jlen + 3) & ~(size_t)3;
    size_t bpad = (w->bin.size + 3) & ~(size_t)3;
    uint64_t total = 12 + 8 + (uint64_t)jpad + (w->bin.size ? 8 + (uint64_t)bpad : 0);
    if (total > UINT32_MAX)
        return skf_fail(w->err, SKF_ERR_LIMIT, "%s: GLB would be %llu bytes, above 4 GiB", path,
                        (unsigned long long)total);
    char *json = skf_malloc(jpad);
    if (!json)
        return nomem(w, "JSON");
    skfi_json_oom_reset();
    if (json_dumpb(w->root, json, jlen, flags) != jlen) {
        skf_free(json);
        if (skfi_json_oom())
            return nomem(w, "JSON");
        return skf_fail(w->err, SKF_ERR_FORMAT, "%s: JSON: cannot be encoded", w->dn);
    }
    memset(json + jlen, ' ', jpad - jlen);
    if (w->bin.size)
        memset(w->bin.data + w->bin.size, 0, bpad - w->bin.size); /* cap is a power of 2 >= 4096 */
    uint8_t head[20], bhead[8];
    memcpy(head, "glTF", 4);
    put_u32(head + 4, 2);
    put_u32(head + 8, (uint32_t)total);
    put_u32(head + 12, (uint32_t)jpad);
    memcpy(head + 16, "JSON", 4);
    put_u32(bhead, (uint32_t)bpad);
    memcpy(bhead + 4, "BIN\0", 4);
    skf_atomic_file f;
    skf_status st = skf_atomic_open(&f, path, w->err);
    if (st) {
        skf_free(json);
        return st;
    }
    st = skf_atomic_write(&f, head, sizeof head, w->err);
    if (!st)
        st = skf_atomic_write(&f, json, jpad, w->err);
    if (!st && w->bin.size) {
        st = skf_atomic_write(&f, bhead, sizeof bhead, w->err);
        if (!st)
            st = skf_atomic_write(&f, w->bin.data, bpad, w->err);
    }
    skf_free(json);
    if (st) {
        skf_atomic_abort(&f);
        return st;
    }
    return skf_atomic_commit(&f, w->err);
}

skf_status skf_gltf_write_glb(const skf_gltf *doc, const char *path, skf_warnings *warnings,
                              skf_error *err)
{
    if (skfi_is_assimp_path(path))
        return skf_fail(err, SKF_ERR_ARGUMENT,
                        "%s: outputs are glTF/GLB (FBX and Collada are read, not written): name it .glb", path);
    writer w;
    memset(&w, 0, sizeof w);
    w.doc = doc;
    w.dn = doc->path ? doc->path : "(document)";
    w.warnings = warnings;
    w.err = err;
    if (doc->path && skf_same_file(doc->path, path))
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: refusing to overwrite the input file", path);
    skfi_json_alloc_install();
    w.root = json_deep_copy(doc->json);
    if (!w.root)
        return nomem(&w, "JSON");
    skf_status st = copy_views(&w);
    if (!st)
        st = embed_images(&w);
    if (!st)
        st = repair_skins(&w);
    if (!st)
        st = repair_weights(&w);
    if (!st)
        st = repair_bounds(&w);
    if (!st)
        st = emit(&w, path);
    json_decref(w.root);
    skf_free(w.bin.data);
    return st;
}
