/* The scan of one triangle shared by the rasteriser's portable (raster.c)
 * and AVX2 (raster_avx2.c) kernels: edge functions (Pineda 1988), the
 * per-triangle set-up and per-row span, and the scalar inside test. Both
 * files include it so that they compute the same IEEE operations in the same
 * order (both are built with -ffp-contract=off). */
#ifndef SKINFIT_RENDER_RASTER_SCAN_H
#define SKINFIT_RENDER_RASTER_SCAN_H

#include "render/render_internal.h"

#include <stdbool.h>
#include <string.h>

/* fmin and fmax inline (a libm call each otherwise, as the C rules for NaN
 * keep the compiler from using a min instruction): a NaN operand gives the
 * other one, as there; a tie of signed zeros may give either zero, which
 * none of the uses below tells apart (they take ceil/floor to int, or a
 * maximum of absolute values). */
static inline double scan_min(double a, double b)
{
    return a < b ? a : b == b ? b : a;
}
static inline double scan_max(double a, double b)
{
    return a > b ? a : b == b ? b : a;
}

static inline double edge(double ax, double ay, double bx, double by, double px, double py)
{
    return (bx - ax) * (py - ay) - (by - ay) * (px - ax);
}

/* Per-triangle set-up of the scan: bounding box, 1/area, and per edge the
 * line's crossing of a row, x = px + slope·(row_y − py), with the side that
 * holds the inside and a tolerance. The crossing only narrows the columns a
 * row visits; the exact per-sample test (the barycentrics, computed as
 * before) stays the criterion. tol bounds how far beyond the line a sample
 * may still pass the rounded test, plus the crossing's own rounding:
 * 1e-13·(M² + M·(|dx| + |dy|)) / |dy| samples, where M bounds every
 * coordinate (sample and vertex) and the rounding of an edge function or of
 * b2 = 1 − b0 − b1 is below 1e-14·M² (IEEE double, no contraction): at
 * M = 1300 and |dy| = 1 about 2e-7 samples. A near-horizontal edge (|dy| <=
 * 1e-6 samples) or a non-finite bound narrows nothing. */
typedef struct scan_edge {
    double px, py, slope, tol;
} scan_edge;

typedef struct tri_scan {
    double inv, sgn;
    int x0, x1, y0, y1;
    int n_upper, n_lower;
    scan_edge upper[3]; /* the inside has x <= crossing */
    scan_edge lower[3]; /* the inside has x >= crossing */
} tri_scan;

static inline bool tri_scan_setup(const skfi_raster *R, const skfi_screen_vertex *A,
                                  const skfi_screen_vertex *B, const skfi_screen_vertex *C, int band0,
                                  int band1, tri_scan *t)
{
    double area = edge(A->x, A->y, B->x, B->y, C->x, C->y);
    if (!(fabs(area) > 1e-12))
        return false;
    double minx = scan_min(A->x, scan_min(B->x, C->x)), maxx = scan_max(A->x, scan_max(B->x, C->x));
    double miny = scan_min(A->y, scan_min(B->y, C->y)), maxy = scan_max(A->y, scan_max(B->y, C->y));
    t->x0 = (int)scan_max(0.0, ceil(minx - 0.5)), t->x1 = (int)scan_min(R->w - 1.0, floor(maxx - 0.5));
    t->y0 = (int)scan_max(band0, ceil(miny - 0.5)), t->y1 = (int)scan_min(band1 - 1.0, floor(maxy - 0.5));
    if (t->x0 > t->x1 || t->y0 > t->y1)
        return false;
    t->inv = 1.0 / area, t->sgn = area > 0 ? 1.0 : -1.0;
    double M = 1.0 + scan_max(scan_max(fabs(minx), fabs(maxx)), scan_max(fabs(miny), fabs(maxy)));
    M = scan_max(M, 1.0 + scan_max(R->w, R->h));
    const skfi_screen_vertex *P[3] = {B, C, A}, *Q[3] = {C, A, B};
    t->n_upper = t->n_lower = 0;
    for (int e = 0; e < 3; ++e) {
        double px = P[e]->x, py = P[e]->y, dx = Q[e]->x - px, dy = Q[e]->y - py;
        if (!(fabs(dy) > 1e-6))
            continue;
        double tol = 1e-13 * (M * M + M * (fabs(dx) + fabs(dy))) / fabs(dy) + 1e-9;
        double slope = dx / dy;
        if (!isfinite(tol) || !isfinite(slope))
            continue;
        /* inside: sgn·(dx·(row_y − py) − dy·(x − px)) >= 0 */
        scan_edge *se = t->sgn * dy > 0 ? &t->upper[t->n_upper++] : &t->lower[t->n_lower++];
        se->px = px, se->py = py, se->slope = slope, se->tol = tol;
    }
    return true;
}

/* The columns [*lo, *hi] of sample row sy that can hold the inside (empty:
 * *hi < *lo): the box's columns narrowed by every bounding edge's crossing.
 * Only which columns get the exact test depends on it, and it keeps every
 * column that can pass that test. */
static inline void tri_scan_row(const tri_scan *t, double row_y, int *lo, int *hi)
{
    double l = t->x0, h = t->x1;
    for (int k = 0; k < t->n_upper; ++k) {
        const scan_edge *e = &t->upper[k];
        double b = floor(e->px + e->slope * (row_y - e->py) - 0.5 + e->tol);
        h = b < h ? b : h;
    }
    for (int k = 0; k < t->n_lower; ++k) {
        const scan_edge *e = &t->lower[k];
        double b = ceil(e->px + e->slope * (row_y - e->py) - 0.5 - e->tol);
        l = b > l ? b : l;
    }
    if (l > h) /* also keeps the conversions below inside [x0, x1] */
        *lo = t->x0, *hi = t->x0 - 1;
    else
        *lo = (int)l, *hi = (int)h;
}

/* The inside test of a sample, scalar: b0 = edge(B, C, p)/area, b1 =
 * edge(C, A, p)/area (their row-constant halves r0, r1 hoisted: the same IEEE
 * operations in the same order), b2 = 1 − b0 − b1, all >= 0. */
#define INSIDE_SCALAR(SX)                                                                    \
    double px = (SX) + 0.5;                                                                 \
    double b0 = (r0 - d0 * (px - bx)) * inv;                                                \
    double b1 = (r1 - d1 * (px - cx)) * inv;                                                \
    double b2 = 1.0 - b0 - b1;                                                              \
    bool inside = !(b0 < 0 || b1 < 0 || b2 < 0)

/* Triangle t of a scan over sample rows [row0, row1) (in scope: v, tri,
 * yext, r, row0, row1): its screen vertices a, b, cc, the scan ts
 * (`continue` when the triangle misses the rows by its y extent, is
 * degenerate or misses them by the scan's set-up), the coordinates as doubles
 * and the constants d0, d1, inv of INSIDE_SCALAR. */
#define TRI_SCAN_BEGIN(t)                                                                    \
    if (skfi_tri_misses_rows(yext, (t), row0, row1))                                        \
        continue;                                                                           \
    const skfi_screen_vertex a = v[tri[3 * (t)]], b = v[tri[3 * (t) + 1]], cc = v[tri[3 * (t) + 2]]; \
    tri_scan ts;                                                                            \
    if (!tri_scan_setup(r, &a, &b, &cc, row0, row1, &ts))                                   \
        continue;                                                                           \
    const double ax = a.x, ay = a.y, bx = b.x, by = b.y, cx = cc.x, cy = cc.y;             \
    const double d0 = cy - by, d1 = ay - cy, inv = ts.inv

/* Row SY of a triangle's scan (ts; vertices ax..cy): the columns [lo, hi]
 * that can hold the inside, the row-constant halves r0, r1 of the edge
 * functions of INSIDE_SCALAR, the index of the row's first sample, and
 * sx = lo, the first column to test. */
#define ROW_SETUP_SCALAR(SY)                                                                 \
    double py = (SY) + 0.5;                                                                 \
    int lo, hi;                                                                             \
    tri_scan_row(&ts, py, &lo, &hi);                                                        \
    const double r0 = (cx - bx) * (py - by), r1 = (ax - cx) * (py - cy);                   \
    size_t row = skfi_raster_row(r, (SY));                                                  \
    int sx = lo

/* The start of a compose of sample row y (in scope: r, sil, y, R, G, B):
 * the base colours (compose_base), the row's depth and owner, and py. */
#define COMPOSE_ROW_BEGIN                                                                    \
    int w = r->w;                                                                           \
    compose_base(r, sil, y, R, G, B);                                                       \
    const float *depth = r->depth + skfi_raster_row(r, y);                                   \
    const uint32_t *owner = r->tri + skfi_raster_row(r, y);                                  \
    const double py = y + 0.5

/* The colours of sample row y before its winners: the silhouette colour
 * where sil (may be NULL) covers, else the background; three planes. */
static inline void compose_base(const skfi_raster *r, const skfi_raster *sil, int y, uint8_t *R,
                                uint8_t *G, uint8_t *B)
{
    int w = r->w;
    const uint8_t bg[3] = {(uint8_t)(SKF_RENDER_BACKGROUND >> 24), (uint8_t)(SKF_RENDER_BACKGROUND >> 16),
                           (uint8_t)(SKF_RENDER_BACKGROUND >> 8)};
    if (sil) {
        const uint8_t sc[3] = {(uint8_t)(SKF_RENDER_SILHOUETTE >> 24),
                               (uint8_t)(SKF_RENDER_SILHOUETTE >> 16),
                               (uint8_t)(SKF_RENDER_SILHOUETTE >> 8)};
        const uint8_t *L = sil->layer + skfi_raster_row(sil, y);
#pragma omp simd
        for (int x = 0; x < w; ++x) {
            R[x] = L[x] ? sc[0] : bg[0];
            G[x] = L[x] ? sc[1] : bg[1];
            B[x] = L[x] ? sc[2] : bg[2];
        }
    } else {
        memset(R, bg[0], (size_t)w);
        memset(G, bg[1], (size_t)w);
        memset(B, bg[2], (size_t)w);
    }
}

#endif
