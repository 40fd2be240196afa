/* skinfit/solve.h — per-frame bone-transform fitting for linear blend skinning.
 *
 * Plain arrays only (no glTF here). Design and math: docs/solver.md (the
 * derivations are its section "Derivations", D1–D7).
 *
 * Spaces (docs/conventions.md). Rest positions are in the caller's REST
 * space, whatever it is: the transfer passes rest_world = mesh_to_world × mesh
 * rest (transfer.h), decompose its rest pose. A solved bone transform T_i maps
 * rest space to the target's space (world for glTF); with bind_to_world_i the
 * joint's bind matrix given in rest space, joint_world_i = T_i × bind_to_world_i
 * (for a glTF skin solved in mesh space, T_i = joint_world_i × inverse_bind_i).
 * Skinned point s_j = Σ_i w_ij T_i [v_j;1].
 *
 * Transform layout (everywhere in this header): one 3×4 affine matrix
 * [R | t] per bone as double[12], COLUMN-MAJOR like skinfit/math.h:
 *     T[c*3 + r] = row r, column c;  R = columns 0..2, t = T[9..11].
 * A clip or bone set is bone-contiguous: transforms[b*12 + k].
 * skf_transform34_to_mat4 / _from_mat4 convert to/from the double[16] layout.
 *
 * Units: scene units of the input; angles in radians.
 *
 * Ownership: skf_solver_new returns a solver owned by the caller
 * (skf_solver_free). The solver COPIES the rig arrays it needs (rest positions,
 * weights) — the caller's arrays may be released after skf_solver_new.
 *
 * Threads: OpenMP. Per-frame vertex passes are split into FIXED blocks of
 * vertices whose partial sums are added in block order, and clip solves split
 * into FIXED chunks of frames: results are bit-identical for any thread count.
 */
#ifndef SKINFIT_SOLVE_H
#define SKINFIT_SOLVE_H

#include "skinfit/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- rig (input, caller-owned; copied by skf_solver_new) ---------------- */

/* Weights in CSR form: the influences of vertex j are
 * bone[offsets[j] .. offsets[j+1]-1] with weight[...]. Weights should be ≥ 0
 * (any real value is accepted; the moment form holds for any weights).
 * Zero weights are dropped. Duplicate bones within one vertex are allowed
 * (they add up). */
typedef struct skf_solve_rig {
    size_t vertex_count;       /* N */
    const double *rest;        /* [3N] rest positions (rest space), xyz per vertex */
    const size_t *offsets;     /* [N+1], offsets[0] = 0, non-decreasing */
    const uint32_t *bone;      /* [offsets[N]] bone index < bone_count */
    const double *weight;      /* [offsets[N]] */
    size_t bone_count;         /* B */
    /* [N] per-vertex importance c_j ≥ 0 of the fit (docs/solver.md D8), or NULL (every
     * c_j = 1, the unweighted energy). The energy becomes Σ_j c_j ‖s_j − u_j‖²: every
     * moment sum of the solver carries c_j (M_ik, μ_i, C_i, U, the direct residual);
     * c_j = 0 keeps vertex j out of the fit (it is still skinned by skf_solver_skin). */
    const double *vertex_weight;
} skf_solve_rig;

typedef enum skf_solve_start {
    SKF_SOLVE_START_BEST = 0,  /* default: lower energy of warm start and affine start */
    SKF_SOLVE_START_WARM,      /* only the transforms passed in (energy never increases) */
    SKF_SOLVE_START_AFFINE     /* only the affine start (input kept for bones with no weight) */
} skf_solve_start;

#define SKF_SOLVE_DEFAULT_MAX_SWEEPS 500
#define SKF_SOLVE_DEFAULT_MAX_ITERATIONS 100
#define SKF_ROTONLY_DEFAULT_MAX_ITERATIONS 100

/* How a frame is minimised after the start (docs/solver.md "Algorithm"). */
typedef enum skf_solve_method {
    SKF_SOLVE_METHOD_NEWTON = 0, /* default: a few bone sweeps, then damped Newton steps over all
                                    bones at once (quadratic convergence on inexact targets);
                                    rigs with more than 256 bones use the sweeps alone */
    SKF_SOLVE_METHOD_SWEEPS      /* bone sweeps (block coordinate descent) only */
} skf_solve_method;

/* Zeroed options = defaults. */
typedef struct skf_solve_options {
    double tolerance;      /* stop when a sweep (or a Newton step) lowers E by < tolerance·N·diag²;
                              0 → 1e-14 */
    int max_sweeps;        /* cap on bone sweeps per frame — with NEWTON on sweeps + Newton
                              iterations, so the work per frame stays bounded; 0 → 500 */
    double ridge;          /* relative ridge on the affine system's diagonal blocks; 0 → 1e-10 */
    skf_solve_start start; /* see above */
    int threads;           /* OpenMP threads; 0 → omp_get_max_threads() */
    int chunk_frames;      /* clip solve: frames per independent chunk (each starts affine);
                              0 → 8; a negative value → one chunk (strictly sequential) */
    skf_solve_method method; /* see above */
    int max_iterations;    /* NEWTON: cap on Newton iterations per frame; 0 →
                              SKF_SOLVE_DEFAULT_MAX_ITERATIONS = 100 (they also
                              count against max_sweeps, with the sweeps before them and after
                              a stalled Newton phase) */
    int warmup_sweeps;     /* NEWTON: bone sweeps before the first Newton step; 0 → 15,
                              negative → none (one sweep still runs: it is the exact-data test) */
    bool skip_residual;    /* true: stats->residual and stats->rms are not computed (set to NaN),
                              which saves one direct pass over the vertices per frame; the
                              moment-form stats->energy is still exact up to rounding (decompose
                              sums it over frames for its stopping rule) */
    bool skip_start_energy; /* true: with start SKF_SOLVE_START_WARM, stats->energy_start is not
                              computed (NaN): the warm start is taken as it is, so its energy
                              decides nothing (decompose: one moment-form energy per frame,
                              not two) */
    const skf_limits *limits; /* skf_solver_new's cap bones (base.h "per-call limits"; default
                              2048: the affine start's memory grows with bones²); NULL, or the
                              value 0: the process-wide value */
    bool fast_rotation;    /* true: the sweeps' rotations by skf_horn_rotation_fast (decompose;
                              equal up to rounding); false: skf_horn_rotation (bit-stable) */
} skf_solve_options;

typedef struct skf_solve_stats {
    int sweeps;            /* bone sweeps run */
    int iterations;        /* Newton iterations run (method NEWTON; each one assembles and
                              factors the 6B×6B system once, retries with more damping aside) */
    bool hit_cap;          /* stopped by max_sweeps / max_iterations, not by the tolerance */
    bool hit_iteration_cap; /* hit_cap, and the cap that stopped it was max_iterations (the
                              Newton phase used all its iterations with sweeps to spare), so
                              raising max_sweeps would change nothing */
    bool used_affine;      /* the affine start won (or was forced) */
    double energy_start;   /* E (moment form) of the chosen start */
    double energy;         /* E (moment form) at the end; may lose digits near 0 */
    double residual;       /* Σ_j ‖s_j − u_j‖², direct pass over the vertices */
    double rms;            /* sqrt(residual / N) */
} skf_solve_stats;

typedef struct skf_solver skf_solver;

/* Precompute everything that depends on the rig only: per-pair moment sums
 * M_ik (4×4, bones sharing a vertex), the affine system M (4B×4B) and its
 * Cholesky factor, the rest bounding-box diagonal. Cost O(N·K² + B³).
 * Errors: SKF_ERR_ARGUMENT (bone index out of range, non-finite rest or weight,
 * offsets not monotone, N or B zero), SKF_ERR_NOMEM, SKF_ERR_NUMERIC (the
 * affine system cannot be factored). opt may be NULL (defaults). */
skf_status skf_solver_new(const skf_solve_rig *rig, const skf_solve_options *opt,
                          skf_solver **out, skf_error *err);
void skf_solver_free(skf_solver *s);

size_t skf_solver_vertex_count(const skf_solver *s);
size_t skf_solver_bone_count(const skf_solver *s);
/* Rest bounding-box diagonal (rest space), the scale of the stopping test. */
double skf_solver_diagonal(const skf_solver *s);
/* Σ_j w_ij² of bone i (μ_i); bones with μ = 0 carry no information and keep
 * the transform passed in. */
double skf_solver_bone_mass(const skf_solver *s, size_t bone);

/* Replace the weights (same vertices, same bone count) and redo the per-rig
 * precomputation (moments, pair list, factorisation). Used by decompose
 * (alternating transforms and weights); same contract as skf_solver_new. */
skf_status skf_solver_update_weights(skf_solver *s, const size_t *offsets, const uint32_t *bone,
                                     const double *weight, skf_error *err);

/* Solve one frame: minimise E(T) = Σ_j c_j ‖Σ_i w_ij T_i [v_j;1] − u_j‖² (c_j = 1 unless
 * skf_solve_rig.vertex_weight) over
 * rigid T_i. target: [3N] positions u_j. transforms: [B*12], in: warm start
 * (pass identities when nothing better is known; also the value kept for
 * bones with μ = 0), out: the result (rotations orthonormal to ~1e-15).
 * stats may be NULL. Errors: SKF_ERR_FORMAT when target or the warm start
 * holds a non-finite number ("frame target: vertex 12"). Does not allocate. */
skf_status skf_solver_frame(skf_solver *s, const double *target, double *transforms,
                            skf_solve_stats *stats, skf_error *err);

/* Solve F frames. targets: [F*3N] (frame-major). transforms: [F*B*12]; the
 * first B*12 values are read as the warm start / fallback of frame 0 (pass
 * identities); every frame is written. Frames are split into chunks of
 * opt.chunk_frames consecutive frames solved in parallel; inside a chunk each
 * frame warm-starts from the previous one and also tries the affine start
 * (the first frame of a chunk uses the affine start). stats: [F] or NULL.
 * progress may be NULL; it is called from worker threads, one call at a
 * time. Errors name the frame and vertex ("frame 17: target: vertex 3: non-finite
 * value"); on error the transforms of other frames are unspecified. */
skf_status skf_solver_clip(skf_solver *s, size_t frame_count, const double *targets,
                           double *transforms, skf_solve_stats *stats,
                           const skf_progress *progress, skf_error *err);

/* Frames [first, first + count) of a clip, for callers that hold only a window of the clip's
 * targets at a time (the transfer streams a clip: docs/bench.md "Where the memory of a transfer
 * goes"). The chunks are counted from frame 0 of the clip, so every frame gets the same start and
 * the same result, bit for bit, as in one skf_solver_clip call over the whole clip, whatever the
 * windows. targets: [count*3N] frames first .. first+count−1. start: [B*12] the clip's start (what
 * skf_solver_clip reads from its first B*12 transforms: pass identities). transforms: frame
 * first's slot of the clip's [F*B*12] array; count frames are written; when first is not the
 * first frame of a chunk, the B*12 values before the slot (frame first−1's result) are read as
 * its warm start. stats: [count] or NULL. progress: fraction of the window. Errors name the clip
 * frame. */
skf_status skf_solver_clip_window(skf_solver *s, size_t first, size_t count, const double *targets,
                                  const double *start, double *transforms, skf_solve_stats *stats,
                                  const skf_progress *progress, skf_error *err);

/* Solve F INDEPENDENT frames (e.g. decompose's transform step, where frame f
 * warm-starts from its own previous iterate): transforms [F*B*12], in: the
 * warm start of each frame, out: results. Parallel over frames, same
 * per-frame result as skf_solver_frame. stats: [F] or NULL. */
skf_status skf_solver_frames(skf_solver *s, size_t frame_count, const double *targets,
                             double *transforms, skf_solve_stats *stats, skf_error *err);

/* The transform step from moments the caller summed itself (decompose sums
 * them in the same pass over the animation as its weight step), about the
 * point o = skf_solver_centre(s), in the caller's units:
 *   moments [F*B*12]: C_fi = Σ_j w_ij (u_fj − o) [v_j − o; 1]ᵀ, a 3×4
 *     column-major matrix (entry [c*3 + r] = row r, column c), w_ij the
 *     weights last given to the solver, v_j its rest positions, u_fj the
 *     targets of frame f (a rig with vertex weights c_j: multiply by c_j);
 *   sq [F]: Σ_j ‖u_fj − o‖² (times c_j).
 * Otherwise as skf_solver_frames (warm starts in transforms, F independent
 * frames in parallel, same result at any thread count); stats' residual and
 * rms are NaN (there is no target to measure against). With warm starts,
 * skip_start_energy, fast_rotation and the sweeps method (decompose's
 * transform step) the frames run four at a time on vector lanes (AVX2 where
 * the CPU has it), each frame's transforms and stats bit for bit those of
 * the one-frame path (docs/solver.md "Sharing with decompose"). Errors:
 * SKF_ERR_FORMAT when a moment, sum or warm start is not finite. */
skf_status skf_solver_frames_moments(skf_solver *s, size_t frame_count, const double *moments,
                                     const double *sq, double *transforms, skf_solve_stats *stats,
                                     skf_error *err);
/* The centre o of the solver's coordinates: the midpoint of the rest
 * positions' bounding box (rest space). */
void skf_solver_centre(const skf_solver *s, double centre[3]);

/* The skinned surface s_j = Σ_i w_ij T_i [v_j;1] of the solver's rig: out [3N]. */
void skf_solver_skin(const skf_solver *s, const double *transforms, double *out);

/* ---- building blocks (shared with decompose) ----------------------------- */

/* Horn 1987: the rotation R maximising ⟨R, H⟩ = trace(Rᵀ H), H a 3×3
 * cross-covariance target × sourceᵀ (column-major double[9]). R: column-major
 * double[9], det +1. Uses the 4×4 symmetric eigenproblem solved by cyclic
 * Jacobi rotations. */
void skf_horn_rotation(const double H[9], double R[9]);
/* The same rotation by the characteristic polynomial of Horn's 4×4 (Newton
 * from an upper bound onto its largest root, eq. 4.6 of the paper) and a
 * column of the adjugate of N − λI, about 10× cheaper than the Jacobi
 * rotations; falls back to skf_horn_rotation when the largest eigenvalue is
 * not separated from the next by 1e-3 of the spectrum's scale or the
 * eigenvector's residual exceeds 1e-12 of λ. Equal to skf_horn_rotation up to
 * rounding, not bit for bit. */
void skf_horn_rotation_fast(const double H[9], double R[9]);

/* Weighted absolute orientation: the rigid [R | t] minimising
 * Σ_j w_j ‖R p_j + t − q_j‖². src, dst: [3n]; w: [n] or NULL (all 1).
 * T: double[12] layout above. Returns false (T = identity) when Σ w ≤ 0. */
bool skf_rigid_fit(size_t n, const double *src, const double *dst, const double *w, double T[12]);
/* The same with the rotation by skf_horn_rotation_fast: equal up to rounding,
 * not bit for bit (decompose's split initialisation, where the Jacobi
 * rotations were a third of the clusters' fits). */
bool skf_rigid_fit_fast(size_t n, const double *src, const double *dst, const double *w, double T[12]);

void skf_transform34_identity(double T[12]);
void skf_transform34_to_mat4(const double T[12], double m[16]);
void skf_transform34_from_mat4(const double m[16], double T[12]);
/* out = T·[p;1] */
void skf_transform34_apply(const double T[12], const double p[3], double out[3]);

/* ---- rotation-only mode (bone lengths kept) ------------------------------ */

/* Joint forest. parent[i] = index of the nearest ancestor that is a joint,
 * −1 for roots (free translation). bind_to_world: [B*16] column-major, the
 * joint's world matrix at bind time in rest space (for a glTF skin in mesh
 * space the inverse of its inverse bind matrix; the transfer passes
 * mesh_to_world × that);
 * may carry uniform scale (e.g. Blender's 0.01), not shear. The joint indices
 * are the solver's bone indices. Caller-owned; copied.
 *
 * Model: joint_world_i = joint_world_parent × [local rotation | o_i] with the
 * local translation o_i fixed at its bind value (o_i = bind_parent⁻¹ · bind
 * position of i). Unknowns: one rotation per joint, one translation per
 * root. Hence, in rest space, T_i = [G_i | p_i − G_i b_i] with G_i rotations,
 * b_i the bind world position of joint i, and p_i = p_parent + G_parent (b_i − b_parent):
 * ‖p_i − p_parent‖ = ‖b_i − b_parent‖ by construction. */
typedef struct skf_skeleton {
    size_t joint_count;           /* must equal the solver's bone count */
    const int32_t *parent;        /* [B] */
    const double *bind_to_world;  /* [B*16] */
    /* [B*3] or NULL: the offset d_i of joint i from its parent joint in rest space at
     * bind pose, so that p_i = p_parent + G_parent d_i (entries of roots are ignored).
     * NULL: d_i = b_i − b_parent from bind_to_world. A glTF's inverse bind matrices
     * are float32: 2e4 units from the origin their translations carry 1e-3 of
     * rounding, which b_i − b_parent keeps but the node hierarchy (the lengths a
     * player keeps) does not; the transfer passes the node hierarchy's offsets
     * (docs/transfer.md, "Rotation-only"). */
    const double *offset;
} skf_skeleton;

/* The matrix of rotation-only's damped steps (docs/solver.md D6b). */
typedef enum skf_rotonly_hessian {
    SKF_ROTONLY_HESSIAN_NEWTON = 0,   /* default: JᵀJ plus the residual-curvature term Σ r·∇²r
                                         along the retraction — the exact Hessian: quadratic
                                         convergence where the target is out of reach */
    SKF_ROTONLY_HESSIAN_GAUSS_NEWTON  /* JᵀJ alone (linear convergence at a non-zero residual) */
} skf_rotonly_hessian;

/* A frame stops converged when E ≤ tolerance·N·diag², or when the exact Hessian is positive
 * definite and the decrease its quadratic model promises at its minimiser (the Newton
 * decrement) is ≤ max(tolerance·N·diag², relative_tolerance·E) — that step is still taken —,
 * or when no step however damped lowers E (rounding); else at max_iterations (hit_cap). */
/* The pair sums of JᵀJ (docs/solver.md D6, D6d): AUTO takes the propagation
 * on rigs of ≥ 128 joints where it costs fewer operations, else the walk;
 * the two agree to rounding (different summation order). */
typedef enum skf_rotonly_sums {
    SKF_ROTONLY_SUMS_AUTO = 0,
    SKF_ROTONLY_SUMS_WALK = 1,      /* each pair into the slots of its ancestor pairs */
    SKF_ROTONLY_SUMS_PROPAGATE = 2  /* each slot from its children's (subtree sums) */
} skf_rotonly_sums;

/* The whole problem's factorisation (docs/solver.md D6, D6d): AUTO takes the
 * minimum-degree sparse factor on rigs of ≥ 128 joints where it costs less
 * than half the post-order envelope's operations, else the envelope. */
typedef enum skf_rotonly_factor {
    SKF_ROTONLY_FACTOR_AUTO = 0,
    SKF_ROTONLY_FACTOR_ENVELOPE = 1,
    SKF_ROTONLY_FACTOR_SPARSE = 2
} skf_rotonly_factor;

typedef struct skf_rotonly_options {
    int max_iterations;     /* Levenberg–Marquardt iterations per frame and start; 0 → 100 */
    double tolerance;       /* absolute: 0 → 1e-18 (rms ~1e-9 of the diagonal; 1e-14 — the free
                               mode's sweep test — left 1e-7 of the diagonal on a far start) */
    double relative_tolerance; /* relative to E: 0 → 1e-10, < 0 → off. Exact targets (E → 0)
                                  stop on the absolute test. */
    skf_rotonly_hessian hessian; /* 0 → NEWTON */
    int blocks;             /* 0 → Gauss–Seidel sweeps over loosely coupled subtrees of ≤ 24 joints
                               where the rig has them and ≥ 128 joints (docs/solver.md D6c);
                               < 0 → whole-problem steps only */
    skf_rotonly_sums sums;  /* how JᵀJ's pair sums are formed: 0 → AUTO */
    skf_rotonly_factor factor; /* how the whole problem's system is factored: 0 → AUTO */
    int backtrack;          /* 0 → on rigs of ≥ 128 joints a rejected whole-problem step is first
                               shortened along its direction (α = 1/2, 1/4, 1/8; no new
                               factorisation) and taken when it lowers E (docs/solver.md D6e);
                               < 0 → off (λ grows and the system is factored again) */
    int repivot;            /* > 0 → on rigs of ≥ 128 joints the free start is re-pivoted top-down
                               (each joint's rotation by Horn from its free fit, at the position
                               its ancestors give it) and kept where it begins lower; evaluated,
                               not the default (docs/solver.md D6g); 0 → the free rotations */
} skf_rotonly_options;

typedef struct skf_rotonly_stats {
    int iterations;         /* LM iterations of the whole problem (each: one assembly of H and Jᵀr) */
    int block_iterations;   /* LM iterations of blocks (0 unless the block sweeps are on: options.blocks) */
    int factorizations;     /* envelope Cholesky factorisations, all tries */
    int backtracked;        /* whole-problem steps taken shortened after their full length was
                               rejected (options.backtrack, docs/solver.md D6e) */
    int starts_skipped;     /* 1 when one of the two starts was not descended (rigs of ≥ 128 joints:
                               it began at or above the other's converged end; docs/solver.md D6d) */
    int repivoted;          /* 1 when the free start was re-pivoted (options.repivot; D6g) */
    bool hit_cap;
    double energy_start;    /* Σ_j ‖s_j − u_j‖² at the chosen start (direct) */
    double residual;        /* Σ_j ‖s_j − u_j‖² at the end (direct) */
    double rms;
    double max_length_error; /* max_i |‖p_i − p_parent‖ − bind length| / bind length */
} skf_rotonly_stats;

typedef struct skf_rotonly skf_rotonly;

/* Errors: SKF_ERR_ARGUMENT (count mismatch, parent out of range, a cycle),
 * SKF_ERR_NUMERIC (a bind matrix singular or with shear), SKF_ERR_NOMEM.
 * solver must outlive the returned object. opt may be NULL. */
skf_status skf_rotonly_new(const skf_solver *solver, const skf_skeleton *skel,
                           const skf_rotonly_options *opt, skf_rotonly **out, skf_error *err);
void skf_rotonly_free(skf_rotonly *r);

/* Solve one frame. target [3N]. free_transforms [B*12]: the free solution of
 * this frame (its rotations and root positions start the solve).
 * transforms [B*12] out: the rotation-only skinning transforms
 * T_i = joint_world_i × inverse_bind_i (in: if prev_valid, a previous
 * rotation-only result, also descended from as a second start — the lower end wins;
 * iterations and factorizations then count both; on rigs of ≥ 128 joints the
 * start that begins lower goes first and the other is descended only when it
 * begins below that end, docs/solver.md D6d).
 * stats may be NULL. */
skf_status skf_rotonly_frame(skf_rotonly *r, const double *target, const double *free_transforms,
                             double *transforms, bool prev_valid, skf_rotonly_stats *stats,
                             skf_error *err);

/* Joint world positions p_i implied by rotation-only transforms:
 * p_i = T_i · b_i. out: [3B]. */
void skf_rotonly_joint_positions(const skf_rotonly *r, const double *transforms, double *out);

/* ---- quality metrics ------------------------------------------------------ */

/* THE per-vertex error routine (reports and renderer): errors[j] = ‖s_j − u_j‖.
 * s, u: [3n]. Returns Σ_j errors[j]. errors may be NULL. */
double skf_vertex_errors(size_t n, const double *s, const double *u, double *errors);

/* Bounding-box diagonal of n points [3n] (0 for n = 0). */
double skf_bbox_diagonal(size_t n, const double *p);

/* Clip-level accumulator: quality = 1 − ΣΣ‖s−u‖ / ΣΣ min(‖u−r‖, diagonal)
 * over all constraint vertices of all frames added; mean / max of ‖s−u‖ as %
 * of diagonal. Each vertex's motion is credited at most one diagonal, so a
 * clip that carries the rig far (a 1e18 translation key) cannot dilute its
 * errors: quality ≤ 1 − mean ‖s−u‖ / diagonal always holds, and quality and
 * errors cannot contradict each other (docs/solver.md, D7). Non-finite sums
 * give quality −HUGE_VAL. */
typedef struct skf_quality_acc {
    double diagonal;       /* rest bounding-box diagonal of the target (scene units) */
    double sum_error;      /* ΣΣ ‖s − u‖ */
    double sum_motion;     /* ΣΣ min(‖u − r‖, diagonal) (unclamped when diagonal is 0) */
    double sum_sq_error;   /* ΣΣ ‖s − u‖² */
    double max_error;      /* max ‖s − u‖ */
    size_t count;          /* vertex-frames added */
} skf_quality_acc;

typedef struct skf_quality {
    double quality;        /* 1 − sum_error / sum_motion (1 when both are 0, −inf-safe: 0 motion
                              with error, or a non-finite sum, gives −HUGE_VAL); never above
                              1 − mean ‖s−u‖ / diagonal */
    double mean_error_pct; /* 100 · mean ‖s−u‖ / diagonal */
    double max_error_pct;  /* 100 · max ‖s−u‖ / diagonal */
    double rms;            /* sqrt(mean ‖s−u‖²), scene units */
} skf_quality;

void skf_quality_init(skf_quality_acc *acc, double diagonal);
/* Add one frame: s skinned, u target, r target at bind pose, all [3n].
 * errors: [n] out (per-vertex ‖s−u‖) or NULL. */
void skf_quality_add_frame(skf_quality_acc *acc, size_t n, const double *s, const double *u,
                           const double *r, double *errors);
/* Merge b into a (same diagonal). */
void skf_quality_merge(skf_quality_acc *a, const skf_quality_acc *b);
skf_quality skf_quality_result(const skf_quality_acc *acc);

#ifdef __cplusplus
}
#endif
#endif
