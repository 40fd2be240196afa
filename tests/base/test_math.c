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

int main(void)
{
    test_trs_roundtrip();
    test_shear_rejected();
    test_slerp_shortest();
    return skf_test_done();
}
