/* Solved skinning transforms → local TRS of the joint nodes.
 *
 * Reference: glTF 2.0 specification, §3.7.3 "Skins" — the skinning matrix
 * of joint i is globalTransform(joint_i) × inverseBindMatrix_i, and a node's
 * global transform is the product of the local transforms from the root.
 *
 * Why: the converter takes skinning matrices, which map mesh space (the
 * skin's bind space) to world, where that identity holds whatever the
 * exporter's conventions: T_i = joint_world_i × inverse_bind_i (the transfer
 * solves in rest_world and hands over T'_i × mesh_to_world,
 * docs/conventions.md). Hence
 * joint_world_i = T_i × bind_i with bind_i = inverse(inverse_bind_i), and
 * the local transform is inverse(parent_world) × joint_world_i, where the
 * parent's world is itself solved (a joint) or rest (a non-joint node between
 * joints, or a joint that carries no weight, whose local stays at rest).
 * Uniform scale in the inverse bind matrices (Blender's 0.01 armature) cancels
 * along the chain and stays on the root; shear cannot be written as TRS and is
 * refused.
 */
#include "skinfit/transfer.h"
#include "skinfit/math.h"

#include <math.h>
#include <string.h>

/* Shear tolerance (relative). Exporters leave float noise in joint scales
 * (Quaternius' Tail1: scale z 1.00001), so a child's local relative to a
 * slightly non-uniformly scaled parent carries ~1e-5 of shear that TRS
 * drops; the position error this causes is that fraction of the bone's
 * extent. Real shear (a skewed bind) is far above 1e-3. */
#define TRS_REL_TOL 1e-3

void skf_trs_converter_release(skf_trs_converter *cv)
{
    if (!cv)
        return;
    skf_free(cv->joint_node);
    skf_free(cv->bind_to_world);
    skf_free(cv->rest_local);
    skf_free(cv->node_joint);
    skf_free(cv->order);
    memset(cv, 0, sizeof *cv);
}

static const char *node_name(const skf_gltf *doc, int n)
{
    return doc->nodes[n].name ? doc->nodes[n].name : "(unnamed)";
}

skf_status skf_trs_converter_init(skf_trs_converter *cv, const skf_gltf *doc, int skin,
                                  skf_error *err)
{
    memset(cv, 0, sizeof *cv);
    if (skin < 0 || (size_t)skin >= doc->skin_count)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: skins[%d]: no such skin (%zu skins)", doc->path ? doc->path : "glTF",
                        skin, doc->skin_count);
    const skf_gltf_skin *sk = &doc->skins[skin];
    size_t J = sk->joint_count, N = doc->node_count;
    cv->doc = doc;
    cv->skin = skin;
    cv->joint_count = J;
    cv->joint_node = skf_malloc_array(J ? J : 1, sizeof(int));
    cv->bind_to_world = skf_malloc_array(J ? J * 16 : 1, sizeof(double));
    cv->rest_local = skf_malloc_array(N ? N * 16 : 1, sizeof(double));
    cv->node_joint = skf_malloc_array(N ? N : 1, sizeof(int));
    cv->order = skf_malloc_array(N ? N : 1, sizeof(int));
    double *ibm = J ? skf_malloc_array(J * 16, sizeof(double)) : NULL;
    if (!cv->joint_node || !cv->bind_to_world || !cv->rest_local || !cv->node_joint || !cv->order ||
        (J && !ibm)) {
        skf_free(ibm);
        skf_trs_converter_release(cv);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: skins[%d]: out of memory", doc->path ? doc->path : "glTF", skin);
    }
    const char *file = doc->path ? doc->path : "glTF";
    skf_status st = SKF_OK;
    if (sk->inverse_bind_matrices >= 0) {
        st = skf_gltf_accessor_read(doc, sk->inverse_bind_matrices, ibm, true, err);
        if (st)
            goto fail;
    } else {
        for (size_t i = 0; i < J; ++i)
            skf_mat4_identity(ibm + 16 * i);
    }
    for (size_t n = 0; n < N; ++n) {
        cv->node_joint[n] = -1;
        skf_gltf_node_local_matrix(&doc->nodes[n], cv->rest_local + 16 * n);
    }
    for (size_t i = 0; i < J; ++i) {
        int n = sk->joints[i];
        cv->joint_node[i] = n;
        cv->node_joint[n] = (int)i;
        double *b = cv->bind_to_world + 16 * i;
        if (skf_mat4_invert(b, ibm + 16 * i) == 0 || !skf_mat4_is_finite(b)) {
            st = skf_fail(err, SKF_ERR_NUMERIC, "%s: skins[%d].inverseBindMatrices[%zu] (joint %s): singular",
                          file, skin, i, node_name(doc, n));
            goto fail;
        }
        double t[3], q[4], s[3];
        if (!skf_mat4_to_trs(b, t, q, s, TRS_REL_TOL)) {
            st = skf_fail(err, SKF_ERR_NUMERIC,
                          "%s: skins[%d].joints[%zu] (joint %s): bind pose has shear that TRS cannot express",
                          file, skin, i, node_name(doc, n));
            goto fail;
        }
    }
    /* parent-before-child order: repeated sweeps over roots' descendants */
    size_t k = 0;
    for (size_t n = 0; n < N; ++n)
        if (doc->nodes[n].parent < 0)
            cv->order[k++] = (int)n;
    for (size_t head = 0; head < k; ++head) {
        const skf_gltf_node *nd = &doc->nodes[cv->order[head]];
        for (size_t c = 0; c < nd->child_count && k < N; ++c)
            cv->order[k++] = nd->children[c];
    }
    cv->order_count = k;
    for (size_t i = 0; i < J; ++i) {
        bool found = false;
        for (size_t h = 0; h < k && !found; ++h)
            found = cv->order[h] == cv->joint_node[i];
        if (!found) {
            st = skf_fail(err, SKF_ERR_FORMAT, "%s: skins[%d].joints[%zu]: node %d is not reachable from a root",
                          file, skin, i, cv->joint_node[i]);
            goto fail;
        }
    }
    skf_free(ibm);
    return SKF_OK;
fail:
    skf_free(ibm);
    skf_trs_converter_release(cv);
    return st;
}

static void rest_trs(const skf_gltf_node *nd, const double local[16], double t[3], double q[4], double s[3])
{
    if (!nd->has_matrix) {
        memcpy(t, nd->translation, 3 * sizeof(double));
        memcpy(q, nd->rotation, 4 * sizeof(double));
        memcpy(s, nd->scale, 3 * sizeof(double));
        return;
    }
    if (!skf_mat4_to_trs(local, t, q, s, TRS_REL_TOL)) {
        /* keep whatever came out; the matrix was the file's own choice */
    }
}

/* The world matrix of node n's parent (identity for a root), from world[16 * node]. */
static void parent_world_of(const skf_gltf *doc, const double *world, int n, double out[16])
{
    int parent = doc->nodes[n].parent;
    if (parent >= 0)
        memcpy(out, world + 16 * parent, 16 * sizeof *out);
    else
        skf_mat4_identity(out);
}

skf_status skf_trs_convert(const skf_trs_converter *cv, const double *skin_transforms,
                           const bool *solved, const double *prev_rotation, double *translation,
                           double *rotation, double *scale, int frame, skf_error *err)
{
    const skf_gltf *doc = cv->doc;
    size_t N = doc->node_count;
    double *world = skf_malloc_array(N ? N * 16 : 1, sizeof(double));
    if (!world)
        return skf_fail(err, SKF_ERR_NOMEM, "frame %d: out of memory", frame);
    const char *file = doc->path ? doc->path : "glTF";
    for (size_t h = 0; h < cv->order_count; ++h) {
        int n = cv->order[h];
        double parent_world[16];
        parent_world_of(doc, world, n, parent_world);
        int i = cv->node_joint[n];
        double *w = world + 16 * n;
        if (i < 0 || (solved && !solved[i])) {
            skf_mat4_mul(w, parent_world, cv->rest_local + 16 * n);
            if (i >= 0)
                rest_trs(&doc->nodes[n], cv->rest_local + 16 * n, translation + 3 * i, rotation + 4 * i,
                         scale + 3 * i);
        } else {
            skf_mat4_mul(w, skin_transforms + 16 * i, cv->bind_to_world + 16 * i);
            double inv[16], local[16];
            if (skf_mat4_invert_affine(inv, parent_world) == 0) {
                skf_free(world);
                return skf_fail(err, SKF_ERR_NUMERIC, "%s: frame %d: joint %s: parent transform is singular", file,
                                frame, node_name(doc, n));
            }
            skf_mat4_mul(local, inv, w);
            if (!skf_mat4_to_trs(local, translation + 3 * i, rotation + 4 * i, scale + 3 * i, TRS_REL_TOL)) {
                skf_free(world);
                return skf_fail(err, SKF_ERR_NUMERIC,
                                "%s: frame %d: joint %s: solved local transform has shear that TRS cannot express",
                                file, frame, node_name(doc, n));
            }
            /* continue from the world that playback of this TRS produces, so
             * the children absorb what TRS dropped (float-noise shear) and
             * every joint's world position stays exact */
            double l2[16];
            skf_mat4_from_trs(l2, translation + 3 * i, rotation + 4 * i, scale + 3 * i);
            skf_mat4_mul(w, parent_world, l2);
        }
        if (i >= 0) {
            double *q = rotation + 4 * i;
            skf_quat_normalize(q);
            if (prev_rotation) {
                const double *p = prev_rotation + 4 * i;
                if (q[0] * p[0] + q[1] * p[1] + q[2] * p[2] + q[3] * p[3] < 0)
                    for (int a = 0; a < 4; ++a)
                        q[a] = -q[a];
            }
        }
    }
    skf_free(world);
    return SKF_OK;
}

void skf_trs_joint_worlds(const skf_trs_converter *cv, const double *translation,
                          const double *rotation, const double *scale, double *joint_to_world)
{
    const skf_gltf *doc = cv->doc;
    size_t N = doc->node_count;
    double stack_world[16 * 64];
    double *world = N <= 64 ? stack_world : skf_malloc_array(N * 16, sizeof(double));
    if (!world)
        return;
    for (size_t h = 0; h < cv->order_count; ++h) {
        int n = cv->order[h];
        double parent_world[16];
        parent_world_of(doc, world, n, parent_world);
        int i = cv->node_joint[n];
        double local[16];
        if (i >= 0)
            skf_mat4_from_trs(local, translation + 3 * i, rotation + 4 * i, scale + 3 * i);
        else
            memcpy(local, cv->rest_local + 16 * n, sizeof local);
        skf_mat4_mul(world + 16 * n, parent_world, local);
        if (i >= 0)
            memcpy(joint_to_world + 16 * i, world + 16 * n, 16 * sizeof(double));
    }
    if (world != stack_world)
        skf_free(world);
}
