/* Internal structures shared by the files of src/svg (prefix skfi_svg_). Not installed.
 * Nothing here needs libxml2: the loader (load.c), binding, deformation, the
 * animator and the path-data writer work on plain arrays and build for
 * WebAssembly too; document.c (libxml2 parse) and write.c (write-back of the
 * libxml2 tree) are the native-only files. */
#ifndef SKF_SVG_INTERNAL_H
#define SKF_SVG_INTERNAL_H

#include "skinfit/svg.h"
#include "base/strbuf.h"


/* Coordinates (root space, keypoints) are limited to +-1e12 user units so
 * squared distances and sums stay finite. */
#define SVGI_MAX_COORD 1e12

/* 2D affine transform [a b c d e f]: x' = a x + c y + e, y' = b x + d y + f
 * (SVG's matrix(a,b,c,d,e,f) order). */
typedef double skfi_svg_affine[6];

void skfi_svg_affine_identity(skfi_svg_affine m);
/* out = l * r (apply r first); out may alias. */
void skfi_svg_affine_mul(skfi_svg_affine out, const skfi_svg_affine l, const skfi_svg_affine r);
/* Returns false when singular. */
bool skfi_svg_affine_invert(skfi_svg_affine out, const skfi_svg_affine m);
static inline void skfi_svg_affine_apply(const skfi_svg_affine m, const double p[2], double out[2])
{
    double x = m[0] * p[0] + m[2] * p[1] + m[4];
    double y = m[1] * p[0] + m[3] * p[1] + m[5];
    out[0] = x;
    out[1] = y;
}

/* Parse a transform attribute value; on error returns false and fills
 * *offset (0-based character) and *what. */
bool skfi_svg_parse_transform(const char *s, skfi_svg_affine out, size_t *offset, const char **what);

/* ---- geometry: nodes with absolute handles ---------------------------- */
typedef struct skfi_svg_sub {
    size_t first, count;  /* node range */
    bool closed;
} skfi_svg_sub;

typedef struct skfi_svg_geom {
    double *xy;           /* node_count * 6: p.x p.y in.x in.y out.x out.y */
    size_t node_count, node_cap;
    skfi_svg_sub *subs;
    size_t sub_count, sub_cap;
} skfi_svg_geom;

void skfi_svg_geom_release(skfi_svg_geom *g);
/* Start a new subpath at p (handles = p). false on allocation failure. */
bool skfi_svg_geom_move(skfi_svg_geom *g, double x, double y);
/* Append a cubic from the current node: c1 is its out-handle, c2 the new
 * node's in-handle. A line passes c1 = current point, c2 = end. */
bool skfi_svg_geom_cubic(skfi_svg_geom *g, double c1x, double c1y, double c2x, double c2y, double x,
                     double y);
/* Close the current subpath; merges a last node equal to the first. */
void skfi_svg_geom_close(skfi_svg_geom *g);
void skfi_svg_geom_transform(skfi_svg_geom *g, const skfi_svg_affine m);
/* Tight bounding box of the curves (min x, min y, max x, max y); false if empty. */
bool skfi_svg_geom_bbox(const skfi_svg_geom *g, double box[4]);
/* Arc (SVG endpoint parameterisation) from the current point to (x, y) as
 * cubics (segments of at most 90 degrees). */
bool skfi_svg_geom_arc(skfi_svg_geom *g, double rx, double ry, double phi_deg, bool large, bool sweep,
                   double x, double y);

/* Parse path data d into g. On a syntax error returns SKF_ERR_FORMAT and
 * sets *offset (character) and *what; SKF_ERR_NOMEM on allocation failure;
 * SKF_ERR_LIMIT when more than max_nodes nodes. */
skf_status skfi_svg_parse_path(const char *d, skfi_svg_geom *g, size_t max_nodes, size_t *offset,
                           const char **what);

/* Basic shapes (rect, circle, ellipse, line, polyline, polygon) -> geometry.
 * Returns SKF_OK, or SKF_ERR_FORMAT with *attr / *what describing the bad
 * attribute. *empty is set when the shape draws nothing (zero size). */
skf_status skfi_svg_shape_to_geom(const char *name, const char *const attrs[SKF_SVG_ATTR_COUNT],
                                  skfi_svg_geom *g, const char **attr, const char **what, size_t *offset,
                                  bool *empty);
bool skfi_svg_is_shape_name(const char *name);

/* ---- rig tables (src/svg/rig_tables.c) -------------------------------- */
enum { SVGI_GROUP_TORSO, SVGI_GROUP_LEFT_LEG, SVGI_GROUP_RIGHT_LEG, SVGI_GROUP_LEFT_ARM,
       SVGI_GROUP_RIGHT_ARM, SVGI_GROUP_FACE, SVGI_GROUP_COUNT };
/* Bones of bone group g (Pose Animator's boneGroups), count in *n. */
const int *skfi_svg_group_bones(int g, int *n);
/* Joint index of a name that id starts with (Pose Animator's prefix rule), or -1. */
int skfi_svg_joint_prefix(const char *id);
enum { SVGI_J_LEFT_EAR = 12, SVGI_J_RIGHT_EAR = 13 };
int skfi_svg_joint_left_jaw2(void);
int skfi_svg_joint_right_jaw2(void);
int skfi_svg_joint_nose4(void);
int skfi_svg_bone_nose3_nose4(void);

/* ---- similarity "transform function" (Pose Animator's getTransformFunc) -- *
 * Records p in the frame of (p0, p1); evaluating with (q0, q1) returns
 * q0 + (x (q1-q0) + y perp(q1-q0)) / l0. When l0 == 0 it translates. */
typedef struct skfi_svg_tfunc {
    double x, y, l0;
    double p0[2], p[2];
} skfi_svg_tfunc;
void skfi_svg_tfunc_make(skfi_svg_tfunc *f, const double p0[2], const double p1[2], const double p[2]);
void skfi_svg_tfunc_eval(const skfi_svg_tfunc *f, const double q0[2], const double q1[2], double out[2]);

/* ---- bones (main 0..79, then secondary) ------------------------------- */
typedef struct skfi_svg_bone {
    int j0, j1;          /* joints (main bones) */
    int parent;          /* main bone of a secondary bone, -1 for main bones */
    bool face;
    double r0[2], r1[2]; /* rest endpoints, root space */
    /* secondary: each end follows its parent end in the frame of (parent end, other) */
    skfi_svg_tfunc f0, f1;
    int other0, other1;  /* joint used as the second frame point for f0 / f1 */
} skfi_svg_bone;

/* One influence of a bone on a point, precomputed so that the point is
 *   sum_b  w kp0 + (wt + wx k) D + wy k perp(D),   D = kp1 - kp0, k = scale / |D|
 * which equals Pose Animator's anchor + scale (x dir + y n) blend. */
typedef struct skfi_svg_infl {
    int bone;
    double w, wt, wx, wy;
} skfi_svg_infl;

typedef struct skfi_svg_path {
    void *node;             /* the document's xmlNodePtr (document.c), NULL without a document */
    size_t element;         /* index in the element list the character was loaded from */
    char *id;               /* owned, "" if none */
    char *place;            /* owned, "path#id" or "rect (line 12)" for messages */
    char elem[16];          /* original element name */
    char *display_orig;     /* owned original display attribute or NULL */
    skfi_svg_affine element_to_root, root_to_element;
    skfi_svg_geom geom;         /* root space */
    int group;              /* sub-group index while loading, -1 = direct child */
    int sec_first, sec_count; /* secondary bones of its sub-group; sec_count 0 = automatic */
    size_t point_base;      /* first global point index (3 per node) */
} skfi_svg_path;

typedef struct skfi_svg_segment {
    size_t start, len;      /* text range before the placeholder */
    int path;               /* path index, -1 for the tail */
    int kind;               /* 0: d value, 1: animate values */
} skfi_svg_segment;

typedef struct skfi_svg_template {
    char *text;             /* serialised document (placeholders cut out) */
    skfi_svg_segment *segs;
    size_t count;
} skfi_svg_template;

struct skf_svg_character {
    char *name;
    void *doc;                 /* xmlDocPtr (document.c) or NULL (loaded from elements) */
    void (*doc_free)(void *doc);
    size_t *hidden;            /* elements the loader hides: the skeleton group, illustration markers */
    size_t hidden_count;
    double width, height;
    bool has_joint[SKF_SVG_JOINT_COUNT];
    double joint[SKF_SVG_JOINT_COUNT][2];
    skfi_svg_bone *bones;
    size_t bone_count;         /* 80 + secondary */
    skfi_svg_path *paths;
    size_t path_count;
    size_t point_count;        /* 3 per node over all paths */
    size_t *infl_start;        /* point_count + 1 */
    skfi_svg_infl *infl;
    double body_len0, face_len0;
    skfi_svg_tfunc face_base[SKF_SVG_JOINT_COUNT]; /* face joints relative to (leftJaw2, rightJaw2) */
    skfi_svg_template frame_tpl;
};

/* load.c: Pose Animator's conventions on an element list (skf_svg_load_elements);
 * c->name is set. Fills joints, paths, bones, hidden elements and the binding. */
skf_status skfi_svg_load_elements(skf_svg_character *c, const skf_svg_element *elems, size_t count,
                                  const skf_svg_load_options *opts, skf_warnings *w, skf_error *err);

/* write.c */
void skfi_svg_template_release(skfi_svg_template *t);
skf_status skfi_svg_build_frame_template(skf_svg_character *c, skf_error *err);
/* bind.c: compute rest bone data, candidate selection and influences. */
skf_status skfi_svg_bind(skf_svg_character *c, skf_warnings *w, skf_error *err);

/* deform.c: bones' current endpoints -> deformed points. */
typedef struct skfi_svg_bone_state {
    double kp0[2], d[2];   /* current start and kp1 - kp0 */
    double k;              /* scale / |d| (0 when |d| = 0) */
    double score;
} skfi_svg_bone_state;
void skfi_svg_deform(const skf_svg_character *c, const skfi_svg_bone_state *bs, double *xy_out,
                 double *confidence);

/* path_write.c: append path data of a geometry with node coordinates xy (root
 * space) mapped by root_to_element. */
void skfi_svg_write_path_data(skfi_strbuf *b, const skfi_svg_path *p, const double *xy);
const skf_svg_character *skfi_svg_animator_character(const skf_svg_animator *a);

#endif
