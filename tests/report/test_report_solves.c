/* Issue 15, acceptance 2: `skinfit transfer --html` solves each clip exactly
 * once and draws its pictures from the per-vertex errors the transfer
 * returned.
 *
 * 1. The command, run in-process (tools/skinfit without main.c) on the Fox
 *    onto its autoweights rig, Walk + Gallop, --mode both: the solver's debug
 *    counters (src/solve/solve_counts.h) move by exactly as much with --html
 *    as without it — 2 solvers (one session), 2 clip solves per clip (control
 *    and free), one rotation-only solve per frame — so the page neither
 *    re-solves nor opens sessions of its own.
 * 2. The library path: skf_report_transfer_html on finished clips leaves every
 *    counter where it was; a heat-map panel's per-vertex errors are the clip's
 *    vertex_errors bit for bit, and their per-frame worst / mean (in % of the
 *    diagonal) are the table's frame_max_pct / frame_mean_pct. */
#include "check.h"
#include "cli.h"
#include "solve/solve_counts.h"
#include "skinfit/report.h"
#include "skinfit/rig.h"

#include <unistd.h>

static skfi_solve_counts counts(void)
{
    skfi_solve_counts c;
    skfi_solve_counts_get(&c);
    return c;
}

static skfi_solve_counts delta(skfi_solve_counts a, skfi_solve_counts b)
{
    return (skfi_solve_counts){b.solvers - a.solvers, b.clips - a.clips, b.frame_sets - a.frame_sets,
                               b.frames - a.frames, b.rotonly_frames - a.rotonly_frames};
}

static void print_counts(const char *what, skfi_solve_counts d)
{
    printf("%-26s %zu solvers, %zu clip solves, %zu frame-set solves, %zu frame solves, %zu rotation-only "
           "frames\n",
           what, d.solvers, d.clips, d.frame_sets, d.frames, d.rotonly_frames);
}

static bool same(skfi_solve_counts a, skfi_solve_counts b)
{
    return a.solvers == b.solvers && a.clips == b.clips && a.frame_sets == b.frame_sets && a.frames == b.frames &&
           a.rotonly_frames == b.rotonly_frames;
}

/* cmd_transfer as main() calls it: argv[0] is the command name, argv[-1] the program */
static int transfer(const char *const *args)
{
    char *argv[32];
    int n = 0;
    argv[n++] = "skinfit";
    for (; *args; ++args)
        argv[n++] = (char *)*args;
    argv[n] = NULL;
    return cmd_transfer(n - 1, argv + 1);
}

int main(void)
{
    const char *fox = skf_test_data("quaternius/animals/Fox.glb");
    if (!fox)
        SKF_SKIP("shared assets not found under %s", skf_test_data_dir());
    char dir[] = "/tmp/skf_test_report_solves_XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char aw[300], glb[300], json[300], html[300];
    snprintf(aw, sizeof aw, "%s/fox_aw.glb", dir);
    snprintf(glb, sizeof glb, "%s/out.glb", dir);
    snprintf(json, sizeof json, "%s/report.json", dir);
    snprintf(html, sizeof html, "%s/report.html", dir);
    skf_error err = {0};
    skf_gltf *src = NULL, *tgt = NULL;
    CHECK(skf_gltf_load(fox, &src, NULL, &err) == SKF_OK);
    CHECK(skf_gltf_load(fox, &tgt, NULL, &err) == SKF_OK);
    CHECK_MSG(tgt && skf_autoweights_gltf(tgt, 0, NULL, NULL, &err) == SKF_OK, "%s", err.message);
    CHECK_MSG(tgt && skf_gltf_write_glb(tgt, aw, NULL, &err) == SKF_OK, "%s", err.message);
    skf_gltf_free(tgt);
    tgt = NULL;
    CHECK(skf_gltf_load(aw, &tgt, NULL, &err) == SKF_OK);
    if (!src || !tgt) {
        skf_gltf_free(src);
        skf_gltf_free(tgt);
        return skf_test_done();
    }

    /* 1. the command with and without --html */
    const char *plain[] = {"transfer", "--source", fox, "--target", aw, "--clip", "Walk", "--clip", "Gallop",
                           "--mode", "both", "-o", glb, "--report", json, NULL};
    const char *with_html[] = {"transfer", "--source", fox, "--target", aw, "--clip", "Walk", "--clip", "Gallop",
                               "--mode", "both", "-o", glb, "--report", json, "--html", html, NULL};
    skfi_solve_counts c0 = counts();
    CHECK(transfer(plain) == 0);
    skfi_solve_counts c1 = counts();
    CHECK(transfer(with_html) == 0);
    skfi_solve_counts c2 = counts();
    skfi_solve_counts d_plain = delta(c0, c1), d_html = delta(c1, c2);
    print_counts("transfer:", d_plain);
    print_counts("transfer --html:", d_html);
    CHECK(access(html, R_OK) == 0);
    CHECK(same(d_plain, d_html));
    CHECK(d_html.solvers == 2);          /* one session: the source's and the target's solver */
    CHECK(d_html.clips == 2 * 2);        /* per clip: control + free */
    CHECK(d_html.frame_sets == 0 && d_html.frames == 0);

    /* 2. the library path */
    skf_transfer_options o = {.mode = SKF_TRANSFER_FREE, .vertex_output = true};
    skf_transfer *t = NULL;
    skf_transfer_clip clip[2];
    memset(clip, 0, sizeof clip);
    CHECK_MSG(skf_transfer_new(src, tgt, &o, &t, NULL, &err) == SKF_OK, "%s", err.message);
    size_t frames = 0;
    if (t) {
        const char *names[2] = {"Walk", "Gallop"};
        for (int k = 0; k < 2; ++k) {
            CHECK_MSG(skf_transfer_run_clip(t, names[k], &clip[k], NULL, &err) == SKF_OK, "%s", err.message);
            frames += clip[k].frames;
        }
        CHECK(d_html.rotonly_frames == frames); /* one rotation-only solve per frame */
        skf_transfer_info info;
        skf_transfer_get_info(t, &info);
        skfi_solve_counts before = counts();
        CHECK_MSG(skf_report_transfer_html(html, src->path, tgt->path, &info, clip, 2, "test", 0, 0, &err) ==
                      SKF_OK,
                  "%s", err.message);
        skfi_solve_counts d = delta(before, counts());
        print_counts("skf_report_transfer_html:", d);
        CHECK(same(d, (skfi_solve_counts){0, 0, 0, 0, 0}));

        /* a panel's errors are the clip's, and they make the table's per-frame figures */
        const skf_transfer_clip *c = &clip[0];
        skf_heatmap *h = NULL;
        CHECK(skf_heatmap_new(c, &h, &err) == SKF_OK);
        CHECK(h && skf_heatmap_add_run(h, "free", c, SKF_REPORT_FREE, &info.alignment, &err) == SKF_OK);
        size_t C = c->free.measured_count, mismatched = 0, figures_off = 0;
        CHECK(C == info.constraints && C == c->target_mesh.vertex_count);
        for (size_t f = 0; h && skf_heatmap_rig_count(h) == 1 && f < c->frames; ++f) {
            size_t n;
            const double *e = skf_heatmap_rig_errors(h, 0, f, &n);
            CHECK(n == C);
            mismatched += memcmp(e, c->free.vertex_errors + f * C, C * sizeof *e) != 0;
            double mx = 0, sum = 0;
            for (size_t i = 0; i < C; ++i)
                mx = fmax(mx, e[i]), sum += e[i];
            figures_off += 100.0 * mx / c->free.diagonal != c->free.frame_max_pct[f];
            figures_off += 100.0 * (sum / (double)C) / c->free.diagonal != c->free.frame_mean_pct[f];
        }
        printf("Walk free panel: %zu frames x %zu vertices, %zu frames differ from the clip's vertex_errors, "
               "%zu per-frame figures off the table\n",
               c->frames, C, mismatched, figures_off);
        CHECK(mismatched == 0);
        CHECK(figures_off == 0);

        /* a borrowed scene (skf_heatmap_new_borrowed, what the page draws) points at
         * the clip's own arrays and draws the same bytes as the copying one */
        skf_heatmap *hb = NULL;
        CHECK(skf_heatmap_new_borrowed(c, &hb, &err) == SKF_OK);
        CHECK(hb && skf_heatmap_add_run(hb, "free", c, SKF_REPORT_FREE, &info.alignment, &err) == SKF_OK);
        if (hb && h && skf_heatmap_rig_count(hb) == 1) {
            size_t n;
            CHECK(skf_heatmap_rig_errors(hb, 0, 1, &n) == c->free.vertex_errors + C);
            CHECK(!info.alignment.identity || skf_heatmap_rig_positions(hb, 0, 1) == c->free.surface + 3 * n);
            CHECK(skf_heatmap_scene(hb)->ground_truth->positions == c->source_surface);
            skf_image img[2];
            memset(img, 0, sizeof img);
            skf_heatmap *hs[2] = {h, hb};
            for (int k = 0; k < 2; ++k) {
                skf_renderer *r = NULL;
                skf_render_options ro = {.width = 480, .height = 160};
                CHECK_MSG(skf_renderer_new(skf_heatmap_scene(hs[k]), &ro, &r, &err) == SKF_OK, "%s", err.message);
                CHECK(r && skf_image_init(&img[k], 480, 160, 0, &err) == SKF_OK &&
                      skf_render_frame(r, skf_heatmap_worst_frame(hs[k]), &img[k], NULL, &err) == SKF_OK);
                skf_renderer_free(r);
            }
            CHECK(img[0].pixels && img[1].pixels &&
                  !memcmp(img[0].pixels, img[1].pixels, (size_t)img[0].height * img[0].stride));
            for (int k = 0; k < 2; ++k)
                skf_image_release(&img[k]);
        }
        skf_heatmap_free(hb);
        skf_heatmap_free(h);
        for (int k = 0; k < 2; ++k)
            skf_transfer_clip_release(&clip[k]);
    }
    skf_transfer_free(t);
    skf_gltf_free(src);
    skf_gltf_free(tgt);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    return skf_test_done();
}
