/* Per-call limits of the sequence readers (skf_meshseq_read_options.limits,
 * skf_alembic_options.limits; skf_limits in base.h): PC2's vertices and
 * frames, MDD's frames, an OBJ's vertices and a file's cache-bytes each stop
 * a read below the process-wide value with a message naming the caller's
 * field; the process-wide table is not touched; and two threads reading at
 * once with different limits each get their own answer. */
#include "limits_check.h"
#include "skinfit/meshseq.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A PC2 of 2 points x 3 samples (12 + 4 + 4 + 4 + 4 + 4 header bytes, then 72). */
static uint8_t pc2[32 + 72];

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

static void make_pc2(void)
{
    memcpy(pc2, "POINTCACHE2", 12);
    put32(pc2 + 12, 1);
    put32(pc2 + 16, 2);
    float zero = 0.0f, one = 1.0f;
    uint32_t bits;
    memcpy(&bits, &zero, 4), put32(pc2 + 20, bits);
    memcpy(&bits, &one, 4), put32(pc2 + 24, bits);
    put32(pc2 + 28, 3);
    for (int i = 0; i < 18; ++i) {
        float f = (float)i;
        memcpy(&bits, &f, 4);
        put32(pc2 + 32 + 4 * i, bits);
    }
}

static skf_status read_pc2(const skf_limits *lim, skf_meshseq **out, skf_error *e)
{
    skf_meshseq_read_options o = {lim};
    return skf_pc2_read_memory_opts(pc2, sizeof pc2, "lim.pc2", &o, out, e);
}

/* read_pc2 as a limits_call: the sequence is freed. */
static skf_status pc2_call(const skf_limits *lim, void *arg, skf_error *e)
{
    (void)arg;
    skf_meshseq *s = NULL;
    skf_status st = read_pc2(lim, &s, e);
    if (st)
        CHECK(!s);
    skf_meshseq_free(s);
    return st;
}

static void test_pc2_limits(void)
{
    skf_meshseq *s = NULL;
    skf_error e = {0};
    CHECK_MSG(read_pc2(NULL, &s, &e) == SKF_OK && s && s->frame_count == 3, "%s", e.message);
    skf_meshseq_free(s);
    limits_check_call(pc2_call, NULL, SKF_LIMIT_VERTICES, 1, 0,
                      "lim.pc2: byte 16: 2 points exceed the limit vertices=1" LIMITS_BY_CALLER(SKF_LIMIT_VERTICES));
    limits_check_call(pc2_call, NULL, SKF_LIMIT_FRAMES, 2, 0,
                      "lim.pc2: byte 28: 3 samples exceed the limit frames=2" LIMITS_BY_CALLER(SKF_LIMIT_FRAMES));
}

/* The file readers: cache-bytes on the file, MDD's frames, an OBJ's vertices. */
static void test_file_readers(void)
{
    const char *bd = getenv("SKF_BUILD_DIR");
    char pc2_path[4096], mdd_path[4096], obj_path[4096];
    snprintf(pc2_path, sizeof pc2_path, "%s/meshseq_limits.pc2", bd && *bd ? bd : ".");
    snprintf(mdd_path, sizeof mdd_path, "%s/meshseq_limits.mdd", bd && *bd ? bd : ".");
    snprintf(obj_path, sizeof obj_path, "%s/meshseq_limits.obj", bd && *bd ? bd : ".");
    skf_error e = {0};
    CHECK(skf_write_file_atomic(pc2_path, pc2, sizeof pc2, &e) == SKF_OK);
    skf_limits lim = {{0}};
    lim.value[SKF_LIMIT_CACHE_BYTES] = 50;
    skf_meshseq_read_options o = {&lim};
    skf_meshseq *s = NULL;
    CHECK(skf_pc2_read_opts(pc2_path, &o, &s, &e) == SKF_ERR_LIMIT && !s);
    CHECK_MSG(strstr(e.message, "file is 104 bytes, above the limit cache-bytes=50 (set by the "
                                "caller: skf_limits.value[SKF_LIMIT_CACHE_BYTES])"),
              "%s", e.message);
    CHECK_MSG(skf_pc2_read_opts(pc2_path, NULL, &s, &e) == SKF_OK, "%s", e.message);
    /* the same frames as MDD, read back under frames=2 */
    CHECK(s && skf_mdd_write(mdd_path, s, &e) == SKF_OK);
    skf_meshseq_free(s);
    memset(&lim, 0, sizeof lim);
    lim.value[SKF_LIMIT_FRAMES] = 2;
    s = NULL;
    CHECK(skf_mdd_read_opts(mdd_path, &o, &s, &e) == SKF_ERR_LIMIT && !s);
    CHECK_MSG(strstr(e.message, "byte 0: 3 frames exceed the limit frames=2 (set by the caller: "
                                "skf_limits.value[SKF_LIMIT_FRAMES])"),
              "%s", e.message);
    CHECK_MSG(skf_mdd_read_opts(mdd_path, NULL, &s, &e) == SKF_OK && s && s->frame_count == 3, "%s",
              e.message);
    skf_meshseq_free(s);
    /* an OBJ of 3 vertices under vertices=2 */
    static const char obj[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    CHECK(skf_write_file_atomic(obj_path, obj, strlen(obj), &e) == SKF_OK);
    memset(&lim, 0, sizeof lim);
    lim.value[SKF_LIMIT_VERTICES] = 2;
    s = NULL;
    CHECK(skf_obj_read_opts(obj_path, &o, &s, &e) == SKF_ERR_LIMIT && !s);
    CHECK_MSG(strstr(e.message, "line 3: vertices exceed the limit vertices=2 (set by the caller: "
                                "skf_limits.value[SKF_LIMIT_VERTICES])"),
              "%s", e.message);
    CHECK_MSG(skf_obj_read_opts(obj_path, NULL, &s, &e) == SKF_OK && s && s->vertex_count == 3, "%s",
              e.message);
    skf_meshseq_free(s);
    CHECK(skf_limit(SKF_LIMIT_VERTICES) == skf_limit_get_info(SKF_LIMIT_VERTICES).default_value);
    remove(pc2_path);
    remove(mdd_path);
    remove(obj_path);
}

/* Two threads at once, one capped at 2 frames, one with the defaults. */
static void test_two_threads(void)
{
    limits_check_threads("PC2", pc2_call, NULL, SKF_LIMIT_FRAMES, 2, 300);
}

int main(void)
{
    make_pc2();
    test_pc2_limits();
    test_file_readers();
    test_two_threads();
    return skf_test_done();
}
