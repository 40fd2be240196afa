/* Alembic and MDD readers: exact agreement with the PC2 cache of the same
 * animation, the parent Xform, MDD round trip, and malformed files (every
 * one must fail with a message naming the file and the byte offset, never
 * crash). */
#include "check.h"
#include "skinfit/meshseq.h"

#include <stdint.h>

static uint8_t *slurp(const char *path, size_t *n)
{
    uint8_t *d;
    skf_error e;
    if (skf_read_file(path, (size_t)1 << 30, &d, n, &e))
        return NULL;
    return d;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Failure must be a FORMAT error whose message starts with the name and has a
 * byte offset. */
static int fails_well(skf_status st, const skf_error *e, const char *name)
{
    if (st == SKF_OK)
        return 0;
    if (st == SKF_ERR_NOMEM)
        return 1;
    return strncmp(e->message, name, strlen(name)) == 0 && strstr(e->message, "byte ") != NULL;
}

static void test_alembic(void)
{
    const char *abc = skf_test_data("dembones/Bone_Anim.abc");
    const char *pc2 = skf_test_data("dembones/Bone_Anim.pc2");
    if (!abc || !pc2)
        SKF_SKIP("dembones data absent");
    skf_meshseq *seq = NULL;
    skf_error err;
    skf_status st = skf_alembic_read(abc, NULL, &seq, &err);
    CHECK_MSG(st == SKF_OK, "%s", err.message);
    if (st)
        return;
    CHECK(seq->vertex_count == 754);
    CHECK(seq->frame_count == 400);
    CHECK_NEAR(seq->fps, 24.0, 1e-9);
    CHECK_NEAR(seq->start_time, 1.0 / 24.0, 1e-12);
    CHECK(seq->triangle_count == 752 * 2);

    /* PC2: "POINTCACHE2\0", int32 version, int32 points, float start,
     * float rate, int32 samples, then float32 xyz (parsed here directly so
     * this test does not depend on the PC2 reader). */
    size_t n;
    uint8_t *d = slurp(pc2, &n);
    CHECK(d != NULL && n >= 32 && !memcmp(d, "POINTCACHE2", 11));
    if (d && n >= 32) {
        uint32_t np = le32(d + 16), ns = le32(d + 28);
        CHECK(np == 754 && ns == 400);
        CHECK(n == 32 + (size_t)np * ns * 12);
        size_t mism = 0;
        double maxd = 0;
        for (size_t k = 0; k < (size_t)np * ns * 3 && 32 + 4 * k + 4 <= n; ++k) {
            float f;
            memcpy(&f, d + 32 + 4 * k, 4);
            double diff = fabs((double)f - seq->positions[k]);
            if (diff != 0)
                ++mism;
            if (diff > maxd)
                maxd = diff;
        }
        printf("alembic vs pc2: %zu of %zu coordinates differ, max |diff| %.3g\n", mism,
               (size_t)np * ns * 3, maxd);
        CHECK(mism == 0);
    }
    skf_free(d);

    /* Winding: Bone_rest.obj's first face is "f 192 2 241 567" (CCW). */
    CHECK(seq->triangles[0] == 191 && seq->triangles[1] == 1 && seq->triangles[2] == 240);

    skf_alembic_options opt = {.apply_parent_xform = true};
    skf_meshseq *w = NULL;
    st = skf_alembic_read(abc, &opt, &w, &err);
    CHECK_MSG(st == SKF_OK, "%s", err.message);
    if (!st) {
        double maxe = 0;
        for (size_t k = 0; k < seq->frame_count * seq->vertex_count; ++k) {
            const double *a = seq->positions + 3 * k, *b = w->positions + 3 * k;
            double e[3] = {b[0] - a[0], b[1] - (a[1] + 0.3851149), b[2] - a[2]};
            for (int i = 0; i < 3; ++i)
                if (fabs(e[i]) > maxe)
                    maxe = fabs(e[i]);
        }
        printf("parent xform: max deviation from +(0, 0.3851149, 0): %.3g\n", maxe);
        CHECK(maxe < 1e-6);
    }
    skf_meshseq_free(w);
    skf_meshseq_free(seq);

    /* Malformed: truncations at many lengths, flipped bytes in the structure. */
    uint8_t *file = slurp(abc, &n);
    CHECK(file != NULL);
    if (!file)
        return;
    size_t tried = 0, ok = 0;
    for (size_t len = 0; len < n; len += (len < 64 ? 1 : 1 + n / 300)) {
        skf_meshseq *s = NULL;
        st = skf_alembic_read_memory(file, len, "trunc.abc", NULL, &s, &err);
        ++tried;
        if (fails_well(st, &err, "trunc.abc"))
            ++ok;
        else
            fprintf(stderr, "truncated at %zu: st=%d %s\n", len, st, st ? err.message : "(accepted)");
        skf_meshseq_free(s);
    }
    printf("truncated archives: %zu of %zu rejected with file + byte offset\n", ok, tried);
    CHECK(ok == tried);
    /* Corrupt every 37th byte of the root and object structure (the last 14 KB,
     * where Ogawa writes its groups and headers) one at a time. */
    uint8_t *copy = skf_malloc(n);
    size_t corrupt = 0, crashed = 0;
    for (size_t off = n > 14000 ? n - 14000 : 0; off < n; off += 37) {
        memcpy(copy, file, n);
        copy[off] ^= 0xA5;
        skf_meshseq *s = NULL;
        st = skf_alembic_read_memory(copy, n, "bad.abc", NULL, &s, &err);
        if (st && !fails_well(st, &err, "bad.abc")) {
            ++crashed;
            fprintf(stderr, "corrupt byte %zu: message without place: %s\n", off, err.message);
        }
        if (st == SKF_OK && s->vertex_count == 0)
            ++crashed;
        corrupt += st != SKF_OK;
        skf_meshseq_free(s);
    }
    printf("corrupted archives: %zu rejected (the rest decode to some mesh), %zu bad messages\n",
           corrupt, crashed);
    CHECK(crashed == 0);
    /* NaN in a P sample: the first vertex of frame 0 (P data block of sample
     * 0 starts after its 8-byte size and 16-byte digest). Find it by value. */
    {
        float first = 0;
        skf_meshseq *s0 = NULL;
        skf_alembic_read_memory(file, n, "x.abc", NULL, &s0, &err);
        if (s0) {
            first = (float)s0->positions[0];
            skf_meshseq_free(s0);
        }
        size_t at = 0;
        for (size_t off = 16; off + 4 <= n; ++off) {
            float f;
            memcpy(&f, file + off, 4);
            if (f == first && off >= 24) {
                float g;
                memcpy(&g, file + off + 4, 4);
                uint64_t sz;
                memcpy(&sz, file + off - 24, 8);
                if (sz == 16 + 754 * 12) {
                    at = off;
                    break;
                }
            }
        }
        CHECK(at != 0);
        memcpy(copy, file, n);
        float nan = NAN;
        memcpy(copy + at, &nan, 4);
        skf_meshseq *s = NULL;
        st = skf_alembic_read_memory(copy, n, "nan.abc", NULL, &s, &err);
        CHECK(st == SKF_ERR_FORMAT);
        CHECK(strstr(err.message, "nan.abc: byte ") && strstr(err.message, "not finite"));
        printf("NaN: %s\n", err.message);
        skf_meshseq_free(s);
    }
    /* Not Ogawa at all. */
    skf_meshseq *s = NULL;
    st = skf_alembic_read_memory((const uint8_t *)"\x89HDF\r\n\x1a\n........", 16, "h.abc", NULL,
                                 &s, &err);
    CHECK(st == SKF_ERR_FORMAT && strstr(err.message, "HDF5"));
    skf_free(copy);
    skf_free(file);
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void test_mdd(void)
{
    skf_meshseq *a = skf_meshseq_new(5, 3);
    a->fps = 30;
    a->start_time = 0.5;
    for (size_t k = 0; k < 45; ++k)
        a->positions[k] = (double)(float)(0.25 * (double)k - 3.0);
    char path[256];
    snprintf(path, sizeof path, "%s/test_mdd_roundtrip.mdd",
             getenv("SKF_BUILD_DIR") ? getenv("SKF_BUILD_DIR") : ".");
    skf_error err;
    skf_status st = skf_mdd_write(path, a, &err);
    CHECK_MSG(st == SKF_OK, "%s", err.message);
    skf_meshseq *b = NULL;
    st = skf_mdd_read(path, &b, &err);
    CHECK_MSG(st == SKF_OK, "%s", err.message);
    if (b) {
        CHECK(b->frame_count == 3 && b->vertex_count == 5);
        CHECK_NEAR(b->fps, 30, 1e-4);
        CHECK_NEAR(b->start_time, 0.5, 1e-7);
        CHECK(!memcmp(a->positions, b->positions, 45 * sizeof(double)));
    }
    /* Big-endian header check by hand. */
    size_t n;
    uint8_t *d = slurp(path, &n);
    CHECK(d && n == 8 + 12 + 180 && d[3] == 3 && d[7] == 5);
    remove(path);
    skf_meshseq *c = NULL;
    if (d) {
        /* truncated at every length */
        size_t rejected = 0;
        for (size_t len = 0; len < n; ++len) {
            st = skf_mdd_read_memory(d, len, "t.mdd", &c, &err);
            rejected += fails_well(st, &err, "t.mdd");
            skf_meshseq_free(c);
            c = NULL;
        }
        CHECK(rejected == n);
        /* wrong counts */
        uint8_t *e = skf_malloc(n);
        memcpy(e, d, n);
        put32(e + 4, 6);
        st = skf_mdd_read_memory(e, n, "counts.mdd", &c, &err);
        CHECK(fails_well(st, &err, "counts.mdd"));
        printf("wrong counts: %s\n", err.message);
        /* zero frames */
        put32(e, 0);
        put32(e + 4, 5);
        st = skf_mdd_read_memory(e, n, "zero.mdd", &c, &err);
        CHECK(fails_well(st, &err, "zero.mdd") && strstr(err.message, "frame count 0"));
        printf("zero frames: %s\n", err.message);
        /* NaN at frame 2 vertex 1 */
        memcpy(e, d, n);
        size_t off = 8 + 12 + (2 * 5 + 1) * 12 + 4;
        e[off] = 0x7f;
        e[off + 1] = 0xc0;
        e[off + 2] = 0;
        e[off + 3] = 0;
        st = skf_mdd_read_memory(e, n, "nan.mdd", &c, &err);
        CHECK(fails_well(st, &err, "nan.mdd") && strstr(err.message, "frame 2 vertex 1"));
        printf("NaN: %s\n", err.message);
        skf_free(e);
    }
    skf_free(d);
    skf_meshseq_free(a);
    skf_meshseq_free(b);
}

int main(void)
{
    test_mdd();
    test_alembic();
    return skf_test_done();
}
