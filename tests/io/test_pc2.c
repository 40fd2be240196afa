/* PC2 read/write: round trip, the shared Dem Bones cache, malformed inputs. */
#include "check.h"
#include "skinfit/meshseq.h"

#include <stdint.h>
#include <unistd.h>

static void put_u32(uint8_t *p, uint32_t u)
{
    for (int i = 0; i < 4; ++i)
        p[i] = (uint8_t)(u >> (8 * i));
}
static void put_f32(uint8_t *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put_u32(p, u);
}

/* A valid 3-point, 2-sample cache in memory. */
static size_t make_pc2(uint8_t *b, int points, int samples, int version)
{
    memcpy(b, "POINTCACHE2", 12);
    put_u32(b + 12, (uint32_t)version);
    put_u32(b + 16, (uint32_t)points);
    put_f32(b + 20, 0.0f);
    put_f32(b + 24, 1.0f);
    put_u32(b + 28, (uint32_t)samples);
    size_t n = (size_t)(points > 0 ? points : 0) * (size_t)(samples > 0 ? samples : 0) * 3;
    for (size_t i = 0; i < n; ++i)
        put_f32(b + 32 + 4 * i, (float)i * 0.5f - 1.0f);
    return 32 + 4 * n;
}

/* Expect failure whose message names the file and a byte offset. */
static void expect_bad(const uint8_t *b, size_t n, const char *what)
{
    skf_meshseq *s = NULL;
    skf_error err = {0};
    skf_status st = skf_pc2_read_memory(b, n, "bad.pc2", &s, &err);
    CHECK_MSG(st != SKF_OK && s == NULL, "%s accepted", what);
    CHECK_MSG(strstr(err.message, "bad.pc2: byte ") == err.message, "%s: message '%s'", what,
              err.message);
    printf("  %-28s -> %s\n", what, err.message);
}

int main(void)
{
    uint8_t buf[32 + 4 * 3 * 3 * 2 + 64];
    size_t n = make_pc2(buf, 3, 2, 1);

    /* valid memory read */
    skf_meshseq *s = NULL;
    skf_error err = {0};
    CHECK(skf_pc2_read_memory(buf, n, "ok.pc2", &s, &err) == SKF_OK);
    CHECK(s && s->vertex_count == 3 && s->frame_count == 2);
    if (s)
        CHECK_NEAR(s->positions[17], 17 * 0.5 - 1.0, 0);

    /* round trip through a file */
    char path[] = "/tmp/skf_pc2_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    s->fps = 24;
    s->start_time = 0.5;
    CHECK(skf_pc2_write(path, s, &err) == SKF_OK);
    skf_meshseq *r = NULL;
    CHECK(skf_pc2_read(path, &r, &err) == SKF_OK);
    CHECK(r && r->vertex_count == 3 && r->frame_count == 2);
    double maxdiff = 0;
    for (size_t i = 0; r && i < 18; ++i)
        maxdiff = fmax(maxdiff, fabs(r->positions[i] - s->positions[i]));
    printf("round trip max |diff| = %g\n", maxdiff);
    CHECK(maxdiff == 0);
    /* the clock in seconds (issue 13): startFrame = start_time, sampleRate = 1 / fps */
    {
        FILE *f = fopen(path, "rb");
        uint8_t h[32];
        CHECK(f && fread(h, 1, 32, f) == 32);
        if (f)
            fclose(f);
        float sf, sr;
        memcpy(&sf, h + 20, 4);
        memcpy(&sr, h + 24, 4);
        CHECK_NEAR(sf, 0.5, 0);
        CHECK_NEAR(sr, (float)(1.0 / 24), 0);
    }
    unlink(path);
    skf_meshseq_free(r);
    skf_meshseq_free(s);

    /* malformed */
    for (size_t cut = 0; cut < n; cut += (cut < 40 ? 1 : 7)) {
        char what[64];
        snprintf(what, sizeof what, "truncated at %zu", cut);
        expect_bad(buf, cut, what);
    }
    uint8_t b2[sizeof buf];
    memcpy(b2, buf, n);
    b2[0] = 'X';
    expect_bad(b2, n, "wrong magic");
    n = make_pc2(b2, 3, 2, 2);
    expect_bad(b2, n, "version 2");
    n = make_pc2(b2, 3, 2, 1);
    put_u32(b2 + 28, 1000000);
    expect_bad(b2, n, "sample count past the end");
    put_u32(b2 + 28, 0x7fffffff);
    put_u32(b2 + 16, 0x7fffffff);
    expect_bad(b2, n, "huge counts");
    n = make_pc2(b2, 3, 2, 1);
    put_u32(b2 + 16, (uint32_t)-5);
    expect_bad(b2, n, "negative points");
    n = make_pc2(b2, 3, 0, 1);
    expect_bad(b2, n, "zero frames");
    n = make_pc2(b2, 0, 2, 1);
    expect_bad(b2, n, "zero points");
    n = make_pc2(b2, 3, 2, 1);
    put_f32(b2 + 32 + 4 * 7, NAN);
    expect_bad(b2, n, "NaN coordinate");
    n = make_pc2(b2, 3, 2, 1);
    put_f32(b2 + 20, INFINITY);
    expect_bad(b2, n, "Inf start frame");
    n = make_pc2(b2, 3, 2, 1);
    expect_bad(b2, n + 5, "trailing bytes");

    /* missing file, directory */
    CHECK(skf_pc2_read("/nonexistent/x.pc2", &s, &err) != SKF_OK && strstr(err.message, "/nonexistent/x.pc2"));
    CHECK(skf_pc2_read("/tmp", &s, &err) != SKF_OK && strstr(err.message, "/tmp"));

    /* the shared Dem Bones cache */
    const char *bone = skf_test_data("dembones/Bone_Anim.pc2");
    if (bone) {
        skf_meshseq *b = NULL;
        CHECK(skf_pc2_read(bone, &b, &err) == SKF_OK);
        CHECK(b && b->vertex_count == 754 && b->frame_count == 400);
        if (b)
            printf("Bone_Anim.pc2: %zu vertices, %zu frames\n", b->vertex_count, b->frame_count);
        skf_meshseq_free(b);
    } else {
        printf("Bone_Anim.pc2 absent: shared-data part not run\n");
    }
    return skf_test_done();
}
