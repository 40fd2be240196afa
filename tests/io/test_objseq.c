/* OBJ sequences: folder and pattern round trips, single OBJ read with
 * polygons and relative indices, malformed inputs naming file and line. */
#include "check.h"
#include "skinfit/meshseq.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[256];

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void rm_rf(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[512];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    closedir(d);
    rmdir(dir);
}

static void expect_bad_obj(const char *text, const char *want, const char *what)
{
    char p[512];
    snprintf(p, sizeof p, "%s/bad.obj", tmp);
    write_text(p, text);
    skf_meshseq *s = NULL;
    skf_error err = {0};
    skf_status st = skf_obj_read(p, &s, &err);
    CHECK_MSG(st != SKF_OK && !s, "%s accepted", what);
    CHECK_MSG(strstr(err.message, p) == err.message && strstr(err.message, want), "%s: '%s' lacks '%s'",
              what, err.message, want);
    printf("  %-26s -> %s\n", what, err.message + strlen(tmp) + 1);
    skf_meshseq_free(s);
}

int main(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/skf_objseq_XXXXXX");
    CHECK(mkdtemp(tmp) != NULL);
    skf_error err = {0};

    /* single OBJ: a quad with v/t/n syntax and a relative-index triangle */
    char p[512];
    snprintf(p, sizeof p, "%s/quad.obj", tmp);
    write_text(p, "# test\r\nv 0 0 0\r\nv 1 0 0 1.0\nv 1 1 0\nv 0 1 0\nvn 0 0 1\n"
                  "f 1/1/1 2/2/1 3/3/1 4/4/1\nv 0 0 1\nf -1 -2 -3\ng x\n");
    skf_meshseq *s = NULL;
    CHECK(skf_obj_read(p, &s, &err) == SKF_OK);
    CHECK(s && s->vertex_count == 5 && s->triangle_count == 3);
    if (s && s->triangle_count == 3) {
        /* fan: (0 1 2) (0 2 3); relative -1 -2 -3 = 5 4 3 -> (4 3 2) */
        uint32_t want[9] = {0, 1, 2, 0, 2, 3, 4, 3, 2};
        CHECK(memcmp(s->triangles, want, sizeof want) == 0);
    }

    /* round trip: 3 frames into a folder and through a pattern */
    skf_meshseq *seq = skf_meshseq_new(5, 3);
    for (size_t i = 0; i < 45; ++i)
        seq->positions[i] = sin((double)i) * 3.0;
    seq->triangle_count = s ? s->triangle_count : 0;
    seq->triangles = s ? s->triangles : NULL;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/seq/", tmp);
    CHECK(skf_objseq_write(dir, seq, &err) == SKF_OK);
    skf_meshseq *r = NULL;
    CHECK(skf_objseq_read(dir, &r, &err) == SKF_OK);
    CHECK(r && r->vertex_count == 5 && r->frame_count == 3 && r->triangle_count == 3);
    double maxd = 0, maxrel = 0;
    for (size_t i = 0; r && i < 45; ++i) {
        double d = fabs(r->positions[i] - seq->positions[i]);
        maxd = fmax(maxd, d);
        if (seq->positions[i] != 0)
            maxrel = fmax(maxrel, d / fabs(seq->positions[i]));
    }
    printf("folder round trip: max |diff| %.3g, max relative %.3g\n", maxd, maxrel);
    CHECK(maxrel <= 5e-9); /* 9 significant digits */
    skf_meshseq_free(r);
    /* a shorter sequence into the same folder removes the stale frame */
    seq->frame_count = 2;
    CHECK(skf_objseq_write(dir, seq, &err) == SKF_OK);
    CHECK(skf_objseq_read(dir, &r, &err) == SKF_OK);
    CHECK(r && r->frame_count == 2);
    skf_meshseq_free(r);
    seq->frame_count = 3;

    char pat[512];
    snprintf(pat, sizeof pat, "%s/p_%%03d.obj", tmp);
    CHECK(skf_objseq_write(pat, seq, &err) == SKF_OK);
    CHECK(skf_objseq_read(pat, &r, &err) == SKF_OK);
    CHECK(r && r->frame_count == 3 && r->vertex_count == 5);
    skf_meshseq_free(r);
    snprintf(pat, sizeof pat, "%s/p_%%s.obj", tmp);
    CHECK(skf_objseq_read(pat, &r, &err) == SKF_ERR_ARGUMENT);
    snprintf(pat, sizeof pat, "%s/p_%%d_%%d.obj", tmp);
    CHECK(skf_objseq_write(pat, seq, &err) == SKF_ERR_ARGUMENT);
    seq->triangles = NULL;
    skf_meshseq_free(seq);

    /* malformed */
    printf("malformed:\n");
    expect_bad_obj("v 0 0 0\nv 1 0\n", "line 2", "truncated vertex");
    expect_bad_obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n", "line 4", "index past the end");
    expect_bad_obj("v 0 0 0\nf 1 -4 1\n", "line 2", "relative index before 1");
    expect_bad_obj("v 0 0 0\nv nan 0 0\n", "line 2", "NaN coordinate");
    expect_bad_obj("v 0 0 0\nv 1 0 inf\n", "line 2", "Inf coordinate");
    expect_bad_obj("v 0 0 0\nv 1 0 0\nf 1 2\n", "line 3", "two-corner face");
    expect_bad_obj("# nothing\n", "no vertices", "no vertices");
    expect_bad_obj("v 0 0 0\nf 1 x 2\n", "line 2", "non-numeric index");
    {
        char bin[] = "v 0 0 0\nv 1\0 1 1\n";
        snprintf(p, sizeof p, "%s/nul.obj", tmp);
        FILE *f = fopen(p, "wb");
        fwrite(bin, 1, sizeof bin - 1, f);
        fclose(f);
        skf_meshseq *x = NULL;
        CHECK(skf_obj_read(p, &x, &err) != SKF_OK && strstr(err.message, "byte 11"));
        printf("  %-26s -> %s\n", "NUL byte", err.message + strlen(tmp) + 1);
    }
    /* a valid OBJ cut at every length: either reads (a prefix can be a
     * valid OBJ) or fails naming the file and a line */
    {
        const char *full = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 -2.5e-3\nf 1/1 2/2 3/3 4/4\nf -1 -2 -3\n";
        size_t ok = 0, bad = 0;
        for (size_t cut = 0; cut <= strlen(full); ++cut) {
            char text[256];
            memcpy(text, full, cut);
            text[cut] = 0;
            snprintf(p, sizeof p, "%s/cut.obj", tmp);
            write_text(p, text);
            skf_meshseq *x = NULL;
            skf_status st = skf_obj_read(p, &x, &err);
            if (st == SKF_OK) {
                ++ok;
                CHECK(x && x->vertex_count >= 1);
            } else {
                ++bad;
                CHECK_MSG(strstr(err.message, "cut.obj: line ") != NULL, "cut %zu: %s", cut, err.message);
            }
            skf_meshseq_free(x);
        }
        printf("  truncations: %zu read, %zu rejected with file and line\n", ok, bad);
        CHECK(ok > 0 && bad > 0);
    }
    /* zero frames: an empty folder; mismatched vertex counts between frames */
    char empty[300];
    snprintf(empty, sizeof empty, "%s/empty", tmp);
    mkdir(empty, 0777);
    CHECK(skf_objseq_read(empty, &r, &err) != SKF_OK && strstr(err.message, "frame_0000.obj"));
    printf("  %-26s -> %s\n", "zero frames", err.message + strlen(tmp) + 1);
    snprintf(p, sizeof p, "%s/frame_0000.obj", empty);
    write_text(p, "v 0 0 0\nv 1 0 0\n");
    snprintf(p, sizeof p, "%s/frame_0001.obj", empty);
    write_text(p, "v 0 0 0\n");
    CHECK(skf_objseq_read(empty, &r, &err) == SKF_ERR_MISMATCH && strstr(err.message, "frame_0001.obj"));
    printf("  %-26s -> %s\n", "vertex count differs", err.message + strlen(tmp) + 1);
    CHECK(skf_obj_read("/nonexistent/a.obj", &r, &err) != SKF_OK &&
          strstr(err.message, "/nonexistent/a.obj"));

    skf_meshseq_free(s);
    char sub[512];
    snprintf(sub, sizeof sub, "%s/seq", tmp);
    rm_rf(sub);
    rm_rf(empty);
    rm_rf(tmp);
    return skf_test_done();
}
