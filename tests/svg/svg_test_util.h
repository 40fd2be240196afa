/* Helpers for tests/svg: pose frames built from a character's rest joints. */
#ifndef SKF_TEST_SVG_UTIL_H
#define SKF_TEST_SVG_UTIL_H

#include "check.h"
#include "skinfit/svg.h"

#include <math.h>
#include <string.h>

/* Rest frame: every pose joint at its marker (ears at the jaw2 markers, which
 * Pose Animator's skeleton has no markers for), scores 1, the face valid with
 * every face joint at its marker. */
static inline void svgt_rest_frame(const skf_svg_character *c, skf_svg_pose_frame *f)
{
    memset(f, 0, sizeof *f);
    f->pose_score = 1;
    for (int j = 0; j < SKF_SVG_POSE_JOINT_COUNT; ++j) {
        double xy[2] = {0, 0};
        if (!skf_svg_rest_joint(c, j, xy)) {
            int alt = skf_svg_joint_index(j == 12 ? "leftJaw2" : "rightJaw2");
            skf_svg_rest_joint(c, alt, xy);
        }
        f->xy[j][0] = xy[0];
        f->xy[j][1] = xy[1];
        f->score[j] = 1;
    }
    f->has_face = true;
    f->face_score = 1;
    for (int k = 0; k < SKF_SVG_FACE_JOINT_COUNT; ++k) {
        double xy[2] = {0, 0};
        if (!skf_svg_rest_joint(c, SKF_SVG_POSE_JOINT_COUNT + k, xy)) {
            /* jaw0/1 have no bone; any position works */
            skf_svg_rest_joint(c, skf_svg_joint_index("topMid"), xy);
        }
        f->face_xy[k][0] = xy[0];
        f->face_xy[k][1] = xy[1];
    }
}

/* Apply p -> s R(theta) p + t to every keypoint of f. */
static inline void svgt_similarity(skf_svg_pose_frame *f, double s, double theta, double tx,
                                   double ty)
{
    double co = cos(theta), si = sin(theta);
    for (int j = 0; j < SKF_SVG_POSE_JOINT_COUNT; ++j) {
        double x = f->xy[j][0], y = f->xy[j][1];
        f->xy[j][0] = s * (co * x - si * y) + tx;
        f->xy[j][1] = s * (si * x + co * y) + ty;
    }
    for (int k = 0; k < SKF_SVG_FACE_JOINT_COUNT; ++k) {
        double x = f->face_xy[k][0], y = f->face_xy[k][1];
        f->face_xy[k][0] = s * (co * x - si * y) + tx;
        f->face_xy[k][1] = s * (si * x + co * y) + ty;
    }
}

static inline skf_svg_character *svgt_load(const char *rel)
{
    const char *path = skf_test_data(rel);
    if (!path)
        SKF_SKIP("%s not found under %s", rel, skf_test_data_dir());
    skf_svg_character *c = NULL;
    skf_error err = {0};
    skf_warnings w = {0};
    if (skf_svg_load(path, NULL, &c, &w, &err) != SKF_OK) {
        fprintf(stderr, "load failed: %s\n", err.message);
        exit(1);
    }
    for (size_t i = 0; i < w.count; ++i)
        printf("warning: %s\n", w.items[i].text);
    skf_warnings_release(&w);
    return c;
}

#endif

/* A synthetic character: body joints at hand-picked positions, the 73 face
 * joints on a circle of radius 50 around (200, -300); illustration given by
 * the caller. Returns a malloc'd SVG string. Body layout (y down):
 *   shoulders L (300,100) R (100,100), elbows L (400,100) R (0,100),
 *   wrists L (500,100) R (-100,100), hips L (260,300) R (140,300),
 *   knees L (260,400) R (140,400), ankles L (260,500) R (140,500). */
static inline void svgt_synthetic_joint(int j, double xy[2])
{
    static const double body[12][2] = {{260, 500}, {260, 400}, {260, 300}, {500, 100},
                                       {400, 100}, {300, 100}, {140, 500}, {140, 400},
                                       {140, 300}, {-100, 100}, {0, 100},  {100, 100}};
    if (j < 12) {
        xy[0] = body[j][0];
        xy[1] = body[j][1];
    } else if (j < SKF_SVG_POSE_JOINT_COUNT) { /* ears: no marker */
        xy[0] = j == 12 ? 250 : 150;
        xy[1] = -300;
    } else {
        double t = 2 * M_PI * (j - SKF_SVG_POSE_JOINT_COUNT) / SKF_SVG_FACE_JOINT_COUNT;
        xy[0] = 200 + 50 * cos(t);
        xy[1] = -300 + 50 * sin(t);
    }
}

static inline char *svgt_synthetic_svg(const char *illustration, const char *skip_joint)
{
    size_t cap = 64 * 1024 + strlen(illustration);
    char *s = malloc(cap);
    size_t n = (size_t)snprintf(s, cap,
                                "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
                                "viewBox=\"-200 -400 800 1000\" width=\"800\" height=\"1000\">\n"
                                "<g id=\"illustration\">%s</g>\n<g id=\"skeleton\">\n",
                                illustration);
    for (int j = 0; j < SKF_SVG_JOINT_COUNT; ++j) {
        if (j == 12 || j == 13)
            continue;
        if (skip_joint && !strcmp(skip_joint, skf_svg_joint_name(j)))
            continue;
        double xy[2];
        svgt_synthetic_joint(j, xy);
        n += (size_t)snprintf(s + n, cap - n, "<circle id=\"%s_1_\" cx=\"%.17g\" cy=\"%.17g\" r=\"2\"/>\n",
                              skf_svg_joint_name(j), xy[0], xy[1]);
    }
    snprintf(s + n, cap - n, "</g>\n</svg>\n");
    return s;
}

static inline skf_svg_character *svgt_synthetic(const char *illustration)
{
    char *svg = svgt_synthetic_svg(illustration, NULL);
    skf_svg_character *c = NULL;
    skf_error err = {0};
    if (skf_svg_load_memory(svg, strlen(svg), "synthetic.svg", NULL, &c, NULL, &err) != SKF_OK) {
        fprintf(stderr, "synthetic load failed: %s\n", err.message);
        exit(1);
    }
    free(svg);
    return c;
}

/* Frame with every keypoint at the synthetic rest, given scores, no face. */
static inline void svgt_synthetic_frame(skf_svg_pose_frame *f, double pose_score)
{
    memset(f, 0, sizeof *f);
    f->pose_score = pose_score;
    for (int j = 0; j < SKF_SVG_POSE_JOINT_COUNT; ++j) {
        svgt_synthetic_joint(j, f->xy[j]);
        f->score[j] = 1;
    }
    for (int k = 0; k < SKF_SVG_FACE_JOINT_COUNT; ++k)
        svgt_synthetic_joint(SKF_SVG_POSE_JOINT_COUNT + k, f->face_xy[k]);
}
