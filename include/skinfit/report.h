/* skinfit/report.h — reports built from what the transfer RETURNS (src/report/):
 * heat-map scenes of transferred clips, drawn by skinfit/render.h, and the
 * self-contained HTML page.
 *
 * Nothing in this layer measures or solves. A panel's per-vertex errors are
 * the transfer's own (skf_transfer_metrics.vertex_errors: the numbers the
 * quality table is computed from, skinfit/transfer.h), its surface is the
 * transfer's solved surface. Where a scene must be solved on the fly
 * (`skinfit render --rig`), it goes through the transfer API: one session per
 * rig, each clip solved once, with skf_transfer_options.vertex_output.
 *
 * Spaces and units: a panel's surface is drawn in the SOURCE's world (a
 * target run's surface mapped by the alignment's target_to_source); errors
 * stay in the scene units of the run's rig and are shown as % of that rig's
 * rest bounding-box diagonal (welded rest_world), as in the table.
 * Frame f is at clip start + f / fps.
 *
 * Ownership: a heat map copies what it takes from the clips it is given (they
 * may be released after each add); pointers it returns are valid until the
 * next add or skf_heatmap_free.
 */
#ifndef SKINFIT_REPORT_H
#define SKINFIT_REPORT_H

#include "skinfit/base.h"
#include "skinfit/gltf.h"
#include "skinfit/image.h"
#include "skinfit/render.h"
#include "skinfit/transfer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- heat-map scenes (src/report/heatmap.c) --------------------------------
 * Panel 0 is the ground truth (the clip played on the welded source rig);
 * each run added becomes one more panel, drawn over the ground truth's
 * silhouette. */

typedef enum skf_report_run {
    SKF_REPORT_CONTROL = 0,    /* skf_transfer_clip.control: the source's welded surface */
    SKF_REPORT_FREE,           /* .free: the target's welded surface */
    SKF_REPORT_ROTATION_ONLY   /* .rotation_only: the target's welded surface */
} skf_report_run;

typedef struct skf_heatmap skf_heatmap;

/* A scene holding only the ground truth of clip (returned with vertex_output:
 * its source_mesh and source_surface). Errors: no vertex output
 * (SKF_ERR_ARGUMENT), SKF_ERR_NOMEM. */
skf_status skf_heatmap_new(const skf_transfer_clip *clip, skf_heatmap **out, skf_error *err);
/* The same scene, but referring to clip's arrays instead of copying them
 * wherever a panel draws them as they are: the ground truth's surface and
 * triangles, and, for each run added with skf_heatmap_add_run, its
 * triangles, its surface unless an alignment maps it, and its errors when
 * every vertex is measured in order. clip (and every clip whose runs are
 * added) must outlive the scene and stay unchanged. For a report that
 * draws a clip it holds (skf_report_transfer_html): no copy of F × N
 * arrays. */
skf_status skf_heatmap_new_borrowed(const skf_transfer_clip *clip, skf_heatmap **out, skf_error *err);
void skf_heatmap_free(skf_heatmap *h);

/* Add run `run` of clip as a panel: its solved surface (a target run's mapped
 * into the source's world by alignment->target_to_source unless
 * alignment->identity; alignment may be NULL for the control) coloured by its
 * vertex_errors; a target vertex that is no constraint carries no error and
 * is drawn in the neutral colour. label NULL → "rig". Errors: the run is
 * absent or has no vertex output, the clip's frame count differs from the
 * scene's (SKF_ERR_ARGUMENT), more than SKF_RENDER_MAX_PANELS - 1 runs
 * (SKF_ERR_LIMIT), SKF_ERR_NOMEM. */
skf_status skf_heatmap_add_run(skf_heatmap *h, const char *label, const skf_transfer_clip *clip,
                               skf_report_run run, const skf_alignment *alignment, skf_error *err);

/* Scenes solved on the fly (`skinfit render`). skf_heatmap_play opens one
 * transfer session source → (none) with the control solver and samples
 * clip_name (matched like skf_clip_find: "Walk" finds
 * "AnimalArmature|Walk"; fps <= 0: the clip's key rate) for the ground truth.
 * Errors: no skin, unknown clip (listing the available ones), no frames.
 * source must outlive the heat map. */
skf_status skf_heatmap_play(const skf_gltf *source, const char *clip_name, double fps,
                            skf_heatmap **out, skf_warnings *warnings, skf_error *err);
/* The artist rig against its own clip: the play session's control run
 * (skf_transfer_run_clip), solved once. Must land in the colormap's zero
 * bin. label NULL → "artist rig (control)". Only on a scene from
 * skf_heatmap_play. */
skf_status skf_heatmap_add_control(skf_heatmap *h, const char *label, skf_error *err);
/* One session source → rig_doc (free mode, every welded vertex a constraint,
 * the scene's fps, no control; opt may be NULL, its other fields are kept),
 * the clip solved once, its free run added. label NULL → rig_doc's path. */
skf_status skf_heatmap_add_solved(skf_heatmap *h, const char *label, const skf_gltf *rig_doc,
                                  const skf_transfer_options *opt, skf_warnings *warnings,
                                  skf_error *err);
/* The clip of the same name baked into rig_doc (e.g. by skinfit transfer),
 * measured by a session source → rig_doc (skf_transfer_measure_baked) and
 * added. Errors: rig_doc has no such clip. */
skf_status skf_heatmap_add_baked(skf_heatmap *h, const char *label, const skf_gltf *rig_doc,
                                 skf_warnings *warnings, skf_error *err);

size_t skf_heatmap_frame_count(const skf_heatmap *h);
double skf_heatmap_fps(const skf_heatmap *h);
const char *skf_heatmap_clip_name(const skf_heatmap *h); /* as stored in the file */
/* The scene: panel 0 the ground truth, panel k >= 1 run k-1 (silhouette on). */
const skf_render_scene *skf_heatmap_scene(const skf_heatmap *h);

size_t skf_heatmap_rig_count(const skf_heatmap *h);
/* Run r's figures as the transfer returned them (quality, mean / max and the
 * per-frame arrays; the per-vertex arrays are not kept here: see below). */
const skf_transfer_metrics *skf_heatmap_rig_metrics(const skf_heatmap *h, size_t rig);
/* Run r's per-vertex errors of frame f over its rig's welded vertices
 * ([*vertex_count], scene units of the rig; 0 at a vertex without a measured
 * error), and its displayed surface at frame f ([vertex_count*3], the
 * source's world). */
const double *skf_heatmap_rig_errors(const skf_heatmap *h, size_t rig, size_t frame,
                                     size_t *vertex_count);
const double *skf_heatmap_rig_positions(const skf_heatmap *h, size_t rig, size_t frame);
double skf_heatmap_rig_diagonal(const skf_heatmap *h, size_t rig);
/* The frame with the largest per-frame worst vertex error of any run (0 when
 * there is none). */
size_t skf_heatmap_worst_frame(const skf_heatmap *h);

/* ---- HTML report (src/report/html_report.c) --------------------------------
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
skf_status skf_html_report_write(const char *path, const skf_html_report *report, skf_error *err);

/* ---- the transfer's page (src/report/transfer_html.c) ----------------------
 * The whole --html of `skinfit transfer`: runs from each clip's control /
 * free / rotation_only metrics (control first), facts from info, and per clip
 * one heat-map image at the frame with the largest vertex error: ground truth
 * | each present run, drawn from the clip's own per-vertex output. The clips
 * must come from a session with vertex_output (SKF_ERR_ARGUMENT otherwise);
 * nothing is solved again. source_path / target_path name the documents
 * (target_path NULL: control only). size_w / size_h: the image size (0 → 320
 * per panel × 320). */
skf_status skf_report_transfer_html(const char *path, const char *source_path,
                                    const char *target_path, const skf_transfer_info *info,
                                    const skf_transfer_clip *clips, size_t clip_count,
                                    const char *command_line, int size_w, int size_h,
                                    skf_error *err);

#ifdef __cplusplus
}
#endif
#endif
