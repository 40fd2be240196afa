/* Per-call limits of the SVG reader and the keypoint reader
 * (skf_svg_load_options.limits, skf_svg_poses_options.limits; skf_limits in
 * base.h): svg-bytes (memory and file), svg-depth and path-nodes stop a load,
 * keypoint-bytes a keypoint read, each below the process-wide value with a
 * message naming the caller's field; the process-wide table is not touched;
 * two threads loading at once with different limits each get their own
 * answer. */
#include "limits_check.h"
#include "svg_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A synthetic character whose path (3 nodes) sits 3 groups below the illustration. */
static char *svg;
static size_t svg_size;

static skf_status load_call(const skf_limits *lim, void *arg, skf_error *e)
{
    const char *path = arg;
    skf_svg_load_options o = {.limits = lim};
    skf_svg_character *c = NULL;
    skf_status st = path ? skf_svg_load(path, &o, &c, NULL, e)
                         : skf_svg_load_memory(svg, svg_size, "lim.svg", &o, &c, NULL, e);
    if (st)
        CHECK(!c);
    skf_svg_free(c);
    return st;
}

static skf_status poses_call(const skf_limits *lim, void *arg, skf_error *e)
{
    skf_svg_poses_options o = {.limits = lim};
    skf_svg_poses p;
    skf_status st = skf_svg_poses_load(arg, 640, 480, &o, &p, e);
    if (!st)
        skf_svg_poses_release(&p);
    return st;
}

static void out_path(char *buf, size_t cap, const char *name)
{
    const char *bd = getenv("SKF_BUILD_DIR");
    snprintf(buf, cap, "%s/%s", bd && *bd ? bd : ".", name);
}

int main(void)
{
    svg = svgt_synthetic_svg("<g id=\"a\"><g id=\"b\"><g id=\"c\"><path id=\"p\" d=\"M 0 0 L 10 0 L 10 10\"/>"
                             "</g></g></g>",
                             NULL);
    svg_size = strlen(svg);
    skf_error e = {0};
    CHECK_MSG(load_call(NULL, NULL, &e) == SKF_OK, "%s", e.message);

    char want[4600];
    snprintf(want, sizeof want,
             "lim.svg: %zu bytes exceed the limit svg-bytes=%zu (set by the caller: "
             "skf_limits.value[SKF_LIMIT_SVG_BYTES])",
             svg_size, svg_size - 1);
    limits_check_call(load_call, NULL, SKF_LIMIT_SVG_BYTES, svg_size - 1, 0, want);
    limits_check_call(load_call, NULL, SKF_LIMIT_SVG_DEPTH, 4, 0,
                      "lim.svg: path#p: element nesting exceeds the limit svg-depth=4"
                      LIMITS_BY_CALLER(SKF_LIMIT_SVG_DEPTH));
    /* the parser reserves 8 nodes ahead of each command: the third (character 13) needs 10 */
    limits_check_call(load_call, NULL, SKF_LIMIT_PATH_NODES, 9, 0,
                      "lim.svg: path#p: d: character 13: path nodes exceed the limit path-nodes=9"
                      LIMITS_BY_CALLER(SKF_LIMIT_PATH_NODES));

    /* the file: read under the same svg-bytes */
    char file[4096];
    out_path(file, sizeof file, "svg_limits.svg");
    CHECK(skf_write_file_atomic(file, svg, svg_size, &e) == SKF_OK);
    limits_check_call(load_call, file, SKF_LIMIT_SVG_BYTES, 100, svg_size, NULL);

    /* keypoints */
    char poses[4096];
    out_path(poses, sizeof poses, "svg_limits_poses.json");
    static const char *const parts[17] = {"nose", "leftEye", "rightEye", "leftEar", "rightEar",
                                          "leftShoulder", "rightShoulder", "leftElbow", "rightElbow",
                                          "leftWrist", "rightWrist", "leftHip", "rightHip",
                                          "leftKnee", "rightKnee", "leftAnkle", "rightAnkle"};
    char json[4096];
    size_t jn = (size_t)snprintf(json, sizeof json, "[{\"score\": 0.9, \"keypoints\": [");
    for (int k = 0; k < 17; ++k)
        jn += (size_t)snprintf(json + jn, sizeof json - jn,
                               "%s{\"part\": \"%s\", \"score\": 0.9, \"position\": {\"x\": %d, \"y\": 2}}",
                               k ? ", " : "", parts[k], k);
    jn += (size_t)snprintf(json + jn, sizeof json - jn, "]}]");
    CHECK(skf_write_file_atomic(poses, json, jn, &e) == SKF_OK);
    CHECK_MSG(poses_call(NULL, poses, &e) == SKF_OK, "%s", e.message);
    snprintf(want, sizeof want,
             "%s: file is %zu bytes, above the limit keypoint-bytes=%zu (set by the caller: "
             "skf_limits.value[SKF_LIMIT_KEYPOINT_BYTES])",
             poses, jn, jn - 1);
    limits_check_call(poses_call, poses, SKF_LIMIT_KEYPOINT_BYTES, jn - 1, 0, want);

    limits_check_threads("SVG", load_call, NULL, SKF_LIMIT_SVG_DEPTH, 4, 100);
    limits_check_threads("SVG", load_call, NULL, SKF_LIMIT_PATH_NODES, 9, 100);
    limits_check_threads("keypoints", poses_call, poses, SKF_LIMIT_KEYPOINT_BYTES, 10, 300);
    remove(file);
    remove(poses);
    free(svg);
    return skf_test_done();
}
