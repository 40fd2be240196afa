/* Issue 7: headers that claim ~1 GB or more (counts and lengths far past the
 * file size) are refused quickly with a clean error naming the file, and
 * nothing near the claimed size is ever requested from the allocator
 * (skf_alloc_largest_request). The second half gives every reader that
 * takes a path a sparse 64 GiB file (a real header, then holes): each is
 * refused from its size before it is read. */
#include "check.h"
#include "skinfit/gltf.h"
#include "skinfit/meshseq.h"
#include "skinfit/svg.h"

#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MAX_REQUEST ((size_t)64 << 20)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void put_u32le(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        p[i] = (uint8_t)(v >> (8 * i));
}
static void put_u32be(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        p[i] = (uint8_t)(v >> (24 - 8 * i));
}
static void put_u64le(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; ++i)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void verdict(const char *what, skf_status st, const skf_error *err, double t0, const char *name)
{
    double dt = now() - t0;
    size_t largest = skf_alloc_largest_request(true);
    CHECK_MSG(st == SKF_ERR_FORMAT || st == SKF_ERR_LIMIT, "%s: status %d (%s)", what, (int)st,
              err->message);
    CHECK_MSG(strstr(err->message, name) != NULL, "%s: message '%s' does not name %s", what,
              err->message, name);
    CHECK_MSG(largest < MAX_REQUEST, "%s: requested %zu bytes", what, largest);
    CHECK_MSG(dt < 1.0, "%s: took %.3f s", what, dt);
    printf("%-34s refused in %.2f ms, largest allocation %zu bytes: %s\n", what, 1e3 * dt, largest,
           err->message);
}

/* A sparse file of 64 GiB whose first bytes are head: no disk space is used
 * and nothing but the head is ever stored. Returns false when the file
 * system cannot make one (then the case is skipped, visibly). */
static bool make_sparse(const char *path, const void *head, size_t head_size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return false;
    bool ok = write(fd, head, head_size) == (ssize_t)head_size &&
              ftruncate(fd, (off_t)64 << 30) == 0;
    close(fd);
    return ok;
}

static void sparse_files(void)
{
    const char *dir = getenv("SKF_BUILD_DIR");
    char path[4096];
    skf_error err;
    static const struct {
        const char *name, *head;
    } files[] = {
        {"sparse.glb", "glTF\2\0\0\0"},
        {"sparse.gltf", "{\"asset\":{\"version\":\"2.0\"}"},
        {"sparse.pc2", "POINTCACHE2"},
        {"sparse.mdd", "\0\0\0\3\0\0\0\4"},
        {"sparse.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"},
        {"sparse.abc", "Ogawa\xff\0\1"},
        {"sparse.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\">"},
        {"sparse.json", "{\"frames\":["},
    };
    for (size_t i = 0; i < sizeof files / sizeof *files; ++i) {
        snprintf(path, sizeof path, "%s/%s", dir ? dir : ".", files[i].name);
        if (!make_sparse(path, files[i].head, strlen(files[i].head) + 1)) {
            printf("SKIP %s: this file system cannot make a 64 GiB sparse file\n", files[i].name);
            unlink(path);
            continue;
        }
        skf_meshseq *seq = NULL;
        skf_gltf *doc = NULL;
        skf_svg_character *c = NULL;
        skf_svg_poses poses = {0};
        skf_status st = SKF_OK;
        skf_alloc_largest_request(true);
        double t0 = now();
        switch (i) {
        case 0: case 1: st = skf_gltf_load(path, &doc, NULL, &err); break;
        case 2: st = skf_pc2_read(path, &seq, &err); break;
        case 3: st = skf_mdd_read(path, &seq, &err); break;
        case 4: st = skf_obj_read(path, &seq, &err); break;
        case 5: st = skf_alembic_read(path, NULL, &seq, &err); break;
        case 6: st = skf_svg_load(path, NULL, &c, NULL, &err); break;
        default: st = skf_svg_poses_load(path, 0, 0, NULL, &poses, &err); break;
        }
        char what[64];
        snprintf(what, sizeof what, "64 GiB sparse %s", files[i].name);
        verdict(what, st, &err, t0, files[i].name);
        if (st == SKF_OK) { /* not expected; free whatever came back */
            skf_meshseq_free(seq);
            skf_gltf_free(doc);
            skf_svg_free(c);
            skf_svg_poses_release(&poses);
        }
        unlink(path);
    }
}

int main(void)
{
    uint8_t buf[256];
    skf_error err;
    skf_meshseq *seq = NULL;
    skf_gltf *doc = NULL;

    /* PC2: 2^28-1 points × 2^24-1 samples (~3e16 bytes claimed). */
    memset(buf, 0, sizeof buf);
    memcpy(buf, "POINTCACHE2", 12);
    put_u32le(buf + 12, 1);
    put_u32le(buf + 16, 0x0FFFFFFF);
    put_u32le(buf + 28, 0x00FFFFFF);
    skf_alloc_largest_request(true);
    double t0 = now();
    skf_status st = skf_pc2_read_memory(buf, sizeof buf, "huge.pc2", &seq, &err);
    verdict("PC2 2^28 points x 2^24 frames", st, &err, t0, "huge.pc2");
    /* PC2 just past the limit-free range: 100M points x 3 frames (3.6 GB claimed). */
    put_u32le(buf + 16, 100000000);
    put_u32le(buf + 28, 3);
    t0 = now();
    st = skf_pc2_read_memory(buf, sizeof buf, "huge2.pc2", &seq, &err);
    verdict("PC2 1e8 points x 3 frames", st, &err, t0, "huge2.pc2");

    /* MDD (big-endian): 2^24-1 frames × 2^28-1 points. */
    memset(buf, 0, sizeof buf);
    put_u32be(buf, 0x00FFFFFF);
    put_u32be(buf + 4, 0x0FFFFFFF);
    t0 = now();
    st = skf_mdd_read_memory(buf, sizeof buf, "huge.mdd", &seq, &err);
    verdict("MDD 2^24 frames x 2^28 points", st, &err, t0, "huge.mdd");

    /* GLB: total length and JSON chunk length of ~1-2 GB in a 256-byte file. */
    memset(buf, ' ', sizeof buf);
    put_u32le(buf, 0x46546C67);
    put_u32le(buf + 4, 2);
    put_u32le(buf + 8, 0x7FFFFFF0);
    put_u32le(buf + 12, 0x40000000);
    put_u32le(buf + 16, 0x4E4F534A);
    t0 = now();
    st = skf_gltf_load_memory(buf, sizeof buf, "huge.glb", NULL, &doc, NULL, &err);
    verdict("GLB 1 GiB JSON chunk", st, &err, t0, "huge.glb");

    /* glTF: a 1 GiB buffer and a 1e9-element accessor over an 8-byte data URI. */
    const char *json =
        "{\"asset\":{\"version\":\"2.0\"},"
        "\"buffers\":[{\"byteLength\":1073741824,\"uri\":\"data:application/octet-stream;base64,AAAAAAAAAAA=\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":1073741824}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":1000000000,\"type\":\"VEC3\"}]}";
    t0 = now();
    st = skf_gltf_load_memory(json, strlen(json), "huge.gltf", NULL, &doc, NULL, &err);
    verdict("glTF 1 GiB buffer, 1e9 accessor", st, &err, t0, "huge.gltf");

    /* glTF: an accessor claiming 1e9 elements inside a small, honest buffer. */
    const char *json2 =
        "{\"asset\":{\"version\":\"2.0\"},"
        "\"buffers\":[{\"byteLength\":8,\"uri\":\"data:application/octet-stream;base64,AAAAAAAAAAA=\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":1000000000,\"type\":\"VEC3\"}]}";
    t0 = now();
    st = skf_gltf_load_memory(json2, strlen(json2), "huge2.gltf", NULL, &doc, NULL, &err);
    verdict("glTF 1e9 accessor, 8-byte buffer", st, &err, t0, "huge2.gltf");

    /* Alembic (Ogawa): a root group claiming 2^40 children. */
    memset(buf, 0, sizeof buf);
    memcpy(buf, "Ogawa", 5);
    buf[5] = 0xff;
    buf[7] = 1;
    put_u64le(buf + 8, 16);
    put_u64le(buf + 16, (uint64_t)1 << 40);
    t0 = now();
    st = skf_alembic_read_memory(buf, sizeof buf, "huge.abc", NULL, &seq, &err);
    verdict("Alembic group of 2^40 children", st, &err, t0, "huge.abc");
    /* Alembic: a data block claiming 2^33 bytes. */
    put_u64le(buf + 16, 6);               /* root group: 6 children */
    for (int c = 0; c < 6; ++c)           /* each a data block at byte 80 */
        put_u64le(buf + 24 + 8 * c, (UINT64_C(1) << 63) | 80);
    put_u64le(buf + 80, (uint64_t)1 << 33); /* claiming 8 GiB */
    t0 = now();
    st = skf_alembic_read_memory(buf, sizeof buf, "huge2.abc", NULL, &seq, &err);
    verdict("Alembic 8 GiB data block", st, &err, t0, "huge2.abc");

    sparse_files();
    return skf_test_done();
}
