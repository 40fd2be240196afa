/* skinfit/math.h — small dense math shared by every subsystem.
 *
 * Conventions (docs/conventions.md):
 *  - double precision throughout the library; float only at file boundaries.
 *  - 4x4 matrices are double[16], COLUMN-MAJOR like glTF: m[col*4 + row];
 *    a point p maps to M·[p;1]. Name matrices after the spaces they map,
 *    e.g. bind_to_world maps bind-space points to world space.
 *  - 3x3 matrices are double[9], column-major too.
 *  - quaternions are double[4] in (x, y, z, w) order, unit length for rotations.
 *  - TRS: translation[3], rotation quaternion[4], scale[3]; matrix = T·R·S.
 */
#ifndef SKINFIT_MATH_H
#define SKINFIT_MATH_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void skf_mat4_identity(double m[16]);
/* out = a·b; out may alias a or b. */
void skf_mat4_mul(double out[16], const double a[16], const double b[16]);
/* General inverse; returns the determinant (0 when singular, out untouched). */
double skf_mat4_invert(double out[16], const double m[16]);
/* Affine inverse (last row must be 0 0 0 1); returns det of the 3x3 part. */
double skf_mat4_invert_affine(double out[16], const double m[16]);
void skf_mat4_transform_point(double out[3], const double m[16], const double p[3]);
void skf_mat4_transform_vector(double out[3], const double m[16], const double v[3]);
void skf_mat4_from_trs(double m[16], const double t[3], const double q[4], const double s[3]);
/* Decompose an affine matrix into TRS. Returns false when the 3x3 part has
 * shear or is singular beyond rel_tol (relative to the largest scale);
 * a negative determinant is expressed as a negative scale on x. */
bool skf_mat4_to_trs(const double m[16], double t[3], double q[4], double s[3], double rel_tol);
bool skf_mat4_is_finite(const double m[16]);

/* Inverse of a 3x3 by its adjugate: out = adj(a) / det(a). Returns false,
 * out untouched, when !(|det| > min_abs_det) or 1/det is not finite (each
 * caller states its singularity threshold: 1e-8 for PCA's normal
 * equations, 1e-300 for the mean-shift frames). out must not alias a. */
bool skf_mat3_invert(double out[9], const double a[9], double min_abs_det);

void skf_quat_normalize(double q[4]);
/* out = a·b (apply b first, then a). out may alias. */
void skf_quat_mul(double out[4], const double a[4], const double b[4]);
/* Spherical interpolation along the shortest path (glTF / three.js semantics). */
void skf_quat_slerp(double out[4], const double a[4], const double b[4], double t);
void skf_quat_to_mat3(double r[9], const double q[4]);
/* Nearest unit quaternion of a rotation matrix (robust Shepperd method). */
void skf_quat_from_mat3(double q[4], const double r[9]);
void skf_quat_rotate(double out[3], const double q[4], const double v[3]);

static inline double skf_dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void skf_cross3(double out[3], const double a[3], const double b[3])
{
    double x = a[1] * b[2] - a[2] * b[1];
    double y = a[2] * b[0] - a[0] * b[2];
    double z = a[0] * b[1] - a[1] * b[0];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}
double skf_norm3(const double a[3]);

/* Symmetric 4×4 eigen-decomposition by cyclic Jacobi rotations (src/base/jacobi4.c) to machine
 * precision. A: row-major 4×4 (only read). evals[4] descending; evecs: column
 * k (evecs[r*4 + k]) is the unit eigenvector of evals[k]. Returns sweeps used. */
int skf_sym4_eigen(const double A[16], double evals[4], double evecs[16]);

/* Cholesky factorisation A = L·Lᵀ in place (src/base/cholesky.c), for small dense symmetric
 * positive definite systems (a few hundred unknowns). A: n×n column-major (A[col*n + row]); only
 * the lower triangle (row ≥ col) is read, and it is overwritten by L; the strict upper triangle is
 * left as it was. Returns 0, or the 1-based column j at which the leading j×j minor is not positive
 * definite (LAPACK dpotrf's info convention; A is then partly overwritten). */
size_t skf_cholesky_factor(size_t n, double *A);
/* Solves L·Lᵀ x = b in place (b[n] → x) with L from skf_cholesky_factor. */
void skf_cholesky_solve(size_t n, const double *L, double *b);

/* SVD of a 3×3 matrix by one-sided Jacobi rotations (src/base/svd3.c): A = U·diag(s)·Vᵀ, all
 * column-major (A[col*3 + row]). s[3] descending, ≥ 0; U and V orthonormal (U's columns for zero
 * singular values completed to a right-handed frame). For a symmetric positive semi-definite A,
 * V's columns are its eigenvectors and s its eigenvalues. Returns the sweeps used (≤ 64). */
int skf_svd3(const double A[9], double U[9], double s[3], double V[9]);

#ifdef __cplusplus
}
#endif
#endif
