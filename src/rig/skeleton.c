/* Skeleton queries used by the other-shape transfer: the pivots of a rig
 * (each weighted joint with its nearest weighted ancestor, at its bind
 * position) and each vertex's weight on the root joints. Plain bookkeeping
 * over skf_rig (no paper). */
#include "skinfit/rig.h"
#include "skinfit/math.h"

static int weighted_ancestor(const skf_rig *rig, size_t j)
{
    int p = rig->joints[j].parent;
    while (p >= 0 && !rig->joints[p].has_weight)
        p = rig->joints[p].parent;
    return p;
}

size_t skf_rig_joint_pivots(const skf_rig *rig, const double mesh_to_world[16], double *points, uint32_t *bones)
{
    size_t n = 0;
    for (size_t j = 0; j < rig->joint_count; ++j) {
        int p = weighted_ancestor(rig, j);
        if (!rig->joints[j].has_weight || p < 0)
            continue;
        double joint_to_mesh[16], origin[3] = {0, 0, 0}, m[3];
        skf_mat4_invert(joint_to_mesh, rig->joints[j].mesh_to_joint);
        skf_mat4_transform_point(m, joint_to_mesh, origin);
        if (mesh_to_world)
            skf_mat4_transform_point(points + 3 * n, mesh_to_world, m);
        else
            for (int a = 0; a < 3; ++a)
                points[3 * n + (size_t)a] = m[a];
        bones[2 * n] = (uint32_t)j;
        bones[2 * n + 1] = (uint32_t)p;
        ++n;
    }
    return n;
}

void skf_rig_root_weights(const skf_rig *rig, double *out)
{
    for (size_t v = 0; v < rig->vertex_count; ++v) {
        out[v] = 0;
        for (size_t k = rig->weight_offsets[v]; k < rig->weight_offsets[v + 1]; ++k)
            if (weighted_ancestor(rig, rig->weight_joints[k]) < 0)
                out[v] += rig->weights[k];
    }
}
