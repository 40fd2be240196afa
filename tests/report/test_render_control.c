/* Issue 6, acceptance 1: on each of the six shared animals, the control panel
 * of Walk (the artist rig solved against its own clip) lies entirely in the
 * colormap's zero bin — checked on the image's pixels inside the panel
 * surface's mask (every supersample covered), on every frame. */
#include "check.h"
#include "skinfit/report.h"

static const char *const animals[] = {"Horse", "Deer", "Fox", "Wolf", "Cow", "Alpaca"};

int main(void)
{
    skf_error err;
    if (!skf_test_data("quaternius/animals/Horse.glb"))
        SKF_SKIP("shared assets not found under %s", skf_test_data_dir());
    for (size_t a = 0; a < sizeof animals / sizeof animals[0]; ++a) {
        char rel[128];
        snprintf(rel, sizeof rel, "quaternius/animals/%s.glb", animals[a]);
        const char *path = skf_test_data(rel);
        CHECK_MSG(path != NULL, "%s missing", rel);
        if (!path)
            continue;
        skf_gltf *doc = NULL;
        skf_heatmap *clip = NULL;
        skf_renderer *r = NULL;
        CHECK(skf_gltf_load(path, &doc, NULL, &err) == SKF_OK);
        if (doc)
            CHECK_MSG(skf_heatmap_play(doc, "Walk", 0, &clip, NULL, &err) == SKF_OK, "%s", err.message);
        if (clip)
            CHECK_MSG(skf_heatmap_add_control(clip, NULL, &err) == SKF_OK, "%s", err.message);
        if (!clip || skf_heatmap_rig_count(clip) != 1) {
            skf_heatmap_free(clip);
            skf_gltf_free(doc);
            continue;
        }
        /* the control panel alone (with its ground-truth silhouette), as drawn
         * in the full image: same renderer, one panel */
        skf_render_scene one = *skf_heatmap_scene(clip);
        one.panels += 1;
        one.panel_count = 1;
        skf_render_options opt = {.width = 280, .height = 240};
        CHECK(skf_renderer_new(&one, &opt, &r, &err) == SKF_OK);
        if (!r) {
            skf_heatmap_free(clip);
            skf_gltf_free(doc);
            continue;
        }
        int W = skf_renderer_width(r), H = skf_renderer_height(r), S = skf_renderer_supersample(r);
        int px, py, pw, ph;
        skf_renderer_panel_rect(r, 0, &px, &py, &pw, &ph);
        skf_image img;
        CHECK(skf_image_init(&img, W, H, 0, &err) == SKF_OK);
        uint8_t *cov = skf_malloc((size_t)W * H);
        skf_render_aux aux = {cov, NULL};
        size_t F = skf_heatmap_frame_count(clip), inside = 0, bad = 0, partial = 0;
        double max_pct = 0;
        for (size_t f = 0; f < F; ++f) {
            max_pct = fmax(max_pct, skf_heatmap_rig_metrics(clip, 0)->frame_max_pct[f]);
            CHECK(skf_render_frame(r, f, &img, &aux, &err) == SKF_OK);
            for (int y = py; y < py + ph; ++y)
                for (int x = px; x < px + pw; ++x) {
                    uint8_t c = cov[(size_t)y * W + x];
                    if (c == S * S) {
                        ++inside;
                        bad += skf_colormap_classify(skf_image_at(&img, x, y)) != 0;
                    } else if (c) {
                        ++partial;
                    }
                }
        }
        printf("%-7s Walk: %zu frames, control worst vertex %.2e %% of the diagonal; %zu mask pixels "
               "(+%zu edge pixels), %zu outside the zero bin\n",
               animals[a], F, max_pct, inside, partial, bad);
        CHECK(F > 10);
        CHECK(inside > 2000 * F / 10);
        CHECK(bad == 0);
        CHECK(max_pct < SKF_COLORMAP_BIN_PCT);
        skf_free(cov);
        skf_image_release(&img);
        skf_renderer_free(r);
        skf_heatmap_free(clip);
        skf_gltf_free(doc);
    }
    return skf_test_done();
}
