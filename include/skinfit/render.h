/* skinfit/render.h — error heat maps without a GPU, a leaf drawing library:
 * a software rasteriser, the error colormap, panel layout (ground truth | one
 * panel per rig) and PNG / animated GIF output.
 *
 * The renderer draws what it is given: a scene of surfaces per frame and, for
 * a rig panel, per-vertex values. It knows nothing of rigs, solvers or
 * transfers and never computes an error itself; skinfit/report.h builds the
 * scenes from what the transfer returned (the errors its table is computed
 * from), so the picture and the table cannot drift.
 *
 * Spaces and units: positions are WORLD space (glTF: +Y up), scene units.
 * errors are scene units; a panel shows them as 100 · error / diagonal, the %
 * of the rest bounding-box diagonal of the surface the metric was measured
 * on (the target's). Pixel coordinates: x right, y down, (0,0) = top-left
 * corner of the image, pixel (i, j) covers [i, i+1) × [j, j+1).
 *
 * Ownership: skf_renderer_new copies nothing large: the scene's arrays must
 * outlive the renderer. Images written into are caller-owned (skf_image).
 * Decisions (bins, framing, lighting) are documented in docs/render.md.
 */
#ifndef SKINFIT_RENDER_H
#define SKINFIT_RENDER_H

#include "skinfit/base.h"
#include "skinfit/image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- colormap (src/render/colormap.c) -------------------------------------
 * Stepped: SKF_COLORMAP_BINS bins of SKF_COLORMAP_BIN_PCT % of the diagonal.
 * Bin k covers [k·0.25 %, (k+1)·0.25 %) for k = 0..11; bin 12 is 3 % or worse.
 * Bin 0 ("zero bin") is [0, 0.25 %): an error below a quarter of a percent of
 * the diagonal (≈ 0.5 mm on a 2 m animal) is invisible at panel size. Colours
 * are fully saturated hues from blue (240°, bin 0) to red (0°, bin 12) in 20°
 * steps, so shading (a scalar factor) never moves a colour to another bin. */
#define SKF_COLORMAP_BINS 13
#define SKF_COLORMAP_BIN_PCT 0.25
#define SKF_COLORMAP_MAX_PCT 3.0

/* Bin of an error in % of the diagonal (NaN and negative → bin 0 is NOT
 * silently chosen: NaN maps to the last bin, negative values to bin 0). */
int skf_colormap_bin(double error_pct);
/* 0xRRGGBBFF colour of bin (clamped to 0..BINS-1). */
uint32_t skf_colormap_color(int bin);
/* Bin whose hue best matches an RGB colour that may be shaded (scaled by a
 * factor in (0,1]) or slightly blended: the largest cosine between the colour
 * and the bin colours as RGB vectors. Returns -1 for (near-)grey colours
 * (saturation below 0.25), e.g. background, silhouette, ground truth. */
int skf_colormap_classify(const uint8_t rgb[3]);

/* ---- scene ------------------------------------------------------------------ */

typedef struct skf_render_surface {
    size_t vertex_count;          /* N */
    const double *positions;      /* [frame_count][N*3] world positions, frame-major */
    size_t triangle_count;
    const uint32_t *triangles;    /* [triangle_count*3], indices < N */
} skf_render_surface;

typedef struct skf_render_panel {
    const char *label;            /* drawn above the panel; may be NULL */
    skf_render_surface surface;   /* the rig's solved surface (or the ground truth) */
    const double *errors;         /* [frame_count][N] per-vertex error, scene units; NULL: a
                                     neutral ground-truth panel */
    double diagonal;              /* > 0 when errors is set: errors shown as % of it */
    bool silhouette;              /* draw scene.ground_truth as a dark silhouette behind */
    const uint8_t *measured;      /* [N] or NULL (every vertex has an error): a vertex with
                                     measured[i] == 0 carries none (its errors entries are not
                                     read) and a triangle touching it is drawn neutral */
} skf_render_panel;

typedef struct skf_render_scene {
    size_t frame_count;
    const skf_render_surface *ground_truth; /* for silhouettes; may be NULL */
    size_t panel_count;           /* 1..SKF_RENDER_MAX_PANELS */
    const skf_render_panel *panels;
} skf_render_scene;

#define SKF_RENDER_MAX_PANELS 64

typedef enum skf_render_view {
    SKF_VIEW_SIDE = 0,        /* looking across the animal's long horizontal axis */
    SKF_VIEW_FRONT,           /* looking along the long horizontal axis */
    SKF_VIEW_TOP,             /* looking down -Y */
    SKF_VIEW_THREE_QUARTER    /* side rotated 45° toward the front, 25° from above */
} skf_render_view;

/* Parse "side" | "front" | "top" | "three-quarter"; false when unknown. */
bool skf_render_view_parse(const char *s, skf_render_view *out);

/* Zeroed options = defaults. */
typedef struct skf_render_options {
    int width, height;       /* whole image in pixels; 0 → 320·panels × 320 */
    skf_render_view view;
    int supersample;         /* S: S×S samples per pixel, 1..8; 0 → 4 */
    bool no_legend;          /* omit the colormap legend band */
    bool no_labels;          /* omit the label band */
    const char *title;       /* drawn at the left of the legend band (e.g. "Horse · Walk"); may be NULL */
    int threads;             /* OpenMP threads; 0 → all */
} skf_render_options;

typedef struct skf_renderer skf_renderer;

/* Start the text machinery the labels and legend are drawn with (cairo's
 * toy font "sans-serif": fontconfig's configuration and font list, the face
 * and a scaled font), draws nothing. skf_renderer_new would do it on its
 * first text; called before, on a thread of the caller's while it does other
 * work (the CLI does beside the load and solve of `transfer --html`), that
 * start-up (~25 M instructions, fontconfig's parse of its configuration
 * mostly) leaves the drawing's critical path. Thread-safe, idempotent in
 * effect; the bytes drawn later do not depend on it. */
void skf_render_text_warm_up(void);

/* Check the scene (sizes, indices < N, finite positions), frame the camera on
 * the bounding box of every surface over every frame (orthographic, one
 * camera for all panels), lay out the panels and draw the static parts
 * (labels, legend). Errors: SKF_ERR_ARGUMENT ("panel 2: triangles[7]: index 9
 * >= 8 vertices", bad size), SKF_ERR_FORMAT (non-finite position or error,
 * naming panel, frame and vertex), SKF_ERR_NOMEM. */
skf_status skf_renderer_new(const skf_render_scene *scene, const skf_render_options *opt,
                            skf_renderer **out, skf_error *err);
void skf_renderer_free(skf_renderer *r);

int skf_renderer_width(const skf_renderer *r);
int skf_renderer_height(const skf_renderer *r);
int skf_renderer_supersample(const skf_renderer *r);
/* Rectangle of panel k in the image (pixels). */
void skf_renderer_panel_rect(const skf_renderer *r, size_t panel, int *x, int *y, int *w, int *h);

/* Per-pixel by-products of skf_render_frame, for tests and probes
 * (caller-owned arrays of width·height entries, row-major; either may be NULL):
 *   coverage: how many of the S² samples show the panel's own surface
 *             (S² = the pixel lies entirely inside the surface's mask);
 *   depth:    nearest depth of the panel's surface in the pixel along the view
 *             direction (scene units, as skf_renderer_project returns it);
 *             +INFINITY where the surface does not cover the pixel. */
typedef struct skf_render_aux {
    uint8_t *coverage;
    float *depth;
} skf_render_aux;

/* Draw frame `frame` (< scene.frame_count) into img, which must be
 * width × height (SKF_ERR_ARGUMENT otherwise). Parallel over panels. */
skf_status skf_render_frame(skf_renderer *r, size_t frame, skf_image *img,
                            const skf_render_aux *aux, skf_error *err);

/* Where a world point p lands in panel k: pixel coordinates (*x, *y) in the
 * whole image and depth along the view direction. */
void skf_renderer_project(const skf_renderer *r, size_t panel, const double p[3], double *x,
                          double *y, double *depth);

/* Colours a GIF of these images should keep exactly (skf_gif_options.reserved):
 * background, silhouette, text, and every colormap bin at 8 shading levels.
 * Returns the count written (<= max). */
size_t skf_render_reserved_colors(uint32_t *out, size_t max);

/* ---- output (src/render/render_output.c) ---------------------------------- */

/* Render the frames listed (indices into the scene, in order) and write path:
 *   *.gif — an animated GIF, one GIF frame per listed frame, each shown for
 *           100/fps hundredths of a second (fps <= 0 → 24), looping forever;
 *   *.png — the listed frames stacked top to bottom (one frame: a single
 *           width × height image).
 * Any other extension is SKF_ERR_ARGUMENT. progress may be NULL. */
skf_status skf_render_write(const skf_render_scene *scene, const skf_render_options *opt,
                            const size_t *frames, size_t frame_count, double fps,
                            const char *path, const skf_progress *progress, skf_error *err);

#ifdef __cplusplus
}
#endif
#endif
