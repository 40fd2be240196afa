/* Constraint correspondence: each target vertex follows a point of the
 * source surface (triangle + barycentric coordinates), and even subsampling
 * of the constraints.
 *
 * References: the closest-point map is the standard surface correspondence
 * for meshes of one shape (e.g. Sumner & Popović, "Deformation transfer for
 * triangle meshes", SIGGRAPH 2004, §5 — closest valid point after alignment);
 * farthest point sampling follows Eldar et al., "The farthest point strategy
 * for progressive image sampling" (IEEE TIP 1997).
 *
 * Why barycentric on the rest surface: the map is computed once, at rest, and
 * then carried through every frame by the same barycentric combination of the
 * deformed source vertices, so a target vertex rides on the source triangle
 * it sits on. When the target vertex coincides with a source vertex the
 * barycentrics are (1,0,0) up to rounding and the carried point is exact.
 */
#include "skinfit/surface.h"
#include "skinfit/math.h"

#include "surface_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

void skf_correspondence_release(skf_correspondence *c)
{
    if (!c)
        return;
    skf_free(c->target_vertex);
    skf_free(c->source_vertex);
    skf_free(c->bary);
    memset(c, 0, sizeof *c);
}

skf_status skf_correspond(const double *source_positions, size_t source_vertex_count,
                          const uint32_t *source_triangles, size_t source_triangle_count,
                          const double *target_positions, size_t target_vertex_count,
                          const skf_alignment *alignment, const uint32_t *constraint_vertices,
                          size_t constraint_count, skf_correspondence *out, skf_error *err)
{
    memset(out, 0, sizeof *out);
    size_t n = constraint_vertices ? constraint_count : target_vertex_count;
    if (constraint_vertices)
        for (size_t c = 0; c < n; ++c)
            if (constraint_vertices[c] >= target_vertex_count)
                return skf_fail(err, SKF_ERR_ARGUMENT, "correspond: constraints[%zu]: vertex %u out of range (%zu)",
                                c, constraint_vertices[c], target_vertex_count);
    out->count = n;
    out->target_vertex = skf_malloc_array(n ? n : 1, sizeof(uint32_t));
    out->source_vertex = skf_malloc_array(n ? 3 * n : 1, sizeof(uint32_t));
    out->bary = skf_malloc_array(n ? 3 * n : 1, sizeof(double));
    if (!out->target_vertex || !out->source_vertex || !out->bary) {
        skf_correspondence_release(out);
        return skf_fail(err, SKF_ERR_NOMEM, "correspond: %zu constraints: out of memory", n);
    }
    for (size_t c = 0; c < n; ++c)
        out->target_vertex[c] = constraint_vertices ? constraint_vertices[c] : (uint32_t)c;

    /* Identity: same vertex array (same count, same positions, same order). */
    bool same = alignment->identity && source_vertex_count == target_vertex_count &&
                (source_positions == target_positions ||
                 !memcmp(source_positions, target_positions, 3 * target_vertex_count * sizeof(double)));
    if (same) {
        for (size_t c = 0; c < n; ++c) {
            uint32_t v = out->target_vertex[c];
            out->source_vertex[3 * c] = out->source_vertex[3 * c + 1] = out->source_vertex[3 * c + 2] = v;
            out->bary[3 * c] = 1;
            out->bary[3 * c + 1] = out->bary[3 * c + 2] = 0;
        }
        return SKF_OK;
    }
    skf_bvh *bvh = NULL;
    skf_status st = skfi_bvh_build_view(source_positions, source_vertex_count, source_triangles,
                                  source_triangle_count, &bvh, err);
    if (st) {
        skf_correspondence_release(out);
        return st;
    }
    double maxd = 0;
#pragma omp parallel for schedule(dynamic, 256) reduction(max : maxd)
    for (size_t c = 0; c < n; ++c) {
        double q[3];
        skf_mat4_transform_point(q, alignment->target_to_source,
                                 target_positions + 3 * (size_t)out->target_vertex[c]);
        skf_surface_point sp;
        skf_bvh_closest(bvh, q, &sp);
        /* A target vertex that coincides with a source vertex lands in that
         * vertex's Voronoi region: barycentrics exactly (1,0,0) up to order. */
        for (int k = 0; k < 3; ++k) {
            out->source_vertex[3 * c + k] = sp.vertex[k];
            out->bary[3 * c + k] = sp.bary[k];
        }
        if (sp.distance > maxd)
            maxd = sp.distance;
    }
    out->max_distance = maxd;
    skf_bvh_free(bvh);
    return SKF_OK;
}

void skf_correspondence_apply(const skf_correspondence *c, const double source_to_target[16],
                              const double *source_frame, double *u)
{
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < c->count; ++k) {
        double p[3] = {0, 0, 0};
        for (int j = 0; j < 3; ++j) {
            double b = c->bary[3 * k + j];
            if (b == 0)
                continue;
            const double *s = source_frame + 3 * (size_t)c->source_vertex[3 * k + j];
            p[0] += b * s[0];
            p[1] += b * s[1];
            p[2] += b * s[2];
        }
        if (source_to_target)
            skf_mat4_transform_point(u + 3 * k, source_to_target, p);
        else
            memcpy(u + 3 * k, p, sizeof p);
    }
}

skf_status skf_subsample_even(const double *positions, size_t vertex_count, size_t max_count,
                              uint32_t **out_vertices, size_t *out_count, skf_error *err)
{
    *out_vertices = NULL;
    *out_count = 0;
    size_t m = (max_count == 0 || max_count >= vertex_count) ? vertex_count : max_count;
    uint32_t *sel = skf_malloc_array(m ? m : 1, sizeof(uint32_t));
    if (!sel)
        return skf_fail(err, SKF_ERR_NOMEM, "subsample: %zu vertices: out of memory", m);
    if (m == vertex_count) {
        for (size_t i = 0; i < m; ++i)
            sel[i] = (uint32_t)i;
        *out_vertices = sel;
        *out_count = m;
        return SKF_OK;
    }
    double *d2 = skf_malloc_array(vertex_count, sizeof(double));
    if (!d2) {
        skf_free(sel);
        return skf_fail(err, SKF_ERR_NOMEM, "subsample: %zu vertices: out of memory", vertex_count);
    }
    double cen[3] = {0, 0, 0};
    for (size_t i = 0; i < vertex_count; ++i)
        for (int a = 0; a < 3; ++a)
            cen[a] += positions[3 * i + a] / (double)vertex_count;
    size_t first = 0;
    double far = -1;
    for (size_t i = 0; i < vertex_count; ++i) {
        const double *p = positions + 3 * i;
        double d[3] = {p[0] - cen[0], p[1] - cen[1], p[2] - cen[2]};
        double dd = skf_dot3(d, d);
        if (dd > far) {
            far = dd;
            first = i;
        }
        d2[i] = DBL_MAX;
    }
    size_t cur = first;
    for (size_t k = 0; k < m; ++k) {
        sel[k] = (uint32_t)cur;
        const double *c = positions + 3 * cur;
        size_t next = 0;
        double nd = -1;
#pragma omp parallel
        {
            size_t lnext = 0;
            double lnd = -1;
#pragma omp for schedule(static) nowait
            for (size_t i = 0; i < vertex_count; ++i) {
                const double *p = positions + 3 * i;
                double d[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
                double dd = skf_dot3(d, d);
                if (dd < d2[i])
                    d2[i] = dd;
                if (d2[i] > lnd) {
                    lnd = d2[i];
                    lnext = i;
                }
            }
#pragma omp critical
            {
                if (lnd > nd || (lnd == nd && lnext < next)) {
                    nd = lnd;
                    next = lnext;
                }
            }
        }
        cur = next;
    }
    skf_free(d2);
    *out_vertices = sel;
    *out_count = m;
    return SKF_OK;
}
