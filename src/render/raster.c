/* Software rasteriser: z-buffered triangles with edge functions (J. Pineda,
 * "A parallel algorithm for polygon rasterization", SIGGRAPH 1988), Gouraud
 * shading (H. Gouraud, "Continuous shading of curved surfaces", IEEE Trans.
 * Computers 1971), supersampling with a box filter, orthographic camera.
 *
 * Why the error is interpolated and binned per sample (rather than the
 * vertex colours interpolated): the colormap is stepped, so interpolating
 * colours would invent colours that belong to no bin; interpolating the
 * scalar and looking up its bin draws crisp iso-error bands, and at a vertex
 * the colour is exactly that vertex's bin. Shading multiplies the bin colour
 * by a scalar, which keeps its hue (see colormap.c). */
#include "render/render_internal.h"
#include "skinfit/math.h"

#include <float.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdlib.h>
#include <string.h>

static void normalize3(double v[3])
{
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (n > 0)
        v[0] /= n, v[1] /= n, v[2] /= n;
}

void skfi_camera_basis(skf_render_view view, const double lo[3], const double hi[3],
                       skfi_camera *cam)
{
    memset(cam, 0, sizeof *cam);
    /* glTF is +Y up. The animal's long horizontal axis is whichever of X and
     * Z the bounding box spans more; "side" looks across it. */
    bool long_x = (hi[0] - lo[0]) >= (hi[2] - lo[2]);
    double along[3] = {long_x ? 1 : 0, 0, long_x ? 0 : 1};   /* long axis */
    double across[3] = {long_x ? 0 : 1, 0, long_x ? 1 : 0};  /* short axis */
    double up_hint[3] = {0, 1, 0};
    double dir[3];
    switch (view) {
    case SKF_VIEW_FRONT:
        for (int k = 0; k < 3; ++k)
            dir[k] = -along[k];
        break;
    case SKF_VIEW_TOP:
        dir[0] = 0, dir[1] = -1, dir[2] = 0;
        for (int k = 0; k < 3; ++k)
            up_hint[k] = across[k];
        break;
    case SKF_VIEW_THREE_QUARTER: {
        double az = 45.0 * M_PI / 180.0, el = 25.0 * M_PI / 180.0;
        for (int k = 0; k < 3; ++k)
            dir[k] = cos(el) * (cos(az) * -across[k] + sin(az) * -along[k]);
        dir[1] = -sin(el);
        break;
    }
    case SKF_VIEW_SIDE:
    default:
        for (int k = 0; k < 3; ++k)
            dir[k] = -across[k];
        break;
    }
    normalize3(dir);
    double right[3], up[3];
    skf_cross3(right, dir, up_hint);
    normalize3(right);
    skf_cross3(up, right, dir);
    normalize3(up);
    memcpy(cam->dir, dir, sizeof dir);
    memcpy(cam->right, right, sizeof right);
    memcpy(cam->up, up, sizeof up);
    /* light from the upper left, in front of the viewer */
    for (int k = 0; k < 3; ++k)
        cam->light[k] = -0.45 * right[k] + 0.6 * up[k] - 0.66 * dir[k];
    normalize3(cam->light);
}

void skfi_raster_clear(skfi_raster *r, uint32_t rgba, int row0, int row1)
{
    size_t first = (size_t)row0 * (size_t)r->w, n = (size_t)(row1 - row0) * (size_t)r->w;
    uint8_t c[3] = {(uint8_t)(rgba >> 24), (uint8_t)(rgba >> 16), (uint8_t)(rgba >> 8)};
    float *depth = r->depth + first;
#pragma omp simd
    for (size_t i = 0; i < n; ++i)
        depth[i] = INFINITY;
    memset(r->layer + first, 0, n);
    if (c[0] == c[1] && c[1] == c[2])
        memset(r->rgb + 3 * first, c[0], 3 * n);
    else
        for (size_t i = 0; i < n; ++i)
            memcpy(r->rgb + 3 * (first + i), c, 3);
}

void skfi_raster_copy_rows(skfi_raster *dst, const skfi_raster *src, int row0, int row1)
{
    size_t first = (size_t)row0 * (size_t)src->w, n = (size_t)(row1 - row0) * (size_t)src->w;
    memcpy(dst->depth + first, src->depth + first, n * sizeof *dst->depth);
    memcpy(dst->rgb + 3 * first, src->rgb + 3 * first, 3 * n);
    memcpy(dst->layer + first, src->layer + first, n);
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
typedef struct tri_scan {
    double inv, sgn;
    int x0, x1, y0, y1;
    double px[3], py[3], slope[3], tol[3];
    int side[3]; /* +1: x <= crossing, −1: x >= crossing, 0: no bound */
} tri_scan;

static inline bool tri_scan_setup(const skfi_raster *R, const skfi_screen_vertex *A,
                                  const skfi_screen_vertex *B, const skfi_screen_vertex *C, int band0,
                                  int band1, tri_scan *t)
{
    double area = edge(A->x, A->y, B->x, B->y, C->x, C->y);
    if (!(fabs(area) > 1e-12))
        return false;
    double minx = fmin(A->x, fmin(B->x, C->x)), maxx = fmax(A->x, fmax(B->x, C->x));
    double miny = fmin(A->y, fmin(B->y, C->y)), maxy = fmax(A->y, fmax(B->y, C->y));
    t->x0 = (int)fmax(0.0, ceil(minx - 0.5)), t->x1 = (int)fmin(R->w - 1.0, floor(maxx - 0.5));
    t->y0 = (int)fmax(band0, ceil(miny - 0.5)), t->y1 = (int)fmin(band1 - 1.0, floor(maxy - 0.5));
    if (t->x0 > t->x1 || t->y0 > t->y1)
        return false;
    t->inv = 1.0 / area, t->sgn = area > 0 ? 1.0 : -1.0;
    double M = 1.0 + fmax(fmax(fabs(minx), fabs(maxx)), fmax(fabs(miny), fabs(maxy)));
    M = fmax(M, 1.0 + fmax(R->w, R->h));
    const skfi_screen_vertex *P[3] = {B, C, A}, *Q[3] = {C, A, B};
    for (int e = 0; e < 3; ++e) {
        double px = P[e]->x, py = P[e]->y, dx = Q[e]->x - px, dy = Q[e]->y - py;
        t->side[e] = 0;
        if (!(fabs(dy) > 1e-6))
            continue;
        double tol = 1e-13 * (M * M + M * (fabs(dx) + fabs(dy))) / fabs(dy) + 1e-9;
        double slope = dx / dy;
        if (!isfinite(tol) || !isfinite(slope))
            continue;
        /* inside: sgn·(dx·(row_y − py) − dy·(x − px)) >= 0 */
        t->side[e] = t->sgn * dy > 0 ? 1 : -1;
        t->px[e] = px, t->py[e] = py, t->slope[e] = slope, t->tol[e] = tol;
    }
    return true;
}

/* The columns [*lo, *hi] of sample row sy that can hold the inside. */
static inline void tri_scan_row(const tri_scan *t, double row_y, int *lo, int *hi)
{
    int l = t->x0, h = t->x1;
    for (int e = 0; e < 3; ++e) {
        if (!t->side[e])
            continue;
        double cross = t->px[e] + t->slope[e] * (row_y - t->py[e]);
        if (t->side[e] > 0) {
            double b = floor(cross - 0.5 + t->tol[e]);
            if (b < h)
                h = b < l - 1 ? l - 1 : (int)b;
        } else {
            double b = ceil(cross - 0.5 - t->tol[e]);
            if (b > l)
                l = b > h + 1 ? h + 1 : (int)b;
        }
    }
    *lo = l, *hi = h;
}

/* Row SY of a triangle's scan (ts; vertices ax..cy): the columns [lo, hi]
 * that can hold the inside, the row-constant halves r0, r1 of the edge
 * functions of INSIDE_SCALAR / INSIDE_PAIR (and with SSE2 both in lanes, R0,
 * R1), the index of the row's first sample, and sx = lo, the first column to
 * test. */
#define ROW_SETUP_SCALAR(SY)                                                                 \
    double py = (SY) + 0.5;                                                                 \
    int lo, hi;                                                                             \
    tri_scan_row(&ts, py, &lo, &hi);                                                        \
    const double r0 = (cx - bx) * (py - by), r1 = (ax - cx) * (py - cy);                   \
    size_t row = (size_t)(SY) * (size_t)r->w;                                               \
    int sx = lo

/* The inside test of a sample, scalar: b0 = edge(B, C, p)/area, b1 =
 * edge(C, A, p)/area (their row-constant halves r0, r1 hoisted: the same IEEE
 * operations in the same order), b2 = 1 − b0 − b1, all >= 0. */
#define INSIDE_SCALAR(SX)                                                                    \
    double px = (SX) + 0.5;                                                                 \
    double b0 = (r0 - d0 * (px - bx)) * inv;                                                \
    double b1 = (r1 - d1 * (px - cx)) * inv;                                                \
    double b2 = 1.0 - b0 - b1;                                                              \
    bool inside = !(b0 < 0 || b1 < 0 || b2 < 0)

#ifdef __SSE2__
/* The same test for samples SX, SX+1 in SSE2 lanes: "not less than 0" keeps a
 * NaN barycentric inside as the scalar test does; IN: bit k for SX+k. */
#define INSIDE_PAIR(SX)                                                                      \
    __m128d px2 = _mm_add_pd(_mm_cvtepi32_pd(_mm_setr_epi32((SX), (SX) + 1, 0, 0)), HALF);  \
    __m128d b0v = _mm_mul_pd(_mm_sub_pd(R0, _mm_mul_pd(D0, _mm_sub_pd(px2, BX))), INV);     \
    __m128d b1v = _mm_mul_pd(_mm_sub_pd(R1, _mm_mul_pd(D1, _mm_sub_pd(px2, CX))), INV);     \
    __m128d b2v = _mm_sub_pd(_mm_sub_pd(ONE, b0v), b1v);                                    \
    int in = _mm_movemask_pd(_mm_and_pd(_mm_and_pd(_mm_cmpnlt_pd(b0v, ZERO), _mm_cmpnlt_pd(b1v, ZERO)), \
                                        _mm_cmpnlt_pd(b2v, ZERO)))
#define ROW_SETUP(SY)                                                                        \
    ROW_SETUP_SCALAR(SY);                                                                   \
    const __m128d R0 = _mm_set1_pd(r0), R1 = _mm_set1_pd(r1)
#define PAIR_CONSTANTS                                                                       \
    const __m128d BX = _mm_set1_pd(bx), CX = _mm_set1_pd(cx), D0 = _mm_set1_pd(d0),         \
                  D1 = _mm_set1_pd(d1), INV = _mm_set1_pd(inv), ONE = _mm_set1_pd(1.0),     \
                  ZERO = _mm_setzero_pd(), HALF = _mm_set1_pd(0.5)
#else
#define ROW_SETUP(SY) ROW_SETUP_SCALAR(SY)
#define PAIR_CONSTANTS (void)0
#endif

void skfi_raster_silhouette(skfi_raster *r, const skfi_screen_vertex *v, const uint32_t *tri,
                            size_t triangle_count, uint32_t rgba, int row0, int row1)
{
    uint8_t c[3] = {(uint8_t)(rgba >> 24), (uint8_t)(rgba >> 16), (uint8_t)(rgba >> 8)};
    for (size_t t = 0; t < triangle_count; ++t) {
        const skfi_screen_vertex a = v[tri[3 * t]], b = v[tri[3 * t + 1]], cc = v[tri[3 * t + 2]];
        tri_scan ts;
        if (!tri_scan_setup(r, &a, &b, &cc, row0, row1, &ts))
            continue;
        const double ax = a.x, ay = a.y, bx = b.x, by = b.y, cx = cc.x, cy = cc.y;
        const double d0 = cy - by, d1 = ay - cy, inv = ts.inv;
        PAIR_CONSTANTS;
        for (int sy = ts.y0; sy <= ts.y1; ++sy) {
            ROW_SETUP(sy);
#ifdef __SSE2__
            for (; sx < hi; sx += 2) {
                INSIDE_PAIR(sx);
                for (int k = 0; k < 2; ++k)
                    if (in >> k & 1) {
                        r->layer[row + (size_t)sx + (size_t)k] = 1;
                        memcpy(r->rgb + 3 * (row + (size_t)sx + (size_t)k), c, 3);
                    }
            }
#endif
            for (; sx <= hi; ++sx) {
                INSIDE_SCALAR(sx);
                if (inside) {
                    r->layer[row + (size_t)sx] = 1;
                    memcpy(r->rgb + 3 * (row + (size_t)sx), c, 3);
                }
            }
        }
    }
}

/* The colour bin every sample of a triangle gets, or -1 when it may vary:
 * the interpolated error b0·ea + b1·eb + b2·ec (b >= 0, b0 + b1 + b2 = 1 up
 * to 2 ulp) lies within 1e-12·max|e| of [min e, max e] (its rounding is a
 * few ulp of max|e|), and skfi_colormap_bin is monotone, so equal bins at
 * both widened ends mean one bin. */
static int constant_bin(float ea, float eb, float ec)
{
    double lo = fmin(ea, fmin(eb, ec)), hi = fmax(ea, fmax(eb, ec));
    double m = fmax(fabs(lo), fabs(hi));
    double l = lo - 1e-12 * m, h = hi + 1e-12 * m;
    if (!isfinite(l) || !isfinite(h))
        return -1;
    int k = skfi_colormap_bin(l);
    return k == skfi_colormap_bin(h) ? k : -1;
}

/* A sample of a surface triangle inside it: the depth test, then the colour
 * (bin of the interpolated error e, or base when the triangle has one, times
 * the interpolated shade s). */
static inline void surface_store(skfi_raster *r, size_t idx, float z, double s, double e,
                                 const double *base, const double (*bins)[3], bool unit_shade)
{
    if (!(z < r->depth[idx]))
        return;
    r->depth[idx] = z;
    r->layer[idx] = 2;
    if (!base)
        base = bins[skfi_colormap_bin(e)];
    uint8_t *dst = r->rgb + 3 * idx;
    if (unit_shade) {
        dst[0] = (uint8_t)(int)(base[0] * s + 0.5);
        dst[1] = (uint8_t)(int)(base[1] * s + 0.5);
        dst[2] = (uint8_t)(int)(base[2] * s + 0.5);
    } else {
        dst[0] = skfi_shade8((uint8_t)base[0], s);
        dst[1] = skfi_shade8((uint8_t)base[1], s);
        dst[2] = skfi_shade8((uint8_t)base[2], s);
    }
}

/* Per row, the samples of the span are tested two at a time in SSE2 lanes on
 * x86-64 (the same IEEE double operations in the same order as the scalar
 * expressions, so the same bits), the odd one out by the scalar test; depth,
 * shade and error are interpolated alike, and the depth test and colour run
 * per sample in column order. */
void skfi_raster_surface(skfi_raster *r, const skfi_screen_vertex *v, const uint32_t *tri,
                         size_t triangle_count, uint32_t neutral_rgba, int row0, int row1)
{
    /* the colour bytes as doubles: c·s below is the same product as for the byte */
    double neutral[3] = {(uint8_t)(neutral_rgba >> 24), (uint8_t)(neutral_rgba >> 16),
                         (uint8_t)(neutral_rgba >> 8)};
    double bins[SKF_COLORMAP_BINS][3];
    for (int k = 0; k < SKF_COLORMAP_BINS; ++k) {
        uint8_t rgb[3];
        skfi_colormap_rgb(k, rgb);
        bins[k][0] = rgb[0], bins[k][1] = rgb[1], bins[k][2] = rgb[2];
    }
    for (size_t t = 0; t < triangle_count; ++t) {
        const skfi_screen_vertex a = v[tri[3 * t]], b = v[tri[3 * t + 1]], cc = v[tri[3 * t + 2]];
        tri_scan ts;
        if (!tri_scan_setup(r, &a, &b, &cc, row0, row1, &ts))
            continue;
        bool neutral_tri = a.err_pct < 0 || b.err_pct < 0 || cc.err_pct < 0;
        int fixed = neutral_tri ? -1 : constant_bin(a.err_pct, b.err_pct, cc.err_pct);
        const double *base = neutral_tri ? neutral : fixed >= 0 ? bins[fixed] : NULL;
        /* Shades in [0, 1] keep c·s + 0.5 in [0.5, 256) (s is their convex
         * combination within a few ulp), where the clamp of skfi_shade8 is
         * the identity: the plain truncation gives the same byte. */
        bool unit_shade = a.shade >= 0 && a.shade <= 1 && b.shade >= 0 && b.shade <= 1 &&
                          cc.shade >= 0 && cc.shade <= 1;
        const double ax = a.x, ay = a.y, bx = b.x, by = b.y, cx = cc.x, cy = cc.y;
        const double d0 = cy - by, d1 = ay - cy, inv = ts.inv;
        const double za = a.z, zb = b.z, zc = cc.z, sa = a.shade, sb = b.shade, sc = cc.shade;
        const double ea = a.err_pct, eb = b.err_pct, ec = cc.err_pct;
#ifdef __SSE2__
        PAIR_CONSTANTS;
        const __m128d ZA = _mm_set1_pd(za), ZB = _mm_set1_pd(zb), ZC = _mm_set1_pd(zc),
                      SA = _mm_set1_pd(sa), SB = _mm_set1_pd(sb), SC = _mm_set1_pd(sc),
                      EA = _mm_set1_pd(ea), EB = _mm_set1_pd(eb), EC = _mm_set1_pd(ec);
#endif
        for (int sy = ts.y0; sy <= ts.y1; ++sy) {
            ROW_SETUP(sy);
#ifdef __SSE2__
            for (; sx < hi; sx += 2) {
                INSIDE_PAIR(sx);
                if (!in)
                    continue;
                __m128d z = _mm_add_pd(_mm_add_pd(_mm_mul_pd(b0v, ZA), _mm_mul_pd(b1v, ZB)), _mm_mul_pd(b2v, ZC));
                __m128d s = _mm_add_pd(_mm_add_pd(_mm_mul_pd(b0v, SA), _mm_mul_pd(b1v, SB)), _mm_mul_pd(b2v, SC));
                __m128d e = _mm_add_pd(_mm_add_pd(_mm_mul_pd(b0v, EA), _mm_mul_pd(b1v, EB)), _mm_mul_pd(b2v, EC));
                float zf[4];
                double sv[2], ev[2];
                _mm_storeu_ps(zf, _mm_cvtpd_ps(z));
                _mm_storeu_pd(sv, s);
                _mm_storeu_pd(ev, e);
                if (in & 1)
                    surface_store(r, row + (size_t)sx, zf[0], sv[0], ev[0], base, bins, unit_shade);
                if (in & 2)
                    surface_store(r, row + (size_t)sx + 1, zf[1], sv[1], ev[1], base, bins, unit_shade);
            }
#endif
            for (; sx <= hi; ++sx) {
                INSIDE_SCALAR(sx);
                if (!inside)
                    continue;
                surface_store(r, row + (size_t)sx, (float)(b0 * za + b1 * zb + b2 * zc),
                              b0 * sa + b1 * sb + b2 * sc, b0 * ea + b1 * eb + b2 * ec, base, bins,
                              unit_shade);
            }
        }
    }
}

void skfi_raster_resolve(const skfi_raster *r, int S, int py0, int py1, uint16_t *colsum,
                         skf_image *img, int x0, int y0, uint8_t *coverage, float *depth, int img_w)
{
    int pw = r->w / S;
    unsigned n = (unsigned)(S * S);
    int shift = -1;
    for (int k = 0; k < 7; ++k)
        if (n == 1u << k)
            shift = k;
    size_t row_values = 3 * (size_t)pw * (size_t)S; /* the rgb values of one sample row in use */
    for (int py = py0; py < py1; ++py) {
        int iy = y0 + py;
        if (iy < 0 || iy >= img->height)
            continue;
        /* column sums of the S sample rows of this pixel row (S·S·255 < 2^16) */
        uint16_t *col = colsum;
        const uint8_t *src = r->rgb + 3 * (size_t)(py * S) * (size_t)r->w;
#pragma omp simd
        for (size_t i = 0; i < row_values; ++i)
            col[i] = src[i];
        for (int sy = 1; sy < S; ++sy) {
            src = r->rgb + 3 * (size_t)(py * S + sy) * (size_t)r->w;
#pragma omp simd
            for (size_t i = 0; i < row_values; ++i)
                col[i] = (uint16_t)(col[i] + src[i]);
        }
        uint8_t *out_row = img->pixels + (size_t)iy * img->stride;
        for (int px = 0; px < pw; ++px) {
            int ix = x0 + px;
            if (ix < 0 || ix >= img->width)
                continue;
            unsigned sum[3] = {0, 0, 0};
            const uint16_t *c = col + 3 * (size_t)px * (size_t)S;
            for (int sx = 0; sx < S; ++sx, c += 3)
                sum[0] += c[0], sum[1] += c[1], sum[2] += c[2];
            uint8_t *p = out_row + 4 * (size_t)ix;
            if (shift >= 0) /* n a power of two: the same quotient as the division */
                for (int k = 0; k < 3; ++k)
                    p[k] = (uint8_t)((sum[k] + n / 2) >> shift);
            else
                for (int k = 0; k < 3; ++k)
                    p[k] = (uint8_t)((sum[k] + n / 2) / n);
            p[3] = 255;
            if (!coverage && !depth)
                continue;
            unsigned cov = 0;
            float dmin = INFINITY;
            for (int sy = 0; sy < S; ++sy) {
                size_t row = (size_t)(py * S + sy) * (size_t)r->w + (size_t)(px * S);
                for (int sx = 0; sx < S; ++sx) {
                    size_t i = row + (size_t)sx;
                    if (r->layer[i] == 2) {
                        ++cov;
                        if (r->depth[i] < dmin)
                            dmin = r->depth[i];
                    }
                }
            }
            size_t o = (size_t)iy * (size_t)img_w + (size_t)ix;
            if (coverage)
                coverage[o] = (uint8_t)cov;
            if (depth)
                depth[o] = dmin;
        }
    }
}

void skfi_vertex_normals(const double *pos, size_t n, const uint32_t *tri, size_t tri_count,
                         const uint32_t *weld, size_t weld_count, double *scratch,
                         double *normals)
{
    memset(scratch, 0, weld_count * 3 * sizeof *scratch);
    for (size_t t = 0; t < tri_count; ++t) {
        const double *a = pos + 3 * (size_t)tri[3 * t], *b = pos + 3 * (size_t)tri[3 * t + 1],
                     *c = pos + 3 * (size_t)tri[3 * t + 2];
        double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        double fn[3];
        skf_cross3(fn, e1, e2); /* |fn| = 2·area: area weighting */
        for (int k = 0; k < 3; ++k) {
            double *dst = scratch + 3 * (size_t)weld[tri[3 * t + (size_t)k]];
            dst[0] += fn[0], dst[1] += fn[1], dst[2] += fn[2];
        }
    }
    for (size_t i = 0; i < n; ++i) {
        const double *s = scratch + 3 * (size_t)weld[i];
        double *d = normals + 3 * i;
        d[0] = s[0], d[1] = s[1], d[2] = s[2];
        normalize3(d);
    }
}

typedef struct keyed_vertex {
    double p[3];
    uint32_t index;
} keyed_vertex;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed_vertex *u = a, *v = b;
    for (int k = 0; k < 3; ++k) {
        if (u->p[k] < v->p[k])
            return -1;
        if (u->p[k] > v->p[k])
            return 1;
    }
    return u->index < v->index ? -1 : u->index > v->index;
}

skf_status skfi_weld_positions(const double *pos, size_t n, uint32_t *weld, size_t *count,
                               skf_error *err)
{
    *count = 0;
    if (n == 0)
        return SKF_OK;
    keyed_vertex *order = skf_malloc_array(n, sizeof *order);
    if (!order)
        return skf_fail(err, SKF_ERR_NOMEM, "render: out of memory welding %zu vertices", n);
    for (size_t i = 0; i < n; ++i) {
        memcpy(order[i].p, pos + 3 * i, sizeof order[i].p);
        order[i].index = (uint32_t)i;
    }
    qsort(order, n, sizeof *order, cmp_keyed);
    size_t id = 0;
    for (size_t i = 0; i < n; ++i) {
        if (i > 0 && cmp_keyed(&(keyed_vertex){{order[i].p[0], order[i].p[1], order[i].p[2]}, 0},
                               &(keyed_vertex){{order[i - 1].p[0], order[i - 1].p[1],
                                                order[i - 1].p[2]}, 0}) != 0)
            ++id;
        weld[order[i].index] = (uint32_t)id;
    }
    *count = id + 1;
    skf_free(order);
    return SKF_OK;
}
