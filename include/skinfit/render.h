/* skinfit/render.h — error heat maps without a GPU: a software rasteriser,
 * the error colormap, panel layout (ground truth | one panel per rig), PNG /
 * animated GIF output, and the self-contained HTML report.
 *
 * The renderer draws what it is given: surfaces per frame and, for a rig
 * panel, per-vertex errors. Those errors must come from the report's metric
 * routine (skf_quality_add_frame in skinfit/solve.h) so the picture and the
 * table cannot drift; this module never computes an error itself.
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
#include "skinfit/gltf.h"
#include "skinfit/image.h"
#include "skinfit/solve.h"
#include "skinfit/transfer.h"

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

/* ---- heat-map scenes from rigs (src/render/render_clip.c) -----------------
 *
 * A clip of the source (artist) document played on its welded skin-0 rig is
 * the ground truth (panel 0). Each rig added becomes one panel: its welded
 * surface skinned with per-frame transforms T_i (solve.h 3x4 layout, bind →
 * world) and, per vertex, the error ‖s − u‖ computed by skf_quality_add_frame
 * (solve.h) — the routine behind every reported metric — where u is the
 * source surface carried onto the rig's welded vertices through the same
 * alignment and correspondence the transfer uses (skf_align_surfaces,
 * skf_correspond over every welded vertex, skf_correspondence_apply). The
 * rig's surface is drawn in the source's world space (mapped by the
 * alignment's target_to_source), errors stay in the rig's units and are shown
 * as % of the rig's rest bounding-box diagonal (welded, bind space), as in the
 * report. Frame f is at clip start + f / fps (skf_clip_frame_fps/_count). */

typedef struct skf_render_clip skf_render_clip;

/* Bake clip_name (matched like skf_gltf_find_animation: "Walk" finds
 * "AnimalArmature|Walk") on source. fps <= 0: the clip's key rate. Errors:
 * no skin, unknown clip (listing the available ones), no frames. source must
 * outlive the object. */
skf_status skf_render_clip_new(const skf_gltf *source, const char *clip_name, double fps,
                               skf_render_clip **out, skf_warnings *warnings, skf_error *err);
void skf_render_clip_free(skf_render_clip *c);

size_t skf_render_clip_frame_count(const skf_render_clip *c);
double skf_render_clip_fps(const skf_render_clip *c);
const char *skf_render_clip_name(const skf_render_clip *c); /* as stored in the file */

/* Add a panel for rig_doc (its skin 0) given transforms [F*B*12] solved by
 * a transfer session source → rig_doc (skf_transfer_clip.free_transforms or
 * rotonly_transforms: B = the rig's joints, F = frames, the session's solve
 * space). A fresh session over every welded vertex supplies the rest. */
skf_status skf_render_clip_add_transforms(skf_render_clip *c, const char *label,
                                          const skf_gltf *rig_doc, const double *transforms,
                                          skf_warnings *warnings, skf_error *err);

/* Solve the clip onto rig_doc with the transfer pipeline (skf_transfer_new +
 * skf_transfer_run_clip, free mode, no control) and add its panel. With
 * rig_doc = the source this is the control run. opt may be NULL. */
skf_status skf_render_clip_add_solved(skf_render_clip *c, const char *label,
                                      const skf_gltf *rig_doc, const skf_transfer_options *opt,
                                      skf_warnings *warnings, skf_error *err);

/* Read the clip of the same name baked into rig_doc (e.g. by skinfit
 * transfer), evaluate it with rig.h at the same frame times (relative to that
 * clip's start) and add its panel; the transforms are the joint matrices
 * joint_to_world × mesh_to_joint. Errors: rig_doc has no such clip. */
skf_status skf_render_clip_add_baked(skf_render_clip *c, const char *label,
                                     const skf_gltf *rig_doc, skf_warnings *warnings,
                                     skf_error *err);

/* The scene: panel 0 the ground truth, panel k >= 1 rig k-1 (silhouette on).
 * Valid until the next add or free. */
const skf_render_scene *skf_render_clip_scene(const skf_render_clip *c);

size_t skf_render_clip_rig_count(const skf_render_clip *c);
/* Rig r's figures over all frames, from skf_quality_result (quality against
 * the rig's rest surface, errors in % of its diagonal). */
skf_quality skf_render_clip_rig_quality(const skf_render_clip *c, size_t rig);
/* Rig r's per-vertex errors of frame f ([welded vertex count], scene units of
 * the rig), its welded rest diagonal, and per-frame max error in %. */
const double *skf_render_clip_rig_errors(const skf_render_clip *c, size_t rig, size_t frame,
                                         size_t *vertex_count);
/* Rig r's displayed surface at frame f: [vertex_count*3] in the source's world. */
const double *skf_render_clip_rig_positions(const skf_render_clip *c, size_t rig, size_t frame);
double skf_render_clip_rig_diagonal(const skf_render_clip *c, size_t rig);
double skf_render_clip_rig_frame_max_pct(const skf_render_clip *c, size_t rig, size_t frame);
/* All frames' worst (mean = false) or mean (mean = true) vertex error in %: [F]. */
const double *skf_render_clip_rig_frame_pct(const skf_render_clip *c, size_t rig, bool mean);
/* The frame with the largest error of any rig (0 when there is no rig). */
size_t skf_render_clip_worst_frame(const skf_render_clip *c);

/* The artist rig against its own clip (the control run): the transfer
 * session's source solver (skf_transfer_new with no target) solves every
 * frame with skf_solver_clip from identities, as the session's control does.
 * Must land in the colormap's zero bin. */
skf_status skf_render_clip_add_control(skf_render_clip *c, const char *label, skf_error *err);

/* ---- HTML report (src/render/html_report.c) -------------------------------
 * One self-contained page (no network, no script): facts, per clip the
 * quality table (rows in the order given: put the control first), a per-frame
 * error plot as inline SVG, heat-map images embedded as base64 PNG data URIs;
 * the command line and the library versions at the end. */

typedef struct skf_html_run {      /* one row of a clip's quality table */
    const char *rig;               /* e.g. "artist rig", "Horse_auto.glb" */
    const char *mode;              /* "control", "free", "rotation-only" */
    double quality;                /* fraction (1 = perfect) */
    double mean_error_pct, max_error_pct;
    double sweeps_per_frame;       /* < 0: not shown */
    double seconds;                /* solve wall time; < 0: not shown */
    const double *frame_max_pct;   /* [frames] per-frame worst vertex, or NULL */
    const double *frame_mean_pct;  /* [frames] or NULL */
} skf_html_run;

typedef struct skf_html_clip {
    const char *name;
    size_t frames;
    double fps;
    const skf_html_run *runs;
    size_t run_count;
    const skf_image *images;       /* heat maps, embedded in order */
    const char *const *captions;   /* [image_count] or NULL */
    size_t image_count;
} skf_html_clip;

typedef struct skf_html_report {
    const char *title;             /* NULL → "skinfit report" */
    const char *const *facts;      /* fact_count pairs: name, value, name, value, ... */
    size_t fact_count;
    const skf_html_clip *clips;
    size_t clip_count;
    const char *command_line;      /* shown verbatim (escaped); may be NULL */
} skf_html_report;

/* Write the page atomically. Strings are HTML-escaped; non-finite numbers
 * print as "n/a". */
skf_status skf_render_html_report(const char *path, const skf_html_report *report,
                                  skf_error *err);

/* Join argv into one shell-quoted line (for skf_html_report.command_line).
 * Returns an skf_malloc'ed string or NULL when out of memory. */
char *skf_render_command_line(int argc, char *const *argv);

/* The whole --html of `skinfit transfer` in one call: runs from each clip's
 * control / free / rotation_only metrics (control first), facts from info,
 * and per clip one heat-map image at the clip's worst frame: ground truth |
 * control (re-solved by skf_render_clip_add_control) | target free (the
 * clip's free_transforms) | target rotation-only (rotonly_transforms), each
 * present run only. target may be NULL (control only). size_w/size_h: the
 * image size (0 → 320 per panel × 320). */
skf_status skf_render_transfer_html(const char *path, const skf_gltf *source,
                                    const skf_gltf *target, const skf_transfer_info *info,
                                    const skf_transfer_clip *clips, size_t clip_count,
                                    const char *command_line, int size_w, int size_h,
                                    skf_warnings *warnings, skf_error *err);

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

/* Parse a frame list: "all" (→ 0..frame_count-1) or comma-separated indices
 * and inclusive ranges "0,5,10-12" (each < frame_count). *out is skf_malloc'ed. */
skf_status skf_render_parse_frames(const char *spec, size_t frame_count, size_t **out,
                                   size_t *out_count, skf_error *err);

#ifdef __cplusplus
}
#endif
#endif
