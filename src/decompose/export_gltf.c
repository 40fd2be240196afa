/* A decomposition as a glTF document (docs/decompose.md, "Output").
 *
 * Scene: node 0 "DecomposeRoot" (identity) with the joints "bone_000" ...
 * as children (with a skeleton: the root bone as its child, the others in
 * the bone tree, each at its offset from its parent joint, and the clip as
 * the local rotation and translation of each joint relative to its parent),
 * then the mesh node "DecomposedMesh" at the scene root. Joint
 * i rests at joint_rest_i with identity rotation; its inverse bind matrix is
 * the translation by −joint_rest_i, so the glTF skinning matrix
 * joint_world × inverse_bind equals the solved rest_to_frame transform T_fi
 * (joint_world_fi = T_fi · translation(joint_rest_i): translation
 * R c + t, rotation R). The animation keys every joint's translation and
 * rotation at exactly frame f / fps (frame 0 at time 0), LINEAR, and its
 * scale 1 with two constant keys (first and last frame); corrective
 * shapes become morph targets with a weights channel on the mesh node
 * (glTF adds morph targets before skinning, as our model does).
 *
 * Corrective shapes as non-negative weights in [0, 1]: a PCA coefficient
 * c_fm has either sign, but players clamp morph weights to a range:
 * Blender 3.4's importer gives each shape key the slider range [0, 1],
 * widened only by the first key's value, so a negative (or > 1) weight is
 * cut. Shape m is therefore written as up to two targets, +s⁺ₘ·basisₘ with
 * weight max(c, 0)/s⁺ₘ and −s⁻ₘ·basisₘ with weight max(−c, 0)/s⁻ₘ, where
 * s± are the largest positive / negative coefficient over the frames (a
 * target whose side never occurs is left out). Their sum is c·basis at
 * every key, and because glTF's LINEAR weights interpolate each target
 * alone, also between keys: playback is the same function of time as one
 * signed target would give (three.js, which does not clamp, plays both
 * alike), to float rounding of the scaled basis.
 */
#include "skinfit/decompose.h"
#include "skinfit/gltf.h"
#include "skinfit/math.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static skf_status nomem(skf_error *err)
{
    return skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory building the glTF document");
}

skf_status skf_decomposition_to_gltf(const skf_decomposition *d, size_t triangle_count,
                                     const uint32_t *triangles, double fps, skf_gltf **out,
                                     skf_error *err)
{
    *out = NULL;
    size_t N = d->vertex_count, F = d->frame_count, B = d->bone_count, K = d->max_influences,
           M = d->shape_count;
    if (!triangles || triangle_count == 0)
        return skf_fail(err, SKF_ERR_ARGUMENT,
                        "decompose: the output mesh needs triangles (give a rest mesh with faces)");
    if (!(fps > 0))
        fps = 24;
    if (B > 65535)
        return skf_fail(err, SKF_ERR_LIMIT, "decompose: %zu bones (the glTF format's limit: JOINTS allow 65535)", B);
    for (size_t t = 0; t < 3 * triangle_count; ++t)
        if (triangles[t] >= N)
            return skf_fail(err, SKF_ERR_ARGUMENT, "decompose: triangle %zu: vertex %u out of range",
                            t / 3, triangles[t]);
    size_t sets = (K + 3) / 4;
    /* targets: per shape, the +side then the −side when it occurs (header) */
    double *side_scale = M ? skf_calloc(2 * M, sizeof(double)) : NULL;
    if (M && !side_scale)
        return nomem(err);
    size_t T = 0;
    for (size_t m = 0; m < M; ++m) {
        for (size_t f = 0; f < F; ++f) {
            double c = d->shape_weights[f * M + m];
            if (c > side_scale[2 * m])
                side_scale[2 * m] = c;
            if (-c > side_scale[2 * m + 1])
                side_scale[2 * m + 1] = -c;
        }
        T += (side_scale[2 * m] > 0) + (side_scale[2 * m + 1] > 0);
    }
    skf_gltf *doc = NULL;
    skf_status st = skf_gltf_new_empty("decomposition", &doc, err);
    if (st) {
        skf_free(side_scale);
        return st;
    }
    float *fbuf = NULL, *times = NULL, *tvals = NULL, *rvals = NULL, *wvals = NULL;
    uint32_t *ubuf = NULL;
    int *joint_nodes = NULL;
    skf_gltf_new_channel *ch = NULL;
    size_t fsize = N * 4 > 16 * B ? N * 4 : 16 * B;
    if (fsize < 3 * N)
        fsize = 3 * N;
    fbuf = skf_malloc_array(fsize, sizeof *fbuf);
    ubuf = skf_malloc_array(N * 4 > 3 * triangle_count ? N * 4 : 3 * triangle_count, sizeof *ubuf);
    joint_nodes = skf_malloc_array(B, sizeof *joint_nodes);
    times = skf_malloc_array(F, sizeof *times);
    tvals = skf_malloc_array(F * B * 3, sizeof *tvals);
    rvals = skf_malloc_array(F * B * 4, sizeof *rvals);
    ch = skf_malloc_array(3 * B + 1, sizeof *ch);
    if (T)
        wvals = skf_malloc_array(F * T, sizeof *wvals);
    if (!fbuf || !ubuf || !joint_nodes || !times || !tvals || !rvals || !ch || (T && !wvals)) {
        st = nomem(err);
        goto done;
    }
    int root;
    if ((st = skf_gltf_add_node(doc, "DecomposeRoot", -1, NULL, NULL, NULL, &root, err)))
        goto done;
    /* Flat: every joint under the root node at its rest position. With a
     * skeleton: the tree, each joint at its offset from its parent, added
     * parents first (breadth first from the root bone). */
    for (size_t b = 0; b < B; ++b)
        joint_nodes[b] = -1;
    for (size_t added = 0; added < B;) {
        size_t before = added;
        for (size_t b = 0; b < B; ++b) {
            int32_t q = d->parent ? d->parent[b] : -1;
            if (joint_nodes[b] >= 0 || (q >= 0 && joint_nodes[q] < 0))
                continue;
            char name[32];
            snprintf(name, sizeof name, "bone_%03zu", b);
            double t[3];
            for (int a = 0; a < 3; ++a)
                t[a] = d->joint_rest[3 * b + (size_t)a] -
                       (q >= 0 ? d->joint_rest[3 * (size_t)q + (size_t)a] : 0);
            if ((st = skf_gltf_add_node(doc, name, q >= 0 ? joint_nodes[q] : root, t, NULL, NULL,
                                        &joint_nodes[b], err)))
                goto done;
            ++added;
        }
        if (added == before) {
            st = skf_fail(err, SKF_ERR_ARGUMENT, "decompose: the bone tree has a cycle");
            goto done;
        }
    }
    /* Inverse bind matrices: translation by −joint_rest. */
    for (size_t b = 0; b < B; ++b) {
        float *m = fbuf + 16 * b;
        memset(m, 0, 16 * sizeof *m);
        m[0] = m[5] = m[10] = m[15] = 1;
        for (int a = 0; a < 3; ++a)
            m[12 + a] = (float)-d->joint_rest[3 * b + (size_t)a];
    }
    int a_ibm, a_pos, a_idx, a_j[4], a_w[4];
    if ((st = skf_gltf_add_float_accessor(doc, fbuf, B, 16, 0, false, &a_ibm, err)))
        goto done;
    for (size_t k = 0; k < 3 * N; ++k)
        fbuf[k] = (float)d->rest[k];
    if ((st = skf_gltf_add_float_accessor(doc, fbuf, N, 3, 34962, true, &a_pos, err)))
        goto done;
    for (size_t s = 0; s < sets; ++s) {
        for (size_t j = 0; j < N; ++j)
            for (size_t c = 0; c < 4; ++c) {
                size_t k = 4 * s + c;
                double w = k < K ? d->weight[j * K + k] : 0;
                ubuf[4 * j + c] = k < K && w > 0 ? d->weight_bone[j * K + k] : 0;
                fbuf[4 * j + c] = (float)w;
            }
        if ((st = skf_gltf_add_uint_accessor(doc, ubuf, N, 4,
                                             B < 256 ? SKF_GLTF_UNSIGNED_BYTE
                                                     : SKF_GLTF_UNSIGNED_SHORT,
                                             34962, &a_j[s], err)) ||
            (st = skf_gltf_add_float_accessor(doc, fbuf, N, 4, 34962, false, &a_w[s], err)))
            goto done;
    }
    memcpy(ubuf, triangles, 3 * triangle_count * sizeof *ubuf);
    if ((st = skf_gltf_add_uint_accessor(doc, ubuf, 3 * triangle_count, 1,
                                         N < 65536 ? SKF_GLTF_UNSIGNED_SHORT
                                                   : SKF_GLTF_UNSIGNED_INT,
                                         34963, &a_idx, err)))
        goto done;
    const char *names[9];
    int accs[9];
    static const char *jn[4] = {"JOINTS_0", "JOINTS_1", "JOINTS_2", "JOINTS_3"};
    static const char *wn[4] = {"WEIGHTS_0", "WEIGHTS_1", "WEIGHTS_2", "WEIGHTS_3"};
    size_t na = 0;
    names[na] = "POSITION";
    accs[na++] = a_pos;
    for (size_t s = 0; s < sets; ++s) {
        names[na] = jn[s];
        accs[na++] = a_j[s];
        names[na] = wn[s];
        accs[na++] = a_w[s];
    }
    int mesh, skin, mesh_node;
    if ((st = skf_gltf_add_mesh(doc, "DecomposedMesh", names, accs, na, a_idx, &mesh, err)) ||
        (st = skf_gltf_add_skin(doc, "DecomposedSkin", joint_nodes, B, a_ibm, root, &skin, err)) ||
        (st = skf_gltf_add_node(doc, "DecomposedMesh", -1, NULL, NULL, NULL, &mesh_node, err)))
        goto done;
    json_t *jmesh = json_array_get(json_object_get(doc->json, "meshes"), (size_t)mesh);
    json_t *prim = json_array_get(json_object_get(jmesh, "primitives"), 0);
    json_t *node = json_array_get(json_object_get(doc->json, "nodes"), (size_t)mesh_node);
    if (!jmesh || !prim || !node || json_object_set_new(node, "mesh", json_integer(mesh)) ||
        json_object_set_new(node, "skin", json_integer(skin))) {
        st = nomem(err);
        goto done;
    }
    if (T) {
        json_t *targets = json_array(), *mw = json_array();
        /* set_new takes its value even when it fails: both calls run */
        int bad = !targets || !mw;
        if (bad) {
            json_decref(targets);
            json_decref(mw);
        } else {
            bad = json_object_set_new(prim, "targets", targets) != 0;
            bad |= json_object_set_new(jmesh, "weights", mw) != 0;
        }
        if (bad) {
            st = nomem(err);
            goto done;
        }
        for (size_t m2 = 0; m2 < 2 * M; ++m2) {
            double sc = side_scale[m2];
            if (!(sc > 0))
                continue;
            if (m2 & 1)
                sc = -sc;
            size_t m = m2 / 2;
            for (size_t k = 0; k < 3 * N; ++k)
                fbuf[k] = (float)(sc * d->shapes[m * 3 * N + k]);
            int a_t;
            if ((st = skf_gltf_add_float_accessor(doc, fbuf, N, 3, 34962, true, &a_t, err)))
                goto done;
            json_t *t = json_pack("{s:i}", "POSITION", a_t);
            if (!t || json_array_append_new(targets, t) || json_array_append_new(mw, json_real(0))) {
                st = nomem(err);
                goto done;
            }
        }
    }
    if ((st = skf_gltf_reparse(doc, NULL, err)))
        goto done;
    /* Animation. */
    for (size_t f = 0; f < F; ++f)
        times[f] = (float)((double)f / fps);
    for (size_t b = 0; b < B; ++b) {
        double prev[4] = {0, 0, 0, 1};
        int32_t par = d->parent ? d->parent[b] : -1;
        for (size_t f = 0; f < F; ++f) {
            /* joint world: rotation R_fb, position p = T_fb c_b; local to the
             * parent joint (skeleton): R_parᵀ R, R_parᵀ (p − p_par) */
            const double *T = d->transforms + (f * B + b) * 12;
            const double *c = d->joint_rest + 3 * b;
            double R[9], p[3];
            memcpy(R, T, sizeof R);
            for (int r = 0; r < 3; ++r)
                p[r] = T[r] * c[0] + T[3 + r] * c[1] + T[6 + r] * c[2] + T[9 + r];
            if (par >= 0) {
                const double *Tq = d->transforms + (f * B + (size_t)par) * 12;
                const double *cq = d->joint_rest + 3 * (size_t)par;
                double pq[3], dp[3];
                for (int r = 0; r < 3; ++r) {
                    pq[r] = Tq[r] * cq[0] + Tq[3 + r] * cq[1] + Tq[6 + r] * cq[2] + Tq[9 + r];
                    dp[r] = p[r] - pq[r];
                }
                for (int col = 0; col < 3; ++col)
                    for (int r = 0; r < 3; ++r)
                        R[col * 3 + r] = Tq[r * 3] * T[col * 3] + Tq[r * 3 + 1] * T[col * 3 + 1] +
                                         Tq[r * 3 + 2] * T[col * 3 + 2];
                for (int r = 0; r < 3; ++r)
                    p[r] = Tq[r * 3] * dp[0] + Tq[r * 3 + 1] * dp[1] + Tq[r * 3 + 2] * dp[2];
            }
            double q[4];
            skf_quat_from_mat3(q, R);
            if (q[0] * prev[0] + q[1] * prev[1] + q[2] * prev[2] + q[3] * prev[3] < 0)
                for (int a = 0; a < 4; ++a)
                    q[a] = -q[a];
            memcpy(prev, q, sizeof q);
            for (int r = 0; r < 3; ++r)
                tvals[(b * F + f) * 3 + (size_t)r] = (float)p[r];
            for (int a = 0; a < 4; ++a)
                rvals[(b * F + f) * 4 + (size_t)a] = (float)q[a];
        }
        ch[2 * b] = (skf_gltf_new_channel){joint_nodes[b], SKF_PATH_TRANSLATION,
                                           SKF_INTERP_LINEAR, F, times, tvals + b * F * 3, 3};
        ch[2 * b + 1] = (skf_gltf_new_channel){joint_nodes[b], SKF_PATH_ROTATION,
                                               SKF_INTERP_LINEAR, F, times, rvals + b * F * 4, 4};
    }
    size_t nch = 2 * B;
    /* scale 1 as two constant keys on every joint, so the clip sets the whole
     * TRS: a player that keeps an un-keyed channel's previous value (Blender
     * keeps the last action's bone scale) plays it the same */
    static const float unit_scale[6] = {1, 1, 1, 1, 1, 1};
    float scale_times[2] = {times[0], times[F ? F - 1 : 0]};
    for (size_t b = 0; b < B; ++b)
        ch[nch++] = (skf_gltf_new_channel){joint_nodes[b], SKF_PATH_SCALE, SKF_INTERP_LINEAR, F > 1 ? 2 : 1,
                                           scale_times, unit_scale, 3};
    if (T) {
        for (size_t f = 0; f < F; ++f) {
            size_t t = 0;
            for (size_t m2 = 0; m2 < 2 * M; ++m2) {
                if (!(side_scale[m2] > 0))
                    continue;
                double c = d->shape_weights[f * M + m2 / 2];
                if (m2 & 1)
                    c = -c;
                double w = c > 0 ? c / side_scale[m2] : 0;
                wvals[f * T + t++] = (float)(w < 1 ? w : 1);
            }
        }
        ch[nch++] = (skf_gltf_new_channel){mesh_node, SKF_PATH_WEIGHTS, SKF_INTERP_LINEAR, F,
                                           times, wvals, T};
    }
    st = skf_gltf_add_animation(doc, "decomposed", ch, nch, err);
done:
    skf_free(fbuf);
    skf_free(ubuf);
    skf_free(joint_nodes);
    skf_free(times);
    skf_free(tvals);
    skf_free(rvals);
    skf_free(wvals);
    skf_free(ch);
    skf_free(side_scale);
    if (st) {
        skf_gltf_free(doc);
        return st;
    }
    *out = doc;
    return SKF_OK;
}
