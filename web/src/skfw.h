/* skfw.h — flat C entry points of the WebAssembly build (web/src/skfw.c; JS wrapper web/skinfit.js).
 * Plain arrays and opaque handles only, so JavaScript can call them through emscripten's ccall.
 * Every int-returning call gives 0 or an skf_status, with skfw_error_text() naming the place.
 * Arrays handed in are copied unless the comment says the call takes ownership; arrays handed
 * out point into the handle and stay valid until it is freed. Units and spaces: as in
 * include/skinfit/transfer.h and render.h (scene units, column-major matrices, 3x4 transforms). */
#ifndef SKINFIT_WEB_SKFW_H
#define SKINFIT_WEB_SKFW_H

#include "skinfit/gltf.h"
#include "skinfit/report.h"
#include "skinfit/svg.h"

#include <stddef.h>
#include <stdint.h>

const char *skfw_error_text(void);
/* the last error (skfw_svg.c keeps its errors here too) */
void skfw_set_error(const skf_error *e);
void *skfw_alloc(size_t bytes);
void skfw_free(void *p);

/* document builder: counts first, then every part, then skfw_doc_finish */
skf_gltf *skfw_doc_new(const char *name, size_t buffers, size_t views, size_t accessors, size_t nodes,
                       size_t meshes, size_t skins, size_t animations);
void skfw_doc_free(skf_gltf *d);
int skfw_doc_buffer(skf_gltf *d, size_t i, uint8_t *data, size_t size); /* takes ownership of data */
int skfw_doc_view(skf_gltf *d, size_t i, int buffer, size_t offset, size_t length, size_t stride);
int skfw_doc_accessor(skf_gltf *d, size_t i, int view, size_t offset, int component_type, int normalized,
                      size_t count, const char *type);
int skfw_doc_sparse(skf_gltf *d, size_t i, size_t count, int indices_view, size_t indices_offset,
                    int indices_type, int values_view, size_t values_offset);
int skfw_doc_node(skf_gltf *d, size_t i, const char *name, int mesh, int skin, const double *trs,
                  const double *matrix, const int *children, size_t child_count, const double *weights,
                  size_t weight_count);
int skfw_doc_mesh(skf_gltf *d, size_t i, const char *name, size_t primitive_count, const double *weights,
                  size_t weight_count);
int skfw_doc_primitive(skf_gltf *d, size_t m, size_t p, int indices, int mode, const char *attr_names,
                       const int *attr_accessors, size_t attr_count, const int *targets, size_t target_count);
int skfw_doc_skin(skf_gltf *d, size_t i, const char *name, const int *joints, size_t joint_count,
                  int inverse_bind_matrices, int skeleton);
int skfw_doc_animation(skf_gltf *d, size_t i, const char *name, const int *samplers, size_t sampler_count,
                       const int *channels, size_t channel_count);
int skfw_doc_finish(skf_gltf *d);

/* transfer session, one clip: mode 1 free, 2 rotation-only, 3 both; max_constraints 0 = all.
 * progress may be NULL; a non-zero return cancels. One thread (the module has no threads). */
typedef int (*skfw_progress_fn)(double fraction, const char *what);
typedef struct skfw_result skfw_result;
skfw_result *skfw_transfer(const skf_gltf *source, const skf_gltf *target, const char *clip, int mode,
                           size_t max_constraints, skfw_progress_fn progress);
void skfw_result_free(skfw_result *r);
void skfw_result_figures(const skfw_result *r, int run, double *out);
const double *skfw_result_frame_series(const skfw_result *r, int run, int what);
void skfw_result_info(const skfw_result *r, double *out);
const char *skfw_result_clip_name(const skfw_result *r);
const double *skfw_result_transforms(const skfw_result *r, int run);
const double *skfw_result_trs(const skfw_result *r, int which);
int skfw_result_animated(const skfw_result *r, size_t joint);

/* heat-map scene: the ground truth and runs with the transfer's own per-vertex errors
 * (skinfit render's panels); r from skfw_transfer; run 0 control, 1 free, 2 rotation-only */
skf_heatmap *skfw_scene_new(const skfw_result *r);
void skfw_scene_free(skf_heatmap *h);
int skfw_scene_add(skf_heatmap *h, const char *label, const skfw_result *r, int run);
size_t skfw_scene_frames(const skf_heatmap *h);
size_t skfw_scene_rigs(const skf_heatmap *h);
size_t skfw_scene_vertex_count(const skf_heatmap *h, size_t panel);
size_t skfw_scene_triangle_count(const skf_heatmap *h, size_t panel);
const uint32_t *skfw_scene_triangles(const skf_heatmap *h, size_t panel);
const double *skfw_scene_positions(const skf_heatmap *h, size_t panel, size_t frame);
const double *skfw_scene_errors(const skf_heatmap *h, size_t rig, size_t frame);
double skfw_scene_diagonal(const skf_heatmap *h, size_t rig);
void skfw_error_bins(size_t n, const double *errors, double diagonal, int32_t *bins);
uint32_t skfw_colormap_color(int bin);
int skfw_colormap_bins(void);


/* ---- the SVG character (skfw_svg.c; JS: core.svgCharacter, web/pose/) ----
 * Elements as skf_svg_load_elements (skinfit/svg.h) wants them, packed: strings holds
 * NUL-terminated UTF-8 texts, table holds SKFW_SVG_ROW int32 per element: parent, offset of the
 * name, source line (0), then one offset per skf_svg_attr (-1: absent). Offsets index strings. */
#define SKFW_SVG_ROW (3 + SKF_SVG_ATTR_COUNT)
/* One pose frame as doubles (SKFW_SVG_FRAME): pose score, 14 pose joints x y, their 14 scores,
 * has face (0/1), face score, 73 face joints x y (root space, skf_svg_pose_frame's order). */
#define SKFW_SVG_FRAME (1 + 28 + 14 + 2 + 146)
typedef struct skfw_svg_anim skfw_svg_anim;
skf_svg_character *skfw_svg_load(const char *name, const char *strings, size_t strings_size,
                                 const int32_t *table, size_t count);
void skfw_svg_free(skf_svg_character *c);
int skfw_svg_row(void);
int skfw_svg_frame_size(void);
size_t skfw_svg_path_count(const skf_svg_character *c);
size_t skfw_svg_path_element(const skf_svg_character *c, size_t i);
size_t skfw_svg_path_nodes(const skf_svg_character *c, size_t i);
size_t skfw_svg_hidden_count(const skf_svg_character *c);
size_t skfw_svg_hidden(const skf_svg_character *c, size_t k);
double skfw_svg_canvas(const skf_svg_character *c, int height);
int skfw_svg_rest_joint(const skf_svg_character *c, int j, double *xy); /* 1 when the marker exists */
int skfw_svg_warning_count(void);
const char *skfw_svg_warning(int k);
skfw_svg_anim *skfw_svg_animator_new(const skf_svg_character *c, int no_smoothing, double min_path_confidence);
void skfw_svg_animator_free(skfw_svg_anim *a);
/* feed one frame (SKFW_SVG_FRAME doubles): 0 drawn, 1 skipped (pose score < 0.1), -1 bad frame */
int skfw_svg_update(skfw_svg_anim *a, const double *frame);
/* the current drawing: every path's data NUL-terminated one after the other (path order), in the
 * animator's buffer (valid until the next skfw_svg_frame_data); *bytes gets the length */
const char *skfw_svg_frame_data(skfw_svg_anim *a, size_t *bytes);
int skfw_svg_visible(const skfw_svg_anim *a, size_t i);
double skfw_svg_confidence(const skfw_svg_anim *a, size_t i);
/* joint j now (smoothed / inferred): xy[2], returns its score */
double skfw_svg_joint(const skfw_svg_anim *a, int j, double *xy);
/* the rig's tables (skinfit/svg.h): joint names, FaceMesh index of a face joint (-1 otherwise) */
const char *skfw_svg_joint_name(int j);
int skfw_svg_joint_facemesh(int j);

#endif
