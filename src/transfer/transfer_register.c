/* The transfer session's other-shape path (issue 12): when the similarity
 * alignment leaves a residual above the same-surface threshold, register the
 * target's rest surface onto the source's non-rigidly (skinfit/surface.h,
 * register_nicp.c), keep only matched target vertices as constraints, and
 * carry each frame by deformation transfer (deformation_transfer.c) or by the
 * registered source point (closest).
 *
 * References: Amberg, Romdhani & Vetter 2007 (registration); Sumner &
 * Popović 2004 (deformation transfer) — see the two algorithm files.
 *
 * Why joints as landmarks are weight-averaged vertices: joint placement
 * differs between rigs of one animal (one artist puts the knee joint at the
 * front of the knee, another at its centre), while the region a joint moves
 * is the same; the weighted mean of that region is a point both rigs agree on.
 */
#include "skinfit/transfer.h"
#include "skinfit/math.h"
#include "skinfit/rig.h"

#include "transfer_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *doc_name(const skf_gltf *d)
{
    return d && d->path ? d->path : "glTF";
}

static const char *joint_name(const skf_rig *r, size_t j)
{
    int n = r->joints[j].node;
    return n >= 0 && (size_t)n < r->node_count ? r->nodes[n].name : NULL;
}

/* Weighted mean of the rest_world vertices joint j influences (false when none). */
static bool joint_point(const skf_rig *r, const double *rest_world, size_t j, double out[3])
{
    double s = 0, p[3] = {0, 0, 0};
    for (size_t v = 0; v < r->vertex_count; ++v)
        for (size_t k = r->weight_offsets[v]; k < r->weight_offsets[v + 1]; ++k)
            if (r->weight_joints[k] == j) {
                double w = r->weights[k];
                for (int a = 0; a < 3; ++a)
                    p[a] += w * rest_world[3 * v + a];
                s += w;
            }
    if (!(s > 0))
        return false;
    for (int a = 0; a < 3; ++a)
        out[a] = p[a] / s;
    return true;
}

/* Pairs of same-named joints that both carry weight: [n][2] joint indices. */
static size_t joint_pairs(const skf_rig *S, const skf_rig *T, size_t (*pairs)[2], size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < T->joint_count && n < cap; ++i) {
        const char *tn = joint_name(T, i);
        if (!tn || !T->joints[i].has_weight)
            continue;
        for (size_t j = 0; j < S->joint_count; ++j) {
            const char *sn = joint_name(S, j);
            if (sn && S->joints[j].has_weight && !strcmp(sn, tn)) {
                pairs[n][0] = j;
                pairs[n][1] = i;
                ++n;
                break;
            }
        }
    }
    return n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Distances of same-named joint points after registration: the source's
 * weighted mean against the registered target's weighted mean (source space). */
static void joint_distances(skf_transfer *t)
{
    const skf_rig *S = t->src, *T = t->tgt;
    size_t cap = T->joint_count;
    size_t (*pairs)[2] = skf_malloc_array(cap ? cap : 1, sizeof *pairs);
    double *d = skf_malloc_array(cap ? cap : 1, sizeof(double));
    if (!pairs || !d) {
        skf_free(pairs);
        skf_free(d);
        return;
    }
    size_t n = joint_pairs(S, T, pairs, cap), m = 0;
    for (size_t k = 0; k < n; ++k) {
        double ps[3], pt[3];
        if (joint_point(S, t->src_rest_world, pairs[k][0], ps) && joint_point(T, t->reg.deformed, pairs[k][1], pt)) {
            double e[3] = {ps[0] - pt[0], ps[1] - pt[1], ps[2] - pt[2]};
            d[m++] = skf_norm3(e) / t->align.source_diagonal;
        }
    }
    t->joint_landmarks = m;
    if (m) {
        qsort(d, m, sizeof *d, cmp_double);
        t->joint_median = m % 2 ? d[m / 2] : 0.5 * (d[m / 2 - 1] + d[m / 2]);
        t->joint_max = d[m - 1];
    }
    skf_free(pairs);
    skf_free(d);
}

static bool vertex_rest_world(const skf_transfer *t, bool source, size_t v, double out[3])
{
    const skf_rig *raw = source ? t->src_raw : t->tgt_raw;
    if (v >= raw->vertex_count)
        return false;
    skf_mat4_transform_point(out, source ? t->src_mesh_to_world : t->tgt_mesh_to_world, raw->rest_positions + 3 * v);
    return true;
}

skf_status skfi_transfer_register(skf_transfer *t, skf_error *err)
{
    const skf_rig *S = t->src, *T = t->tgt;
    double max_mis = t->opt.max_rest_mismatch > 0 ? t->opt.max_rest_mismatch : SKF_TRANSFER_DEFAULT_MAX_REST_MISMATCH;
    /* landmarks: from the options, then same-named joints */
    size_t cap = t->opt.landmark_count + (t->opt.landmarks_joints ? T->joint_count : 0);
    skf_landmark *lm = skf_malloc_array(cap ? cap : 1, sizeof *lm);
    size_t (*pairs)[2] = skf_malloc_array(T->joint_count ? T->joint_count : 1, sizeof *pairs);
    if (!lm || !pairs) {
        skf_free(lm);
        skf_free(pairs);
        return skf_fail(err, SKF_ERR_NOMEM, "landmarks: out of memory");
    }
    size_t n = 0;
    skf_status st = SKF_OK;
    for (size_t k = 0; k < t->opt.landmark_count && !st; ++k) {
        const skf_transfer_landmark *L = &t->opt.landmarks[k];
        if (L->by_vertex) {
            if (!vertex_rest_world(t, true, L->source_vertex, lm[n].source_point))
                st = skf_fail(err, SKF_ERR_ARGUMENT, "landmarks[%zu].source_vertex: %zu out of range (%s has %zu vertices)",
                              k, L->source_vertex, doc_name(t->source_doc), t->src_raw_vertices);
            else if (!vertex_rest_world(t, false, L->target_vertex, lm[n].target_point))
                st = skf_fail(err, SKF_ERR_ARGUMENT, "landmarks[%zu].target_vertex: %zu out of range (%s has %zu vertices)",
                              k, L->target_vertex, doc_name(t->target_doc), t->tgt_raw_vertices);
        } else {
            memcpy(lm[n].source_point, L->source_point, sizeof lm[n].source_point);
            memcpy(lm[n].target_point, L->target_point, sizeof lm[n].target_point);
        }
        ++n;
    }
    if (!st && t->opt.landmarks_joints) {
        size_t np = joint_pairs(S, T, pairs, T->joint_count);
        for (size_t k = 0; k < np; ++k)
            if (joint_point(S, t->src_rest_world, pairs[k][0], lm[n].source_point) &&
                joint_point(T, t->tgt_rest_world, pairs[k][1], lm[n].target_point))
                ++n;
    }
    skf_free(pairs);
    if (st) {
        skf_free(lm);
        return st;
    }
    skf_register_options ro = t->opt.registration;
    ro.landmarks = lm;
    ro.landmark_count = n;
    t->landmark_count = n;
    st = skf_register_surfaces(t->src_rest_world, S->vertex_count, S->triangles, S->triangle_count, t->tgt_rest_world,
                               T->vertex_count, T->triangles, T->triangle_count, &t->align, &ro, &t->reg, err);
    skf_free(lm);
    if (st) {
        skf_error_prefix(err, "rest surfaces: residual %.3g %% after the similarity alignment", 100 * t->align.residual);
        return st;
    }
    t->registered = true;
    if (t->reg.residual_after > max_mis || t->reg.unmatched_area > SKF_TRANSFER_MAX_UNMATCHED_AREA)
    {
        /* the hint names the option field; tools/ prints it as the flag */
        skf_status st = skf_fail(err, SKF_ERR_MISMATCH,
                        "rest surfaces do not register: residual %.3g %% of the diagonal before registration, %.3g %% "
                        "after (limit %.3g %%), %.3g %% of the target unmatched (limit %.3g %%) (not the same animal? "
                        "max_rest_mismatch PCT overrides the residual limit)",
                        100 * t->reg.residual_before, 100 * t->reg.residual_after, 100 * max_mis,
                        100 * t->reg.unmatched_area, 100 * SKF_TRANSFER_MAX_UNMATCHED_AREA);
        skf_error_set_kind(err, SKF_KIND_OPTION, "skf_transfer_options.max_rest_mismatch");
        return st;
    }
    joint_distances(t);
    /* the frame to carry with: the trimmed similarity of the correspondences
     * (carry_frame.c); the alignment's stays the reported one */
    st = skfi_carry_similarity(t->tgt_rest_world, T->vertex_count, T->triangles, T->triangle_count, t->src_rest_world,
                               &t->reg, t->align.target_to_source, t->align.source_diagonal, &t->carry_frame, err);
    if (st)
        return st;
    /* the full map (anchors) and the deformation transfer */
    size_t nt = T->vertex_count;
    skf_correspondence *f = &t->full;
    f->count = nt;
    f->target_vertex = skf_malloc_array(nt, sizeof(uint32_t));
    f->source_vertex = skf_malloc_array(3 * nt, sizeof(uint32_t));
    f->bary = skf_malloc_array(3 * nt, sizeof(double));
    if (!f->target_vertex || !f->source_vertex || !f->bary)
        return skf_fail(err, SKF_ERR_NOMEM, "registration: out of memory");
    for (size_t v = 0; v < nt; ++v) {
        f->target_vertex[v] = (uint32_t)v;
        memcpy(f->source_vertex + 3 * v, t->reg.source_vertex + 3 * v, 3 * sizeof(uint32_t));
        memcpy(f->bary + 3 * v, t->reg.bary + 3 * v, 3 * sizeof(double));
    }
    if (t->opt.carry != SKF_CARRY_CLOSEST) {
        /* anchors: the weight on the root joints — near the root the
         * closest-point anchor moves like the target whatever the legs' or
         * neck's length; the target's skinning subspace with its joints as
         * pivots (docs/transfer.md "Skinning subspace") */
        double *aw = skf_malloc_array(nt, sizeof(double));
        double *piv = skf_malloc_array(3 * T->joint_count + 1, sizeof(double));
        uint32_t *pb = skf_malloc_array(2 * T->joint_count + 1, sizeof(uint32_t));
        if (!aw || !piv || !pb) {
            skf_free(aw);
            skf_free(piv);
            skf_free(pb);
            return skf_fail(err, SKF_ERR_NOMEM, "deformation transfer: out of memory");
        }
        skf_rig_root_weights(T, aw);
        size_t np = skf_rig_joint_pivots(T, t->tgt_mesh_to_world, piv, pb);
        skf_dt_options dto = {.screening = t->opt.screening,
                              .anchor_weight = aw,
                              .bone_count = T->joint_count,
                              .weight_offsets = T->weight_offsets,
                              .weight_bones = T->weight_joints,
                              .weights = T->weights,
                              .pivot_count = np,
                              .pivots = piv,
                              .pivot_bones = pb};
        st = skf_deformation_transfer_new(t->src_rest_world, S->vertex_count, S->triangles, S->triangle_count,
                                          t->tgt_rest_world, nt, T->triangles, T->triangle_count, &t->reg,
                                          t->carry_frame.target_to_source, &dto, &t->dt, err);
        skf_free(aw);
        skf_free(piv);
        skf_free(pb);
        if (st)
            return st;
    }
    return SKF_OK;
}

skf_status skfi_transfer_registered_constraints(skf_transfer *t, const uint32_t *cons, size_t ncons, skf_error *err)
{
    skf_correspondence *c = &t->corr;
    memset(c, 0, sizeof *c);
    size_t n = 0;
    for (size_t k = 0; k < ncons; ++k)
        n += t->reg.matched[cons[k]];
    if (n < 4)
        return skf_fail(err, SKF_ERR_MISMATCH, "registration: only %zu of %zu constraint vertices matched", n, ncons);
    c->count = n;
    c->target_vertex = skf_malloc_array(n, sizeof(uint32_t));
    c->source_vertex = skf_malloc_array(3 * n, sizeof(uint32_t));
    c->bary = skf_malloc_array(3 * n, sizeof(double));
    if (!c->target_vertex || !c->source_vertex || !c->bary)
        return skf_fail(err, SKF_ERR_NOMEM, "registration: %zu constraints: out of memory", n);
    size_t i = 0;
    for (size_t k = 0; k < ncons; ++k) {
        uint32_t v = cons[k];
        if (!t->reg.matched[v])
            continue;
        c->target_vertex[i] = v;
        memcpy(c->source_vertex + 3 * i, t->reg.source_vertex + 3 * (size_t)v, 3 * sizeof(uint32_t));
        memcpy(c->bary + 3 * i, t->reg.bary + 3 * (size_t)v, 3 * sizeof(double));
        ++i;
    }
    return SKF_OK;
}

void skfi_transfer_registration_info(const skf_transfer *t, skf_transfer_info *info)
{
    const skf_registration *r = &t->reg;
    info->registered = true;
    info->carry = t->dt ? "deformation" : "closest";
    info->residual_before = r->residual_before;
    info->residual_after = r->residual_after;
    info->unmatched_area = r->unmatched_area;
    info->coverage = 1 - r->unmatched_area;
    info->unmatched_count = r->unmatched_count;
    info->registration_nodes = r->node_count;
    info->registration_iterations = r->iterations;
    info->landmark_count = t->landmark_count;
    info->landmark_rms = r->landmark_rms;
    info->landmark_max = r->landmark_max;
    info->joint_landmarks = t->joint_landmarks;
    info->joint_median = t->joint_median;
    info->joint_max = t->joint_max;
    info->carry_frame_used = t->carry_frame.used;
    info->carry_frame_rms = t->carry_frame.trimmed_rms / t->align.source_diagonal;
    info->carry_frame_angle_deg = t->carry_frame.angle_deg;
    info->carry_frame_scale_ratio = t->carry_frame.scale_ratio;
    /* bones of the unmatched vertices: summed weight per joint, top 3 */
    const skf_rig *T = t->tgt;
    double *acc = skf_calloc(T->joint_count ? T->joint_count : 1, sizeof(double));
    if (!acc)
        return;
    double total = 0;
    for (size_t v = 0; v < T->vertex_count; ++v)
        if (!r->matched[v])
            for (size_t k = T->weight_offsets[v]; k < T->weight_offsets[v + 1]; ++k) {
                acc[T->weight_joints[k]] += T->weights[k];
                total += T->weights[k];
            }
    for (int slot = 0; slot < 3 && total > 0; ++slot) {
        size_t best = 0;
        double bw = 0;
        for (size_t j = 0; j < T->joint_count; ++j)
            if (acc[j] > bw) {
                bw = acc[j];
                best = j;
            }
        if (!(bw > 0))
            break;
        info->unmatched_bones[slot] = joint_name(T, best) ? joint_name(T, best) : "(unnamed)";
        info->unmatched_bone_share[slot] = bw / total;
        acc[best] = 0;
    }
    skf_free(acc);
}

skf_status skfi_transfer_carry_deformation(skf_transfer *t, size_t first, size_t F, const double *src_seq, double *u,
                                          skf_error *err)
{
    size_t nt = t->tgt->vertex_count, ns = t->src->vertex_count, C = t->corr.count;
    double *anchor = skf_malloc_array(nt * 3, sizeof(double));
    double *x = skf_malloc_array(nt * 3, sizeof(double));
    if (!anchor || !x) {
        skf_free(anchor);
        skf_free(x);
        return skf_fail(err, SKF_ERR_NOMEM, "deformation transfer: %zu vertices: out of memory", nt);
    }
    skf_status st = SKF_OK;
    for (size_t f = 0; f < F && !st; ++f) {
        const double *frame = src_seq + f * ns * 3;
        skf_correspondence_apply(&t->full, t->source_to_target, frame, anchor);
        st = skf_deformation_transfer_frame(t->dt, frame, anchor, x, err);
        if (st) {
            skf_error_prefix(err, "frame %zu", first + f);
            break;
        }
        for (size_t c = 0; c < C; ++c)
            memcpy(u + (f * C + c) * 3, x + 3 * (size_t)t->corr.target_vertex[c], 3 * sizeof(double));
    }
    skf_free(anchor);
    skf_free(x);
    return st;
}
