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

skf_status skf_failv(skf_error *err, skf_status status, const char *fmt, va_list ap)
{
    if (err) {
        err->status = status;
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        one_line(err->message);
    }
    return status;
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

void skf_warn(skf_warnings *w, const char *fmt, ...)
{
    if (!w)
        return;
    char buf[SKF_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    one_line(buf);
    if (w->count == w->capacity) {
        size_t cap = w->capacity ? w->capacity * 2 : 8;
        char **items = skf_realloc_array(w->items, cap, sizeof *items);
        if (!items)
            return;
        w->items = items;
        w->capacity = cap;
    }
    char *copy = skf_strdup(buf);
    if (copy)
        w->items[w->count++] = copy;
}

void skf_warnings_release(skf_warnings *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->count; ++i)
        skf_free(w->items[i]);
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
