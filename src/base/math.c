/* Small dense math; conventions in include/skinfit/math.h. */
#include "skinfit/math.h"

#include <math.h>
#include <string.h>

void skf_mat4_identity(double m[16])
{
    memset(m, 0, 16 * sizeof *m);
    m[0] = m[5] = m[10] = m[15] = 1.0;
}

void skf_mat4_mul(double out[16], const double a[16], const double b[16])
{
    double r[16];
    for (int c = 0; c < 4; ++c)
        for (int row = 0; row < 4; ++row) {
            double s = 0;
            for (int k = 0; k < 4; ++k)
                s += a[k * 4 + row] * b[c * 4 + k];
            r[c * 4 + row] = s;
        }
    memcpy(out, r, sizeof r);
}

double skf_mat4_invert(double out[16], const double m[16])
{
    /* Cofactor expansion (as in the classic MESA gluInvertMatrix layout). */
    double inv[16];
    inv[0] = m[5] * m[10] * m[15] - m[5] * m[11] * m[14] - m[9] * m[6] * m[15] +
             m[9] * m[7] * m[14] + m[13] * m[6] * m[11] - m[13] * m[7] * m[10];
    inv[4] = -m[4] * m[10] * m[15] + m[4] * m[11] * m[14] + m[8] * m[6] * m[15] -
             m[8] * m[7] * m[14] - m[12] * m[6] * m[11] + m[12] * m[7] * m[10];
    inv[8] = m[4] * m[9] * m[15] - m[4] * m[11] * m[13] - m[8] * m[5] * m[15] +
             m[8] * m[7] * m[13] + m[12] * m[5] * m[11] - m[12] * m[7] * m[9];
    inv[12] = -m[4] * m[9] * m[14] + m[4] * m[10] * m[13] + m[8] * m[5] * m[14] -
              m[8] * m[6] * m[13] - m[12] * m[5] * m[10] + m[12] * m[6] * m[9];
    inv[1] = -m[1] * m[10] * m[15] + m[1] * m[11] * m[14] + m[9] * m[2] * m[15] -
             m[9] * m[3] * m[14] - m[13] * m[2] * m[11] + m[13] * m[3] * m[10];
    inv[5] = m[0] * m[10] * m[15] - m[0] * m[11] * m[14] - m[8] * m[2] * m[15] +
             m[8] * m[3] * m[14] + m[12] * m[2] * m[11] - m[12] * m[3] * m[10];
    inv[9] = -m[0] * m[9] * m[15] + m[0] * m[11] * m[13] + m[8] * m[1] * m[15] -
             m[8] * m[3] * m[13] - m[12] * m[1] * m[11] + m[12] * m[3] * m[9];
    inv[13] = m[0] * m[9] * m[14] - m[0] * m[10] * m[13] - m[8] * m[1] * m[14] +
              m[8] * m[2] * m[13] + m[12] * m[1] * m[10] - m[12] * m[2] * m[9];
    inv[2] = m[1] * m[6] * m[15] - m[1] * m[7] * m[14] - m[5] * m[2] * m[15] +
             m[5] * m[3] * m[14] + m[13] * m[2] * m[7] - m[13] * m[3] * m[6];
    inv[6] = -m[0] * m[6] * m[15] + m[0] * m[7] * m[14] + m[4] * m[2] * m[15] -
             m[4] * m[3] * m[14] - m[12] * m[2] * m[7] + m[12] * m[3] * m[6];
    inv[10] = m[0] * m[5] * m[15] - m[0] * m[7] * m[13] - m[4] * m[1] * m[15] +
              m[4] * m[3] * m[13] + m[12] * m[1] * m[7] - m[12] * m[3] * m[5];
    inv[14] = -m[0] * m[5] * m[14] + m[0] * m[6] * m[13] + m[4] * m[1] * m[14] -
              m[4] * m[2] * m[13] - m[12] * m[1] * m[6] + m[12] * m[2] * m[5];
    inv[3] = -m[1] * m[6] * m[11] + m[1] * m[7] * m[10] + m[5] * m[2] * m[11] -
             m[5] * m[3] * m[10] - m[9] * m[2] * m[7] + m[9] * m[3] * m[6];
    inv[7] = m[0] * m[6] * m[11] - m[0] * m[7] * m[10] - m[4] * m[2] * m[11] +
             m[4] * m[3] * m[10] + m[8] * m[2] * m[7] - m[8] * m[3] * m[6];
    inv[11] = -m[0] * m[5] * m[11] + m[0] * m[7] * m[9] + m[4] * m[1] * m[11] -
              m[4] * m[3] * m[9] - m[8] * m[1] * m[7] + m[8] * m[3] * m[5];
    inv[15] = m[0] * m[5] * m[10] - m[0] * m[6] * m[9] - m[4] * m[1] * m[10] +
              m[4] * m[2] * m[9] + m[8] * m[1] * m[6] - m[8] * m[2] * m[5];
    double det = m[0] * inv[0] + m[1] * inv[4] + m[2] * inv[8] + m[3] * inv[12];
    if (det == 0 || !isfinite(det))
        return 0;
    for (int i = 0; i < 16; ++i)
        out[i] = inv[i] / det;
    return det;
}

bool skf_mat3_invert(double out[9], const double a[9], double min_abs_det)
{
    double c00 = a[4] * a[8] - a[7] * a[5], c01 = a[7] * a[2] - a[1] * a[8],
           c02 = a[1] * a[5] - a[4] * a[2];
    double det = a[0] * c00 + a[3] * c01 + a[6] * c02;
    if (!(fabs(det) > min_abs_det) || !isfinite(1.0 / det))
        return false;
    double id = 1.0 / det;
    out[0] = c00 * id;
    out[1] = c01 * id;
    out[2] = c02 * id;
    out[3] = (a[6] * a[5] - a[3] * a[8]) * id;
    out[4] = (a[0] * a[8] - a[6] * a[2]) * id;
    out[5] = (a[3] * a[2] - a[0] * a[5]) * id;
    out[6] = (a[3] * a[7] - a[6] * a[4]) * id;
    out[7] = (a[6] * a[1] - a[0] * a[7]) * id;
    out[8] = (a[0] * a[4] - a[3] * a[1]) * id;
    return true;
}

double skf_mat4_invert_affine(double out[16], const double m[16])
{
    const double a = m[0], b = m[4], c = m[8];
    const double d = m[1], e = m[5], f = m[9];
    const double g = m[2], h = m[6], i = m[10];
    double A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
    double det = a * A + b * B + c * C;
    if (det == 0 || !isfinite(det))
        return 0;
    double r[16];
    r[0] = A / det;
    r[1] = B / det;
    r[2] = C / det;
    r[4] = -(b * i - c * h) / det;
    r[5] = (a * i - c * g) / det;
    r[6] = -(a * h - b * g) / det;
    r[8] = (b * f - c * e) / det;
    r[9] = -(a * f - c * d) / det;
    r[10] = (a * e - b * d) / det;
    r[3] = r[7] = r[11] = 0;
    r[15] = 1;
    for (int row = 0; row < 3; ++row)
        r[12 + row] = -(r[row] * m[12] + r[4 + row] * m[13] + r[8 + row] * m[14]);
    memcpy(out, r, sizeof r);
    return det;
}

void skf_mat4_transform_point(double out[3], const double m[16], const double p[3])
{
    double x = m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12];
    double y = m[1] * p[0] + m[5] * p[1] + m[9] * p[2] + m[13];
    double z = m[2] * p[0] + m[6] * p[1] + m[10] * p[2] + m[14];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

void skf_mat4_transform_vector(double out[3], const double m[16], const double v[3])
{
    double x = m[0] * v[0] + m[4] * v[1] + m[8] * v[2];
    double y = m[1] * v[0] + m[5] * v[1] + m[9] * v[2];
    double z = m[2] * v[0] + m[6] * v[1] + m[10] * v[2];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

void skf_quat_to_mat3(double r[9], const double q[4])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double xx = x * x, yy = y * y, zz = z * z;
    double xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y, wz = w * z;
    r[0] = 1 - 2 * (yy + zz);
    r[1] = 2 * (xy + wz);
    r[2] = 2 * (xz - wy);
    r[3] = 2 * (xy - wz);
    r[4] = 1 - 2 * (xx + zz);
    r[5] = 2 * (yz + wx);
    r[6] = 2 * (xz + wy);
    r[7] = 2 * (yz - wx);
    r[8] = 1 - 2 * (xx + yy);
}

void skf_mat4_from_trs(double m[16], const double t[3], const double q[4], const double s[3])
{
    double r[9];
    skf_quat_to_mat3(r, q);
    for (int c = 0; c < 3; ++c) {
        for (int row = 0; row < 3; ++row)
            m[c * 4 + row] = r[c * 3 + row] * s[c];
        m[c * 4 + 3] = 0;
    }
    m[12] = t[0];
    m[13] = t[1];
    m[14] = t[2];
    m[15] = 1;
}

void skf_quat_from_mat3(double q[4], const double r[9])
{
    /* r column-major: r[c*3+row]; element (row, col) = r[col*3+row]. */
    double m00 = r[0], m11 = r[4], m22 = r[8];
    double m01 = r[3], m10 = r[1], m02 = r[6], m20 = r[2], m12 = r[7], m21 = r[5];
    double tr = m00 + m11 + m22;
    if (tr > 0) {
        double s = sqrt(tr + 1.0) * 2;
        q[3] = 0.25 * s;
        q[0] = (m21 - m12) / s;
        q[1] = (m02 - m20) / s;
        q[2] = (m10 - m01) / s;
    } else if (m00 > m11 && m00 > m22) {
        double s = sqrt(1.0 + m00 - m11 - m22) * 2;
        q[3] = (m21 - m12) / s;
        q[0] = 0.25 * s;
        q[1] = (m01 + m10) / s;
        q[2] = (m02 + m20) / s;
    } else if (m11 > m22) {
        double s = sqrt(1.0 + m11 - m00 - m22) * 2;
        q[3] = (m02 - m20) / s;
        q[0] = (m01 + m10) / s;
        q[1] = 0.25 * s;
        q[2] = (m12 + m21) / s;
    } else {
        double s = sqrt(1.0 + m22 - m00 - m11) * 2;
        q[3] = (m10 - m01) / s;
        q[0] = (m02 + m20) / s;
        q[1] = (m12 + m21) / s;
        q[2] = 0.25 * s;
    }
    skf_quat_normalize(q);
}

double skf_norm3(const double a[3])
{
    return sqrt(skf_dot3(a, a));
}

bool skf_mat4_to_trs(const double m[16], double t[3], double q[4], double s[3], double rel_tol)
{
    t[0] = m[12];
    t[1] = m[13];
    t[2] = m[14];
    double cols[3][3];
    for (int c = 0; c < 3; ++c)
        for (int row = 0; row < 3; ++row)
            cols[c][row] = m[c * 4 + row];
    for (int c = 0; c < 3; ++c)
        s[c] = skf_norm3(cols[c]);
    double smax = fmax(s[0], fmax(s[1], s[2]));
    if (!(smax > 0) || !isfinite(smax))
        return false;
    for (int c = 0; c < 3; ++c) {
        if (s[c] <= rel_tol * smax)
            return false;
    }
    double det = skf_dot3(cols[0], (double[3]){cols[1][1] * cols[2][2] - cols[1][2] * cols[2][1],
                                              cols[1][2] * cols[2][0] - cols[1][0] * cols[2][2],
                                              cols[1][0] * cols[2][1] - cols[1][1] * cols[2][0]});
    if (det < 0)
        s[0] = -s[0];
    double r[9];
    for (int c = 0; c < 3; ++c)
        for (int row = 0; row < 3; ++row)
            r[c * 3 + row] = cols[c][row] / s[c];
    /* Shear test: the normalised columns must be orthogonal. */
    double d01 = r[0] * r[3] + r[1] * r[4] + r[2] * r[5];
    double d02 = r[0] * r[6] + r[1] * r[7] + r[2] * r[8];
    double d12 = r[3] * r[6] + r[4] * r[7] + r[5] * r[8];
    if (fabs(d01) > rel_tol || fabs(d02) > rel_tol || fabs(d12) > rel_tol)
        return false;
    skf_quat_from_mat3(q, r);
    return true;
}

bool skf_mat4_is_finite(const double m[16])
{
    for (int i = 0; i < 16; ++i)
        if (!isfinite(m[i]))
            return false;
    return true;
}

void skf_quat_normalize(double q[4])
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (n > 0) {
        q[0] /= n;
        q[1] /= n;
        q[2] /= n;
        q[3] /= n;
    } else {
        q[0] = q[1] = q[2] = 0;
        q[3] = 1;
    }
}

void skf_quat_mul(double out[4], const double a[4], const double b[4])
{
    double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    out[0] = x;
    out[1] = y;
    out[2] = z;
    out[3] = w;
}

void skf_quat_slerp(double out[4], const double a[4], const double b[4], double t)
{
    double bb[4] = {b[0], b[1], b[2], b[3]};
    double cosom = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (cosom < 0) {
        cosom = -cosom;
        for (int i = 0; i < 4; ++i)
            bb[i] = -bb[i];
    }
    double k0, k1;
    if (1.0 - cosom > 1e-12) {
        double omega = acos(fmin(cosom, 1.0));
        double so = sin(omega);
        k0 = sin((1 - t) * omega) / so;
        k1 = sin(t * omega) / so;
    } else {
        k0 = 1 - t;
        k1 = t;
    }
    for (int i = 0; i < 4; ++i)
        out[i] = k0 * a[i] + k1 * bb[i];
    skf_quat_normalize(out);
}

void skf_quat_rotate(double out[3], const double q[4], const double v[3])
{
    double r[9];
    skf_quat_to_mat3(r, q);
    double x = r[0] * v[0] + r[3] * v[1] + r[6] * v[2];
    double y = r[1] * v[0] + r[4] * v[1] + r[7] * v[2];
    double z = r[2] * v[0] + r[5] * v[1] + r[8] * v[2];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}
