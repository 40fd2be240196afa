/* bench_decompose: skinning decomposition timings (issue 4, acceptance 6).
 *   1. Bone_Anim (754 vertices x 400 frames) at 5 / 10 / 20 bones, with the
 *      Dem Bones errors for comparison (0.0268 / 0.0161 / 0.0113);
 *   2. the procedural creature baked to ~50k vertices x 100 frames,
 *      decomposed with 60 bones.
 * Prints total time, initialisation time, time per alternation and the
 * errors; docs/bench.md ("Decompose") quotes a run.
 * usage: bench_decompose [--skip-creature] [--threads T] [--vertices N]  (env SKF_DATA) */
#include "skinfit/creature.h"
#include "skinfit/decompose.h"
#include "skinfit/gltf.h"
#include "skinfit/rig.h"
#include "skinfit/meshseq.h"

#include <omp.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Process CPU seconds (all threads): on a shared machine the wall time
 * mostly measures the other jobs; CPU time is the comparable figure. */
static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

static double cpu_mark;

static void line(const char *name, const skf_decomposition *d, double ref)
{
    double cpu = cpu_seconds() - cpu_mark;
    double per = d->iterations ? (d->seconds_total - d->seconds_init) / (double)d->iterations : 0;
    printf("%-34s %4zu bones  CPU %8.2f s  wall %8.2f s  init %7.2f s  %3zu it x %7.3f s  RMS %.5f  E_RMS "
           "%.3f  worst %.3f %%",
           name, d->bone_count, cpu, d->seconds_total, d->seconds_init, d->iterations, per,
           d->metrics.rms, d->metrics.erms, d->metrics.max_error_pct);
    if (ref > 0)
        printf("  (Dem Bones %.4f, ours/theirs %.2f)", ref, d->metrics.rms / ref);
    printf("\n");
}

static int run_creature(size_t verts, size_t frames, size_t bones, const char *note)
{
    skf_error err;
    skf_creature_options co = {.vertices = verts};
    skf_gltf *doc = NULL;
    skf_rig *rig = NULL;
    skf_clip *clip = NULL;
    skf_meshseq *cs = NULL;
    skf_decomposition *d = NULL;
    int rc = 1;
    if (skf_creature_build(&co, &doc, &err) || skf_rig_from_gltf(doc, 0, NULL, &rig, NULL, &err) ||
        skf_clip_from_gltf(doc, 0, &clip, &err)) {
        printf("creature: %s\n", err.message);
        goto out;
    }
    /* `frames` frames over the clip: frame k at start + k / fps through the end. */
    double fps = (double)(frames - 1) / clip->duration;
    if (skf_rig_bake(rig, clip, fps, 0, NULL, &cs, &err)) {
        printf("creature bake: %s\n", err.message);
        goto out;
    }
    skf_decompose_options o = {.bone_count = bones};
    cpu_mark = cpu_seconds();
    if (skf_decompose(cs->vertex_count, cs->frame_count, cs->positions, rig->rest_positions,
                      cs->triangle_count, cs->triangles, &o, &d, &err)) {
        printf("creature decompose: %s\n", err.message);
        goto out;
    }
    char name[64];
    snprintf(name, sizeof name, "creature %zu v x %zu f, %d thr", cs->vertex_count, cs->frame_count,
             omp_get_max_threads());
    line(name, d, 0);
    printf("  %s\n", note);
    rc = 0;
out:
    skf_decomposition_free(d);
    skf_meshseq_free(cs);
    skf_clip_free(clip);
    skf_rig_free(rig);
    skf_gltf_free(doc);
    return rc;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    bool creature = true;
    int threads = 0;
    size_t verts = 50000;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--skip-creature"))
            creature = false;
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--vertices") && i + 1 < argc)
            verts = (size_t)atol(argv[++i]);
    }
    if (threads > 0)
        omp_set_num_threads(threads);
    printf("threads: %d\n", omp_get_max_threads());
    const char *dir = getenv("SKF_DATA") ? getenv("SKF_DATA") : "../shared/data";
    char path[4096];
    snprintf(path, sizeof path, "%s/dembones/Bone_Anim.abc", dir);
    skf_error err;
    skf_meshseq *seq = NULL;
    if (skf_alembic_read(path, NULL, &seq, &err) == SKF_OK) {
        static const size_t bones[3] = {5, 10, 20};
        static const double ref[3] = {0.0268, 0.0161, 0.0113};
        for (int i = 0; i < 3; ++i) {
            skf_decompose_options o = {.bone_count = bones[i]};
            skf_decomposition *d = NULL;
            cpu_mark = cpu_seconds();
            if (skf_decompose(seq->vertex_count, seq->frame_count, seq->positions, NULL,
                              seq->triangle_count, seq->triangles, &o, &d, &err)) {
                printf("Bone_Anim: %s\n", err.message);
                continue;
            }
            char name[64];
            snprintf(name, sizeof name, "Bone_Anim 754 v x 400 f");
            line(name, d, ref[i]);
            skf_decomposition_free(d);
        }
        skf_meshseq_free(seq);
    } else {
        printf("Bone_Anim: %s (skipped)\n", err.message);
    }
    if (!creature)
        return 0;
    /* Anchor 1: Dem Bones' full decomposition ~10 s for 5000 v x 24 f x 30
     * bones on one thread; anchor 2: its weight solve alone ~6 min for
     * 50k v x 100 f x 60 bones. */
    int saved = omp_get_max_threads();
    omp_set_num_threads(1);
    int rc = run_creature(5000, 24, 30, "(one thread; Dem Bones anchor ~10 s in total)");
    omp_set_num_threads(saved);
    if (!rc)
        rc = run_creature(verts, 100, 60, "(Dem Bones anchor: weight solve alone ~6 min)");
    return rc;
}
