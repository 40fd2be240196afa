/* Fuzz harness: keypoint JSON (PoseNet, MoveNet, MediaPipe, FaceMesh). */
#include "skinfit/svg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    skf_svg_poses poses;
    skf_error err;
    if (skf_svg_poses_parse((const char *)data, size, "fuzz.json", 640, 480, &poses, &err) == SKF_OK)
        skf_svg_poses_release(&poses);
    return 0;
}
