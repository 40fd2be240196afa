/* Rasterise an SVG document with librsvg + cairo into straight-alpha RGBA8.
 * librsvg fits the document's viewBox into the requested viewport
 * (rsvg_handle_render_document, preserveAspectRatio honoured); cairo's
 * ARGB32 pixels are premultiplied native-endian words, converted here.
 */
#include "svg_internal.h"

#include <cairo.h>
#include <librsvg/rsvg.h>
#include <string.h>

skf_status skf_svg_render(const char *svg, size_t size, int width, int height, uint32_t background,
                          uint8_t **rgba, skf_error *err)
{
    *rgba = NULL;
    if (width < 1 || height < 1 || width > 32768 || height > 32768 ||
        (size_t)width * (size_t)height > ((size_t)1 << 28))
        return skf_fail(err, SKF_ERR_LIMIT, "render: size %dx%d out of range", width, height);
    GError *gerr = NULL;
    RsvgHandle *h = rsvg_handle_new_from_data((const guint8 *)svg, size, &gerr);
    if (!h) {
        skf_status st = skf_fail(err, SKF_ERR_FORMAT, "render: librsvg: %s",
                                 gerr && gerr->message ? gerr->message : "cannot parse");
        if (gerr)
            g_error_free(gerr);
        return st;
    }
    cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
    if (cairo_surface_status(surf) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(surf);
        g_object_unref(h);
        return skf_fail(err, SKF_ERR_NOMEM, "render: cannot allocate %dx%d pixels", width, height);
    }
    cairo_t *cr = cairo_create(surf);
    if (background & 0xFF) {
        cairo_set_source_rgba(cr, ((background >> 24) & 0xFF) / 255.0,
                              ((background >> 16) & 0xFF) / 255.0,
                              ((background >> 8) & 0xFF) / 255.0, (background & 0xFF) / 255.0);
        cairo_paint(cr);
    }
    RsvgRectangle vp = {0, 0, (double)width, (double)height};
    gboolean ok = rsvg_handle_render_document(h, cr, &vp, &gerr);
    cairo_destroy(cr);
    g_object_unref(h);
    if (!ok) {
        skf_status st = skf_fail(err, SKF_ERR_FORMAT, "render: librsvg: %s",
                                 gerr && gerr->message ? gerr->message : "cannot render");
        if (gerr)
            g_error_free(gerr);
        cairo_surface_destroy(surf);
        return st;
    }
    cairo_surface_flush(surf);
    uint8_t *out = skf_malloc_array((size_t)width * (size_t)height, 4);
    if (!out) {
        cairo_surface_destroy(surf);
        return skf_fail(err, SKF_ERR_NOMEM, "render: out of memory");
    }
    const unsigned char *src = cairo_image_surface_get_data(surf);
    int stride = cairo_image_surface_get_stride(surf);
    for (int y = 0; y < height; ++y) {
        const uint32_t *row = (const uint32_t *)(const void *)(src + (size_t)y * (size_t)stride);
        uint8_t *o = out + (size_t)y * (size_t)width * 4;
        for (int x = 0; x < width; ++x) {
            uint32_t px = row[x];
            unsigned a = px >> 24, r = (px >> 16) & 0xFF, g = (px >> 8) & 0xFF, b = px & 0xFF;
            if (a && a != 255) { /* un-premultiply, rounded */
                r = (r * 255 + a / 2) / a;
                g = (g * 255 + a / 2) / a;
                b = (b * 255 + a / 2) / a;
            }
            o[4 * x] = (uint8_t)(r > 255 ? 255 : r);
            o[4 * x + 1] = (uint8_t)(g > 255 ? 255 : g);
            o[4 * x + 2] = (uint8_t)(b > 255 ? 255 : b);
            o[4 * x + 3] = (uint8_t)a;
        }
    }
    cairo_surface_destroy(surf);
    *rgba = out;
    return SKF_OK;
}
