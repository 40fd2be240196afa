/* Issue 7, fault injection: every allocation of a whole `skinfit decompose`
 * run fails in turn (tests/faults/sweep.h): load a skinned glTF and bake its
 * clip into a vertex animation, decompose it into 2 bones (split
 * initialisation, 3 alternations, 1 PCA corrective shape), write the GLB,
 * the JSON report and the reconstruction MDD. The input is the small tube of
 * tube_rig.h (5 x 5 vertices, 2 bones, clip "Bend" of 5 keys: 5 frames). */
#include "sweep.h"
#include "cli.h"
#include "tube_rig.h"

int main(void)
{
    const char *build = getenv("SKF_BUILD_DIR");
    char dir[4096], src[4200];
    snprintf(dir, sizeof dir, "%s/faults_decompose", build && *build ? build : "/tmp");
    sweep_rm_rf(dir);
    if (mkdir(dir, 0777) != 0) {
        perror(dir);
        return 1;
    }
    snprintf(src, sizeof src, "%s/tube.glb", dir);
    skf_gltf *doc = NULL;
    skf_error err;
    skf_status st = tube_rig_build(5, 5, 2, 5, &doc, &err);
    if (!st)
        st = skf_gltf_write_glb(doc, src, NULL, &err);
    skf_gltf_free(doc);
    CHECK_MSG(st == SKF_OK, "tube: %s", err.message);
    if (st)
        return skf_test_done();
    const char *args[] = {"decompose", "tube.glb", "--bones", "2", "--max-iterations", "3", "--pca", "1",
                          "--threads", "1", "-o", "out.glb", "--report", "report.json",
                          "--reconstruction", "recon.mdd", NULL};
    const char *inputs[] = {"tube.glb", NULL};
    const char *outputs[] = {"out.glb", "report.json", "recon.mdd", NULL};
    sweep_case c = {"decompose", cmd_decompose, args, dir, inputs, outputs, 0, 0};
    sweep_result r = sweep_cli(&c);
    CHECK(r.allocations > 0);
    CHECK(r.points >= r.allocations);
    CHECK(r.leaks == 0);
    return skf_test_done();
}
