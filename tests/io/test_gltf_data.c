/* Loads every shared glTF asset and checks facts measured on them
 * (../shared/data/README.md), plus the invariant checker. Skips when the
 * shared data is absent. */
#include "gltf_invariants.h"
#include "skinfit/rig.h" /* skf_clip_find: the clip lookup by name is rig's */

#include <string.h>

static size_t total_vertices(const skf_gltf *d)
{
    size_t n = 0;
    for (size_t m = 0; m < d->mesh_count; ++m)
        for (size_t p = 0; p < d->meshes[m].primitive_count; ++p) {
            const skf_gltf_primitive *pr = &d->meshes[m].primitives[p];
            for (size_t a = 0; a < pr->attribute_count; ++a)
                if (strcmp(pr->attributes[a].name, "POSITION") == 0)
                    n += d->accessors[pr->attributes[a].accessor].count;
        }
    return n;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static skf_gltf *load(const char *rel)
{
    const char *path = skf_test_data(rel);
    if (!path)
        return NULL;
    skf_gltf *d = NULL;
    skf_error e;
    skf_warnings w = {0};
    skf_status st = skf_gltf_load(path, &d, &w, &e);
    CHECK_MSG(st == SKF_OK, "%s: %s", rel, st ? e.message : "");
    for (size_t i = 0; i < w.count; ++i)
        printf("  warning: %s\n", w.items[i].text);
    skf_warnings_release(&w);
    if (d)
        check_gltf_invariants(d);
    return d;
}

/* Key count of the first sampler of a clip. */
static size_t clip_keys(const skf_gltf *d, int clip)
{
    return d->accessors[d->animations[clip].samplers[0].input].count;
}

static void check_animal(const char *name)
{
    char rel[256];
    snprintf(rel, sizeof rel, "quaternius/animals/%s.glb", name);
    skf_gltf *d = load(rel);
    if (!d)
        return;
    CHECK(d->skin_count == 1);
    size_t joints = d->skin_count ? d->skins[0].joint_count : 0;
    CHECK_MSG(joints >= 42 && joints <= 51, "%s: %zu joints", name, joints);
    CHECK_MSG(d->animation_count >= 12 && d->animation_count <= 13, "%s: %zu clips", name,
              d->animation_count);
    int walk = skf_clip_find(d, "Walk", NULL);
    int gallop = skf_clip_find(d, "Gallop", NULL);
    CHECK(walk >= 0 && gallop >= 0);
    if (walk >= 0 && gallop >= 0) {
        CHECK(strcmp(d->animations[walk].name, "AnimalArmature|Walk") == 0);
        CHECK(ends_with(d->animations[gallop].name, "|Gallop"));
        CHECK(skf_clip_find(d, "AnimalArmature|Walk", NULL) == walk);
        size_t wk = clip_keys(d, walk), gk = clip_keys(d, gallop);
        CHECK_MSG(wk >= 26 && wk <= 36, "%s Walk keys %zu", name, wk);
        CHECK_MSG(gk >= 13 && gk <= 17, "%s Gallop keys %zu", name, gk);
        /* all LINEAR, translation + rotation only */
        for (size_t c = 0; c < d->animations[walk].channel_count; ++c) {
            const skf_gltf_channel *ch = &d->animations[walk].channels[c];
            CHECK(ch->path == SKF_PATH_TRANSLATION || ch->path == SKF_PATH_ROTATION);
            CHECK(d->animations[walk].samplers[ch->sampler].interpolation == SKF_INTERP_LINEAR);
        }
        /* 24 fps keys */
        const skf_gltf_accessor *in = &d->accessors[d->animations[walk].samplers[0].input];
        double *t = malloc(in->count * sizeof *t);
        skf_error e;
        CHECK(skf_gltf_accessor_read(d, d->animations[walk].samplers[0].input, t, true, &e) == 0);
        CHECK_NEAR((t[in->count - 1] - t[0]) / (double)(in->count - 1), 1.0 / 24.0, 1e-4);
        free(t);
    }
    CHECK(skf_clip_find(d, "NoSuchClip", NULL) == -1);
    /* The skinned mesh node: -90 deg about X, scale 100. */
    for (size_t i = 0; i < d->node_count; ++i) {
        const skf_gltf_node *n = &d->nodes[i];
        if (n->skin < 0 || n->mesh < 0)
            continue;
        CHECK_NEAR(n->scale[0], 100.0, 1e-3);
        CHECK_NEAR(n->rotation[0], -sqrt(0.5), 1e-4);
        CHECK_NEAR(n->rotation[3], sqrt(0.5), 1e-4);
        double m[16];
        skf_gltf_node_local_matrix(n, m);
        /* +Y maps to -Z (scaled): column 1 = (0, 0, -100) */
        CHECK_NEAR(m[4 * 1 + 2], -100.0, 1e-2);
    }
    printf("%s: %zu vertices, %zu joints, %zu clips, Walk/Gallop keys %zu/%zu\n", name,
           total_vertices(d), joints, d->animation_count, walk >= 0 ? clip_keys(d, walk) : 0,
           gallop >= 0 ? clip_keys(d, gallop) : 0);
    if (strcmp(name, "Horse") == 0) {
        CHECK(total_vertices(d) == 4400);
        CHECK(joints == 50);
    }
    skf_gltf_free(d);
}

int main(void)
{
    if (!skf_test_data("quaternius/animals/Horse.glb"))
        SKF_SKIP("shared data not found under %s", skf_test_data_dir());
    const char *animals[] = {"Horse", "Deer", "Fox", "Wolf", "Cow", "Alpaca"};
    for (size_t i = 0; i < 6; ++i)
        check_animal(animals[i]);

    const char *dinos[] = {"Trex", "Stegosaurus", "Velociraptor"};
    for (size_t i = 0; i < 3; ++i) {
        char rel[256];
        snprintf(rel, sizeof rel, "quaternius/dinosaurs/%s.glb", dinos[i]);
        skf_gltf *d = load(rel);
        if (!d)
            continue;
        int walk = skf_clip_find(d, "Walk", NULL), run = skf_clip_find(d, "Run", NULL);
        CHECK_MSG(walk >= 0 && run >= 0, "%s: Walk %d Run %d", dinos[i], walk, run);
        if (walk >= 0)
            CHECK(strncmp(d->animations[walk].name, "Armature|", 9) == 0);
        CHECK(d->skin_count == 1);
        printf("%s: %zu vertices, %zu joints, %zu clips\n", dinos[i], total_vertices(d),
               d->skin_count ? d->skins[0].joint_count : 0, d->animation_count);
        skf_gltf_free(d);
    }

    skf_gltf *fox = load("khronos/Fox.glb");
    if (fox) {
        CHECK(total_vertices(fox) == 1728);
        CHECK(fox->skin_count == 1 && fox->skins[0].joint_count == 24);
        CHECK(fox->animation_count == 3);
        CHECK(skf_clip_find(fox, "Survey", NULL) == 0);
        CHECK(skf_clip_find(fox, "Walk", NULL) == 1);
        CHECK(skf_clip_find(fox, "Run", NULL) == 2);
        /* Run keyed at about 20.7 fps */
        int in = fox->animations[2].samplers[0].input;
        size_t n = fox->accessors[in].count;
        double *t = malloc(n * sizeof *t);
        skf_error e;
        CHECK(skf_gltf_accessor_read(fox, in, t, true, &e) == SKF_OK);
        double fps = (double)(n - 1) / (t[n - 1] - t[0]);
        CHECK_NEAR(fps, 20.7, 0.1);
        printf("khronos Fox: %zu vertices, Run %zu keys at %.2f fps\n", total_vertices(fox), n, fps);
        free(t);
        skf_gltf_free(fox);
    }

    skf_gltf *morph = load("khronos/MorphStressTest.gltf");
    if (morph) {
        CHECK(morph->mesh_count >= 1);
        size_t targets = morph->meshes[0].primitives[0].target_count;
        CHECK(targets == 8);
        CHECK(morph->meshes[0].weight_count == 8);
        CHECK(morph->animation_count == 3);
        for (size_t a = 0; a < morph->animation_count; ++a)
            for (size_t c = 0; c < morph->animations[a].channel_count; ++c)
                CHECK(morph->animations[a].channels[c].path == SKF_PATH_WEIGHTS);
        CHECK(morph->buffer_count >= 1);
        printf("MorphStressTest: %zu vertices, %zu targets, %zu weight clips\n",
               total_vertices(morph), targets, morph->animation_count);
        skf_gltf_free(morph);
    }

    const char *dem[] = {"Bone_All", "Bone_Geom", "Bone_Skin", "Bone_Trans",
                         "Decomposition_05", "Decomposition_10", "Decomposition_20"};
    const size_t dem_joints[] = {0, 0, 0, 0, 5, 10, 20};
    for (size_t i = 0; i < 7; ++i) {
        char rel[256];
        snprintf(rel, sizeof rel, "dembones/%s.glb", dem[i]);
        skf_gltf *d = load(rel);
        if (!d)
            continue;
        CHECK_MSG(total_vertices(d) == 808, "%s: %zu vertices", dem[i], total_vertices(d));
        if (dem_joints[i])
            CHECK(d->skin_count == 1 && d->skins[0].joint_count == dem_joints[i]);
        printf("%s: %zu vertices, %zu skins, %zu clips\n", dem[i], total_vertices(d),
               d->skin_count, d->animation_count);
        skf_gltf_free(d);
    }
    return skf_test_done();
}
