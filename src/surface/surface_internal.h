/* Helpers shared by the files of src/surface/ (not public). */
#ifndef SKF_SURFACE_INTERNAL_H
#define SKF_SURFACE_INTERNAL_H

#include "skinfit/base.h"
#include "skinfit/surface.h"

/* A sparse symmetric positive definite matrix, factored once by CHOLMOD
 * (supernodal or simplicial Cholesky, fill-reducing ordering chosen by
 * CHOLMOD), solved for many right-hand sides. */
typedef struct skf_spd skf_spd;

/* Factor the n×n matrix given by entries (row[k], col[k], val[k]) of its
 * upper triangle (row <= col; duplicates are summed). what names the system
 * in messages. SKF_ERR_NUMERIC when it is not positive definite. *out: NULL
 * for a new factor, or a previous factor of a matrix with the same sparsity
 * pattern (same entries in the same order), whose symbolic analysis is
 * reused (numeric refactorisation only); on error *out is freed and NULL. */
skf_status skfi_spd_factor(size_t n, size_t nnz, const uint32_t *row, const uint32_t *col, const double *val,
                          const char *what, skf_spd **out, skf_error *err);
/* The same from the lower triangle in compressed columns: col_start[n+1],
 * row[nnz] (rows >= the column, ascending within a column), val[nnz]; no
 * copy, no triplet sort (the registration refactors one pattern every
 * iteration). *out as for skfi_spd_factor. */
skf_status skfi_spd_factor_lower(size_t n, const int32_t *col_start, const int32_t *row, const double *val,
                                const char *what, skf_spd **out, skf_error *err);
/* x = A⁻¹ b for k right-hand sides, column-major [n*k] each; x may equal b.
 * Reuses the factor's workspace: no allocation after the first call with
 * the same k. */
skf_status skfi_spd_solve(skf_spd *s, const double *b, size_t k, double *x, skf_error *err);
void skfi_spd_free(skf_spd *s);

/* skf_bvh_build without the copies: the BVH reads the caller's positions and
 * triangles, which must stay unchanged until skf_bvh_free (for a BVH that
 * lives inside one call: 48 bytes per vertex less, docs/bench.md). */
skf_status skfi_bvh_build_view(const double *positions, size_t vertex_count, const uint32_t *triangles,
                               size_t triangle_count, skf_bvh **out, skf_error *err);

/* ---- mesh_util.c ---- */
/* Area-weighted vertex normals (unit; zero for a vertex without area). */
void skfi_surface_vertex_normals(const double *positions, size_t vertex_count, const uint32_t *triangles,
                                 size_t triangle_count, double *normals);
/* (p[f1] − p[f0]) × (p[f2] − p[f0]): twice the area, along the normal. */
void skfi_triangle_area_vector(const double *positions, const uint32_t *f, double out[3]);
/* Deterministic stride sample of the indices 0..n-1, at most want of them
 * (all when want >= n) into out; returns the count. */
size_t skfi_stride_sample(size_t n, size_t want, uint32_t *out);
/* Sort keys ascending and drop repeats; returns the unique count. */
size_t skfi_sort_unique_u64(uint64_t *keys, size_t n);
/* An unordered pair as one key: min << 32 | max. */
uint64_t skfi_pair_key(uint32_t a, uint32_t b);
/* The unique undirected edges of the triangles as skfi_pair_key keys,
 * sorted; with label (may be NULL) the edges between labels label[v] (pairs
 * of equal labels dropped). edges: room for 3 × triangle_count. */
size_t skfi_mesh_edges(const uint32_t *triangles, size_t triangle_count, const uint32_t *label, uint64_t *edges);

#endif
