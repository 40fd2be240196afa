/* Pose evaluation and linear blend skinning (glTF 2.0 §3.7.3.3 "Joint
 * Hierarchy" and the skinning equation of Magnenat-Thalmann et al. 1988,
 * "Joint-dependent local deformations for hand animation and object grasping"):
 *     x'_v = Σ_j w_vj · (joint_to_world_j · mesh_to_joint_j) · (x_v + Σ_k m_k d_vk)
 * Morph targets (m_k weights, d_vk deltas) are applied before skinning.
 */
#include "skinfit/rig.h"
#include "skinfit/math.h"

#include <math.h>
#include <omp.h>
#include <string.h>

void skf_pose_release(skf_pose *pose)
{
    if (!pose)
        return;
    skf_free(pose->local_trs);
    skf_free(pose->node_to_world);
    skf_free(pose->skin_matrices);
    skf_free(pose->morph_weights);
    skf_free(pose->order);
    skf_free(pose->node_first_target);
    skf_free(pose->scratch);
    memset(pose, 0, sizeof *pose);
}

skf_status skf_pose_init(skf_pose *pose, const skf_rig *rig, skf_error *err)
{
    memset(pose, 0, sizeof *pose);
    size_t nn = rig->node_count, nj = rig->joint_count, nt = rig->target_count;
    pose->node_count = nn;
    pose->joint_count = nj;
    pose->target_count = nt;
    pose->scratch_size = nt > 4 ? nt : 4;
    pose->local_trs = skf_malloc_array(nn ? nn * 10 : 1, sizeof(double));
    pose->node_to_world = skf_malloc_array(nn ? nn * 16 : 1, sizeof(double));
    pose->skin_matrices = skf_malloc_array(nj ? nj * 16 : 1, sizeof(double));
    pose->morph_weights = skf_malloc_array(nt ? nt : 1, sizeof(double));
    pose->order = skf_malloc_array(nn ? nn : 1, sizeof(int));
    pose->node_first_target = skf_malloc_array(nn ? nn : 1, sizeof(int));
    pose->scratch = skf_malloc_array(pose->scratch_size, sizeof(double));
    size_t *depth = skf_calloc(nn ? nn : 1, sizeof *depth);
    /* depth < nn in an acyclic hierarchy (checked at rig build), so nn + 2
     * buckets hold every depth whatever the node-depth limit was. */
    size_t *count = skf_calloc(nn + 2, sizeof *count);
    if (!pose->local_trs || !pose->node_to_world || !pose->skin_matrices || !pose->morph_weights ||
        !pose->order || !pose->node_first_target || !pose->scratch || !depth || !count) {
        skf_free(depth);
        skf_free(count);
        skf_pose_release(pose);
        return skf_fail(err, SKF_ERR_NOMEM, "out of memory for a pose");
    }
    /* Parents-first order: counting sort by depth (depth capped at rig build). */
    for (size_t i = 0; i < nn; ++i) {
        size_t d = 0;
        for (int p = rig->nodes[i].parent; p >= 0 && d < nn; p = rig->nodes[p].parent)
            ++d;
        depth[i] = d;
        ++count[d + 1];
    }
    for (size_t d = 1; d < nn + 2; ++d)
        count[d] += count[d - 1];
    for (size_t i = 0; i < nn; ++i)
        pose->order[count[depth[i]]++] = (int)i;
    skf_free(depth);
    skf_free(count);
    for (size_t i = 0; i < nn; ++i)
        pose->node_first_target[i] = -1;
    for (size_t g = nt; g-- > 0;)
        pose->node_first_target[rig->morph_target_node[g]] = (int)g;
    return SKF_OK;
}

void skf_pose_eval(const skf_rig *rig, const skf_clip *clip, double t, skf_pose *pose)
{
    for (size_t i = 0; i < rig->node_count; ++i) {
        const skf_rig_node *n = &rig->nodes[i];
        double *trs = pose->local_trs + 10 * i;
        memcpy(trs, n->translation, 3 * sizeof *trs);
        memcpy(trs + 3, n->rotation, 4 * sizeof *trs);
        memcpy(trs + 7, n->scale, 3 * sizeof *trs);
    }
    if (rig->target_count)
        memcpy(pose->morph_weights, rig->default_morph_weights,
               rig->target_count * sizeof *pose->morph_weights);
    for (size_t c = 0; clip && c < clip->channel_count; ++c) {
        const skf_clip_channel *ch = &clip->channels[c];
        if (ch->node < 0 || (size_t)ch->node >= rig->node_count || rig->nodes[ch->node].has_matrix)
            continue;
        double *trs = pose->local_trs + 10 * ch->node;
        switch (ch->path) {
        case SKF_PATH_TRANSLATION:
            skf_clip_channel_eval(ch, t, trs);
            break;
        case SKF_PATH_ROTATION:
            skf_clip_channel_eval(ch, t, trs + 3);
            break;
        case SKF_PATH_SCALE:
            skf_clip_channel_eval(ch, t, trs + 7);
            break;
        case SKF_PATH_WEIGHTS: {
            int g = pose->node_first_target[ch->node];
            if (g < 0 || ch->width > pose->scratch_size)
                break;
            skf_clip_channel_eval(ch, t, pose->scratch);
            for (size_t k = 0; k < ch->width && (size_t)g + k < rig->target_count; ++k)
                if (rig->morph_target_node[g + k] == ch->node)
                    pose->morph_weights[g + k] = pose->scratch[k];
            break;
        }
        }
    }
    for (size_t o = 0; o < rig->node_count; ++o) {
        int i = pose->order[o];
        const skf_rig_node *n = &rig->nodes[i];
        double local_to_parent[16];
        if (n->has_matrix) {
            memcpy(local_to_parent, n->matrix, sizeof local_to_parent);
        } else {
            const double *trs = pose->local_trs + 10 * i;
            skf_mat4_from_trs(local_to_parent, trs, trs + 3, trs + 7);
        }
        double *w = pose->node_to_world + 16 * i;
        if (n->parent >= 0)
            skf_mat4_mul(w, pose->node_to_world + 16 * n->parent, local_to_parent);
        else
            memcpy(w, local_to_parent, sizeof local_to_parent);
    }
    for (size_t j = 0; j < rig->joint_count; ++j)
        skf_mat4_mul(pose->skin_matrices + 16 * j, pose->node_to_world + 16 * rig->joints[j].node,
                     rig->joints[j].mesh_to_joint);
}

/* Skin vertices [first, first+count) with the morph targets of part P (may be NULL). */
static void skin_range(const skf_rig *rig, const skf_pose *pose, const skf_rig_part *P,
                       size_t first, size_t count, double *out, int nthreads)
{
    const double *M = pose->skin_matrices;
    const size_t *off = rig->weight_offsets;
    const uint32_t *jj = rig->weight_joints;
    const double *ww = rig->weights;
    size_t nt = P ? P->target_count : 0;
    const double *mw = P && nt ? pose->morph_weights + P->first_target : NULL;
    const double *deltas = P ? P->target_deltas : NULL;
    long n = (long)count;
#pragma omp parallel for num_threads(nthreads) schedule(static) if (nthreads > 1 && n > 2048)
    for (long i = 0; i < n; ++i) {
        size_t v = first + (size_t)i;
        double x = rig->rest_positions[3 * v], y = rig->rest_positions[3 * v + 1],
               z = rig->rest_positions[3 * v + 2];
        if (deltas)
            for (size_t k = 0; k < nt; ++k) {
                double m = mw[k];
                if (m != 0) {
                    const double *d = deltas + (k * count + (size_t)i) * 3;
                    x += m * d[0];
                    y += m * d[1];
                    z += m * d[2];
                }
            }
        double ox = 0, oy = 0, oz = 0;
        for (size_t e = off[v]; e < off[v + 1]; ++e) {
            const double *m = M + 16 * jj[e];
            double w = ww[e];
            ox += w * (m[0] * x + m[4] * y + m[8] * z + m[12]);
            oy += w * (m[1] * x + m[5] * y + m[9] * z + m[13]);
            oz += w * (m[2] * x + m[6] * y + m[10] * z + m[14]);
        }
        out[3 * v] = ox;
        out[3 * v + 1] = oy;
        out[3 * v + 2] = oz;
    }
}

/* An attached part (skinfit/rig.h "Attached meshes"): rigid with its node,
 * world = node_to_world(node) · bind_to_node · (rest + morph deltas). */
static void skin_attached(const skf_pose *pose, const skf_rig *rig, const skf_rig_part *P, double *out)
{
    double M[16];
    skf_mat4_mul(M, pose->node_to_world + 16 * (size_t)P->node, P->bind_to_node);
    size_t nt = P->target_count;
    const double *mw = nt ? pose->morph_weights + P->first_target : NULL;
    for (size_t i = 0; i < P->vertex_count; ++i) {
        size_t v = P->first_vertex + i;
        double x[3] = {rig->rest_positions[3 * v], rig->rest_positions[3 * v + 1], rig->rest_positions[3 * v + 2]};
        for (size_t k = 0; P->target_deltas && k < nt; ++k)
            if (mw[k] != 0)
                for (int a = 0; a < 3; ++a)
                    x[a] += mw[k] * P->target_deltas[(k * P->vertex_count + i) * 3 + (size_t)a];
        skf_mat4_transform_point(out + 3 * v, M, x);
    }
}

void skf_skin(const skf_rig *rig, const skf_pose *pose, double *out, int threads)
{
    int nthreads = threads > 0 ? threads : omp_get_max_threads();
    if (rig->part_count == 0) {
        skin_range(rig, pose, NULL, 0, rig->vertex_count, out, nthreads);
        return;
    }
    for (size_t p = 0; p < rig->part_count; ++p) {
        const skf_rig_part *P = &rig->parts[p];
        if (P->attached && P->node >= 0 && (size_t)P->node < rig->node_count)
            skin_attached(pose, rig, P, out);
        else
            skin_range(rig, pose, P, P->first_vertex, P->vertex_count, out, nthreads);
    }
}

skf_status skf_rig_bake(const skf_rig *rig, const skf_clip *clip, double fps, int threads,
                        const skf_progress *progress, skf_meshseq **out, skf_error *err)
{
    *out = NULL;
    size_t frames;
    skf_status st = skf_clip_frames(clip, fps, &rig->limits, &frames, &fps, err);
    if (st) {
        skf_error_prefix(err, "%s", clip->name ? clip->name : "clip");
        return st;
    }
    if (rig->vertex_count == 0)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: the rig has no vertices",
                        clip->name ? clip->name : "clip");
    skf_meshseq *s = skf_meshseq_new(rig->vertex_count, frames);
    if (!s)
        return skf_fail(err, SKF_ERR_NOMEM, "out of memory for %zu frames × %zu vertices", frames,
                        rig->vertex_count);
    s->fps = fps;
    s->start_time = clip->start;
    if (rig->triangle_count) {
        s->triangles = skf_malloc_array(rig->triangle_count * 3, sizeof *s->triangles);
        if (!s->triangles) {
            skf_meshseq_free(s);
            return skf_fail(err, SKF_ERR_NOMEM, "out of memory");
        }
        memcpy(s->triangles, rig->triangles, rig->triangle_count * 3 * sizeof *s->triangles);
        s->triangle_count = rig->triangle_count;
    }
    skf_pose pose;
    st = skf_pose_init(&pose, rig, err);
    if (st) {
        skf_meshseq_free(s);
        return st;
    }
    for (size_t f = 0; f < frames; ++f) {
        if (skf_progress_report(progress, (double)f / (double)frames, "baking")) {
            st = skf_fail(err, SKF_ERR_CANCELLED, "baking cancelled at frame %zu", f);
            break;
        }
        double t = clip->start + (double)f / fps;
        skf_pose_eval(rig, clip, t, &pose);
        skf_skin(rig, &pose, s->positions + f * rig->vertex_count * 3, threads);
    }
    skf_pose_release(&pose);
    if (st) {
        skf_meshseq_free(s);
        return st;
    }
    *out = s;
    return SKF_OK;
}
