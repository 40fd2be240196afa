/* Loading a rig file by name (skf_gltf_load, skf_gltf_load_opts): the bytes
 * come through options->file (or the file system) under the file-bytes
 * limit, then the name decides the reader: ".fbx" / ".dae" go through
 * Assimp (assimp_read.c, docs/fbx.md), anything else is glTF or GLB by its
 * content (skf_gltf_load_memory_opts, gltf_read.c). Both give the same kind
 * of document, with the load's limits copied into it. */
#include "io/assimp_internal.h"
#include "io/gltf_internal.h"

#include <string.h>

skf_status skf_gltf_load_opts(const char *path, const skf_gltf_load_options *options,
                              skf_gltf **out, skf_warnings *warnings, skf_error *err)
{
    *out = NULL;
    uint8_t *data;
    size_t size;
    skf_status st = skfi_read_through(options, path, NULL, 0, &data, &size, err);
    if (st)
        return st;
    if (skfi_is_assimp_path(path)) {
        st = skfi_assimp_load_memory(data, size, path, options, out, warnings, err);
        skf_free(data);
        return st;
    }
    /* base dir = everything up to the last '/', or "." */
    const char *slash = strrchr(path, '/');
    size_t bl = slash ? (size_t)(slash - path) : 1;
    char *base = skf_malloc(bl + 1);
    if (!base) {
        skf_free(data);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
    }
    if (slash) {
        memcpy(base, path, bl);
        if (bl == 0)
            base[bl++] = '/';   /* "/file.gltf" */
    } else {
        base[0] = '.';
    }
    base[bl] = 0;
    st = skf_gltf_load_memory_opts(data, size, path, base, options, out, warnings, err);
    skf_free(base);
    skf_free(data);
    return st;
}

skf_status skf_gltf_load(const char *path, skf_gltf **out, skf_warnings *warnings, skf_error *err)
{
    return skf_gltf_load_opts(path, NULL, out, warnings, err);
}
