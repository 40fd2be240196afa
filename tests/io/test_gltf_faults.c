/* Fail every allocation in turn: building the creature, adding an
 * animation and writing GLBs (with repairs) either succeed or fail with
 * SKF_ERR_NOMEM, never crash or leak (run under ASan), and a failed write
 * leaves neither the output nor a temporary behind. */
#include "check.h"
#include "skinfit/creature.h"
#include "skinfit/gltf.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

static size_t leftovers(const char *dir)
{
    size_t n = 0;
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d)))
        n += strstr(de->d_name, ".tmp-") != NULL || strcmp(de->d_name, "out.glb") == 0;
    if (d)
        closedir(d);
    return n;
}

/* Run op with allocation n failing, for n = 1, 2, ... until op no longer
 * reaches the failure. Returns the number of failure points exercised. */
#define FAULT_LOOP(op_status, cleanup)                                                   \
    do {                                                                                 \
        for (size_t n = 1;; ++n) {                                                       \
            skf_alloc_fail_from(n);                                                      \
            skf_status st_ = (op_status);                                                \
            size_t made_ = skf_alloc_fail_from(0);                                       \
            CHECK_MSG(st_ == SKF_OK || st_ == SKF_ERR_NOMEM, "failure %zu: status %d", n,  \
                      (int)st_);                                                         \
            cleanup;                                                                     \
            if (made_ < n) {                                                             \
                CHECK(st_ == SKF_OK);                                                    \
                points += n - 1;                                                         \
                break;                                                                   \
            }                                                                            \
            if (n > 100000) {                                                            \
                CHECK(!"fault loop did not terminate");                                  \
                break;                                                                   \
            }                                                                            \
        }                                                                                \
    } while (0)

int main(void)
{
    const char *bd = getenv("SKF_BUILD_DIR");
    char dir[2048], out[2200];
    snprintf(dir, sizeof dir, "%s/gltfwrite_faults", bd && *bd ? bd : ".");
    mkdir(dir, 0777);
    snprintf(out, sizeof out, "%s/out.glb", dir);
    size_t points = 0;
    skf_error e;

    skf_creature_options opt = {.vertices = 600, .keys_per_second = 8};
    skf_gltf *c = NULL;
    FAULT_LOOP(skf_creature_build(&opt, &c, &e), { skf_gltf_free(c); c = NULL; });
    printf("creature build: %zu allocation failure points\n", points);

    CHECK(skf_creature_build(&opt, &c, &e) == SKF_OK);
    size_t before = points;
    if (c) {
        FAULT_LOOP(skf_gltf_write_glb(c, out, NULL, &e),
                   { CHECK(st_ == SKF_OK || leftovers(dir) == 0); unlink(out); });
        skf_gltf_free(c);
    }
    printf("creature write: %zu failure points\n", points - before);

    const char *src = skf_test_data("dembones/Bone_Skin.glb"); /* needs a weight repair */
    if (src) {
        skf_gltf *d = NULL;
        CHECK(skf_gltf_load(src, &d, NULL, &e) == SKF_OK);
        before = points;
        if (d) {
            skf_warnings w = {0};
            FAULT_LOOP(skf_gltf_write_glb(d, out, &w, &e),
                       {
                           CHECK(st_ == SKF_OK || leftovers(dir) == 0);
                           unlink(out);
                           skf_warnings_release(&w);
                       });
            skf_gltf_free(d);
        }
        printf("Bone_Skin write with repair: %zu failure points\n", points - before);
        before = points;
        float t[2] = {0, 1}, q[8] = {0, 0, 0, 1, 0, 0.6f, 0, 0.8f};
        skf_gltf_new_channel ch = {2, SKF_PATH_ROTATION, SKF_INTERP_LINEAR, 2, t, q, 4};
        skf_gltf *d2 = NULL;
        CHECK(skf_gltf_load(src, &d2, NULL, &e) == SKF_OK);
        if (d2) {
            /* after a failed add, a reparse restores the typed views and the
             * document still writes */
            FAULT_LOOP(skf_gltf_add_animation(d2, "F", &ch, 1, &e), {
                if (st_ != SKF_OK)
                    CHECK(skf_gltf_reparse(d2, NULL, &e) == SKF_OK);
            });
            CHECK(skf_gltf_write_glb(d2, out, NULL, &e) == SKF_OK);
            unlink(out);
            skf_gltf_free(d2);
        }
        printf("add_animation: %zu failure points\n", points - before);
    } else {
        printf("dembones/Bone_Skin.glb absent: writer-with-repair faults not exercised\n");
    }
    CHECK(leftovers(dir) == 0);
    printf("%zu allocation failure points in all\n", points);
    return skf_test_done();
}
