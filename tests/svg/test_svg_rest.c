/* Acceptance 1 (issue 5): boy, girl and abstract load, and the rest pose
 * reproduces the input geometry within 1e-6 px — in memory and after a
 * round trip through the written frame SVG. */
#include "svg_test_util.h"

static void check_one(const char *rel)
{
    skf_svg_character *c = svgt_load(rel);
    size_t np = skf_svg_path_count(c);
    CHECK_MSG(np > 0, "%s: no paths", rel);
    skf_svg_animator *a = NULL;
    skf_error err = {0};
    CHECK(skf_svg_animator_new(c, NULL, &a, &err) == SKF_OK);
    skf_svg_pose_frame f;
    svgt_rest_frame(c, &f);
    CHECK(skf_svg_animator_update(a, &f) == SKF_SVG_FRAME_DRAWN);
    double body, face;
    skf_svg_animator_scales(a, &body, &face);
    CHECK_NEAR(body, 1, 1e-15);
    CHECK_NEAR(face, 1, 1e-15);
    double maxerr = 0, sumerr = 0;
    size_t npts = 0, hidden = 0, nodes = 0;
    for (size_t i = 0; i < np; ++i) {
        size_t n = skf_svg_path_node_count(c, i);
        double *rest = malloc(n * 6 * sizeof(double));
        skf_svg_path_rest(c, i, rest);
        bool vis;
        double conf;
        const double *xy = skf_svg_animator_path(a, i, &conf, &vis);
        hidden += !vis;
        CHECK_NEAR(conf, 1, 1e-12);
        for (size_t k = 0; k < 6 * n; k += 2) {
            double e = hypot(xy[k] - rest[k], xy[k + 1] - rest[k + 1]);
            maxerr = fmax(maxerr, e);
            sumerr += e;
            npts++;
        }
        nodes += n;
        free(rest);
    }
    CHECK(hidden == 0);
    printf("%s: %zu paths, %zu nodes, %zu secondary bones; rest pose error max %.3g mean %.3g px over %zu points\n",
           rel, np, nodes, skf_svg_secondary_bone_count(c), maxerr, sumerr / (double)npts, npts);
    CHECK(maxerr <= 1e-6);

    /* round trip: the written frame is itself a character with the same geometry */
    char *svg = NULL;
    size_t size = 0;
    CHECK(skf_svg_write_frame(a, &svg, &size, &err) == SKF_OK);
    skf_svg_character *c2 = NULL;
    skf_status st = skf_svg_load_memory(svg, size, "frame.svg", NULL, &c2, NULL, &err);
    CHECK_MSG(st == SKF_OK, "%s", err.message);
    if (st == SKF_OK) {
        CHECK(skf_svg_path_count(c2) == np);
        double max2 = 0;
        for (size_t i = 0; i < np && i < skf_svg_path_count(c2); ++i) {
            size_t n = skf_svg_path_node_count(c, i);
            CHECK_MSG(skf_svg_path_node_count(c2, i) == n, "path %zu (%s) nodes %zu vs %zu", i,
                      skf_svg_path_id(c, i), skf_svg_path_node_count(c2, i), n);
            if (skf_svg_path_node_count(c2, i) != n)
                continue;
            double *r1 = malloc(n * 6 * sizeof(double)), *r2 = malloc(n * 6 * sizeof(double));
            skf_svg_path_rest(c, i, r1);
            skf_svg_path_rest(c2, i, r2);
            for (size_t k = 0; k < 6 * n; k += 2)
                max2 = fmax(max2, hypot(r1[k] - r2[k], r1[k + 1] - r2[k + 1]));
            free(r1);
            free(r2);
        }
        printf("%s: written frame re-read: max geometry error %.3g px\n", rel, max2);
        CHECK(max2 <= 1e-6);
        skf_svg_free(c2);
    }
    skf_free(svg);
    skf_svg_animator_free(a);
    skf_svg_free(c);
}

int main(void)
{
    check_one("poseanimator/boy.svg");
    check_one("poseanimator/girl.svg");
    check_one("poseanimator/abstract.svg");
    return skf_test_done();
}
