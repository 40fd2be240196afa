/* Shared between the src/decompose/ files; not public. */
#ifndef SKF_DECOMPOSE_INTERNAL_H
#define SKF_DECOMPOSE_INTERNAL_H

#include "skinfit/decompose.h"

/* A block of doubles reused across calls (the weight pass's large buffers);
 * mem NULL, n 0 when empty; the owner frees mem. cost: the thread CPU
 * seconds of each of the vertex pass's partitions in the last call (nparts
 * of them, 0 before the first), the order in which the next call hands
 * them to threads, longest first; the results do not depend on it. */
#define SKFI_WEIGHT_PARTS 16
typedef struct skfi_decompose_arena {
    double *mem;
    size_t n;
    double cost[SKFI_WEIGHT_PARTS];
    size_t nparts;
} skfi_decompose_arena;

/* The trajectories in a reduced frame space (frame_basis.c, Halko,
 * Martinsson & Tropp 2011): u_j ≈ coords_j · rows, i.e. vertex j's 3F
 * positions over all frames (frame-major, as one row) as D = r + 1
 * coordinates times D rows: rows = [Vᵀ; μᵀ] with V (3F × r) orthonormal and
 * μ the mean trajectory, coords = [(u_j − μ) V, 1]. What is left out,
 * Σ_j ‖(u_j − μ)(I − V Vᵀ)‖², is `discarded` (≤ tol · energy, energy =
 * Σ_j ‖u_j − μ‖²). coords NULL (D = 0): no reduction (skipped or off). */
typedef struct skfi_frame_basis {
    size_t r, D, F3; /* kept rank, D = r + 1, 3F */
    size_t sketch;   /* columns of the randomized sketch that found it */
    double *coords;  /* [N*D] row-major */
    double *rows;    /* [D*3F] row-major */
    double *rows_o;  /* [D*3F] rows with o taken off the mean row (the weight pass's
                        cache, for the centre o below; NULL until first used) */
    double o[3];
    double energy, discarded; /* scene units² summed over vertices and frames */
} skfi_frame_basis;

/* Builds the basis of c's trajectories with relative tolerance tol on the
 * discarded energy (tol < 0: none; the basis stays empty, also when it
 * would not pay: r not below ~0.6·3F). The same bits at any thread count. */
struct skfi_decompose_ctx;
skf_status skfi_frame_basis_build(const struct skfi_decompose_ctx *c, double tol, skfi_frame_basis *fb,
                                  skf_error *err);
void skfi_frame_basis_free(skfi_frame_basis *fb);

typedef struct skfi_decompose_ctx {
    size_t N, F;
    const double *frames; /* [F*3N] */
    const double *rest;   /* [3N] */
    double diag;
    skf_warnings *warnings;
    const skf_progress *progress;
    /* NNLS solves of the weight steps, and those that stopped at their cap
     * (4n + 16 active-set changes); reported once per run. May be NULL. */
    size_t *nnls_solves, *nnls_at_cap;
    /* Over-relaxation β of the weight step (skf_decompose_options.
     * weight_relaxation; 0: none), and the count of vertices it moved
     * (may be NULL). Only for a warm step (the previous weights known). */
    double relax;
    size_t *relaxed;
    /* Mesh adjacency (vertex j's neighbours: adj[adj_off[j] .. adj_off[j+1]-1]),
     * or NULL when the input has no triangles. */
    const size_t *adj_off;
    const uint32_t *adj;
    const uint32_t *rep; /* [N] the lowest-sorted vertex at the same rest position */
    skfi_decompose_arena *arena; /* the weight pass's buffers across calls, or NULL */
    const skf_limits *limits; /* skf_decompose_options.limits, for the solvers */
    /* The weight pass's parallel regions (G's product, the vertex loop, the
     * moment sums), added to per call when not NULL: [0] wall seconds, [1]
     * thread CPU seconds summed over threads, [2] per phase the busiest
     * thread's CPU seconds, summed, [3] the same with each dynamic loop's
     * items scheduled on threads that always have a core (weights.c,
     * list_makespan). */
    double *loop_seconds;
    /* The trajectories in a reduced frame space for the weight pass (its
     * products and moments read coords instead of frames), or NULL. */
    skfi_frame_basis *basis;
    /* The weight pass's candidate bones of vertex j come from the weights
     * (support_wb, support_w [N*K]) of j, its seam twins and its mesh
     * neighbours instead of the previous weights when not NULL: the
     * skeleton's rounds keep each bone's skin within one ring of the skin
     * the tree was built from (skeleton.c). Not owned. */
    const uint32_t *support_wb;
    const double *support_w;
    /* [N] after a re-seed (reseed.c), the bone re-seeded on vertex j
     * (UINT32_MAX: none), which the next weight step adds to the candidates
     * of j and of its mesh neighbours; NULL otherwise. */
    const uint32_t *seed;
} skfi_decompose_ctx;

/* Vertex adjacency of a triangle mesh in CSR form, with vertices at the same
 * rest position (seams) merged into one representative *rep[j]: the
 * neighbours of representative r are adj[off[r] .. off[r+1]-1] (each edge
 * in both lists, no duplicates; lists of non-representatives are empty).
 * *off [N+1], *adj, *rep [N] out, caller frees. False when out of memory. */
bool skfi_decompose_adjacency(size_t N, size_t T, const uint32_t *tris, const double *rest, size_t **off,
                  uint32_t **adj, uint32_t **rep);

/* Rigid transforms of hard clusters: transforms[(f*B + b)*12] fitted by
 * weighted absolute orientation to the vertices labelled b (rest → frame f).
 * A cluster with < 3 vertices keeps identity rotation + centroid shift. */
skf_status skfi_decompose_fit_clusters(const skfi_decompose_ctx *c, size_t B, const uint32_t *labels, double *transforms,
                           skf_error *err);

/* Grow (split / regrow, Le & Deng 2012) or shrink (merge the weakest)
 * clusters from *B_io labels to exactly `target` bones, then k-means
 * refinement rounds; labels [N] in/out, transforms [F*target*12] out. */
skf_status skfi_decompose_init_split(const skfi_decompose_ctx *c, size_t target, uint32_t *labels, size_t *B_io,
                         double *transforms, skf_error *err);

/* Split cluster `from` of labels [N] into itself and `to` (init_split.c,
 * the initialisation's growth step): the vertex with the largest err_j [N]
 * seeds `to` and takes the members on its side of the plane bisecting it
 * and the member with the smallest err_j (a median split when either side
 * would hold fewer than 3). False when `from` has fewer than 6 members. */
bool skfi_decompose_split_cluster(const skfi_decompose_ctx *c, uint32_t *labels, const double *err_j,
                                  uint32_t from, uint32_t to);

/* e [N] out: Σ_f ‖s_fj − u_fj‖² of each vertex, s_fj its skinning by the
 * K-slot weights wb / w [N*K] (zero weights skipped), or with w NULL by the
 * single bone wb[j] (K = 1; the initialisation's clusters) (init_split.c).
 * The same sums at any thread count. */
void skfi_decompose_vertex_errors(const skfi_decompose_ctx *c, size_t B, const double *transforms,
                                  size_t K, const uint32_t *wb, const double *w, double *e);

/* Re-seeds the bones of d that carry less than 3 vertices' worth of weight
 * and are not yet spent [B] (reseed.c): each takes the seed's side of a
 * split of the worst-fitted bone's vertices, its transforms their rigid fit
 * (d->transforms changed for it only); seed [N] out: that bone on the
 * vertices of its new region, UINT32_MAX elsewhere (untouched when *n is
 * 0). *n out: bones re-seeded, each marked spent. */
skf_status skfi_decompose_reseed(const skfi_decompose_ctx *c, skf_decomposition *d, uint8_t *spent,
                                 uint32_t *seed, size_t *n, skf_error *err);

/* Mean shift over per-triangle rotation sequences (James & Twigg 2005):
 * labels [N] out, *B out (number of proxy bones found). */
skf_status skfi_decompose_init_meanshift(const skfi_decompose_ctx *c, size_t T, const uint32_t *tris, double bandwidth,
                             uint32_t *labels, size_t *B, skf_error *err);

/* Per-vertex weights by NNLS on the simplex over candidate bones (≤ K
 * non-zeros): wb/w [N*K] in (warm: the previous weights, whose bones and
 * those of the mesh neighbours are the candidates when B > K + 4) / out,
 * sorted descending. moments [F*B*12]: NULL, or out: in the same pass, the
 * transform step's moments C_fi of the new weights about the point centre[3]
 * (skf_solver_frames_moments' layout; its sums of squares do not depend on
 * the weights). Same result at any thread count. */
skf_status skfi_decompose_solve_weights(const skfi_decompose_ctx *c, size_t B, const double *transforms, size_t K,
                            uint32_t *wb, double *w, bool warm, const double *centre,
                            double *moments, skf_error *err);

/* Anderson acceleration (type II, anderson.c) of a fixed-point map x ← g(x)
 * over n doubles with memory m ≤ SKFI_ANDERSON_MAX_M; inner products
 * weighted by wt[e % period] (not owned). */
#define SKFI_ANDERSON_MAX_M 8
typedef struct skfi_anderson {
    size_t n, m, count, head, period;
    bool have_prev;
    const double *wt;
    double *g_prev, *f_prev; /* [n] the last g and weighted residual */
    double *dG, *dF;         /* [m*n] ring of differences */
    double gram[SKFI_ANDERSON_MAX_M * SKFI_ANDERSON_MAX_M]; /* ΔFᵀΔF by slot (row-major, kept
                                                               across steps: a slot's row is
                                                               made when its difference is) */
} skfi_anderson;
bool skfi_anderson_init(skfi_anderson *a, size_t n, size_t m, const double *wt, size_t period);
void skfi_anderson_free(skfi_anderson *a);
/* Forget the history (after a rejected step). */
void skfi_anderson_reset(skfi_anderson *a);
/* x: the map's input, g = g(x) [n]: records the step and writes the next
 * input to x_next [n] (may be g). Returns true when it mixed (x_next ≠ g),
 * false when it returned the plain step g (no history, or a singular
 * least-squares problem). */
bool skfi_anderson_step(skfi_anderson *a, const double *x, const double *g, double *x_next);

/* ṽᵀ X ṽ from the 10 coefficients of a 4×4 X's symmetric part (X_aa, and
 * X_ae + X_ea for a < e, in the order (0,0) (0,1) (0,2) (0,3) (1,1) (1,2)
 * (1,3) (2,2) (2,3) (3,3)) and the products m = ṽ_a ṽ_e in the same order:
 * 10 multiply-adds, not 32 (weights.c, gauss_newton.c). */
static inline double skfi_sym10(const double *x, const double *m)
{
    return x[0] * m[0] + x[1] * m[1] + x[2] * m[2] + x[3] * m[3] + x[4] * m[4] + x[5] * m[5] +
           x[6] * m[6] + x[7] * m[7] + x[8] * m[8] + x[9] * m[9];
}

/* One joint Gauss–Newton (Levenberg–Marquardt) step on the weights (their
 * supports fixed) and the rigid transforms, from the iterate (wb, w,
 * transforms) whose transform-step moments are `moments` ([F*B*12], the
 * weight pass's, about `centre`); gauss_newton.c. lambda: the damping
 * (relative to the blocks' diagonals); cg_steps: conjugate-gradient steps
 * on the normal equations. Writes the new iterate in place (weights sorted
 * descending again, clipped ones zero). The same bits at any thread count. */
typedef struct skfi_gn_stats {
    size_t cg_steps;     /* conjugate-gradient steps taken */
    size_t clipped;      /* weights the step took below zero (set to 0) */
} skfi_gn_stats;
skf_status skfi_decompose_gn_step(const skfi_decompose_ctx *c, size_t B, size_t K, const double *centre,
                                  const double *moments, double lambda, int cg_steps, uint32_t *wb,
                                  double *w, double *transforms, skfi_gn_stats *stats, skf_error *err);
/* The step's two products at (wb, w, transforms), for tests: grad = Jᵀr and
 * Ax = JᵀJ x (no damping) in the step's variables ([N*K + F*B*6]: vertex j's
 * free slots 1 … n_j−1 at j·K + s — slot 0 takes minus their sum — then ω,
 * τ of bone b in frame f at N·K + (f·B + b)·6, the rotation about `centre`;
 * 0 where a variable is unused). */
skf_status skfi_decompose_gn_products(const skfi_decompose_ctx *c, size_t B, size_t K, const double *centre,
                                      const double *moments, const uint32_t *wb, const double *w,
                                      const double *transforms, const double *x, double *grad, double *Ax,
                                      skf_error *err);

/* Metrics of the decomposition d over all frames of c (decomposition.c),
 * frame by frame without a full reconstruction; with_shapes adds the
 * corrective shapes. */
void skfi_decompose_measure(const skfi_decompose_ctx *c, const skf_decomposition *d, bool with_shapes,
                skf_decompose_metrics *m);
/* Tests only (decomposition.c): 1 (default) the metric pass on frame lanes,
 * AVX2 where the CPU has it; 2 on the generic vectors; 0 frame by frame. */
extern int skfi_decompose_measure_lanes;

/* CSR view of d's K-slot weights for the solver (zeros dropped): offsets
 * [N+1], bone / weight [N*K] out (decomposition.c). */
void skfi_decompose_to_csr(const skf_decomposition *d, size_t *offsets, uint32_t *bone, double *weight);

/* Bone tree, joints and the constrained re-solve (skeleton.c, Le & Deng
 * 2014) of the flat decomposition d: fills d->parent, d->skeleton_root and
 * replaces transforms, weights and joint_rest by the skeletal ones. */
skf_status skfi_decompose_skeleton(const skfi_decompose_ctx *c, skf_decomposition *d, size_t rounds,
                                   size_t max_rounds, double tol, size_t patience, skf_error *err);

/* Skin contact across separate connected components (contact.c): for each
 * representative vertex j, the nearest rest-pose vertex k of another
 * component within the mean mesh edge length; v [2n] the pairs (j, k),
 * owned (skfi_contact_free). Empty without mesh adjacency or with one
 * component. */
typedef struct skfi_contact {
    size_t n;
    uint32_t *v;
} skfi_contact;
skf_status skfi_contact_build(const skfi_decompose_ctx *c, skfi_contact *ct, skf_error *err);
/* Adds ½ w_a(j) w_b(k) of every contact pair (j, k) and bones a != b of d's
 * weights to S[lo*B + hi] (lo < hi the two bones) and that times the pair's
 * midpoint to Mc[(lo*B + hi)*3 ..] (S [B*B], Mc [B*B*3], accumulated into);
 * *total the sum added, in vertices of shared weight. */
void skfi_contact_accumulate(const skfi_contact *ct, const double *rest, const skf_decomposition *d, double *S,
                             double *Mc, double *total);
void skfi_contact_free(skfi_contact *ct);

/* PCA of the rest-space residual; fills d->shapes / shape_weights. */
skf_status skfi_decompose_pca(const skfi_decompose_ctx *c, skf_decomposition *d, size_t M, skf_error *err);

/* Sum of squared distances of vertex j over frames under rigid transform T
 * sequence (transforms of one bone with stride 12*B). */
double skfi_decompose_vertex_bone_error(const skfi_decompose_ctx *c, size_t j, const double *T0, size_t stride);

#endif
