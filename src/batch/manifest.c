/* Batch manifests: parsing, job names, scheduling order, shards, stamps. */
#include "skinfit/batch.h"
#include "skinfit/hash.h"
#include "base/base_internal.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>


static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return skf_strdup(".");
    size_t n = (size_t)(slash - path);
    char *d = skf_malloc(n + 2);
    if (!d)
        return NULL;
    if (n == 0) {
        strcpy(d, "/");
        return d;
    }
    memcpy(d, path, n);
    d[n] = 0;
    return d;
}

static char *resolve(const char *base, const char *rel)
{
    if (rel[0] == '/')
        return skf_strdup(rel);
    size_t n = strlen(base) + strlen(rel) + 2;
    char *p = skf_malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", base, rel);
    return p;
}

static const char *stem(const char *path, size_t *len)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    const char *dot = strrchr(b, '.');
    *len = dot && dot > b ? (size_t)(dot - b) : strlen(b);
    return b;
}

static bool name_ok(const char *s)
{
    if (!*s || strlen(s) > SKF_BATCH_MAX_NAME || s[0] == '.')
        return false;
    for (; *s; ++s)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '.' || *s == '_' || *s == '-'))
            return false;
    return true;
}

/* Names whose outputs would collide with the batch's own files or another
 * job's: OUTDIR/summary.json is the summary, and a job named "x.timing" or
 * "x.error" would write job x's timing or error file. Compared without case
 * (case-insensitive filesystems). */
static bool name_reserved(const char *name)
{
    size_t n = strlen(name);
    return !strcasecmp(name, "summary") || (n >= 7 && !strcasecmp(name + n - 7, ".timing")) ||
           (n >= 6 && !strcasecmp(name + n - 6, ".error"));
}

static void job_release(skf_batch_job *j)
{
    skf_free(j->name);
    skf_free(j->source);
    skf_free(j->target);
    for (size_t i = 0; i < j->clip_count; ++i)
        skf_free(j->clips[i]);
    skf_free(j->clips);
}

void skf_batch_free(skf_batch *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->job_count; ++i)
        job_release(&b->jobs[i]);
    skf_free(b->jobs);
    skf_free(b->manifest_path);
    skf_free(b);
}

/* Look a key up in the job, then in defaults. */
static json_t *opt(json_t *job, json_t *defaults, const char *key, const char **where)
{
    json_t *v = json_object_get(job, key);
    *where = "";
    if (!v && defaults) {
        v = json_object_get(defaults, key);
        *where = "defaults.";
    }
    return v;
}

static skf_status parse_job(skf_batch *b, size_t i, json_t *job, json_t *defaults,
                            const char *base, skf_error *err)
{
    const char *mp = b->manifest_path;
    skf_batch_job *j = &b->jobs[i];
    j->index = i;
    j->min_quality = -1;
    if (!json_is_object(job))
        return skf_fail(err, SKF_ERR_FORMAT, "%s: jobs[%zu]: expected an object", mp, i);
    const char *keys[] = {"source", "target"};
    char **dst[] = {&j->source, &j->target};
    for (int k = 0; k < 2; ++k) {
        const char *where;
        json_t *v = opt(job, defaults, keys[k], &where);
        if (!json_is_string(v) || !json_string_value(v)[0])
            return skf_fail(err, SKF_ERR_FORMAT, "%s: jobs[%zu].%s: expected a file path", mp, i,
                            keys[k]);
        *dst[k] = resolve(base, json_string_value(v));
        if (!*dst[k])
            return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", mp);
    }
    const char *where;
    json_t *clips = opt(job, defaults, "clips", &where);
    if (!clips || (json_is_string(clips) && !strcmp(json_string_value(clips), "all"))) {
        j->all_clips = true;
    } else if (json_is_array(clips) && json_array_size(clips) > 0) {
        j->clip_count = json_array_size(clips);
        j->clips = skf_calloc(j->clip_count, sizeof *j->clips);
        if (!j->clips)
            return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", mp);
        for (size_t c = 0; c < j->clip_count; ++c) {
            json_t *s = json_array_get(clips, c);
            if (!json_is_string(s) || !json_string_value(s)[0])
                return skf_fail(err, SKF_ERR_FORMAT, "%s: %sjobs[%zu].clips[%zu]: expected a clip name",
                                mp, where, i, c);
            j->clips[c] = skf_strdup(json_string_value(s));
            if (!j->clips[c])
                return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", mp);
        }
    } else {
        return skf_fail(err, SKF_ERR_FORMAT,
                        "%s: %sjobs[%zu].clips: expected \"all\" or a non-empty list of names", mp,
                        where, i);
    }
    json_t *mode = opt(job, defaults, "mode", &where);
    j->mode = 1;
    if (mode) {
        const char *m = json_string_value(mode);
        if (m && !strcmp(m, "free"))
            j->mode = 1;
        else if (m && !strcmp(m, "rotation-only"))
            j->mode = 2;
        else if (m && !strcmp(m, "both"))
            j->mode = 3;
        else
            return skf_fail(err, SKF_ERR_FORMAT,
                            "%s: jobs[%zu].mode: '%s' is not one of free, rotation-only, both", mp, i,
                            m ? m : "(not a string)");
    }
    json_t *fps = opt(job, defaults, "fps", &where);
    if (fps) {
        if (!json_is_number(fps) || !(json_number_value(fps) >= 0) || json_number_value(fps) > 1e4)
            return skf_fail(err, SKF_ERR_FORMAT, "%s: jobs[%zu].fps: expected a number in [0, 10000]",
                            mp, i);
        j->fps = json_number_value(fps);
    }
    json_t *mc = opt(job, defaults, "max_constraints", &where);
    if (mc) {
        if (!json_is_integer(mc) || json_integer_value(mc) < 0)
            return skf_fail(err, SKF_ERR_FORMAT,
                            "%s: jobs[%zu].max_constraints: expected a non-negative integer", mp, i);
        j->max_constraints = (size_t)json_integer_value(mc);
    }
    json_t *mq = opt(job, defaults, "min_quality", &where);
    if (mq) {
        double q = json_number_value(mq);
        if (!json_is_number(mq) || !(q >= 0 && q <= 1))
            return skf_fail(err, SKF_ERR_FORMAT,
                            "%s: jobs[%zu].min_quality: expected a fraction in [0, 1]", mp, i);
        j->min_quality = q;
    }
    json_t *name = json_object_get(job, "name");
    if (name) {
        if (!json_is_string(name) || !name_ok(json_string_value(name)))
            return skf_fail(err, SKF_ERR_FORMAT,
                            "%s: jobs[%zu].name: expected 1-%d characters of A-Z a-z 0-9 . _ - "
                            "(not starting with '.')",
                            mp, i, SKF_BATCH_MAX_NAME);
        j->name = skf_strdup(json_string_value(name));
    } else {
        size_t tl, sl;
        const char *t = stem(j->target, &tl), *s = stem(j->source, &sl);
        char buf[3 * SKF_BATCH_MAX_NAME];
        snprintf(buf, sizeof buf, "%.*s-from-%.*s", (int)(tl < 90 ? tl : 90), t,
                 (int)(sl < 90 ? sl : 90), s);
        for (char *p = buf; *p; ++p)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                  *p == '.' || *p == '_' || *p == '-'))
                *p = '_';
        if (buf[0] == '.')
            buf[0] = '_';
        j->name = skf_strdup(buf);
    }
    if (!j->name)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", mp);
    if (name_reserved(j->name))
        return skf_fail(err, SKF_ERR_FORMAT,
                        "%s: jobs[%zu]%s: '%s' is reserved (summary, and names ending in .timing "
                        "or .error, collide with the batch's own files)%s",
                        mp, i, name ? ".name" : "", j->name, name ? "" : "; give the job a name");
    return SKF_OK;
}

static bool name_used(const skf_batch *b, size_t except, const char *name)
{
    for (size_t m = 0; m < b->job_count; ++m)
        if (m != except && b->jobs[m].name && !strcasecmp(b->jobs[m].name, name))
            return true;
    return false;
}

/* A derived name that collides with an earlier job's gets "-2", "-3", ... in
 * manifest order; a collision of an explicit name is an error. Compared
 * without case: on a case-insensitive file system "Fox" and "fox" write the
 * same files (outputs and per-clip checkpoints). */
static skf_status unique_names(skf_batch *b, json_t *jobs, skf_error *err)
{
    for (size_t i = 0; i < b->job_count; ++i) {
        size_t k = 0;
        while (k < i && strcasecmp(b->jobs[k].name, b->jobs[i].name) != 0)
            ++k;
        if (k == i)
            continue;
        if (json_object_get(json_array_get(jobs, i), "name"))
            return skf_fail(err, SKF_ERR_FORMAT, "%s: jobs[%zu].name: '%s' is already used by jobs[%zu]%s",
                            b->manifest_path, i, b->jobs[i].name, k,
                            strcmp(b->jobs[k].name, b->jobs[i].name)
                                ? " (names that differ only in case write the same files on a "
                                  "case-insensitive file system)"
                                : "");
        char buf[SKF_BATCH_MAX_NAME + 32];
        for (int suffix = 2;; ++suffix) {
            snprintf(buf, sizeof buf, "%.*s-%d", SKF_BATCH_MAX_NAME, b->jobs[i].name, suffix);
            if (!name_used(b, i, buf))
                break;
        }
        char *n = skf_strdup(buf);
        if (!n)
            return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", b->manifest_path);
        skf_free(b->jobs[i].name);
        b->jobs[i].name = n;
    }
    return SKF_OK;
}

static uint64_t file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n > 0 ? (uint64_t)n : 0;
}

skf_status skf_batch_load_memory(const char *text, size_t size, const char *manifest_path,
                                 const skf_batch_options *opts, skf_batch **out, skf_error *err)
{
    *out = NULL;
    json_error_t je;
    bool nomem;
    json_t *root = skfi_json_loadb(text, size, JSON_REJECT_DUPLICATES, &je, &nomem);
    if (nomem)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", manifest_path);
    if (!root)
        return skf_fail(err, SKF_ERR_FORMAT, "%s: byte %d (line %d, column %d): %s", manifest_path,
                        je.position, je.line, je.column, je.text);
    json_t *jobs = json_is_array(root) ? root : json_object_get(root, "jobs");
    json_t *defaults = json_is_object(root) ? json_object_get(root, "defaults") : NULL;
    skf_status st = SKF_OK;
    skf_batch *b = skf_calloc(1, sizeof *b);
    if (!b) {
        json_decref(root);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", manifest_path);
    }
    b->manifest_path = skf_strdup(manifest_path);
    char *base = dir_of(manifest_path);
    if (!b->manifest_path || !base) {
        st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", manifest_path);
        goto done;
    }
    if (!json_is_array(jobs)) {
        st = skf_fail(err, SKF_ERR_FORMAT, "%s: jobs: expected a list of jobs", manifest_path);
        goto done;
    }
    if (defaults && !json_is_object(defaults)) {
        st = skf_fail(err, SKF_ERR_FORMAT, "%s: defaults: expected an object", manifest_path);
        goto done;
    }
    size_t n = json_array_size(jobs);
    if (n == 0) {
        st = skf_fail(err, SKF_ERR_FORMAT, "%s: jobs: the list is empty", manifest_path);
        goto done;
    }
    const skf_limits *lim = opts ? opts->limits : NULL;
    if (n > skf_limits_value(lim, SKF_LIMIT_BATCH_JOBS)) {
        st = skf_fail(err, SKF_ERR_LIMIT, "%s: jobs: %zu jobs exceed %s, or split the manifest",
                      manifest_path, n, skf_limits_exceeded(lim, SKF_LIMIT_BATCH_JOBS).text);
        goto done;
    }
    b->jobs = skf_calloc(n, sizeof *b->jobs);
    if (!b->jobs) {
        st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", manifest_path);
        goto done;
    }
    b->job_count = n;
    for (size_t i = 0; i < n && !st; ++i)
        st = parse_job(b, i, json_array_get(jobs, i), defaults, base, err);
    if (!st)
        st = unique_names(b, jobs, err);
    for (size_t i = 0; i < n && !st; ++i) {
        skf_batch_job *j = &b->jobs[i];
        j->cost = (file_size(j->source) + file_size(j->target)) * (j->all_clips ? 8 : j->clip_count);
    }
done:
    skf_free(base);
    json_decref(root);
    if (st) {
        skf_batch_free(b);
        return st;
    }
    *out = b;
    return SKF_OK;
}

skf_status skf_batch_load(const char *manifest_path, const skf_batch_options *opts, skf_batch **out,
                          skf_error *err)
{
    uint8_t *data;
    size_t size;
    *out = NULL;
    skf_status st = skf_read_file_limits(manifest_path, opts ? opts->limits : NULL,
                                         SKF_LIMIT_MANIFEST_BYTES, &data, &size, err);
    if (st)
        return st;
    st = skf_batch_load_memory((const char *)data, size, manifest_path, opts, out, err);
    skf_free(data);
    return st;
}

void skf_batch_order(const skf_batch *b, size_t *order)
{
    for (size_t i = 0; i < b->job_count; ++i)
        order[i] = i;
    /* insertion sort keeps this reentrant and stable; manifests are modest */
    for (size_t i = 1; i < b->job_count; ++i) {
        size_t v = order[i], k = i;
        while (k > 0) {
            const skf_batch_job *x = &b->jobs[order[k - 1]], *y = &b->jobs[v];
            bool before = y->cost > x->cost || (y->cost == x->cost && y->index < x->index);
            if (!before)
                break;
            order[k] = order[k - 1];
            --k;
        }
        order[k] = v;
    }
}

bool skf_batch_in_shard(size_t job_index, size_t k, size_t n)
{
    return n > 0 && k >= 1 && k <= n && job_index % n == k - 1;
}

skf_status skf_batch_job_stamp(const skf_batch_job *job, char stamp[65], skf_error *err)
{
    char src[65], tgt[65];
    skf_status st = skf_sha256_file(job->source, src, err);
    if (!st)
        st = skf_sha256_file(job->target, tgt, err);
    if (st)
        return st;
    skf_sha256 h;
    skf_sha256_init(&h);
    char line[512];
    int n = snprintf(line, sizeof line,
                     "skinfit-batch-1\nversion=%s\nsource=%s\ntarget=%s\nmode=%d\nfps=%.17g\n"
                     "max_constraints=%zu\nmin_quality=%.17g\nall_clips=%d\n",
                     SKF_VERSION_STRING, src, tgt, job->mode, job->fps, job->max_constraints,
                     job->min_quality, job->all_clips ? 1 : 0);
    skf_sha256_update(&h, line, (size_t)n);
    for (size_t c = 0; c < job->clip_count; ++c) {
        skf_sha256_update(&h, "clip=", 5);
        skf_sha256_update(&h, job->clips[c], strlen(job->clips[c]) + 1);
    }
    uint8_t d[32];
    skf_sha256_final(&h, d);
    skf_sha256_hex(d, stamp);
    return SKF_OK;
}

bool skf_batch_job_is_current(const skf_batch_job *job, const char *outdir, const char *stamp)
{
    size_t n = strlen(outdir) + strlen(job->name) + 8;
    char *report = skf_malloc(n), *glb = skf_malloc(n);
    bool ok = false;
    if (!report || !glb)
        goto done;
    snprintf(report, n, "%s/%s.json", outdir, job->name);
    snprintf(glb, n, "%s/%s.glb", outdir, job->name);
    json_error_t je;
    bool nomem; /* out of memory: not current, the job runs again */
    json_t *r = skfi_json_load_file(report, 0, &je, &nomem);
    if (!r)
        goto done;
    const char *made = json_string_value(json_object_get(json_object_get(r, "made_from"), "stamp"));
    const char *sha = json_string_value(json_object_get(json_object_get(r, "output"), "sha256"));
    if (made && sha && !strcmp(made, stamp)) {
        char actual[65];
        skf_error e;
        if (skf_sha256_file(glb, actual, &e) == SKF_OK && !strcmp(actual, sha))
            ok = true;
    }
    json_decref(r);
done:
    skf_free(report);
    skf_free(glb);
    return ok;
}
