/* The rasteriser's AVX2 kernels (src/render/raster_avx2.c) against its
 * portable ones (raster.c): the same scenes drawn both ways must give the
 * same bytes — images, coverage and depth — at several sizes, supersampling
 * factors (4: the AVX2 box filter; 3: a division; 1), thread counts and views.
 * The scene is a soup of random triangles (overlapping, thin, large, partly
 * off-panel) with errors across every bin, a rig with unmeasured vertices
 * (neutral triangles) and a silhouette, so that every path of the depth pass,
 * the per-sample bins and the runs of winners is taken. The same frames drawn
 * in bands of one pixel row and in one band a panel must give the default
 * bands' bytes too (render.c: BAND_BYTES); where the CPU has no AVX2 only
 * that is compared. */
#include "check.h"
#include "render/render_internal.h"
#include "skinfit/render.h"

#include <stdint.h>

enum { NV = 600, NT = 900, FRAMES = 2 };

static double gt_pos[FRAMES * NV * 3], rig_pos[FRAMES * NV * 3], rig_err[FRAMES * NV];
static uint32_t tris[NT * 3];
static uint8_t measured[NV];

static uint64_t rng = 0x9E3779B97F4A7C15u;
static double uniform(void) /* [0, 1) */
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* Frames 0 and 1 of the scene into img[0], img[1] (frame 1 also with aux
 * into img[2], its coverage and depth into cov, depth) with one kernel and
 * band budget (skfi_render_band_bytes; 0: the renderer's own). */
static bool draw(const skf_render_scene *scene, const skf_render_options *opt, bool portable,
                 size_t band_bytes, skf_image img[3], uint8_t *cov, float *depth)
{
    skf_error err;
    skfi_render_portable = portable;
    skfi_render_band_bytes = band_bytes;
    skf_renderer *r = NULL;
    bool ok = skf_renderer_new(scene, opt, &r, &err) == SKF_OK;
    skfi_render_band_bytes = 0;
    for (int k = 0; ok && k < 3; ++k)
        ok = skf_image_init(&img[k], skf_renderer_width(r), skf_renderer_height(r), 0, &err) == SKF_OK;
    skf_render_aux aux = {cov, depth};
    ok = ok && skf_render_frame(r, 0, &img[0], NULL, &err) == SKF_OK &&
         skf_render_frame(r, 1, &img[1], NULL, &err) == SKF_OK &&
         skf_render_frame(r, 1, &img[2], &aux, &err) == SKF_OK;
    skf_renderer_free(r);
    skfi_render_portable = 0;
    return ok;
}

int main(void)
{
    const bool avx2 = skfi_raster_use_avx2(); /* else one kernel: only the bands are compared */
    for (size_t i = 0; i < FRAMES * NV * 3; ++i)
        gt_pos[i] = uniform() * 2 - 1 + (i % 3 == 0 ? 0.6 * uniform() : 0);
    for (size_t f = 0; f < FRAMES; ++f)
        for (size_t i = 0; i < NV; ++i) {
            const double *g = gt_pos + (f * NV + i) * 3;
            double *p = rig_pos + (f * NV + i) * 3;
            for (int k = 0; k < 3; ++k)
                p[k] = g[k] + 0.02 * (uniform() - 0.5);
            /* 0 .. 4 % of the diagonal: every bin, and bin edges inside triangles */
            rig_err[f * NV + i] = 0.04 * uniform() * 2.0;
        }
    for (size_t t = 0; t < NT; ++t) {
        /* mostly small triangles around a random vertex, some large ones */
        uint32_t a = (uint32_t)(uniform() * NV);
        for (int k = 0; k < 3; ++k)
            tris[3 * t + (size_t)k] = t % 7 == 0 ? (uint32_t)(uniform() * NV)
                                                 : (a + (uint32_t)(uniform() * 12)) % NV;
    }
    /* nearby indices are nearby points for the small triangles */
    for (size_t f = 0; f < FRAMES; ++f)
        for (size_t i = 1; i < NV; ++i)
            if (i % 40)
                for (int k = 0; k < 3; ++k) {
                    gt_pos[(f * NV + i) * 3 + (size_t)k] =
                        gt_pos[(f * NV + i - 1) * 3 + (size_t)k] + 0.08 * (uniform() - 0.5);
                    rig_pos[(f * NV + i) * 3 + (size_t)k] =
                        gt_pos[(f * NV + i) * 3 + (size_t)k] + 0.01 * (uniform() - 0.5);
                }
    for (size_t i = 0; i < NV; ++i)
        measured[i] = i % 11 != 0;

    skf_render_surface gt = {NV, gt_pos, NT, tris};
    skf_render_panel panels[3] = {
        {"ground truth", gt, NULL, 0, false, NULL},
        {"rig", {NV, rig_pos, NT, tris}, rig_err, 2.0, true, NULL},
        {"rig, some unmeasured", {NV, rig_pos, NT, tris}, rig_err, 2.0, true, measured},
    };
    skf_render_scene scene = {FRAMES, &gt, 3, panels};
    const struct {
        int w, h, S, threads;
        skf_render_view view;
    } cases[] = {{600, 230, 4, 1, SKF_VIEW_SIDE},     {600, 230, 4, 2, SKF_VIEW_THREE_QUARTER},
                 {437, 181, 4, 3, SKF_VIEW_FRONT},   {600, 230, 3, 1, SKF_VIEW_TOP},
                 {301, 157, 1, 2, SKF_VIEW_SIDE},    {240, 120, 8, 1, SKF_VIEW_THREE_QUARTER}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        skf_render_options opt = {.width = cases[c].w, .height = cases[c].h, .view = cases[c].view,
                                  .supersample = cases[c].S, .threads = cases[c].threads};
        size_t px = (size_t)cases[c].w * (size_t)cases[c].h;
        /* 0: the default kernel and bands; 1: the portable kernel (AVX2 CPUs);
         * 2: one pixel row a band; 3: one band a panel (the bytes of a sample
         * do not depend on the band that holds it) */
        enum { DRAWS = 4 };
        uint8_t *cov[DRAWS];
        float *depth[DRAWS];
        skf_image img[DRAWS][3];
        memset(img, 0, sizeof img);
        bool ok = true;
        for (int k = 0; k < DRAWS; ++k) {
            cov[k] = skf_malloc_array(px, 1);
            depth[k] = skf_malloc_array(px, sizeof(float));
            ok = ok && cov[k] && depth[k];
        }
        ok = ok && draw(&scene, &opt, false, 0, img[0], cov[0], depth[0]) &&
             draw(&scene, &opt, avx2, 0, img[1], cov[1], depth[1]) &&
             draw(&scene, &opt, false, 1, img[2], cov[2], depth[2]) &&
             draw(&scene, &opt, false, (size_t)1 << 40, img[3], cov[3], depth[3]);
        CHECK_MSG(ok, "case %zu: drawn", c);
        for (int k = 2; ok && k < DRAWS; ++k) {
            size_t bytes = (size_t)img[0][0].height * img[0][0].stride;
            for (int f = 0; f < 3; ++f)
                CHECK_MSG(!memcmp(img[0][f].pixels, img[k][f].pixels, bytes),
                          "case %zu, image %d: %s differs from the default bands", c, f,
                          k == 2 ? "one pixel row a band" : "one band a panel");
            CHECK_MSG(!memcmp(cov[0], cov[k], px) && !memcmp(depth[0], depth[k], px * sizeof(float)),
                      "case %zu: coverage and depth of draw %d", c, k);
        }
        if (ok && avx2) {
            size_t bytes = (size_t)img[0][0].height * img[0][0].stride, covered = 0;
            for (int f = 0; f < 3; ++f) {
                size_t differ = 0;
                for (size_t i = 0; i < bytes; ++i)
                    differ += img[0][f].pixels[i] != img[1][f].pixels[i];
                CHECK_MSG(differ == 0, "case %zu (%dx%d, S=%d, %d threads), image %d: %zu bytes differ",
                          c, cases[c].w, cases[c].h, cases[c].S, cases[c].threads, f, differ);
            }
            /* with aux (the scalar box filter) the same image as without */
            CHECK_MSG(!memcmp(img[0][1].pixels, img[0][2].pixels, bytes), "case %zu: aux", c);
            CHECK_MSG(memcmp(img[0][0].pixels, img[0][1].pixels, bytes), "case %zu: frames differ", c);
            for (size_t i = 0; i < px; ++i)
                covered += cov[0][i] > 0;
            CHECK_MSG(!memcmp(cov[0], cov[1], px), "case %zu: coverage", c);
            CHECK_MSG(!memcmp(depth[0], depth[1], px * sizeof(float)), "case %zu: depth", c);
            /* the scene covers a good part of the image (the comparison means something) */
            CHECK_MSG(covered > px / 10, "case %zu: %zu of %zu pixels covered", c, covered, px);
        }
        for (int k = 0; k < DRAWS; ++k) {
            for (int f = 0; f < 3; ++f)
                skf_image_release(&img[k][f]);
            skf_free(cov[k]);
            skf_free(depth[k]);
        }
    }
    return skf_test_done();
}
