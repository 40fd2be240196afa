/* skinfit/svg.h — Pose Animator in C: animate an SVG character from pose
 * keypoints with linear blend skinning of Bézier paths.
 *
 * Follows Pose Animator (Google, 2020; github.com/yemount/pose-animator,
 * illustrationGen/skeleton.js and illustration.js) and fixes its known
 * failures; docs/svg.md lists the conventions, formats and every decision.
 *
 * Spaces and units. All coordinates are SVG user units of the character's
 * root <svg> element ("root space", the viewBox coordinates; 1 unit = 1 px
 * when the viewBox matches width/height). Keypoints are given in the same
 * space (MediaPipe's normalised landmarks are scaled by the image size, see
 * skf_svg_poses_parse). Element geometry is converted to root space with the
 * accumulated `transform` attributes (element_to_root); deformed geometry is
 * written back in each element's own space (root_to_element), so every
 * transform attribute is kept unchanged.
 *
 * Pipeline:
 *     skf_svg_load            parse + rig + bind (once per character)
 *     skf_svg_load_elements   the same from a plain element list (the browser's DOM)
 *     skf_svg_poses_load      keypoint frames (PoseNet / MoveNet / MediaPipe, + FaceMesh)
 *     skf_svg_animator_*      per frame: skip, smooth, face fallback, deform, path confidence
 *     skf_svg_write_*         per-frame SVG, animated SVG (SMIL), PNG frames, GIF
 *
 * Ownership: skf_svg_character, skf_svg_animator and skf_svg_poses have one
 * owner and one free/release call each. The library never prints.
 */
#ifndef SKINFIT_SVG_H
#define SKINFIT_SVG_H

#include "skinfit/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- joints and bones (Pose Animator's rig, from its code) ---------------
 * Joints 0..13 are the PoseNet parts Pose Animator reads (leftAnkle ...
 * rightShoulder, leftEar, rightEar); joints 14..86 are its 73 FaceMesh points
 * (topMid ... rightLowerLipTop0). The ears are inputs only (face fallback);
 * rightJaw0/1 and leftJaw0/1 are read from FaceMesh but belong to no bone. */
#define SKF_SVG_JOINT_COUNT 87
#define SKF_SVG_POSE_JOINT_COUNT 14
#define SKF_SVG_FACE_JOINT_COUNT 73
#define SKF_SVG_BONE_COUNT 80      /* 68 face bones then 12 body bones */
#define SKF_SVG_FACE_BONE_COUNT 68

/* Name of joint j (0 <= j < SKF_SVG_JOINT_COUNT), e.g. "leftWrist". */
const char *skf_svg_joint_name(int j);
/* Index of the joint called name (exact match), or -1. */
int skf_svg_joint_index(const char *name);
/* FaceMesh vertex index (0..467) of face joint j, or -1 for pose joints. */
int skf_svg_joint_facemesh_index(int j);
/* Bone b: joints j0 -> j1 and whether it is a face bone (face scale) or a
 * body bone (body scale). Returns the bone name "j0name-j1name". */
const char *skf_svg_bone(int b, int *j0, int *j1, bool *face);
/* True when joint j must have a marker in the skeleton group (it belongs to
 * a bone): 81 joints. */
bool skf_svg_joint_required(int j);

/* ---- character ----------------------------------------------------------- */

typedef struct skf_svg_character skf_svg_character;

typedef struct skf_svg_load_options {
    /* This load's caps (base.h "per-call limits"): svg-bytes (the file and
     * the text its entities expand to; default 64 MiB), svg-depth (element
     * nesting; default 256) and path-nodes (Bézier nodes of one path's d;
     * default 1000000). NULL, or a value 0: the process-wide value. */
    const skf_limits *limits;
} skf_svg_load_options;

/* Parse an SVG character (libxml2), find its skeleton group and joint
 * markers, convert every drawable of the illustration group(s) to Bézier
 * paths in root space, and bind each point to bones (weights 1/d^2).
 * Errors (SKF_ERR_FORMAT, message "file: place: what"): not XML; no group
 * whose id starts with "skeleton" or "illustration"; missing joint markers
 * (every missing one is named); malformed path data (element id and
 * character offset); malformed transform or shape attributes.
 * opts may be NULL. warnings may be NULL. *out is owned by the caller. */
skf_status skf_svg_load(const char *path, const skf_svg_load_options *opts, skf_svg_character **out,
                        skf_warnings *warnings, skf_error *err);
/* Same from memory; name is used in messages. data need not be NUL-terminated. */
skf_status skf_svg_load_memory(const char *data, size_t size, const char *name,
                               const skf_svg_load_options *opts, skf_svg_character **out,
                               skf_warnings *warnings, skf_error *err);
void skf_svg_free(skf_svg_character *c);

/* ---- plain-array input ----------------------------------------------------
 * The same loading from an element list that any XML parser can produce (the
 * browser's DOM in web/pose/; document.c builds it from libxml2's tree), so
 * every build runs the same conventions, geometry, binding and deformation.
 * Elements come in document order (pre-order), element 0 being the root
 * <svg>; each names its parent (-1 for the root; a parent comes before its
 * children) and carries the attributes the loader reads, by skf_svg_attr
 * index, NULL when absent (values as the attribute's text after entity
 * expansion). Only element nodes: text, comments and the like are left out. */
typedef enum skf_svg_attr {
    SKF_SVG_ATTR_ID, SKF_SVG_ATTR_TRANSFORM, SKF_SVG_ATTR_D, SKF_SVG_ATTR_X, SKF_SVG_ATTR_Y,
    SKF_SVG_ATTR_WIDTH, SKF_SVG_ATTR_HEIGHT, SKF_SVG_ATTR_RX, SKF_SVG_ATTR_RY, SKF_SVG_ATTR_CX,
    SKF_SVG_ATTR_CY, SKF_SVG_ATTR_R, SKF_SVG_ATTR_X1, SKF_SVG_ATTR_Y1, SKF_SVG_ATTR_X2, SKF_SVG_ATTR_Y2,
    SKF_SVG_ATTR_POINTS, SKF_SVG_ATTR_VIEWBOX, SKF_SVG_ATTR_COUNT
} skf_svg_attr;
/* Attribute name of index a ("id", "transform", "d", ..., "viewBox"). */
const char *skf_svg_attr_name(int a);

typedef struct skf_svg_element {
    const char *name;                     /* local name: "svg", "g", "path", "rect", ... */
    int parent;                           /* element index, -1 for the root */
    const char *attrs[SKF_SVG_ATTR_COUNT];
    long line;                            /* source line for messages; 0 unknown (then the index is named) */
} skf_svg_element;

/* Load a character from count elements (layout above). Errors and warnings
 * as skf_svg_load; the element list is not kept. A character loaded this
 * way has no document: skf_svg_write_frame / skf_svg_write_animated refuse
 * it (SKF_ERR_ARGUMENT); skf_svg_path_data writes each path's data. */
skf_status skf_svg_load_elements(const skf_svg_element *elems, size_t count, const char *name,
                                 const skf_svg_load_options *opts, skf_svg_character **out,
                                 skf_warnings *warnings, skf_error *err);
/* Index (in the element list) of the element path i was read from. */
size_t skf_svg_path_element_index(const skf_svg_character *c, size_t i);
/* Elements the loader hides (the skeleton group and the illustration's joint
 * markers; written with display="none"): *count of them, array owned by c. */
const size_t *skf_svg_hidden_elements(const skf_svg_character *c, size_t *count);
/* Path data ("d") of path i for node geometry xy (root space, layout as
 * skf_svg_path_rest), in the element's own space, numbers as every skinfit
 * SVG output writes them (7 decimals, trailing zeros trimmed). *d is
 * NUL-terminated, owned by the caller (skf_free). */
skf_status skf_svg_path_data(const skf_svg_character *c, size_t i, const double *xy, char **d,
                             size_t *size, skf_error *err);

/* Rest position of joint j in root space (the centre of its marker's
 * bounding box). Returns false when the skeleton has no marker for j
 * (ears, jaw 0/1). */
bool skf_svg_rest_joint(const skf_svg_character *c, int j, double xy[2]);
/* Width and height of the root viewBox (or width/height attributes). */
void skf_svg_canvas_size(const skf_svg_character *c, double *width, double *height);

/* Animated paths: every drawable of the illustration that is not a joint
 * marker. Each path is a list of nodes; node k has a point and absolute
 * in/out handles (a straight segment's handles equal its points). */
size_t skf_svg_path_count(const skf_svg_character *c);
/* Element id of path i ("" when it has none) and element name ("path", "rect", ...). */
const char *skf_svg_path_id(const skf_svg_character *c, size_t i);
const char *skf_svg_path_element(const skf_svg_character *c, size_t i);
size_t skf_svg_path_node_count(const skf_svg_character *c, size_t i);
/* Rest geometry of path i in root space: xy receives node_count * 6 doubles,
 * per node (point x, y, in-handle x, y, out-handle x, y). */
void skf_svg_path_rest(const skf_svg_character *c, size_t i, double *xy);
/* Largest weight bone b (0..SKF_SVG_BONE_COUNT-1) has on any point or handle
 * of path i. Secondary bones (created for illustration sub-groups that hold
 * their own markers) count as their parent bone. */
double skf_svg_path_bone_weight(const skf_svg_character *c, size_t i, int b);
/* Weights of node k's point of path i: fills up to max entries of bones[]
 * (parent bone index) and weights[]; returns the number of influences. */
size_t skf_svg_path_point_weights(const skf_svg_character *c, size_t i, size_t k, int *bones,
                                  double *weights, size_t max);
/* Number of secondary bones. */
size_t skf_svg_secondary_bone_count(const skf_svg_character *c);

/* ---- keypoint frames ----------------------------------------------------- */

typedef struct skf_svg_pose_frame {
    double pose_score;                        /* the pose's score */
    double xy[SKF_SVG_POSE_JOINT_COUNT][2];   /* pose joints, root space */
    double score[SKF_SVG_POSE_JOINT_COUNT];
    bool has_face;                            /* FaceMesh points present */
    double face_score;                        /* faceInViewConfidence */
    double face_xy[SKF_SVG_FACE_JOINT_COUNT][2]; /* face joints 14..86 in order */
} skf_svg_pose_frame;

typedef struct skf_svg_poses {
    skf_svg_pose_frame *frames;
    size_t count;
    double fps;          /* from the file's "fps", 0 when absent */
} skf_svg_poses;

/* Parse keypoint JSON (formats in docs/svg.md): a list of frames, or
 * {"frames": [...], "fps"?, "width"?, "height"?}. Each frame is a PoseNet
 * pose {score, keypoints[{part, score, position{x,y}}]}, a pose-detection /
 * MoveNet pose {score?, keypoints[{name, x, y, score}]}, MediaPipe Pose
 * landmarks (33 normalised {x, y, visibility}) as a list or under
 * "landmarks" / "poseLandmarks", or Pose Animator's recording {pose, face}.
 * A frame may carry "face": {faceInViewConfidence|score, scaledMesh[468][2|3]
 * | keypoints[468]{x,y} | positions[146]}. MediaPipe coordinates are
 * multiplied by width/height (the file's, else the arguments). Errors name
 * the frame index and field: "poses.json: frames[3].keypoints[5].score:
 * expected a number". */
skf_status skf_svg_poses_parse(const char *json, size_t size, const char *name, double width,
                               double height, skf_svg_poses *out, skf_error *err);
/* Options of skf_svg_poses_load. */
typedef struct skf_svg_poses_options {
    /* this read's cap keypoint-bytes (the file; default 1 GiB; base.h
     * "per-call limits"). NULL, or the value 0: the process-wide value. */
    const skf_limits *limits;
} skf_svg_poses_options;
/* skf_svg_poses_parse of the file at path, read whole under opts' keypoint-bytes
 * (SKF_ERR_LIMIT naming the file). opts may be NULL. */
skf_status skf_svg_poses_load(const char *path, double width, double height,
                              const skf_svg_poses_options *opts, skf_svg_poses *out, skf_error *err);
void skf_svg_poses_release(skf_svg_poses *p);

/* ---- per-frame animation (stateful: smoothing and face fallback) -------- */

#define SKF_SVG_MIN_POSE_SCORE 0.1   /* frames below are skipped */
#define SKF_SVG_MIN_FACE_SCORE 0.8   /* faces at or below use the fallback */
#define SKF_SVG_MIN_PATH_CONFIDENCE 0.3

typedef struct skf_svg_animate_options {
    bool no_smoothing;            /* false: Pose Animator's confidence-weighted smoothing */
    double min_path_confidence;   /* paths below are hidden; < 0 means the default 0.3 */
} skf_svg_animate_options;

typedef struct skf_svg_animator skf_svg_animator;

/* Create an animator for c (c must outlive it). opts may be NULL. */
skf_status skf_svg_animator_new(const skf_svg_character *c, const skf_svg_animate_options *opts,
                                skf_svg_animator **out, skf_error *err);
void skf_svg_animator_free(skf_svg_animator *a);

typedef enum skf_svg_frame_state {
    SKF_SVG_FRAME_DRAWN = 0,    /* deformed from this frame */
    SKF_SVG_FRAME_SKIPPED       /* pose score < 0.1: state and drawing unchanged */
} skf_svg_frame_state;

/* Feed one frame: skip (score < 0.1), smooth the pose joints, set or infer
 * the face, update bones and scales, deform every path and compute its
 * confidence. Returns SKF_SVG_FRAME_SKIPPED when the frame was skipped (the
 * previous drawing is kept; before the first drawn frame the rest pose is
 * kept and every path counts as visible). */
skf_svg_frame_state skf_svg_animator_update(skf_svg_animator *a, const skf_svg_pose_frame *f);
/* True once some frame has been drawn. */
bool skf_svg_animator_has_pose(const skf_svg_animator *a);
/* Current (smoothed / inferred) position and score of joint j. */
void skf_svg_animator_joint(const skf_svg_animator *a, int j, double xy[2], double *score);
/* Current body and face scale. */
void skf_svg_animator_scales(const skf_svg_animator *a, double *body, double *face);
/* Deformed geometry of path i in root space (node_count * 6 doubles, layout
 * as skf_svg_path_rest), its confidence and whether it is drawn. */
const double *skf_svg_animator_path(const skf_svg_animator *a, size_t i, double *confidence,
                                    bool *visible);

/* ---- outputs --------------------------------------------------------------
 * A "frame" is the current state of an animator. Strings are NUL-terminated
 * UTF-8 owned by the caller (skf_free). */

/* Serialise the character as drawn by a: deformed paths (shapes become
 * <path> elements with the same attributes minus their geometry), hidden
 * paths get display="none", the skeleton group and illustration markers get
 * display="none", everything else is written back unchanged. */
skf_status skf_svg_write_frame(const skf_svg_animator *a, char **svg, size_t *size,
                               skf_error *err);

/* Geometry of every path for a sequence of frames, for the animated SVG. */
typedef struct skf_svg_track {
    size_t frame_count;
    double fps;
    double **xy;      /* [frame][sum of node_count * 6 over paths], root space */
    bool **visible;   /* [frame][path] */
} skf_svg_track;

/* Allocate a track for c and n frames. */
skf_status skf_svg_track_init(skf_svg_track *t, const skf_svg_character *c, size_t n, double fps,
                              skf_error *err);
/* Copy the animator's current drawing into frame i of t. */
void skf_svg_track_store(skf_svg_track *t, size_t i, const skf_svg_animator *a);
void skf_svg_track_release(skf_svg_track *t);

/* Animated SVG: every path gets <animate attributeName="d" calcMode="discrete"
 * dur="n/fps s" repeatCount="indefinite" keyTimes="0;1/n;..." values="..."/>
 * with one value per frame (frame i shows during [i/fps, (i+1)/fps)), plus a
 * display animation for paths hidden in some frame. The static d is frame 0. */
skf_status skf_svg_write_animated(const skf_svg_character *c, const skf_svg_track *t, char **svg,
                                  size_t *size, skf_error *err);

/* Render an SVG document (e.g. from skf_svg_write_frame) with librsvg +
 * cairo into an RGBA8 image of width x height pixels (the viewBox is fitted,
 * aspect ratio kept). background is 0xRRGGBBAA composited under the drawing
 * (0 = transparent). rgba receives width*height*4 bytes owned by the caller. */
skf_status skf_svg_render(const char *svg, size_t size, int width, int height, uint32_t background,
                          uint8_t **rgba, skf_error *err);

#ifdef __cplusplus
}
#endif
#endif
