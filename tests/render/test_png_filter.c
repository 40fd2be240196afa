/* skf_png_encode chooses each row's filter itself (image_png.c choose_filter,
 * the PNG specification's minimum-sum-of-absolute-differences heuristic) and
 * hands libpng the winner. The bytes must be those libpng writes when it
 * chooses among all filters itself: this test encodes images of every kind
 * of content (flat, gradients, noise, sharp edges, rendered-like bands, RGB
 * and RGBA, one pixel wide or tall) both ways and compares the bytes, with
 * the AVX2 filter sums (where the CPU has AVX2) and with the portable ones.
 * Images whose filtered data exceeds 16384 bytes (96x64 and larger here) are
 * written by image_png.c itself (encode_direct: the zlib stream and IDAT
 * chunks libpng would write), the smaller ones by libpng. */
#include "check.h"
#include "render/render_internal.h"
#include "skinfit/image.h"

#include <png.h>
#include <stdint.h>

typedef struct sink {
    uint8_t *data;
    size_t size, cap;
} sink;

static void sink_write(png_structp png, png_bytep d, png_size_t n)
{
    sink *s = png_get_io_ptr(png);
    if (s->size + n > s->cap) {
        s->cap = 2 * (s->size + n);
        s->data = realloc(s->data, s->cap);
    }
    memcpy(s->data + s->size, d, n);
    s->size += n;
}

static void sink_flush(png_structp png)
{
    (void)png;
}

/* libpng left to its own filter choice, the settings of image_png.c */
static sink reference_encode(const skf_image *img, bool opaque)
{
    sink s = {0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(s.data);
        return (sink){0};
    }
    png_set_write_fn(png, &s, sink_write, sink_flush);
    png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height, 8,
                 opaque ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, 6);
    png_write_info(png, info);
    uint8_t *row = malloc(4 * (size_t)img->width);
    for (int y = 0; y < img->height; ++y) {
        const uint8_t *src = img->pixels + (size_t)y * img->stride;
        if (opaque) {
            for (int x = 0; x < img->width; ++x)
                memcpy(row + 3 * (size_t)x, src + 4 * (size_t)x, 3);
            png_write_row(png, row);
        } else {
            png_write_row(png, src);
        }
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    free(row);
    return s;
}

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static void fill(skf_image *img, int kind, bool opaque, uint32_t seed)
{
    for (int y = 0; y < img->height; ++y)
        for (int x = 0; x < img->width; ++x) {
            uint8_t *p = skf_image_at(img, x, y);
            uint32_t r = lcg(&seed);
            switch (kind) {
            case 0: /* flat */
                p[0] = 200, p[1] = 30, p[2] = 90;
                break;
            case 1: /* gradients */
                p[0] = (uint8_t)(x * 3), p[1] = (uint8_t)(y * 5), p[2] = (uint8_t)(x + y);
                break;
            case 2: /* noise */
                p[0] = (uint8_t)r, p[1] = (uint8_t)(r >> 8), p[2] = (uint8_t)(r >> 16);
                break;
            case 3: /* sharp edges: blocks and diagonal bands */
                p[0] = ((x / 7 + y / 5) & 1) ? 255 : 0;
                p[1] = (uint8_t)(((x + 2 * y) / 9 % 13) * 19);
                p[2] = (x > y) ? 240 : 12;
                break;
            default: /* rendered-like: white background, shaded bands, sparse noise */
            {
                int band = (x * x + 3 * y * y) / 400 % 13;
                bool in = (x - 40) * (x - 40) + 4 * (y - 20) * (y - 20) < 1500;
                double s = 0.4 + 0.6 * (y % 17) / 16.0;
                p[0] = in ? (uint8_t)(20 * band * s) : 255;
                p[1] = in ? (uint8_t)((255 - 19 * band) * s) : 255;
                p[2] = in ? (uint8_t)((r & 3) + 100 * s) : 255;
            }
            }
            p[3] = opaque ? 255 : (uint8_t)(kind == 2 ? r >> 24 : (x * 7 + y) & 255);
        }
}

int main(void)
{
    static const int sizes[][2] = {{1, 1}, {1, 9}, {9, 1}, {2, 2}, {37, 23}, {96, 64}, {301, 77}, {640, 200},
                                   /* widths 8k + 1: the RGB copy's last step ends at the row's end */
                                   {9, 3}, {233, 80}};
    int compared = 0, identical = 0;
    for (int portable = 0; portable < 2; ++portable)
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si)
        for (int kind = 0; kind < 5; ++kind)
            for (int opaque = 0; opaque < 2; ++opaque) {
                skf_image img;
                skf_error err = {0};
                CHECK(skf_image_init(&img, sizes[si][0], sizes[si][1], 0xFFFFFFFFu, &err) == SKF_OK);
                fill(&img, kind, opaque, (uint32_t)(si * 10 + (size_t)kind));
                uint8_t *data = NULL;
                size_t size = 0;
                skfi_render_portable = portable;
                CHECK(skf_png_encode(&img, &data, &size, &err) == SKF_OK);
                skfi_render_portable = 0;
                sink ref = reference_encode(&img, opaque);
                CHECK(ref.data != NULL);
                ++compared;
                if (ref.data && size == ref.size && !memcmp(data, ref.data, size))
                    ++identical;
                else
                    fprintf(stderr, "differ: %dx%d kind %d %s%s (%zu vs %zu bytes)\n", sizes[si][0],
                            sizes[si][1], kind, opaque ? "RGB" : "RGBA",
                            portable ? ", portable" : "", size, ref.size);
                free(ref.data);
                skf_free(data);
                skf_image_release(&img);
            }
    printf("%d/%d encodings byte-identical to libpng's own filter choice\n", identical, compared);
    CHECK(compared == 200);
    CHECK(identical == compared);
    return skf_test_done();
}
