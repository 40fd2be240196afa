/* Issue 3 acceptance 1: the control run (each artist rig solved against its
 * own clip) on the six shared Quaternius animals × Walk and Gallop lands on
 * zero: mean error <= 1e-5 % and worst vertex <= 1e-4 % of the diagonal,
 * quality >= 99.999 %. */
#include "check.h"
#include "skinfit/gltf.h"
#include "skinfit/transfer.h"

int main(void)
{
    static const char *animals[] = {"Horse", "Deer", "Fox", "Wolf", "Cow", "Alpaca"};
    static const char *clips[] = {"Walk", "Gallop"};
    int ran = 0;
    double worst_mean = 0, worst_max = 0, worst_q = 1;
    for (size_t a = 0; a < 6; ++a) {
        char rel[256];
        snprintf(rel, sizeof rel, "quaternius/animals/%s.glb", animals[a]);
        const char *path = skf_test_data(rel);
        if (!path) {
            printf("absent: %s\n", rel);
            continue;
        }
        skf_error err = {0};
        skf_gltf *doc = NULL;
        CHECK_MSG(skf_gltf_load(path, &doc, NULL, &err) == SKF_OK, "%s", err.message);
        if (!doc)
            continue;
        skf_transfer *t = NULL;
        CHECK_MSG(skf_transfer_new(doc, NULL, NULL, &t, NULL, &err) == SKF_OK, "%s", err.message);
        for (size_t c = 0; t && c < 2; ++c) {
            skf_transfer_clip r;
            skf_status st = skf_transfer_run_clip(t, clips[c], &r, NULL, &err);
            CHECK_MSG(st == SKF_OK, "%s", err.message);
            if (st)
                continue;
            ++ran;
            printf("%-7s %-7s frames %3zu  quality %.9f %%  mean %.3e %%  worst %.3e %%  sweeps/frame %.1f  %.3f s\n",
                   animals[a], clips[c], r.frames, 100 * r.control.quality, r.control.mean_error_pct,
                   r.control.max_error_pct, r.control.sweeps_per_frame, r.control.solve_seconds);
            CHECK(r.control.present && !r.free.present);
            CHECK(r.control.mean_error_pct <= 1e-5);
            CHECK(r.control.max_error_pct <= 1e-4);
            CHECK(100 * r.control.quality >= 99.999);
            worst_mean = fmax(worst_mean, r.control.mean_error_pct);
            worst_max = fmax(worst_max, r.control.max_error_pct);
            worst_q = fmin(worst_q, r.control.quality);
            skf_transfer_clip_release(&r);
        }
        skf_transfer_free(t);
        skf_gltf_free(doc);
    }
    if (ran == 0)
        SKF_SKIP("shared Quaternius animals absent");
    printf("over %d clips: worst mean %.3e %%, worst vertex %.3e %%, lowest quality %.9f %%\n", ran, worst_mean,
           worst_max, 100 * worst_q);
    CHECK(ran == 12);
    return skf_test_done();
}
