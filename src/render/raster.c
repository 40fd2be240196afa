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

void skfi_raster_clear(skfi_raster *r, uint32_t rgba)
{
    size_t n = (size_t)r->w * (size_t)r->h;
    uint8_t c[3] = {(uint8_t)(rgba >> 24), (uint8_t)(rgba >> 16), (uint8_t)(rgba >> 8)};
#pragma omp simd
    for (size_t i = 0; i < n; ++i)
        r->depth[i] = INFINITY;
    memset(r->layer, 0, n);
    if (c[0] == c[1] && c[1] == c[2])
        memset(r->rgb, c[0], 3 * n);
    else
        for (size_t i = 0; i < n; ++i)
            memcpy(r->rgb + 3 * i, c, 3);
}

static inline double edge(double ax, double ay, double bx, double by, double px, double py)
{
    return (bx - ax) * (py - ay) - (by - ay) * (px - ax);
}

/* Conservative column range [*lo, *hi] of row py (sample centre) where the
 * edge (p, q) can hold the inside of a triangle of orientation sign s: the
 * exact per-sample test stays the criterion; this only skips samples that are
 * at least 2 samples outside the edge's line (rounding is ~1e-12 samples). A
 * near-horizontal edge (|dy| <= 1e-6 samples) leaves the range unchanged. */
static inline void edge_span(double px, double py, double qx, double qy, double s, double row_y, int *lo,
                             int *hi)
{
    double dx = qx - px, dy = qy - py;
    if (!(fabs(dy) > 1e-6))
        return;
    /* inside: s·(dx·(row_y − py) − dy·(x − px)) >= 0 */
    double cross = px + dx * (row_y - py) / dy; /* x where the edge crosses the row */
    if (s * dy > 0) {
        double b = floor(cross - 0.5) + 2;      /* x <= cross */
        if (b < *hi)
            *hi = b < *lo - 1 ? *lo - 1 : (int)b;
    } else {
        double b = ceil(cross - 0.5) - 2;       /* x >= cross */
        if (b > *lo)
            *lo = b > *hi + 1 ? *hi + 1 : (int)b;
    }
}

/* Visit the samples inside triangle (a, b, c): calls body with barycentrics.
 * Per row, the columns are first narrowed to the triangle's conservative span
 * (edge_span), then each sample is tested exactly as before. */
#define RASTER_TRIANGLE(R, A, B, C, BODY)                                                    \
    do {                                                                                    \
        double area_ = edge(A.x, A.y, B.x, B.y, C.x, C.y);                                  \
        if (!(fabs(area_) > 1e-12))                                                         \
            break;                                                                          \
        double minx_ = fmin(A.x, fmin(B.x, C.x)), maxx_ = fmax(A.x, fmax(B.x, C.x));        \
        double miny_ = fmin(A.y, fmin(B.y, C.y)), maxy_ = fmax(A.y, fmax(B.y, C.y));        \
        int x0_ = (int)fmax(0.0, ceil(minx_ - 0.5)), x1_ = (int)fmin(R->w - 1.0, floor(maxx_ - 0.5)); \
        int y0_ = (int)fmax(0.0, ceil(miny_ - 0.5)), y1_ = (int)fmin(R->h - 1.0, floor(maxy_ - 0.5)); \
        if (x0_ > x1_ || y0_ > y1_)                                                         \
            break;                                                                          \
        double inv_ = 1.0 / area_, sgn_ = area_ > 0 ? 1.0 : -1.0;                           \
        for (int sy_ = y0_; sy_ <= y1_; ++sy_) {                                            \
            double py_ = sy_ + 0.5;                                                         \
            int lo_ = x0_, hi_ = x1_;                                                       \
            edge_span(B.x, B.y, C.x, C.y, sgn_, py_, &lo_, &hi_);                           \
            edge_span(C.x, C.y, A.x, A.y, sgn_, py_, &lo_, &hi_);                           \
            edge_span(A.x, A.y, B.x, B.y, sgn_, py_, &lo_, &hi_);                           \
            for (int sx_ = lo_; sx_ <= hi_; ++sx_) {                                        \
                double px_ = sx_ + 0.5;                                                     \
                double b0 = edge(B.x, B.y, C.x, C.y, px_, py_) * inv_;                      \
                double b1 = edge(C.x, C.y, A.x, A.y, px_, py_) * inv_;                      \
                double b2 = 1.0 - b0 - b1;                                                  \
                if (b0 < 0 || b1 < 0 || b2 < 0)                                             \
                    continue;                                                               \
                size_t idx = (size_t)sy_ * (size_t)R->w + (size_t)sx_;                      \
                BODY                                                                        \
            }                                                                               \
        }                                                                                   \
    } while (0)

void skfi_raster_silhouette(skfi_raster *r, const skfi_screen_vertex *v, const uint32_t *tri,
                            size_t triangle_count, uint32_t rgba)
{
    uint8_t c[3] = {(uint8_t)(rgba >> 24), (uint8_t)(rgba >> 16), (uint8_t)(rgba >> 8)};
    for (size_t t = 0; t < triangle_count; ++t) {
        const skfi_screen_vertex a = v[tri[3 * t]], b = v[tri[3 * t + 1]], cc = v[tri[3 * t + 2]];
        RASTER_TRIANGLE(r, a, b, cc, {
            (void)b2;
            r->layer[idx] = 1;
            memcpy(r->rgb + 3 * idx, c, 3);
        });
    }
}

void skfi_raster_surface(skfi_raster *r, const skfi_screen_vertex *v, const uint32_t *tri,
                         size_t triangle_count, uint32_t neutral_rgba)
{
    uint8_t neutral[3] = {(uint8_t)(neutral_rgba >> 24), (uint8_t)(neutral_rgba >> 16),
                          (uint8_t)(neutral_rgba >> 8)};
    uint8_t bins[SKF_COLORMAP_BINS][3];
    for (int k = 0; k < SKF_COLORMAP_BINS; ++k)
        skfi_colormap_rgb(k, bins[k]);
    for (size_t t = 0; t < triangle_count; ++t) {
        const skfi_screen_vertex a = v[tri[3 * t]], b = v[tri[3 * t + 1]], cc = v[tri[3 * t + 2]];
        bool neutral_tri = a.err_pct < 0 || b.err_pct < 0 || cc.err_pct < 0;
        RASTER_TRIANGLE(r, a, b, cc, {
            float z = (float)(b0 * a.z + b1 * b.z + b2 * cc.z);
            if (!(z < r->depth[idx]))
                continue;
            r->depth[idx] = z;
            r->layer[idx] = 2;
            double s = b0 * a.shade + b1 * b.shade + b2 * cc.shade;
            const uint8_t *base = neutral;
            if (!neutral_tri)
                base = bins[skfi_colormap_bin(b0 * a.err_pct + b1 * b.err_pct + b2 * cc.err_pct)];
            uint8_t *dst = r->rgb + 3 * idx;
            dst[0] = skfi_shade8(base[0], s);
            dst[1] = skfi_shade8(base[1], s);
            dst[2] = skfi_shade8(base[2], s);
        });
    }
}

void skfi_raster_resolve(const skfi_raster *r, int S, skf_image *img, int x0, int y0,
                         uint8_t *coverage, float *depth, int img_w)
{
    int pw = r->w / S, ph = r->h / S;
    unsigned n = (unsigned)(S * S);
    size_t row_values = 3 * (size_t)pw * (size_t)S; /* the rgb values of one sample row in use */
    for (int py = 0; py < ph; ++py) {
        int iy = y0 + py;
        if (iy < 0 || iy >= img->height)
            continue;
        /* column sums of the S sample rows of this pixel row (S·S·255 < 2^16) */
        uint16_t *col = r->colsum;
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
        for (int px = 0; px < pw; ++px) {
            int ix = x0 + px;
            if (ix < 0 || ix >= img->width)
                continue;
            unsigned sum[3] = {0, 0, 0};
            const uint16_t *c = col + 3 * (size_t)px * (size_t)S;
            for (int sx = 0; sx < S; ++sx, c += 3)
                sum[0] += c[0], sum[1] += c[1], sum[2] += c[2];
            uint8_t *p = skf_image_at(img, ix, iy);
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
