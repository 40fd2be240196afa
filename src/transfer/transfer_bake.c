/* Baking a transfer result into a glTF animation: LINEAR keys, one per
 * frame, translation + rotation + scale on every solved joint node.
 *
 * Reference: glTF 2.0 §3.11 "Animations" — channels target a node's TRS;
 * LINEAR rotation keys are slerped along the shortest arc, so consecutive
 * quaternions are kept in one hemisphere (skf_trs_convert) for clarity.
 *
 * Why every joint and every node between joints is keyed: glTF leaves an
 * un-targeted node's pose to the player. three.js restores the rest TRS,
 * but Blender keeps whatever pose the previous action left on that bone,
 * so a clip that skips an unweighted joint (the Quaternius root "Body")
 * played back differently after another clip (0.04–0.43 % of the diagonal
 * measured on the animals). Joints that were not solved and the non-joint
 * nodes on the chains between joints get two constant keys (first and last
 * frame) holding their rest TRS, so the clip is self-contained in any player.
 */
#include "transfer_internal.h"

#include "skinfit/math.h"

#include <string.h>

/* A node's rest TRS (a "matrix" node decomposed; it has no shear, or
 * skf_trs_converter_init would have refused the skin's chain). */
static void node_rest_trs(const skf_gltf_node *nd, const double local[16], double trs[10])
{
    if (nd->has_matrix) {
        skf_mat4_to_trs(local, trs, trs + 3, trs + 7, 1e-3);
        return;
    }
    memcpy(trs, nd->translation, 3 * sizeof(double));
    memcpy(trs + 3, nd->rotation, 4 * sizeof(double));
    memcpy(trs + 7, nd->scale, 3 * sizeof(double));
}

/* Marks in between[n] the non-joint nodes that lie on a parent chain from
 * one joint of the skin up to another. */
static void mark_between(const skf_trs_converter *cv, bool *between)
{
    const skf_gltf *doc = cv->doc;
    size_t N = doc->node_count;
    for (size_t i = 0; i < cv->joint_count; ++i) {
        /* walk up to the next joint; mark the chain only if one is reached */
        int n = doc->nodes[cv->joint_node[i]].parent;
        size_t steps = 0;
        while (n >= 0 && cv->node_joint[n] < 0 && steps++ < N)
            n = doc->nodes[n].parent;
        if (n < 0 || cv->node_joint[n] < 0)
            continue;
        for (int m = doc->nodes[cv->joint_node[i]].parent; m != n; m = doc->nodes[m].parent)
            between[m] = true;
    }
}

skf_status skf_transfer_add_animation_named(const skf_transfer *t, skf_gltf *doc,
                                            const skf_transfer_clip *clip, const char *name,
                                            skf_error *err)
{
    if (!name)
        name = clip->name;
    if (!t->tgt || !clip->translation || !t->trs_ready)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: no transfer result to bake", name ? name : "clip");
    const skf_trs_converter *cv = &t->trs;
    size_t B = clip->joint_count, F = clip->frames, N = cv->doc->node_count;
    size_t nanim = 0, nconst = 0;
    bool *between = skf_calloc(N ? N : 1, sizeof(bool));
    if (between)
        mark_between(cv, between);
    for (size_t i = 0; i < B; ++i)
        nanim += clip->animated[i];
    for (size_t n = 0; between && n < N; ++n)
        nconst += between[n];
    nconst += B - nanim;
    float *times = skf_malloc_array(F, sizeof(float));
    float *vals = skf_malloc_array(nanim * F * 10 + nconst * 20 + 1, sizeof(float));
    skf_gltf_new_channel *ch = skf_malloc_array(3 * (nanim + nconst) + 1, sizeof *ch);
    if (!between || !times || !vals || !ch) {
        skf_free(between);
        skf_free(times);
        skf_free(vals);
        skf_free(ch);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", name);
    }
    for (size_t f = 0; f < F; ++f)
        times[f] = (float)(clip->start + (double)f / clip->fps);
    /* constant channels: two keys, the first and the last frame (one if F == 1) */
    float const_times[2] = {times[0], times[F - 1]};
    size_t const_keys = F > 1 ? 2 : 1;
    static const skf_gltf_path paths[3] = {SKF_PATH_TRANSLATION, SKF_PATH_ROTATION, SKF_PATH_SCALE};
    static const size_t width[3] = {3, 4, 3}, offset[3] = {0, 3, 7};
    size_t nc = 0;
    float *v = vals;
    for (size_t i = 0; i < B; ++i) {
        int node = cv->joint_node[i];
        const double *src[3] = {clip->translation, clip->rotation, clip->scale};
        for (int p = 0; p < 3; ++p) {
            skf_gltf_new_channel *c = &ch[nc++];
            c->node = node;
            c->path = paths[p];
            c->interpolation = SKF_INTERP_LINEAR;
            c->values = v;
            c->width = width[p];
            /* an unsolved joint's TRS is its rest in every frame (skf_trs_convert) */
            size_t keys = clip->animated[i] ? F : const_keys;
            c->key_count = keys;
            c->times = clip->animated[i] ? times : const_times;
            for (size_t k = 0; k < keys; ++k) {
                size_t f = clip->animated[i] ? k : (k ? F - 1 : 0);
                for (size_t a = 0; a < width[p]; ++a)
                    *v++ = (float)src[p][(f * B + i) * width[p] + a];
            }
        }
    }
    for (size_t n = 0; n < N; ++n) {
        if (!between[n])
            continue;
        double trs[10];
        node_rest_trs(&cv->doc->nodes[n], cv->rest_local + 16 * n, trs);
        for (int p = 0; p < 3; ++p) {
            ch[nc++] = (skf_gltf_new_channel){(int)n, paths[p], SKF_INTERP_LINEAR, const_keys, const_times, v,
                                              width[p]};
            for (size_t k = 0; k < const_keys; ++k)
                for (size_t a = 0; a < width[p]; ++a)
                    *v++ = (float)trs[offset[p] + a];
        }
    }
    skf_status st = skf_gltf_add_animation(doc, name, ch, nc, err);
    skf_free(between);
    skf_free(times);
    skf_free(vals);
    skf_free(ch);
    return st;
}

skf_status skf_transfer_add_animation(const skf_transfer *t, skf_gltf *doc, const skf_transfer_clip *clip,
                                      skf_error *err)
{
    return skf_transfer_add_animation_named(t, doc, clip, NULL, err);
}
