/* Acceptance 2 (issue 5): raising the left arm (elbow and wrist rotated 60
 * degrees about the shoulder) moves the arm paths and leaves paths bound only
 * to other bones unchanged; a similarity of every keypoint moves the whole
 * drawing by exactly that similarity. */
#include "svg_test_util.h"

static void raise_arm(const char *rel, bool has_arms)
{
    skf_svg_character *c = svgt_load(rel);
    skf_error err = {0};
    skf_svg_animator *a = NULL;
    CHECK(skf_svg_animator_new(c, NULL, &a, &err) == SKF_OK);
    skf_svg_pose_frame f;
    svgt_rest_frame(c, &f);
    int ls = skf_svg_joint_index("leftShoulder"), le = skf_svg_joint_index("leftElbow"),
        lw = skf_svg_joint_index("leftWrist");
    const double th = -60.0 * M_PI / 180.0; /* y points down: negative angle raises the arm */
    double co = cos(th), si = sin(th), sx = f.xy[ls][0], sy = f.xy[ls][1];
    int moved[2] = {le, lw};
    for (int m = 0; m < 2; ++m) {
        double x = f.xy[moved[m]][0] - sx, y = f.xy[moved[m]][1] - sy;
        f.xy[moved[m]][0] = sx + co * x - si * y;
        f.xy[moved[m]][1] = sy + si * x + co * y;
    }
    CHECK(skf_svg_animator_update(a, &f) == SKF_SVG_FRAME_DRAWN);
    int arm_bones[2] = {72, 73};
    int j0, j1;
    skf_svg_bone(72, &j0, &j1, NULL);
    CHECK(j0 == ls && j1 == le);
    skf_svg_bone(73, &j0, &j1, NULL);
    CHECK(j0 == le && j1 == lw);
    size_t n_arm = 0, n_other = 0, n_rigid = 0;
    double other_max = 0, arm_min_move = INFINITY, rigid_max = 0;
    for (size_t i = 0; i < skf_svg_path_count(c); ++i) {
        size_t n = skf_svg_path_node_count(c, i);
        double *rest = malloc(6 * n * sizeof(double));
        skf_svg_path_rest(c, i, rest);
        const double *xy = skf_svg_animator_path(a, i, NULL, NULL);
        double wmax = fmax(skf_svg_path_bone_weight(c, i, arm_bones[0]),
                           skf_svg_path_bone_weight(c, i, arm_bones[1]));
        double move = 0;
        for (size_t k = 0; k < 6 * n; k += 2)
            move = fmax(move, hypot(xy[k] - rest[k], xy[k + 1] - rest[k + 1]));
        if (wmax > 0) {
            n_arm++;
            if (wmax > 0.5)
                arm_min_move = fmin(arm_min_move, move);
        } else {
            n_other++;
            other_max = fmax(other_max, move);
        }
        /* points bound only to the arm bones turn rigidly about the shoulder */
        for (size_t k = 0; k < n; ++k) {
            int bones[256];
            double w[256];
            size_t m = skf_svg_path_point_weights(c, i, k, bones, w, 256);
            double warm = 0;
            for (size_t q = 0; q < m && q < 256; ++q)
                if (bones[q] == 72 || bones[q] == 73)
                    warm += w[q];
            if (m == 0 || fabs(warm - 1) > 1e-15)
                continue;
            double x = rest[6 * k] - sx, y = rest[6 * k + 1] - sy;
            double ex = sx + co * x - si * y, ey = sy + si * x + co * y;
            rigid_max = fmax(rigid_max, hypot(xy[6 * k] - ex, xy[6 * k + 1] - ey));
            n_rigid++;
        }
        free(rest);
    }
    printf("%s: %zu arm paths (min move of arm-dominated paths %.1f px), %zu other paths "
           "(max move %.3g px), %zu points bound only to the arm: max error vs rigid rotation %.3g px\n",
           rel, n_arm, arm_min_move, n_other, other_max, n_rigid, rigid_max);
    if (has_arms) { /* abstract.svg draws no arms */
        CHECK(n_arm > 0);
        CHECK(arm_min_move > 10);
        CHECK(n_rigid > 0);
    }
    CHECK(n_other > 0);
    CHECK(other_max <= 1e-6);
    CHECK(rigid_max <= 1e-6);
    skf_svg_animator_free(a);
    skf_svg_free(c);
}

static void similarity(const char *rel, double s, double theta, double tx, double ty)
{
    skf_svg_character *c = svgt_load(rel);
    skf_error err = {0};
    skf_svg_animator *a = NULL;
    CHECK(skf_svg_animator_new(c, NULL, &a, &err) == SKF_OK);
    skf_svg_pose_frame f;
    svgt_rest_frame(c, &f);
    svgt_similarity(&f, s, theta, tx, ty);
    CHECK(skf_svg_animator_update(a, &f) == SKF_SVG_FRAME_DRAWN);
    double body, face;
    skf_svg_animator_scales(a, &body, &face);
    CHECK_NEAR(body, s, 1e-12);
    CHECK_NEAR(face, s, 1e-12);
    double co = cos(theta), si = sin(theta), maxerr = 0;
    size_t npts = 0;
    for (size_t i = 0; i < skf_svg_path_count(c); ++i) {
        size_t n = skf_svg_path_node_count(c, i);
        double *rest = malloc(6 * n * sizeof(double));
        skf_svg_path_rest(c, i, rest);
        bool vis;
        const double *xy = skf_svg_animator_path(a, i, NULL, &vis);
        CHECK(vis);
        for (size_t k = 0; k < 6 * n; k += 2) {
            double ex = s * (co * rest[k] - si * rest[k + 1]) + tx;
            double ey = s * (si * rest[k] + co * rest[k + 1]) + ty;
            maxerr = fmax(maxerr, hypot(xy[k] - ex, xy[k + 1] - ey));
            npts++;
        }
        free(rest);
    }
    printf("%s: similarity s=%g theta=%g t=(%g, %g): max error %.3g px over %zu points\n", rel, s,
           theta, tx, ty, maxerr, npts);
    CHECK(maxerr <= 1e-6);
    skf_svg_animator_free(a);
    skf_svg_free(c);
}

int main(void)
{
    const char *files[3] = {"poseanimator/boy.svg", "poseanimator/girl.svg",
                            "poseanimator/abstract.svg"};
    for (int i = 0; i < 3; ++i) {
        raise_arm(files[i], i < 2);
        similarity(files[i], 1.7, 0, -120, 45);     /* translate + uniform scale */
        similarity(files[i], 0.45, 0.3, 310, -80);  /* with a rotation too */
    }
    return skf_test_done();
}
