/* Issue 7, fault injection: every allocation of a whole `skinfit svg` run
 * fails in turn (tests/faults/sweep.h): parse an SVG character, load a
 * keypoint JSON sequence, bind, deform each frame, serialise it as SVG and
 * rasterise it to a PNG (--format png); with the argument "animated", the
 * animated SVG output instead (test_faults_svg_animated). The character is the synthetic one of
 * tests/svg (svg_test_util.h: Pose Animator's skeleton markers) with a small
 * illustration of four paths; the poses are 2 PoseNet frames raising the
 * left arm. No shared data needed. */
#include "sweep.h"
#include "cli.h"
#include "skinfit/svg.h"
#include "svg/svg_test_util.h"

static const char *const coco[17] = {"nose", "leftEye", "rightEye", "leftEar", "rightEar",
                                     "leftShoulder", "rightShoulder", "leftElbow", "rightElbow",
                                     "leftWrist", "rightWrist", "leftHip", "rightHip", "leftKnee",
                                     "rightKnee", "leftAnkle", "rightAnkle"};

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    /* no argument: the PNG run; "animated": the animated-SVG run (two ctest
     * tests, each under a minute under ASan) */
    bool animated = argc > 1 && !strcmp(argv[1], "animated");
    const char *build = getenv("SKF_BUILD_DIR");
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/faults_svg%s", build && *build ? build : "/tmp", animated ? "_animated" : "");
    sweep_rm_rf(dir);
    if (mkdir(dir, 0777) != 0) {
        perror(dir);
        return 1;
    }
    char *svg = svgt_synthetic_svg(
        "<path id=\"torso\" d=\"M 140 100 L 260 100 L 260 300 L 140 300 Z\" fill=\"#c84\"/>"
        "<path id=\"arm\" d=\"M 300 90 C 350 90 450 90 500 95 L 500 105 L 300 110 Z\" fill=\"#48c\"/>"
        "<path id=\"leg\" d=\"M 250 300 L 270 300 L 270 500 L 250 500 Z\" stroke=\"#000\" fill=\"none\"/>"
        "<g transform=\"translate(0 0)\"><circle id=\"head\" cx=\"200\" cy=\"-300\" r=\"60\" fill=\"#fc9\"/></g>",
        NULL);
    snprintf(path, sizeof path, "%s/character.svg", dir);
    spit(path, svg);
    free(svg);

    size_t cap = 1 << 16, n = 0;
    char *js = malloc(cap);
    n += (size_t)snprintf(js + n, cap - n, "{\"fps\": 10, \"frames\": [");
    for (int i = 0; i < 2; ++i) {
        double th = -30.0 * i * M_PI / 180, co = cos(th), si = sin(th);
        n += (size_t)snprintf(js + n, cap - n, "%s{\"pose\": {\"score\": 0.9, \"keypoints\": [", i ? "," : "");
        for (int k = 0; k < 17; ++k) {
            int j = skf_svg_joint_index(coco[k]);
            double xy[2] = {200, -300};
            if (j >= 0 && j < SKF_SVG_POSE_JOINT_COUNT)
                svgt_synthetic_joint(j, xy);
            if (!strcmp(coco[k], "leftElbow") || !strcmp(coco[k], "leftWrist")) {
                double x = xy[0] - 300, y = xy[1] - 100; /* about the left shoulder */
                xy[0] = 300 + co * x - si * y;
                xy[1] = 100 + si * x + co * y;
            }
            n += (size_t)snprintf(js + n, cap - n,
                                  "%s{\"part\": \"%s\", \"score\": 0.9, \"position\": {\"x\": %.17g, \"y\": %.17g}}",
                                  k ? "," : "", coco[k], xy[0], xy[1]);
        }
        n += (size_t)snprintf(js + n, cap - n, "]}}");
    }
    snprintf(js + n, cap - n, "]}");
    snprintf(path, sizeof path, "%s/poses.json", dir);
    spit(path, js);
    free(js);

    const char *inputs[] = {"character.svg", "poses.json", NULL};
    const char *png_args[] = {"svg", "character.svg", "--pose", "poses.json", "--format", "png",
                              "--size", "48x60", "-o", "png", NULL};
    const char *png_out[] = {"png", NULL};
    const char *anim_args[] = {"svg", "character.svg", "--pose", "poses.json", "-o", "anim.svg", NULL};
    const char *anim_out[] = {"anim.svg", NULL};
    sweep_case c = {"svg png", cmd_svg, png_args, dir, inputs, png_out, 0, 0};
    if (animated)
        c = (sweep_case){"svg animated", cmd_svg, anim_args, dir, inputs, anim_out, 0, 0};
    sweep_result r = sweep_cli(&c);
    CHECK(r.allocations > 0);
    CHECK(r.points >= r.allocations);
    CHECK(r.leaks == 0);
    return skf_test_done();
}
