/* The growable string builder of skinfit (internal, not API): SVG output
 * (src/svg/write.c), the HTML report, OBJ frames (src/io/objseq.c).
 *
 * A zeroed skfi_strbuf is empty and ready. Appends grow the buffer
 * (doubling from 4 KiB) and keep data NUL-terminated; the first failed
 * allocation sets `failed`, after which every append is a no-op, so callers
 * append freely and check `failed` once at the end. data (NULL until the
 * first append) is owned by the builder's user: skf_free it, or take it. */
#ifndef SKF_BASE_STRBUF_H
#define SKF_BASE_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct skfi_strbuf {
    char *data;     /* len bytes + NUL; NULL while empty */
    size_t len, cap;
    bool failed;    /* an allocation failed: content incomplete */
} skfi_strbuf;

/* Room for `more` bytes after len (plus the NUL); false when failed. */
bool skfi_strbuf_reserve(skfi_strbuf *b, size_t more);
void skfi_strbuf_put(skfi_strbuf *b, const char *s, size_t n);
void skfi_strbuf_puts(skfi_strbuf *b, const char *s);
void skfi_strbuf_printf(skfi_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* len = 0, keeping the storage (and `failed`). */
void skfi_strbuf_clear(skfi_strbuf *b);

#endif
