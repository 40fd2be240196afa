/* BVH closest point: exact against brute force over every triangle, for
 * points near, on and far from a surface; surface moments invariant to
 * subdivision. */
#include "check.h"
#include "mesh_util.h"
#include "skinfit/math.h"
#include "skinfit/transfer.h"

#include <float.h>

/* Independent brute force: plane projection when inside, else the nearest
 * point on the three edges. */
static double seg_dist(const double p[3], const double a[3], const double b[3])
{
    double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, ap[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
    double l = skf_dot3(ab, ab), t = l > 0 ? skf_dot3(ap, ab) / l : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double d[3] = {ap[0] - t * ab[0], ap[1] - t * ab[1], ap[2] - t * ab[2]};
    return skf_norm3(d);
}

static double tri_dist(const double p[3], const double *a, const double *b, const double *c)
{
    double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, ac[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double n[3];
    skf_cross3(n, ab, ac);
    double nn = skf_dot3(n, n);
    double best = fmin(seg_dist(p, a, b), fmin(seg_dist(p, b, c), seg_dist(p, c, a)));
    if (nn > 0) {
        double ap[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
        double h = skf_dot3(ap, n) / nn;
        double q[3] = {p[0] - h * n[0], p[1] - h * n[1], p[2] - h * n[2]};
        /* inside test by signed areas */
        const double *v[3] = {a, b, c};
        int inside = 1;
        for (int k = 0; k < 3; ++k) {
            const double *s = v[k], *e = v[(k + 1) % 3];
            double se[3] = {e[0] - s[0], e[1] - s[1], e[2] - s[2]}, sq[3] = {q[0] - s[0], q[1] - s[1], q[2] - s[2]};
            double cr[3];
            skf_cross3(cr, se, sq);
            if (skf_dot3(cr, n) < 0)
                inside = 0;
        }
        if (inside)
            best = fmin(best, fabs(h) * sqrt(nn));
    }
    return best;
}

int main(void)
{
    double *p;
    uint32_t *t;
    size_t nv, nt;
    mesh_blob(24, 40, 1.0, &p, &nv, &t, &nt);
    skf_bvh *bvh = NULL;
    skf_error err;
    CHECK(skf_bvh_build(p, nv, t, nt, &bvh, &err) == SKF_OK);
    uint64_t seed = 42;
    double max_diff = 0, max_bary_err = 0;
    int queries = 600;
    for (int q = 0; q < queries; ++q) {
        double x[3];
        double spread = q < 200 ? 0.05 : q < 400 ? 1.0 : 10.0;
        const double *v = p + 3 * (size_t)(q * 7 % (int)nv);
        for (int a = 0; a < 3; ++a)
            x[a] = v[a] + spread * (2 * test_rand(&seed) - 1);
        skf_surface_point sp;
        skf_bvh_closest(bvh, x, &sp);
        double brute = DBL_MAX;
        for (size_t f = 0; f < nt; ++f)
            brute = fmin(brute, tri_dist(x, p + 3 * t[3 * f], p + 3 * t[3 * f + 1], p + 3 * t[3 * f + 2]));
        max_diff = fmax(max_diff, fabs(brute - sp.distance));
        /* the barycentric point must reproduce the reported point and distance */
        double r[3] = {0, 0, 0}, bs = 0;
        for (int k = 0; k < 3; ++k) {
            CHECK(sp.bary[k] >= 0 && sp.bary[k] <= 1);
            bs += sp.bary[k];
            for (int a = 0; a < 3; ++a)
                r[a] += sp.bary[k] * p[3 * sp.vertex[k] + a];
        }
        double d[3] = {r[0] - x[0], r[1] - x[1], r[2] - x[2]};
        max_bary_err = fmax(max_bary_err, fabs(skf_norm3(d) - sp.distance) + fabs(bs - 1));
    }
    printf("closest point vs brute force over %d queries: max |diff| %.3g, bary consistency %.3g\n", queries,
           max_diff, max_bary_err);
    CHECK(max_diff < 1e-12);
    CHECK(max_bary_err < 1e-12);

    /* a query exactly at a vertex returns that vertex with bary exactly 1 */
    int exact = 0;
    for (size_t v = 0; v < nv; ++v) {
        skf_surface_point sp;
        skf_bvh_closest(bvh, p + 3 * v, &sp);
        for (int k = 0; k < 3; ++k)
            if (sp.vertex[k] == v && sp.bary[k] == 1.0 && sp.distance == 0)
                ++exact;
    }
    printf("vertices found exactly: %d of %zu\n", exact, nv);
    CHECK(exact == (int)nv);

    /* moments invariant to subdivision */
    double *sp2;
    uint32_t *st2;
    size_t snv, snt;
    mesh_subdivide(p, nv, t, nt, &sp2, &snv, &st2, &snt);
    double a1, c1[3], m1[9], a2, c2[3], m2[9];
    skf_surface_moments(p, t, nt, &a1, c1, m1);
    skf_surface_moments(sp2, st2, snt, &a2, c2, m2);
    double dm = 0;
    for (int k = 0; k < 9; ++k)
        dm = fmax(dm, fabs(m1[k] - m2[k]));
    printf("area %.12g vs %.12g, centroid diff %.3g, cov diff %.3g\n", a1, a2, fabs(c1[0] - c2[0]) + fabs(c1[1] - c2[1]) + fabs(c1[2] - c2[2]), dm);
    CHECK_NEAR(a1, a2, 1e-12 * a1);
    CHECK(dm < 1e-12);

    /* bad input */
    uint32_t badt[3] = {0, 1, (uint32_t)nv};
    skf_bvh *bad = NULL;
    CHECK(skf_bvh_build(p, nv, badt, 1, &bad, &err) == SKF_ERR_FORMAT && bad == NULL);
    CHECK(strstr(err.message, "triangles[0]") != NULL);
    CHECK(skf_bvh_build(p, nv, t, 0, &bad, &err) == SKF_ERR_ARGUMENT);

    skf_bvh_free(bvh);
    free(p);
    free(t);
    free(sp2);
    free(st2);
    return skf_test_done();
}
