/* Issue 12 §3 / acceptance 4: meshes attached to joints in the transfer.
 * Source: the creature with horns attached under the Head joint (a mesh node,
 * no skin). Target: the same with diffuse head weights (60 % of the Head's
 * weight spread onto Neck2 and Neck1), so the body alone pins the head's
 * rotation badly.
 *  1. the session sees the attachment on both sides (source surface played
 *     and carried; target: 244 constraints with weight 1 on Head and the
 *     importance c_a = max(1, m_Head / n_a) of docs/transfer.md);
 *  2. per clip (Walk, Trot): the attachment's worst error with attachment
 *     constraints is at least 5x smaller than without (no_attached_constraints:
 *     carried and measured, importance 0); the per-attachment figures equal
 *     the per-vertex errors they summarise;
 *  3. the heat-map panels include the attachment: ground truth and target
 *     panels carry its vertices, its triangles and its errors;
 *  4. the baked OUT.glb played by skinfit puts the attachment where the solve
 *     put it (<= 1e-5 of the diagonal); OUT.glb and the solved surface per clip
 *     (raw vertex order, PC2) are written to $SKF_BUILD_DIR/transfer_attached/
 *     for three_transfer_attached (three.js replay against the solved surface). */
#include "check.h"
#include "skinfit/creature.h"
#include "skinfit/gltf.h"
#include "skinfit/math.h"
#include "skinfit/meshseq.h"
#include "skinfit/report.h"
#include "skinfit/rig.h"
#include "skinfit/solve.h"
#include "skinfit/transfer.h"

#include <sys/stat.h>

static skf_error err;

static skf_gltf *build(const skf_creature_options *o, const char *path)
{
    skf_gltf *d = NULL, *back = NULL;
    CHECK_MSG(skf_creature_build(o, &d, &err) == SKF_OK, "%s", err.message);
    CHECK_MSG(skf_gltf_write_glb(d, path, NULL, &err) == SKF_OK, "%s", err.message);
    CHECK_MSG(skf_gltf_load(path, &back, NULL, &err) == SKF_OK, "%s", err.message);
    skf_gltf_free(d);
    return back;
}

int main(void)
{
    const char *bdir = getenv("SKF_BUILD_DIR");
    char dir[1024], ps[1100], pt[1100], pout[1100];
    snprintf(dir, sizeof dir, "%s/transfer_attached", bdir && *bdir ? bdir : ".");
    mkdir(dir, 0755);
    snprintf(ps, sizeof ps, "%s/horns_source.glb", dir);
    snprintf(pt, sizeof pt, "%s/horns_diffuse_head.glb", dir);
    snprintf(pout, sizeof pout, "%s/horns_transfer.glb", dir);
    skf_creature_options so = {.horns = SKF_CREATURE_HORNS_ATTACHED};
    skf_creature_options to = {.horns = SKF_CREATURE_HORNS_ATTACHED, .diffuse_head = true};
    skf_gltf *src = build(&so, ps), *tgt = build(&to, pt);

    skf_transfer_options with = {.threads = 1, .vertex_output = true}, without = with;
    without.no_attached_constraints = true;
    skf_transfer *tw = NULL, *tn = NULL;
    CHECK_MSG(skf_transfer_new(src, tgt, &with, &tw, NULL, &err) == SKF_OK, "%s", err.message);
    CHECK_MSG(skf_transfer_new(src, tgt, &without, &tn, NULL, &err) == SKF_OK, "%s", err.message);
    skf_transfer_info iw, in;
    skf_transfer_get_info(tw, &iw);
    skf_transfer_get_info(tn, &in);
    CHECK(iw.attachment_count == 1 && in.attachment_count == 1 && iw.source_attachments == 1);
    const skf_transfer_attachment *A = &iw.attachments[0];
    printf("1. target: %zu welded vertices; attached '%s' under '%s': %zu vertices (from %zu), %zu constraints, "
           "importance %.4g (without: %.4g); source: %zu attached mesh\n",
           iw.target_welded, A->name, A->joint, A->vertices, A->first_vertex, A->constraints, A->importance,
           in.attachments[0].importance, iw.source_attachments);
    CHECK(!strcmp(A->name, "Horns") && !strcmp(A->joint, "Head") && A->vertices == 244 && A->constraints == 244);
    CHECK(A->first_vertex + A->vertices == iw.target_welded);
    CHECK(A->importance >= 1 && in.attachments[0].importance == 0);

    /* target raw -> welded map (the PC2 for three.js is in raw order) */
    skf_rig *traw = NULL, *tweld = NULL;
    uint32_t *map = NULL;
    CHECK(skf_rig_from_gltf(tgt, 0, NULL, &traw, NULL, &err) == SKF_OK);
    CHECK(skf_rig_weld(traw, &tweld, &map, &err) == SKF_OK);
    CHECK(tweld->vertex_count == iw.target_welded);

    skf_gltf *outd = NULL;
    CHECK(skf_gltf_load(pt, &outd, NULL, &err) == SKF_OK);
    const char *clips[2] = {"Walk", "Trot"};
    skf_transfer_clip cw[2], cn[2];
    for (int k = 0; k < 2; ++k) {
        CHECK_MSG(skf_transfer_run_clip(tw, clips[k], &cw[k], NULL, &err) == SKF_OK, "%s", err.message);
        CHECK_MSG(skf_transfer_run_clip(tn, clips[k], &cn[k], NULL, &err) == SKF_OK, "%s", err.message);
        const skf_transfer_metrics *mw = &cw[k].free, *mn = &cn[k].free;
        CHECK(mw->attachment_count == 1 && mn->attachment_count == 1);
        double ratio = mn->attachment_max_pct[0] / mw->attachment_max_pct[0];
        printf("2. %s: Horns worst %.4f %% / mean %.4f %% of the diagonal with attachment constraints, "
               "%.4f %% / %.4f %% without: worst %.2fx smaller (bar 5x); whole surface worst %.4f %% vs %.4f %%, "
               "quality %.4f %% vs %.4f %%\n",
               clips[k], mw->attachment_max_pct[0], mw->attachment_mean_pct[0], mn->attachment_max_pct[0],
               mn->attachment_mean_pct[0], ratio, mw->max_error_pct, mn->max_error_pct, 100 * mw->quality,
               100 * mn->quality);
        CHECK(ratio >= 5);
        /* the figures are the per-vertex errors of the horn constraints */
        size_t C = cw[k].constraint_count, cnt = 0;
        double sum = 0, mx = 0;
        for (size_t f = 0; f < cw[k].frames; ++f)
            for (size_t c = 0; c < C; ++c) {
                uint32_t v = cw[k].constraint_vertex[c];
                if (v < A->first_vertex)
                    continue;
                double e = 100 * mw->vertex_errors[f * C + c] / mw->diagonal;
                sum += e, mx = fmax(mx, e), ++cnt;
            }
        CHECK(cnt == A->constraints * cw[k].frames);
        /* what it costs the body: the skinned vertices' errors in both solves */
        double bw[2] = {0, 0}, bm[2] = {0, 0};
        size_t bn = 0;
        for (size_t f = 0; f < cw[k].frames; ++f)
            for (size_t c = 0; c < C; ++c) {
                if (cw[k].constraint_vertex[c] >= A->first_vertex)
                    continue;
                double e0 = 100 * mw->vertex_errors[f * C + c] / mw->diagonal;
                double e1 = 100 * mn->vertex_errors[f * C + c] / mn->diagonal;
                bm[0] += e0, bm[1] += e1, bw[0] = fmax(bw[0], e0), bw[1] = fmax(bw[1], e1), ++bn;
            }
        printf("   %s: the body (skinned vertices) with / without: mean %.2e / %.2e %%, worst %.4f / %.4f %%\n",
               clips[k], bm[0] / (double)bn, bm[1] / (double)bn, bw[0], bw[1]);
        CHECK_NEAR(sum / (double)cnt, mw->attachment_mean_pct[0], 1e-12);
        CHECK(mx == mw->attachment_max_pct[0]);

        /* 3. the heat-map panels */
        skf_heatmap *h = NULL;
        CHECK(skf_heatmap_new(&cw[k], &h, &err) == SKF_OK);
        CHECK(skf_heatmap_add_run(h, "free", &cw[k], SKF_REPORT_FREE, &iw.alignment, &err) == SKF_OK);
        const skf_render_scene *sc = skf_heatmap_scene(h);
        const skf_render_panel *gt = &sc->panels[0], *pf = &sc->panels[1];
        size_t horn_tris = 0, measured = 0;
        for (size_t t = 0; t < pf->surface.triangle_count; ++t)
            horn_tris += pf->surface.triangles[3 * t] >= A->first_vertex;
        for (size_t v = A->first_vertex; v < pf->surface.vertex_count; ++v)
            measured += !pf->measured || pf->measured[v];
        if (k == 0)
            printf("3. heat-map panels: ground truth %zu vertices, target %zu vertices (%zu horn triangles, %zu horn "
                   "vertices with an error)\n",
                   gt->surface.vertex_count, pf->surface.vertex_count, horn_tris, measured);
        CHECK(gt->surface.vertex_count == iw.source_welded && pf->surface.vertex_count == iw.target_welded);
        CHECK(horn_tris > 0 && measured == A->vertices && pf->errors);
        skf_heatmap_free(h);

        CHECK_MSG(skf_transfer_add_animation(tw, outd, &cw[k], &err) == SKF_OK, "%s", err.message);
        /* the solved surface, raw order, for three.js */
        size_t N = traw->vertex_count, Nw = tweld->vertex_count, F = cw[k].frames;
        skf_meshseq *seq = skf_meshseq_new(N, F);
        CHECK(seq && mw->surface);
        for (size_t f = 0; f < F; ++f)
            for (size_t v = 0; v < N; ++v)
                memcpy(seq->positions + (f * N + v) * 3, mw->surface + (f * Nw + map[v]) * 3, 3 * sizeof(double));
        seq->fps = cw[k].fps;
        seq->start_time = cw[k].start;
        char pc2[1200];
        snprintf(pc2, sizeof pc2, "%s/horns_transfer.%s.pc2", dir, clips[k]);
        CHECK_MSG(skf_pc2_write(pc2, seq, &err) == SKF_OK, "%s", err.message);
        skf_meshseq_free(seq);
    }
    CHECK_MSG(skf_gltf_write_glb(outd, pout, NULL, &err) == SKF_OK, "%s", err.message);

    /* 4. skinfit's playback of OUT.glb: the horns at the solved place */
    skf_gltf *back = NULL;
    skf_rig *rig = NULL;
    CHECK(skf_gltf_load(pout, &back, NULL, &err) == SKF_OK);
    CHECK(skf_rig_from_gltf(back, 0, NULL, &rig, NULL, &err) == SKF_OK);
    CHECK(rig->vertex_count == traw->vertex_count);
    double diag = iw.target_diagonal;
    for (int k = 0; k < 2; ++k) {
        skf_clip *clip = NULL;
        int a = skf_clip_find(back, cw[k].name, NULL);
        CHECK(a >= 0 && skf_clip_from_gltf(back, a, &clip, &err) == SKF_OK);
        skf_pose pose;
        CHECK(skf_pose_init(&pose, rig, &err) == SKF_OK);
        size_t N = rig->vertex_count, Nw = tweld->vertex_count;
        double *play = malloc(N * 3 * sizeof(double)), worst_h = 0, worst = 0;
        for (size_t f = 0; f < cw[k].frames; ++f) {
            skf_pose_eval(rig, clip, cw[k].start + (double)f / cw[k].fps, &pose);
            skf_skin(rig, &pose, play, 1);
            for (size_t v = 0; v < N; ++v) {
                const double *s = cw[k].free.surface + (f * Nw + map[v]) * 3;
                double d[3] = {play[3 * v] - s[0], play[3 * v + 1] - s[1], play[3 * v + 2] - s[2]};
                double e = skf_norm3(d) / diag;
                worst = fmax(worst, e);
                if (map[v] >= A->first_vertex)
                    worst_h = fmax(worst_h, e);
            }
        }
        printf("4. %s: OUT.glb played by skinfit vs the solved surface: Horns max %.3g, all vertices max %.3g of "
               "the diagonal (three.js: three_transfer_attached)\n",
               clips[k], worst_h, worst);
        CHECK(worst_h <= 1e-5 && worst <= 1e-5);
        free(play);
        skf_pose_release(&pose);
        skf_clip_free(clip);
    }
    skf_rig_free(rig);
    skf_gltf_free(back);
    for (int k = 0; k < 2; ++k) {
        skf_transfer_clip_release(&cw[k]);
        skf_transfer_clip_release(&cn[k]);
    }
    free(map);
    skf_rig_free(traw);
    skf_rig_free(tweld);
    skf_gltf_free(outd);
    skf_transfer_free(tw);
    skf_transfer_free(tn);
    skf_gltf_free(src);
    skf_gltf_free(tgt);
    return skf_test_done();
}
