/* skinfit/decompose.h — turn a vertex animation with no skeleton into a
 * linear-blend-skinned rig: B bones with one rigid transform per frame,
 * sparse non-negative weights summing to one, optionally M corrective
 * shapes (PCA of the residual) with per-frame coefficients.
 *
 * Algorithms (one source file each under src/decompose/):
 *   init_split.c      SSDR-style split / regrow clustering (Le & Deng 2012)
 *   init_meanshift.c  proxy bones: mean shift over per-triangle rotation
 *                     sequences (James & Twigg 2005)
 *   nnls.c            Lawson–Hanson active set with the sum-to-one constraint
 *   weights.c         per-vertex weight solve over candidate bones
 *   ssdr.c            the alternation (transforms with fixed weights via
 *                     skinfit/solve.h, then weights)
 *   decomposition.c   the result object: free, frame reconstruction, metrics
 *   skeleton.c        bone tree, joints, constrained re-solve (Le & Deng 2014)
 *   pca.c             PCA of the rest-space residual (LAPACKE SVD)
 * Formulas and decisions: docs/decompose.md.
 *
 * Spaces and units. The rest pose is the space of the output mesh (bind
 * space); frames are in the space of the input animation; both in the
 * input's scene units. transforms[(f*B + i)*12 ...] is bone i's rigid
 * rest_to_frame transform at frame f as a 3×4 column-major [R | t] (the
 * layout of skinfit/solve.h): the skinned point is
 *     s_fj = Σ_i w_ij · T_fi · [v_j + Σ_m c_fm d_mj ; 1].
 * A glTF skin realises it with bind_to_world_i = translation(joint_rest_i)
 * and joint_world_fi = T_fi · bind_to_world_i; with a skeleton (parent[]),
 * the joints form that tree and each joint's local transform relative to
 * its parent is a rotation with the constant offset b_i − b_parent.
 *
 * Ownership: skf_decompose returns a skf_decomposition owned by the caller
 * (skf_decomposition_free). Inputs are only read.
 */
#ifndef SKINFIT_DECOMPOSE_H
#define SKINFIT_DECOMPOSE_H

#include "skinfit/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum skf_decompose_init {
    SKF_DECOMPOSE_INIT_DEFAULT = 0, /* split when bone_count > 0, mean shift when 0 */
    SKF_DECOMPOSE_INIT_SPLIT,       /* SSDR-style split / regrow to exactly bone_count */
    SKF_DECOMPOSE_INIT_MEANSHIFT    /* mean shift proxy bones (then split / merge to
                                       bone_count when it is > 0) */
} skf_decompose_init;

/* a safety net, not a convergence test: the longest measured default run
 * ends by the rule at 573 (Khronos Fox, 20 bones; docs/decompose.md "Why
 * 1000") */
#define SKF_DECOMPOSE_DEFAULT_MAX_ITERATIONS 1000
#define SKF_DECOMPOSE_DEFAULT_TOLERANCE 1e-3
#define SKF_DECOMPOSE_DEFAULT_PATIENCE 5
/* Accuracy floor of the stopping rule (rms_floor below), a fraction of the
 * rest pose's bounding-box diagonal: a run whose RMS error reaches it has
 * converged, whatever its rate. Needed where the model reproduces the data
 * exactly (E → 0 geometrically: the relative decrease then stays at the
 * linear rate and the relative rule never holds); 1e-5 is issue 16's bound
 * for two reconstructions to play the same (three.js against skinfit),
 * 0.01 px on a model drawn 1000 px across (docs/decompose.md step 4, with
 * why a floor at the input's float32 rounding would not end these runs) */
#define SKF_DECOMPOSE_DEFAULT_RMS_FLOOR 1e-5
/* Relative tolerance of the reduced frame space (rank_tolerance below):
 * 1e-13 of the centred trajectories' energy, a discarded part of relative
 * norm 3.2e-7, five times float32 input rounding (2^-24 ≈ 6e-8). Bone_Anim
 * keeps 82-84 directions from a sketch of 112, where 3e-15 kept 111-113 from
 * 224 (its last directions at the input's rounding): half the basis, and
 * every alternation's products in r + 1 ≈ 84 columns instead of 114 — 18 /
 * 13 / 12 % fewer instructions at 5 / 10 / 20 bones with the same iterations
 * and RMS to 7 digits. The alternation's path forks under perturbations of
 * the input's rounding size (a property of the fit, not of the reduction):
 * over 14 sketch seeds the 10-bone run ended at 71 instead of 72 iterations
 * (RMS 0.0055107 instead of 0.0055094) for 3 seeds at 3e-15 and 1 at 1e-13;
 * 1e-12 sent the 20-bone run to 87 (2 of 6). docs/bench.md 2026-12-03. */
#define SKF_DECOMPOSE_DEFAULT_RANK_TOLERANCE 1e-13
/* default cap (max_skeleton_rounds = 0) of the constrained rounds of
 * --skeleton when they run by the stopping rule (skeleton_rounds = 0;
 * docs/decompose.md "Skeleton": the alternation
 * lowers the skeletal energy 0.1-1 % a round for tens of rounds on the
 * creature) */
#define SKF_DECOMPOSE_DEFAULT_SKELETON_ROUNDS 200
/* largest max_iterations, patience, skeleton_rounds and max_skeleton_rounds
 * accepted (their histories are allocated up front; a larger value is
 * SKF_ERR_ARGUMENT, kind SKF_KIND_OPTION naming the field) */
#define SKF_DECOMPOSE_MAX_ROUNDS ((size_t)1 << 20)

/* Zeroed options = defaults. */
typedef struct skf_decompose_options {
    size_t bone_count;        /* B; 0 → automatic (mean shift decides) */
    skf_decompose_init init;
    size_t max_influences;    /* K; 0 → 4 */
    size_t max_iterations;    /* SSDR alternations cap (a safety net: reaching it is a
                                 warning); 0 → SKF_DECOMPOSE_DEFAULT_MAX_ITERATIONS */
    size_t pca_shapes;        /* M corrective shapes; 0 → none */
    double tolerance;         /* stopping rule: converged when the best energy
                                 E = ΣΣ‖s − u‖² fell by ≤ tolerance·E per iteration on average
                                 over every window (`patience` below), unless the current
                                 iterate lies above the best and its last iteration lowered
                                 E by > tolerance·patience·E (docs/decompose.md);
                                 0 → SKF_DECOMPOSE_DEFAULT_TOLERANCE */
    size_t patience;          /* windows of the stopping rule, iterations: the last `patience`
                                 and every longer one back to the last `patience` that left the
                                 run at its best energy (iterations ending above the best do not
                                 count towards that reach); 0 → default */
    double rms_floor;         /* also converged once RMS = sqrt(E / (N F)) ≤ rms_floor ·
                                 diagonal (dimensionless); 0 → SKF_DECOMPOSE_DEFAULT_RMS_FLOOR;
                                 < 0 → off (then only the moment form's rounding floor, RMS
                                 1e-8 of the diagonal, which is also the least value) */
    int reseed;               /* a bone whose skin falls below 3 vertices' worth of weight
                                 (Σ_j w_ij < 3) during the alternation is re-seeded, once per
                                 bone, on a split of the worst-fitted bone's vertices
                                 (docs/decompose.md step 4): 0 → on (the default; off with
                                 `skeleton`, which prunes such bones instead), < 0 → off */
    int anderson;             /* Anderson acceleration of the alternation over the bone
                                 transforms (type II with memory m = anderson, 1…8, safeguarded
                                 by the energy; docs/decompose.md): ≤ 0 → off, the plain
                                 alternation (the default: no consistent gain measured,
                                 docs/bench.md) */
    int gauss_newton;         /* joint Gauss–Newton steps on the weights and the transforms
                                 (gauss_newton.c; docs/decompose.md step 4): one every
                                 `gauss_newton` alternations (3 is what docs/bench.md measured)
                                 once an alternation lowers the best energy by less than 2 %,
                                 from an iterate at the best energy, kept when the alternation
                                 from it ends below that energy. ≤ 0 → off, the plain
                                 alternation (the default: it ends lower on 12 of 13 measured
                                 runs, by up to 34 %, but runs longer on some, and the rule's
                                 sense of converged is the plain alternation's; docs/bench.md
                                 2026-12-04). Not with `anderson` (an argument error) */
    double weight_relaxation; /* over-relaxed weight steps (dimensionless β, 0…1): a vertex
                                 whose new weights w* use the same bones as its previous w
                                 takes w* + β (w* − w) when that stays positive (it sums to
                                 one), else w*; the transform step then follows the longer
                                 move (docs/decompose.md step 4). 0 → off (the default). Opt-in:
                                 on Bone_Anim and the Khronos Fox at 0.5 the error ends lower
                                 (up to 1.9×) but the rule runs longer at 10–20 bones, and on
                                 some Quaternius animals at 20 bones it ends 8–10 % higher
                                 (docs/bench.md 2026-12-03) */
    double rank_tolerance;    /* the alternation's products run in a reduced frame space: the
                                 centred trajectories (N × 3F) projected on their leading
                                 r-dimensional row space (randomized range finder, Halko et al.
                                 2011; docs/decompose.md "Reduced frame space"), r the smallest
                                 with discarded energy ≤ rank_tolerance · Σ_j ‖u_j − μ‖²
                                 (dimensionless, relative); skipped when r would not be below
                                 ~0.6·3F. 0 → SKF_DECOMPOSE_DEFAULT_RANK_TOLERANCE; < 0 → off
                                 (every product over the 3F frame columns). The metrics, the
                                 polish and the skeleton always read the full frames. */
    double meanshift_bandwidth; /* rotation-sequence distance (RMS over frames of
                                   ‖R_a − R_b‖_F); 0 → 0.3 */
    bool skeleton;            /* after the flat decomposition, build a bone tree and joints
                                 and re-solve with it as a constraint, the joint positions
                                 unknowns too (Le & Deng 2014, skeleton.c; docs/decompose.md
                                 "Skeleton"); bones with < 3 vertices' worth of weight are
                                 pruned, so the result may have fewer bones (a warning) */
    size_t skeleton_rounds;   /* weight + constrained-transform/joint rounds after the first
                                 constrained solve: exactly this many; 0 → until the stopping
                                 rule above (tolerance, patience) holds on the skeletal energy
                                 and on the joints (each moved by ≤ tolerance × its bone's
                                 length a round over the window), at most
                                 max_skeleton_rounds (a cap hit is a warning, option
                                 "skf_decompose_options.max_skeleton_rounds", that says
                                 whether the energy or a joint had not settled) */
    size_t max_skeleton_rounds; /* cap of the rounds run by the rule; 0 →
                                   SKF_DECOMPOSE_DEFAULT_SKELETON_ROUNDS; ignored when
                                   skeleton_rounds > 0 */
    int threads;              /* OpenMP threads; 0 → all */
    const skf_progress *progress; /* may be NULL */
    skf_warnings *warnings;   /* may be NULL; e.g. "asked 30 bones, mesh has 20 vertices" */
    const skf_limits *limits; /* caps of the solves (base.h "per-call limits": bones, passed in
                                 skf_solve_options.limits); NULL: the process-wide values */
} skf_decompose_options;

/* Error metrics of a reconstruction A′ against the animation A (N vertices,
 * F frames), docs/decompose.md: */
typedef struct skf_decompose_metrics {
    double rms;           /* sqrt(ΣΣ ‖a − a′‖² / (N F)), scene units (Dem Bones' figure) */
    double erms;          /* Kavan et al. 2010: 1000 · ‖A − A′‖_F / (sqrt(3 N F) · diagonal) */
    double max_error;     /* max over vertices and frames of ‖a − a′‖, scene units */
    double max_error_pct; /* 100 · max_error / diagonal */
    double diagonal;      /* rest bounding-box diagonal */
} skf_decompose_metrics;

typedef struct skf_decomposition {
    size_t vertex_count;      /* N */
    size_t frame_count;       /* F */
    size_t bone_count;        /* B (with a skeleton: after pruning, ≤ the requested count) */
    size_t max_influences;    /* K: weights are stored K per vertex */
    double *rest;             /* [3N] bind-space rest positions (copy of the input rest) */
    uint32_t *weight_bone;    /* [N*K] bone of slot k of vertex j (0 where the weight is 0) */
    double *weight;           /* [N*K] ≥ 0, Σ_k = 1 per vertex, sorted descending */
    double *transforms;       /* [F*B*12] rest_to_frame, see above */
    double *joint_rest;       /* [3B] joint positions in rest space: flat, the weighted
                                 centroid of each bone's vertices; with a skeleton, the joint
                                 between the bone and its parent (the root: its centroid) */
    int32_t *parent;          /* [B] with a skeleton: parent bone, −1 for the root; NULL when
                                 flat. Then transforms[f,i] = [G | p − G b_i] with G a rotation,
                                 b_i = joint_rest_i and p = p_parent + G_parent (b_i − b_parent):
                                 ‖p_i − p_parent‖ is the same in every frame */
    size_t skeleton_root;     /* the root bone (with a skeleton) */
    size_t shape_count;       /* M */
    double *shapes;           /* [M*3N] rest-space offsets d_mj, or NULL */
    double *shape_weights;    /* [F*M] coefficients c_fm, or NULL */
    size_t iterations;        /* SSDR alternations run */
    size_t best_iteration;    /* the iterate kept (lowest energy; 0 = the initialisation) */
    bool hit_cap;             /* stopped by max_iterations, not by the stopping rule */
    bool floor_reached;       /* converged because the best RMS reached rms_floor (else, when
                                 not hit_cap, by the relative decrease) */
    size_t reseeded;          /* bones re-seeded during the alternation (`reseed`) */
    size_t accel_steps;       /* alternations started from an Anderson-mixed state */
    size_t accel_rejected;    /* of those, rejected by the safeguard (energy above the best:
                                 the run went back to the best iterate and a plain step) */
    size_t newton_steps;      /* alternations started from a Gauss–Newton step's state */
    size_t newton_rejected;   /* of those, rejected by the safeguard (the run went on from the
                                 best iterate) */
    size_t relaxed_solves;    /* vertex weight solves over-relaxed (weight_relaxation), summed
                                 over the alternations */
    size_t init_bones;        /* bones the initialisation found (mean shift) */
    bool frame_reduced;       /* the alternation ran in a reduced frame space (rank_tolerance) */
    size_t frame_rank;        /* its rank r (0 when not reduced) */
    size_t frame_sketch;      /* columns of the randomized sketch that found it (≥ r) */
    double frame_discarded;   /* its discarded energy relative to Σ_j ‖u_j − μ‖² (the part
                                 outside the sketch estimated from 16 random samples) */
    double seconds_basis;     /* wall time finding it (0 when off) */
    skf_decompose_metrics metrics;     /* without shapes (of the skeletal result with a
                                          skeleton) */
    skf_decompose_metrics metrics_flat; /* the flat decomposition's (equal to metrics when
                                           there is no skeleton) */
    skf_decompose_metrics metrics_pca; /* with shapes (equal to metrics when M = 0) */
    double size_ratio;        /* numbers stored by the skinned form / 3NF, docs/decompose.md */
    double seconds_init, seconds_total; /* wall time of the initialisation and of all */
    double seconds_weights;   /* wall time in the alternation's weight steps */
    double cpu_weights;       /* CPU seconds of the calling thread in the weight steps */
    double seconds_weights_loop; /* of that, wall time inside their parallel regions (the
                                    vertex loop, G's product, the moment sums) */
    double cpu_weights_loop_sum; /* thread CPU seconds in those regions, summed over threads */
    double cpu_weights_loop_max; /* per region the busiest thread's CPU seconds, summed: with
                                    the serial CPU (cpu_weights − cpu_weights_loop_sum at one
                                    thread) the critical path on idle cores (bench_decompose) */
    double cpu_weights_loop_sched; /* the same critical path with the dynamic loops' work items
                                      (their thread CPU seconds) scheduled in the order handed
                                      out on threads that always have a core: on a loaded
                                      machine the busiest thread also measures which thread had
                                      a core; this does not */
    double seconds_skeleton;  /* wall time of the skeleton (0 without) */
    size_t skeleton_rounds_run; /* constrained rounds the skeleton ran (0 without) */
    bool skeleton_hit_cap;    /* they stopped at the cap (max_skeleton_rounds), not by the
                                 rule */
} skf_decomposition;

/* Decompose. frames: [F*3N] positions frame-major (as skf_meshseq); rest:
 * [3N] rest positions (NULL → frame 0); triangles [T*3] (needed for mean
 * shift; may be NULL otherwise). Errors: SKF_ERR_ARGUMENT (no frames, no
 * vertices, bone_count 0 with no triangles, more bones than the vertices can
 * support — the message says how many are possible), SKF_ERR_FORMAT
 * (non-finite input, naming frame and vertex), SKF_ERR_NOMEM,
 * SKF_ERR_CANCELLED. */
skf_status skf_decompose(size_t vertex_count, size_t frame_count, const double *frames,
                         const double *rest, size_t triangle_count, const uint32_t *triangles,
                         const skf_decompose_options *opt, skf_decomposition **out,
                         skf_error *err);
void skf_decomposition_free(skf_decomposition *d);

/* For a program that calls BLAS only through skf_decompose (which runs its
 * own OpenMP loops and calls BLAS on one thread): sets OpenBLAS to one
 * thread and ends its idle worker pool. Debian's pthread OpenBLAS starts
 * the pool when the library loads and each worker polls for 2^28 cycles
 * before it sleeps: ~0.13 s of CPU at the start of every process (a 5-bone
 * Bone_Anim decompose 0.42 s of CPU instead of 0.29–0.30; docs/bench.md). Never
 * called by the library itself (process-wide; OpenBLAS restarts the pool if
 * a later caller asks for threads). A no-op with OpenBLAS builds that have
 * no pool. skf_decompose leaves the BLAS thread count alone when it is
 * already 1, so the pool stays ended. */
void skf_decompose_release_blas_pool(void);

/* Reconstruct frame f: out [3N]; with_shapes adds the corrective shapes. */
void skf_decomposition_frame(const skf_decomposition *d, size_t f, bool with_shapes, double *out);

/* Metrics of reconstruction b against animation a, both [F*3N];
 * diagonal > 0 (the rest bounding-box diagonal). */
void skf_decompose_measure(size_t vertex_count, size_t frame_count, const double *a,
                           const double *b, double diagonal, skf_decompose_metrics *m);

/* The decomposition as a new glTF document (typed views current), ready
 * for skf_gltf_write_glb: rest mesh (triangles [T*3], required) with
 * JOINTS_n/WEIGHTS_n (ceil(K/4) sets), a skin whose joints hang under one
 * root node, inverse bind matrices = translation by −joint_rest, the clip
 * "decomposed" keyed at exactly frame f / fps (fps ≤ 0 → 24; LINEAR
 * translation + rotation per joint), and with shapes: morph targets plus a
 * weights channel. Caller owns *out (skf_gltf_free). */
struct skf_gltf;
skf_status skf_decomposition_to_gltf(const skf_decomposition *d, size_t triangle_count,
                                     const uint32_t *triangles, double fps, struct skf_gltf **out,
                                     skf_error *err);

/* ---- building blocks ----------------------------------------------------- */

/* Lawson–Hanson active set for  min ½ wᵀQw − cᵀw  s.t. w ≥ 0, Σ w = 1
 * (Q = AᵀA, c = Aᵀb of the least-squares problem ‖A w − b‖²).
 * Q: [n*n] symmetric positive semi-definite (row-major), c: [n], n ≤ 64.
 * w: [n] out. Returns the iterations used (capped at 4n + 16). Does not
 * allocate. */
int skf_nnls_simplex(size_t n, const double *Q, const double *c, double *w);
/* The same from a start set (start: [n], true for the variables to try
 * first — decompose passes the previous weights' support): when the solution
 * with only those variables free is strictly positive, the active-set
 * iterations begin from it; otherwise as skf_nnls_simplex. The optimum is the
 * same up to rounding; fewer iterations when the support barely changes.
 * start may be NULL. */
int skf_nnls_simplex_start(size_t n, const double *Q, const double *c, const bool *start,
                           double *w);

#ifdef __cplusplus
}
#endif
#endif
