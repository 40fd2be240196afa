/* Terminal table and JSON report of a transfer (docs/transfer-report.md). */
#include "transfer_report.h"

#include "skinfit/rig.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

static const char *short_name(const char *n)
{
    return n ? skf_clip_short_name(n) : "";
}

void tr_print_summary(FILE *out, const tr_run *run)
{
    const skf_transfer_info *in = &run->info;
    fprintf(out, "source: %s: %zu vertices (%zu welded), %zu joints, rest diagonal %.6g\n", run->source,
            in->source_vertices, in->source_welded, in->source_joints, in->source_diagonal);
    if (!run->target)
        return;
    fprintf(out, "target: %s: %zu vertices (%zu welded), %zu joints, rest diagonal %.6g\n", run->target,
            in->target_vertices, in->target_welded, in->target_joints, in->target_diagonal);
    const skf_alignment *a = &in->alignment;
    fprintf(out, "alignment: %s, scale %.6g, residual %.3e %% of the diagonal\n", a->method ? a->method : "identity",
            a->scale, 100 * a->residual);
    tr_print_registration(out, in);
    for (size_t a = 0; a < in->attachment_count; ++a) {
        const skf_transfer_attachment *A = &in->attachments[a];
        fprintf(out, "attached: %s under joint %s: %zu vertices (%zu constraints), importance %.4g%s\n", A->name,
                A->joint, A->vertices, A->constraints, A->importance,
                A->importance == 0 ? " (--no-attached: not in the solve)" : "");
    }
    fprintf(out, "constraints: %zu target vertices; mode %s\n", in->constraints, run->mode);
}

void tr_print_table(FILE *out, const tr_run *run, bool per_frame)
{
    /* the clip column fits the longest name (at least 16 wide) */
    int cw = 16;
    for (size_t c = 0; c < run->clip_count; ++c) {
        size_t l = strlen(short_name(run->clips[c].name));
        if (l > (size_t)cw)
            cw = l > 200 ? 200 : (int)l;
    }
    fprintf(out, "%-*s %6s  %-13s %11s  %11s  %11s  %12s  %8s\n", cw, "clip", "frames", "run", "quality %",
            "mean err %", "worst err %", "sweeps/frame", "solve s");
    for (size_t c = 0; c < run->clip_count; ++c) {
        const skf_transfer_clip *k = &run->clips[c];
        const char *name = short_name(k->name);
        const skf_transfer_metrics *ms[3] = {&k->control, &k->free, &k->rotation_only};
        const char *what[3] = {"control", "free", "rotation-only"};
        for (int i = 0; i < 3; ++i) {
            const skf_transfer_metrics *m = ms[i];
            if (!m->present)
                continue;
            char q[32], me[32], mx[32], sw[32], sec[32];
            snprintf(q, sizeof q, TR_FMT_QUALITY, 100 * m->quality);
            snprintf(me, sizeof me, TR_FMT_ERROR, m->mean_error_pct);
            snprintf(mx, sizeof mx, TR_FMT_ERROR, m->max_error_pct);
            snprintf(sw, sizeof sw, TR_FMT_SWEEPS, m->sweeps_per_frame);
            snprintf(sec, sizeof sec, TR_FMT_SECONDS, m->solve_seconds);
            fprintf(out, "%-*s %6zu  %-13s %11s  %11s  %11s  %12s  %8s\n", cw, name, k->frames, what[i], q, me, mx,
                    sw, sec);
            for (size_t a = 0; a < m->attachment_count && a < run->info.attachment_count; ++a) {
                char label[64];
                snprintf(label, sizeof label, "  %s", run->info.attachments[a].name);
                snprintf(me, sizeof me, TR_FMT_ERROR, m->attachment_mean_pct[a]);
                snprintf(mx, sizeof mx, TR_FMT_ERROR, m->attachment_max_pct[a]);
                fprintf(out, "%-16s %6s  %-13.13s %11s  %11s  %11s\n", "", "", label, "", me, mx);
            }
            if (per_frame)
                for (size_t f = 0; f < k->frames; ++f) {
                    snprintf(q, sizeof q, TR_FMT_QUALITY, 100 * m->frame_quality[f]);
                    snprintf(me, sizeof me, TR_FMT_ERROR, m->frame_mean_pct[f]);
                    snprintf(mx, sizeof mx, TR_FMT_ERROR, m->frame_max_pct[f]);
                    fprintf(out, "%-*s %6zu  %-13s %11s  %11s  %11s  %12d\n", cw, "", f, "  frame", q, me, mx,
                            m->frame_sweeps[f]);
                }
        }
        if (k->rotation_only.present)
            fprintf(out, "%-*s rotation-only bone lengths kept within %.3e (relative)\n", cw, name,
                    k->rotation_only.max_length_error);
    }
}

static json_t *metrics_json(const skf_transfer_metrics *m, size_t frames, bool lengths, const skf_transfer_info *in)
{
    json_t *o = json_object();
    json_object_set_new(o, "quality", json_real(m->quality));
    json_object_set_new(o, "mean_error_pct", json_real(m->mean_error_pct));
    json_object_set_new(o, "max_error_pct", json_real(m->max_error_pct));
    json_object_set_new(o, "sweeps_per_frame", json_real(m->sweeps_per_frame));
    json_object_set_new(o, "newton_iterations_per_frame", json_real(m->iterations_per_frame));
    json_object_set_new(o, "solve_seconds", json_real(m->solve_seconds));
    json_object_set_new(o, "frames_at_cap", json_integer((json_int_t)m->frames_at_cap));
    json_object_set_new(o, "iteration_cap", json_integer(m->iteration_cap));
    if (lengths)
        json_object_set_new(o, "max_length_error", json_real(m->max_length_error));
    json_t *pf = json_array();
    for (size_t f = 0; f < frames; ++f) {
        json_t *e = json_object();
        json_object_set_new(e, "quality", json_real(m->frame_quality[f]));
        json_object_set_new(e, "mean_error_pct", json_real(m->frame_mean_pct[f]));
        json_object_set_new(e, "max_error_pct", json_real(m->frame_max_pct[f]));
        json_object_set_new(e, "sweeps", json_integer(m->frame_sweeps[f]));
        json_array_append_new(pf, e);
    }
    json_object_set_new(o, "per_frame", pf);
    if (m->attachment_count && in->attachment_count) { /* only when the target has attached meshes */
        json_t *at = json_array();
        for (size_t a = 0; a < m->attachment_count && a < in->attachment_count; ++a) {
            json_t *e = json_object();
            json_object_set_new(e, "name", json_string(in->attachments[a].name));
            json_object_set_new(e, "mean_error_pct", json_real(m->attachment_mean_pct[a]));
            json_object_set_new(e, "max_error_pct", json_real(m->attachment_max_pct[a]));
            json_array_append_new(at, e);
        }
        json_object_set_new(o, "attachments", at);
    }
    return o;
}

json_t *tr_report_json(const tr_run *run)
{
    json_t *root = json_object();
    const skf_transfer_info *in = &run->info;
    json_object_set_new(root, "source", json_string(run->source));
    json_object_set_new(root, "target", run->target ? json_string(run->target) : json_null());
    json_object_set_new(root, "diagonal", json_real(run->target ? in->target_diagonal : in->source_diagonal));
    json_object_set_new(root, "source_diagonal", json_real(in->source_diagonal));
    json_object_set_new(root, "constraints", json_integer((json_int_t)(run->target ? in->constraints : in->source_welded)));
    json_object_set_new(root, "mode", json_string(run->mode));
    if (run->target) {
        json_t *a = json_object();
        json_object_set_new(a, "method", json_string(in->alignment.method ? in->alignment.method : "identity"));
        json_object_set_new(a, "scale", json_real(in->alignment.scale));
        json_object_set_new(a, "residual_pct", json_real(100 * in->alignment.residual));
        json_t *m = json_array();
        for (int k = 0; k < 16; ++k)
            json_array_append_new(m, json_real(in->alignment.target_to_source[k]));
        json_object_set_new(a, "target_to_source", m);
        json_object_set_new(root, "alignment", a);
        if (in->registered)
            json_object_set_new(root, "registration", tr_registration_json(in));
        if (in->attachment_count) { /* only when the target has attached meshes */
            json_t *at = json_array();
            for (size_t a = 0; a < in->attachment_count; ++a) {
                const skf_transfer_attachment *A = &in->attachments[a];
                json_t *e = json_object();
                json_object_set_new(e, "name", json_string(A->name));
                json_object_set_new(e, "joint", json_string(A->joint));
                json_object_set_new(e, "node", json_integer(A->node));
                json_object_set_new(e, "vertices", json_integer((json_int_t)A->vertices));
                json_object_set_new(e, "constraints", json_integer((json_int_t)A->constraints));
                json_object_set_new(e, "importance", json_real(A->importance));
                json_array_append_new(at, e);
            }
            json_object_set_new(root, "attachments", at);
        }
    }
    json_t *clips = json_array();
    for (size_t c = 0; c < run->clip_count; ++c) {
        const skf_transfer_clip *k = &run->clips[c];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(short_name(k->name)));
        json_object_set_new(o, "animation", json_string(k->name ? k->name : ""));
        json_object_set_new(o, "frames", json_integer((json_int_t)k->frames));
        json_object_set_new(o, "fps", json_real(k->fps));
        json_object_set_new(o, "duration", json_real(k->duration));
        json_object_set_new(o, "seconds", json_real(k->seconds));
        if (k->control.present)
            json_object_set_new(o, "control", metrics_json(&k->control, k->frames, false, in));
        if (k->free.present)
            json_object_set_new(o, "free", metrics_json(&k->free, k->frames, false, in));
        if (k->rotation_only.present)
            json_object_set_new(o, "rotation_only", metrics_json(&k->rotation_only, k->frames, true, in));
        json_array_append_new(clips, o);
    }
    json_object_set_new(root, "clips", clips);
    return root;
}

skf_status tr_write_report(const char *path, const tr_run *run, skf_error *err)
{
    json_t *root = tr_report_json(run);
    if (!root)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    json_decref(root);
    if (!text)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
    size_t n = strlen(text);
    skf_status st = skf_write_file_atomic(path, text, n, err);
    skf_free(text);
    return st;
}

static int tr_progress_cb(void *user, double fraction, const char *what)
{
    tr_progress *p = user;
    snprintf(p->label, sizeof p->label, "%s (clip %zu of %zu, %zu frames): %s", short_name(p->name), p->index + 1,
             p->count, p->frames, what ? what : "");
    /* The percentage is of the whole run (clips weigh the same), so it rises
     * monotonically across clips; the label says which clip is at work. */
    double whole = ((double)p->index + fraction) / (double)p->count;
    return skf_progress_report(p->outer, whole, p->label);
}

void tr_progress_init(tr_progress *p, const skf_progress *outer, size_t index, size_t count, const char *name,
                      size_t frames)
{
    p->outer = outer;
    p->index = index;
    p->count = count ? count : 1;
    p->name = name;
    p->frames = frames;
    p->inner.report = tr_progress_cb;
    p->inner.user = p;
}

double tr_gate_quality(const skf_transfer_clip *c, bool has_target)
{
    if (!has_target)
        return c->control.quality;
    if (c->free.present)
        return c->free.quality;
    return c->rotation_only.quality;
}

skf_status tr_resolve_clips(const skf_gltf *source, const char *const *names, size_t name_count, bool all,
                            const char ***out, size_t *out_count, skf_error *err)
{
    *out = NULL;
    *out_count = 0;
    size_t n = all ? source->animation_count : name_count;
    const char **list = skf_malloc_array(n ? n : 1, sizeof *list);
    if (!list)
        return skf_fail(err, SKF_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; ++i) {
        if (all) {
            list[i] = source->animations[i].name;
            if (!list[i]) {
                skf_free(list);
                return skf_fail(err, SKF_ERR_FORMAT, "%s: animations[%zu]: a clip without a name cannot be selected",
                                source->path, i);
            }
        } else {
            list[i] = names[i];
        }
    }
    if (n == 0) {
        skf_free(list);
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: animations: the file has no clips", source->path);
    }
    *out = list;
    *out_count = n;
    return SKF_OK;
}
