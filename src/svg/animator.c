/* Per-frame motion stabilisation and the face fallback.
 *
 * Reference: Pose Animator (Google 2020), illustrationGen/skeleton.js
 * (Skeleton.update, updatePoseParts, updateFaceParts) and illustration.js
 * (updateSkeleton, draw):
 *  - a frame whose pose score is below 0.1 is skipped (MIN_POSE_SCORE);
 *  - each PoseNet part is smoothed with the previous one weighted by
 *    confidence: P = w0 P_prev + w1 P_new, w0 = s0/(s0+s1), w1 = s1/(s0+s1),
 *    carried score s = s0 w0 + s1 w1 = (s0^2 + s1^2)/(s0 + s1);
 *  - a face with faceInViewConfidence > 0.8 sets the 73 face joints (score =
 *    that confidence) and records where leftJaw2 / rightJaw2 sit in the
 *    frame of the two ears; otherwise the face joints are placed rigidly
 *    (similarity) from the rest face so that leftJaw2 / rightJaw2 land on
 *    the ear-inferred points (the ears themselves when no face was ever
 *    seen), with score 1;
 *  - bone score = mean of its two joint scores; secondary bones follow
 *    their parents; body and face scale = current / rest total bone length;
 *  - a path whose confidence is below 0.3 is not drawn.
 * Fixes: s0 + s1 = 0 gives equal weights instead of NaN; a skipped frame
 * keeps the previous drawing instead of blanking the canvas.
 */
#include "svg_internal.h"

#include <math.h>
#include <string.h>

struct skf_svg_animator {
    const skf_svg_character *c;
    bool smoothing;
    double min_conf;
    bool has_pose;
    double pos[SKF_SVG_JOINT_COUNT][2];
    double score[SKF_SVG_JOINT_COUNT];
    bool has_ear_funcs;
    skfi_svg_tfunc left_ear_f, right_ear_f;
    skfi_svg_bone_state *bs;
    double body_scale, face_scale;
    double *xy;       /* 2 * point_count */
    double *conf;     /* path_count */
    bool *visible;    /* path_count */
};

skf_status skf_svg_animator_new(const skf_svg_character *c, const skf_svg_animate_options *opts,
                                skf_svg_animator **out, skf_error *err)
{
    *out = NULL;
    skf_svg_animator *a = skf_calloc(1, sizeof *a);
    if (!a)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", c->name);
    a->c = c;
    a->smoothing = !(opts && opts->no_smoothing);
    a->min_conf = (opts && opts->min_path_confidence >= 0) ? opts->min_path_confidence
                                                           : SKF_SVG_MIN_PATH_CONFIDENCE;
    a->bs = skf_calloc(c->bone_count ? c->bone_count : 1, sizeof *a->bs);
    a->xy = skf_malloc_array(c->point_count ? 2 * c->point_count : 1, sizeof *a->xy);
    a->conf = skf_calloc(c->path_count ? c->path_count : 1, sizeof *a->conf);
    a->visible = skf_calloc(c->path_count ? c->path_count : 1, sizeof *a->visible);
    if (!a->bs || !a->xy || !a->conf || !a->visible) {
        skf_svg_animator_free(a);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", c->name);
    }
    /* rest state: drawing = input geometry, every path visible */
    for (size_t i = 0; i < c->path_count; ++i) {
        const skfi_svg_path *p = &c->paths[i];
        memcpy(a->xy + 2 * p->point_base, p->geom.xy, 6 * p->geom.node_count * sizeof(double));
        a->conf[i] = 1;
        a->visible[i] = true;
    }
    memcpy(a->pos, c->joint, sizeof a->pos);
    for (int j = 0; j < SKF_SVG_JOINT_COUNT; ++j)
        a->score[j] = 1;
    a->body_scale = a->face_scale = 1;
    *out = a;
    return SKF_OK;
}

void skf_svg_animator_free(skf_svg_animator *a)
{
    if (!a)
        return;
    skf_free(a->bs);
    skf_free(a->xy);
    skf_free(a->conf);
    skf_free(a->visible);
    skf_free(a);
}

static void update_pose_parts(skf_svg_animator *a, const skf_svg_pose_frame *f)
{
    for (int j = 0; j < SKF_SVG_POSE_JOINT_COUNT; ++j) {
        double s1 = f->score[j];
        if (!a->smoothing || !a->has_pose) {
            a->pos[j][0] = f->xy[j][0];
            a->pos[j][1] = f->xy[j][1];
            a->score[j] = s1;
            continue;
        }
        double s0 = a->score[j], sum = s0 + s1;
        double w0 = 0.5, w1 = 0.5;
        if (sum > 0) {
            w0 = s0 / sum;
            w1 = s1 / sum;
        }
        a->pos[j][0] = w0 * a->pos[j][0] + w1 * f->xy[j][0];
        a->pos[j][1] = w0 * a->pos[j][1] + w1 * f->xy[j][1];
        a->score[j] = s0 * w0 + s1 * w1;
    }
}

static void update_face_parts(skf_svg_animator *a, const skf_svg_pose_frame *f)
{
    const skf_svg_character *c = a->c;
    const double *ear_l = a->pos[SVGI_J_LEFT_EAR], *ear_r = a->pos[SVGI_J_RIGHT_EAR];
    if (f->has_face && f->face_score > SKF_SVG_MIN_FACE_SCORE) {
        for (int k = 0; k < SKF_SVG_FACE_JOINT_COUNT; ++k) {
            int j = SKF_SVG_POSE_JOINT_COUNT + k;
            a->pos[j][0] = f->face_xy[k][0];
            a->pos[j][1] = f->face_xy[k][1];
            a->score[j] = f->face_score;
        }
        skfi_svg_tfunc_make(&a->left_ear_f, ear_l, ear_r, a->pos[skfi_svg_joint_left_jaw2()]);
        skfi_svg_tfunc_make(&a->right_ear_f, ear_l, ear_r, a->pos[skfi_svg_joint_right_jaw2()]);
        a->has_ear_funcs = true;
        return;
    }
    double fl[2], fr[2];
    if (a->has_ear_funcs) {
        skfi_svg_tfunc_eval(&a->left_ear_f, ear_l, ear_r, fl);
        skfi_svg_tfunc_eval(&a->right_ear_f, ear_l, ear_r, fr);
    } else {
        memcpy(fl, ear_l, sizeof fl);
        memcpy(fr, ear_r, sizeof fr);
    }
    for (int b = 0; b < SKF_SVG_FACE_BONE_COUNT; ++b) {
        int ends[2] = {c->bones[b].j0, c->bones[b].j1};
        for (int e = 0; e < 2; ++e) {
            skfi_svg_tfunc_eval(&c->face_base[ends[e]], fl, fr, a->pos[ends[e]]);
            a->score[ends[e]] = 1;
        }
    }
}

static void update_bones(skf_svg_animator *a)
{
    const skf_svg_character *c = a->c;
    double body = 0, face = 0;
    for (size_t b = 0; b < c->bone_count; ++b) {
        const skfi_svg_bone *B = &c->bones[b];
        skfi_svg_bone_state *S = &a->bs[b];
        double kp1[2];
        if (B->parent < 0) {
            memcpy(S->kp0, a->pos[B->j0], sizeof S->kp0);
            memcpy(kp1, a->pos[B->j1], sizeof kp1);
            S->score = 0.5 * (a->score[B->j0] + a->score[B->j1]);
        } else {
            const skfi_svg_bone *P = &c->bones[B->parent];
            skfi_svg_tfunc_eval(&B->f0, a->pos[P->j0], a->pos[B->other0], S->kp0);
            skfi_svg_tfunc_eval(&B->f1, a->pos[P->j1], a->pos[B->other1], kp1);
            S->score = a->bs[B->parent].score; /* parents come first */
        }
        S->d[0] = kp1[0] - S->kp0[0];
        S->d[1] = kp1[1] - S->kp0[1];
        if (B->parent < 0) {
            double l = hypot(S->d[0], S->d[1]);
            if (B->face)
                face += l;
            else
                body += l;
        }
    }
    a->body_scale = body / c->body_len0;
    a->face_scale = face / c->face_len0;
    for (size_t b = 0; b < c->bone_count; ++b) {
        skfi_svg_bone_state *S = &a->bs[b];
        double l = hypot(S->d[0], S->d[1]);
        double s = c->bones[b].face ? a->face_scale : a->body_scale;
        S->k = l > 0 ? s / l : 0;
    }
}

skf_svg_frame_state skf_svg_animator_update(skf_svg_animator *a, const skf_svg_pose_frame *f)
{
    if (!(f->pose_score >= SKF_SVG_MIN_POSE_SCORE))
        return SKF_SVG_FRAME_SKIPPED;
    update_pose_parts(a, f);
    update_face_parts(a, f);
    a->has_pose = true;
    update_bones(a);
    skfi_svg_deform(a->c, a->bs, a->xy, a->conf);
    for (size_t i = 0; i < a->c->path_count; ++i)
        a->visible[i] = a->conf[i] >= a->min_conf;
    return SKF_SVG_FRAME_DRAWN;
}

bool skf_svg_animator_has_pose(const skf_svg_animator *a) { return a->has_pose; }

void skf_svg_animator_joint(const skf_svg_animator *a, int j, double xy[2], double *score)
{
    xy[0] = a->pos[j][0];
    xy[1] = a->pos[j][1];
    if (score)
        *score = a->score[j];
}

void skf_svg_animator_scales(const skf_svg_animator *a, double *body, double *face)
{
    *body = a->body_scale;
    *face = a->face_scale;
}

const double *skf_svg_animator_path(const skf_svg_animator *a, size_t i, double *confidence,
                                    bool *visible)
{
    if (confidence)
        *confidence = a->conf[i];
    if (visible)
        *visible = a->visible[i];
    return a->xy + 2 * a->c->paths[i].point_base;
}

const skf_svg_character *skfi_svg_animator_character(const skf_svg_animator *a) { return a->c; }
