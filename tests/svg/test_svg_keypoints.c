/* Keypoint JSON: PoseNet, pose-detection (MoveNet), MediaPipe Pose (33
 * normalised landmarks), FaceMesh variants; malformed input names the frame
 * and the field (acceptance 5 of issue 5, library side). */
#include "check.h"
#include "skinfit/svg.h"

#include <stdio.h>
#include <string.h>

static const char *const coco[17] = {"nose", "leftEye", "rightEye", "leftEar", "rightEar",
                                     "leftShoulder", "rightShoulder", "leftElbow", "rightElbow",
                                     "leftWrist", "rightWrist", "leftHip", "rightHip",
                                     "leftKnee", "rightKnee", "leftAnkle", "rightAnkle"};

/* PoseNet frame: part k at (10k, 20k + 1), score 0.5 + k/100 */
static size_t posenet_frame(char *s, size_t cap, double score, const char *bad_field)
{
    size_t n = (size_t)snprintf(s, cap, "{\"score\": %g, \"keypoints\": [", score);
    for (int k = 0; k < 17; ++k) {
        if (bad_field && k == 9)
            n += (size_t)snprintf(s + n, cap - n, "%s{\"part\": \"%s\", \"score\": \"high\", \"position\": {\"x\": 1, \"y\": 2}}",
                                  k ? "," : "", coco[k]);
        else
            n += (size_t)snprintf(s + n, cap - n, "%s{\"part\": \"%s\", \"score\": %g, \"position\": {\"x\": %d, \"y\": %d}}",
                                  k ? "," : "", coco[k], 0.5 + k / 100.0, 10 * k, 20 * k + 1);
    }
    n += (size_t)snprintf(s + n, cap - n, "]}");
    return n;
}

static skf_status parse(const char *json, skf_svg_poses *p, skf_error *err)
{
    return skf_svg_poses_parse(json, strlen(json), "poses.json", 640, 480, p, err);
}

int main(void)
{
    static char buf[1 << 16];
    skf_svg_poses p;
    skf_error err = {0};
    int lw = skf_svg_joint_index("leftWrist"), le = skf_svg_joint_index("leftEar");

    /* PoseNet, a list of frames */
    size_t n = (size_t)snprintf(buf, sizeof buf, "[");
    n += posenet_frame(buf + n, sizeof buf - n, 0.8, NULL);
    n += (size_t)snprintf(buf + n, sizeof buf - n, ",");
    n += posenet_frame(buf + n, sizeof buf - n, 0.05, NULL);
    snprintf(buf + n, sizeof buf - n, "]");
    CHECK(parse(buf, &p, &err) == SKF_OK);
    CHECK(p.count == 2);
    CHECK(p.frames[0].pose_score == 0.8 && p.frames[1].pose_score == 0.05);
    CHECK(p.frames[0].xy[lw][0] == 90 && p.frames[0].xy[lw][1] == 181);
    CHECK_NEAR(p.frames[0].score[lw], 0.59, 1e-15);
    CHECK(p.frames[0].xy[le][0] == 30 && !p.frames[0].has_face);
    skf_svg_poses_release(&p);

    /* pose-detection / MoveNet: snake_case names, x/y at top level, no pose
     * score -> mean keypoint score; {"frames", "fps"} wrapper */
    n = (size_t)snprintf(buf, sizeof buf, "{\"fps\": 24, \"frames\": [{\"keypoints\": [");
    for (int k = 0; k < 17; ++k) {
        char snake[32];
        size_t o = 0;
        for (const char *c = coco[k]; *c; ++c) {
            if (*c >= 'A' && *c <= 'Z') {
                snake[o++] = '_';
                snake[o++] = (char)(*c + 32);
            } else {
                snake[o++] = *c;
            }
        }
        snake[o] = 0;
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s{\"name\": \"%s\", \"x\": %d, \"y\": 5, \"score\": 0.5}",
                              k ? "," : "", snake, k);
    }
    snprintf(buf + n, sizeof buf - n, "]}]}");
    CHECK(parse(buf, &p, &err) == SKF_OK);
    CHECK(p.count == 1 && p.fps == 24);
    CHECK(p.frames[0].xy[lw][0] == 9 && p.frames[0].score[lw] == 0.5);
    CHECK_NEAR(p.frames[0].pose_score, 0.5, 1e-15);
    skf_svg_poses_release(&p);

    /* MediaPipe: 33 normalised landmarks, scaled by the file's width/height;
     * landmark 15 = left wrist, 7 = left ear */
    n = (size_t)snprintf(buf, sizeof buf, "{\"width\": 1000, \"height\": 500, \"frames\": [{\"landmarks\": [");
    for (int k = 0; k < 33; ++k)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s{\"x\": %g, \"y\": %g, \"z\": 0, \"visibility\": %g}",
                              k ? "," : "", k / 100.0, 0.5, k == 15 ? 0.25 : 1.0);
    snprintf(buf + n, sizeof buf - n, "]}]}");
    CHECK(parse(buf, &p, &err) == SKF_OK);
    CHECK_NEAR(p.frames[0].xy[lw][0], 150, 1e-12);
    CHECK_NEAR(p.frames[0].xy[lw][1], 250, 1e-12);
    CHECK(p.frames[0].score[lw] == 0.25);
    CHECK_NEAR(p.frames[0].xy[le][0], 70, 1e-12);
    skf_svg_poses_release(&p);

    /* FaceMesh scaledMesh (468 points) in Pose Animator's {pose, face} frame */
    n = (size_t)snprintf(buf, sizeof buf, "[{\"pose\": ");
    n += posenet_frame(buf + n, sizeof buf - n, 0.9, NULL);
    n += (size_t)snprintf(buf + n, sizeof buf - n, ", \"face\": {\"faceInViewConfidence\": 0.95, \"scaledMesh\": [");
    for (int k = 0; k < 468; ++k)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s[%d, %d, 0]", k ? "," : "", k, 1000 + k);
    snprintf(buf + n, sizeof buf - n, "]}}]");
    CHECK(parse(buf, &p, &err) == SKF_OK);
    CHECK(p.frames[0].has_face && p.frames[0].face_score == 0.95);
    int nose4 = skf_svg_joint_index("nose4") - SKF_SVG_POSE_JOINT_COUNT; /* FaceMesh vertex 4 */
    CHECK(p.frames[0].face_xy[nose4][0] == 4 && p.frames[0].face_xy[nose4][1] == 1004);
    skf_svg_poses_release(&p);

    /* errors: frame index and field */
    n = (size_t)snprintf(buf, sizeof buf, "[");
    for (int f = 0; f < 3; ++f) {
        n += posenet_frame(buf + n, sizeof buf - n, 0.9, f == 2 ? "score" : NULL);
        n += (size_t)snprintf(buf + n, sizeof buf - n, f < 2 ? "," : "]");
    }
    CHECK(parse(buf, &p, &err) == SKF_ERR_FORMAT);
    printf("error: %s\n", err.message);
    CHECK(strstr(err.message, "poses.json: frames[2].keypoints[9].score: expected a number") != NULL);

    CHECK(parse("[{\"score\": 1, \"keypoints\": [{\"part\": \"leftWrist\", \"score\": 1, \"position\": {\"x\": 1}}]}]",
                &p, &err) == SKF_ERR_FORMAT);
    printf("error: %s\n", err.message);
    CHECK(strstr(err.message, "frames[0].keypoints[0].position.y: missing") != NULL);

    CHECK(parse("[{\"score\": 1, \"keypoints\": [{\"part\": \"leftWrist\", \"score\": 1, \"position\": {\"x\": 1, \"y\": 2}}]}]",
                &p, &err) == SKF_ERR_FORMAT);
    printf("error: %s\n", err.message);
    CHECK(strstr(err.message, "frames[0].keypoints: missing keypoints leftAnkle") != NULL);
    CHECK(strstr(err.message, "rightEar") != NULL);

    CHECK(parse("[{\"score\": 1, \"keypoints\": [], ", &p, &err) == SKF_ERR_FORMAT);
    printf("error: %s\n", err.message);
    CHECK(strstr(err.message, "poses.json: line 1") != NULL);

    n = (size_t)snprintf(buf, sizeof buf, "[{\"pose\": ");
    n += posenet_frame(buf + n, sizeof buf - n, 0.9, NULL);
    snprintf(buf + n, sizeof buf - n, ", \"face\": {\"scaledMesh\": [[1, 2]]}}]");
    CHECK(parse(buf, &p, &err) == SKF_ERR_FORMAT);
    printf("error: %s\n", err.message);
    CHECK(strstr(err.message, "frames[0].face.scaledMesh: expected 468 FaceMesh points, found 1") != NULL);
    CHECK(p.frames == NULL && p.count == 0);
    return skf_test_done();
}
