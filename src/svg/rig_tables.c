/* Pose Animator's rig as data: joints, bones, bone groups.
 *
 * Reference: Pose Animator (Google 2020), illustrationGen/skeleton.js — the
 * 14 PoseNet parts it reads (posePartNames), the 73 FaceMesh points
 * (facePartNames with their FaceMesh vertex indices, facePartName2Index),
 * the 68 face bones and 12 body bones (faceBones, bodyBones) and the bone
 * groups used to choose a point's candidate bones (boneGroups). The blog
 * post quotes other counts; these follow the code.
 */
#include "svg_internal.h"

#include <math.h>
#include <string.h>

static const char *const joint_names[SKF_SVG_JOINT_COUNT] = {
    /* PoseNet parts (0..13) */
    "leftAnkle", "leftKnee", "leftHip", "leftWrist", "leftElbow", "leftShoulder",
    "rightAnkle", "rightKnee", "rightHip", "rightWrist", "rightElbow", "rightShoulder",
    "leftEar", "rightEar",
    /* FaceMesh points (14..86) */
    "topMid", "rightTop0", "rightTop1", "leftTop0", "leftTop1",
    "rightJaw0", "rightJaw1", "rightJaw2", "rightJaw3", "rightJaw4", "rightJaw5", "rightJaw6",
    "rightJaw7", "jawMid",
    "leftJaw7", "leftJaw6", "leftJaw5", "leftJaw4", "leftJaw3", "leftJaw2", "leftJaw1", "leftJaw0",
    "rightBrow0", "rightBrow1", "rightBrow2", "rightBrow3", "rightBrow4",
    "leftBrow4", "leftBrow3", "leftBrow2", "leftBrow1", "leftBrow0",
    "nose0", "nose1", "nose2", "nose3",
    "rightNose0", "rightNose1", "nose4", "leftNose1", "leftNose0",
    "rightEye0", "rightEye1", "rightEye2", "rightEye3", "rightEye4", "rightEye5",
    "leftEye3", "leftEye2", "leftEye1", "leftEye0", "leftEye5", "leftEye4",
    "rightMouthCorner", "rightUpperLipTop0", "rightUpperLipTop1", "upperLipTopMid",
    "leftUpperLipTop1", "leftUpperLipTop0", "leftMouthCorner",
    "leftLowerLipBottom0", "leftLowerLipBottom1", "lowerLipBottomMid", "rightLowerLipBottom1",
    "rightLowerLipBottom0",
    "rightMiddleLip", "rightUpperLipBottom1", "upperLipBottomMid", "leftUpperLipBottom1",
    "leftMiddleLip",
    "leftLowerLipTop0", "lowerLipTopMid", "rightLowerLipTop0",
};

/* FaceMesh (468-vertex) index of each face joint, in joint order 14..86. */
static const short facemesh_index[SKF_SVG_FACE_JOINT_COUNT] = {
    10, 67, 54, 297, 284,
    21, 162, 127, 234, 132, 172, 150, 176, 152,
    400, 379, 397, 361, 454, 356, 389, 251,
    46, 53, 52, 65, 55,
    285, 295, 282, 283, 276,
    6, 197, 195, 5,
    48, 220, 4, 440, 278,
    33, 160, 158, 133, 153, 144,
    362, 385, 387, 263, 373, 380,
    61, 40, 37, 0, 267, 270, 291,
    321, 314, 17, 84, 91,
    78, 81, 13, 311, 308,
    402, 14, 178,
};

typedef struct bone_def {
    const char *a, *b, *name;
} bone_def;

/* faceBones then bodyBones, in Pose Animator's list order. */
static const bone_def bone_defs[SKF_SVG_BONE_COUNT] = {
    {"topMid", "rightTop0", "topMid-rightTop0"}, {"rightTop0", "rightTop1", "rightTop0-rightTop1"}, {"topMid", "leftTop0", "topMid-leftTop0"},
    {"leftTop0", "leftTop1", "leftTop0-leftTop1"}, {"leftTop1", "leftJaw2", "leftTop1-leftJaw2"}, {"leftJaw2", "leftJaw3", "leftJaw2-leftJaw3"},
    {"leftJaw3", "leftJaw4", "leftJaw3-leftJaw4"}, {"leftJaw4", "leftJaw5", "leftJaw4-leftJaw5"}, {"leftJaw5", "leftJaw6", "leftJaw5-leftJaw6"},
    {"leftJaw6", "leftJaw7", "leftJaw6-leftJaw7"}, {"leftJaw7", "jawMid", "leftJaw7-jawMid"}, {"rightTop1", "rightJaw2", "rightTop1-rightJaw2"},
    {"rightJaw2", "rightJaw3", "rightJaw2-rightJaw3"}, {"rightJaw3", "rightJaw4", "rightJaw3-rightJaw4"}, {"rightJaw4", "rightJaw5", "rightJaw4-rightJaw5"},
    {"rightJaw5", "rightJaw6", "rightJaw5-rightJaw6"}, {"rightJaw6", "rightJaw7", "rightJaw6-rightJaw7"}, {"rightJaw7", "jawMid", "rightJaw7-jawMid"},
    {"leftEye0", "leftEye1", "leftEye0-leftEye1"}, {"leftEye1", "leftEye2", "leftEye1-leftEye2"}, {"leftEye2", "leftEye3", "leftEye2-leftEye3"},
    {"leftEye3", "leftEye4", "leftEye3-leftEye4"}, {"leftEye4", "leftEye5", "leftEye4-leftEye5"}, {"leftEye5", "leftEye0", "leftEye5-leftEye0"},
    {"rightEye0", "rightEye1", "rightEye0-rightEye1"}, {"rightEye1", "rightEye2", "rightEye1-rightEye2"}, {"rightEye2", "rightEye3", "rightEye2-rightEye3"},
    {"rightEye3", "rightEye4", "rightEye3-rightEye4"}, {"rightEye4", "rightEye5", "rightEye4-rightEye5"}, {"rightEye5", "rightEye0", "rightEye5-rightEye0"},
    {"leftBrow0", "leftBrow1", "leftBrow0-leftBrow1"}, {"leftBrow1", "leftBrow2", "leftBrow1-leftBrow2"}, {"leftBrow2", "leftBrow3", "leftBrow2-leftBrow3"},
    {"leftBrow3", "leftBrow4", "leftBrow3-leftBrow4"}, {"rightBrow0", "rightBrow1", "rightBrow0-rightBrow1"}, {"rightBrow1", "rightBrow2", "rightBrow1-rightBrow2"},
    {"rightBrow2", "rightBrow3", "rightBrow2-rightBrow3"}, {"rightBrow3", "rightBrow4", "rightBrow3-rightBrow4"}, {"nose0", "nose1", "nose0-nose1"},
    {"nose1", "nose2", "nose1-nose2"}, {"nose2", "nose3", "nose2-nose3"}, {"nose3", "nose4", "nose3-nose4"}, {"leftNose0", "leftNose1", "leftNose0-leftNose1"},
    {"leftNose1", "nose4", "leftNose1-nose4"}, {"rightNose0", "rightNose1", "rightNose0-rightNose1"}, {"rightNose1", "nose4", "rightNose1-nose4"},
    {"leftMouthCorner", "leftUpperLipTop0", "leftMouthCorner-leftUpperLipTop0"}, {"leftUpperLipTop0", "leftUpperLipTop1", "leftUpperLipTop0-leftUpperLipTop1"},
    {"leftUpperLipTop1", "upperLipTopMid", "leftUpperLipTop1-upperLipTopMid"}, {"rightMouthCorner", "rightUpperLipTop0", "rightMouthCorner-rightUpperLipTop0"},
    {"rightUpperLipTop0", "rightUpperLipTop1", "rightUpperLipTop0-rightUpperLipTop1"}, {"rightUpperLipTop1", "upperLipTopMid", "rightUpperLipTop1-upperLipTopMid"},
    {"leftMouthCorner", "leftMiddleLip", "leftMouthCorner-leftMiddleLip"}, {"leftMiddleLip", "leftUpperLipBottom1", "leftMiddleLip-leftUpperLipBottom1"},
    {"leftUpperLipBottom1", "upperLipBottomMid", "leftUpperLipBottom1-upperLipBottomMid"}, {"rightMouthCorner", "rightMiddleLip", "rightMouthCorner-rightMiddleLip"},
    {"rightMiddleLip", "rightUpperLipBottom1", "rightMiddleLip-rightUpperLipBottom1"}, {"rightUpperLipBottom1", "upperLipBottomMid", "rightUpperLipBottom1-upperLipBottomMid"},
    {"leftMiddleLip", "leftLowerLipTop0", "leftMiddleLip-leftLowerLipTop0"}, {"leftLowerLipTop0", "lowerLipTopMid", "leftLowerLipTop0-lowerLipTopMid"},
    {"rightMiddleLip", "rightLowerLipTop0", "rightMiddleLip-rightLowerLipTop0"}, {"rightLowerLipTop0", "lowerLipTopMid", "rightLowerLipTop0-lowerLipTopMid"},
    {"leftMouthCorner", "leftLowerLipBottom0", "leftMouthCorner-leftLowerLipBottom0"}, {"leftLowerLipBottom0", "leftLowerLipBottom1", "leftLowerLipBottom0-leftLowerLipBottom1"},
    {"leftLowerLipBottom1", "lowerLipBottomMid", "leftLowerLipBottom1-lowerLipBottomMid"}, {"rightMouthCorner", "rightLowerLipBottom0", "rightMouthCorner-rightLowerLipBottom0"},
    {"rightLowerLipBottom0", "rightLowerLipBottom1", "rightLowerLipBottom0-rightLowerLipBottom1"}, {"rightLowerLipBottom1", "lowerLipBottomMid", "rightLowerLipBottom1-lowerLipBottomMid"},
    /* body (68..79) */
    {"leftShoulder", "rightShoulder", "leftShoulder-rightShoulder"}, {"rightShoulder", "rightHip", "rightShoulder-rightHip"}, {"leftHip", "rightHip", "leftHip-rightHip"},
    {"leftShoulder", "leftHip", "leftShoulder-leftHip"}, {"leftShoulder", "leftElbow", "leftShoulder-leftElbow"}, {"leftElbow", "leftWrist", "leftElbow-leftWrist"},
    {"rightShoulder", "rightElbow", "rightShoulder-rightElbow"}, {"rightElbow", "rightWrist", "rightElbow-rightWrist"}, {"leftHip", "leftKnee", "leftHip-leftKnee"},
    {"leftKnee", "leftAnkle", "leftKnee-leftAnkle"}, {"rightHip", "rightKnee", "rightHip-rightKnee"}, {"rightKnee", "rightAnkle", "rightKnee-rightAnkle"},
};

static const int group_torso[] = {68, 69, 70, 71};
static const int group_left_leg[] = {76, 77};
static const int group_right_leg[] = {78, 79};
static const int group_left_arm[] = {72, 73};
static const int group_right_arm[] = {75, 74};

static const int group_face[SKF_SVG_FACE_BONE_COUNT] = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
    23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45,
    46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67,
};

const int *skfi_svg_group_bones(int g, int *n)
{
    switch (g) {
    case SVGI_GROUP_TORSO: *n = 4; return group_torso;
    case SVGI_GROUP_LEFT_LEG: *n = 2; return group_left_leg;
    case SVGI_GROUP_RIGHT_LEG: *n = 2; return group_right_leg;
    case SVGI_GROUP_LEFT_ARM: *n = 2; return group_left_arm;
    case SVGI_GROUP_RIGHT_ARM: *n = 2; return group_right_arm;
    default: *n = SKF_SVG_FACE_BONE_COUNT; return group_face;
    }
}

const char *skf_svg_joint_name(int j)
{
    return (j >= 0 && j < SKF_SVG_JOINT_COUNT) ? joint_names[j] : NULL;
}

int skf_svg_joint_index(const char *name)
{
    for (int j = 0; j < SKF_SVG_JOINT_COUNT; ++j)
        if (!strcmp(joint_names[j], name))
            return j;
    return -1;
}

int skf_svg_joint_facemesh_index(int j)
{
    if (j < SKF_SVG_POSE_JOINT_COUNT || j >= SKF_SVG_JOINT_COUNT)
        return -1;
    return facemesh_index[j - SKF_SVG_POSE_JOINT_COUNT];
}

static int bone_joint(int b, int end)
{
    return skf_svg_joint_index(end ? bone_defs[b].b : bone_defs[b].a);
}

const char *skf_svg_bone(int b, int *j0, int *j1, bool *face)
{
    if (b < 0 || b >= SKF_SVG_BONE_COUNT)
        return NULL;
    if (j0)
        *j0 = bone_joint(b, 0);
    if (j1)
        *j1 = bone_joint(b, 1);
    if (face)
        *face = b < SKF_SVG_FACE_BONE_COUNT;
    return bone_defs[b].name;
}

bool skf_svg_joint_required(int j)
{
    for (int b = 0; b < SKF_SVG_BONE_COUNT; ++b)
        if (bone_joint(b, 0) == j || bone_joint(b, 1) == j)
            return true;
    return false;
}

int skfi_svg_joint_prefix(const char *id)
{
    if (!id)
        return -1;
    for (int j = 0; j < SKF_SVG_JOINT_COUNT; ++j) {
        size_t n = strlen(joint_names[j]);
        if (!strncmp(id, joint_names[j], n))
            return j;
    }
    return -1;
}

int skfi_svg_joint_left_jaw2(void) { return skf_svg_joint_index("leftJaw2"); }
int skfi_svg_joint_right_jaw2(void) { return skf_svg_joint_index("rightJaw2"); }
int skfi_svg_joint_nose4(void) { return skf_svg_joint_index("nose4"); }
int skfi_svg_bone_nose3_nose4(void) { return 41; }

void skfi_svg_tfunc_make(skfi_svg_tfunc *f, const double p0[2], const double p1[2], const double p[2])
{
    double dx = p1[0] - p0[0], dy = p1[1] - p0[1];
    double l0 = sqrt(dx * dx + dy * dy);
    f->l0 = l0;
    f->p0[0] = p0[0];
    f->p0[1] = p0[1];
    f->p[0] = p[0];
    f->p[1] = p[1];
    if (l0 > 0) {
        double ux = dx / l0, uy = dy / l0;   /* dir */
        double nx = -uy, ny = ux;            /* dir rotated +90 degrees (paper.js angle += 90) */
        double vx = p[0] - p0[0], vy = p[1] - p0[1];
        f->x = vx * ux + vy * uy;
        f->y = vx * nx + vy * ny;
    } else {
        f->x = f->y = 0;
    }
}

void skfi_svg_tfunc_eval(const skfi_svg_tfunc *f, const double q0[2], const double q1[2], double out[2])
{
    if (!(f->l0 > 0)) { /* degenerate frame: follow q0 by translation */
        out[0] = f->p[0] + (q0[0] - f->p0[0]);
        out[1] = f->p[1] + (q0[1] - f->p0[1]);
        return;
    }
    double dx = q1[0] - q0[0], dy = q1[1] - q0[1];
    /* q0 + scale (x dir' + y n') with scale = |d|/l0, dir' = d/|d|: no division by |d|. */
    out[0] = q0[0] + (f->x * dx - f->y * dy) / f->l0;
    out[1] = q0[1] + (f->x * dy + f->y * dx) / f->l0;
}
