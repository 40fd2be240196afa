/* glTF reader, part 2 of 3: buffers and URIs (see gltf_internal.h).
 *
 * Reference: glTF 2.0 specification, section 3.6.1 (buffers: a GLB-stored
 * buffer without uri, data: URIs with base64, relative URI references
 * resolved against the document) and RFC 3986 section 4.2 (relative
 * references: a ':' before the first '/', '?' or '#' is a scheme; a
 * leading '/' is an absolute path) and section 2.1 (percent-encoding).
 *
 * Files are read through the caller's file callbacks
 * (skf_gltf_load_options.file, the shape of cgltf's cgltf_file_options) or
 * from disk. Only relative references are followed, so a document cannot
 * name a file outside its folder tree by an absolute path or a scheme; the
 * writer resolves image URIs with the same function.
 */
#include "io/gltf_internal.h"

#include <limits.h>
#include <string.h>

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

skf_status skfi_uri_to_path(const char *uri, const char *base_dir, char **out, const char **why)
{
    *out = NULL;
    *why = NULL;
    size_t n = strlen(uri);
    for (size_t i = 0; i < n; ++i) {
        char c = uri[i];
        if (c == ':') {
            *why = "only relative file references and data: URIs are supported";
            return SKF_ERR_FORMAT;
        }
        if (c == '/' || c == '?' || c == '#')
            break;
    }
    if (uri[0] == '/' || n == 0) {
        *why = "only relative file references are supported";
        return SKF_ERR_FORMAT;
    }
    if (!base_dir) {
        *why = "external file, but the document was loaded from memory";
        return SKF_ERR_ARGUMENT;
    }
    size_t bl = strlen(base_dir);
    char *path = skf_malloc(bl + 1 + n + 1);
    if (!path) {
        *why = "out of memory";
        return SKF_ERR_NOMEM;
    }
    memcpy(path, base_dir, bl);
    size_t o = bl;
    if (bl && path[bl - 1] != '/')
        path[o++] = '/';
    for (size_t i = 0; i < n; ++i) {
        if (uri[i] == '?' || uri[i] == '#')
            break;
        if (uri[i] == '%' && i + 2 < n && hexval(uri[i + 1]) >= 0 && hexval(uri[i + 2]) >= 0) {
            char c = (char)(hexval(uri[i + 1]) * 16 + hexval(uri[i + 2]));
            if (c == 0) {
                skf_free(path);
                *why = "encodes a NUL byte";
                return SKF_ERR_FORMAT;
            }
            path[o++] = c;
            i += 2;
        } else {
            path[o++] = uri[i];
        }
    }
    path[o] = 0;
    *out = path;
    return SKF_OK;
}

skf_status skfi_read_through(const skf_gltf_load_options *options, const char *path,
                             uint8_t **data, size_t *size, skf_error *err)
{
    *data = NULL;
    *size = 0;
    const skf_gltf_file_options *f = options ? &options->file : NULL;
    const skf_limits *limits = options ? options->limits : NULL;
    size_t max = skf_limits_value(limits, SKF_LIMIT_FILE_BYTES);
    if (!f || !f->read)
        return skf_read_file_limits(path, limits, SKF_LIMIT_FILE_BYTES, data, size, err);
    const uint8_t *bytes = NULL;
    size_t n = 0;
    skf_error e;
    e.message[0] = 0;
    skf_status st = f->read(f->user, path, max, &bytes, &n, &e);
    if (st)
        return skf_fail(err, st, "%s: %s", path,
                        e.message[0] ? e.message : "the file callback failed");
    if (n > max)
        st = skf_fail(err, SKF_ERR_LIMIT, "%s: file is %zu bytes, above %s", path, n,
                      skf_limits_exceeded(limits, SKF_LIMIT_FILE_BYTES).text);
    else if (n && !bytes)
        st = skf_fail(err, SKF_ERR_ARGUMENT, "%s: the file callback returned %zu bytes at NULL",
                      path, n);
    else if (!(*data = skf_malloc(n + 1)))
        st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory reading %zu bytes", path, n);
    if (!st) {
        if (n)
            memcpy(*data, bytes, n);
        (*data)[n] = 0;
        *size = n;
    }
    if (f->release)
        f->release(f->user, bytes, n);
    return st;
}

skf_status skfi_load_buffers(skfi_parser *p, json_t *root, const skfi_glb *glb,
                             const char *base_dir)
{
    skf_gltf *doc = p->doc;
    json_t *arr;
    skf_status st = skfi_get_array(p, root, "buffers", "", false, &arr);
    if (st)
        return st;
    doc->buffers = skfi_alloc_top(p, arr, "buffers", sizeof *doc->buffers, &doc->buffer_count, &st);
    for (size_t i = 0; i < doc->buffer_count; ++i) {
        char place[SKFI_PLACE_MAX], up[SKFI_PLACE_MAX];
        json_t *o;
        if ((st = skfi_get_element(p, arr, "buffers", i, place, &o)))
            return st;
        skfi_place(up, "%s.uri", place);
        size_t len;
        json_t *uri;
        if ((st = skfi_get_size(p, o, "byteLength", place, 1, LLONG_MAX, true, 0, &len)) ||
            (st = skfi_get_typed(p, o, "uri", place, JSON_STRING, "a string", false, &uri)))
            return st;
        if (len > skf_limits_value(&doc->limits, SKF_LIMIT_FILE_BYTES))
            return skfi_fail_at(p, SKF_ERR_LIMIT, place, "byteLength", "%zu bytes exceed %s", len,
                                skf_limits_exceeded(&doc->limits, SKF_LIMIT_FILE_BYTES).text);
        uint8_t *data = NULL;
        size_t size = 0;
        if (!uri) {
            if (i != 0 || !glb)
                return skfi_fail(p, SKF_ERR_FORMAT, up,
                                 "missing (only buffers[0] of a GLB may omit it)");
            if (!glb->bin)
                return skfi_fail(p, SKF_ERR_FORMAT, up, "missing, and the GLB has no BIN chunk");
            if (glb->bin_size < len)
                return skfi_fail(p, SKF_ERR_FORMAT, place,
                                 "byteLength %zu is past the end of the BIN chunk (%zu bytes)", len,
                                 glb->bin_size);
            data = skf_malloc(len);
            if (!data)
                return skfi_nomem(p, place);
            memcpy(data, glb->bin, len);
            size = len;
        } else {
            const char *u = json_string_value(uri);
            if (strncmp(u, "data:", 5) == 0) {
                const char *comma = strchr(u, ',');
                if (!comma || comma - u < 12 || strncmp(comma - 7, ";base64", 7) != 0)
                    return skfi_fail(p, SKF_ERR_FORMAT, up, "data: URI is not base64");
                size_t bad;
                if (!skfi_base64_decode(comma + 1, strlen(comma + 1), &data, &size, &bad)) {
                    if (bad == SIZE_MAX)
                        return skfi_nomem(p, up);
                    return skfi_fail(p, SKF_ERR_FORMAT, up, "invalid base64 at character %zu",
                                     (size_t)(comma + 1 - u) + bad);
                }
            } else {
                char *path;
                const char *why;
                if ((st = skfi_uri_to_path(u, base_dir, &path, &why)))
                    return st == SKF_ERR_NOMEM ? skfi_nomem(p, up)
                                               : skfi_fail(p, st, up, "'%.60s': %s", u, why);
                skf_error e;
                st = skfi_read_through(p->options, path, &data, &size, &e);
                skf_free(path);
                if (st)
                    return skfi_fail(p, st, up, "%s", e.message);
            }
            if (size < len) {
                skf_free(data);
                return skfi_fail(p, SKF_ERR_FORMAT, place,
                                 "byteLength %zu but the data holds %zu bytes", len, size);
            }
            size = len;
        }
        doc->buffers[i].data = data;
        doc->buffers[i].size = size;
    }
    return st;
}
