/* Rasteriser, colormap and panel layout on a synthetic scene: a UV sphere
 * that moves over the frames, a "rig" copy displaced by a known amount with
 * errors that grow along x. Checks the requested size, framing (every vertex
 * of every frame inside its panel), the zero bin on a zero-error panel,
 * colours at probed vertices, the silhouette, GIF frames and palette,
 * frame-list parsing and bad input. */
#include "check.h"
#include "skinfit/render.h"

#include <stdint.h>
#include <unistd.h>

enum { RINGS = 24, SEGS = 48, FRAMES = 4 };

static size_t sphere(double *pos, uint32_t *tri, double r, double ox, double oy, double oz)
{
    size_t n = 0;
    for (int i = 0; i <= RINGS; ++i)
        for (int j = 0; j < SEGS; ++j) {
            double th = M_PI * i / RINGS, ph = 2 * M_PI * j / SEGS;
            pos[3 * n] = ox + 1.6 * r * sin(th) * cos(ph); /* elongated along x */
            pos[3 * n + 1] = oy + r * cos(th);
            pos[3 * n + 2] = oz + 0.8 * r * sin(th) * sin(ph);
            ++n;
        }
    size_t t = 0;
    for (int i = 0; i < RINGS; ++i)
        for (int j = 0; j < SEGS; ++j) {
            uint32_t a = (uint32_t)(i * SEGS + j), b = (uint32_t)(i * SEGS + (j + 1) % SEGS);
            uint32_t c = a + SEGS, d = b + SEGS;
            tri[3 * t] = a, tri[3 * t + 1] = c, tri[3 * t + 2] = b, ++t;
            tri[3 * t] = b, tri[3 * t + 1] = c, tri[3 * t + 2] = d, ++t;
        }
    return t;
}

#define NV ((RINGS + 1) * SEGS)
#define NT (2 * RINGS * SEGS)

static double gt_pos[FRAMES * NV * 3], rig_pos[FRAMES * NV * 3], zero_pos[FRAMES * NV * 3];
static double rig_err[FRAMES * NV], zero_err[FRAMES * NV];
static uint32_t tris[NT * 3];

int main(void)
{
    skf_error err;
    const double diag = 2.0; /* errors in % of this */
    for (int f = 0; f < FRAMES; ++f) {
        sphere(gt_pos + (size_t)f * NV * 3, tris, 1.0, 0.3 * f, 0.1 * f, 0);
        for (size_t i = 0; i < NV; ++i) {
            const double *g = gt_pos + ((size_t)f * NV + i) * 3;
            double *rp = rig_pos + ((size_t)f * NV + i) * 3, *zp = zero_pos + ((size_t)f * NV + i) * 3;
            /* error grows with x: 0 % at the left end to ~4 % at the right */
            double e = diag * 0.01 * (g[0] - 0.3 * f + 1.6) / 3.2 * 4.0;
            rp[0] = g[0], rp[1] = g[1] - e, rp[2] = g[2]; /* displaced down by e */
            rig_err[(size_t)f * NV + i] = e;
            memcpy(zp, g, 3 * sizeof(double));
            zero_err[(size_t)f * NV + i] = 1e-9; /* a control run: ~5e-8 % */
        }
    }
    skf_render_surface gt = {NV, gt_pos, NT, tris};
    skf_render_panel panels[3] = {
        {"ground truth", gt, NULL, 0, false, NULL},
        {"control", {NV, zero_pos, NT, tris}, zero_err, diag, true, NULL},
        {"rig", {NV, rig_pos, NT, tris}, rig_err, diag, true, NULL},
    };
    skf_render_scene scene = {FRAMES, &gt, 3, panels};
    skf_render_options opt = {.width = 600, .height = 230, .view = SKF_VIEW_THREE_QUARTER};

    /* colormap basics */
    CHECK(skf_colormap_bin(0) == 0 && skf_colormap_bin(0.2499) == 0 && skf_colormap_bin(0.25) == 1);
    CHECK(skf_colormap_bin(2.99) == 11 && skf_colormap_bin(3.0) == 12 && skf_colormap_bin(50) == 12);
    CHECK(skf_colormap_bin(-1) == 0 && skf_colormap_bin(NAN) == 12);
    for (int b = 0; b < SKF_COLORMAP_BINS; ++b) {
        uint32_t c = skf_colormap_color(b);
        for (int s = 4; s <= 10; ++s) {
            uint8_t rgb[3] = {(uint8_t)lround((c >> 24) * s / 10.0),
                              (uint8_t)lround(((c >> 16) & 255) * s / 10.0),
                              (uint8_t)lround(((c >> 8) & 255) * s / 10.0)};
            CHECK_MSG(skf_colormap_classify(rgb) == b, "bin %d shade %d", b, s);
        }
    }
    const uint8_t grey[3] = {60, 60, 70}, white[3] = {255, 255, 255};
    CHECK(skf_colormap_classify(grey) == -1 && skf_colormap_classify(white) == -1);

    skf_renderer *r;
    CHECK(skf_renderer_new(&scene, &opt, &r, &err) == SKF_OK);
    if (!r) {
        fprintf(stderr, "%s\n", err.message);
        return skf_test_done();
    }
    int W = skf_renderer_width(r), H = skf_renderer_height(r), S = skf_renderer_supersample(r);
    CHECK(W == 600 && H == 230);
    skf_image img;
    CHECK(skf_image_init(&img, W, H, 0, &err) == SKF_OK);
    uint8_t *cov = skf_malloc((size_t)W * H);
    float *depth = skf_malloc_array((size_t)W * H, sizeof(float));
    skf_render_aux aux = {cov, depth};

    /* framing: every vertex of every frame of every panel lands inside its panel */
    size_t outside = 0;
    for (size_t k = 0; k < 3; ++k) {
        int px, py, pw, ph;
        skf_renderer_panel_rect(r, k, &px, &py, &pw, &ph);
        for (size_t i = 0; i < (size_t)FRAMES * NV; ++i) {
            double x, y, d;
            skf_renderer_project(r, k, panels[k].surface.positions + 3 * i, &x, &y, &d);
            outside += x < px || x > px + pw || y < py || y > py + ph;
        }
    }
    printf("framing: %zu vertex-frames outside their panel\n", outside);
    CHECK(outside == 0);

    size_t probes = 0, exact = 0, near = 0, zero_px = 0, zero_bad = 0, sil_px = 0;
    for (size_t f = 0; f < FRAMES; ++f) {
        CHECK(skf_render_frame(r, f, &img, &aux, &err) == SKF_OK);
        if (f == 1) {
            char path[256];
            snprintf(path, sizeof path, "%s/render_synthetic.png",
                     getenv("SKF_BUILD_DIR") ? getenv("SKF_BUILD_DIR") : ".");
            CHECK(skf_png_write(path, &img, &err) == SKF_OK);
        }
        /* zero-error panel: every fully covered pixel is in the zero bin */
        int px, py, pw, ph;
        skf_renderer_panel_rect(r, 1, &px, &py, &pw, &ph);
        for (int y = py; y < py + ph; ++y)
            for (int x = px; x < px + pw; ++x)
                if (cov[(size_t)y * W + x] == S * S) {
                    ++zero_px;
                    zero_bad += skf_colormap_classify(skf_image_at(&img, x, y)) != 0;
                }
        /* rig panel: silhouette shows below the displaced surface */
        skf_renderer_panel_rect(r, 2, &px, &py, &pw, &ph);
        for (int y = py; y < py + ph; ++y)
            for (int x = px; x < px + pw; ++x) {
                const uint8_t *c = skf_image_at(&img, x, y);
                sil_px += c[0] == 0x3C && c[1] == 0x3C && c[2] == 0x46;
            }
        /* probes: visible vertices' pixel colour is their bin (±1 for pixels
         * straddling a band boundary) */
        for (size_t i = 0; i < NV; i += 7) {
            const double *p = rig_pos + (f * NV + i) * 3;
            double x, y, d;
            skf_renderer_project(r, 2, p, &x, &y, &d);
            int ix = (int)floor(x), iy = (int)floor(y);
            size_t o = (size_t)iy * W + ix;
            if (cov[o] != S * S || fabs(depth[o] - d) > 0.01 * diag)
                continue; /* hidden or on the outline */
            int want = skf_colormap_bin(100.0 * rig_err[f * NV + i] / diag);
            int got = skf_colormap_classify(skf_image_at(&img, ix, iy));
            ++probes;
            exact += got == want;
            near += abs(got - want) <= 1;
        }
    }
    printf("zero panel: %zu fully covered pixels, %zu outside bin 0\n", zero_px, zero_bad);
    printf("rig panel: %zu silhouette pixels; probes %zu, exact bin %zu, within one bin %zu\n",
           sil_px, probes, exact, near);
    CHECK(zero_px > 1000 && zero_bad == 0);
    CHECK(sil_px > 100);
    CHECK(probes > 50 && near == probes && exact >= probes * 8 / 10);

    /* GIF: one frame per rendered frame; fully covered pixels keep their bin */
    char gif_path[256], png_path[256];
    snprintf(gif_path, sizeof gif_path, "/tmp/skf_test_raster_%d.gif", (int)getpid());
    snprintf(png_path, sizeof png_path, "/tmp/skf_test_raster_%d.png", (int)getpid());
    size_t all[FRAMES] = {0, 1, 2, 3};
    CHECK(skf_render_write(&scene, &opt, all, FRAMES, 24, gif_path, NULL, &err) == SKF_OK);
    CHECK(skf_render_write(&scene, &opt, all + 3, 1, 24, png_path, NULL, &err) == SKF_OK);
    skf_gif_info gi;
    skf_image png;
    CHECK(skf_gif_read(gif_path, &gi, &err) == SKF_OK);
    CHECK(skf_png_read(png_path, &png, &err) == SKF_OK);
    CHECK(gi.frame_count == FRAMES && gi.loop_count == 0);
    CHECK(png.width == 600 && png.height == 230);
    CHECK(skf_render_frame(r, 3, &img, &aux, &err) == SKF_OK);
    size_t same = 0, total = 0, png_same = 0, adjacent = 0;
    for (int y = 0; y < H && gi.frame_count == FRAMES; ++y)
        for (int x = 0; x < W; ++x)
            if (cov[(size_t)y * W + x] == S * S) {
                int want = skf_colormap_classify(skf_image_at(&img, x, y));
                ++total;
                int got = skf_colormap_classify(skf_image_at(&gi.frames[3], x, y));
                same += got == want;
                adjacent += want < 0 ? got == want : got >= 0 && abs(got - want) <= 1;
                png_same += !memcmp(skf_image_at(&png, x, y), skf_image_at(&img, x, y), 3);
            }
    printf("gif: %zu frames, delays %d %d %d %d cs; %zu/%zu covered pixels keep their bin, %zu within one "
           "bin (band-edge blends); png identical %zu/%zu\n",
           gi.frame_count, gi.delay_cs[0], gi.frame_count > 1 ? gi.delay_cs[1] : 0,
           gi.frame_count > 2 ? gi.delay_cs[2] : 0, gi.frame_count > 3 ? gi.delay_cs[3] : 0, same,
           total, adjacent, png_same, total);
    /* a pixel straddling a band boundary blends two bins: the GIF may snap it
     * to either neighbour, never further */
    CHECK(total > 0 && adjacent == total && same >= total * 99 / 100 && png_same == total);
    skf_gif_info_release(&gi);
    skf_image_release(&png);
    unlink(gif_path);
    unlink(png_path);

    /* bad input */
    skf_renderer *bad;
    tris[5] = NV + 3;
    CHECK(skf_renderer_new(&scene, &opt, &bad, &err) == SKF_ERR_ARGUMENT);
    CHECK(strstr(err.message, "panel 0: triangles[1]") != NULL);
    tris[5] = 1;
    rig_pos[3 * NV + 4] = NAN;
    CHECK(skf_renderer_new(&scene, &opt, &bad, &err) == SKF_ERR_FORMAT);
    CHECK(strstr(err.message, "panel 2: frame 1: vertex 1") != NULL);
    rig_pos[3 * NV + 4] = 0;
    skf_render_options tiny = {.width = 20, .height = 200};
    CHECK(skf_renderer_new(&scene, &tiny, &bad, &err) == SKF_ERR_ARGUMENT);
    CHECK(skf_render_write(&scene, &opt, all, 1, 24, "/tmp/x.jpg", NULL, &err) == SKF_ERR_ARGUMENT);

    /* every allocation failing in turn: SKF_ERR_NOMEM (or success), never a
     * crash or a leak (ASan) */
    size_t failures = 0;
    for (size_t n = 1; n < 400; ++n) {
        skf_renderer *fr = NULL;
        skf_alloc_fail_from(n);
        skf_status st = skf_renderer_new(&scene, &opt, &fr, &err);
        if (!st)
            st = skf_render_write(&scene, &opt, all, 2, 24, gif_path, NULL, &err);
        skf_alloc_fail_from(0);
        skf_renderer_free(fr);
        if (st == SKF_OK)
            break;
        CHECK_MSG(st == SKF_ERR_NOMEM, "allocation %zu: %s", n, err.message);
        ++failures;
    }
    printf("allocation failures handled: %zu\n", failures);
    CHECK(failures > 10);
    unlink(gif_path);

    skf_free(cov);
    skf_free(depth);
    skf_image_release(&img);
    skf_renderer_free(r);
    return skf_test_done();
}
