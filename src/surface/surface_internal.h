/* Helpers shared by the files of src/surface/ (not public). */
#ifndef SKF_SURFACE_INTERNAL_H
#define SKF_SURFACE_INTERNAL_H

#include "skinfit/base.h"

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
/* x = A⁻¹ b for k right-hand sides, column-major [n*k] each; x may equal b.
 * Reuses the factor's workspace: no allocation after the first call with
 * the same k. */
skf_status skfi_spd_solve(skf_spd *s, const double *b, size_t k, double *x, skf_error *err);
void skfi_spd_free(skf_spd *s);

/* Area-weighted vertex normals (unit; zero for a vertex without area). */
void skfi_surface_vertex_normals(const double *positions, size_t vertex_count, const uint32_t *triangles,
                        size_t triangle_count, double *normals);

#endif
