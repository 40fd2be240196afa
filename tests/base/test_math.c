#include "check.h"
#include "skinfit/math.h"

static void test_trs_roundtrip(void)
{
    double t[3] = {1, -2, 3}, q[4] = {0.1, 0.7, -0.2, 0.5}, s[3] = {2, 2, 2};
    skf_quat_normalize(q);
    double m[16], t2[3], q2[4], s2[3];
    skf_mat4_from_trs(m, t, q, s);
    CHECK(skf_mat4_to_trs(m, t2, q2, s2, 1e-9));
    double dot = q[0] * q2[0] + q[1] * q2[1] + q[2] * q2[2] + q[3] * q2[3];
    CHECK_NEAR(fabs(dot), 1.0, 1e-12);
    for (int i = 0; i < 3; ++i) {
        CHECK_NEAR(t[i], t2[i], 1e-12);
        CHECK_NEAR(s[i], s2[i], 1e-12);
    }
    double inv[16], prod[16];
    CHECK(skf_mat4_invert(inv, m) != 0);
    skf_mat4_mul(prod, m, inv);
    for (int i = 0; i < 16; ++i)
        CHECK_NEAR(prod[i], (i % 5 == 0) ? 1.0 : 0.0, 1e-12);
    double inva[16];
    CHECK(skf_mat4_invert_affine(inva, m) != 0);
    for (int i = 0; i < 16; ++i)
        CHECK_NEAR(inva[i], inv[i], 1e-12);
}

static void test_shear_rejected(void)
{
    double m[16];
    skf_mat4_identity(m);
    m[4] = 0.5; /* x depends on y: shear */
    double t[3], q[4], s[3];
    CHECK(!skf_mat4_to_trs(m, t, q, s, 1e-6));
}

static void test_slerp_shortest(void)
{
    double a[4] = {0, 0, 0, 1}, b[4] = {0, 0, -0.7071067811865476, -0.7071067811865476};
    double o[4];
    skf_quat_slerp(o, a, b, 0.5);
    /* b == -(rotation of +90 deg about z) so the midpoint is +45 deg about z. */
    CHECK_NEAR(o[2], sin(M_PI / 8), 1e-12);
    CHECK_NEAR(o[3], cos(M_PI / 8), 1e-12);
}

/* skf_mat3_invert: a·inverse = I; each caller's threshold decides
 * singularity; out untouched when refused. */
static void test_mat3_invert(void)
{
    double a[9] = {2, 1, 0, -1, 3, 0.5, 0.25, 0, 4}; /* column-major */
    double o[9], p[9];
    CHECK(skf_mat3_invert(o, a, 1e-8));
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r) {
            p[3 * c + r] = 0;
            for (int k = 0; k < 3; ++k)
                p[3 * c + r] += a[3 * k + r] * o[3 * c + k];
            CHECK_NEAR(p[3 * c + r], r == c ? 1.0 : 0.0, 1e-14);
        }
    /* det = 1e-12: refused at 1e-8, accepted at 1e-300 */
    double tiny[9] = {1e-4, 0, 0, 0, 1e-4, 0, 0, 0, 1e-4};
    double keep[9] = {7, 7, 7, 7, 7, 7, 7, 7, 7};
    CHECK(!skf_mat3_invert(keep, tiny, 1e-8) && keep[0] == 7 && keep[8] == 7);
    CHECK(skf_mat3_invert(o, tiny, 1e-300));
    CHECK_NEAR(o[0], 1e4, 1e-8);
    /* exactly singular, and a det whose reciprocal overflows */
    double sing[9] = {1, 2, 3, 2, 4, 6, 0, 0, 1};
    CHECK(!skf_mat3_invert(o, sing, 0));
    double sub[9] = {1e-110, 0, 0, 0, 1e-110, 0, 0, 0, 1e-110}; /* det 1e-330 underflows to 0 */
    CHECK(!skf_mat3_invert(o, sub, 0));
    double denorm[9] = {1e-103, 0, 0, 0, 1e-103, 0, 0, 0, 1e-103}; /* det 1e-309: 1/det = inf */
    CHECK(!skf_mat3_invert(o, denorm, 0));
}

/* skf_quat_rotate and skf_mat4_transform_vector against the matrix of the
 * same TRS: a vector takes rotation and scale but not the translation. */
static void test_rotate_vector(void)
{
    double q[4] = {0, 0, sin(M_PI / 4), cos(M_PI / 4)}; /* +90 deg about z */
    double v[3] = {1, 2, 3}, o[3];
    skf_quat_rotate(o, q, v);
    CHECK_NEAR(o[0], -2, 1e-15);
    CHECK_NEAR(o[1], 1, 1e-15);
    CHECK_NEAR(o[2], 3, 1e-15);
    double t[3] = {5, -7, 9}, s[3] = {2, 3, 4}, g[4] = {0.3, -0.1, 0.6, 0.7}, m[16], r[9], w[3], p[3];
    skf_quat_normalize(g);
    skf_mat4_from_trs(m, t, g, s);
    skf_quat_to_mat3(r, g);
    double sv[3] = {s[0] * v[0], s[1] * v[1], s[2] * v[2]};
    skf_quat_rotate(o, g, sv);
    skf_mat4_transform_vector(w, m, v);
    skf_mat4_transform_point(p, m, v);
    for (int a = 0; a < 3; ++a) {
        CHECK_NEAR(w[a], o[a], 1e-13);
        CHECK_NEAR(p[a], o[a] + t[a], 1e-13);
        CHECK_NEAR(o[a], r[a] * sv[0] + r[3 + a] * sv[1] + r[6 + a] * sv[2], 1e-13);
    }
}

int main(void)
{
    test_rotate_vector();
    test_trs_roundtrip();
    test_shear_rejected();
    test_slerp_shortest();
    test_mat3_invert();
    return skf_test_done();
}
