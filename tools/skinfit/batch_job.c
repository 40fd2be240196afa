/* One batch job, run in-process: the transfer of a (source, target, clips)
 * triple, written as OUTDIR/<name>.glb plus a stamped JSON report.
 *
 * Determinism: the GLB and the report hold no wall-clock figures (those go
 * to OUTDIR/<name>.timing.json), so a resumed or distributed run produces
 * byte-identical outputs. The report's made_from.stamp (skf_batch_job_stamp)
 * and output.sha256 let `--resume` tell a complete, current job from one
 * that was interrupted or whose inputs changed. */
#include "batch.h"
#include "cli.h"
#include "transfer_report.h"

#include "skinfit/gltf.h"
#include "skinfit/hash.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *out_path(const char *outdir, const char *name, const char *ext)
{
    size_t n = strlen(outdir) + strlen(name) + strlen(ext) + 2;
    char *p = skf_malloc(n);
    if (p)
        snprintf(p, n, "%s/%s%s", outdir, name, ext);
    return p;
}

static void write_json(const char *path, json_t *root)
{
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    if (text) {
        skf_error e;
        skf_write_file_atomic(path, text, strlen(text), &e);
        skf_free(text);
    }
}

/* Timing is the one thing two runs of the same job disagree on: move it out. */
static void strip_timing(json_t *report)
{
    json_t *clips = json_object_get(report, "clips");
    for (size_t c = 0; c < json_array_size(clips); ++c) {
        json_t *clip = json_array_get(clips, c);
        json_object_del(clip, "seconds");
        const char *runs[] = {"control", "free", "rotation_only"};
        for (int r = 0; r < 3; ++r)
            json_object_del(json_object_get(clip, runs[r]), "solve_seconds");
    }
}

static int fail_job(const skf_batch_job *job, const char *outdir, const char *stamp,
                    const skf_error *err)
{
    char text[CLI_TEXT_MAX];
    cli_error_text(err, text, sizeof text);
    fprintf(stderr, "skinfit batch: job %s: %s\n", job->name, text);
    char *path = out_path(outdir, job->name, ".error.json");
    if (path) {
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(job->name));
        json_object_set_new(o, "status", json_string("failed"));
        json_object_set_new(o, "message", json_string(text));
        json_object_set_new(o, "stamp", stamp ? json_string(stamp) : json_null());
        write_json(path, o);
        json_decref(o);
        skf_free(path);
    }
    return JOB_FAILED;
}

/* OUTDIR/<name>.clip-<k>.ckpt */
static char *checkpoint_path(const char *outdir, const char *name, size_t k)
{
    char ext[48];
    snprintf(ext, sizeof ext, ".clip-%zu.ckpt", k);
    return out_path(outdir, name, ext);
}

int batch_run_job(const skf_batch *b, size_t i, const char *outdir, int threads, bool resume)
{
    const skf_batch_job *job = &b->jobs[i];
    skf_error err = {0};
    char stamp[65];
    double t0 = cli_now();
    if (skf_batch_job_stamp(job, stamp, &err))
        return fail_job(job, outdir, NULL, &err);

    skf_gltf *source = NULL, *target = NULL;
    skf_transfer *t = NULL;
    skf_transfer_clip *clips = NULL;
    const char **names = NULL;
    size_t count = 0, done = 0;
    bool *restored = NULL;
    char *glb = out_path(outdir, job->name, ".glb");
    char *report = out_path(outdir, job->name, ".json");
    char *timing = out_path(outdir, job->name, ".timing.json");
    char *error = out_path(outdir, job->name, ".error.json");
    int result = JOB_FAILED;
    if (!glb || !report || !timing || !error) {
        skf_fail(&err, SKF_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if (cli_gltf_load(job->source, &source, NULL, &err) || cli_gltf_load(job->target, &target, NULL, &err))
        goto fail;
    skf_transfer_options opt = {.mode = job->mode, .fps = job->fps,
                                .max_constraints = job->max_constraints, .threads = threads,
                                .limits = &cli_limits};
    if (skf_transfer_new(source, target, &opt, &t, NULL, &err))
        goto fail;
    if (tr_resolve_clips(source, (const char *const *)job->clips, job->clip_count, job->all_clips,
                         &names, &count, &err))
        goto fail;
    clips = skf_calloc(count ? count : 1, sizeof *clips);
    restored = skf_calloc(count ? count : 1, sizeof *restored);
    if (!clips || !restored) {
        skf_fail(&err, SKF_ERR_NOMEM, "out of memory");
        goto fail;
    }
    skf_transfer_info info;
    skf_transfer_get_info(t, &info);
    for (; done < count; ++done) {
        /* a clip an interrupted run of the same job finished is loaded, not
         * solved again; each solved clip is saved before the next starts */
        char *ck = checkpoint_path(outdir, job->name, done);
        if (!ck) {
            skf_fail(&err, SKF_ERR_NOMEM, "out of memory");
            goto fail;
        }
        restored[done] = resume && batch_checkpoint_load(ck, stamp, done, names[done], info.target_joints, &clips[done]);
        skf_status st = SKF_OK;
        if (!restored[done]) {
            st = skf_transfer_run_clip(t, names[done], &clips[done], NULL, &err);
            if (!st)
                st = batch_checkpoint_save(ck, stamp, done, names[done], &clips[done], &err);
        }
        skf_free(ck);
        if (st || skf_transfer_add_animation(t, target, &clips[done], &err)) {
            ++done;
            goto fail;
        }
    }
    if (skf_gltf_write_glb(target, glb, NULL, &err))
        goto fail;
    char sha[65];
    if (skf_sha256_file(glb, sha, &err))
        goto fail;

    const char *modes[] = {"free", "free", "rotation-only", "both"};
    tr_run run = {.source = job->source, .target = job->target, .mode = modes[job->mode & 3],
                  .clips = clips, .clip_count = count};
    skf_transfer_get_info(t, &run.info);
    json_t *r = tr_report_json(&run);
    if (!r) {
        skf_fail(&err, SKF_ERR_NOMEM, "out of memory");
        goto fail;
    }
    strip_timing(r);
    json_t *made = json_object();
    json_object_set_new(made, "stamp", json_string(stamp));
    json_object_set_new(made, "job", json_string(job->name));
    json_object_set_new(r, "made_from", made);
    json_t *output = json_object();
    json_object_set_new(output, "file", json_string(strrchr(glb, '/') + 1));
    json_object_set_new(output, "sha256", json_string(sha));
    json_object_set_new(r, "output", output);
    result = JOB_OK;
    for (size_t c = 0; c < count; ++c)
        if (job->min_quality >= 0 && !(tr_gate_quality(&clips[c], true) >= job->min_quality))
            result = JOB_BELOW_QUALITY;
    json_object_set_new(r, "status", json_string(result == JOB_OK ? "ok" : "below-quality"));

    json_t *tm = json_object();
    json_object_set_new(tm, "seconds", json_real(cli_now() - t0));
    json_t *per = json_array();
    for (size_t c = 0; c < count; ++c)
        json_array_append_new(per, json_real(clips[c].seconds));
    json_object_set_new(tm, "clip_seconds", per);
    json_t *from = json_array(); /* clips loaded from a checkpoint (not solved by this run) */
    for (size_t c = 0; c < count; ++c)
        json_array_append_new(from, json_boolean(restored[c]));
    json_object_set_new(tm, "clips_from_checkpoint", from);
    json_object_set_new(tm, "threads", json_integer(threads));
    write_json(timing, tm);
    json_decref(tm);
    /* The report is written last: its presence with a matching stamp and
     * output hash is what marks the job complete. */
    write_json(report, r);
    json_decref(r);
    unlink(error);
    for (size_t c = 0; c < count; ++c) { /* the job is complete: its checkpoints go */
        char *ck = checkpoint_path(outdir, job->name, c);
        if (ck)
            unlink(ck);
        skf_free(ck);
    }
    goto done;
fail:
    result = fail_job(job, outdir, stamp, &err);
done:
    for (size_t c = 0; c < done; ++c)
        skf_transfer_clip_release(&clips[c]);
    skf_free(clips);
    skf_free(restored);
    skf_free(names);
    skf_transfer_free(t);
    skf_gltf_free(source);
    skf_gltf_free(target);
    skf_free(glb);
    skf_free(report);
    skf_free(timing);
    skf_free(error);
    return result;
}
