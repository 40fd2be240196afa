/* Keypoint JSON input: PoseNet poses, TensorFlow.js pose-detection
 * (MoveNet / BlazePose) poses, MediaPipe Pose landmarks, optional FaceMesh.
 *
 * References: PoseNet (tfjs-models/posenet: pose.score, keypoints[{part,
 * score, position{x,y}}], 17 COCO parts in camelCase); pose-detection
 * (keypoints[{name, x, y, score}], names in snake_case); MediaPipe Pose
 * (33 normalised landmarks {x, y, z, visibility}: 0 nose, 7/8 left/right
 * ear, 11/12 shoulders, 13/14 elbows, 15/16 wrists, 23/24 hips, 25/26
 * knees, 27/28 ankles); FaceMesh (scaledMesh: 468 [x, y, z] in pixels,
 * faceInViewConfidence); Pose Animator's own recording
 * ({pose, face{positions, faceInViewConfidence}}, skeleton.js toFaceFrame).
 * The formats are documented in docs/svg.md.
 */
#include "svg_internal.h"
#include "base/base_internal.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>


typedef struct kctx {
    const char *name;
    skf_error *err;
    double width, height;
} kctx;

/* MediaPipe landmark index of each pose joint (0..13). */
static const int mediapipe_index[SKF_SVG_POSE_JOINT_COUNT] = {
    27, 25, 23, 15, 13, 11, /* left ankle, knee, hip, wrist, elbow, shoulder */
    28, 26, 24, 16, 14, 12, /* right ... */
    7, 8,                   /* left ear, right ear */
};

static skf_status bad(kctx *k, const char *place, const char *what)
{
    return skf_fail(k->err, SKF_ERR_FORMAT, "%s: %s: %s", k->name, place, what);
}

static bool get_num(json_t *o, const char *key, double *out)
{
    json_t *v = json_object_get(o, key);
    if (!v || !json_is_number(v))
        return false;
    *out = json_number_value(v);
    return isfinite(*out);
}

/* Number field: present and finite, else error naming place.key. */
static skf_status need_num(kctx *k, json_t *o, const char *key, const char *place, double *out)
{
    json_t *v = json_object_get(o, key);
    char p[512];
    snprintf(p, sizeof p, "%s.%s", place, key);
    if (!v)
        return bad(k, p, "missing");
    if (!json_is_number(v))
        return bad(k, p, "expected a number");
    *out = json_number_value(v);
    if (!isfinite(*out))
        return bad(k, p, "not a finite number");
    if (fabs(*out) > SVGI_MAX_COORD)
        return bad(k, p, "beyond +-1e12");
    return SKF_OK;
}

/* "left_wrist" -> "leftWrist" (camelCase names pass unchanged). */
static void camel(const char *in, char *out, size_t size)
{
    size_t o = 0;
    bool up = false;
    for (; *in && o + 1 < size; ++in) {
        if (*in == '_') {
            up = true;
            continue;
        }
        char ch = *in;
        if (up && ch >= 'a' && ch <= 'z')
            ch = (char)(ch - 32);
        up = false;
        out[o++] = ch;
    }
    out[o] = 0;
}

static skf_status parse_keypoints(kctx *k, json_t *kps, const char *place, skf_svg_pose_frame *f,
                                  bool *have, double *score_sum, size_t *score_n)
{
    size_t i;
    json_t *kp;
    json_array_foreach(kps, i, kp) {
        char p[512];
        snprintf(p, sizeof p, "%s.keypoints[%zu]", place, i);
        if (!json_is_object(kp))
            return bad(k, p, "expected an object");
        json_t *part = json_object_get(kp, "part");
        json_t *nm = part ? part : json_object_get(kp, "name");
        if (!nm || !json_is_string(nm)) {
            char q[560];
            snprintf(q, sizeof q, "%s.%s", p, part ? "part" : "name");
            return bad(k, q, part ? "expected a string" : "missing (needs \"part\" or \"name\")");
        }
        char cname[64];
        camel(json_string_value(nm), cname, sizeof cname);
        double x, y, s = 1;
        skf_status st;
        json_t *pos = json_object_get(kp, "position");
        if (part || pos) {
            char q[560];
            snprintf(q, sizeof q, "%s.position", p);
            if (!pos)
                return bad(k, q, "missing");
            if (!json_is_object(pos))
                return bad(k, q, "expected an object {x, y}");
            if ((st = need_num(k, pos, "x", q, &x)) || (st = need_num(k, pos, "y", q, &y)))
                return st;
        } else {
            if ((st = need_num(k, kp, "x", p, &x)) || (st = need_num(k, kp, "y", p, &y)))
                return st;
        }
        if (json_object_get(kp, "score") && (st = need_num(k, kp, "score", p, &s)))
            return st;
        *score_sum += s;
        ++*score_n;
        int j = skf_svg_joint_index(cname);
        if (j < 0 || j >= SKF_SVG_POSE_JOINT_COUNT)
            continue; /* nose, eyes: not used by the rig */
        f->xy[j][0] = x;
        f->xy[j][1] = y;
        f->score[j] = s;
        have[j] = true;
    }
    return SKF_OK;
}

static skf_status parse_mediapipe(kctx *k, json_t *lm, const char *place, skf_svg_pose_frame *f,
                                  bool *have, double *score_sum, size_t *score_n)
{
    /* MediaPipe Tasks nests poses: [[33 landmarks], ...] -> the first pose */
    if (json_array_size(lm) > 0 && json_is_array(json_array_get(lm, 0)))
        lm = json_array_get(lm, 0);
    if (json_array_size(lm) < 33) {
        char m[96];
        snprintf(m, sizeof m, "expected 33 MediaPipe landmarks, found %zu", json_array_size(lm));
        return bad(k, place, m);
    }
    for (int i = 0; i < 33; ++i) {
        json_t *p = json_array_get(lm, (size_t)i);
        char q[512];
        snprintf(q, sizeof q, "%s[%d]", place, i);
        if (!json_is_object(p))
            return bad(k, q, "expected an object {x, y, visibility}");
        double x, y, s = 1;
        skf_status st;
        if ((st = need_num(k, p, "x", q, &x)) || (st = need_num(k, p, "y", q, &y)))
            return st;
        if (!get_num(p, "visibility", &s) && !get_num(p, "presence", &s))
            get_num(p, "score", &s);
        *score_sum += s;
        ++*score_n;
        for (int j = 0; j < SKF_SVG_POSE_JOINT_COUNT; ++j) {
            if (mediapipe_index[j] != i)
                continue;
            f->xy[j][0] = x * k->width;
            f->xy[j][1] = y * k->height;
            if (!(fabs(f->xy[j][0]) <= SVGI_MAX_COORD && fabs(f->xy[j][1]) <= SVGI_MAX_COORD))
                return bad(k, q, "beyond +-1e12 after scaling by width/height");
            f->score[j] = s;
            have[j] = true;
        }
    }
    return SKF_OK;
}

static skf_status parse_face(kctx *k, json_t *face, const char *place, skf_svg_pose_frame *f)
{
    if (json_is_array(face)) { /* estimateFaces() result: the first face */
        if (!json_array_size(face))
            return SKF_OK;
        face = json_array_get(face, 0);
    }
    if (json_is_null(face))
        return SKF_OK;
    if (!json_is_object(face))
        return bad(k, place, "expected an object");
    double conf = 1;
    skf_status st;
    const char *ckey = json_object_get(face, "faceInViewConfidence") ? "faceInViewConfidence"
                       : json_object_get(face, "score")              ? "score"
                                                                     : NULL;
    if (ckey && (st = need_num(k, face, ckey, place, &conf)))
        return st;
    json_t *mesh = json_object_get(face, "scaledMesh");
    json_t *kps = json_object_get(face, "keypoints");
    json_t *lms = json_object_get(face, "landmarks");
    json_t *positions = json_object_get(face, "positions");
    char q[512];
    if (positions) {
        snprintf(q, sizeof q, "%s.positions", place);
        if (!json_is_array(positions) || json_array_size(positions) != 2 * SKF_SVG_FACE_JOINT_COUNT)
            return bad(k, q, "expected 146 numbers (73 face points x, y)");
        for (int i = 0; i < 2 * SKF_SVG_FACE_JOINT_COUNT; ++i) {
            json_t *v = json_array_get(positions, (size_t)i);
            if (!json_is_number(v) || !isfinite(json_number_value(v))) {
                snprintf(q, sizeof q, "%s.positions[%d]", place, i);
                return bad(k, q, "expected a number");
            }
            f->face_xy[i / 2][i % 2] = json_number_value(v);
            if (!(fabs(json_number_value(v)) <= SVGI_MAX_COORD)) {
                snprintf(q, sizeof q, "%s.positions[%d]", place, i);
                return bad(k, q, "beyond +-1e12");
            }
        }
    } else {
        json_t *arr = mesh ? mesh : kps ? kps : lms;
        const char *key = mesh ? "scaledMesh" : kps ? "keypoints" : "landmarks";
        snprintf(q, sizeof q, "%s.%s", place, key);
        if (!arr)
            return bad(k, place, "missing scaledMesh, keypoints, landmarks or positions");
        if (lms && !mesh && !kps && json_array_size(lms) > 0 &&
            json_is_array(json_array_get(lms, 0)) &&
            !json_is_number(json_array_get(json_array_get(lms, 0), 0)))
            arr = json_array_get(lms, 0); /* MediaPipe Tasks: [[468 landmarks], ...] */
        if (!json_is_array(arr) || json_array_size(arr) < 468) {
            char m[96];
            snprintf(m, sizeof m, "expected 468 FaceMesh points, found %zu", json_array_size(arr));
            return bad(k, q, m);
        }
        double sx = arr == mesh || arr == kps ? 1 : k->width;
        double sy = arr == mesh || arr == kps ? 1 : k->height;
        for (int jj = 0; jj < SKF_SVG_FACE_JOINT_COUNT; ++jj) {
            int mi = skf_svg_joint_facemesh_index(SKF_SVG_POSE_JOINT_COUNT + jj);
            json_t *p = json_array_get(arr, (size_t)mi);
            char r[560];
            snprintf(r, sizeof r, "%s[%d]", q, mi);
            double x, y;
            if (json_is_array(p)) {
                json_t *vx = json_array_get(p, 0), *vy = json_array_get(p, 1);
                if (!json_is_number(vx) || !json_is_number(vy))
                    return bad(k, r, "expected [x, y] or [x, y, z]");
                x = json_number_value(vx);
                y = json_number_value(vy);
                if (!isfinite(x) || !isfinite(y))
                    return bad(k, r, "not a finite number");
            } else if (json_is_object(p)) {
                if ((st = need_num(k, p, "x", r, &x)) || (st = need_num(k, p, "y", r, &y)))
                    return st;
            } else {
                return bad(k, r, "expected [x, y] or {x, y}");
            }
            f->face_xy[jj][0] = x * sx;
            f->face_xy[jj][1] = y * sy;
            if (!(fabs(f->face_xy[jj][0]) <= SVGI_MAX_COORD && fabs(f->face_xy[jj][1]) <= SVGI_MAX_COORD))
                return bad(k, r, "beyond +-1e12");
        }
    }
    f->has_face = true;
    f->face_score = conf;
    return SKF_OK;
}

static skf_status parse_frame(kctx *k, json_t *fr, size_t index, skf_svg_pose_frame *f)
{
    char place[64];
    snprintf(place, sizeof place, "frames[%zu]", index);
    memset(f, 0, sizeof *f);
    bool have[SKF_SVG_POSE_JOINT_COUNT] = {false};
    double ssum = 0;
    size_t sn = 0;
    skf_status st = SKF_OK;
    json_t *pose = fr, *face = NULL;
    char pplace[96];
    snprintf(pplace, sizeof pplace, "%s", place);
    if (json_is_object(fr)) {
        face = json_object_get(fr, "face");
        json_t *p = json_object_get(fr, "pose");
        if (p) {
            pose = p;
            snprintf(pplace, sizeof pplace, "%s.pose", place);
        }
    } else if (!json_is_array(fr)) {
        return bad(k, place, "expected an object (a pose) or an array (MediaPipe landmarks)");
    }
    bool has_score = false;
    if (json_is_array(pose)) {
        st = parse_mediapipe(k, pose, pplace, f, have, &ssum, &sn);
    } else if (json_is_object(pose)) {
        json_t *kps = json_object_get(pose, "keypoints");
        json_t *lm = json_object_get(pose, "landmarks");
        const char *lkey = "landmarks";
        if (!lm) {
            lm = json_object_get(pose, "poseLandmarks");
            lkey = "poseLandmarks";
        }
        char q[160];
        if (kps) {
            snprintf(q, sizeof q, "%s.keypoints", pplace);
            if (!json_is_array(kps))
                return bad(k, q, "expected an array");
            st = parse_keypoints(k, kps, pplace, f, have, &ssum, &sn);
        } else if (lm) {
            snprintf(q, sizeof q, "%s.%s", pplace, lkey);
            if (!json_is_array(lm))
                return bad(k, q, "expected an array");
            st = parse_mediapipe(k, lm, q, f, have, &ssum, &sn);
        } else {
            return bad(k, pplace, "no keypoints, landmarks or poseLandmarks");
        }
        if (st == SKF_OK && json_object_get(pose, "score")) {
            st = need_num(k, pose, "score", pplace, &f->pose_score);
            has_score = true;
        }
    } else {
        return bad(k, pplace, "expected an object or an array");
    }
    if (st != SKF_OK)
        return st;
    if (!has_score)
        f->pose_score = sn ? ssum / (double)sn : 0;
    char missing[512] = "";
    size_t ml = 0, nm = 0;
    for (int j = 0; j < SKF_SVG_POSE_JOINT_COUNT; ++j) {
        if (have[j])
            continue;
        int w = snprintf(missing + ml, sizeof missing - ml, "%s%s", nm ? ", " : "",
                         skf_svg_joint_name(j));
        if (w > 0 && (size_t)w < sizeof missing - ml)
            ml += (size_t)w;
        nm++;
    }
    if (nm) {
        char m[600];
        snprintf(m, sizeof m, "missing keypoint%s %s", nm == 1 ? "" : "s", missing);
        char q[160];
        snprintf(q, sizeof q, "%s.keypoints", pplace);
        return bad(k, q, m);
    }
    if (face) {
        char q[96];
        snprintf(q, sizeof q, "%s.face", place);
        st = parse_face(k, face, q, f);
    }
    return st;
}

skf_status skf_svg_poses_parse(const char *json, size_t size, const char *name, double width,
                               double height, skf_svg_poses *out, skf_error *err)
{
    memset(out, 0, sizeof *out);
    if (!name)
        name = "<memory>";
    json_error_t je;
    bool nomem;
    json_t *root = skfi_json_loadb(json, size, JSON_REJECT_DUPLICATES, &je, &nomem);
    if (nomem)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", name);
    if (!root)
        return skf_fail(err, SKF_ERR_FORMAT, "%s: line %d column %d: %s", name, je.line, je.column,
                        je.text);
    kctx k = {name, err, width, height};
    json_t *frames = root;
    skf_status st = SKF_OK;
    if (json_is_object(root)) {
        json_t *fr = json_object_get(root, "frames");
        if (fr) {
            frames = fr;
            double v;
            if (json_object_get(root, "fps") && (st = need_num(&k, root, "fps", "$", &v)) == SKF_OK) {
                if (!(v > 0))
                    st = bad(&k, "$.fps", "must be > 0");
                out->fps = v;
            }
            if (st == SKF_OK && json_object_get(root, "width") &&
                (st = need_num(&k, root, "width", "$", &k.width)) == SKF_OK && !(k.width > 0))
                st = bad(&k, "$.width", "must be > 0");
            if (st == SKF_OK && json_object_get(root, "height") &&
                (st = need_num(&k, root, "height", "$", &k.height)) == SKF_OK && !(k.height > 0))
                st = bad(&k, "$.height", "must be > 0");
            if (st == SKF_OK && !json_is_array(frames))
                st = bad(&k, "frames", "expected an array");
        }
    }
    json_t *single = NULL;
    if (st == SKF_OK && !json_is_array(frames)) {
        single = json_array(); /* one pose object at the top level */
        if (!single || json_array_append(single, frames)) {
            st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", name);
        }
        frames = single;
    }
    /* a bare MediaPipe landmark list is one frame, not 33 frames */
    if (st == SKF_OK && !single && frames == root && json_array_size(root) >= 33 &&
        json_is_object(json_array_get(root, 0)) &&
        !json_object_get(json_array_get(root, 0), "keypoints") &&
        !json_object_get(json_array_get(root, 0), "pose") &&
        json_object_get(json_array_get(root, 0), "x")) {
        single = json_array();
        if (!single || json_array_append(single, root))
            st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", name);
        frames = single;
    }
    size_t n = st == SKF_OK ? json_array_size(frames) : 0;
    if (st == SKF_OK && n == 0)
        st = bad(&k, "frames", "no frames");
    if (st == SKF_OK) {
        out->frames = skf_malloc_array(n, sizeof *out->frames);
        if (!out->frames)
            st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory for %zu frames", name, n);
    }
    for (size_t i = 0; i < n && st == SKF_OK; ++i) {
        st = parse_frame(&k, json_array_get(frames, i), i, &out->frames[i]);
        if (st == SKF_OK)
            out->count = i + 1;
    }
    if (single)
        json_decref(single);
    json_decref(root);
    if (st != SKF_OK)
        skf_svg_poses_release(out);
    return st;
}

skf_status skf_svg_poses_load(const char *path, double width, double height,
                              const skf_svg_poses_options *opts, skf_svg_poses *out, skf_error *err)
{
    memset(out, 0, sizeof *out);
    uint8_t *data = NULL;
    size_t size = 0;
    skf_status st = skf_read_file_limits(path, opts ? opts->limits : NULL, SKF_LIMIT_KEYPOINT_BYTES,
                                         &data, &size, err);
    if (st != SKF_OK)
        return st;
    st = skf_svg_poses_parse((const char *)data, size, path, width, height, out, err);
    skf_free(data);
    return st;
}

void skf_svg_poses_release(skf_svg_poses *p)
{
    skf_free(p->frames);
    memset(p, 0, sizeof *p);
}
