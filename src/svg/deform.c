/* Deformation: linear blend skinning of curve points and handles in bone
 * frames, and path confidence.
 *
 * Reference: Pose Animator (Google 2020), skeleton.js Bone.transform and
 * Skeleton.getCurrentPosition; illustration.js updateSkeleton. For bone b
 * with current ends kp0, kp1 (D = kp1 - kp0) and a point bound with weight
 * w at fraction t along it and offset (x, y) along (dir, normal) at rest:
 *     p' = sum_b w (kp0 + t D + scale (x D + y perp(D)) / |D|)
 * scale = body scale or face scale by the bone's type. Written as
 *     sum_b w kp0 + (w t + w x k) D + w y k perp(D),   k = scale / |D|
 * with k = 0 when |D| = 0 (paper.js normalises a zero vector to zero; no
 * NaN). A path's confidence is the mean over its curve points of
 * sum_b w * score_b, score_b the mean score of the bone's two keypoints.
 */
#include "svg_internal.h"

void skfi_svg_deform(const skf_svg_character *c, const skfi_svg_bone_state *bs, double *xy_out,
                 double *confidence)
{
    const skfi_svg_infl *infl = c->infl;
    const size_t *start = c->infl_start;
    for (size_t i = 0; i < c->path_count; ++i) {
        const skfi_svg_path *p = &c->paths[i];
        size_t g0 = p->point_base, npts = 3 * p->geom.node_count;
        double *out = xy_out + 2 * g0;
        double conf = 0;
        for (size_t q = 0; q < npts; ++q) {
            size_t a = start[g0 + q], e = start[g0 + q + 1];
            double x = 0, y = 0, s = 0;
            for (size_t m = a; m < e; ++m) {
                const skfi_svg_infl *f = &infl[m];
                const skfi_svg_bone_state *B = &bs[f->bone];
                double u = f->wt + f->wx * B->k, v = f->wy * B->k;
                x += f->w * B->kp0[0] + u * B->d[0] - v * B->d[1];
                y += f->w * B->kp0[1] + u * B->d[1] + v * B->d[0];
                s += f->w * B->score;
            }
            out[2 * q] = x;
            out[2 * q + 1] = y;
            if (q % 3 == 0)
                conf += s;
        }
        confidence[i] = p->geom.node_count ? conf / (double)p->geom.node_count : 0;
    }
}
