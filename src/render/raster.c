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
 * by a scalar, which keeps its hue (see colormap.c).
 *
 * Deferred shading: a panel is drawn as a depth pass (per sample the nearest
 * depth and the triangle that set it) and a resolve that shades only those
 * winners, sample row by sample row, and box-filters. A sample's colour is a
 * function of its last depth-test winner alone (the single pass before it
 * stored the colour of every sample that passed the test, so the last one to
 * pass stayed), and the resolve evaluates it with the same expressions, so
 * the bytes are those of shading every passing sample at about half the
 * shading work (Horse Walk: 2.07 M samples pass, 1.06 M win). The kernels
 * here are portable (scalar, SSE2 pairs on x86-64); raster_avx2.c holds the
 * same kernels four lanes wide, used when the CPU has AVX2. */
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

void skfi_raster_clear_depth(skfi_raster *r, int row0, int row1)
{
#ifdef SKF_RASTER_AVX2
    if (skfi_raster_use_avx2()) {
        skfi_raster_clear_depth_avx2(r, row0, row1);
        return;
    }
#endif
    size_t first = skfi_raster_row(r, row0), n = (size_t)(row1 - row0) * (size_t)r->w;
    float *depth = r->depth + first;
#pragma omp simd
    for (size_t i = 0; i < n; ++i)
        depth[i] = INFINITY;
}

#include "render/raster_scan.h"

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
#define PAIR_CONSTANTS                                                                       \
    const __m128d BX = _mm_set1_pd(bx), CX = _mm_set1_pd(cx), D0 = _mm_set1_pd(d0),         \
                  D1 = _mm_set1_pd(d1), INV = _mm_set1_pd(inv), ONE = _mm_set1_pd(1.0),     \
                  ZERO = _mm_setzero_pd(), HALF = _mm_set1_pd(0.5)
#endif

#ifdef __SSE2__
#define ROW_SETUP(SY)                                                                        \
    ROW_SETUP_SCALAR(SY);                                                                   \
    const __m128d R0 = _mm_set1_pd(r0), R1 = _mm_set1_pd(r1)
#else
#define ROW_SETUP(SY) ROW_SETUP_SCALAR(SY)
#define PAIR_CONSTANTS (void)0
#endif

int skfi_render_portable;

bool skfi_raster_use_avx2(void)
{
#ifdef SKF_RASTER_AVX2
    return !skfi_render_portable && __builtin_cpu_supports("avx2");
#else
    return false;
#endif
}

void skfi_raster_silhouette(skfi_raster *r, const skfi_screen_vertex *v, const uint32_t *tri,
                            const float *yext, size_t triangle_count, int row0, int row1)
{
    memset(r->layer + skfi_raster_row(r, row0), 0, (size_t)(row1 - row0) * (size_t)r->w);
#ifdef SKF_RASTER_AVX2
    if (skfi_raster_use_avx2()) {
        skfi_raster_silhouette_avx2(r, v, tri, yext, triangle_count, row0, row1);
        return;
    }
#endif
    for (size_t t = 0; t < triangle_count; ++t) {
        TRI_SCAN_BEGIN(t);
        PAIR_CONSTANTS;
        for (int sy = ts.y0; sy <= ts.y1; ++sy) {
            ROW_SETUP(sy);
            uint8_t *layer = r->layer + row;
#ifdef __SSE2__
            for (; sx < hi; sx += 2) {
                INSIDE_PAIR(sx);
                layer[sx] |= (uint8_t)(in & 1);
                layer[sx + 1] |= (uint8_t)(in >> 1);
            }
#endif
            for (; sx <= hi; ++sx) {
                INSIDE_SCALAR(sx);
                layer[sx] |= (uint8_t)inside;
            }
        }
    }
}

/* Per row, the samples of the span are tested two at a time in SSE2 lanes on
 * x86-64 (the same IEEE double operations in the same order as the scalar
 * expressions, so the same bits), the odd one out by the scalar test; the
 * depth is interpolated alike, and the depth test runs per sample in column
 * order. */
void skfi_raster_depth(skfi_raster *r, const skfi_screen_vertex *v, const uint32_t *tri,
                       const float *yext, size_t triangle_count, int row0, int row1)
{
#ifdef SKF_RASTER_AVX2
    if (skfi_raster_use_avx2()) {
        skfi_raster_depth_avx2(r, v, tri, yext, triangle_count, row0, row1);
        return;
    }
#endif
    for (size_t t = 0; t < triangle_count; ++t) {
        TRI_SCAN_BEGIN(t);
        const uint32_t id = (uint32_t)t;
        const double za = a.z, zb = b.z, zc = cc.z;
#ifdef __SSE2__
        PAIR_CONSTANTS;
        const __m128d ZA = _mm_set1_pd(za), ZB = _mm_set1_pd(zb), ZC = _mm_set1_pd(zc);
#endif
        for (int sy = ts.y0; sy <= ts.y1; ++sy) {
            ROW_SETUP(sy);
            float *depth = r->depth + row;
            uint32_t *owner = r->tri + row;
#ifdef __SSE2__
            for (; sx < hi; sx += 2) {
                INSIDE_PAIR(sx);
                if (!in)
                    continue;
                __m128d z = _mm_add_pd(_mm_add_pd(_mm_mul_pd(b0v, ZA), _mm_mul_pd(b1v, ZB)), _mm_mul_pd(b2v, ZC));
                float zf[4];
                _mm_storeu_ps(zf, _mm_cvtpd_ps(z));
                if ((in & 1) && zf[0] < depth[sx])
                    depth[sx] = zf[0], owner[sx] = id;
                if ((in & 2) && zf[1] < depth[sx + 1])
                    depth[sx + 1] = zf[1], owner[sx + 1] = id;
            }
#endif
            for (; sx <= hi; ++sx) {
                INSIDE_SCALAR(sx);
                if (!inside)
                    continue;
                float z = (float)(b0 * za + b1 * zb + b2 * zc);
                if (z < depth[sx])
                    depth[sx] = z, owner[sx] = id;
            }
        }
    }
}

void skfi_raster_y_extents(const skfi_screen_vertex *v, const uint32_t *tri, size_t triangle_count,
                           float *yext)
{
    for (size_t t = 0; t < triangle_count; ++t) {
        float ya = v[tri[3 * t]].y, yb = v[tri[3 * t + 1]].y, yc = v[tri[3 * t + 2]].y;
        /* the least and greatest of the three floats, exact (a NaN, which the
         * positions' check rules out, also makes the scan's area test reject
         * the triangle, so whatever is stored for it skips the same) */
        float lo = ya < yb ? ya : yb, hi = ya > yb ? ya : yb;
        yext[2 * t] = yc < lo ? yc : lo;
        yext[2 * t + 1] = yc > hi ? yc : hi;
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

void skfi_raster_shade_setup(const skfi_screen_vertex *v, const uint32_t *tri,
                             size_t triangle_count, skfi_tri_shade *out)
{
    for (size_t t = 0; t < triangle_count; ++t) {
        const skfi_screen_vertex a = v[tri[3 * t]], b = v[tri[3 * t + 1]], c = v[tri[3 * t + 2]];
        skfi_tri_shade *T = &out[t];
        T->ax = a.x, T->ay = a.y, T->bx = b.x, T->by = b.y, T->cx = c.x, T->cy = c.y;
        T->sa = a.shade, T->sb = b.shade, T->sc = c.shade;
        T->ea = a.err_pct, T->eb = b.err_pct, T->ec = c.err_pct;
        /* the depth pass's 1/area (tri_scan_setup): the same operands, the same bits */
        T->inv = 1.0 / edge(a.x, a.y, b.x, b.y, c.x, c.y);
        bool neutral_tri = a.err_pct < 0 || b.err_pct < 0 || c.err_pct < 0;
        T->bin = neutral_tri ? -2 : constant_bin(a.err_pct, b.err_pct, c.err_pct);
        /* Shades in [0, 1] keep c·s + 0.5 in [0.5, 256) (s is their convex
         * combination within a few ulp), where the clamp of skfi_shade8 is
         * the identity: the plain truncation gives the same byte. */
        T->unit_shade = a.shade >= 0 && a.shade <= 1 && b.shade >= 0 && b.shade <= 1 &&
                        c.shade >= 0 && c.shade <= 1;
    }
}

/* The first column >= x of a sample row whose depth is below +inf (a
 * winner), or w. */
static inline int next_winner(const float *depth, int x, int w)
{
#ifdef __SSE2__
    const __m128 inf = _mm_set1_ps(INFINITY);
    for (; x + 4 <= w; x += 4) {
        int m = _mm_movemask_ps(_mm_cmplt_ps(_mm_loadu_ps(depth + x), inf));
        if (m)
            return x + __builtin_ctz((unsigned)m);
    }
#endif
    while (x < w && !(depth[x] < INFINITY))
        ++x;
    return x;
}

/* The colours of sample row y as three planes of w bytes: background or
 * silhouette, then every winner shaded from its triangle, run by run (the
 * winners of one triangle along a row share its constants). A winner's
 * barycentrics, shade and error are the depth pass's expressions (the same
 * operands and order), and its colour is what a single shading pass would
 * have stored last. */
void skfi_compose_row(const skfi_raster *r, const skfi_raster *sil, const skfi_tri_shade *shade,
                      const skfi_palette *pal, int y, uint8_t *R, uint8_t *G, uint8_t *B)
{
    const double(*bins)[3] = pal->bins;
    COMPOSE_ROW_BEGIN;
    int x = next_winner(depth, 0, w);
    while (x < w) {
        const uint32_t t = owner[x];
        const skfi_tri_shade *T = &shade[t];
        const double ax = T->ax, ay = T->ay, bx = T->bx, by = T->by, cx = T->cx, cy = T->cy;
        const double d0 = cy - by, d1 = ay - cy, inv = T->inv;
        const double r0 = (cx - bx) * (py - by), r1 = (ax - cx) * (py - cy);
        const double sa = T->sa, sb = T->sb, sc = T->sc, ea = T->ea, eb = T->eb, ec = T->ec;
        const double *base = T->bin == -2 ? pal->neutral : T->bin >= 0 ? bins[T->bin] : NULL;
        const bool unit = T->unit_shade;
        do {
            INSIDE_SCALAR(x);
            (void)inside;
            double s = b0 * sa + b1 * sb + b2 * sc;
            const double *c = base;
            if (!c)
                c = bins[skfi_colormap_bin(b0 * ea + b1 * eb + b2 * ec)];
            if (unit) {
                R[x] = (uint8_t)(int)(c[0] * s + 0.5);
                G[x] = (uint8_t)(int)(c[1] * s + 0.5);
                B[x] = (uint8_t)(int)(c[2] * s + 0.5);
            } else {
                R[x] = skfi_shade8((uint8_t)c[0], s);
                G[x] = skfi_shade8((uint8_t)c[1], s);
                B[x] = skfi_shade8((uint8_t)c[2], s);
            }
            ++x;
        } while (x < w && depth[x] < INFINITY && owner[x] == t);
        if (x < w && !(depth[x] < INFINITY))
            x = next_winner(depth, x, w);
    }
}

void skfi_raster_resolve(const skfi_raster *r, const skfi_raster *sil, const skfi_tri_shade *shade,
                         uint32_t neutral_rgba, int S, int py0, int py1, uint8_t *rowbuf,
                         uint16_t *colsum, skf_image *img, int x0, int y0, uint8_t *coverage,
                         float *depth, int img_w)
{
    skfi_palette pal;
    memset(&pal, 0, sizeof pal);
    for (int c = 0; c < 3; ++c)
        pal.neutral[c] = (uint8_t)(neutral_rgba >> (24 - 8 * c));
    for (int k = 0; k < SKF_COLORMAP_BINS; ++k) {
        uint8_t rgb[3];
        skfi_colormap_rgb(k, rgb);
        for (int c = 0; c < 3; ++c)
            pal.bins[k][c] = pal.plane[c][k] = rgb[c];
    }
    bool avx2 = skfi_raster_use_avx2();
    int w = r->w, pw = w / S;
    unsigned n = (unsigned)(S * S);
    int shift = -1;
    for (int k = 0; k < 7; ++k)
        if (n == 1u << k)
            shift = k;
    size_t plane = (size_t)w;
    uint8_t *R = rowbuf, *G = rowbuf + plane, *B = rowbuf + 2 * plane;
    for (int py = py0; py < py1; ++py) {
        int iy = y0 + py;
        if (iy < 0 || iy >= img->height)
            continue;
        /* column sums of the S sample rows of this pixel row, one plane per
         * channel (S·S·255 < 2^16) */
        for (int sy = 0; sy < S; ++sy) {
#ifdef SKF_RASTER_AVX2
            if (avx2)
                skfi_compose_row_avx2(r, sil, shade, &pal, py * S + sy, R, G, B);
            else
#endif
                skfi_compose_row(r, sil, shade, &pal, py * S + sy, R, G, B);
#ifdef SKF_RASTER_AVX2
            if (avx2) {
                skfi_accumulate_avx2(colsum, rowbuf, 3 * plane, sy == 0);
                continue;
            }
#endif
            if (sy == 0) {
#pragma omp simd
                for (size_t i = 0; i < 3 * plane; ++i)
                    colsum[i] = rowbuf[i];
            } else {
#pragma omp simd
                for (size_t i = 0; i < 3 * plane; ++i)
                    colsum[i] = (uint16_t)(colsum[i] + rowbuf[i]);
            }
        }
        uint8_t *out_row = img->pixels + (size_t)iy * img->stride;
        int px = 0;
#ifdef SKF_RASTER_AVX2
        if (avx2 && S == 4 && !coverage && !depth && x0 >= 0 && x0 + pw <= img->width)
            px = skfi_box4_row_avx2(colsum, plane, pw, out_row + 4 * (size_t)x0);
#endif
        for (; px < pw; ++px) {
            int ix = x0 + px;
            if (ix < 0 || ix >= img->width)
                continue;
            uint8_t *p = out_row + 4 * (size_t)ix;
            for (int k = 0; k < 3; ++k) {
                const uint16_t *c = colsum + (size_t)k * plane + (size_t)px * (size_t)S;
                unsigned sum = 0;
                for (int sx = 0; sx < S; ++sx)
                    sum += c[sx];
                /* n a power of two: the same quotient as the division */
                p[k] = (uint8_t)(shift >= 0 ? (sum + n / 2) >> shift : (sum + n / 2) / n);
            }
            p[3] = 255;
            if (!coverage && !depth)
                continue;
            unsigned cov = 0;
            float dmin = INFINITY;
            for (int sy = 0; sy < S; ++sy) {
                const float *d = r->depth + skfi_raster_row(r, py * S + sy) + (size_t)(px * S);
                for (int sx = 0; sx < S; ++sx)
                    if (d[sx] < INFINITY) {
                        ++cov;
                        if (d[sx] < dmin)
                            dmin = d[sx];
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
