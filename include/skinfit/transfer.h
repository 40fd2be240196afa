/* skinfit/transfer.h — everything around the per-frame bone solve that a
 * transfer needs: a triangle BVH with closest-point queries, rest-surface
 * alignment of two meshes of the same animal, the constraint correspondence
 * (target vertex → point on the source surface), even subsampling of the
 * constraints, distance-based automatic weights, and the conversion of solved
 * skinning transforms into glTF node TRS.
 *
 * Spaces. A rig's "bind space" is the space its mesh vertices are stored in;
 * a solved skinning transform T_i maps bind space to world space
 * (bind_to_world: T_i = joint_world_i × inverse_bind_i). The source and
 * target rest surfaces live in their own bind spaces; an skf_alignment holds
 * the similarity target_to_source that carries target bind space onto source
 * bind space (and, applied inversely, source world motion onto the target).
 *
 * Arrays. positions are [count * 3] doubles (x y z per vertex), triangles
 * [triangle_count * 3] uint32 vertex indices, matrices double[16]
 * column-major (skinfit/math.h). Everything the library allocates here has
 * one owner and one free call named below.
 */
#ifndef SKINFIT_TRANSFER_H
#define SKINFIT_TRANSFER_H

#include "skinfit/base.h"
#include "skinfit/gltf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- BVH over triangles (src/solve/bvh.c) -------------------------------- */

typedef struct skf_bvh skf_bvh;

/* Build a BVH over a triangle mesh. The positions and triangles are copied
 * (the caller's arrays may be freed afterwards). Every index is checked
 * against vertex_count (SKF_ERR_FORMAT naming "triangles[i]"); zero triangles
 * is SKF_ERR_ARGUMENT. Degenerate (zero-area) triangles are kept: their
 * closest point is still well defined. O(T log T). */
skf_status skf_bvh_build(const double *positions, size_t vertex_count, const uint32_t *triangles,
                         size_t triangle_count, skf_bvh **out, skf_error *err);
void skf_bvh_free(skf_bvh *bvh);

/* A point on a triangle mesh: triangle index, its three vertex indices, the
 * barycentric coordinates (sum 1, each in [0,1]) and the point itself. */
typedef struct skf_surface_point {
    uint32_t triangle;
    uint32_t vertex[3];
    double bary[3];
    double point[3];
    double distance;   /* from the query point, scene units */
} skf_surface_point;

/* Closest point of the surface to p (exact, not approximate). Ties break
 * towards the lower triangle index, so results are deterministic. Thread-safe
 * (the BVH is read-only). */
void skf_bvh_closest(const skf_bvh *bvh, const double p[3], skf_surface_point *out);

/* Area-weighted surface statistics: total area, centroid, and the 3x3 second
 * moment about the centroid (column-major, per unit area). Invariant to
 * re-triangulation of the same surface (subdivision, re-welding). */
void skf_surface_moments(const double *positions, const uint32_t *triangles, size_t triangle_count,
                         double *area, double centroid[3], double cov[9]);

/* ---- rest-surface alignment (src/solve/align.c) --------------------------- */

/* Default refusal threshold: RMS closest-surface distance, both directions,
 * relative to the source rest bounding-box diagonal. 0.5 % — two meshes of the
 * same animal (re-welded, subdivided, re-exported with other axes or units)
 * land far below it; different Quaternius animals land at 2.1–8 % except
 * Fox vs Wolf (0.8 %, near-identical meshes) — measured in docs/transfer.md. */
#define SKF_ALIGN_DEFAULT_MAX_RESIDUAL 0.005

typedef struct skf_align_options {
    double max_residual;   /* 0: SKF_ALIGN_DEFAULT_MAX_RESIDUAL */
    int icp_iterations;    /* 0: 50 */
    size_t sample_count;   /* vertices used per direction for the search; 0: 4000 */
} skf_align_options;

typedef struct skf_alignment {
    double target_to_source[16]; /* similarity s·R·x + t, target bind → source bind */
    double scale;                /* s */
    double residual;             /* final RMS distance both ways / source diagonal */
    double source_diagonal;      /* rest bounding-box diagonals, scene units */
    double target_diagonal;
    bool identity;               /* surfaces coincide without any transform */
    const char *method;          /* "identity", "axes", "pca" (static string) */
} skf_alignment;

/* Align the target rest surface onto the source rest surface: first test the
 * identity; otherwise match area-weighted centroids and uniform scale, try the
 * 24 signed axis permutations with determinant +1 and the 4 proper PCA frames,
 * keep the best, refine by ICP (closest points on the surface, Umeyama
 * similarity). Fails with SKF_ERR_MISMATCH ("surfaces do not match: residual
 * X % of the diagonal > Y %") when the final residual exceeds the threshold;
 * out is filled either way. Deterministic. */
skf_status skf_align_surfaces(const double *source_positions, size_t source_vertex_count,
                              const uint32_t *source_triangles, size_t source_triangle_count,
                              const double *target_positions, size_t target_vertex_count,
                              const uint32_t *target_triangles, size_t target_triangle_count,
                              const skf_align_options *options, skf_alignment *out,
                              skf_error *err);

/* ---- correspondence (src/solve/correspond.c) ------------------------------ */

/* constraint c: target vertex target_vertex[c] follows the source surface
 * point sum_k bary[3c+k] * source_vertex(source_vertex[3c+k]). */
typedef struct skf_correspondence {
    size_t count;
    uint32_t *target_vertex;   /* [count] */
    uint32_t *source_vertex;   /* [count * 3] */
    double *bary;              /* [count * 3] */
    double max_distance;       /* largest closest-point distance found, source units */
} skf_correspondence;

void skf_correspondence_release(skf_correspondence *c);

/* Map each listed target vertex (constraint_vertices, or all target vertices
 * when NULL) to the closest point of the source rest surface after carrying
 * it by alignment->target_to_source. When the alignment is the identity and
 * both surfaces are the same vertex array, the map is the identity (bary
 * (1,0,0)). Parallel over constraints (OpenMP), deterministic. */
skf_status skf_correspond(const double *source_positions, size_t source_vertex_count,
                          const uint32_t *source_triangles, size_t source_triangle_count,
                          const double *target_positions, size_t target_vertex_count,
                          const skf_alignment *alignment, const uint32_t *constraint_vertices,
                          size_t constraint_count, skf_correspondence *out, skf_error *err);

/* The target surface for one frame: u[c] = target_from_source · (sum_k
 * bary · source_frame[source_vertex]) for every constraint c, where
 * source_to_target = inverse(target_to_source). source_frame is the source's
 * deformed surface ([source_vertex_count * 3]); u is [count * 3]. */
void skf_correspondence_apply(const skf_correspondence *c, const double source_to_target[16],
                              const double *source_frame, double *u);

/* Choose max_count of the vertices spread evenly over the surface: farthest
 * point sampling (Euclidean), started from the vertex farthest from the
 * centroid, ties to the lower index; deterministic. When max_count >=
 * vertex_count (or 0) all vertices are chosen, in order. out_vertices is
 * allocated [*out_count] (skf_free). Cost O(vertex_count × max_count). */
skf_status skf_subsample_even(const double *positions, size_t vertex_count, size_t max_count,
                              uint32_t **out_vertices, size_t *out_count, skf_error *err);

/* ---- automatic weights (src/rig/autoweights.c) ---------------------------- */

/* Bones of a skeleton for autoweights: joint_count joints with bind-space
 * positions and parents (index into the joints, -1 for roots of the joint
 * forest). deforming[i] false keeps joint i at zero weight (NULL: all
 * deform). Segments: a joint with child joints owns one segment to each child
 * and its distance is the smallest; a leaf joint is a point. */
typedef struct skf_autoweights_options {
    int max_influences;     /* K, 1..8; 0: 4 */
    double falloff;         /* P > 0; 0: 2 */
} skf_autoweights_options;

/* Weights w_ij ∝ 1 / max(d_ij, eps)^P over the K nearest deforming bones,
 * normalised to sum 1 (eps = 1e-6 × skeleton extent, so a vertex on a bone
 * stays finite). Output: joints[v*K + k] (joint indices, descending weight)
 * and weights[v*K + k]; unused slots have joint 0 and weight 0. */
skf_status skf_autoweights(const double *positions, size_t vertex_count,
                           const double *joint_positions, const int *joint_parent,
                           const bool *deforming, size_t joint_count,
                           const skf_autoweights_options *options, uint32_t *joints,
                           double *weights, skf_error *err);

/* Rewrite the skin weights of every mesh bound to skin `skin` in doc with
 * skf_autoweights (src/rig/autoweights_gltf.c): joints at their bind
 * positions (inverse of the inverse bind matrices), parents from the node
 * hierarchy, deforming = joints that carried weight before (all when none
 * did). Writes JOINTS_0/WEIGHTS_0 (+ JOINTS_1/WEIGHTS_1 when K > 4; stale
 * higher sets removed) as new accessors through the builder API, then
 * reparses; everything else in doc is unchanged. Vertices: POSITION as
 * stored (bind space; morph targets not applied). */
skf_status skf_autoweights_gltf(skf_gltf *doc, int skin, const skf_autoweights_options *options,
                                skf_warnings *warnings, skf_error *err);

/* ---- solved transforms → node TRS (src/solve/to_trs.c) -------------------- */

/* Precomputed per skin: bind matrices, the nodes to visit, rest locals. */
typedef struct skf_trs_converter {
    const skf_gltf *doc;
    int skin;
    size_t joint_count;
    int *joint_node;          /* [joint_count] */
    double *bind_to_world;    /* [joint_count*16] bind_i = inverse(inverse_bind_i) */
    double *rest_local;       /* [node_count*16] local_to_parent at rest */
    int *node_joint;          /* [node_count] joint index or -1 */
    int *order;               /* nodes in parent-before-child order */
    size_t order_count;
} skf_trs_converter;

/* Checks every joint's bind matrix: invertible inverse bind, and a bind that
 * TRS can express (no shear; uniform or axis scale allowed, e.g. Blender's
 * 0.01 armature) — otherwise SKF_ERR_NUMERIC naming "skins[s].joints[i]
 * (node name)". The document must outlive the converter. */
skf_status skf_trs_converter_init(skf_trs_converter *cv, const skf_gltf *doc, int skin,
                                  skf_error *err);
void skf_trs_converter_release(skf_trs_converter *cv);

/* Convert one frame. skin_transforms: [joint_count*16] bind_to_world T_i.
 * solved[i] false (or solved NULL → all true) keeps joint i at its rest local
 * TRS; its children's locals are still computed relative to it. Non-joint
 * nodes between joints keep their rest transforms. Output local TRS per joint
 * (translation [joint_count*3], rotation [joint_count*4] x y z w, scale
 * [joint_count*3]); a local with shear gives SKF_ERR_NUMERIC naming the frame
 * and joint. When prev_rotation is non-NULL each quaternion is flipped into
 * its hemisphere (keys interpolate the short way). */
skf_status skf_trs_convert(const skf_trs_converter *cv, const double *skin_transforms,
                           const bool *solved, const double *prev_rotation, double *translation,
                           double *rotation, double *scale, int frame, skf_error *err);

/* World matrices of the joints for given local TRS (inverse of the above,
 * used by tests and rotation-only checks): joint_to_world [joint_count*16]. */
void skf_trs_joint_worlds(const skf_trs_converter *cv, const double *translation,
                          const double *rotation, const double *scale, double *joint_to_world);

/* ---- the transfer pipeline (src/solve/transfer.c) -------------------------
 *
 * Play a clip on the source (artist) rig, carry the deformed surface onto the
 * target rig's mesh through the rest-surface correspondence, and solve per
 * frame the target's bone transforms (free: rigid per bone; rotation-only:
 * bone lengths kept) so that the target's own skinning reproduces it. The
 * control run solves the source rig against its own clip (must land on 0).
 * Both rigs are welded (skf_rig_weld) before anything else; constraints are
 * welded target vertices. Needs skinfit/lbs.h (rigs, clips) and
 * skinfit/solve.h (the per-frame solve). */

typedef enum skf_transfer_mode {
    SKF_TRANSFER_FREE = 1,
    SKF_TRANSFER_ROTATION_ONLY = 2,
    SKF_TRANSFER_BOTH = 3          /* both solved and reported; the free one is baked */
} skf_transfer_mode;

typedef struct skf_transfer_options {
    int mode;                 /* skf_transfer_mode; 0 → FREE */
    double fps;               /* sampling rate; <= 0 → each clip's key rate */
    size_t max_constraints;   /* 0 → every welded target vertex */
    bool no_control;          /* skip the control run */
    skf_align_options align;  /* zeroed → defaults */
    int threads;              /* OpenMP threads for every pass of the session (alignment,
                                 correspondence, solves); 0 → all */
    int max_sweeps;           /* free / control solve: bone sweeps per frame; 0 → 500 */
    int max_lm_iterations;    /* rotation-only: Levenberg–Marquardt iterations per frame; 0 → 100 */
} skf_transfer_options;

/* One run's figures. quality = 1 − ΣΣ‖s−u‖ / ΣΣ‖u−r‖ over all constraint
 * vertices of all frames (fraction, 1 = perfect); errors are % of the rest
 * bounding-box diagonal (the target's; the control's own source diagonal). */
typedef struct skf_transfer_metrics {
    bool present;
    double quality, mean_error_pct, max_error_pct;
    double sweeps_per_frame;  /* free: bone sweeps; rotation-only: LM iterations */
    double iterations_per_frame; /* free: Newton iterations (skf_solve_stats.iterations) */
    double solve_seconds;     /* wall time of this run's solve */
    double max_length_error;  /* rotation-only: max relative bone-length error of the baked TRS */
    /* per frame, [frames] each, owned */
    double *frame_quality, *frame_mean_pct, *frame_max_pct;
    int *frame_sweeps;
    /* frames whose solve stopped at the iteration cap (not at the tolerance),
     * and that cap (sweeps, or LM iterations for rotation-only) */
    size_t frames_at_cap;
    int iteration_cap;
} skf_transfer_metrics;

typedef struct skf_transfer_clip {
    char *name;                /* the source animation's name as stored, owned */
    size_t frames;
    double fps, start, duration; /* frame f is at start + f / fps seconds */
    double seconds;            /* total solve wall time (all runs) */
    skf_transfer_metrics control, free, rotation_only;
    size_t joint_count;        /* target joints */
    double *free_transforms;   /* [frames*joint_count*12] solve.h 3x4 layout, owned (NULL if not run) */
    double *rotonly_transforms;/* same, rotation-only (NULL if not run) */
    /* the baked output (free, or rotation-only in that mode): local TRS per
     * frame and joint: [frames*joint_count*3], [..*4], [..*3]; owned */
    double *translation, *rotation, *scale;
    bool *animated;            /* [joint_count]: joint solved (carries weight on the constraints) */
} skf_transfer_clip;

void skf_transfer_clip_release(skf_transfer_clip *clip);

/* Append to w (may be NULL) ONE warning per run of clip (control, free,
 * rotation-only) in which some frames stopped at the iteration cap, e.g.
 * "solver: Walk: free: 12 of 40 frames stopped at the sweep cap
 * max_sweeps=500 (raise it with --max-sweeps N)". Nothing when none did. */
void skf_transfer_clip_warn(const skf_transfer_clip *clip, skf_warnings *w);

typedef struct skf_transfer skf_transfer;

/* Prepare a transfer from source to target (target NULL: control only).
 * Errors: a document without a skin ("RIG.glb: skins: no skin — the target
 * is not a rigged mesh"), surfaces that do not match (SKF_ERR_MISMATCH),
 * solver set-up failures. The documents must outlive the session. */
skf_status skf_transfer_new(const skf_gltf *source, const skf_gltf *target,
                            const skf_transfer_options *options, skf_transfer **out,
                            skf_warnings *warnings, skf_error *err);
void skf_transfer_free(skf_transfer *t);

/* Facts about the session for reports. */
typedef struct skf_transfer_info {
    size_t source_vertices, source_welded, source_joints;
    size_t target_vertices, target_welded, target_joints;
    size_t constraints;
    double source_diagonal, target_diagonal;
    skf_alignment alignment;   /* zero when control only */
} skf_transfer_info;
void skf_transfer_get_info(const skf_transfer *t, skf_transfer_info *info);

/* The session's working data, read-only, for tools that measure or draw a
 * solved clip the way the session does (the heat-map renderer). Pointers are
 * owned by the session and valid until skf_transfer_free. Spaces: each rig
 * is solved in its world at bind pose (docs/transfer.md): rest_world =
 * mesh_to_world × bind-space rest, and a solved transform (solve.h layout)
 * maps rest_world → world. Target fields are NULL/0 for a control-only
 * session. The solvers are the session's own: calls on them must not run
 * concurrently with skf_transfer_run_clip on the same session. */
struct skf_rig;
struct skf_solver;
typedef struct skf_transfer_view {
    const struct skf_rig *source, *target;        /* welded rigs */
    struct skf_solver *source_solver;             /* over every welded source vertex */
    struct skf_solver *target_solver;             /* over the constraints */
    const double *source_rest_world;              /* [Ns*3] */
    const double *target_rest_world;              /* [Nt*3] */
    const double *constraint_rest;                /* [C*3] target rest_world of the constraints */
    const skf_correspondence *correspondence;     /* C constraints (target welded vertex → source) */
    const double *source_to_target;               /* [16] world similarity; NULL when the alignment is the identity */
    const skf_alignment *alignment;
    const double *source_mesh_to_world;           /* [16] */
    const double *target_mesh_to_world;           /* [16] */
    double source_diagonal, target_diagonal;      /* rest_world bounding-box diagonals */
} skf_transfer_view;
void skf_transfer_get_view(const skf_transfer *t, skf_transfer_view *view);

/* Run one clip (name as the user typed it: "Walk" matches "AnimalArmature|Walk").
 * Errors: unknown clip (SKF_ERR_ARGUMENT, listing the available clips), a
 * clip with no keyed channel ("has no frames"), solver failures naming the
 * frame. progress may be NULL. */
skf_status skf_transfer_run_clip(skf_transfer *t, const char *clip_name, skf_transfer_clip *out,
                                 const skf_progress *progress, skf_error *err);

/* Add the baked clip to doc (the target document or a copy of it) as a glTF
 * animation under clip->name: LINEAR, one key per frame, translation +
 * rotation + scale channels on every animated joint node. */
skf_status skf_transfer_add_animation(const skf_transfer *t, skf_gltf *doc,
                                      const skf_transfer_clip *clip, skf_error *err);

/* Names of the source clips, for messages: "Walk, Gallop, ..." (static
 * buffer inside the session, valid until the next call). */
const char *skf_transfer_clip_list(const skf_transfer *t);

#ifdef __cplusplus
}
#endif
#endif
