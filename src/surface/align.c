/* Rest-surface alignment of two meshes of the same animal.
 *
 * References: Besl & McKay, "A method for registration of 3-D shapes"
 * (PAMI 1992) — iterative closest point; Umeyama, "Least-squares estimation
 * of transformation parameters between two point patterns" (PAMI 1991) —
 * the closed-form similarity (rotation, uniform scale, translation) used in
 * every ICP step.
 *
 * Why this order: ICP only converges from a start within a few tens of
 * degrees, and re-exports change the axis convention by multiples of 90°
 * (Y-up ↔ Z-up) and the units by powers of ten (m ↔ cm). So the start is
 * found globally: match the area-weighted centroids (invariant to how the
 * surface is triangulated, unlike vertex centroids), set the uniform scale
 * from the area-weighted second moments, and score every proper signed axis
 * permutation (24) plus the 4 proper PCA frames (for arbitrary rotations) by
 * a one-way closest-point residual on a sample. The best start is refined by
 * symmetric ICP (target→source and source→target pairs together), which
 * cannot shrink or inflate one surface into a part of the other.
 * The reported residual is RMS of closest-surface distances over both
 * directions, relative to the source rest bounding-box diagonal.
 */
#include "skinfit/surface.h"
#include "skinfit/math.h"

#include "surface_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

static double bbox_diagonal(const double *p, size_t n)
{
    double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
    for (size_t i = 0; i < n; ++i)
        for (int a = 0; a < 3; ++a) {
            lo[a] = fmin(lo[a], p[3 * i + a]);
            hi[a] = fmax(hi[a], p[3 * i + a]);
        }
    if (n == 0)
        return 0;
    double d[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
    return skf_norm3(d);
}

/* Similarity x → s R x + t as a matrix. */
static void similarity_matrix(double m[16], double s, const double r[9], const double t[3])
{
    skf_mat4_identity(m);
    for (int c = 0; c < 3; ++c)
        for (int row = 0; row < 3; ++row)
            m[c * 4 + row] = s * r[c * 3 + row];
    m[12] = t[0];
    m[13] = t[1];
    m[14] = t[2];
}

/* Umeyama (see surface.h): with w NULL every weight is 1.0, and since
 * multiplying by 1.0 and summing n ones are exact, the unweighted fit is
 * the same arithmetic as before weights existed. */
bool skf_similarity_fit(const double *x, const double *y, const double *w, size_t n, double m[16])
{
    double mx[3] = {0, 0, 0}, my[3] = {0, 0, 0}, sw = 0;
    for (size_t k = 0; k < n; ++k) {
        double wk = w ? w[k] : 1.0;
        sw += wk;
        for (int a = 0; a < 3; ++a) {
            mx[a] += wk * x[3 * k + a];
            my[a] += wk * y[3 * k + a];
        }
    }
    if (!(sw > 0))
        return false;
    for (int a = 0; a < 3; ++a) {
        mx[a] /= sw;
        my[a] /= sw;
    }
    double cov[9] = {0}, var = 0; /* cov column-major: cov[col*3+row] = Σ w (y_row)(x_col) */
    for (size_t k = 0; k < n; ++k) {
        double wk = w ? w[k] : 1.0;
        double dx[3], dy[3];
        for (int a = 0; a < 3; ++a) {
            dx[a] = x[3 * k + a] - mx[a];
            dy[a] = y[3 * k + a] - my[a];
        }
        var += wk * skf_dot3(dx, dx);
        for (int col = 0; col < 3; ++col)
            for (int row = 0; row < 3; ++row)
                cov[col * 3 + row] += wk * dy[row] * dx[col];
    }
    if (!(var > 0))
        return false;
    double sv[3], u[9], v[9]; /* cov = U·diag(sv)·Vᵀ (src/base/svd3.c) */
    skf_svd3(cov, u, sv, v);
    double du = u[0] * (u[4] * u[8] - u[7] * u[5]) - u[3] * (u[1] * u[8] - u[7] * u[2]) +
                u[6] * (u[1] * u[5] - u[4] * u[2]);
    double dv = v[0] * (v[4] * v[8] - v[7] * v[5]) - v[3] * (v[1] * v[8] - v[7] * v[2]) +
                v[6] * (v[1] * v[5] - v[4] * v[2]);
    double d[3] = {1, 1, du * dv < 0 ? -1 : 1};
    double r[9];
    for (int col = 0; col < 3; ++col)
        for (int row = 0; row < 3; ++row) {
            double s = 0;
            for (int k = 0; k < 3; ++k)
                s += u[k * 3 + row] * d[k] * v[k * 3 + col];
            r[col * 3 + row] = s;
        }
    double scale = (sv[0] * d[0] + sv[1] * d[1] + sv[2] * d[2]) / var;
    double rmx[3] = {0, 0, 0};
    for (int row = 0; row < 3; ++row)
        for (int col = 0; col < 3; ++col)
            rmx[row] += r[col * 3 + row] * mx[col];
    double t[3] = {my[0] - scale * rmx[0], my[1] - scale * rmx[1], my[2] - scale * rmx[2]};
    similarity_matrix(m, scale, r, t);
    return true;
}

typedef struct align_ctx {
    const double *sp, *tp;
    const skf_bvh *sbvh, *tbvh;
    uint32_t *ts, *ss;    /* samples of target / source vertices */
    size_t nts, nss;
    double *x, *y;        /* pair buffers [(nts+nss)*3] */
    double *dist;         /* [(nts+nss)] */
} align_ctx;

/* One-way (target → source) or two-way closest-point pairs under A
 * (target → source). Fills x (target space) and y (source space) and
 * returns the RMS distance in source units. */
static double pairs(align_ctx *c, const double A[16], size_t nts, bool both, size_t *npairs)
{
    double Ainv[16];
    skf_mat4_invert_affine(Ainv, A);
    double scale = cbrt(fabs(A[0] * (A[5] * A[10] - A[9] * A[6]) - A[4] * (A[1] * A[10] - A[9] * A[2]) +
                             A[8] * (A[1] * A[6] - A[5] * A[2])));
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < nts; ++k) {
        const double *p = c->tp + 3 * (size_t)c->ts[k];
        double q[3];
        skf_mat4_transform_point(q, A, p);
        skf_surface_point sp;
        skf_bvh_closest(c->sbvh, q, &sp);
        memcpy(c->x + 3 * k, p, 3 * sizeof(double));
        memcpy(c->y + 3 * k, sp.point, 3 * sizeof(double));
        c->dist[k] = sp.distance;
    }
    size_t n = nts;
    if (both) {
#pragma omp parallel for schedule(static)
        for (size_t k = 0; k < c->nss; ++k) {
            const double *p = c->sp + 3 * (size_t)c->ss[k];
            double q[3];
            skf_mat4_transform_point(q, Ainv, p);
            skf_surface_point tpnt;
            skf_bvh_closest(c->tbvh, q, &tpnt);
            memcpy(c->x + 3 * (nts + k), tpnt.point, 3 * sizeof(double));
            memcpy(c->y + 3 * (nts + k), p, 3 * sizeof(double));
            c->dist[nts + k] = tpnt.distance * scale; /* into source units */
        }
        n += c->nss;
    }
    double sum = 0;
    for (size_t k = 0; k < n; ++k)
        sum += c->dist[k] * c->dist[k];
    *npairs = n;
    return sqrt(sum / (double)n);
}

/* The 24 rotations that permute the axes with signs (det +1). */
static size_t axis_rotations(double out[24][9])
{
    static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    size_t n = 0;
    for (int p = 0; p < 6; ++p)
        for (int sgn = 0; sgn < 8; ++sgn) {
            double r[9] = {0};
            for (int col = 0; col < 3; ++col)
                r[col * 3 + perms[p][col]] = (sgn >> col) & 1 ? -1.0 : 1.0;
            double det = r[0] * (r[4] * r[8] - r[7] * r[5]) - r[3] * (r[1] * r[8] - r[7] * r[2]) +
                         r[6] * (r[1] * r[5] - r[4] * r[2]);
            if (det > 0)
                memcpy(out[n++], r, sizeof r);
        }
    return n;
}

/* Eigen-frame of a second-moment matrix (symmetric positive semi-definite):
 * its right singular vectors, columns in descending order of eigenvalue. */
static bool eigen_frame(const double cov[9], double vec[9])
{
    double u[9], w[3];
    skf_svd3(cov, u, w, vec);
    return w[0] > 0; /* the caller has checked the trace is > 0 */
}

skf_status skf_align_surfaces(const double *source_positions, size_t source_vertex_count,
                              const uint32_t *source_triangles, size_t source_triangle_count,
                              const double *target_positions, size_t target_vertex_count,
                              const uint32_t *target_triangles, size_t target_triangle_count,
                              const skf_align_options *options, skf_alignment *out,
                              skf_error *err)
{
    memset(out, 0, sizeof *out);
    skf_mat4_identity(out->target_to_source);
    out->scale = 1;
    out->method = "identity";
    double max_res = options && options->max_residual > 0 ? options->max_residual : SKF_ALIGN_DEFAULT_MAX_RESIDUAL;
    int icp_iter = options && options->icp_iterations > 0 ? options->icp_iterations : 50;
    size_t nsample = options && options->sample_count > 0 ? options->sample_count : 4000;
    out->source_diagonal = bbox_diagonal(source_positions, source_vertex_count);
    out->target_diagonal = bbox_diagonal(target_positions, target_vertex_count);
    if (!(out->source_diagonal > 0) || !(out->target_diagonal > 0))
        return skf_fail(err, SKF_ERR_MISMATCH, "align: rest surfaces: a surface has zero extent");

    skf_status st = SKF_OK;
    align_ctx c = {0};
    c.sp = source_positions;
    c.tp = target_positions;
    skf_bvh *sbvh = NULL, *tbvh = NULL;
    st = skfi_bvh_build_view(source_positions, source_vertex_count, source_triangles, source_triangle_count, &sbvh, err);
    if (st)
        goto done;
    st = skfi_bvh_build_view(target_positions, target_vertex_count, target_triangles, target_triangle_count, &tbvh, err);
    if (st)
        goto done;
    c.sbvh = sbvh;
    c.tbvh = tbvh;
    c.ts = skf_malloc_array(nsample, sizeof(uint32_t));
    c.ss = skf_malloc_array(nsample, sizeof(uint32_t));
    c.x = skf_malloc_array(2 * nsample * 3, sizeof(double));
    c.y = skf_malloc_array(2 * nsample * 3, sizeof(double));
    c.dist = skf_malloc_array(2 * nsample, sizeof(double));
    if (!c.ts || !c.ss || !c.x || !c.y || !c.dist) {
        st = skf_fail(err, SKF_ERR_NOMEM, "align: samples: out of memory");
        goto done;
    }
    c.nts = skfi_stride_sample(target_vertex_count, nsample, c.ts);
    c.nss = skfi_stride_sample(source_vertex_count, nsample, c.ss);
    size_t np;

    /* 1. identity */
    double ident[16];
    skf_mat4_identity(ident);
    double res = pairs(&c, ident, c.nts, true, &np) / out->source_diagonal;
    if (res <= 1e-9) {
        out->residual = res;
        out->identity = true;
        goto done;
    }

    /* 2. global start: centroid, scale, axis permutations / PCA frames */
    double sa, sc[3], scov[9], ta, tc[3], tcov[9];
    skf_surface_moments(source_positions, source_triangles, source_triangle_count, &sa, sc, scov);
    skf_surface_moments(target_positions, target_triangles, target_triangle_count, &ta, tc, tcov);
    double str = scov[0] + scov[4] + scov[8], ttr = tcov[0] + tcov[4] + tcov[8];
    if (!(sa > 0) || !(ta > 0) || !(str > 0) || !(ttr > 0)) {
        st = skf_fail(err, SKF_ERR_MISMATCH, "align: rest surfaces: a surface has zero area");
        goto done;
    }
    double s0 = sqrt(str / ttr);
    double rots[32][9];
    const char *kinds[32];
    size_t nrot = axis_rotations(rots);
    for (size_t k = 0; k < nrot; ++k)
        kinds[k] = "axes";
    double es[9], et[9];
    if (eigen_frame(scov, es) && eigen_frame(tcov, et)) {
        for (int sgn = 0; sgn < 8; ++sgn) {
            double f[9];
            memcpy(f, et, sizeof f);
            for (int col = 0; col < 3; ++col)
                if ((sgn >> col) & 1)
                    for (int row = 0; row < 3; ++row)
                        f[col * 3 + row] = -f[col * 3 + row];
            double r[9]; /* R = Es · Fᵀ */
            for (int col = 0; col < 3; ++col)
                for (int row = 0; row < 3; ++row) {
                    double s = 0;
                    for (int k = 0; k < 3; ++k)
                        s += es[k * 3 + row] * f[k * 3 + col];
                    r[col * 3 + row] = s;
                }
            double det = r[0] * (r[4] * r[8] - r[7] * r[5]) - r[3] * (r[1] * r[8] - r[7] * r[2]) +
                         r[6] * (r[1] * r[5] - r[4] * r[2]);
            if (det > 0 && nrot < 32) {
                memcpy(rots[nrot], r, sizeof r);
                kinds[nrot++] = "pca";
            }
        }
    }
    size_t nscore = c.nts < 600 ? c.nts : 600;
    size_t stride = c.nts / nscore;
    /* score on a sub-sample: reuse the first entries of ts by striding */
    uint32_t *full_ts = c.ts;
    uint32_t *score_ts = skf_malloc_array(nscore, sizeof(uint32_t));
    if (!score_ts) {
        st = skf_fail(err, SKF_ERR_NOMEM, "align: samples: out of memory");
        goto done;
    }
    for (size_t k = 0; k < nscore; ++k)
        score_ts[k] = full_ts[k * stride];
    double best_m[16], best_score = DBL_MAX;
    size_t best_k = 0;
    for (size_t k = 0; k < nrot; ++k) {
        double rc[3] = {0, 0, 0};
        for (int row = 0; row < 3; ++row)
            for (int col = 0; col < 3; ++col)
                rc[row] += rots[k][col * 3 + row] * tc[col];
        double t[3] = {sc[0] - s0 * rc[0], sc[1] - s0 * rc[1], sc[2] - s0 * rc[2]};
        double m[16];
        similarity_matrix(m, s0, rots[k], t);
        c.ts = score_ts;
        double r = pairs(&c, m, nscore, false, &np);
        c.ts = full_ts;
        if (r < best_score) {
            best_score = r;
            best_k = k;
            memcpy(best_m, m, sizeof m);
        }
    }
    skf_free(score_ts);
    /* the identity as a candidate too (a surface that is only slightly off) */
    double m_id_res = res;
    double A[16];
    memcpy(A, best_m, sizeof A);
    out->method = kinds[best_k];

    /* 3. symmetric ICP */
    double prev = DBL_MAX, cur = pairs(&c, A, c.nts, true, &np);
    for (int it = 0; it < icp_iter; ++it) {
        double m[16];
        if (!skf_similarity_fit(c.x, c.y, NULL, np, m))
            break;
        double r = pairs(&c, m, c.nts, true, &np);
        if (!(r < cur)) { /* no gain: keep A, restore its pairs */
            break;
        }
        memcpy(A, m, sizeof A);
        prev = cur;
        cur = r;
        if (prev - cur <= 1e-12 * out->source_diagonal)
            break;
    }
    res = cur / out->source_diagonal;
    if (m_id_res <= res) {
        res = m_id_res;
        skf_mat4_identity(A);
        out->method = "identity";
    }
    memcpy(out->target_to_source, A, sizeof A);
    out->scale = cbrt(fabs(A[0] * (A[5] * A[10] - A[9] * A[6]) - A[4] * (A[1] * A[10] - A[9] * A[2]) +
                           A[8] * (A[1] * A[6] - A[5] * A[2])));
    out->residual = res;
    out->identity = false;
    if (res > max_res)
        st = skf_fail(err, SKF_ERR_MISMATCH,
                      "align: rest surfaces: surfaces do not match: residual %.3g %% of the diagonal > %.3g %% "
                      "(not the same animal?)",
                      100 * res, 100 * max_res);
done:
    skf_free(c.ts);
    skf_free(c.ss);
    skf_free(c.x);
    skf_free(c.y);
    skf_free(c.dist);
    skf_bvh_free(sbvh);
    skf_bvh_free(tbvh);
    return st;
}
