/* Path data of a deformed path: the numbers every skinfit SVG output
 * writes (frames, animated SVG, the browser's Pose page through
 * skf_svg_path_data), in each element's own space.
 *
 * Reference: SVG 1.1 section 8.3 (path data grammar: M, L, C, Z). A segment
 * whose rest geometry is straight (handles on its end points) is written as
 * L, every other one as C; numbers are fixed 7 decimals with trailing zeros
 * trimmed (|error| <= 5e-8 user units), %.17g beyond 1e11.
 */
#include "svg_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Number formatting used for path data: shortest of fixed 7 decimals with
 * trailing zeros trimmed (|error| <= 5e-8); falls back to %.17g for huge values.
 * Writes at most 32 bytes plus NUL into buf and returns the length. */
static size_t format_number(char *buf, double v)
{
    if (!isfinite(v) || fabs(v) >= 1e11) {
        int n = snprintf(buf, 33, "%.17g", v);
        return n > 0 ? (size_t)n : 0;
    }
    long long r = llround(v * 1e7);
    if (r == 0) {
        buf[0] = '0';
        buf[1] = 0;
        return 1;
    }
    char tmp[40];
    int n = 0;
    bool neg = r < 0;
    unsigned long long u = neg ? (unsigned long long)(-r) : (unsigned long long)r;
    unsigned long long ip = u / 10000000ULL, fp = u % 10000000ULL;
    /* fraction, trimmed */
    char frac[8];
    int fl = 0;
    if (fp) {
        for (int i = 6; i >= 0; --i) {
            frac[i] = (char)('0' + fp % 10);
            fp /= 10;
        }
        fl = 7;
        while (fl > 0 && frac[fl - 1] == '0')
            fl--;
    }
    if (neg)
        tmp[n++] = '-';
    char ibuf[24];
    int il = 0;
    do {
        ibuf[il++] = (char)('0' + ip % 10);
        ip /= 10;
    } while (ip);
    while (il)
        tmp[n++] = ibuf[--il];
    if (fl) {
        tmp[n++] = '.';
        memcpy(tmp + n, frac, (size_t)fl);
        n += fl;
    }
    memcpy(buf, tmp, (size_t)n);
    buf[n] = 0;
    return (size_t)n;
}

static void put_xy(skfi_strbuf *b, const skfi_svg_path *p, const double *q, char sep)
{
    double o[2];
    skfi_svg_affine_apply(p->root_to_element, q, o);
    char num[40];
    if (sep)
        skfi_strbuf_put(b, &sep, 1);
    size_t n = format_number(num, o[0]);
    skfi_strbuf_put(b, num, n);
    skfi_strbuf_put(b, ",", 1);
    n = format_number(num, o[1]);
    skfi_strbuf_put(b, num, n);
}

/* Curve from node a to node b (rest geometry ra, rb decides line vs cubic). */
static void put_curve(skfi_strbuf *b, const skfi_svg_path *p, const double *ra, const double *rb,
                      const double *a, const double *bb)
{
    bool line = ra[4] == ra[0] && ra[5] == ra[1] && rb[2] == rb[0] && rb[3] == rb[1];
    if (line) {
        put_xy(b, p, bb, 'L');
    } else {
        put_xy(b, p, a + 4, 'C');
        put_xy(b, p, bb + 2, ',');
        put_xy(b, p, bb, ',');
    }
}

void skfi_svg_write_path_data(skfi_strbuf *b, const skfi_svg_path *p, const double *xy)
{
    const skfi_svg_geom *g = &p->geom;
    for (size_t s = 0; s < g->sub_count; ++s) {
        const skfi_svg_sub *sub = &g->subs[s];
        const double *r = g->xy + 6 * sub->first, *x = xy + 6 * sub->first;
        put_xy(b, p, x, 'M');
        for (size_t i = 1; i < sub->count; ++i)
            put_curve(b, p, r + 6 * (i - 1), r + 6 * i, x + 6 * (i - 1), x + 6 * i);
        if (sub->closed) {
            /* the closing curve is always written out (a straight one as L to
             * the start), so re-reading the output gives the same nodes */
            size_t l = sub->count - 1;
            if (sub->count > 1)
                put_curve(b, p, r + 6 * l, r, x + 6 * l, x);
            skfi_strbuf_put(b, "Z", 1);
        }
    }
}

void skfi_svg_template_release(skfi_svg_template *t)
{
    skf_free(t->text);
    skf_free(t->segs);
    memset(t, 0, sizeof *t);
}

skf_status skf_svg_path_data(const skf_svg_character *c, size_t i, const double *xy, char **d,
                             size_t *size, skf_error *err)
{
    *d = NULL;
    if (i >= c->path_count)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: path %zu of %zu", c->name, i, c->path_count);
    skfi_strbuf b = {0};
    if (skfi_strbuf_reserve(&b, 64)) /* a path with no nodes hands back "" */
        b.data[0] = 0;
    skfi_svg_write_path_data(&b, &c->paths[i], xy);
    if (b.failed || !b.data) {
        skf_free(b.data);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", c->name);
    }
    *d = b.data;
    if (size)
        *size = b.len;
    return SKF_OK;
}

