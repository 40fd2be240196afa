/* Acceptance 3 (issue 5): smoothing, frame skipping, path hiding and the face
 * fallback, each on a crafted sequence with expected numbers worked out by
 * hand below. Synthetic character: svg_test_util.h. */
#include "svg_test_util.h"

#define LW 3 /* leftWrist */
#define LE 4 /* leftElbow */
#define LS 5 /* leftShoulder */

/* forearm: two points 10 px off the leftElbow-leftWrist bone (x 400..500,
 * y 100), at its middle. Nearest bone group: leftArm (distance 10; torso is
 * sqrt(150^2+10^2) away). Weights: d(LE-LW) = 10, d(LS-LE) = |(450,110) -
 * (400,100)| = sqrt(2600): w = (1/100, 1/2600) / (27/2600) = (26/27, 1/27).
 * onbone: a segment lying on the LE-LW bone (d = 0): weight 1 on LE-LW. */
static const char *ILLUSTRATION =
    "<path id=\"forearm\" d=\"M450,110 L450,90\"/>"
    "<path id=\"onbone\" d=\"M430,100 L470,100\"/>";

static void test_weights_and_hiding(void)
{
    skf_svg_character *c = svgt_synthetic(ILLUSTRATION);
    CHECK(skf_svg_path_count(c) == 2);
    int bones[8];
    double w[8];
    size_t m = skf_svg_path_point_weights(c, 0, 0, bones, w, 8);
    CHECK(m == 2);
    for (size_t q = 0; q < m && q < 8; ++q) {
        if (bones[q] == 73)
            CHECK_NEAR(w[q], 26.0 / 27.0, 1e-15);
        else
            CHECK(bones[q] == 72 && fabs(w[q] - 1.0 / 27.0) < 1e-15);
    }
    m = skf_svg_path_point_weights(c, 1, 0, bones, w, 8);
    CHECK(m == 1 && bones[0] == 73 && w[0] == 1);

    /* scores: shoulder 1, elbow 0.5, wrist 0.1 -> bone scores LS-LE 0.75,
     * LE-LW 0.3: confidence = 26/27 * 0.3 + 1/27 * 0.75 = 8.55/27 = 0.31667 */
    skf_svg_animate_options o = {true, -1};
    skf_svg_animator *a = NULL;
    skf_error err = {0};
    CHECK(skf_svg_animator_new(c, &o, &a, &err) == SKF_OK);
    skf_svg_pose_frame f;
    svgt_synthetic_frame(&f, 0.9);
    f.score[LE] = 0.5;
    f.score[LW] = 0.1;
    CHECK(skf_svg_animator_update(a, &f) == SKF_SVG_FRAME_DRAWN);
    double conf;
    bool vis;
    skf_svg_animator_path(a, 0, &conf, &vis);
    printf("forearm confidence %.6f (expected %.6f) visible %d\n", conf, 8.55 / 27, vis);
    CHECK_NEAR(conf, 8.55 / 27, 1e-14);
    CHECK(vis);
    /* wrist 0 -> LE-LW 0.25: 26/27 * 0.25 + 1/27 * 0.75 = 7.25/27 = 0.26852 < 0.3: hidden */
    f.score[LW] = 0;
    CHECK(skf_svg_animator_update(a, &f) == SKF_SVG_FRAME_DRAWN);
    skf_svg_animator_path(a, 0, &conf, &vis);
    printf("forearm confidence %.6f (expected %.6f) visible %d\n", conf, 7.25 / 27, vis);
    CHECK_NEAR(conf, 7.25 / 27, 1e-14);
    CHECK(!vis);
    /* hidden in the written frame; and animated as display in the SMIL output */
    {
        char *svg;
        size_t size;
        CHECK(skf_svg_write_frame(a, &svg, &size, &err) == SKF_OK);
        CHECK(strstr(svg, "id=\"forearm\" display=\"none\" d=\"M") != NULL);
        skf_free(svg);
        skf_svg_track t;
        CHECK(skf_svg_track_init(&t, c, 2, 5, &err) == SKF_OK);
        skf_svg_track_store(&t, 1, a); /* frame 1 hidden */
        skf_svg_pose_frame v = f;
        v.score[LW] = 1;
        skf_svg_animator_update(a, &v);
        skf_svg_animator_path(a, 0, &conf, &vis);
        CHECK(vis);
        skf_svg_track_store(&t, 0, a); /* frame 0 visible */
        CHECK(skf_svg_write_animated(c, &t, &svg, &size, &err) == SKF_OK);
        CHECK(strstr(svg, "attributeName=\"display\" calcMode=\"discrete\" dur=\"0.4s\" "
                          "repeatCount=\"indefinite\" keyTimes=\"0;0.5\" values=\"inline;none\"") != NULL);
        skf_free(svg);
        skf_svg_track_release(&t);
        skf_svg_animator_update(a, &f);
    }
    /* the on-bone path: confidence = LE-LW score 0.25 -> hidden; finite coordinates */
    const double *xy = skf_svg_animator_path(a, 1, &conf, &vis);
    CHECK_NEAR(conf, 0.25, 1e-15);
    CHECK(!vis);
    for (int k = 0; k < 12; ++k)
        CHECK(isfinite(xy[k]));
    skf_svg_animator_free(a);

    /* a lower threshold shows it again */
    o.min_path_confidence = 0.2;
    CHECK(skf_svg_animator_new(c, &o, &a, &err) == SKF_OK);
    skf_svg_animator_update(a, &f);
    skf_svg_animator_path(a, 0, &conf, &vis);
    CHECK(vis);

    /* on-bone point moves with the bone: wrist to (500, 150): the bone LE-LW
     * turns; the point at t = 0.3 on it goes to (400,100) + 0.3 (100, 50) */
    svgt_synthetic_frame(&f, 0.9);
    f.xy[LW][1] = 150;
    skf_svg_animator_update(a, &f);
    xy = skf_svg_animator_path(a, 1, NULL, NULL);
    double body, face;
    skf_svg_animator_scales(a, &body, &face);
    CHECK_NEAR(xy[0], 400 + 0.3 * 100, 1e-12);
    CHECK_NEAR(xy[1], 100 + 0.3 * 50, 1e-12);
    skf_svg_animator_free(a);
    skf_svg_free(c);
}

static void test_smoothing_and_skipping(void)
{
    skf_svg_character *c = svgt_synthetic(ILLUSTRATION);
    skf_svg_animator *a = NULL;
    skf_error err = {0};
    CHECK(skf_svg_animator_new(c, NULL, &a, &err) == SKF_OK);
    skf_svg_pose_frame f0, f1, f2, fs;
    svgt_synthetic_frame(&f0, 0.9);
    f0.score[LW] = 0.9; /* wrist (500,100) */
    svgt_synthetic_frame(&f1, 0.9);
    f1.xy[LW][0] = 530;
    f1.xy[LW][1] = 70;
    f1.score[LW] = 0.3;
    svgt_synthetic_frame(&fs, 0.05); /* below 0.1: skipped */
    fs.xy[LW][0] = 900;
    fs.xy[LW][1] = -500;
    fs.score[LW] = 1;
    svgt_synthetic_frame(&f2, 0.1); /* exactly 0.1: drawn */
    f2.xy[LW][0] = 500;
    f2.xy[LW][1] = 100;
    f2.score[LW] = 0.75;

    double p[2], s;
    CHECK(skf_svg_animator_update(a, &f0) == SKF_SVG_FRAME_DRAWN);
    skf_svg_animator_joint(a, LW, p, &s);
    CHECK(p[0] == 500 && p[1] == 100 && s == 0.9); /* first frame: taken as is */
    double xy_before[12];
    memcpy(xy_before, skf_svg_animator_path(a, 0, NULL, NULL), sizeof xy_before);

    /* skipped: joints and drawing unchanged */
    CHECK(skf_svg_animator_update(a, &fs) == SKF_SVG_FRAME_SKIPPED);
    skf_svg_animator_joint(a, LW, p, &s);
    CHECK(p[0] == 500 && p[1] == 100 && s == 0.9);
    CHECK(!memcmp(xy_before, skf_svg_animator_path(a, 0, NULL, NULL), sizeof xy_before));

    /* smoothing with the state of f0 (not of the skipped frame):
     * w0 = 0.9/1.2 = 0.75, w1 = 0.25 -> (0.75*500 + 0.25*530, 0.75*100 + 0.25*70)
     * = (507.5, 92.5); s = (0.81 + 0.09)/1.2 = 0.75 */
    CHECK(skf_svg_animator_update(a, &f1) == SKF_SVG_FRAME_DRAWN);
    skf_svg_animator_joint(a, LW, p, &s);
    printf("smoothed wrist (%.12g, %.12g) score %.12g; expected (507.5, 92.5) 0.75\n", p[0], p[1], s);
    CHECK_NEAR(p[0], 507.5, 1e-12);
    CHECK_NEAR(p[1], 92.5, 1e-12);
    CHECK_NEAR(s, 0.75, 1e-15);
    /* f2 (score 0.75 at (500,100)): w0 = w1 = 0.5 -> (503.75, 96.25); s = 0.75 */
    CHECK(skf_svg_animator_update(a, &f2) == SKF_SVG_FRAME_DRAWN);
    skf_svg_animator_joint(a, LW, p, &s);
    CHECK_NEAR(p[0], 503.75, 1e-12);
    CHECK_NEAR(p[1], 96.25, 1e-12);
    CHECK_NEAR(s, 0.75, 1e-15);
    /* zero scores on both sides: equal weights (Pose Animator gives NaN) */
    f2.score[LW] = 0;
    skf_svg_animator_update(a, &f2);
    f2.xy[LW][0] = 600;
    skf_svg_animator_update(a, &f2);
    skf_svg_animator_joint(a, LW, p, &s);
    CHECK(isfinite(p[0]) && isfinite(p[1]));
    skf_svg_animator_free(a);

    /* --no-smoothing: the frame's keypoints as they are */
    skf_svg_animate_options o = {true, -1};
    CHECK(skf_svg_animator_new(c, &o, &a, &err) == SKF_OK);
    skf_svg_animator_update(a, &f0);
    skf_svg_animator_update(a, &f1);
    skf_svg_animator_joint(a, LW, p, &s);
    CHECK(p[0] == 530 && p[1] == 70 && s == 0.3);
    skf_svg_animator_free(a);

    /* skipped frames before the first drawn one keep the rest drawing */
    CHECK(skf_svg_animator_new(c, NULL, &a, &err) == SKF_OK);
    CHECK(skf_svg_animator_update(a, &fs) == SKF_SVG_FRAME_SKIPPED);
    CHECK(!skf_svg_animator_has_pose(a));
    bool vis;
    const double *xy = skf_svg_animator_path(a, 0, NULL, &vis);
    CHECK(vis && xy[0] == 450 && xy[1] == 110);
    skf_svg_animator_free(a);
    skf_svg_free(c);
}

/* expected face joint j for ears mapped to (L, R): rest similarity taking
 * leftJaw2 -> L and rightJaw2 -> R, in complex numbers z' = L + (z - lj) (R - L) / (rj - lj) */
static void face_expect(int j, const double L[2], const double R[2], double out[2])
{
    double lj[2], rj[2], z[2];
    svgt_synthetic_joint(skf_svg_joint_index("leftJaw2"), lj);
    svgt_synthetic_joint(skf_svg_joint_index("rightJaw2"), rj);
    svgt_synthetic_joint(j, z);
    double ax = R[0] - L[0], ay = R[1] - L[1], bx = rj[0] - lj[0], by = rj[1] - lj[1];
    double den = bx * bx + by * by;
    double qx = (ax * bx + ay * by) / den, qy = (ay * bx - ax * by) / den; /* (R-L)/(rj-lj) */
    double dx = z[0] - lj[0], dy = z[1] - lj[1];
    out[0] = L[0] + dx * qx - dy * qy;
    out[1] = L[1] + dx * qy + dy * qx;
}

static void test_face_fallback(void)
{
    skf_svg_character *c = svgt_synthetic(ILLUSTRATION);
    skf_svg_animate_options o = {true, -1};
    skf_svg_animator *a = NULL;
    skf_error err = {0};
    int top = skf_svg_joint_index("topMid"), lj2 = skf_svg_joint_index("leftJaw2"),
        rj2 = skf_svg_joint_index("rightJaw2");
    double p[2], s, e[2];

    /* A: no face ever: leftJaw2 and rightJaw2 land on the ears themselves */
    CHECK(skf_svg_animator_new(c, &o, &a, &err) == SKF_OK);
    skf_svg_pose_frame f;
    svgt_synthetic_frame(&f, 0.9);
    f.xy[12][0] = 260; /* leftEar */
    f.xy[12][1] = -310;
    f.xy[13][0] = 120; /* rightEar */
    f.xy[13][1] = -290;
    skf_svg_animator_update(a, &f);
    skf_svg_animator_joint(a, lj2, p, &s);
    CHECK(p[0] == 260 && p[1] == -310 && s == 1);
    skf_svg_animator_joint(a, rj2, p, &s);
    CHECK_NEAR(p[0], 120, 1e-12);
    CHECK_NEAR(p[1], -290, 1e-12);
    skf_svg_animator_joint(a, top, p, &s);
    face_expect(top, f.xy[12], f.xy[13], e);
    printf("fallback without a face: topMid (%.9g, %.9g), expected (%.9g, %.9g)\n", p[0], p[1], e[0], e[1]);
    CHECK_NEAR(p[0], e[0], 1e-9);
    CHECK_NEAR(p[1], e[1], 1e-9);
    skf_svg_animator_free(a);

    /* B: a valid face (0.9 > 0.8) at rest, then a weak one (exactly 0.8, not
     * > 0.8) with the ears moved by (15, -7): the face moves by (15, -7). */
    CHECK(skf_svg_animator_new(c, &o, &a, &err) == SKF_OK);
    svgt_synthetic_frame(&f, 0.9);
    f.has_face = true;
    f.face_score = 0.9;
    skf_svg_animator_update(a, &f);
    skf_svg_animator_joint(a, top, p, &s);
    CHECK(s == 0.9);
    skf_svg_pose_frame g = f;
    g.face_score = 0.8;
    for (int k = 0; k < 2; ++k) {
        g.xy[12 + k][0] += 15;
        g.xy[12 + k][1] -= 7;
        g.face_xy[0][0] += 1000; /* ignored: the face is not trusted */
    }
    skf_svg_animator_update(a, &g);
    double maxerr = 0;
    for (int j = SKF_SVG_POSE_JOINT_COUNT; j < SKF_SVG_JOINT_COUNT; ++j) {
        if (!skf_svg_joint_required(j))
            continue;
        double r[2];
        svgt_synthetic_joint(j, r);
        skf_svg_animator_joint(a, j, p, &s);
        maxerr = fmax(maxerr, hypot(p[0] - (r[0] + 15), p[1] - (r[1] - 7)));
        CHECK(s == 1);
    }
    printf("fallback after a face, ears translated: max error %.3g px\n", maxerr);
    CHECK(maxerr <= 1e-9);
    /* C: ears turned 90 degrees about their midpoint (200, -300): the face turns with them */
    skf_svg_pose_frame h = f;
    h.face_score = 0.5;
    h.xy[12][0] = 200;
    h.xy[12][1] = -300 + 50; /* (250,-300) -> (200,-250) */
    h.xy[13][0] = 200;
    h.xy[13][1] = -300 - 50;
    skf_svg_animator_update(a, &h);
    maxerr = 0;
    for (int j = SKF_SVG_POSE_JOINT_COUNT; j < SKF_SVG_JOINT_COUNT; ++j) {
        if (!skf_svg_joint_required(j))
            continue;
        double r[2];
        svgt_synthetic_joint(j, r);
        double ex = 200 - (r[1] + 300), ey = -300 + (r[0] - 200); /* +90 deg (y down) */
        skf_svg_animator_joint(a, j, p, &s);
        maxerr = fmax(maxerr, hypot(p[0] - ex, p[1] - ey));
    }
    double body, face;
    skf_svg_animator_scales(a, &body, &face);
    printf("fallback, ears rotated 90 degrees: max error %.3g px, face scale %.15g\n", maxerr, face);
    CHECK(maxerr <= 1e-9);
    CHECK_NEAR(face, 1, 1e-12);
    skf_svg_animator_free(a);
    skf_svg_free(c);
}

int main(void)
{
    test_weights_and_hiding();
    test_smoothing_and_skipping();
    test_face_fallback();
    return skf_test_done();
}
