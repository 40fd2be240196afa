/* The writer never produces a file our own reader rejects: every variant of
 * the reader's reference document (tests/io/gltf_fixture.h) with one JSON
 * digit changed that still loads is written, and the GLB must load again
 * with the same nodes, skins, animations and accessor data. The unmutated
 * fixture (which lacks POSITION and animation-input bounds) is also written
 * to gltfwrite_out for the gltf-validator test. */
#include "check.h"
#include "io/gltf_fixture.h"
#include "io/gltf_invariants.h"
#include "skinfit/gltf.h"

#include <sys/stat.h>
#include <unistd.h>

static bool same_data(const skf_gltf *a, const skf_gltf *b)
{
    if (a->node_count != b->node_count || a->skin_count != b->skin_count ||
        a->animation_count != b->animation_count || b->accessor_count < a->accessor_count)
        return false;
    for (size_t i = 0; i < a->accessor_count; ++i) {
        size_t n = a->accessors[i].count * (size_t)a->accessors[i].components;
        if (b->accessors[i].count * (size_t)b->accessors[i].components != n)
            return false;
        double *x = malloc(n * sizeof *x + 8), *y = malloc(n * sizeof *y + 8);
        skf_error e;
        bool ok = x && y && skf_gltf_accessor_read(a, (int)i, x, false, &e) == SKF_OK &&
                  skf_gltf_accessor_read(b, (int)i, y, false, &e) == SKF_OK &&
                  memcmp(x, y, n * sizeof *x) == 0;
        free(x);
        free(y);
        if (!ok)
            return false;
    }
    return true;
}

int main(void)
{
    const char *bd = getenv("SKF_BUILD_DIR");
    char dir[2048], out[2200];
    snprintf(dir, sizeof dir, "%s/gltfwrite_out", bd && *bd ? bd : ".");
    mkdir(dir, 0777);
    uint8_t bin[FX_BIN_SIZE];
    fixture_bin(bin);
    size_t n;
    uint8_t *glb = make_glb(FIXTURE_JSON, bin, FX_BIN_SIZE, &n);
    CHECK(glb != NULL);
    if (!glb)
        return skf_test_done();
    skf_error e;
    skf_gltf *d = NULL, *b = NULL;
    snprintf(out, sizeof out, "%s/fixture.rt.glb", dir);
    CHECK(skf_gltf_load_memory(glb, n, "fixture.glb", NULL, &d, NULL, &e) == SKF_OK);
    skf_warnings w = {0};
    CHECK(d && skf_gltf_write_glb(d, out, &w, &e) == SKF_OK);
    for (size_t i = 0; i < w.count; ++i)
        printf("  warning: %s\n", w.items[i].text);
    CHECK(w.count == 2); /* POSITION and animation input bounds added */
    skf_warnings_release(&w);
    CHECK(skf_gltf_load(out, &b, NULL, &e) == SKF_OK);
    CHECK(d && b && same_data(d, b));
    skf_gltf_free(b);
    skf_gltf_free(d);

    snprintf(out, sizeof out, "%s/mutation.tmpout.glb", dir);
    size_t json_at = 20, json_len = strlen(FIXTURE_JSON);
    size_t tried = 0, loaded = 0, written = 0, failed_write = 0;
    uint8_t *m = malloc(n);
    for (size_t i = json_at; i < json_at + json_len; ++i) {
        if (glb[i] < '0' || glb[i] > '9')
            continue;
        static const char repl[] = {'0', '2', '9'};
        for (int r = 0; r < 3; ++r) {
            if (glb[i] == (uint8_t)repl[r])
                continue;
            memcpy(m, glb, n);
            m[i] = (uint8_t)repl[r];
            ++tried;
            d = b = NULL;
            if (skf_gltf_load_memory(m, n, "mutated.glb", NULL, &d, NULL, &e) != SKF_OK)
                continue;
            ++loaded;
            skf_status st = skf_gltf_write_glb(d, out, NULL, &e);
            if (st != SKF_OK) {
                /* a clean refusal must name the document and a place */
                ++failed_write;
                CHECK_MSG(strncmp(e.message, "mutated.glb: ", 13) == 0, "byte %zu: %s", i,
                          e.message);
            } else {
                ++written;
                st = skf_gltf_load(out, &b, NULL, &e);
                CHECK_MSG(st == SKF_OK, "byte %zu -> '%c': written file rejected: %s", i,
                          repl[r], e.message);
                if (b) {
                    check_gltf_invariants(b);
                    CHECK_MSG(same_data(d, b), "byte %zu -> '%c': data changed", i, repl[r]);
                }
                skf_gltf_free(b);
                unlink(out);
            }
            skf_gltf_free(d);
        }
    }
    free(m);
    free(glb);
    printf("%zu single-digit mutations: %zu loaded, %zu written and reread identical, %zu "
           "refused by the writer\n",
           tried, loaded, written, failed_write);
    CHECK(written >= 50); /* the fixture is small: most digit changes break an index */
    return skf_test_done();
}
