/* A .gltf cannot reach files outside its folder (issue 17 §2;
 * src/io/gltf_buffers.c, skf_gltf_load_options.allow_outside_refs): on disk,
 * buffer and image URIs that leave the folder after percent-decoding and
 * symlink resolution are refused at load, naming the field, with the same
 * text whether the outside file exists, is empty (/proc) or is missing; a
 * ".." that stays inside and a symlink to a file inside still load; the
 * option lets them through; the writer embeds an outside image only when
 * the load allowed it. The files live in a fresh folder under $SKF_BUILD_DIR
 * (or /tmp). */
#include "check.h"
#include "refs_files.h"
#include "skinfit/gltf.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char top[512];   /* <tmp>/refs: holds secret.bin, secret.png, d/ */
static char dir[600];   /* <tmp>/refs/d: the glTF's folder */

/* Load a one-buffer .gltf whose buffers[0].uri (or images[0].uri) is uri. */
static skf_status load(const char *uri, bool image, bool allow, skf_gltf **doc, skf_error *e)
{
    char json[1024], path[700];
    if (image)
        snprintf(json, sizeof json,
                 "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":8,\"uri\":"
                 "\"b.bin\"}],\"images\":[{\"uri\":\"%s\"}]}",
                 uri);
    else
        snprintf(json, sizeof json,
                 "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":8,\"uri\":\"%s\"}]}",
                 uri);
    snprintf(path, sizeof path, "%s/doc.gltf", dir);
    put_file(path, json, strlen(json));
    skf_gltf_load_options o = {.allow_outside_refs = allow};
    memset(e, 0, sizeof *e);
    *doc = NULL;
    return skf_gltf_load_opts(path, &o, doc, NULL, e);
}

/* The message with the quoted URI removed: what it says about the file. */
static void without_uri(const char *msg, char *out, size_t cap)
{
    const char *q1 = strchr(msg, '\'');
    const char *q2 = q1 ? strchr(q1 + 1, '\'') : NULL;
    if (!q2) {
        snprintf(out, cap, "%s", msg);
        return;
    }
    snprintf(out, cap, "%.*s''%s", (int)(q1 - msg), msg, q2 + 1);
}

static void test_buffers(void)
{
    const char *inside[] = {"b.bin", "sub/../b.bin", "./sub/../b.bin", "sub%2f..%2fb.bin",
                            "in.bin", "sub/up/b.bin"};
    for (size_t k = 0; k < sizeof inside / sizeof *inside; ++k) {
        skf_gltf *doc;
        skf_error e;
        skf_status st = load(inside[k], false, false, &doc, &e);
        CHECK_MSG(st == SKF_OK, "%s: %s", inside[k], e.message);
        if (doc)
            CHECK(doc->buffers[0].size == 8 && !memcmp(doc->buffers[0].data, "INSIDE!!", 8));
        skf_gltf_free(doc);
    }
    /* every way out, existing or not, gives one text */
    const char *outside[] = {"../secret.bin", "%2e%2e/secret.bin", "%2E%2E%2Fsecret.bin",
                             "sub/../../secret.bin", "out.bin", "outdir/secret.bin",
                             "dangling.bin", "loop.bin", "../missing.bin", "../d/b.bin",
                             "../../../../../../../../../../proc/self/status",
                             "../../../../../../../../../../etc/passwd", "b.bin/../../secret.bin",
                             "missing/../../secret.bin", "sub/up/../secret.bin"};
    char first[SKF_ERROR_MESSAGE_MAX] = "";
    for (size_t k = 0; k < sizeof outside / sizeof *outside; ++k) {
        skf_gltf *doc;
        skf_error e;
        skf_status st = load(outside[k], false, false, &doc, &e);
        CHECK_MSG(st == SKF_ERR_FORMAT, "%s: status %d (%s)", outside[k], (int)st, e.message);
        char want[800];
        snprintf(want, sizeof want, "%s/doc.gltf: buffers[0].uri: '%s': does not resolve to a file "
                 "inside the glTF file's folder (allow_outside_refs permits it)", dir, outside[k]);
        CHECK_MSG(!strcmp(e.message, want), "%s: %s", outside[k], e.message);
        CHECK(e.kind == SKF_KIND_OPTION && e.option &&
              !strcmp(e.option, "skf_gltf_load_options.allow_outside_refs"));
        CHECK_MSG(!strcmp(e.place.json_path, "buffers[0].uri"), "%s", e.place.json_path);
        char said[SKF_ERROR_MESSAGE_MAX];
        without_uri(e.message, said, sizeof said);
        if (!first[0])
            snprintf(first, sizeof first, "%s", said);
        CHECK_MSG(!strcmp(said, first), "differs: %s", said);
        skf_gltf_free(doc);
    }
    /* the option lets a trusted document out */
    skf_gltf *doc;
    skf_error e;
    CHECK_MSG(load("../secret.bin", false, true, &doc, &e) == SKF_OK, "%s", e.message);
    if (doc)
        CHECK(!memcmp(doc->buffers[0].data, "SECRET!!", 8) && doc->allow_outside_refs);
    skf_gltf_free(doc);
    CHECK_MSG(load("out.bin", false, true, &doc, &e) == SKF_OK, "%s", e.message);
    skf_gltf_free(doc);
}

static void test_images(void)
{
    skf_gltf *doc;
    skf_error e;
    const char *outside[] = {"../secret.png", "%2e%2e/secret.png", "outimg.png"};
    for (size_t k = 0; k < 3; ++k) {
        CHECK(load(outside[k], true, false, &doc, &e) == SKF_ERR_FORMAT);
        CHECK_MSG(strstr(e.message, "doc.gltf: images[0].uri: '") &&
                      strstr(e.message, "does not resolve to a file inside the glTF file's folder"),
                  "%s", e.message);
        CHECK(!strcmp(e.place.json_path, "images[0].uri"));
        skf_gltf_free(doc);
    }
    /* an image inside is embedded; missing inside is the writer's warning, not a refusal */
    CHECK_MSG(load("tex.png", true, false, &doc, &e) == SKF_OK, "%s", e.message);
    skf_gltf_free(doc);
    CHECK_MSG(load("missing.png", true, false, &doc, &e) == SKF_OK, "%s", e.message);
    skf_gltf_free(doc);

    /* the writer's resolver is the reader's: an outside image put into the
     * JSON after the load is embedded only when the load allowed it */
    char out[700];
    snprintf(out, sizeof out, "%s/out.glb", top);
    for (int allow = 0; allow < 2; ++allow) {
        CHECK_MSG(load("tex.png", true, allow, &doc, &e) == SKF_OK, "%s", e.message);
        if (!doc)
            continue;
        json_t *img = json_array_get(json_object_get(doc->json, "images"), 0);
        json_object_set_new(img, "uri", json_string("../secret.png"));
        skf_warnings w = {0};
        CHECK_MSG(skf_gltf_write_glb(doc, out, &w, &e) == SKF_OK, "%s", e.message);
        bool kept = false;
        for (size_t i = 0; i < w.count; ++i)
            kept |= strstr(w.items[i].text, "images[0].uri: '../secret.png' cannot be resolved "
                                            "(does not resolve to a file inside") != NULL;
        CHECK_MSG(kept == !allow, "allow %d: warning %s", allow, w.count ? w.items[0].text : "none");
        CHECK_MSG(file_has(out, "SECRETPNG") == (bool)allow, "allow %d", allow);
        skf_warnings_release(&w);
        skf_gltf_free(doc);
    }
}

int main(void)
{
    const char *b = getenv("SKF_BUILD_DIR");
    snprintf(top, sizeof top, "%s/gltf_refs", b && *b ? b : "/tmp");
    char cmd[2000];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s/d/sub/up' '%s/outdir'", top, top, top);
    if (system(cmd) != 0)
        return 1;
    snprintf(dir, sizeof dir, "%s/d", top);
    char p[1400], t[800];
    static const unsigned char png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n',
                                        'S', 'E', 'C', 'R', 'E', 'T', 'P', 'N', 'G'};
    static const unsigned char tex[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 'T', 'E', 'X'};
    snprintf(p, sizeof p, "%s/secret.bin", top);
    put_file(p, "SECRET!!", 8);
    snprintf(p, sizeof p, "%s/outdir/secret.bin", top);
    put_file(p, "SECRET!!", 8);
    snprintf(p, sizeof p, "%s/secret.png", top);
    put_file(p, png, sizeof png);
    snprintf(p, sizeof p, "%s/b.bin", dir);
    put_file(p, "INSIDE!!", 8);
    snprintf(p, sizeof p, "%s/tex.png", dir);
    put_file(p, tex, sizeof tex);
    struct {
        const char *target, *name;
    } links[] = {{"../secret.bin", "out.bin"}, {"../outdir", "outdir"}, {"../nothing.bin", "dangling.bin"},
                 {"loop.bin", "loop.bin"}, {"../secret.png", "outimg.png"}, {"b.bin", "in.bin"},
                 {"..", "sub/up"}};   /* d/sub/up -> d: "sub/up/.." is the outside */
    for (size_t k = 0; k < sizeof links / sizeof *links; ++k) {
        snprintf(p, sizeof p, "%s/%s", dir, links[k].name);
        snprintf(t, sizeof t, "%s", links[k].target);
        rmdir(p);
        CHECK_MSG(symlink(t, p) == 0, "symlink %s", p);
    }
    test_buffers();
    test_images();
    return skf_test_done();
}
