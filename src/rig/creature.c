/* The procedural four-legged creature (see include/skinfit/creature.h and
 * docs/creature.md).
 *
 * Geometry: generalised cylinders ("tubes") swept along uniform Catmull-Rom
 * splines (Catmull & Rom 1974) through the joint positions, with frames
 * propagated by parallel transport (Bishop 1975, "There is more than one way
 * to frame a curve") so the rings never twist, and hemispherical end caps.
 * Normals: area-weighted average of the incident face normals.
 * Weights: a Gaussian kernel in the spline parameter around each bone
 * segment's centre, truncated to the 4 largest and renormalised — smooth
 * across joints, as the linear blend skinning model expects
 * (Magnenat-Thalmann et al. 1988; glTF 2.0 section 3.7.3).
 * Motion: periodic gaits (walk: lateral sequence, trot: diagonal pairs)
 * written as sums of sinusoids in the cycle phase, so the clips loop exactly.
 */
#include "skinfit/creature.h"

#include "skinfit/math.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define PI 3.14159265358979323846
#define DEG (PI / 180.0)

/* ---- skeleton ------------------------------------------------------------ */

enum {
    J_ROOT, J_HIPS, J_SPINE1, J_SPINE2, J_SPINE3, J_NECK1, J_NECK2, J_HEAD,
    J_TAIL1, J_TAIL2, J_TAIL3, J_TAIL4,
    J_FUL_L, J_FLL_L, J_FF_L, J_FT_L,
    J_FUL_R, J_FLL_R, J_FF_R, J_FT_R,
    J_HUL_L, J_HLL_L, J_HF_L, J_HT_L,
    J_HUL_R, J_HLL_R, J_HF_R, J_HT_R,
    JOINT_COUNT
};

typedef struct joint_def {
    const char *name;
    int parent;
    double pos[3]; /* bind position, world, metres */
} joint_def;

static const joint_def joints[JOINT_COUNT] = {
    {"Root", -1, {0, 0, 0}},
    {"Hips", J_ROOT, {0, 1.00, -0.40}},
    {"Spine1", J_HIPS, {0, 1.02, -0.13}},
    {"Spine2", J_SPINE1, {0, 1.04, 0.14}},
    {"Spine3", J_SPINE2, {0, 1.05, 0.40}},
    {"Neck1", J_SPINE3, {0, 1.15, 0.55}},
    {"Neck2", J_NECK1, {0, 1.35, 0.68}},
    {"Head", J_NECK2, {0, 1.50, 0.78}},
    {"Tail1", J_HIPS, {0, 1.02, -0.62}},
    {"Tail2", J_TAIL1, {0, 0.98, -0.80}},
    {"Tail3", J_TAIL2, {0, 0.90, -0.96}},
    {"Tail4", J_TAIL3, {0, 0.80, -1.08}},
    {"FrontUpperLeg_L", J_SPINE3, {0.15, 0.98, 0.38}},
    {"FrontLowerLeg_L", J_FUL_L, {0.15, 0.58, 0.35}},
    {"FrontFoot_L", J_FLL_L, {0.15, 0.22, 0.39}},
    {"FrontToe_L", J_FF_L, {0.15, 0.06, 0.41}},
    {"FrontUpperLeg_R", J_SPINE3, {-0.15, 0.98, 0.38}},
    {"FrontLowerLeg_R", J_FUL_R, {-0.15, 0.58, 0.35}},
    {"FrontFoot_R", J_FLL_R, {-0.15, 0.22, 0.39}},
    {"FrontToe_R", J_FF_R, {-0.15, 0.06, 0.41}},
    {"HindUpperLeg_L", J_HIPS, {0.14, 0.95, -0.42}},
    {"HindLowerLeg_L", J_HUL_L, {0.15, 0.60, -0.33}},
    {"HindFoot_L", J_HLL_L, {0.15, 0.28, -0.47}},
    {"HindToe_L", J_HF_L, {0.15, 0.06, -0.44}},
    {"HindUpperLeg_R", J_HIPS, {-0.14, 0.95, -0.42}},
    {"HindLowerLeg_R", J_HUL_R, {-0.15, 0.60, -0.33}},
    {"HindFoot_R", J_HLL_R, {-0.15, 0.28, -0.47}},
    {"HindToe_R", J_HF_R, {-0.15, 0.06, -0.44}},
};

size_t skf_creature_joint_count(void) { return JOINT_COUNT; }

const char *skf_creature_joint_name(size_t joint)
{
    return joint < JOINT_COUNT ? joints[joint].name : NULL;
}

int skf_creature_joint_parent(size_t joint)
{
    return joint < JOINT_COUNT ? joints[joint].parent : -1;
}

void skf_creature_joint_bind_position(size_t joint, double position[3])
{
    for (int a = 0; a < 3; ++a)
        position[a] = joint < JOINT_COUNT ? joints[joint].pos[a] : 0;
}

/* ---- motion -------------------------------------------------------------- */

typedef struct clip_def {
    const char *name;
    double duration;           /* seconds, one gait cycle */
    double phase[4];           /* FL, FR, HL, HR in cycles */
    double bob, sway, roll;    /* metres, metres, degrees */
    double spine, nod, tail;   /* degrees */
    double upper, knee, foot;  /* degrees */
} clip_def;

static const clip_def clips[] = {
    {"Walk", 1.2, {0.25, 0.75, 0.0, 0.5}, 0.02, 0.015, 2.5, 3.0, 4.0, 10.0, 22.0, 30.0, 15.0},
    {"Trot", 1.0, {0.5, 0.0, 0.0, 0.5}, 0.04, 0.01, 3.5, 2.0, 6.0, 14.0, 30.0, 45.0, 20.0},
};
#define CLIP_COUNT (sizeof clips / sizeof clips[0])

size_t skf_creature_clip_count(void) { return CLIP_COUNT; }

const char *skf_creature_clip_name(size_t clip)
{
    return clip < CLIP_COUNT ? clips[clip].name : NULL;
}

double skf_creature_clip_duration(size_t clip)
{
    return clip < CLIP_COUNT ? clips[clip].duration : 0;
}

static void quat_axis(double q[4], int axis, double angle)
{
    q[0] = q[1] = q[2] = 0;
    q[axis] = sin(0.5 * angle);
    q[3] = cos(0.5 * angle);
}

/* q = rot_x(ax) * rot_y(ay) * rot_z(az) (z applied first). */
static void quat_xyz(double q[4], double ax, double ay, double az)
{
    double qx[4], qy[4], qz[4];
    quat_axis(qx, 0, ax);
    quat_axis(qy, 1, ay);
    quat_axis(qz, 2, az);
    skf_quat_mul(q, qx, qy);
    skf_quat_mul(q, q, qz);
}

/* Local TRS of every joint at cycle phase phi in [0, 1). */
static void clip_local(const clip_def *c, double phi, const double (*jp)[3], double *trs)
{
    double w = 2 * PI * phi;
    for (int j = 0; j < JOINT_COUNT; ++j) {
        double *t = trs + 10 * j, *r = t + 3, *s = t + 7;
        int p = joints[j].parent;
        for (int a = 0; a < 3; ++a) {
            t[a] = jp[j][a] - (p >= 0 ? jp[p][a] : 0);
            s[a] = 1;
        }
        r[0] = r[1] = r[2] = 0;
        r[3] = 1;
    }
    double *hips = trs + 10 * J_HIPS;
    hips[0] += c->sway * sin(w);
    hips[1] += c->bob * cos(2 * w);
    quat_xyz(hips + 3, 0, 0, c->roll * DEG * sin(w));
    for (int i = 0; i < 3; ++i)
        quat_xyz(trs + 10 * (J_SPINE1 + i) + 3, 0.3 * c->spine * DEG * cos(2 * w - 0.5 * i),
                 c->spine * DEG * sin(w - 0.4 * (i + 1)), 0);
    quat_xyz(trs + 10 * J_NECK1 + 3, c->nod * DEG * sin(2 * w), 0, 0);
    quat_xyz(trs + 10 * J_NECK2 + 3, 0.5 * c->nod * DEG * sin(2 * w - 0.5), 0, 0);
    quat_xyz(trs + 10 * J_HEAD + 3, -c->nod * DEG * sin(2 * w - 1.0),
             0.3 * c->spine * DEG * sin(w), 0);
    for (int i = 0; i < 4; ++i)
        quat_xyz(trs + 10 * (J_TAIL1 + i) + 3, 0.3 * c->tail * DEG * cos(w - 0.7 * (i + 1)),
                 c->tail * DEG * sin(w - 0.7 * (i + 1)), 0);
    static const int leg_first[4] = {J_FUL_L, J_FUL_R, J_HUL_L, J_HUL_R};
    for (int l = 0; l < 4; ++l) {
        double psi = w + 2 * PI * c->phase[l];
        double knee_sign = l < 2 ? 1.0 : -1.0;
        int j = leg_first[l];
        quat_xyz(trs + 10 * j + 3, c->upper * DEG * sin(psi), 0, 0);
        quat_xyz(trs + 10 * (j + 1) + 3,
                 knee_sign * c->knee * DEG * (0.5 + 0.5 * sin(psi - 1.2)), 0, 0);
        quat_xyz(trs + 10 * (j + 2) + 3, c->foot * DEG * sin(psi - 2.0), 0, 0);
        quat_xyz(trs + 10 * (j + 3) + 3, 0.5 * c->foot * DEG * sin(psi - 2.5), 0, 0);
    }
}

bool skf_creature_pose(size_t clip, double time, double *local_trs, double *joint_to_world)
{
    if (clip >= CLIP_COUNT)
        return false;
    const clip_def *c = &clips[clip];
    double phi = fmod(time / c->duration, 1.0);
    if (phi < 0)
        phi += 1.0;
    double trs[10 * JOINT_COUNT], jp[JOINT_COUNT][3];
    for (int j = 0; j < JOINT_COUNT; ++j)
        memcpy(jp[j], joints[j].pos, sizeof jp[j]);
    clip_local(c, phi, (const double (*)[3])jp, trs);
    if (local_trs)
        memcpy(local_trs, trs, sizeof trs);
    if (joint_to_world)
        for (int j = 0; j < JOINT_COUNT; ++j) {
            double local[16];
            skf_mat4_from_trs(local, trs + 10 * j, trs + 10 * j + 3, trs + 10 * j + 7);
            int p = joints[j].parent;
            if (p >= 0)
                skf_mat4_mul(joint_to_world + 16 * j, joint_to_world + 16 * p, local);
            else
                memcpy(joint_to_world + 16 * j, local, sizeof local);
        }
    return true;
}

/* ---- tubes --------------------------------------------------------------- */

typedef struct tube_point {
    double pos[3];
    double radius;
    int bone; /* bone deforming the segment from this point to the next */
} tube_point;

typedef struct tube_def {
    int parent_bone;         /* blended in at the start of the tube, -1 none */
    int ring_scale;          /* segments around = ring_scale * k */
    size_t count;
    tube_point pts[13];
} tube_def;

#define P(j) {jp[j][0], jp[j][1], jp[j][2]}

/* Variant shape parameters (skf_creature_options, checked and defaulted). */
typedef struct variant {
    double leg, girth, neck;   /* scale factors, 1 = the default animal */
    int triangulation;         /* 0: quads split along (a,c); 1: along (b,d) */
    bool horns;
} variant;

static void make_tubes(tube_def tubes[5], const double (*jp)[3], const variant *var)
{
    memset(tubes, 0, 5 * sizeof *tubes);
    tube_def *b = &tubes[0];
    b->parent_bone = -1;
    b->ring_scale = 12;
    const tube_point body[] = {
        {{0, 0.68, -1.16}, 0.025, J_TAIL4}, {P(J_TAIL4), 0.035, J_TAIL3},
        {P(J_TAIL3), 0.045, J_TAIL2},       {P(J_TAIL2), 0.055, J_TAIL1},
        {P(J_TAIL1), 0.085, J_HIPS},        {P(J_HIPS), 0.22, J_HIPS},
        {P(J_SPINE1), 0.25, J_SPINE1},      {P(J_SPINE2), 0.25, J_SPINE2},
        {P(J_SPINE3), 0.23, J_SPINE3},      {P(J_NECK1), 0.14, J_NECK1},
        {P(J_NECK2), 0.11, J_NECK2},        {P(J_HEAD), 0.13, J_HEAD},
        {{jp[J_HEAD][0] - joints[J_HEAD].pos[0], 1.42 + (jp[J_HEAD][1] - joints[J_HEAD].pos[1]),
          1.05 + (jp[J_HEAD][2] - joints[J_HEAD].pos[2])}, 0.06, J_HEAD}, /* nose: moves with the head */
    };
    b->count = sizeof body / sizeof body[0];
    memcpy(b->pts, body, sizeof body);
    /* girth: the trunk's radii (hips to the neck base) */
    if (var->girth != 1)
        for (size_t i = 5; i <= 9; ++i)
            b->pts[i].radius *= var->girth;
    for (int l = 0; l < 4; ++l) {
        tube_def *t = &tubes[1 + l];
        bool front = l < 2;
        int j0 = front ? (l == 0 ? J_FUL_L : J_FUL_R) : (l == 2 ? J_HUL_L : J_HUL_R);
        t->parent_bone = front ? J_SPINE3 : J_HIPS;
        t->ring_scale = 8;
        t->count = 5;
        static const double radius[5] = {0.095, 0.06, 0.045, 0.05, 0.04};
        for (int i = 0; i < 4; ++i) {
            memcpy(t->pts[i].pos, jp[j0 + i], sizeof t->pts[i].pos);
            t->pts[i].radius = radius[i];
            t->pts[i].bone = j0 + i;
        }
        /* toe tip: moves with the toe joint (exactly the base point for the default) */
        const double *toe = jp[j0 + 3], *toe0 = joints[j0 + 3].pos;
        t->pts[4] = (tube_point){{toe[0], 0.03 + (toe[1] - toe0[1]), (front ? 0.51 : -0.34) + (toe[2] - toe0[2])},
                                 radius[4], j0 + 3};
    }
}

/* Uniform Catmull-Rom through the tube points: position, radius, tangent at
 * parameter u in [0, count-1]. End tangents use mirrored phantom points. */
static void spline_eval(const tube_def *t, double u, double pos[3], double *radius,
                        double tangent[3])
{
    size_t n = t->count;
    size_t i = (size_t)floor(u);
    if (i >= n - 1)
        i = n - 2;
    double s = u - (double)i;
    double p[4][4]; /* x y z r of P(i-1) .. P(i+2) */
    for (int k = 0; k < 4; ++k) {
        long idx = (long)i - 1 + k;
        for (int a = 0; a < 4; ++a) {
            double v;
            if (idx < 0) {
                double p0 = a < 3 ? t->pts[0].pos[a] : t->pts[0].radius;
                double p1 = a < 3 ? t->pts[1].pos[a] : t->pts[1].radius;
                v = 2 * p0 - p1;
            } else if ((size_t)idx >= n) {
                double p0 = a < 3 ? t->pts[n - 1].pos[a] : t->pts[n - 1].radius;
                double p1 = a < 3 ? t->pts[n - 2].pos[a] : t->pts[n - 2].radius;
                v = 2 * p0 - p1;
            } else {
                v = a < 3 ? t->pts[idx].pos[a] : t->pts[idx].radius;
            }
            p[k][a] = v;
        }
    }
    double s2 = s * s, s3 = s2 * s;
    for (int a = 0; a < 4; ++a) {
        double v = 0.5 * (2 * p[1][a] + (-p[0][a] + p[2][a]) * s +
                          (2 * p[0][a] - 5 * p[1][a] + 4 * p[2][a] - p[3][a]) * s2 +
                          (-p[0][a] + 3 * p[1][a] - 3 * p[2][a] + p[3][a]) * s3);
        double d = 0.5 * ((-p[0][a] + p[2][a]) + 2 * (2 * p[0][a] - 5 * p[1][a] + 4 * p[2][a] - p[3][a]) * s +
                          3 * (-p[0][a] + 3 * p[1][a] - 3 * p[2][a] + p[3][a]) * s2);
        if (a < 3) {
            pos[a] = v;
            tangent[a] = d;
        } else {
            *radius = v < 0.01 ? 0.01 : v;
        }
    }
    double len = skf_norm3(tangent);
    if (len > 0)
        for (int a = 0; a < 3; ++a)
            tangent[a] /= len;
}

typedef struct tube_res {
    size_t around;        /* vertices per ring */
    size_t cap_rings;     /* rings per end cap (plus a pole vertex) */
    size_t seg_rings[12]; /* rings per segment */
    size_t rings;         /* along the body, including the last */
} tube_res;

static void tube_resolution(const tube_def *t, double k, tube_res *r)
{
    double around = floor(t->ring_scale * k + 0.5);
    r->around = around < 6 ? 6 : (size_t)around;
    r->cap_rings = r->around / 4 < 1 ? 1 : r->around / 4;
    double spacing = 0.12 / k;
    r->rings = 1;
    for (size_t i = 0; i + 1 < t->count; ++i) {
        double d[3];
        for (int a = 0; a < 3; ++a)
            d[a] = t->pts[i + 1].pos[a] - t->pts[i].pos[a];
        double m = ceil(skf_norm3(d) / spacing);
        r->seg_rings[i] = m < 2 ? 2 : (size_t)m;
        r->rings += r->seg_rings[i];
    }
}

static size_t tube_vertices(const tube_res *r)
{
    return (r->rings + 2 * r->cap_rings) * r->around + 2;
}

static size_t tube_triangles(const tube_res *r)
{
    return 2 * (r->rings + 2 * r->cap_rings - 1) * r->around + 2 * r->around;
}

typedef struct mesh_out {
    double *pos;       /* [v*3] */
    double *u;         /* spline parameter per vertex */
    int *tube;         /* tube index per vertex */
    uint32_t *tri;     /* [t*3] */
    size_t nv, nt;
    int triangulation; /* 0: quad (a,b,c,d) → (a,b,c)+(a,c,d); 1: (a,b,d)+(b,c,d) */
} mesh_out;

/* ---- horns --------------------------------------------------------------- */

#define HORN_AROUND 12
#define HORN_RINGS 10
#define HORN_VERTICES (2 * (HORN_AROUND * HORN_RINGS + 2))
#define HORN_TRIANGLES (2 * (2 * (HORN_RINGS - 1) * HORN_AROUND + 2 * HORN_AROUND))

/* Two curved cones on top of the head: base 3.5 cm radius at (±0.07, 0.09,
 * 0.02) from the Head joint, 0.28 m long, sweeping up, out and back, tip
 * radius 0.5 cm. Written at origin + offset (origin: the Head joint for a
 * skinned part, 0 for a mesh in the joint's frame). Vertices get tube -1. */
static void emit_horns(mesh_out *m, const double origin[3])
{
    for (int side = 0; side < 2; ++side) {
        double sx = side ? -1.0 : 1.0;
        size_t first = m->nv;
        size_t pole0 = m->nv++;
        double c[3] = {0, 0, 0};
        for (size_t ring = 0; ring < HORN_RINGS; ++ring) {
            double s01 = (double)ring / (double)(HORN_RINGS - 1);
            /* centre line: a quadratic arc; direction up-out first, then back */
            c[0] = sx * (0.07 + 0.12 * s01);
            c[1] = 0.09 + 0.22 * s01 - 0.04 * s01 * s01;
            c[2] = 0.02 - 0.10 * s01 * s01;
            double tan[3] = {sx * 0.12, 0.22 - 0.08 * s01, -0.20 * s01};
            double l = skf_norm3(tan);
            for (int a = 0; a < 3; ++a)
                tan[a] /= l;
            double e[3] = {0, 0, 1}, n[3], b[3];
            skf_cross3(n, tan, e);
            l = skf_norm3(n);
            for (int a = 0; a < 3; ++a)
                n[a] /= l;
            skf_cross3(b, tan, n);
            double rad = 0.035 + (0.005 - 0.035) * s01;
            for (size_t k = 0; k < HORN_AROUND; ++k) {
                double th = 2 * PI * (double)k / HORN_AROUND;
                size_t v = m->nv++;
                for (int a = 0; a < 3; ++a)
                    m->pos[3 * v + a] = origin[a] + c[a] + rad * (cos(th) * n[a] + sin(th) * b[a]);
                m->u[v] = 0;
                m->tube[v] = -1;
            }
        }
        size_t pole1 = m->nv++;
        for (int a = 0; a < 3; ++a) {
            m->pos[3 * pole0 + a] = origin[a] + (a == 0 ? sx * 0.07 : a == 1 ? 0.075 : 0.02);
            m->pos[3 * pole1 + a] = origin[a] + c[a] + (a == 0 ? sx * 0.004 : a == 1 ? 0.004 : -0.004);
        }
        m->u[pole0] = m->u[pole1] = 0;
        m->tube[pole0] = m->tube[pole1] = -1;
        size_t base = first + 1, S = HORN_AROUND;
        bool flip = side == 1; /* mirrored: keep the winding outward */
        for (size_t i = 0; i + 1 < HORN_RINGS; ++i)
            for (size_t j = 0; j < S; ++j) {
                uint32_t a = (uint32_t)(base + i * S + j), bb = (uint32_t)(base + i * S + (j + 1) % S);
                uint32_t cc = (uint32_t)(base + (i + 1) * S + (j + 1) % S), dd = (uint32_t)(base + (i + 1) * S + j);
                uint32_t *o = m->tri + 3 * m->nt;
                if (flip) {
                    o[0] = a, o[1] = cc, o[2] = bb;
                    o[3] = a, o[4] = dd, o[5] = cc;
                } else {
                    o[0] = a, o[1] = bb, o[2] = cc;
                    o[3] = a, o[4] = cc, o[5] = dd;
                }
                m->nt += 2;
            }
        size_t last = base + (HORN_RINGS - 1) * S;
        for (size_t j = 0; j < S; ++j) {
            uint32_t *o = m->tri + 3 * m->nt;
            uint32_t r0 = (uint32_t)(base + j), r1 = (uint32_t)(base + (j + 1) % S);
            uint32_t l0 = (uint32_t)(last + j), l1 = (uint32_t)(last + (j + 1) % S);
            o[0] = (uint32_t)pole0, o[1] = flip ? r0 : r1, o[2] = flip ? r1 : r0;
            o[3] = (uint32_t)pole1, o[4] = flip ? l1 : l0, o[5] = flip ? l0 : l1;
            m->nt += 2;
        }
    }
}

/* Emit one tube: rings along the spline with parallel-transport frames,
 * hemispherical caps and poles. */
static void emit_tube(const tube_def *t, int tube_index, const tube_res *r, mesh_out *m)
{
    size_t first = m->nv;
    size_t S = r->around, C = r->cap_rings;
    size_t total_rings = r->rings + 2 * C;
    /* ring parameters along the body */
    double frame_n[3] = {0, 0, 0};
    size_t ring = 0;
    /* Pole at the start (index first), then rings, then end pole. */
    size_t pole0 = m->nv++;
    double u_first = 0, u_last = (double)(t->count - 1);
    double start_pos[3], start_r, start_t[3], end_pos[3], end_r, end_t[3];
    spline_eval(t, u_first, start_pos, &start_r, start_t);
    spline_eval(t, u_last, end_pos, &end_r, end_t);
    /* initial normal: perpendicular to the start tangent */
    {
        int ax = 0;
        for (int a = 1; a < 3; ++a)
            if (fabs(start_t[a]) < fabs(start_t[ax]))
                ax = a;
        double e[3] = {0, 0, 0};
        e[ax] = 1;
        double d = skf_dot3(e, start_t);
        for (int a = 0; a < 3; ++a)
            frame_n[a] = e[a] - d * start_t[a];
        double l = skf_norm3(frame_n);
        for (int a = 0; a < 3; ++a)
            frame_n[a] /= l;
    }
    for (ring = 0; ring < total_rings; ++ring) {
        double c[3], rad, tan[3], u;
        if (ring < C) {
            /* start cap: phi from near -90 deg up to 0 (exclusive) */
            double phi = (double)(C - ring) / (double)(C + 1) * (PI / 2);
            for (int a = 0; a < 3; ++a) {
                c[a] = start_pos[a] - start_t[a] * start_r * sin(phi);
                tan[a] = start_t[a];
            }
            rad = start_r * cos(phi);
            u = u_first;
        } else if (ring < C + r->rings) {
            size_t b = ring - C;
            size_t seg = 0, within = b;
            while (seg + 1 < t->count - 1 && within >= r->seg_rings[seg]) {
                within -= r->seg_rings[seg];
                ++seg;
            }
            u = (double)seg + (double)within / (double)r->seg_rings[seg];
            if (u > u_last)
                u = u_last;
            spline_eval(t, u, c, &rad, tan);
        } else {
            size_t e = ring - C - r->rings; /* 0 .. C-1 */
            double phi = (double)(e + 1) / (double)(C + 1) * (PI / 2);
            for (int a = 0; a < 3; ++a) {
                c[a] = end_pos[a] + end_t[a] * end_r * sin(phi);
                tan[a] = end_t[a];
            }
            rad = end_r * cos(phi);
            u = u_last;
        }
        /* parallel transport of the normal onto the new tangent */
        double d = skf_dot3(frame_n, tan);
        for (int a = 0; a < 3; ++a)
            frame_n[a] -= d * tan[a];
        double l = skf_norm3(frame_n);
        for (int a = 0; a < 3; ++a)
            frame_n[a] /= l;
        double bn[3];
        skf_cross3(bn, tan, frame_n); /* B = T x N so N x B = T */
        for (size_t s = 0; s < S; ++s) {
            double th = 2 * PI * (double)s / (double)S;
            double cs = cos(th), sn = sin(th);
            size_t v = m->nv++;
            for (int a = 0; a < 3; ++a)
                m->pos[3 * v + a] = c[a] + rad * (cs * frame_n[a] + sn * bn[a]);
            m->u[v] = u;
            m->tube[v] = tube_index;
        }
    }
    size_t pole1 = m->nv++;
    for (int a = 0; a < 3; ++a) {
        m->pos[3 * pole0 + a] = start_pos[a] - start_t[a] * start_r;
        m->pos[3 * pole1 + a] = end_pos[a] + end_t[a] * end_r;
    }
    m->u[pole0] = u_first;
    m->u[pole1] = u_last;
    m->tube[pole0] = m->tube[pole1] = tube_index;
    /* triangles: (a, b, c), (a, c, d) with a=(i,j) b=(i,j+1) c=(i+1,j+1) d=(i+1,j) */
    size_t base = first + 1;
    for (size_t i = 0; i + 1 < total_rings; ++i)
        for (size_t j = 0; j < S; ++j) {
            uint32_t a = (uint32_t)(base + i * S + j);
            uint32_t b = (uint32_t)(base + i * S + (j + 1) % S);
            uint32_t cc = (uint32_t)(base + (i + 1) * S + (j + 1) % S);
            uint32_t dd = (uint32_t)(base + (i + 1) * S + j);
            uint32_t *o = m->tri + 3 * m->nt;
            if (m->triangulation == 1) {
                o[0] = a, o[1] = b, o[2] = dd;
                o[3] = b, o[4] = cc, o[5] = dd;
            } else {
                o[0] = a, o[1] = b, o[2] = cc;
                o[3] = a, o[4] = cc, o[5] = dd;
            }
            m->nt += 2;
        }
    for (size_t j = 0; j < S; ++j) {
        uint32_t *o = m->tri + 3 * m->nt;
        /* start pole: ring 0 seen from outside (behind the start) */
        o[0] = (uint32_t)pole0;
        o[1] = (uint32_t)(base + (j + 1) % S);
        o[2] = (uint32_t)(base + j);
        size_t last = base + (total_rings - 1) * S;
        o[3] = (uint32_t)pole1;
        o[4] = (uint32_t)(last + j);
        o[5] = (uint32_t)(last + (j + 1) % S);
        m->nt += 2;
    }
}

/* Smooth weights: Gaussian in u around each segment centre, per bone. */
static void vertex_weights(const tube_def *t, double u, uint32_t joint_out[4], float w_out[4])
{
    double acc[JOINT_COUNT] = {0};
    const double sigma = 0.3;
    for (size_t s = 0; s + 1 < t->count; ++s) {
        double d = u - ((double)s + 0.5);
        acc[t->pts[s].bone] += exp(-d * d / (2 * sigma * sigma));
    }
    if (t->parent_bone >= 0) {
        double d = u + 0.5;
        acc[t->parent_bone] += exp(-d * d / (2 * sigma * sigma));
    }
    int best[4] = {-1, -1, -1, -1};
    for (int j = 0; j < JOINT_COUNT; ++j) {
        if (acc[j] < 1e-3)
            continue;
        for (int k = 0; k < 4; ++k)
            if (best[k] < 0 || acc[j] > acc[best[k]]) {
                for (int m = 3; m > k; --m)
                    best[m] = best[m - 1];
                best[k] = j;
                break;
            }
    }
    double sum = 0;
    for (int k = 0; k < 4; ++k)
        if (best[k] >= 0)
            sum += acc[best[k]];
    double fsum = 0;
    for (int k = 0; k < 4; ++k) {
        joint_out[k] = best[k] >= 0 ? (uint32_t)best[k] : 0;
        w_out[k] = best[k] >= 0 ? (float)(acc[best[k]] / sum) : 0.0f;
        fsum += w_out[k];
    }
    w_out[0] = (float)((double)w_out[0] + (1.0 - fsum)); /* float residue on the largest */
}

/* Joint positions of a variant: the neck (Neck2, Head) stretched about
 * Neck1 by var->neck; each leg's lower joints stretched about its upper-leg
 * joint by var->leg, the whole animal lifted so the front feet stay on the
 * ground. Factors of exactly 1 leave the base positions untouched (bitwise). */
static void variant_joints(const variant *var, double jp[JOINT_COUNT][3])
{
    for (int j = 0; j < JOINT_COUNT; ++j)
        memcpy(jp[j], joints[j].pos, sizeof jp[j]);
    if (var->neck != 1)
        for (int j = J_NECK2; j <= J_HEAD; ++j)
            for (int a = 0; a < 3; ++a)
                jp[j][a] = joints[J_NECK1].pos[a] + var->neck * (joints[j].pos[a] - joints[J_NECK1].pos[a]);
    if (var->leg != 1) {
        double lift = (var->leg - 1) * (joints[J_FUL_L].pos[1] - 0.03);
        static const int leg_first[4] = {J_FUL_L, J_FUL_R, J_HUL_L, J_HUL_R};
        for (int l = 0; l < 4; ++l) {
            int j0 = leg_first[l];
            for (int i = 1; i < 4; ++i)
                for (int a = 0; a < 3; ++a)
                    jp[j0 + i][a] = joints[j0].pos[a] + var->leg * (joints[j0 + i].pos[a] - joints[j0].pos[a]);
        }
        for (int j = 1; j < JOINT_COUNT; ++j)
            jp[j][1] += lift;
    }
}

/* Diffuse head weights: 60 % of the Head's weight moves to Neck2 (40 %) and
 * Neck1 (20 %), so the body alone pins the head's rotation only weakly (the
 * rig of issue 12 §3's attachment test). The four slots are rebuilt. */
static void diffuse_head(uint32_t j[4], float w[4])
{
    double acc[JOINT_COUNT] = {0};
    for (int k = 0; k < 4; ++k)
        acc[j[k]] += w[k];
    double h = acc[J_HEAD];
    if (h <= 0)
        return;
    acc[J_HEAD] = 0.4 * h;
    acc[J_NECK2] += 0.4 * h;
    acc[J_NECK1] += 0.2 * h;
    int best[4] = {-1, -1, -1, -1};
    for (int b = 0; b < JOINT_COUNT; ++b) {
        if (acc[b] <= 0)
            continue;
        for (int k = 0; k < 4; ++k)
            if (best[k] < 0 || acc[b] > acc[best[k]]) {
                for (int m = 3; m > k; --m)
                    best[m] = best[m - 1];
                best[k] = b;
                break;
            }
    }
    double sum = 0, fsum = 0;
    for (int k = 0; k < 4; ++k)
        if (best[k] >= 0)
            sum += acc[best[k]];
    for (int k = 0; k < 4; ++k) {
        j[k] = best[k] >= 0 ? (uint32_t)best[k] : 0;
        w[k] = best[k] >= 0 ? (float)(acc[best[k]] / sum) : 0.0f;
        fsum += w[k];
    }
    w[0] = (float)((double)w[0] + (1.0 - fsum));
}

static size_t total_vertices(const tube_def *tubes, double k)
{
    size_t n = 0;
    for (int i = 0; i < 5; ++i) {
        tube_res r;
        tube_resolution(&tubes[i], k, &r);
        n += tube_vertices(&r);
    }
    return n;
}

/* ---- bent knees (rest rotations) ------------------------------------------ */

static bool is_identity_quat(const double q[4])
{
    return q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 1;
}

/* Rest joint_to_world of every joint: local = T(jp[j] − jp[parent]) R(rest_q[j]),
 * chained from the root (parents precede their children in joints[]). */
static void rest_worlds(const double (*jp)[3], const double (*rest_q)[4], double world[JOINT_COUNT][16])
{
    static const double one[3] = {1, 1, 1};
    for (int j = 0; j < JOINT_COUNT; ++j) {
        int p = joints[j].parent;
        double t[3], local[16];
        for (int a = 0; a < 3; ++a)
            t[a] = jp[j][a] - (p >= 0 ? jp[p][a] : 0);
        skf_mat4_from_trs(local, t, rest_q[j], one);
        if (p >= 0)
            skf_mat4_mul(world[j], world[p], local);
        else
            memcpy(world[j], local, sizeof local);
    }
}

/* Rest rotations of the knee_bend option: about X, in the sense the clip
 * flexes each knee (clip_local: front +, hind −). Returns false when every
 * bend is 0 (no rest rotation anywhere: the unbent document, byte for byte). */
static bool knee_rest_rotations(const double bend_deg[4], double rest_q[JOINT_COUNT][4])
{
    bool any = false;
    for (int j = 0; j < JOINT_COUNT; ++j)
        rest_q[j][0] = rest_q[j][1] = rest_q[j][2] = 0, rest_q[j][3] = 1;
    static const int knee[4] = {J_FLL_L, J_FLL_R, J_HLL_L, J_HLL_R};
    for (int l = 0; l < 4; ++l)
        if (bend_deg[l] != 0) {
            quat_axis(rest_q[knee[l]], 0, (l < 2 ? 1.0 : -1.0) * bend_deg[l] * DEG);
            any = true;
        }
    return any;
}

/* Skin the straight mesh (bind = the straight joint positions, identity
 * rotations) at the bent rest pose, in place: p' = Σ_k w_k S_j p with
 * S_j = rest_joint_to_world_j · T(−jp[j]). */
static void skin_to_rest(mesh_out *m, const double (*jp)[3], const double (*rest_q)[4], const uint32_t *jnt,
                         const float *wts)
{
    double world[JOINT_COUNT][16], S[JOINT_COUNT][16];
    rest_worlds(jp, rest_q, world);
    for (int j = 0; j < JOINT_COUNT; ++j) {
        double unbind[16];
        skf_mat4_identity(unbind);
        for (int a = 0; a < 3; ++a)
            unbind[12 + a] = -jp[j][a];
        skf_mat4_mul(S[j], world[j], unbind);
    }
    for (size_t v = 0; v < m->nv; ++v) {
        double out[3] = {0, 0, 0};
        for (int k = 0; k < 4; ++k) {
            double w = (double)wts[4 * v + k], q[3];
            if (w == 0)
                continue;
            skf_mat4_transform_point(q, S[jnt[4 * v + k]], m->pos + 3 * v);
            for (int a = 0; a < 3; ++a)
                out[a] += w * q[a];
        }
        memcpy(m->pos + 3 * v, out, sizeof out);
    }
}

/* ---- document ------------------------------------------------------------ */

/* POSITION and NORMAL accessors of a mesh (float), normals area-weighted. */
static skf_status add_positions_normals(skf_gltf *doc, const mesh_out *m, int *a_pos, int *a_nrm, skf_error *err)
{
    skf_status st = SKF_OK;
    size_t nv = m->nv;
    float *fpos = skf_malloc_array(nv * 3, sizeof *fpos);
    float *fnrm = skf_malloc_array(nv * 3, sizeof *fnrm);
    double *nrm = skf_calloc(nv * 3, sizeof *nrm);
    if (!fpos || !fnrm || !nrm) {
        st = skf_fail(err, SKF_ERR_NOMEM, "creature: out of memory for %zu vertices", nv);
        goto done;
    }
    for (size_t i = 0; i < m->nt; ++i) {
        const uint32_t *t = m->tri + 3 * i;
        double e1[3], e2[3], n[3];
        for (int a = 0; a < 3; ++a) {
            e1[a] = m->pos[3 * t[1] + a] - m->pos[3 * t[0] + a];
            e2[a] = m->pos[3 * t[2] + a] - m->pos[3 * t[0] + a];
        }
        skf_cross3(n, e1, e2); /* length = 2 * area: area weighting */
        for (int c = 0; c < 3; ++c)
            for (int a = 0; a < 3; ++a)
                nrm[3 * t[c] + a] += n[a];
    }
    for (size_t v = 0; v < nv; ++v) {
        double l = skf_norm3(nrm + 3 * v);
        for (int a = 0; a < 3; ++a) {
            fpos[3 * v + a] = (float)m->pos[3 * v + a];
            fnrm[3 * v + a] = (float)(l > 0 ? nrm[3 * v + a] / l : (a == 1));
        }
    }
    st = skf_gltf_add_float_accessor(doc, fpos, nv, 3, 34962, true, a_pos, err);
    if (!st)
        st = skf_gltf_add_float_accessor(doc, fnrm, nv, 3, 34962, false, a_nrm, err);
done:
    skf_free(fpos);
    skf_free(fnrm);
    skf_free(nrm);
    return st;
}

/* horns: NULL, or the horn mesh in the Head joint's frame (a mesh node child
 * of the Head joint node, no skin). */
static skf_status build_doc(skf_gltf *doc, const mesh_out *m, const double (*jp)[3], const double (*rest_q)[4],
                            const uint32_t *jnt, const float *wts, double kps, const mesh_out *horns, skf_error *err)
{
    size_t nv = m->nv;
    int a_pos, a_nrm, a_jnt, a_wts, a_idx, a_ibm;
    skf_status st = add_positions_normals(doc, m, &a_pos, &a_nrm, err);
    if (!st)
        st = skf_gltf_add_uint_accessor(doc, jnt, nv, 4, SKF_GLTF_UNSIGNED_BYTE, 34962, &a_jnt,
                                        err);
    if (!st)
        st = skf_gltf_add_float_accessor(doc, wts, nv, 4, 34962, false, &a_wts, err);
    if (!st)
        st = skf_gltf_add_uint_accessor(doc, m->tri, m->nt * 3, 1,
                                        nv < 65535 ? SKF_GLTF_UNSIGNED_SHORT
                                                   : SKF_GLTF_UNSIGNED_INT,
                                        34963, &a_idx, err);
    if (st)
        goto done;
    /* inverse bind matrices (mesh_to_joint): without rest rotations the bind
     * pose has identity rotations, so each is a translation by minus the
     * joint's bind position; with bent knees each is the inverse of the
     * joint's rest joint_to_world. */
    float ibm[16 * JOINT_COUNT];
    if (!rest_q) {
        for (int j = 0; j < JOINT_COUNT; ++j) {
            for (int e = 0; e < 16; ++e)
                ibm[16 * j + e] = (e % 5 == 0) ? 1.0f : 0.0f;
            for (int a = 0; a < 3; ++a)
                ibm[16 * j + 12 + a] = (float)-jp[j][a];
        }
    } else {
        double world[JOINT_COUNT][16];
        rest_worlds(jp, rest_q, world);
        for (int j = 0; j < JOINT_COUNT; ++j) {
            double inv[16];
            skf_mat4_invert_affine(inv, world[j]);
            for (int e = 0; e < 16; ++e)
                ibm[16 * j + e] = (float)inv[e];
        }
    }
    st = skf_gltf_add_float_accessor(doc, ibm, JOINT_COUNT, 16, 0, false, &a_ibm, err);
    if (st)
        goto done;
    json_t *mat = json_pack("{s:s,s:{s:[f,f,f,f],s:f,s:f}}", "name", "Fur",
                            "pbrMetallicRoughness", "baseColorFactor", 0.72, 0.52, 0.33, 1.0,
                            "metallicFactor", 0.0, "roughnessFactor", 0.8);
    st = skf_gltf_json_append(doc, "materials", mat, NULL, err);
    if (st)
        goto done;
    int node_of[JOINT_COUNT];
    for (int j = 0; j < JOINT_COUNT && !st; ++j) {
        double t[3];
        int p = joints[j].parent;
        for (int a = 0; a < 3; ++a)
            t[a] = jp[j][a] - (p >= 0 ? jp[p][a] : 0);
        bool rotated = rest_q && !is_identity_quat(rest_q[j]);
        st = skf_gltf_add_node(doc, joints[j].name, p >= 0 ? node_of[p] : -1, t, rotated ? rest_q[j] : NULL, NULL,
                               &node_of[j], err);
    }
    static const char *const attr_names[] = {"POSITION", "NORMAL", "JOINTS_0", "WEIGHTS_0"};
    int attr_acc[4] = {a_pos, a_nrm, a_jnt, a_wts};
    int mesh, skin, mesh_node;
    if (!st)
        st = skf_gltf_add_mesh(doc, "Creature", attr_names, attr_acc, 4, a_idx, &mesh, err);
    if (!st)
        st = skf_gltf_add_skin(doc, "CreatureSkin", node_of, JOINT_COUNT, a_ibm,
                               node_of[J_ROOT], &skin, err);
    if (!st)
        st = skf_gltf_add_node(doc, "Creature", -1, NULL, NULL, NULL, &mesh_node, err);
    if (st)
        goto done;
    json_t *prim = json_array_get(
        json_object_get(json_array_get(json_object_get(doc->json, "meshes"), (size_t)mesh),
                        "primitives"),
        0);
    json_t *node = json_array_get(json_object_get(doc->json, "nodes"), (size_t)mesh_node);
    if (json_object_set_new(prim, "material", json_integer(0)) != 0 ||
        json_object_set_new(node, "mesh", json_integer(mesh)) != 0 ||
        json_object_set_new(node, "skin", json_integer(skin)) != 0) {
        st = skf_fail(err, SKF_ERR_NOMEM, "creature: out of memory");
        goto done;
    }
    if (horns) { /* attached part: a mesh node under the Head joint, no skin */
        int h_pos, h_nrm, h_idx, h_mesh, h_node;
        static const char *const h_names[] = {"POSITION", "NORMAL"};
        st = add_positions_normals(doc, horns, &h_pos, &h_nrm, err);
        if (!st)
            st = skf_gltf_add_uint_accessor(doc, horns->tri, horns->nt * 3, 1, SKF_GLTF_UNSIGNED_SHORT, 34963,
                                            &h_idx, err);
        if (!st)
            st = skf_gltf_add_mesh(doc, "Horns", h_names, (int[2]){h_pos, h_nrm}, 2, h_idx, &h_mesh, err);
        if (!st)
            st = skf_gltf_add_node(doc, "Horns", node_of[J_HEAD], NULL, NULL, NULL, &h_node, err);
        if (st)
            goto done;
        json_t *hn = json_array_get(json_object_get(doc->json, "nodes"), (size_t)h_node);
        json_t *hp = json_array_get(
            json_object_get(json_array_get(json_object_get(doc->json, "meshes"), (size_t)h_mesh), "primitives"), 0);
        if (json_object_set_new(hn, "mesh", json_integer(h_mesh)) != 0 ||
            json_object_set_new(hp, "material", json_integer(0)) != 0) {
            st = skf_fail(err, SKF_ERR_NOMEM, "creature: out of memory");
            goto done;
        }
    }
    st = skf_gltf_reparse(doc, NULL, err);
    /* clips */
    for (size_t c = 0; c < CLIP_COUNT && !st; ++c) {
        const clip_def *cd = &clips[c];
        size_t intervals = (size_t)floor(cd->duration * kps + 0.5);
        if (intervals < 2)
            intervals = 2;
        size_t keys = intervals + 1;
        float *times = skf_malloc_array(keys, sizeof *times);
        float *vals = skf_malloc_array(keys * JOINT_COUNT * 4 + keys * 3, sizeof *vals);
        skf_gltf_new_channel ch[JOINT_COUNT + 1];
        if (!times || !vals) {
            skf_free(times);
            skf_free(vals);
            st = skf_fail(err, SKF_ERR_NOMEM, "creature: out of memory");
            break;
        }
        float *hips_t = vals + keys * JOINT_COUNT * 4;
        for (size_t k = 0; k < keys; ++k) {
            size_t kk = k % intervals; /* the last key repeats the first: exact loop */
            times[k] = (float)(cd->duration * (double)k / (double)intervals);
            double trs[10 * JOINT_COUNT];
            clip_local(cd, (double)kk / (double)intervals, jp, trs);
            if (rest_q) /* a bent joint plays bend · key (creature.h, knee_bend) */
                for (int j = 0; j < JOINT_COUNT; ++j)
                    if (!is_identity_quat(rest_q[j]))
                        skf_quat_mul(trs + 10 * j + 3, rest_q[j], trs + 10 * j + 3);
            for (int j = 0; j < JOINT_COUNT; ++j)
                for (int a = 0; a < 4; ++a)
                    vals[(j * keys + k) * 4 + a] = (float)trs[10 * j + 3 + a];
            for (int a = 0; a < 3; ++a)
                hips_t[k * 3 + a] = (float)trs[10 * J_HIPS + a];
        }
        size_t n = 0;
        ch[n++] = (skf_gltf_new_channel){node_of[J_HIPS], SKF_PATH_TRANSLATION,
                                         SKF_INTERP_LINEAR, keys, times, hips_t, 3};
        for (int j = 1; j < JOINT_COUNT; ++j)
            ch[n++] = (skf_gltf_new_channel){node_of[j], SKF_PATH_ROTATION, SKF_INTERP_LINEAR,
                                             keys, times, vals + (size_t)j * keys * 4, 4};
        st = skf_gltf_add_animation(doc, cd->name, ch, n, err);
        skf_free(times);
        skf_free(vals);
    }
done:
    return st;
}

skf_status skf_creature_build(const skf_creature_options *opt, skf_gltf **out, skf_error *err)
{
    *out = NULL;
    size_t target = opt && opt->vertices ? opt->vertices : 5000;
    double kps = opt && opt->keys_per_second > 0 ? opt->keys_per_second : 30;
    if (target < 500 || target > 4000000)
        return skf_fail(err, SKF_ERR_ARGUMENT,
                        "creature: vertices: %zu out of range (500 .. 4000000)", target);
    if (!(kps >= 4 && kps <= 240))
        return skf_fail(err, SKF_ERR_ARGUMENT,
                        "creature: keys_per_second: %g out of range (4 .. 240)", kps);
    variant var = {opt && opt->leg_scale > 0 ? opt->leg_scale : 1, opt && opt->girth_scale > 0 ? opt->girth_scale : 1,
                   opt && opt->neck_scale > 0 ? opt->neck_scale : 1, opt ? opt->triangulation : 0,
                   opt && opt->horns != SKF_CREATURE_HORNS_NONE};
    int horns = opt ? opt->horns : 0;
    bool diffuse = opt && opt->diffuse_head;
    if (!(var.leg >= 0.5 && var.leg <= 1.5) || !(var.girth >= 0.5 && var.girth <= 1.5) ||
        !(var.neck >= 0.5 && var.neck <= 2.0))
        return skf_fail(err, SKF_ERR_ARGUMENT,
                        "creature: proportions: leg %g, girth %g, neck %g out of range (0.5 .. 1.5, 0.5 .. 1.5, "
                        "0.5 .. 2)",
                        var.leg, var.girth, var.neck);
    if (var.triangulation < 0 || var.triangulation > 1 || horns < 0 || horns > SKF_CREATURE_HORNS_SKINNED)
        return skf_fail(err, SKF_ERR_ARGUMENT, "creature: triangulation %d / horns %d out of range (0..1 / 0..2)",
                        var.triangulation, horns);
    double bend[4] = {0, 0, 0, 0};
    for (int l = 0; l < 4 && opt; ++l) {
        bend[l] = opt->knee_bend[l];
        if (!(bend[l] >= -60 && bend[l] <= 60))
            return skf_fail(err, SKF_ERR_ARGUMENT, "creature: knee_bend[%d]: %g degrees out of range (-60 .. 60)", l,
                            bend[l]);
    }
    double rest_q[JOINT_COUNT][4];
    bool bent = knee_rest_rotations(bend, rest_q);
    const double (*crq)[4] = bent ? (const double (*)[4])rest_q : NULL;
    double jp[JOINT_COUNT][3];
    variant_joints(&var, jp);
    const double (*cjp)[3] = (const double (*)[3])jp;
    tube_def tubes[5];
    make_tubes(tubes, cjp, &var);
    /* resolution k: vertex count grows about as k^2 */
    double k = 1.0, best_k = 1.0;
    size_t best_diff = SIZE_MAX;
    for (int it = 0; it < 40; ++it) {
        size_t n = total_vertices(tubes, k);
        size_t diff = n > target ? n - target : target - n;
        if (diff < best_diff) {
            best_diff = diff;
            best_k = k;
        }
        double ratio = (double)target / (double)n;
        k *= it < 20 ? sqrt(ratio) : (ratio > 1 ? 1.003 : 0.997);
    }
    k = best_k;
    tube_res res[5];
    size_t nv = 0, nt = 0;
    for (int i = 0; i < 5; ++i) {
        tube_resolution(&tubes[i], k, &res[i]);
        nv += tube_vertices(&res[i]);
        nt += tube_triangles(&res[i]);
    }
    size_t skinned_horns = horns == SKF_CREATURE_HORNS_SKINNED ? HORN_VERTICES : 0;
    nv += skinned_horns;
    nt += horns == SKF_CREATURE_HORNS_SKINNED ? HORN_TRIANGLES : 0;
    mesh_out m = {0}, hm = {0};
    m.triangulation = var.triangulation;
    m.pos = skf_malloc_array(nv * 3, sizeof *m.pos);
    m.u = skf_malloc_array(nv, sizeof *m.u);
    m.tube = skf_malloc_array(nv, sizeof *m.tube);
    m.tri = skf_malloc_array(nt * 3, sizeof *m.tri);
    uint32_t *jnt = skf_malloc_array(nv * 4, sizeof *jnt);
    float *wts = skf_malloc_array(nv * 4, sizeof *wts);
    skf_gltf *doc = NULL;
    skf_status st = SKF_OK;
    if (horns == SKF_CREATURE_HORNS_ATTACHED) {
        hm.pos = skf_malloc_array(HORN_VERTICES * 3, sizeof *hm.pos);
        hm.u = skf_malloc_array(HORN_VERTICES, sizeof *hm.u);
        hm.tube = skf_malloc_array(HORN_VERTICES, sizeof *hm.tube);
        hm.tri = skf_malloc_array(HORN_TRIANGLES * 3, sizeof *hm.tri);
        if (!hm.pos || !hm.u || !hm.tube || !hm.tri) {
            st = skf_fail(err, SKF_ERR_NOMEM, "creature: out of memory for the horns");
            goto done;
        }
        emit_horns(&hm, (const double[3]){0, 0, 0});
    }
    if (!m.pos || !m.u || !m.tube || !m.tri || !jnt || !wts) {
        st = skf_fail(err, SKF_ERR_NOMEM, "creature: out of memory for %zu vertices", nv);
        goto done;
    }
    for (int i = 0; i < 5; ++i)
        emit_tube(&tubes[i], i, &res[i], &m);
    if (skinned_horns)
        emit_horns(&m, jp[J_HEAD]);
    for (size_t v = 0; v < m.nv; ++v) {
        if (m.tube[v] < 0) { /* a skinned horn: rigid on the head */
            jnt[4 * v] = J_HEAD;
            wts[4 * v] = 1;
            for (int k2 = 1; k2 < 4; ++k2)
                jnt[4 * v + k2] = 0, wts[4 * v + k2] = 0;
            continue;
        }
        vertex_weights(&tubes[m.tube[v]], m.u[v], jnt + 4 * v, wts + 4 * v);
        if (diffuse)
            diffuse_head(jnt + 4 * v, wts + 4 * v);
    }
    if (crq)
        skin_to_rest(&m, cjp, crq, jnt, wts);
    st = skf_gltf_new_empty("creature", &doc, err);
    if (!st)
        st = build_doc(doc, &m, cjp, crq, jnt, wts, kps, horns == SKF_CREATURE_HORNS_ATTACHED ? &hm : NULL, err);
done:
    skf_free(hm.pos);
    skf_free(hm.u);
    skf_free(hm.tube);
    skf_free(hm.tri);
    skf_free(m.pos);
    skf_free(m.u);
    skf_free(m.tube);
    skf_free(m.tri);
    skf_free(jnt);
    skf_free(wts);
    if (st) {
        skf_gltf_free(doc);
        return st;
    }
    *out = doc;
    return SKF_OK;
}
