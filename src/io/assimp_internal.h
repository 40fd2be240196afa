/* FBX / Collada through Assimp (src/io/assimp_read.c), for skf_gltf_load_opts
 * (load.c) and skf_gltf_write_glb. Prefix skfi_ = internal, not API. */
#ifndef SKF_IO_ASSIMP_INTERNAL_H
#define SKF_IO_ASSIMP_INTERNAL_H

#include "skinfit/gltf.h"

#include <stdbool.h>

/* The path names a file read through Assimp: ".fbx" or ".dae", any case. */
bool skfi_is_assimp_path(const char *path);

/* Read an FBX or Collada file's bytes (size bytes at data, read by the
 * caller under the file-bytes limit; path names the format by its extension
 * and is used in messages) into a glTF document (what skf_gltf_load returns
 * for a glTF file: nodes, meshes, one skin, animations), with options->limits
 * copied into it (NULL: the process-wide values). Errors name the file and
 * the element (Assimp's own message when it cannot read it). */
skf_status skfi_assimp_load_memory(const uint8_t *data, size_t size, const char *path,
                                   const skf_gltf_load_options *options, skf_gltf **out, skf_warnings *warnings,
                                   skf_error *err);

#endif
