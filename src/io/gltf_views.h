/* Internal helpers over the typed views of a glTF document that need no JSON (gltf_accessor.c,
 * gltf_query.c): shared by the reader (through gltf_internal.h) and by the WebAssembly core's
 * document builder (web/src/skfw.c), which is built without jansson. Prefix skfi_ = internal. */
#ifndef SKINFIT_IO_GLTF_VIEWS_H
#define SKINFIT_IO_GLTF_VIEWS_H

#include "skinfit/gltf.h"

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

/* ---- gltf_query.c ---- */

/* Free every typed view of doc (names, arrays) and zero the counts; buffers, JSON and paths
 * are the caller's (src/io/gltf_query.c; the reader and the WASM core's builder use it). */
void skfi_gltf_free_views(skf_gltf *doc);

#endif
