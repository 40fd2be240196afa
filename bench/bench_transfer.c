/* Transfer benchmark (issue 3 acceptance 9, our part): the procedural
 * creature at 5k / 50k / 200k vertices, its artist rig's Walk transferred
 * onto a second rig of the same mesh made by autoweights (P=2, K=4), free
 * mode, every vertex a constraint. Prints set-up time (weld, alignment,
 * correspondence, solver precomputation), solve time per clip and per frame,
 * sweeps per frame, and peak resident memory after each size. Optional:
 * Horse Walk onto Horse autoweights when the shared data is present.
 * usage: bench_transfer [max_vertices]   (env SKF_DATA) */
#include "skinfit/creature.h"
#include "skinfit/gltf.h"
#include "skinfit/rig.h"
#include "skinfit/transfer.h"

#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static int one(const char *label, skf_gltf *src, skf_gltf *tgt)
{
    skf_error err;
    double t0 = bench_wall();
    skf_transfer *t = NULL;
    if (skf_transfer_new(src, tgt, NULL, &t, NULL, &err)) {
        fprintf(stderr, "%s: %s\n", label, err.message);
        return 1;
    }
    double t1 = bench_wall(), c1 = bench_cpu();
    skf_transfer_clip c;
    if (skf_transfer_run_clip(t, "Walk", &c, NULL, &err)) {
        fprintf(stderr, "%s: %s\n", label, err.message);
        skf_transfer_free(t);
        return 1;
    }
    double c2 = bench_cpu(), t2 = bench_wall();
    skf_transfer_info in;
    skf_transfer_get_info(t, &in);
    printf("%-28s %8zu %6zu %6zu %9.3f %9.3f %9.3f %9.3f %9.2f %8.1f %8.1f %9.5f %9.1f\n", label, in.constraints,
           in.target_joints, c.frames, t1 - t0, c.free.solve_seconds, t2 - t1, c2 - c1,
           1e3 * c.free.solve_seconds / (double)c.frames, c.free.sweeps_per_frame,
           c.free.iterations_per_frame, 100 * c.free.quality, bench_peak_mib());
    skf_transfer_clip_release(&c);
    skf_transfer_free(t);
    return 0;
}

int main(int argc, char **argv)
{
    size_t maxv = argc > 1 ? (size_t)atol(argv[1]) : 200000;
    printf("%-28s %8s %6s %6s %9s %9s %9s %9s %9s %8s %8s %9s %9s\n", "case", "constr.", "bones", "frames", "setup s",
           "solve s", "clip s", "clip CPU", "ms/frame", "sweeps", "newton", "quality%", "peak MiB");
    printf("(solve s: the free solve's wall time; clip s: the whole clip incl. sampling, control,\n"
           " carrying, measuring and TRS conversion; clip CPU: process CPU seconds of the clip)\n");
    const size_t sizes[3] = {5000, 50000, 200000};
    int rc = 0;
    for (int k = 0; k < 3 && sizes[k] <= maxv; ++k) {
        skf_creature_options o = {.vertices = sizes[k]};
        skf_gltf *src = NULL, *tgt = NULL;
        skf_error err;
        skf_autoweights_options ao = {4, 2};
        if (skf_creature_build(&o, &src, &err) || skf_creature_build(&o, &tgt, &err) ||
            skf_autoweights_gltf(tgt, 0, &ao, NULL, &err)) {
            fprintf(stderr, "creature: %s\n", err.message);
            return 1;
        }
        char label[64];
        snprintf(label, sizeof label, "creature %zuk -> autoweights", sizes[k] / 1000);
        rc |= one(label, src, tgt);
        skf_gltf_free(src);
        skf_gltf_free(tgt);
    }
    const char *data = getenv("SKF_DATA");
    char path[4096];
    snprintf(path, sizeof path, "%s/quaternius/animals/Horse.glb", data && *data ? data : "../shared/data");
    skf_gltf *h = NULL, *ha = NULL;
    skf_error err;
    skf_autoweights_options ao = {4, 2};
    if (!skf_gltf_load(path, &h, NULL, &err) && !skf_gltf_load(path, &ha, NULL, &err) &&
        !skf_autoweights_gltf(ha, 0, &ao, NULL, &err))
        rc |= one("Horse Walk -> autoweights", h, ha);
    else
        printf("(Horse: %s)\n", err.message);
    skf_gltf_free(h);
    skf_gltf_free(ha);
    return rc;
}
