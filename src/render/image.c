/* RGBA8 image container: allocation, fill, blit (see skinfit/image.h). */
#include "skinfit/image.h"

#include <assert.h>
#include <string.h>

skf_status skf_image_init(skf_image *img, int width, int height, uint32_t rgba, skf_error *err)
{
    memset(img, 0, sizeof *img);
    if (width < 1 || height < 1 || width > SKF_IMAGE_MAX_SIDE || height > SKF_IMAGE_MAX_SIDE ||
        (size_t)width * (size_t)height > SKF_IMAGE_MAX_PIXELS)
        return skf_fail(err, SKF_ERR_LIMIT,
                        "image: size %dx%d: outside 1..%d per side or above %zu pixels", width,
                        height, SKF_IMAGE_MAX_SIDE, SKF_IMAGE_MAX_PIXELS);
    size_t stride = 4 * (size_t)width;
    uint8_t *p = skf_malloc_array((size_t)height, stride);
    if (!p)
        return skf_fail(err, SKF_ERR_NOMEM, "image: size %dx%d: out of memory", width, height);
    img->width = width;
    img->height = height;
    img->stride = stride;
    img->pixels = p;
    img->owned = true;
    skf_image_fill(img, rgba);
    return SKF_OK;
}

void skf_image_wrap(skf_image *img, int width, int height, size_t stride, uint8_t *pixels)
{
    assert(width >= 1 && height >= 1 && stride >= 4 * (size_t)width && pixels);
    img->width = width;
    img->height = height;
    img->stride = stride;
    img->pixels = pixels;
    img->owned = false;
}

void skf_image_release(skf_image *img)
{
    if (!img)
        return;
    if (img->owned)
        skf_free(img->pixels);
    memset(img, 0, sizeof *img);
}

uint8_t *skf_image_at(const skf_image *img, int x, int y)
{
    assert(x >= 0 && x < img->width && y >= 0 && y < img->height);
    return img->pixels + (size_t)y * img->stride + 4 * (size_t)x;
}

void skf_image_fill(skf_image *img, uint32_t rgba)
{
    uint8_t c[4] = {(uint8_t)(rgba >> 24), (uint8_t)(rgba >> 16), (uint8_t)(rgba >> 8),
                    (uint8_t)rgba};
    uint32_t v;
    memcpy(&v, c, 4); /* the four bytes in memory order */
    for (int y = 0; y < img->height; ++y) {
        uint8_t *row = img->pixels + (size_t)y * img->stride;
#pragma omp simd
        for (int x = 0; x < img->width; ++x)
            memcpy(row + 4 * (size_t)x, &v, 4);
    }
}

void skf_image_blit(skf_image *dst, const skf_image *src, int x, int y)
{
    int x0 = x < 0 ? 0 : x, y0 = y < 0 ? 0 : y;
    int x1 = x + src->width < dst->width ? x + src->width : dst->width;
    int y1 = y + src->height < dst->height ? y + src->height : dst->height;
    if (x0 >= x1 || y0 >= y1)
        return;
    for (int yy = y0; yy < y1; ++yy)
        memcpy(dst->pixels + (size_t)yy * dst->stride + 4 * (size_t)x0,
               src->pixels + (size_t)(yy - y) * src->stride + 4 * (size_t)(x0 - x),
               4 * (size_t)(x1 - x0));
}
