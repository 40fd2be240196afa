/* SVG transform attribute: matrix, translate, scale, rotate (with optional
 * centre), skewX, skewY; lists separated by whitespace and/or commas,
 * applied left to right as nested coordinate systems (SVG 1.1 section 7.6).
 */
#include "svg_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void skfi_svg_affine_identity(skfi_svg_affine m)
{
    m[0] = 1;
    m[1] = 0;
    m[2] = 0;
    m[3] = 1;
    m[4] = 0;
    m[5] = 0;
}

void skfi_svg_affine_mul(skfi_svg_affine out, const skfi_svg_affine l, const skfi_svg_affine r)
{
    double a = l[0] * r[0] + l[2] * r[1];
    double b = l[1] * r[0] + l[3] * r[1];
    double c = l[0] * r[2] + l[2] * r[3];
    double d = l[1] * r[2] + l[3] * r[3];
    double e = l[0] * r[4] + l[2] * r[5] + l[4];
    double f = l[1] * r[4] + l[3] * r[5] + l[5];
    out[0] = a;
    out[1] = b;
    out[2] = c;
    out[3] = d;
    out[4] = e;
    out[5] = f;
}

bool skfi_svg_affine_invert(skfi_svg_affine out, const skfi_svg_affine m)
{
    double det = m[0] * m[3] - m[1] * m[2];
    if (det == 0 || !isfinite(det))
        return false;
    double a = m[3] / det, b = -m[1] / det, c = -m[2] / det, d = m[0] / det;
    double e = -(a * m[4] + c * m[5]);
    double f = -(b * m[4] + d * m[5]);
    out[0] = a;
    out[1] = b;
    out[2] = c;
    out[3] = d;
    out[4] = e;
    out[5] = f;
    return true;
}

static bool ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

bool skfi_svg_parse_transform(const char *s, skfi_svg_affine out, size_t *offset, const char **what)
{
    static const struct {
        const char *name;
        int min_args, max_args;
    } kinds[] = {{"matrix", 6, 6}, {"translate", 1, 2}, {"scale", 1, 2},
                 {"rotate", 1, 3}, {"skewX", 1, 1},     {"skewY", 1, 1}};
    skfi_svg_affine_identity(out);
    size_t i = 0;
    for (;;) {
        while (ws(s[i]) || s[i] == ',')
            i++;
        if (!s[i])
            return true;
        int kind = -1;
        for (int k = 0; k < 6; ++k) {
            size_t n = strlen(kinds[k].name);
            if (!strncmp(s + i, kinds[k].name, n)) {
                kind = k;
                i += n;
                break;
            }
        }
        if (kind < 0) {
            *offset = i;
            *what = "expected matrix, translate, scale, rotate, skewX or skewY";
            return false;
        }
        while (ws(s[i]))
            i++;
        if (s[i] != '(') {
            *offset = i;
            *what = "expected '('";
            return false;
        }
        i++;
        double a[6];
        int n = 0;
        for (;;) {
            while (ws(s[i]) || (n > 0 && s[i] == ','))
                i++;
            if (s[i] == ')') {
                i++;
                break;
            }
            if (n == 6) {
                *offset = i;
                *what = "too many arguments";
                return false;
            }
            char *end;
            double v = strtod(s + i, &end);
            if (end == s + i || !isfinite(v)) {
                *offset = i;
                *what = "expected a number";
                return false;
            }
            a[n++] = v;
            i = (size_t)(end - s);
        }
        if (n < kinds[kind].min_args || n > kinds[kind].max_args ||
            (kind == 3 && n == 2)) {
            *offset = i - 1;
            *what = "wrong number of arguments";
            return false;
        }
        skfi_svg_affine t;
        skfi_svg_affine_identity(t);
        switch (kind) {
        case 0: memcpy(t, a, sizeof t); break;
        case 1: t[4] = a[0]; t[5] = n > 1 ? a[1] : 0; break;
        case 2: t[0] = a[0]; t[3] = n > 1 ? a[1] : a[0]; break;
        case 3: {
            double r = a[0] * M_PI / 180.0, co = cos(r), si = sin(r);
            t[0] = co;
            t[1] = si;
            t[2] = -si;
            t[3] = co;
            if (n == 3) { /* translate(cx,cy) rotate(a) translate(-cx,-cy) */
                t[4] = a[1] - co * a[1] + si * a[2];
                t[5] = a[2] - si * a[1] - co * a[2];
            }
            break;
        }
        case 4: t[2] = tan(a[0] * M_PI / 180.0); break;
        case 5: t[1] = tan(a[0] * M_PI / 180.0); break;
        default: break;
        }
        skfi_svg_affine_mul(out, out, t);
    }
}
