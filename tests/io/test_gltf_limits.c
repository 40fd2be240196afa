/* Per-call limits of the glTF reader (skf_gltf_load_options.limits,
 * skf_limits in base.h): each of file-bytes, node-depth and accessor-values
 * stops a load below the process-wide value, with a message naming the
 * caller's field; the process-wide table is not touched; the document keeps
 * its limits for skf_gltf_reparse; and two threads loading at once with
 * different limits each get their own answer. */
#include "limits_check.h"
#include "skinfit/gltf.h"

#include <stdio.h>
#include <string.h>

/* A chain of 6 nodes (depth 5), an accessor of 100 VEC3 without a
 * bufferView (300 values) and a 24-byte data: buffer. */
static const char *doc_json =
    "{\"asset\":{\"version\":\"2.0\"},"
    "\"buffers\":[{\"byteLength\":24,\"uri\":\"data:application/octet-stream;base64,"
    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"}],"
    "\"accessors\":[{\"componentType\":5126,\"count\":100,\"type\":\"VEC3\"}],"
    "\"nodes\":[{\"children\":[1]},{\"children\":[2]},{\"children\":[3]},{\"children\":[4]},"
    "{\"children\":[5]},{}],\"scenes\":[{\"nodes\":[0]}],\"scene\":0}";

static skf_status load(const skf_limits *limits, skf_gltf **doc, skf_error *e)
{
    skf_gltf_load_options o = {.limits = limits};
    return skf_gltf_load_memory_opts(doc_json, strlen(doc_json), "lim.gltf", NULL, &o, doc, NULL,
                                     e);
}

/* load as a limits_call: the document is freed. */
static skf_status load_call(const skf_limits *limits, void *arg, skf_error *e)
{
    (void)arg;
    skf_gltf *d = NULL;
    skf_status st = load(limits, &d, e);
    if (st)
        CHECK(!d);
    skf_gltf_free(d);
    return st;
}

static void test_each_limit(void)
{
    skf_gltf *d = NULL;
    skf_error e = {0};
    CHECK_MSG(load(NULL, &d, &e) == SKF_OK, "%s", e.message);
    skf_gltf_free(d);

    limits_check_call(load_call, NULL, SKF_LIMIT_NODE_DEPTH, 4, 0,
                      "lim.gltf: nodes[5]: node depth 5 exceeds the limit node-depth=4"
                      LIMITS_BY_CALLER(SKF_LIMIT_NODE_DEPTH));
    limits_check_call(load_call, NULL, SKF_LIMIT_ACCESSOR_VALUES, 299, 0,
                      "lim.gltf: accessors[0].count: 100 elements of 3 values without a bufferView exceed "
                      "the limit accessor-values=299" LIMITS_BY_CALLER(SKF_LIMIT_ACCESSOR_VALUES));
    /* one more passes: the whole document */
    CHECK(strlen(doc_json) == 331);
    limits_check_call(load_call, NULL, SKF_LIMIT_FILE_BYTES, 23, 331,
                      "lim.gltf: 331 bytes exceed the limit file-bytes=23" LIMITS_BY_CALLER(SKF_LIMIT_FILE_BYTES));
    /* file-bytes below a buffer's byteLength, the document itself allowed */
    skf_limits lim = {{0}};
    lim.value[SKF_LIMIT_FILE_BYTES] = 406;
    skf_gltf_load_options o = {.limits = &lim};
    const char *small = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":500,"
                        "\"uri\":\"data:application/octet-stream;base64,AAAA\"}]}";
    d = NULL;
    CHECK(skf_gltf_load_memory_opts(small, strlen(small), "b.gltf", NULL, &o, &d, NULL, &e) ==
          SKF_ERR_LIMIT);
    CHECK_MSG(strstr(e.message, "b.gltf: buffers[0].byteLength: 500 bytes exceed the limit "
                                "file-bytes=406 (set by the caller") == e.message,
              "%s", e.message);
    /* a per-call value above the ceiling is refused by skf_limits_set */
    CHECK(skf_limits_set(&lim, SKF_LIMIT_NODE_DEPTH, 0, &e) == SKF_ERR_ARGUMENT);
    CHECK(skf_limits_set(&lim, SKF_LIMIT_NODE_DEPTH,
                         skf_limit_get_info(SKF_LIMIT_NODE_DEPTH).max_value + 1,
                         &e) == SKF_ERR_ARGUMENT);
    CHECK(lim.value[SKF_LIMIT_NODE_DEPTH] == 0);
    CHECK(skf_limits_value(NULL, SKF_LIMIT_NODE_DEPTH) == SKF_GLTF_MAX_NODE_DEPTH);
}

/* skf_read_file_limits: the disk read under per-call limits. */
static void test_read_file(void)
{
    const char *bd = getenv("SKF_BUILD_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/gltf_limits_read.bin", bd && *bd ? bd : ".");
    static const uint8_t bytes[100] = {0};
    skf_error e = {0};
    CHECK(skf_write_file_atomic(path, bytes, sizeof bytes, &e) == SKF_OK);
    skf_limits lim = {{0}};
    lim.value[SKF_LIMIT_FILE_BYTES] = 50;
    uint8_t *data = NULL;
    size_t size = 0;
    CHECK(skf_read_file_limits(path, &lim, SKF_LIMIT_FILE_BYTES, &data, &size, &e) ==
          SKF_ERR_LIMIT && !data);
    CHECK_MSG(strstr(e.message, "file is 100 bytes, above the limit file-bytes=50 (set by the "
                                "caller: skf_limits.value[SKF_LIMIT_FILE_BYTES])"),
              "%s", e.message);
    CHECK(skf_read_file_limits(path, NULL, SKF_LIMIT_FILE_BYTES, &data, &size, &e) == SKF_OK &&
          size == 100);
    skf_free(data);
    remove(path);
}

/* The document keeps the limits it was loaded with: reparse applies them. */
static void test_reparse_keeps_limits(void)
{
    skf_limits lim = {{0}};
    skf_error e = {0};
    CHECK(skf_limits_set(&lim, SKF_LIMIT_NODE_DEPTH, 5, &e) == SKF_OK);
    skf_gltf *d = NULL;
    CHECK_MSG(load(&lim, &d, &e) == SKF_OK, "%s", e.message);
    if (!d)
        return;
    CHECK(d->limits.value[SKF_LIMIT_NODE_DEPTH] == 5);
    CHECK(skf_gltf_reparse(d, NULL, &e) == SKF_OK);
    d->limits.value[SKF_LIMIT_NODE_DEPTH] = 4;
    CHECK(skf_gltf_reparse(d, NULL, &e) == SKF_ERR_LIMIT);
    CHECK_MSG(strstr(e.message, "node-depth=4 (set by the caller") != NULL, "%s", e.message);
    skf_gltf_free(d);
}

/* Two threads at once, one capped at depth 3, one with the defaults. */
static void test_two_threads(void)
{
    limits_check_threads("glTF", load_call, NULL, SKF_LIMIT_NODE_DEPTH, 3, 300);
}

int main(void)
{
    test_each_limit();
    test_read_file();
    test_reparse_keeps_limits();
    test_two_threads();
    return skf_test_done();
}
