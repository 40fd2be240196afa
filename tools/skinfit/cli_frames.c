/* --frames of `skinfit render`: "all" or a list of indices and inclusive
 * ranges ("0,5,10-12"), each checked against the clip's frame count. */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

skf_status cli_parse_frames(const char *spec, size_t frame_count, size_t **out, size_t *out_count,
                            skf_error *err)
{
    *out = NULL;
    *out_count = 0;
    if (!spec || !strcmp(spec, "all")) {
        if (frame_count == 0)
            return skf_fail(err, SKF_ERR_ARGUMENT, "frames: the clip has no frames");
        size_t *f = skf_malloc_array(frame_count, sizeof *f);
        if (!f)
            return skf_fail(err, SKF_ERR_NOMEM, "frames: out of memory");
        for (size_t i = 0; i < frame_count; ++i)
            f[i] = i;
        *out = f;
        *out_count = frame_count;
        return SKF_OK;
    }
    size_t cap = 16, n = 0;
    size_t *f = skf_malloc_array(cap, sizeof *f);
    if (!f)
        return skf_fail(err, SKF_ERR_NOMEM, "frames: out of memory");
    const char *p = spec;
    while (*p) {
        char *end;
        if (!isdigit((unsigned char)*p))
            goto bad;
        errno = 0;
        unsigned long long a = strtoull(p, &end, 10), b = a;
        if (errno)
            goto bad;
        p = end;
        if (*p == '-') {
            ++p;
            if (!isdigit((unsigned char)*p))
                goto bad;
            b = strtoull(p, &end, 10);
            if (errno)
                goto bad;
            p = end;
        }
        if (*p == ',')
            ++p;
        else if (*p)
            goto bad;
        if (a > b || b >= frame_count) {
            skf_free(f);
            return skf_fail(err, SKF_ERR_ARGUMENT, "frames '%s': %llu-%llu outside 0..%zu", spec,
                            a, b, frame_count ? frame_count - 1 : 0);
        }
        for (unsigned long long i = a; i <= b; ++i) {
            if (n == cap) {
                if (cap > ((size_t)1 << 24)) {
                    skf_free(f);
                    return skf_fail(err, SKF_ERR_LIMIT, "frames '%s': more than 2^24 frames", spec);
                }
                size_t *g = skf_realloc_array(f, cap * 2, sizeof *f);
                if (!g) {
                    skf_free(f);
                    return skf_fail(err, SKF_ERR_NOMEM, "frames: out of memory");
                }
                f = g;
                cap *= 2;
            }
            f[n++] = (size_t)i;
        }
    }
    if (n == 0)
        goto bad;
    *out = f;
    *out_count = n;
    return SKF_OK;
bad:
    skf_free(f);
    return skf_fail(err, SKF_ERR_ARGUMENT,
                    "frames '%s': expected 'all' or a list like 0,5,10-12", spec);
}
