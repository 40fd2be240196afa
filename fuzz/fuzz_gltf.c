/* Fuzz harness: glTF JSON / GLB container through the whole read path —
 * load, decode every accessor, extract every skin's rig, every clip, and
 * evaluate + skin a few poses — so hostile indices, counts and NaNs reach
 * the evaluator too. */
#include "skinfit/gltf.h"
#include "skinfit/rig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_DECODE_VALUES ((size_t)1 << 22)
#define MAX_SKIN_VERTICES ((size_t)1 << 16)

static void exercise_rig(const skf_gltf *doc, int skin)
{
    skf_error err;
    skf_rig *rig = NULL;
    if (skf_rig_from_gltf(doc, skin, NULL, &rig, NULL, &err) != SKF_OK)
        return;
    if (rig->vertex_count <= MAX_SKIN_VERTICES) {
        skf_pose pose;
        if (skf_pose_init(&pose, rig, &err) == SKF_OK) {
            double *out = skf_malloc_array(rig->vertex_count * 3 + 1, sizeof *out);
            for (size_t a = 0; a < doc->animation_count && a < 4; ++a) {
                skf_clip *clip = NULL;
                if (skf_clip_from_gltf(doc, (int)a, &clip, &err) != SKF_OK)
                    continue;
                for (int k = 0; k < 3 && out; ++k) {
                    double t = clip->start + clip->duration * k / 2.0;
                    skf_pose_eval(rig, clip, t, &pose);
                    skf_skin(rig, &pose, out, 1);
                }
                skf_clip_free(clip);
            }
            skf_free(out);
            skf_pose_release(&pose);
        }
        skf_rig *welded = NULL;
        if (skf_rig_weld(rig, &welded, NULL, &err) == SKF_OK)
            skf_rig_free(welded);
    }
    skf_rig_free(rig);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    skf_gltf *doc = NULL;
    skf_error err;
    skf_warnings warnings = {0};
    if (skf_gltf_load_memory(data, size, "fuzz.glb", NULL, &doc, &warnings, &err) == SKF_OK) {
        for (size_t i = 0; i < doc->accessor_count; ++i) {
            const skf_gltf_accessor *a = &doc->accessors[i];
            size_t n = a->count * (size_t)a->components;
            if (n > MAX_DECODE_VALUES)
                continue;
            double *v = skf_malloc_array(n + 1, sizeof *v);
            if (v)
                skf_gltf_accessor_read(doc, (int)i, v, true, &err);
            skf_free(v);
        }
        for (size_t s = 0; s < doc->skin_count && s < 2; ++s)
            exercise_rig(doc, (int)s);
        if (doc->skin_count == 0)
            exercise_rig(doc, -1);
        skf_gltf_free(doc);
    }
    skf_warnings_release(&warnings);
    return 0;
}
