/* FBX and Collada in, through Assimp (Debian libassimp-dev, its C API):
 * the aiScene becomes the same in-memory glTF document that skf_gltf_load
 * gives, built with the document builder, so everything downstream (rig,
 * clips, transfer, render, decompose) works unchanged (docs/fbx.md).
 *
 * Reference: Assimp's data structures (assimp/scene.h, mesh.h, anim.h):
 * aiNode::mTransformation is the local-to-parent matrix (row-major, column
 * vectors, translation in a4/b4/c4); aiBone::mOffsetMatrix maps the mesh's
 * bind space to the bone's, which is exactly glTF's inverse bind matrix
 * (skin matrix = joint_to_world × offset, the mesh node's own transform not
 * applied; glTF 2.0 §3.7.3.3); aiNodeAnim keys are in ticks, seconds = ticks
 * / mTicksPerSecond; aiQuaternion is stored (w, x, y, z).
 *
 * What is converted: the node tree (TRS from each matrix), every triangle
 * mesh (POSITION, one primitive per aiMesh), one skin holding every bone of
 * every mesh (a bone's offset must agree between the meshes that use it,
 * as it does when one object was split per material), meshes without bones
 * attached to their nodes, and every animation stack as a clip (LINEAR
 * translation, rotation and scale channels). Not converted (one warning
 * each): morph targets (aiAnimMesh), mesh-morph animations, cameras and
 * lights. Units and axes: Assimp applies neither for FBX, so the FBX
 * GlobalSettings (UnitScaleFactor, UpAxis) become one matrix above the root
 * node, turning the file into glTF's metres and +Y up (units_and_axes
 * below); Collada's <unit> and <up_axis> Assimp applies itself.
 */
#include "io/assimp_internal.h"

#include "skinfit/math.h"

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <strings.h>
#include <string.h>

bool skfi_is_assimp_path(const char *path)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    return dot && (!strcasecmp(dot, ".fbx") || !strcasecmp(dot, ".dae"));
}

/* column-major glTF matrix from Assimp's row-major one */
static void mat_from_ai(const struct aiMatrix4x4 *a, double m[16])
{
    const float r[16] = {a->a1, a->a2, a->a3, a->a4, a->b1, a->b2, a->b3, a->b4,
                         a->c1, a->c2, a->c3, a->c4, a->d1, a->d2, a->d3, a->d4};
    for (int row = 0; row < 4; ++row)
        for (int col = 0; col < 4; ++col)
            m[col * 4 + row] = r[row * 4 + col];
}

typedef struct conv {
    const struct aiScene *sc;
    double root_to_gltf[16];     /* units and axes: applied above the root node */
    const char *file;
    size_t max_depth;            /* the node-depth limit of this load */
    const skf_limits *limits;    /* this load's limits (NULL: process-wide) */
    skf_gltf *doc;
    skf_warnings *warn;
    skf_error *err;
    const struct aiNode **nodes; /* node index -> aiNode */
    size_t node_count, node_cap;
} conv;

static skf_status nomem(conv *c)
{
    return skf_fail(c->err, SKF_ERR_NOMEM, "%s: out of memory converting the scene", c->file);
}

static int node_by_name(const conv *c, const char *name)
{
    for (size_t i = 0; i < c->node_count; ++i)
        if (!strcmp(c->nodes[i]->mName.data, name))
            return (int)i;
    return -1;
}

/* depth-first, parents before children; the node tree depth is capped */
static skf_status add_nodes(conv *c, const struct aiNode *n, int parent, int depth)
{
    if ((size_t)depth > c->max_depth)
        return skf_fail(c->err, SKF_ERR_LIMIT, "%s: node %s: hierarchy deeper than %s", c->file, n->mName.data,
                        skf_limits_exceeded(c->limits, SKF_LIMIT_NODE_DEPTH).text);
    double m[16], t[3], q[4], s[3];
    mat_from_ai(&n->mTransformation, m);
    if (depth == 0) {
        double l[16];
        memcpy(l, m, sizeof l);
        skf_mat4_mul(m, c->root_to_gltf, l);
    }
    if (!skf_mat4_is_finite(m))
        return skf_fail(c->err, SKF_ERR_FORMAT, "%s: node %s: transform is not finite", c->file, n->mName.data);
    if (!skf_mat4_to_trs(m, t, q, s, 1e-3))
        skf_warn(c->warn, "%s: node %s: transform has shear; kept as its closest TRS", c->file, n->mName.data);
    if (c->node_count == c->node_cap) {
        size_t cap = c->node_cap ? 2 * c->node_cap : 64;
        const struct aiNode **nn = skf_realloc_array(c->nodes, cap, sizeof *nn);
        if (!nn)
            return nomem(c);
        c->nodes = nn;
        c->node_cap = cap;
    }
    int index;
    skf_status st = skf_gltf_add_node(c->doc, n->mName.length ? n->mName.data : NULL, parent, t, q, s, &index,
                                      c->err);
    if (st)
        return st;
    c->nodes[c->node_count++] = n;
    for (unsigned i = 0; i < n->mNumChildren; ++i)
        if ((st = add_nodes(c, n->mChildren[i], index, depth + 1)))
            return st;
    return SKF_OK;
}

/* The one skin: every bone of every mesh, by node; offsets must agree. */
typedef struct skin_build {
    int *joints;          /* node index per joint */
    float *ibm;           /* [J*16] */
    size_t count;
} skin_build;

static int joint_of(conv *c, skin_build *sk, const struct aiBone *b, unsigned mesh, skf_status *st)
{
    int node = node_by_name(c, b->mName.data);
    if (node < 0) {
        *st = skf_fail(c->err, SKF_ERR_FORMAT, "%s: meshes[%u]: bone %s: no node of that name", c->file, mesh,
                       b->mName.data);
        return -1;
    }
    double m[16];
    mat_from_ai(&b->mOffsetMatrix, m);
    for (size_t j = 0; j < sk->count; ++j)
        if (sk->joints[j] == node) {
            double d = 0, mag = 0;
            for (int k = 0; k < 16; ++k) {
                d = fmax(d, fabs(m[k] - sk->ibm[16 * j + k]));
                mag = fmax(mag, fabs(m[k]));
            }
            if (d > 1e-4 * fmax(mag, 1)) {
                *st = skf_fail(c->err, SKF_ERR_FORMAT,
                               "%s: meshes[%u]: bone %s: its bind matrix differs from another mesh's "
                               "(meshes bound at different poses are not supported)",
                               c->file, mesh, b->mName.data);
                return -1;
            }
            return (int)j;
        }
    if (!skf_mat4_is_finite(m)) {
        *st = skf_fail(c->err, SKF_ERR_FORMAT, "%s: meshes[%u]: bone %s: offset matrix is not finite", c->file,
                       mesh, b->mName.data);
        return -1;
    }
    sk->joints[sk->count] = node;
    for (int k = 0; k < 16; ++k)
        sk->ibm[16 * sk->count + k] = (float)m[k];
    return (int)sk->count++;
}

static skf_status set_node_member(conv *c, int node, const char *key, int value)
{
    json_t *nodes = json_object_get(c->doc->json, "nodes");
    json_t *n = json_array_get(nodes, (size_t)node);
    if (!n || json_object_set_new(n, key, json_integer(value)))
        return nomem(c);
    return SKF_OK;
}

/* Mesh k as a glTF mesh (one primitive): POSITION, indices, and with bones
 * JOINTS_n / WEIGHTS_n (n sets of 4 for the most influences on a vertex). */
static skf_status add_mesh(conv *c, unsigned k, skin_build *sk, int *mesh_index, bool *skinned)
{
    const struct aiMesh *m = c->sc->mMeshes[k];
    size_t V = m->mNumVertices;
    skf_status st = SKF_OK;
    *skinned = m->mNumBones > 0;
    if (V == 0 || !m->mVertices)
        return skf_fail(c->err, SKF_ERR_FORMAT, "%s: meshes[%u] (%s): no vertices", c->file, k, m->mName.data);
    if (m->mNumAnimMeshes)
        skf_warn(c->warn, "%s: meshes[%u] (%s): %u morph targets not read (FBX/Collada morphs are unsupported)",
                 c->file, k, m->mName.data, m->mNumAnimMeshes);
    size_t tri = 0;
    for (unsigned f = 0; f < m->mNumFaces; ++f)
        tri += m->mFaces[f].mNumIndices == 3;
    float *pos = skf_malloc_array(3 * V, sizeof *pos);
    uint32_t *idx = skf_malloc_array(3 * tri + 1, sizeof *idx);
    int *nw = skf_calloc(V, sizeof *nw);
    if (!pos || !idx || !nw) {
        st = nomem(c);
        goto done;
    }
    for (size_t v = 0; v < V; ++v) {
        pos[3 * v] = m->mVertices[v].x;
        pos[3 * v + 1] = m->mVertices[v].y;
        pos[3 * v + 2] = m->mVertices[v].z;
    }
    size_t t = 0;
    for (unsigned f = 0; f < m->mNumFaces; ++f) {
        const struct aiFace *fc = &m->mFaces[f];
        if (fc->mNumIndices != 3)
            continue;   /* points and lines (Triangulate made every polygon a triangle) */
        for (int a = 0; a < 3; ++a) {
            if (fc->mIndices[a] >= V) {
                st = skf_fail(c->err, SKF_ERR_FORMAT, "%s: meshes[%u].faces[%u]: vertex %u out of range (%zu)",
                              c->file, k, f, fc->mIndices[a], V);
                goto done;
            }
            idx[t++] = fc->mIndices[a];
        }
    }
    int a_pos, a_idx = -1;
    if ((st = skf_gltf_add_float_accessor(c->doc, pos, V, 3, 34962, true, &a_pos, c->err)))
        goto done;
    if (tri && (st = skf_gltf_add_uint_accessor(c->doc, idx, 3 * tri, 1, V < 65536 ? 5123 : 5125, 34963, &a_idx,
                                                c->err)))
        goto done;
    const char *names[1 + 2 * 4] = {"POSITION"};
    int accs[1 + 2 * 4] = {a_pos};
    size_t na = 1;
    if (*skinned) {
        /* influences per vertex, then the sets */
        int maxw = 0;
        for (unsigned b = 0; b < m->mNumBones; ++b)
            for (unsigned w = 0; w < m->mBones[b]->mNumWeights; ++w) {
                unsigned v = m->mBones[b]->mWeights[w].mVertexId;
                if (v >= V) {
                    st = skf_fail(c->err, SKF_ERR_FORMAT, "%s: meshes[%u].bones[%u] (%s): vertex %u out of range",
                                  c->file, k, b, m->mBones[b]->mName.data, v);
                    goto done;
                }
                if (m->mBones[b]->mWeights[w].mWeight > 0 && ++nw[v] > maxw)
                    maxw = nw[v];
            }
        if (maxw > 16) {
            st = skf_fail(c->err, SKF_ERR_LIMIT, "%s: meshes[%u]: a vertex has %d bone influences (at most 16)",
                          c->file, k, maxw);
            goto done;
        }
        size_t sets = maxw ? ((size_t)maxw + 3) / 4 : 1;
        uint32_t *jj = skf_calloc(V * 4 * sets, sizeof *jj);
        float *ww = skf_calloc(V * 4 * sets, sizeof *ww);
        if (!jj || !ww) {
            skf_free(jj);
            skf_free(ww);
            st = nomem(c);
            goto done;
        }
        memset(nw, 0, V * sizeof *nw);
        for (unsigned b = 0; b < m->mNumBones && !st; ++b) {
            int j = joint_of(c, sk, m->mBones[b], k, &st);
            for (unsigned w = 0; j >= 0 && w < m->mBones[b]->mNumWeights; ++w) {
                const struct aiVertexWeight *vw = &m->mBones[b]->mWeights[w];
                if (!(vw->mWeight > 0))
                    continue;
                size_t slot = (size_t)nw[vw->mVertexId]++;
                size_t set = slot / 4, at = vw->mVertexId * 4 + slot % 4;
                jj[set * V * 4 + at] = (uint32_t)j;
                ww[set * V * 4 + at] = vw->mWeight;
            }
        }
        static const char *jn[4] = {"JOINTS_0", "JOINTS_1", "JOINTS_2", "JOINTS_3"};
        static const char *wn[4] = {"WEIGHTS_0", "WEIGHTS_1", "WEIGHTS_2", "WEIGHTS_3"};
        for (size_t s = 0; !st && s < sets; ++s) {
            int aj, aw;
            st = skf_gltf_add_uint_accessor(c->doc, jj + s * V * 4, V, 4, 5123, 34962, &aj, c->err);
            if (!st)
                st = skf_gltf_add_float_accessor(c->doc, ww + s * V * 4, V, 4, 34962, false, &aw, c->err);
            if (!st) {
                names[na] = jn[s];
                accs[na++] = aj;
                names[na] = wn[s];
                accs[na++] = aw;
            }
        }
        skf_free(jj);
        skf_free(ww);
        if (st)
            goto done;
    }
    st = skf_gltf_add_mesh(c->doc, m->mName.length ? m->mName.data : NULL, names, accs, na, a_idx, mesh_index,
                           c->err);
done:
    skf_free(pos);
    skf_free(idx);
    skf_free(nw);
    return st;
}

/* aiNode n's meshes: one glTF node per mesh beyond the first (glTF nodes
 * carry one mesh), children of n's node so they move with it. */
static skf_status add_meshes(conv *c, skin_build *sk, int *skin_users, size_t *skin_user_count)
{
    skf_status st = SKF_OK;
    size_t N = c->node_count;
    for (size_t i = 0; i < N && !st; ++i) {
        const struct aiNode *n = c->nodes[i];
        for (unsigned k = 0; k < n->mNumMeshes && !st; ++k) {
            unsigned mi = n->mMeshes[k];
            if (mi >= c->sc->mNumMeshes)
                return skf_fail(c->err, SKF_ERR_FORMAT, "%s: node %s: mesh %u out of range", c->file, n->mName.data,
                                mi);
            int mesh, node = (int)i;
            bool skinned;
            if ((st = add_mesh(c, mi, sk, &mesh, &skinned)))
                return st;
            if (k > 0 && (st = skf_gltf_add_node(c->doc, c->sc->mMeshes[mi]->mName.data, (int)i, NULL, NULL, NULL,
                                                 &node, c->err)))
                return st;
            if ((st = set_node_member(c, node, "mesh", mesh)))
                return st;
            if (skinned)
                skin_users[(*skin_user_count)++] = node;
        }
    }
    return st;
}

static skf_status add_animation(conv *c, unsigned a)
{
    const struct aiAnimation *an = c->sc->mAnimations[a];
    double tps = an->mTicksPerSecond > 0 ? an->mTicksPerSecond : 25;
    if (!(an->mTicksPerSecond > 0))
        skf_warn(c->warn, "%s: animations[%u] (%s): no tick rate; 25 ticks per second assumed", c->file, a,
                 an->mName.data);
    if (an->mNumMeshChannels || an->mNumMorphMeshChannels)
        skf_warn(c->warn, "%s: animations[%u] (%s): mesh / morph channels not read", c->file, a, an->mName.data);
    size_t total = 0;
    for (unsigned i = 0; i < an->mNumChannels; ++i) {
        const struct aiNodeAnim *ch = an->mChannels[i];
        total += ch->mNumPositionKeys * 4 + ch->mNumRotationKeys * 5 + ch->mNumScalingKeys * 4;
    }
    float *buf = skf_malloc_array(total + 1, sizeof *buf);
    skf_gltf_new_channel *chs = skf_malloc_array(3 * (size_t)an->mNumChannels + 1, sizeof *chs);
    if (!buf || !chs) {
        skf_free(buf);
        skf_free(chs);
        return nomem(c);
    }
    float *p = buf;
    size_t nc = 0;
    skf_status st = SKF_OK;
    for (unsigned i = 0; i < an->mNumChannels && !st; ++i) {
        const struct aiNodeAnim *ch = an->mChannels[i];
        int node = node_by_name(c, ch->mNodeName.data);
        if (node < 0) {
            skf_warn(c->warn, "%s: animations[%u] (%s): channel for node %s, which does not exist; ignored", c->file,
                     a, an->mName.data, ch->mNodeName.data);
            continue;
        }
        struct {
            unsigned n;
            skf_gltf_path path;
            size_t width;
        } parts[3] = {{ch->mNumPositionKeys, SKF_PATH_TRANSLATION, 3},
                      {ch->mNumRotationKeys, SKF_PATH_ROTATION, 4},
                      {ch->mNumScalingKeys, SKF_PATH_SCALE, 3}};
        for (int q = 0; q < 3; ++q) {
            unsigned n = parts[q].n;
            if (!n)
                continue;
            float *times = p, *vals = p + n;
            double prev[4] = {0, 0, 0, 1};
            for (unsigned k = 0; k < n; ++k) {
                double time = q == 0 ? ch->mPositionKeys[k].mTime
                            : q == 1 ? ch->mRotationKeys[k].mTime : ch->mScalingKeys[k].mTime;
                times[k] = (float)(time / tps);
                if (k && !(times[k] > times[k - 1])) {
                    st = skf_fail(c->err, SKF_ERR_FORMAT, "%s: animations[%u] (%s): node %s: key %u: time %g s not "
                                  "after the previous key", c->file, a, an->mName.data, ch->mNodeName.data, k,
                                  (double)times[k]);
                    break;
                }
                float *v = vals + k * parts[q].width;
                if (q == 0) {
                    v[0] = ch->mPositionKeys[k].mValue.x, v[1] = ch->mPositionKeys[k].mValue.y;
                    v[2] = ch->mPositionKeys[k].mValue.z;
                } else if (q == 2) {
                    v[0] = ch->mScalingKeys[k].mValue.x, v[1] = ch->mScalingKeys[k].mValue.y;
                    v[2] = ch->mScalingKeys[k].mValue.z;
                } else {
                    /* (w, x, y, z) -> glTF (x, y, z, w), one hemisphere for LINEAR */
                    const struct aiQuaternion *r = &ch->mRotationKeys[k].mValue;
                    double qq[4] = {r->x, r->y, r->z, r->w};
                    skf_quat_normalize(qq);
                    if (qq[0] * prev[0] + qq[1] * prev[1] + qq[2] * prev[2] + qq[3] * prev[3] < 0)
                        for (int e = 0; e < 4; ++e)
                            qq[e] = -qq[e];
                    memcpy(prev, qq, sizeof prev);
                    for (int e = 0; e < 4; ++e)
                        v[e] = (float)qq[e];
                }
            }
            if (st)
                break;
            chs[nc++] = (skf_gltf_new_channel){node, parts[q].path, SKF_INTERP_LINEAR, n, times, vals,
                                               parts[q].width};
            p += n * (1 + parts[q].width);
        }
    }
    if (!st && nc)
        st = skf_gltf_add_animation(c->doc, an->mName.length ? an->mName.data : "clip", chs, nc, c->err);
    else if (!st)
        skf_warn(c->warn, "%s: animations[%u] (%s): no node channels; skipped", c->file, a, an->mName.data);
    skf_free(buf);
    skf_free(chs);
    return st;
}

static bool meta_number(const struct aiScene *sc, const char *key, double *out)
{
    const struct aiMetadata *md = sc->mMetaData;
    for (unsigned i = 0; md && i < md->mNumProperties; ++i) {
        if (strcmp(md->mKeys[i].data, key) || !md->mValues[i].mData)
            continue;
        switch (md->mValues[i].mType) {
        case AI_INT32: *out = *(const int32_t *)md->mValues[i].mData; return true;
        case AI_FLOAT: *out = *(const float *)md->mValues[i].mData; return true;
        case AI_DOUBLE: *out = *(const double *)md->mValues[i].mData; return true;
        default: return false;
        }
    }
    return false;
}

/* FBX units and axes (docs/fbx.md): GlobalSettings' UnitScaleFactor is
 * centimetres per file unit, and glTF's unit is the metre, so lengths scale
 * by UnitScaleFactor / 100 (Blender's FBX exporter writes centimetres, 1).
 * The up axis: Y (Blender's default export, Maya) needs nothing; +Z (3ds
 * Max, Blender with "Up: Z") is turned to +Y by −90° about X; another is
 * kept as it is, with a warning. Assimp itself applies neither for FBX. */
static void units_and_axes(conv *c)
{
    skf_mat4_identity(c->root_to_gltf);
    double usf, up, sign = 1;
    if (!meta_number(c->sc, "UnitScaleFactor", &usf))
        return;   /* not FBX (Collada: Assimp applies <unit> itself) */
    if (usf > 0 && isfinite(usf))
        for (int k = 0; k < 3; ++k)
            c->root_to_gltf[5 * k] = usf / 100;
    if (!meta_number(c->sc, "UpAxis", &up))
        return;
    meta_number(c->sc, "UpAxisSign", &sign);
    if (up == 2 && sign > 0) {
        double k = c->root_to_gltf[0];
        double r[16] = {k, 0, 0, 0, 0, 0, -k, 0, 0, k, 0, 0, 0, 0, 0, 1};
        memcpy(c->root_to_gltf, r, sizeof r);
    } else if (!(up == 1 && sign > 0)) {
        skf_warn(c->warn, "%s: FBX up axis %g (sign %g) kept as it is: glTF is +Y up", c->file, up, sign);
    }
}

static skf_status convert(conv *c)
{
    const struct aiScene *sc = c->sc;
    units_and_axes(c);
    if (!sc->mRootNode)
        return skf_fail(c->err, SKF_ERR_FORMAT, "%s: the scene has no nodes", c->file);
    if (sc->mNumCameras || sc->mNumLights)
        skf_warn(c->warn, "%s: %u cameras and %u lights not read", c->file, sc->mNumCameras, sc->mNumLights);
    skf_status st = add_nodes(c, sc->mRootNode, -1, 0);
    if (st)
        return st;
    size_t bones = 0, mesh_refs = 0;
    for (unsigned m = 0; m < sc->mNumMeshes; ++m)
        bones += sc->mMeshes[m]->mNumBones;
    for (size_t i = 0; i < c->node_count; ++i)
        mesh_refs += c->nodes[i]->mNumMeshes;
    skin_build sk = {skf_malloc_array(bones + 1, sizeof(int)), skf_malloc_array(16 * bones + 1, sizeof(float)), 0};
    int *users = skf_malloc_array(mesh_refs + 1, sizeof(int));
    size_t user_count = 0;
    if (!sk.joints || !sk.ibm || !users)
        st = nomem(c);
    if (!st)
        st = add_meshes(c, &sk, users, &user_count);
    if (!st && sk.count) {
        int a_ibm, skin;
        st = skf_gltf_add_float_accessor(c->doc, sk.ibm, sk.count, 16, 0, false, &a_ibm, c->err);
        if (!st)
            st = skf_gltf_add_skin(c->doc, "skin", sk.joints, sk.count, a_ibm, -1, &skin, c->err);
        for (size_t u = 0; !st && u < user_count; ++u)
            st = set_node_member(c, users[u], "skin", skin);
    }
    skf_free(sk.joints);
    skf_free(sk.ibm);
    skf_free(users);
    if (!st)
        st = skf_gltf_reparse(c->doc, c->warn, c->err);
    for (unsigned a = 0; !st && a < sc->mNumAnimations; ++a)
        st = add_animation(c, a);
    if (!st)
        st = skf_gltf_reparse(c->doc, c->warn, c->err);
    return st;
}

skf_status skfi_assimp_load_memory(const uint8_t *data, size_t size, const char *path,
                                   const skf_gltf_load_options *options, skf_gltf **out, skf_warnings *warnings,
                                   skf_error *err)
{
    *out = NULL;
    if (size > UINT_MAX)   /* Assimp's memory reader takes an unsigned int */
        return skf_fail(err, SKF_ERR_LIMIT, "%s: %zu bytes: Assimp reads at most %u bytes", path, size, UINT_MAX);
    const char *dot = strrchr(path, '.');
    struct aiPropertyStore *props = aiCreatePropertyStore();
    if (!props)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
    /* one node per FBX model (no $AssimpFbx$ pivot helpers) */
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, 0);
    const struct aiScene *sc = aiImportFileFromMemoryWithProperties(
        (const char *)data, (unsigned)size,
        aiProcess_Triangulate | aiProcess_JoinIdenticalVertices | aiProcess_SortByPType |
            aiProcess_ValidateDataStructure,
        dot ? dot + 1 : "",
        props);
    aiReleasePropertyStore(props);
    if (!sc)
        return skf_fail(err, SKF_ERR_FORMAT, "%s: %s", path, aiGetErrorString());
    if (sc->mFlags & AI_SCENE_FLAGS_INCOMPLETE) {
        aiReleaseImport(sc);
        return skf_fail(err, SKF_ERR_FORMAT, "%s: the scene is incomplete (Assimp read no usable meshes)", path);
    }
    const skf_limits *limits = options ? options->limits : NULL;
    conv c = {.sc = sc, .file = path, .max_depth = skf_limits_value(limits, SKF_LIMIT_NODE_DEPTH),
              .limits = limits, .warn = warnings, .err = err};
    skf_status st = skf_gltf_new_empty(path, &c.doc, err);
    if (!st && limits)
        c.doc->limits = *limits;
    if (!st)
        st = convert(&c);
    skf_free(c.nodes);
    aiReleaseImport(sc);
    if (st) {
        skf_gltf_free(c.doc);
        return st;
    }
    *out = c.doc;
    return SKF_OK;
}
