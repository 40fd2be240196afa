/* Autoweights applied to a glTF document: rewrite JOINTS_n / WEIGHTS_n of the
 * skinned primitives with the 1/d^P rule of autoweights.c.
 *
 * Reference: glTF 2.0 §3.7.3.3 "Skinned Mesh Attributes" — JOINTS_n are
 * unsigned byte/short VEC4, WEIGHTS_n float VEC4 (or normalized integers),
 * sets n = 0, 1, ... each holding four influences.
 */
#include "skinfit/rig.h"
#include "skinfit/math.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

static int find_attr(const skf_gltf_primitive *p, const char *name)
{
    for (size_t i = 0; i < p->attribute_count; ++i)
        if (!strcmp(p->attributes[i].name, name))
            return p->attributes[i].accessor;
    return -1;
}

skf_status skf_autoweights_gltf(skf_gltf *doc, int skin, const skf_autoweights_options *options,
                                skf_warnings *warnings, skf_error *err)
{
    const char *file = doc->path ? doc->path : "glTF";
    if (skin < 0 || (size_t)skin >= doc->skin_count)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: skins: no skin %d — not a rigged mesh", file, skin);
    int K = options && options->max_influences > 0 ? options->max_influences : 4;
    skf_rig *rig = NULL;
    /* the skinned primitives only: a joint that moves only an attached mesh
     * (antlers, eyes) carried no skin weight and stays non-deforming */
    skf_rig_options skinned_only = {.no_attached = true};
    skf_status st = skf_rig_from_gltf(doc, skin, &skinned_only, &rig, warnings, err);
    if (st)
        return st;
    size_t J = rig->joint_count;
    double *jp = skf_malloc_array(J * 3, sizeof(double));
    int *parent = skf_malloc_array(J, sizeof(int));
    bool *def = skf_malloc_array(J, sizeof(bool));
    size_t nmesh = doc->mesh_count;
    bool *done = skf_calloc(nmesh ? nmesh : 1, sizeof(bool));
    /* snapshot of the primitives to rewrite: (mesh, primitive, position accessor) */
    if (!jp || !parent || !def || !done) {
        st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", file);
        goto out;
    }
    size_t any = 0;
    for (size_t j = 0; j < J; ++j) {
        double b[16];
        if (skf_mat4_invert(b, rig->joints[j].mesh_to_joint) == 0) {
            st = skf_fail(err, SKF_ERR_NUMERIC, "%s: skins[%d].inverseBindMatrices[%zu]: singular", file, skin, j);
            goto out;
        }
        memcpy(jp + 3 * j, b + 12, 3 * sizeof(double));
        parent[j] = rig->joints[j].parent;
        def[j] = rig->joints[j].has_weight;
        any += def[j];
    }
    if (!any)
        for (size_t j = 0; j < J; ++j)
            def[j] = true;
    size_t sets = K > 4 ? 2 : 1;
    for (size_t n = 0; n < doc->node_count && !st; ++n) {
        const skf_gltf_node *node = &doc->nodes[n];
        if (node->mesh < 0 || node->skin != skin || done[node->mesh])
            continue;
        int m = node->mesh;
        done[m] = true;
        size_t nprim = doc->meshes[m].primitive_count;
        for (size_t p = 0; p < nprim && !st; ++p) {
            /* the typed views are stale after builder calls: re-read from
             * the JSON-independent copy we take before editing */
            const skf_gltf_primitive *prim = &doc->meshes[m].primitives[p];
            int pos = find_attr(prim, "POSITION");
            if (pos < 0 || find_attr(prim, "JOINTS_0") < 0)
                continue;
            size_t V = doc->accessors[pos].count;
            double *xyz = skf_malloc_array(V * 3 + 1, sizeof(double));
            uint32_t *jo = skf_malloc_array(V * 8 + 1, sizeof(uint32_t));
            double *w = skf_malloc_array(V * 8 + 1, sizeof(double));
            uint32_t *jset = skf_malloc_array(V * 4 + 1, sizeof(uint32_t));
            float *wset = skf_malloc_array(V * 4 + 1, sizeof(float));
            if (!xyz || !jo || !w || !jset || !wset) {
                st = skf_fail(err, SKF_ERR_NOMEM, "%s: meshes[%d].primitives[%zu]: out of memory", file, m, p);
            } else {
                st = skf_gltf_accessor_read(doc, pos, xyz, true, err);
            }
            skf_autoweights_options o = {K, options ? options->falloff : 0};
            if (!st)
                st = skf_autoweights(xyz, V, jp, parent, def, J, &o, jo, w, err);
            json_t *attrs = NULL;
            if (!st) {
                json_t *meshes = json_object_get(doc->json, "meshes");
                json_t *prims = json_object_get(json_array_get(meshes, (size_t)m), "primitives");
                attrs = json_object_get(json_array_get(prims, p), "attributes");
                if (!json_is_object(attrs))
                    st = skf_fail(err, SKF_ERR_FORMAT, "%s: meshes[%d].primitives[%zu].attributes: not an object",
                                  file, m, p);
            }
            for (size_t s = 0; s < sets && !st; ++s) {
                for (size_t v = 0; v < V; ++v)
                    for (size_t k = 0; k < 4; ++k) {
                        size_t src = s * 4 + k;
                        bool in = src < (size_t)K;
                        jset[4 * v + k] = in ? jo[v * (size_t)K + src] : 0;
                        wset[4 * v + k] = in ? (float)w[v * (size_t)K + src] : 0.0f;
                    }
                int ja = -1, wa = -1;
                st = skf_gltf_add_uint_accessor(doc, jset, V, 4, J <= 256 ? SKF_GLTF_UNSIGNED_BYTE : SKF_GLTF_UNSIGNED_SHORT,
                                                34962, &ja, err);
                if (!st)
                    st = skf_gltf_add_float_accessor(doc, wset, V, 4, 34962, false, &wa, err);
                if (!st) {
                    char jn[32], wn[32];
                    snprintf(jn, sizeof jn, "JOINTS_%zu", s);
                    snprintf(wn, sizeof wn, "WEIGHTS_%zu", s);
                    json_object_set_new(attrs, jn, json_integer(ja));
                    json_object_set_new(attrs, wn, json_integer(wa));
                }
            }
            for (size_t s = sets; !st && s < 16; ++s) {
                char jn[32], wn[32];
                snprintf(jn, sizeof jn, "JOINTS_%zu", s);
                snprintf(wn, sizeof wn, "WEIGHTS_%zu", s);
                json_object_del(attrs, jn);
                json_object_del(attrs, wn);
            }
            skf_free(xyz);
            skf_free(jo);
            skf_free(w);
            skf_free(jset);
            skf_free(wset);
        }
    }
    if (!st)
        st = skf_gltf_reparse(doc, warnings, err);
out:
    skf_free(jp);
    skf_free(parent);
    skf_free(def);
    skf_free(done);
    skf_rig_free(rig);
    return st;
}
