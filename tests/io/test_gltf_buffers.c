/* Buffer loading through the caller's file callbacks (src/io/gltf_buffers.c,
 * skf_gltf_file_options): a document and its external buffers served from
 * memory, the path each read is asked for, a failing callback giving one
 * clean line naming the buffer, short data, URIs refused before any read,
 * and read/release balance when every allocation fails in turn. Nothing here
 * touches the disk. */
#include "check.h"
#include "skinfit/gltf.h"

#include <string.h>

/* A virtual folder: name -> bytes; reads and releases counted. */
typedef struct vfile {
    const char *path;
    const void *data;
    size_t size;
} vfile;

typedef struct vfs {
    const vfile *files;
    size_t count;
    size_t reads, releases, failures;
    char last_path[256];
    size_t last_max;
    const char *fail_message; /* message for missing files; NULL = leave it empty */
} vfs;

static skf_status vfs_read(void *user, const char *path, size_t max_size, const uint8_t **data,
                           size_t *size, skf_error *err)
{
    vfs *v = user;
    snprintf(v->last_path, sizeof v->last_path, "%s", path);
    v->last_max = max_size;
    for (size_t i = 0; i < v->count; ++i)
        if (!strcmp(v->files[i].path, path)) {
            *data = v->files[i].data;
            *size = v->files[i].size;
            ++v->reads;
            return SKF_OK;
        }
    ++v->failures;
    if (v->fail_message)
        return skf_fail(err, SKF_ERR_IO, "%s", v->fail_message);
    return SKF_ERR_IO;
}

static void vfs_release(void *user, const uint8_t *data, size_t size)
{
    vfs *v = user;
    (void)size;
    bool known = false;
    for (size_t i = 0; i < v->count; ++i)
        known |= data == v->files[i].data;
    CHECK(known);
    ++v->releases;
}

static const float geo[6] = {1, 2, 3, 4, 5, 6};
static const float more[3] = {7, 8, 9};

/* Two external buffers; the first name is percent-encoded. */
static const char *doc_json =
    "{\"asset\":{\"version\":\"2.0\"},"
    "\"buffers\":[{\"byteLength\":24,\"uri\":\"sub%20dir/geo.bin\"},"
    "{\"byteLength\":12,\"uri\":\"more.bin\"}],"
    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":24},{\"buffer\":1,\"byteLength\":12}],"
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"},"
    "{\"bufferView\":1,\"componentType\":5126,\"count\":1,\"type\":\"VEC3\"}]}";

static skf_gltf_load_options opts_for(vfs *v)
{
    skf_gltf_load_options o = {.file = {.read = vfs_read, .release = vfs_release, .user = v}};
    return o;
}

static void test_served_from_memory(void)
{
    vfile files[] = {{"virt/sub dir/geo.bin", geo, sizeof geo}, {"virt/more.bin", more, sizeof more},
                     {"virt/doc.gltf", NULL, 0}};
    files[2].data = doc_json;
    files[2].size = strlen(doc_json);
    for (int whole = 0; whole < 2; ++whole) {
        vfs v = {.files = files, .count = 3};
        skf_gltf_load_options o = opts_for(&v);
        skf_gltf *d = NULL;
        skf_error e = {0};
        skf_status st =
            whole ? skf_gltf_load_opts("virt/doc.gltf", &o, &d, NULL, &e)
                  : skf_gltf_load_memory_opts(doc_json, strlen(doc_json), "virtual.gltf", "virt",
                                              &o, &d, NULL, &e);
        CHECK_MSG(st == SKF_OK, "%s", e.message);
        CHECK(v.reads == (size_t)(2 + whole) && v.releases == v.reads && v.failures == 0);
        CHECK(!strcmp(v.last_path, "virt/more.bin"));
        CHECK(v.last_max == SKF_GLTF_MAX_FILE_BYTES);
        if (!d)
            continue;
        CHECK(d->buffer_count == 2 && d->buffers[0].size == sizeof geo &&
              d->buffers[1].size == sizeof more);
        CHECK(d->buffers[0].data != (const void *)geo); /* a copy: the callback keeps its bytes */
        double x[6] = {0}, y[3] = {0};
        CHECK(skf_gltf_accessor_read(d, 0, x, true, &e) == SKF_OK);
        CHECK(skf_gltf_accessor_read(d, 1, y, true, &e) == SKF_OK);
        CHECK(x[0] == 1 && x[5] == 6 && y[0] == 7 && y[2] == 9);
        skf_gltf_free(d);
    }
}

static void test_callback_fails(void)
{
    vfile files[] = {{"virt/sub dir/geo.bin", geo, sizeof geo}};
    const char *messages[] = {"no such entry in the archive", NULL};
    const char *want[] = {
        "virtual.gltf: buffers[1].uri: virt/more.bin: no such entry in the archive",
        "virtual.gltf: buffers[1].uri: virt/more.bin: the file callback failed"};
    for (int k = 0; k < 2; ++k) {
        vfs v = {.files = files, .count = 1, .fail_message = messages[k]};
        skf_gltf_load_options o = opts_for(&v);
        skf_gltf *d = NULL;
        skf_error e = {0};
        skf_status st = skf_gltf_load_memory_opts(doc_json, strlen(doc_json), "virtual.gltf",
                                                  "virt", &o, &d, NULL, &e);
        CHECK(st == SKF_ERR_IO && d == NULL);
        CHECK_MSG(!strcmp(e.message, want[k]), "%s", e.message);
        CHECK(v.reads == 1 && v.releases == 1 && v.failures == 1);
    }
    /* the document itself unavailable */
    vfs v = {.files = files, .count = 1, .fail_message = "gone"};
    skf_gltf_load_options o = opts_for(&v);
    skf_gltf *d = NULL;
    skf_error e = {0};
    CHECK(skf_gltf_load_opts("virt/doc.gltf", &o, &d, NULL, &e) == SKF_ERR_IO && !d);
    CHECK_MSG(!strcmp(e.message, "virt/doc.gltf: gone"), "%s", e.message);
}

/* Fewer bytes than byteLength: a format error at the buffer; still released. */
static void test_short_data(void)
{
    vfile files[] = {{"virt/sub dir/geo.bin", geo, 20}, {"virt/more.bin", more, sizeof more}};
    vfs v = {.files = files, .count = 2};
    skf_gltf_load_options o = opts_for(&v);
    skf_gltf *d = NULL;
    skf_error e = {0};
    CHECK(skf_gltf_load_memory_opts(doc_json, strlen(doc_json), "virtual.gltf", "virt", &o, &d,
                                    NULL, &e) == SKF_ERR_FORMAT);
    CHECK_MSG(!strcmp(e.message,
                      "virtual.gltf: buffers[0]: byteLength 24 but the data holds 20 bytes"),
              "%s", e.message);
    CHECK(v.reads == 1 && v.releases == 1);
}

/* Absolute paths, schemes and %00 never reach the callback. */
static void test_refused_uris(void)
{
    const char *uris[] = {"/etc/geo.bin", "file:geo.bin", "http://example.com/geo.bin",
                          "C:/geo.bin", "geo%00.bin", "", "../geo.bin", "%2e%2e/geo.bin",
                          "a/../../geo.bin", "a%2f..%2f..%2fgeo.bin"};
    for (size_t k = 0; k < sizeof uris / sizeof uris[0]; ++k) {
        char json[512];
        snprintf(json, sizeof json,
                 "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":\"%s\"}]}",
                 uris[k]);
        vfs v = {.count = 0, .fail_message = "unexpected"};
        skf_gltf_load_options o = opts_for(&v);
        skf_gltf *d = NULL;
        skf_error e = {0};
        CHECK(skf_gltf_load_memory_opts(json, strlen(json), "u.gltf", "virt", &o, &d, NULL, &e) ==
              SKF_ERR_FORMAT);
        CHECK_MSG(strstr(e.message, "u.gltf: buffers[0].uri: '") == e.message, "%s", e.message);
        CHECK(v.reads == 0 && v.failures == 0);
    }
}

/* With a callback the folder check is lexical: ".." inside the folder is
 * served, above it only when allow_outside_refs is set (issue 17 §2). */
static void test_outside_lexical(void)
{
    vfile files[] = {{"virt/a/../more.bin", more, sizeof more}, {"virt/../more.bin", more, sizeof more}};
    const char *uris[] = {"a/../more.bin", "../more.bin"};
    for (int allow = 0; allow < 2; ++allow)
        for (int k = 0; k < 2; ++k) {
            char json[256];
            snprintf(json, sizeof json,
                     "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":12,\"uri\":\"%s\"}]}",
                     uris[k]);
            vfs v = {.files = files, .count = 2};
            skf_gltf_load_options o = opts_for(&v);
            o.allow_outside_refs = allow;
            skf_gltf *d = NULL;
            skf_error e = {0};
            skf_status st = skf_gltf_load_memory_opts(json, strlen(json), "u.gltf", "virt", &o, &d,
                                                      NULL, &e);
            bool served = k == 0 || allow;
            CHECK_MSG(served ? st == SKF_OK : st == SKF_ERR_FORMAT, "%s allow %d: %s", uris[k],
                      allow, e.message);
            CHECK(v.reads == (served ? 1u : 0u));
            if (!served)
                CHECK_MSG(!strcmp(e.message, "u.gltf: buffers[0].uri: '../more.bin': does not "
                                             "resolve to a file inside the glTF file's folder "
                                             "(allow_outside_refs permits it)"),
                          "%s", e.message);
            skf_gltf_free(d);
        }
}

/* Every allocation failing in turn: SKF_ERR_NOMEM or success, every
 * successful read released exactly once. */
static void test_alloc_failures(void)
{
    vfile files[] = {{"virt/sub dir/geo.bin", geo, sizeof geo}, {"virt/more.bin", more, sizeof more},
                     {"virt/doc.gltf", NULL, 0}};
    files[2].data = doc_json;
    files[2].size = strlen(doc_json);
    size_t points = 0;
    for (size_t n = 1; n < 100000; ++n) {
        vfs v = {.files = files, .count = 3};
        skf_gltf_load_options o = opts_for(&v);
        skf_gltf *d = NULL;
        skf_error e = {0};
        skf_alloc_fail_from(n);
        skf_status st = skf_gltf_load_opts("virt/doc.gltf", &o, &d, NULL, &e);
        size_t made = skf_alloc_fail_from(0);
        CHECK_MSG(st == SKF_OK || st == SKF_ERR_NOMEM, "failure %zu: %s", n, e.message);
        CHECK(v.releases == v.reads);
        skf_gltf_free(d);
        if (made < n) {
            CHECK(st == SKF_OK);
            break;
        }
        ++points;
    }
    printf("  %zu allocation failure points\n", points);
    CHECK(points > 10);
}

int main(void)
{
    test_served_from_memory();
    test_callback_fails();
    test_short_data();
    test_refused_uris();
    test_outside_lexical();
    test_alloc_failures();
    return skf_test_done();
}
