/* Bézier geometry: nodes with absolute handles, arcs to cubics, tight bounds.
 *
 * References: SVG 1.1 Implementation Notes F.6 (elliptical arc endpoint to
 * centre parameterisation, out-of-range radii correction); the cubic
 * approximation of a circular arc of angle t with control distance
 * 4/3 tan(t/4) (Riškus 2006, "Approximation of a cubic Bézier curve by
 * circular arcs and vice versa"); tight bounds from the roots of the
 * derivative of each cubic coordinate.
 */
#include "svg_internal.h"

#include <math.h>
#include <string.h>

void skfi_svg_geom_release(skfi_svg_geom *g)
{
    skf_free(g->xy);
    skf_free(g->subs);
    memset(g, 0, sizeof *g);
}

static bool grow_nodes(skfi_svg_geom *g)
{
    if (g->node_count < g->node_cap)
        return true;
    size_t cap = g->node_cap ? g->node_cap * 2 : 16;
    double *xy = skf_realloc_array(g->xy, cap, 6 * sizeof(double));
    if (!xy)
        return false;
    g->xy = xy;
    g->node_cap = cap;
    return true;
}

bool skfi_svg_geom_move(skfi_svg_geom *g, double x, double y)
{
    if (!grow_nodes(g))
        return false;
    if (g->sub_count == g->sub_cap) {
        size_t cap = g->sub_cap ? g->sub_cap * 2 : 4;
        skfi_svg_sub *s = skf_realloc_array(g->subs, cap, sizeof *s);
        if (!s)
            return false;
        g->subs = s;
        g->sub_cap = cap;
    }
    double *n = g->xy + 6 * g->node_count;
    n[0] = n[2] = n[4] = x;
    n[1] = n[3] = n[5] = y;
    g->subs[g->sub_count].first = g->node_count;
    g->subs[g->sub_count].count = 1;
    g->subs[g->sub_count].closed = false;
    g->sub_count++;
    g->node_count++;
    return true;
}

bool skfi_svg_geom_cubic(skfi_svg_geom *g, double c1x, double c1y, double c2x, double c2y, double x,
                     double y)
{
    if (!g->sub_count)
        return false;
    if (!grow_nodes(g))
        return false;
    double *prev = g->xy + 6 * (g->node_count - 1);
    prev[4] = c1x;
    prev[5] = c1y;
    double *n = g->xy + 6 * g->node_count;
    n[0] = n[4] = x;
    n[1] = n[5] = y;
    n[2] = c2x;
    n[3] = c2y;
    g->subs[g->sub_count - 1].count++;
    g->node_count++;
    return true;
}

void skfi_svg_geom_close(skfi_svg_geom *g)
{
    if (!g->sub_count)
        return;
    skfi_svg_sub *s = &g->subs[g->sub_count - 1];
    if (s->closed)
        return;
    s->closed = true;
    if (s->count > 1) {
        double *first = g->xy + 6 * s->first;
        double *last = g->xy + 6 * (s->first + s->count - 1);
        double tol = 1e-9 * fmax(1.0, fmax(fabs(first[0]), fabs(first[1])));
        if (fabs(last[0] - first[0]) <= tol && fabs(last[1] - first[1]) <= tol) {
            /* The last node returns to the start (up to the rounding of
             * relative coordinates): merge, as paper.js does, so the closing
             * curve becomes the curve into node 0. */
            first[2] = last[2];
            first[3] = last[3];
            s->count--;
            g->node_count--;
        }
    }
}

void skfi_svg_geom_transform(skfi_svg_geom *g, const skfi_svg_affine m)
{
    for (size_t i = 0; i < 3 * g->node_count; ++i)
        skfi_svg_affine_apply(m, g->xy + 2 * i, g->xy + 2 * i);
}

/* Extend [lo, hi] by the extrema of the cubic coordinate p0..p3 on (0, 1). */
static void cubic_extent(double p0, double p1, double p2, double p3, double *lo, double *hi)
{
    double a = -p0 + 3 * p1 - 3 * p2 + p3;
    double b = 2 * (p0 - 2 * p1 + p2);
    double c = p1 - p0;
    double roots[2];
    int nr = 0;
    double scale = fabs(a) + fabs(b) + fabs(c);
    if (scale == 0)
        return;
    if (fabs(a) <= 1e-12 * scale) {
        if (fabs(b) > 1e-12 * scale)
            roots[nr++] = -c / b;
    } else {
        double disc = b * b - 4 * a * c;
        if (disc >= 0) {
            double sq = sqrt(disc);
            roots[nr++] = (-b + sq) / (2 * a);
            roots[nr++] = (-b - sq) / (2 * a);
        }
    }
    for (int i = 0; i < nr; ++i) {
        double t = roots[i];
        if (t > 0 && t < 1) {
            double u = 1 - t;
            double v = u * u * u * p0 + 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t * p3;
            if (v < *lo)
                *lo = v;
            if (v > *hi)
                *hi = v;
        }
    }
}

static void curve_bbox(const double *a, const double *b, double box[4])
{
    /* curve from node a (point, out-handle) to node b (in-handle, point) */
    for (int k = 0; k < 2; ++k) {
        double lo = box[k], hi = box[k + 2];
        if (b[k] < lo)
            lo = b[k];
        if (b[k] > hi)
            hi = b[k];
        cubic_extent(a[k], a[4 + k], b[2 + k], b[k], &lo, &hi);
        box[k] = lo;
        box[k + 2] = hi;
    }
}

bool skfi_svg_geom_bbox(const skfi_svg_geom *g, double box[4])
{
    if (!g->node_count)
        return false;
    box[0] = box[2] = g->xy[0];
    box[1] = box[3] = g->xy[1];
    for (size_t s = 0; s < g->sub_count; ++s) {
        const skfi_svg_sub *sub = &g->subs[s];
        const double *base = g->xy + 6 * sub->first;
        for (int k = 0; k < 2; ++k) {
            if (base[k] < box[k])
                box[k] = base[k];
            if (base[k] > box[k + 2])
                box[k + 2] = base[k];
        }
        for (size_t i = 0; i + 1 < sub->count; ++i)
            curve_bbox(base + 6 * i, base + 6 * (i + 1), box);
        if (sub->closed && sub->count > 1)
            curve_bbox(base + 6 * (sub->count - 1), base, box);
    }
    return true;
}

static double vec_angle(double ux, double uy, double vx, double vy)
{
    double a = atan2(ux * vy - uy * vx, ux * vx + uy * vy);
    return a;
}

bool skfi_svg_geom_arc(skfi_svg_geom *g, double rx, double ry, double phi_deg, bool large, bool sweep,
                   double x, double y)
{
    const double *cur = g->xy + 6 * (g->node_count - 1);
    double x1 = cur[0], y1 = cur[1];
    if (x1 == x && y1 == y)
        return true; /* F.6.2: identical endpoints -> the arc is omitted */
    rx = fabs(rx);
    ry = fabs(ry);
    if (rx == 0 || ry == 0) /* F.6.2: zero radius -> straight line */
        return skfi_svg_geom_cubic(g, x1, y1, x, y, x, y);
    double phi = fmod(phi_deg, 360.0) * M_PI / 180.0;
    double cp = cos(phi), sp = sin(phi);
    double dx2 = (x1 - x) / 2, dy2 = (y1 - y) / 2;
    double x1p = cp * dx2 + sp * dy2;
    double y1p = -sp * dx2 + cp * dy2;
    double lambda = (x1p * x1p) / (rx * rx) + (y1p * y1p) / (ry * ry);
    if (lambda > 1) { /* F.6.6: scale radii up */
        double s = sqrt(lambda);
        rx *= s;
        ry *= s;
    }
    double rx2 = rx * rx, ry2 = ry * ry;
    double num = rx2 * ry2 - rx2 * y1p * y1p - ry2 * x1p * x1p;
    double den = rx2 * y1p * y1p + ry2 * x1p * x1p;
    double coef = (den > 0 && num > 0) ? sqrt(num / den) : 0;
    if (large == sweep)
        coef = -coef;
    double cxp = coef * rx * y1p / ry;
    double cyp = -coef * ry * x1p / rx;
    double cx = cp * cxp - sp * cyp + (x1 + x) / 2;
    double cy = sp * cxp + cp * cyp + (y1 + y) / 2;
    double ux = (x1p - cxp) / rx, uy = (y1p - cyp) / ry;
    double vx = (-x1p - cxp) / rx, vy = (-y1p - cyp) / ry;
    double theta1 = vec_angle(1, 0, ux, uy);
    double dtheta = vec_angle(ux, uy, vx, vy);
    /* Extreme magnitudes (radii or endpoints near the double range) overflow
     * the centre parameterisation; draw the straight line instead of NaNs.
     * Found by fuzz_svgpath (fuzz/regressions/svgpath/). */
    if (!isfinite(theta1) || !isfinite(dtheta) || !isfinite(cx) || !isfinite(cy))
        return skfi_svg_geom_cubic(g, x1, y1, x, y, x, y);
    if (!sweep && dtheta > 0)
        dtheta -= 2 * M_PI;
    else if (sweep && dtheta < 0)
        dtheta += 2 * M_PI;
    int nseg = (int)ceil(fabs(dtheta) / (M_PI / 2) - 1e-9);
    if (nseg < 1)
        nseg = 1;
    double step = dtheta / nseg;
    double k = 4.0 / 3.0 * tan(step / 4);
    double t = theta1;
    for (int i = 0; i < nseg; ++i) {
        double c0 = cos(t), s0 = sin(t), c1 = cos(t + step), s1 = sin(t + step);
        /* unit-circle points and tangents, then scale by radii and rotate by phi */
        double e0x = c0 - k * s0, e0y = s0 + k * c0;
        double e1x = c1 + k * s1, e1y = s1 - k * c1;
        double qx[3] = {rx * e0x, rx * e1x, rx * c1};
        double qy[3] = {ry * e0y, ry * e1y, ry * s1};
        double px[3], py[3];
        for (int j = 0; j < 3; ++j) {
            px[j] = cp * qx[j] - sp * qy[j] + cx;
            py[j] = sp * qx[j] + cp * qy[j] + cy;
        }
        if (i == nseg - 1) { /* land exactly on the endpoint */
            px[2] = x;
            py[2] = y;
        }
        if (!skfi_svg_geom_cubic(g, px[0], py[0], px[1], py[1], px[2], py[2]))
            return false;
        t += step;
    }
    return true;
}
