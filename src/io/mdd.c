/* MDD point cache (LightWave / Blender / Houdini): big-endian int32 frame
 * count, int32 point count, float32 times[frames], then frames x points x 3
 * float32 positions. Read and written whole; see meshseq.h. */
#include "io/meshseq_internal.h"

#include <math.h>
#include <string.h>

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}
static float bef(const uint8_t *p)
{
    uint32_t u = be32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

skf_status skf_mdd_read_memory(const uint8_t *data, size_t size, const char *name,
                               skf_meshseq **out, skf_error *err)
{
    return skf_mdd_read_memory_opts(data, size, name, NULL, out, err);
}

skf_status skf_mdd_read_memory_opts(const void *bytes, size_t size, const char *name,
                                    const skf_meshseq_read_options *opt, skf_meshseq **out,
                                    skf_error *err)
{
    const uint8_t *data = bytes;
    const skf_limits *lim = opt ? opt->limits : NULL;
    *out = NULL;
    if (!name)
        name = "<memory>";
    if (size < 8)
        return skf_fail(err, SKF_ERR_FORMAT, "%s: byte %zu: file shorter than the 8-byte MDD header",
                        name, size);
    int32_t frames = (int32_t)be32(data), points = (int32_t)be32(data + 4);
    if (frames <= 0)
        return skf_fail(err, SKF_ERR_FORMAT, "%s: byte 0: frame count %d (need at least 1)", name,
                        frames);
    if (points <= 0)
        return skf_fail(err, SKF_ERR_FORMAT, "%s: byte 4: point count %d (need at least 1)", name,
                        points);
    if ((size_t)points > skf_limits_value(lim, SKF_LIMIT_VERTICES))
        return skf_fail(err, SKF_ERR_LIMIT, "%s: byte 4: %d points exceed %s", name, points,
                        skf_limits_exceeded(lim, SKF_LIMIT_VERTICES).text);
    if ((size_t)frames > skf_limits_value(lim, SKF_LIMIT_FRAMES))
        return skf_fail(err, SKF_ERR_LIMIT, "%s: byte 0: %d frames exceed %s", name, frames,
                        skf_limits_exceeded(lim, SKF_LIMIT_FRAMES).text);
    uint64_t need = 8 + 4 * (uint64_t)frames + (uint64_t)frames * (uint64_t)points * 12;
    if (need != size)
        return skf_fail(err, SKF_ERR_FORMAT,
                        "%s: byte %zu: %d frames x %d points need %llu bytes, file has %zu%s", name,
                        size < need ? size : (size_t)need, frames, points,
                        (unsigned long long)need, size,
                        size < need ? " (truncated)" : " (trailing bytes or wrong counts)");
    skf_meshseq *seq = skf_meshseq_new((size_t)points, (size_t)frames);
    if (!seq)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory for %d frames x %d points", name,
                        frames, points);
    const uint8_t *t = data + 8;
    for (int32_t f = 0; f < frames; ++f)
        if (!isfinite(bef(t + 4 * f))) {
            skf_meshseq_free(seq);
            return skf_fail(err, SKF_ERR_FORMAT, "%s: byte %d: frame %d: time is not finite", name,
                            8 + 4 * f, f);
        }
    seq->start_time = bef(t);
    if (frames > 1) {
        double dt = (double)bef(t + 4) - (double)bef(t);
        seq->fps = dt > 0 ? 1.0 / dt : 0;
    }
    const uint8_t *p = t + 4 * (size_t)frames;
    size_t n = (size_t)frames * (size_t)points * 3;
    for (size_t k = 0; k < n; ++k) {
        float v = bef(p + 4 * k);
        if (!isfinite(v)) {
            size_t off = (size_t)(p - data) + 4 * k;
            size_t fr = k / 3 / (size_t)points, vi = k / 3 % (size_t)points;
            skf_meshseq_free(seq);
            return skf_fail(err, SKF_ERR_FORMAT,
                            "%s: byte %zu: frame %zu vertex %zu: position is not finite", name,
                            off, fr, vi);
        }
        seq->positions[k] = v;
    }
    *out = seq;
    return SKF_OK;
}

skf_status skf_mdd_read(const char *path, skf_meshseq **out, skf_error *err)
{
    return skf_mdd_read_opts(path, NULL, out, err);
}

skf_status skf_mdd_read_opts(const char *path, const skf_meshseq_read_options *opt, skf_meshseq **out,
                             skf_error *err)
{
    return skfi_meshseq_read_path(path, opt, skf_mdd_read_memory_opts, out, err);
}

skf_status skf_mdd_write(const char *path, const skf_meshseq *seq, skf_error *err)
{
    if (!seq || !seq->frame_count || !seq->vertex_count || !seq->positions)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: nothing to write (empty sequence)", path);
    if (seq->frame_count > INT32_MAX || seq->vertex_count > INT32_MAX ||
        seq->frame_count > (SIZE_MAX / 16) / seq->vertex_count)
        return skf_fail(err, SKF_ERR_LIMIT, "%s: sequence too large for MDD (the format's limit: int32 counts)", path);
    size_t nf = seq->frame_count, nv = seq->vertex_count;
    size_t size = 8 + 4 * nf + nf * nv * 12;
    uint8_t *buf = skf_malloc(size);
    if (!buf)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory (%zu bytes)", path, size);
    put_be32(buf, (uint32_t)nf);
    put_be32(buf + 4, (uint32_t)nv);
    double fps = seq->fps > 0 ? seq->fps : 24.0;
    for (size_t f = 0; f < nf; ++f) {
        float t = (float)(seq->start_time + (double)f / fps);
        uint32_t u;
        memcpy(&u, &t, 4);
        put_be32(buf + 8 + 4 * f, u);
    }
    uint8_t *p = buf + 8 + 4 * nf;
    for (size_t k = 0; k < nf * nv * 3; ++k) {
        float v = (float)seq->positions[k];
        uint32_t u;
        memcpy(&u, &v, 4);
        put_be32(p + 4 * k, u);
    }
    skf_status st = skf_write_file_atomic(path, buf, size, err);
    skf_free(buf);
    return st;
}
