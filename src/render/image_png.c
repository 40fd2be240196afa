/* PNG encode/decode through libpng (PNG specification, ISO/IEC 15948:2003).
 *
 * libpng reports errors by longjmp; each entry point owns one setjmp frame and
 * keeps every object it must free in a struct that survives the jump. libpng's
 * own allocations go through skf_malloc/skf_free so fault injection reaches
 * them too. Untrusted input: dimensions are checked against the image limits
 * (png_set_user_limits and skf_image_init) before any pixel buffer exists, and
 * the read callback refuses to read past the end of the input. */
#include "skinfit/image.h"
#include "render/render_internal.h"

#include <png.h>
#include <setjmp.h>
#include <zlib.h>
#include <stdio.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SKF_PNG_AVX2 1 /* the AVX2 filter sums, chosen at run time */
#endif

typedef struct png_ctx {
    char message[256];
    /* write sink */
    uint8_t *out;
    size_t out_size, out_cap;
    int out_nomem;
    int alloc_failed; /* an allocation for libpng failed (its own message varies by path) */
    /* read source */
    const uint8_t *in;
    size_t in_size, in_pos;
} png_ctx;

static void on_png_error(png_structp png, png_const_charp msg)
{
    png_ctx *c = png_get_error_ptr(png);
    snprintf(c->message, sizeof c->message, "%s", msg ? msg : "libpng error");
    png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg; /* libpng warnings (e.g. unknown chunks) are not actionable here */
}

static png_voidp png_alloc(png_structp png, png_alloc_size_t size)
{
    png_voidp p = skf_malloc(size ? size : 1);
    png_ctx *c = png_get_mem_ptr(png);
    if (!p && c)
        c->alloc_failed = 1;
    return p;
}

static void png_dealloc(png_structp png, png_voidp p)
{
    (void)png;
    skf_free(p);
}

static void png_sink(png_structp png, png_bytep data, png_size_t len)
{
    png_ctx *c = png_get_io_ptr(png);
    if (len > (size_t)-1 - c->out_size) {
        c->out_nomem = 1;
        png_error(png, "output too large");
    }
    if (c->out_size + len > c->out_cap) {
        size_t cap = c->out_cap ? c->out_cap : 4096;
        while (cap < c->out_size + len)
            cap = cap > ((size_t)-1) / 2 ? c->out_size + len : cap * 2;
        uint8_t *p = skf_realloc_array(c->out, cap, 1);
        if (!p) {
            c->out_nomem = 1;
            png_error(png, "out of memory");
        }
        c->out = p;
        c->out_cap = cap;
    }
    memcpy(c->out + c->out_size, data, len);
    c->out_size += len;
}

static void png_flush_noop(png_structp png)
{
    (void)png;
}

static bool all_opaque(const skf_image *img)
{
    for (int y = 0; y < img->height; ++y) {
        const uint8_t *row = img->pixels + (size_t)y * img->stride;
        unsigned alpha = 255;
#pragma omp simd reduction(& : alpha)
        for (int x = 0; x < img->width; ++x)
            alpha &= row[4 * x + 3];
        if (alpha != 255)
            return false;
    }
    return true;
}

/* The row filter of the PNG specification's recommended heuristic (ISO/IEC
 * 15948:2003 §12.8, "minimum sum of absolute differences"): each of the five
 * filters (None, Sub, Up, Average, Paeth; §9.2) is applied to the row, its
 * output bytes read as signed and their magnitudes summed; the smallest sum
 * wins, the earlier filter on a tie. This is the choice libpng makes when
 * given all filters, so handing libpng the winner (png_set_filter before the
 * row) writes the same bytes; computing the five sums here in one
 * vectorisable pass costs a fraction of libpng's per-filter trial passes.
 * cur and prev are rows of n bytes (n < 2^25), bpp bytes per pixel, n > bpp. */
static inline unsigned filter_mag(unsigned v)
{
    v &= 255;
    return v < 128 ? v : 256 - v;
}

static inline unsigned paeth_predict(unsigned a, unsigned b, unsigned c)
{
    int p = (int)b - (int)c, q = (int)a - (int)c;
    int pa = p < 0 ? -p : p, pb = q < 0 ? -q : q, pc = p + q < 0 ? -(p + q) : p + q;
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

#ifdef SKF_PNG_AVX2
/* Paeth's predictor of 32 bytes (§9.4), its distances in 16-bit lanes: a
 * when pa <= pb and pa <= pc, else b when pb <= pc, else c. */
__attribute__((target("avx2"))) static inline __m256i paeth32(__m256i a, __m256i b, __m256i c)
{
    const __m256i zero = _mm256_setzero_si256(), ones16 = _mm256_set1_epi16(-1);
    __m256i pred[2];
    for (int h = 0; h < 2; ++h) {
        /* per 128-bit lane, as unpack does: packus below puts them back in place */
        __m256i a16 = h ? _mm256_unpackhi_epi8(a, zero) : _mm256_unpacklo_epi8(a, zero);
        __m256i b16 = h ? _mm256_unpackhi_epi8(b, zero) : _mm256_unpacklo_epi8(b, zero);
        __m256i c16 = h ? _mm256_unpackhi_epi8(c, zero) : _mm256_unpacklo_epi8(c, zero);
        __m256i p = _mm256_sub_epi16(b16, c16), q = _mm256_sub_epi16(a16, c16), pq = _mm256_add_epi16(p, q);
        __m256i pa = _mm256_abs_epi16(p), pb = _mm256_abs_epi16(q), pc = _mm256_abs_epi16(pq);
        __m256i use_a = _mm256_andnot_si256(_mm256_or_si256(_mm256_cmpgt_epi16(pa, pb), _mm256_cmpgt_epi16(pa, pc)), ones16);
        __m256i use_b = _mm256_andnot_si256(_mm256_cmpgt_epi16(pb, pc), ones16);
        __m256i bc = _mm256_blendv_epi8(c16, b16, use_b);
        pred[h] = _mm256_blendv_epi8(bc, a16, use_a);
    }
    return _mm256_packus_epi16(pred[0], pred[1]);
}

/* Filter k's residuals of bytes [bpp, bpp + 32·m) of the row into out (k >= 1;
 * the operations of apply_filter, 32 bytes at a time). Returns the end. */
__attribute__((target("avx2"))) static size_t apply_filter_avx2(int k, const uint8_t *cur,
                                                                 const uint8_t *prev, size_t n,
                                                                 size_t bpp, uint8_t *out)
{
    const __m256i one = _mm256_set1_epi8(1);
    size_t i = bpp;
    for (; i + 32 <= n; i += 32) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(cur + i));
        __m256i a = _mm256_loadu_si256((const __m256i *)(cur + i - bpp));
        __m256i b = _mm256_loadu_si256((const __m256i *)(prev + i));
        __m256i r;
        if (k == 1)
            r = _mm256_sub_epi8(x, a);
        else if (k == 2)
            r = _mm256_sub_epi8(x, b);
        else if (k == 3)
            r = _mm256_sub_epi8(x, _mm256_sub_epi8(_mm256_avg_epu8(a, b), _mm256_and_si256(_mm256_xor_si256(a, b), one)));
        else
            r = _mm256_sub_epi8(x, paeth32(a, b, _mm256_loadu_si256((const __m256i *)(prev + i - bpp))));
        _mm256_storeu_si256((__m256i *)(out + i), r);
    }
    return i;
}

/* choose_filter's five sums over bytes [bpp, bpp + 32·k) of the row, 32 at a
 * time: the same operations as its SSE2 loop on twice the lanes (integers:
 * the same sums). Returns the end of the bytes summed. */
__attribute__((target("avx2"))) static size_t filter_sums_avx2(const uint8_t *cur,
                                                                const uint8_t *prev, size_t n,
                                                                size_t bpp, uint32_t s[5])
{
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi8(1);
    __m256i t[5] = {zero, zero, zero, zero, zero};
#define MAG_SUM(k, r)                                                                            t[k] = _mm256_add_epi64(t[k], _mm256_sad_epu8(_mm256_min_epu8((r), _mm256_sub_epi8(zero, (r))), zero))
    size_t i = bpp;
    for (; i + 32 <= n; i += 32) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(cur + i));
        __m256i a = _mm256_loadu_si256((const __m256i *)(cur + i - bpp));
        __m256i b = _mm256_loadu_si256((const __m256i *)(prev + i));
        __m256i c = _mm256_loadu_si256((const __m256i *)(prev + i - bpp));
        MAG_SUM(0, x);
        MAG_SUM(1, _mm256_sub_epi8(x, a));
        MAG_SUM(2, _mm256_sub_epi8(x, b));
        __m256i avg = _mm256_sub_epi8(_mm256_avg_epu8(a, b), _mm256_and_si256(_mm256_xor_si256(a, b), one));
        MAG_SUM(3, _mm256_sub_epi8(x, avg));
        MAG_SUM(4, _mm256_sub_epi8(x, paeth32(a, b, c)));
    }
#undef MAG_SUM
    for (int k = 0; k < 5; ++k) {
        uint64_t w[4];
        _mm256_storeu_si256((__m256i *)w, t[k]);
        s[k] += (uint32_t)(w[0] + w[1] + w[2] + w[3]);
    }
    return i;
}

/* RGB bytes of an RGBA row, 8 pixels per step while the second 16-byte store
 * (bytes 12..27 of the step, pixels x+4 .. x+9) stays inside the row: x + 10
 * <= n. The rest is the caller's. */
__attribute__((target("avx2"))) static int rgba_to_rgb_avx2(uint8_t *dst, const uint8_t *src, int n)
{
    const __m256i pick = _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1,
                                          0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
    int x = 0;
    for (; x + 10 <= n; x += 8) {
        __m256i v = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(src + 4 * (size_t)x)), pick);
        _mm_storeu_si128((__m128i *)(dst + 3 * (size_t)x), _mm256_castsi256_si128(v));
        _mm_storeu_si128((__m128i *)(dst + 3 * (size_t)x + 12), _mm256_extracti128_si256(v, 1));
    }
    return x;
}
#endif

/* Row y as the PNG stores it: the RGBA pixels, or (opaque) their RGB bytes
 * copied into dst. */
static const uint8_t *source_row(const skf_image *img, int y, bool opaque, uint8_t *dst, bool avx2)
{
    const uint8_t *src = img->pixels + (size_t)y * img->stride;
    if (!opaque)
        return src;
    int x = 0;
    (void)avx2;
#ifdef SKF_PNG_AVX2
    if (avx2)
        x = rgba_to_rgb_avx2(dst, src, img->width);
#endif
    for (; x < img->width; ++x)
        memcpy(dst + 3 * (size_t)x, src + 4 * (size_t)x, 3);
    return dst;
}

static int choose_filter(const uint8_t *cur, const uint8_t *prev, size_t n, size_t bpp, bool avx2)
{
    /* 32-bit sums (4 lanes per SSE vector): a row sums to at most 128·n < 2^32 */
    uint32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0;
    (void)avx2;
    for (size_t i = 0; i < bpp; ++i) {
        unsigned x = cur[i], b = prev[i];
        s0 += filter_mag(x);
        s1 += filter_mag(x);
        s2 += filter_mag(x - b);
        s3 += filter_mag(x - b / 2);
        s4 += filter_mag(x - paeth_predict(0, b, 0));
    }
    size_t i = bpp;
#ifdef SKF_PNG_AVX2
    if (avx2) {
        uint32_t s[5] = {s0, s1, s2, s3, s4};
        i = filter_sums_avx2(cur, prev, n, bpp, s);
        s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3], s4 = s[4];
    }
#endif
#ifdef __SSE2__
    /* 16 bytes at a time: a residual's magnitude as a signed byte is
     * min(r, 256 − r) (min_epu8 of r and −r), summed by psadbw; the average
     * is floor((a + b) / 2) = avg_epu8(a, b) − ((a ^ b) & 1); Paeth's
     * distances in 16-bit lanes. Integer sums: the same as the scalar loop. */
    {
        const __m128i zero = _mm_setzero_si128(), one = _mm_set1_epi8(1);
        __m128i t0 = zero, t1 = zero, t2 = zero, t3 = zero, t4 = zero;
#define MAG_SUM(acc, r)                                                                     \
    acc = _mm_add_epi64(acc, _mm_sad_epu8(_mm_min_epu8((r), _mm_sub_epi8(zero, (r))), zero))
        for (; i + 16 <= n; i += 16) {
            __m128i x = _mm_loadu_si128((const __m128i *)(cur + i));
            __m128i a = _mm_loadu_si128((const __m128i *)(cur + i - bpp));
            __m128i b = _mm_loadu_si128((const __m128i *)(prev + i));
            __m128i c = _mm_loadu_si128((const __m128i *)(prev + i - bpp));
            MAG_SUM(t0, x);
            MAG_SUM(t1, _mm_sub_epi8(x, a));
            MAG_SUM(t2, _mm_sub_epi8(x, b));
            __m128i avg = _mm_sub_epi8(_mm_avg_epu8(a, b), _mm_and_si128(_mm_xor_si128(a, b), one));
            MAG_SUM(t3, _mm_sub_epi8(x, avg));
            __m128i pred[2];
            for (int h = 0; h < 2; ++h) {
                __m128i a16 = h ? _mm_unpackhi_epi8(a, zero) : _mm_unpacklo_epi8(a, zero);
                __m128i b16 = h ? _mm_unpackhi_epi8(b, zero) : _mm_unpacklo_epi8(b, zero);
                __m128i c16 = h ? _mm_unpackhi_epi8(c, zero) : _mm_unpacklo_epi8(c, zero);
                __m128i p = _mm_sub_epi16(b16, c16), q = _mm_sub_epi16(a16, c16), pq = _mm_add_epi16(p, q);
                __m128i pa = _mm_max_epi16(p, _mm_sub_epi16(zero, p));
                __m128i pb = _mm_max_epi16(q, _mm_sub_epi16(zero, q));
                __m128i pc = _mm_max_epi16(pq, _mm_sub_epi16(zero, pq));
                /* a when pa <= pb and pa <= pc, else b when pb <= pc, else c */
                __m128i use_a = _mm_andnot_si128(_mm_or_si128(_mm_cmpgt_epi16(pa, pb), _mm_cmpgt_epi16(pa, pc)),
                                                  _mm_set1_epi16(-1));
                __m128i use_b = _mm_andnot_si128(_mm_cmpgt_epi16(pb, pc), _mm_set1_epi16(-1));
                __m128i bc = _mm_or_si128(_mm_and_si128(use_b, b16), _mm_andnot_si128(use_b, c16));
                pred[h] = _mm_or_si128(_mm_and_si128(use_a, a16), _mm_andnot_si128(use_a, bc));
            }
            MAG_SUM(t4, _mm_sub_epi8(x, _mm_packus_epi16(pred[0], pred[1])));
        }
#undef MAG_SUM
        uint64_t w[2];
        _mm_storeu_si128((__m128i *)w, t0), s0 += (uint32_t)(w[0] + w[1]);
        _mm_storeu_si128((__m128i *)w, t1), s1 += (uint32_t)(w[0] + w[1]);
        _mm_storeu_si128((__m128i *)w, t2), s2 += (uint32_t)(w[0] + w[1]);
        _mm_storeu_si128((__m128i *)w, t3), s3 += (uint32_t)(w[0] + w[1]);
        _mm_storeu_si128((__m128i *)w, t4), s4 += (uint32_t)(w[0] + w[1]);
    }
#endif
#pragma omp simd reduction(+ : s0, s1, s2, s3, s4)
    for (size_t j = i; j < n; ++j) {
        unsigned x = cur[j], a = cur[j - bpp], b = prev[j], c = prev[j - bpp];
        s0 += filter_mag(x);
        s1 += filter_mag(x - a);
        s2 += filter_mag(x - b);
        s3 += filter_mag(x - (a + b) / 2);
        s4 += filter_mag(x - paeth_predict(a, b, c));
    }
    uint32_t sums[5] = {s0, s1, s2, s3, s4}, best = s0;
    int k = 0;
    for (int f = 1; f < 5; ++f)
        if (sums[f] < best)
            best = sums[f], k = f;
    return k;
}

/* ---- the stream libpng writes, written here (large images) -------------- */

/* Row k's filter bytes into out (n bytes): the filter type's residuals. */
static void apply_filter(int k, const uint8_t *cur, const uint8_t *prev, size_t n, size_t bpp,
                         uint8_t *out, bool avx2)
{
    size_t i = 0;
    (void)avx2;
#ifdef SKF_PNG_AVX2
    if (avx2 && k > 0) {
        /* the first bpp bytes (no left neighbour) and the tail as below */
        for (; i < bpp; ++i)
            out[i] = (uint8_t)(cur[i] - (k == 1 ? 0 : k == 2 ? prev[i] : k == 3 ? prev[i] / 2
                                                                  : paeth_predict(0, prev[i], 0)));
        i = apply_filter_avx2(k, cur, prev, n, bpp, out);
        for (; i < n; ++i) {
            unsigned a = cur[i - bpp], b = prev[i], c = prev[i - bpp];
            out[i] = (uint8_t)(cur[i] - (k == 1 ? a : k == 2 ? b : k == 3 ? (a + b) / 2
                                                            : paeth_predict(a, b, c)));
        }
        return;
    }
#endif
    switch (k) {
    case 0:
        memcpy(out, cur, n);
        return;
    case 1:
        for (; i < bpp; ++i)
            out[i] = cur[i];
#pragma omp simd
        for (size_t j = bpp; j < n; ++j)
            out[j] = (uint8_t)(cur[j] - cur[j - bpp]);
        return;
    case 2:
#pragma omp simd
        for (size_t j = 0; j < n; ++j)
            out[j] = (uint8_t)(cur[j] - prev[j]);
        return;
    case 3:
        for (; i < bpp; ++i)
            out[i] = (uint8_t)(cur[i] - prev[i] / 2);
#pragma omp simd
        for (size_t j = bpp; j < n; ++j)
            out[j] = (uint8_t)(cur[j] - (cur[j - bpp] + prev[j]) / 2);
        return;
    default:
        for (; i < bpp; ++i)
            out[i] = (uint8_t)(cur[i] - paeth_predict(0, prev[i], 0));
        for (size_t j = bpp; j < n; ++j)
            out[j] = (uint8_t)(cur[j] - paeth_predict(cur[j - bpp], prev[j], prev[j - bpp]));
        return;
    }
}

typedef struct png_out {
    uint8_t *data;
    size_t size, cap;
    bool nomem;
} png_out;

static void out_put(png_out *o, const void *bytes, size_t n)
{
    if (o->nomem)
        return;
    if (n > (size_t)-1 / 2 - o->size) {
        o->nomem = true;
        return;
    }
    if (o->size + n > o->cap) {
        size_t cap = o->cap ? o->cap : 4096;
        while (cap < o->size + n)
            cap *= 2;
        uint8_t *p = skf_realloc_array(o->data, cap, 1);
        if (!p) {
            o->nomem = true;
            return;
        }
        o->data = p, o->cap = cap;
    }
    memcpy(o->data + o->size, bytes, n);
    o->size += n;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

/* One chunk (PNG spec §5.3): length, type, data, CRC-32 of type and data. */
static void out_chunk(png_out *o, const char *type, const uint8_t *data, size_t n)
{
    uint8_t head[8], crc[4];
    put_be32(head, (uint32_t)n);
    memcpy(head + 4, type, 4);
    uLong c = crc32(0L, head + 4, 4);
    if (n)
        c = crc32(c, data, (uInt)n);
    put_be32(crc, (uint32_t)c);
    out_put(o, head, 8);
    if (n)
        out_put(o, data, n);
    out_put(o, crc, 4);
}

static voidpf z_alloc(voidpf opaque, uInt items, uInt size)
{
    (void)opaque;
    return skf_malloc_array(items ? items : 1, size ? size : 1);
}

static void z_free(voidpf opaque, voidpf p)
{
    (void)opaque;
    skf_free(p);
}

/* The bytes libpng 1.6 writes for this image at compression level 6 with
 * the filter of every row chosen as choose_filter does (the first row
 * against a row of zeros, as libpng's own choice among all filters), for an
 * image whose filtered data exceeds 16384 bytes (below that libpng narrows
 * the deflate window to the data): signature, IHDR, the zlib stream of the
 * filtered rows — deflate with libpng's parameters (window 2^15, memory
 * level 8, its strategy for filtered data, PNG_Z_DEFAULT_STRATEGY), the rows
 * handed over one by one as libpng does — cut into IDAT chunks of libpng's
 * buffer size (PNG_ZBUF_SIZE), IEND. Writing them here saves libpng's second
 * filtering of every row (tests/render/test_png_filter compares the bytes with
 * libpng's own encoder). Returns SKF_ERR_NOMEM or SKF_OK. */
static skf_status encode_direct(const skf_image *img, bool opaque, bool avx2, uint8_t **data,
                                size_t *size, skf_error *err)
{
    size_t bpp = opaque ? 3 : 4, row_bytes = bpp * (size_t)img->width;
    png_out o = {0};
    uint8_t *buf = skf_malloc_array(row_bytes, 4);     /* two source rows, zeros, the filtered row */
    uint8_t *filtered = skf_malloc_array(row_bytes + 1, 1);
    uint8_t *zbuf = skf_malloc_array(PNG_ZBUF_SIZE, 1);
    z_stream z;
    memset(&z, 0, sizeof z);
    z.zalloc = z_alloc, z.zfree = z_free;
    bool z_ready = false;
    skf_status st;
    if (!buf || !filtered || !zbuf)
        goto nomem;
    if (deflateInit2(&z, 6, Z_DEFLATED, 15, 8, PNG_Z_DEFAULT_STRATEGY) != Z_OK)
        goto nomem;
    z_ready = true;
    static const uint8_t signature[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    out_put(&o, signature, 8);
    uint8_t ihdr[13];
    put_be32(ihdr, (uint32_t)img->width);
    put_be32(ihdr + 4, (uint32_t)img->height);
    ihdr[8] = 8, ihdr[9] = opaque ? 2 : 6, ihdr[10] = ihdr[11] = ihdr[12] = 0;
    out_chunk(&o, "IHDR", ihdr, 13);
    uint8_t *zero = buf + 2 * row_bytes;
    memset(zero, 0, row_bytes);
    const uint8_t *prev = zero;
    z.next_out = zbuf, z.avail_out = PNG_ZBUF_SIZE;
    for (int y = 0; y <= img->height; ++y) {
        bool last = y == img->height;
        if (!last) {
            const uint8_t *cur = source_row(img, y, opaque, buf + (size_t)(y & 1) * row_bytes, avx2);
            int k = choose_filter(cur, prev, row_bytes, bpp, avx2);
            filtered[0] = (uint8_t)k;
            apply_filter(k, cur, prev, row_bytes, bpp, filtered + 1, avx2);
            prev = cur;
            z.next_in = filtered, z.avail_in = (uInt)(row_bytes + 1);
        }
        for (;;) {
            int ret = deflate(&z, last ? Z_FINISH : Z_NO_FLUSH);
            if (ret == Z_MEM_ERROR)
                goto nomem;
            if (ret != Z_OK && ret != Z_STREAM_END && ret != Z_BUF_ERROR) {
                st = skf_fail(err, SKF_ERR_IO, "png: encode: zlib: %s", z.msg ? z.msg : "deflate failed");
                goto fail;
            }
            if (z.avail_out == 0) { /* a full buffer: one IDAT of PNG_ZBUF_SIZE bytes */
                out_chunk(&o, "IDAT", zbuf, PNG_ZBUF_SIZE);
                z.next_out = zbuf, z.avail_out = PNG_ZBUF_SIZE;
            }
            if (ret == Z_STREAM_END) {
                if (z.avail_out < PNG_ZBUF_SIZE)
                    out_chunk(&o, "IDAT", zbuf, PNG_ZBUF_SIZE - z.avail_out);
                break;
            }
            if (!last && z.avail_in == 0)
                break;
        }
    }
    out_chunk(&o, "IEND", NULL, 0);
    if (o.nomem)
        goto nomem;
    deflateEnd(&z);
    skf_free(buf);
    skf_free(filtered);
    skf_free(zbuf);
    *data = o.data;
    *size = o.size;
    return SKF_OK;
nomem:
    st = skf_fail(err, SKF_ERR_NOMEM, "png: encode: out of memory");
fail:
    if (z_ready)
        deflateEnd(&z);
    skf_free(buf);
    skf_free(filtered);
    skf_free(zbuf);
    skf_free(o.data);
    return st;
}

skf_status skf_png_encode(const skf_image *img, uint8_t **data, size_t *size, skf_error *err)
{
    *data = NULL;
    *size = 0;
    png_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    volatile bool opaque = all_opaque(img);
#ifdef SKF_PNG_AVX2
    bool use_avx2 = !skfi_render_portable && __builtin_cpu_supports("avx2");
#else
    bool use_avx2 = false;
#endif
    /* libpng's filtered data: (row bytes + filter byte) per row */
    if (img->width > 1 && img->height > 1 &&
        (size_t)img->height * ((opaque ? 3 : 4) * (size_t)img->width + 1) > 16384)
        return encode_direct(img, opaque, use_avx2, data, size, err);
    uint8_t *volatile row = NULL;
    png_structp png = png_create_write_struct_2(PNG_LIBPNG_VER_STRING, &ctx, on_png_error,
                                                on_png_warning, &ctx, png_alloc, png_dealloc);
    if (!png)
        return skf_fail(err, SKF_ERR_NOMEM, "png: encode: out of memory");
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        return skf_fail(err, SKF_ERR_NOMEM, "png: encode: out of memory");
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        skf_free(row);
        skf_free(ctx.out);
        if (ctx.alloc_failed)
            return skf_fail(err, SKF_ERR_NOMEM, "png: encode: out of memory");
        return skf_fail(err, ctx.out_nomem ? SKF_ERR_NOMEM : SKF_ERR_IO, "png: encode: %s",
                        ctx.message);
    }
    png_set_write_fn(png, &ctx, png_sink, png_flush_noop);
    png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height, 8,
                 opaque ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, 6);
    png_write_info(png, info);
    size_t bpp = opaque ? 3 : 4, row_bytes = bpp * (size_t)img->width;
    if (opaque) {
        row = skf_malloc_array((size_t)img->width, 2 * 3); /* this row and the previous */
        if (!row) {
            ctx.out_nomem = 1;
            png_error(png, "out of memory");
        }
    }
    /* Row 0 keeps libpng's own choice among all filters (that also makes libpng
     * allocate every filter's buffers and pick the deflate strategy of filtered
     * data); from row 1 on, choose_filter names the filter libpng would pick. */
    static const int filter_flag[5] = {PNG_FILTER_NONE, PNG_FILTER_SUB, PNG_FILTER_UP,
                                       PNG_FILTER_AVG, PNG_FILTER_PAETH};
    bool own_choice = img->width > 1 && img->height > 1;
    const uint8_t *prev = NULL;
#ifdef SKF_PNG_AVX2
    bool avx2 = !skfi_render_portable && __builtin_cpu_supports("avx2");
#else
    bool avx2 = false;
#endif
    for (int y = 0; y < img->height; ++y) {
        const uint8_t *cur = source_row(img, y, opaque, opaque ? row + (size_t)(y & 1) * row_bytes : NULL, avx2);
        if (own_choice && prev)
            png_set_filter(png, PNG_FILTER_TYPE_BASE,
                           filter_flag[choose_filter(cur, prev, row_bytes, bpp, avx2)]);
        png_write_row(png, cur);
        prev = cur;
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    skf_free(row);
    *data = ctx.out;
    *size = ctx.out_size;
    return SKF_OK;
}

skf_status skf_png_write(const char *path, const skf_image *img, skf_error *err)
{
    uint8_t *data;
    size_t size;
    skf_status st = skf_png_encode(img, &data, &size, err);
    if (st) {
        skf_error_prefix(err, "%s", path);
        return st;
    }
    st = skf_write_file_atomic(path, data, size, err);
    skf_free(data);
    return st;
}

static void png_source(png_structp png, png_bytep data, png_size_t len)
{
    png_ctx *c = png_get_io_ptr(png);
    if (len > c->in_size - c->in_pos) {
        snprintf(c->message, sizeof c->message, "byte %zu: truncated (wanted %zu more bytes)",
                 c->in_size, len - (c->in_size - c->in_pos));
        png_longjmp(png, 2);
    }
    memcpy(data, c->in + c->in_pos, len);
    c->in_pos += len;
}

skf_status skf_png_decode(const uint8_t *data, size_t size, const char *name_arg, skf_image *out,
                          skf_error *err)
{
    memset(out, 0, sizeof *out);
    const char *volatile name = name_arg ? name_arg : "png";
    if (size < 8 || png_sig_cmp(data, 0, 8))
        return skf_fail(err, SKF_ERR_FORMAT, "%s: byte 0: not a PNG file (bad signature)", name);
    png_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.in = data;
    ctx.in_size = size;
    skf_image img;
    memset(&img, 0, sizeof img);
    png_bytep *volatile rows = NULL;
    skf_status volatile alloc_status = SKF_OK;
    png_structp png = png_create_read_struct_2(PNG_LIBPNG_VER_STRING, &ctx, on_png_error,
                                               on_png_warning, &ctx, png_alloc, png_dealloc);
    if (!png)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", name);
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", name);
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        skf_free(rows);
        skf_image_release(&img);
        if (ctx.alloc_failed)
            return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", name);
        if (alloc_status != SKF_OK)
            return skf_fail(err, alloc_status, "%s: %s", name, ctx.message);
        return skf_fail(err, SKF_ERR_FORMAT, "%s: %s", name, ctx.message);
    }
    png_set_read_fn(png, &ctx, png_source);
    png_set_user_limits(png, SKF_IMAGE_MAX_SIDE, SKF_IMAGE_MAX_SIDE);
    png_read_info(png, info);
    png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    int color = png_get_color_type(png, info), depth = png_get_bit_depth(png, info);
    if (depth == 16)
        png_set_strip_16(png);
    if (color == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(png);
    if (color == PNG_COLOR_TYPE_GRAY && depth < 8)
        png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS))
        png_set_tRNS_to_alpha(png);
    if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA)
        png_set_gray_to_rgb(png);
    if (!(color & PNG_COLOR_MASK_ALPHA) && !png_get_valid(png, info, PNG_INFO_tRNS))
        png_set_filler(png, 0xff, PNG_FILLER_AFTER);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != 4 * (size_t)w) {
        snprintf(ctx.message, sizeof ctx.message, "IHDR: unsupported pixel layout");
        png_longjmp(png, 3);
    }
    skf_error ie;
    skf_status st = skf_image_init(&img, (int)w, (int)h, 0, &ie);
    if (st) {
        alloc_status = st;
        snprintf(ctx.message, sizeof ctx.message, "IHDR: %.200s", ie.message);
        png_longjmp(png, 4);
    }
    rows = skf_malloc_array(h, sizeof *rows);
    if (!rows) {
        alloc_status = SKF_ERR_NOMEM;
        snprintf(ctx.message, sizeof ctx.message, "out of memory");
        png_longjmp(png, 5);
    }
    for (png_uint_32 y = 0; y < h; ++y)
        rows[y] = img.pixels + (size_t)y * img.stride;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    skf_free(rows);
    *out = img;
    return SKF_OK;
}

skf_status skf_png_read(const char *path, skf_image *out, skf_error *err)
{
    memset(out, 0, sizeof *out);
    uint8_t *data;
    size_t size;
    skf_status st = skf_read_file(path, (size_t)1 << 30, &data, &size, err);
    if (st)
        return st;
    st = skf_png_decode(data, size, path, out, err);
    skf_free(data);
    return st;
}
