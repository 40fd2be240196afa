/* STEP and CUBICSPLINE agree with three.js. The shared assets only use
 * LINEAR, so this test adds two clips to the procedural creature — "Cubic"
 * (CUBICSPLINE rotation, translation and scale channels with non-uniform key
 * times and arbitrary tangents) and "Step" (STEP rotations) — writes a GLB and
 * runs tests/js/three_bake.mjs on it at 30 fps (frames fall between keys and,
 * for Step, exactly on some). Skips (77) without node or three. */
#include "check.h"
#include "skinfit/creature.h"
#include "skinfit/gltf.h"
#include "skinfit/math.h"

#include <sys/wait.h>
#include <unistd.h>

static uint64_t rng = 88172645463325252ull;
static double urand(void) /* [-1, 1) */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 * 2 - 1;
}

static void small_rotation(float *q, double max_angle)
{
    double axis[3] = {urand(), urand(), urand()};
    double n = skf_norm3(axis), a = max_angle * urand();
    double s = sin(a / 2) / (n > 0 ? n : 1);
    q[0] = (float)(axis[0] * s);
    q[1] = (float)(axis[1] * s);
    q[2] = (float)(axis[2] * s);
    q[3] = (float)cos(a / 2);
}

int main(void)
{
    const char *bin = getenv("SKF_BIN"), *src = getenv("SKF_SOURCE_DIR");
    if (!bin || !src)
        SKF_SKIP("SKF_BIN / SKF_SOURCE_DIR not set");
    if (system("node --version >/dev/null 2>&1") != 0)
        SKF_SKIP("node not found");
    skf_creature_options opt = {.vertices = 1000};
    skf_gltf *doc = NULL;
    skf_error err = {0};
    CHECK(skf_creature_build(&opt, &doc, &err) == SKF_OK);
    if (!doc)
        return skf_test_done();

    /* Cubic: 5 keys at non-uniform times; per key in-tangent, value, out-tangent */
    enum { K = 5, J = 6 };
    const float times[K] = {0.0f, 0.3f, 0.5f, 0.9f, 1.2f};
    static float rot[J][K * 3 * 4], tra[K * 3 * 3], sca[K * 3 * 3];
    skf_gltf_new_channel ch[J + 2];
    for (int j = 0; j < J; ++j) {
        for (int k = 0; k < K; ++k) {
            float *key = rot[j] + k * 12;
            small_rotation(key + 4, 1.2);
            for (int c = 0; c < 4; ++c) {
                key[c] = (float)(0.8 * urand());     /* in-tangent */
                key[8 + c] = (float)(0.8 * urand()); /* out-tangent */
            }
        }
        ch[j] = (skf_gltf_new_channel){(int)(j + 1), SKF_PATH_ROTATION, SKF_INTERP_CUBICSPLINE, K, times,
                                       rot[j], 4};
    }
    for (int k = 0; k < K; ++k)
        for (int c = 0; c < 3; ++c) {
            tra[k * 9 + c] = (float)(0.5 * urand());
            tra[k * 9 + 3 + c] = (float)(0.1 * urand() + (c == 1 ? 0.9 : 0.0));
            tra[k * 9 + 6 + c] = (float)(0.5 * urand());
            sca[k * 9 + c] = (float)(0.3 * urand());
            sca[k * 9 + 3 + c] = (float)(1 + 0.2 * urand());
            sca[k * 9 + 6 + c] = (float)(0.3 * urand());
        }
    ch[J] = (skf_gltf_new_channel){1, SKF_PATH_TRANSLATION, SKF_INTERP_CUBICSPLINE, K, times, tra, 3};
    ch[J + 1] = (skf_gltf_new_channel){3, SKF_PATH_SCALE, SKF_INTERP_CUBICSPLINE, K, times, sca, 3};
    CHECK(skf_gltf_add_animation(doc, "Cubic", ch, J + 2, &err) == SKF_OK);

    /* Step: 4 keys at 0, 0.25, 0.5, 0.75 */
    const float st[4] = {0.0f, 0.25f, 0.5f, 0.75f};
    static float srot[4][4 * 4];
    skf_gltf_new_channel sch[4];
    for (int j = 0; j < 4; ++j) {
        for (int k = 0; k < 4; ++k)
            small_rotation(srot[j] + 4 * k, 1.0);
        sch[j] = (skf_gltf_new_channel){(int)(j + 2), SKF_PATH_ROTATION, SKF_INTERP_STEP, 4, st, srot[j], 4};
    }
    CHECK_MSG(skf_gltf_add_animation(doc, "Step", sch, 4, &err) == SKF_OK, "%s", err.message);

    char dir[] = "/tmp/skf_interp_three_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char glb[256], cmd[2048];
    snprintf(glb, sizeof glb, "%s/creature_interp.glb", dir);
    CHECK_MSG(skf_gltf_write_glb(doc, glb, NULL, &err) == SKF_OK, "%s", err.message);
    skf_gltf_free(doc);

    snprintf(cmd, sizeof cmd, "node '%s/tests/js/three_bake.mjs' --fps 30 '%s'", src, glb);
    int rc = system(cmd);
    int code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    unlink(glb);
    rmdir(dir);
    if (code == 77)
        SKF_SKIP("three.js absent");
    CHECK_MSG(code == 0, "three_bake.mjs exited %d", code);
    return skf_test_done();
}
