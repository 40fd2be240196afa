/* Issue 6, acceptance 2: a diffuse-autoweights rig (P = 1, K = 8) of the
 * Horse, Walk transferred onto it by `skinfit transfer --report`: its panel
 * shows errors above 1 % of the diagonal, its per-vertex errors reproduce the
 * JSON report's per-frame worst and mean vertex errors (same routine), and the
 * colours at probed visible vertices are those errors' colormap bins. */
#include "check.h"
#include "skinfit/report.h"

#include <jansson.h>
#include <unistd.h>

static int run(const char *cmd)
{
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

int main(void)
{
    const char *bin = getenv("SKF_BIN");
    const char *horse = skf_test_data("quaternius/animals/Horse.glb");
    if (!horse)
        SKF_SKIP("shared assets not found under %s", skf_test_data_dir());
    if (!bin)
        SKF_SKIP("SKF_BIN not set (run through ctest)");
    char dir[256], rig[300], out[300], json[300], png[300], cmd[2048];
    snprintf(dir, sizeof dir, "/tmp/skf_test_diffuse_XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    snprintf(rig, sizeof rig, "%s/horse_diffuse.glb", dir);
    snprintf(out, sizeof out, "%s/out.glb", dir);
    snprintf(json, sizeof json, "%s/report.json", dir);
    snprintf(png, sizeof png, "%s/panel.png", dir);
    snprintf(cmd, sizeof cmd, "'%s' autoweights '%s' -o '%s' --falloff 1 --max-influences 8 > /dev/null 2>&1",
             bin, horse, rig);
    CHECK(run(cmd) == 0);
    snprintf(cmd, sizeof cmd,
             "'%s' transfer --source '%s' --target '%s' --clip Walk -o '%s' --report '%s' > /dev/null 2>&1",
             bin, horse, rig, out, json);
    CHECK(run(cmd) == 0);
    json_error_t je;
    json_t *root = json_load_file(json, 0, &je);
    CHECK(root != NULL);
    json_t *free_run = json_object_get(json_array_get(json_object_get(root, "clips"), 0), "free");
    json_t *per_frame = json_object_get(free_run, "per_frame");
    CHECK(json_is_array(per_frame));

    skf_error err;
    skf_gltf *src = NULL, *tgt = NULL;
    skf_heatmap *clip = NULL;
    CHECK(skf_gltf_load(horse, &src, NULL, &err) == SKF_OK);
    CHECK(skf_gltf_load(rig, &tgt, NULL, &err) == SKF_OK);
    if (src && tgt)
        CHECK_MSG(skf_heatmap_play(src, "Walk", 0, &clip, NULL, &err) == SKF_OK, "%s", err.message);
    if (clip)
        CHECK_MSG(skf_heatmap_add_solved(clip, "diffuse P=1 K=8", tgt, NULL, NULL, &err) == SKF_OK,
                  "%s", err.message);
    if (!clip || skf_heatmap_rig_count(clip) != 1 || !json_is_array(per_frame)) {
        skf_heatmap_free(clip);
        skf_gltf_free(src);
        skf_gltf_free(tgt);
        json_decref(root);
        return skf_test_done();
    }

    /* the panel's per-vertex errors are the report's */
    size_t F = skf_heatmap_frame_count(clip);
    CHECK(json_array_size(per_frame) == F);
    double worst_diff = 0, worst_pct = 0;
    for (size_t f = 0; f < F && f < json_array_size(per_frame); ++f) {
        json_t *e = json_array_get(per_frame, f);
        double jmax = json_real_value(json_object_get(e, "max_error_pct"));
        double jmean = json_real_value(json_object_get(e, "mean_error_pct"));
        size_t n;
        const double *errs = skf_heatmap_rig_errors(clip, 0, f, &n);
        double diag = skf_heatmap_rig_diagonal(clip, 0), mx = 0, sum = 0;
        for (size_t i = 0; i < n; ++i)
            mx = fmax(mx, errs[i]), sum += errs[i];
        double pmax = 100 * mx / diag, pmean = 100 * sum / (double)n / diag;
        worst_diff = fmax(worst_diff, fmax(fabs(pmax - jmax) / jmax, fabs(pmean - jmean) / jmean));
        worst_pct = fmax(worst_pct, pmax);
    }
    printf("per-frame worst/mean vertex error vs the JSON report: largest relative difference %.2e "
           "over %zu frames; worst vertex %.3f %% of the diagonal\n",
           worst_diff, F, worst_pct);
    CHECK(worst_diff <= 1e-12);
    CHECK(worst_pct > 1.0);

    /* the worst frame: colours above 1 % in the panel; probed vertices */
    size_t frame = skf_heatmap_worst_frame(clip);
    skf_render_options opt = {.width = 900, .height = 360};
    skf_renderer *r = NULL;
    CHECK(skf_renderer_new(skf_heatmap_scene(clip), &opt, &r, &err) == SKF_OK);
    if (r) {
        int W = skf_renderer_width(r), H = skf_renderer_height(r), S = skf_renderer_supersample(r);
        skf_image img;
        CHECK(skf_image_init(&img, W, H, 0, &err) == SKF_OK);
        uint8_t *cov = skf_malloc((size_t)W * H);
        float *depth = skf_malloc_array((size_t)W * H, sizeof(float));
        skf_render_aux aux = {cov, depth};
        CHECK(skf_render_frame(r, frame, &img, &aux, &err) == SKF_OK);
        CHECK(skf_png_write(png, &img, &err) == SKF_OK);
        int px, py, pw, ph;
        skf_renderer_panel_rect(r, 1, &px, &py, &pw, &ph);
        size_t above = 0, inside = 0;
        for (int y = py; y < py + ph; ++y)
            for (int x = px; x < px + pw; ++x)
                if (cov[(size_t)y * W + x] == S * S) {
                    ++inside;
                    above += skf_colormap_classify(skf_image_at(&img, x, y)) >= 4; /* >= 1 % */
                }
        size_t n;
        const double *errs = skf_heatmap_rig_errors(clip, 0, frame, &n);
        const double *pos = skf_heatmap_rig_positions(clip, 0, frame);
        double diag = skf_heatmap_rig_diagonal(clip, 0);
        /* a pixel around vertex i shows the errors interpolated over its
         * incident triangles: its colour must lie within the bins of the
         * one-ring's smallest and largest vertex error */
        const skf_render_surface *sf = &skf_heatmap_scene(clip)->panels[1].surface;
        int *lo = skf_malloc_array(n, sizeof(int)), *hi = skf_malloc_array(n, sizeof(int));
        for (size_t i = 0; i < n; ++i)
            lo[i] = hi[i] = skf_colormap_bin(100 * errs[i] / diag);
        for (size_t t = 0; t < sf->triangle_count; ++t)
            for (int a = 0; a < 3; ++a)
                for (int b = 0; b < 3; ++b) {
                    uint32_t va = sf->triangles[3 * t + a], vb = sf->triangles[3 * t + b];
                    int bb = skf_colormap_bin(100 * errs[vb] / diag);
                    lo[va] = bb < lo[va] ? bb : lo[va];
                    hi[va] = bb > hi[va] ? bb : hi[va];
                }
        size_t probes = 0, exact = 0, near = 0, in_ring = 0, worst_i = 0;
        for (size_t i = 0; i < n; ++i)
            if (errs[i] > errs[worst_i])
                worst_i = i;
        int worst_seen = -1;
        for (size_t i = 0; i < n; ++i) {
            double x, y, d;
            skf_renderer_project(r, 1, pos + 3 * i, &x, &y, &d);
            int ix = (int)floor(x), iy = (int)floor(y);
            if (ix < px || iy < py || ix >= px + pw || iy >= py + ph)
                continue;
            size_t o = (size_t)iy * W + ix;
            /* probe only where the vertex is the visible surface: the pixel and
             * its 8 neighbours fully covered, the nearest depth in them that of
             * the vertex's neighbourhood (no other part of the body crossing) */
            bool clear = ix > px && iy > py && ix + 1 < px + pw && iy + 1 < py + ph;
            for (int dy = -1; clear && dy <= 1; ++dy)
                for (int dx = -1; clear && dx <= 1; ++dx) {
                    size_t q = (size_t)(iy + dy) * W + (size_t)(ix + dx);
                    clear = cov[q] == S * S && fabs(depth[q] - d) <= 0.01 * diag;
                }
            if (!clear || fabs(depth[o] - d) > 1e-3 * diag)
                continue; /* hidden, on the outline or where two parts cross */
            int want = skf_colormap_bin(100 * errs[i] / diag);
            int got = skf_colormap_classify(skf_image_at(&img, ix, iy));
            ++probes;
            exact += got == want;
            near += got >= 0 && abs(got - want) <= 1;
            bool ok = got >= lo[i] && got <= hi[i];
            in_ring += ok;
            if (!ok)
                fprintf(stderr, "vertex %zu: error %.3f %% (bin %d, one-ring bins %d..%d), pixel (%d, %d) "
                        "shows bin %d\n", i, 100 * errs[i] / diag, want, lo[i], hi[i], ix, iy, got);
            if (i == worst_i)
                worst_seen = got;
        }
        printf("frame %zu: %zu of %zu panel mask pixels above 1 %%; %zu visible vertices probed: %zu "
               "in their bin, %zu within one bin, %zu within their one-ring's bins; worst vertex %.3f %% "
               "(bin %d) %s\n",
               frame, above, inside, probes, exact, near, in_ring, 100 * errs[worst_i] / diag,
               skf_colormap_bin(100 * errs[worst_i] / diag),
               worst_seen >= 0 ? "visible" : "hidden in this view");
        CHECK(above > 50);
        CHECK(probes > 100);
        CHECK(in_ring == probes);
        CHECK(exact * 10 >= probes * 7);
        skf_free(lo);
        skf_free(hi);
        skf_free(cov);
        skf_free(depth);
        skf_image_release(&img);
        skf_renderer_free(r);
    }
    skf_heatmap_free(clip);
    skf_gltf_free(src);
    skf_gltf_free(tgt);
    json_decref(root);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(run(cmd) == 0);
    return skf_test_done();
}
