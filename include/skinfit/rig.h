/* skinfit/rig.h — linear blend skinning rigs: extraction from glTF, welding,
 * clip evaluation (poses) and skinning.
 *
 * Model (glTF 2.0 §3.7.3 "Skins", Appendix C "Animation interpolation"):
 *
 *     world(v) = Σ_j w_vj · joint_to_world_j · mesh_to_joint_j · morphed(v)
 *     morphed(v) = rest(v) + Σ_k weight_k · delta_k(v)
 *
 * where mesh_to_joint_j is the skin's inverse bind matrix of joint j and
 * joint_to_world_j is the joint node's global transform (the chain of node
 * local_to_parent matrices up to a scene root). The skinned mesh node's own
 * transform is ignored, per the spec.
 *
 * Spaces: "mesh" (= bind) space is the space of the POSITION accessor;
 * "world" is the space of the scene roots. Units: scene units as stored;
 * times in seconds. Matrices double[16] column-major, quaternions (x, y, z, w)
 * (skinfit/math.h).
 *
 * Surface order: a rig for skin s concatenates, in increasing node index,
 * every node of the document (in a scene or not) whose mesh >= 0 and
 * skin == s, and within each node every primitive in order whose mode is
 * TRIANGLES (4), TRIANGLE_STRIP (5) or TRIANGLE_FAN (6); points and lines
 * primitives are not part of the surface.
 * A primitive's vertices keep their accessor order.
 *
 * Attached meshes. A mesh node without a skin that is a joint of skin s, or
 * whose ancestor chain reaches one (antlers, horns, a saddle, eyes parented
 * to a head joint, possibly through plain nodes in between), moves rigidly
 * with that joint in every player: world = node_to_world(node) · p. It is
 * part of skin s's surface, AFTER every skinned primitive (same node and
 * primitive order), one part per primitive with attached = true. Its
 * vertices carry weight 1 on the nearest joint J on the chain (the node
 * itself when it is a joint) and are stored in bind space:
 *     rest = inverse(mesh_to_joint_J) · chain · p,
 *     chain = local_to_parent of every node from J (exclusive) down to the
 *             mesh node (inclusive), at rest (glTF §3.5.3: parent · local),
 * so that skin_J · rest = node_to_world(node) · p at the rest pose. skf_skin
 * evaluates an attached part as node_to_world(node) · bind_to_node · rest
 * (bind_to_node = inverse(chain) · mesh_to_joint_J): exact glTF playback even
 * when the clip animates the chain's nodes; where it does not, equal to the
 * weight-1 skinning the solver models. Morph deltas are taken into bind space
 * by chain's linear part. An attachment whose chain is singular (a zero
 * scale) is left out with a warning. skf_rig_options.no_attached leaves
 * them all out (the skinned primitives alone, as before issue 12).
 * The "unskinned surface" (skin = -1) is every mesh node without a skin, each
 * acting as its own joint with an identity mesh_to_joint, so its vertices
 * move rigidly with node_to_world (morph targets still apply).
 *
 * Ownership: skf_rig and skf_clip have one owner and one free call. A rig
 * built by hand must allocate every array with skf_malloc & co. so that
 * skf_rig_free can release it. Evaluation never allocates after
 * skf_pose_init; skf_skin writes into a caller buffer.
 */
#ifndef SKINFIT_LBS_H
#define SKINFIT_LBS_H

#include "skinfit/base.h"
#include "skinfit/gltf.h"
#include "skinfit/meshseq.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Default cap on the node hierarchy depth (the node-depth limit, base.h). */
#define SKF_RIG_MAX_DEPTH SKF_GLTF_MAX_NODE_DEPTH

/* A node of the scene hierarchy as the rig needs it (copy of the document). */
typedef struct skf_rig_node {
    char *name;              /* owned, may be NULL */
    int parent;              /* node index, -1 for roots */
    bool has_matrix;         /* rest given as a matrix (animation cannot target it) */
    double matrix[16];       /* local_to_parent when has_matrix */
    double translation[3];   /* rest TRS (when !has_matrix) */
    double rotation[4];      /* x y z w */
    double scale[3];
} skf_rig_node;

typedef struct skf_rig_joint {
    int node;                /* node index (skf_rig.nodes) */
    int parent;              /* joint index of the nearest ancestor that is a joint, -1 */
    double mesh_to_joint[16];/* inverse bind matrix: mesh (bind) space -> joint space */
    bool has_weight;         /* some vertex has a weight > 0 on this joint */
} skf_rig_joint;

/* One glTF primitive's contribution to the surface. */
typedef struct skf_rig_part {
    int node, mesh, primitive;
    size_t first_vertex, vertex_count;  /* range in the rig's vertices */
    size_t first_target, target_count;  /* range in the rig's morph targets */
    double *target_deltas;   /* [target_count][vertex_count][3] POSITION deltas (bind space), owned,
                                may be NULL */
    /* Attached mesh (see "Attached meshes" above); false for skinned primitives. */
    bool attached;
    int attached_joint;      /* the joint J its vertices have weight 1 on (when attached) */
    double bind_to_node[16]; /* bind (mesh) space -> the mesh node's space: inverse(chain) ·
                                mesh_to_joint_J (when attached) */
} skf_rig_part;

/* Morph targets: every mesh node contributes its mesh's targets; target
 * g belongs to node morph_target_node[g] and is target (g - first) of it. */
typedef struct skf_rig {
    int skin;                /* glTF skin index, -1 for the unskinned surface */
    size_t vertex_count;     /* N */
    double *rest_positions;  /* [N*3] mesh (bind) space */
    /* Sparse weights, CSR: vertex v has entries weight_offsets[v] ..
     * weight_offsets[v+1]-1 of weight_joints / weights; only weights > 0 are
     * stored; each row sums to 1 unless options.keep_raw_weights. */
    size_t *weight_offsets;  /* [N+1] */
    uint32_t *weight_joints; /* [nnz] joint indices (into joints) */
    double *weights;         /* [nnz] */
    size_t triangle_count;
    uint32_t *triangles;     /* [triangle_count*3] vertex indices (strips/fans triangulated) */
    size_t joint_count;
    skf_rig_joint *joints;
    size_t node_count;
    skf_rig_node *nodes;     /* the whole document's nodes */
    size_t part_count;
    skf_rig_part *parts;
    size_t target_count;     /* total morph targets */
    double *default_morph_weights; /* [target_count]: mesh.weights, overridden by node.weights */
    int *morph_target_node;  /* [target_count] node index owning target g */
    skf_limits limits;       /* the limits of the document it was built from (skf_gltf.limits,
                              * copied by skf_rig_from_gltf; zeros: the process-wide values):
                              * skf_rig_bake samples under its frames */
} skf_rig;

typedef struct skf_rig_options {
    /* false (default): weights renormalised to sum 1 per vertex (as three.js
     * does on load; warns when a sum is off by more than 1e-3); a vertex whose
     * weights are all zero is bound fully to its first listed joint (warning).
     * true: keep weights as stored. */
    bool keep_raw_weights;
    /* true: leave attached meshes out of a skin's surface (see "Attached
     * meshes"); false (default): include them. */
    bool no_attached;
} skf_rig_options;

/* Extract the rig of skin `skin` (or -1 for the unskinned surface) from doc.
 * opt may be NULL (defaults). Reads every JOINTS_n/WEIGHTS_n pair (all allowed
 * component types, normalized integers mapped per the spec). Errors name the
 * document and the JSON path: a skinned primitive without JOINTS_0, a joint
 * index >= joint count with non-zero weight, non-finite data, a singular
 * inverse bind matrix, primitives of one mesh with different morph
 * target counts. An empty surface is not an error (vertex_count 0). */
skf_status skf_rig_from_gltf(const skf_gltf *doc, int skin, const skf_rig_options *opt,
                             skf_rig **out, skf_warnings *warnings, skf_error *err);
void skf_rig_free(skf_rig *rig);

/* Pivots of the skeleton (src/rig/skeleton.c; the other-shape transfer's
 * skf_dt_options): every joint that carries weight and has a weighted
 * ancestor, at its bind position (the origin of joint space, taken through
 * mesh_to_world into world; NULL: mesh space), paired with that nearest
 * weighted ancestor. points: room for [joint_count*3], bones for
 * [joint_count*2] (joint, ancestor); returns the pivot count. */
size_t skf_rig_joint_pivots(const skf_rig *rig, const double mesh_to_world[16], double *points, uint32_t *bones);
/* out[v] [vertex_count]: vertex v's weight on root joints (weighted joints
 * without a weighted ancestor), in [0, 1] for normalised weights. */
void skf_rig_root_weights(const skf_rig *rig, double *out);

/* Weld coincident vertices: two vertices merge when their positions, their
 * weight rows (joints and weights) and their morph deltas are all exactly
 * equal. Welded vertex i is the i-th distinct vertex in raw order. Triangles
 * are remapped; triangles that become degenerate are dropped. *out is a new
 * rig with the same joints and nodes and ONE part (node, mesh, primitive =
 * -1) covering all welded vertices and holding every morph target's deltas
 * — unless the rig has attached parts: then a vertex welds only with vertices
 * of the same group (the skinned primitives form one group, each attached
 * mesh node another), the welded groups stay contiguous in that order, and
 * *out has one part per group: the skinned one (node -1, absent when the
 * rig has no skinned vertex) then each attached node's (node, mesh,
 * primitive -1, attached fields copied), every part holding every morph
 * target's deltas over its vertices.
 * *raw_to_welded (may be NULL) receives an skf_malloc'ed [rig->vertex_count]
 * map. The welded count is (*out)->vertex_count; (*out)->limits = rig->limits. */
skf_status skf_rig_weld(const skf_rig *rig, skf_rig **out, uint32_t **raw_to_welded,
                        skf_error *err);

/* ---- clips ------------------------------------------------------------ */

typedef struct skf_clip_channel {
    int node;                /* target node */
    skf_gltf_path path;
    skf_gltf_interp interpolation;
    size_t key_count;
    double *times;           /* [key_count] seconds, non-decreasing, owned */
    size_t width;            /* 3 (T, S), 4 (R), morph target count (weights) */
    double *values;          /* [key_count*width], CUBICSPLINE [key_count*3*width]
                              * as (in-tangent, value, out-tangent) per key; owned */
} skf_clip_channel;

typedef struct skf_clip {
    char *name;              /* owned, may be NULL */
    size_t channel_count;
    skf_clip_channel *channels;
    double start, end;       /* first and last key time over all channels (s) */
    double duration;         /* end - start */
    size_t max_keys;         /* most keys of any channel */
    size_t total_keys;       /* keys summed over channels */
    double key_rate;         /* (max_keys-1)/span of that channel; 0 when unknown */
} skf_clip;

/* Copy animation `animation` of doc into a clip (channels without a target
 * node are dropped). Errors: non-finite or decreasing times, output count
 * not matching input count × width, weights width not matching the target
 * node's mesh target count. */
skf_status skf_clip_from_gltf(const skf_gltf *doc, int animation, skf_clip **out,
                              skf_error *err);
/* The animation index of clip `name`: an exact match first, then a match of
 * the short names (skf_clip_short_name on either side: "AnimalArmature|Walk"
 * and "Walk" find each other; the first in file order wins), then a unique
 * match of "_<short name>" at the end of a short name ("Walk" finds
 * "Armature|TRex_Walk"). -1 when none (or ambiguous) matches, with err (may
 * be NULL) filled:
 * SKF_ERR_ARGUMENT, kind SKF_KIND_UNKNOWN_CLIP, err->name = name, place file
 * = doc->path and JSON path "animations", message
 * "<file>: animations: no clip named '<name>'". */
int skf_clip_find(const skf_gltf *doc, const char *name, skf_error *err);
void skf_clip_free(skf_clip *clip);

/* Short name of a clip: the part after the last '|' ("AnimalArmature|Walk"
 * gives "Walk", Blender's "<armature>|<action>" naming), or the whole name
 * when it has no '|'. Returns a pointer into name (no copy); NULL gives NULL.
 * This is the one rule for showing and matching clip names. */
const char *skf_clip_short_name(const char *name);

/* Evaluate one channel at time t (clamped to its key range): out[width].
 * Rotations: LINEAR slerps along the shortest path, CUBICSPLINE normalises. */
void skf_clip_channel_eval(const skf_clip_channel *ch, double t, double *out);

/* ---- poses and skinning ---------------------------------------------- */

typedef struct skf_pose {
    size_t node_count, joint_count, target_count;
    double *local_trs;       /* [node_count*10] t(3) r(4) s(3) of the evaluated pose */
    double *node_to_world;   /* [node_count*16] */
    double *skin_matrices;   /* [joint_count*16] skinning (glTF "joint") matrices, mesh space → world
                              * for a vertex bound to joint j alone: joint_to_world_j × mesh_to_joint_j */
    double *morph_weights;   /* [target_count] */
    /* internal */
    int *order;              /* [node_count] nodes, parents before children */
    int *node_first_target;  /* [node_count] first morph target of a node, -1 */
    double *scratch;         /* [scratch_size] channel values */
    size_t scratch_size;
} skf_pose;

/* Allocate the pose buffers for rig. skf_pose_release frees them. */
skf_status skf_pose_init(skf_pose *pose, const skf_rig *rig, skf_error *err);
void skf_pose_release(skf_pose *pose);

/* Pose at time t: rest TRS and default morph weights, overridden by clip's
 * channels (clip may be NULL for the rest pose; channels targeting a node
 * given as a matrix are ignored), then world transforms and joint matrices. */
void skf_pose_eval(const skf_rig *rig, const skf_clip *clip, double t, skf_pose *pose);

/* World positions of every rig vertex for a pose: out[N*3]. Morph targets are
 * applied before skinning. threads: 1 = single, <= 0 = all OpenMP threads. */
void skf_skin(const skf_rig *rig, const skf_pose *pose, double *out, int threads);

/* ---- baking ----------------------------------------------------------- */

/* Frame times ("Clips and frames" in docs/conventions.md): frame k is at
 * clip->start + k / fps for k = 0, 1, ... while that time is <= clip->end
 * (within max(1e-6 s, 1e-6 × |end|), so an end that lands on a frame is
 * included despite float32 key times). fps <= 0
 * means the clip's key rate (30 when the clip has no rate). */
double skf_clip_frame_fps(const skf_clip *clip, double fps);
size_t skf_clip_frame_count(const skf_clip *clip, double fps);
/* Both of the above, checked: the frames a clip is sampled into at fps, refused
 * (never cut short) past the frames limit under limits (base.h "per-call
 * limits"; NULL: the process-wide value) — SKF_ERR_LIMIT "37 frames at 30 fps
 * exceed the limit frames=5 …", unprefixed (callers name the clip and file),
 * also for a non-finite fps. *frames, *fps_out: the count and rate. The one
 * frame-count check of every clip sampling (skf_rig_bake under rig->limits,
 * the transfer under skf_transfer_options.limits). */
skf_status skf_clip_frames(const skf_clip *clip, double fps, const skf_limits *limits, size_t *frames,
                           double *fps_out, skf_error *err);

/* Sample clip on rig into a new sequence of world positions (N vertices,
 * frame_count frames, fps, start_time = clip->start, triangles copied), the
 * frame count checked by skf_clip_frames under rig->limits.
 * progress may be NULL. */
skf_status skf_rig_bake(const skf_rig *rig, const skf_clip *clip, double fps, int threads,
                        const skf_progress *progress, skf_meshseq **out, skf_error *err);

/* ---- automatic weights (src/rig/autoweights.c, autoweights_gltf.c) ---------------------------- */

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
 * hierarchy, deforming = joints that carried skin weight before (a weight
 * only from an attached mesh does not count; all when none did). Writes JOINTS_0/WEIGHTS_0 (+ JOINTS_1/WEIGHTS_1 when K > 4; stale
 * higher sets removed) as new accessors through the builder API, then
 * reparses; everything else in doc is unchanged. Vertices: POSITION as
 * stored (bind space; morph targets not applied). */
skf_status skf_autoweights_gltf(skf_gltf *doc, int skin, const skf_autoweights_options *options,
                                skf_warnings *warnings, skf_error *err);

#ifdef __cplusplus
}
#endif
#endif
