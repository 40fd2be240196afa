/* Wavefront OBJ sequences: one OBJ file per frame (the exchange format of
 * mesh-sequence tools that lack a point cache). We read "v" lines (positions)
 * and "f" lines (polygons, fan-triangulated); everything else is skipped.
 * Written files hold "v x y z" with 9 significant digits (relative error
 * <= 5e-9, finer than float32) and
 * 1-based "f a b c" triangles.
 */
#include "skinfit/meshseq.h"
#include "base/strbuf.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Growable arrays. */
typedef struct dvec {
    double *v;
    size_t n, cap;
} dvec;
typedef struct uvec {
    uint32_t *v;
    size_t n, cap;
} uvec;

static bool dvec_push3(dvec *a, double x, double y, double z)
{
    if (a->n + 3 > a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 3 * 1024;
        double *p = skf_realloc_array(a->v, cap, sizeof *p);
        if (!p)
            return false;
        a->v = p;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    a->v[a->n++] = y;
    a->v[a->n++] = z;
    return true;
}

static bool uvec_push(uvec *a, uint32_t x)
{
    if (a->n + 1 > a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 3 * 1024;
        uint32_t *p = skf_realloc_array(a->v, cap, sizeof *p);
        if (!p)
            return false;
        a->v = p;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return true;
}

/* Parse one OBJ text (NUL-terminated) into positions and triangles. Face
 * indices are checked against the final vertex count. */
static skf_status parse_obj(const char *text, const char *name, const skf_limits *lim, dvec *pos, uvec *tri,
                            skf_error *err)
{
    const char *p = text;
    size_t line = 0;
    /* Indices of faces are recorded with their line for the range check. */
    uvec face_lines = {0};
    skf_status st = SKF_OK;
    while (*p && !st) {
        ++line;
        const char *eol = strchr(p, '\n');
        if (!eol)
            eol = p + strlen(p);
        while (p < eol && (*p == ' ' || *p == '\t'))
            ++p;
        if (p[0] == 'v' && (p[1] == ' ' || p[1] == '\t')) {
            double c[3];
            const char *q = p + 2;
            for (int i = 0; i < 3; ++i) {
                char *end;
                errno = 0;
                c[i] = strtod(q, &end);
                if (end == q || end > eol) {
                    st = skf_fail(err, SKF_ERR_FORMAT, "%s: line %zu: vertex needs 3 coordinates",
                                  name, line);
                    break;
                }
                if (!isfinite(c[i])) {
                    st = skf_fail(err, SKF_ERR_FORMAT, "%s: line %zu: coordinate %d is not finite",
                                  name, line, i);
                    break;
                }
                q = end;
            }
            if (st)
                break;
            if (pos->n / 3 >= skf_limits_value(lim, SKF_LIMIT_VERTICES)) {
                st = skf_fail(err, SKF_ERR_LIMIT, "%s: line %zu: vertices exceed %s", name, line,
                              skf_limits_exceeded(lim, SKF_LIMIT_VERTICES).text);
                break;
            }
            if (!dvec_push3(pos, c[0], c[1], c[2]))
                st = skf_fail(err, SKF_ERR_NOMEM, "%s: line %zu: out of memory", name, line);
        } else if (p[0] == 'f' && (p[1] == ' ' || p[1] == '\t')) {
            const char *q = p + 2;
            long idx[3];
            size_t corners = 0;
            while (q < eol && !st) {
                while (q < eol && (*q == ' ' || *q == '\t' || *q == '\r'))
                    ++q;
                if (q >= eol)
                    break;
                char *end;
                errno = 0;
                long v = strtol(q, &end, 10);
                if (end == q || errno) {
                    st = skf_fail(err, SKF_ERR_FORMAT, "%s: line %zu: bad face index", name, line);
                    break;
                }
                /* skip "/t/n" */
                while (end < eol && *end != ' ' && *end != '\t' && *end != '\r')
                    ++end;
                q = end;
                long nv = (long)(pos->n / 3);
                if (v < 0)
                    v = nv + v; /* relative: -1 is the last vertex so far */
                else
                    v = v - 1;
                if (v < 0) {
                    st = skf_fail(err, SKF_ERR_FORMAT, "%s: line %zu: face index out of range", name,
                                  line);
                    break;
                }
                if (v > (long)UINT32_MAX - 1) {
                    st = skf_fail(err, SKF_ERR_FORMAT, "%s: line %zu: face index %ld too large",
                                  name, line, v + 1);
                    break;
                }
                if (corners < 2) {
                    idx[corners] = v;
                } else {
                    idx[2] = v;
                    for (int k = 0; k < 3 && !st; ++k)
                        if (!uvec_push(tri, (uint32_t)idx[k]) || !uvec_push(&face_lines, (uint32_t)line))
                            st = skf_fail(err, SKF_ERR_NOMEM, "%s: line %zu: out of memory", name,
                                          line);
                    idx[1] = v;
                }
                ++corners;
            }
            if (!st && corners < 3)
                st = skf_fail(err, SKF_ERR_FORMAT, "%s: line %zu: face with %zu corners (needs 3)",
                              name, line, corners);
        }
        p = *eol ? eol + 1 : eol;
    }
    size_t nv = pos->n / 3;
    for (size_t i = 0; !st && i < tri->n; ++i)
        if (tri->v[i] >= nv)
            st = skf_fail(err, SKF_ERR_FORMAT, "%s: line %u: face index %u out of range (%zu vertices)",
                          name, face_lines.v[i], tri->v[i] + 1, nv);
    if (!st && nv == 0)
        st = skf_fail(err, SKF_ERR_FORMAT, "%s: line %zu: no vertices", name, line);
    skf_free(face_lines.v);
    return st;
}

static skf_status read_obj_file(const char *path, const skf_limits *lim, dvec *pos, uvec *tri,
                                skf_error *err)
{
    uint8_t *data;
    size_t size;
    skf_status st = skf_read_file_limits(path, lim, SKF_LIMIT_CACHE_BYTES, &data, &size, err);
    if (st)
        return st;
    if (memchr(data, 0, size)) {
        size_t off = (size_t)((uint8_t *)memchr(data, 0, size) - data);
        skf_free(data);
        return skf_fail(err, SKF_ERR_FORMAT, "%s: byte %zu: NUL byte in OBJ text", path, off);
    }
    st = parse_obj((const char *)data, path, lim, pos, tri, err);
    skf_free(data);
    return st;
}

/* A sequence of nv vertices x frames holding pos (copied) and tri (taken
 * over: tri->v becomes NULL); where names it in the out-of-memory error. */
static skf_status make_seq(const char *where, size_t nv, size_t frames, const dvec *pos, uvec *tri,
                           skf_meshseq **out, skf_error *err)
{
    skf_meshseq *s = skf_meshseq_new(nv, frames);
    if (!s)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", where);
    memcpy(s->positions, pos->v, pos->n * sizeof *pos->v);
    s->triangle_count = tri->n / 3;
    s->triangles = tri->v;
    tri->v = NULL;
    *out = s;
    return SKF_OK;
}

skf_status skf_obj_read(const char *path, skf_meshseq **out, skf_error *err)
{
    return skf_obj_read_opts(path, NULL, out, err);
}

skf_status skf_obj_read_opts(const char *path, const skf_meshseq_read_options *opt, skf_meshseq **out,
                             skf_error *err)
{
    dvec pos = {0};
    uvec tri = {0};
    *out = NULL;
    skf_status st = read_obj_file(path, opt ? opt->limits : NULL, &pos, &tri, err);
    if (!st)
        st = make_seq(path, pos.n / 3, 1, &pos, &tri, out, err);
    skf_free(pos.v);
    skf_free(tri.v);
    return st;
}

/* Validate a printf pattern: exactly one integer conversion (%d %i %u with
 * optional flags/width), other '%' only as "%%". */
static bool valid_pattern(const char *pat)
{
    int conv = 0;
    for (const char *p = pat; *p; ++p) {
        if (*p != '%')
            continue;
        ++p;
        if (*p == '%')
            continue;
        while (*p == '0' || *p == '-' || *p == ' ' || *p == '+')
            ++p;
        while (*p >= '0' && *p <= '9')
            ++p;
        if (*p != 'd' && *p != 'i' && *p != 'u')
            return false;
        ++conv;
    }
    return conv == 1;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Frame file name from folder or pattern. */
static skf_status frame_name(const char *where, bool folder, size_t f, char *buf, size_t cap,
                             skf_error *err)
{
    int n;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    if (folder) {
        size_t len = strlen(where);
        n = snprintf(buf, cap, "%s%sframe_%04zu.obj", where,
                     len && where[len - 1] == '/' ? "" : "/", f);
    } else {
        n = snprintf(buf, cap, where, (int)f);
    }
#pragma GCC diagnostic pop
    if (n < 0 || (size_t)n >= cap)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: frame file name too long", where);
    return SKF_OK;
}

skf_status skf_objseq_frame_file(const char *where, size_t frame, char *buf, size_t cap,
                                 skf_error *err)
{
    bool folder = is_dir(where);
    if (!folder && !valid_pattern(where))
        return skf_fail(err, SKF_ERR_ARGUMENT,
                        "%s: not a folder and not a pattern with one %%d conversion", where);
    return frame_name(where, folder, frame, buf, cap, err);
}

skf_status skf_objseq_read(const char *where, skf_meshseq **out, skf_error *err)
{
    return skf_objseq_read_opts(where, NULL, out, err);
}

skf_status skf_objseq_read_opts(const char *where, const skf_meshseq_read_options *opt,
                                skf_meshseq **out, skf_error *err)
{
    const skf_limits *lim = opt ? opt->limits : NULL;
    *out = NULL;
    bool folder = is_dir(where);
    if (!folder && !valid_pattern(where))
        return skf_fail(err, SKF_ERR_ARGUMENT,
                        "%s: not a folder and not a pattern with one %%d conversion", where);
    char name[4096];
    dvec pos = {0};
    uvec tri = {0};
    size_t nv = 0, frames = 0;
    skf_status st = SKF_OK;
    for (;;) {
        if ((st = frame_name(where, folder, frames, name, sizeof name, err)))
            break;
        if (!exists(name))
            break;
        if (frames >= skf_limits_value(lim, SKF_LIMIT_FRAMES)) {
            st = skf_fail(err, SKF_ERR_LIMIT, "%s: %s: frames exceed %s", where, name,
                          skf_limits_exceeded(lim, SKF_LIMIT_FRAMES).text);
            break;
        }
        size_t before = pos.n;
        uvec ftri = {0};
        st = read_obj_file(name, lim, &pos, &ftri, err);
        /* Vertex indices of later frames are relative to their own file. */
        if (!st && frames == 0) {
            tri = ftri;
            ftri.v = NULL;
            nv = pos.n / 3;
        } else if (!st && (pos.n - before) / 3 != nv) {
            st = skf_fail(err, SKF_ERR_MISMATCH, "%s: line 1: %zu vertices, frame 0 has %zu", name,
                          (pos.n - before) / 3, nv);
        }
        skf_free(ftri.v);
        if (st)
            break;
        ++frames;
    }
    if (!st && frames == 0) {
        char first[4096];
        if (!frame_name(where, folder, 0, first, sizeof first, NULL))
            st = skf_fail(err, SKF_ERR_IO, "%s: no frames (missing %s)", where, first);
        else
            st = skf_fail(err, SKF_ERR_IO, "%s: no frames", where);
    }
    if (!st)
        st = make_seq(where, nv, frames, &pos, &tri, out, err);
    skf_free(pos.v);
    skf_free(tri.v);
    return st;
}

/* A previous run's frame: frame_<digits>.obj. */
static bool is_frame_name(const char *name)
{
    return skf_is_frame_name(name, ".obj");
}

skf_status skf_objseq_write(const char *where, const skf_meshseq *seq, skf_error *err)
{
    size_t len = strlen(where);
    bool folder = is_dir(where) || (len && where[len - 1] == '/');
    if (!folder && !valid_pattern(where))
        return skf_fail(err, SKF_ERR_ARGUMENT,
                        "%s: not a folder (end it with '/') and not a pattern with one %%d conversion",
                        where);
    if (seq->vertex_count == 0 || seq->frame_count == 0)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: cannot write an empty sequence", where);
    /* A folder is written as a whole: frames go into a temporary sibling
     * folder swapped in at the end, so an interrupted or failed run never
     * leaves a mix of new and stale frames (base.h, skf_atomic_dir). */
    skf_atomic_dir dir = {0};
    if (folder && skf_atomic_dir_open(&dir, where, is_frame_name, err))
        return err->status;
    const char *into = folder ? dir.temp_path : where;
    char name[4096];
    skfi_strbuf b = {0};
    skf_status st = SKF_OK;
    for (size_t f = 0; f < seq->frame_count && !st; ++f) {
        if ((st = frame_name(into, folder, f, name, sizeof name, err)))
            break;
        skfi_strbuf_clear(&b);
        const double *p = seq->positions + f * seq->vertex_count * 3;
        for (size_t v = 0; v < seq->vertex_count; ++v) {
            if (!isfinite(p[3 * v]) || !isfinite(p[3 * v + 1]) || !isfinite(p[3 * v + 2])) {
                st = skf_fail(err, SKF_ERR_NUMERIC, "%s: frame %zu: vertex %zu is not finite",
                              folder ? where : name, f, v);
                break;
            }
            skfi_strbuf_printf(&b, "v %.9g %.9g %.9g\n", p[3 * v], p[3 * v + 1], p[3 * v + 2]);
        }
        for (size_t t = 0; !st && seq->triangles && t < seq->triangle_count; ++t)
            skfi_strbuf_printf(&b, "f %u %u %u\n", seq->triangles[3 * t] + 1, seq->triangles[3 * t + 1] + 1,
                      seq->triangles[3 * t + 2] + 1);
        if (!st && b.failed)
            st = skf_fail(err, SKF_ERR_NOMEM, "%s: frame %zu: out of memory", where, f);
        if (!st)
            st = skf_write_file_atomic(name, b.data, b.len, err);
    }
    skf_free(b.data);
    if (folder) {
        if (!st)
            st = skf_atomic_dir_commit(&dir, is_frame_name, err);
        else
            skf_atomic_dir_abort(&dir);
    }
    return st;
}
