/* Sparse symmetric positive definite solves through SuiteSparse CHOLMOD.
 *
 * Reference: Chen, Davis, Hager & Rajamanickam, "Algorithm 887: CHOLMOD,
 * Supernodal Sparse Cholesky Factorization and Update/Downdate" (ACM TOMS
 * 2008). CHOLMOD chooses the fill-reducing ordering (AMD or METIS) and the
 * supernodal or simplicial method; we only assemble, factor once and
 * back-substitute many times (registration: once per iteration; deformation
 * transfer: once per target, then one solve per frame).
 *
 * Why a wrapper: the library never prints (CHOLMOD's own error printing is
 * switched off and its status turned into an skf_error), and callers of
 * src/surface/ see arrays, not CHOLMOD types.
 */
#include "surface_internal.h"

#include <cholmod.h>
#include <stdio.h>
#include <string.h>

struct skf_spd {
    cholmod_common c;
    cholmod_factor *L;
    cholmod_dense *B, *X, *Y, *E;
    size_t n, k;
    char what[64];
};

void skfi_spd_free(skf_spd *s)
{
    if (!s)
        return;
    cholmod_free_dense(&s->B, &s->c);
    cholmod_free_dense(&s->X, &s->c);
    cholmod_free_dense(&s->Y, &s->c);
    cholmod_free_dense(&s->E, &s->c);
    cholmod_free_factor(&s->L, &s->c);
    cholmod_finish(&s->c);
    skf_free(s);
}

/* A factor object for n unknowns: *out when it has n, else a new one. */
static skf_spd *spd_for(size_t n, const char *what, skf_spd **out)
{
    skf_spd *s = *out;
    if (s && s->n != n) {
        skfi_spd_free(s);
        s = NULL;
    }
    *out = NULL;
    if (!s) {
        s = skf_calloc(1, sizeof *s);
        if (!s)
            return NULL;
        snprintf(s->what, sizeof s->what, "%s", what);
        cholmod_start(&s->c);
        s->c.print = 0;
        s->c.error_handler = NULL;
        s->n = n;
    }
    return s;
}

/* Numeric factorisation of A (the symbolic analysis of the first call is
 * kept for refactorisations of the same pattern); *out = s on success, s
 * freed on error. A is the caller's. */
static skf_status spd_factorize(skf_spd *s, cholmod_sparse *A, bool free_A, const char *what, skf_spd **out,
                                skf_error *err)
{
    size_t n = s->n;
    if (!s->L)
        s->L = cholmod_analyze(A, &s->c);
    int ok = s->L && cholmod_factorize(A, s->L, &s->c);
    if (free_A)
        cholmod_free_sparse(&A, &s->c);
    if (!ok || s->c.status != CHOLMOD_OK) {
        bool posdef = s->c.status == CHOLMOD_NOT_POSDEF;
        skfi_spd_free(s);
        if (posdef)
            return skf_fail(err, SKF_ERR_NUMERIC, "%s: the %zu×%zu system is not positive definite", what, n, n);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: %zu×%zu factorisation failed (out of memory)", what, n, n);
    }
    *out = s;
    return SKF_OK;
}

skf_status skfi_spd_factor(size_t n, size_t nnz, const uint32_t *row, const uint32_t *col, const double *val,
                          const char *what, skf_spd **out, skf_error *err)
{
    skf_spd *s = spd_for(n, what, out);
    if (!s)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", what);
    cholmod_triplet *T = cholmod_allocate_triplet(n, n, nnz ? nnz : 1, 1, CHOLMOD_REAL, &s->c);
    if (!T) {
        skfi_spd_free(s);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: %zu×%zu system, %zu entries: out of memory", what, n, n, nnz);
    }
    int *ti = T->i, *tj = T->j;
    double *tx = T->x;
    for (size_t e = 0; e < nnz; ++e) {
        ti[e] = (int)row[e];
        tj[e] = (int)col[e];
        tx[e] = val[e];
    }
    T->nnz = nnz;
    cholmod_sparse *A = cholmod_triplet_to_sparse(T, nnz, &s->c);
    cholmod_free_triplet(&T, &s->c);
    if (!A) {
        skfi_spd_free(s);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: %zu×%zu system: out of memory", what, n, n);
    }
    return spd_factorize(s, A, true, what, out, err);
}

skf_status skfi_spd_factor_lower(size_t n, const int32_t *col_start, const int32_t *row, const double *val,
                                const char *what, skf_spd **out, skf_error *err)
{
    skf_spd *s = spd_for(n, what, out);
    if (!s)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", what);
    cholmod_sparse A = {.nrow = n,
                        .ncol = n,
                        .nzmax = (size_t)col_start[n],
                        .p = (void *)col_start,
                        .i = (void *)row,
                        .x = (void *)val,
                        .stype = -1,
                        .itype = CHOLMOD_INT,
                        .xtype = CHOLMOD_REAL,
                        .dtype = CHOLMOD_DOUBLE,
                        .sorted = 1,
                        .packed = 1};
    return spd_factorize(s, &A, false, what, out, err);
}

skf_status skfi_spd_solve(skf_spd *s, const double *b, size_t k, double *x, skf_error *err)
{
    if (!s->B || s->k != k) {
        cholmod_free_dense(&s->B, &s->c);
        s->B = cholmod_allocate_dense(s->n, k, s->n, CHOLMOD_REAL, &s->c);
        s->k = k;
        if (!s->B)
            return skf_fail(err, SKF_ERR_NOMEM, "%s: solve: out of memory", s->what);
    }
    memcpy(s->B->x, b, s->n * k * sizeof(double));
    if (!cholmod_solve2(CHOLMOD_A, s->L, s->B, NULL, &s->X, NULL, &s->Y, &s->E, &s->c))
        return skf_fail(err, SKF_ERR_NOMEM, "%s: solve failed (out of memory)", s->what);
    memcpy(x, s->X->x, s->n * k * sizeof(double));
    return SKF_OK;
}
