/* skinfit transfer (and the shared body of skinfit control): bake clips of
 * an artist rig onto another rig of the same animal by solving the surface. */
#include "cli.h"
#include "guard.h"
#include "transfer_report.h"

#include "skinfit/gltf.h"
#include "skinfit/report.h"
#include "skinfit/rig.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out, bool control)
{
    if (control) {
        fprintf(out,
                "usage: skinfit control ARTIST.glb [--clip NAME]... [--all-clips] [--fps F]\n"
                "                       [--min-quality Q] [--report REPORT.json] [--per-frame]\n"
                "                       [--max-sweeps N] [--max-newton-iterations N]\n\n"
                "Solves the rig's bone transforms against its own clips (the control run of a\n"
                "transfer): the error must land on zero. Without --clip, every clip runs.\n\n"
                "  --clip NAME          a clip (\"Walk\" matches \"AnimalArmature|Walk\"); repeatable\n"
                "  --all-clips          every clip (the default)\n"
                "  --fps F              sampling rate (default: each clip's key rate)\n"
                "  --min-quality Q      exit 3 when a clip's quality is below Q percent\n"
                "  --report FILE.json   write the report (schema: docs/transfer-report.md)\n"
                "  --html FILE.html     write a self-contained HTML report (docs/render.md)\n"
                "  --per-frame          print one row per frame too\n"
                "  --max-sweeps N       cap on bone sweeps per frame (default 500); frames that\n"
                "                       stop at it are counted in one warning per clip\n"
                "  --max-newton-iterations N  cap on Newton iterations per frame (default 100;\n"
                "                       they count against --max-sweeps too), warned the same way\n"
                "  -h, --help           this help\n");
        return;
    }
    fprintf(out,
            "usage: skinfit transfer --source ARTIST.glb --target RIG.glb (--clip NAME... | --all-clips)\n"
            "                        [--fps F] [--mode free|rotation-only|both] [--max-constraints N]\n"
            "                        [--min-quality Q] -o OUT.glb [--report REPORT.json] [--per-frame]\n"
            "                        [--html REPORT.html] [--max-sweeps N] [--max-lm-iterations N]\n"
            "                        [--max-newton-iterations N]\n"
            "                        [--carry deformation|closest] [--landmarks FILE.json|joints]\n"
            "                        [--max-rest-mismatch PCT] [--registration-iterations N]\n"
            "                        [--clip-suffix S] [--rename OLD=NEW]... [--no-attached]\n\n"
            "Plays each clip on the source rig, carries its surface onto the target's mesh\n"
            "(aligned automatically when the meshes differ) and solves the target's bone\n"
            "transforms frame by frame. OUT.glb is the target with the clips added as\n"
            "animations under the source clip names. The control run (the source rig against\n"
            "its own clip) is reported first.\n\n"
            "  --source FILE        the artist rig playing the clips\n"
            "  --target FILE        the rig to bake onto (never modified)\n"
            "  --clip NAME          a clip (\"Walk\" matches \"AnimalArmature|Walk\"); repeatable\n"
            "  --all-clips          every clip of the source\n"
            "  --fps F              sampling rate (default: each clip's key rate)\n"
            "  --clip-suffix S      bake each clip as NAME + S (default: under the source name,\n"
            "                       replacing a target clip of that exact name; the output\n"
            "                       line says which were replaced)\n"
            "  --rename OLD=NEW     bake clip OLD as NEW (repeatable; wins over --clip-suffix)\n"
            "  --mode M             free (default), rotation-only (bone lengths kept), or both\n"
            "                       (both reported, the free solution baked)\n"
            "  --max-constraints N  solve on N target vertices spread evenly (default: all)\n"
            "  --min-quality Q      after writing the outputs, exit 3 when a clip's quality\n"
            "                       is below Q percent\n"
            "  -o, --output FILE    output GLB (written atomically)\n"
            "  --report FILE.json   write the report (schema: docs/transfer-report.md)\n"
            "  --html FILE.html     write a self-contained HTML report: quality table, per-frame\n"
            "                       error plots, heat maps (docs/render.md)\n"
            "  --per-frame          print one row per frame too\n"
            "  --max-sweeps N       free solve: cap on bone sweeps per frame (default 500)\n"
            "  --max-newton-iterations N  free solve: cap on Newton iterations per frame\n"
            "                       (default 100; they count against --max-sweeps too)\n"
            "  --max-lm-iterations N  rotation-only: cap on Levenberg-Marquardt iterations\n"
            "                       per frame (default 100); frames that stop at a cap are\n"
            "                       counted in one warning per clip and run (docs/limits.md)\n"
            "Another mesh of the animal (the aligned surfaces differ by more than 0.5 %% of the\n"
            "diagonal) is registered non-rigidly onto the source first (docs/transfer.md):\n"
            "  --carry M            deformation (default: deformation transfer) or closest\n"
            "                       (the registered source point's position)\n"
            "  --landmarks FILE     point or vertex-index pairs as soft landmarks\n"
            "                       ({\"pairs\": [{\"source\": [x,y,z], \"target\": [x,y,z]} |\n"
            "                       {\"source_vertex\": i, \"target_vertex\": j}]}, rest pose, world)\n"
            "  --landmarks joints   same-named joints as soft landmarks\n"
            "  --max-rest-mismatch PCT  refuse when the residual after registration exceeds\n"
            "                       PCT %% of the diagonal (default 0.5, range (0, 100])\n"
            "  --registration-iterations N  cap per stiffness stage (default 30)\n"
            "Meshes attached to a joint (a mesh node without skin under a joint: antlers, eyes)\n"
            "move with it and are part of both surfaces; on the target they constrain their\n"
            "joint with weight 1, each attachment weighing as much as the body that joint\n"
            "moves (docs/transfer.md \"Attached meshes\"); the table has a row per attachment:\n"
            "  --no-attached        carry and measure them, but leave them out of the solve\n"
            "  -h, --help           this help\n\n"
            "exit codes: 0 ok, 1 bad input, 2 usage, 3 quality below --min-quality\n");
}

/* The name clip c is baked under: --rename OLD=NEW when OLD is the name as
 * typed, the source animation's name or that name without its armature
 * prefix; else the source name + --clip-suffix; else the source name. */
static const char *baked_name(const skf_transfer_clip *clip, const char *typed, const char *const *renames,
                              size_t rename_count, bool *rename_used, const char *suffix, char *buf, size_t size)
{
    for (size_t r = 0; r < rename_count; ++r) {
        const char *eq = strchr(renames[r], '=');
        size_t ol = (size_t)(eq - renames[r]);
        const char *cands[3] = {typed, clip->name, skf_clip_short_name(clip->name)};
        for (int k = 0; k < 3; ++k)
            if (strlen(cands[k]) == ol && !strncmp(cands[k], renames[r], ol)) {
                rename_used[r] = true;
                return eq + 1;
            }
    }
    if (!suffix)
        return clip->name;
    snprintf(buf, size, "%s%s", clip->name, suffix);
    return buf;
}


/* The HTML page (skf_report_transfer_html) written on a thread of its own
 * while the command re-reads the target and writes the GLB: the page reads
 * only the finished clips, the run's info and the two paths (copies), none
 * of which the GLB writing touches, so the two overlap where a second core
 * is free. The page's fonts (the warm-up thread) are joined first. With one
 * thread asked for (OMP_NUM_THREADS=1) the page is written here, before the
 * GLB: there is no second core to overlap on, and a thread of its own would
 * add its malloc arena's first-touch pages (about 500 page faults for the
 * Horse page) to the CPU time. */
typedef struct html_job {
    const char *path, *source_path, *target_path, *command_line;
    const skf_transfer_info *info;
    const skf_transfer_clip *clips;
    size_t clip_count;
    cli_text_warm *warm;
    skf_status status;
    skf_error err;
} html_job;

static void *html_job_main(void *arg)
{
    html_job *j = arg;
    cli_text_warm_join(j->warm);
    j->status = skf_report_transfer_html(j->path, j->source_path, j->target_path, j->info, j->clips,
                                         j->clip_count, j->command_line, 0, 0, &j->err);
    return NULL;
}

int tr_command(int argc, char **argv, bool control_only)
{
    const char *cmd = control_only ? "control" : "transfer";
    const char *source = NULL, *target = NULL, *output = NULL, *report = NULL, *html = NULL;
    const char **names = skf_calloc((size_t)argc + 1, sizeof *names);
    const char **renames = skf_calloc((size_t)argc + 1, sizeof *renames);
    const char *suffix = NULL;
    size_t name_count = 0, rename_count = 0;
    bool all = false, per_frame = false, has_min = false;
    double min_quality = 0;
    cli_text_warm warm = {0};
    skf_transfer_options opt;
    memset(&opt, 0, sizeof opt);
    opt.limits = &cli_limits;
    const char *mode_name = "free";
    const char *landmarks = NULL;
    skf_transfer_landmark *lm = NULL;
    int rc = EXIT_OK;
    if (!names || !renames) {
        skf_free(names);
        skf_free(renames);
        fprintf(stderr, "skinfit: %s: out of memory\n", cmd);
        return EXIT_BAD_INPUT;
    }
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout, control_only);
            skf_free(names);
            skf_free(renames);
            return EXIT_OK;
        } else if (!strcmp(a, "--clip")) {
            if (!v) {
                rc = cli_usage_error(cmd, "--clip needs a name");
                goto out;
            }
            names[name_count++] = v;
            ++i;
        } else if (!control_only && !strcmp(a, "--clip-suffix")) {
            if (!v || !*v) {
                rc = cli_usage_error(cmd, "--clip-suffix needs a non-empty suffix");
                goto out;
            }
            suffix = v;
            ++i;
        } else if (!control_only && !strcmp(a, "--rename")) {
            const char *eq = v ? strchr(v, '=') : NULL;
            if (!eq || eq == v || !eq[1]) {
                rc = cli_usage_error(cmd, "--rename needs OLD=NEW");
                goto out;
            }
            renames[rename_count++] = v;
            ++i;
        } else if (!strcmp(a, "--all-clips")) {
            all = true;
        } else if (!strcmp(a, "--per-frame")) {
            per_frame = true;
        } else if (!strcmp(a, "--fps")) {
            if (!v || !cli_parse_double(v, &opt.fps) || !(opt.fps > 0 && opt.fps <= 1000)) {
                rc = cli_usage_error(cmd, "--fps needs a number in (0, 1000]");
                goto out;
            }
            ++i;
        } else if (!strcmp(a, "--min-quality")) {
            if (!v || !cli_parse_double(v, &min_quality) || min_quality > 100) {
                rc = cli_usage_error(cmd, "--min-quality needs a percentage (e.g. 99.5)");
                goto out;
            }
            has_min = true;
            ++i;
        } else if (!strcmp(a, "--report")) {
            if (!v) {
                rc = cli_usage_error(cmd, "--report needs a file name");
                goto out;
            }
            report = v;
            ++i;
        } else if (!strcmp(a, "--html")) { /* skf_report_transfer_html (report.h) */
            if (!v) {
                rc = cli_usage_error(cmd, "--html needs a file name");
                goto out;
            }
            html = v;
            ++i;
        } else if (!control_only && !strcmp(a, "--source")) {
            if (!v) {
                rc = cli_usage_error(cmd, "--source needs a file");
                goto out;
            }
            source = v;
            ++i;
        } else if (!control_only && !strcmp(a, "--target")) {
            if (!v) {
                rc = cli_usage_error(cmd, "--target needs a file");
                goto out;
            }
            target = v;
            ++i;
        } else if (!control_only && (!strcmp(a, "-o") || !strcmp(a, "--output"))) {
            if (!v) {
                rc = cli_usage_error(cmd, "%s needs a file name", a);
                goto out;
            }
            output = v;
            ++i;
        } else if (!control_only && !strcmp(a, "--mode")) {
            if (v && !strcmp(v, "free"))
                opt.mode = SKF_TRANSFER_FREE;
            else if (v && !strcmp(v, "rotation-only"))
                opt.mode = SKF_TRANSFER_ROTATION_ONLY;
            else if (v && !strcmp(v, "both"))
                opt.mode = SKF_TRANSFER_BOTH;
            else {
                rc = cli_usage_error(cmd, "--mode is free, rotation-only or both");
                goto out;
            }
            mode_name = v;
            ++i;
        } else if (!control_only && !strcmp(a, "--max-constraints")) {
            double n;
            if (!v || !cli_parse_double(v, &n) || n != floor(n) || n < 16 || n > 1e9) {
                rc = cli_usage_error(cmd, "--max-constraints needs an integer >= 16");
                goto out;
            }
            opt.max_constraints = (size_t)n;
            ++i;
        } else if (!strcmp(a, "--max-sweeps") || !strcmp(a, "--max-newton-iterations") ||
                   (!control_only && !strcmp(a, "--max-lm-iterations"))) {
            double n;
            if (!v || !cli_parse_double(v, &n) || n != floor(n) || n < 1 || n > 1e6) {
                rc = cli_usage_error(cmd, "%s needs an integer in [1, 1000000]", a);
                goto out;
            }
            if (!strcmp(a, "--max-sweeps"))
                opt.max_sweeps = (int)n;
            else if (!strcmp(a, "--max-newton-iterations"))
                opt.max_newton_iterations = (int)n;
            else
                opt.max_lm_iterations = (int)n;
            ++i;
        } else if (!control_only && !strcmp(a, "--carry")) {
            if (v && !strcmp(v, "deformation"))
                opt.carry = SKF_CARRY_DEFORMATION;
            else if (v && !strcmp(v, "closest"))
                opt.carry = SKF_CARRY_CLOSEST;
            else {
                rc = cli_usage_error(cmd, "--carry is deformation or closest");
                goto out;
            }
            ++i;
        } else if (!control_only && !strcmp(a, "--landmarks")) {
            if (!v) {
                rc = cli_usage_error(cmd, "--landmarks needs FILE.json or 'joints'");
                goto out;
            }
            if (!strcmp(v, "joints"))
                opt.landmarks_joints = true;
            else
                landmarks = v;
            ++i;
        } else if (!control_only && !strcmp(a, "--max-rest-mismatch")) {
            double p;
            if (!v || !cli_parse_double(v, &p) || !(p > 0 && p <= 100)) {
                rc = cli_usage_error(cmd, "--max-rest-mismatch needs a percentage in (0, 100]");
                goto out;
            }
            opt.max_rest_mismatch = p / 100;
            ++i;
        } else if (!control_only && !strcmp(a, "--no-attached")) {
            opt.no_attached_constraints = true;
        } else if (!control_only && !strcmp(a, "--registration-iterations")) {
            double n;
            if (!v || !cli_parse_double(v, &n) || n != floor(n) || n < 1 || n > 10000) {
                rc = cli_usage_error(cmd, "--registration-iterations needs an integer in [1, 10000]");
                goto out;
            }
            opt.registration.max_iterations = (int)n;
            ++i;
        } else if (control_only && a[0] != '-' && !source) {
            source = a;
        } else {
            rc = cli_usage_error(cmd, "unknown argument '%s'", a);
            goto out;
        }
    }
    if (!source) {
        rc = cli_usage_error(cmd, control_only ? "missing ARTIST.glb" : "missing --source FILE");
        goto out;
    }
    if (!control_only) {
        if (!target) {
            rc = cli_usage_error(cmd, "missing --target FILE");
            goto out;
        }
        if (!output) {
            rc = cli_usage_error(cmd, "missing -o OUT.glb");
            goto out;
        }
        if (!all && name_count == 0) {
            rc = cli_usage_error(cmd, "give --clip NAME (repeatable) or --all-clips");
            goto out;
        }
    } else if (name_count == 0) {
        all = true;
    }
    if (all && name_count) {
        rc = cli_usage_error(cmd, "--clip and --all-clips exclude each other");
        goto out;
    }
    cli_guard guard;
    cli_guard_init(&guard, cmd);
    cli_guard_input(&guard, source, NULL);
    cli_guard_input(&guard, target, NULL);
    if ((rc = cli_guard_output(&guard, "-o", output)) ||
        (rc = cli_guard_output(&guard, "--report", report)) ||
        (rc = cli_guard_output(&guard, "--html", html)) || (rc = cli_guard_check(&guard))) {
        cli_guard_release(&guard);
        goto out;
    }
    opt.no_control = false;
    opt.vertex_output = html != NULL; /* the page's pictures: the runs' own per-vertex errors */
    if (html && omp_get_max_threads() > 1) /* the page's fonts start beside the load and solve */
        cli_text_warm_start(&warm);

    skf_error err = {0};
    skf_warnings warn = {0};
    skf_gltf *sdoc = NULL, *tdoc = NULL;
    skf_transfer *tr = NULL;
    char *bone_copies[3] = {NULL, NULL, NULL};
    skf_transfer_attachment *att_copies = NULL; /* run.info's, once the session is gone */
    size_t att_copy_count = 0;
    skf_transfer_clip *results = NULL;
    const char **clips = NULL;
    size_t clip_count = 0, done = 0;
    cli_progress prog;
    skf_progress progress;
    cli_progress_init(&prog, &progress);
    skf_status st = cli_gltf_load(source, &sdoc, &warn, &err);
    if (!st && target)
        st = cli_gltf_load(target, &tdoc, &warn, &err);
    if (!st) {
        cli_guard_gltf(&guard, sdoc);
        if (tdoc)
            cli_guard_gltf(&guard, tdoc);
        rc = cli_guard_check(&guard);
    }
    cli_guard_release(&guard);
    if (rc)
        goto out_docs;
    if (!st)
        st = tr_resolve_clips(sdoc, names, name_count, all, &clips, &clip_count, &err);
    /* every clip name must exist before any work starts; the hint lists the
     * clips the source has */
    for (size_t c = 0; !st && c < clip_count; ++c)
        if (cli_find_clip(sdoc, clips[c], &err) < 0)
            st = err.status;
    if (!st && landmarks) {
        st = tr_read_landmarks(landmarks, &lm, &opt.landmark_count, &err);
        opt.landmarks = lm;
    }
    if (!st) {
        st = skf_transfer_new(sdoc, tdoc, &opt, &tr, &warn, &err);
        if (st && landmarks && strstr(err.message, "landmarks["))
            skf_error_prefix(&err, "%s", landmarks);
    }
    if (!st) {
        results = skf_calloc(clip_count, sizeof *results);
        if (!results)
            st = skf_fail(&err, SKF_ERR_NOMEM, "out of memory");
    }
    for (size_t c = 0; !st && c < clip_count; ++c) {
        tr_progress tp;
        size_t frames = 0;
        skf_clip *k = NULL;
        if (skf_clip_from_gltf(sdoc, skf_clip_find(sdoc, clips[c], NULL), &k, NULL) == SKF_OK)
            frames = skf_clip_frame_count(k, opt.fps);
        skf_clip_free(k);
        tr_progress_init(&tp, &progress, c, clip_count, clips[c], frames);
        st = skf_transfer_run_clip(tr, clips[c], &results[c], &tp.inner, &err);
        if (!st) {
            skf_transfer_clip_warn(&results[c], &warn);
            ++done;
        }
    }
    cli_progress_finish(&prog);
    cli_print_warnings(&warn);
    tr_run run = {source, target, mode_name, {0}, results, done};
    /* baked names; which of them replace a clip the target already had */
    char replaced[1024] = "";
    size_t replaced_count = 0, rlen = 0;
    bool *rename_used = skf_calloc(rename_count + 1, sizeof *rename_used);
    if (!st && !rename_used)
        st = skf_fail(&err, SKF_ERR_NOMEM, "out of memory");
    if (!st) {
        skf_transfer_get_info(tr, &run.info);
        for (size_t c = 0; !st && tdoc && c < done; ++c) {
            char buf[512];
            const char *bn = baked_name(&results[c], clips[c], renames, rename_count, rename_used, suffix, buf,
                                        sizeof buf);
            for (size_t a = 0; a < tdoc->animation_count; ++a)
                if (tdoc->animations[a].name && !strcmp(tdoc->animations[a].name, bn)) {
                    int w = snprintf(replaced + rlen, sizeof replaced - rlen, "%s%s", replaced_count ? ", " : "",
                                     skf_clip_short_name(bn));
                    if (w > 0 && rlen + (size_t)w < sizeof replaced)
                        rlen += (size_t)w;
                    ++replaced_count;
                    break;
                }
            st = skf_transfer_add_animation_named(tr, tdoc, &results[c], bn, &err);
        }
        for (size_t r = 0; !st && r < rename_count; ++r)
            if (!rename_used[r])
                st = skf_fail(&err, SKF_ERR_ARGUMENT, "--rename %s: no clip of that name is transferred", renames[r]);
        /* The session is not needed to write: it goes before the writer's
         * copies are made, so they do not add to its peak of memory (the info
         * keeps copies of the joint names it points at). */
        for (int k = 0; !st && k < 3; ++k)
            if (run.info.unmatched_bones[k]) {
                bone_copies[k] = skf_strdup(run.info.unmatched_bones[k]);
                run.info.unmatched_bones[k] = bone_copies[k];
                if (!bone_copies[k])
                    st = skf_fail(&err, SKF_ERR_NOMEM, "out of memory");
            }
        if (!st && run.info.attachment_count) { /* the attachments and their names too */
            size_t na = run.info.attachment_count;
            att_copies = skf_calloc(na, sizeof *att_copies);
            att_copy_count = att_copies ? na : 0;
            bool copied = att_copies != NULL;
            for (size_t a = 0; a < att_copy_count; ++a) {
                att_copies[a] = run.info.attachments[a];
                att_copies[a].name = skf_strdup(run.info.attachments[a].name);
                att_copies[a].joint = skf_strdup(run.info.attachments[a].joint);
                copied = copied && att_copies[a].name && att_copies[a].joint;
            }
            run.info.attachments = att_copies;
            if (!copied)
                st = skf_fail(&err, SKF_ERR_NOMEM, "out of memory");
        }
        skf_transfer_free(tr);
        tr = NULL;
        /* GLB, report and HTML commit together or not at all. */
        skf_staged stage[3] = {{0}};
        if (!st && output)
            st = skf_stage_open(&stage[0], output, &err);
        if (!st && report)
            st = skf_stage_open(&stage[1], report, &err);
        if (!st && html)
            st = skf_stage_open(&stage[2], html, &err);
        /* the page first, on its own thread (html_job), beside the GLB */
        html_job job = {0};
        char *line = NULL, *src_path = NULL, *tgt_path = NULL;
        pthread_t job_thread;
        bool job_started = false;
        if (!st && html) {
            line = cli_command_line(argc + 1, argv - 1);
            src_path = skf_strdup(sdoc->path ? sdoc->path : "?");
            tgt_path = tdoc && tdoc->path ? skf_strdup(tdoc->path) : NULL;
            if (!line || !src_path || (tdoc && tdoc->path && !tgt_path))
                st = skf_fail(&err, SKF_ERR_NOMEM, "%s: out of memory", html);
            job = (html_job){stage[2].temp_path, src_path, tdoc ? tgt_path : NULL, line, &run.info, results,
                             done, &warm, SKF_OK, {0}};
            if (!st && omp_get_max_threads() > 1)
                job_started = pthread_create(&job_thread, NULL, html_job_main, &job) == 0;
            if (!st && !job_started)
                html_job_main(&job); /* no thread: the page here, before the GLB */
        }
        if (!st && tdoc)
            st = skf_gltf_reparse(tdoc, NULL, &err);
        skf_warnings wwarn = {0};
        if (!st && output)
            st = skf_gltf_write_glb(tdoc, stage[0].temp_path, &wwarn, &err);
        skf_warnings_release(&wwarn);
        if (!st && report)
            st = tr_write_report(stage[1].temp_path, &run, &err);
        if (job_started)
            pthread_join(job_thread, NULL);
        if (!st && html && job.status) {
            st = job.status;
            err = job.err;
        }
        skf_free(line);
        skf_free(src_path);
        skf_free(tgt_path);
        if (!st)
            st = skf_stage_commit(stage, 3, &err);
        if (st)
            skf_stage_fix_message(stage, 3, &err);
        skf_stage_abort(stage, 3);
    }
    if (st) {
        rc = cli_report_error(&err);
    } else {
        tr_print_summary(stdout, &run);
        tr_print_table(stdout, &run, per_frame);
        if (output && replaced_count)
            printf("wrote %s (%zu clip%s baked; %zu replace the target's own clip%s of the same name: %s; "
                   "keep both with --clip-suffix S or --rename OLD=NEW)\n",
                   output, done, done == 1 ? "" : "s", replaced_count, replaced_count == 1 ? "" : "s", replaced);
        else if (output)
            printf("wrote %s (%zu clip%s baked)\n", output, done, done == 1 ? "" : "s");
        if (report)
            printf("wrote %s\n", report);
        if (html)
            printf("wrote %s\n", html);
        if (has_min)
            for (size_t c = 0; c < done; ++c) {
                double q = 100 * tr_gate_quality(&results[c], target != NULL);
                if (!(q >= min_quality)) {
                    /* the file whose rig the figure is of: the target's, the source's for a control */
                    fprintf(stderr, "skinfit: %s: %s: quality %.6f %% is below --min-quality %g %%\n",
                            target ? target : source, results[c].name, q, min_quality);
                    rc = EXIT_QUALITY;
                }
            }
    }
    skf_free(rename_used);
out_docs:
    for (size_t c = 0; results && c < clip_count; ++c)
        skf_transfer_clip_release(&results[c]);
    skf_free(results);
    skf_free(clips);
    skf_free(lm);
    skf_transfer_free(tr);
    for (int k = 0; k < 3; ++k)
        skf_free(bone_copies[k]);
    for (size_t a = 0; a < att_copy_count; ++a) {
        skf_free((char *)att_copies[a].name);
        skf_free((char *)att_copies[a].joint);
    }
    skf_free(att_copies);
    skf_gltf_free(sdoc);
    skf_gltf_free(tdoc);
    skf_warnings_release(&warn);
out:
    cli_text_warm_join(&warm);
    skf_free(names);
    skf_free(renames);
    return rc;
}

int cmd_transfer(int argc, char **argv)
{
    return tr_command(argc, argv, false);
}
