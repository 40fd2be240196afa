/* Baking a transfer result into a glTF animation: LINEAR keys, one per
 * frame, translation + rotation + scale on every solved joint node.
 *
 * Reference: glTF 2.0 §3.11 "Animations" — channels target a node's TRS;
 * LINEAR rotation keys are slerped along the shortest arc, so consecutive
 * quaternions are kept in one hemisphere (skf_trs_convert) for clarity.
 */
#include "transfer_internal.h"

#include <string.h>

skf_status skf_transfer_add_animation(const skf_transfer *t, skf_gltf *doc, const skf_transfer_clip *clip,
                                      skf_error *err)
{
    if (!t->tgt || !clip->translation)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: no transfer result to bake", clip->name ? clip->name : "clip");
    size_t B = clip->joint_count, F = clip->frames, nanim = 0;
    for (size_t i = 0; i < B; ++i)
        nanim += clip->animated[i];
    float *times = skf_malloc_array(F, sizeof(float));
    float *vals = skf_malloc_array(nanim * F * 10 + 1, sizeof(float));
    skf_gltf_new_channel *ch = skf_malloc_array(3 * nanim + 1, sizeof *ch);
    if (!times || !vals || !ch) {
        skf_free(times);
        skf_free(vals);
        skf_free(ch);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", clip->name);
    }
    for (size_t f = 0; f < F; ++f)
        times[f] = (float)(clip->start + (double)f / clip->fps);
    size_t nc = 0;
    float *v = vals;
    for (size_t i = 0; i < B; ++i) {
        if (!clip->animated[i])
            continue;
        int node = t->trs.joint_node[i];
        static const skf_gltf_path paths[3] = {SKF_PATH_TRANSLATION, SKF_PATH_ROTATION, SKF_PATH_SCALE};
        const double *src[3] = {clip->translation, clip->rotation, clip->scale};
        const size_t width[3] = {3, 4, 3};
        for (int p = 0; p < 3; ++p) {
            skf_gltf_new_channel *c = &ch[nc++];
            c->node = node;
            c->path = paths[p];
            c->interpolation = SKF_INTERP_LINEAR;
            c->key_count = F;
            c->times = times;
            c->values = v;
            c->width = width[p];
            for (size_t f = 0; f < F; ++f)
                for (size_t k = 0; k < width[p]; ++k)
                    *v++ = (float)src[p][(f * B + i) * width[p] + k];
        }
    }
    skf_status st = skf_gltf_add_animation(doc, clip->name, ch, nc, err);
    skf_free(times);
    skf_free(vals);
    skf_free(ch);
    return st;
}
