/* Fuzz harness: an SVG character document (libxml2 parse, skeleton and
 * illustration discovery, shapes, transforms, binding), then three animated
 * frames — the rest pose, a turned, scaled and moved pose with the left arm
 * raised, and a pose whose scores are too low to draw (hiding, smoothing,
 * the face fallback) — each serialised back to SVG, and the three frames
 * written as one animated SVG. FUZZ_SVG_VERBOSE=1 prints how far an input
 * got (to check the seeds reach the deformation; silent while fuzzing). */
#include "skinfit/svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void trace(const char *stage, skf_status st, const skf_error *err)
{
    static int verbose = -1;
    if (verbose < 0)
        verbose = getenv("FUZZ_SVG_VERBOSE") != NULL;
    if (verbose)
        fprintf(stderr, "svg: %s: %s%s%s\n", stage, skf_status_name(st), st == SKF_OK ? "" : ": ",
                st == SKF_OK ? "" : err->message);
}

/* Frame k: 0 rest; 1 a similarity (0.3 rad, x1.5, moved) of the rest with
 * the left wrist and elbow swung up; 2 the rest with scores below threshold. */
static void make_frame(const skf_svg_character *c, int k, skf_svg_pose_frame *f)
{
    f->pose_score = k == 2 ? 0.05 : 1.0;
    f->has_face = false;
    double ct = cos(0.3), st = sin(0.3);
    for (int j = 0; j < SKF_SVG_POSE_JOINT_COUNT; ++j) {
        double p[2];
        skf_svg_rest_joint(c, j, p);
        if (k == 1) {
            if (j == 3 || j == 4) /* leftWrist, leftElbow */
                p[1] -= 100.0;
            double x = 1.5 * (ct * p[0] - st * p[1]) + 40.0;
            double y = 1.5 * (st * p[0] + ct * p[1]) - 25.0;
            p[0] = x;
            p[1] = y;
        }
        f->xy[j][0] = p[0];
        f->xy[j][1] = p[1];
        f->score[j] = k == 2 ? 0.01 : 1.0;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    skf_svg_character *c = NULL;
    skf_error err;
    skf_warnings w = {0};
    static skf_limits lim = {.value = {[SKF_LIMIT_SVG_BYTES] = 1 << 20, [SKF_LIMIT_SVG_DEPTH] = 64}};
    skf_svg_load_options opt = {.limits = &lim};
    skf_status s = skf_svg_load_memory((const char *)data, size, "fuzz.svg", &opt, &c, &w, &err);
    trace("load", s, &err);
    if (s == SKF_OK) {
        skf_svg_animator *a = NULL;
        s = skf_svg_animator_new(c, NULL, &a, &err);
        trace("animator", s, &err);
        if (s == SKF_OK) {
            skf_svg_track track;
            bool have_track = skf_svg_track_init(&track, c, 3, 10.0, &err) == SKF_OK;
            for (int k = 0; k < 3; ++k) {
                skf_svg_pose_frame f;
                make_frame(c, k, &f);
                skf_svg_animator_update(a, &f);
                char *svg = NULL;
                size_t n = 0;
                s = skf_svg_write_frame(a, &svg, &n, &err);
                trace("write_frame", s, &err);
                skf_free(svg);
                if (have_track)
                    skf_svg_track_store(&track, (size_t)k, a);
            }
            if (have_track) {
                char *svg = NULL;
                size_t n = 0;
                s = skf_svg_write_animated(c, &track, &svg, &n, &err);
                trace("write_animated", s, &err);
                skf_free(svg);
                skf_svg_track_release(&track);
            }
            skf_svg_animator_free(a);
        }
        skf_svg_free(c);
    }
    skf_warnings_release(&w);
    return 0;
}
