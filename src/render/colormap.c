/* The error colormap: stepped bins of 0.25 % of the rest bounding-box
 * diagonal from blue (0) to red (3 % or worse), fully saturated HSV hues
 * (A. R. Smith, "Color gamut transform pairs", SIGGRAPH 1978) so that shading
 * scales a colour without changing its hue — which is what lets a test (and a
 * reader) recover the bin from a shaded pixel. Decisions: docs/render.md. */
#include "skinfit/render.h"

#include <math.h>

#include "render/render_internal.h"

int skf_colormap_bin(double error_pct)
{
    return skfi_colormap_bin(error_pct);
}

/* HSV (h degrees, s = v = 1) to 8-bit RGB. */
static void hue_rgb(double h, uint8_t rgb[3])
{
    double hp = fmod(h, 360.0) / 60.0;
    double x = 1.0 - fabs(fmod(hp, 2.0) - 1.0);
    double r = 0, g = 0, b = 0;
    switch ((int)hp) {
    case 0: r = 1, g = x; break;
    case 1: r = x, g = 1; break;
    case 2: g = 1, b = x; break;
    case 3: g = x, b = 1; break;
    case 4: r = x, b = 1; break;
    default: r = 1, b = x; break;
    }
    rgb[0] = (uint8_t)lround(255 * r);
    rgb[1] = (uint8_t)lround(255 * g);
    rgb[2] = (uint8_t)lround(255 * b);
}

void skfi_colormap_rgb(int bin, uint8_t rgb[3])
{
    if (bin < 0)
        bin = 0;
    if (bin > SKF_COLORMAP_BINS - 1)
        bin = SKF_COLORMAP_BINS - 1;
    hue_rgb(240.0 - 240.0 * bin / (SKF_COLORMAP_BINS - 1), rgb);
}

uint32_t skf_colormap_color(int bin)
{
    uint8_t c[3];
    skfi_colormap_rgb(bin, c);
    return ((uint32_t)c[0] << 24) | ((uint32_t)c[1] << 16) | ((uint32_t)c[2] << 8) | 0xFF;
}

int skf_colormap_classify(const uint8_t rgb[3])
{
    int mx = rgb[0], mn = rgb[0];
    for (int k = 1; k < 3; ++k) {
        if (rgb[k] > mx)
            mx = rgb[k];
        if (rgb[k] < mn)
            mn = rgb[k];
    }
    if (mx == 0 || (double)(mx - mn) / mx < 0.25)
        return -1;
    double n = sqrt((double)rgb[0] * rgb[0] + (double)rgb[1] * rgb[1] + (double)rgb[2] * rgb[2]);
    int best = -1;
    double best_cos = -2;
    for (int b = 0; b < SKF_COLORMAP_BINS; ++b) {
        uint8_t c[3];
        skfi_colormap_rgb(b, c);
        double cn = sqrt((double)c[0] * c[0] + (double)c[1] * c[1] + (double)c[2] * c[2]);
        double cosv = ((double)rgb[0] * c[0] + (double)rgb[1] * c[1] + (double)rgb[2] * c[2]) /
                      (n * cn);
        if (cosv > best_cos) {
            best_cos = cosv;
            best = b;
        }
    }
    return best;
}

size_t skf_render_reserved_colors(uint32_t *out, size_t max)
{
    size_t n = 0;
    const uint32_t fixed[] = {SKF_RENDER_BACKGROUND, SKF_RENDER_SILHOUETTE, SKF_RENDER_TEXT};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0] && n < max; ++i)
        out[n++] = fixed[i];
    for (int b = 0; b < SKF_COLORMAP_BINS; ++b) {
        uint8_t c[3];
        skfi_colormap_rgb(b, c);
        for (int level = 0; level < 8 && n < max; ++level) {
            double s = SKF_RENDER_AMBIENT + SKF_RENDER_DIFFUSE * level / 7.0;
            uint8_t v[3];
            for (int k = 0; k < 3; ++k)
                v[k] = skfi_shade8(c[k], s);
            out[n++] = ((uint32_t)v[0] << 24) | ((uint32_t)v[1] << 16) | ((uint32_t)v[2] << 8) | 0xFF;
        }
    }
    return n;
}
