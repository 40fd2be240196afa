/* `skinfit transfer --html`: the report page for a finished transfer. The
 * table rows are the transfer's own metrics (skf_transfer_clip); the heat maps
 * are drawn from the same runs' per-vertex output (their solved surfaces and
 * the per-vertex errors those metrics were computed from). Nothing is solved
 * or measured here. */
#include "skinfit/report.h"
#include "skinfit/rig.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *base_name(const char *p)
{
    if (!p)
        return "?";
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static skf_html_run make_run(const char *rig, const char *mode, const skf_transfer_metrics *m,
                             size_t frames)
{
    (void)frames;
    skf_html_run r = {rig, mode, m->quality, m->mean_error_pct, m->max_error_pct,
                      m->sweeps_per_frame, m->solve_seconds, m->frame_max_pct, m->frame_mean_pct};
    return r;
}

/* The rows of a run's attached meshes (skf_transfer_metrics.attachment_*): their
 * mean and worst error; quality, sweeps and time belong to the run's row. */
static size_t attachment_rows(skf_html_run *r, char (*labels)[160], const skf_transfer_info *info, const char *mode,
                              const skf_transfer_metrics *m)
{
    size_t n = 0;
    for (size_t a = 0; info && a < m->attachment_count && a < info->attachment_count; ++a, ++n) {
        snprintf(labels[n], sizeof labels[n], "· %s (attached to %s)", info->attachments[a].name,
                 info->attachments[a].joint);
        r[n] = (skf_html_run){labels[n], mode, NAN, m->attachment_mean_pct[a], m->attachment_max_pct[a], -1, -1,
                              NULL, NULL};
    }
    return n;
}

skf_status skf_report_transfer_html(const char *path, const char *source_path,
                                    const char *target_path, const skf_transfer_info *info,
                                    const skf_transfer_clip *clips, size_t clip_count,
                                    const char *command_line, int size_w, int size_h,
                                    skf_error *err)
{
    skf_status st = SKF_OK;
    skf_html_clip *hc = skf_calloc(clip_count ? clip_count : 1, sizeof *hc);
    size_t na = info ? info->attachment_count : 0, per_clip = 3 + 2 * na;
    skf_html_run *runs = skf_calloc(per_clip * (clip_count ? clip_count : 1), sizeof *runs);
    char (*att_labels)[160] = skf_calloc(per_clip * (clip_count ? clip_count : 1), sizeof *att_labels);
    skf_image *images = skf_calloc(clip_count ? clip_count : 1, sizeof *images);
    char (*captions)[256] = skf_calloc(clip_count ? clip_count : 1, sizeof *captions);
    const char **caption_ptrs = skf_calloc(clip_count ? clip_count : 1, sizeof *caption_ptrs);
    if (!hc || !runs || !att_labels || !images || !captions || !caption_ptrs) {
        st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
        goto done;
    }
    const char *src_name = base_name(source_path);
    const char *tgt_name = target_path ? base_name(target_path) : NULL;
    char src_label[300], tgt_label[300], tgt_rot_label[300];
    snprintf(src_label, sizeof src_label, "%s (artist rig)", src_name);
    snprintf(tgt_label, sizeof tgt_label, "%s · free", tgt_name ? tgt_name : "");
    snprintf(tgt_rot_label, sizeof tgt_rot_label, "%s · rotation-only", tgt_name ? tgt_name : "");
    for (size_t ci = 0; ci < clip_count; ++ci) {
        const skf_transfer_clip *c = &clips[ci];
        skf_html_run *r = runs + per_clip * ci;
        char (*lab)[160] = att_labels + per_clip * ci;
        size_t nr = 0;
        if (c->control.present)
            r[nr++] = make_run(src_label, "control", &c->control, c->frames);
        if (c->free.present) {
            r[nr++] = make_run(tgt_name ? tgt_name : "target", "free", &c->free, c->frames);
            nr += attachment_rows(r + nr, lab + nr, info, "free", &c->free);
        }
        if (c->rotation_only.present) {
            r[nr++] = make_run(tgt_name ? tgt_name : "target", "rotation-only", &c->rotation_only,
                               c->frames);
            nr += attachment_rows(r + nr, lab + nr, info, "rotation-only", &c->rotation_only);
        }
        hc[ci] = (skf_html_clip){c->name, c->frames, c->fps, r, nr, NULL, NULL, 0};

        /* heat map at the worst frame */
        skf_heatmap *rc = NULL;
        st = skf_heatmap_new_borrowed(c, &rc, err); /* c outlives rc */
        if (!st && c->control.present)
            st = skf_heatmap_add_run(rc, src_label, c, SKF_REPORT_CONTROL, NULL, err);
        if (!st && target_path && c->free.present)
            st = skf_heatmap_add_run(rc, tgt_label, c, SKF_REPORT_FREE, info ? &info->alignment : NULL, err);
        if (!st && target_path && c->rotation_only.present)
            st = skf_heatmap_add_run(rc, tgt_rot_label, c, SKF_REPORT_ROTATION_ONLY,
                                     info ? &info->alignment : NULL, err);
        if (!st) {
            const skf_render_scene *sc = skf_heatmap_scene(rc);
            size_t frame = skf_heatmap_worst_frame(rc);
            const char *short_name = skf_clip_short_name(c->name);
            char title[300];
            snprintf(title, sizeof title, "%s · %s", src_name, short_name);
            skf_render_options ro = {.width = size_w, .height = size_h, .title = title};
            skf_renderer *r2 = NULL;
            st = skf_renderer_new(sc, &ro, &r2, err);
            if (!st)
                st = skf_image_init(&images[ci], skf_renderer_width(r2), skf_renderer_height(r2),
                                    0xFFFFFFFFu, err);
            if (!st)
                st = skf_render_frame(r2, frame, &images[ci], NULL, err);
            skf_renderer_free(r2);
            snprintf(captions[ci], sizeof captions[ci],
                     "%s, frame %zu of %zu (the frame with the largest vertex error): artist's "
                     "ground truth, then each run's surface coloured by vertex error over the "
                     "ground truth's dark silhouette",
                     short_name, frame, c->frames);
            caption_ptrs[ci] = captions[ci];
            hc[ci].images = &images[ci];
            hc[ci].captions = &caption_ptrs[ci];
            hc[ci].image_count = 1;
        }
        skf_heatmap_free(rc);
        if (st)
            goto done;
    }
    {
        char f[12][128];
        const char *facts[24];
        size_t nf = 0;
        facts[2 * nf] = "source", facts[2 * nf + 1] = source_path ? source_path : "?", ++nf;
        if (target_path)
            facts[2 * nf] = "target", facts[2 * nf + 1] = target_path, ++nf;
        if (info) {
            snprintf(f[0], sizeof f[0], "%zu vertices (%zu welded), %zu joints", info->source_vertices,
                     info->source_welded, info->source_joints);
            facts[2 * nf] = "source rig", facts[2 * nf + 1] = f[0], ++nf;
            if (target_path) {
                snprintf(f[1], sizeof f[1], "%zu vertices (%zu welded), %zu joints",
                         info->target_vertices, info->target_welded, info->target_joints);
                facts[2 * nf] = "target rig", facts[2 * nf + 1] = f[1], ++nf;
                snprintf(f[2], sizeof f[2], "%zu", info->constraints);
                facts[2 * nf] = "constraints", facts[2 * nf + 1] = f[2], ++nf;
                snprintf(f[3], sizeof f[3], "%.6g (target), %.6g (source), scene units",
                         info->target_diagonal, info->source_diagonal);
                facts[2 * nf] = "rest diagonal", facts[2 * nf + 1] = f[3], ++nf;
                snprintf(f[4], sizeof f[4], "%s, scale %.6g, residual %.3g %% of the diagonal",
                         info->alignment.method ? info->alignment.method : "?",
                         info->alignment.scale, 100.0 * info->alignment.residual);
                facts[2 * nf] = "alignment", facts[2 * nf + 1] = f[4], ++nf;
                size_t len = 0;
                f[5][0] = 0;
                for (size_t a = 0; a < info->attachment_count && len < sizeof f[5]; ++a) {
                    const skf_transfer_attachment *A = &info->attachments[a];
                    int w = snprintf(f[5] + len, sizeof f[5] - len, "%s%s under %s: %zu vertices, importance %.4g",
                                     a ? "; " : "", A->name, A->joint, A->vertices, A->importance);
                    len += w > 0 ? (size_t)w : 0;
                }
                if (info->attachment_count)
                    facts[2 * nf] = "attached meshes", facts[2 * nf + 1] = f[5], ++nf;
            }
        }
        char title[300];
        snprintf(title, sizeof title, "skinfit transfer: %s → %s", src_name,
                 tgt_name ? tgt_name : "(control only)");
        skf_html_report rep = {title, facts, nf, hc, clip_count, command_line};
        st = skf_html_report_write(path, &rep, err);
    }
done:
    for (size_t ci = 0; images && ci < clip_count; ++ci)
        skf_image_release(&images[ci]);
    skf_free(images);
    skf_free(captions);
    skf_free(caption_ptrs);
    skf_free(runs);
    skf_free(att_labels);
    skf_free(hc);
    return st;
}
