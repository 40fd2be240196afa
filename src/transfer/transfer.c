/* The transfer pipeline: source clip → deformed surface → target surface →
 * per-frame bone solve on the target rig → baked glTF animation.
 *
 * References: Le & Deng, "Smooth Skinning Decomposition with Rigid Bones"
 * (SIGGRAPH Asia 2012) — solving bone transforms for fixed weights against a
 * deformed surface (the solve itself lives in skinfit/solve.h); Sumner &
 * Popović, "Deformation transfer for triangle meshes" (2004) — carrying a
 * deformation across meshes through a closest-point correspondence.
 *
 * Why the surface, not the skeleton: two rigs of the same animal rarely share
 * joint placement or naming; they share the surface. Solving the target's own
 * skinning against the carried surface makes the result exact for the target
 * rig's weights, whatever its skeleton. The control run (the source rig
 * against its own clip) measures the solver alone and must land on zero.
 */
#include "skinfit/transfer.h"
#include "skinfit/rig.h"
#include "skinfit/math.h"
#include "skinfit/solve.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "transfer_internal.h"


static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *doc_name(const skf_gltf *d)
{
    return d && d->path ? d->path : "glTF";
}

void skf_transfer_free(skf_transfer *t)
{
    if (!t)
        return;
    skf_rig_free(t->src_raw);
    skf_rig_free(t->src);
    skf_rig_free(t->tgt_raw);
    skf_rig_free(t->tgt);
    skf_correspondence_release(&t->corr);
    skf_free(t->con_rest);
    skf_free(t->con_offsets);
    skf_free(t->con_bone);
    skf_free(t->con_weight);
    skf_rotonly_free(t->rotonly);
    skf_solver_free(t->src_solver);
    skf_solver_free(t->tgt_solver);
    skf_solver_free(t->tgt_skin);
    skf_free(t->tgt_parent);
    skf_free(t->tgt_bind);
    skf_free(t->tgt_offset);
    if (t->trs_ready)
        skf_trs_converter_release(&t->trs);
    skf_free(t->tgt_solved);
    skf_free(t->src_rest_world);
    skf_free(t->tgt_rest_world);
    skf_registration_release(&t->reg);
    skf_correspondence_release(&t->full);
    skf_deformation_transfer_free(t->dt);
    skf_free(t->landmarks);
    for (size_t a = 0; a < t->att_count; ++a) {
        skf_free((char *)t->att[a].name);
        skf_free((char *)t->att[a].joint);
    }
    skf_free(t->att);
    skf_free(t->con_att);
    skf_free(t->con_importance);
    skf_free(t);
}

/* World transform of node n (rest TRS chain), capped at the node-depth the
 * document was loaded under (doc->limits: the reader refused deeper chains). */
static void node_world(const skf_gltf *doc, int n, double out[16])
{
    skf_mat4_identity(out);
    size_t max_depth = skf_limits_value(&doc->limits, SKF_LIMIT_NODE_DEPTH);
    for (size_t depth = 0; n >= 0 && depth <= max_depth; ++depth) {
        double l[16];
        skf_gltf_node_local_matrix(&doc->nodes[n], l);
        skf_mat4_mul(out, l, out);
        n = doc->nodes[n].parent;
    }
}

/* The rig of the first skin, welded; *raw (the rig before welding) is kept
 * only when keep_raw (landmarks given by vertex index need its positions),
 * its vertex count always. */
static skf_status load_rig(const skf_gltf *doc, const char *role, bool keep_raw, skf_rig **raw, size_t *raw_vertices,
                           skf_rig **welded, double mesh_to_world[16], double **rest_world, skf_warnings *warnings,
                           skf_error *err)
{
    if (doc->skin_count == 0)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: skins: no skin — the %s is not a rigged mesh", doc_name(doc),
                        role);
    skf_status st = skf_rig_from_gltf(doc, 0, NULL, raw, warnings, err);
    if (st)
        return st;
    if ((*raw)->vertex_count == 0 || (*raw)->triangle_count == 0)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: skins[0]: no skinned triangle mesh uses the skin (%s)",
                        doc_name(doc), role);
    st = skf_rig_weld(*raw, welded, NULL, err);
    if (st)
        return st;
    if ((*welded)->triangle_count == 0)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: skins[0]: the skinned surface has no triangles after welding",
                        doc_name(doc));
    if ((*raw)->parts[0].attached)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: skins[0]: no skinned triangle mesh uses the skin (%s)",
                        doc_name(doc), role);
    int mesh_node = (*raw)->parts[0].node;
    node_world(doc, mesh_node, mesh_to_world);
    for (size_t p = 1; p < (*raw)->part_count; ++p) {
        double other[16];
        if ((*raw)->parts[p].attached)
            continue; /* moves with its joint, not with the skinned mesh node */
        node_world(doc, (*raw)->parts[p].node, other);
        double d = 0;
        for (int k = 0; k < 16; ++k)
            d = fmax(d, fabs(other[k] - mesh_to_world[k]));
        if (d > 1e-9 * (1 + fabs(mesh_to_world[15])))
            skf_warn(warnings, "%s: nodes[%d]: skinned mesh nodes have different transforms; using nodes[%d]'s",
                     doc_name(doc), (*raw)->parts[p].node, mesh_node);
    }
    if (!(fabs(skf_mat4_invert_affine((double[16]){0}, mesh_to_world)) > 0))
        return skf_fail(err, SKF_ERR_NUMERIC, "%s: nodes[%d]: the skinned mesh node's transform is singular",
                        doc_name(doc), mesh_node);
    *raw_vertices = (*raw)->vertex_count;
    if (!keep_raw) {
        skf_rig_free(*raw);
        *raw = NULL;
    }
    size_t n = (*welded)->vertex_count;
    *rest_world = skf_malloc_array(n * 3, sizeof(double));
    if (!*rest_world)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", doc_name(doc));
    for (size_t v = 0; v < n; ++v)
        skf_mat4_transform_point(*rest_world + 3 * v, mesh_to_world, (*welded)->rest_positions + 3 * v);
    return SKF_OK;
}

static skf_status make_solver(const skf_rig *rig, const double *rest, size_t n, const size_t *offsets,
                              const uint32_t *bone, const double *weight, const double *importance,
                              const skf_transfer_options *opt, skf_solver **out, skf_error *err)
{
    skf_solve_rig sr = {n, rest, offsets, bone, weight, rig->joint_count, importance};
    skf_solve_options so;
    memset(&so, 0, sizeof so);
    so.threads = opt->threads;
    so.max_sweeps = opt->max_sweeps;
    so.max_iterations = opt->max_newton_iterations;
    so.limits = opt->limits;
    return skf_solver_new(&sr, &so, out, err);
}

/* The target's attached meshes (welded parts with attached set, rig.h
 * "Attached meshes"), in part order; also counts the source's. */
static skf_status collect_attachments(skf_transfer *t, skf_error *err)
{
    const skf_rig *T = t->tgt;
    for (size_t p = 0; p < t->src->part_count; ++p)
        t->src_att_count += t->src->parts[p].attached;
    size_t n = 0;
    for (size_t p = 0; p < T->part_count; ++p)
        n += T->parts[p].attached;
    if (!n)
        return SKF_OK;
    t->att = skf_calloc(n, sizeof *t->att);
    if (!t->att)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", doc_name(t->target_doc));
    const skf_gltf *d = t->target_doc;
    for (size_t p = 0; p < T->part_count; ++p) {
        const skf_rig_part *P = &T->parts[p];
        if (!P->attached)
            continue;
        skf_transfer_attachment *A = &t->att[t->att_count++];
        A->node = P->node;
        A->joint_index = P->attached_joint;
        A->first_vertex = P->first_vertex;
        A->vertices = P->vertex_count;
        const char *nm = d->nodes[P->node].name;
        if (!nm && P->mesh >= 0 && (size_t)P->mesh < d->mesh_count)
            nm = d->meshes[P->mesh].name;
        char tmp[32];
        if (!nm) {
            snprintf(tmp, sizeof tmp, "nodes[%d]", P->node);
            nm = tmp;
        }
        const char *jn = d->nodes[T->joints[P->attached_joint].node].name;
        A->name = skf_strdup(nm);
        A->joint = skf_strdup(jn ? jn : "");
        if (!A->name || !A->joint)
            return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", doc_name(d));
    }
    return SKF_OK;
}

/* Each constraint's attachment and importance in the fit (docs/transfer.md
 * "Attached meshes"): 1 on the skinned body; on attachment a, hanging from
 * joint J with n_a constraints,
 *     c_a = max(1, m_J / n_a),   m_J = Σ_{body constraints j} w_jJ,
 * so that the attachment as a whole weighs as much as the body vertices J
 * moves (their weight on J summed), however few vertices it has; 0 with
 * no_attached_constraints. Nothing is allocated when the target has no
 * attachment (the solver's unweighted energy, bit for bit as before). */
static skf_status attachment_importance(skf_transfer *t, skf_error *err)
{
    if (!t->att_count)
        return SKF_OK;
    const skf_rig *T = t->tgt;
    size_t C = t->corr.count;
    t->con_att = skf_malloc_array(C ? C : 1, sizeof *t->con_att);
    t->con_importance = skf_malloc_array(C ? C : 1, sizeof *t->con_importance);
    double *mass = skf_calloc(T->joint_count ? T->joint_count : 1, sizeof *mass);
    if (!t->con_att || !t->con_importance || !mass) {
        skf_free(mass);
        return skf_fail(err, SKF_ERR_NOMEM, "transfer: %zu constraints: out of memory", C);
    }
    for (size_t c = 0; c < C; ++c) {
        uint32_t v = t->corr.target_vertex[c];
        t->con_att[c] = UINT32_MAX;
        for (size_t a = 0; a < t->att_count; ++a)
            if (v >= t->att[a].first_vertex && v < t->att[a].first_vertex + t->att[a].vertices) {
                t->con_att[c] = (uint32_t)a;
                t->att[a].constraints++;
            }
        if (t->con_att[c] == UINT32_MAX)
            for (size_t e = t->con_offsets[c]; e < t->con_offsets[c + 1]; ++e)
                mass[t->con_bone[e]] += t->con_weight[e];
    }
    for (size_t a = 0; a < t->att_count; ++a) {
        skf_transfer_attachment *A = &t->att[a];
        double c = A->constraints ? mass[A->joint_index] / (double)A->constraints : 1;
        A->importance = t->opt.no_attached_constraints ? 0 : fmax(1, c);
    }
    for (size_t c = 0; c < C; ++c)
        t->con_importance[c] = t->con_att[c] == UINT32_MAX ? 1 : t->att[t->con_att[c]].importance;
    skf_free(mass);
    return SKF_OK;
}

/* The control run's solver: the source rig against its own clip. */
static skf_status make_control(skf_transfer *t, skf_error *err)
{
    if (t->opt.no_control)
        return SKF_OK;
    return make_solver(t->src, t->src_rest_world, t->src->vertex_count, t->src->weight_offsets, t->src->weight_joints,
                       t->src->weights, NULL, &t->opt, &t->src_solver, err);
}

/* What only the set-up needs goes once it is done, so that a clip runs with
 * the smallest session (docs/bench.md "Where the memory of a transfer goes"):
 * the rigs before welding (their vertex counts stay), the target's
 * rest_world (the clip measures against con_rest; the source's rest_world is
 * the control's rest) and the constraint sub-rig's weights (copied by the
 * solver). */
static void setup_done(skf_transfer *t)
{
    skf_rig_free(t->src_raw);
    skf_rig_free(t->tgt_raw);
    skf_free(t->tgt_rest_world);
    skf_free(t->con_offsets);
    skf_free(t->con_bone);
    skf_free(t->con_weight);
    t->src_raw = t->tgt_raw = NULL;
    t->tgt_rest_world = NULL;
    t->con_offsets = NULL;
    t->con_bone = NULL;
    t->con_weight = NULL;
}

/* The offset of each joint from its parent joint at bind, in the solve space,
 * as the node hierarchy holds it: d_i = lin(bind_parent) · o_i with o_i the
 * translation of the rest locals from the parent joint's node down to joint
 * i's node (the length a player keeps when a clip keys rotations only). The
 * inverse bind matrices are float32, so b_i − b_parent carries their
 * rounding — 1e-3 units 2e4 units from the origin (test_control_extreme) —
 * and rotation-only onto the rig itself could not land on zero. On entry
 * tgt_offset holds the bind positions b_i; a chain that does not reach the
 * parent joint's node (never for a rig from rig.c) keeps b_i − b_parent. */
static skf_status rest_offsets(skf_transfer *t, skf_error *err)
{
    const skf_rig *T = t->tgt;
    const size_t B = T->joint_count;
    double *b = skf_malloc_array(B ? 3 * B : 1, sizeof(double));
    if (!b)
        return skf_fail(err, SKF_ERR_NOMEM, "transfer: out of memory");
    memcpy(b, t->tgt_offset, 3 * B * sizeof(double));
    for (size_t i = 0; i < B; ++i) {
        int par = T->joints[i].parent;
        double *d = t->tgt_offset + 3 * i;
        if (par < 0) {
            d[0] = d[1] = d[2] = 0;
            continue;
        }
        for (int k = 0; k < 3; ++k)
            d[k] = b[3 * i + k] - b[3 * (size_t)par + k];
        const int stop = T->joints[par].node;
        double chain[16], local[16];
        skf_mat4_identity(chain);
        int n = T->joints[i].node, depth = 0;
        for (; n >= 0 && n != stop && (size_t)n < T->node_count && depth <= SKF_RIG_MAX_DEPTH; ++depth) {
            const skf_rig_node *nd = &T->nodes[n];
            if (nd->has_matrix)
                memcpy(local, nd->matrix, sizeof local);
            else
                skf_mat4_from_trs(local, nd->translation, nd->rotation, nd->scale);
            skf_mat4_mul(chain, local, chain);
            n = nd->parent;
        }
        if (n != stop)
            continue;
        /* lin(bind_parent) of the document (not the uniform-scale copy in tgt_bind) */
        double ib[16], wb[16];
        if (skf_mat4_invert(ib, T->joints[par].mesh_to_joint) == 0)
            continue;
        skf_mat4_mul(wb, t->tgt_mesh_to_world, ib);
        const double *o = chain + 12;
        for (int k = 0; k < 3; ++k)
            d[k] = wb[k] * o[0] + wb[4 + k] * o[1] + wb[8 + k] * o[2];
    }
    skf_free(b);
    return SKF_OK;
}

static skf_status transfer_new(const skf_gltf *source, const skf_gltf *target,
                               const skf_transfer_options *options, skf_transfer **out,
                               skf_warnings *warnings, skf_error *err)
{
    *out = NULL;
    skf_transfer *t = skf_calloc(1, sizeof *t);
    if (!t)
        return skf_fail(err, SKF_ERR_NOMEM, "transfer: out of memory");
    if (options)
        t->opt = *options;
    if (t->opt.limits)
        t->limits = *t->opt.limits;
    t->opt.limits = &t->limits;
    if (t->opt.mode == 0)
        t->opt.mode = SKF_TRANSFER_FREE;
    t->source_doc = source;
    t->target_doc = target;
    bool keep_raw = false; /* landmarks by vertex index are raw vertices */
    for (size_t k = 0; k < t->opt.landmark_count; ++k)
        keep_raw |= t->opt.landmarks[k].by_vertex;
    skf_status st = load_rig(source, "source", keep_raw, &t->src_raw, &t->src_raw_vertices, &t->src,
                             t->src_mesh_to_world, &t->src_rest_world, warnings, err);
    if (st)
        goto fail;
    t->src_diag = skf_bbox_diagonal(t->src->vertex_count, t->src_rest_world);
    if (!target) {
        if ((st = make_control(t, err)))
            goto fail;
        setup_done(t);
        *out = t;
        return SKF_OK;
    }
    st = load_rig(target, "target", keep_raw, &t->tgt_raw, &t->tgt_raw_vertices, &t->tgt, t->tgt_mesh_to_world,
                  &t->tgt_rest_world, warnings, err);
    if (st)
        goto fail;
    const skf_rig *S = t->src, *T = t->tgt;
    t->tgt_diag = skf_bbox_diagonal(T->vertex_count, t->tgt_rest_world);
    if ((st = collect_attachments(t, err)))
        goto fail;
    st = skf_align_surfaces(t->src_rest_world, S->vertex_count, S->triangles, S->triangle_count, t->tgt_rest_world,
                            T->vertex_count, T->triangles, T->triangle_count, &t->opt.align, &t->align, err);
    if (st == SKF_ERR_MISMATCH && t->align.residual > 0) /* another shape: register (transfer_register.c) */
        st = skfi_transfer_register(t, err);
    if (st) {
        skf_error_prefix(err, "%s vs %s", doc_name(source), doc_name(target));
        goto fail;
    }
    if (!skf_mat4_invert(t->source_to_target,
                         t->registered ? t->carry_frame.target_to_source : t->align.target_to_source)) {
        st = skf_fail(err, SKF_ERR_NUMERIC, "%s vs %s: alignment: singular similarity", doc_name(source),
                      doc_name(target));
        goto fail;
    }
    uint32_t *cons = NULL;
    size_t ncons = 0;
    st = skf_subsample_even(t->tgt_rest_world, T->vertex_count, t->opt.max_constraints, &cons, &ncons, err);
    if (st)
        goto fail;
    if (t->registered)
        st = skfi_transfer_registered_constraints(t, cons, ncons, err);
    else
        st = skf_correspond(t->src_rest_world, S->vertex_count, S->triangles, S->triangle_count, t->tgt_rest_world,
                            T->vertex_count, &t->align, cons, ncons, &t->corr, err);
    skf_free(cons);
    if (st)
        goto fail;
    /* the control's solver after the alignment and correspondence, whose
     * BVHs are the set-up's peak of memory */
    if ((st = make_control(t, err)))
        goto fail;
    /* constraint sub-rig */
    size_t C = t->corr.count, nnz = 0;
    for (size_t c = 0; c < C; ++c) {
        uint32_t v = t->corr.target_vertex[c];
        nnz += T->weight_offsets[v + 1] - T->weight_offsets[v];
    }
    t->con_rest = skf_malloc_array(C * 3, sizeof(double));
    t->con_offsets = skf_malloc_array(C + 1, sizeof(size_t));
    t->con_bone = skf_malloc_array(nnz ? nnz : 1, sizeof(uint32_t));
    t->con_weight = skf_malloc_array(nnz ? nnz : 1, sizeof(double));
    if (!t->con_rest || !t->con_offsets || !t->con_bone || !t->con_weight) {
        st = skf_fail(err, SKF_ERR_NOMEM, "transfer: %zu constraints: out of memory", C);
        goto fail;
    }
    size_t e = 0;
    t->con_offsets[0] = 0;
    for (size_t c = 0; c < C; ++c) {
        uint32_t v = t->corr.target_vertex[c];
        memcpy(t->con_rest + 3 * c, t->tgt_rest_world + 3 * (size_t)v, 3 * sizeof(double));
        for (size_t k = T->weight_offsets[v]; k < T->weight_offsets[v + 1]; ++k, ++e) {
            t->con_bone[e] = T->weight_joints[k];
            t->con_weight[e] = T->weights[k];
        }
        t->con_offsets[c + 1] = e;
    }
    if ((st = attachment_importance(t, err)))
        goto fail;
    st = make_solver(T, t->con_rest, C, t->con_offsets, t->con_bone, t->con_weight, t->con_importance,
                     &t->opt, &t->tgt_solver, err);
    if (st) {
        skf_error_prefix(err, "%s", doc_name(target));
        goto fail;
    }
    bool all_in_order = C == T->vertex_count;
    for (size_t c = 0; all_in_order && c < C; ++c)
        all_in_order = t->corr.target_vertex[c] == c;
    if (t->opt.vertex_output && !all_in_order) {
        /* the surface output covers every welded vertex, not only the constraints */
        st = make_solver(T, t->tgt_rest_world, T->vertex_count, T->weight_offsets, T->weight_joints, T->weights,
                         NULL, &t->opt, &t->tgt_skin, err);
        if (st) {
            skf_error_prefix(err, "%s", doc_name(target));
            goto fail;
        }
    }
    size_t B = T->joint_count;
    t->tgt_solved = skf_malloc_array(B ? B : 1, sizeof(bool));
    t->tgt_parent = skf_malloc_array(B ? B : 1, sizeof(int32_t));
    t->tgt_bind = skf_malloc_array(B ? B * 16 : 1, sizeof(double));
    t->tgt_offset = skf_malloc_array(B ? B * 3 : 1, sizeof(double));
    if (!t->tgt_solved || !t->tgt_parent || !t->tgt_bind || !t->tgt_offset) {
        st = skf_fail(err, SKF_ERR_NOMEM, "transfer: out of memory");
        goto fail;
    }
    for (size_t i = 0; i < B; ++i) {
        t->tgt_solved[i] = skf_solver_bone_mass(t->tgt_solver, i) > 0;
        t->tgt_parent[i] = T->joints[i].parent;
        double b[16];
        if (skf_mat4_invert(b, T->joints[i].mesh_to_joint) == 0) {
            st = skf_fail(err, SKF_ERR_NUMERIC, "%s: skins[0].inverseBindMatrices[%zu]: singular", doc_name(target), i);
            goto fail;
        }
        /* the joint's world at bind pose, in the solve space; exporters
         * leave float noise in joint scales (Horse: 1.4e-5 non-uniform),
         * which the rotation-only model (uniform scale) refuses: keep the
         * position and rotation, make the scale uniform */
        double wb[16], tt[3], q[4], sc[3];
        skf_mat4_mul(wb, t->tgt_mesh_to_world, b);
        memcpy(t->tgt_offset + 3 * i, wb + 12, 3 * sizeof(double)); /* b_i until rest_offsets */
        if (skf_mat4_to_trs(wb, tt, q, sc, 1e-3)) {
            double u = cbrt(fabs(sc[0] * sc[1] * sc[2]));
            double us[3] = {sc[0] < 0 ? -u : u, u, u};
            skf_mat4_from_trs(t->tgt_bind + 16 * i, tt, q, us);
        } else {
            memcpy(t->tgt_bind + 16 * i, wb, sizeof wb);
        }
    }
    if ((st = rest_offsets(t, err)))
        goto fail;
    st = skf_trs_converter_init(&t->trs, target, 0, err);
    if (st)
        goto fail;
    t->trs_ready = true;
    if (t->opt.mode & SKF_TRANSFER_ROTATION_ONLY) {
        skf_skeleton sk = {B, t->tgt_parent, t->tgt_bind, t->tgt_offset};
        skf_rotonly_options ro = {.max_iterations = t->opt.max_lm_iterations};
        st = skf_rotonly_new(t->tgt_solver, &sk, &ro, &t->rotonly, err);
        if (st) {
            skf_error_prefix(err, "%s", doc_name(target));
            goto fail;
        }
    }
    setup_done(t);
    *out = t;
    return SKF_OK;
fail:
    skf_transfer_free(t);
    return st;
}

void skf_transfer_get_info(const skf_transfer *t, skf_transfer_info *info)
{
    memset(info, 0, sizeof *info);
    info->source_vertices = t->src_raw_vertices;
    info->source_welded = t->src->vertex_count;
    info->source_joints = t->src->joint_count;
    info->source_diagonal = t->src_diag;
    info->source_attachments = t->src_att_count;
    if (t->tgt) {
        info->target_vertices = t->tgt_raw_vertices;
        info->target_welded = t->tgt->vertex_count;
        info->target_joints = t->tgt->joint_count;
        info->constraints = t->corr.count;
        info->target_diagonal = t->tgt_diag;
        info->alignment = t->align;
        info->attachment_count = t->att_count;
        info->attachments = t->att;
        if (t->registered)
            skfi_transfer_registration_info(t, info);
    }
}

/* "Walk, Gallop, ..." of doc's animations into b (cap bytes), "(none)" when it has none. */
static const char *clip_list_of(const skf_gltf *doc, char *b, size_t cap)
{
    size_t len = 0;
    b[0] = 0;
    for (size_t a = 0; a < doc->animation_count; ++a) {
        const char *n = doc->animations[a].name;
        char tmp[32];
        if (!n) {
            snprintf(tmp, sizeof tmp, "#%zu", a);
            n = tmp;
        } else {
            n = skf_clip_short_name(n);
        }
        int w = snprintf(b + len, cap - len, "%s%s", len ? ", " : "", n);
        if (w < 0 || (size_t)w >= cap - len) {
            if (cap - len > 4)
                strcpy(b + cap - 5, "...");
            break;
        }
        len += (size_t)w;
    }
    if (!b[0])
        snprintf(b, cap, "(none)");
    return b;
}

const char *skf_transfer_clip_list(const skf_transfer *t)
{
    skf_transfer *m = (skf_transfer *)t;
    return clip_list_of(t->source_doc, m->clip_list, sizeof m->clip_list);
}

/* Maps a sub-step's [0,1] progress onto [lo, hi] of the clip's. */
typedef struct sub_progress {
    const skf_progress *outer;
    double lo, hi;
    const char *what;
    skf_progress self;
} sub_progress;

static int sub_progress_cb(void *user, double fraction, const char *what)
{
    const sub_progress *p = user;
    (void)what;
    return skf_progress_report(p->outer, p->lo + (p->hi - p->lo) * fraction, p->what);
}

static const skf_progress *sub_progress_init(sub_progress *p, const skf_progress *outer, double lo, double hi,
                                             const char *what)
{
    p->outer = outer;
    p->lo = lo;
    p->hi = hi;
    p->what = what;
    p->self.report = sub_progress_cb;
    p->self.user = p;
    return outer ? &p->self : NULL;
}

static void metrics_release(skf_transfer_metrics *m)
{
    skf_free(m->frame_quality);
    skf_free(m->frame_mean_pct);
    skf_free(m->frame_max_pct);
    skf_free(m->frame_sweeps);
    skf_free(m->vertex_errors);
    skf_free(m->surface);
    skf_free(m->attachment_mean_pct);
    skf_free(m->attachment_max_pct);
    memset(m, 0, sizeof *m);
}

/* One warning per cap that stopped frames, naming that cap (the Newton
 * iteration cap is not the sweep cap: raising max_sweeps would not help). */
static void warn_cap(const skf_transfer_clip *c, const skf_transfer_metrics *m, const char *run,
                     bool lm, skf_warnings *w)
{
    if (!m->present || !m->frames_at_cap)
        return;
    const char *clip = skf_clip_short_name(c->name ? c->name : "clip");
    size_t sweeps = m->frames_at_cap - (lm ? 0 : m->frames_at_newton_cap);
    if (sweeps)
        skf_warn_as(w, SKF_KIND_ITERATION_CAP,
                    lm ? "skf_transfer_options.max_lm_iterations" : "skf_transfer_options.max_sweeps",
                    "solver: %s: %s: %zu of %zu frames stopped at the %s cap %s=%d", clip, run,
                    sweeps, c->frames, lm ? "iteration" : "sweep",
                    lm ? "max_lm_iterations" : "max_sweeps", m->iteration_cap);
    if (!lm && m->frames_at_newton_cap)
        skf_warn_as(w, SKF_KIND_ITERATION_CAP, "skf_transfer_options.max_newton_iterations",
                    "solver: %s: %s: %zu of %zu frames stopped at the Newton iteration cap "
                    "max_newton_iterations=%d", clip, run, m->frames_at_newton_cap, c->frames,
                    m->newton_cap);
}

void skf_transfer_clip_warn(const skf_transfer_clip *c, skf_warnings *w)
{
    if (!c)
        return;
    warn_cap(c, &c->control, "control", false, w);
    warn_cap(c, &c->free, "free", false, w);
    warn_cap(c, &c->rotation_only, "rotation-only", true, w);
}

void skf_transfer_clip_release(skf_transfer_clip *c)
{
    if (!c)
        return;
    skf_free(c->name);
    metrics_release(&c->control);
    metrics_release(&c->free);
    metrics_release(&c->rotation_only);
    skf_free(c->free_transforms);
    skf_free(c->rotonly_transforms);
    skf_free(c->translation);
    skf_free(c->rotation);
    skf_free(c->scale);
    skf_free(c->animated);
    skf_free(c->source_mesh.triangles);
    skf_free(c->target_mesh.triangles);
    skf_free(c->source_surface);
    skf_free(c->constraint_vertex);
    memset(c, 0, sizeof *c);
}

/* Per-frame arrays of a run over F frames; with vertex output also the
 * per-vertex errors of its n measured vertices and its surface of N welded
 * vertices. */
static bool metrics_alloc(const skf_transfer *t, skf_transfer_metrics *m, size_t F, size_t n, size_t N, bool target)
{
    if (target && t->att_count) {
        m->attachment_mean_pct = skf_calloc(t->att_count, sizeof(double));
        m->attachment_max_pct = skf_calloc(t->att_count, sizeof(double));
        if (!m->attachment_mean_pct || !m->attachment_max_pct)
            return false;
        m->attachment_count = t->att_count;
    }
    m->frame_quality = skf_calloc(F, sizeof(double));
    m->frame_mean_pct = skf_calloc(F, sizeof(double));
    m->frame_max_pct = skf_calloc(F, sizeof(double));
    m->frame_sweeps = skf_calloc(F, sizeof(int));
    bool ok = m->frame_quality && m->frame_mean_pct && m->frame_max_pct && m->frame_sweeps;
    if (ok && t->opt.vertex_output) {
        m->vertex_errors = skf_malloc_array(F * n, sizeof(double));
        m->surface = skf_malloc_array(F * N, 3 * sizeof(double));
        ok = m->vertex_errors && m->surface;
    }
    return ok;
}

/* THE measuring of a solved clip — the table's figures and the pictures'
 * per-vertex errors: s from the solver's skinning, u target, r rest, per
 * frame and over the clip (skf_quality_add_frame), for frames [first,
 * first + count) of a streamed clip (targets: those frames, [count*n*3];
 * transforms: the clip's whole [F*B*12]); acc sums the clip in frame order,
 * measure_finish turns it into the clip's figures. With vertex output
 * (m->vertex_errors set) each frame's per-vertex errors are kept and the
 * surface written: s itself when surface_solver is NULL (the measured
 * vertices are the rig's welded vertices in order), else surface_solver's
 * skinning of the same transforms. scratch: [n*3]. att (target runs of a
 * target with attached meshes, else NULL): [n] each measured vertex's
 * attachment or UINT32_MAX — their mean and worst error go to
 * m->attachment_mean_pct / _max_pct, att_n [m->attachment_count] counting
 * the errors summed (NULL: those figures left at 0). */
static void measure_frames(const skf_solver *solver, const skf_solver *surface_solver, size_t first, size_t count,
                           size_t n, size_t B, const double *transforms, const double *targets, const double *rest,
                           double diag, double *scratch, const uint32_t *att, size_t *att_n, skf_quality_acc *acc,
                           skf_transfer_metrics *m)
{
    size_t na = att && att_n ? m->attachment_count : 0;
    size_t N = surface_solver ? skf_solver_vertex_count(surface_solver) : n;
    for (size_t k = 0; k < count; ++k) {
        size_t f = first + k;
        const double *T = transforms + f * B * 12;
        const double *u = targets + k * n * 3;
        double *s = m->surface && !surface_solver ? m->surface + f * N * 3 : scratch;
        skf_solver_skin(solver, T, s);
        skf_quality_acc fa;
        skf_quality_init(&fa, diag);
        skf_quality_add_frame(&fa, n, s, u, rest, m->vertex_errors ? m->vertex_errors + f * n : NULL);
        skf_quality q = skf_quality_result(&fa);
        m->frame_quality[f] = q.quality;
        m->frame_mean_pct[f] = q.mean_error_pct;
        m->frame_max_pct[f] = q.max_error_pct;
        skf_quality_merge(acc, &fa);
        for (size_t j = 0; na && j < n; ++j) {
            uint32_t a = att[j];
            if (a == UINT32_MAX || a >= na)
                continue;
            const double *sj = s + 3 * j, *uj = u + 3 * j;
            double d[3] = {sj[0] - uj[0], sj[1] - uj[1], sj[2] - uj[2]};
            double e = 100 * skf_norm3(d) / diag;
            m->attachment_mean_pct[a] += e;
            m->attachment_max_pct[a] = fmax(m->attachment_max_pct[a], e);
            att_n[a]++;
        }
        if (m->surface && surface_solver)
            skf_solver_skin(surface_solver, T, m->surface + f * N * 3);
    }
}

static void measure_finish(const skf_quality_acc *acc, double diag, size_t n, const size_t *att_n,
                           skf_transfer_metrics *m)
{
    skf_quality q = skf_quality_result(acc);
    m->quality = q.quality;
    m->mean_error_pct = q.mean_error_pct;
    m->max_error_pct = q.max_error_pct;
    m->diagonal = diag;
    m->measured_count = m->vertex_errors ? n : 0;
    m->present = true;
    for (size_t a = 0; att_n && a < m->attachment_count; ++a)
        m->attachment_mean_pct[a] = att_n[a] ? m->attachment_mean_pct[a] / (double)att_n[a] : 0;
}

/* Bone-length error of baked TRS: for every joint whose parent joint is its
 * direct parent node and both carry weight, | |p_i - p_parent| - bind length |
 * / bind length, max over frames. */
static double length_error(const skf_transfer *t, size_t F, const double *tr, const double *rot, const double *sc)
{
    size_t B = t->tgt->joint_count;
    double *worlds = skf_malloc_array(B * 16, sizeof(double));
    if (!worlds)
        return HUGE_VAL;
    double worst = 0;
    for (size_t f = 0; f < F; ++f) {
        skf_trs_joint_worlds(&t->trs, tr + f * B * 3, rot + f * B * 4, sc + f * B * 3, worlds);
        for (size_t i = 0; i < B; ++i) {
            int p = t->tgt_parent[i];
            if (p < 0 || !t->tgt_solved[i] || !t->tgt_solved[p])
                continue;
            const double *wi = worlds + 16 * i + 12, *wp = worlds + 16 * (size_t)p + 12;
            double dw[3] = {wi[0] - wp[0], wi[1] - wp[1], wi[2] - wp[2]};
            double L = skf_norm3(t->tgt_offset + 3 * i);
            if (L <= 1e-12 * t->tgt_diag)
                continue;
            double e = fabs(skf_norm3(dw) - L) / L;
            if (e > worst)
                worst = e;
        }
    }
    skf_free(worlds);
    return worst;
}

static skf_status to_trs(const skf_transfer *t, size_t F, const double *T34, double *tr, double *rot, double *sc,
                         skf_error *err)
{
    size_t B = t->tgt->joint_count;
    double *m = skf_malloc_array(B * 16, sizeof(double));
    if (!m)
        return skf_fail(err, SKF_ERR_NOMEM, "transfer: out of memory");
    skf_status st = SKF_OK;
    for (size_t f = 0; f < F && !st; ++f) {
        for (size_t i = 0; i < B; ++i) {
            double tp[16];
            skf_transform34_to_mat4(T34 + (f * B + i) * 12, tp);
            skf_mat4_mul(m + 16 * i, tp, t->tgt_mesh_to_world); /* glTF skinning matrix */
        }
        st = skf_trs_convert(&t->trs, m, t->tgt_solved, f ? rot + (f - 1) * B * 4 : NULL, tr + f * B * 3,
                             rot + f * B * 4, sc + f * B * 3, (int)f, err);
    }
    skf_free(m);
    return st;
}

static skf_status copy_u32(uint32_t **dst, const uint32_t *src, size_t n)
{
    *dst = skf_malloc_array(n ? n : 1, sizeof(uint32_t));
    if (!*dst)
        return SKF_ERR_NOMEM;
    memcpy(*dst, src, n * sizeof(uint32_t));
    return SKF_OK;
}

/* A clip opened on the welded source rig, played frame by frame. */
typedef struct source_clip {
    skf_clip *clip;
    skf_pose pose;
    bool pose_ready;
} source_clip;

static void source_close(source_clip *sc)
{
    if (sc->pose_ready)
        skf_pose_release(&sc->pose);
    skf_clip_free(sc->clip);
    memset(sc, 0, sizeof *sc);
}

/* What every clip call starts with: find the clip and check its frames. out
 * gets the name, frames and times and, with vertex output, the welded meshes,
 * the constraint map and room for the ground truth (source_surface, filled by
 * source_frames). */
static skf_status source_open(skf_transfer *t, const char *clip_name, skf_transfer_clip *out, source_clip *sc,
                              skf_error *err)
{
    memset(out, 0, sizeof *out);
    memset(sc, 0, sizeof *sc);
    const skf_gltf *sd = t->source_doc;
    int a = skf_clip_find(sd, clip_name, err); /* kind SKF_KIND_UNKNOWN_CLIP on a miss */
    if (a < 0) {
        if (err) {
            size_t n = strlen(err->message);
            snprintf(err->message + n, sizeof err->message - n, " (available: %s)", skf_transfer_clip_list(t));
        }
        return SKF_ERR_ARGUMENT;
    }
    skf_status st = skf_clip_from_gltf(sd, a, &sc->clip, err);
    if (st)
        return st;
    const skf_clip *clip = sc->clip;
    if (clip->channel_count == 0 || clip->total_keys == 0)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: animations[%d] ('%s'): the clip has no frames (no keyed channel)",
                        doc_name(sd), a, clip_name);
    double fps;
    size_t F;
    if ((st = skf_clip_frames(clip, t->opt.fps, t->opt.limits, &F, &fps, err))) {
        skf_error_prefix(err, "%s: animations[%d] ('%s')", doc_name(sd), a, clip_name);
        return st;
    }
    out->name = skf_strdup(sd->animations[a].name ? sd->animations[a].name : clip_name);
    out->frames = F;
    out->fps = fps;
    out->start = clip->start;
    out->duration = clip->duration;
    if (!out->name)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", clip_name);
    if ((st = skf_pose_init(&sc->pose, t->src, err)))
        return st;
    sc->pose_ready = true;
    if (t->opt.vertex_output) {
        const skf_rig *S = t->src;
        out->source_mesh = (skf_transfer_mesh){S->vertex_count, S->triangle_count, NULL};
        out->source_surface = skf_malloc_array(F * S->vertex_count, 3 * sizeof(double));
        if (!out->source_surface || copy_u32(&out->source_mesh.triangles, S->triangles, 3 * S->triangle_count))
            return skf_fail(err, SKF_ERR_NOMEM, "%s: %zu frames x %zu vertices: out of memory", clip_name, F,
                            S->vertex_count);
        if (t->tgt) {
            const skf_rig *T = t->tgt;
            out->target_mesh = (skf_transfer_mesh){T->vertex_count, T->triangle_count, NULL};
            out->constraint_count = t->corr.count;
            if (copy_u32(&out->target_mesh.triangles, T->triangles, 3 * T->triangle_count) ||
                copy_u32(&out->constraint_vertex, t->corr.target_vertex, t->corr.count))
                return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", clip_name);
        }
    }
    return SKF_OK;
}

/* Frames [first, first + count) of the clip played on the welded source rig
 * (what skf_rig_bake computes, frame by frame): dst [count*Ns*3], source
 * world positions. */
static void source_frames(const skf_transfer *t, source_clip *sc, const skf_transfer_clip *out, size_t first,
                          size_t count, double *dst)
{
    size_t Ns = t->src->vertex_count;
    for (size_t k = 0; k < count; ++k) {
        double time = sc->clip->start + (double)(first + k) / out->fps;
        skf_pose_eval(t->src, sc->clip, time, &sc->pose);
        skf_skin(t->src, &sc->pose, dst + k * Ns * 3, t->opt.threads > 0 ? t->opt.threads : 0);
    }
}

/* The source frames carried onto the constraints: u [count*C*3] — by
 * deformation transfer when a registration prepared one (another shape,
 * transfer_register.c), else by the correspondence's barycentric points. */
static skf_status carry_surface(skf_transfer *t, size_t first, size_t count, const double *src, double *u,
                                skf_error *err)
{
    if (t->dt)
        return skfi_transfer_carry_deformation(t, first, count, src, u, err);
    size_t Ns = t->src->vertex_count, C = t->corr.count;
    for (size_t k = 0; k < count; ++k)
        skf_correspondence_apply(&t->corr, t->align.identity ? NULL : t->source_to_target,
                                 src + k * Ns * 3, u + k * C * 3);
    return SKF_OK;
}

/* The clip is streamed through windows of consecutive frames, so that memory
 * does not grow with the clip (docs/bench.md "Where the memory of a transfer
 * goes"): per window the source frames and the carried surface, at most
 * SKF_TRANSFER_WINDOW_BYTES together (at least one frame). With vertex output
 * the source frames are the clip's ground truth and are kept whole. */
#define SKF_TRANSFER_WINDOW_BYTES ((size_t)64 << 20)

static size_t window_frames(const skf_transfer *t, size_t F)
{
    size_t per = t->tgt ? t->corr.count : 0;
    if (!t->opt.vertex_output)
        per += t->src->vertex_count;
    per *= 3 * sizeof(double);
    size_t w = per ? SKF_TRANSFER_WINDOW_BYTES / per : F;
    return w < 1 ? 1 : w > F ? F : w;
}

/* The window's buffers: src [W*Ns*3] (a view into out->source_surface with
 * vertex output), u [W*C*3], scratch [max(Ns, C)*3]. */
typedef struct clip_window {
    size_t W;
    double *src_own, *u, *scratch;
} clip_window;

static void window_release(clip_window *w)
{
    skf_free(w->src_own);
    skf_free(w->u);
    skf_free(w->scratch);
    memset(w, 0, sizeof *w);
}

static bool window_alloc(const skf_transfer *t, size_t F, clip_window *w)
{
    memset(w, 0, sizeof *w);
    w->W = window_frames(t, F);
    size_t Ns = t->src->vertex_count, C = t->tgt ? t->corr.count : 0, n = Ns > C ? Ns : C;
    if (!t->opt.vertex_output)
        w->src_own = skf_malloc_array(w->W * Ns, 3 * sizeof(double));
    if (C)
        w->u = skf_malloc_array(w->W * C, 3 * sizeof(double));
    w->scratch = skf_malloc_array(n, 3 * sizeof(double));
    return (t->opt.vertex_output || w->src_own) && (!C || w->u) && w->scratch;
}

/* Source frames of the window starting at f0. */
static double *window_source(const skf_transfer *t, const clip_window *w, const skf_transfer_clip *out, size_t f0)
{
    return w->src_own ? w->src_own : out->source_surface + f0 * t->src->vertex_count * 3;
}

/* A run's sums over the clip's frames. */
typedef struct run_sums {
    skf_quality_acc acc;
    double sweeps, iterations;
    size_t *att_n; /* [attachment_count] errors summed per attachment (NULL: none, or no memory) */
} run_sums;

/* A target run's attachment counts; on no memory the figures stay at 0
 * rather than fail a solved clip (measure_frames). */
static void run_att_init(run_sums *r, const skf_transfer_metrics *m)
{
    if (m->attachment_count)
        r->att_n = skf_calloc(m->attachment_count, sizeof *r->att_n);
}

static void run_add_stats(run_sums *r, skf_transfer_metrics *m, size_t first, size_t count,
                          const skf_solve_stats *stats)
{
    for (size_t k = 0; k < count; ++k) {
        m->frame_sweeps[first + k] = stats[k].sweeps;
        r->sweeps += stats[k].sweeps;
        r->iterations += stats[k].iterations;
        m->frames_at_cap += stats[k].hit_cap;
        m->frames_at_newton_cap += stats[k].hit_iteration_cap;
    }
}

static void run_finish(const run_sums *r, size_t F, int cap, size_t n, skf_transfer_metrics *m)
{
    m->iteration_cap = cap;
    m->newton_cap = 0;
    m->sweeps_per_frame = r->sweeps / (double)F;
    m->iterations_per_frame = r->iterations / (double)F;
    measure_finish(&r->acc, m->diagonal, n, r->att_n, m);
}

static skf_status cancelled(const char *clip_name, skf_error *err)
{
    return skf_fail(err, SKF_ERR_CANCELLED, "%s: cancelled", clip_name);
}

static skf_status transfer_run_clip(skf_transfer *t, const char *clip_name,
                                    skf_transfer_clip *out, const skf_progress *progress,
                                    skf_error *err)
{
    source_clip sc;
    clip_window w = {0};
    double *Tc = NULL, *ident = NULL;
    skf_solve_stats *stats = NULL;
    run_sums rc = {0}, rf = {0}, rr = {0};
    skf_status st = source_open(t, clip_name, out, &sc, err);
    if (st)
        goto done;
    const skf_gltf *sd = t->source_doc, *td = t->target_doc;
    const size_t F = out->frames;
    const skf_rig *S = t->src;
    const size_t Ns = S->vertex_count, Bs = S->joint_count;
    const size_t C = t->tgt ? t->corr.count : 0, B = t->tgt ? t->tgt->joint_count : 0;
    const size_t Nt = t->tgt ? t->tgt->vertex_count : 0;
    const size_t Bmax = Bs > B ? Bs : B;
    const int sweep_cap = t->opt.max_sweeps > 0 ? t->opt.max_sweeps : SKF_SOLVE_DEFAULT_MAX_SWEEPS;
    const int lm_cap = t->opt.max_lm_iterations > 0 ? t->opt.max_lm_iterations : SKF_ROTONLY_DEFAULT_MAX_ITERATIONS;
    if (!window_alloc(t, F, &w)) {
        st = skf_fail(err, SKF_ERR_NOMEM, "%s: %zu frames x %zu vertices: out of memory", clip_name, w.W, Ns);
        goto done;
    }
    stats = skf_calloc(w.W, sizeof *stats);
    ident = skf_malloc_array(Bmax * 12, sizeof(double));
    if (!stats || !ident) {
        st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", clip_name);
        goto done;
    }
    for (size_t i = 0; i < Bmax; ++i)
        skf_transform34_identity(ident + i * 12);
    if (t->src_solver) {
        Tc = skf_malloc_array(F * Bs * 12, sizeof(double));
        if (!Tc || !metrics_alloc(t, &out->control, F, Ns, Ns, false)) {
            st = skf_fail(err, SKF_ERR_NOMEM, "%s: control: out of memory", clip_name);
            goto done;
        }
        out->control.diagonal = t->src_diag;
        skf_quality_init(&rc.acc, t->src_diag);
    }
    if (t->tgt) {
        out->joint_count = B;
        out->free_transforms = skf_malloc_array(F * B * 12, sizeof(double));
        if (!out->free_transforms || !metrics_alloc(t, &out->free, F, C, Nt, true)) {
            st = skf_fail(err, SKF_ERR_NOMEM, "%s: %zu constraints x %zu frames: out of memory", clip_name, C, F);
            goto done;
        }
        out->free.diagonal = t->tgt_diag;
        skf_quality_init(&rf.acc, t->tgt_diag);
        run_att_init(&rf, &out->free);
        if (t->rotonly) {
            out->rotonly_transforms = skf_malloc_array(F * B * 12, sizeof(double));
            if (!out->rotonly_transforms || !metrics_alloc(t, &out->rotation_only, F, C, Nt, true)) {
                st = skf_fail(err, SKF_ERR_NOMEM, "%s: rotation-only: out of memory", clip_name);
                goto done;
            }
            out->rotation_only.diagonal = t->tgt_diag;
            skf_quality_init(&rr.acc, t->tgt_diag);
            run_att_init(&rr, &out->rotation_only);
        }
    }
    double t0 = now_seconds();
    for (size_t f0 = 0; f0 < F; f0 += w.W) {
        const size_t n = F - f0 < w.W ? F - f0 : w.W;
        /* progress: the window's share of the clip, split over its stages */
        const double lo = (double)f0 / (double)F, span = (double)n / (double)F;
        double *src = window_source(t, &w, out, f0);
        /* 1. the source clip's frames */
        source_frames(t, &sc, out, f0, n, src);
        if (skf_progress_report(progress, lo + 0.05 * span, "source clip sampled")) {
            st = cancelled(clip_name, err);
            goto done;
        }
        /* 2. control: the source rig against its own clip */
        if (t->src_solver) {
            sub_progress sp;
            double c0 = now_seconds();
            st = skf_solver_clip_window(t->src_solver, f0, n, src, ident, Tc + f0 * Bs * 12, stats,
                                        sub_progress_init(&sp, progress, lo + 0.05 * span, lo + 0.3 * span,
                                                          "control solve"),
                                        err);
            out->control.solve_seconds += now_seconds() - c0;
            if (st) {
                skf_error_prefix(err, "%s: %s: control", doc_name(sd), clip_name);
                goto done;
            }
            run_add_stats(&rc, &out->control, f0, n, stats);
            measure_frames(t->src_solver, NULL, f0, n, Ns, Bs, Tc, src, t->src_rest_world, t->src_diag, w.scratch,
                           NULL, NULL, &rc.acc, &out->control);
        }
        if (skf_progress_report(progress, lo + 0.3 * span, "control solved")) {
            st = cancelled(clip_name, err);
            goto done;
        }
        if (!t->tgt)
            continue;
        /* 3. carry the surface */
        st = carry_surface(t, f0, n, src, w.u, err);
        if (st) {
            skf_error_prefix(err, "%s: %s", doc_name(td), clip_name);
            goto done;
        }
        /* 4. free solve */
        sub_progress sp;
        double f1 = now_seconds();
        st = skf_solver_clip_window(t->tgt_solver, f0, n, w.u, ident, out->free_transforms + f0 * B * 12, stats,
                                    sub_progress_init(&sp, progress, lo + 0.3 * span, lo + 0.6 * span, "free solve"),
                                    err);
        out->free.solve_seconds += now_seconds() - f1;
        if (st) {
            skf_error_prefix(err, "%s: %s", doc_name(td), clip_name);
            goto done;
        }
        run_add_stats(&rf, &out->free, f0, n, stats);
        measure_frames(t->tgt_solver, t->tgt_skin, f0, n, C, B, out->free_transforms, w.u, t->con_rest, t->tgt_diag,
                       w.scratch, t->con_att, rf.att_n, &rf.acc, &out->free);
        if (skf_progress_report(progress, lo + 0.6 * span, "free solve")) {
            st = cancelled(clip_name, err);
            goto done;
        }
        /* 5. rotation-only */
        if (t->rotonly) {
            double r0 = now_seconds();
            for (size_t k = 0; k < n && !st; ++k) {
                size_t f = f0 + k;
                double *R = out->rotonly_transforms + f * B * 12;
                if (f)
                    memcpy(R, R - B * 12, B * 12 * sizeof(double));
                skf_rotonly_stats rs;
                st = skf_rotonly_frame(t->rotonly, w.u + k * C * 3, out->free_transforms + f * B * 12, R, f > 0, &rs,
                                       err);
                out->rotation_only.frame_sweeps[f] = rs.iterations;
                rr.sweeps += rs.iterations;
                out->rotation_only.frames_at_cap += !st && rs.hit_cap;
                if (skf_progress_report(progress, lo + (0.6 + 0.35 * (double)(k + 1) / (double)n) * span,
                                        "rotation-only solve"))
                    st = cancelled(clip_name, err);
            }
            out->rotation_only.solve_seconds += now_seconds() - r0;
            if (st) {
                skf_error_prefix(err, "%s: %s: rotation-only", doc_name(td), clip_name);
                goto done;
            }
            measure_frames(t->tgt_solver, t->tgt_skin, f0, n, C, B, out->rotonly_transforms, w.u, t->con_rest,
                           t->tgt_diag, w.scratch, t->con_att, rr.att_n, &rr.acc, &out->rotation_only);
        }
    }
    const int newton_cap = t->opt.max_newton_iterations > 0 ? t->opt.max_newton_iterations
                                                             : SKF_SOLVE_DEFAULT_MAX_ITERATIONS;
    if (t->src_solver) {
        run_finish(&rc, F, sweep_cap, Ns, &out->control);
        out->control.newton_cap = newton_cap;
    }
    if (t->tgt) {
        run_finish(&rf, F, sweep_cap, C, &out->free);
        out->free.newton_cap = newton_cap;
        if (t->rotonly) {
            run_finish(&rr, F, lm_cap, C, &out->rotation_only); /* sweeps: its LM iterations */
            if (t->opt.mode == SKF_TRANSFER_ROTATION_ONLY) {
                /* the free solve was only its start: report the mode asked
                 * for, timed with its start (docs/transfer-report.md) */
                out->rotation_only.solve_seconds += out->free.solve_seconds;
                metrics_release(&out->free);
            }
        }
        /* 6. local TRS of the baked run (and the bone-length check) */
        out->translation = skf_malloc_array(F * B * 3, sizeof(double));
        out->rotation = skf_malloc_array(F * B * 4, sizeof(double));
        out->scale = skf_malloc_array(F * B * 3, sizeof(double));
        out->animated = skf_malloc_array(B, sizeof(bool));
        if (!out->translation || !out->rotation || !out->scale || !out->animated) {
            st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", clip_name);
            goto done;
        }
        memcpy(out->animated, t->tgt_solved, B * sizeof(bool));
        if (t->rotonly) {
            st = to_trs(t, F, out->rotonly_transforms, out->translation, out->rotation, out->scale, err);
            if (st)
                goto done;
            out->rotation_only.max_length_error =
                length_error(t, F, out->translation, out->rotation, out->scale);
        }
        if (t->opt.mode != SKF_TRANSFER_ROTATION_ONLY) {
            st = to_trs(t, F, out->free_transforms, out->translation, out->rotation, out->scale, err);
            if (st)
                goto done;
        }
    }
    out->seconds = now_seconds() - t0;
    skf_progress_report(progress, 1.0, "done");
done:
    source_close(&sc);
    window_release(&w);
    skf_free(Tc);
    skf_free(ident);
    skf_free(stats);
    skf_free(rf.att_n);
    skf_free(rr.att_n);
    if (st)
        skf_transfer_clip_release(out);
    return st;
}

static skf_status transfer_sample_clip(skf_transfer *t, const char *clip_name, skf_transfer_clip *out,
                                       skf_error *err)
{
    source_clip sc;
    skf_status st = source_open(t, clip_name, out, &sc, err);
    if (!st && out->source_surface)
        source_frames(t, &sc, out, 0, out->frames, out->source_surface);
    source_close(&sc);
    if (st)
        skf_transfer_clip_release(out);
    return st;
}

/* The target document's own clip of the same name at the source's frame
 * times, measured as a free solve's result would be. */
static skf_status transfer_measure_baked(skf_transfer *t, const char *clip_name, skf_transfer_clip *out,
                                         skf_error *err)
{
    if (!t->tgt) {
        memset(out, 0, sizeof *out);
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: no target rig to measure a baked clip on", clip_name);
    }
    source_clip sc;
    clip_window w = {0};
    skf_clip *clip = NULL;
    size_t *att_n = NULL;
    skf_pose pose;
    memset(&pose, 0, sizeof pose);
    skf_status st = source_open(t, clip_name, out, &sc, err);
    if (st)
        goto done;
    const skf_gltf *td = t->target_doc;
    int a = skf_clip_find(td, out->name, NULL);
    if (a < 0) {
        char names[512];
        st = skf_fail(err, SKF_ERR_ARGUMENT, "%s: animations: no baked clip named '%s' (available: %s)",
                      doc_name(td), out->name, clip_list_of(td, names, sizeof names));
        goto done;
    }
    const skf_rig *T = t->tgt;
    size_t F = out->frames, B = T->joint_count, C = t->corr.count;
    double world_to_mesh[16];
    if ((st = skf_clip_from_gltf(td, a, &clip, err)) || (st = skf_pose_init(&pose, T, err)))
        goto done;
    if (!skf_mat4_invert(world_to_mesh, t->tgt_mesh_to_world)) {
        st = skf_fail(err, SKF_ERR_NUMERIC, "%s: the skinned mesh node's transform is singular", doc_name(td));
        goto done;
    }
    out->joint_count = B;
    out->free_transforms = skf_malloc_array(F * B, 12 * sizeof(double));
    if (!out->free_transforms || !window_alloc(t, F, &w) || !metrics_alloc(t, &out->free, F, C, T->vertex_count, true)) {
        st = skf_fail(err, SKF_ERR_NOMEM, "%s: %zu frames: out of memory", doc_name(td), F);
        goto done;
    }
    for (size_t f = 0; f < F; ++f) {
        skf_pose_eval(T, clip, clip->start + (double)f / out->fps, &pose);
        for (size_t i = 0; i < B; ++i) {
            /* glTF skinning matrix (mesh → world) into the solve space
             * (rest_world → world) */
            double m[16];
            skf_mat4_mul(m, pose.skin_matrices + 16 * i, world_to_mesh);
            skf_transform34_from_mat4(m, out->free_transforms + (f * B + i) * 12);
        }
    }
    skf_quality_acc acc;
    skf_quality_init(&acc, t->tgt_diag);
    out->free.diagonal = t->tgt_diag;
    if (out->free.attachment_count) /* no memory: those figures stay at 0 */
        att_n = skf_calloc(out->free.attachment_count, sizeof *att_n);
    for (size_t f0 = 0; f0 < F; f0 += w.W) {
        const size_t n = F - f0 < w.W ? F - f0 : w.W;
        double *src = window_source(t, &w, out, f0);
        source_frames(t, &sc, out, f0, n, src);
        if ((st = carry_surface(t, f0, n, src, w.u, err)))
            goto done;
        measure_frames(t->tgt_solver, t->tgt_skin, f0, n, C, B, out->free_transforms, w.u, t->con_rest, t->tgt_diag,
                       w.scratch, t->con_att, att_n, &acc, &out->free);
    }
    measure_finish(&acc, t->tgt_diag, C, att_n, &out->free);
done:
    source_close(&sc);
    window_release(&w);
    skf_pose_release(&pose);
    skf_clip_free(clip);
    skf_free(att_n);
    if (st)
        skf_transfer_clip_release(out);
    return st;
}

/* options.threads bounds every parallel region the session runs — the
 * alignment, correspondence and sampling passes as well as the solves — by
 * setting the calling thread's OpenMP team size for the duration of the call
 * and restoring it after (the same rule as skf_decompose). */
static int threads_push(int threads)
{
    int saved = omp_get_max_threads();
    if (threads > 0)
        omp_set_num_threads(threads);
    return saved;
}

skf_status skf_transfer_new(const skf_gltf *source, const skf_gltf *target,
                            const skf_transfer_options *options, skf_transfer **out,
                            skf_warnings *warnings, skf_error *err)
{
    int saved = threads_push(options ? options->threads : 0);
    skf_status st = transfer_new(source, target, options, out, warnings, err);
    omp_set_num_threads(saved);
    return st;
}

skf_status skf_transfer_run_clip(skf_transfer *t, const char *clip_name, skf_transfer_clip *out,
                                 const skf_progress *progress, skf_error *err)
{
    int saved = threads_push(t->opt.threads);
    skf_status st = transfer_run_clip(t, clip_name, out, progress, err);
    omp_set_num_threads(saved);
    return st;
}

/* A clip call without progress under the session's thread count. */
static skf_status with_threads(skf_status (*call)(skf_transfer *, const char *, skf_transfer_clip *, skf_error *),
                               skf_transfer *t, const char *clip_name, skf_transfer_clip *out, skf_error *err)
{
    int saved = threads_push(t->opt.threads);
    skf_status st = call(t, clip_name, out, err);
    omp_set_num_threads(saved);
    return st;
}

skf_status skf_transfer_sample_clip(skf_transfer *t, const char *clip_name, skf_transfer_clip *out,
                                    skf_error *err)
{
    return with_threads(transfer_sample_clip, t, clip_name, out, err);
}

skf_status skf_transfer_measure_baked(skf_transfer *t, const char *clip_name, skf_transfer_clip *out,
                                      skf_error *err)
{
    return with_threads(transfer_measure_baked, t, clip_name, out, err);
}
