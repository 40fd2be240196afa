/* A .gltf's files cannot be swapped for symlinks between the inside-the-
 * folder check and the read (issue 17 §2, time of check to time of use;
 * src/io/gltf_buffers.c, skfi_read_uri_file). While documents load, a second
 * thread keeps replacing the buffer file b.bin (and the image tex.png) by a
 * symlink to a file outside the folder and back, each by one atomic rename,
 * so at any moment the name is either the inside file or the outside link.
 * Before the fix the check could see the file and the read then follow the
 * link: the outside bytes landed in the document (buffers) or in the written
 * GLB (images). Now each load either refuses (the check saw the link), fails
 * to open (the link appeared after the check: the open walks the checked
 * path with O_NOFOLLOW) or reads the inside bytes; never the outside ones.
 * The loops run until both a success and a swap-caused failure were seen
 * (so the race was really exercised), bounded by a count, not a clock. */
#include "check.h"
#include "refs_files.h"
#include "skinfit/gltf.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char top[512];   /* <tmp>/refs_race: holds secret.bin, secret.png, d/ */
static char dir[600];   /* <tmp>/refs_race/d: the glTF's folder */
static atomic_int stop_flag;
static atomic_long swaps;

/* name alternates between a hard link of keep (the inside file) and a
 * symlink to outside, each put in place by rename(2), which is atomic. */
struct flipper {
    const char *name, *keep, *outside;
};

static void *flip(void *arg)
{
    const struct flipper *f = arg;
    char path[800], keep[800], tmp[800];
    snprintf(path, sizeof path, "%s/%s", dir, f->name);
    snprintf(keep, sizeof keep, "%s/%s", dir, f->keep);
    snprintf(tmp, sizeof tmp, "%s/.swap", dir);
    for (long k = 0; !atomic_load(&stop_flag); ++k) {
        unlink(tmp);
        int made = (k & 1) ? link(keep, tmp) : symlink(f->outside, tmp);
        if (made == 0 && rename(tmp, path) == 0)
            atomic_fetch_add(&swaps, 1);
    }
    /* leave the inside file in place */
    unlink(tmp);
    if (link(keep, tmp) == 0)
        rename(tmp, path);
    return NULL;
}

static void write_doc(const char *json)
{
    char path[700];
    snprintf(path, sizeof path, "%s/doc.gltf", dir);
    put_file(path, json, strlen(json));
}

static void race_buffers(void)
{
    write_doc("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":8,\"uri\":\"b.bin\"}]}");
    char path[700];
    snprintf(path, sizeof path, "%s/doc.gltf", dir);
    struct flipper f = {"b.bin", "b.keep", "../secret.bin"};
    pthread_t th;
    atomic_store(&stop_flag, 0);
    CHECK(pthread_create(&th, NULL, flip, &f) == 0);
    long inside = 0, secret = 0, refused = 0, failed_open = 0, other = 0, loads = 0;
    while (loads < 200000 && !(inside > 0 && refused > 0 && loads >= 5000)) {
        skf_gltf *doc = NULL;
        skf_error e;
        memset(&e, 0, sizeof e);
        skf_status st = skf_gltf_load(path, &doc, NULL, &e);
        ++loads;
        if (st == SKF_OK) {
            if (doc->buffers[0].size == 8 && !memcmp(doc->buffers[0].data, "SECRET!!", 8))
                ++secret;
            else if (doc->buffers[0].size == 8 && !memcmp(doc->buffers[0].data, "INSIDE!!", 8))
                ++inside;
            else
                ++other;
        } else if (strstr(e.message, "does not resolve to a file inside the glTF file's folder")) {
            ++refused;
        } else if (strstr(e.message, "cannot open")) {
            ++failed_open;
            CHECK_MSG(!strstr(e.message, "secret"), "names the outside file: %s", e.message);
        } else {
            ++other;
            CHECK_MSG(0, "unexpected error: %s", e.message);
        }
        skf_gltf_free(doc);
    }
    atomic_store(&stop_flag, 1);
    pthread_join(th, NULL);
    printf("buffers: %ld loads, %ld swaps: %ld inside, %ld refused at the check, %ld failed to "
           "open a swapped path, %ld read the outside file\n",
           loads, (long)atomic_load(&swaps), inside, refused, failed_open, secret);
    CHECK_MSG(secret == 0, "%ld of %ld loads read the file outside the folder", secret, loads);
    CHECK(other == 0);
    CHECK_MSG(inside > 0 && refused > 0, "the race was not exercised: %ld inside, %ld refused",
              inside, refused);
}

static void race_images(void)
{
    write_doc("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":8,\"uri\":\"b.bin\"}],"
              "\"images\":[{\"uri\":\"tex.png\"}]}");
    char path[700], out[700];
    snprintf(path, sizeof path, "%s/doc.gltf", dir);
    snprintf(out, sizeof out, "%s/out.glb", top);
    skf_gltf *doc = NULL;
    skf_error e;
    CHECK_MSG(skf_gltf_load(path, &doc, NULL, &e) == SKF_OK, "%s", e.message);
    if (!doc)
        return;
    struct flipper f = {"tex.png", "tex.keep", "../secret.png"};
    pthread_t th;
    atomic_store(&stop_flag, 0);
    atomic_store(&swaps, 0);
    CHECK(pthread_create(&th, NULL, flip, &f) == 0);
    long embedded = 0, secret = 0, kept = 0, writes = 0;
    while (writes < 20000 && !(embedded > 0 && kept > 0 && writes >= 1000)) {
        skf_warnings w = {0};
        CHECK_MSG(skf_gltf_write_glb(doc, out, &w, &e) == SKF_OK, "%s", e.message);
        ++writes;
        if (file_has(out, "SECRETPNG"))
            ++secret;
        else if (file_has(out, "INSIDETEX"))
            ++embedded;
        else
            ++kept;     /* refused or failed to open: kept as a URI, with a warning */
        CHECK_MSG(w.count > 0 || file_has(out, "INSIDETEX") || file_has(out, "SECRETPNG"),
                  "write %ld: image neither embedded nor warned about", writes);
        skf_warnings_release(&w);
    }
    atomic_store(&stop_flag, 1);
    pthread_join(th, NULL);
    skf_gltf_free(doc);
    printf("images: %ld writes, %ld swaps: %ld embedded the inside image, %ld kept the URI, %ld "
           "embedded the outside file\n",
           writes, (long)atomic_load(&swaps), embedded, kept, secret);
    CHECK_MSG(secret == 0, "%ld of %ld GLBs embed the file outside the folder", secret, writes);
    CHECK_MSG(embedded > 0 && kept > 0, "the race was not exercised: %ld embedded, %ld kept",
              embedded, kept);
}

int main(void)
{
    const char *b = getenv("SKF_BUILD_DIR");
    snprintf(top, sizeof top, "%s/gltf_refs_race", b && *b ? b : "/tmp");
    char cmd[2000];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s/d'", top, top);
    if (system(cmd) != 0)
        return 1;
    snprintf(dir, sizeof dir, "%s/d", top);
    static const unsigned char secret_png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n',
                                               'S', 'E', 'C', 'R', 'E', 'T', 'P', 'N', 'G'};
    static const unsigned char tex[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n',
                                        'I', 'N', 'S', 'I', 'D', 'E', 'T', 'E', 'X'};
    char p[800];
    snprintf(p, sizeof p, "%s/secret.bin", top);
    put_file(p, "SECRET!!", 8);
    snprintf(p, sizeof p, "%s/secret.png", top);
    put_file(p, secret_png, sizeof secret_png);
    snprintf(p, sizeof p, "%s/b.keep", dir);
    put_file(p, "INSIDE!!", 8);
    snprintf(p, sizeof p, "%s/tex.keep", dir);
    put_file(p, tex, sizeof tex);
    const char *names[][2] = {{"b.keep", "b.bin"}, {"tex.keep", "tex.png"}};
    for (int i = 0; i < 2; ++i) {
        char from[800], to[800];
        snprintf(from, sizeof from, "%s/%s", dir, names[i][0]);
        snprintf(to, sizeof to, "%s/%s", dir, names[i][1]);
        CHECK(link(from, to) == 0);
    }
    race_buffers();
    race_images();
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
    if (system(cmd) != 0)
        return 1;
    return skf_test_done();
}
