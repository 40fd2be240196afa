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

/* Sample buffer of one panel: w × h samples (S per pixel per axis). The
 * drawing calls take a band of sample rows [row0, row1) and touch only those
 * rows, so bands draw in parallel; each sample sees the triangles in index
 * order whatever the bands, so the bytes do not depend on the banding. */
typedef struct skfi_raster {
    int w, h;
    float *depth;      /* [w*h], +inf = empty */
    uint8_t *rgb;      /* [w*h*3] */
    uint8_t *layer;    /* [w*h]: 0 background, 1 silhouette, 2 surface */
} skfi_raster;

/* Per-vertex screen data (sample coordinates) for one surface and frame. */
typedef struct skfi_screen_vertex {
    float x, y, z;     /* sample-space position and depth */
    float shade;       /* Gouraud intensity in [AMBIENT, 1] */
    float err_pct;     /* error in % of the diagonal, < 0 for the neutral colour */
} skfi_screen_vertex;

void skfi_raster_clear(skfi_raster *r, uint32_t rgba, int row0, int row1);
/* Rows [row0, row1) of src into dst (the same size). */
void skfi_raster_copy_rows(skfi_raster *dst, const skfi_raster *src, int row0, int row1);
/* Fill triangles flat with rgba on layer 1 (no depth test). */
void skfi_raster_silhouette(skfi_raster *r, const skfi_screen_vertex *v, const uint32_t *tri,
                            size_t triangle_count, uint32_t rgba, int row0, int row1);
/* Depth-tested, Gouraud-shaded triangles on layer 2: colour = colormap bin of
 * the interpolated error (or neutral when err_pct < 0) × interpolated shade. */
void skfi_raster_surface(skfi_raster *r, const skfi_screen_vertex *v, const uint32_t *tri,
                         size_t triangle_count, uint32_t neutral_rgba, int row0, int row1);
/* Box-filter the S×S samples of pixel rows [py0, py1) into img at (x0, y0);
 * fill aux (may be NULL members) whose rows are img_w wide. colsum: scratch
 * of w*3 values. */
void skfi_raster_resolve(const skfi_raster *r, int S, int py0, int py1, uint16_t *colsum,
                         skf_image *img, int x0, int y0, uint8_t *coverage, float *depth, int img_w);

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
