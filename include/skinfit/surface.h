/* skinfit/surface.h — tools over two triangle surfaces (src/surface/): a
 * triangle BVH with exact closest-point queries, area-weighted surface
 * moments, rest-surface alignment of two meshes of the same animal, the
 * constraint correspondence (target vertex → point on the source surface)
 * and even subsampling of the constraints. Arrays only: no glTF, no rigs.
 *
 * Spaces. The two surfaces are given in their own spaces ("source" and
 * "target"); an skf_alignment holds the similarity target_to_source that
 * carries target-space points onto the source surface. The transfer session
 * (skinfit/transfer.h) calls these with each rig's rest_world surface.
 *
 * Arrays. positions are [count * 3] doubles (x y z per vertex), triangles
 * [triangle_count * 3] uint32 vertex indices, matrices double[16]
 * column-major (skinfit/math.h). Everything the library allocates here has
 * one owner and one free call named below.
 */
#ifndef SKINFIT_SURFACE_H
#define SKINFIT_SURFACE_H

#include "skinfit/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- BVH over triangles (src/surface/bvh.c) -------------------------------- */

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
/* The same result, starting from triangle hint (a previous answer for a
 * nearby point; UINT32_MAX or out of range: none) as the bound to beat —
 * fewer nodes visited when the hint is close. */
void skf_bvh_closest_hint(const skf_bvh *bvh, const double p[3], uint32_t hint, skf_surface_point *out);
/* New positions for the same vertices and triangles: the boxes are refitted
 * bottom-up, the tree kept (O(T); queries stay exact, a tree refitted after
 * a large deformation is only slower). positions: [vertex_count*3], copied
 * into a BVH that owns its copy; a view (built by the internal
 * skfi_bvh_build_view) reads them from then on, so they must outlive it. */
void skf_bvh_refit(skf_bvh *bvh, const double *positions);

/* Area-weighted surface statistics: total area, centroid, and the 3x3 second
 * moment about the centroid (column-major, per unit area). Invariant to
 * re-triangulation of the same surface (subdivision, re-welding). */
void skf_surface_moments(const double *positions, const uint32_t *triangles, size_t triangle_count,
                         double *area, double centroid[3], double cov[9]);

/* ---- rest-surface alignment (src/surface/align.c) --------------------------- */

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

/* Weighted least-squares similarity (Umeyama, "Least-squares estimation of
 * transformation parameters between two point patterns", PAMI 1991): the
 * s, R (proper rotation), t minimising Σ_k w_k ‖s R x_k + t − y_k‖² over the n
 * pairs x, y (n × 3 doubles each, any one space each), written as the column-
 * major 4×4 matrix x-space → y-space into m. w: n non-negative weights, or
 * NULL for all 1. False (m untouched) when the weights sum to 0 or the
 * weighted x points have no spread. */
bool skf_similarity_fit(const double *x, const double *y, const double *w, size_t n, double m[16]);

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

/* ---- correspondence (src/surface/correspond.c) ------------------------------ */

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

/* ---- non-rigid registration (src/surface/register_nicp.c) -------------------
 *
 * Deform the target's rest surface onto the source's, starting from a
 * similarity alignment, and map every target vertex to a point of the source
 * surface. Optimal-step non-rigid ICP (Amberg, Romdhani & Vetter 2007): a
 * stiffness schedule from stiff to soft, each stage iterated to a fixed point
 * of (closest points → linear least squares) — with the affine unknowns on the
 * nodes of an embedded deformation graph (Sumner, Schmid & Pauly 2007)
 * instead of on every vertex, so the sparse system has 12 unknowns per node
 * whatever the mesh resolution. Equations, symbols and thresholds:
 * docs/transfer.md "Registration". All distances below are in source units. */

#define SKF_REGISTER_DEFAULT_NODES 300
#define SKF_REGISTER_DEFAULT_UNMATCHED_DISTANCE 0.02 /* of the source diagonal */
#define SKF_REGISTER_DEFAULT_UNMATCHED_ANGLE 60.0    /* degrees between normals */

/* A soft landmark: target rest point (target space, before the alignment)
 * that should land on source_point (source space). */
typedef struct skf_landmark {
    double target_point[3];
    double source_point[3];
} skf_landmark;

typedef struct skf_register_options {
    size_t node_count;          /* deformation-graph nodes; 0: SKF_REGISTER_DEFAULT_NODES */
    size_t sample_count;        /* closest-point samples per direction; 0: 3000. The softest two
                                   stages use all, the stiffer ones every 2nd / 3rd */
    int max_iterations;         /* per stiffness stage; 0: 30 */
    double unmatched_distance;  /* fraction of the source diagonal; 0: default */
    double unmatched_angle_deg; /* 0: default */
    const skf_landmark *landmarks; /* may be NULL */
    size_t landmark_count;
    double landmark_weight;     /* relative to the data term; 0: 1 */
} skf_register_options;

typedef struct skf_registration {
    size_t count;               /* target vertices */
    uint32_t *source_triangle;  /* [count] */
    uint32_t *source_vertex;    /* [count*3] the triangle's vertices */
    double *bary;               /* [count*3] barycentrics on the source rest surface */
    double *confidence;         /* [count] in [0,1]: max(0, n_t·n_s) · exp(−(d/τ_d)²) */
    bool *matched;              /* [count] d ≤ τ_d and angle(n_t, n_s) ≤ τ_θ */
    double *deformed;           /* [count*3] registered target rest, source space */
    size_t unmatched_count;
    double unmatched_area;      /* fraction of the target's area on unmatched vertices */
    double residual_before;     /* RMS closest distance both ways / source diagonal, similarity only */
    double residual_after;      /* the same for the registered surface, over the pairs closer
                                   than the unmatched distance τ_d (one-sided parts excluded) */
    double landmark_rms;        /* RMS landmark distance after / source diagonal (0 without) */
    double landmark_max;
    size_t node_count;
    int stages, iterations;     /* stiffness stages run, total iterations */
    double last_change;         /* largest vertex move of the last iteration / diagonal */
} skf_registration;

void skf_registration_release(skf_registration *r);

/* Register target onto source. alignment: the similarity from
 * skf_align_surfaces (its target_to_source is applied first). Errors:
 * SKF_ERR_NUMERIC "register: did not converge: stage S, N iterations, last
 * change X % of the diagonal" when the last (softest) stage ends at
 * max_iterations with a last move above 5 × its tolerance (0.25 % of the
 * diagonal; the stage tolerance is 0.05 %); SKF_ERR_ARGUMENT for a
 * landmark with a non-finite coordinate; SKF_ERR_NOMEM. out is released on
 * error. Deterministic (sampling by stride, ties to lower indices). Cost:
 * per iteration O(S log N) closest-point queries, a BVH of the deformed
 * target (O(N log N)), one sparse Cholesky of 12·nodes unknowns. */
skf_status skf_register_surfaces(const double *source_positions, size_t source_vertex_count,
                                 const uint32_t *source_triangles, size_t source_triangle_count,
                                 const double *target_positions, size_t target_vertex_count,
                                 const uint32_t *target_triangles, size_t target_triangle_count,
                                 const skf_alignment *alignment, const skf_register_options *options,
                                 skf_registration *out, skf_error *err);

/* ---- deformation transfer (src/surface/deformation_transfer.c) ---------------
 *
 * Sumner & Popović 2004: per-triangle deformation gradients of the source
 * frame, mapped to the target's triangles through a registration, then the
 * target's vertex positions in least squares (docs/transfer.md "Deformation
 * transfer"): E(x) = Σ_edges ‖(x_i − x_j) − Q_ij (r_i − r_j)‖² + μ Σ_v
 * ‖x_v − c_v‖². Factored once per target; one back-substitution (three
 * right-hand sides) per frame. */

#define SKF_DT_DEFAULT_SCREENING 1e-3
#define SKF_DT_ANCHOR_FLOOR 1e-3

typedef struct skf_dt_options {
    double screening;   /* μ, per vertex, relative to the unit edge weight; 0: default */
    /* [target_vertex_count] or NULL (uniform): vertex v's screening weight is
     * μ (SKF_DT_ANCHOR_FLOOR + a_v). The caller puts weight where the
     * closest-point anchor is trustworthy whatever the proportions (the
     * transfer: the weight on the skeleton's root joints). Copied. */
    const double *anchor_weight;
    /* The target's skinning subspace (optional; used when bone_count > 0
     * and the three arrays are set): the target positions are restricted to
     * x_v = Σ_b w_vb M_b [r_v; 1], one affine M_b (3×4, target space) per
     * bone, and the least squares is solved for the M_b — 12 unknowns per
     * bone, a dense Cholesky factored once (docs/transfer.md "Skinning
     * subspace"). Separate pieces are then held together by the bones they
     * share (no glue edges); mesh edges are weighted by how rigidly their
     * vertices follow one bone. Copied. */
    size_t bone_count;
    const size_t *weight_offsets;  /* [target_vertex_count+1] CSR rows */
    const uint32_t *weight_bones;  /* [weight_offsets[N]], each < bone_count */
    const double *weights;         /* [weight_offsets[N]] */
    /* Pivots of the subspace (optional): point p (target space) is moved
     * alike by bones pivot_bones[2p] and pivot_bones[2p+1] — the transfer
     * passes each weighted joint with its nearest weighted ancestor, so the
     * skeleton stays connected. Copied. */
    size_t pivot_count;
    const double *pivots;          /* [pivot_count*3] */
    const uint32_t *pivot_bones;   /* [pivot_count*2] */
} skf_dt_options;

typedef struct skf_deformation_transfer skf_deformation_transfer;

/* Prepare the transfer for one target. source_rest: source space; target_rest:
 * target space; reg: skf_register_surfaces of this target onto this source
 * (reg->deformed picks each target triangle's source triangle; triangles with
 * an unmatched vertex take no gradient of their own); target_to_source: the
 * similarity of the alignment (its linear part takes gradients between the
 * spaces). Without the skinning subspace, separate pieces of the target are
 * glued (edges between vertices of different pieces closer than 2 mean edge
 * lengths) and the N×N system is factored by CHOLMOD. Errors:
 * SKF_ERR_ARGUMENT (registration of another size, a weight's bone or a
 * pivot's bone out of range), SKF_ERR_NUMERIC, NOMEM. The caller's arrays
 * may be freed afterwards. */
skf_status skf_deformation_transfer_new(const double *source_rest, size_t source_vertex_count,
                                        const uint32_t *source_triangles, size_t source_triangle_count,
                                        const double *target_rest, size_t target_vertex_count,
                                        const uint32_t *target_triangles, size_t target_triangle_count,
                                        const skf_registration *reg, const double target_to_source[16],
                                        const skf_dt_options *options, skf_deformation_transfer **out,
                                        skf_error *err);
void skf_deformation_transfer_free(skf_deformation_transfer *dt);
/* Glue edges added between separate pieces of the target. */
size_t skf_deformation_transfer_glue_edges(const skf_deformation_transfer *dt);

/* One frame: source_frame [source_vertex_count*3] (the source's deformed
 * surface, source space), anchor [target_vertex_count*3] (target space; the
 * closest-point carried surface), x out [target_vertex_count*3] target
 * space. Not thread-safe on one object (per-frame scratch inside). */
skf_status skf_deformation_transfer_frame(skf_deformation_transfer *dt, const double *source_frame,
                                          const double *anchor, double *x, skf_error *err);

#ifdef __cplusplus
}
#endif
#endif