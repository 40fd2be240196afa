/* The files a loaded glTF document reads: its own file, and the external
 * buffer and image files its URIs name (see gltf.h, skf_gltf_visit_files).
 * Callers use it to refuse outputs that would replace any of them. */
#include "skinfit/gltf.h"

#include <jansson.h>
#include <string.h>

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* "<base_dir>/<percent-decoded uri up to ? or #>" as the reader resolves it,
 * or NULL (out of memory). */
static char *resolve(const char *base_dir, const char *uri)
{
    size_t bl = strlen(base_dir), n = strlen(uri);
    char *p = skf_malloc(bl + n + 2);
    if (!p)
        return NULL;
    memcpy(p, base_dir, bl);
    size_t o = bl;
    if (bl && p[bl - 1] != '/')
        p[o++] = '/';
    for (size_t i = 0; i < n && uri[i] != '?' && uri[i] != '#'; ++i) {
        int h1, h2;
        if (uri[i] == '%' && i + 2 < n && (h1 = hexval(uri[i + 1])) >= 0 &&
            (h2 = hexval(uri[i + 2])) >= 0 && (h1 | h2) != 0) {
            p[o++] = (char)(h1 * 16 + h2);
            i += 2;
        } else {
            p[o++] = uri[i];
        }
    }
    p[o] = 0;
    return p;
}

static skf_status visit_array(const skf_gltf *doc, const char *key, skf_gltf_file_fn fn,
                              void *user, skf_error *err)
{
    json_t *arr = doc->json ? json_object_get(doc->json, key) : NULL;
    size_t n = json_is_array(arr) ? json_array_size(arr) : 0;
    for (size_t i = 0; i < n; ++i) {
        const char *uri = json_string_value(json_object_get(json_array_get(arr, i), "uri"));
        if (!uri || !uri[0] || strncmp(uri, "data:", 5) == 0 || uri[0] == '/' || strchr(uri, ':'))
            continue;
        char *path = resolve(doc->base_dir, uri);
        if (!path)
            return skf_fail(err, SKF_ERR_NOMEM, "%s: %s[%zu].uri: out of memory", doc->path, key,
                            i);
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
