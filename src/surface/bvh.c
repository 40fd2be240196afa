/* Bounding-volume hierarchy over triangles and exact closest-point queries.
 *
 * References: Ericson, "Real-Time Collision Detection" (2005), §5.1.5
 * (closest point on a triangle by Voronoi regions) and §6 (BVH traversal);
 * the build is a median split on the longest axis of the centroid bounds
 * (Wald, "On fast construction of SAH-based BVHs", 2007, discusses why a
 * median split suffices for nearest-point queries on meshes).
 *
 * Why median splits: the queries are nearest-surface lookups for every
 * vertex of another mesh of the same shape, so the query points lie on or
 * near the surface and any balanced tree gives O(log T) visits; a median
 * split bounds the depth by log2(T) and builds in O(T log T).
 * The traversal visits the nearer child first and prunes boxes farther than
 * the best distance found, which makes the result exact.
 */
#include "skinfit/surface.h"
#include "skinfit/math.h"

#include "surface_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define LEAF_SIZE 4
#define MAX_DEPTH 64

typedef struct bvh_node {
    double lo[3], hi[3];
    uint32_t first, count;  /* leaf: range in tri_order; inner: count = 0 */
    uint32_t left, right;   /* inner: child node indices */
} bvh_node;

struct skf_bvh {
    const double *positions;   /* [vertex_count*3] */
    const uint32_t *triangles; /* [triangle_count*3] */
    double *own_positions;     /* the copies (NULL for a view: skfi_bvh_build_view) */
    uint32_t *own_triangles;
    size_t vertex_count, triangle_count;
    uint32_t *tri_order;    /* permutation of triangles, leaves index ranges */
    double *tri_box;        /* [triangle_count*6] lo, hi of triangle tri_order[i] (leaf order) */
    bvh_node *nodes;
    size_t node_count;
};

void skf_bvh_free(skf_bvh *bvh)
{
    if (!bvh)
        return;
    skf_free(bvh->own_positions);
    skf_free(bvh->own_triangles);
    skf_free(bvh->tri_order);
    skf_free(bvh->tri_box);
    skf_free(bvh->nodes);
    skf_free(bvh);
}

typedef struct build_ctx {
    skf_bvh *bvh;
    double *centroid;  /* [T*3] */
    double *bounds;    /* [T*6] lo, hi of each triangle */
} build_ctx;

/* min / max without the libm calls (the bounds only prune; NaN-free input) */
static inline double dmin(double a, double b)
{
    return b < a ? b : a;
}

static inline double dmax(double a, double b)
{
    return b > a ? b : a;
}

static void tri_bounds(const skf_bvh *b, uint32_t t, double lo[3], double hi[3])
{
    for (int a = 0; a < 3; ++a) {
        lo[a] = DBL_MAX;
        hi[a] = -DBL_MAX;
    }
    for (int k = 0; k < 3; ++k) {
        const double *p = b->positions + 3 * (size_t)b->triangles[3 * (size_t)t + k];
        for (int a = 0; a < 3; ++a) {
            lo[a] = dmin(lo[a], p[a]);
            hi[a] = dmax(hi[a], p[a]);
        }
    }
}

/* Partition tri_order[first, first+count) around the median centroid along
 * axis (nth_element by Hoare selection, deterministic: ties by index). */
static int cmp_less(const build_ctx *c, uint32_t a, uint32_t b, int axis)
{
    double ca = c->centroid[3 * (size_t)a + axis], cb = c->centroid[3 * (size_t)b + axis];
    return ca < cb || (ca == cb && a < b);
}

static void swap_u32(uint32_t *a, uint32_t *b)
{
    uint32_t t = *a;
    *a = *b;
    *b = t;
}

/* Quickselect (Lomuto partition, middle pivot): afterwards v[k] is the k-th
 * smallest and everything before it is smaller. Keys are distinct (ties by
 * index), so the expected cost is O(n). */
static void select_median(const build_ctx *c, uint32_t *v, size_t n, size_t k, int axis)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        swap_u32(&v[lo + (hi - lo) / 2], &v[hi]);
        uint32_t pivot = v[hi];
        size_t store = lo;
        for (size_t i = lo; i < hi; ++i)
            if (cmp_less(c, v[i], pivot, axis))
                swap_u32(&v[i], &v[store++]);
        swap_u32(&v[store], &v[hi]);
        if (store == k)
            return;
        if (k < store)
            hi = store - 1;
        else
            lo = store + 1;
    }
}

static uint32_t build_node(build_ctx *c, uint32_t first, uint32_t count, int depth)
{
    skf_bvh *b = c->bvh;
    uint32_t idx = (uint32_t)b->node_count++;
    bvh_node *nd = &b->nodes[idx];
    double clo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, chi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
    for (int a = 0; a < 3; ++a) {
        nd->lo[a] = DBL_MAX;
        nd->hi[a] = -DBL_MAX;
    }
    for (uint32_t i = first; i < first + count; ++i) {
        uint32_t t = b->tri_order[i];
        const double *lo = c->bounds + 6 * (size_t)t, *hi = lo + 3;
        for (int a = 0; a < 3; ++a) {
            nd->lo[a] = dmin(nd->lo[a], lo[a]);
            nd->hi[a] = dmax(nd->hi[a], hi[a]);
            clo[a] = dmin(clo[a], c->centroid[3 * (size_t)t + a]);
            chi[a] = dmax(chi[a], c->centroid[3 * (size_t)t + a]);
        }
    }
    if (count <= LEAF_SIZE || depth >= MAX_DEPTH) {
        nd->first = first;
        nd->count = count;
        nd->left = nd->right = 0;
        return idx;
    }
    int axis = 0;
    for (int a = 1; a < 3; ++a)
        if (chi[a] - clo[a] > chi[axis] - clo[axis])
            axis = a;
    uint32_t half = count / 2;
    select_median(c, b->tri_order + first, count, half, axis);
    uint32_t l = build_node(c, first, half, depth + 1);
    uint32_t r = build_node(c, first + half, count - half, depth + 1);
    nd = &b->nodes[idx];  /* nodes never reallocate (preallocated 2T) */
    nd->first = 0;
    nd->count = 0;
    nd->left = l;
    nd->right = r;
    return idx;
}

static skf_status bvh_build(const double *positions, size_t vertex_count, const uint32_t *triangles,
                            size_t triangle_count, bool copy, skf_bvh **out, skf_error *err)
{
    *out = NULL;
    if (triangle_count == 0)
        return skf_fail(err, SKF_ERR_ARGUMENT, "bvh: triangles: the surface has no triangles");
    if (triangle_count > UINT32_MAX / 2)
        return skf_fail(err, SKF_ERR_LIMIT, "bvh: triangles: %zu triangles exceed the BVH's fixed limit of 2^31-1",
                        triangle_count);
    for (size_t t = 0; t < triangle_count * 3; ++t)
        if (triangles[t] >= vertex_count)
            return skf_fail(err, SKF_ERR_FORMAT, "bvh: triangles[%zu]: vertex %u out of range (%zu vertices)",
                            t / 3, triangles[t], vertex_count);
    skf_bvh *b = skf_calloc(1, sizeof *b);
    double *centroid = NULL, *bounds = NULL;
    if (!b)
        goto nomem;
    b->vertex_count = vertex_count;
    b->triangle_count = triangle_count;
    b->positions = positions;
    b->triangles = triangles;
    if (copy) {
        b->positions = b->own_positions = skf_malloc_array(vertex_count * 3, sizeof(double));
        b->triangles = b->own_triangles = skf_malloc_array(triangle_count * 3, sizeof(uint32_t));
    }
    b->tri_order = skf_malloc_array(triangle_count, sizeof(uint32_t));
    b->nodes = skf_malloc_array(2 * triangle_count, sizeof(bvh_node));
    centroid = skf_malloc_array(triangle_count * 3, sizeof(double));
    bounds = skf_malloc_array(triangle_count * 6, sizeof(double));
    b->tri_box = skf_malloc_array(triangle_count * 6, sizeof(double));
    if (!b->positions || !b->triangles || !b->tri_order || !b->nodes || !centroid || !bounds || !b->tri_box)
        goto nomem;
    if (copy) {
        memcpy(b->own_positions, positions, vertex_count * 3 * sizeof(double));
        memcpy(b->own_triangles, triangles, triangle_count * 3 * sizeof(uint32_t));
    }
    for (size_t t = 0; t < triangle_count; ++t) {
        b->tri_order[t] = (uint32_t)t;
        for (int a = 0; a < 3; ++a) {
            double s = 0;
            for (int k = 0; k < 3; ++k)
                s += positions[3 * (size_t)triangles[3 * t + k] + a];
            centroid[3 * t + a] = s / 3.0;
        }
        tri_bounds(b, (uint32_t)t, bounds + 6 * t, bounds + 6 * t + 3);
    }
    build_ctx c = {b, centroid, bounds};
    build_node(&c, 0, (uint32_t)triangle_count, 0);
    for (size_t i = 0; i < triangle_count; ++i)
        memcpy(b->tri_box + 6 * i, bounds + 6 * (size_t)b->tri_order[i], 6 * sizeof(double));
    skf_free(centroid);
    skf_free(bounds);
    *out = b;
    return SKF_OK;
nomem:
    skf_free(centroid);
    skf_free(bounds);
    skf_bvh_free(b);
    return skf_fail(err, SKF_ERR_NOMEM, "bvh: %zu triangles: out of memory", triangle_count);
}

void skf_bvh_refit(skf_bvh *bvh, const double *positions)
{
    if (bvh->own_positions)
        memcpy(bvh->own_positions, positions, bvh->vertex_count * 3 * sizeof(double));
    else /* a view (skfi_bvh_build_view) reads the caller's new positions */
        bvh->positions = positions;
    /* children are numbered after their parent: refit from the last node */
    for (size_t i = bvh->node_count; i-- > 0;) {
        bvh_node *nd = &bvh->nodes[i];
        for (int a = 0; a < 3; ++a) {
            nd->lo[a] = DBL_MAX;
            nd->hi[a] = -DBL_MAX;
        }
        if (nd->count > 0) {
            for (uint32_t k = nd->first; k < nd->first + nd->count; ++k) {
                double *lo = bvh->tri_box + 6 * (size_t)k, *hi = lo + 3;
                tri_bounds(bvh, bvh->tri_order[k], lo, hi);
                for (int a = 0; a < 3; ++a) {
                    nd->lo[a] = dmin(nd->lo[a], lo[a]);
                    nd->hi[a] = dmax(nd->hi[a], hi[a]);
                }
            }
            continue;
        }
        const bvh_node *l = &bvh->nodes[nd->left], *r = &bvh->nodes[nd->right];
        for (int a = 0; a < 3; ++a) {
            nd->lo[a] = dmin(l->lo[a], r->lo[a]);
            nd->hi[a] = dmax(l->hi[a], r->hi[a]);
        }
    }
}

skf_status skf_bvh_build(const double *positions, size_t vertex_count, const uint32_t *triangles,
                         size_t triangle_count, skf_bvh **out, skf_error *err)
{
    return bvh_build(positions, vertex_count, triangles, triangle_count, true, out, err);
}

skf_status skfi_bvh_build_view(const double *positions, size_t vertex_count, const uint32_t *triangles,
                               size_t triangle_count, skf_bvh **out, skf_error *err)
{
    return bvh_build(positions, vertex_count, triangles, triangle_count, false, out, err);
}

/* Closest point on triangle abc to p (Ericson §5.1.5); writes barycentrics. */
static void closest_on_triangle(const double p[3], const double a[3], const double b[3],
                                const double c[3], double bary[3])
{
    double ab[3], ac[3], ap[3];
    for (int i = 0; i < 3; ++i) {
        ab[i] = b[i] - a[i];
        ac[i] = c[i] - a[i];
        ap[i] = p[i] - a[i];
    }
    double d1 = skf_dot3(ab, ap), d2 = skf_dot3(ac, ap);
    if (d1 <= 0 && d2 <= 0) {
        bary[0] = 1, bary[1] = 0, bary[2] = 0;
        return;
    }
    double bp[3];
    for (int i = 0; i < 3; ++i)
        bp[i] = p[i] - b[i];
    double d3 = skf_dot3(ab, bp), d4 = skf_dot3(ac, bp);
    if (d3 >= 0 && d4 <= d3) {
        bary[0] = 0, bary[1] = 1, bary[2] = 0;
        return;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        double v = d1 / (d1 - d3);
        bary[0] = 1 - v, bary[1] = v, bary[2] = 0;
        return;
    }
    double cp[3];
    for (int i = 0; i < 3; ++i)
        cp[i] = p[i] - c[i];
    double d5 = skf_dot3(ab, cp), d6 = skf_dot3(ac, cp);
    if (d6 >= 0 && d5 <= d6) {
        bary[0] = 0, bary[1] = 0, bary[2] = 1;
        return;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        double w = d2 / (d2 - d6);
        bary[0] = 1 - w, bary[1] = 0, bary[2] = w;
        return;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        bary[0] = 0, bary[1] = 1 - w, bary[2] = w;
        return;
    }
    double sum = va + vb + vc;
    if (!(sum > 0)) { /* degenerate triangle: fall back to the nearest vertex */
        double da = skf_dot3(ap, ap), db = skf_dot3(bp, bp), dc = skf_dot3(cp, cp);
        bary[0] = bary[1] = bary[2] = 0;
        if (da <= db && da <= dc)
            bary[0] = 1;
        else if (db <= dc)
            bary[1] = 1;
        else
            bary[2] = 1;
        return;
    }
    double v = vb / sum, w = vc / sum;
    bary[0] = 1 - v - w, bary[1] = v, bary[2] = w;
}

/* Squared distance from p to the box [lo, hi] (lo <= hi): per axis the one
 * positive gap of lo − p and p − hi, without branches (the queries' hot
 * loop; the same sums in the same order as a branching form) */
static inline double lohi_dist2(const double lo[3], const double hi[3], const double p[3])
{
    double d0 = dmax(lo[0] - p[0], 0) + dmax(p[0] - hi[0], 0);
    double d1 = dmax(lo[1] - p[1], 0) + dmax(p[1] - hi[1], 0);
    double d2 = dmax(lo[2] - p[2], 0) + dmax(p[2] - hi[2], 0);
    return d0 * d0 + d1 * d1 + d2 * d2;
}

static double box_dist2(const bvh_node *n, const double p[3])
{
    return lohi_dist2(n->lo, n->hi, p);
}

/* Squared distance from p to the closest point of triangle t; its barycentrics. */
static double triangle_dist2(const skf_bvh *bvh, uint32_t t, const double p[3], double bary[3])
{
    const uint32_t *tv = bvh->triangles + 3 * (size_t)t;
    const double *a = bvh->positions + 3 * (size_t)tv[0];
    const double *b = bvh->positions + 3 * (size_t)tv[1];
    const double *c = bvh->positions + 3 * (size_t)tv[2];
    closest_on_triangle(p, a, b, c, bary);
    double d2 = 0;
    for (int k = 0; k < 3; ++k) {
        double q = bary[0] * a[k] + bary[1] * b[k] + bary[2] * c[k] - p[k];
        d2 += q * q;
    }
    return d2;
}

void skf_bvh_closest_hint(const skf_bvh *bvh, const double p[3], uint32_t hint, skf_surface_point *out)
{
    double best = DBL_MAX;
    uint32_t best_tri = UINT32_MAX;
    double best_bary[3] = {1, 0, 0};
    if (hint < bvh->triangle_count) /* an upper bound to start from: prunes more, same result */
        best = triangle_dist2(bvh, hint, p, best_bary), best_tri = hint;
    struct {
        uint32_t node;
        double d2;
    } stack[2 * MAX_DEPTH + 8];
    int top = 0;
    stack[top].node = 0;
    stack[top++].d2 = box_dist2(&bvh->nodes[0], p);
    while (top > 0) {
        --top;
        if (stack[top].d2 > best)
            continue;
        const bvh_node *n = &bvh->nodes[stack[top].node];
        if (n->count > 0) {
            for (uint32_t i = n->first; i < n->first + n->count; ++i) {
                const double *tb = bvh->tri_box + 6 * (size_t)i;
                if (lohi_dist2(tb, tb + 3, p) > best) /* its box is already farther */
                    continue;
                uint32_t t = bvh->tri_order[i];
                double bary[3];
                double d2 = triangle_dist2(bvh, t, p, bary);
                if (d2 < best || (d2 == best && t < best_tri)) {
                    best = d2;
                    best_tri = t;
                    memcpy(best_bary, bary, sizeof bary);
                }
            }
            continue;
        }
        double dl = box_dist2(&bvh->nodes[n->left], p), dr = box_dist2(&bvh->nodes[n->right], p);
        /* push the farther first so the nearer is visited first */
        uint32_t first = n->left, second = n->right;
        double d1 = dl, d2 = dr;
        if (dl > dr)
            first = n->right, second = n->left, d1 = dr, d2 = dl;
        if (d2 <= best) {
            stack[top].node = second;
            stack[top++].d2 = d2;
        }
        if (d1 <= best) {
            stack[top].node = first;
            stack[top++].d2 = d1;
        }
    }
    const uint32_t *tv = bvh->triangles + 3 * (size_t)best_tri;
    out->triangle = best_tri;
    for (int k = 0; k < 3; ++k) {
        out->vertex[k] = tv[k];
        out->bary[k] = best_bary[k];
    }
    for (int a = 0; a < 3; ++a) {
        out->point[a] = 0;
        for (int k = 0; k < 3; ++k)
            out->point[a] += best_bary[k] * bvh->positions[3 * (size_t)tv[k] + a];
    }
    out->distance = sqrt(best);
}

void skf_bvh_closest(const skf_bvh *bvh, const double p[3], skf_surface_point *out)
{
    skf_bvh_closest_hint(bvh, p, UINT32_MAX, out);
}

void skf_surface_moments(const double *positions, const uint32_t *triangles, size_t triangle_count,
                         double *area, double centroid[3], double cov[9])
{
    /* Exact moments of a uniform-density triangle: for vertices a b c and area
     * A, ∫x = A(a+b+c)/3 and ∫x xᵀ = A/12 (Σ_k p_k p_kᵀ + s sᵀ), s = a+b+c. */
    double total = 0, m1[3] = {0, 0, 0}, m2[9] = {0};
    for (size_t t = 0; t < triangle_count; ++t) {
        const double *a = positions + 3 * (size_t)triangles[3 * t];
        const double *b = positions + 3 * (size_t)triangles[3 * t + 1];
        const double *c = positions + 3 * (size_t)triangles[3 * t + 2];
        double ab[3], ac[3], n[3];
        for (int i = 0; i < 3; ++i) {
            ab[i] = b[i] - a[i];
            ac[i] = c[i] - a[i];
        }
        skf_cross3(n, ab, ac);
        double A = 0.5 * skf_norm3(n);
        if (!(A > 0))
            continue;
        double s[3];
        for (int i = 0; i < 3; ++i)
            s[i] = a[i] + b[i] + c[i];
        total += A;
        for (int i = 0; i < 3; ++i)
            m1[i] += A * s[i] / 3.0;
        for (int col = 0; col < 3; ++col)
            for (int row = 0; row < 3; ++row)
                m2[col * 3 + row] += A / 12.0 *
                                     (a[row] * a[col] + b[row] * b[col] + c[row] * c[col] + s[row] * s[col]);
    }
    *area = total;
    for (int i = 0; i < 3; ++i)
        centroid[i] = total > 0 ? m1[i] / total : 0;
    for (int col = 0; col < 3; ++col)
        for (int row = 0; row < 3; ++row)
            cov[col * 3 + row] = total > 0 ? m2[col * 3 + row] / total - centroid[row] * centroid[col] : 0;
}
