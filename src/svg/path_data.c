/* SVG path data grammar (SVG 1.1 section 8.3.9 BNF / SVG 2 "path data"):
 * M L H V C S Q T A Z in absolute and relative forms, implicit command
 * repetition (extra pairs after M are L), numbers with signs, decimals and
 * exponents, separators optional where unambiguous ("1-2", "0.5.5"), arc
 * flags written without separators ("a1 1 0 00 1 1"). Quadratics are
 * degree-elevated to cubics exactly; arcs become cubics (geom.c).
 */
#include "svg_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct cursor {
    const char *s;
    size_t i;
} cursor;

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

static void skip_ws(cursor *c)
{
    while (is_ws(c->s[c->i]))
        c->i++;
}

/* Skips whitespace and at most one comma (with whitespace around). */
static void skip_sep(cursor *c)
{
    skip_ws(c);
    if (c->s[c->i] == ',') {
        c->i++;
        skip_ws(c);
    }
}

/* Strict number scan per the grammar; does not consume on failure. */
static bool scan_number(cursor *c, double *out)
{
    const char *s = c->s + c->i;
    size_t k = 0;
    if (s[k] == '+' || s[k] == '-')
        k++;
    size_t digits = 0;
    while (s[k] >= '0' && s[k] <= '9') {
        k++;
        digits++;
    }
    if (s[k] == '.') {
        k++;
        while (s[k] >= '0' && s[k] <= '9') {
            k++;
            digits++;
        }
    }
    if (!digits)
        return false;
    if (s[k] == 'e' || s[k] == 'E') {
        size_t e = k + 1;
        if (s[e] == '+' || s[e] == '-')
            e++;
        if (s[e] >= '0' && s[e] <= '9') {
            while (s[e] >= '0' && s[e] <= '9')
                e++;
            k = e;
        }
    }
    char tmp[128];
    if (k >= sizeof tmp) {
        /* absurdly long literal: let strtod read it in place */
        char *end;
        double v = strtod(s, &end);
        *out = v;
    } else {
        memcpy(tmp, s, k);
        tmp[k] = 0;
        *out = strtod(tmp, NULL);
    }
    if (!isfinite(*out))
        return false;
    c->i += k;
    return true;
}

static bool scan_flag(cursor *c, bool *out)
{
    char ch = c->s[c->i];
    if (ch != '0' && ch != '1')
        return false;
    *out = ch == '1';
    c->i++;
    return true;
}

static bool starts_number(char ch)
{
    return (ch >= '0' && ch <= '9') || ch == '.' || ch == '-' || ch == '+';
}

skf_status skfi_svg_parse_path(const char *d, skfi_svg_geom *g, size_t max_nodes, size_t *offset,
                           const char **what)
{
    cursor c = {d, 0};
    double cx = 0, cy = 0;       /* current point */
    double sx = 0, sy = 0;       /* subpath start */
    double lcx = 0, lcy = 0;     /* last control point (for S / T) */
    char prev = 0;               /* previous command (upper case) */
    bool need_move = false;      /* after Z, a drawing command starts a new subpath */
    skip_ws(&c);
    if (!c.s[c.i])
        return SKF_OK; /* empty path data: nothing drawn (valid) */
    char cmd = 0;
    for (;;) {
        skip_ws(&c);
        char ch = c.s[c.i];
        if (!ch)
            break;
        size_t cmd_at = c.i;
        if (strchr("MmLlHhVvCcSsQqTtAaZz", ch)) {
            cmd = ch;
            c.i++;
        } else if (starts_number(ch) && cmd && cmd != 'Z' && cmd != 'z') {
            /* implicit repetition; after M/m the pairs are L/l */
            if (cmd == 'M')
                cmd = 'L';
            else if (cmd == 'm')
                cmd = 'l';
        } else {
            *offset = c.i;
            *what = cmd ? "expected a command letter or number" : "path data must start with M or m";
            return SKF_ERR_FORMAT;
        }
        if (!g->sub_count && cmd != 'M' && cmd != 'm') {
            *offset = cmd_at;
            *what = "path data must start with M or m";
            return SKF_ERR_FORMAT;
        }
        char up = (char)(cmd >= 'a' ? cmd - 32 : cmd);
        bool rel = cmd >= 'a';
        if (up == 'Z') {
            skfi_svg_geom_close(g);
            cx = sx;
            cy = sy;
            need_move = true;
            prev = 'Z';
            lcx = cx;
            lcy = cy;
            continue;
        }
        int nargs = 0;
        switch (up) {
        case 'M': case 'L': case 'T': nargs = 2; break;
        case 'H': case 'V': nargs = 1; break;
        case 'C': nargs = 6; break;
        case 'S': case 'Q': nargs = 4; break;
        case 'A': nargs = 7; break;
        default: break;
        }
        double a[7];
        bool flags[2] = {false, false};
        skip_ws(&c);
        for (int k = 0; k < nargs; ++k) {
            if (k > 0)
                skip_sep(&c);
            bool ok;
            if (up == 'A' && (k == 3 || k == 4)) {
                ok = scan_flag(&c, &flags[k - 3]);
                a[k] = flags[k - 3];
            } else {
                ok = scan_number(&c, &a[k]);
            }
            if (!ok) {
                *offset = c.i;
                *what = (up == 'A' && (k == 3 || k == 4)) ? "expected an arc flag (0 or 1)"
                                                           : "expected a number";
                return SKF_ERR_FORMAT;
            }
        }
        skip_sep(&c);
        if (g->node_count + 8 > max_nodes) {
            *offset = cmd_at;
            *what = "path nodes";
            return SKF_ERR_LIMIT;
        }
        if (need_move && up != 'M') {
            if (!skfi_svg_geom_move(g, cx, cy))
                return SKF_ERR_NOMEM;
            sx = cx;
            sy = cy;
        }
        need_move = false;
        double ox = rel ? cx : 0, oy = rel ? cy : 0;
        bool ok = true;
        switch (up) {
        case 'M':
            cx = a[0] + ox;
            cy = a[1] + oy;
            if (!skfi_svg_geom_move(g, cx, cy))
                return SKF_ERR_NOMEM;
            sx = cx;
            sy = cy;
            lcx = cx;
            lcy = cy;
            /* further pairs are lineto */
            cmd = rel ? 'l' : 'L';
            prev = 'M';
            continue;
        case 'L': case 'H': case 'V': {
            double x = cx, y = cy;
            if (up == 'L') {
                x = a[0] + ox;
                y = a[1] + oy;
            } else if (up == 'H') {
                x = a[0] + ox;
            } else {
                y = a[0] + oy;
            }
            ok = skfi_svg_geom_cubic(g, cx, cy, x, y, x, y);
            cx = x;
            cy = y;
            lcx = cx;
            lcy = cy;
            break;
        }
        case 'C':
            ok = skfi_svg_geom_cubic(g, a[0] + ox, a[1] + oy, a[2] + ox, a[3] + oy, a[4] + ox, a[5] + oy);
            lcx = a[2] + ox;
            lcy = a[3] + oy;
            cx = a[4] + ox;
            cy = a[5] + oy;
            break;
        case 'S': {
            double c1x = cx, c1y = cy;
            if (prev == 'C' || prev == 'S') {
                c1x = 2 * cx - lcx;
                c1y = 2 * cy - lcy;
            }
            ok = skfi_svg_geom_cubic(g, c1x, c1y, a[0] + ox, a[1] + oy, a[2] + ox, a[3] + oy);
            lcx = a[0] + ox;
            lcy = a[1] + oy;
            cx = a[2] + ox;
            cy = a[3] + oy;
            break;
        }
        case 'Q': case 'T': {
            double qx, qy, x, y;
            if (up == 'Q') {
                qx = a[0] + ox;
                qy = a[1] + oy;
                x = a[2] + ox;
                y = a[3] + oy;
            } else {
                qx = cx;
                qy = cy;
                if (prev == 'Q' || prev == 'T') {
                    qx = 2 * cx - lcx;
                    qy = 2 * cy - lcy;
                }
                x = a[0] + ox;
                y = a[1] + oy;
            }
            /* exact degree elevation */
            ok = skfi_svg_geom_cubic(g, cx + 2.0 / 3.0 * (qx - cx), cy + 2.0 / 3.0 * (qy - cy),
                                 x + 2.0 / 3.0 * (qx - x), y + 2.0 / 3.0 * (qy - y), x, y);
            lcx = qx;
            lcy = qy;
            cx = x;
            cy = y;
            break;
        }
        case 'A': {
            double x = a[5] + ox, y = a[6] + oy;
            ok = skfi_svg_geom_arc(g, a[0], a[1], a[2], flags[0], flags[1], x, y);
            cx = x;
            cy = y;
            lcx = cx;
            lcy = cy;
            break;
        }
        default: break;
        }
        if (!ok)
            return SKF_ERR_NOMEM;
        prev = up;
    }
    return SKF_OK;
}
