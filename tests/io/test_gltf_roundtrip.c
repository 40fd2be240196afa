/* read -> write GLB -> read on every shared asset: all accessor data, node
 * transforms, names, skins and animations come back bit-identical; repairs
 * (skeleton, weights) are checked against their definition; an added
 * animation reads back exactly. Outputs stay in $SKF_BUILD_DIR/gltfwrite_out
 * for the gltf-validator test (validate_roundtrip). */
#include "check.h"
#include "io/gltf_invariants.h"
#include "skinfit/gltf.h"
#include "skinfit/rig.h" /* skf_clip_find: the clip lookup by name is rig's */

#include <jansson.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *assets[] = {
    "quaternius/animals/Horse.glb",      "quaternius/animals/Deer.glb",
    "quaternius/animals/Fox.glb",        "quaternius/animals/Wolf.glb",
    "quaternius/animals/Cow.glb",        "quaternius/animals/Alpaca.glb",
    "quaternius/dinosaurs/Trex.glb",     "quaternius/dinosaurs/Stegosaurus.glb",
    "quaternius/dinosaurs/Velociraptor.glb", "khronos/Fox.glb",
    "khronos/MorphStressTest.gltf",      "dembones/Bone_All.glb",
    "dembones/Bone_Geom.glb",            "dembones/Bone_Skin.glb",
    "dembones/Bone_Trans.glb",           "dembones/Decomposition_05.glb",
    "dembones/Decomposition_10.glb",     "dembones/Decomposition_20.glb",
};

static double *read_acc(const skf_gltf *d, int a)
{
    const skf_gltf_accessor *ac = &d->accessors[a];
    double *v = malloc(ac->count * (size_t)ac->components * sizeof *v + 8);
    skf_error e;
    if (v && skf_gltf_accessor_read(d, a, v, false, &e) != SKF_OK) {
        fprintf(stderr, "read accessor %d: %s\n", a, e.message);
        free(v);
        return NULL;
    }
    return v;
}

static int find_attr(const skf_gltf_primitive *p, const char *name)
{
    for (size_t i = 0; i < p->attribute_count; ++i)
        if (!strcmp(p->attributes[i].name, name))
            return p->attributes[i].accessor;
    return -1;
}

static bool str_eq(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Compare in (original) and out (written and reread). */
static void compare(const char *label, const skf_gltf *in, const skf_gltf *out, bool same_anims,
                    size_t *values, size_t *repaired_prims, double *worst_weight_dev)
{
    CHECK_MSG(out->accessor_count >= in->accessor_count, "%s accessors %zu -> %zu", label,
              in->accessor_count, out->accessor_count);
    for (size_t i = 0; i < in->accessor_count && i < out->accessor_count; ++i) {
        const skf_gltf_accessor *a = &in->accessors[i], *b = &out->accessors[i];
        CHECK_MSG(a->count == b->count && a->components == b->components &&
                      a->component_type == b->component_type && a->normalized == b->normalized,
                  "%s accessors[%zu] layout", label, i);
        if (a->count != b->count || a->components != b->components)
            continue;
        double *x = read_acc(in, (int)i), *y = read_acc(out, (int)i);
        CHECK(x && y);
        if (x && y) {
            size_t n = a->count * (size_t)a->components;
            CHECK_MSG(memcmp(x, y, n * sizeof *x) == 0, "%s accessors[%zu] data differ", label, i);
            *values += n;
        }
        free(x);
        free(y);
    }
    CHECK_MSG(in->node_count == out->node_count, "%s nodes", label);
    for (size_t i = 0; i < in->node_count && i < out->node_count; ++i) {
        const skf_gltf_node *a = &in->nodes[i], *b = &out->nodes[i];
        CHECK_MSG(str_eq(a->name, b->name) && a->parent == b->parent && a->mesh == b->mesh &&
                      a->skin == b->skin,
                  "%s nodes[%zu]", label, i);
        if (a->has_matrix != b->has_matrix) {
            /* add_animation re-expresses an animated matrix node as TRS */
            CHECK(!same_anims && a->has_matrix);
            double ma[16], mb[16], dev = 0, scale = 0;
            skf_gltf_node_local_matrix(a, ma);
            skf_gltf_node_local_matrix(b, mb);
            for (int k = 0; k < 16; ++k) {
                dev = fmax(dev, fabs(ma[k] - mb[k]));
                scale = fmax(scale, fabs(ma[k]));
            }
            CHECK_MSG(dev <= 1e-12 * (1 + scale), "%s nodes[%zu] matrix -> TRS off by %g", label,
                      i, dev);
            continue;
        }
        CHECK_MSG(memcmp(a->translation, b->translation, sizeof a->translation) == 0 &&
                      memcmp(a->rotation, b->rotation, sizeof a->rotation) == 0 &&
                      memcmp(a->scale, b->scale, sizeof a->scale) == 0 &&
                      (!a->has_matrix || memcmp(a->matrix, b->matrix, sizeof a->matrix) == 0),
                  "%s nodes[%zu] transform", label, i);
    }
    CHECK(in->mesh_count == out->mesh_count);
    for (size_t m = 0; m < in->mesh_count && m < out->mesh_count; ++m) {
        CHECK(in->meshes[m].primitive_count == out->meshes[m].primitive_count);
        for (size_t p = 0; p < in->meshes[m].primitive_count &&
                           p < out->meshes[m].primitive_count; ++p) {
            const skf_gltf_primitive *a = &in->meshes[m].primitives[p];
            const skf_gltf_primitive *b = &out->meshes[m].primitives[p];
            CHECK(a->attribute_count == b->attribute_count && a->indices == b->indices &&
                  a->target_count == b->target_count && a->mode == b->mode);
            bool repaired = false;
            for (size_t i = 0; i < a->attribute_count; ++i) {
                int ai = a->attributes[i].accessor;
                int bi = find_attr(b, a->attributes[i].name);
                if (strncmp(a->attributes[i].name, "WEIGHTS_", 8) != 0)
                    CHECK_MSG(ai == bi, "%s meshes[%zu].primitives[%zu] %s", label, m, p,
                              a->attributes[i].name);
                else if (ai != bi)
                    repaired = true;
            }
            if (!repaired)
                continue;
            ++*repaired_prims;
            /* The repaired weights equal the originals over their vertex sum. */
            int wa = find_attr(a, "WEIGHTS_0"), wb = find_attr(b, "WEIGHTS_0");
            int w1a = find_attr(a, "WEIGHTS_1");
            CHECK(w1a < 0); /* the shared assets have one set; extend when needed */
            double *x = read_acc(in, wa), *y = read_acc(out, wb);
            CHECK(x && y && out->accessors[wb].component_type == SKF_GLTF_FLOAT);
            for (size_t v = 0; x && y && v < in->accessors[wa].count; ++v) {
                double s = 0, t = 0;
                for (int c = 0; c < 4; ++c) {
                    s += x[4 * v + c] > 0 ? x[4 * v + c] : 0;
                    t += y[4 * v + c];
                }
                CHECK_MSG(fabs(t - 1) <= 1e-6, "%s vertex %zu weight sum %.9g", label, v, t);
                if (fabs(t - 1) > *worst_weight_dev)
                    *worst_weight_dev = fabs(t - 1);
                for (int c = 0; c < 4 && s > 0; ++c) {
                    double want = (x[4 * v + c] > 0 ? x[4 * v + c] : 0) / s;
                    CHECK_MSG(fabs(y[4 * v + c] - want) <= 1e-6, "%s vertex %zu weight %d", label,
                              v, c);
                }
            }
            free(x);
            free(y);
        }
    }
    CHECK(in->skin_count == out->skin_count);
    for (size_t s = 0; s < in->skin_count && s < out->skin_count; ++s) {
        const skf_gltf_skin *a = &in->skins[s], *b = &out->skins[s];
        CHECK(a->joint_count == b->joint_count &&
              memcmp(a->joints, b->joints, a->joint_count * sizeof *a->joints) == 0 &&
              a->inverse_bind_matrices == b->inverse_bind_matrices);
        /* skeleton, when kept, is an ancestor-or-self of every joint */
        for (size_t j = 0; b->skeleton >= 0 && j < b->joint_count; ++j) {
            int n = b->joints[j];
            while (n >= 0 && n != b->skeleton)
                n = out->nodes[n].parent;
            CHECK_MSG(n == b->skeleton, "%s skins[%zu].skeleton is not a common root", label, s);
        }
    }
    if (same_anims) {
        CHECK(in->animation_count == out->animation_count);
        for (size_t a = 0; a < in->animation_count && a < out->animation_count; ++a) {
            CHECK(str_eq(in->animations[a].name, out->animations[a].name));
            CHECK(in->animations[a].channel_count == out->animations[a].channel_count &&
                  in->animations[a].sampler_count == out->animations[a].sampler_count);
            for (size_t s = 0; s < in->animations[a].sampler_count &&
                               s < out->animations[a].sampler_count; ++s)
                CHECK(in->animations[a].samplers[s].input == out->animations[a].samplers[s].input &&
                      in->animations[a].samplers[s].output ==
                          out->animations[a].samplers[s].output &&
                      in->animations[a].samplers[s].interpolation ==
                          out->animations[a].samplers[s].interpolation);
        }
    }
    /* Uninterpreted JSON comes back unchanged. */
    static const char *keep[] = {"materials", "textures", "samplers", "extensionsUsed",
                                 "extensionsRequired", "extras", "asset", "cameras"};
    for (size_t k = 0; k < sizeof keep / sizeof keep[0]; ++k) {
        json_t *x = json_object_get(in->json, keep[k]), *y = json_object_get(out->json, keep[k]);
        CHECK_MSG((!x && !y) || (x && y && json_equal(x, y)), "%s %s changed", label, keep[k]);
    }
    json_t *ia = json_object_get(in->json, "images"), *oa = json_object_get(out->json, "images");
    CHECK(json_array_size(ia) == json_array_size(oa));
    for (size_t i = 0; i < json_array_size(ia); ++i) {
        json_t *x = json_array_get(ia, i), *y = json_array_get(oa, i);
        CHECK(json_is_integer(json_object_get(y, "bufferView")) && !json_object_get(y, "uri") &&
              json_is_string(json_object_get(y, "mimeType")));
        CHECK(json_equal(json_object_get(x, "name"), json_object_get(y, "name")) ||
              !json_object_get(x, "name"));
    }
}

/* Add an animation (rotation on a joint or node 0; morph weights when the
 * document has targets), replace it once, and check what reads back. */
static void add_animation(skf_gltf *doc, const char *label)
{
    int node = doc->skin_count ? doc->skins[0].joints[doc->skins[0].joint_count / 2] : 0;
    float times[3] = {0.0f, 0.5f, 1.25f};
    float rot[12] = {0, 0, 0, 1, 0, 0.38268343f, 0, 0.92387953f, 0, -0.2588190f, 0, 0.9659258f};
    skf_gltf_new_channel ch[2] = {
        {node, SKF_PATH_ROTATION, SKF_INTERP_LINEAR, 3, times, rot, 4},
    };
    size_t n = 1;
    float *wv = NULL;
    for (size_t i = 0; i < doc->node_count; ++i) {
        int m = doc->nodes[i].mesh;
        if (m >= 0 && doc->meshes[m].primitive_count && doc->meshes[m].primitives[0].target_count &&
            (int)i != node) {
            size_t t = doc->meshes[m].primitives[0].target_count;
            wv = calloc(3 * t, sizeof *wv);
            for (size_t k = 0; k < 3 * t; ++k)
                wv[k] = (float)((k * 7) % 10) / 10.0f;
            ch[1] = (skf_gltf_new_channel){(int)i, SKF_PATH_WEIGHTS, SKF_INTERP_STEP, 3, times, wv,
                                           t};
            n = 2;
            break;
        }
    }
    size_t before = doc->animation_count;
    skf_error e;
    /* a bad channel is refused and leaves the document unchanged */
    skf_gltf_new_channel badch = ch[0];
    badch.width = 3;
    CHECK(skf_gltf_add_animation(doc, "SkfAdded", &badch, 1, &e) == SKF_ERR_ARGUMENT);
    CHECK(doc->animation_count == before);
    CHECK_MSG(skf_gltf_add_animation(doc, "SkfAdded", ch, n, &e) == SKF_OK, "%s: %s", label,
              e.message);
    CHECK_MSG(skf_gltf_add_animation(doc, "SkfAdded", ch, n, &e) == SKF_OK, "%s: %s", label,
              e.message);
    CHECK_MSG(doc->animation_count == before + 1, "%s: replace by name keeps one animation",
              label);
    free(wv);
}

static void check_added(const skf_gltf *doc, const char *label)
{
    int a = skf_clip_find(doc, "SkfAdded", NULL);
    CHECK_MSG(a >= 0, "%s: added animation missing", label);
    if (a < 0)
        return;
    const skf_gltf_animation *an = &doc->animations[a];
    CHECK(an->channel_count >= 1 && an->channels[0].path == SKF_PATH_ROTATION);
    const skf_gltf_sampler *s = &an->samplers[an->channels[0].sampler];
    double t[3], q[12];
    CHECK(doc->accessors[s->input].count == 3 && doc->accessors[s->output].count == 3);
    if (doc->accessors[s->input].count != 3 || doc->accessors[s->output].count != 3)
        return;
    skf_error e;
    CHECK(skf_gltf_accessor_read(doc, s->input, t, false, &e) == SKF_OK);
    CHECK(skf_gltf_accessor_read(doc, s->output, q, false, &e) == SKF_OK);
    CHECK(t[0] == 0.0 && t[1] == 0.5 && t[2] == 1.25);
    CHECK_NEAR(q[5], 0.38268343, 1e-7);
    CHECK_NEAR(q[7], 0.92387953, 1e-7);
    CHECK(q[3] == 1.0f);
}

static void out_path(char *buf, size_t n, const char *dir, const char *rel, const char *suffix)
{
    char stem[512];
    snprintf(stem, sizeof stem, "%s", rel);
    for (char *c = stem; *c; ++c)
        if (*c == '/')
            *c = '_';
    char *dot = strrchr(stem, '.');
    if (dot)
        *dot = 0;
    snprintf(buf, n, "%s/%s.%s.glb", dir, stem, suffix);
}

int main(void)
{
    const char *bd = getenv("SKF_BUILD_DIR");
    char dir[2048];
    snprintf(dir, sizeof dir, "%s/gltfwrite_out", bd && *bd ? bd : ".");
    mkdir(dir, 0777);
    size_t files = 0, values = 0, repaired = 0, repairs = 0;
    double worst = 0;
    for (size_t i = 0; i < sizeof assets / sizeof assets[0]; ++i) {
        const char *src = skf_test_data(assets[i]);
        if (!src) {
            printf("missing %s (skipped)\n", assets[i]);
            continue;
        }
        skf_error e;
        skf_warnings w = {0};
        skf_gltf *in = NULL, *out = NULL;
        CHECK_MSG(skf_gltf_load(src, &in, NULL, &e) == SKF_OK, "%s", e.message);
        if (!in)
            continue;
        char rt[4096], an[4096];
        out_path(rt, sizeof rt, dir, assets[i], "rt");
        out_path(an, sizeof an, dir, assets[i], "anim");
        char *before = json_dumps(in->json, JSON_COMPACT);
        CHECK_MSG(skf_gltf_write_glb(in, rt, &w, &e) == SKF_OK, "%s", e.message);
        char *after = json_dumps(in->json, JSON_COMPACT);
        CHECK_MSG(before && after && !strcmp(before, after), "%s: writing changed the input",
                  assets[i]);
        free(before);
        free(after);
        for (size_t k = 0; k < w.count; ++k)
            printf("  warning: %s\n", w.items[k].text);
        repairs += w.count;
        CHECK_MSG(skf_gltf_load(rt, &out, NULL, &e) == SKF_OK, "%s", e.message);
        size_t vals = 0, rp = 0;
        if (out) {
            check_gltf_invariants(out);
            compare(assets[i], in, out, true, &vals, &rp, &worst);
            ++files;
        }
        printf("%s: %zu accessors, %zu values identical, %zu nodes, %zu primitives with "
               "renormalised weights, %zu repairs\n",
               assets[i], in->accessor_count, vals, in->node_count, rp, w.count);
        values += vals;
        repaired += rp;
        skf_warnings_release(&w);
        skf_gltf_free(out);
        out = NULL;
        /* the same document with an added animation */
        add_animation(in, assets[i]);
        CHECK_MSG(skf_gltf_write_glb(in, an, NULL, &e) == SKF_OK, "%s", e.message);
        CHECK_MSG(skf_gltf_load(an, &out, NULL, &e) == SKF_OK, "%s", e.message);
        if (out) {
            size_t v2 = 0, r2 = 0;
            double w2 = 0;
            compare(assets[i], in, out, false, &v2, &r2, &w2);
            check_added(out, assets[i]);
        }
        skf_gltf_free(out);
        skf_gltf_free(in);
    }
    if (files == 0)
        SKF_SKIP("no shared assets under %s", skf_test_data_dir());
    printf("round trip: %zu files, %zu accessor values bit-identical, %zu primitives "
           "renormalised (max |sum-1| after %.3g), %zu repair warnings\n",
           files, values, repaired, worst, repairs);

    /* never overwrite the input; failures leave no file */
    const char *src = skf_test_data("khronos/Fox.glb");
    if (src) {
        char copy[4096], bad[4096];
        snprintf(copy, sizeof copy, "%s/input_copy.glb", dir);
        snprintf(bad, sizeof bad, "%s/no/such/dir/out.glb", dir);
        uint8_t *data;
        size_t size;
        skf_error e;
        CHECK(skf_read_file(src, SIZE_MAX, &data, &size, &e) == SKF_OK);
        CHECK(skf_write_file_atomic(copy, data, size, &e) == SKF_OK);
        skf_free(data);
        skf_gltf *d = NULL;
        CHECK(skf_gltf_load(copy, &d, NULL, &e) == SKF_OK);
        if (d) {
            CHECK(skf_gltf_write_glb(d, copy, NULL, &e) == SKF_ERR_ARGUMENT);
            printf("refused: %s\n", e.message);
            CHECK(skf_gltf_write_glb(d, bad, NULL, &e) == SKF_ERR_IO);
            CHECK(access(bad, F_OK) != 0);
            skf_gltf_free(d);
        }
        struct stat st;
        CHECK(stat(copy, &st) == 0 && (size_t)st.st_size == size);
        unlink(copy);
    }
    return skf_test_done();
}
