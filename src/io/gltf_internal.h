/* Internal helpers shared by the glTF reader files (src/io/gltf_read.c,
 * glb.c, gltf_accessor.c, base64.c). Prefix skfi_ = internal, not API. */
#ifndef SKINFIT_IO_GLTF_INTERNAL_H
#define SKINFIT_IO_GLTF_INTERNAL_H

#include "skinfit/gltf.h"

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

/* ---- gltf_accessor.c ---- */

/* Bytes per component for a glTF componentType, 0 when invalid. */
size_t skfi_component_size(int component_type);
/* Bytes one element occupies (matrix columns padded to 4 bytes per glTF). */
size_t skfi_element_size(const skf_gltf_accessor *a);
/* Byte offset of component c inside one element (matrix column padding). */
size_t skfi_component_offset(const skf_gltf_accessor *a, int c);
/* One component as stored (no normalisation) from p; caller checked ranges. */
double skfi_read_component(const uint8_t *p, int component_type);
/* Number of components per element for a glTF accessor "type" string and
 * the matrix row count (0 for SCALAR/VECn); false for an unknown type. */
bool skfi_accessor_type(const char *type, int *components, int *matrix_rows);

#endif
