/* Internal helpers shared by the renderer files in src/render/.
 * Prefix skfi_ = internal, not API. */
#ifndef SKINFIT_RENDER_INTERNAL_H
#define SKINFIT_RENDER_INTERNAL_H

#include "skinfit/render.h"

#include <math.h>

/* Fixed palette of the non-data parts (0xRRGGBBAA). */
#define SKF_RENDER_BACKGROUND 0xFFFFFFFFu
#define SKF_RENDER_SILHOUETTE 0x3C3C46FFu
#define SKF_RENDER_TEXT 0x202020FFu
#define SKF_RENDER_NEUTRAL 0xD2CABEFFu /* ground-truth surface base colour */

/* Lighting: shade = AMBIENT + DIFFUSE · max(0, n·l) in [0.4, 1]. */
#define SKF_RENDER_AMBIENT 0.4
#define SKF_RENDER_DIFFUSE 0.6

static inline uint8_t skfi_shade8(uint8_t c, double s)
{
    double v = c * s + 0.5;
    return (uint8_t)(v > 255 ? 255 : v < 0 ? 0 : v);
}

void skfi_colormap_rgb(int bin, uint8_t rgb[3]);

/* skf_colormap_bin (colormap.c documents the rule), inline for the
 * rasteriser's per-sample lookup. */
static inline int skfi_colormap_bin(double error_pct)
{
    if (isnan(error_pct))
        return SKF_COLORMAP_BINS - 1;
    if (error_pct <= 0)
        return 0;
    double k = error_pct / SKF_COLORMAP_BIN_PCT; /* > 0: truncation is floor below the last bin */
    if (k >= SKF_COLORMAP_BINS - 1)
        return SKF_COLORMAP_BINS - 1;
    return (int)k;
}

/* Orthographic camera: view-plane coordinates x = p·right, y = p·up, depth =
 * p·dir (increasing away from the viewer); pixel = origin + scale·(x − cx,
 * −(y − cy)) inside the panel. */
typedef struct skfi_camera {
    double right[3], up[3], dir[3];
    double light[3];        /* unit vector toward the light, world space */
    double cx, cy;          /* view-plane centre of the framed box */
    double scale;           /* pixels per scene unit */
} skfi_camera;

/* Basis for a view given the world bounding box of everything drawn. */
void skfi_camera_basis(skf_render_view view, const double lo[3], const double hi[3],
                       skfi_camera *cam);

/* Sample buffers of one panel: w × h samples (S per pixel per axis). A panel
 * is drawn in two passes (deferred shading): the depth pass keeps, per
 * sample, the nearest depth and the triangle that set it; the resolve shades
 * only those winners, with the arithmetic a single pass would use for every
 * sample that passed the depth test (the last one to pass is the winner, so
 * the bytes are the same), and box-filters. The drawing calls take a band of
 * sample rows [row0, row1) and touch only those rows, so bands draw in
 * parallel; each sample sees the triangles in index order whatever the
 * bands, so the bytes do not depend on the banding. The buffers need not hold
 * the whole panel: they hold the sample rows [y0, y0 + rows) (one band, so
 * that a band's samples stay in cache and a frame touches no panel-sized
 * memory); coordinates stay the panel's (h is its full height, which the
 * scan's rounding bound reads), and a call draws only rows the buffers hold. */
typedef struct skfi_raster {
    int w, h;          /* the panel's samples: w × h */
    int y0, rows;      /* the buffers hold sample rows [y0, y0 + rows) */
    float *depth;      /* [w*rows], +inf = no surface sample (a winner's depth is < +inf) */
    uint32_t *tri;     /* [w*rows]: the triangle that set depth; read only where depth < +inf */
    uint8_t *layer;    /* [w*rows]: 1 where the silhouette covers, else 0 (silhouette buffer) */
} skfi_raster;

/* Offset of sample row y (y0 <= y < y0 + rows) in the buffers of r. */
static inline size_t skfi_raster_row(const skfi_raster *r, int y)
{
    return (size_t)(y - r->y0) * (size_t)r->w;
}

/* Per-vertex screen data (sample coordinates) for one surface and frame. */
typedef struct skfi_screen_vertex {
    float x, y, z;     /* sample-space position and depth */
    float shade;       /* Gouraud intensity in [AMBIENT, 1] */
    float err_pct;     /* error in % of the diagonal, < 0 for the neutral colour */
} skfi_screen_vertex;

/* What the resolve needs to shade a winning sample of one triangle: the
 * vertices' screen data as doubles (as the depth pass reads them) and the
 * triangle's colour rule. */
typedef struct skfi_tri_shade {
    double ax, ay, bx, by, cx, cy;
    double sa, sb, sc, ea, eb, ec;  /* shade and error at the three vertices */
    double inv;                     /* 1 / signed area, as the depth pass computes it */
    int bin;                        /* -2: neutral colour; -1: bin per sample; else every sample's bin */
    int unit_shade;                 /* every vertex shade in [0, 1]: no clamp needed */
} skfi_tri_shade;

/* yext[2t], yext[2t + 1] = the least and the greatest y of triangle t's
 * screen vertices, t < triangle_count: what the scans read first to skip a
 * triangle that lies wholly above or below the rows they draw (a frame is
 * drawn in many bands of a few rows). */
void skfi_raster_y_extents(const skfi_screen_vertex *v, const uint32_t *tri, size_t triangle_count,
                           float *yext);
/* Whether triangle t lies wholly outside sample rows [row0, row1) by its y
 * extent: max y − 0.5 < row0 gives floor(max y − 0.5) < row0, and min y −
 * 0.5 > row1 − 1 gives ceil(min y − 0.5) > row1 − 1, so the scan's own rows
 * (raster_scan.h, tri_scan_setup) would be empty: only triangles the scan
 * itself skips are skipped (in double, as there). */
static inline bool skfi_tri_misses_rows(const float *yext, size_t t, int row0, int row1)
{
    return (double)yext[2 * t + 1] - 0.5 < row0 || (double)yext[2 * t] - 0.5 > row1 - 1.0;
}

/* Depth rows [row0, row1) to +inf (no surface). */
void skfi_raster_clear_depth(skfi_raster *r, int row0, int row1);
/* Layer rows [row0, row1) to 0, then 1 inside any triangle (no depth test);
 * yext: skfi_raster_y_extents of the triangles. */
void skfi_raster_silhouette(skfi_raster *r, const skfi_screen_vertex *v, const uint32_t *tri,
                            const float *yext, size_t triangle_count, int row0, int row1);
/* The depth pass: per sample inside a triangle, in triangle order, depth and
 * tri are set where the interpolated depth is below the stored one; yext:
 * skfi_raster_y_extents of the triangles. */
void skfi_raster_depth(skfi_raster *r, const skfi_screen_vertex *v, const uint32_t *tri,
                       const float *yext, size_t triangle_count, int row0, int row1);
/* out[t] for every triangle t (the resolve's shading data). */
void skfi_raster_shade_setup(const skfi_screen_vertex *v, const uint32_t *tri,
                             size_t triangle_count, skfi_tri_shade *out);
/* Shade and box-filter the S×S samples of pixel rows [py0, py1) into img at
 * (x0, y0): a winner gets colormap bin of its interpolated error (or neutral
 * when its triangle has one) × interpolated shade; other samples the
 * silhouette colour where sil (may be NULL) covers, else the background.
 * Fills aux (may be NULL members) whose rows are img_w wide. scratch: 6·w
 * bytes of sample-row colours and 3·w column sums. */
void skfi_raster_resolve(const skfi_raster *r, const skfi_raster *sil, const skfi_tri_shade *shade,
                         uint32_t neutral_rgba, int S, int py0, int py1, uint8_t *rowbuf,
                         uint16_t *colsum, skf_image *img, int x0, int y0, uint8_t *coverage,
                         float *depth, int img_w);

/* The colours the resolve shades with, as doubles (c·s is then the same
 * product as for the byte): the neutral base and the bin colours, also as
 * one plane per channel (the AVX2 kernel gathers from them). */
typedef struct skfi_palette {
    double neutral[3];
    double bins[SKF_COLORMAP_BINS][3];
    double plane[3][16];
} skfi_palette;

/* The colours of sample row y as three planes of w bytes (raster.c). */
void skfi_compose_row(const skfi_raster *r, const skfi_raster *sil, const skfi_tri_shade *shade,
                      const skfi_palette *pal, int y, uint8_t *R, uint8_t *G, uint8_t *B);

#ifdef SKF_RASTER_AVX2
/* The same kernels in AVX2 lanes (raster_avx2.c, x86-64, chosen at run time
 * when the CPU has AVX2): the same IEEE operations in the same order per
 * sample, so the same bytes, with four samples per instruction. */
void skfi_raster_depth_avx2(skfi_raster *r, const skfi_screen_vertex *v, const uint32_t *tri,
                            const float *yext, size_t triangle_count, int row0, int row1);
void skfi_raster_silhouette_avx2(skfi_raster *r, const skfi_screen_vertex *v, const uint32_t *tri,
                                 const float *yext, size_t triangle_count, int row0, int row1);
void skfi_compose_row_avx2(const skfi_raster *r, const skfi_raster *sil, const skfi_tri_shade *shade,
                           const skfi_palette *pal, int y, uint8_t *R, uint8_t *G, uint8_t *B);
void skfi_raster_clear_depth_avx2(skfi_raster *r, int row0, int row1);
/* colsum[i] (+)= row[i], i < n: = on the first sample row of a pixel row. */
void skfi_accumulate_avx2(uint16_t *colsum, const uint8_t *row, size_t n, bool first);
/* 4×4 box filter of the column sums (3 planes of `plane` values) into the
 * RGBA pixels out[0 .. 4·n) of the first n = pw rounded down to 8 pixels;
 * returns n. */
int skfi_box4_row_avx2(const uint16_t *colsum, size_t plane, int pw, uint8_t *out);
#endif

/* Test hook: nonzero makes the rasteriser and the PNG filter choice use their
 * portable kernels even where the AVX2 ones could run (tests/render/
 * test_raster_kernels and test_png_filter run both). Set it only while
 * nothing is being drawn or encoded. */
extern int skfi_render_portable;
/* Test hook: nonzero replaces the renderer's band budget (render.c,
 * BAND_BYTES: the bytes of samples a band of pixel rows may hold) for the
 * renderers made after it is set; tests/render/test_raster_kernels draws the
 * same frames at one pixel row a band and at one band a panel. */
extern size_t skfi_render_band_bytes;
/* Whether the AVX2 kernels run: built for them, the CPU has AVX2 and the hook is 0. */
bool skfi_raster_use_avx2(void);

/* Smooth vertex normals (area-weighted face normals summed over vertices that
 * share a position in the weld map): normals [N*3] (unit or zero),
 * scratch [weld_count*3]. */
void skfi_vertex_normals(const double *pos, size_t n, const uint32_t *tri, size_t tri_count,
                         const uint32_t *weld, size_t weld_count, double *scratch,
                         double *normals);

/* Weld map by exact position: weld[i] = id of vertex i's position (0..*count-1). */
skf_status skfi_weld_positions(const double *pos, size_t n, uint32_t *weld, size_t *count,
                               skf_error *err);

#endif
