/* Issue 13, defect 2: a decomposition's corrective shapes are written so that
 * every morph weight of every key lies in [0, 1] (players such as Blender
 * 3.4 clamp shape-key values to that range), while the glTF still plays the
 * decomposition's reconstruction with the shapes: the document's own
 * playback (our glTF skinning + morph evaluation) at every frame equals
 * skf_decomposition_frame(..., with_shapes = true).
 *
 * Input: a strip of 21 × 5 vertices whose right half bends about z (what
 * bones fit) while a bump rises and sinks along it (sin of time, so the PCA
 * coefficient takes both signs; bones cannot express it). */
#include "check.h"
#include "skinfit/decompose.h"
#include "skinfit/gltf.h"
#include "skinfit/rig.h"
#include "skinfit/meshseq.h"

#include <stdint.h>

#define NX 21
#define NZ 5
#define NV (NX * NZ)
#define NF 24

int main(void)
{
    static double frames[NF * NV * 3];
    static uint32_t tris[(NX - 1) * (NZ - 1) * 6];
    size_t nt = 0;
    for (int i = 0; i + 1 < NX; ++i)
        for (int k = 0; k + 1 < NZ; ++k) {
            uint32_t a = (uint32_t)(i * NZ + k), b = a + NZ, c = a + 1, d = b + 1;
            uint32_t t[6] = {a, b, c, c, b, d};
            memcpy(tris + 3 * nt, t, sizeof t);
            nt += 2;
        }
    for (int f = 0; f < NF; ++f) {
        double ang = 0.6 * sin(2 * M_PI * f / NF), bump = 0.15 * sin(4 * M_PI * f / NF + 0.3);
        for (int i = 0; i < NX; ++i)
            for (int k = 0; k < NZ; ++k) {
                double x = (double)i / (NX - 1), z = 0.05 * k, y = bump * sin(M_PI * x);
                if (x > 0.5) { /* rotate about (0.5, 0) */
                    double dx = x - 0.5, dy = y;
                    x = 0.5 + cos(ang) * dx - sin(ang) * dy;
                    y = sin(ang) * dx + cos(ang) * dy;
                }
                double *p = frames + ((size_t)f * NV + (size_t)(i * NZ + k)) * 3;
                p[0] = x, p[1] = y, p[2] = z;
            }
    }
    skf_error err = {0};
    skf_decompose_options o = {.bone_count = 2, .pca_shapes = 2, .max_influences = 2};
    skf_decomposition *d = NULL;
    skf_status st = skf_decompose(NV, NF, frames, NULL, nt, tris, &o, &d, &err);
    CHECK_MSG(st == SKF_OK, "%s", err.message);
    if (st)
        return skf_test_done();
    size_t neg = 0;
    for (size_t k = 0; k < NF * d->shape_count; ++k)
        neg += d->shape_weights[k] < 0;
    printf("decomposition: %zu bones, %zu shapes, %zu of %zu coefficients negative\n", d->bone_count,
           d->shape_count, neg, (size_t)NF * d->shape_count);
    CHECK(d->shape_count == 2);
    CHECK(neg > 0); /* the input makes signed coefficients: the case under test */

    skf_gltf *doc = NULL;
    st = skf_decomposition_to_gltf(d, nt, tris, 24, &doc, &err);
    CHECK_MSG(st == SKF_OK, "%s", err.message);
    if (st) {
        skf_decomposition_free(d);
        return skf_test_done();
    }
    /* every key of every weights channel in [0, 1] */
    size_t keys = 0, outside = 0;
    double lo = 0, hi = 0;
    for (size_t a = 0; a < doc->animation_count; ++a)
        for (size_t c = 0; c < doc->animations[a].channel_count; ++c) {
            const skf_gltf_channel *ch = &doc->animations[a].channels[c];
            if (ch->path != SKF_PATH_WEIGHTS)
                continue;
            int acc = doc->animations[a].samplers[ch->sampler].output;
            size_t n = doc->accessors[acc].count;
            double *w = malloc(n * sizeof *w);
            CHECK(w && skf_gltf_accessor_read(doc, acc, w, true, &err) == SKF_OK);
            for (size_t k = 0; w && k < n; ++k) {
                ++keys;
                outside += !(w[k] >= 0 && w[k] <= 1);
                lo = w[k] < lo ? w[k] : lo;
                hi = w[k] > hi ? w[k] : hi;
            }
            free(w);
        }
    printf("morph weights: %zu keys, %zu outside [0, 1] (range %.4f .. %.4f)\n", keys, outside, lo, hi);
    CHECK(keys > 0);
    CHECK(outside == 0);

    /* the document plays the reconstruction with shapes */
    skf_rig *rig = NULL;
    skf_clip *clip = NULL;
    skf_meshseq *seq = NULL;
    CHECK(skf_rig_from_gltf(doc, 0, NULL, &rig, NULL, &err) == SKF_OK);
    CHECK(skf_clip_from_gltf(doc, 0, &clip, &err) == SKF_OK);
    if (rig && clip)
        CHECK(skf_rig_bake(rig, clip, 24, 1, NULL, &seq, &err) == SKF_OK);
    if (seq) {
        CHECK(seq->frame_count == NF && seq->vertex_count == NV);
        double worst = 0, buf[NV * 3];
        for (size_t f = 0; f < NF && f < seq->frame_count; ++f) {
            skf_decomposition_frame(d, f, true, buf);
            for (size_t k = 0; k < NV * 3; ++k) {
                double e = fabs(buf[k] - seq->positions[f * NV * 3 + k]);
                worst = e > worst ? e : worst;
            }
        }
        /* the strip's diagonal is about 1: float32 storage of rest, shapes
         * and keys bounds the agreement */
        printf("glTF playback vs reconstruction with shapes: worst %.3e (diagonal ~1)\n", worst);
        CHECK(worst <= 1e-5);
    }
    skf_meshseq_free(seq);
    skf_clip_free(clip);
    skf_rig_free(rig);
    skf_gltf_free(doc);
    skf_decomposition_free(d);
    return skf_test_done();
}
