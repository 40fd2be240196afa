/* Welding: merge vertices that are identical for skinning — same position,
 * same weight row, same morph deltas — as flat-shaded exports duplicate every
 * surface point once per face (normals/UVs differ, geometry does not).
 * Exact comparison by a hash table keyed on the bit patterns; O(N·(1+T)).
 */
#include "skinfit/rig.h"

#include <string.h>

typedef struct weld_ctx {
    const skf_rig *rig;
    const uint32_t *part_of; /* [N] part index, UINT32_MAX when none */
    bool groups;             /* the rig has attached parts: weld within a group only */
} weld_ctx;

/* A vertex's group: -1 for the skinned primitives, else its attached node. */
static int group_of(const weld_ctx *c, size_t v)
{
    uint32_t p = c->part_of[v];
    if (p == UINT32_MAX || !c->rig->parts[p].attached)
        return -1;
    return c->rig->parts[p].node;
}

static double delta(const weld_ctx *c, size_t g, size_t v, int axis)
{
    uint32_t p = c->part_of[v];
    if (p == UINT32_MAX)
        return 0;
    const skf_rig_part *P = &c->rig->parts[p];
    if (!P->target_deltas || g < P->first_target || g >= P->first_target + P->target_count)
        return 0;
    return P->target_deltas[((g - P->first_target) * P->vertex_count + (v - P->first_vertex)) * 3 + (size_t)axis];
}

static uint64_t mix(uint64_t h, const void *data, size_t n)
{
    const uint8_t *b = data;
    for (size_t i = 0; i < n; ++i) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

static uint64_t vertex_hash(const weld_ctx *c, size_t v)
{
    const skf_rig *r = c->rig;
    uint64_t h = 1469598103934665603ull;
    for (int a = 0; a < 3; ++a) {
        double x = r->rest_positions[3 * v + (size_t)a] + 0.0; /* -0 == +0 */
        h = mix(h, &x, sizeof x);
    }
    for (size_t e = r->weight_offsets[v]; e < r->weight_offsets[v + 1]; ++e) {
        h = mix(h, &r->weight_joints[e], sizeof r->weight_joints[e]);
        double w = r->weights[e];
        h = mix(h, &w, sizeof w);
    }
    return h;
}

static bool same_vertex(const weld_ctx *c, size_t a, size_t b)
{
    const skf_rig *r = c->rig;
    if (c->groups && group_of(c, a) != group_of(c, b))
        return false;
    for (int k = 0; k < 3; ++k)
        if (r->rest_positions[3 * a + (size_t)k] != r->rest_positions[3 * b + (size_t)k])
            return false;
    size_t na = r->weight_offsets[a + 1] - r->weight_offsets[a];
    if (na != r->weight_offsets[b + 1] - r->weight_offsets[b])
        return false;
    for (size_t e = 0; e < na; ++e)
        if (r->weight_joints[r->weight_offsets[a] + e] != r->weight_joints[r->weight_offsets[b] + e] ||
            r->weights[r->weight_offsets[a] + e] != r->weights[r->weight_offsets[b] + e])
            return false;
    for (size_t g = 0; g < r->target_count; ++g)
        for (int k = 0; k < 3; ++k)
            if (delta(c, g, a, k) != delta(c, g, b, k))
                return false;
    return true;
}

skf_status skf_rig_weld(const skf_rig *rig, skf_rig **out, uint32_t **raw_to_welded, skf_error *err)
{
    *out = NULL;
    if (raw_to_welded)
        *raw_to_welded = NULL;
    size_t N = rig->vertex_count;
    size_t cap = 16;
    while (cap < 2 * N)
        cap *= 2;
    uint32_t *part_of = skf_malloc_array(N ? N : 1, sizeof *part_of);
    uint32_t *map = skf_malloc_array(N ? N : 1, sizeof *map);
    uint32_t *first_raw = skf_malloc_array(N ? N : 1, sizeof *first_raw); /* welded -> raw */
    uint32_t *table = skf_malloc_array(cap, sizeof *table);
    skf_rig *w = skf_calloc(1, sizeof *w);
    skf_status st = SKF_OK;
    if (!part_of || !map || !first_raw || !table || !w)
        st = skf_fail(err, SKF_ERR_NOMEM, "out of memory for welding %zu vertices", N);
    size_t nw = 0;
    if (!st) {
        w->limits = rig->limits;
        for (size_t v = 0; v < N; ++v)
            part_of[v] = UINT32_MAX;
        for (size_t p = 0; p < rig->part_count; ++p)
            for (size_t v = 0; v < rig->parts[p].vertex_count; ++v)
                part_of[rig->parts[p].first_vertex + v] = (uint32_t)p;
        for (size_t i = 0; i < cap; ++i)
            table[i] = UINT32_MAX;
        weld_ctx c = {rig, part_of, false};
        for (size_t p = 0; p < rig->part_count; ++p)
            c.groups |= rig->parts[p].attached;
        for (size_t v = 0; v < N; ++v) {
            size_t slot = (size_t)(vertex_hash(&c, v) & (cap - 1));
            for (;;) {
                uint32_t wv = table[slot];
                if (wv == UINT32_MAX) {
                    table[slot] = (uint32_t)nw;
                    first_raw[nw] = (uint32_t)v;
                    map[v] = (uint32_t)nw++;
                    break;
                }
                if (same_vertex(&c, first_raw[wv], v)) {
                    map[v] = wv;
                    break;
                }
                slot = (slot + 1) & (cap - 1);
            }
        }
    }
    /* The welded parts: one, or one per group (contiguous: welding stays
     * within a group and groups follow each other in raw order). */
    weld_ctx gc = {rig, part_of, false};
    for (size_t p = 0; p < rig->part_count; ++p)
        gc.groups |= rig->parts[p].attached;
    size_t nparts = 1;
    if (!st && gc.groups)
        for (size_t i = 1; i < nw; ++i)
            nparts += group_of(&gc, first_raw[i]) != group_of(&gc, first_raw[i - 1]);
    /* Build the welded rig. */
    if (!st) {
        w->skin = rig->skin;
        w->vertex_count = nw;
        size_t nnz = 0;
        for (size_t i = 0; i < nw; ++i)
            nnz += rig->weight_offsets[first_raw[i] + 1] - rig->weight_offsets[first_raw[i]];
        w->rest_positions = skf_malloc_array(nw ? nw * 3 : 1, sizeof(double));
        w->weight_offsets = skf_malloc_array(nw + 1, sizeof(size_t));
        w->weight_joints = skf_malloc_array(nnz ? nnz : 1, sizeof(uint32_t));
        w->weights = skf_malloc_array(nnz ? nnz : 1, sizeof(double));
        w->triangles = skf_malloc_array(rig->triangle_count ? rig->triangle_count * 3 : 1, sizeof(uint32_t));
        w->joints = skf_malloc_array(rig->joint_count ? rig->joint_count : 1, sizeof *w->joints);
        w->nodes = skf_calloc(rig->node_count ? rig->node_count : 1, sizeof *w->nodes);
        w->default_morph_weights = skf_malloc_array(rig->target_count ? rig->target_count : 1, sizeof(double));
        w->morph_target_node = skf_malloc_array(rig->target_count ? rig->target_count : 1, sizeof(int));
        w->parts = skf_calloc(nparts, sizeof *w->parts);
        if (!w->rest_positions || !w->weight_offsets || !w->weight_joints || !w->weights ||
            !w->triangles || !w->joints || !w->nodes || !w->default_morph_weights ||
            !w->morph_target_node || !w->parts)
            st = skf_fail(err, SKF_ERR_NOMEM, "out of memory for the welded rig");
    }
    if (!st) {
        size_t pos = 0;
        for (size_t i = 0; i < nw; ++i) {
            size_t v = first_raw[i];
            memcpy(w->rest_positions + 3 * i, rig->rest_positions + 3 * v, 3 * sizeof(double));
            w->weight_offsets[i] = pos;
            for (size_t e = rig->weight_offsets[v]; e < rig->weight_offsets[v + 1]; ++e, ++pos) {
                w->weight_joints[pos] = rig->weight_joints[e];
                w->weights[pos] = rig->weights[e];
            }
        }
        w->weight_offsets[nw] = pos;
        size_t nt = 0;
        for (size_t t = 0; t < rig->triangle_count; ++t) {
            uint32_t a = map[rig->triangles[3 * t]], b = map[rig->triangles[3 * t + 1]],
                     c = map[rig->triangles[3 * t + 2]];
            if (a == b || b == c || a == c)
                continue;
            w->triangles[3 * nt] = a;
            w->triangles[3 * nt + 1] = b;
            w->triangles[3 * nt + 2] = c;
            ++nt;
        }
        w->triangle_count = nt;
        w->joint_count = rig->joint_count;
        memcpy(w->joints, rig->joints, rig->joint_count * sizeof *w->joints);
        w->node_count = rig->node_count;
        for (size_t i = 0; i < rig->node_count && !st; ++i) {
            w->nodes[i] = rig->nodes[i];
            w->nodes[i].name = NULL;
            if (rig->nodes[i].name && !(w->nodes[i].name = skf_strdup(rig->nodes[i].name)))
                st = skf_fail(err, SKF_ERR_NOMEM, "out of memory");
        }
        w->target_count = rig->target_count;
        if (rig->target_count) {
            memcpy(w->default_morph_weights, rig->default_morph_weights, rig->target_count * sizeof(double));
            memcpy(w->morph_target_node, rig->morph_target_node, rig->target_count * sizeof(int));
        }
        w->part_count = nparts;
        for (size_t p = 0, i0 = 0; p < nparts; ++p) {
            size_t i1 = i0 + 1;
            if (nparts == 1)
                i1 = nw;
            else
                while (i1 < nw && group_of(&gc, first_raw[i1]) == group_of(&gc, first_raw[i0]))
                    ++i1;
            skf_rig_part *P = &w->parts[p];
            P->node = P->mesh = P->primitive = -1;
            P->first_vertex = i0;
            P->vertex_count = i1 - i0;
            P->target_count = rig->target_count;
            uint32_t rp = gc.groups && i0 < nw ? part_of[first_raw[i0]] : UINT32_MAX;
            if (rp != UINT32_MAX && rig->parts[rp].attached) {
                const skf_rig_part *R = &rig->parts[rp];
                P->node = R->node;
                P->mesh = R->mesh;
                P->attached = true;
                P->attached_joint = R->attached_joint;
                memcpy(P->bind_to_node, R->bind_to_node, sizeof P->bind_to_node);
            }
            size_t n = P->vertex_count;
            if (!st && rig->target_count && n) {
                P->target_deltas = skf_malloc_array(rig->target_count * n, 3 * sizeof(double));
                if (!P->target_deltas) {
                    st = skf_fail(err, SKF_ERR_NOMEM, "out of memory for morph targets");
                } else {
                    weld_ctx c = {rig, part_of, false};
                    for (size_t g = 0; g < rig->target_count; ++g)
                        for (size_t i = 0; i < n; ++i)
                            for (int k = 0; k < 3; ++k)
                                P->target_deltas[(g * n + i) * 3 + (size_t)k] = delta(&c, g, first_raw[i0 + i], k);
                }
            }
            i0 = i1;
        }
    }
    skf_free(part_of);
    skf_free(first_raw);
    skf_free(table);
    if (st) {
        skf_free(map);
        skf_rig_free(w);
        return st;
    }
    if (raw_to_welded)
        *raw_to_welded = map;
    else
        skf_free(map);
    *out = w;
    return SKF_OK;
}
