/* Deformation transfer: carry the source's per-triangle deformation onto a
 * registered target of another shape.
 *
 * Reference: Sumner & Popović, "Deformation Transfer for Triangle Meshes"
 * (SIGGRAPH 2004). Per source triangle the deformation gradient
 * Q = Ṽ V⁻¹ with V = [v₂−v₁, v₃−v₁, v₄−v₁], v₄ = v₁ + (v₂−v₁)×(v₃−v₁) /
 * √‖(v₂−v₁)×(v₃−v₁)‖ (their eq. 3–4); each target triangle takes the
 * gradient of the source triangle it corresponds to, and the target's
 * vertex positions are found in least squares with the matrix factored once
 * and one back-substitution per frame (their §4).
 *
 * Our form of the least squares (docs/transfer.md "Deformation transfer"):
 *   E(x) = Σ_edges w_ij ‖(x_i − x_j) − Q_ij (r_i − r_j)‖² + μ Σ_v ‖x_v − c_v‖²
 * r: target rest, Q_ij: mean of the gradients of i and j (a vertex's
 * gradient: area-weighted mean of its matched triangles'; vertices without
 * one take their nearest matched neighbour's along the mesh), c: the
 * closest-point carried positions (the screening term; μ small so only the
 * placement of each part, not its shape, comes from c). Edge form instead of
 * the paper's per-triangle gradient form: it needs no fourth vertex on the
 * target, tolerates degenerate target triangles, and lets separate pieces of
 * one mesh (legs modelled as their own tubes, eyes) be glued by extra edges
 * between vertices of different pieces that are closer than 2 mean edge
 * lengths at rest — without glue each piece would float on its own anchor.
 * The normal matrix Σ w (e_i − e_j)(e_i − e_j)ᵀ + μ I is the same for the
 * three coordinates: one CHOLMOD factorisation per target, three right-hand
 * sides per frame.
 */
#include "skinfit/surface.h"
#include "skinfit/math.h"

#include "surface_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct skf_deformation_transfer {
    size_t ns, nst, nt, ntt, ne;
    uint32_t *stri;            /* [nst*3] source triangles (copy) */
    double *sinv;              /* [nst*9] V⁻¹ per source triangle (column-major), 0 for degenerate */
    uint32_t *tri_source;      /* [ntt] source triangle of each target triangle, UINT32_MAX unmatched */
    size_t *vt_off;            /* [nt+1] matched triangles of each target vertex */
    uint32_t *vt_tri;
    double *vt_w;              /* area weights */
    uint32_t *order, *parent;  /* vertices without a gradient: in BFS order, take parent's */
    size_t norder;
    uint32_t *ttri;            /* [ntt*3] target triangles (copy) */
    double *trest;             /* [nt*3] target rest (copy) */
    double *qtri;              /* [ntt*9] per-frame target triangle gradients */
    uint32_t *ei, *ej;         /* [ne] glue edges */
    double *ew;
    double *ed;                /* [ne*3] glue: r_i − r_j − (c⁰_i − c⁰_j), c⁰ the anchors at rest */
    double L[9], Linv[9];      /* linear part of target_to_source and its inverse */
    double mu;
    double *mu_v;              /* [nt] μ (ε + a_v): the screening weight of each vertex */
    double *rc0;               /* [nt*3] r − c⁰: rest minus the anchors at rest */
    skf_spd *spd;
    double *qs;                /* [nst*9] per-frame source gradients */
    double *qt;                /* [nt*9] per-frame vertex gradients */
    double *rhs;               /* [nt*3] column-major */
    size_t glue_edges;
};

void skf_deformation_transfer_free(skf_deformation_transfer *dt)
{
    if (!dt)
        return;
    skf_free(dt->stri);
    skf_free(dt->ttri);
    skf_free(dt->trest);
    skf_free(dt->qtri);
    skf_free(dt->sinv);
    skf_free(dt->tri_source);
    skf_free(dt->vt_off);
    skf_free(dt->vt_tri);
    skf_free(dt->vt_w);
    skf_free(dt->order);
    skf_free(dt->parent);
    skf_free(dt->ei);
    skf_free(dt->ej);
    skf_free(dt->ew);
    skf_free(dt->ed);
    skfi_spd_free(dt->spd);
    skf_free(dt->qs);
    skf_free(dt->qt);
    skf_free(dt->rhs);
    skf_free(dt->mu_v);
    skf_free(dt->rc0);
    skf_free(dt);
}

/* m = a · b, 3x3 column-major */
static void mul33(double m[9], const double a[9], const double b[9])
{
    double r[9];
    for (int c = 0; c < 3; ++c)
        for (int row = 0; row < 3; ++row)
            r[c * 3 + row] = a[row] * b[c * 3] + a[3 + row] * b[c * 3 + 1] + a[6 + row] * b[c * 3 + 2];
    memcpy(m, r, sizeof r);
}

static bool inv33(double out[9], const double m[9])
{
    double a = m[0], b = m[3], c = m[6], d = m[1], e = m[4], f = m[7], g = m[2], h = m[5], i = m[8];
    double A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
    double det = a * A + b * B + c * C;
    if (!(fabs(det) > 0) || !isfinite(det))
        return false;
    double inv[9] = {A, B, C, -(b * i - c * h), a * i - c * g, -(a * h - b * g), b * f - c * e, -(a * f - c * d),
                     a * e - b * d};
    /* inv above is the adjugate in row-major; transpose into column-major */
    out[0] = inv[0] / det, out[3] = inv[3] / det, out[6] = inv[6] / det;
    out[1] = inv[1] / det, out[4] = inv[4] / det, out[7] = inv[7] / det;
    out[2] = inv[2] / det, out[5] = inv[5] / det, out[8] = inv[8] / det;
    return true;
}

/* V = [v2−v1, v3−v1, v4−v1] of triangle f (Sumner & Popović eq. 3). */
static void edge_frame(const double *p, const uint32_t *f, double V[9])
{
    double e1[3], e2[3], n[3];
    for (int a = 0; a < 3; ++a) {
        e1[a] = p[3 * f[1] + a] - p[3 * f[0] + a];
        e2[a] = p[3 * f[2] + a] - p[3 * f[0] + a];
    }
    skf_cross3(n, e1, e2);
    double l = sqrt(skf_norm3(n));
    for (int a = 0; a < 3; ++a) {
        V[a] = e1[a];
        V[3 + a] = e2[a];
        V[6 + a] = l > 0 ? n[a] / l : 0;
    }
}

static uint32_t uf_find(uint32_t *p, uint32_t x)
{
    while (p[x] != x) {
        p[x] = p[p[x]];
        x = p[x];
    }
    return x;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct cell_key {
    uint64_t key;
    uint32_t v;
} cell_key;

static int cmp_cell(const void *a, const void *b)
{
    const cell_key *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}

static uint64_t cell_hash(int64_t x, int64_t y, int64_t z)
{
    return ((uint64_t)(x & 0x1fffff) << 42) | ((uint64_t)(y & 0x1fffff) << 21) | (uint64_t)(z & 0x1fffff);
}

skf_status skf_deformation_transfer_new(const double *source_rest, size_t source_vertex_count,
                                        const uint32_t *source_triangles, size_t source_triangle_count,
                                        const double *target_rest, size_t target_vertex_count,
                                        const uint32_t *target_triangles, size_t target_triangle_count,
                                        const skf_registration *reg, const double target_to_source[16],
                                        const skf_dt_options *options, skf_deformation_transfer **out,
                                        skf_error *err)
{
    *out = NULL;
    size_t ns = source_vertex_count, nst = source_triangle_count, nt = target_vertex_count,
           ntt = target_triangle_count;
    if (!reg || reg->count != nt)
        return skf_fail(err, SKF_ERR_ARGUMENT, "deformation transfer: the registration has %zu vertices, the target %zu",
                        reg ? reg->count : 0, nt);
    skf_deformation_transfer *dt = skf_calloc(1, sizeof *dt);
    if (!dt)
        return skf_fail(err, SKF_ERR_NOMEM, "deformation transfer: out of memory");
    dt->ns = ns, dt->nst = nst, dt->nt = nt, dt->ntt = ntt;
    dt->mu = options && options->screening > 0 ? options->screening : SKF_DT_DEFAULT_SCREENING;
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r)
            dt->L[c * 3 + r] = target_to_source[c * 4 + r];
    skf_status st = SKF_OK;
    skf_bvh *bvh = NULL;
    uint32_t *uf = NULL, *trip_r = NULL, *trip_c = NULL, *queue = NULL;
    double *trip_v = NULL, *deg = NULL;
    cell_key *cells = NULL;
    uint64_t *epairs = NULL;
    size_t *voff = NULL;
    uint32_t *vadj = NULL;
    bool *has_q = NULL;
    if (!inv33(dt->Linv, dt->L)) {
        st = skf_fail(err, SKF_ERR_NUMERIC, "deformation transfer: singular alignment");
        goto fail;
    }
    dt->stri = skf_malloc_array(nst * 3, sizeof(uint32_t));
    dt->sinv = skf_calloc(nst * 9, sizeof(double));
    dt->tri_source = skf_malloc_array(ntt ? ntt : 1, sizeof(uint32_t));
    dt->qs = skf_malloc_array(nst * 9, sizeof(double));
    dt->qt = skf_malloc_array(nt * 9, sizeof(double));
    dt->rhs = skf_malloc_array(nt * 3, sizeof(double));
    dt->mu_v = skf_malloc_array(nt, sizeof(double));
    dt->rc0 = skf_malloc_array(nt * 3, sizeof(double));
    dt->ttri = skf_malloc_array(ntt * 3 + 1, sizeof(uint32_t));
    dt->trest = skf_malloc_array(nt * 3, sizeof(double));
    dt->qtri = skf_malloc_array(ntt * 9 + 1, sizeof(double));
    uf = skf_malloc_array(nt, sizeof(uint32_t));
    has_q = skf_calloc(nt, sizeof(bool));
    if (!dt->stri || !dt->sinv || !dt->tri_source || !dt->qs || !dt->qt || !dt->rhs || !uf || !has_q || !dt->ttri ||
        !dt->trest || !dt->qtri || !dt->mu_v || !dt->rc0) {
        st = skf_fail(err, SKF_ERR_NOMEM, "deformation transfer: %zu target vertices: out of memory", nt);
        goto fail;
    }
    memcpy(dt->stri, source_triangles, nst * 3 * sizeof(uint32_t));
    memcpy(dt->ttri, target_triangles, ntt * 3 * sizeof(uint32_t));
    memcpy(dt->trest, target_rest, nt * 3 * sizeof(double));
    {
        const double *aw = options ? options->anchor_weight : NULL;
        for (size_t v = 0; v < nt; ++v)
            dt->mu_v[v] = dt->mu * (aw ? SKF_DT_ANCHOR_FLOOR + (isfinite(aw[v]) && aw[v] > 0 ? aw[v] : 0) : 1);
    }
    for (size_t t = 0; t < nst; ++t) {
        double V[9];
        edge_frame(source_rest, source_triangles + 3 * t, V);
        if (!inv33(dt->sinv + 9 * t, V))
            memset(dt->sinv + 9 * t, 0, 9 * sizeof(double));
    }
    /* target triangle → source triangle: the registered centroid's closest */
    st = skf_bvh_build(source_rest, ns, source_triangles, nst, &bvh, err);
    if (st)
        goto fail;
#pragma omp parallel for schedule(dynamic, 256)
    for (size_t t = 0; t < ntt; ++t) {
        const uint32_t *f = target_triangles + 3 * t;
        if (!reg->matched[f[0]] || !reg->matched[f[1]] || !reg->matched[f[2]]) {
            dt->tri_source[t] = UINT32_MAX;
            continue;
        }
        double c[3];
        for (int a = 0; a < 3; ++a)
            c[a] = (reg->deformed[3 * f[0] + a] + reg->deformed[3 * f[1] + a] + reg->deformed[3 * f[2] + a]) / 3;
        skf_surface_point q;
        skf_bvh_closest(bvh, c, &q);
        dt->tri_source[t] = q.triangle;
    }
    /* matched triangles per vertex, area-weighted */
    dt->vt_off = skf_calloc(nt + 1, sizeof(size_t));
    if (!dt->vt_off) {
        st = skf_fail(err, SKF_ERR_NOMEM, "deformation transfer: out of memory");
        goto fail;
    }
    for (size_t t = 0; t < ntt; ++t)
        if (dt->tri_source[t] != UINT32_MAX)
            for (int k = 0; k < 3; ++k)
                dt->vt_off[target_triangles[3 * t + k] + 1]++;
    for (size_t v = 0; v < nt; ++v)
        dt->vt_off[v + 1] += dt->vt_off[v];
    size_t nvt = dt->vt_off[nt];
    dt->vt_tri = skf_malloc_array(nvt + 1, sizeof(uint32_t));
    dt->vt_w = skf_malloc_array(nvt + 1, sizeof(double));
    size_t *fill = skf_calloc(nt + 1, sizeof(size_t));
    if (!dt->vt_tri || !dt->vt_w || !fill) {
        skf_free(fill);
        st = skf_fail(err, SKF_ERR_NOMEM, "deformation transfer: out of memory");
        goto fail;
    }
    for (size_t t = 0; t < ntt; ++t) {
        if (dt->tri_source[t] == UINT32_MAX)
            continue;
        const uint32_t *f = target_triangles + 3 * t;
        double e1[3], e2[3], cr[3];
        for (int a = 0; a < 3; ++a) {
            e1[a] = target_rest[3 * f[1] + a] - target_rest[3 * f[0] + a];
            e2[a] = target_rest[3 * f[2] + a] - target_rest[3 * f[0] + a];
        }
        skf_cross3(cr, e1, e2);
        double ar = skf_norm3(cr) + 1e-300;
        for (int k = 0; k < 3; ++k) {
            size_t i = dt->vt_off[f[k]] + fill[f[k]]++;
            dt->vt_tri[i] = (uint32_t)t;
            dt->vt_w[i] = ar;
        }
    }
    for (size_t v = 0; v < nt; ++v) {
        double s = 0;
        for (size_t i = dt->vt_off[v]; i < dt->vt_off[v + 1]; ++i)
            s += dt->vt_w[i];
        for (size_t i = dt->vt_off[v]; i < dt->vt_off[v + 1]; ++i)
            dt->vt_w[i] /= s;
        has_q[v] = dt->vt_off[v + 1] > dt->vt_off[v];
    }
    skf_free(fill);
    /* mesh edges (unique) and connected pieces */
    epairs = skf_malloc_array(3 * ntt + 1, sizeof(uint64_t));
    if (!epairs) {
        st = skf_fail(err, SKF_ERR_NOMEM, "deformation transfer: out of memory");
        goto fail;
    }
    for (size_t v = 0; v < nt; ++v)
        uf[v] = (uint32_t)v;
    size_t np = 0;
    for (size_t t = 0; t < ntt; ++t)
        for (int k = 0; k < 3; ++k) {
            uint64_t a = target_triangles[3 * t + k], b = target_triangles[3 * t + (k + 1) % 3];
            if (a == b)
                continue;
            if (a > b) {
                uint64_t x = a;
                a = b;
                b = x;
            }
            epairs[np++] = (a << 32) | b;
            uint32_t ra = uf_find(uf, (uint32_t)a), rb = uf_find(uf, (uint32_t)b);
            if (ra != rb)
                uf[ra > rb ? ra : rb] = ra < rb ? ra : rb;
        }
    qsort(epairs, np, sizeof *epairs, cmp_u64);
    size_t nme = 0;
    double elen = 0;
    for (size_t i = 0; i < np; ++i)
        if (nme == 0 || epairs[i] != epairs[nme - 1])
            epairs[nme++] = epairs[i];
    for (size_t i = 0; i < nme; ++i) {
        const double *a = target_rest + 3 * (epairs[i] >> 32), *b = target_rest + 3 * (epairs[i] & 0xffffffffu);
        double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
        elen += skf_norm3(d);
    }
    elen = nme ? elen / (double)nme : 1;
    /* glue: each vertex to its nearest vertex of another piece within 2
     * mean edge lengths (uniform grid of that cell size) */
    double cell = 2 * elen;
    cells = skf_malloc_array(nt, sizeof *cells);
    uint32_t *glue = skf_malloc_array(nt, sizeof(uint32_t));
    if (!cells || !glue) {
        skf_free(glue);
        st = skf_fail(err, SKF_ERR_NOMEM, "deformation transfer: out of memory");
        goto fail;
    }
    bool pieces = false;
    for (size_t v = 0; v < nt; ++v) {
        uf[v] = uf_find(uf, (uint32_t)v);
        if (uf[v] != uf[0])
            pieces = true;
    }
    size_t nglue = 0;
    if (pieces) {
        for (size_t v = 0; v < nt; ++v) {
            const double *p = target_rest + 3 * v;
            cells[v].key = cell_hash((int64_t)floor(p[0] / cell), (int64_t)floor(p[1] / cell), (int64_t)floor(p[2] / cell));
            cells[v].v = (uint32_t)v;
        }
        qsort(cells, nt, sizeof *cells, cmp_cell);
#pragma omp parallel for schedule(dynamic, 256)
        for (size_t v = 0; v < nt; ++v) {
            const double *p = target_rest + 3 * v;
            int64_t cx = (int64_t)floor(p[0] / cell), cy = (int64_t)floor(p[1] / cell), cz = (int64_t)floor(p[2] / cell);
            double best = cell * cell;
            uint32_t bv = UINT32_MAX;
            for (int dx = -1; dx <= 1; ++dx)
                for (int dy = -1; dy <= 1; ++dy)
                    for (int dz = -1; dz <= 1; ++dz) {
                        uint64_t key = cell_hash(cx + dx, cy + dy, cz + dz);
                        size_t lo = 0, hi = nt;
                        while (lo < hi) {
                            size_t mid = (lo + hi) / 2;
                            if (cells[mid].key < key)
                                lo = mid + 1;
                            else
                                hi = mid;
                        }
                        for (size_t i = lo; i < nt && cells[i].key == key; ++i) {
                            uint32_t w = cells[i].v;
                            if (uf[w] == uf[v])
                                continue;
                            const double *q = target_rest + 3 * (size_t)w;
                            double d[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
                            double dd = skf_dot3(d, d);
                            if (dd < best || (dd == best && w < bv)) {
                                best = dd;
                                bv = w;
                            }
                        }
                    }
            glue[v] = bv;
        }
        for (size_t v = 0; v < nt; ++v)
            nglue += glue[v] != UINT32_MAX;
    }
    dt->glue_edges = nglue;
    size_t nall = nme + nglue;
    dt->ne = nglue;
    dt->ei = skf_malloc_array(nall + 1, sizeof(uint32_t));
    dt->ej = skf_malloc_array(nall + 1, sizeof(uint32_t));
    dt->ew = skf_malloc_array(nall + 1, sizeof(double));
    dt->ed = skf_malloc_array(3 * nall + 3, sizeof(double));
    if (!dt->ei || !dt->ej || !dt->ew || !dt->ed) {
        skf_free(glue);
        st = skf_fail(err, SKF_ERR_NOMEM, "deformation transfer: %zu edges: out of memory", dt->ne);
        goto fail;
    }
    size_t e = 0; /* glue edges first (kept), then mesh edges (for the BFS only) */
    for (size_t v = 0; v < nt && pieces; ++v)
        if (glue[v] != UINT32_MAX) {
            dt->ei[e] = (uint32_t)v;
            dt->ej[e] = glue[v];
            ++e;
        }
    skf_free(glue);
    for (size_t i = 0; i < nme; ++i, ++e) {
        dt->ei[e] = (uint32_t)(epairs[i] >> 32);
        dt->ej[e] = (uint32_t)(epairs[i] & 0xffffffffu);
    }
    /* the anchors at rest: the registered source points, in target space */
    double s2t[16];
    skf_mat4_invert(s2t, target_to_source);
    for (size_t v = 0; v < nt; ++v) {
        double p[3] = {0, 0, 0}, c0[3];
        for (int q = 0; q < 3; ++q)
            for (int a = 0; a < 3; ++a)
                p[a] += reg->bary[3 * v + (size_t)q] * source_rest[3 * (size_t)reg->source_vertex[3 * v + (size_t)q] + a];
        skf_mat4_transform_point(c0, s2t, p);
        for (int a = 0; a < 3; ++a)
            dt->rc0[3 * v + a] = target_rest[3 * v + a] - c0[a];
    }
    for (e = 0; e < dt->ne; ++e) {
        dt->ew[e] = 1;
        uint32_t i = dt->ei[e], j = dt->ej[e];
        for (int a = 0; a < 3; ++a)
            dt->ed[3 * e + a] = dt->rc0[3 * (size_t)i + a] - dt->rc0[3 * (size_t)j + a];
    }
    /* vertices without a gradient: breadth-first from those with one */
    voff = skf_calloc(nt + 1, sizeof(size_t));
    vadj = skf_malloc_array(2 * nall + 1, sizeof(uint32_t));
    queue = skf_malloc_array(nt, sizeof(uint32_t));
    dt->order = skf_malloc_array(nt, sizeof(uint32_t));
    dt->parent = skf_malloc_array(nt, sizeof(uint32_t));
    size_t *vf = skf_calloc(nt + 1, sizeof(size_t));
    if (!voff || !vadj || !queue || !dt->order || !dt->parent || !vf) {
        skf_free(vf);
        st = skf_fail(err, SKF_ERR_NOMEM, "deformation transfer: out of memory");
        goto fail;
    }
    for (e = 0; e < nall; ++e) {
        voff[dt->ei[e] + 1]++;
        voff[dt->ej[e] + 1]++;
    }
    for (size_t v = 0; v < nt; ++v)
        voff[v + 1] += voff[v];
    for (e = 0; e < nall; ++e) {
        vadj[voff[dt->ei[e]] + vf[dt->ei[e]]++] = dt->ej[e];
        vadj[voff[dt->ej[e]] + vf[dt->ej[e]]++] = dt->ei[e];
    }
    skf_free(vf);
    size_t qh = 0, qt = 0;
    for (size_t v = 0; v < nt; ++v)
        if (has_q[v])
            queue[qt++] = (uint32_t)v;
    while (qh < qt) {
        uint32_t v = queue[qh++];
        for (size_t i = voff[v]; i < voff[v + 1]; ++i) {
            uint32_t w = vadj[i];
            if (has_q[w])
                continue;
            has_q[w] = true;
            dt->order[dt->norder] = w;
            dt->parent[dt->norder++] = v;
            queue[qt++] = w;
        }
    }
    /* the normal matrix: Σ over the 3 edges of every triangle and the glue
     * edges of (e_i − e_j)(e_i − e_j)ᵀ, + μ I (upper triangle) */
    size_t nz = 3 * ntt + dt->ne + nt;
    trip_r = skf_malloc_array(nz, sizeof(uint32_t));
    trip_c = skf_malloc_array(nz, sizeof(uint32_t));
    trip_v = skf_malloc_array(nz, sizeof(double));
    deg = skf_calloc(nt, sizeof(double));
    if (!trip_r || !trip_c || !trip_v || !deg) {
        st = skf_fail(err, SKF_ERR_NOMEM, "deformation transfer: system: out of memory");
        goto fail;
    }
    size_t k = 0;
    for (size_t t = 0; t < ntt; ++t)
        for (int q = 0; q < 3; ++q) {
            uint32_t i = target_triangles[3 * t + q], j = target_triangles[3 * t + (q + 1) % 3];
            if (i == j)
                continue;
            deg[i] += 1;
            deg[j] += 1;
            trip_r[k] = i < j ? i : j;
            trip_c[k] = i < j ? j : i;
            trip_v[k++] = -1;
        }
    for (e = 0; e < dt->ne; ++e) {
        uint32_t i = dt->ei[e], j = dt->ej[e];
        deg[i] += dt->ew[e];
        deg[j] += dt->ew[e];
        trip_r[k] = i < j ? i : j;
        trip_c[k] = i < j ? j : i;
        trip_v[k++] = -dt->ew[e];
    }
    for (size_t v = 0; v < nt; ++v) {
        trip_r[k] = trip_c[k] = (uint32_t)v;
        trip_v[k++] = deg[v] + dt->mu_v[v];
    }
    st = skfi_spd_factor(nt, k, trip_r, trip_c, trip_v, "deformation transfer", &dt->spd, err);
    if (st)
        goto fail;
    skf_bvh_free(bvh);
    skf_free(uf);
    skf_free(trip_r);
    skf_free(trip_c);
    skf_free(trip_v);
    skf_free(deg);
    skf_free(cells);
    skf_free(epairs);
    skf_free(voff);
    skf_free(vadj);
    skf_free(queue);
    skf_free(has_q);
    *out = dt;
    return SKF_OK;
fail:
    skf_bvh_free(bvh);
    skf_free(uf);
    skf_free(trip_r);
    skf_free(trip_c);
    skf_free(trip_v);
    skf_free(deg);
    skf_free(cells);
    skf_free(epairs);
    skf_free(voff);
    skf_free(vadj);
    skf_free(queue);
    skf_free(has_q);
    skf_deformation_transfer_free(dt);
    return st;
}

size_t skf_deformation_transfer_glue_edges(const skf_deformation_transfer *dt)
{
    return dt->glue_edges;
}

skf_status skf_deformation_transfer_frame(skf_deformation_transfer *dt, const double *source_frame,
                                          const double *anchor, double *x, skf_error *err)
{
    size_t nt = dt->nt;
    /* source gradients Q = Ṽ V⁻¹, taken into the target's space: L⁻¹ Q L */
#pragma omp parallel for schedule(static)
    for (size_t t = 0; t < dt->nst; ++t) {
        double V[9], Q[9];
        edge_frame(source_frame, dt->stri + 3 * t, V);
        mul33(Q, V, dt->sinv + 9 * t);
        mul33(Q, dt->Linv, Q);
        mul33(dt->qs + 9 * t, Q, dt->L);
    }
#pragma omp parallel for schedule(static)
    for (size_t v = 0; v < nt; ++v) {
        double *q = dt->qt + 9 * v;
        memset(q, 0, 9 * sizeof(double));
        for (size_t i = dt->vt_off[v]; i < dt->vt_off[v + 1]; ++i) {
            const double *s = dt->qs + 9 * (size_t)dt->tri_source[dt->vt_tri[i]];
            double w = dt->vt_w[i];
            for (int a = 0; a < 9; ++a)
                q[a] += w * s[a];
        }
        if (dt->vt_off[v + 1] == dt->vt_off[v])
            q[0] = q[4] = q[8] = 1; /* no matched neighbour at all: rest orientation */
    }
    for (size_t k = 0; k < dt->norder; ++k)
        memcpy(dt->qt + 9 * (size_t)dt->order[k], dt->qt + 9 * (size_t)dt->parent[k], 9 * sizeof(double));
    double *b = dt->rhs;
    for (size_t v = 0; v < nt; ++v)
        for (int a = 0; a < 3; ++a)
            b[a * nt + v] = dt->mu_v[v] * (anchor[3 * v + a] + dt->rc0[3 * v + a]);
#pragma omp parallel for schedule(static)
    for (size_t t = 0; t < dt->ntt; ++t) {
        double *q = dt->qtri + 9 * t;
        if (dt->tri_source[t] != UINT32_MAX) {
            memcpy(q, dt->qs + 9 * (size_t)dt->tri_source[t], 9 * sizeof(double));
        } else {
            const uint32_t *f = dt->ttri + 3 * t;
            for (int a = 0; a < 9; ++a)
                q[a] = (dt->qt[9 * f[0] + a] + dt->qt[9 * f[1] + a] + dt->qt[9 * f[2] + a]) / 3;
        }
    }
    for (size_t t = 0; t < dt->ntt; ++t) {
        const double *q = dt->qtri + 9 * t;
        for (int k = 0; k < 3; ++k) {
            uint32_t i = dt->ttri[3 * t + k], j = dt->ttri[3 * t + (k + 1) % 3];
            const double *ri = dt->trest + 3 * (size_t)i, *rj = dt->trest + 3 * (size_t)j;
            double d[3] = {ri[0] - rj[0], ri[1] - rj[1], ri[2] - rj[2]};
            for (int a = 0; a < 3; ++a) {
                double g = q[a] * d[0] + q[3 + a] * d[1] + q[6 + a] * d[2];
                b[a * nt + i] += g;
                b[a * nt + j] -= g;
            }
        }
    }
    for (size_t e = 0; e < dt->ne; ++e) {
        uint32_t i = dt->ei[e], j = dt->ej[e];
        /* glue: the pieces keep their rest offset, changed as the anchors'
         * offset changes: x_i − x_j = (r_i − r_j) + (c_i − c_j) − (c⁰_i − c⁰_j),
         * a local relation that survives proportion changes */
        double w = dt->ew[e];
        for (int a = 0; a < 3; ++a) {
            double g = w * (dt->ed[3 * e + a] + anchor[3 * (size_t)i + a] - anchor[3 * (size_t)j + a]);
            b[a * nt + i] += g;
            b[a * nt + j] -= g;
        }
    }
    skf_status st = skfi_spd_solve(dt->spd, b, 3, b, err);
    if (st)
        return st;
    for (size_t v = 0; v < nt; ++v)
        for (int a = 0; a < 3; ++a)
            x[3 * v + a] = b[a * nt + v];
    return SKF_OK;
}
