/* Panel renderer: validates a scene, frames one orthographic camera on every
 * surface over every frame, lays out the panels (label band, panels, legend
 * band), draws labels and the legend once with cairo's toy text API, then
 * rasterises each frame: the panels' screen vertices in parallel (OpenMP over
 * panels), then the frame in bands of pixel rows in parallel (OpenMP over
 * bands; a thread draws a band's silhouette and then every panel's part of it
 * in its own band-sized sample buffers, which stay in cache). A sample sees
 * the triangles in index order whatever the banding, so the bytes do not
 * depend on the thread count or the band size. Layout and framing decisions:
 * docs/render.md. */
#include "render/render_internal.h"

#include <cairo.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

typedef struct thread_scratch {
    double *normals;
    double *weld_sums;
    uint16_t *colsum;             /* the resolve's column sums of one pixel row (3 planes of w) */
    uint8_t *rowbuf;              /* the resolve's colours of one sample row (3 planes of w) */
    skfi_raster raster;           /* the band being drawn: depth and winning triangle */
    skfi_raster sil;              /* the ground truth's silhouette over the same band (its layer),
                                     the same for every panel (one camera): drawn once per band,
                                     read by the resolve of each panel that shows it (allocated
                                     when any panel does) */
} thread_scratch;

/* The sample buffers of a band (depth, winner, silhouette: 9 bytes a sample)
 * are kept to about this many bytes, so that the depth pass and the resolve
 * of a band run in a core's cache and a frame touches no panel-sized
 * buffer (a 3-panel 1280-pixel page at 4×4 holds 1.8 M samples a panel). */
#define BAND_BYTES (512 * 1024)

size_t skfi_render_band_bytes;

struct skf_renderer {
    skf_render_scene scene;
    skf_render_panel *panels;     /* copy of the panel structs (arrays still the caller's) */
    int width, height, S, threads;
    int label_h, legend_h;
    int panel_w, panel_h, panel_y, *panel_x;
    skfi_camera cam;
    skf_image base;               /* background, labels, legend */
    uint32_t *gt_weld;            /* weld map of the ground truth */
    size_t gt_weld_count;
    uint32_t **weld;              /* per panel */
    size_t *weld_count;
    size_t max_vertices, max_weld;
    int bands;                    /* bands of pixel rows a frame is drawn in (every panel's band
                                     b covers the same rows): BAND_BYTES of samples each, and at
                                     least 4 per thread */
    thread_scratch *scratch;
    skfi_screen_vertex **verts;   /* per panel: screen vertices of the frame being drawn */
    skfi_tri_shade **shade;       /* per panel: per triangle, what the resolve shades with */
    float **yext;                 /* per panel: per triangle, its y extent (skfi_raster_y_extents) */
    skfi_screen_vertex *gt_verts; /* the ground truth's (when a panel shows its silhouette) */
    float *gt_yext;               /* and its triangles' y extents */
    bool silhouettes;             /* some panel shows the silhouette */
};

bool skf_render_view_parse(const char *s, skf_render_view *out)
{
    static const struct {
        const char *name;
        skf_render_view view;
    } names[] = {{"side", SKF_VIEW_SIDE},
                 {"front", SKF_VIEW_FRONT},
                 {"top", SKF_VIEW_TOP},
                 {"three-quarter", SKF_VIEW_THREE_QUARTER}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (s && !strcmp(s, names[i].name)) {
            *out = names[i].view;
            return true;
        }
    return false;
}

static skf_status check_surface(const skf_render_surface *s, size_t frames, const char *what,
                                skf_error *err)
{
    if (s->vertex_count > 0 && !s->positions)
        return skf_fail(err, SKF_ERR_ARGUMENT, "render: %s: positions missing", what);
    if (s->triangle_count > 0 && !s->triangles)
        return skf_fail(err, SKF_ERR_ARGUMENT, "render: %s: triangles missing", what);
    if (s->vertex_count > UINT32_MAX)
        return skf_fail(err, SKF_ERR_LIMIT, "render: %s: %zu vertices above 2^32", what,
                        s->vertex_count);
    for (size_t i = 0; i < 3 * s->triangle_count; ++i)
        if (s->triangles[i] >= s->vertex_count)
            return skf_fail(err, SKF_ERR_ARGUMENT, "render: %s: triangles[%zu]: index %u >= %zu vertices",
                            what, i / 3, s->triangles[i], s->vertex_count);
    for (size_t f = 0; f < frames; ++f)
        for (size_t i = 0; i < 3 * s->vertex_count; ++i)
            if (!isfinite(s->positions[f * 3 * s->vertex_count + i]))
                return skf_fail(err, SKF_ERR_FORMAT, "render: %s: frame %zu: vertex %zu: non-finite position",
                                what, f, i / 3);
    return SKF_OK;
}

/* The positions are finite here (check_surface), so the comparisons below
 * are the running minimum and maximum whatever the order they are taken in,
 * except for the sign of a zero: each keeps the same operand on a tie as the
 * one-at-a-time loop it replaced (v < lo ? v : lo keeps lo; fmin(lo, x) is
 * lo < x ? lo : x, which keeps x), so the results are the same bits. */
static void bbox_add(const skf_render_surface *s, size_t frames, double lo[3], double hi[3])
{
    size_t n = frames * s->vertex_count;
    double l0 = lo[0], l1 = lo[1], l2 = lo[2], h0 = hi[0], h1 = hi[1], h2 = hi[2];
    for (size_t i = 0; i < n; ++i) {
        const double *p = s->positions + 3 * i;
        l0 = p[0] < l0 ? p[0] : l0, h0 = p[0] > h0 ? p[0] : h0;
        l1 = p[1] < l1 ? p[1] : l1, h1 = p[1] > h1 ? p[1] : h1;
        l2 = p[2] < l2 ? p[2] : l2, h2 = p[2] > h2 ? p[2] : h2;
    }
    lo[0] = l0, lo[1] = l1, lo[2] = l2, hi[0] = h0, hi[1] = h1, hi[2] = h2;
}

static void extent_add(const skfi_camera *cam, const skf_render_surface *s, size_t frames,
                       double lo[2], double hi[2])
{
    size_t n = frames * s->vertex_count;
    const double r0 = cam->right[0], r1 = cam->right[1], r2 = cam->right[2];
    const double u0 = cam->up[0], u1 = cam->up[1], u2 = cam->up[2];
    double lx = lo[0], ly = lo[1], hx = hi[0], hy = hi[1];
    for (size_t i = 0; i < n; ++i) {
        const double *p = s->positions + 3 * i;
        double x = p[0] * r0 + p[1] * r1 + p[2] * r2;
        double y = p[0] * u0 + p[1] * u1 + p[2] * u2;
        lx = lx < x ? lx : x, hx = hx > x ? hx : x;
        ly = ly < y ? ly : y, hy = hy > y ? hy : y;
    }
    lo[0] = lx, lo[1] = ly, hi[0] = hx, hi[1] = hy;
}

/* ---- static parts drawn with cairo ------------------------------------ */

static void set_rgb(cairo_t *cr, uint32_t rgba)
{
    cairo_set_source_rgb(cr, ((rgba >> 24) & 255) / 255.0, ((rgba >> 16) & 255) / 255.0,
                         ((rgba >> 8) & 255) / 255.0);
}

static void show_text(cairo_t *cr, double x, double y, int align, const char *text)
{
    cairo_text_extents_t e;
    cairo_text_extents(cr, text, &e);
    double dx = align < 0 ? 0 : align == 0 ? -e.x_advance / 2 : -e.x_advance;
    cairo_move_to(cr, x + dx, y);
    cairo_show_text(cr, text);
}

static double text_width(cairo_t *cr, const char *text)
{
    cairo_text_extents_t e;
    cairo_text_extents(cr, text, &e);
    return e.x_advance;
}

static void draw_legend(cairo_t *cr, const skf_renderer *r, const char *title)
{
    double top = r->height - r->legend_h, h = r->legend_h;
    double font = fmax(8.0, fmin(16.0, 0.34 * h));
    cairo_set_font_size(cr, font);
    double bar_w = fmin(0.5 * r->width, 13 * 44.0), bar_h = 0.36 * h;
    double x0 = r->width - bar_w - 0.5 * font - 0.02 * r->width, y0 = top + 0.1 * h;
    double sw = bar_w / SKF_COLORMAP_BINS;
    for (int b = 0; b < SKF_COLORMAP_BINS; ++b) {
        set_rgb(cr, skf_colormap_color(b));
        cairo_rectangle(cr, x0 + b * sw, y0, sw + 0.5, bar_h);
        cairo_fill(cr);
    }
    set_rgb(cr, SKF_RENDER_TEXT);
    double ty = y0 + bar_h + font * 1.05;
    double step = sw * 2 >= font * 2.2 ? 1 : 2; /* label every boundary or every other */
    for (int k = 0; k < SKF_COLORMAP_BINS; k += (int)step) {
        char buf[16];
        snprintf(buf, sizeof buf, "%g", k * SKF_COLORMAP_BIN_PCT);
        if (k == SKF_COLORMAP_BINS - 1)
            snprintf(buf, sizeof buf, "%g+", k * SKF_COLORMAP_BIN_PCT);
        show_text(cr, x0 + k * sw, ty, k == 0 ? -1 : 0, buf);
    }
    const char *caption = "vertex error, % of diagonal";
    double cw = text_width(cr, caption);
    double cy = y0 + 0.5 * bar_h + 0.35 * font;
    if (cw + font < x0) {
        show_text(cr, x0 - 0.5 * font, cy, 1, caption);
        if (title && text_width(cr, title) + 2 * font < x0 - cw - font)
            show_text(cr, 0.5 * font, cy, -1, title);
    }
}

/* cairo draws into r->base's own pixels (ARGB32 words, the stride of a
 * W-pixel row is 4·W bytes either way), which are then turned into RGBA
 * bytes in place: no second image-sized buffer. */
static skf_status draw_static(skf_renderer *r, const char *title, skf_error *err)
{
    cairo_surface_t *surf = NULL;
    if (cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, r->width) == (int)r->base.stride)
        surf = cairo_image_surface_create_for_data(r->base.pixels, CAIRO_FORMAT_ARGB32, r->width, r->height,
                                                   (int)r->base.stride);
    else
        surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, r->width, r->height);
    cairo_t *cr = cairo_create(surf);
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        skf_status st = skf_fail(err, SKF_ERR_NOMEM, "render: cairo: %s",
                                 cairo_status_to_string(cairo_status(cr)));
        cairo_destroy(cr);
        cairo_surface_destroy(surf);
        return st;
    }
    set_rgb(cr, SKF_RENDER_BACKGROUND);
    cairo_paint(cr);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    if (r->label_h > 0) {
        double font = fmax(8.0, fmin(18.0, 0.55 * r->label_h));
        cairo_set_font_size(cr, font);
        set_rgb(cr, SKF_RENDER_TEXT);
        for (size_t k = 0; k < r->scene.panel_count; ++k) {
            const char *label = r->panels[k].label;
            if (!label)
                continue;
            double cx = r->panel_x[k] + 0.5 * r->panel_w;
            /* shrink the font until the label fits its panel */
            double f = font;
            while (f > 6 && text_width(cr, label) > r->panel_w - 4) {
                f -= 1;
                cairo_set_font_size(cr, f);
            }
            show_text(cr, cx, 0.5 * r->label_h + 0.35 * f, 0, label);
            cairo_set_font_size(cr, font);
        }
    }
    if (r->legend_h > 0)
        draw_legend(cr, r, title);
    cairo_surface_flush(surf);
    cairo_status_t cs = cairo_status(cr);
    if (cs != CAIRO_STATUS_SUCCESS) {
        cairo_destroy(cr);
        cairo_surface_destroy(surf);
        return skf_fail(err, SKF_ERR_IO, "render: cairo: %s", cairo_status_to_string(cs));
    }
    const uint8_t *data = cairo_image_surface_get_data(surf);
    int stride = cairo_image_surface_get_stride(surf);
    for (int y = 0; y < r->height; ++y) {
        const uint8_t *src = data + (size_t)y * (size_t)stride;
        uint8_t *p = r->base.pixels + (size_t)y * r->base.stride;
#pragma omp simd
        for (int x = 0; x < r->width; ++x) {
            uint32_t v; /* opaque: premultiplication is the identity */
            memcpy(&v, src + 4 * (size_t)x, 4); /* read before the same bytes are written */
            p[4 * x] = (uint8_t)(v >> 16), p[4 * x + 1] = (uint8_t)(v >> 8), p[4 * x + 2] = (uint8_t)v;
            p[4 * x + 3] = 255;
        }
    }
    cairo_destroy(cr);
    cairo_surface_destroy(surf);
    return SKF_OK;
}

void skf_render_text_warm_up(void)
{
    cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_t *cr = cairo_create(surf);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 12.0);
    cairo_text_extents_t e;
    cairo_text_extents(cr, "0", &e); /* a failure shows again, and is reported, at the real text */
    cairo_destroy(cr);
    cairo_surface_destroy(surf);
}

/* ---- construction ------------------------------------------------------ */

/* Sample buffers of `rows` sample rows of a panel of w × h samples, the
 * depth pass's (depth and triangle) or the silhouette's (layer): the sample
 * count, 0 when out of memory. */
static size_t raster_alloc(skfi_raster *r, int w, int h, int rows, bool silhouette)
{
    r->w = w;
    r->h = h;
    r->y0 = 0;
    r->rows = rows;
    size_t ns = (size_t)w * (size_t)rows;
    if (silhouette)
        return (r->layer = skf_malloc_array(ns, 1)) ? ns : 0;
    r->depth = skf_malloc_array(ns, sizeof(float));
    r->tri = skf_malloc_array(ns, sizeof(uint32_t));
    return r->depth && r->tri ? ns : 0;
}

static void raster_release(skfi_raster *r)
{
    skf_free(r->depth);
    skf_free(r->tri);
    skf_free(r->layer);
}

void skf_renderer_free(skf_renderer *r)
{
    if (!r)
        return;
    if (r->scratch)
        for (int t = 0; t < r->threads; ++t) {
            thread_scratch *s = &r->scratch[t];
            skf_free(s->normals);
            skf_free(s->weld_sums);
            skf_free(s->colsum);
            skf_free(s->rowbuf);
            raster_release(&s->raster);
            raster_release(&s->sil);
        }
    skf_free(r->scratch);
    if (r->verts)
        for (size_t k = 0; k < r->scene.panel_count; ++k)
            skf_free(r->verts[k]);
    skf_free(r->verts);
    if (r->shade)
        for (size_t k = 0; k < r->scene.panel_count; ++k)
            skf_free(r->shade[k]);
    skf_free(r->shade);
    if (r->yext)
        for (size_t k = 0; k < r->scene.panel_count; ++k)
            skf_free(r->yext[k]);
    skf_free(r->yext);
    skf_free(r->gt_verts);
    skf_free(r->gt_yext);
    if (r->weld)
        for (size_t k = 0; k < r->scene.panel_count; ++k)
            skf_free(r->weld[k]);
    skf_free(r->weld);
    skf_free(r->weld_count);
    skf_free(r->gt_weld);
    skf_free(r->panel_x);
    skf_free(r->panels);
    skf_image_release(&r->base);
    skf_free(r);
}

static int clampi(long v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : (int)v;
}

skf_status skf_renderer_new(const skf_render_scene *scene, const skf_render_options *opt_in,
                            skf_renderer **out, skf_error *err)
{
    *out = NULL;
    skf_render_options opt;
    memset(&opt, 0, sizeof opt);
    if (opt_in)
        opt = *opt_in;
    size_t P = scene->panel_count, F = scene->frame_count;
    if (P < 1 || P > SKF_RENDER_MAX_PANELS)
        return skf_fail(err, SKF_ERR_ARGUMENT, "render: %zu panels, expected 1..%d", P,
                        SKF_RENDER_MAX_PANELS);
    if (F < 1)
        return skf_fail(err, SKF_ERR_ARGUMENT, "render: no frames to draw");
    int S = opt.supersample ? opt.supersample : 4;
    if (S < 1 || S > 8)
        return skf_fail(err, SKF_ERR_ARGUMENT, "render: supersample %d outside 1..8", S);
    int W = opt.width ? opt.width : (int)(320 * P), H = opt.height ? opt.height : 320;
    if (W < 1 || H < 1 || W > SKF_IMAGE_MAX_SIDE || H > SKF_IMAGE_MAX_SIDE)
        return skf_fail(err, SKF_ERR_ARGUMENT, "render: size %dx%d outside 1..%d", W, H,
                        SKF_IMAGE_MAX_SIDE);
    bool any_silhouette = false;
    for (size_t k = 0; k < P; ++k) {
        const skf_render_panel *p = &scene->panels[k];
        char what[48];
        snprintf(what, sizeof what, "panel %zu", k);
        skf_status st = check_surface(&p->surface, F, what, err);
        if (st)
            return st;
        if (p->errors) {
            if (!(p->diagonal > 0) || !isfinite(p->diagonal))
                return skf_fail(err, SKF_ERR_ARGUMENT, "render: panel %zu: diagonal %g is not positive",
                                k, p->diagonal);
            for (size_t i = 0; i < F * p->surface.vertex_count; ++i)
                if ((!p->measured || p->measured[i % p->surface.vertex_count]) &&
                    (!isfinite(p->errors[i]) || p->errors[i] < 0))
                    return skf_fail(err, SKF_ERR_FORMAT,
                                    "render: panel %zu: frame %zu: vertex %zu: error %g is not a finite distance",
                                    k, i / p->surface.vertex_count, i % p->surface.vertex_count,
                                    p->errors[i]);
        }
        any_silhouette |= p->silhouette;
    }
    if (any_silhouette && !scene->ground_truth)
        return skf_fail(err, SKF_ERR_ARGUMENT, "render: a panel asks for a silhouette but the scene has no ground truth");
    if (any_silhouette) {
        skf_status st = check_surface(scene->ground_truth, F, "ground truth", err);
        if (st)
            return st;
    }

    skf_renderer *r = skf_calloc(1, sizeof *r);
    if (!r)
        return skf_fail(err, SKF_ERR_NOMEM, "render: out of memory");
    r->scene = *scene;
    r->width = W, r->height = H, r->S = S;
    r->label_h = opt.no_labels ? 0 : clampi(lround(0.08 * H), 12, 40);
    r->legend_h = opt.no_legend ? 0 : clampi(lround(0.11 * H), 16, 56);
    r->panel_w = W / (int)P;
    r->panel_y = r->label_h;
    r->panel_h = H - r->label_h - r->legend_h;
    int pw = r->panel_w, ph = r->panel_h;
    if (pw < 8 || ph < 8) {
        skf_renderer_free(r);
        return skf_fail(err, SKF_ERR_ARGUMENT,
                        "render: size %dx%d leaves panels of %dx%d pixels for %zu panels (need 8x8)",
                        W, H, pw, ph, P);
    }
    if ((size_t)pw * S * (size_t)ph * S > ((size_t)1 << 28)) {
        skf_renderer_free(r);
        return skf_fail(err, SKF_ERR_LIMIT, "render: panels of %dx%d at %dx%d supersampling exceed 2^28 samples",
                        pw, ph, S, S);
    }
    int threads = opt.threads > 0 ? opt.threads : omp_get_max_threads();
    r->threads = threads < ph ? threads : ph;
    if (r->threads < 1)
        r->threads = 1;
    {
        /* pixel rows per band within BAND_BYTES, then at least 4 bands a thread */
        size_t row_bytes = (size_t)pw * (size_t)S * (size_t)S * 9;
        size_t budget = skfi_render_band_bytes ? skfi_render_band_bytes : BAND_BYTES;
        long band_px = (long)(budget / row_bytes);
        band_px = band_px < 1 ? 1 : band_px;
        long bands = (ph + band_px - 1) / band_px;
        if (r->threads > 1 && bands < 4L * r->threads)
            bands = 4L * r->threads;
        r->bands = (int)(bands < ph ? bands : ph);
    }
    r->panels = skf_malloc_array(P, sizeof *r->panels);
    r->panel_x = skf_malloc_array(P, sizeof *r->panel_x);
    r->weld = skf_calloc(P, sizeof *r->weld);
    r->weld_count = skf_calloc(P, sizeof *r->weld_count);
    r->scratch = skf_calloc((size_t)r->threads, sizeof *r->scratch);
    r->verts = skf_calloc(P, sizeof *r->verts);
    r->shade = skf_calloc(P, sizeof *r->shade);
    r->yext = skf_calloc(P, sizeof *r->yext);
    skf_status st = SKF_OK;
    if (!r->panels || !r->panel_x || !r->weld || !r->weld_count || !r->scratch || !r->verts ||
        !r->shade || !r->yext) {
        st = skf_fail(err, SKF_ERR_NOMEM, "render: out of memory");
        goto fail;
    }
    memcpy(r->panels, scene->panels, P * sizeof *r->panels);
    r->scene.panels = r->panels;
    int x_off = (W - (int)P * r->panel_w) / 2;
    for (size_t k = 0; k < P; ++k)
        r->panel_x[k] = x_off + (int)k * r->panel_w;

    /* welds (smooth normals across flat-shaded splits) */
    for (size_t k = 0; k < P; ++k) {
        const skf_render_surface *s = &r->panels[k].surface;
        r->weld[k] = skf_malloc_array(s->vertex_count ? s->vertex_count : 1, sizeof(uint32_t));
        r->verts[k] = skf_malloc_array(s->vertex_count ? s->vertex_count : 1, sizeof *r->verts[k]);
        r->shade[k] = skf_malloc_array(s->triangle_count ? s->triangle_count : 1, sizeof *r->shade[k]);
        r->yext[k] = skf_malloc_array(s->triangle_count ? s->triangle_count : 1, 2 * sizeof(float));
        if (!r->weld[k] || !r->verts[k] || !r->shade[k] || !r->yext[k]) {
            st = skf_fail(err, SKF_ERR_NOMEM, "render: out of memory");
            goto fail;
        }
        if ((st = skfi_weld_positions(s->positions, s->vertex_count, r->weld[k], &r->weld_count[k],
                                      err)))
            goto fail;
        if (s->vertex_count > r->max_vertices)
            r->max_vertices = s->vertex_count;
        if (r->weld_count[k] > r->max_weld)
            r->max_weld = r->weld_count[k];
    }

    /* camera: basis from the world box, framing from the projected extents */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t k = 0; k < P; ++k)
        bbox_add(&r->panels[k].surface, F, lo, hi);
    if (any_silhouette)
        bbox_add(scene->ground_truth, F, lo, hi);
    if (!(lo[0] <= hi[0]))
        for (int k = 0; k < 3; ++k)
            lo[k] = -1, hi[k] = 1;
    skfi_camera_basis(opt.view, lo, hi, &r->cam);
    double elo[2] = {INFINITY, INFINITY}, ehi[2] = {-INFINITY, -INFINITY};
    for (size_t k = 0; k < P; ++k)
        extent_add(&r->cam, &r->panels[k].surface, F, elo, ehi);
    if (any_silhouette)
        extent_add(&r->cam, scene->ground_truth, F, elo, ehi);
    if (!(elo[0] <= ehi[0]))
        elo[0] = elo[1] = -1, ehi[0] = ehi[1] = 1;
    double diag = hypot(hi[0] - lo[0], hypot(hi[1] - lo[1], hi[2] - lo[2]));
    double xr = fmax(ehi[0] - elo[0], 1e-9 * fmax(diag, 1e-300));
    double yr = fmax(ehi[1] - elo[1], 1e-9 * fmax(diag, 1e-300));
    double margin = fmax(2.0, 0.05 * fmin(r->panel_w, r->panel_h));
    double sx = (r->panel_w - 2 * margin) / xr, sy = (r->panel_h - 2 * margin) / yr;
    r->cam.scale = fmax(fmin(sx, sy), 1e-300);
    r->cam.cx = 0.5 * (elo[0] + ehi[0]);
    r->cam.cy = 0.5 * (elo[1] + ehi[1]);

    for (size_t k = 0; k < P; ++k)
        r->silhouettes |= r->panels[k].silhouette;
    /* the tallest band's sample rows (band_rows splits ph in r->bands) */
    int band_rows_max = (int)((ph + r->bands - 1) / r->bands) * S;
    bool ok = true;
    for (int t = 0; ok && t < r->threads; ++t) {
        thread_scratch *s = &r->scratch[t];
        s->normals = skf_malloc_array(r->max_vertices ? r->max_vertices : 1, 3 * sizeof(double));
        s->weld_sums = skf_malloc_array(r->max_weld ? r->max_weld : 1, 3 * sizeof(double));
        s->colsum = skf_malloc_array((size_t)pw * S, 3 * sizeof *s->colsum);
        s->rowbuf = skf_malloc_array((size_t)pw * S, 3);
        ok = s->normals && s->weld_sums && s->colsum && s->rowbuf &&
             raster_alloc(&s->raster, pw * S, ph * S, band_rows_max, false) &&
             (!r->silhouettes || raster_alloc(&s->sil, pw * S, ph * S, band_rows_max, true));
    }
    if (ok && r->silhouettes) {
        const skf_render_surface *g = scene->ground_truth;
        r->gt_verts = skf_malloc_array(g->vertex_count ? g->vertex_count : 1, sizeof *r->gt_verts);
        r->gt_yext = skf_malloc_array(g->triangle_count ? g->triangle_count : 1, 2 * sizeof(float));
        ok = r->gt_verts && r->gt_yext;
    }
    if (!ok) {
        st = skf_fail(err, SKF_ERR_NOMEM, "render: out of memory for %d x %d samples", pw * S, ph * S);
        goto fail;
    }
    if ((st = skf_image_init(&r->base, W, H, SKF_RENDER_BACKGROUND, err)))
        goto fail;
    if ((st = draw_static(r, opt.title, err)))
        goto fail;
    *out = r;
    return SKF_OK;
fail:
    skf_renderer_free(r);
    return st;
}

int skf_renderer_width(const skf_renderer *r) { return r->width; }
int skf_renderer_height(const skf_renderer *r) { return r->height; }
int skf_renderer_supersample(const skf_renderer *r) { return r->S; }

void skf_renderer_panel_rect(const skf_renderer *r, size_t panel, int *x, int *y, int *w, int *h)
{
    *x = r->panel_x[panel];
    *y = r->panel_y;
    *w = r->panel_w;
    *h = r->panel_h;
}

void skf_renderer_project(const skf_renderer *r, size_t panel, const double p[3], double *x,
                          double *y, double *depth)
{
    const skfi_camera *c = &r->cam;
    double vx = p[0] * c->right[0] + p[1] * c->right[1] + p[2] * c->right[2];
    double vy = p[0] * c->up[0] + p[1] * c->up[1] + p[2] * c->up[2];
    *x = r->panel_x[panel] + 0.5 * r->panel_w + c->scale * (vx - c->cx);
    *y = r->panel_y + 0.5 * r->panel_h - c->scale * (vy - c->cy);
    *depth = p[0] * c->dir[0] + p[1] * c->dir[1] + p[2] * c->dir[2];
}

/* Screen vertices of a surface at one frame (sample space of the panel). */
static void to_screen(const skf_renderer *r, const double *pos, size_t n, skfi_screen_vertex *v)
{
    const skfi_camera *c = &r->cam;
    double S = r->S, hw = 0.5 * r->panel_w, hh = 0.5 * r->panel_h;
    for (size_t i = 0; i < n; ++i) {
        const double *p = pos + 3 * i;
        double vx = p[0] * c->right[0] + p[1] * c->right[1] + p[2] * c->right[2];
        double vy = p[0] * c->up[0] + p[1] * c->up[1] + p[2] * c->up[2];
        v[i].x = (float)(S * (hw + c->scale * (vx - c->cx)));
        v[i].y = (float)(S * (hh - c->scale * (vy - c->cy)));
        v[i].z = (float)(p[0] * c->dir[0] + p[1] * c->dir[1] + p[2] * c->dir[2]);
        v[i].shade = 1.0f;
        v[i].err_pct = -1.0f;
    }
}

/* Screen vertices of panel k at frame: positions, smooth-normal shade and
 * the error in % of the diagonal. */
static void setup_panel(const skf_renderer *r, size_t k, size_t frame, thread_scratch *s)
{
    const skf_render_panel *p = &r->panels[k];
    const skf_render_surface *sf = &p->surface;
    skfi_screen_vertex *v = r->verts[k];
    const double *pos = sf->positions + frame * 3 * sf->vertex_count;
    to_screen(r, pos, sf->vertex_count, v);
    skfi_vertex_normals(pos, sf->vertex_count, sf->triangles, sf->triangle_count, r->weld[k],
                        r->weld_count[k], s->weld_sums, s->normals);
    const skfi_camera *c = &r->cam;
    for (size_t i = 0; i < sf->vertex_count; ++i) {
        const double *n = s->normals + 3 * i;
        double toward = -(n[0] * c->dir[0] + n[1] * c->dir[1] + n[2] * c->dir[2]);
        double sign = toward < 0 ? -1.0 : 1.0; /* two-sided: face the viewer */
        double d = sign * (n[0] * c->light[0] + n[1] * c->light[1] + n[2] * c->light[2]);
        v[i].shade = (float)(SKF_RENDER_AMBIENT + SKF_RENDER_DIFFUSE * (d > 0 ? d : 0));
        if (p->errors && (!p->measured || p->measured[i]))
            v[i].err_pct = (float)(100.0 * p->errors[frame * sf->vertex_count + i] / p->diagonal);
    }
    skfi_raster_shade_setup(v, sf->triangles, sf->triangle_count, r->shade[k]);
    skfi_raster_y_extents(v, sf->triangles, sf->triangle_count, r->yext[k]);
}

/* Pixel rows [*p0, *p1) of band b of the panel. */
static void band_rows(const skf_renderer *r, int b, int *p0, int *p1)
{
    *p0 = (int)((long)r->panel_h * b / r->bands);
    *p1 = (int)((long)r->panel_h * (b + 1) / r->bands);
}

/* Band b of the frame in the thread's buffers: the ground truth's silhouette
 * over its sample rows (when a panel shows it), then per panel the depth
 * pass over those rows and the resolve, which shades the winners over the
 * silhouette (or the background) and box-filters them into img. */
static void draw_band(skf_renderer *r, int b, thread_scratch *s, skf_image *img,
                      const skf_render_aux *aux)
{
    int p0, p1;
    band_rows(r, b, &p0, &p1);
    int row0 = p0 * r->S, row1 = p1 * r->S;
    s->raster.y0 = s->sil.y0 = row0;
    if (r->silhouettes) {
        const skf_render_surface *g = r->scene.ground_truth;
        skfi_raster_silhouette(&s->sil, r->gt_verts, g->triangles, r->gt_yext, g->triangle_count, row0,
                               row1);
    }
    for (size_t k = 0; k < r->scene.panel_count; ++k) {
        const skf_render_panel *p = &r->panels[k];
        skfi_raster_clear_depth(&s->raster, row0, row1);
        skfi_raster_depth(&s->raster, r->verts[k], p->surface.triangles, r->yext[k],
                          p->surface.triangle_count, row0, row1);
        skfi_raster_resolve(&s->raster, p->silhouette ? &s->sil : NULL, r->shade[k], SKF_RENDER_NEUTRAL,
                            r->S, p0, p1, s->rowbuf, s->colsum, img, r->panel_x[k], r->panel_y,
                            aux ? aux->coverage : NULL, aux ? aux->depth : NULL, r->width);
    }
}

skf_status skf_render_frame(skf_renderer *r, size_t frame, skf_image *img,
                            const skf_render_aux *aux, skf_error *err)
{
    if (frame >= r->scene.frame_count)
        return skf_fail(err, SKF_ERR_ARGUMENT, "render: frame %zu: only %zu frames", frame,
                        r->scene.frame_count);
    if (img->width != r->width || img->height != r->height)
        return skf_fail(err, SKF_ERR_ARGUMENT, "render: frame %zu: image is %dx%d, expected %dx%d",
                        frame, img->width, img->height, r->width, r->height);
    skf_image_blit(img, &r->base, 0, 0);
    if (aux && aux->coverage)
        memset(aux->coverage, 0, (size_t)r->width * (size_t)r->height);
    if (aux && aux->depth)
        for (size_t i = 0; i < (size_t)r->width * (size_t)r->height; ++i)
            aux->depth[i] = INFINITY;
    int P = (int)r->scene.panel_count, B = r->bands;
    const skf_render_surface *g = r->scene.ground_truth;
    if (r->silhouettes) {
        to_screen(r, g->positions + frame * 3 * g->vertex_count, g->vertex_count, r->gt_verts);
        skfi_raster_y_extents(r->gt_verts, g->triangles, g->triangle_count, r->gt_yext);
    }
#pragma omp parallel num_threads(r->threads)
    {
        thread_scratch *s = &r->scratch[omp_get_thread_num()];
#pragma omp for schedule(dynamic, 1)
        for (int k = 0; k < P; ++k)
            setup_panel(r, (size_t)k, frame, s);
#pragma omp for schedule(dynamic, 1)
        for (int b = 0; b < B; ++b)
            draw_band(r, b, s, img, aux);
    }
    return SKF_OK;
}
