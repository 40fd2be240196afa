/* Fuzz harness: an SVG character document (libxml2 parse, skeleton and
 * illustration discovery, shapes, transforms, binding), then one animated
 * frame at the rest pose serialised back to SVG. */
#include "skinfit/svg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    skf_svg_character *c = NULL;
    skf_error err;
    skf_warnings w = {0};
    skf_svg_load_options opt = {.max_file_bytes = 1 << 20, .max_depth = 64};
    if (skf_svg_load_memory((const char *)data, size, "fuzz.svg", &opt, &c, &w, &err) == SKF_OK) {
        skf_svg_animator *a = NULL;
        if (skf_svg_animator_new(c, NULL, &a, &err) == SKF_OK) {
            skf_svg_pose_frame f = {.pose_score = 1.0};
            for (int j = 0; j < SKF_SVG_POSE_JOINT_COUNT; ++j) {
                skf_svg_rest_joint(c, j, f.xy[j]);
                f.score[j] = 1.0;
            }
            skf_svg_animator_update(a, &f);
            char *svg = NULL;
            size_t n = 0;
            if (skf_svg_write_frame(a, &svg, &n, &err) == SKF_OK)
                skf_free(svg);
            skf_svg_animator_free(a);
        }
        skf_svg_free(c);
    }
    skf_warnings_release(&w);
    return 0;
}
