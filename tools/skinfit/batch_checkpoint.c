/* Per-clip checkpoints of a batch job (issue 17 §5): after each clip of a job
 * its result — everything the job's GLB and report are made from — is saved
 * as OUTDIR/<name>.clip-<k>.ckpt, so that a batch killed more often than its
 * largest job takes still makes progress on `--resume`: a resumed job loads
 * the clips it already finished instead of solving them again.
 *
 * Format (machine-local, written atomically): "SKFCKPT1", the job's stamp
 * (skf_batch_job_stamp: inputs, options, version), the clip's index and the
 * clip name the job asked for, then the clip's fields (native byte order,
 * doubles as their 8 bytes, so a loaded clip gives the same report and GLB
 * bytes as the solved one), and last the SHA-256 of all that. A file that is
 * short, corrupt, or made for another stamp, index or name is not used.
 * Not saved: the solved 3x4 transforms and per-vertex output (neither the GLB
 * nor the report reads them). */
#include "batch.h"
#include "cli.h"

#include "skinfit/hash.h"

#include <stdint.h>
#include <string.h>

static const char magic[8] = {'S', 'K', 'F', 'C', 'K', 'P', 'T', '1'};

/* ---- writing ------------------------------------------------------------ */

typedef struct wbuf {
    uint8_t *data;
    size_t size, cap;
    bool failed;
} wbuf;

static void put(wbuf *b, const void *p, size_t n)
{
    if (b->failed)
        return;
    if (b->size + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->size + n)
            cap *= 2;
        uint8_t *d = skf_realloc_array(b->data, cap, 1);
        if (!d) {
            b->failed = true;
            return;
        }
        b->data = d;
        b->cap = cap;
    }
    if (n)
        memcpy(b->data + b->size, p, n);
    b->size += n;
}

static void put_u64(wbuf *b, uint64_t v) { put(b, &v, sizeof v); }

static void put_str(wbuf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    put_u64(b, n);
    put(b, s, n);
}

static void put_metrics(wbuf *b, const skf_transfer_metrics *m, size_t F)
{
    uint8_t present = m->present;
    put(b, &present, 1);
    if (!present)
        return;
    const double v[8] = {m->quality,     m->mean_error_pct,       m->max_error_pct, m->sweeps_per_frame,
                         m->iterations_per_frame, m->solve_seconds, m->max_length_error, m->diagonal};
    put(b, v, sizeof v);
    put_u64(b, m->frames_at_cap);
    put_u64(b, (uint64_t)(int64_t)m->iteration_cap);
    put(b, m->frame_quality, F * sizeof(double));
    put(b, m->frame_mean_pct, F * sizeof(double));
    put(b, m->frame_max_pct, F * sizeof(double));
    put(b, m->frame_sweeps, F * sizeof(int));
}

skf_status batch_checkpoint_save(const char *path, const char *stamp, size_t index, const char *clip_name,
                                 const skf_transfer_clip *c, skf_error *err)
{
    wbuf b = {0};
    const size_t F = c->frames, B = c->joint_count;
    put(&b, magic, sizeof magic);
    put(&b, stamp, 64);
    put_u64(&b, index);
    put_str(&b, clip_name);
    put_str(&b, c->name);
    put_u64(&b, F);
    put_u64(&b, B);
    const double times[4] = {c->fps, c->start, c->duration, c->seconds};
    put(&b, times, sizeof times);
    put_metrics(&b, &c->control, F);
    put_metrics(&b, &c->free, F);
    put_metrics(&b, &c->rotation_only, F);
    uint8_t baked = c->translation && c->rotation && c->scale && c->animated;
    put(&b, &baked, 1);
    if (baked) {
        put(&b, c->translation, F * B * 3 * sizeof(double));
        put(&b, c->rotation, F * B * 4 * sizeof(double));
        put(&b, c->scale, F * B * 3 * sizeof(double));
        for (size_t i = 0; i < B; ++i) {
            uint8_t a = c->animated[i];
            put(&b, &a, 1);
        }
    }
    skf_status st;
    if (b.failed) {
        st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
    } else {
        uint8_t digest[32];
        skf_sha256 h;
        skf_sha256_init(&h);
        skf_sha256_update(&h, b.data, b.size);
        skf_sha256_final(&h, digest);
        put(&b, digest, sizeof digest);
        st = b.failed ? skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path)
                      : skf_write_file_atomic(path, b.data, b.size, err);
    }
    skf_free(b.data);
    return st;
}

/* ---- reading ------------------------------------------------------------ */

typedef struct rbuf {
    const uint8_t *p;
    size_t left;
    bool bad;
} rbuf;

static bool get(rbuf *r, void *out, size_t n)
{
    if (r->bad || n > r->left) {
        r->bad = true;
        return false;
    }
    if (n)
        memcpy(out, r->p, n);
    r->p += n;
    r->left -= n;
    return true;
}

static uint64_t get_u64(rbuf *r)
{
    uint64_t v = 0;
    get(r, &v, sizeof v);
    return v;
}

/* A string of the file, owned; NULL when bad. */
static char *get_str(rbuf *r)
{
    uint64_t n = get_u64(r);
    if (r->bad || n > r->left) {
        r->bad = true;
        return NULL;
    }
    char *s = skf_malloc(n + 1);
    if (!s) {
        r->bad = true;
        return NULL;
    }
    get(r, s, n);
    s[n] = 0;
    return s;
}

/* An array of n elements of size bytes, owned; NULL when bad. */
static void *get_array(rbuf *r, size_t n, size_t size)
{
    if (r->bad || (size && n > r->left / size)) {
        r->bad = true;
        return NULL;
    }
    void *a = skf_malloc_array(n ? n : 1, size);
    if (!a) {
        r->bad = true;
        return NULL;
    }
    get(r, a, n * size);
    return a;
}

static void get_metrics(rbuf *r, skf_transfer_metrics *m, size_t F)
{
    uint8_t present = 0;
    get(r, &present, 1);
    if (r->bad || !present)
        return;
    double v[8];
    if (!get(r, v, sizeof v))
        return;
    m->present = true;
    m->quality = v[0];
    m->mean_error_pct = v[1];
    m->max_error_pct = v[2];
    m->sweeps_per_frame = v[3];
    m->iterations_per_frame = v[4];
    m->solve_seconds = v[5];
    m->max_length_error = v[6];
    m->diagonal = v[7];
    m->frames_at_cap = (size_t)get_u64(r);
    m->iteration_cap = (int)(int64_t)get_u64(r);
    m->frame_quality = get_array(r, F, sizeof(double));
    m->frame_mean_pct = get_array(r, F, sizeof(double));
    m->frame_max_pct = get_array(r, F, sizeof(double));
    m->frame_sweeps = get_array(r, F, sizeof(int));
}

bool batch_checkpoint_load(const char *path, const char *stamp, size_t index, const char *clip_name,
                           size_t joint_count, skf_transfer_clip *out)
{
    memset(out, 0, sizeof *out);
    uint8_t *data = NULL;
    size_t size = 0;
    skf_error e;
    if (skf_read_file(path, (size_t)1 << 40, &data, &size, &e))
        return false;
    bool ok = false;
    if (size < sizeof magic + 64 + 32)
        goto done;
    uint8_t digest[32];
    skf_sha256 h;
    skf_sha256_init(&h);
    skf_sha256_update(&h, data, size - 32);
    skf_sha256_final(&h, digest);
    if (memcmp(digest, data + size - 32, 32))
        goto done;
    rbuf r = {data, size - 32, false};
    char m[8], st[64];
    get(&r, m, sizeof m);
    get(&r, st, sizeof st);
    if (r.bad || memcmp(m, magic, sizeof magic) || memcmp(st, stamp, 64) || get_u64(&r) != index)
        goto done;
    char *asked = get_str(&r);
    bool same = asked && !strcmp(asked, clip_name);
    skf_free(asked);
    if (!same)
        goto done;
    out->name = get_str(&r);
    uint64_t F = get_u64(&r), B = get_u64(&r);
    if (r.bad || B != joint_count || F == 0 || F > skf_limits_value(&cli_limits, SKF_LIMIT_FRAMES))
        goto done;
    out->frames = (size_t)F;
    out->joint_count = (size_t)B;
    double times[4];
    get(&r, times, sizeof times);
    out->fps = times[0];
    out->start = times[1];
    out->duration = times[2];
    out->seconds = times[3];
    get_metrics(&r, &out->control, out->frames);
    get_metrics(&r, &out->free, out->frames);
    get_metrics(&r, &out->rotation_only, out->frames);
    uint8_t baked = 0;
    get(&r, &baked, 1);
    if (baked) {
        out->translation = get_array(&r, out->frames * out->joint_count * 3, sizeof(double));
        out->rotation = get_array(&r, out->frames * out->joint_count * 4, sizeof(double));
        out->scale = get_array(&r, out->frames * out->joint_count * 3, sizeof(double));
        out->animated = skf_malloc_array(out->joint_count ? out->joint_count : 1, sizeof(bool));
        r.bad |= !out->animated;
        for (size_t i = 0; !r.bad && i < out->joint_count; ++i) {
            uint8_t a = 0;
            get(&r, &a, 1);
            out->animated[i] = a != 0;
        }
    }
    ok = !r.bad && r.left == 0 && out->name && baked;
done:
    skf_free(data);
    if (!ok)
        skf_transfer_clip_release(out);
    return ok;
}
