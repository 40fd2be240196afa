/* skf_rig_joint_pivots and skf_rig_root_weights (src/rig/skeleton.c) on the
 * creature: every weighted joint but Hips (whose only ancestor, Root, carries
 * no weight) is a pivot with its parent at its bind position; the root
 * weight of a vertex is its weight on Hips. */
#include "check.h"
#include "skinfit/creature.h"
#include "skinfit/math.h"
#include "skinfit/rig.h"

int main(void)
{
    skf_error e = {0};
    skf_gltf *d = NULL;
    skf_rig *r = NULL;
    CHECK(skf_creature_build(&(skf_creature_options){.vertices = 1000}, &d, &e) == SKF_OK);
    CHECK(skf_rig_from_gltf(d, 0, NULL, &r, NULL, &e) == SKF_OK);
    double pts[64 * 3];
    uint32_t bones[64 * 2];
    CHECK(r->joint_count == skf_creature_joint_count() && r->joint_count <= 64);
    size_t n = skf_rig_joint_pivots(r, NULL, pts, bones);
    CHECK_MSG(n == r->joint_count - 2, "%zu pivots of %zu joints", n, r->joint_count);
    for (size_t p = 0; p < n; ++p) {
        size_t j = bones[2 * p];
        CHECK(strcmp(skf_creature_joint_name(j), "Hips") && strcmp(skf_creature_joint_name(j), "Root"));
        CHECK((int)bones[2 * p + 1] == skf_creature_joint_parent(j));
        double b[3];
        skf_creature_joint_bind_position(j, b);
        for (int a = 0; a < 3; ++a)
            CHECK_NEAR(pts[3 * p + (size_t)a], b[a], 1e-6);
    }
    /* through a mesh_to_world: a translation moves every pivot by it */
    double m[16], moved[64 * 3];
    skf_mat4_identity(m);
    m[12] = 1, m[13] = -2, m[14] = 0.5;
    CHECK(skf_rig_joint_pivots(r, m, moved, bones) == n);
    CHECK_NEAR(moved[0] - pts[0], 1, 1e-12);
    CHECK_NEAR(moved[1] - pts[1], -2, 1e-12);
    double *w = malloc(r->vertex_count * sizeof(double));
    skf_rig_root_weights(r, w);
    size_t hips = 1, some = 0;
    CHECK(!strcmp(skf_creature_joint_name(hips), "Hips"));
    for (size_t v = 0; v < r->vertex_count; ++v) {
        double h = 0;
        for (size_t k = r->weight_offsets[v]; k < r->weight_offsets[v + 1]; ++k)
            if (r->weight_joints[k] == hips)
                h += r->weights[k];
        CHECK_NEAR(w[v], h, 1e-12);
        some += h > 0.5;
    }
    CHECK(some > 0);
    free(w);
    skf_rig_free(r);
    skf_gltf_free(d);
    return skf_test_done();
}
