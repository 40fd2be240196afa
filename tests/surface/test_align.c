/* Rest-surface alignment: identity, permuted + re-split, subdivided + Z-up +
 * ×100 (recovered exactly), an arbitrary rotation (PCA start), a different
 * shape refused with SKF_ERR_MISMATCH; correspondence identity and exactness;
 * farthest-point subsampling deterministic and even. */
#include "check.h"
#include "mesh_util.h"
#include "skinfit/math.h"
#include "skinfit/transfer.h"

static double max_map_error(const double *src, const double *tgt, const skf_correspondence *c, const double A[16])
{
    /* carried rest point vs the target vertex mapped into source space */
    double e = 0;
    for (size_t k = 0; k < c->count; ++k) {
        double u[3] = {0, 0, 0}, q[3];
        for (int j = 0; j < 3; ++j)
            for (int a = 0; a < 3; ++a)
                u[a] += c->bary[3 * k + j] * src[3 * c->source_vertex[3 * k + j] + a];
        skf_mat4_transform_point(q, A, tgt + 3 * c->target_vertex[k]);
        double d[3] = {u[0] - q[0], u[1] - q[1], u[2] - q[2]};
        e = fmax(e, skf_norm3(d));
    }
    return e;
}

int main(void)
{
    double *p;
    uint32_t *t;
    size_t nv, nt;
    mesh_blob(20, 32, 1.0, &p, &nv, &t, &nt);
    skf_error err;
    skf_alignment al;

    /* 1. identical */
    CHECK(skf_align_surfaces(p, nv, t, nt, p, nv, t, nt, NULL, &al, &err) == SKF_OK);
    CHECK(al.identity);
    skf_correspondence c;
    CHECK(skf_correspond(p, nv, t, nt, p, nv, &al, NULL, 0, &c, &err) == SKF_OK);
    int ident = 1;
    for (size_t k = 0; k < c.count; ++k)
        ident &= c.source_vertex[3 * k] == k && c.bary[3 * k] == 1.0;
    CHECK(ident && c.count == nv);
    skf_correspondence_release(&c);

    /* 2. permuted and re-split (each triangle gets its own vertices) */
    size_t pv = nt * 3;
    double *pp = malloc(pv * 3 * sizeof(double));
    uint32_t *pt = malloc(nt * 3 * sizeof(uint32_t));
    /* a bijective shuffle: reverse order of the split vertices */
    for (size_t f = 0; f < nt; ++f)
        for (int k = 0; k < 3; ++k) {
            size_t dst = pv - 1 - (f * 3 + (size_t)k);
            for (int a = 0; a < 3; ++a)
                pp[3 * dst + a] = p[3 * t[3 * f + k] + a];
            pt[3 * f + k] = (uint32_t)dst;
        }
    CHECK(skf_align_surfaces(p, nv, t, nt, pp, pv, pt, nt, NULL, &al, &err) == SKF_OK);
    printf("permuted+split: method %s residual %.3g\n", al.method, al.residual);
    CHECK(al.identity);
    CHECK(skf_correspond(p, nv, t, nt, pp, pv, &al, NULL, 0, &c, &err) == SKF_OK);
    double I[16];
    skf_mat4_identity(I);
    double e = max_map_error(p, pp, &c, I);
    printf("permuted+split: max carried rest error %.3g\n", e);
    CHECK(e == 0);
    skf_correspondence_release(&c);

    /* 3. subdivided, rotated to Z-up (+90° about X), scaled ×100, offset */
    double *sp;
    uint32_t *st;
    size_t snv, snt;
    mesh_subdivide(p, nv, t, nt, &sp, &snv, &st, &snt);
    double M[16], q[4] = {sin(M_PI / 4), 0, 0, cos(M_PI / 4)}, tr[3] = {5, -3, 12}, sc[3] = {100, 100, 100};
    skf_mat4_from_trs(M, tr, q, sc);
    for (size_t v = 0; v < snv; ++v) {
        double x[3];
        skf_mat4_transform_point(x, M, sp + 3 * v);
        memcpy(sp + 3 * v, x, sizeof x);
    }
    CHECK(skf_align_surfaces(p, nv, t, nt, sp, snv, st, snt, NULL, &al, &err) == SKF_OK);
    double Minv[16];
    skf_mat4_invert(Minv, M);
    double dm = 0;
    for (int k = 0; k < 16; ++k)
        dm = fmax(dm, fabs(al.target_to_source[k] - Minv[k]) * (k % 4 == 3 || k >= 12 ? 1 : 100));
    printf("subdivided Z-up x100: method %s scale %.12g residual %.3g, |A - M^-1| (scaled) %.3g\n", al.method,
           al.scale, al.residual, dm);
    CHECK(!al.identity);
    CHECK_NEAR(al.scale, 0.01, 1e-9);
    CHECK(al.residual < 1e-9);
    CHECK(dm < 1e-7);
    CHECK(skf_correspond(p, nv, t, nt, sp, snv, &al, NULL, 0, &c, &err) == SKF_OK);
    e = max_map_error(p, sp, &c, al.target_to_source);
    printf("subdivided: max carried rest error %.3g (source diag %.3g)\n", e, al.source_diagonal);
    CHECK(e < 1e-8 * al.source_diagonal);
    skf_correspondence_release(&c);

    /* 4. an arbitrary rotation (not a multiple of 90°): PCA start + ICP */
    double *rp = malloc(nv * 3 * sizeof(double));
    double q2[4] = {0.3, -0.5, 0.2, 0.6}, one[3] = {1.7, 1.7, 1.7}, tr2[3] = {0.4, 0.1, -2};
    skf_quat_normalize(q2);
    skf_mat4_from_trs(M, tr2, q2, one);
    for (size_t v = 0; v < nv; ++v)
        skf_mat4_transform_point(rp + 3 * v, M, p + 3 * v);
    CHECK(skf_align_surfaces(p, nv, t, nt, rp, nv, t, nt, NULL, &al, &err) == SKF_OK);
    printf("arbitrary rotation: method %s scale %.9g residual %.3g\n", al.method, al.scale, al.residual);
    CHECK_NEAR(al.scale, 1 / 1.7, 1e-6);
    CHECK(al.residual < 1e-6);

    /* 5. a different shape: refused */
    double *op;
    uint32_t *ot;
    size_t onv, ont;
    mesh_blob(20, 32, -1.5, &op, &onv, &ot, &ont);
    for (size_t v = 0; v < onv; ++v)
        op[3 * v + 1] *= 2.5; /* a tall shape */
    skf_status s = skf_align_surfaces(p, nv, t, nt, op, onv, ot, ont, NULL, &al, &err);
    printf("different shape: status %s residual %.3g: %s\n", skf_status_name(s), al.residual, err.message);
    CHECK(s == SKF_ERR_MISMATCH);
    CHECK(strstr(err.message, "do not match") != NULL);

    /* 6. subsampling: deterministic, even */
    uint32_t *sel1, *sel2;
    size_t n1, n2;
    CHECK(skf_subsample_even(sp, snv, 200, &sel1, &n1, &err) == SKF_OK);
    CHECK(skf_subsample_even(sp, snv, 200, &sel2, &n2, &err) == SKF_OK);
    CHECK(n1 == 200 && n2 == 200 && !memcmp(sel1, sel2, n1 * sizeof *sel1));
    /* evenness: the covering radius (max over vertices of distance to the
     * nearest selected) is at most 2x the packing radius (min distance
     * between selected pairs), a property of farthest-point sampling */
    double cover = 0, pack = 1e300;
    for (size_t v = 0; v < snv; ++v) {
        double m = 1e300;
        for (size_t k = 0; k < n1; ++k) {
            const double *a = sp + 3 * v, *b = sp + 3 * sel1[k];
            double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
            m = fmin(m, skf_norm3(d));
        }
        cover = fmax(cover, m);
    }
    for (size_t i = 0; i < n1; ++i)
        for (size_t k = i + 1; k < n1; ++k) {
            const double *a = sp + 3 * sel1[i], *b = sp + 3 * sel1[k];
            double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
            pack = fmin(pack, skf_norm3(d));
        }
    printf("farthest-point sampling 200 of %zu: covering radius %.4g, packing distance %.4g\n", snv, cover, pack);
    CHECK(cover <= pack * 1.0000001);
    skf_free(sel2);
    CHECK(skf_subsample_even(sp, snv, 0, &sel2, &n2, &err) == SKF_OK && n2 == snv && sel2[snv - 1] == snv - 1);
    skf_free(sel1);
    skf_free(sel2);

    free(p), free(t), free(pp), free(pt), free(sp), free(st), free(rp), free(op), free(ot);
    return skf_test_done();
}
