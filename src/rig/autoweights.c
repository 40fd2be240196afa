/* Automatic skin weights from bone-segment distances.
 *
 * Reference: Pose Animator (Shan Huang, TensorFlow.js, 2020) binds an
 * illustration to a 2D skeleton with weights proportional to 1 / d^P where d
 * is the distance of a path point to each bone segment, keeping the nearest
 * bones and normalising; we apply the same rule in 3D.
 *
 * Decisions (docs/transfer.md):
 *  - a bone is the segment from a joint to each of its child joints (in the
 *    joint forest of the skin); a joint with several children takes the
 *    smallest distance over its segments; a leaf joint is a point;
 *  - only deforming joints receive weight (the caller passes which: the CLI
 *    keeps the joints that carried weight in the input rig, so IK pole
 *    targets floating beside the knees do not grab the legs);
 *  - d is clamped below at 1e-6 × the skeleton extent so a vertex lying on a
 *    bone gets a finite, dominant weight;
 *  - the K largest weights are kept (ties to the lower joint index), then
 *    normalised to sum 1.
 */
#include "skinfit/rig.h"
#include "skinfit/math.h"

#include <float.h>
#include <math.h>
#include <string.h>

static double point_segment_dist2(const double p[3], const double a[3], const double b[3])
{
    double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double ap[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
    double len2 = skf_dot3(ab, ab);
    double t = len2 > 0 ? skf_dot3(ap, ab) / len2 : 0;
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    double d[3] = {ap[0] - t * ab[0], ap[1] - t * ab[1], ap[2] - t * ab[2]};
    return skf_dot3(d, d);
}

skf_status skf_autoweights(const double *positions, size_t vertex_count,
                           const double *joint_positions, const int *joint_parent,
                           const bool *deforming, size_t joint_count,
                           const skf_autoweights_options *options, uint32_t *joints,
                           double *weights, skf_error *err)
{
    int K = options && options->max_influences > 0 ? options->max_influences : 4;
    double P = options && options->falloff > 0 ? options->falloff : 2.0;
    if (K > 8)
        return skf_fail(err, SKF_ERR_ARGUMENT, "autoweights: max influences %d: at most 8", K);
    if (!(P > 0) || !isfinite(P))
        return skf_fail(err, SKF_ERR_ARGUMENT, "autoweights: falloff %g: must be positive", P);
    if (joint_count == 0)
        return skf_fail(err, SKF_ERR_ARGUMENT, "autoweights: skeleton: no joints");
    size_t ndef = 0;
    for (size_t j = 0; j < joint_count; ++j) {
        if (joint_parent[j] >= (int)joint_count || joint_parent[j] == (int)j)
            return skf_fail(err, SKF_ERR_ARGUMENT, "autoweights: joints[%zu]: parent %d out of range", j,
                            joint_parent[j]);
        if (!deforming || deforming[j])
            ++ndef;
    }
    if (ndef == 0)
        return skf_fail(err, SKF_ERR_ARGUMENT, "autoweights: skeleton: no deforming joint");
    double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
    for (size_t j = 0; j < joint_count; ++j)
        for (int a = 0; a < 3; ++a) {
            lo[a] = fmin(lo[a], joint_positions[3 * j + a]);
            hi[a] = fmax(hi[a], joint_positions[3 * j + a]);
        }
    for (size_t v = 0; v < vertex_count; ++v)
        for (int a = 0; a < 3; ++a) {
            lo[a] = fmin(lo[a], positions[3 * v + a]);
            hi[a] = fmax(hi[a], positions[3 * v + a]);
        }
    double ext[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
    double eps = 1e-6 * skf_norm3(ext);
    if (!(eps > 0))
        eps = 1e-12;
    /* children lists as (joint, child) pairs */
    size_t *child_start = skf_calloc(joint_count + 1, sizeof(size_t));
    uint32_t *child = skf_malloc_array(joint_count, sizeof(uint32_t));
    if (!child_start || !child) {
        skf_free(child_start);
        skf_free(child);
        return skf_fail(err, SKF_ERR_NOMEM, "autoweights: skeleton: out of memory");
    }
    for (size_t j = 0; j < joint_count; ++j)
        if (joint_parent[j] >= 0)
            ++child_start[joint_parent[j] + 1];
    for (size_t j = 0; j < joint_count; ++j)
        child_start[j + 1] += child_start[j];
    {
        size_t *fill = skf_calloc(joint_count, sizeof(size_t));
        if (!fill) {
            skf_free(child_start);
            skf_free(child);
            return skf_fail(err, SKF_ERR_NOMEM, "autoweights: skeleton: out of memory");
        }
        for (size_t j = 0; j < joint_count; ++j)
            if (joint_parent[j] >= 0) {
                size_t p = (size_t)joint_parent[j];
                child[child_start[p] + fill[p]++] = (uint32_t)j;
            }
        skf_free(fill);
    }

#pragma omp parallel for schedule(static)
    for (size_t v = 0; v < vertex_count; ++v) {
        const double *p = positions + 3 * v;
        double topw[8];
        uint32_t topj[8];
        int n = 0;
        for (size_t j = 0; j < joint_count; ++j) {
            if (deforming && !deforming[j])
                continue;
            const double *a = joint_positions + 3 * j;
            double d2;
            if (child_start[j + 1] == child_start[j]) {
                double d[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
                d2 = skf_dot3(d, d);
            } else {
                d2 = DBL_MAX;
                for (size_t c = child_start[j]; c < child_start[j + 1]; ++c)
                    d2 = fmin(d2, point_segment_dist2(p, a, joint_positions + 3 * (size_t)child[c]));
            }
            double d = fmax(sqrt(d2), eps);
            double w = pow(d, -P);
            /* insert into the descending top-K list (strictly greater wins:
             * ties keep the lower joint index) */
            int pos = n < K ? n : K;
            while (pos > 0 && w > topw[pos - 1])
                --pos;
            if (pos >= K)
                continue;
            int last = n < K ? n : K - 1;
            for (int q = last; q > pos; --q) {
                topw[q] = topw[q - 1];
                topj[q] = topj[q - 1];
            }
            topw[pos] = w;
            topj[pos] = (uint32_t)j;
            if (n < K)
                ++n;
        }
        double sum = 0;
        for (int k = 0; k < n; ++k)
            sum += topw[k];
        for (int k = 0; k < K; ++k) {
            joints[v * (size_t)K + (size_t)k] = k < n ? topj[k] : 0;
            weights[v * (size_t)K + (size_t)k] = k < n ? topw[k] / sum : 0;
        }
    }
    skf_free(child_start);
    skf_free(child);
    return SKF_OK;
}
