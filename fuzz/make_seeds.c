/* Seed corpus for the fuzz harnesses, made by our own code (no shared
 * asset is copied): writes into OUT/<harness>/
 *   gltf/, pipeline/  creature.glb — the procedural creature at its smallest
 *                     (about 500 vertices, 28 joints, Walk and Trot keyed at
 *                     4 keys/s);
 *   pc2/, mdd/        walk.pc2, walk.mdd — Walk baked at 4 frames/s;
 *   obj/              frame_0000.obj … — the same frames as OBJ files.
 * usage: make_seeds OUT   (prints one line per harness; exit 1 on failure)
 * Used by scripts/fuzz.sh and by the fuzz_seeds ctest fixture, so the
 * replay tests always run every harness on at least one valid input. */
#include "skinfit/creature.h"
#include "skinfit/gltf.h"
#include "skinfit/rig.h"
#include "skinfit/meshseq.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

static int make_dir(const char *path)
{
    if (mkdir(path, 0777) == 0 || errno == EEXIST)
        return 0;
    fprintf(stderr, "make_seeds: %s: cannot create folder\n", path);
    return 1;
}

static int fail(const skf_error *err)
{
    fprintf(stderr, "make_seeds: %s\n", err->message);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_seeds OUT\n");
        return 2;
    }
    const char *out = argv[1];
    char path[4096];
    if (make_dir(out))
        return 1;
    static const char *const dirs[] = {"gltf", "pipeline", "pc2", "mdd", "obj"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; ++i) {
        snprintf(path, sizeof path, "%s/%s", out, dirs[i]);
        if (make_dir(path))
            return 1;
    }
    skf_error err;
    skf_gltf *doc = NULL;
    skf_creature_options copt = {.vertices = 500, .keys_per_second = 4};
    if (skf_creature_build(&copt, &doc, &err) != SKF_OK)
        return fail(&err);
    int rc = 0;
    for (int k = 0; k < 2 && !rc; ++k) {
        snprintf(path, sizeof path, "%s/%s/creature.glb", out, k ? "pipeline" : "gltf");
        if (skf_gltf_write_glb(doc, path, NULL, &err) != SKF_OK)
            rc = fail(&err);
    }
    skf_rig *rig = NULL;
    skf_clip *clip = NULL;
    skf_meshseq *seq = NULL;
    if (!rc && (skf_rig_from_gltf(doc, 0, NULL, &rig, NULL, &err) != SKF_OK ||
                skf_clip_from_gltf(doc, 0, &clip, &err) != SKF_OK ||
                skf_rig_bake(rig, clip, 4.0, 1, NULL, &seq, &err) != SKF_OK))
        rc = fail(&err);
    if (!rc) {
        snprintf(path, sizeof path, "%s/pc2/walk.pc2", out);
        if (skf_pc2_write(path, seq, &err) != SKF_OK)
            rc = fail(&err);
    }
    if (!rc) {
        snprintf(path, sizeof path, "%s/mdd/walk.mdd", out);
        if (skf_mdd_write(path, seq, &err) != SKF_OK)
            rc = fail(&err);
    }
    if (!rc) {
        snprintf(path, sizeof path, "%s/obj/", out);
        if (skf_objseq_write(path, seq, &err) != SKF_OK)
            rc = fail(&err);
    }
    if (!rc)
        printf("make_seeds: %s: creature %zu vertices, %zu joints; Walk %zu frames\n", out,
               rig->vertex_count, rig->joint_count, seq->frame_count);
    skf_meshseq_free(seq);
    skf_clip_free(clip);
    skf_rig_free(rig);
    skf_gltf_free(doc);
    return rc;
}
