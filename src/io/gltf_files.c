/* The files a loaded glTF document reads: its own file, and the external
 * buffer and image files its URIs name (see gltf.h, skf_gltf_visit_files).
 * Callers use it to refuse outputs that would replace any of them. */
#include "gltf_internal.h"

#include <jansson.h>
#include <string.h>

static skf_status visit_array(const skf_gltf *doc, const char *key, skf_gltf_file_fn fn,
                              void *user, skf_error *err)
{
    json_t *arr = doc->json ? json_object_get(doc->json, key) : NULL;
    size_t n = json_is_array(arr) ? json_array_size(arr) : 0;
    for (size_t i = 0; i < n; ++i) {
        const char *uri = json_string_value(json_object_get(json_array_get(arr, i), "uri"));
        if (!uri || strncmp(uri, "data:", 5) == 0)
            continue;
        /* resolved exactly as the reader and the writer resolve it */
        char *path = NULL;
        const char *why = NULL;
        skf_status st = skfi_uri_to_path(uri, doc->base_dir, skfi_uri_flags(doc, NULL), &path, &why);
        if (st == SKF_ERR_NOMEM)
            return skf_fail(err, SKF_ERR_NOMEM, "%s: %s[%zu].uri: out of memory", doc->path, key,
                            i);
        if (st)
            continue;   /* a form the reader or writer refuses: no file is read */
        char place[64];
        snprintf(place, sizeof place, "%s[%zu].uri", key, i);
        fn(user, path, place);
        skf_free(path);
    }
    return SKF_OK;
}

skf_status skf_gltf_visit_files(const skf_gltf *doc, skf_gltf_file_fn fn, void *user,
                                skf_error *err)
{
    if (!doc->base_dir)     /* loaded from memory: no files */
        return SKF_OK;
    fn(user, doc->path, NULL);
    skf_status st = visit_array(doc, "buffers", fn, user, err);
    if (!st)
        st = visit_array(doc, "images", fn, user, err);
    return st;
}
