/* The growable string builder (src/base/strbuf.h). */
#include "base/strbuf.h"
#include "skinfit/base.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool skfi_strbuf_reserve(skfi_strbuf *b, size_t more)
{
    if (b->failed)
        return false;
    if (more >= SIZE_MAX - b->len) {
        b->failed = true;
        return false;
    }
    if (b->len + more + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + more + 1) {
        if (cap > SIZE_MAX / 2) {
            cap = b->len + more + 1;
            break;
        }
        cap *= 2;
    }
    char *d = skf_realloc_array(b->data, cap, 1);
    if (!d) {
        b->failed = true;
        return false;
    }
    b->data = d;
    b->cap = cap;
    return true;
}

void skfi_strbuf_put(skfi_strbuf *b, const char *s, size_t n)
{
    if (!skfi_strbuf_reserve(b, n))
        return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

void skfi_strbuf_puts(skfi_strbuf *b, const char *s)
{
    skfi_strbuf_put(b, s, strlen(s));
}

void skfi_strbuf_printf(skfi_strbuf *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    char tmp[512];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = true;
        return;
    }
    if ((size_t)n < sizeof tmp) {
        skfi_strbuf_put(b, tmp, (size_t)n);
        return;
    }
    if (!skfi_strbuf_reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void skfi_strbuf_clear(skfi_strbuf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = 0;
}
