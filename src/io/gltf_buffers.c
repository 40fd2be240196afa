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
 * name a file by an absolute path or a scheme; and unless the caller sets
 * allow_outside_refs, a relative reference must stay inside the document's
 * folder once percent-decoded and its symlinks followed (issue 17 §2: a
 * .gltf naming "../../../../etc/passwd" or "%2e%2e/..." put that file into
 * the output GLB). The writer resolves image URIs with the same function.
 */
#include "io/gltf_internal.h"
#include "base/base_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

const char skfi_uri_outside_why[] =
    "does not resolve to a file inside the glTF file's folder (allow_outside_refs permits it)";

/* real is a realpath (no symlink, no "." or ".."): is it root or below it? */
static bool below(const char *root, const char *real)
{
    size_t n = strlen(root);
    if (n == 1 && root[0] == '/')
        return true;
    return strncmp(root, real, n) == 0 && (real[n] == 0 || real[n] == '/');
}

/* Does rel (decoded, relative) stay inside base_dir? Lexically (a file
 * callback serves the bytes, there are no symlinks to follow): no ".." above
 * the top. On disk: walked one component at a time from realpath(base_dir),
 * each existing component replaced by its realpath, and refused as soon as
 * the walk leaves the folder. The answer never depends on anything outside
 * the folder: a ".." at the top is refused without looking, and a symlink
 * leading out is refused whether its target exists or not (realpath failing
 * on a dangling or looping link is refused the same way), so the refusal
 * tells nothing about the outside. After a component that does not exist
 * the rest is walked as text (a ".." above the top is still refused); the
 * read then fails naming the path inside the folder. With canon (disk
 * only), an inside answer also gives the walked path (skf_malloc'd: every
 * existing component the realpath of its link, so no symlink and no "..")
 * and the length of the folder's realpath it starts with. */
static skf_status check_inside(const char *base_dir, const char *rel, bool lexical, bool *inside,
                               char **canon, size_t *root_len)
{
    *inside = false;
    if (canon)
        *canon = NULL;
    size_t n = strlen(rel);
    if (lexical) {
        long depth = 0;
        for (size_t i = 0; i < n;) {
            size_t j = i;
            while (j < n && rel[j] != '/')
                ++j;
            size_t len = j - i;
            if (len == 2 && rel[i] == '.' && rel[i + 1] == '.') {
                if (depth == 0)
                    return SKF_OK;
                --depth;
            } else if (len && !(len == 1 && rel[i] == '.')) {
                ++depth;
            }
            i = j + 1;
        }
        *inside = true;
        return SKF_OK;
    }
    char *root = realpath(base_dir, NULL);
    if (!root)
        return errno == ENOMEM ? SKF_ERR_NOMEM : SKF_OK;
    size_t cap = strlen(root) + n + 2;
    if (cap < PATH_MAX + 2)
        cap = PATH_MAX + 2;
    char *cur = skf_malloc(cap);
    if (!cur) {
        free(root);
        return SKF_ERR_NOMEM;
    }
    strcpy(cur, root);
    skf_status st = SKF_OK;
    bool ok = true, missing = false;
    for (size_t i = 0; i < n && ok;) {
        size_t j = i;
        while (j < n && rel[j] != '/')
            ++j;
        size_t len = j - i;
        if (len == 2 && rel[i] == '.' && rel[i + 1] == '.') {
            if (!strcmp(cur, root)) {
                ok = false;     /* above the folder: refused without looking */
            } else {
                char *slash = strrchr(cur, '/');
                if (slash == cur)
                    slash[1] = 0;
                else
                    *slash = 0;
            }
        } else if (len && !(len == 1 && rel[i] == '.')) {
            size_t cl = strlen(cur);
            if (cl + 1 + len + 1 > cap) {
                ok = false;     /* longer than any path the system opens */
                break;
            }
            if (cl > 1 || cur[0] != '/')
                cur[cl++] = '/';
            memcpy(cur + cl, rel + i, len);
            cur[cl + len] = 0;
            struct stat sb;
            if (missing || lstat(cur, &sb) != 0)
                missing = true; /* inside and missing: the rest is only text */
            else if (S_ISLNK(sb.st_mode)) {
                char *real = realpath(cur, NULL);
                if (!real) {
                    if (errno == ENOMEM)
                        st = SKF_ERR_NOMEM;
                    ok = false; /* dangling or looping: refused like an outside target */
                    break;
                }
                ok = below(root, real) && strlen(real) + 1 <= cap;
                if (ok)
                    strcpy(cur, real);
                free(real);
            }
        }
        i = j + 1;
    }
    *inside = ok;
    if (root_len)
        *root_len = strlen(root);
    if (ok && !st && canon)
        *canon = cur;
    else
        skf_free(cur);
    free(root);     /* realpath's, from libc */
    return st;
}

skf_status skfi_uri_to_path(const char *uri, const char *base_dir, unsigned flags, char **out,
                            const char **why)
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
    size_t rel = o;
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
    if (!(flags & SKFI_URI_ALLOW_OUTSIDE)) {
        bool inside;
        skf_status st =
            check_inside(base_dir, path + rel, flags & SKFI_URI_LEXICAL, &inside, NULL, NULL);
        if (st || !inside) {
            skf_free(path);
            *why = st ? "out of memory" : skfi_uri_outside_why;
            return st ? st : SKF_ERR_FORMAT;
        }
    }
    *out = path;
    return SKF_OK;
}

/* Open canon (check_inside's walked path) one component at a time from a
 * descriptor on the folder's realpath (its first root_len bytes), never
 * following a symlink (O_NOFOLLOW): the file opened is the one the check
 * saw inside the folder, even if a component is swapped for a symlink
 * after the check (then ELOOP or ENOTDIR). -1 with errno on failure. */
static int open_walked(const char *canon, size_t root_len)
{
    char *root = skf_malloc(root_len + 1);
    if (!root) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(root, canon, root_len);
    root[root_len] = 0;
    int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    skf_free(root);
    const char *c = canon + root_len;
    while (dfd >= 0 && *c) {
        while (*c == '/')
            ++c;
        const char *e = c;
        while (*e && *e != '/')
            ++e;
        if (e == c)
            break;
        char name[NAME_MAX + 1];
        if ((size_t)(e - c) > NAME_MAX) {
            close(dfd);
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(name, c, (size_t)(e - c));
        name[e - c] = 0;
        bool last = *e == 0;
        int flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY |
                    (last ? O_NONBLOCK : O_DIRECTORY);
        int fd = openat(dfd, name, flags);
        int saved = errno;
        close(dfd);
        errno = saved;
        if (fd < 0 || last)
            return fd;
        dfd = fd;
        c = e;
    }
    return dfd;
}

skf_status skfi_read_uri_file(const char *base_dir, const char *path, unsigned flags,
                              const skf_limits *limits, uint8_t **data, size_t *size,
                              skf_error *err)
{
    *data = NULL;
    *size = 0;
    if (flags & SKFI_URI_ALLOW_OUTSIDE)
        return skf_read_file_limits(path, limits, SKF_LIMIT_FILE_BYTES, data, size, err);
    size_t bl = strlen(base_dir);
    size_t rel = bl + (bl && base_dir[bl - 1] != '/');
    if (strlen(path) < rel || strncmp(path, base_dir, bl) != 0)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: not a path under %s", path, base_dir);
    bool inside;
    char *canon;
    size_t root_len = 0;
    skf_status st = check_inside(base_dir, path + rel, false, &inside, &canon, &root_len);
    if (st)
        return skf_fail(err, st, "%s: out of memory", path);
    if (!inside)    /* changed since the resolver's check: refused the same way */
        return skf_fail(err, SKF_ERR_FORMAT, "%s: %s", path, skfi_uri_outside_why);
    int fd = open_walked(canon, root_len);
    int e = errno;
    skf_free(canon);
    if (fd < 0) {
        st = skf_fail(err, e == ENOMEM ? SKF_ERR_NOMEM : SKF_ERR_IO, "%s: cannot open: %s", path,
                      e == ELOOP ? "a component became a symbolic link while it was opened"
                                 : strerror(e));
        skf_error_set_place(err, path, NULL, -1, NULL, -1);
        return st;
    }
    return skfi_read_fd_limits(fd, path, limits, SKF_LIMIT_FILE_BYTES, data, size, err);
}

unsigned skfi_uri_flags(const skf_gltf *doc, const skf_gltf_load_options *options)
{
    return (doc->allow_outside_refs ? SKFI_URI_ALLOW_OUTSIDE : 0) |
           (options && options->file.read ? SKFI_URI_LEXICAL : 0);
}

/* The error for a URI the resolver refused, at place: an outside reference
 * names the option field that permits it (kind SKF_KIND_OPTION). */
static skf_status refused(skfi_parser *p, skf_status st, const char *place, const char *uri,
                          const char *why)
{
    if (st == SKF_ERR_NOMEM)
        return skfi_nomem(p, place);
    skfi_fail(p, st, place, "'%.60s': %s", uri, why);
    if (why == skfi_uri_outside_why)
        skf_error_set_kind(p->err, SKF_KIND_OPTION, "skf_gltf_load_options.allow_outside_refs");
    return st;
}

skf_status skfi_check_image_uris(skfi_parser *p, json_t *root, const char *base_dir)
{
    json_t *arr = json_object_get(root, "images");
    size_t n = json_is_array(arr) ? json_array_size(arr) : 0;
    for (size_t i = 0; i < n; ++i) {
        const char *u = json_string_value(json_object_get(json_array_get(arr, i), "uri"));
        if (!u || strncmp(u, "data:", 5) == 0)
            continue;
        char *path, place[SKFI_PLACE_MAX];
        const char *why;
        skf_status st = skfi_uri_to_path(u, base_dir, skfi_uri_flags(p->doc, p->options), &path,
                                         &why);
        skf_free(path);
        if (st == SKF_ERR_NOMEM || why == skfi_uri_outside_why) {
            skfi_place(place, "images[%zu].uri", i);
            return refused(p, st, place, u, why);
        }
    }
    return SKF_OK;
}

skf_status skfi_read_through(const skf_gltf_load_options *options, const char *path,
                             const char *base_dir, unsigned uri_flags, uint8_t **data,
                             size_t *size, skf_error *err)
{
    *data = NULL;
    *size = 0;
    const skf_gltf_file_options *f = options ? &options->file : NULL;
    const skf_limits *limits = options ? options->limits : NULL;
    size_t max = skf_limits_value(limits, SKF_LIMIT_FILE_BYTES);
    if ((!f || !f->read) && base_dir)
        return skfi_read_uri_file(base_dir, path, uri_flags, limits, data, size, err);
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
                if ((st = skfi_uri_to_path(u, base_dir, skfi_uri_flags(doc, p->options), &path,
                                           &why)))
                    return refused(p, st, up, u, why);
                skf_error e;
                st = skfi_read_through(p->options, path, base_dir, skfi_uri_flags(doc, p->options),
                                       &data, &size, &e);
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
