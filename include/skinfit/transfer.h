/* skinfit/transfer.h — the transfer session (src/transfer/): play a clip on
 * the source (artist) rig, carry its deformed surface onto the target rig's
 * mesh, solve the target's bone transforms per frame, and bake the result
 * back into glTF as node TRS keys.
 *
 * Spaces. Each rig is solved in its world at bind pose (docs/conventions.md):
 * rest_world = mesh_to_world × mesh-space rest, and a solved skinning
 * transform T_i (solve.h 3x4 layout) maps rest_world → world. The
 * conversion to node TRS works with bind_to_world_i = inverse(inverse_bind_i)
 * per joint.
 *
 * Arrays. matrices double[16] column-major (skinfit/math.h), transforms
 * [frames * joint_count * 12] in solve.h's 3x4 layout. Everything the
 * library allocates here has one owner and one free call named below.
 */
#ifndef SKINFIT_TRANSFER_H
#define SKINFIT_TRANSFER_H

#include "skinfit/base.h"
#include "skinfit/gltf.h"
#include "skinfit/surface.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- solved transforms → node TRS (src/transfer/to_trs.c) -------------------- */

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

/* ---- the transfer pipeline (src/transfer/transfer.c) -------------------------
 *
 * Play a clip on the source (artist) rig, carry the deformed surface onto the
 * target rig's mesh through the rest-surface correspondence, and solve per
 * frame the target's bone transforms (free: rigid per bone; rotation-only:
 * bone lengths kept) so that the target's own skinning reproduces it. The
 * control run solves the source rig against its own clip (must land on 0).
 * Both rigs are welded (skf_rig_weld) before anything else; constraints are
 * welded target vertices. Needs skinfit/rig.h (rigs, clips) and
 * skinfit/solve.h (the per-frame solve). */

typedef enum skf_transfer_mode {
    SKF_TRANSFER_FREE = 1,
    SKF_TRANSFER_ROTATION_ONLY = 2,
    SKF_TRANSFER_BOTH = 3          /* both solved and reported; the free one is baked */
} skf_transfer_mode;

/* How the source's surface is carried onto a target of another shape
 * (surfaces that only align, residual above the same-surface threshold). */
typedef enum skf_carry {
    SKF_CARRY_DEFAULT = 0,      /* deformation (docs/transfer.md: measured better) */
    SKF_CARRY_DEFORMATION = 1,  /* deformation transfer (Sumner & Popović 2004) */
    SKF_CARRY_CLOSEST = 2       /* the registered source point's position */
} skf_carry;

/* Refusal threshold after non-rigid registration: RMS closest distance both
 * ways / source diagonal (docs/transfer.md "Thresholds"). */
#define SKF_TRANSFER_DEFAULT_MAX_REST_MISMATCH 0.005
/* ... and refused too when more than this fraction of the target's area is
 * unmatched (the surfaces share too little). */
#define SKF_TRANSFER_MAX_UNMATCHED_AREA 0.25

/* A landmark pair, rest pose, each rig's solve space (rest_world): points,
 * or vertex indices of the rig (skinned primitives in order, then attached
 * meshes — rig.h "Attached meshes" —, before welding). */
typedef struct skf_transfer_landmark {
    bool by_vertex;
    double source_point[3], target_point[3];
    size_t source_vertex, target_vertex;
} skf_transfer_landmark;

typedef struct skf_transfer_options {
    int mode;                 /* skf_transfer_mode; 0 → FREE */
    double fps;               /* sampling rate; <= 0 → each clip's key rate */
    size_t max_constraints;   /* 0 → every welded target vertex */
    bool no_control;          /* skip the control run */
    skf_align_options align;  /* zeroed → defaults */
    int threads;              /* OpenMP threads for every pass of the session (alignment,
                                 correspondence, solves); 0 → all */
    int max_sweeps;           /* free / control solve: bone sweeps per frame; 0 → 500 */
    int max_newton_iterations; /* free / control solve: Newton iterations per frame (the
                                 solver's max_iterations; they count against max_sweeps too);
                                 0 → 100 */
    int max_lm_iterations;    /* rotation-only: Levenberg–Marquardt iterations per frame; 0 → 100 */
    bool vertex_output;       /* also return, per run, every measured vertex's error and the
                                 solved surface per frame, and per clip the welded meshes and the
                                 ground truth (skf_transfer_metrics.vertex_errors & co.): what a
                                 report needs to draw the run without solving it again */
    /* other-shape targets (issue 12) */
    int carry;                /* skf_carry */
    double max_rest_mismatch; /* refusal after registration (fraction); 0 → default */
    skf_register_options registration; /* zeroed → defaults (its landmarks are set by the session) */
    double screening;         /* deformation transfer μ (skf_dt_options); 0 → default */
    bool landmarks_joints;    /* same-named joints as soft landmarks */
    const skf_transfer_landmark *landmarks; /* may be NULL; copied at skf_transfer_new */
    size_t landmark_count;
    /* Attached meshes (rig.h "Attached meshes": mesh nodes without skin under a joint) are part
     * of both surfaces: played and carried on the source; on the target each of their constraint
     * vertices has weight 1 on its joint and the importance c_a of docs/transfer.md
     * "Attached meshes" in the fit. true: importance 0 — they are still carried, solved-for
     * surface and measured, but do not constrain the solve (the comparison of issue 12 §3). */
    bool no_attached_constraints;
    /* The session's caps (base.h "per-call limits"; copied at skf_transfer_new): frames (each
     * clip's sampling, skf_clip_frames) and bones (the solvers, skf_solve_options.limits). The
     * documents' node depth is the one they were loaded under (skf_gltf.limits). NULL, or a
     * value 0: the process-wide value. */
    const skf_limits *limits;
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
    /* free / control: of frames_at_cap, those stopped by the Newton iteration cap
     * (max_newton_iterations) rather than the sweep cap, and that cap */
    size_t frames_at_newton_cap;
    int newton_cap;
    double diagonal;          /* the rest bounding-box diagonal the % figures are relative to
                                 (scene units of the run's rig) */
    /* Per attached mesh of the target (skf_transfer_info.attachments, same order; 0 / NULL for
     * the control and when the target has none), owned: the mean and worst ‖s − u‖ over its
     * constraint vertices and all frames, % of the diagonal. Its vertices are also in the
     * figures above. */
    size_t attachment_count;
    double *attachment_mean_pct, *attachment_max_pct;
    /* Per-vertex output, only with skf_transfer_options.vertex_output (else 0 / NULL); owned.
     * vertex_errors [frames * measured_count]: ‖s − u‖ of each measured vertex per frame, scene
     *   units of the run's world (the target's for free / rotation-only, the source's for the
     *   control; 100 · e / diagonal is the % the table shows). These are the values the figures
     *   above are computed from (skf_quality_add_frame, one call per frame), not a re-measure.
     *   Measured vertices: control — every welded source vertex, in order; free / rotation-only —
     *   the constraints, vertex c being welded target vertex skf_transfer_clip.constraint_vertex[c].
     * surface [frames * N * 3]: the solved surface s of every welded vertex of the run's rig
     *   (N = skf_transfer_clip.source_mesh / target_mesh .vertex_count), the run's world, frame-major:
     *   the solver's skinning of the solved transforms (where a vertex is a constraint, the s its
     *   error was measured on). */
    size_t measured_count;
    double *vertex_errors;
    double *surface;
} skf_transfer_metrics;

/* A welded rig's surface (skf_rig_weld): vertex_count vertices, triangles [triangle_count*3]
 * indices < vertex_count, owned. */
typedef struct skf_transfer_mesh {
    size_t vertex_count, triangle_count;
    uint32_t *triangles;
} skf_transfer_mesh;

typedef struct skf_transfer_clip {
    char *name;                /* the source animation's name as stored, owned */
    size_t frames;
    double fps, start, duration; /* frame f is at start + f / fps seconds */
    double seconds;            /* total solve wall time (all runs) */
    skf_transfer_metrics control, free, rotation_only;
    size_t joint_count;        /* target joints */
    double *free_transforms;   /* [frames*joint_count*12] solve.h 3x4 layout, owned (NULL if not run);
                                * in rotation-only mode the start of that solve, whose metrics
                                * (free) are then not reported */
    double *rotonly_transforms;/* same, rotation-only (NULL if not run) */
    /* the baked output (free, or rotation-only in that mode): local TRS per
     * frame and joint: [frames*joint_count*3], [..*4], [..*3]; owned */
    double *translation, *rotation, *scale;
    bool *animated;            /* [joint_count]: joint solved (carries weight on the constraints) */
    /* only with skf_transfer_options.vertex_output (else zero / NULL), owned: */
    skf_transfer_mesh source_mesh; /* the welded source rig's surface */
    skf_transfer_mesh target_mesh; /* the welded target rig's surface (zero when control only) */
    double *source_surface;    /* [frames * source_mesh.vertex_count * 3] the clip played on the
                                  welded source rig, source world: the ground truth */
    size_t constraint_count;   /* C (0 when control only) */
    uint32_t *constraint_vertex; /* [C] welded target vertex of constraint c */
} skf_transfer_clip;

void skf_transfer_clip_release(skf_transfer_clip *clip);

/* Append to w (may be NULL) ONE warning per run of clip (control, free,
 * rotation-only) in which some frames stopped at the iteration cap, e.g.
 * "solver: Walk: free: 12 of 40 frames stopped at the sweep cap
 * max_sweeps=500", kind SKF_KIND_ITERATION_CAP, option
 * "skf_transfer_options.max_sweeps" (or .max_lm_iterations; the CLI adds the
 * flag that raises it). Nothing when none did. */
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

/* An attached mesh of the target rig (rig.h "Attached meshes"), as the session solves it. */
typedef struct skf_transfer_attachment {
    const char *name;         /* the mesh node's name, else its mesh's, else "nodes[i]"; owned by the session */
    const char *joint;        /* the joint's node name ("" when unnamed); owned by the session */
    int node;                 /* glTF node index in the target document */
    int joint_index;          /* joint of skin 0 it hangs from */
    size_t vertices;          /* welded target vertices (skf_transfer_clip.target_mesh range below) */
    size_t first_vertex;      /* its welded vertices are first_vertex .. first_vertex + vertices − 1 */
    size_t constraints;       /* of them constraints of the solve */
    double importance;        /* c_a, each constraint's weight in the fit (0: no_attached_constraints) */
} skf_transfer_attachment;

/* Facts about the session for reports. */
typedef struct skf_transfer_info {
    size_t source_vertices, source_welded, source_joints;
    size_t target_vertices, target_welded, target_joints;
    size_t constraints;
    double source_diagonal, target_diagonal;
    skf_alignment alignment;   /* zero when control only */
    /* non-rigid registration (registered false: the same surface, none ran) */
    bool registered;
    const char *carry;         /* "deformation" / "closest" (static) */
    double residual_before, residual_after; /* fractions of the source diagonal */
    double coverage;           /* matched fraction of the target's area */
    double unmatched_area;     /* 1 − coverage */
    size_t unmatched_count;    /* welded target vertices */
    const char *unmatched_bones[3]; /* joints the unmatched vertices mostly belong to (NULL padded) */
    double unmatched_bone_share[3]; /* their share of the unmatched vertices' weight */
    size_t registration_nodes;
    int registration_iterations;
    size_t landmark_count;
    double landmark_rms, landmark_max;   /* fractions of the source diagonal */
    size_t joint_landmarks;              /* same-named joints measured */
    double joint_median, joint_max;      /* their distances after registration, fractions */
    /* the carrying frame (docs/transfer.md "Carrying frame"): the trimmed similarity fit of the
     * registered correspondences, used instead of the alignment's similarity when its trimmed
     * RMS is at most 0.1 % of the source diagonal (the same body with a part posed otherwise) */
    bool carry_frame_used;
    double carry_frame_rms;              /* its trimmed RMS, fraction of the source diagonal */
    double carry_frame_angle_deg;        /* rotation between it and the alignment's, degrees */
    double carry_frame_scale_ratio;      /* its scale / the alignment's */
    size_t attachment_count;             /* attached meshes of the target */
    const skf_transfer_attachment *attachments; /* [attachment_count], valid while the session lives */
    size_t source_attachments;           /* attached meshes of the source (played and carried) */
} skf_transfer_info;
void skf_transfer_get_info(const skf_transfer *t, skf_transfer_info *info);

/* Run one clip (name as the user typed it: "Walk" matches "AnimalArmature|Walk").
 * Errors: unknown clip (SKF_ERR_ARGUMENT, listing the available clips), a
 * clip with no keyed channel ("has no frames"), solver failures naming the
 * frame. progress may be NULL. Memory: the clip is streamed through windows
 * of frames (source positions + carried surface at most 64 MiB together, at
 * least one frame), so it does not grow with the frame count unless
 * vertex_output asks for every frame's surfaces; results are the bits of a
 * whole-clip solve (skf_solver_clip_window). */
skf_status skf_transfer_run_clip(skf_transfer *t, const char *clip_name, skf_transfer_clip *out,
                                 const skf_progress *progress, skf_error *err);

/* Play the clip on the source only (no solve): out gets the name, frames, times and, with
 * vertex_output, source_mesh and source_surface; every run stays absent. Same errors as
 * skf_transfer_run_clip. */
skf_status skf_transfer_sample_clip(skf_transfer *t, const char *clip_name, skf_transfer_clip *out,
                                    skf_error *err);

/* Measure instead of solving: the clip of the same name already baked into the target
 * document (e.g. by skinfit transfer), evaluated with rig.h at the source's frame times
 * (relative to that clip's start), its joint matrices taken into the solve space; out->free
 * holds the figures (and, with vertex_output, the per-vertex output) as a free solve would,
 * without sweeps, timings or TRS. Needs a target; errors: the target has no such clip (listing
 * the ones it has). */
skf_status skf_transfer_measure_baked(skf_transfer *t, const char *clip_name,
                                      skf_transfer_clip *out, skf_error *err);

/* Add the baked clip to doc (the target document or a copy of it) as a glTF
 * animation under clip->name, replacing an animation of that exact name
 * (skf_gltf_add_animation): LINEAR translation + rotation + scale channels,
 * one key per frame on every solved joint node; two constant keys (first and
 * last frame) holding the rest TRS on every other joint of the skin and on
 * every non-joint node between two joints, so that the clip poses the whole
 * skeleton in players that keep an un-keyed node's previous pose (Blender). */
skf_status skf_transfer_add_animation(const skf_transfer *t, skf_gltf *doc,
                                      const skf_transfer_clip *clip, skf_error *err);
/* The same under another name (NULL: clip->name). */
skf_status skf_transfer_add_animation_named(const skf_transfer *t, skf_gltf *doc,
                                            const skf_transfer_clip *clip, const char *name,
                                            skf_error *err);

/* Names of the source clips, for messages: "Walk, Gallop, ..." (static
 * buffer inside the session, valid until the next call). */
const char *skf_transfer_clip_list(const skf_transfer *t);

#ifdef __cplusplus
}
#endif
#endif
