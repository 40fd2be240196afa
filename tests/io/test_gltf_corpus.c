/* Malformed-input corpus for the glTF reader (issue 2, acceptance 6), all
 * generated here from a hand-built valid document, so no shared data needed:
 * every entry must fail with ONE line that starts with the file name and
 * names the expected place. Then: truncation at every length, byte
 * mutations at every offset, and failing every allocation in turn — none
 * may crash (run under ASan+UBSan in CI). */
#include "gltf_corpus.h"
#include "gltf_invariants.h"

static bool one_line_naming(const char *msg, const char *name)
{
    size_t n = strlen(name);
    return strchr(msg, '\n') == NULL && strncmp(msg, name, n) == 0 && msg[n] == ':' &&
           msg[n + 1] == ' ';
}

static void check_valid_fixtures(const char *dir)
{
    uint8_t bin[FX_BIN_SIZE];
    fixture_bin(bin);
    size_t n;
    uint8_t *glb = make_glb(FIXTURE_JSON, bin, FX_BIN_SIZE, &n);
    char path[600];
    snprintf(path, sizeof path, "%s/valid.glb", dir);
    CHECK(write_bytes(path, glb, n) == 0);
    skf_gltf *d;
    skf_error e;
    skf_status st = skf_gltf_load(path, &d, NULL, &e);
    CHECK_MSG(st == SKF_OK, "%s", e.message);
    if (!st) {
        check_gltf_invariants(d);
        CHECK(d->node_count == 3 && d->skin_count == 1 && d->animation_count == 1);
        skf_gltf_free(d);
    }
    unlink(path);
    free(glb);
    /* .gltf + external .bin (with a space, percent-encoded) */
    char *json = replace_once(FIXTURE_JSON, "{\"byteLength\":328}",
                              "{\"byteLength\":328,\"uri\":\"the%20data.bin\"}");
    char bpath[600];
    snprintf(path, sizeof path, "%s/valid.gltf", dir);
    snprintf(bpath, sizeof bpath, "%s/the data.bin", dir);
    CHECK(write_bytes(path, json, strlen(json)) == 0 && write_bytes(bpath, bin, FX_BIN_SIZE) == 0);
    st = skf_gltf_load(path, &d, NULL, &e);
    CHECK_MSG(st == SKF_OK, "%s", e.message);
    if (!st) {
        check_gltf_invariants(d);
        skf_gltf_free(d);
    }
    unlink(path);
    unlink(bpath);
    free(json);
}

/* Every prefix of a valid GLB, as is and with its header length patched. */
static void truncate_everywhere(void)
{
    uint8_t bin[FX_BIN_SIZE];
    fixture_bin(bin);
    size_t n;
    uint8_t *glb = make_glb(FIXTURE_JSON, bin, FX_BIN_SIZE, &n);
    size_t failures = 0, bad_messages = 0;
    uint8_t *copy = malloc(n);
    for (size_t len = 0; len < n; ++len) {
        for (int patch = 0; patch < 2; ++patch) {
            memcpy(copy, glb, len);
            if (patch && len >= 12) {
                uint32_t l = (uint32_t)len;
                memcpy(copy + 8, &l, 4);
            }
            /* exact-size heap copy so ASan sees any over-read */
            uint8_t *exact = malloc(len ? len : 1);
            memcpy(exact, copy, len);
            skf_gltf *d = NULL;
            skf_error e;
            skf_status st = skf_gltf_load_memory(exact, len, "cut.glb", NULL, &d, NULL, &e);
            if (st == SKF_OK) {
                skf_gltf_free(d);
            } else {
                ++failures;
                if (!one_line_naming(e.message, "cut.glb"))
                    ++bad_messages;
            }
            free(exact);
        }
    }
    /* Every truncation fails except possibly ones that only drop BIN padding
     * (there is none in the fixture: 328 is a multiple of 4). */
    CHECK_MSG(failures == 2 * n, "%zu of %zu truncations failed", failures, 2 * n);
    CHECK(bad_messages == 0);
    printf("truncation: %zu prefixes x 2 (header length as is / patched): %zu failed cleanly\n", n,
           failures);
    free(copy);
    free(glb);
}

/* Overwrite each byte with a few values; no crash, messages well formed. */
static void mutate_everywhere(void)
{
    uint8_t bin[FX_BIN_SIZE];
    fixture_bin(bin);
    size_t n;
    uint8_t *glb = make_glb(FIXTURE_JSON, bin, FX_BIN_SIZE, &n);
    const uint8_t values[] = {0x00, 0xFF, '9', '"', '-', 0x7F};
    size_t runs = 0, failed = 0, bad = 0;
    uint8_t *m = malloc(n);
    for (size_t at = 0; at < n; ++at)
        for (size_t v = 0; v < sizeof values; ++v) {
            if (glb[at] == values[v])
                continue;
            memcpy(m, glb, n);
            m[at] = values[v];
            skf_gltf *d = NULL;
            skf_error e;
            skf_warnings w = {0};
            ++runs;
            if (skf_gltf_load_memory(m, n, "mut.glb", NULL, &d, &w, &e) == SKF_OK) {
                check_gltf_invariants(d);
                skf_gltf_free(d);
            } else {
                ++failed;
                if (!one_line_naming(e.message, "mut.glb")) {
                    ++bad;
                    fprintf(stderr, "bad message: %s\n", e.message);
                }
            }
            skf_warnings_release(&w);
        }
    CHECK(bad == 0);
    printf("mutation: %zu single-byte variants, %zu rejected, %zu loaded (all passed the "
           "invariant checker)\n", runs, failed, runs - failed);
    free(m);
    free(glb);
}

/* Fail the n-th allocation for every n until a load succeeds. */
static void fail_every_allocation(void)
{
    uint8_t bin[FX_BIN_SIZE];
    fixture_bin(bin);
    size_t n;
    uint8_t *glb = make_glb(FIXTURE_JSON, bin, FX_BIN_SIZE, &n);
    size_t k, nomem = 0;
    for (k = 1; k < 10000; ++k) {
        skf_gltf *d = NULL;
        skf_error e;
        skf_alloc_fail_from(k);
        skf_status st = skf_gltf_load_memory(glb, n, "oom.glb", NULL, &d, NULL, &e);
        skf_alloc_fail_from(0);
        if (st == SKF_OK) {
            skf_gltf_free(d);
            break;
        }
        CHECK_MSG(st == SKF_ERR_NOMEM, "allocation %zu: %s", k, e.message);
        CHECK(one_line_naming(e.message, "oom.glb"));
        ++nomem;
    }
    CHECK(k < 10000);
    printf("fault injection: failing allocation 1..%zu each gave SKF_ERR_NOMEM; %zu allocations "
           "per load\n", nomem, k - 1);
    free(glb);
}

/* Limits: the depth cap is inclusive, and checks stay linear when many
 * nodes share one skinned mesh. */
static void limits(void)
{
    blob j = {0};
    const char *head = "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[";
    blob_put(&j, head, strlen(head));
    for (int i = 0; i <= SKF_GLTF_MAX_NODE_DEPTH; ++i) {
        char node[48];
        int len = i < SKF_GLTF_MAX_NODE_DEPTH
                      ? snprintf(node, sizeof node, "%s{\"children\":[%d]}", i ? "," : "", i + 1)
                      : snprintf(node, sizeof node, ",{}");
        blob_put(&j, node, (size_t)len);
    }
    blob_put(&j, "]}", 2);
    skf_gltf *d;
    skf_error e;
    skf_status st = skf_gltf_load_memory(j.data, j.size, "deep.gltf", NULL, &d, NULL, &e);
    CHECK_MSG(st == SKF_OK, "%s", e.message);
    if (!st) {
        int depth = 0;
        for (int p = d->nodes[SKF_GLTF_MAX_NODE_DEPTH].parent; p >= 0; p = d->nodes[p].parent)
            ++depth;
        CHECK(depth == SKF_GLTF_MAX_NODE_DEPTH);
        skf_gltf_free(d);
    }
    free(j.data);

    enum { EXTRA = 20000 };
    blob many = {0};
    const char *anchor = "\"rotation\":[0,0,0,1]}";
    const char *at = strstr(FIXTURE_JSON, anchor) + strlen(anchor);
    blob_put(&many, FIXTURE_JSON, (size_t)(at - FIXTURE_JSON));
    for (int i = 0; i < EXTRA; ++i)
        blob_put(&many, ",{\"mesh\":0,\"skin\":0}", strlen(",{\"mesh\":0,\"skin\":0}"));
    blob_put(&many, at, strlen(at) + 1);
    uint8_t bin[FX_BIN_SIZE];
    fixture_bin(bin);
    size_t n;
    uint8_t *glb = make_glb((const char *)many.data, bin, FX_BIN_SIZE, &n);
    st = skf_gltf_load_memory(glb, n, "many.glb", NULL, &d, NULL, &e);
    CHECK_MSG(st == SKF_OK, "%s", e.message);
    if (!st) {
        CHECK(d->node_count == 3 + EXTRA);
        skf_gltf_free(d);
    }
    printf("limits: depth %d chain loads; %d nodes sharing one skinned mesh load\n",
           SKF_GLTF_MAX_NODE_DEPTH, 3 + EXTRA);
    free(glb);
    free(many.data);
}

int main(void)
{
    corpus c;
    corpus_build(&c);
    check_valid_fixtures(c.dir);
    size_t ok = 0;
    for (size_t i = 0; i < c.n; ++i) {
        const corpus_entry *e = &c.e[i];
        skf_gltf *d = NULL;
        skf_error err;
        memset(&err, 0, sizeof err);
        skf_status st = skf_gltf_load(e->path, &d, NULL, &err);
        const char *base = strrchr(e->path, '/') + 1;
        CHECK_MSG(st != SKF_OK, "%s loaded but should fail", base);
        if (st == SKF_OK) {
            skf_gltf_free(d);
            continue;
        }
        bool good = one_line_naming(err.message, e->path) && strstr(err.message, e->expect);
        CHECK_MSG(good, "%s: message '%s' lacks '%s'", base, err.message, e->expect);
        ok += good;
        printf("%-32s %s\n", base, err.message + strlen(c.dir) + 1);
    }
    printf("corpus: %zu broken inputs, %zu failed with the expected one-line message\n", c.n, ok);
    CHECK(c.n >= 30);
    corpus_remove(&c);
    truncate_everywhere();
    mutate_everywhere();
    fail_every_allocation();
    limits();
    return skf_test_done();
}
