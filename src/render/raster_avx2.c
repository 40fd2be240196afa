/* The rasteriser's kernels in AVX2 lanes: z-buffered triangles with edge
 * functions (J. Pineda, "A parallel algorithm for polygon rasterization",
 * SIGGRAPH 1988), Gouraud shading (H. Gouraud, "Continuous shading of curved
 * surfaces", IEEE Trans. Computers 1971) of the depth-test winners only
 * (deferred shading), box-filter supersampling.
 *
 * Four samples per instruction where raster.c takes two (SSE2) or one: every
 * per-sample quantity is the same IEEE double expression, operand for
 * operand and in the same order, as raster.c's scalar expressions (this file
 * is built with -mavx2 and -ffp-contract=off: no FMA), so each sample's
 * inside test, depth, shade, error, bin and byte are the same bits, and the
 * images are byte-identical to the portable kernels' (tests/render/
 * test_raster_kernels). raster.c calls these when the CPU has AVX2. */
#include "render/raster_scan.h"

#ifdef SKF_RASTER_AVX2
#include <immintrin.h>
#include <string.h>

/* Lane k of the result all ones where bit k of m is set. */
static inline __m128i lane_mask(int m)
{
    const __m128i bits = _mm_setr_epi32(1, 2, 4, 8);
    return _mm_cmpeq_epi32(_mm_and_si128(_mm_set1_epi32(m), bits), bits);
}

/* The barycentrics of the four samples px (x + 0.5 each) of a row, as
 * INSIDE_SCALAR computes them, and the inside bits (NaN counts as inside,
 * as "not less than 0" does there). */
#define INSIDE4(PX)                                                                               \
    __m256d b0 = _mm256_mul_pd(_mm256_sub_pd(R0, _mm256_mul_pd(D0, _mm256_sub_pd((PX), BX))), INV); \
    __m256d b1 = _mm256_mul_pd(_mm256_sub_pd(R1, _mm256_mul_pd(D1, _mm256_sub_pd((PX), CX))), INV); \
    __m256d b2 = _mm256_sub_pd(_mm256_sub_pd(ONE, b0), b1)
#define INSIDE4_BITS                                                                              \
    _mm256_movemask_pd(_mm256_and_pd(_mm256_and_pd(_mm256_cmp_pd(b0, ZERO, _CMP_NLT_UQ),          \
                                                   _mm256_cmp_pd(b1, ZERO, _CMP_NLT_UQ)),         \
                                     _mm256_cmp_pd(b2, ZERO, _CMP_NLT_UQ)))
#define TRI_CONSTANTS                                                                             \
    const __m256d BX = _mm256_set1_pd(bx), CX = _mm256_set1_pd(cx), D0 = _mm256_set1_pd(d0),     \
                  D1 = _mm256_set1_pd(d1), INV = _mm256_set1_pd(inv)
/* (k + 0.5) for lanes k: added to the row's first column gives x + 0.5
 * exactly (integers and halves below 2^52 are exact), as (double)x + 0.5 */
#define LANE_OFFSETS _mm256_setr_pd(0.5, 1.5, 2.5, 3.5)
/* ROW_SETUP_SCALAR, r0 and r1 in lanes, and px: the lanes' x + 0.5 from sx */
#define ROW_SETUP4(SY)                                                                            \
    ROW_SETUP_SCALAR(SY);                                                                        \
    const __m256d R0 = _mm256_set1_pd(r0), R1 = _mm256_set1_pd(r1);                             \
    __m256d px = _mm256_add_pd(_mm256_set1_pd((double)sx), LANE_OFFSETS)

void skfi_raster_silhouette_avx2(skfi_raster *r, const skfi_screen_vertex *v, const uint32_t *tri,
                                 const float *yext, size_t triangle_count, int row0, int row1)
{
    const __m256d ONE = _mm256_set1_pd(1.0), ZERO = _mm256_setzero_pd(), STEP = _mm256_set1_pd(4.0);
    for (size_t t = 0; t < triangle_count; ++t) {
        TRI_SCAN_BEGIN(t);
        TRI_CONSTANTS;
        for (int sy = ts.y0; sy <= ts.y1; ++sy) {
            ROW_SETUP4(sy);
            uint8_t *layer = r->layer + row;
            for (; sx <= hi; sx += 4, px = _mm256_add_pd(px, STEP)) {
                INSIDE4(px);
                int n = hi - sx + 1;
                unsigned m = (unsigned)INSIDE4_BITS & (n >= 4 ? 15u : (1u << n) - 1);
                if (!m)
                    continue;
                if (n >= 4) {
                    uint32_t bytes;
                    memcpy(&bytes, layer + sx, 4); /* little-endian: lane k is byte k */
                    bytes |= (m & 1) | (m & 2) << 7 | (m & 4) << 14 | (m & 8) << 21;
                    memcpy(layer + sx, &bytes, 4);
                } else {
                    for (int k = 0; k < n; ++k)
                        layer[sx + k] |= (uint8_t)(m >> k & 1);
                }
            }
        }
    }
}

void skfi_raster_depth_avx2(skfi_raster *r, const skfi_screen_vertex *v, const uint32_t *tri,
                            const float *yext, size_t triangle_count, int row0, int row1)
{
    const __m256d ONE = _mm256_set1_pd(1.0), ZERO = _mm256_setzero_pd(), STEP = _mm256_set1_pd(4.0);
    for (size_t t = 0; t < triangle_count; ++t) {
        TRI_SCAN_BEGIN(t);
        const uint32_t id = (uint32_t)t;
        const __m128i ID = _mm_set1_epi32((int)id);
        TRI_CONSTANTS;
        const __m256d ZA = _mm256_set1_pd(a.z), ZB = _mm256_set1_pd(b.z), ZC = _mm256_set1_pd(cc.z);
        for (int sy = ts.y0; sy <= ts.y1; ++sy) {
            ROW_SETUP4(sy);
            float *depth = r->depth + row;
            uint32_t *owner = r->tri + row;
            for (; sx <= hi; sx += 4, px = _mm256_add_pd(px, STEP)) {
                INSIDE4(px);
                int n = hi - sx + 1;
                int m = INSIDE4_BITS & (n >= 4 ? 15 : (1 << n) - 1);
                if (!m)
                    continue;
                /* z = b0·za + b1·zb + b2·zc, left to right, rounded to float */
                __m128 z = _mm256_cvtpd_ps(_mm256_add_pd(
                    _mm256_add_pd(_mm256_mul_pd(b0, ZA), _mm256_mul_pd(b1, ZB)), _mm256_mul_pd(b2, ZC)));
                if (n >= 4) {
                    __m128 d = _mm_loadu_ps(depth + sx);
                    int win = _mm_movemask_ps(_mm_cmplt_ps(z, d)) & m;
                    if (!win)
                        continue;
                    __m128 sel = _mm_castsi128_ps(lane_mask(win));
                    _mm_storeu_ps(depth + sx, _mm_blendv_ps(d, z, sel));
                    __m128i o = _mm_loadu_si128((const __m128i *)(owner + sx));
                    _mm_storeu_si128((__m128i *)(owner + sx),
                                     _mm_castps_si128(_mm_blendv_ps(_mm_castsi128_ps(o),
                                                                    _mm_castsi128_ps(ID), sel)));
                } else {
                    float zs[4];
                    _mm_storeu_ps(zs, z);
                    for (int k = 0; k < n; ++k)
                        if ((m >> k & 1) && zs[k] < depth[sx + k])
                            depth[sx + k] = zs[k], owner[sx + k] = id;
                }
            }
        }
    }
}

/* The first column >= x of a sample row whose depth is below +inf, or w. */
static inline int next_winner8(const float *depth, int x, int w)
{
    const __m256 inf = _mm256_set1_ps(INFINITY);
    for (; x + 8 <= w; x += 8) {
        int m = _mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(depth + x), inf, _CMP_LT_OQ));
        if (m)
            return x + __builtin_ctz((unsigned)m);
    }
    while (x < w && !(depth[x] < INFINITY))
        ++x;
    return x;
}

/* The end of the run of winners of triangle t that starts at x. */
static inline int run_end8(const float *depth, const uint32_t *owner, uint32_t t, int x, int w)
{
    const __m256 inf = _mm256_set1_ps(INFINITY);
    const __m256i T = _mm256_set1_epi32((int)t);
    for (++x; x + 8 <= w; x += 8) {
        __m256 same = _mm256_and_ps(
            _mm256_cmp_ps(_mm256_loadu_ps(depth + x), inf, _CMP_LT_OQ),
            _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_loadu_si256((const __m256i *)(owner + x)), T)));
        unsigned m = (unsigned)_mm256_movemask_ps(same);
        if (m != 0xFF)
            return x + __builtin_ctz(~m);
    }
    while (x < w && depth[x] < INFINITY && owner[x] == t)
        ++x;
    return x;
}

/* Four doubles in [0, 256) truncated to bytes, in the low 32 bits. */
static inline uint32_t bytes4(__m256d v)
{
    __m128i i = _mm256_cvttpd_epi32(v);
    return (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(_mm_packs_epi32(i, i), i));
}

static inline void put_bytes(uint8_t *dst, uint32_t bytes, int n)
{
    if (n >= 4)
        memcpy(dst, &bytes, 4);
    else
        for (int k = 0; k < n; ++k)
            dst[k] = (uint8_t)(bytes >> (8 * k));
}

void skfi_compose_row_avx2(const skfi_raster *r, const skfi_raster *sil, const skfi_tri_shade *shade,
                           const skfi_palette *pal, int y, uint8_t *R, uint8_t *G, uint8_t *B)
{
    COMPOSE_ROW_BEGIN;
    const __m256d ONE = _mm256_set1_pd(1.0), ZERO = _mm256_setzero_pd(), STEP = _mm256_set1_pd(4.0),
                  HALF = _mm256_set1_pd(0.5), BYTE_MAX = _mm256_set1_pd(255.0),
                  BIN_PCT = _mm256_set1_pd(SKF_COLORMAP_BIN_PCT),
                  LAST = _mm256_set1_pd(SKF_COLORMAP_BINS - 1);
    const __m128i LAST_BIN = _mm_set1_epi32(SKF_COLORMAP_BINS - 1);
    int x = next_winner8(depth, 0, w);
    while (x < w) {
        const uint32_t t = owner[x];
        const int x1 = run_end8(depth, owner, t, x, w);
        const skfi_tri_shade *T = &shade[t];
        const double ax = T->ax, ay = T->ay, bx = T->bx, by = T->by, cx = T->cx, cy = T->cy;
        const double d0 = cy - by, d1 = ay - cy, inv = T->inv;
        TRI_CONSTANTS;
        const __m256d R0 = _mm256_set1_pd((cx - bx) * (py - by)), R1 = _mm256_set1_pd((ax - cx) * (py - cy));
        const __m256d SA = _mm256_set1_pd(T->sa), SB = _mm256_set1_pd(T->sb), SC = _mm256_set1_pd(T->sc);
        const __m256d EA = _mm256_set1_pd(T->ea), EB = _mm256_set1_pd(T->eb), EC = _mm256_set1_pd(T->ec);
        const double *base = T->bin == -2 ? pal->neutral : T->bin >= 0 ? pal->bins[T->bin] : NULL;
        __m256d cR = ZERO, cG = ZERO, cB = ZERO;
        if (base)
            cR = _mm256_set1_pd(base[0]), cG = _mm256_set1_pd(base[1]), cB = _mm256_set1_pd(base[2]);
        const bool unit = T->unit_shade;
        __m256d px = _mm256_add_pd(_mm256_set1_pd((double)x), LANE_OFFSETS);
        for (; x < x1; x += 4, px = _mm256_add_pd(px, STEP)) {
            INSIDE4(px);
            __m256d s = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(b0, SA), _mm256_mul_pd(b1, SB)),
                                      _mm256_mul_pd(b2, SC));
            if (!base) {
                /* skfi_colormap_bin per lane: NaN → last bin; e <= 0 → 0;
                 * k = e / 0.25 >= last → last; else (int)k */
                __m256d e = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(b0, EA), _mm256_mul_pd(b1, EB)),
                                          _mm256_mul_pd(b2, EC));
                __m256d k = _mm256_div_pd(e, BIN_PCT);
                __m256d top = _mm256_or_pd(_mm256_cmp_pd(e, e, _CMP_UNORD_Q), _mm256_cmp_pd(k, LAST, _CMP_GE_OQ));
                __m256d low = _mm256_cmp_pd(e, ZERO, _CMP_LE_OQ);
                /* the 64-bit lane masks as 32-bit ones */
                __m128i top4 = _mm_castps_si128(_mm_shuffle_ps(_mm256_castps256_ps128(_mm256_castpd_ps(top)),
                                                               _mm256_extractf128_ps(_mm256_castpd_ps(top), 1), 0x88));
                __m128i low4 = _mm_castps_si128(_mm_shuffle_ps(_mm256_castps256_ps128(_mm256_castpd_ps(low)),
                                                               _mm256_extractf128_ps(_mm256_castpd_ps(low), 1), 0x88));
                /* (int)k where neither mask holds (k in (0, last) there) */
                __m128i bin = _mm256_cvttpd_epi32(_mm256_blendv_pd(k, ZERO, _mm256_or_pd(top, low)));
                bin = _mm_blendv_epi8(bin, LAST_BIN, top4);
                bin = _mm_andnot_si128(low4, bin);
                cR = _mm256_i32gather_pd(pal->plane[0], bin, 8);
                cG = _mm256_i32gather_pd(pal->plane[1], bin, 8);
                cB = _mm256_i32gather_pd(pal->plane[2], bin, 8);
            }
            __m256d vR = _mm256_add_pd(_mm256_mul_pd(cR, s), HALF);
            __m256d vG = _mm256_add_pd(_mm256_mul_pd(cG, s), HALF);
            __m256d vB = _mm256_add_pd(_mm256_mul_pd(cB, s), HALF);
            if (!unit) { /* skfi_shade8's clamp to [0, 255] */
                vR = _mm256_max_pd(_mm256_min_pd(vR, BYTE_MAX), ZERO);
                vG = _mm256_max_pd(_mm256_min_pd(vG, BYTE_MAX), ZERO);
                vB = _mm256_max_pd(_mm256_min_pd(vB, BYTE_MAX), ZERO);
            }
            int n = x1 - x;
            put_bytes(R + x, bytes4(vR), n);
            put_bytes(G + x, bytes4(vG), n);
            put_bytes(B + x, bytes4(vB), n);
        }
        x = x1;
        if (x < w && !(depth[x] < INFINITY))
            x = next_winner8(depth, x, w);
    }
}

void skfi_raster_clear_depth_avx2(skfi_raster *r, int row0, int row1)
{
    size_t first = skfi_raster_row(r, row0), n = (size_t)(row1 - row0) * (size_t)r->w;
    float *depth = r->depth + first;
#pragma omp simd
    for (size_t i = 0; i < n; ++i)
        depth[i] = INFINITY;
}

void skfi_accumulate_avx2(uint16_t *colsum, const uint8_t *row, size_t n, bool first)
{
    if (first) {
#pragma omp simd
        for (size_t i = 0; i < n; ++i)
            colsum[i] = row[i];
    } else {
#pragma omp simd
        for (size_t i = 0; i < n; ++i)
            colsum[i] = (uint16_t)(colsum[i] + row[i]);
    }
}

int skfi_box4_row_avx2(const uint16_t *colsum, size_t plane, int pw, uint8_t *out)
{
    const __m256i ONES = _mm256_set1_epi16(1), ROUND = _mm256_set1_epi32(8),
                  OPAQUE = _mm256_set1_epi32(255);
    /* per 128-bit lane: R0..3 G0..3 B0..3 A0..3 → R0 G0 B0 A0 R1 … */
    const __m256i RGBA = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15,
                                          0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    int px = 0;
    for (; px + 8 <= pw; px += 8) {
        __m256i sum[3];
        for (int k = 0; k < 3; ++k) {
            const uint16_t *c = colsum + (size_t)k * plane + 4 * (size_t)px;
            /* pairs of columns, then pairs of pairs: pixels 0 1 4 5 | 2 3 6 7 */
            __m256i lo = _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)c), ONES);
            __m256i hi = _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(c + 16)), ONES);
            __m256i p = _mm256_permute4x64_epi64(_mm256_hadd_epi32(lo, hi), 0xD8);
            /* (sum + n/2) >> 4, n = 16 */
            sum[k] = _mm256_srli_epi32(_mm256_add_epi32(p, ROUND), 4);
        }
        __m256i rg = _mm256_packus_epi32(sum[0], sum[1]), ba = _mm256_packus_epi32(sum[2], OPAQUE);
        __m256i bytes = _mm256_shuffle_epi8(_mm256_packus_epi16(rg, ba), RGBA);
        _mm256_storeu_si256((__m256i *)(out + 4 * (size_t)px), bytes);
    }
    return px;
}
#else
/* not built for AVX2: raster.c's portable kernels are the only ones */
typedef int skfi_raster_avx2_absent;
#endif
