/* CLI tests for `info` and `bake`: the info JSON schema keys (acceptance 5,
 * docs/info-json.md), the Quaternius quirks (acceptance 2), exit codes and
 * messages, atomic outputs. */
#include "check.h"
#include "skinfit/meshseq.h"

#include <jansson.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *bin;
static char tmp[128];
static char out_buf[1 << 22], err_buf[1 << 16];

/* Run "bin args" via the shell; capture stdout and stderr; return exit code. */
static int run(const char *args)
{
    char cmd[4096], ep[256];
    snprintf(ep, sizeof ep, "%s/stderr", tmp);
    snprintf(cmd, sizeof cmd, "'%s' %s 2>'%s'", bin, args, ep);
    FILE *p = popen(cmd, "r");
    size_t n = p ? fread(out_buf, 1, sizeof out_buf - 1, p) : 0;
    out_buf[n] = 0;
    int st = p ? pclose(p) : -1;
    FILE *e = fopen(ep, "rb");
    n = e ? fread(err_buf, 1, sizeof err_buf - 1, e) : 0;
    err_buf[n] = 0;
    if (e)
        fclose(e);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* obj has exactly the keys listed (NULL-terminated). */
static void check_keys(json_t *obj, const char *what, const char *const *keys)
{
    size_t n = 0;
    for (; keys[n]; ++n)
        CHECK_MSG(json_object_get(obj, keys[n]) != NULL, "%s lacks key '%s'", what, keys[n]);
    CHECK_MSG(json_object_size(obj) == n, "%s has %zu keys, schema lists %zu", what,
              json_object_size(obj), n);
}

static const char *const top_keys[] = {"schema", "file", "nodes", "meshes", "skins", "unskinned",
                                       "clips", "morph_targets", NULL};
static const char *const mesh_keys[] = {"index", "name", "primitives", "vertices", "morph_targets",
                                        "nodes", "skinned", NULL};
static const char *const skin_keys[] = {"index", "name", "skeleton", "mesh_nodes", "vertices",
                                        "welded_vertices", "triangles", "morph_targets",
                                        "max_influences", "joints", NULL};
static const char *const unskinned_keys[] = {"mesh_nodes", "vertices", "welded_vertices", "triangles",
                                             "morph_targets", "max_influences", NULL};
static const char *const joint_keys[] = {"index", "node", "name", "parent", "has_weight", NULL};
static const char *const clip_keys[] = {"index", "name", "start", "end", "duration", "channels",
                                        "max_keys", "total_keys", "key_rate", "frames", "paths",
                                        "interpolations", NULL};
static const char *const morph_keys[] = {"node", "mesh", "count", "default_weights", NULL};

static json_t *info_json(const char *file)
{
    char args[1024];
    snprintf(args, sizeof args, "info --json '%s'", file);
    CHECK(run(args) == 0);
    json_error_t je;
    json_t *j = json_loads(out_buf, 0, &je);
    CHECK_MSG(j != NULL, "info --json output is not JSON: %s", je.text);
    return j;
}

static void check_schema(json_t *j, const char *file)
{
    check_keys(j, file, top_keys);
    CHECK(!strcmp(json_string_value(json_object_get(j, "schema")), "skinfit-info/1"));
    size_t i, k;
    json_t *v, *u;
    json_array_foreach(json_object_get(j, "meshes"), i, v) check_keys(v, "mesh", mesh_keys);
    json_array_foreach(json_object_get(j, "skins"), i, v) {
        check_keys(v, "skin", skin_keys);
        json_array_foreach(json_object_get(v, "joints"), k, u) check_keys(u, "joint", joint_keys);
    }
    check_keys(json_object_get(j, "unskinned"), "unskinned", unskinned_keys);
    json_array_foreach(json_object_get(j, "clips"), i, v) check_keys(v, "clip", clip_keys);
    json_array_foreach(json_object_get(j, "morph_targets"), i, v) check_keys(v, "morph", morph_keys);
}

static json_t *joint_named(json_t *skin, const char *name)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(skin, "joints"), i, v) {
        const char *n = json_string_value(json_object_get(v, "name"));
        if (n && !strcmp(n, name))
            return v;
    }
    return NULL;
}

int main(void)
{
    bin = getenv("SKF_BIN");
    if (!bin)
        SKF_SKIP("SKF_BIN not set");
    snprintf(tmp, sizeof tmp, "/tmp/skf_cli_rig_XXXXXX");
    CHECK(mkdtemp(tmp) != NULL);
    char args[2048], out[512];

    /* usage errors: exit 2 */
    CHECK(run("info") == 2);
    CHECK(run("info --bogus x.glb") == 2);
    CHECK(run("bake") == 2);
    CHECK(run("bake x.glb -o y.pc2") == 2 && strstr(err_buf, "--clip"));
    CHECK(run("bake x.glb --clip Walk") == 2 && strstr(err_buf, "-o"));
    CHECK(run("bake x.glb --clip Walk --fps -3 -o y.pc2") == 2);
    CHECK(run("bake x.glb --clip Walk -o y.txt") == 2);
    CHECK(run("info --help") == 0 && strstr(out_buf, "usage: skinfit info"));
    CHECK(run("bake --help") == 0 && strstr(out_buf, "usage: skinfit bake"));
    /* missing file / directory: exit 1 naming the file */
    CHECK(run("info /nonexistent/none.glb") == 1 && strstr(err_buf, "/nonexistent/none.glb"));
    snprintf(args, sizeof args, "info '%s'", tmp);
    CHECK(run(args) == 1 && strstr(err_buf, tmp));

    const char *horse = skf_test_data("quaternius/animals/Horse.glb");
    const char *alpaca = skf_test_data("quaternius/animals/Alpaca.glb");
    const char *morph = skf_test_data("khronos/MorphStressTest.gltf");
    if (!horse || !morph || !alpaca) {
        printf("shared assets absent: data part skipped\n");
        return skf_test_done() ? 1 : 77;
    }

    /* info --json: schema and the Quaternius facts */
    json_t *j = info_json(horse);
    check_schema(j, "Horse.glb");
    json_t *skin = json_array_get(json_object_get(j, "skins"), 0);
    CHECK(json_integer_value(json_object_get(skin, "vertices")) == 4400);
    CHECK(json_integer_value(json_object_get(skin, "welded_vertices")) == 1093);
    CHECK(json_integer_value(json_object_get(skin, "max_influences")) <= 4);
    const char *ik[] = {"IKBackLeg.L", "IKBackLeg.R", "IKFrontLeg.L", "IKFrontLeg.R"};
    for (int i = 0; i < 4; ++i) {
        json_t *jt = joint_named(skin, ik[i]);
        CHECK_MSG(jt && json_is_true(json_object_get(jt, "has_weight")), "%s carries weight", ik[i]);
        CHECK(jt && json_is_null(json_object_get(jt, "parent"))); /* IK roots: no joint parent */
    }
    json_t *pole = joint_named(skin, "PoleTarget.L");
    CHECK(pole && json_is_false(json_object_get(pole, "has_weight")));
    json_t *body = joint_named(skin, "Body");
    CHECK(body && json_is_false(json_object_get(body, "has_weight")));
    json_t *walk = NULL;
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(j, "clips"), i, v)
        if (!strcmp(json_string_value(json_object_get(v, "name")), "AnimalArmature|Walk"))
            walk = v;
    CHECK(walk && json_integer_value(json_object_get(walk, "frames")) == 29);
    CHECK(walk && fabs(json_real_value(json_object_get(walk, "key_rate")) - 24) < 1e-4);
    printf("Horse: %lld vertices, %lld welded, Walk %lld frames\n",
           json_integer_value(json_object_get(skin, "vertices")),
           json_integer_value(json_object_get(skin, "welded_vertices")),
           walk ? json_integer_value(json_object_get(walk, "frames")) : -1);
    json_decref(j);
    /* stable: two runs print the same bytes */
    snprintf(args, sizeof args, "info --json '%s'", horse);
    run(args);
    char *first = strdup(out_buf);
    run(args);
    CHECK(!strcmp(first, out_buf));
    free(first);

    j = info_json(morph);
    check_schema(j, "MorphStressTest.gltf");
    CHECK(json_array_size(json_object_get(j, "skins")) == 0);
    json_t *m0 = json_array_get(json_object_get(j, "morph_targets"), 0);
    CHECK(m0 && json_integer_value(json_object_get(m0, "count")) == 8);
    CHECK(json_array_size(json_object_get(j, "clips")) == 3);
    json_decref(j);

    /* Alpaca: coincident vertices differ in weights -> more welded vertices
     * than distinct positions (the weld keys on weights too) */
    j = info_json(alpaca);
    skin = json_array_get(json_object_get(j, "skins"), 0);
    printf("Alpaca: %lld vertices, %lld welded\n", json_integer_value(json_object_get(skin, "vertices")),
           json_integer_value(json_object_get(skin, "welded_vertices")));
    json_decref(j);

    /* bake: unknown clip -> exit 1 listing the clips, no output */
    snprintf(out, sizeof out, "%s/walk.pc2", tmp);
    snprintf(args, sizeof args, "bake '%s' --clip Trot -o '%s'", horse, out);
    CHECK(run(args) == 1 && strstr(err_buf, "animations: no clip named 'Trot' (available: ") &&
          strstr(err_buf, "Walk"));
    CHECK(!exists(out));
    printf("unknown clip: %.200s...\n", err_buf);
    /* prefixed and unprefixed names give the same bake */
    snprintf(args, sizeof args, "bake '%s' --clip Walk -o '%s'", horse, out);
    CHECK(run(args) == 0);
    skf_meshseq *a = NULL, *b = NULL;
    skf_error err;
    CHECK(skf_pc2_read(out, &a, &err) == SKF_OK);
    CHECK(a && a->vertex_count == 4400 && a->frame_count == 29);
    snprintf(args, sizeof args, "bake '%s' --clip 'AnimalArmature|Walk' -o '%s'", horse, out);
    CHECK(run(args) == 0);
    CHECK(skf_pc2_read(out, &b, &err) == SKF_OK);
    CHECK(a && b && a->frame_count == b->frame_count &&
          !memcmp(a->positions, b->positions, a->frame_count * a->vertex_count * 3 * sizeof(double)));
    skf_meshseq_free(b);
    b = NULL;
    /* --weld: 1093 vertices; --fps 12 -> frames at k/12 through 1.1667 s: 15 */
    snprintf(args, sizeof args, "bake '%s' --clip Walk --weld --fps 12 -o '%s'", horse, out);
    CHECK(run(args) == 0);
    CHECK(skf_pc2_read(out, &b, &err) == SKF_OK);
    CHECK(b && b->vertex_count == 1093 && b->frame_count == 15);
    skf_meshseq_free(b);
    b = NULL;
    /* OBJ sequence into a folder: same positions as the PC2 (9 digits vs float32) */
    char dir[512];
    snprintf(dir, sizeof dir, "%s/walk/", tmp);
    snprintf(args, sizeof args, "bake '%s' --clip Walk -o '%s'", horse, dir);
    CHECK(run(args) == 0);
    CHECK(skf_objseq_read(dir, &b, &err) == SKF_OK);
    CHECK(b && a && b->frame_count == 29 && b->vertex_count == 4400 && b->triangle_count == 2200 - 18);
    double maxd = 0;
    for (size_t k = 0; a && b && k < a->frame_count * a->vertex_count * 3; ++k)
        maxd = fmax(maxd, fabs(a->positions[k] - b->positions[k]));
    printf("OBJ vs PC2 bake: max |diff| %.3g\n", maxd);
    CHECK(maxd < 1e-5);
    skf_meshseq_free(a);
    skf_meshseq_free(b);
    /* never overwrite the input; a bad input leaves no output */
    char copy[512];
    snprintf(copy, sizeof copy, "%s/h.pc2", tmp);
    snprintf(args, sizeof args, "bake '%s' --clip Walk -o '%s'", out, out);
    CHECK(run(args) == 1);
    snprintf(args, sizeof args, "bake /nonexistent.glb --clip Walk -o '%s'", copy);
    CHECK(run(args) == 1 && strstr(err_buf, "/nonexistent.glb") && !exists(copy));
    /* MorphStressTest: no skin -> the unskinned surface, morph weights animate */
    snprintf(args, sizeof args, "bake '%s' --clip Pulse -o '%s'", morph, copy);
    CHECK(run(args) == 0 && strstr(out_buf, "153 frames"));
    CHECK(run("bake x.glb --clip W --skin 9 -o y.pc2") == 1); /* missing file first */

    snprintf(args, sizeof args, "rm -rf '%s'", tmp);
    CHECK(system(args) == 0);
    return skf_test_done();
}
