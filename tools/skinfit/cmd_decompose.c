/* skinfit decompose INPUT [--rest REST] (--bones N|auto | --auto-bones) [--init meanshift|split]
 *                  [--max-influences K] [--pca M] [--max-iterations I] [--fps F]
 *                  [--anderson M] [--gauss-newton N] [--tolerance T]
 *                  [--relax-weights B] [--clip NAME] [--apply-xform]
 *                  [--threads T] -o OUT.glb
 *                  [--report R.json]
 * Turn a vertex animation into a skinned rig (docs/decompose.md). */
#include "cli.h"
#include "guard.h"

#include "skinfit/decompose.h"
#include "skinfit/gltf.h"
#include "skinfit/rig.h"
#include "skinfit/meshseq.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: skinfit decompose INPUT [--rest REST] (--bones N | --bones auto)\n"
            "                         [--init meanshift|split] [--max-influences K] [--skeleton]\n"
            "                         [--max-skeleton-rounds R] [--pca M]\n"
            "                         [--max-iterations I] [--tolerance T] [--gauss-newton N]\n"
            "                         [--anderson M] [--relax-weights B]\n"
            "                         [--fps F] [--clip NAME] [--apply-xform]\n"
            "                         [--threads T] -o OUT.glb [--report R.json]\n\n"
            "Turn a vertex animation with no skeleton into a linear-blend-skinned rig:\n"
            "bones with one rigid transform per frame, sparse weights, optionally\n"
            "corrective shapes (morph targets). Written as a GLB.\n\n"
            "INPUT: .abc (Alembic, Ogawa), .mdd, .pc2 (needs --rest for faces), an OBJ\n"
            "sequence (a folder of frame_0000.obj ... or a pattern with %%d), or .gltf/.glb\n"
            "(or .fbx/.dae, read through Assimp)\n"
            "(a skinned clip or a morph-target animation, baked at --fps).\n\n"
            "  --rest REST          rest mesh (OBJ or glTF) giving the rest pose and faces\n"
            "                       (default: the input's frame 0 / bind pose)\n"
            "  --bones N            exactly N bones (split/regrow initialisation)\n"
            "  --bones auto         let mean shift over triangle rotations decide (also\n"
            "                       spelled --auto-bones)\n"
            "  --init I             meanshift or split (default: split with --bones)\n"
            "  --max-influences K   bones per vertex, 1..16 (default 4)\n"
            "  --skeleton           also build a bone tree with joints (Le & Deng 2014) and\n"
            "                       re-solve with it: an armature an artist can pose; the\n"
            "                       clip becomes local rotations (+ root translation)\n"
            "  --max-skeleton-rounds R  cap on the skeleton's constrained rounds (default\n"
            "                       %d; they stop when the error and the joints settle)\n"
            "  --pca M              M corrective shapes from the residual (default 0)\n"
            "  --max-iterations I   cap on alternations (default %d; a safety net: the run\n"
            "                       stops when the error stops improving, docs/decompose.md)\n"
            "  --tolerance T        the stopping rule's relative decrease of the error per\n"
            "                       alternation, 0 < T < 1 (default %g; docs/decompose.md)\n"
            "  --gauss-newton N     a joint Gauss-Newton step on weights and transforms every\n"
            "                       N alternations once they slow down, N in 1..1000 (default:\n"
            "                       off; 3 usually ends lower, sometimes after more iterations;\n"
            "                       safeguarded, docs/decompose.md)\n"
            "  --anderson M         Anderson acceleration of the alternation, memory M in\n"
            "                       1..8 (default 0: off; not with --gauss-newton)\n"
            "  --relax-weights B    over-relaxed weight steps, B in 0..1 (default 0: off;\n"
            "                       0.5 often ends at a lower error after more iterations,\n"
            "                       not always: docs/decompose.md)\n"
            "  --fps F              frame rate of the output clip; frame k is keyed at k/F\n"
            "                       (default: the input's, else 24)\n"
            "  --clip NAME          glTF input: the clip to bake (default: the first)\n"
            "  --apply-xform        Alembic input: apply the parent Xforms (world space)\n"
            "  --threads T          OpenMP threads (default: all)\n"
            "  -o OUT.glb           output GLB\n"
            "  --report R.json      metrics as JSON (the numbers of the table)\n"
            "  --reconstruction R.mdd  also write the reconstructed animation (with the\n"
            "                       shapes) as an MDD point cache, for checking\n",
            SKF_DECOMPOSE_DEFAULT_SKELETON_ROUNDS, SKF_DECOMPOSE_DEFAULT_MAX_ITERATIONS,
            SKF_DECOMPOSE_DEFAULT_TOLERANCE);
}

static bool parse_size(const char *s, size_t lo, size_t hi, size_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno || v < (long long)lo || v > (long long)hi)
        return false;
    *out = (size_t)v;
    return true;
}

/* Round to 6 significant digits so the table and the JSON print the same. */
static double r6(double v)
{
    char b[64];
    snprintf(b, sizeof b, "%.6g", v);
    return strtod(b, NULL);
}

/* Load a glTF clip baked into a sequence (skinned clip, or morph animation
 * when the file has no skin). Also returns the rest (bind) positions. */
static skf_status load_gltf_seq(const char *path, const char *clip_name, double fps,
                                skf_meshseq **out, double **rest, cli_guard *g, skf_warnings *w,
                                skf_error *err)
{
    *out = NULL;
    *rest = NULL;
    skf_gltf *doc = NULL;
    skf_rig *rig = NULL;
    skf_clip *clip = NULL;
    skf_status st = cli_gltf_load(path, &doc, w, err);
    if (st)
        return st;
    cli_guard_gltf(g, doc);
    int anim = clip_name ? cli_find_clip(doc, clip_name, err) : (doc->animation_count ? 0 : -1);
    if (anim < 0) {
        st = clip_name ? err->status
                       : skf_fail(err, SKF_ERR_ARGUMENT, "%s: animations: the file has no animation", path);
        goto done;
    }
    if ((st = skf_rig_from_gltf(doc, doc->skin_count ? 0 : -1, NULL, &rig, w, err)) ||
        (st = skf_clip_from_gltf(doc, anim, &clip, err)))
        goto done;
    if (rig->vertex_count == 0) {
        st = skf_fail(err, SKF_ERR_FORMAT, "%s: meshes: no vertices to animate", path);
        goto done;
    }
    if ((st = skf_rig_bake(rig, clip, fps, 0, NULL, out, err))) {
        skf_error_prefix(err, "%s: animations[%d]", path, anim); /* the library names the clip */
        goto done;
    }
    *rest = skf_malloc_array(rig->vertex_count * 3, sizeof **rest);
    if (!*rest) {
        st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
        goto done;
    }
    {
        /* The rest pose of the nodes (no clip), skinned: world space like the
         * baked frames, so any scale on the armature is shared (the bind
         * pose is in mesh space, which a rigid bone cannot map to a scaled
         * armature's world). */
        skf_pose pose;
        if ((st = skf_pose_init(&pose, rig, err)))
            goto done;
        skf_pose_eval(rig, NULL, 0, &pose);
        skf_skin(rig, &pose, *rest, 0);
        skf_pose_release(&pose);
    }
    (*out)->start_time = 0;
done:
    if (st) {
        skf_meshseq_free(*out);
        *out = NULL;
    }
    skf_clip_free(clip);
    skf_rig_free(rig);
    skf_gltf_free(doc);
    return st;
}

/* A file skf_gltf_load reads: glTF, or FBX / Collada through Assimp. */
static bool is_rig_file(const char *path)
{
    return cli_ends_with(path, ".gltf") || cli_ends_with(path, ".glb") || cli_ends_with(path, ".fbx") ||
           cli_ends_with(path, ".dae");
}

/* Rest mesh: OBJ or glTF (bind pose of skin 0, else the unskinned surface). */
static skf_status load_rest(const char *path, skf_meshseq **out, cli_guard *g, skf_warnings *w,
                            skf_error *err)
{
    *out = NULL;
    if (is_rig_file(path)) {
        skf_gltf *doc = NULL;
        skf_rig *rig = NULL;
        skf_status st = cli_gltf_load(path, &doc, w, err);
        if (!st)
            cli_guard_gltf(g, doc);
        if (!st)
            st = skf_rig_from_gltf(doc, doc->skin_count ? 0 : -1, NULL, &rig, w, err);
        if (!st) {
            skf_meshseq *s = skf_meshseq_new(rig->vertex_count, 1);
            if (!s)
                st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
            else {
                memcpy(s->positions, rig->rest_positions, rig->vertex_count * 3 * sizeof(double));
                s->triangle_count = rig->triangle_count;
                s->triangles = rig->triangles;
                rig->triangles = NULL;
                rig->triangle_count = 0;
                *out = s;
            }
        }
        skf_rig_free(rig);
        skf_gltf_free(doc);
        return st;
    }
    const skf_meshseq_read_options o = {&cli_limits};
    return skf_obj_read_opts(path, &o, out, err);
}

static json_t *metrics_json(const skf_decompose_metrics *m)
{
    return json_pack("{s:f,s:f,s:f,s:f,s:f}", "rms", r6(m->rms), "erms", r6(m->erms), "max_error",
                     r6(m->max_error), "max_error_pct", r6(m->max_error_pct), "diagonal",
                     r6(m->diagonal));
}

int cmd_decompose(int argc, char **argv)
{
    const char *input = NULL, *rest_path = NULL, *out_path = NULL, *report = NULL,
               *clip_name = NULL, *recon = NULL;
    size_t bones = 0, K = 4, M = 0, iters = 0, threads = 0, anderson = 0, skel_rounds = 0;
    bool auto_bones = false, have_bones = false, apply_xform = false, skeleton = false;
    double fps = 0, relax = 0, tol = 0;
    int gauss_newton = 0;
    skf_decompose_init init = SKF_DECOMPOSE_INIT_DEFAULT;
    /* this command calls BLAS only through skf_decompose, on one thread:
     * OpenBLAS's idle pool would only burn CPU (skinfit/decompose.h) */
    skf_decompose_release_blas_pool();
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return EXIT_OK;
        } else if (!strcmp(a, "--auto-bones")) {
            auto_bones = true;
        } else if (!strcmp(a, "--apply-xform")) {
            apply_xform = true;
        } else if (!strcmp(a, "--skeleton")) {
            skeleton = true;
        } else if (!strcmp(a, "--rest") || !strcmp(a, "--bones") || !strcmp(a, "--init") ||
                   !strcmp(a, "--max-influences") || !strcmp(a, "--pca") ||
                   !strcmp(a, "--max-iterations") || !strcmp(a, "--fps") || !strcmp(a, "-o") ||
                   !strcmp(a, "--report") || !strcmp(a, "--clip") || !strcmp(a, "--threads") ||
                   !strcmp(a, "--reconstruction") || !strcmp(a, "--anderson") ||
                   !strcmp(a, "--max-skeleton-rounds") || !strcmp(a, "--relax-weights") ||
                   !strcmp(a, "--tolerance") || !strcmp(a, "--gauss-newton")) {
            if (i + 1 >= argc)
                return cli_usage_error("decompose", "%s needs a value", a);
            const char *v = argv[++i];
            if (!strcmp(a, "--rest"))
                rest_path = v;
            else if (!strcmp(a, "-o"))
                out_path = v;
            else if (!strcmp(a, "--report"))
                report = v;
            else if (!strcmp(a, "--reconstruction"))
                recon = v;
            else if (!strcmp(a, "--clip"))
                clip_name = v;
            else if (!strcmp(a, "--init")) {
                if (!strcmp(v, "meanshift"))
                    init = SKF_DECOMPOSE_INIT_MEANSHIFT;
                else if (!strcmp(v, "split"))
                    init = SKF_DECOMPOSE_INIT_SPLIT;
                else
                    return cli_usage_error("decompose", "--init: '%s' is not meanshift or split", v);
            } else if (!strcmp(a, "--tolerance")) {
                if (!cli_parse_double(v, &tol) || !(tol > 0 && tol < 1))
                    return cli_usage_error("decompose", "--tolerance: '%s' is not a number in (0, 1)", v);
            } else if (!strcmp(a, "--gauss-newton")) {
                size_t every = 0;
                if (!parse_size(v, 1, 1000, &every))
                    return cli_usage_error("decompose", "--gauss-newton: '%s' is not a number in 1..1000", v);
                gauss_newton = (int)every;
            } else if (!strcmp(a, "--relax-weights")) {
                if (!cli_parse_double(v, &relax) || !(relax >= 0 && relax <= 1))
                    return cli_usage_error("decompose", "--relax-weights: '%s' is not a number in 0..1", v);
            } else if (!strcmp(a, "--fps")) {
                char *end;
                errno = 0;
                fps = strtod(v, &end);
                if (end == v || *end || errno || !(fps > 0) || fps > 1e6)
                    return cli_usage_error("decompose", "--fps: '%s' is not a number in (0, 1e6]", v);
            } else {
                size_t *dst = !strcmp(a, "--bones")            ? &bones
                              : !strcmp(a, "--max-influences") ? &K
                              : !strcmp(a, "--pca")            ? &M
                              : !strcmp(a, "--threads")        ? &threads
                              : !strcmp(a, "--anderson")       ? &anderson
                              : !strcmp(a, "--max-skeleton-rounds") ? &skel_rounds
                                                               : &iters;
                if (dst == &bones && !strcmp(v, "auto")) {
                    auto_bones = true;
                    continue;
                }
                size_t lo = !strcmp(a, "--pca") || !strcmp(a, "--threads") ||
                                    !strcmp(a, "--anderson")
                                ? 0
                                : 1;
                size_t hi = !strcmp(a, "--max-influences") ? 16
                            : !strcmp(a, "--anderson")     ? 8
                                                           : (size_t)1 << 20;
                if (!parse_size(v, lo, hi, dst))
                    return cli_usage_error("decompose", "%s: '%s' is not a number in %zu..%zu", a,
                                           v, lo, hi);
                if (dst == &bones)
                    have_bones = true;
            }
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("decompose", "unknown option '%s'", a);
        } else if (!input) {
            input = a;
        } else {
            return cli_usage_error("decompose", "one INPUT expected, got '%s' too", a);
        }
    }
    if (!input)
        return cli_usage_error("decompose", "missing INPUT");
    if (have_bones == auto_bones)
        return cli_usage_error("decompose", "give exactly one of --bones N and --bones auto");
    if (gauss_newton > 0 && anderson > 0)
        return cli_usage_error("decompose", "--gauss-newton and --anderson exclude each other");
    if (skel_rounds && !skeleton)
        return cli_usage_error("decompose", "--max-skeleton-rounds needs --skeleton");
    if (!out_path)
        return cli_usage_error("decompose", "missing -o OUT.glb");
    if (!cli_ends_with(out_path, ".glb"))
        return cli_usage_error("decompose", "-o %s: the output is a .glb file", out_path);
    skf_staged stage[3] = {{0}};
    cli_guard g;
    cli_guard_init(&g, "decompose");
    int grc;
    cli_guard_input(&g, input, NULL);
    cli_guard_input(&g, rest_path, NULL);
    if ((grc = cli_guard_output(&g, "-o", out_path)) ||
        (grc = cli_guard_output(&g, "--report", report)) ||
        (grc = cli_guard_output(&g, "--reconstruction", recon)) || (grc = cli_guard_check(&g))) {
        cli_guard_release(&g);
        return grc;
    }

    skf_error err = {0};
    skf_warnings w = {0};
    skf_meshseq *seq = NULL, *rest = NULL;
    double *glrest = NULL;
    skf_decomposition *d = NULL;
    skf_gltf *doc = NULL;
    int rc = EXIT_OK;
    skf_status st;
    struct stat sb;
    bool is_dir = stat(input, &sb) == 0 && S_ISDIR(sb.st_mode);
    const skf_meshseq_read_options seq_opt = {&cli_limits};
    if (cli_ends_with(input, ".abc")) {
        skf_alembic_options ao = {.apply_parent_xform = apply_xform, .limits = &cli_limits};
        st = skf_alembic_read(input, &ao, &seq, &err);
    } else if (cli_ends_with(input, ".mdd")) {
        st = skf_mdd_read_opts(input, &seq_opt, &seq, &err);
    } else if (cli_ends_with(input, ".pc2")) {
        st = skf_pc2_read_opts(input, &seq_opt, &seq, &err);
    } else if (is_rig_file(input)) {
        st = load_gltf_seq(input, clip_name, fps, &seq, &glrest, &g, &w, &err);
    } else if (is_dir || strchr(input, '%')) {
        cli_guard_objseq(&g, input);
        st = skf_objseq_read_opts(input, &seq_opt, &seq, &err);
    } else {
        rc = cli_usage_error("decompose", "%s: unknown input type (use .abc, .mdd, .pc2, .gltf, "
                             ".glb, .fbx, .dae, a folder of OBJ frames or a %%d pattern)", input);
        goto done;
    }
    if (st)
        goto fail;
    if (rest_path) {
        if ((st = load_rest(rest_path, &rest, &g, &w, &err)))
            goto fail;
        if (rest->vertex_count != seq->vertex_count) {
            fprintf(stderr, "skinfit: %s: vertex count: the rest mesh has %zu vertices, %s has %zu\n",
                    rest_path, rest->vertex_count, input, seq->vertex_count);
            rc = EXIT_BAD_INPUT;
            goto done;
        }
    }
    if ((rc = cli_guard_check(&g)))
        goto done;
    const double *restp = rest ? rest->positions : glrest;
    size_t T = rest && rest->triangle_count ? rest->triangle_count : seq->triangle_count;
    const uint32_t *tris = rest && rest->triangle_count ? rest->triangles : seq->triangles;
    if (!tris || T == 0) {
        fprintf(stderr, "skinfit: %s: the input has no faces; give --rest REST (OBJ or glTF) for "
                "the mesh topology\n", input);
        rc = EXIT_BAD_INPUT;
        goto done;
    }
    double out_fps = fps > 0 ? fps : seq->fps > 0 ? seq->fps : 24;

    cli_progress prog;
    skf_progress pr;
    cli_progress_init(&prog, &pr);
    skf_decompose_options o = {.bone_count = have_bones ? bones : 0,
                               .init = init,
                               .max_influences = K,
                               .max_iterations = iters,
                               .anderson = (int)anderson,
                               .gauss_newton = gauss_newton,
                               .tolerance = tol,
                               .weight_relaxation = relax,
                               .pca_shapes = M,
                               .skeleton = skeleton,
                               .max_skeleton_rounds = skel_rounds,
                               .threads = (int)threads,
                               .progress = &pr,
                               .warnings = &w,
                               .limits = &cli_limits};
    st = skf_decompose(seq->vertex_count, seq->frame_count, seq->positions, restp, T, tris, &o, &d,
                       &err);
    cli_progress_finish(&prog);
    if (st) {
        if (err.status == SKF_ERR_ARGUMENT) {
            char text[CLI_TEXT_MAX];
            fprintf(stderr, "skinfit: %s: %s\n", input, cli_error_text(&err, text, sizeof text));
            rc = EXIT_BAD_INPUT;
            goto done;
        }
        goto fail;
    }
    /* GLB, reconstruction and report commit together or not at all. */
    if ((st = skf_stage_open(&stage[0], out_path, &err)) ||
        (recon && (st = skf_stage_open(&stage[1], recon, &err))) ||
        (report && (st = skf_stage_open(&stage[2], report, &err))))
        goto fail;
    if ((st = skf_decomposition_to_gltf(d, T, tris, out_fps, &doc, &err)) ||
        (st = skf_gltf_write_glb(doc, stage[0].temp_path, &w, &err)))
        goto fail;

    if (recon) {
        skf_meshseq *r = skf_meshseq_new(d->vertex_count, d->frame_count);
        if (!r) {
            st = skf_fail(&err, SKF_ERR_NOMEM, "%s: out of memory", recon);
            goto fail;
        }
        for (size_t f = 0; f < d->frame_count; ++f)
            skf_decomposition_frame(d, f, true, r->positions + f * d->vertex_count * 3);
        r->fps = out_fps;
        st = skf_mdd_write(stage[1].temp_path, r, &err);
        skf_meshseq_free(r);
        if (st)
            goto fail;
    }
    /* Table and report: the same rounded numbers. */
    printf("decompose %s: %zu vertices x %zu frames at %g fps -> %s\n", input, d->vertex_count,
           d->frame_count, r6(out_fps), out_path);
    printf("  bones %zu (initialisation found %zu), max influences %zu, iterations %zu (%s, best "
           "%zu), %g s\n", d->bone_count, d->init_bones, d->max_influences, d->iterations,
           d->hit_cap         ? "stopped at the cap"
           : d->floor_reached ? "converged: RMS at the accuracy floor"
                              : "converged",
           d->best_iteration,
           r6(d->seconds_total));
    if (d->newton_steps)
        printf("  %zu alternations started from a Gauss-Newton step (%zu rejected by the energy "
               "safeguard)\n", d->newton_steps, d->newton_rejected);
    if (d->reseeded)
        printf("  %zu bone(s) lost their skin (< 3 vertices' worth of weight) and were re-seeded "
               "on the worst-fitted bone's vertices\n", d->reseeded);
    printf("  %-22s %12s %10s %14s\n", "", "RMS (units)", "E_RMS", "worst (% diag)");
    printf("  %-22s %12g %10g %14g\n", "skinning", r6(d->metrics.rms), r6(d->metrics.erms),
           r6(d->metrics.max_error_pct));
    if (d->parent) {
        printf("  %-22s %12g %10g %14g\n", "flat (before skeleton)", r6(d->metrics_flat.rms),
               r6(d->metrics_flat.erms), r6(d->metrics_flat.max_error_pct));
        size_t depth = 0;
        for (size_t i = 0; i < d->bone_count; ++i) {
            size_t h = 0;
            for (int32_t a = d->parent[i]; a >= 0 && h <= d->bone_count; a = d->parent[a])
                ++h;
            depth = h > depth ? h : depth;
        }
        printf("  skeleton: root bone_%03zu, depth %zu, %zu constrained rounds%s (the row "
               "'skinning' is the skeletal result)\n", d->skeleton_root, depth,
               d->skeleton_rounds_run, d->skeleton_hit_cap ? " (the cap)" : "");
    }
    if (d->shape_count) {
        char label[48];
        snprintf(label, sizeof label, "skinning + %zu shapes", d->shape_count);
        printf("  %-22s %12g %10g %14g\n", label, r6(d->metrics_pca.rms), r6(d->metrics_pca.erms),
               r6(d->metrics_pca.max_error_pct));
    }
    printf("  diagonal %g, size ratio %g (skinned numbers / raw 3NF)\n", r6(d->metrics.diagonal),
           r6(d->size_ratio));
    cli_print_warnings(&w);
    if (report) {
        json_t *warr = json_array();
        char wtext[CLI_TEXT_MAX];
        for (size_t i = 0; warr && i < w.count; ++i)
            json_array_append_new(warr, json_string(cli_warning_text(&w.items[i], wtext, sizeof wtext)));
        /* "O" (not "o"): jansson 2.14 does not release stolen arguments
         * when json_pack itself fails, so we keep and drop our references */
        json_t *jm = metrics_json(&d->metrics);
        json_t *jmp = d->shape_count ? metrics_json(&d->metrics_pca) : NULL;
        json_t *jsk = NULL;
        if (d->parent) {
            json_t *par = json_array();
            for (size_t i = 0; par && i < d->bone_count; ++i)
                json_array_append_new(par, json_integer(d->parent[i]));
            json_t *jf = metrics_json(&d->metrics_flat);
            if (par && jf)
                jsk = json_pack("{s:I,s:O,s:O}", "root", (json_int_t)d->skeleton_root, "parent",
                                par, "metrics_flat", jf);
            json_decref(par);
            json_decref(jf);
        }
        json_t *j = NULL;
        if (warr && jm && (jmp || !d->shape_count) && (jsk || !d->parent))
            j = json_pack(
                "{s:s,s:s,s:I,s:I,s:f,s:I,s:I,s:I,s:I,s:b,s:I,s:I,s:I,s:O,s:O*,s:O*,s:f,s:{s:f,s:f},s:O}",
                "input", input, "output", out_path, "vertices", (json_int_t)d->vertex_count,
                "frames", (json_int_t)d->frame_count, "fps", r6(out_fps), "bones",
                (json_int_t)d->bone_count, "init_bones", (json_int_t)d->init_bones,
                "max_influences", (json_int_t)d->max_influences, "iterations",
                (json_int_t)d->iterations, "converged", !d->hit_cap, "best_iteration",
                (json_int_t)d->best_iteration, "newton_steps", (json_int_t)d->newton_steps,
                "pca_shapes", (json_int_t)d->shape_count, "metrics", jm, "metrics_pca", jmp,
                "skeleton", jsk,
                "size_ratio", r6(d->size_ratio), "seconds", "init", r6(d->seconds_init), "total",
                r6(d->seconds_total), "warnings", warr);
        json_decref(jm);
        json_decref(jmp);
        json_decref(jsk);
        json_decref(warr);
        char *text = j ? json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(6)) : NULL;
        json_decref(j);
        if (!text) {
            fprintf(stderr, "skinfit: %s: out of memory writing the report\n", report);
            rc = EXIT_BAD_INPUT;
            goto done;
        }
        size_t len = strlen(text);
        char *withnl = skf_malloc(len + 2);
        if (withnl) {
            memcpy(withnl, text, len);
            withnl[len] = '\n';
            st = skf_write_file_atomic(stage[2].temp_path, withnl, len + 1, &err);
            skf_free(withnl);
        } else {
            st = skf_fail(&err, SKF_ERR_NOMEM, "%s: out of memory writing the report", report);
        }
        skf_free(text);
        if (st)
            goto fail;
    }
    if ((st = skf_stage_commit(stage, 3, &err)))
        goto fail;
    goto done;
fail:
    skf_stage_fix_message(stage, 3, &err);
    rc = cli_report_error(&err);
done:
    skf_stage_abort(stage, 3);
    cli_guard_release(&g);
    skf_gltf_free(doc);
    skf_decomposition_free(d);
    skf_meshseq_free(seq);
    skf_meshseq_free(rest);
    skf_free(glrest);
    skf_warnings_release(&w);
    return rc;
}
