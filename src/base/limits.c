/* Named, process-wide caps on untrusted input (see skinfit/base.h, docs/limits.md).
 *
 * The defaults are the caps the readers had before they became adjustable;
 * the ceilings are where a fixed-size structure, a recursion or the file
 * format stops, so raising a limit never turns a clean error into a crash.
 */
#include "skinfit/base.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)
#define GIB ((size_t)1 << 30)
/* 2^n as a size_t, saturated at SIZE_MAX where size_t is narrower (32-bit WebAssembly): the
 * values are caps, so "as large as the platform can hold" keeps their meaning there. */
#define SIZE_POW2(n) ((uint64_t)1 << (n) > (uint64_t)SIZE_MAX ? SIZE_MAX : (size_t)((uint64_t)1 << (n)))

typedef struct limit_def {
    const char *name;
    size_t default_value;
    size_t max_value;
    const char *bounds;
    const char *checked;
} limit_def;

static const limit_def defs[SKF_LIMIT_COUNT] = {
    [SKF_LIMIT_FILE_BYTES] = {"file-bytes", 2 * GIB, SIZE_POW2(40),
                              "bytes of one glTF/GLB file or external glTF buffer",
                              "glTF reader"},
    [SKF_LIMIT_NODE_DEPTH] = {"node-depth", 1024, (size_t)1 << 20,
                              "depth of the glTF node hierarchy", "glTF reader, rig build"},
    [SKF_LIMIT_ACCESSOR_VALUES] = {"accessor-values", (size_t)1 << 24, SIZE_POW2(32),
                                   "values of a glTF accessor without a bufferView (zero-filled)",
                                   "glTF reader"},
    [SKF_LIMIT_BONES] = {"bones", 2048, 16384,
                         "bones of a rig handed to the solver (memory grows with bones^2)",
                         "solver (transfer, control)"},
    [SKF_LIMIT_CACHE_BYTES] = {"cache-bytes", SIZE_POW2(32), SIZE_POW2(44),
                               "bytes of one PC2, MDD, OBJ-frame or Alembic file",
                               "point-cache readers"},
    [SKF_LIMIT_VERTICES] = {"vertices", (size_t)1 << 28, (size_t)1 << 31,
                            "vertices of a point cache", "PC2, MDD, OBJ, Alembic readers"},
    [SKF_LIMIT_FRAMES] = {"frames", (size_t)1 << 24, (size_t)1 << 31,
                          "frames of a point cache or of a clip baked at a frame rate",
                          "PC2, MDD, OBJ, Alembic readers; bake, transfer"},
    [SKF_LIMIT_ALEMBIC_DEPTH] = {"alembic-depth", 256, 4096,
                                 "depth of an Alembic object hierarchy", "Alembic reader"},
    [SKF_LIMIT_ALEMBIC_OBJECTS] = {"alembic-objects", 1000000, (size_t)1 << 31,
                                   "objects visited in an Alembic archive", "Alembic reader"},
    [SKF_LIMIT_SVG_BYTES] = {"svg-bytes", 64 * MIB, (size_t)0x7fffffff,
                             "bytes of an SVG character file", "SVG reader"},
    [SKF_LIMIT_SVG_DEPTH] = {"svg-depth", 256, 1024, "element nesting depth of an SVG document",
                             "SVG reader"},
    [SKF_LIMIT_PATH_NODES] = {"path-nodes", 1000000, (size_t)1 << 28,
                              "Bezier nodes of one SVG path (d attribute)", "SVG reader"},
    [SKF_LIMIT_KEYPOINT_BYTES] = {"keypoint-bytes", GIB, SIZE_POW2(36),
                                  "bytes of a pose keypoint JSON file", "keypoint reader (svg)"},
    [SKF_LIMIT_MANIFEST_BYTES] = {"manifest-bytes", 64 * MIB, SIZE_POW2(36),
                                  "bytes of a batch manifest", "batch manifest reader"},
    [SKF_LIMIT_BATCH_JOBS] = {"batch-jobs", 1000000, (size_t)1 << 31,
                              "jobs in a batch manifest", "batch manifest reader"},
    [SKF_LIMIT_DOCUMENT_VALUES] = {"document-values", (size_t)1 << 27, SIZE_POW2(36),
                                   "values (count x components) of all accessors of one glTF "
                                   "document together: what its readers may materialise",
                                   "glTF reader"},
};

/* The enumerators, for per-call messages. */
static const char *const ids[SKF_LIMIT_COUNT] = {
    [SKF_LIMIT_FILE_BYTES] = "SKF_LIMIT_FILE_BYTES",
    [SKF_LIMIT_NODE_DEPTH] = "SKF_LIMIT_NODE_DEPTH",
    [SKF_LIMIT_ACCESSOR_VALUES] = "SKF_LIMIT_ACCESSOR_VALUES",
    [SKF_LIMIT_BONES] = "SKF_LIMIT_BONES",
    [SKF_LIMIT_CACHE_BYTES] = "SKF_LIMIT_CACHE_BYTES",
    [SKF_LIMIT_VERTICES] = "SKF_LIMIT_VERTICES",
    [SKF_LIMIT_FRAMES] = "SKF_LIMIT_FRAMES",
    [SKF_LIMIT_ALEMBIC_DEPTH] = "SKF_LIMIT_ALEMBIC_DEPTH",
    [SKF_LIMIT_ALEMBIC_OBJECTS] = "SKF_LIMIT_ALEMBIC_OBJECTS",
    [SKF_LIMIT_SVG_BYTES] = "SKF_LIMIT_SVG_BYTES",
    [SKF_LIMIT_SVG_DEPTH] = "SKF_LIMIT_SVG_DEPTH",
    [SKF_LIMIT_PATH_NODES] = "SKF_LIMIT_PATH_NODES",
    [SKF_LIMIT_KEYPOINT_BYTES] = "SKF_LIMIT_KEYPOINT_BYTES",
    [SKF_LIMIT_MANIFEST_BYTES] = "SKF_LIMIT_MANIFEST_BYTES",
    [SKF_LIMIT_BATCH_JOBS] = "SKF_LIMIT_BATCH_JOBS",
    [SKF_LIMIT_DOCUMENT_VALUES] = "SKF_LIMIT_DOCUMENT_VALUES",
};

/* 0 = default (so the table needs no start-up code). */
static size_t values[SKF_LIMIT_COUNT];

size_t skf_limit(skf_limit_id id)
{
    if ((unsigned)id >= SKF_LIMIT_COUNT)
        return 0;
    return values[id] ? values[id] : defs[id].default_value;
}

skf_limit_info skf_limit_get_info(skf_limit_id id)
{
    skf_limit_info info = {0};
    if ((unsigned)id >= SKF_LIMIT_COUNT)
        return info;
    info.name = defs[id].name;
    info.default_value = defs[id].default_value;
    info.value = skf_limit(id);
    info.max_value = defs[id].max_value;
    info.bounds = defs[id].bounds;
    info.checked = defs[id].checked;
    return info;
}

bool skf_limit_find(const char *name, skf_limit_id *out)
{
    for (int i = 0; i < SKF_LIMIT_COUNT; ++i)
        if (name && !strcmp(name, defs[i].name)) {
            *out = (skf_limit_id)i;
            return true;
        }
    return false;
}

static skf_status check_value(skf_limit_id id, size_t value, skf_error *err)
{
    if ((unsigned)id >= SKF_LIMIT_COUNT)
        return skf_fail(err, SKF_ERR_ARGUMENT, "limit %d: no such limit", (int)id);
    if (value < 1)
        return skf_fail(err, SKF_ERR_ARGUMENT, "limit %s: 0: must be at least 1", defs[id].name);
    if (value > defs[id].max_value)
        return skf_fail(err, SKF_ERR_ARGUMENT, "limit %s: %zu: above its ceiling %zu",
                        defs[id].name, value, defs[id].max_value);
    return SKF_OK;
}

skf_status skf_limit_set(skf_limit_id id, size_t value, skf_error *err)
{
    skf_status st = check_value(id, value, err);
    if (!st)
        values[id] = value;
    return st;
}

skf_status skf_limits_set(skf_limits *limits, skf_limit_id id, size_t value, skf_error *err)
{
    skf_status st = check_value(id, value, err);
    if (!st)
        limits->value[id] = value;
    return st;
}

/* The per-call value of id, 0 when the process-wide one applies. */
static size_t per_call(const skf_limits *limits, skf_limit_id id)
{
    if (!limits || (unsigned)id >= SKF_LIMIT_COUNT || !limits->value[id])
        return 0;
    size_t v = limits->value[id];
    return v < defs[id].max_value ? v : defs[id].max_value;
}

size_t skf_limits_value(const skf_limits *limits, skf_limit_id id)
{
    size_t v = per_call(limits, id);
    return v ? v : skf_limit(id);
}

static void known_names(char *out, size_t size)
{
    size_t n = 0;
    out[0] = 0;
    for (int i = 0; i < SKF_LIMIT_COUNT && n < size; ++i) {
        int w = snprintf(out + n, size - n, "%s%s", i ? ", " : "", defs[i].name);
        if (w < 0)
            break;
        n += (size_t)w;
    }
}

/* "NAME", "N[kMGT]" → *id, *out: the checks and messages of skf_limit_set_by_name. */
static skf_status parse_named(const char *name, const char *value, skf_limit_id *out_id, size_t *out,
                              skf_error *err)
{
    skf_limit_id id;
    if (!skf_limit_find(name, &id)) {
        char names[512];
        known_names(names, sizeof names);
        return skf_fail(err, SKF_ERR_ARGUMENT, "limit '%s': unknown (limits: %s)",
                        name ? name : "", names);
    }
    const char *s = value ? value : "";
    if (!isdigit((unsigned char)s[0]))
        return skf_fail(err, SKF_ERR_ARGUMENT, "limit %s: '%s': expected a positive integer",
                        defs[id].name, s);
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; ++end; break;
    case 'm': case 'M': shift = 20; ++end; break;
    case 'g': case 'G': shift = 30; ++end; break;
    case 't': case 'T': shift = 40; ++end; break;
    default: break;
    }
    if (*end)
        return skf_fail(err, SKF_ERR_ARGUMENT, "limit %s: '%s': expected a positive integer",
                        defs[id].name, s);
    if (errno == ERANGE || v > (SIZE_MAX >> shift) || (v << shift) > defs[id].max_value)
        return skf_fail(err, SKF_ERR_ARGUMENT, "limit %s: %s: above its ceiling %zu",
                        defs[id].name, s, defs[id].max_value);
    *out_id = id;
    *out = (size_t)(v << shift);
    return check_value(id, *out, err);
}

skf_status skf_limit_set_by_name(const char *name, const char *value, skf_error *err)
{
    skf_limit_id id;
    size_t v;
    skf_status st = parse_named(name, value, &id, &v, err);
    return st ? st : skf_limit_set(id, v, err);
}

skf_status skf_limits_set_by_name(skf_limits *limits, const char *name, const char *value,
                                  skf_error *err)
{
    skf_limit_id id;
    size_t v;
    skf_status st = parse_named(name, value, &id, &v, err);
    return st ? st : skf_limits_set(limits, id, v, err);
}

/* The items of spec into limits (NULL: the process-wide table). */
static skf_status parse_spec(skf_limits *limits, const char *spec, skf_error *err)
{
    if (!spec)
        return SKF_OK;
    while (*spec) {
        const char *end = strchr(spec, ',');
        size_t n = end ? (size_t)(end - spec) : strlen(spec);
        char item[256];
        while (n && isspace((unsigned char)*spec)) {
            ++spec;
            --n;
        }
        while (n && isspace((unsigned char)spec[n - 1]))
            --n;
        if (n >= sizeof item)
            return skf_fail(err, SKF_ERR_ARGUMENT, "limits: item '%.40s...' is too long", spec);
        if (n) {
            memcpy(item, spec, n);
            item[n] = 0;
            char *eq = strchr(item, '=');
            if (!eq)
                return skf_fail(err, SKF_ERR_ARGUMENT, "limits: '%s': expected NAME=N", item);
            *eq = 0;
            skf_status st = limits ? skf_limits_set_by_name(limits, item, eq + 1, err)
                                   : skf_limit_set_by_name(item, eq + 1, err);
            if (st)
                return st;
        }
        if (!end)
            break;
        spec = end + 1;
    }
    return SKF_OK;
}

skf_status skf_limits_parse(const char *spec, skf_error *err)
{
    return parse_spec(NULL, spec, err);
}

skf_status skf_limits_parse_into(skf_limits *limits, const char *spec, skf_error *err)
{
    return parse_spec(limits, spec, err);
}

/* The values that differ from their defaults (0: the default) as "name=N,name=N". */
static bool format_values(const size_t *vals, char *out, size_t out_size)
{
    if (!out || !out_size)
        return false;
    size_t n = 0;
    out[0] = 0;
    for (int i = 0; i < SKF_LIMIT_COUNT; ++i) {
        if (!vals[i] || vals[i] == defs[i].default_value)
            continue;
        int w = snprintf(out + n, out_size - n, "%s%s=%zu", n ? "," : "", defs[i].name, vals[i]);
        if (w < 0 || (size_t)w >= out_size - n) {
            out[n] = 0;
            return false;
        }
        n += (size_t)w;
    }
    return true;
}

bool skf_limits_format(char *out, size_t out_size)
{
    return format_values(values, out, out_size);
}

bool skf_limits_format_into(const skf_limits *limits, char *out, size_t out_size)
{
    return format_values(limits->value, out, out_size);
}

void skf_limits_reset(void)
{
    memset(values, 0, sizeof values);
}

skf_limit_text skf_limit_exceeded(skf_limit_id id)
{
    skf_limit_text t;
    if ((unsigned)id >= SKF_LIMIT_COUNT) {
        snprintf(t.text, sizeof t.text, "a limit");
        return t;
    }
    snprintf(t.text, sizeof t.text, "the limit %s=%zu", defs[id].name, skf_limit(id));
    return t;
}

skf_limit_text skf_limits_exceeded(const skf_limits *limits, skf_limit_id id)
{
    size_t v = per_call(limits, id);
    if (!v)
        return skf_limit_exceeded(id);
    skf_limit_text t;
    snprintf(t.text, sizeof t.text, "the limit %s=%zu (set by the caller: skf_limits.value[%s])",
             defs[id].name, v, ids[id]);
    return t;
}
