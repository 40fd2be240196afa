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
        printf("warning: %s\n", w.items[i]);
    skf_warnings_release(&w);
    return c;
}

#endif
