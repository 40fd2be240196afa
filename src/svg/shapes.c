/* Basic shapes to paths (SVG 1.1 section 9): rect (with rx/ry rounding
 * rules 9.2), circle, ellipse, line, polyline, polygon. Circles and
 * ellipses are four cubic quarter arcs with control distance
 * 4/3 tan(pi/8) = 0.5522847498 (the standard circle approximation).
 */
#include "svg_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool skfi_svg_is_shape_name(const char *n)
{
    return !strcmp(n, "rect") || !strcmp(n, "circle") || !strcmp(n, "ellipse") ||
           !strcmp(n, "line") || !strcmp(n, "polyline") || !strcmp(n, "polygon");
}

/* Length attribute: number with optional unit (px, or absolute units at
 * 96 px/in). Returns 1 found, 0 absent, -1 malformed. */
static int get_length(const char *const *attrs, int name, double *out)
{
    const char *s = attrs[name];
    if (!s)
        return 0;
    char *end;
    double x = strtod(s, &end);
    int ok = end != s && isfinite(x);
    if (ok) {
        while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
            end++;
        double scale = 1;
        if (!*end || !strcmp(end, "px"))
            scale = 1;
        else if (!strcmp(end, "in"))
            scale = 96;
        else if (!strcmp(end, "cm"))
            scale = 96 / 2.54;
        else if (!strcmp(end, "mm"))
            scale = 96 / 25.4;
        else if (!strcmp(end, "pt"))
            scale = 96.0 / 72.0;
        else if (!strcmp(end, "pc"))
            scale = 16;
        else
            ok = 0; /* %, em, ex: depend on context we do not model */
        *out = x * scale;
    }
    return ok ? 1 : -1;
}

static void ellipse(skfi_svg_geom *g, double cx, double cy, double rx, double ry, bool *ok)
{
    const double k = 0.55228474983079339840; /* 4/3 tan(pi/8) */
    *ok = skfi_svg_geom_move(g, cx + rx, cy) &&
          skfi_svg_geom_cubic(g, cx + rx, cy + k * ry, cx + k * rx, cy + ry, cx, cy + ry) &&
          skfi_svg_geom_cubic(g, cx - k * rx, cy + ry, cx - rx, cy + k * ry, cx - rx, cy) &&
          skfi_svg_geom_cubic(g, cx - rx, cy - k * ry, cx - k * rx, cy - ry, cx, cy - ry) &&
          skfi_svg_geom_cubic(g, cx + k * rx, cy - ry, cx + rx, cy - k * ry, cx + rx, cy);
    if (*ok)
        skfi_svg_geom_close(g);
}

static bool line_to(skfi_svg_geom *g, double x, double y)
{
    const double *c = g->xy + 6 * (g->node_count - 1);
    return skfi_svg_geom_cubic(g, c[0], c[1], x, y, x, y);
}

skf_status skfi_svg_shape_to_geom(const char *n, const char *const attrs[SKF_SVG_ATTR_COUNT],
                                  skfi_svg_geom *g, const char **attr, const char **what, size_t *offset,
                                  bool *empty)
{
    *empty = false;
    *offset = 0;
    bool ok = true;
#define LEN(name, var, def)                                                          \
    double var = (def);                                                              \
    do {                                                                             \
        int r_ = get_length(attrs, name, &var);                                      \
        if (r_ < 0) {                                                                \
            *attr = skf_svg_attr_name(name);                                         \
            *what = "expected a length (number with optional px, in, cm, mm, pt or pc)"; \
            return SKF_ERR_FORMAT;                                                   \
        }                                                                            \
    } while (0)
    if (!strcmp(n, "rect")) {
        LEN(SKF_SVG_ATTR_X, x, 0);
        LEN(SKF_SVG_ATTR_Y, y, 0);
        LEN(SKF_SVG_ATTR_WIDTH, w, 0);
        LEN(SKF_SVG_ATTR_HEIGHT, h, 0);
        double rx = -1, ry = -1;
        int hrx = get_length(attrs, SKF_SVG_ATTR_RX, &rx), hry = get_length(attrs, SKF_SVG_ATTR_RY, &ry);
        if (hrx < 0 || hry < 0) {
            *attr = hrx < 0 ? "rx" : "ry";
            *what = "expected a length";
            return SKF_ERR_FORMAT;
        }
        if (w < 0 || h < 0) {
            *attr = w < 0 ? "width" : "height";
            *what = "negative size";
            return SKF_ERR_FORMAT;
        }
        if (w == 0 || h == 0) {
            *empty = true;
            return SKF_OK;
        }
        if (!hrx || rx < 0)
            rx = (hry && ry > 0) ? ry : 0;
        if (!hry || ry < 0)
            ry = (hrx && rx > 0) ? rx : 0;
        if (rx > w / 2)
            rx = w / 2;
        if (ry > h / 2)
            ry = h / 2;
        if (rx > 0 && ry > 0) {
            ok = skfi_svg_geom_move(g, x + rx, y) && line_to(g, x + w - rx, y) &&
                 skfi_svg_geom_arc(g, rx, ry, 0, false, true, x + w, y + ry) &&
                 line_to(g, x + w, y + h - ry) &&
                 skfi_svg_geom_arc(g, rx, ry, 0, false, true, x + w - rx, y + h) &&
                 line_to(g, x + rx, y + h) &&
                 skfi_svg_geom_arc(g, rx, ry, 0, false, true, x, y + h - ry) && line_to(g, x, y + ry) &&
                 skfi_svg_geom_arc(g, rx, ry, 0, false, true, x + rx, y);
        } else {
            ok = skfi_svg_geom_move(g, x, y) && line_to(g, x + w, y) && line_to(g, x + w, y + h) &&
                 line_to(g, x, y + h);
        }
        if (ok)
            skfi_svg_geom_close(g);
    } else if (!strcmp(n, "circle") || !strcmp(n, "ellipse")) {
        LEN(SKF_SVG_ATTR_CX, cx, 0);
        LEN(SKF_SVG_ATTR_CY, cy, 0);
        double rx, ry;
        if (n[0] == 'c') {
            LEN(SKF_SVG_ATTR_R, r, 0);
            rx = ry = r;
        } else {
            LEN(SKF_SVG_ATTR_RX, erx, -1);
            LEN(SKF_SVG_ATTR_RY, ery, -1);
            if (erx < 0 && ery >= 0) /* SVG 2: auto */
                erx = ery;
            if (ery < 0 && erx >= 0)
                ery = erx;
            rx = erx < 0 ? 0 : erx;
            ry = ery < 0 ? 0 : ery;
        }
        if (rx <= 0 || ry <= 0) {
            *empty = true;
            return SKF_OK;
        }
        ellipse(g, cx, cy, rx, ry, &ok);
    } else if (!strcmp(n, "line")) {
        LEN(SKF_SVG_ATTR_X1, x1, 0);
        LEN(SKF_SVG_ATTR_Y1, y1, 0);
        LEN(SKF_SVG_ATTR_X2, x2, 0);
        LEN(SKF_SVG_ATTR_Y2, y2, 0);
        ok = skfi_svg_geom_move(g, x1, y1) && line_to(g, x2, y2);
    } else { /* polyline, polygon */
        const char *s = attrs[SKF_SVG_ATTR_POINTS];
        if (!s) {
            *empty = true;
            return SKF_OK;
        }
        size_t i = 0, count = 0;
        double pending = 0;
        for (;;) {
            while (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == ',')
                i++;
            if (!s[i])
                break;
            char *end;
            double val = strtod(s + i, &end);
            if (end == s + i || !isfinite(val)) {
                *attr = "points";
                *what = "expected a number";
                *offset = i;
                return SKF_ERR_FORMAT;
            }
            i = (size_t)(end - s);
            if (count % 2 == 0) {
                pending = val;
            } else {
                ok = count == 1 ? skfi_svg_geom_move(g, pending, val) : line_to(g, pending, val);
                if (!ok)
                    break;
            }
            count++;
        }
        if (ok && count % 2) {
            *attr = "points";
            *what = "odd number of coordinates";
            *offset = i;
            return SKF_ERR_FORMAT;
        }
        if (count < 2) {
            *empty = true;
            return SKF_OK;
        }
        if (ok && n[4] == 'g') /* polygon */
            skfi_svg_geom_close(g);
    }
#undef LEN
    return ok ? SKF_OK : SKF_ERR_NOMEM;
}
