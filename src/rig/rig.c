/* Rig extraction from a glTF 2.0 document (spec §3.7.3 "Skins", §3.7.2.2
 * "Morph Targets", §3.7.2.1 primitive topology). The surface of a skin is the
 * concatenation of every triangle primitive of every mesh node bound to it,
 * then of every mesh node attached to one of its joints (a node without skin
 * under a joint, glTF §3.7.3.3: it moves with node_to_world, the parent's
 * world times its local matrix); see skinfit/rig.h for the exact vertex
 * order and the bind-space form of attached vertices.
 */
#include "skinfit/rig.h"
#include "skinfit/math.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static bool is_surface_mode(int mode)
{
    return mode == 4 || mode == 5 || mode == 6;
}

static int find_attribute(const skf_gltf_primitive *p, const char *name)
{
    for (size_t i = 0; i < p->attribute_count; ++i)
        if (p->attributes[i].name && !strcmp(p->attributes[i].name, name))
            return p->attributes[i].accessor;
    return -1;
}

static bool node_in_surface(const skf_gltf *doc, size_t n, int skin)
{
    const skf_gltf_node *node = &doc->nodes[n];
    if (node->mesh < 0 || (size_t)node->mesh >= doc->mesh_count)
        return false;
    return node->skin == skin;
}

/* Copy the node hierarchy, checking the depth cap (node-depth under
 * doc->limits, the limits the document was loaded with; the reader rejects
 * cycles; this keeps evaluation bounded whatever built the document). */
static skf_status copy_nodes(const skf_gltf *doc, skf_rig *rig, skf_error *err)
{
    if (!doc->node_count)
        return SKF_OK;
    rig->nodes = skf_calloc(doc->node_count, sizeof *rig->nodes);
    if (!rig->nodes)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", doc->path);
    rig->node_count = doc->node_count; /* only once allocated: skf_rig_free walks it */
    for (size_t i = 0; i < doc->node_count; ++i) {
        const skf_gltf_node *s = &doc->nodes[i];
        skf_rig_node *d = &rig->nodes[i];
        if (s->name && !(d->name = skf_strdup(s->name)))
            return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", doc->path);
        d->parent = s->parent;
        d->has_matrix = s->has_matrix;
        memcpy(d->matrix, s->matrix, sizeof d->matrix);
        memcpy(d->translation, s->translation, sizeof d->translation);
        memcpy(d->rotation, s->rotation, sizeof d->rotation);
        memcpy(d->scale, s->scale, sizeof d->scale);
        if (s->has_matrix && !skf_mat4_is_finite(s->matrix))
            return skf_fail(err, SKF_ERR_FORMAT, "%s: nodes[%zu].matrix: not finite", doc->path, i);
        int p = s->parent;
        size_t depth = 0;
        while (p >= 0) {
            if ((size_t)p >= doc->node_count || depth >= doc->node_count)
                return skf_fail(err, SKF_ERR_FORMAT, "%s: nodes[%zu]: cyclic hierarchy",
                                doc->path, i);
            if (++depth > skf_limits_value(&doc->limits, SKF_LIMIT_NODE_DEPTH))
                return skf_fail(err, SKF_ERR_LIMIT, "%s: nodes[%zu]: node depth %zu exceeds %s",
                                doc->path, i, depth,
                                skf_limits_exceeded(&doc->limits, SKF_LIMIT_NODE_DEPTH).text);
            p = doc->nodes[p].parent;
        }
    }
    return SKF_OK;
}

/* Attached meshes of skin joints (skinfit/rig.h "Attached meshes"): for every
 * node, att_joint[n] = the joint J an unskinned mesh node hangs from (-1 when
 * it is not attached), mesh_to_bind / bind_to_node [node_count*16] its
 * matrices: mesh_to_bind = inverse(mesh_to_joint_J) · chain, bind_to_node its
 * inverse, chain = the rest local matrices from J (exclusive) down to n. */
static skf_status find_attached(const skf_gltf *doc, const skf_rig *rig, const int *joint_of_node, int *att_joint,
                                double *mesh_to_bind, double *bind_to_node, skf_warnings *warnings)
{
    const char *path = doc->path ? doc->path : "glTF";
    for (size_t i = 0; i < doc->node_count; ++i) {
        att_joint[i] = -1;
        if (!node_in_surface(doc, i, -1))
            continue;
        double chain[16];
        skf_mat4_identity(chain);
        int n = (int)i;
        size_t depth = 0; /* bounded: copy_nodes checked the hierarchy */
        while (n >= 0 && joint_of_node[n] < 0 && depth++ <= doc->node_count) {
            double l[16];
            skf_gltf_node_local_matrix(&doc->nodes[n], l);
            skf_mat4_mul(chain, l, chain);
            n = doc->nodes[n].parent;
        }
        if (n < 0 || joint_of_node[n] < 0)
            continue; /* not under a joint of this skin */
        int J = joint_of_node[n];
        double joint_to_mesh[16], chain_inv[16];
        double det = skf_mat4_invert_affine(chain_inv, chain);
        if (!(fabs(det) > 0) || !skf_mat4_is_finite(chain)) {
            skf_warn(warnings, "%s: nodes[%zu]: mesh attached to joint %d ('%s') has a singular transform (det %g); left out",
                     path, i, J, doc->nodes[n].name ? doc->nodes[n].name : "", det);
            continue;
        }
        skf_mat4_invert_affine(joint_to_mesh, rig->joints[J].mesh_to_joint);
        skf_mat4_mul(mesh_to_bind + 16 * i, joint_to_mesh, chain);
        skf_mat4_mul(bind_to_node + 16 * i, chain_inv, rig->joints[J].mesh_to_joint);
        att_joint[i] = J;
    }
    return SKF_OK;
}

/* Triangles of one primitive (local vertex indices offset by base). */
static skf_status add_triangles(const skf_gltf *doc, size_t mesh, size_t prim, size_t vcount,
                                size_t base, uint32_t **tris, size_t *ntri, size_t *cap,
                                skf_warnings *warnings, skf_error *err)
{
    const skf_gltf_primitive *p = &doc->meshes[mesh].primitives[prim];
    size_t n;
    uint32_t *idx = NULL;
    if (p->indices >= 0) {
        const skf_gltf_accessor *a = &doc->accessors[p->indices];
        if (a->components != 1)
            return skf_fail(err, SKF_ERR_FORMAT, "%s: meshes[%zu].primitives[%zu].indices: not SCALAR",
                            doc->path, mesh, prim);
        n = a->count;
        idx = skf_malloc_array(n ? n : 1, sizeof *idx);
        if (!idx)
            return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", doc->path);
        skf_status st = skf_gltf_accessor_read_uint(doc, p->indices, idx, err);
        if (st) {
            skf_free(idx);
            return st;
        }
        for (size_t i = 0; i < n; ++i)
            if (idx[i] >= vcount) {
                skf_free(idx);
                return skf_fail(err, SKF_ERR_FORMAT,
                                "%s: meshes[%zu].primitives[%zu].indices: element %zu = %u out of range (%zu vertices)",
                                doc->path, mesh, prim, i, idx[i], vcount);
            }
    } else {
        n = vcount;
    }
    size_t add = 0;
    if (p->mode == 4) {
        add = n / 3;
        if (n % 3)
            skf_warn(warnings, "%s: meshes[%zu].primitives[%zu]: %zu trailing indices ignored",
                     doc->path, mesh, prim, n % 3);
    } else if (n >= 3) {
        add = n - 2;
    }
    if (*ntri + add > *cap) {
        size_t c = *cap ? *cap : 1024;
        while (c < *ntri + add)
            c *= 2;
        uint32_t *t = skf_realloc_array(*tris, c, 3 * sizeof **tris);
        if (!t) {
            skf_free(idx);
            return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", doc->path);
        }
        *tris = t;
        *cap = c;
    }
#define IDX(i) ((uint32_t)(base + (idx ? idx[i] : (uint32_t)(i))))
    /* add == 0 with nothing allocated yet leaves *tris NULL (found by fuzz_gltf) */
    uint32_t *t = add ? *tris + 3 * *ntri : NULL;
    for (size_t i = 0; i < add; ++i, t += 3) {
        if (p->mode == 4) {
            t[0] = IDX(3 * i);
            t[1] = IDX(3 * i + 1);
            t[2] = IDX(3 * i + 2);
        } else if (p->mode == 5) { /* strip: {i, i+1+i%2, i+2-i%2} */
            t[0] = IDX(i);
            t[1] = IDX(i + 1 + i % 2);
            t[2] = IDX(i + 2 - i % 2);
        } else { /* fan: {i+1, i+2, 0} */
            t[0] = IDX(i + 1);
            t[1] = IDX(i + 2);
            t[2] = IDX(0);
        }
    }
#undef IDX
    *ntri += add;
    skf_free(idx);
    return SKF_OK;
}

/* Read the JOINTS_n/WEIGHTS_n pairs of a primitive into per-vertex rows of
 * at most max_per entries (joint, weight), merged per joint, zeros dropped. */
static skf_status read_weights(const skf_gltf *doc, size_t mesh, size_t prim, size_t vcount,
                               size_t joint_count, uint32_t *rj, double *rw, size_t *rn,
                               uint32_t *first_joint, size_t max_per, skf_error *err)
{
    const skf_gltf_primitive *p = &doc->meshes[mesh].primitives[prim];
    uint32_t *ji = NULL;
    double *wv = NULL;
    skf_status st = SKF_OK;
    for (size_t v = 0; v < vcount; ++v)
        rn[v] = 0;
    for (int set = 0; !st; ++set) {
        char jn[32], wn[32];
        snprintf(jn, sizeof jn, "JOINTS_%d", set);
        snprintf(wn, sizeof wn, "WEIGHTS_%d", set);
        int ja = find_attribute(p, jn), wa = find_attribute(p, wn);
        if (ja < 0 && wa < 0)
            break;
        if (ja < 0 || wa < 0) {
            st = skf_fail(err, SKF_ERR_FORMAT, "%s: meshes[%zu].primitives[%zu].attributes: %s without %s",
                          doc->path, mesh, prim, ja < 0 ? wn : jn, ja < 0 ? jn : wn);
            break;
        }
        const skf_gltf_accessor *A = &doc->accessors[ja], *W = &doc->accessors[wa];
        if (A->components != 4 || W->components != 4 || A->count != vcount || W->count != vcount) {
            st = skf_fail(err, SKF_ERR_FORMAT,
                          "%s: meshes[%zu].primitives[%zu].attributes.%s: expected %zu VEC4 like POSITION",
                          doc->path, mesh, prim, A->components != 4 || A->count != vcount ? jn : wn,
                          vcount);
            break;
        }
        if ((size_t)(set + 1) * 4 > max_per)
            break; /* caller sized rows for the sets it counted */
        ji = skf_malloc_array(vcount * 4, sizeof *ji);
        wv = skf_malloc_array(vcount * 4, sizeof *wv);
        if (!ji || !wv) {
            st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", doc->path);
            break;
        }
        if ((st = skf_gltf_accessor_read_uint(doc, ja, ji, err)) ||
            (st = skf_gltf_accessor_read(doc, wa, wv, true, err)))
            break;
        if (set == 0)
            for (size_t v = 0; v < vcount; ++v)
                first_joint[v] = ji[4 * v] < joint_count ? ji[4 * v] : 0;
        for (size_t v = 0; v < vcount && !st; ++v)
            for (int k = 0; k < 4; ++k) {
                double w = wv[4 * v + k];
                uint32_t j = ji[4 * v + k];
                if (w == 0)
                    continue;
                if (w < 0) {
                    st = skf_fail(err, SKF_ERR_FORMAT,
                                  "%s: meshes[%zu].primitives[%zu].attributes.%s: vertex %zu weight %d is negative (%g)",
                                  doc->path, mesh, prim, wn, v, k, w);
                    break;
                }
                if (j >= joint_count) {
                    st = skf_fail(err, SKF_ERR_FORMAT,
                                  "%s: meshes[%zu].primitives[%zu].attributes.%s: vertex %zu joint %u out of range (%zu joints)",
                                  doc->path, mesh, prim, jn, v, j, joint_count);
                    break;
                }
                uint32_t *row_j = rj + v * max_per;
                double *row_w = rw + v * max_per;
                size_t e = 0;
                while (e < rn[v] && row_j[e] != j)
                    ++e;
                if (e == rn[v]) {
                    row_j[e] = j;
                    row_w[e] = 0;
                    ++rn[v];
                }
                row_w[e] += w;
            }
        skf_free(ji);
        skf_free(wv);
        ji = NULL;
        wv = NULL;
    }
    skf_free(ji);
    skf_free(wv);
    return st;
}

static size_t count_weight_sets(const skf_gltf_primitive *p)
{
    size_t n = 0;
    for (;; ++n) {
        char jn[32];
        snprintf(jn, sizeof jn, "JOINTS_%zu", n);
        if (find_attribute(p, jn) < 0)
            break;
    }
    return n;
}

static skf_status build(const skf_gltf *doc, int skin, const skf_rig_options *opt, skf_rig *rig,
                        skf_warnings *warnings, skf_error *err)
{
    skf_status st;
    const char *path = doc->path ? doc->path : "glTF";
    if ((st = copy_nodes(doc, rig, err)))
        return st;

    /* ---- joints ---- */
    int *joint_of_node = skf_malloc_array(doc->node_count ? doc->node_count : 1, sizeof(int));
    if (!joint_of_node)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
    for (size_t i = 0; i < doc->node_count; ++i)
        joint_of_node[i] = -1;
    if (skin >= 0) {
        const skf_gltf_skin *sk = &doc->skins[skin];
        rig->joint_count = sk->joint_count;
        rig->joints = skf_calloc(sk->joint_count ? sk->joint_count : 1, sizeof *rig->joints);
        double *ibm = NULL;
        if (!rig->joints)
            st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
        if (!st && sk->inverse_bind_matrices >= 0) {
            const skf_gltf_accessor *a = &doc->accessors[sk->inverse_bind_matrices];
            if (a->components != 16 || a->count < sk->joint_count)
                st = skf_fail(err, SKF_ERR_FORMAT,
                              "%s: skins[%d].inverseBindMatrices: %zu elements of %d components, need %zu MAT4",
                              path, skin, a->count, a->components, sk->joint_count);
            else if (!(ibm = skf_malloc_array(a->count * 16, sizeof *ibm)))
                st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
            else
                st = skf_gltf_accessor_read(doc, sk->inverse_bind_matrices, ibm, true, err);
        }
        for (size_t j = 0; !st && j < sk->joint_count; ++j) {
            skf_rig_joint *J = &rig->joints[j];
            J->node = sk->joints[j];
            if (J->node < 0 || (size_t)J->node >= doc->node_count) {
                st = skf_fail(err, SKF_ERR_FORMAT, "%s: skins[%d].joints[%zu]: node %d out of range",
                              path, skin, j, J->node);
                break;
            }
            if (joint_of_node[J->node] >= 0) {
                st = skf_fail(err, SKF_ERR_FORMAT, "%s: skins[%d].joints[%zu]: node %d listed twice",
                              path, skin, j, J->node);
                break;
            }
            joint_of_node[J->node] = (int)j;
            if (ibm) {
                memcpy(J->mesh_to_joint, ibm + 16 * j, sizeof J->mesh_to_joint);
                /* Singular relative to the 3x3 part's column lengths only: the
                 * translation column says where the rig sits, not whether the
                 * matrix inverts (a rig 2e4 units from the origin has det 1
                 * against a translation of 2e4, and is perfectly regular). */
                const double *a = J->mesh_to_joint;
                double cn = 1;
                for (int c = 0; c < 3; ++c)
                    cn *= sqrt(a[4 * c] * a[4 * c] + a[4 * c + 1] * a[4 * c + 1] +
                               a[4 * c + 2] * a[4 * c + 2]);
                double inv[16];
                double det = skf_mat4_invert_affine(inv, J->mesh_to_joint);
                if (!(fabs(det) > 1e-12 * cn) || det == 0)
                    st = skf_fail(err, SKF_ERR_NUMERIC,
                                  "%s: skins[%d].inverseBindMatrices: matrix %zu is singular (det %g)",
                                  path, skin, j, det);
            } else {
                skf_mat4_identity(J->mesh_to_joint);
            }
        }
        skf_free(ibm);
    } else {
        /* Unskinned surface: every mesh node without a skin is its own joint. */
        size_t n = 0;
        for (size_t i = 0; i < doc->node_count; ++i)
            n += node_in_surface(doc, i, -1);
        rig->joint_count = n;
        rig->joints = skf_calloc(n ? n : 1, sizeof *rig->joints);
        if (!rig->joints)
            st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
        n = 0;
        for (size_t i = 0; !st && i < doc->node_count; ++i)
            if (node_in_surface(doc, i, -1)) {
                rig->joints[n].node = (int)i;
                skf_mat4_identity(rig->joints[n].mesh_to_joint);
                joint_of_node[i] = (int)n++;
            }
    }
    for (size_t j = 0; !st && j < rig->joint_count; ++j) {
        int p = doc->nodes[rig->joints[j].node].parent;
        while (p >= 0 && joint_of_node[p] < 0)
            p = doc->nodes[p].parent;
        rig->joints[j].parent = p >= 0 ? joint_of_node[p] : -1;
    }
    if (st) {
        skf_free(joint_of_node);
        return st;
    }

    /* ---- the surface's nodes: skinned ones, then attached ones ---- */
    size_t nn = doc->node_count ? doc->node_count : 1;
    int *att_joint = skf_malloc_array(nn, sizeof *att_joint);
    size_t *surf = skf_malloc_array(nn, sizeof *surf);
    double *att_m2b = NULL, *att_b2n = NULL;
    bool want_attached = skin >= 0 && !(opt && opt->no_attached);
    if (want_attached) {
        att_m2b = skf_malloc_array(nn * 16, sizeof *att_m2b);
        att_b2n = skf_malloc_array(nn * 16, sizeof *att_b2n);
    }
    if (!att_joint || !surf || (want_attached && (!att_m2b || !att_b2n))) {
        skf_free(att_joint);
        skf_free(surf);
        skf_free(att_m2b);
        skf_free(att_b2n);
        skf_free(joint_of_node);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
    }
    for (size_t i = 0; i < doc->node_count; ++i)
        att_joint[i] = -1;
    if (want_attached)
        find_attached(doc, rig, joint_of_node, att_joint, att_m2b, att_b2n, warnings);
    size_t nsurf = 0;
    for (size_t i = 0; i < doc->node_count; ++i)
        if (node_in_surface(doc, i, skin))
            surf[nsurf++] = i;
    for (size_t i = 0; i < doc->node_count; ++i)
        if (att_joint[i] >= 0)
            surf[nsurf++] = i;

    /* ---- parts: count vertices, targets, weight sets ---- */
    size_t nparts = 0, nverts = 0, ntargets = 0, max_sets = 1;
    for (size_t si = 0; si < nsurf; ++si) {
        size_t i = surf[si];
        bool attached = att_joint[i] >= 0;
        const skf_gltf_mesh *m = &doc->meshes[doc->nodes[i].mesh];
        size_t node_targets = 0;
        for (size_t p = 0; p < m->primitive_count; ++p) {
            const skf_gltf_primitive *pr = &m->primitives[p];
            if (!is_surface_mode(pr->mode))
                continue;
            int pa = find_attribute(pr, "POSITION");
            if (pa < 0) {
                skf_warn(warnings, "%s: meshes[%d].primitives[%zu]: no POSITION, skipped", path,
                         doc->nodes[i].mesh, p);
                continue;
            }
            if (doc->accessors[pa].components != 3) {
                st = skf_fail(err, SKF_ERR_FORMAT, "%s: meshes[%d].primitives[%zu].attributes.POSITION: not VEC3",
                              path, doc->nodes[i].mesh, p);
                break;
            }
            if (skin >= 0 && !attached && find_attribute(pr, "JOINTS_0") < 0) {
                st = skf_fail(err, SKF_ERR_FORMAT,
                              "%s: meshes[%d].primitives[%zu].attributes: skinned (nodes[%zu].skin) but no JOINTS_0",
                              path, doc->nodes[i].mesh, p, i);
                break;
            }
            size_t sets = count_weight_sets(pr);
            if (sets > max_sets)
                max_sets = sets;
            if (node_targets && pr->target_count != node_targets) {
                st = skf_fail(err, SKF_ERR_FORMAT,
                              "%s: meshes[%d].primitives[%zu].targets: %zu targets, earlier primitives have %zu",
                              path, doc->nodes[i].mesh, p, pr->target_count, node_targets);
                break;
            }
            node_targets = pr->target_count;
            ++nparts;
            nverts += doc->accessors[pa].count;
            if (nverts > UINT32_MAX) {
                st = skf_fail(err, SKF_ERR_LIMIT, "%s: surface has more than 2^32 vertices", path);
                break;
            }
        }
        if (st)
            break;
        ntargets += node_targets;
    }
    if (st) {
        skf_free(att_joint);
        skf_free(surf);
        skf_free(att_m2b);
        skf_free(att_b2n);
        skf_free(joint_of_node);
        return st;
    }
    rig->vertex_count = nverts;
    rig->target_count = ntargets;
    size_t max_per = 4 * max_sets;
    rig->parts = skf_calloc(nparts ? nparts : 1, sizeof *rig->parts);
    if (rig->parts)
        rig->part_count = nparts; /* skf_rig_free walks parts */
    rig->rest_positions = skf_malloc_array(nverts ? nverts * 3 : 1, sizeof(double));
    rig->weight_offsets = skf_calloc(nverts + 1, sizeof(size_t));
    rig->default_morph_weights = skf_calloc(ntargets ? ntargets : 1, sizeof(double));
    rig->morph_target_node = skf_calloc(ntargets ? ntargets : 1, sizeof(int));
    uint32_t *rj = skf_malloc_array(nverts ? nverts * max_per : 1, sizeof *rj);
    double *rw = skf_malloc_array(nverts ? nverts * max_per : 1, sizeof *rw);
    size_t *rn = skf_calloc(nverts ? nverts : 1, sizeof *rn);
    uint32_t *first_joint = skf_calloc(nverts ? nverts : 1, sizeof *first_joint);
    size_t tri_cap = 0;
    if (!rig->parts || !rig->rest_positions || !rig->weight_offsets ||
        !rig->default_morph_weights || !rig->morph_target_node || !rj || !rw || !rn || !first_joint)
        st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory for %zu vertices", path, nverts);

    size_t part = 0, vbase = 0, tbase = 0;
    for (size_t si = 0; !st && si < nsurf; ++si) {
        size_t i = surf[si];
        int aj = att_joint[i];
        const skf_gltf_node *node = &doc->nodes[i];
        const skf_gltf_mesh *m = &doc->meshes[node->mesh];
        size_t node_targets = 0;
        for (size_t p = 0; !st && p < m->primitive_count; ++p) {
            const skf_gltf_primitive *pr = &m->primitives[p];
            int pa = find_attribute(pr, "POSITION");
            if (!is_surface_mode(pr->mode) || pa < 0)
                continue;
            size_t vc = doc->accessors[pa].count;
            skf_rig_part *P = &rig->parts[part++];
            P->node = (int)i;
            P->mesh = node->mesh;
            P->primitive = (int)p;
            P->first_vertex = vbase;
            P->vertex_count = vc;
            P->first_target = tbase;
            P->target_count = pr->target_count;
            node_targets = pr->target_count;
            if ((st = skf_gltf_accessor_read(doc, pa, rig->rest_positions + 3 * vbase, true, err)))
                break;
            if (aj >= 0) { /* attached: bind space, weight 1 on its joint */
                P->attached = true;
                P->attached_joint = aj;
                memcpy(P->bind_to_node, att_b2n + 16 * i, sizeof P->bind_to_node);
                for (size_t v = 0; v < vc; ++v) {
                    double *x = rig->rest_positions + 3 * (vbase + v), y[3];
                    skf_mat4_transform_point(y, att_m2b + 16 * i, x);
                    memcpy(x, y, sizeof y);
                    rj[(vbase + v) * max_per] = (uint32_t)aj;
                    rw[(vbase + v) * max_per] = 1.0;
                    rn[vbase + v] = 1;
                }
            } else if (skin >= 0) {
                st = read_weights(doc, (size_t)node->mesh, p, vc, rig->joint_count, rj + vbase * max_per,
                                  rw + vbase * max_per, rn + vbase, first_joint + vbase, max_per,
                                  err);
            } else {
                for (size_t v = 0; v < vc; ++v) {
                    rj[(vbase + v) * max_per] = (uint32_t)joint_of_node[i];
                    rw[(vbase + v) * max_per] = 1.0;
                    rn[vbase + v] = 1;
                }
            }
            if (st)
                break;
            if (P->target_count && vc) {
                if (P->target_count > SIZE_MAX / vc / 3) {
                    st = skf_fail(err, SKF_ERR_LIMIT, "%s: too many morph targets", path);
                    break;
                }
                P->target_deltas = skf_calloc(P->target_count * vc * 3, sizeof(double));
                if (!P->target_deltas) {
                    st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory for morph targets", path);
                    break;
                }
                for (size_t k = 0; k < P->target_count && !st; ++k) {
                    int ta = pr->targets[k].position;
                    if (ta < 0)
                        continue;
                    const skf_gltf_accessor *A = &doc->accessors[ta];
                    if (A->components != 3 || A->count != vc) {
                        st = skf_fail(err, SKF_ERR_FORMAT,
                                      "%s: meshes[%d].primitives[%zu].targets[%zu].POSITION: expected %zu VEC3",
                                      path, node->mesh, p, k, vc);
                        break;
                    }
                    st = skf_gltf_accessor_read(doc, ta, P->target_deltas + k * vc * 3, true, err);
                    for (size_t v = 0; !st && aj >= 0 && v < vc; ++v) { /* deltas into bind space */
                        double *d = P->target_deltas + (k * vc + v) * 3, y[3];
                        skf_mat4_transform_vector(y, att_m2b + 16 * i, d);
                        memcpy(d, y, sizeof y);
                    }
                }
            }
            if (!st)
                st = add_triangles(doc, (size_t)node->mesh, p, vc, vbase, &rig->triangles,
                                   &rig->triangle_count, &tri_cap, warnings, err);
            vbase += vc;
        }
        if (st)
            break;
        /* default morph weights of this node */
        for (size_t k = 0; k < node_targets; ++k) {
            rig->morph_target_node[tbase + k] = (int)i;
            double w = 0;
            if (node->weights && node->weight_count == node_targets)
                w = node->weights[k];
            else if (m->weights && m->weight_count == node_targets)
                w = m->weights[k];
            rig->default_morph_weights[tbase + k] = w;
        }
        if (node_targets && node->weights && node->weight_count != node_targets)
            skf_warn(warnings, "%s: nodes[%zu].weights: %zu weights for %zu morph targets, ignored", path,
                     i, node->weight_count, node_targets);
        if (node_targets && m->weights && m->weight_count != node_targets)
            skf_warn(warnings, "%s: meshes[%d].weights: %zu weights for %zu morph targets, ignored", path,
                     node->mesh, m->weight_count, node_targets);
        tbase += node_targets;
    }

    /* ---- CSR weights, normalised ---- */
    size_t nnz = 0, off_sum = 0, zero_rows = 0;
    double worst = 0;
    for (size_t v = 0; !st && v < nverts; ++v) {
        if (rn[v] == 0)
            ++zero_rows;
        nnz += rn[v] ? rn[v] : 1;
    }
    if (!st) {
        rig->weight_joints = skf_malloc_array(nnz ? nnz : 1, sizeof(uint32_t));
        rig->weights = skf_malloc_array(nnz ? nnz : 1, sizeof(double));
        if (!rig->weight_joints || !rig->weights)
            st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
    }
    size_t pos = 0;
    for (size_t v = 0; !st && v < nverts; ++v) {
        rig->weight_offsets[v] = pos;
        if (rn[v] == 0) {
            /* bind to the first listed joint of JOINTS_0, as three.js does */
            rig->weight_joints[pos] = first_joint[v];
            rig->weights[pos] = 1.0;
            ++pos;
            continue;
        }
        double sum = 0;
        for (size_t e = 0; e < rn[v]; ++e)
            sum += rw[v * max_per + e];
        if (fabs(sum - 1) > worst)
            worst = fabs(sum - 1);
        if (fabs(sum - 1) > 1e-3)
            ++off_sum;
        double scale = (opt && opt->keep_raw_weights) ? 1.0 : 1.0 / sum;
        for (size_t e = 0; e < rn[v]; ++e) {
            rig->weight_joints[pos] = rj[v * max_per + e];
            rig->weights[pos] = rw[v * max_per + e] * scale;
            ++pos;
        }
    }
    if (!st) {
        rig->weight_offsets[nverts] = pos;
        if (zero_rows)
            skf_warn(warnings, "%s: skin %d: %zu vertices have no weight; each bound to its first JOINTS_0 joint",
                     path, skin, zero_rows);
        if (off_sum)
            skf_warn(warnings, "%s: skin %d: %zu vertices have weights not summing to 1 (worst |sum-1| %.3g)%s",
                     path, skin, off_sum, worst,
                     (opt && opt->keep_raw_weights) ? "" : "; renormalised");
        for (size_t e = 0; e < pos; ++e)
            if (rig->weights[e] > 0)
                rig->joints[rig->weight_joints[e]].has_weight = true;
    }
    skf_free(rj);
    skf_free(rw);
    skf_free(rn);
    skf_free(first_joint);
    skf_free(att_joint);
    skf_free(surf);
    skf_free(att_m2b);
    skf_free(att_b2n);
    skf_free(joint_of_node);
    return st;
}

skf_status skf_rig_from_gltf(const skf_gltf *doc, int skin, const skf_rig_options *opt,
                             skf_rig **out, skf_warnings *warnings, skf_error *err)
{
    *out = NULL;
    if (skin < -1 || (skin >= 0 && (size_t)skin >= doc->skin_count))
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: skin %d out of range (%zu skins)",
                        doc->path ? doc->path : "glTF", skin, doc->skin_count);
    skf_rig *rig = skf_calloc(1, sizeof *rig);
    if (!rig)
        return skf_fail(err, SKF_ERR_NOMEM, "out of memory");
    rig->skin = skin;
    rig->limits = doc->limits;
    skf_status st = build(doc, skin, opt, rig, warnings, err);
    if (st) {
        skf_rig_free(rig);
        return st;
    }
    *out = rig;
    return SKF_OK;
}
