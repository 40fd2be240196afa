/* --skeleton (issue 16, point 3; src/decompose/skeleton.c, Le & Deng 2014):
 * on the creature's clips (the generator knows the true skeleton) the
 * recovered tree is compared with the true topology (edges that match, splits,
 * merges, wrong edges, all printed), the joints of matched edges with the
 * true joints (at the default rounds every one within 2 % of the diagonal,
 * on the Walk and the Trot; the share within 2 % and the median otherwise;
 * every matched joint's error is printed), and bone lengths
 * are constant over the clip (relative 1e-9).
 * The skeletal error is reported beside the flat one.
 * Diagnostics: SKF_TEST_SKELETON_BONES=1 prints every recovered bone with the
 * true joints it overlaps and its joint; SKF_TEST_SKELETON_ROUNDS=n runs n
 * weight rounds instead of the default (docs/decompose.md lists what 2 to 60
 * rounds give); SKF_TEST_SKELETON_JOINTS=1 prints every matched joint's
 * error beside its prior's (the shared-vertex centroid) and its relative
 * rotations; SKF_TEST_SKELETON_CLIP=0 / 1 runs only the Walk / the Trot at
 * the default rounds. */
#include "check.h"
#include "skinfit/creature.h"
#include "skinfit/decompose.h"
#include "skinfit/gltf.h"
#include "skinfit/rig.h"
#include "skinfit/meshseq.h"
#include "skinfit/math.h"

#include <stdint.h>
#include <stdlib.h>

static int true_parent(size_t t) { return skf_creature_joint_parent(t); }

/* Edge {a, b} of the true tree? */
static bool true_edge(size_t a, size_t b)
{
    return true_parent(a) == (int)b || true_parent(b) == (int)a;
}

static void run_clip(size_t clip_index, size_t verts, size_t frames, size_t rounds_default)
{
    skf_error err;
    skf_creature_options co = {.vertices = verts};
    skf_gltf *doc = NULL;
    skf_rig *rig = NULL;
    skf_clip *clip = NULL;
    skf_meshseq *seq = NULL;
    skf_decomposition *d = NULL;
    if (skf_creature_build(&co, &doc, &err) || skf_rig_from_gltf(doc, 0, NULL, &rig, NULL, &err) ||
        skf_clip_from_gltf(doc, (int)clip_index, &clip, &err) ||
        skf_rig_bake(rig, clip, (double)(frames - 1) / clip->duration, 0, NULL, &seq, &err)) {
        CHECK_MSG(0, "creature: %s", err.message);
        goto out;
    }
    size_t J = skf_creature_joint_count(), N = rig->vertex_count;
    size_t weighted = 0;
    for (size_t t = 0; t < rig->joint_count; ++t)
        weighted += rig->joints[t].has_weight;
    const char *rounds = getenv("SKF_TEST_SKELETON_ROUNDS");
    skf_decompose_options o = {.bone_count = weighted, .skeleton = true,
                               .skeleton_rounds = rounds ? (size_t)atoi(rounds) : rounds_default};
    skf_status st = skf_decompose(N, seq->frame_count, seq->positions, rig->rest_positions,
                                  seq->triangle_count, seq->triangles, &o, &d, &err);
    CHECK_MSG(st == SKF_OK, "%s", err.message);
    if (!d)
        goto out;
    size_t B = d->bone_count, K = d->max_influences;
    double diag = d->metrics.diagonal;
    printf("creature %s, %zu rounds%s, %zu v x %zu f, %zu bones: flat RMS %.4g (%.4f %% of diagonal), skeletal "
           "RMS %.4g (%.4f %%), root bone %zu\n",
           skf_creature_clip_name(clip_index),
           d->skeleton_rounds_run,
           o.skeleton_rounds ? "" : d->skeleton_hit_cap ? " (the cap)" : " (by the rule)", N,
           d->frame_count, B, d->metrics_flat.rms,
           100 * d->metrics_flat.rms / diag, d->metrics.rms, 100 * d->metrics.rms / diag,
           d->skeleton_root);
    CHECK(d->parent != NULL);
    if (!d->parent)
        goto out;
    /* a tree: one root, every bone reaches it */
    size_t roots = 0, bad_tree = 0;
    for (size_t i = 0; i < B; ++i) {
        roots += d->parent[i] < 0;
        size_t hops = 0;
        for (int32_t a = (int32_t)i; a >= 0 && hops <= B; a = d->parent[a])
            ++hops;
        bad_tree += hops > B;
    }
    CHECK(roots == 1 && bad_tree == 0);
    /* recovered bone -> true joint by weight overlap */
    double *ov = calloc(B * J, sizeof *ov);
    for (size_t j = 0; j < N; ++j)
        for (size_t k = 0; k < K; ++k) {
            double w = d->weight[j * K + k];
            if (!(w > 0))
                continue;
            for (size_t p = rig->weight_offsets[j]; p < rig->weight_offsets[j + 1]; ++p)
                ov[d->weight_bone[j * K + k] * J + rig->weight_joints[p]] += w * rig->weights[p];
        }
    size_t *map = malloc(B * sizeof *map);
    size_t *hits = calloc(J, sizeof *hits);
    for (size_t i = 0; i < B; ++i) {
        map[i] = 0;
        for (size_t t = 1; t < J; ++t)
            if (ov[i * J + t] > ov[i * J + map[i]])
                map[i] = t;
        hits[map[i]]++;
    }
    if (getenv("SKF_TEST_SKELETON_BONES")) {
        for (size_t i = 0; i < B; ++i) {
            double tot = 0;
            for (size_t t = 0; t < J; ++t)
                tot += ov[i * J + t];
            printf("  bone %2zu parent %3d mass %7.1f: %-16s %.2f", i, d->parent[i], tot,
                   skf_creature_joint_name(map[i]), tot > 0 ? ov[i * J + map[i]] / tot : 0);
            for (size_t t = 0; t < J; ++t)
                if (t != map[i] && tot > 0 && ov[i * J + t] > 0.1 * tot)
                    printf(", %s %.2f", skf_creature_joint_name(t), ov[i * J + t] / tot);
            printf("  joint %.3f %.3f %.3f\n", d->joint_rest[3 * i], d->joint_rest[3 * i + 1], d->joint_rest[3 * i + 2]);
        }
        for (size_t t = 1; t < J; ++t)
            if (hits[t] == 0)
                printf("  no bone: %s\n", skf_creature_joint_name(t));
    }
    size_t exact = 0, split = 0, merged = 0, wrong = 0, missing = 0;
    double worst_joint = 0, jerr[64];
    char jlist[4096];
    size_t jlen = 0;
    jlist[0] = 0;
    size_t nj = 0;
    for (size_t t = 1; t < J; ++t)
        missing += rig->joints[t].has_weight && hits[t] == 0;
    for (size_t i = 0; i < B; ++i) {
        if (d->parent[i] < 0)
            continue;
        size_t a = map[i], p = map[d->parent[i]];
        if (a == p) {
            ++split; /* two recovered bones on one true bone */
        } else if (true_edge(a, p)) {
            ++exact;
            size_t child = true_parent(a) == (int)p ? a : p;
            double tp[3];
            skf_creature_joint_bind_position(child, tp);
            const double *bj = d->joint_rest + 3 * i;
            double e = sqrt((bj[0] - tp[0]) * (bj[0] - tp[0]) + (bj[1] - tp[1]) * (bj[1] - tp[1]) +
                            (bj[2] - tp[2]) * (bj[2] - tp[2]));
            if (e > worst_joint)
                worst_joint = e;
            if (nj < 64)
                jerr[nj++] = e / diag;
            if (jlen < sizeof jlist - 64)
                jlen += (size_t)snprintf(jlist + jlen, sizeof jlist - jlen, "%s %s-%s %.2f", nj > 1 ? "," : "",
                                         skf_creature_joint_name(p), skf_creature_joint_name(a), 100 * e / diag);
            if (getenv("SKF_TEST_SKELETON_JOINTS")) {
                size_t q = (size_t)d->parent[i];
                double sw = 0, m[3] = {0};
                for (size_t j = 0; j < N; ++j) {
                    double wi = 0, wq = 0;
                    for (size_t k = 0; k < K; ++k) {
                        if (d->weight_bone[j * K + k] == i) wi += d->weight[j * K + k];
                        if (d->weight_bone[j * K + k] == q) wq += d->weight[j * K + k];
                    }
                    sw += wi * wq;
                    for (int r = 0; r < 3; ++r) m[r] += wi * wq * rig->rest_positions[3 * j + r];
                }
                double em = 0;
                for (int r = 0; r < 3; ++r) { m[r] /= sw > 0 ? sw : 1; em += (m[r] - tp[r]) * (m[r] - tp[r]); }
                size_t F = d->frame_count;
                double A[16] = {0};
                A[15] = 1;
                for (size_t f = 0; f < F; ++f) {
                    const double *Ti = d->transforms + (f * B + i) * 12, *Tq = d->transforms + (f * B + q) * 12;
                    double D[9];
                    for (int k = 0; k < 9; ++k) D[k] = Ti[k] - Tq[k];
                    for (int x = 0; x < 3; ++x)
                        for (int y = 0; y < 3; ++y)
                            for (int r = 0; r < 3; ++r) A[x * 4 + y] += D[x * 3 + r] * D[y * 3 + r];
                }
                double ev[4], V[16];
                skf_sym4_eigen(A, ev, V);
                printf("  J %-16s-%-16s err %5.2f %% prior %5.2f %% rot", skf_creature_joint_name(p), skf_creature_joint_name(a),
                       100 * e / diag, 100 * sqrt(em) / diag);
                for (int k = 0; k < 4; ++k)
                    if (fabs(V[12 + k]) < 0.5) printf(" %.1f", sqrt(fmax(ev[k], 0) / (double)F) * 180 / M_PI);
                printf("\n");
            }
            if (e > 0.02 * diag) {
                /* how well the motion determines the joint: A = Σ_f D_fᵀD_f, D_f = R_fi − R_fq
                 * (sqrt of its eigenvalues / F ≈ RMS relative rotation in radians about
                 * the principal axes) and the RMS relative displacement at the true joint */
                size_t q = (size_t)d->parent[i], F = d->frame_count;
                double A[16] = {0}, disp = 0;
                A[15] = 1;
                for (size_t f = 0; f < F; ++f) {
                    const double *Ti = d->transforms + (f * B + i) * 12,
                                 *Tq = d->transforms + (f * B + q) * 12;
                    double D[9], dd[3];
                    for (int k = 0; k < 9; ++k)
                        D[k] = Ti[k] - Tq[k];
                    for (int x = 0; x < 3; ++x)
                        for (int y = 0; y < 3; ++y)
                            for (int r = 0; r < 3; ++r)
                                A[x * 4 + y] += D[x * 3 + r] * D[y * 3 + r];
                    for (int r = 0; r < 3; ++r)
                        dd[r] = D[r] * tp[0] + D[3 + r] * tp[1] + D[6 + r] * tp[2] + Ti[9 + r] -
                                Tq[9 + r];
                    disp += dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2];
                }
                double ev[4], V[16];
                skf_sym4_eigen(A, ev, V);
                double deg[3];
                size_t nd = 0;
                for (int k = 0; k < 4; ++k)
                    if (fabs(ev[k] - 1) > 1e-300 && nd < 3)
                        deg[nd++] = sqrt(fmax(ev[k], 0) / (double)F) * 180 / M_PI;
                int ax = -1;
                for (int k = 0; k < 4; ++k)
                    if (fabs(V[12 + k]) < 0.5 && (ax < 0 || ev[k] < ev[ax]))
                        ax = k;
                double along = 0;
                for (int r = 0; r < 3; ++r)
                    along += (bj[r] - tp[r]) * V[r * 4 + ax];
                printf("  joint %s-%s: %.4f (%.2f %% of diagonal); relative rotation %.1f %.1f %.1f "
                       "deg RMS about the principal axes; at the true joint the two bones' copies "
                       "are %.2f %% of the diagonal apart; %.2f %% of the error along the weakest "
                       "axis (%.2f %.2f %.2f); found %.3f %.3f %.3f, true %.3f %.3f %.3f\n",
                       skf_creature_joint_name(p), skf_creature_joint_name(a), e, 100 * e / diag,
                       nd > 0 ? deg[0] : 0, nd > 1 ? deg[1] : 0, nd > 2 ? deg[2] : 0,
                       100 * sqrt(disp / (double)F) / diag, 100 * fabs(along) / diag, V[ax], V[4 + ax], V[8 + ax],
                       bj[0], bj[1], bj[2], tp[0], tp[1], tp[2]);
            }
        } else {
            /* merge: a and p two steps apart through a true joint no recovered bone maps to */
            int ga = true_parent(a), gp = true_parent(p);
            bool two = (ga >= 0 && true_parent((size_t)ga) == (int)p && hits[ga] == 0) ||
                       (gp >= 0 && true_parent((size_t)gp) == (int)a && hits[gp] == 0) ||
                       (ga >= 0 && ga == gp && hits[ga] == 0);
            if (two)
                ++merged;
            else {
                ++wrong;
                printf("  edge %s - %s is not in the true tree\n", skf_creature_joint_name(a),
                       skf_creature_joint_name(p));
            }
        }
    }
    printf("  topology: %zu edges match true edges, %zu splits (two bones on one true bone), %zu "
           "merges (across a true joint no bone took), %zu wrong; %zu weighted true joints got no "
           "bone; worst joint %.4f = %.2f %% of the diagonal\n",
           exact, split, merged, wrong, missing, worst_joint, 100 * worst_joint / diag);
    for (size_t x = 1; x < nj; ++x) /* sort */
        for (size_t y = x; y > 0 && jerr[y] < jerr[y - 1]; --y) {
            double t = jerr[y];
            jerr[y] = jerr[y - 1];
            jerr[y - 1] = t;
        }
    size_t within = 0;
    for (size_t x = 0; x < nj; ++x)
        within += jerr[x] <= 0.02;
    printf("  joints of matched edges: %zu of %zu within 2 %% of the diagonal, median %.2f %%\n",
           within, nj, nj ? 100 * jerr[nj / 2] : 0.0);
    printf("  each matched joint's error, %% of the diagonal:%s\n", jlist);
    /* What the implementation reaches (docs/decompose.md, "Skeleton"): most
     * edges match the true tree. At the default the constrained rounds run until the
     * stopping rule holds on the skeletal energy and on the kept joints
     * (cap 200), the weights' candidates kept to the support the tree was
     * built from: the Walk stops by the rule at 72 rounds (at the former
     * cap of 60 its energy had settled but a joint still moved 5x the
     * rule's allowance a round), 18 of 18 matched joints within 2 % of the
     * diagonal, worst 1.02 %; the Trot stops by the rule at 36 rounds, 16 of 16,
     * worst 0.92 % (Spine3-Spine2; it reached the cap before the
     * over-relaxation's tries left the weak directions alone and a joint's
     * move the energy cannot resolve counted as settled). Before (the energy
     * alone in the rule, candidates from the last round's weights) the Trot
     * stopped at 27 rounds with Spine3-Spine2 at 2.25 %, and 50-60 rounds
     * broke it (a shoulder bone's skin travelled across the chest). Fewer
     * rounds (the third case, 15) keep the median within 2 % and the worst
     * within 6 %. */
    /* skin contact across the creature's separate parts (contact.c) joins
     * the left hind leg to the hips: the Walk has no edge outside the true
     * tree, the Trot one (Spine3-Hips, docs/decompose.md) */
    CHECK_MSG(wrong <= (clip_index == 0 ? 0u : 1u), "%zu edges outside the true tree", wrong);
    CHECK(exact >= B / 2);
    CHECK(nj > 0 && jerr[nj / 2] <= 0.02);
    CHECK(3 * within >= 2 * nj);
    CHECK(worst_joint <= 0.06 * diag);
    if (o.skeleton_rounds == 0) {
        CHECK_MSG(within == nj, "%zu of %zu matched joints within 2 %% of the diagonal", within, nj);
        CHECK_MSG(worst_joint <= 0.02 * diag, "worst joint %.2f %% of the diagonal", 100 * worst_joint / diag);
        CHECK(d->skeleton_rounds_run > 2);
        /* both clips' rounds end by the rule, not at the cap */
        CHECK_MSG(!d->skeleton_hit_cap, "%s: %zu rounds, the cap", skf_creature_clip_name(clip_index),
                  d->skeleton_rounds_run);
    }
    /* pruning: no bone of the skeleton carries less than 3 vertices' worth of
     * weight (skeleton.c prunes them before the tree; measured after the
     * constrained weight rounds: the lightest keeps 16.9 / 4.5, 7.7 in the
     * 15-round case) */
    double min_mass = 1e300;
    for (size_t i = 0; i < B; ++i) {
        double m = 0;
        for (size_t e = 0; e < N * K; ++e)
            if (d->weight_bone[e] == i)
                m += d->weight[e];
        min_mass = m < min_mass ? m : min_mass;
    }
    printf("  %zu of %zu bones kept (%zu pruned), the lightest carries %.2f vertices of weight\n", B,
           weighted, weighted - B, min_mass);
    CHECK(B <= weighted && min_mass >= 3);
    /* bone lengths constant over the clip: p_i = T_fi b_i */
    double worst_len = 0;
    for (size_t i = 0; i < B; ++i) {
        int32_t q = d->parent[i];
        if (q < 0)
            continue;
        const double *bi = d->joint_rest + 3 * i, *bq = d->joint_rest + 3 * (size_t)q;
        double L0 = sqrt((bi[0] - bq[0]) * (bi[0] - bq[0]) + (bi[1] - bq[1]) * (bi[1] - bq[1]) +
                         (bi[2] - bq[2]) * (bi[2] - bq[2]));
        for (size_t f = 0; f < d->frame_count; ++f) {
            double pi[3], pq[3];
            const double *Ti = d->transforms + (f * B + i) * 12,
                         *Tq = d->transforms + (f * B + (size_t)q) * 12;
            for (int r = 0; r < 3; ++r) {
                pi[r] = Ti[r] * bi[0] + Ti[3 + r] * bi[1] + Ti[6 + r] * bi[2] + Ti[9 + r];
                pq[r] = Tq[r] * bq[0] + Tq[3 + r] * bq[1] + Tq[6 + r] * bq[2] + Tq[9 + r];
            }
            double L = sqrt((pi[0] - pq[0]) * (pi[0] - pq[0]) + (pi[1] - pq[1]) * (pi[1] - pq[1]) +
                            (pi[2] - pq[2]) * (pi[2] - pq[2]));
            double rel = L0 > 0 ? fabs(L - L0) / L0 : fabs(L);
            if (rel > worst_len)
                worst_len = rel;
        }
    }
    printf("  bone lengths: worst relative change over the clip %.3g\n", worst_len);
    CHECK(worst_len <= 1e-9);
    CHECK(isfinite(d->metrics.rms) && d->metrics.rms >= d->metrics_flat.rms * 0.5);
    free(ov);
    free(map);
    free(hits);
out:
    skf_decomposition_free(d);
    skf_meshseq_free(seq);
    skf_clip_free(clip);
    skf_rig_free(rig);
    skf_gltf_free(doc);
}

int main(void)
{
    const char *only = getenv("SKF_TEST_SKELETON_CLIP"); /* diagnostics: "0" Walk, "1" Trot, default rounds */
    if (only) {
        bool trot = only[0] == '1';
        run_clip(trot ? 1 : 0, 1500, trot ? 31 : 37, 0);
        return skf_test_done();
    }
#if !defined(__SANITIZE_ADDRESS__)
    run_clip(0, 1500, 37, 0);
    run_clip(1, 1500, 31, 0);
#endif
    /* 15 rounds, the bounds of fewer rounds; the ASan build runs only this
     * one, to stay near a minute. (Before the joint step's prior the Walk
     * lost a bone inside the rounds here, tree_drop; with it no bone falls
     * below 3 vertices inside the rounds at 750-1480 vertices, 4 or 15
     * rounds, so tree_drop is not exercised here.) */
    run_clip(0, 1500, 37, 15);
    return skf_test_done();
}
