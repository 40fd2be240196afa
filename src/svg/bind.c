/* Binding: candidate bones and weights for every curve point and handle.
 *
 * Reference: Pose Animator (Google 2020), illustrationGen/illustration.js
 * (bindPathToBones, getWeights, getSkinning) and skeleton.js
 * (findBoneGroup, Bone.getPointTransform):
 *  - candidates: the bone groups (torso, legs, arms, face) whose nearest
 *    bone is nearest to the curve point (ties keep every tied group); the
 *    point's handles use the same candidates. Paths of a sub-group with its
 *    own markers use that group's secondary bones.
 *  - weight of bone b: 1 / d_b^2, d_b the distance to the closest point on
 *    the bone segment, normalised to sum 1.
 *  - a handle pair collinear with its point (|cos| > 0.99) takes the
 *    point's weights, so smooth joins stay smooth.
 *  - rest transform: anchor = closest point (fraction t along the bone),
 *    offset (x, y) along dir and its +90 degree normal.
 * Fix: a point on a bone (d = 0) gets its weight split equally among the
 * bones at distance 0 instead of Infinity/Infinity = NaN; weights are
 * computed as dmin^2 / d^2 so no overflow occurs for tiny distances.
 */
#include "svg_internal.h"

#include <math.h>
#include <string.h>

typedef struct infl_buf {
    skfi_svg_infl *v;
    size_t n, cap;
} infl_buf;

static bool push(infl_buf *b, skfi_svg_infl x)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 1024;
        skfi_svg_infl *v = skf_realloc_array(b->v, cap, sizeof *v);
        if (!v)
            return false;
        b->v = v;
        b->cap = cap;
    }
    b->v[b->n++] = x;
    return true;
}

/* closest point on bone segment: t in [0,1] and squared distance */
static double closest(const skfi_svg_bone *B, const double q[2], double *t_out)
{
    double dx = B->r1[0] - B->r0[0], dy = B->r1[1] - B->r0[1];
    double l2 = dx * dx + dy * dy;
    double t = ((q[0] - B->r0[0]) * dx + (q[1] - B->r0[1]) * dy) / l2;
    if (!(t > 0))
        t = 0;
    else if (t > 1)
        t = 1;
    double cx = B->r0[0] + t * dx, cy = B->r0[1] + t * dy;
    *t_out = t;
    return (q[0] - cx) * (q[0] - cx) + (q[1] - cy) * (q[1] - cy);
}

/* Weights of q over cand[0..n). w receives n values summing to 1. */
static void weights(const skf_svg_character *c, const int *cand, int n, const double q[2],
                    double *w)
{
    double dmin = INFINITY;
    for (int i = 0; i < n; ++i) {
        double t;
        w[i] = closest(&c->bones[cand[i]], q, &t);
        if (w[i] < dmin)
            dmin = w[i];
    }
    double sum = 0;
    if (dmin == 0) {
        for (int i = 0; i < n; ++i) {
            w[i] = w[i] == 0 ? 1 : 0;
            sum += w[i];
        }
    } else {
        for (int i = 0; i < n; ++i) {
            w[i] = dmin / w[i];
            sum += w[i];
        }
    }
    for (int i = 0; i < n; ++i)
        w[i] /= sum;
}

static bool add_point(const skf_svg_character *c, infl_buf *buf, const int *cand, int n,
                      const double *w, const double q[2])
{
    for (int i = 0; i < n; ++i) {
        if (w[i] == 0)
            continue; /* exactly zero only in the on-bone case */
        const skfi_svg_bone *B = &c->bones[cand[i]];
        double t;
        closest(B, q, &t);
        double dx = B->r1[0] - B->r0[0], dy = B->r1[1] - B->r0[1];
        double len = sqrt(dx * dx + dy * dy);
        double ux = dx / len, uy = dy / len;
        double nx = -uy, ny = ux;
        double vx = q[0] - (B->r0[0] + t * dx), vy = q[1] - (B->r0[1] + t * dy);
        double x = vx * ux + vy * uy, y = vx * nx + vy * ny;
        skfi_svg_infl f = {cand[i], w[i], w[i] * t, w[i] * x, w[i] * y};
        if (!push(buf, f))
            return false;
    }
    return true;
}

/* Pose Animator's findBoneGroup: the groups whose nearest bone is nearest. */
static int candidate_groups(const skf_svg_character *c, const double q[2], int *cand)
{
    double gd[SVGI_GROUP_COUNT], dmin = INFINITY;
    for (int g = 0; g < SVGI_GROUP_COUNT; ++g) {
        int n;
        const int *bones = skfi_svg_group_bones(g, &n);
        gd[g] = INFINITY;
        for (int i = 0; i < n; ++i) {
            double t, d = closest(&c->bones[bones[i]], q, &t);
            if (d < gd[g])
                gd[g] = d;
        }
        if (gd[g] < dmin)
            dmin = gd[g];
    }
    int count = 0;
    for (int g = 0; g < SVGI_GROUP_COUNT; ++g) {
        if (gd[g] <= dmin) {
            int n;
            const int *bones = skfi_svg_group_bones(g, &n);
            memcpy(cand + count, bones, (size_t)n * sizeof *cand);
            count += n;
        }
    }
    return count;
}

static bool collinear(const double *node)
{
    double ax = node[2] - node[0], ay = node[3] - node[1];
    double bx = node[4] - node[0], by = node[5] - node[1];
    double la = sqrt(ax * ax + ay * ay), lb = sqrt(bx * bx + by * by);
    if (la == 0 || lb == 0)
        return false; /* paper.js: a zero vector normalises to (0, 0): dot 0 */
    return fabs((ax * bx + ay * by) / (la * lb)) > 1 - 0.01;
}

skf_status skfi_svg_bind(skf_svg_character *c, skf_warnings *warn, skf_error *err)
{
    (void)warn;
    for (size_t b = 0; b < c->bone_count; ++b) {
        const skfi_svg_bone *B = &c->bones[b];
        if (B->r0[0] == B->r1[0] && B->r0[1] == B->r1[1]) {
            const char *nm = skf_svg_bone(B->parent >= 0 ? B->parent : (int)b, NULL, NULL, NULL);
            return skf_fail(err, SKF_ERR_FORMAT,
                            "%s: %s bone %s: its two joint markers are at the same point (%g, %g)",
                            c->name, B->parent >= 0 ? "sub-group" : "skeleton", nm, B->r0[0],
                            B->r0[1]);
        }
    }
    c->body_len0 = c->face_len0 = 0;
    for (int b = 0; b < SKF_SVG_BONE_COUNT; ++b) {
        const skfi_svg_bone *B = &c->bones[b];
        double l = hypot(B->r1[0] - B->r0[0], B->r1[1] - B->r0[1]);
        if (B->face)
            c->face_len0 += l;
        else
            c->body_len0 += l;
    }
    /* face fallback frame: face joints relative to (leftJaw2, rightJaw2) */
    const double *lj = c->joint[skfi_svg_joint_left_jaw2()], *rj = c->joint[skfi_svg_joint_right_jaw2()];
    for (int j = SKF_SVG_POSE_JOINT_COUNT; j < SKF_SVG_JOINT_COUNT; ++j)
        skfi_svg_tfunc_make(&c->face_base[j], lj, rj, c->joint[j]);

    c->infl_start = skf_malloc_array(c->point_count + 1, sizeof *c->infl_start);
    int *cand = skf_malloc_array(c->bone_count + SKF_SVG_BONE_COUNT, sizeof *cand);
    double *w = skf_malloc_array(c->bone_count + SKF_SVG_BONE_COUNT, sizeof *w);
    double *wp = skf_malloc_array(c->bone_count + SKF_SVG_BONE_COUNT, sizeof *wp);
    infl_buf buf = {0};
    skf_status st = SKF_OK;
    if (!c->infl_start || !cand || !w || !wp)
        st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", c->name);
    for (size_t i = 0; i < c->path_count && st == SKF_OK; ++i) {
        const skfi_svg_path *p = &c->paths[i];
        for (size_t k = 0; k < p->geom.node_count && st == SKF_OK; ++k) {
            const double *node = p->geom.xy + 6 * k;
            int n;
            if (p->sec_count > 0) {
                n = p->sec_count;
                for (int s = 0; s < n; ++s)
                    cand[s] = p->sec_first + s;
            } else {
                n = candidate_groups(c, node, cand);
            }
            weights(c, cand, n, node, wp);
            bool col = collinear(node);
            size_t g = p->point_base + 3 * k;
            for (int which = 0; which < 3; ++which) {
                c->infl_start[g + (size_t)which] = buf.n;
                const double *wq = wp;
                if (which && !col) {
                    weights(c, cand, n, node + 2 * which, w);
                    wq = w;
                }
                if (!add_point(c, &buf, cand, n, wq, node + 2 * which))
                    st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", c->name);
            }
        }
    }
    if (st == SKF_OK)
        c->infl_start[c->point_count] = buf.n;
    skf_free(cand);
    skf_free(w);
    skf_free(wp);
    if (st != SKF_OK) {
        skf_free(buf.v);
        return st;
    }
    c->infl = buf.v;
    return SKF_OK;
}

double skf_svg_path_bone_weight(const skf_svg_character *c, size_t i, int b)
{
    const skfi_svg_path *p = &c->paths[i];
    double best = 0;
    size_t g0 = p->point_base, g1 = p->point_base + 3 * p->geom.node_count;
    for (size_t k = c->infl_start[g0]; k < c->infl_start[g1]; ++k) {
        const skfi_svg_infl *f = &c->infl[k];
        int main = c->bones[f->bone].parent >= 0 ? c->bones[f->bone].parent : f->bone;
        if (main == b && f->w > best)
            best = f->w;
    }
    return best;
}

size_t skf_svg_path_point_weights(const skf_svg_character *c, size_t i, size_t k, int *bones,
                                  double *wts, size_t max)
{
    const skfi_svg_path *p = &c->paths[i];
    size_t g = p->point_base + 3 * k;
    size_t n = c->infl_start[g + 1] - c->infl_start[g];
    for (size_t m = 0; m < n && m < max; ++m) {
        const skfi_svg_infl *f = &c->infl[c->infl_start[g] + m];
        bones[m] = c->bones[f->bone].parent >= 0 ? c->bones[f->bone].parent : f->bone;
        wts[m] = f->w;
    }
    return n;
}
