/* Internal helpers shared by the glTF files of src/io (gltf_read.c, the
 * parser; gltf_json.c, its JSON getters; gltf_buffers.c, buffer and URI
 * loading; glb.c, gltf_accessor.c, base64.c; gltf_write.c uses the URI
 * resolver). Prefix skfi_ = internal, not API. */
#ifndef SKINFIT_IO_GLTF_INTERNAL_H
#define SKINFIT_IO_GLTF_INTERNAL_H

#include "gltf_views.h"
#include "skinfit/gltf.h"

#include <jansson.h>

/* ---- base64.c ---- */

/* Decode standard base64 (RFC 4648 alphabet, '=' padding optional, no
 * whitespace). On success *out is owned by the caller (skf_free) and holds
 * *out_size bytes. On a bad character returns false and sets *bad_at to its
 * offset in text; on allocation failure returns false with *bad_at = SIZE_MAX. */
bool skfi_base64_decode(const char *text, size_t len, uint8_t **out, size_t *out_size,
                        size_t *bad_at);

/* ---- glb.c ---- */

typedef struct skfi_glb {
    const uint8_t *json;    /* points into the input; json_size bytes */
    size_t json_size;
    size_t json_offset;     /* byte offset of the JSON chunk data in the file */
    const uint8_t *bin;     /* NULL when there is no BIN chunk */
    size_t bin_size;
} skfi_glb;

/* True when data starts with the GLB magic "glTF". */
bool skfi_glb_is_glb(const uint8_t *data, size_t size);

/* Split a GLB container into its JSON and BIN chunks, checking the header,
 * version, declared length and every chunk length against the bytes that
 * remain. Errors name `name` and the byte offset. */
skf_status skfi_glb_parse(const uint8_t *data, size_t size, const char *name, skfi_glb *out,
                          skf_warnings *warnings, skf_error *err);


/* ---- gltf_json.c: the reader's context and its JSON getters ----
 *
 * Every getter reports failures through skfi_fail: one line
 * "<file>: <place>: <what>", place being the JSON path ("accessors[3].count").
 * Places are formatted into SKFI_PLACE_MAX buffers (truncated if longer). */

#define SKFI_PLACE_MAX 320

typedef struct skfi_parser {
    skf_gltf *doc;
    const char *name;       /* the document's name in messages */
    const skf_gltf_load_options *options; /* NULL: defaults */
    skf_warnings *warn;
    skf_error *err;
    bool quantized;         /* KHR_mesh_quantization in extensionsUsed */
    uint8_t *acc_flags;     /* per accessor: which content checks already ran */
    int64_t *acc_max;       /* per accessor: largest integer value, -1 = not computed */
    size_t skin_json_count; /* skins in the JSON (nodes reference skins before they are parsed) */
} skfi_parser;

/* "<name>: <place>: <what>" into p->err; returns st. */
skf_status skfi_fail(skfi_parser *p, skf_status st, const char *place, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* skfi_fail at member `key` of place: "<place>.<key>". */
skf_status skfi_fail_at(skfi_parser *p, skf_status st, const char *place, const char *key,
                        const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* SKF_ERR_NOMEM "out of memory" at place. */
skf_status skfi_nomem(skfi_parser *p, const char *place);
/* Format a place (JSON path) into out, which holds SKFI_PLACE_MAX bytes. */
void skfi_place(char *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "an object", "a number", ... for messages. */
const char *skfi_json_kind(const json_t *v);
/* A top-level array's storage: json_array_size(arr) zeroed elements of esize
 * bytes, their number in *count (untouched when the array is empty or absent:
 * then NULL is returned with *st = SKF_OK). */
void *skfi_alloc_top(skfi_parser *p, json_t *arr, const char *key, size_t esize, size_t *count,
                     skf_status *st);
/* Element i of the top-level array `key`, which must be an object; place
 * (SKFI_PLACE_MAX bytes) is set to "<key>[i]". */
skf_status skfi_get_element(skfi_parser *p, json_t *arr, const char *key, size_t i, char *place,
                            json_t **out);
/* Member `key` of obj of JSON type `type` (type_name for messages); *out
 * NULL when absent and not required. */
skf_status skfi_get_typed(skfi_parser *p, json_t *obj, const char *key, const char *place,
                          json_type type, const char *type_name, bool required, json_t **out);
skf_status skfi_get_array(skfi_parser *p, json_t *obj, const char *key, const char *place,
                          bool required, json_t **out);
skf_status skfi_get_object(skfi_parser *p, json_t *obj, const char *key, const char *place,
                           bool required, json_t **out);
/* An integer JSON value (integral reals accepted) in [lo, hi]; pl is its place. */
skf_status skfi_as_integer(skfi_parser *p, json_t *v, const char *pl, long long lo, long long hi,
                           long long *out);
/* Size-like member in [lo, hi]: *out = def when absent and not required. */
skf_status skfi_get_size(skfi_parser *p, json_t *obj, const char *key, const char *place,
                         long long lo, long long hi, bool required, size_t def, size_t *out);
/* An index value v (at place pl) into an array of `limit` things. */
skf_status skfi_check_index(skfi_parser *p, json_t *v, const char *pl, size_t limit,
                            const char *things, int *out);
/* Index member: *out = -1 when absent and not required. */
skf_status skfi_get_index(skfi_parser *p, json_t *obj, const char *key, const char *place,
                          size_t limit, const char *things, bool required, int *out);
/* Optional string member duplicated into *out (skf_free; NULL when absent). */
skf_status skfi_get_string(skfi_parser *p, json_t *obj, const char *key, const char *place,
                           char **out);
/* Optional array of exactly n finite numbers into out; *present tells
 * whether it was there. */
skf_status skfi_get_numbers(skfi_parser *p, json_t *obj, const char *key, const char *place,
                            size_t n, double *out, bool *present);
/* Optional array of any length of finite numbers (morph weights): *out
 * (skf_free) holds *count values, NULL and 0 when absent. */
skf_status skfi_get_number_list(skfi_parser *p, json_t *obj, const char *key, const char *place,
                                double **out, size_t *count);

/* Why SKF_GLTF_MAX_MAGNITUDE (gltf.h), for messages. */
#define SKFI_MAGNITUDE_WHY "the square of a larger value overflows a float, docs/gltf-reader.md"

/* ---- gltf_buffers.c ---- */

/* The one URI resolver of src/io (the reader's buffers and image checks,
 * the writer's images, skf_gltf_visit_files): a relative URI reference (RFC
 * 3986 section 4.2) resolved against base_dir into a file path,
 * percent-decoded, query and fragment dropped. Refused, with *why set to a
 * static reason: a scheme (any ':' before the first '/', '?' or '#'; data:
 * URIs are the caller's business), an absolute path or empty reference
 * (SKF_ERR_FORMAT), a NUL byte encoded as %00 (SKF_ERR_FORMAT), base_dir
 * NULL (SKF_ERR_ARGUMENT: loaded from memory), and, unless flags hold
 * SKFI_URI_ALLOW_OUTSIDE, a path that leaves base_dir (SKF_ERR_FORMAT, *why
 * == skfi_uri_outside_why): checked on disk after following symlinks
 * (realpath, component by component), or lexically (".." above the top)
 * with SKFI_URI_LEXICAL, for bytes served by a file callback. The refusal
 * reads nothing outside base_dir, so it says nothing about what is there.
 * On SKF_OK *path is owned by the caller (skf_free); SKF_ERR_NOMEM sets *why
 * to "out of memory". */
enum { SKFI_URI_ALLOW_OUTSIDE = 1, SKFI_URI_LEXICAL = 2 };
extern const char skfi_uri_outside_why[];
skf_status skfi_uri_to_path(const char *uri, const char *base_dir, unsigned flags, char **path,
                            const char **why);
/* The flags the document's loads and writes resolve with. */
unsigned skfi_uri_flags(const skf_gltf *doc, const skf_gltf_load_options *options);

/* Check every images[i].uri that is a file reference with the resolver
 * (nothing is read: the writer embeds them): one that leaves the folder is
 * refused at load, naming images[i].uri; other forms the resolver refuses
 * are left to the writer, which keeps them as URIs. */
skf_status skfi_check_image_uris(skfi_parser *p, json_t *root, const char *base_dir);

/* Load every entry of the JSON "buffers" array into p->doc->buffers: the GLB
 * BIN chunk (glb, may be NULL), data: URIs, external files read through
 * p->options' file callbacks (default: from disk), each checked against its
 * byteLength and the file-bytes limit. */
skf_status skfi_load_buffers(skfi_parser *p, json_t *root, const skfi_glb *glb,
                             const char *base_dir);

/* Read the file at path through options' callbacks (options NULL or read
 * NULL: from disk, capped by the file-bytes limit). A path that a URI named
 * (base_dir not NULL, path from skfi_uri_to_path with uri_flags) is read
 * from disk with skfi_read_uri_file; the document's own file passes
 * base_dir NULL. *data is a copy the caller owns (skf_free); errors go to
 * err naming path. */
skf_status skfi_read_through(const skf_gltf_load_options *options, const char *path,
                             const char *base_dir, unsigned uri_flags, uint8_t **data,
                             size_t *size, skf_error *err);

/* Read from disk the file at path, which skfi_uri_to_path(uri, base_dir,
 * flags) gave, under the file-bytes limit (limits NULL: process-wide).
 * Unless flags hold SKFI_URI_ALLOW_OUTSIDE, the inside-the-folder check is
 * made again and the file is opened along the path it walked, one component
 * at a time with O_NOFOLLOW from a descriptor on the folder: a symlink
 * swapped in after skfi_uri_to_path's check (or after this one) makes the
 * open fail instead of reading its target (issue 17, time-of-check to
 * time-of-use). Errors name path only, never an outside file. */
skf_status skfi_read_uri_file(const char *base_dir, const char *path, unsigned flags,
                              const skf_limits *limits, uint8_t **data, size_t *size,
                              skf_error *err);


#endif
