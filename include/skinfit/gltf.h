/* skinfit/gltf.h — glTF 2.0 documents: read (.gltf with external or data:
 * URIs, .glb), inspect, extend with animations, write (.glb).
 *
 * Model: a document keeps the whole JSON tree (jansson) so that everything we
 * do not interpret (materials, textures, extensions, extras) is written back
 * unchanged, plus the loaded buffers and typed views of the parts we use.
 * Every index in the typed views has been range-checked at load: an int index
 * is either -1 (absent) or valid for its array.
 *
 * Spaces: node matrices are local_to_parent; skin inverse bind matrices map
 * mesh (bind) space to joint space (mesh_to_joint). Units: scene units as
 * stored; times in seconds. Matrices double[16] column-major, quaternions
 * (x, y, z, w) — see skinfit/math.h.
 *
 * Ownership: skf_gltf_load returns a document owned by the caller, freed with
 * skf_gltf_free (frees everything reachable from it). Bytes served by a file
 * callback stay the callback's (skf_gltf_file_options).
 *
 * Sources: gltf_read.c (parser, entry points), gltf_json.c (JSON getters),
 * gltf_buffers.c (buffers, URIs, file callbacks), gltf_accessor.c, glb.c,
 * base64.c, gltf_query.c; gltf_build.c and gltf_write.c for writing.
 */
#ifndef SKINFIT_GLTF_H
#define SKINFIT_GLTF_H

#include "skinfit/base.h"

#ifdef __cplusplus
extern "C" {
#endif

struct json_t;

/* Defaults of the reader's adjustable limits file-bytes and node-depth
 * (skf_limit, base.h; per load: skf_gltf_load_options.limits; SKF_ERR_LIMIT
 * with a message naming the limit). The writer builds at most
 * SKF_GLTF_MAX_FILE_BYTES per buffer. */
#define SKF_GLTF_MAX_FILE_BYTES ((size_t)2 << 30)   /* 2 GiB per file */
#define SKF_GLTF_MAX_NODE_DEPTH 1024

enum {
    SKF_GLTF_BYTE = 5120,
    SKF_GLTF_UNSIGNED_BYTE = 5121,
    SKF_GLTF_SHORT = 5122,
    SKF_GLTF_UNSIGNED_SHORT = 5123,
    SKF_GLTF_UNSIGNED_INT = 5125,
    SKF_GLTF_FLOAT = 5126
};

typedef struct skf_gltf_buffer {
    uint8_t *data;   /* owned; size bytes */
    size_t size;
} skf_gltf_buffer;

typedef struct skf_gltf_buffer_view {
    int buffer;
    size_t offset, length;
    size_t stride;   /* 0 = tightly packed */
} skf_gltf_buffer_view;

typedef struct skf_gltf_accessor {
    int buffer_view;        /* -1: all zeros (unless sparse) */
    size_t offset;
    int component_type;     /* SKF_GLTF_* */
    bool normalized;
    size_t count;
    int components;         /* 1 SCALAR, 2 VEC2, 3 VEC3, 4 VEC4, 4 MAT2, 9 MAT3, 16 MAT4 */
    int matrix_rows;        /* 0 for SCALAR/VECn; 2, 3, 4 for MAT2/3/4 (column padding) */
    bool sparse;
    size_t sparse_count;
    int sparse_indices_view;
    size_t sparse_indices_offset;
    int sparse_indices_type;
    int sparse_values_view;
    size_t sparse_values_offset;
} skf_gltf_accessor;

typedef struct skf_gltf_node {
    char *name;             /* may be NULL */
    int parent;             /* -1 for roots */
    int *children;
    size_t child_count;
    bool has_matrix;        /* matrix given instead of TRS */
    double matrix[16];      /* local_to_parent when has_matrix */
    double translation[3];
    double rotation[4];     /* x y z w */
    double scale[3];
    int mesh, skin;         /* -1 when absent */
    double *weights;        /* morph weights override, may be NULL */
    size_t weight_count;
} skf_gltf_node;

typedef struct skf_gltf_attribute {
    char *name;             /* "POSITION", "JOINTS_0", ... */
    int accessor;
} skf_gltf_attribute;

typedef struct skf_gltf_morph_target {
    int position, normal, tangent; /* accessor indices, -1 when absent */
} skf_gltf_morph_target;

typedef struct skf_gltf_primitive {
    skf_gltf_attribute *attributes;
    size_t attribute_count;
    int indices;            /* -1: non-indexed */
    int mode;               /* 4 = TRIANGLES (default) */
    skf_gltf_morph_target *targets;
    size_t target_count;
} skf_gltf_primitive;

typedef struct skf_gltf_mesh {
    char *name;
    skf_gltf_primitive *primitives;
    size_t primitive_count;
    double *weights;        /* default morph weights, may be NULL */
    size_t weight_count;
} skf_gltf_mesh;

typedef struct skf_gltf_skin {
    char *name;
    int *joints;            /* node indices */
    size_t joint_count;
    int inverse_bind_matrices; /* accessor, -1: identities */
    int skeleton;           /* node, -1 when absent */
} skf_gltf_skin;

typedef enum skf_gltf_path {
    SKF_PATH_TRANSLATION, SKF_PATH_ROTATION, SKF_PATH_SCALE, SKF_PATH_WEIGHTS
} skf_gltf_path;

typedef enum skf_gltf_interp {
    SKF_INTERP_LINEAR, SKF_INTERP_STEP, SKF_INTERP_CUBICSPLINE
} skf_gltf_interp;

typedef struct skf_gltf_sampler {
    int input, output;      /* accessors */
    skf_gltf_interp interpolation;
} skf_gltf_sampler;

typedef struct skf_gltf_channel {
    int sampler;
    int node;               /* -1: no target node (channel ignored) */
    skf_gltf_path path;
} skf_gltf_channel;

typedef struct skf_gltf_animation {
    char *name;             /* may be NULL */
    skf_gltf_sampler *samplers;
    size_t sampler_count;
    skf_gltf_channel *channels;
    size_t channel_count;
} skf_gltf_animation;

typedef struct skf_gltf_scene {
    char *name;
    int *nodes;
    size_t node_count;
} skf_gltf_scene;

typedef struct skf_gltf {
    char *path;             /* as given to load (for messages) */
    char *base_dir;         /* folder external URIs resolve against; NULL: none */
    struct json_t *json;    /* the whole document; owned */
    skf_gltf_buffer *buffers;           size_t buffer_count;
    skf_gltf_buffer_view *buffer_views; size_t buffer_view_count;
    skf_gltf_accessor *accessors;       size_t accessor_count;
    skf_gltf_node *nodes;               size_t node_count;
    skf_gltf_mesh *meshes;              size_t mesh_count;
    skf_gltf_skin *skins;               size_t skin_count;
    skf_gltf_animation *animations;     size_t animation_count;
    skf_gltf_scene *scenes;             size_t scene_count;
    int scene;              /* default scene, -1 when absent */
    skf_limits limits;      /* per-call limits of the load (zeros: process-wide); used by
                               skf_gltf_reparse and the writer */
    bool allow_outside_refs; /* the load's option: the writer embeds images outside the
                               document's folder only when true */
} skf_gltf;

/* ---- reading -----------------------------------------------------------
 *
 * Where the reader gets file bytes: the document itself (skf_gltf_load*,
 * not skf_gltf_load_memory*) and every external buffer, buffers[i].uri that
 * is not a data: URI. The URI is a relative reference resolved against the
 * document's folder and percent-decoded (absolute paths, schemes, %00 and,
 * by default, ".." above the folder are refused before any read), so path
 * is "<folder>/<decoded uri>".
 *
 * read: return SKF_OK with *data pointing at the whole file (*size bytes;
 *   NULL allowed for 0 bytes), or an error status (SKF_ERR_IO for a missing
 *   file, SKF_ERR_LIMIT, ...) with err->message describing the failure
 *   without the path (the reader writes "<document>: buffers[2].uri: <path>:
 *   <message>"; an empty message reads "the file callback failed").
 *   max_size is the file-bytes limit in effect for the load: the callback
 *   may refuse larger files, and the reader refuses them anyway
 *   (SKF_ERR_LIMIT).
 * release: called once for every read that returned SKF_OK, with the same
 *   data and size, before the load call returns (whether the load succeeds
 *   or not); the reader has copied what it keeps. NULL: nothing is called
 *   (the bytes stay the callback's, e.g. static or owned elsewhere).
 * user: passed to both untouched.
 * read NULL: files are read from disk (skf_read_file_limits); release is
 *   then not called. The callbacks run on the loading thread, only during
 *   the load call. Same shape as cgltf's cgltf_file_options. */
typedef struct skf_gltf_file_options {
    skf_status (*read)(void *user, const char *path, size_t max_size, const uint8_t **data,
                       size_t *size, skf_error *err);
    void (*release)(void *user, const uint8_t *data, size_t size);
    void *user;
} skf_gltf_file_options;

/* The largest magnitude a geometric value may have: POSITION and morph
 * target positions, WEIGHTS, inverse bind matrices, animation key values,
 * node matrix / translation / rotation / scale and morph weights. Beyond it
 * (sqrt(FLT_MAX) = 1.84e19 is where the square of a float32 overflows, which
 * every viewer computing a length does; the solver's moment sums square
 * coordinates too) the value is bad input: the load fails with
 * SKF_ERR_FORMAT naming the place, accessor, element and component
 * ("animations[0].samplers[2].output: accessors[37] element 5 component 0 is
 * 1e+30, beyond ±1e+19 (...)"). Key times are not bounded by this (the frame
 * limits bound them). */
#define SKF_GLTF_MAX_MAGNITUDE 1e19

/* Options of a load; a zeroed struct (or a NULL pointer) means the defaults. */
typedef struct skf_gltf_load_options {
    skf_gltf_file_options file;
    /* Caps for this load (file-bytes, node-depth, accessor-values; base.h):
     * NULL or a 0 value takes the process-wide value. Copied into the
     * document (doc->limits), so skf_gltf_reparse and the writer keep them;
     * the pointer is not kept. */
    const skf_limits *limits;
    /* false (default): a buffers[i].uri or images[i].uri that resolves
     * outside the document's folder is refused at load (SKF_ERR_FORMAT, kind
     * SKF_KIND_OPTION naming this field, place "buffers[1].uri"), before
     * anything outside is read or looked at, so the error says nothing about
     * whether the file exists or its size. "Resolves" means percent-decoded
     * and, on disk, with every symlink followed (realpath): "../x",
     * "%2e%2e/x", "sub/../../x" and a symlink in the folder pointing out are
     * all refused; a ".." that stays inside ("sub/../x") is not. With a file
     * callback (file.read) the check is lexical, as there are no symlinks to
     * follow. true: any relative reference is followed, for trusted local
     * work (absolute paths and schemes stay refused). Copied into the
     * document (doc->allow_outside_refs); the writer embeds images under the
     * same rule (an outside one stays an external URI, with a warning). */
    bool allow_outside_refs;
} skf_gltf_load_options;

/* Load .gltf or .glb (by content: GLB magic, else JSON). External buffers and
 * images resolve relative to the file's folder. Errors name file and place:
 * "Horse.glb: accessors[12].bufferView: 40 out of range (31 bufferViews)". */
skf_status skf_gltf_load(const char *path, skf_gltf **out, skf_warnings *warnings, skf_error *err);
/* Same with options (NULL: defaults); path is read through options->file. */
skf_status skf_gltf_load_opts(const char *path, const skf_gltf_load_options *options,
                              skf_gltf **out, skf_warnings *warnings, skf_error *err);

/* Same from memory; name is used in messages; base_dir resolves external URIs
 * (NULL: external URIs are an error). Safe on arbitrary bytes (fuzzed:
 * fuzz/fuzz_gltf.c); data is not referenced after the call returns. */
skf_status skf_gltf_load_memory(const void *data, size_t size, const char *name,
                                const char *base_dir, skf_gltf **out, skf_warnings *warnings,
                                skf_error *err);
/* Same with options (NULL: defaults): external buffers go through
 * options->file. */
skf_status skf_gltf_load_memory_opts(const void *data, size_t size, const char *name,
                                     const char *base_dir, const skf_gltf_load_options *options,
                                     skf_gltf **out, skf_warnings *warnings, skf_error *err);

void skf_gltf_free(skf_gltf *doc);

/* Rebuild (and re-validate) the typed views after the JSON tree or buffers
 * were edited. Buffers are not reloaded: doc->buffers must still match the
 * JSON "buffers" array (same count, each byteLength <= size). On failure the
 * typed views are left empty (counts 0) and the JSON and buffers untouched. */
skf_status skf_gltf_reparse(skf_gltf *doc, skf_warnings *warnings, skf_error *err);

/* Decode accessor into doubles: out has count*components values; normalized
 * integers are mapped per the glTF spec (e.g. unsigned byte /255, signed
 * short max(c/32767, -1)); sparse substitution applied. All ranges were
 * checked at load, so this only fails for NaN/Inf when reject_nonfinite. */
skf_status skf_gltf_accessor_read(const skf_gltf *doc, int accessor, double *out,
                                  bool reject_nonfinite, skf_error *err);
/* Integer view (indices, JOINTS_n): components must be integer typed. */
skf_status skf_gltf_accessor_read_uint(const skf_gltf *doc, int accessor, uint32_t *out,
                                       skf_error *err);

/* ---- queries (src/io/gltf_query.c) --------------------------------------- */

/* Node local_to_parent matrix from TRS or matrix. */
void skf_gltf_node_local_matrix(const skf_gltf_node *node, double local_to_parent[16]);

/* ---- writing -------------------------------------------------------- */

/* One animation channel's keyed data to add. times: key_count seconds,
 * increasing. values: key_count * width floats for LINEAR/STEP, times 3 (in-tangent, value, out-tangent)
 * for CUBICSPLINE; width 3 (T, S), 4 (R, x y z w), or the morph target count. */
typedef struct skf_gltf_new_channel {
    int node;
    skf_gltf_path path;
    skf_gltf_interp interpolation;
    size_t key_count;
    const float *times;
    const float *values;
    size_t width;
} skf_gltf_new_channel;

/* Add (or, when an animation of that exact name exists, replace) an animation.
 * Data is appended to the binary buffer; typed views are refreshed. Channels
 * are checked first (SKF_ERR_ARGUMENT leaves the document unchanged). A node
 * given by "matrix" whose T/R/S is animated is re-expressed as TRS
 * (SKF_ERR_NUMERIC when the matrix has shear). After SKF_ERR_NOMEM the JSON
 * may hold unused data and the typed views may be empty: call
 * skf_gltf_reparse before using the document again. */
skf_status skf_gltf_add_animation(skf_gltf *doc, const char *name,
                                  const skf_gltf_new_channel *channels, size_t channel_count,
                                  skf_error *err);

/* ---- building ---------------------------------------------------------
 * Small document builder used by the creature, decompose output and weight
 * rewriting. Binary data goes to ONE growable buffer: buffers[0] (created on
 * first use; if it had a uri, the uri is dropped since its bytes are in
 * memory — the writer embeds everything anyway). Each append starts at a
 * 4-byte aligned offset and gets its own bufferView, so accessor offsets are
 * aligned for every component type.
 *
 * The builder edits doc->json and doc->buffers only: the typed views
 * (doc->accessors, nodes, ...) are stale until skf_gltf_reparse is called.
 * Build everything, then reparse once. Index outputs are the new element's
 * position in its JSON array. */

/* A new empty document: {"asset":{"version":"2.0","generator":"skinfit ..."}},
 * no buffers, no scenes. name (may be NULL) is used in messages. */
skf_status skf_gltf_new_empty(const char *name, skf_gltf **out, skf_error *err);

/* Append size bytes (data may be NULL for zeros) to buffers[0] and add a
 * bufferView over them. target: 0 (none), 34962 ARRAY_BUFFER (vertex data),
 * 34963 ELEMENT_ARRAY_BUFFER (indices). */
skf_status skf_gltf_append_bytes(skf_gltf *doc, const void *data, size_t size, int target,
                                 int *view_index, skf_error *err);

/* Add an accessor over bufferView view at byte_offset (must be a multiple of
 * the component size). components 1, 2, 3, 4 (VEC4), 9 (MAT3), 16 (MAT4).
 * min/max: components values each, or NULL to omit. */
skf_status skf_gltf_add_accessor(skf_gltf *doc, int view, size_t byte_offset, int component_type,
                                 bool normalized, size_t count, int components,
                                 const double *min, const double *max, int *accessor_index,
                                 skf_error *err);

/* Convenience: append count*components floats as a new view + FLOAT
 * accessor; with_bounds adds exact min/max (required for POSITION and
 * animation inputs). */
skf_status skf_gltf_add_float_accessor(skf_gltf *doc, const float *data, size_t count,
                                       int components, int target, bool with_bounds,
                                       int *accessor_index, skf_error *err);

/* Convenience: pack count*components unsigned integers as component_type
 * (UNSIGNED_BYTE / UNSIGNED_SHORT / UNSIGNED_INT) into a new view + accessor.
 * Fails (SKF_ERR_ARGUMENT) if a value does not fit. Used for indices
 * (target 34963) and JOINTS_n (target 34962). */
skf_status skf_gltf_add_uint_accessor(skf_gltf *doc, const uint32_t *data, size_t count,
                                      int components, int component_type, int target,
                                      int *accessor_index, skf_error *err);

/* Append item to the top-level array array_name ("nodes", "meshes", "skins",
 * "materials", ...; created if absent). Steals the reference to item (it is
 * released on failure too). */
skf_status skf_gltf_json_append(skf_gltf *doc, const char *array_name, struct json_t *item,
                                int *index, skf_error *err);

/* Add a node with TRS (any of t, r, s may be NULL = identity) and a name
 * (may be NULL). parent >= 0: appended to that node's children; parent -1:
 * appended to the default scene's nodes (scene 0 and "scene" created when
 * absent). */
skf_status skf_gltf_add_node(skf_gltf *doc, const char *name, int parent, const double t[3],
                             const double r[4], const double s[3], int *node_index,
                             skf_error *err);

/* Add a mesh with one TRIANGLES primitive: attribute_count (name, accessor)
 * pairs; indices accessor or -1. */
skf_status skf_gltf_add_mesh(skf_gltf *doc, const char *name, const char *const *attribute_names,
                             const int *attribute_accessors, size_t attribute_count, int indices,
                             int *mesh_index, skf_error *err);

/* Add a skin. inverse_bind_matrices: a MAT4 float accessor (or -1);
 * skeleton: the joints' common root node (or -1 to omit). */
skf_status skf_gltf_add_skin(skf_gltf *doc, const char *name, const int *joints,
                             size_t joint_count, int inverse_bind_matrices, int skeleton,
                             int *skin_index, skf_error *err);

/* ---- the files a document reads ---------------------------------------- */

/* Called once per file: path as the reader opens it; place is NULL for the
 * document's own file, else the JSON path of the URI ("buffers[1].uri"). */
typedef void (*skf_gltf_file_fn)(void *user, const char *path, const char *place);
/* Visit every file the document was read from or that writing it reads:
 * doc->path (when loaded from a file), then each external buffers[i].uri and
 * images[i].uri resolved against doc->base_dir as the reader and writer
 * resolve them (data: URIs and unsupported forms are skipped). A document
 * loaded from memory visits nothing. Fails only for lack of memory. */
skf_status skf_gltf_visit_files(const skf_gltf *doc, skf_gltf_file_fn fn, void *user,
                                skf_error *err);

/* ---- GLB output -------------------------------------------------------- */

/* Write a single self-contained GLB atomically. The typed views must be
 * current (after load, or reparse after builder calls); doc is not modified.
 * Kept verbatim: every JSON member we do not repair (materials, textures,
 * samplers, extensions, extras, names), bufferView order and indices.
 * All buffers merge into the BIN chunk (each bufferView 4-byte aligned);
 * images given by data: URI or external file become bufferViews with a
 * mimeType. Repairs, each reported as one warning:
 *  - skins[i].skeleton that is not an ancestor-or-self of the joints'
 *    closest common root -> set to that root, or dropped when the joints
 *    share no root;
 *  - WEIGHTS_n whose per-vertex sum differs from 1 by more than 1e-6 (or is
 *    written as unnormalised integers) -> renormalised and re-encoded as
 *    FLOAT accessors (a vertex with all-zero weights gets weight 1 on its
 *    first joint);
 *  - POSITION and animation-input accessors without min/max, or with
 *    min/max that do not match the data -> exact bounds written.
 * Refuses (SKF_ERR_ARGUMENT) to overwrite the file the document was loaded
 * from (doc->path); output above 4 GiB is SKF_ERR_LIMIT. */
skf_status skf_gltf_write_glb(const skf_gltf *doc, const char *path, skf_warnings *warnings,
                              skf_error *err);

#ifdef __cplusplus
}
#endif
#endif
