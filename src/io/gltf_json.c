/* glTF reader, part 1 of 3: the JSON getters (see gltf_internal.h).
 *
 * Typed access to members of the jansson tree with the reader's error
 * model: every failure is one line "<file>: <JSON path>: <what>", naming the
 * member that is missing, of the wrong type, outside its range or not
 * finite. Integral reals are accepted where the glTF schema says integer
 * (writers emit 3.0), and indices stay integers until checked against the
 * array they index. The parser (gltf_read.c) and the buffer loader
 * (gltf_buffers.c) use them.
 */
#include "io/gltf_internal.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- errors and places ------------------------------------------------- */

skf_status skfi_fail(skfi_parser *p, skf_status st, const char *place, const char *fmt, ...)
{
    char what[SKF_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    skf_fail(p->err, st, "%s: %s: %s", p->name, place, what);
    skf_error_set_place(p->err, p->name, place, -1, NULL, -1);
    return st;
}

/* Format a place (JSON path) into a SKFI_PLACE_MAX buffer, truncating if needed. */
void skfi_place(char *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, SKFI_PLACE_MAX, fmt, ap);
    va_end(ap);
}

skf_status skfi_nomem(skfi_parser *p, const char *place)
{
    return skfi_fail(p, SKF_ERR_NOMEM, place, "out of memory");
}

/* skfi_fail() at member `key` of place: "<place>.<key>". */
skf_status skfi_fail_at(skfi_parser *p, skf_status st, const char *place, const char *key,
                        const char *fmt, ...)
{
    char pl[SKFI_PLACE_MAX], what[SKF_ERROR_MESSAGE_MAX];
    skfi_place(pl, "%s.%s", place, key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return skfi_fail(p, st, pl, "%s", what);
}

/* A top-level array's storage: json_array_size(arr) zeroed elements of esize
 * bytes, their number in *count (untouched when the array is empty or absent:
 * then NULL is returned with *st = SKF_OK). */
void *skfi_alloc_top(skfi_parser *p, json_t *arr, const char *key, size_t esize, size_t *count,
                     skf_status *st)
{
    size_t n = json_array_size(arr);
    void *all = n ? skf_calloc(n, esize) : NULL;
    *st = n && !all ? skfi_nomem(p, key) : SKF_OK;
    if (all)
        *count = n;
    return all;
}

/* Element i of the top-level array `key`, which must be an object; place is
 * set to "<key>[i]". */
skf_status skfi_get_element(skfi_parser *p, json_t *arr, const char *key, size_t i, char *place,
                            json_t **out)
{
    skfi_place(place, "%s[%zu]", key, i);
    *out = json_array_get(arr, i);
    if (!json_is_object(*out))
        return skfi_fail(p, SKF_ERR_FORMAT, place, "expected an object");
    return SKF_OK;
}

/* ---- JSON members ------------------------------------------------------- */

const char *skfi_json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER:
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "?";
}

/* Optional member of a given JSON type; *out NULL when absent. */
skf_status skfi_get_typed(skfi_parser *p, json_t *obj, const char *key, const char *place,
                          json_type type, const char *type_name, bool required, json_t **out)
{
    *out = NULL;
    json_t *v = json_object_get(obj, key);
    if (!v) {
        if (!required)
            return SKF_OK;
        char pl[SKFI_PLACE_MAX];
        skfi_place(pl, "%s%s%s", place, *place ? "." : "", key);
        return skfi_fail(p, SKF_ERR_FORMAT, pl, "missing (required)");
    }
    if (json_typeof(v) != type) {
        char pl[SKFI_PLACE_MAX];
        skfi_place(pl, "%s%s%s", place, *place ? "." : "", key);
        return skfi_fail(p, SKF_ERR_FORMAT, pl, "expected %s, found %s", type_name,
                         skfi_json_kind(v));
    }
    *out = v;
    return SKF_OK;
}

skf_status skfi_get_array(skfi_parser *p, json_t *obj, const char *key, const char *place,
                          bool required, json_t **out)
{
    return skfi_get_typed(p, obj, key, place, JSON_ARRAY, "an array", required, out);
}

skf_status skfi_get_object(skfi_parser *p, json_t *obj, const char *key, const char *place,
                           bool required, json_t **out)
{
    return skfi_get_typed(p, obj, key, place, JSON_OBJECT, "an object", required, out);
}

/* An integer JSON value (integral reals accepted) in [lo, hi]. */
skf_status skfi_as_integer(skfi_parser *p, json_t *v, const char *pl, long long lo, long long hi,
                           long long *out)
{
    long long x;
    if (json_is_integer(v)) {
        x = (long long)json_integer_value(v);
    } else if (json_is_real(v)) {
        double d = json_real_value(v);
        if (!(d >= -9007199254740992.0 && d <= 9007199254740992.0) || d != floor(d))
            return skfi_fail(p, SKF_ERR_FORMAT, pl, "expected an integer, found %g", d);
        x = (long long)d;
    } else {
        return skfi_fail(p, SKF_ERR_FORMAT, pl, "expected an integer, found %s", skfi_json_kind(v));
    }
    if (x < lo || x > hi)
        return skfi_fail(p, SKF_ERR_FORMAT, pl, "%lld is outside [%lld, %lld]", x, lo, hi);
    *out = x;
    return SKF_OK;
}

/* Member key of obj, its place "<place>.<key>" written to pl; *v NULL when
 * absent, which is an error when required. */
static skf_status member(skfi_parser *p, json_t *obj, const char *key, const char *place,
                         bool required, char *pl, json_t **v)
{
    skfi_place(pl, "%s.%s", place, key);
    *v = json_object_get(obj, key);
    if (!*v && required)
        return skfi_fail(p, SKF_ERR_FORMAT, pl, "missing (required)");
    return SKF_OK;
}

/* Optional size-like member: *out = def when absent. */
skf_status skfi_get_size(skfi_parser *p, json_t *obj, const char *key, const char *place,
                         long long lo, long long hi, bool required, size_t def, size_t *out)
{
    char pl[SKFI_PLACE_MAX];
    json_t *v;
    skf_status st = member(p, obj, key, place, required, pl, &v);
    if (!st && !v)
        *out = def;
    if (st || !v)
        return st;
    long long x = 0; /* set when st is SKF_OK; GCC 12 -O2 cannot tell (-Wmaybe-uninitialized) */
    if ((st = skfi_as_integer(p, v, pl, lo, hi, &x)))
        return st;
    *out = (size_t)x;
    return SKF_OK;
}

/* An index value v (at place pl) into an array of `limit` things. */
skf_status skfi_check_index(skfi_parser *p, json_t *v, const char *pl, size_t limit,
                            const char *things, int *out)
{
    long long x = 0; /* see skfi_get_size */
    if (json_is_integer(v)) {
        x = (long long)json_integer_value(v);
    } else {
        skf_status st = skfi_as_integer(p, v, pl, LLONG_MIN, LLONG_MAX, &x);
        if (st)
            return st;
    }
    if (x < 0 || (unsigned long long)x >= (unsigned long long)limit)
        return skfi_fail(p, SKF_ERR_FORMAT, pl, "%lld out of range (%zu %s)", x, limit, things);
    *out = (int)x;
    return SKF_OK;
}

/* Optional index member: *out = -1 when absent. */
skf_status skfi_get_index(skfi_parser *p, json_t *obj, const char *key, const char *place,
                          size_t limit, const char *things, bool required, int *out)
{
    char pl[SKFI_PLACE_MAX];
    *out = -1;
    json_t *v;
    skf_status st = member(p, obj, key, place, required, pl, &v);
    if (st || !v)
        return st;
    return skfi_check_index(p, v, pl, limit, things, out);
}

/* Optional string member duplicated into *out (NULL when absent). */
skf_status skfi_get_string(skfi_parser *p, json_t *obj, const char *key, const char *place,
                           char **out)
{
    *out = NULL;
    json_t *v;
    skf_status st = skfi_get_typed(p, obj, key, place, JSON_STRING, "a string", false, &v);
    if (st || !v)
        return st;
    *out = skf_strdup(json_string_value(v));
    if (!*out)
        return skfi_nomem(p, place);
    return SKF_OK;
}

/* Fixed-length array of finite numbers within ±SKF_GLTF_MAX_MAGNITUDE;
 * returns false (no error) if absent. */
skf_status skfi_get_numbers(skfi_parser *p, json_t *obj, const char *key, const char *place,
                            size_t n, double *out, bool *present)
{
    char pl[SKFI_PLACE_MAX];
    skfi_place(pl, "%s.%s", place, key);
    *present = false;
    json_t *a;
    skf_status st = skfi_get_array(p, obj, key, place, false, &a);
    if (st || !a)
        return st;
    if (json_array_size(a) != n)
        return skfi_fail(p, SKF_ERR_FORMAT, pl, "expected %zu numbers, found %zu", n,
                    json_array_size(a));
    for (size_t i = 0; i < n; ++i) {
        json_t *v = json_array_get(a, i);
        if (!json_is_number(v))
            return skfi_fail(p, SKF_ERR_FORMAT, pl, "element %zu is %s, expected a number", i,
                        skfi_json_kind(v));
        out[i] = json_number_value(v);
        if (!isfinite(out[i]))
            return skfi_fail(p, SKF_ERR_FORMAT, pl, "element %zu is not finite", i);
        if (fabs(out[i]) > SKF_GLTF_MAX_MAGNITUDE)
            return skfi_fail(p, SKF_ERR_FORMAT, pl, "element %zu is %g, beyond ±%g (%s)", i,
                             out[i], SKF_GLTF_MAX_MAGNITUDE, SKFI_MAGNITUDE_WHY);
    }
    *present = true;
    return SKF_OK;
}

/* Variable-length array of finite numbers within ±SKF_GLTF_MAX_MAGNITUDE
 * (morph weights). */
skf_status skfi_get_number_list(skfi_parser *p, json_t *obj, const char *key, const char *place,
                                double **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    json_t *a;
    skf_status st = skfi_get_array(p, obj, key, place, false, &a);
    if (st || !a)
        return st;
    size_t n = json_array_size(a);
    char pl[SKFI_PLACE_MAX];
    skfi_place(pl, "%s.%s", place, key);
    double *w = skf_malloc_array(n ? n : 1, sizeof *w);
    if (!w)
        return skfi_nomem(p, pl);
    for (size_t i = 0; i < n; ++i) {
        json_t *v = json_array_get(a, i);
        if (!json_is_number(v) || !isfinite(json_number_value(v))) {
            skf_free(w);
            return skfi_fail(p, SKF_ERR_FORMAT, pl, "element %zu is not a finite number", i);
        }
        w[i] = json_number_value(v);
        if (fabs(w[i]) > SKF_GLTF_MAX_MAGNITUDE) {
            double x = w[i];
            skf_free(w);
            return skfi_fail(p, SKF_ERR_FORMAT, pl, "element %zu is %g, beyond ±%g (%s)", i, x,
                             SKF_GLTF_MAX_MAGNITUDE, SKFI_MAGNITUDE_WHY);
        }
    }
    *out = w;
    *count = n;
    return SKF_OK;
}
