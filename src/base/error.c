/* Errors and warnings: see include/skinfit/base.h. */
#include "skinfit/base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void one_line(char *s)
{
    for (; *s; ++s)
        if (*s == '\n' || *s == '\r')
            *s = ' ';
}

/* The NAME of skf_limit_exceeded's tail "the limit NAME=VALUE" in text, into
 * out[SKF_LIMIT_NAME_MAX]; false when text has none. Read from the text so
 * that error.c needs nothing of limits.c (which calls skf_fail). */
static bool limit_name_in(const char *text, char *out)
{
    for (const char *at = text; (at = strstr(at, "the limit ")) != NULL;) {
        at += strlen("the limit ");
        size_t n = 0;
        while (n + 1 < SKF_LIMIT_NAME_MAX && ((at[n] >= 'a' && at[n] <= 'z') || at[n] == '-'))
            ++n;
        if (n && at[n] == '=' && at[n + 1] >= '0' && at[n + 1] <= '9') {
            memcpy(out, at, n);
            out[n] = 0;
            return true;
        }
    }
    out[0] = 0;
    return false;
}

static void copy_field(char *dst, size_t cap, const char *src)
{
    size_t n = strnlen(src, cap - 1);
    memcpy(dst, src, n);
    dst[n] = 0;
}

void skf_place_clear(skf_place *place)
{
    place->file[0] = place->json_path[0] = place->element[0] = 0;
    place->byte_offset = place->frame = -1;
}

skf_status skf_failv(skf_error *err, skf_status status, const char *fmt, va_list ap)
{
    if (err) {
        err->status = status;
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        one_line(err->message);
        err->kind = SKF_KIND_UNSPECIFIED;
        err->option = NULL;
        err->name[0] = 0;
        skf_place_clear(&err->place);
        err->limit[0] = 0;
        if (status == SKF_ERR_LIMIT && limit_name_in(err->message, err->limit))
            err->kind = SKF_KIND_LIMIT;
    }
    return status;
}

void skf_error_set_kind(skf_error *err, skf_error_kind kind, const char *option)
{
    if (!err)
        return;
    err->kind = kind;
    err->option = option;
}

static void set_place(skf_place *pl, const char *file, const char *json_path, int64_t byte_offset,
                      const char *element, int64_t frame)
{
    if (file)
        copy_field(pl->file, sizeof pl->file, file);
    if (json_path)
        copy_field(pl->json_path, sizeof pl->json_path, json_path);
    if (byte_offset >= 0)
        pl->byte_offset = byte_offset;
    if (element)
        copy_field(pl->element, sizeof pl->element, element);
    if (frame >= 0)
        pl->frame = frame;
}

void skf_error_set_place(skf_error *err, const char *file, const char *json_path, int64_t byte_offset,
                         const char *element, int64_t frame)
{
    if (err)
        set_place(&err->place, file, json_path, byte_offset, element, frame);
}

skf_status skf_fail(skf_error *err, skf_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    skf_failv(err, status, fmt, ap);
    va_end(ap);
    return status;
}

void skf_error_prefix(skf_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    char prefix[SKF_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    char joined[SKF_ERROR_MESSAGE_MAX];
    size_t n = strlen(prefix);
    if (n > sizeof joined - 3)
        n = sizeof joined - 3;
    memcpy(joined, prefix, n);
    joined[n] = ':';
    joined[n + 1] = ' ';
    size_t rest = sizeof joined - n - 3;
    size_t m = strnlen(err->message, rest);
    memcpy(joined + n + 2, err->message, m);
    joined[n + 2 + m] = 0;
    memcpy(err->message, joined, sizeof joined);
    one_line(err->message);
}

const char *skf_status_name(skf_status status)
{
    switch (status) {
    case SKF_OK: return "ok";
    case SKF_ERR_IO: return "i/o error";
    case SKF_ERR_FORMAT: return "malformed input";
    case SKF_ERR_LIMIT: return "limit exceeded";
    case SKF_ERR_NOMEM: return "out of memory";
    case SKF_ERR_ARGUMENT: return "bad argument";
    case SKF_ERR_NUMERIC: return "numeric failure";
    case SKF_ERR_MISMATCH: return "inputs do not match";
    case SKF_ERR_CANCELLED: return "cancelled";
    }
    return "unknown";
}

static skf_warning *add_warning(skf_warnings *w, skf_error_kind kind, const char *option, const char *fmt,
                                va_list ap)
{
    if (!w)
        return NULL;
    char buf[SKF_ERROR_MESSAGE_MAX];
    vsnprintf(buf, sizeof buf, fmt, ap);
    one_line(buf);
    if (w->count == w->capacity) {
        size_t cap = w->capacity ? w->capacity * 2 : 8;
        skf_warning *items = skf_realloc_array(w->items, cap, sizeof *items);
        if (!items)
            return NULL;
        w->items = items;
        w->capacity = cap;
    }
    char *copy = skf_strdup(buf);
    if (!copy)
        return NULL;
    skf_warning *it = &w->items[w->count++];
    it->text = copy;
    it->kind = kind;
    it->option = option;
    limit_name_in(copy, it->limit);
    skf_place_clear(&it->place);
    return it;
}

void skf_warn(skf_warnings *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_warning(w, SKF_KIND_UNSPECIFIED, NULL, fmt, ap);
    va_end(ap);
}

skf_warning *skf_warn_as(skf_warnings *w, skf_error_kind kind, const char *option, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    skf_warning *it = add_warning(w, kind, option, fmt, ap);
    va_end(ap);
    return it;
}

void skf_warnings_release(skf_warnings *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->count; ++i)
        skf_free(w->items[i].text);
    skf_free(w->items);
    w->items = NULL;
    w->count = w->capacity = 0;
}

int skf_progress_report(const skf_progress *p, double fraction, const char *what)
{
    if (!p || !p->report)
        return 0;
    return p->report(p->user, fraction, what);
}
