/* PC2 point caches (the format of 3ds Max's Point Cache 2 modifier, read by
 * Blender's Mesh Cache modifier). Layout, little-endian:
 *   0  char[12] "POINTCACHE2\0"   12 int32 version = 1   16 int32 numPoints
 *   20 float32 startFrame          24 float32 sampleRate  28 int32 numSamples
 *   32 numSamples × numPoints × float32[3]
 * The header counts are validated against the file size before allocating.
 * Writing stores the clock in seconds (startFrame = start time, sampleRate =
 * 1 / fps); reading leaves fps = 0, since files from other tools use frame
 * units there (3ds Max: sampleRate 1 = one sample per frame).
 */
#include "io/meshseq_internal.h"

#include <math.h>
#include <string.h>

#define PC2_HEADER_BYTES 32

static uint32_t rd_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float rd_f32(const uint8_t *p)
{
    uint32_t u = rd_u32(p);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static void wr_u32(uint8_t *p, uint32_t u)
{
    p[0] = (uint8_t)u;
    p[1] = (uint8_t)(u >> 8);
    p[2] = (uint8_t)(u >> 16);
    p[3] = (uint8_t)(u >> 24);
}

static void wr_f32(uint8_t *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    wr_u32(p, u);
}

skf_status skf_pc2_read_memory(const void *data, size_t size, const char *name,
                               skf_meshseq **out, skf_error *err)
{
    return skf_pc2_read_memory_opts(data, size, name, NULL, out, err);
}

skf_status skf_pc2_read_memory_opts(const void *data, size_t size, const char *name,
                                    const skf_meshseq_read_options *opt, skf_meshseq **out,
                                    skf_error *err)
{
    const skf_limits *lim = opt ? opt->limits : NULL;
    const uint8_t *b = data;
    *out = NULL;
    if (size < PC2_HEADER_BYTES)
        return skf_fail(err, SKF_ERR_FORMAT, "%s: byte %zu: truncated header (%d bytes needed)",
                        name, size, PC2_HEADER_BYTES);
    if (memcmp(b, "POINTCACHE2", 12) != 0)
        return skf_fail(err, SKF_ERR_FORMAT, "%s: byte 0: not a PC2 file (no POINTCACHE2 signature)",
                        name);
    int32_t version = (int32_t)rd_u32(b + 12);
    int32_t points = (int32_t)rd_u32(b + 16);
    float start_frame = rd_f32(b + 20);
    float sample_rate = rd_f32(b + 24);
    int32_t samples = (int32_t)rd_u32(b + 28);
    if (version != 1)
        return skf_fail(err, SKF_ERR_FORMAT, "%s: byte 12: unsupported version %d (expected 1)",
                        name, (int)version);
    if (points <= 0)
        return skf_fail(err, SKF_ERR_FORMAT, "%s: byte 16: point count %d (must be > 0)", name,
                        (int)points);
    if (samples <= 0)
        return skf_fail(err, SKF_ERR_FORMAT, "%s: byte 28: sample count %d (must be > 0)", name,
                        (int)samples);
    if (!isfinite(start_frame))
        return skf_fail(err, SKF_ERR_FORMAT, "%s: byte 20: start frame is not finite", name);
    if (!isfinite(sample_rate))
        return skf_fail(err, SKF_ERR_FORMAT, "%s: byte 24: sample rate is not finite", name);
    if ((size_t)points > skf_limits_value(lim, SKF_LIMIT_VERTICES))
        return skf_fail(err, SKF_ERR_LIMIT, "%s: byte 16: %d points exceed %s", name, (int)points,
                        skf_limits_exceeded(lim, SKF_LIMIT_VERTICES).text);
    if ((size_t)samples > skf_limits_value(lim, SKF_LIMIT_FRAMES))
        return skf_fail(err, SKF_ERR_LIMIT, "%s: byte 28: %d samples exceed %s", name,
                        (int)samples, skf_limits_exceeded(lim, SKF_LIMIT_FRAMES).text);
    size_t np = (size_t)points, ns = (size_t)samples;
    size_t avail = size - PC2_HEADER_BYTES;
    size_t frame_bytes = np * 12;
    /* Both factors are bounded above, so compare by division: no overflow. */
    if (avail / frame_bytes < ns)
        return skf_fail(err, SKF_ERR_FORMAT,
                        "%s: byte %zu: truncated: %zu samples × %zu points need %zu bytes per sample after byte %d, only %zu bytes follow",
                        name, size, ns, np, frame_bytes, PC2_HEADER_BYTES, avail);
    if (avail != frame_bytes * ns)
        return skf_fail(err, SKF_ERR_FORMAT, "%s: byte %zu: %zu trailing bytes after the last sample",
                        name, PC2_HEADER_BYTES + frame_bytes * ns, avail - frame_bytes * ns);
    skf_meshseq *s = skf_meshseq_new(np, ns);
    if (!s)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory for %zu × %zu positions", name, ns, np);
    const uint8_t *p = b + PC2_HEADER_BYTES;
    size_t n = np * ns * 3;
    for (size_t i = 0; i < n; ++i) {
        float f = rd_f32(p + 4 * i);
        if (!isfinite(f)) {
            size_t v = i / 3 % np, fr = i / 3 / np;
            skf_meshseq_free(s);
            return skf_fail(err, SKF_ERR_FORMAT,
                            "%s: byte %zu: frame %zu vertex %zu coordinate %zu is not finite", name,
                            PC2_HEADER_BYTES + 4 * i, fr, v, i % 3);
        }
        s->positions[i] = f;
    }
    s->fps = 0;
    s->start_time = 0;
    *out = s;
    return SKF_OK;
}

skf_status skf_pc2_read(const char *path, skf_meshseq **out, skf_error *err)
{
    return skf_pc2_read_opts(path, NULL, out, err);
}

skf_status skf_pc2_read_opts(const char *path, const skf_meshseq_read_options *opt, skf_meshseq **out,
                             skf_error *err)
{
    return skfi_meshseq_read_path(path, opt, skf_pc2_read_memory_opts, out, err);
}

skf_status skf_pc2_write(const char *path, const skf_meshseq *seq, skf_error *err)
{
    if (seq->vertex_count == 0 || seq->frame_count == 0)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: cannot write an empty sequence (%zu vertices, %zu frames)",
                        path, seq->vertex_count, seq->frame_count);
    if (seq->vertex_count > INT32_MAX || seq->frame_count > INT32_MAX)
        return skf_fail(err, SKF_ERR_LIMIT, "%s: sequence too large for PC2 (the format's limit: int32 counts)", path);
    uint8_t header[PC2_HEADER_BYTES];
    memcpy(header, "POINTCACHE2", 12);
    wr_u32(header + 12, 1);
    wr_u32(header + 16, (uint32_t)seq->vertex_count);
    /* the clock in seconds: start of sample 0 and time between samples, the
     * units Blender's Mesh Cache compares with scene time in its 'Time'
     * mode (docs/meshseq-pc2-obj.md); no clock (fps 0): 0 and 1 */
    wr_f32(header + 20, seq->fps > 0 ? (float)seq->start_time : 0.0f);
    wr_f32(header + 24, seq->fps > 0 ? (float)(1.0 / seq->fps) : 1.0f);
    wr_u32(header + 28, (uint32_t)seq->frame_count);

    skf_atomic_file f;
    skf_status st = skf_atomic_open(&f, path, err);
    if (st)
        return st;
    st = skf_atomic_write(&f, header, sizeof header, err);
    /* Write a frame at a time through a small buffer. */
    size_t per_frame = seq->vertex_count * 3;
    uint8_t *buf = st ? NULL : skf_malloc_array(per_frame, 4);
    if (!st && !buf)
        st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
    for (size_t fr = 0; !st && fr < seq->frame_count; ++fr) {
        const double *src = seq->positions + fr * per_frame;
        for (size_t i = 0; i < per_frame; ++i) {
            if (!isfinite(src[i])) {
                st = skf_fail(err, SKF_ERR_NUMERIC, "%s: frame %zu: vertex %zu is not finite", path,
                              fr, i / 3);
                break;
            }
            wr_f32(buf + 4 * i, (float)src[i]);
        }
        if (!st)
            st = skf_atomic_write(&f, buf, per_frame * 4, err);
    }
    skf_free(buf);
    if (st) {
        skf_atomic_abort(&f);
        return st;
    }
    return skf_atomic_commit(&f, err);
}
