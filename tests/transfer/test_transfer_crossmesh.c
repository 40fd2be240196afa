/* Issue 12 §4.1: transfers between creature variants (other proportions,
 * resolution, triangulation, horns on one side, a front knee bent 40° at
 * rest) against the ground truth — the target variant playing the same clip
 * keys (a bent knee plays bend · key, skinfit/creature.h knee_bend). For each ordered pair and
 * each clip (Walk, Trot): the source's clip is transferred onto the target's
 * own rig (free solve, every welded vertex a constraint), baked, played back
 * with skinfit's evaluator on every target vertex, and compared with the
 * target playing its own clip:
 *   quality = 1 − Σ‖baked − truth‖ / Σ‖truth − truth(frame 0)‖
 *   mean vertex error, % of the target's rest diagonal
 * for deformation-transfer carrying (the default) and closest-point carrying
 * beside it. Gates: deformation beats closest on every case (mean error),
 * and the bar holds on every case: quality ≥ 97 %, mean ≤ 0.2 % of
 * the diagonal (measured Dec 2026 with the target's skinning subspace:
 * 97.3 – 99.5 %, 0.022 – 0.135 %; before it, vertex-space deformation
 * transfer: 91.9 – 98.5 %, 0.069 – 0.33 %, 5 of 12) — docs/results.md.
 * The bent-knee pairs (straight ↔ bent, both ways) carry with the trimmed
 * similarity of the registered correspondences (src/transfer/carry_frame.c):
 * 98.9 – 99.3 %, 0.030 – 0.053 %; with the alignment's similarity, 2.9° off
 * because of the bent leg, they gave 96.9 – 97.6 %, 0.10 – 0.15 % (straight →
 * bent Trot 96.95 %, under the bar). The other pairs keep the alignment's
 * similarity (their trimmed RMS is 0.5 – 2 % of the diagonal: no single
 * similarity fits the body) and their figures bit for bit.
 * The baked GLBs go to $SKF_BUILD_DIR/transfer_out/ for
 * validate_transfer (gltf-validator over the folder). */
#include "check.h"
#include "skinfit/creature.h"
#include "skinfit/gltf.h"
#include "skinfit/math.h"
#include "skinfit/rig.h"
#include "skinfit/solve.h"
#include "skinfit/transfer.h"

#include <sys/stat.h>

static skf_error err;

typedef struct figures {
    double quality, mean_pct, max_pct;
} figures;

/* Baked animation `baked` vs the document's own animation `truth` on every
 * raw vertex at the clip's frame times. */
static figures compare(const skf_gltf *doc, int baked, int truth, const skf_transfer_clip *c)
{
    figures fg = {0, 0, 0};
    skf_rig *rig = NULL;
    skf_clip *cb = NULL, *ct = NULL;
    CHECK(skf_rig_from_gltf(doc, 0, NULL, &rig, NULL, &err) == SKF_OK);
    CHECK(skf_clip_from_gltf(doc, baked, &cb, &err) == SKF_OK);
    CHECK(skf_clip_from_gltf(doc, truth, &ct, &err) == SKF_OK);
    size_t n = rig->vertex_count;
    double *pb = malloc(n * 3 * sizeof(double)), *pt = malloc(n * 3 * sizeof(double)),
           *p0 = malloc(n * 3 * sizeof(double));
    skf_pose pose;
    CHECK(skf_pose_init(&pose, rig, &err) == SKF_OK);
    skf_pose_eval(rig, NULL, 0, &pose);
    skf_skin(rig, &pose, p0, 0);
    double diag = skf_bbox_diagonal(n, p0);
    double sum_e = 0, sum_m = 0, mx = 0;
    for (size_t f = 0; f < c->frames; ++f) {
        double time = c->start + (double)f / c->fps;
        skf_pose_eval(rig, cb, time, &pose);
        skf_skin(rig, &pose, pb, 0);
        skf_pose_eval(rig, ct, time, &pose);
        skf_skin(rig, &pose, pt, 0);
        if (f == 0)
            memcpy(p0, pt, n * 3 * sizeof(double));
        for (size_t v = 0; v < n; ++v) {
            double d[3] = {pb[3 * v] - pt[3 * v], pb[3 * v + 1] - pt[3 * v + 1], pb[3 * v + 2] - pt[3 * v + 2]};
            double m[3] = {pt[3 * v] - p0[3 * v], pt[3 * v + 1] - p0[3 * v + 1], pt[3 * v + 2] - p0[3 * v + 2]};
            double e = skf_norm3(d);
            sum_e += e;
            sum_m += skf_norm3(m);
            mx = fmax(mx, e);
        }
    }
    fg.quality = 1 - sum_e / sum_m;
    fg.mean_pct = 100 * sum_e / ((double)(n * c->frames) * diag);
    fg.max_pct = 100 * mx / diag;
    skf_pose_release(&pose);
    free(pb);
    free(pt);
    free(p0);
    skf_clip_free(cb);
    skf_clip_free(ct);
    skf_rig_free(rig);
    return fg;
}

/* Transfer clip `name` from s onto a copy of t with the given carrying;
 * returns the figures against t's own clip. */
static figures one(const skf_gltf *s, const skf_creature_options *to, const char *name, int carry, const char *save,
                   skf_transfer_info *info_out)
{
    figures fg = {0, 0, 0};
    skf_gltf *t = NULL;
    CHECK(skf_creature_build(to, &t, &err) == SKF_OK);
    skf_transfer_options o = {.mode = SKF_TRANSFER_FREE, .no_control = true, .carry = carry, .threads = 0};
    skf_transfer *tr = NULL;
    skf_status st = skf_transfer_new(s, t, &o, &tr, NULL, &err);
    CHECK_MSG(st == SKF_OK, "%s", err.message);
    if (st) {
        skf_gltf_free(t);
        return fg;
    }
    skf_transfer_clip c;
    st = skf_transfer_run_clip(tr, name, &c, NULL, &err);
    CHECK_MSG(st == SKF_OK, "%s", err.message);
    if (!st) {
        int truth = skf_clip_find(t, name, NULL);
        /* rename the baked clip so it does not shadow the truth */
        char *old = c.name;
        size_t len = strlen(old) + 8;
        c.name = malloc(len);
        snprintf(c.name, len, "%s_baked", old);
        skf_free(old);
        CHECK(skf_transfer_add_animation(tr, t, &c, &err) == SKF_OK);
        CHECK(skf_gltf_reparse(t, NULL, &err) == SKF_OK);
        fg = compare(t, (int)t->animation_count - 1, truth, &c);
        if (save)
            CHECK_MSG(skf_gltf_write_glb(t, save, NULL, &err) == SKF_OK, "%s", err.message);
        if (info_out)
            skf_transfer_get_info(tr, info_out);
        free(c.name);
        c.name = NULL;
        skf_transfer_clip_release(&c);
    }
    skf_transfer_free(tr);
    skf_gltf_free(t);
    return fg;
}

typedef struct variant {
    const char *label;
    skf_creature_options o;
} variant;

int main(int argc, char **argv)
{
    int only = argc > 1 ? atoi(argv[1]) : -1; /* run one pair (debugging) */
    int met = 0, cases = 0;
    const variant V[] = {
        {"default 5k", {.vertices = 5000}},
        {"legs+25 girth+30 3k tri1", {.vertices = 3000, .leg_scale = 1.25, .girth_scale = 1.3, .triangulation = 1}},
        {"legs-25 neck+30 6k", {.vertices = 6000, .leg_scale = 0.75, .neck_scale = 1.3}},
        {"girth-30 4k", {.vertices = 4000, .girth_scale = 0.7}},
        {"horns girth-20", {.vertices = 5000, .girth_scale = 0.8, .horns = SKF_CREATURE_HORNS_SKINNED}},
        {"front knee L bent 40 4.5k", {.vertices = 4500, .knee_bend = {40, 0, 0, 0}}},
    };
    enum { NV = sizeof V / sizeof V[0] };
    static const int pairs[][2] = {{0, 1}, {1, 0}, {0, 2}, {2, 3}, {0, 4}, {4, 0}, {0, 5}, {5, 0}};
    skf_gltf *docs[NV];
    for (int k = 0; k < NV; ++k)
        CHECK(skf_creature_build(&V[k].o, &docs[k], &err) == SKF_OK);
    const char *dir = getenv("SKF_BUILD_DIR");
    char outdir[1024];
    snprintf(outdir, sizeof outdir, "%s/transfer_out", dir ? dir : ".");
    mkdir(outdir, 0777);
    printf("%-26s %-26s %-5s | %-28s | %-28s\n", "source", "target", "clip", "deformation: quality mean max %",
           "closest: quality mean max %");
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; ++p)
        for (int clip = 0; clip < 2 && (only < 0 || only == (int)p); ++clip) {
            const char *name = clip ? "Trot" : "Walk";
            const skf_gltf *s = docs[pairs[p][0]];
            const skf_creature_options *t = &V[pairs[p][1]].o;
            char save[1100];
            snprintf(save, sizeof save, "%s/crossmesh_%zu_%s.glb", outdir, p, name);
            skf_transfer_info info;
            memset(&info, 0, sizeof info);
            figures d = one(s, t, name, SKF_CARRY_DEFORMATION, save, &info);
            figures c = one(s, t, name, SKF_CARRY_CLOSEST, NULL, NULL);
            printf("%-26s %-26s %-5s | %8.3f %9.4f %9.4f | %8.3f %9.4f %9.4f | reg %.3f -> %.3f %%, unmatched %zu, "
                   "carrying frame %s (trimmed rms %.3f %%, %.2f deg, x%.4f)\n",
                   V[pairs[p][0]].label, V[pairs[p][1]].label, name, 100 * d.quality, d.mean_pct, d.max_pct,
                   100 * c.quality, c.mean_pct, c.max_pct, 100 * info.residual_before, 100 * info.residual_after,
                   info.unmatched_count, info.carry_frame_used ? "refit" : "alignment", 100 * info.carry_frame_rms,
                   info.carry_frame_angle_deg, info.carry_frame_scale_ratio);
            CHECK(info.registered);
            /* the trimmed carrying frame replaces the alignment's similarity only
             * where one similarity fits the body: the bent-knee pairs */
            bool bent = V[pairs[p][0]].o.knee_bend[0] != 0 || V[pairs[p][1]].o.knee_bend[0] != 0;
            CHECK_MSG(info.carry_frame_used == bent, "carrying frame %s on %s -> %s",
                      info.carry_frame_used ? "refit" : "alignment", V[pairs[p][0]].label, V[pairs[p][1]].label);
            CHECK_MSG(d.mean_pct < c.mean_pct, "deformation %.4f %% not below closest %.4f %%", d.mean_pct, c.mean_pct);
            CHECK_MSG(d.quality >= 0.97, "quality %.4f < 0.97", d.quality);
            CHECK_MSG(d.mean_pct <= 0.2, "mean error %.4f %% > 0.2 %%", d.mean_pct);
            met += d.quality >= 0.97 && d.mean_pct <= 0.2;
            ++cases;
        }
    printf("issue 12 bar (quality >= 97 %%, mean <= 0.2 %%): met on %d of %d cases\n", met, cases);
    for (int k = 0; k < NV; ++k)
        skf_gltf_free(docs[k]);
    return skf_test_done();
}
