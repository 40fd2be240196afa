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
 *   E(x) = Σ_edges w_ij ‖(x_i − x_j) − Q_t (r_i − r_j)‖² + μ Σ_v (ε + a_v) ‖x_v − r_v − Δc_v‖²
 * r: target rest, Q_t: the gradient of the edge's triangle (unmatched
 * triangles: the mean of their vertices' gradients, propagated breadth-first
 * from matched ones), Δc: the displacement of the closest-point carried
 * position (the screening term; μ small so only the placement of each part,
 * not its shape, comes from it). Edge form instead of the paper's
 * per-triangle gradient form: it needs no fourth vertex on the target and
 * tolerates degenerate target triangles.
 *
 * Two ways to solve it:
 * - vertex space (no skinning given): x free per vertex; separate pieces of
 *   one mesh (legs modelled as their own tubes, eyes) are glued by extra
 *   edges between vertices of different pieces closer than 2 mean edge
 *   lengths at rest. The N×N normal matrix is the same for the three
 *   coordinates: one CHOLMOD factorisation, three right-hand sides a frame.
 * - the target's skinning subspace (the transfer's default): x = K m,
 *   x_v = Σ_b w_vb M_b [r_v; 1], unknowns the affine M_b (4 per bone and
 *   coordinate). The target is played by its own skinning in the end, so the
 *   gradients are fitted where the target can follow them; pieces are held
 *   by the bones they share, and pivots (the skeleton's joints) keep each
 *   bone and its parent moving the joint alike:
 *     + λ Σ_pivots ‖(M_a − M_b) [p; 1]‖², λ = κ · (mesh edges / pivots).
 *   Mesh edges are weighted w_ij = ε_w + (ρ_i ρ_j)⁴, ρ_v = the vertex's
 *   largest skin weight: the source's blend regions lie elsewhere on the
 *   target, so the gradients of rigidly bound regions set the rotations and
 *   the pivots the translations. Normal matrix Kᵀ A K + λ P (4B × 4B,
 *   dense), factored once (LAPACK dpotrf); per frame Kᵀ b, one dpotrs and
 *   x = K m.
 * Measured (tests/transfer/test_transfer_crossmesh): the subspace takes the
 * creature variants from 91.9–98.5 % quality to the figures in
 * docs/results.md; the floating legs of the vertex form (glued by offsets
 * the closest-point carrying gets wrong by the leg's extra length) were the
 * largest error.
 */
#include "skinfit/surface.h"
#include "skinfit/math.h"

#include "surface_internal.h"
#include "base/base_internal.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PIVOT_KAPPA 10.0   /* λ per pivot, in mesh edges per pivot */
#define RIGID_FLOOR 1e-3   /* ε_w: an edge between two blended vertices still counts a little */
#define SUBSPACE_RIDGE 1e-9 /* relative to the largest diagonal: bones without vertices stay at rest */
/* The subspace has 12 unknowns per bone: above this many target triangles
 * a stride sample of them (edge weights scaled by the inverse fraction)
 * carries the fit, so the per-frame cost stops growing with the triangles
 * (measured on the creature at 50k vertices, 100k triangles: the carried
 * surface's mean error 0.0883 % of the diagonal with and without it). */
#define SUBSPACE_MAX_TRIANGLES 32768
#define SLOT_UNMATCHED UINT32_MAX
#define SLOT_SKIPPED (UINT32_MAX - 1)

struct skf_deformation_transfer {
    size_t nt, ntt, nst;
    /* source side: used triangles only */
    size_t nused;
    uint32_t *used;            /* [nused] source triangles some target triangle takes */
    uint32_t *stri;            /* [nused*3] their vertices */
    double *sinv;              /* [nused*9] V⁻¹ L per used triangle (column-major), 0 if degenerate */
    double L[9], Linv[9];      /* linear part of target_to_source and its inverse */
    uint32_t *tri_slot;        /* [ntt] slot in used of each target triangle; SLOT_UNMATCHED,
                                  SLOT_SKIPPED (not in the subspace's triangle sample) */
    uint32_t *tl;              /* [ntl] the triangles of the least squares */
    size_t ntl;
    /* vertex gradients: area-weighted means of the matched triangles */
    size_t *vt_off;            /* [nt+1] */
    uint32_t *vt_tri;
    double *vt_w;
    uint32_t *order, *parent;  /* vertices without a gradient: in BFS order, take parent's
                                  (only those an unmatched triangle needs) */
    size_t norder;
    uint32_t *need;            /* [nneed] vertices with a gradient of their own that are needed */
    size_t nneed;
    uint32_t *ttri;            /* [ntt*3] target triangles (copy) */
    /* the triangles of the least squares in their order (tl), what the
     * frame reads of each, contiguous: */
    uint32_t *tl_tri;          /* [ntl*3] vertices */
    uint32_t *tl_slot;         /* [ntl] slot of the source triangle, SLOT_UNMATCHED */
    double *tl_p;              /* [ntl*9] matched: P = (V⁻¹ L) [w d₀ w d₁ w d₂] of their source triangle, so
                                  that the edge targets are L⁻¹ Ṽ P (L⁻¹ applied per vertex at the end);
                                  unmatched: [w d₀ w d₁ w d₂], d_q = r_i − r_j of edge q */
    double *ew;                /* [ntt*3] edge weights w_ij */
    double *mu_v;              /* [nt] μ (ε + a_v) */
    double *rc0;               /* [nt*3] r − c⁰: rest minus the anchors at rest */
    /* vertex space */
    size_t ne;                 /* glue edges */
    uint32_t *ei, *ej;
    double *ed;                /* [ne*3] r_i − r_j − (c⁰_i − c⁰_j) */
    skf_spd *spd;
    /* skinning subspace */
    size_t nb;                 /* bones (0: vertex space) */
    size_t *wo;                /* [nt+1] */
    uint32_t *wb;
    double *ww;                /* w_vb */
    double *kr;                /* [nt*3] r_v (the [r; 1] rows of K) */
    double *H;                 /* [4nb × 4nb] Cholesky factor (lower, column-major) */
    double *prior;             /* [4nb*3] ridge · identity + Kᵀ μ (r − c⁰), added to the reduced right-hand side */
    double *rm;                /* [4nb*3] reduced right-hand side, then the solution (column-major) */
    double *rmi;               /* [4nb*3] the same, bone-interleaved */
    /* per frame */
    double *vs;                /* [nused*9] Ṽ of the used source triangles */
    double *qt;                /* [nt*9] vertex gradients (target space; the needed ones) */
    double *rhs;               /* [nt*3] interleaved */
    double *rhs_cm;            /* [nt*3] column-major (vertex space) */
};

void skf_deformation_transfer_free(skf_deformation_transfer *dt)
{
    if (!dt)
        return;
    void *arrays[] = {dt->used,  dt->stri, dt->sinv, dt->tri_slot, dt->vt_off, dt->vt_tri, dt->vt_w, dt->order,
                      dt->parent, dt->ttri, dt->tl_tri, dt->ew,      dt->mu_v,   dt->rc0,    dt->ei,   dt->ej,
                      dt->ed,    dt->wo,   dt->wb,   dt->ww,       dt->kr,     dt->H,      dt->prior, dt->rm,    dt->rmi,
                      dt->vs,    dt->qt,   dt->rhs,  dt->rhs_cm,   dt->tl_p,   dt->need, dt->tl, dt->tl_slot};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i)
        skf_free(arrays[i]);
    skfi_spd_free(dt->spd);
    skf_free(dt);
}

/* m = a · b, 3x3 column-major */
static inline void mul33(double m[9], const double a[9], const double b[9])
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
static inline void edge_frame(const double *p, const uint32_t *f, double V[9])
{
    const double *a = p + 3 * (size_t)f[0], *b = p + 3 * (size_t)f[1], *c = p + 3 * (size_t)f[2];
    double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    double l = sqrt(sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]));
    double s = l > 0 ? 1 / l : 0;
    for (int k = 0; k < 3; ++k) {
        V[k] = e1[k];
        V[3 + k] = e2[k];
        V[6 + k] = n[k] * s;
    }
}

/* g = Q d, Q 3x3 column-major */
static inline void mul3v(double g[3], const double Q[9], const double d[3])
{
    for (int a = 0; a < 3; ++a)
        g[a] = Q[a] * d[0] + Q[3 + a] * d[1] + Q[6 + a] * d[2];
}

/* ---- the target triangles' source triangles and the vertex gradients ------ */

static skf_status map_triangles(skf_deformation_transfer *dt, const double *source_rest, size_t ns,
                                const uint32_t *source_triangles, const skf_registration *reg,
                                const double L[9], skf_error *err)
{
    size_t ntt = dt->ntt, nst = dt->nst, nt = dt->nt;
    skf_bvh *bvh = NULL;
    uint32_t *slot_of = skf_malloc_array(nst + 1, sizeof(uint32_t));
    dt->vt_off = skf_calloc(nt + 1, sizeof(size_t));
    if (!slot_of || !dt->vt_off) {
        skf_free(slot_of);
        return skf_fail(err, SKF_ERR_NOMEM, "deformation transfer: %zu triangles: out of memory", ntt);
    }
    skf_status st = skf_bvh_build(source_rest, ns, source_triangles, nst, &bvh, err);
    if (st) {
        skf_free(slot_of);
        return st;
    }
    /* target triangle → source triangle: the registered centroid's closest */
#pragma omp parallel for schedule(dynamic, 256)
    for (size_t t = 0; t < ntt; ++t) {
        const uint32_t *f = dt->ttri + 3 * t;
        if (dt->tri_slot[t] == SLOT_SKIPPED)
            continue;
        if (!reg->matched[f[0]] || !reg->matched[f[1]] || !reg->matched[f[2]]) {
            dt->tri_slot[t] = SLOT_UNMATCHED;
            continue;
        }
        double c[3];
        for (int a = 0; a < 3; ++a)
            c[a] = (reg->deformed[3 * f[0] + a] + reg->deformed[3 * f[1] + a] + reg->deformed[3 * f[2] + a]) / 3;
        skf_surface_point q;
        skf_bvh_closest(bvh, c, &q);
        dt->tri_slot[t] = q.triangle;
    }
    skf_bvh_free(bvh);
    /* the used source triangles, in source order: only their gradients are
     * computed per frame */
    for (size_t s = 0; s < nst; ++s)
        slot_of[s] = UINT32_MAX;
    for (size_t t = 0; t < ntt; ++t)
        if (dt->tri_slot[t] < SLOT_SKIPPED)
            slot_of[dt->tri_slot[t]] = 0;
    for (size_t s = 0; s < nst; ++s)
        if (slot_of[s] == 0)
            slot_of[s] = (uint32_t)dt->nused++;
    dt->used = skf_malloc_array(dt->nused + 1, sizeof(uint32_t));
    dt->stri = skf_malloc_array(3 * dt->nused + 1, sizeof(uint32_t));
    dt->sinv = skf_calloc(9 * dt->nused + 1, sizeof(double));
    dt->vs = skf_malloc_array(9 * dt->nused + 1, sizeof(double));
    if (!dt->used || !dt->stri || !dt->sinv || !dt->vs) {
        skf_free(slot_of);
        return skf_fail(err, SKF_ERR_NOMEM, "deformation transfer: out of memory");
    }
    for (size_t s = 0; s < nst; ++s)
        if (slot_of[s] != UINT32_MAX) {
            uint32_t k = slot_of[s];
            dt->used[k] = (uint32_t)s;
            memcpy(dt->stri + 3 * (size_t)k, source_triangles + 3 * s, 3 * sizeof(uint32_t));
            double V[9];
            edge_frame(source_rest, source_triangles + 3 * s, V);
            if (inv33(dt->sinv + 9 * (size_t)k, V)) /* V⁻¹ L: the gradient in target space is L⁻¹ Ṽ (V⁻¹ L) */
                mul33(dt->sinv + 9 * (size_t)k, dt->sinv + 9 * (size_t)k, L);
            else
                memset(dt->sinv + 9 * (size_t)k, 0, 9 * sizeof(double));
        }
    for (size_t t = 0; t < ntt; ++t)
        if (dt->tri_slot[t] < SLOT_SKIPPED)
            dt->tri_slot[t] = slot_of[dt->tri_slot[t]];
    skf_free(slot_of);
    /* matched triangles per vertex, area-weighted */
    for (size_t t = 0; t < ntt; ++t)
        if (dt->tri_slot[t] < SLOT_SKIPPED)
            for (int k = 0; k < 3; ++k)
                dt->vt_off[dt->ttri[3 * t + (size_t)k] + 1]++;
    for (size_t v = 0; v < nt; ++v)
        dt->vt_off[v + 1] += dt->vt_off[v];
    size_t nvt = dt->vt_off[nt];
    dt->vt_tri = skf_malloc_array(nvt + 1, sizeof(uint32_t));
    dt->vt_w = skf_malloc_array(nvt + 1, sizeof(double));
    size_t *fill = skf_calloc(nt + 1, sizeof(size_t));
    if (!dt->vt_tri || !dt->vt_w || !fill) {
        skf_free(fill);
        return skf_fail(err, SKF_ERR_NOMEM, "deformation transfer: out of memory");
    }
    for (size_t t = 0; t < ntt; ++t) {
        if (dt->tri_slot[t] >= SLOT_SKIPPED)
            continue;
        const uint32_t *f = dt->ttri + 3 * t;
        double cr[3];
        skfi_triangle_area_vector(dt->kr, f, cr);
        double ar = skf_norm3(cr) + 1e-300;
        for (int k = 0; k < 3; ++k) {
            size_t i = dt->vt_off[f[k]] + fill[f[k]]++;
            dt->vt_tri[i] = (uint32_t)t;
            dt->vt_w[i] = ar;
        }
    }
    skf_free(fill);
    for (size_t v = 0; v < nt; ++v) {
        double s = 0;
        for (size_t i = dt->vt_off[v]; i < dt->vt_off[v + 1]; ++i)
            s += dt->vt_w[i];
        for (size_t i = dt->vt_off[v]; i < dt->vt_off[v + 1]; ++i)
            dt->vt_w[i] /= s;
    }
    return SKF_OK;
}

/* Vertices without a gradient take their neighbour's, breadth-first from
 * those with one, over the mesh edges and the glue. */
static skf_status gradient_order(skf_deformation_transfer *dt, const uint64_t *edges, size_t nme, skf_error *err)
{
    size_t nt = dt->nt, nall = nme + dt->ne;
    size_t *voff = skf_calloc(nt + 1, sizeof(size_t)), *vf = skf_calloc(nt + 1, sizeof(size_t));
    uint32_t *vadj = skf_malloc_array(2 * nall + 1, sizeof(uint32_t)), *queue = skf_malloc_array(nt, sizeof(uint32_t));
    bool *has_q = skf_calloc(nt, sizeof(bool));
    dt->order = skf_malloc_array(nt, sizeof(uint32_t));
    dt->parent = skf_malloc_array(nt, sizeof(uint32_t));
    skf_status st = SKF_OK;
    if (!voff || !vf || !vadj || !queue || !has_q || !dt->order || !dt->parent) {
        st = skf_fail(err, SKF_ERR_NOMEM, "deformation transfer: out of memory");
        goto done;
    }
    for (size_t e = 0; e < nall; ++e) {
        uint32_t i = e < dt->ne ? dt->ei[e] : (uint32_t)(edges[e - dt->ne] >> 32);
        uint32_t j = e < dt->ne ? dt->ej[e] : (uint32_t)(edges[e - dt->ne] & 0xffffffffu);
        voff[i + 1]++;
        voff[j + 1]++;
    }
    for (size_t v = 0; v < nt; ++v)
        voff[v + 1] += voff[v];
    for (size_t e = 0; e < nall; ++e) {
        uint32_t i = e < dt->ne ? dt->ei[e] : (uint32_t)(edges[e - dt->ne] >> 32);
        uint32_t j = e < dt->ne ? dt->ej[e] : (uint32_t)(edges[e - dt->ne] & 0xffffffffu);
        vadj[voff[i] + vf[i]++] = j;
        vadj[voff[j] + vf[j]++] = i;
    }
    size_t qh = 0, qt = 0, nord = 0;
    for (size_t v = 0; v < nt; ++v)
        if (dt->vt_off[v + 1] > dt->vt_off[v]) {
            has_q[v] = true;
            queue[qt++] = (uint32_t)v;
        }
    while (qh < qt) {
        uint32_t v = queue[qh++];
        for (size_t i = voff[v]; i < voff[v + 1]; ++i) {
            uint32_t w = vadj[i];
            if (has_q[w])
                continue;
            has_q[w] = true;
            dt->order[nord] = w;
            dt->parent[nord++] = v;
            queue[qt++] = w;
        }
    }
    /* per frame only the gradients an unmatched triangle uses: its vertices,
     * and backwards along the order the parents they copy from */
    memset(has_q, 0, nt * sizeof(bool));
    for (size_t t = 0; t < dt->ntt; ++t)
        if (dt->tri_slot[t] == SLOT_UNMATCHED)
            for (int k = 0; k < 3; ++k)
                has_q[dt->ttri[3 * t + (size_t)k]] = true;
    for (size_t k = nord; k-- > 0;)
        if (has_q[dt->order[k]])
            has_q[dt->parent[k]] = true;
    for (size_t k = 0; k < nord; ++k)
        if (has_q[dt->order[k]]) {
            dt->order[dt->norder] = dt->order[k];
            dt->parent[dt->norder++] = dt->parent[k];
        }
    dt->need = skf_malloc_array(nt, sizeof(uint32_t));
    if (!dt->need) {
        st = skf_fail(err, SKF_ERR_NOMEM, "deformation transfer: out of memory");
        goto done;
    }
    for (size_t v = 0; v < nt; ++v)
        if (has_q[v] && dt->vt_off[v + 1] > dt->vt_off[v])
            dt->need[dt->nneed++] = (uint32_t)v;
    for (size_t v = 0; v < nt; ++v) /* a vertex without any matched neighbour: rest orientation */
        if (has_q[v] && dt->vt_off[v + 1] == dt->vt_off[v]) {
            double *q = dt->qt + 9 * v;
            memset(q, 0, 9 * sizeof(double));
            q[0] = q[4] = q[8] = 1;
        }
done:
    skf_free(voff);
    skf_free(vf);
    skf_free(vadj);
    skf_free(queue);
    skf_free(has_q);
    return st;
}

/* ---- vertex space: glue between pieces ------------------------------------ */

static uint32_t uf_find(uint32_t *p, uint32_t x)
{
    while (p[x] != x) {
        p[x] = p[p[x]];
        x = p[x];
    }
    return x;
}


static uint64_t cell_hash(int64_t x, int64_t y, int64_t z)
{
    return ((uint64_t)(x & 0x1fffff) << 42) | ((uint64_t)(y & 0x1fffff) << 21) | (uint64_t)(z & 0x1fffff);
}

/* Glue: each vertex to its nearest vertex of another piece within 2 mean
 * edge lengths (uniform grid of that cell size); fills dt->ei/ej/ne. */
static skf_status glue_pieces(skf_deformation_transfer *dt, const double *rest, const uint64_t *edges, size_t nme,
                              skf_error *err)
{
    size_t nt = dt->nt;
    uint32_t *uf = skf_malloc_array(nt, sizeof(uint32_t)), *glue = skf_malloc_array(nt, sizeof(uint32_t));
    skfi_keyed *cells = skf_malloc_array(nt, sizeof *cells);
    skf_status st = SKF_OK;
    if (!uf || !glue || !cells) {
        st = skf_fail(err, SKF_ERR_NOMEM, "deformation transfer: out of memory");
        goto done;
    }
    for (size_t v = 0; v < nt; ++v)
        uf[v] = (uint32_t)v;
    double elen = 0;
    for (size_t i = 0; i < nme; ++i) {
        uint32_t a = (uint32_t)(edges[i] >> 32), b = (uint32_t)(edges[i] & 0xffffffffu);
        uint32_t ra = uf_find(uf, a), rb = uf_find(uf, b);
        if (ra != rb)
            uf[ra > rb ? ra : rb] = ra < rb ? ra : rb;
        const double *pa = rest + 3 * (size_t)a, *pb = rest + 3 * (size_t)b;
        double d[3] = {pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]};
        elen += skf_norm3(d);
    }
    elen = nme ? elen / (double)nme : 1;
    bool pieces = false;
    for (size_t v = 0; v < nt; ++v) {
        uf[v] = uf_find(uf, (uint32_t)v);
        if (uf[v] != uf[0])
            pieces = true;
    }
    if (!pieces)
        goto done;
    double cell = 2 * elen;
    for (size_t v = 0; v < nt; ++v) {
        const double *p = rest + 3 * v;
        cells[v].key = cell_hash((int64_t)floor(p[0] / cell), (int64_t)floor(p[1] / cell), (int64_t)floor(p[2] / cell));
        cells[v].v = (uint32_t)v;
    }
    qsort(cells, nt, sizeof *cells, skfi_keyed_cmp);
#pragma omp parallel for schedule(dynamic, 256)
    for (size_t v = 0; v < nt; ++v) {
        const double *p = rest + 3 * v;
        int64_t cx = (int64_t)floor(p[0] / cell), cy = (int64_t)floor(p[1] / cell), cz = (int64_t)floor(p[2] / cell);
        double best = cell * cell;
        uint32_t bv = UINT32_MAX;
        for (int dx = -1; dx <= 1; ++dx)
            for (int dy = -1; dy <= 1; ++dy)
                for (int dz = -1; dz <= 1; ++dz) {
                    uint64_t key = cell_hash(cx + dx, cy + dy, cz + dz);
                    size_t lo = skfi_keyed_lower_bound(cells, nt, key);
                    for (size_t i = lo; i < nt && cells[i].key == key; ++i) {
                        uint32_t w = cells[i].v;
                        if (uf[w] == uf[v])
                            continue;
                        const double *q = rest + 3 * (size_t)w;
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
    size_t ng = 0;
    for (size_t v = 0; v < nt; ++v)
        ng += glue[v] != UINT32_MAX;
    dt->ei = skf_malloc_array(ng + 1, sizeof(uint32_t));
    dt->ej = skf_malloc_array(ng + 1, sizeof(uint32_t));
    dt->ed = skf_malloc_array(3 * ng + 3, sizeof(double));
    if (!dt->ei || !dt->ej || !dt->ed) {
        st = skf_fail(err, SKF_ERR_NOMEM, "deformation transfer: %zu glue edges: out of memory", ng);
        goto done;
    }
    for (size_t v = 0; v < nt; ++v)
        if (glue[v] != UINT32_MAX) {
            dt->ei[dt->ne] = (uint32_t)v;
            dt->ej[dt->ne++] = glue[v];
        }
done:
    skf_free(uf);
    skf_free(glue);
    skf_free(cells);
    return st;
}

/* ---- the normal matrices ----------------------------------------------------- */

/* Upper-triangle entries of A = Σ_edges w (e_i − e_j)(e_i − e_j)ᵀ + diag(μ_v)
 * over the 3 edges of every triangle and the glue edges. */
static size_t assemble(const skf_deformation_transfer *dt, uint32_t *row, uint32_t *col, double *val, double *deg)
{
    size_t k = 0, nt = dt->nt;
    memset(deg, 0, nt * sizeof(double));
    for (size_t t = 0; t < dt->ntt; ++t)
        for (int q = 0; q < 3; ++q) {
            uint32_t i = dt->ttri[3 * t + (size_t)q], j = dt->ttri[3 * t + (size_t)(q + 1) % 3];
            double w = dt->ew[3 * t + (size_t)q];
            if (i == j || w == 0)
                continue;
            deg[i] += w;
            deg[j] += w;
            row[k] = i < j ? i : j;
            col[k] = i < j ? j : i;
            val[k++] = -w;
        }
    for (size_t e = 0; e < dt->ne; ++e) {
        uint32_t i = dt->ei[e], j = dt->ej[e];
        deg[i] += 1;
        deg[j] += 1;
        row[k] = i < j ? i : j;
        col[k] = i < j ? j : i;
        val[k++] = -1;
    }
    for (size_t v = 0; v < nt; ++v) {
        row[k] = col[k] = (uint32_t)v;
        val[k++] = deg[v] + dt->mu_v[v];
    }
    return k;
}

/* Block (a, b) of H (4×4, rows of bone a, columns of bone b) += w ka kbᵀ. */
static void add_block(double *H, size_t D, size_t a, const double ka[4], size_t b, const double kb[4], double w)
{
    for (int q = 0; q < 4; ++q)
        for (int r = 0; r < 4; ++r)
            H[(4 * b + (size_t)q) * D + 4 * a + (size_t)r] += w * ka[r] * kb[q];
}

/* The subspace: H = Kᵀ A K + λ Σ_pivots u uᵀ + ridge, factored. */
static skf_status factor_subspace(skf_deformation_transfer *dt, const skf_dt_options *o, const uint32_t *row,
                                  const uint32_t *col, const double *val, size_t nz, size_t mesh_edges,
                                  skf_error *err)
{
    size_t nt = dt->nt, nb = dt->nb, D = 4 * nb, nw = o->weight_offsets[nt];
    dt->wo = skf_malloc_array(nt + 1, sizeof(size_t));
    dt->wb = skf_malloc_array(nw + 1, sizeof(uint32_t));
    dt->ww = skf_malloc_array(nw + 1, sizeof(double));
    dt->H = skf_calloc(D * D, sizeof(double));
    dt->prior = skf_calloc(D * 3, sizeof(double));
    dt->rm = skf_malloc_array(D * 3, sizeof(double));
    dt->rmi = skf_malloc_array(D * 3, sizeof(double));
    if (!dt->wo || !dt->wb || !dt->ww || !dt->H || !dt->prior || !dt->rm || !dt->rmi)
        return skf_fail(err, SKF_ERR_NOMEM, "deformation transfer: %zu bones: out of memory", nb);
    memcpy(dt->wo, o->weight_offsets, (nt + 1) * sizeof(size_t));
    memcpy(dt->wb, o->weight_bones, nw * sizeof(uint32_t));
    memcpy(dt->ww, o->weights, nw * sizeof(double));
    for (size_t k = 0; k < nz; ++k) {
        uint32_t i = row[k], j = col[k];
        const double *ri = dt->kr + 3 * (size_t)i, *rj = dt->kr + 3 * (size_t)j;
        double ki[4] = {ri[0], ri[1], ri[2], 1}, kj[4] = {rj[0], rj[1], rj[2], 1};
        /* A_ij (K_iᵀ K_j + K_jᵀ K_i) off the diagonal, A_ii K_iᵀ K_i on it */
        for (size_t a = dt->wo[i]; a < dt->wo[i + 1]; ++a)
            for (size_t c = dt->wo[j]; c < dt->wo[j + 1]; ++c) {
                double w = val[k] * dt->ww[a] * dt->ww[c];
                add_block(dt->H, D, dt->wb[a], ki, dt->wb[c], kj, w);
                if (i != j)
                    add_block(dt->H, D, dt->wb[c], kj, dt->wb[a], ki, w);
            }
    }
    double lambda = o->pivot_count ? PIVOT_KAPPA * (double)mesh_edges / (double)o->pivot_count : 0;
    for (size_t p = 0; p < o->pivot_count; ++p) {
        const double *r = o->pivots + 3 * p;
        double kp[4] = {r[0], r[1], r[2], 1};
        size_t a = o->pivot_bones[2 * p], b = o->pivot_bones[2 * p + 1];
        if (a == b)
            continue;
        add_block(dt->H, D, a, kp, a, kp, lambda);
        add_block(dt->H, D, b, kp, b, kp, lambda);
        add_block(dt->H, D, a, kp, b, kp, -lambda);
        add_block(dt->H, D, b, kp, a, kp, -lambda);
    }
    double hmax = 0;
    for (size_t d = 0; d < D; ++d)
        hmax = fmax(hmax, dt->H[d * D + d]);
    double ridge = SUBSPACE_RIDGE * (hmax > 0 ? hmax : 1);
    for (size_t d = 0; d < D; ++d) {
        dt->H[d * D + d] += ridge;
        if (d % 4 < 3) /* identity linear part: row c of M_b has 1 at column c */
            dt->prior[(d % 4) * D + d] = ridge;
    }
    /* the constant part of the reduced right-hand side: Kᵀ μ (r − c⁰), the
     * screening term's rest offset (the frame adds Kᵀ (L⁻¹ b + μ c)) */
    for (size_t v = 0; v < nt; ++v) {
        const double *r = dt->kr + 3 * v, *rc = dt->rc0 + 3 * v;
        for (size_t a = dt->wo[v]; a < dt->wo[v + 1]; ++a) {
            size_t d = 4 * (size_t)dt->wb[a];
            double w = dt->ww[a] * dt->mu_v[v];
            for (int c = 0; c < 3; ++c) {
                double g = w * rc[c];
                for (int q = 0; q < 3; ++q)
                    dt->prior[(size_t)c * D + d + (size_t)q] += g * r[q];
                dt->prior[(size_t)c * D + d + 3] += g;
            }
        }
    }
    if (LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', (lapack_int)D, dt->H, (lapack_int)D) != 0)
        return skf_fail(err, SKF_ERR_NUMERIC, "deformation transfer: the %zu-bone subspace system is not positive definite",
                        nb);
    return SKF_OK;
}

static skf_status check_options(const skf_dt_options *o, size_t nt, skf_error *err)
{
    if (!o || !o->bone_count)
        return SKF_OK;
    if (!o->weight_offsets || !o->weight_bones || !o->weights)
        return skf_fail(err, SKF_ERR_ARGUMENT, "deformation transfer: skinning subspace without weights");
    for (size_t k = 0; k < o->weight_offsets[nt]; ++k)
        if (o->weight_bones[k] >= o->bone_count || !isfinite(o->weights[k]))
            return skf_fail(err, SKF_ERR_ARGUMENT, "deformation transfer: weight %zu: bone %u of %zu or non-finite", k,
                            o->weight_bones[k], o->bone_count);
    for (size_t p = 0; p < o->pivot_count; ++p)
        if (o->pivot_bones[2 * p] >= o->bone_count || o->pivot_bones[2 * p + 1] >= o->bone_count)
            return skf_fail(err, SKF_ERR_ARGUMENT, "deformation transfer: pivot %zu: bone out of range", p);
    return SKF_OK;
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
    size_t nt = target_vertex_count, ntt = target_triangle_count;
    if (!reg || reg->count != nt)
        return skf_fail(err, SKF_ERR_ARGUMENT, "deformation transfer: the registration has %zu vertices, the target %zu",
                        reg ? reg->count : 0, nt);
    skf_status st = check_options(options, nt, err);
    if (st)
        return st;
    skf_deformation_transfer *dt = skf_calloc(1, sizeof *dt);
    if (!dt)
        return skf_fail(err, SKF_ERR_NOMEM, "deformation transfer: out of memory");
    dt->nt = nt, dt->ntt = ntt, dt->nst = source_triangle_count;
    dt->nb = options && options->bone_count ? options->bone_count : 0;
    double mu = options && options->screening > 0 ? options->screening : SKF_DT_DEFAULT_SCREENING;
    double L[9];
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r)
            L[c * 3 + r] = target_to_source[c * 4 + r];
    uint32_t *trip_r = NULL, *trip_c = NULL;
    double *trip_v = NULL, *deg = NULL;
    uint64_t *edges = skf_malloc_array(3 * ntt + 1, sizeof(uint64_t));
    dt->ttri = skf_malloc_array(ntt * 3 + 1, sizeof(uint32_t));
    dt->kr = skf_malloc_array(nt * 3, sizeof(double));
    dt->qt = skf_malloc_array(nt * 9, sizeof(double));
    dt->rhs = skf_malloc_array(nt * 3, sizeof(double));
    dt->rhs_cm = dt->nb ? NULL : skf_malloc_array(nt * 3, sizeof(double));
    dt->mu_v = skf_malloc_array(nt, sizeof(double));
    dt->rc0 = skf_malloc_array(nt * 3, sizeof(double));
    dt->ew = skf_malloc_array(ntt * 3 + 1, sizeof(double));
    if (!edges || !dt->ttri || !dt->kr || !dt->qt || !dt->rhs || (!dt->nb && !dt->rhs_cm) || !dt->mu_v ||
        !dt->rc0 || !dt->ew) {
        st = skf_fail(err, SKF_ERR_NOMEM, "deformation transfer: %zu target vertices: out of memory", nt);
        goto done;
    }
    memcpy(dt->L, L, sizeof L);
    if (!inv33(dt->Linv, L)) {
        st = skf_fail(err, SKF_ERR_NUMERIC, "deformation transfer: singular alignment");
        goto done;
    }
    memcpy(dt->ttri, target_triangles, ntt * 3 * sizeof(uint32_t));
    memcpy(dt->kr, target_rest, nt * 3 * sizeof(double));
    {
        const double *aw = options ? options->anchor_weight : NULL;
        for (size_t v = 0; v < nt; ++v)
            dt->mu_v[v] = mu * (aw ? SKF_DT_ANCHOR_FLOOR + (isfinite(aw[v]) && aw[v] > 0 ? aw[v] : 0) : 1);
    }
    /* the triangles of the least squares: all, or a stride sample above
     * SUBSPACE_MAX_TRIANGLES in the subspace */
    dt->ntl = dt->nb && ntt > SUBSPACE_MAX_TRIANGLES ? SUBSPACE_MAX_TRIANGLES : ntt;
    dt->tl = skf_malloc_array(dt->ntl + 1, sizeof(uint32_t));
    dt->tri_slot = skf_malloc_array(ntt + 1, sizeof(uint32_t));
    dt->tl_tri = skf_malloc_array(dt->ntl * 3 + 1, sizeof(uint32_t));
    dt->tl_slot = skf_malloc_array(dt->ntl + 1, sizeof(uint32_t));
    dt->tl_p = skf_malloc_array(dt->ntl * 9 + 1, sizeof(double));
    if (!dt->tl || !dt->tri_slot || !dt->tl_tri || !dt->tl_slot || !dt->tl_p) {
        st = skf_fail(err, SKF_ERR_NOMEM, "deformation transfer: %zu triangles: out of memory", ntt);
        goto done;
    }
    skfi_stride_sample(ntt, dt->ntl, dt->tl);
    for (size_t t = 0; t < ntt; ++t)
        dt->tri_slot[t] = SLOT_SKIPPED;
    for (size_t k = 0; k < dt->ntl; ++k)
        dt->tri_slot[dt->tl[k]] = 0;
    double scale = (double)ntt / (double)dt->ntl;
    st = map_triangles(dt, source_rest, source_vertex_count, source_triangles, reg, L, err);
    if (st)
        goto done;
    /* edge weights: 1 in vertex space; (ρ_i ρ_j)⁴ + ε_w in the subspace */
    for (size_t t = 0; t < ntt; ++t)
        for (int q = 0; q < 3; ++q) {
            uint32_t i = target_triangles[3 * t + (size_t)q], j = target_triangles[3 * t + (size_t)(q + 1) % 3];
            double w = 1;
            if (dt->tri_slot[t] == SLOT_SKIPPED) {
                w = 0;
            } else if (dt->nb) {
                double ri = 0, rj = 0;
                for (size_t a = options->weight_offsets[i]; a < options->weight_offsets[i + 1]; ++a)
                    ri = fmax(ri, options->weights[a]);
                for (size_t a = options->weight_offsets[j]; a < options->weight_offsets[j + 1]; ++a)
                    rj = fmax(rj, options->weights[a]);
                double rr = ri * rj * ri * rj;
                w = scale * (RIGID_FLOOR + rr * rr);
            }
            dt->ew[3 * t + (size_t)q] = w;
        }
    for (size_t n = 0; n < dt->ntl; ++n) {
        size_t t = dt->tl[n];
        double te[9];
        for (int q = 0; q < 3; ++q) {
            uint32_t i = target_triangles[3 * t + (size_t)q], j = target_triangles[3 * t + (size_t)(q + 1) % 3];
            for (int a = 0; a < 3; ++a)
                te[3 * q + a] = dt->ew[3 * t + (size_t)q] * (target_rest[3 * i + a] - target_rest[3 * j + a]);
        }
        memcpy(dt->tl_tri + 3 * n, target_triangles + 3 * t, 3 * sizeof(uint32_t));
        dt->tl_slot[n] = dt->tri_slot[t];
        if (dt->tri_slot[t] != SLOT_UNMATCHED)
            mul33(dt->tl_p + 9 * n, dt->sinv + 9 * (size_t)dt->tri_slot[t], te);
        else
            memcpy(dt->tl_p + 9 * n, te, sizeof te);
    }
    size_t nme = skfi_mesh_edges(target_triangles, ntt, NULL, edges);
    if (!dt->nb && (st = glue_pieces(dt, target_rest, edges, nme, err)))
        goto done;
    if ((st = gradient_order(dt, edges, nme, err)))
        goto done;
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
    for (size_t e = 0; e < dt->ne; ++e)
        for (int a = 0; a < 3; ++a)
            dt->ed[3 * e + a] = dt->rc0[3 * (size_t)dt->ei[e] + a] - dt->rc0[3 * (size_t)dt->ej[e] + a];
    size_t nz = 3 * ntt + dt->ne + nt;
    trip_r = skf_malloc_array(nz, sizeof(uint32_t));
    trip_c = skf_malloc_array(nz, sizeof(uint32_t));
    trip_v = skf_malloc_array(nz, sizeof(double));
    deg = skf_malloc_array(nt, sizeof(double));
    if (!trip_r || !trip_c || !trip_v || !deg) {
        st = skf_fail(err, SKF_ERR_NOMEM, "deformation transfer: system: out of memory");
        goto done;
    }
    nz = assemble(dt, trip_r, trip_c, trip_v, deg);
    if (dt->nb)
        st = factor_subspace(dt, options, trip_r, trip_c, trip_v, nz, nme, err);
    else
        st = skfi_spd_factor(nt, nz, trip_r, trip_c, trip_v, "deformation transfer", &dt->spd, err);
done:
    skf_free(edges);
    skf_free(trip_r);
    skf_free(trip_c);
    skf_free(trip_v);
    skf_free(deg);
    if (st) {
        skf_deformation_transfer_free(dt);
        return st;
    }
    *out = dt;
    return SKF_OK;
}

size_t skf_deformation_transfer_glue_edges(const skf_deformation_transfer *dt)
{
    return dt->ne;
}

/* The subspace solve from the edge targets b' (before L⁻¹): per vertex
 * b_v = L⁻¹ b'_v + μ_v (anchor_v + r_v − c⁰_v), r = Kᵀ b, H m = r, x = K m.
 * The reduced vectors are kept vertex-interleaved ([4B][3]) in the loops
 * over vertices and transposed for dpotrs. */
static skf_status solve_subspace(skf_deformation_transfer *dt, const double *b, const double *anchor, double *x,
                                 skf_error *err)
{
    size_t nt = dt->nt, D = 4 * dt->nb;
    double *ri = dt->rmi;
    memset(ri, 0, D * 3 * sizeof(double));
    for (size_t v = 0; v < nt; ++v) {
        const double *r = dt->kr + 3 * v, *bp = b + 3 * v, *an = anchor + 3 * v;
        double bv[3];
        mul3v(bv, dt->Linv, bp);
        double mu = dt->mu_v[v];
        for (int c = 0; c < 3; ++c)
            bv[c] += mu * an[c];
        for (size_t a = dt->wo[v]; a < dt->wo[v + 1]; ++a) {
            double *m = ri + 12 * (size_t)dt->wb[a], w = dt->ww[a];
            double g0 = w * bv[0], g1 = w * bv[1], g2 = w * bv[2];
            for (int q = 0; q < 3; ++q) {
                m[3 * q] += g0 * r[q];
                m[3 * q + 1] += g1 * r[q];
                m[3 * q + 2] += g2 * r[q];
            }
            m[9] += g0, m[10] += g1, m[11] += g2;
        }
    }
    for (size_t d = 0; d < D; ++d)
        for (int c = 0; c < 3; ++c)
            dt->rm[(size_t)c * D + d] = ri[3 * d + (size_t)c] + dt->prior[(size_t)c * D + d];
    if (LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', (lapack_int)D, 3, dt->H, (lapack_int)D, dt->rm, (lapack_int)D) != 0)
        return skf_fail(err, SKF_ERR_NUMERIC, "deformation transfer: subspace solve failed");
    for (size_t d = 0; d < D; ++d)
        for (int c = 0; c < 3; ++c)
            ri[3 * d + (size_t)c] = dt->rm[(size_t)c * D + d];
    for (size_t v = 0; v < nt; ++v) {
        const double *r = dt->kr + 3 * v;
        double s0 = 0, s1 = 0, s2 = 0;
        for (size_t a = dt->wo[v]; a < dt->wo[v + 1]; ++a) {
            const double *m = ri + 12 * (size_t)dt->wb[a];
            double w = dt->ww[a];
            double k0 = w * r[0], k1 = w * r[1], k2 = w * r[2];
            s0 += k0 * m[0] + k1 * m[3] + k2 * m[6] + w * m[9];
            s1 += k0 * m[1] + k1 * m[4] + k2 * m[7] + w * m[10];
            s2 += k0 * m[2] + k1 * m[5] + k2 * m[8] + w * m[11];
        }
        x[3 * v] = s0, x[3 * v + 1] = s1, x[3 * v + 2] = s2;
    }
    return SKF_OK;
}

skf_status skf_deformation_transfer_frame(skf_deformation_transfer *dt, const double *source_frame,
                                          const double *anchor, double *x, skf_error *err)
{
    size_t nt = dt->nt;
    /* Ṽ of the used source triangles */
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < dt->nused; ++k)
        edge_frame(source_frame, dt->stri + 3 * k, dt->vs + 9 * k);
    /* the vertex gradients unmatched triangles need, in target space:
     * L⁻¹ Σ_i w_i Ṽ_i (V⁻¹ L)_i */
#pragma omp parallel for schedule(static)
    for (size_t n = 0; n < dt->nneed; ++n) {
        uint32_t v = dt->need[n];
        double m[9] = {0}, g[9];
        for (size_t i = dt->vt_off[v]; i < dt->vt_off[v + 1]; ++i) {
            size_t k = dt->tri_slot[dt->vt_tri[i]];
            mul33(g, dt->vs + 9 * k, dt->sinv + 9 * k);
            for (int a = 0; a < 9; ++a)
                m[a] += dt->vt_w[i] * g[a];
        }
        mul33(dt->qt + 9 * (size_t)v, dt->Linv, m);
    }
    for (size_t k = 0; k < dt->norder; ++k)
        memcpy(dt->qt + 9 * (size_t)dt->order[k], dt->qt + 9 * (size_t)dt->parent[k], 9 * sizeof(double));
    /* edge targets before L⁻¹: Ṽ P for matched triangles, L Q (w d) for the others */
    double *b = dt->rhs;
    memset(b, 0, nt * 3 * sizeof(double));
    for (size_t n = 0; n < dt->ntl; ++n) {
        const uint32_t *f = dt->tl_tri + 3 * n;
        double G[9];
        if (dt->tl_slot[n] != SLOT_UNMATCHED) {
            const double *V = dt->vs + 9 * (size_t)dt->tl_slot[n], *P = dt->tl_p + 9 * n;
            for (int k = 0; k < 3; ++k) {
                double p0 = P[3 * k], p1 = P[3 * k + 1], p2 = P[3 * k + 2];
                double g0 = V[0] * p0 + V[3] * p1 + V[6] * p2, g1 = V[1] * p0 + V[4] * p1 + V[7] * p2,
                       g2 = V[2] * p0 + V[5] * p1 + V[8] * p2;
                double *bi = b + 3 * (size_t)f[k], *bj = b + 3 * (size_t)f[(k + 1) % 3];
                bi[0] += g0, bi[1] += g1, bi[2] += g2;
                bj[0] -= g0, bj[1] -= g1, bj[2] -= g2;
            }
            continue;
        } else {
            double qm[9];
            for (int a = 0; a < 9; ++a)
                qm[a] = (dt->qt[9 * f[0] + a] + dt->qt[9 * f[1] + a] + dt->qt[9 * f[2] + a]) / 3;
            mul33(qm, dt->L, qm);
            mul33(G, qm, dt->tl_p + 9 * n);
        }
        for (int k = 0; k < 3; ++k) {
            double *bi = b + 3 * (size_t)f[k], *bj = b + 3 * (size_t)f[(k + 1) % 3];
            const double *g = G + 3 * k;
            bi[0] += g[0], bi[1] += g[1], bi[2] += g[2];
            bj[0] -= g[0], bj[1] -= g[1], bj[2] -= g[2];
        }
    }
    if (dt->nb)
        return solve_subspace(dt, b, anchor, x, err);
    /* into target space, plus the anchors */
    for (size_t v = 0; v < nt; ++v) {
        double *bv = b + 3 * v, g[3];
        mul3v(g, dt->Linv, bv);
        for (int a = 0; a < 3; ++a)
            bv[a] = g[a] + dt->mu_v[v] * (anchor[3 * v + a] + dt->rc0[3 * v + a]);
    }
    for (size_t e = 0; e < dt->ne; ++e) {
        uint32_t i = dt->ei[e], j = dt->ej[e];
        /* glue: the pieces keep their rest offset, changed as the anchors'
         * offset changes: x_i − x_j = (r_i − r_j) + (c_i − c_j) − (c⁰_i − c⁰_j),
         * a local relation that survives proportion changes */
        for (int a = 0; a < 3; ++a) {
            double g = dt->ed[3 * e + a] + anchor[3 * (size_t)i + a] - anchor[3 * (size_t)j + a];
            b[3 * (size_t)i + a] += g;
            b[3 * (size_t)j + a] -= g;
        }
    }
    for (size_t v = 0; v < nt; ++v)
        for (int a = 0; a < 3; ++a)
            dt->rhs_cm[(size_t)a * nt + v] = b[3 * v + a];
    skf_status st = skfi_spd_solve(dt->spd, dt->rhs_cm, 3, dt->rhs_cm, err);
    if (st)
        return st;
    for (size_t v = 0; v < nt; ++v)
        for (int a = 0; a < 3; ++a)
            x[3 * v + a] = dt->rhs_cm[(size_t)a * nt + v];
    return SKF_OK;
}
