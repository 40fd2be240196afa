/* skinfit/image.h — RGBA8 images: PNG write/read (libpng), animated GIF
 * write (giflib).
 *
 * Pixel layout: 8 bits per channel, R G B A in that byte order, rows top to
 * bottom, straight (not premultiplied) alpha. Row y starts at
 * pixels + y * stride; stride >= 4 * width bytes.
 *
 * Ownership: skf_image_init allocates the pixels (owned = true) and
 * skf_image_release frees them. skf_image_wrap describes caller-owned memory
 * (owned = false): skf_image_release then only clears the struct. Every
 * function that reads an image only reads it.
 *
 * Sizes: width and height are in [1, SKF_IMAGE_MAX_SIDE] and
 * width * height <= SKF_IMAGE_MAX_PIXELS; larger requests fail with
 * SKF_ERR_LIMIT (also when decoding an untrusted PNG).
 */
#ifndef SKINFIT_IMAGE_H
#define SKINFIT_IMAGE_H

#include "skinfit/base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SKF_IMAGE_MAX_SIDE 32768
#define SKF_IMAGE_MAX_PIXELS ((size_t)1 << 28) /* 256 Mpixel = 1 GiB of RGBA */

typedef struct skf_image {
    int width, height;   /* pixels */
    size_t stride;       /* bytes from one row to the next, >= 4 * width */
    uint8_t *pixels;     /* RGBA8, see above */
    bool owned;          /* true: skf_image_release frees pixels */
} skf_image;

/* Allocate a width x height image, tightly packed (stride = 4 * width),
 * every pixel set to rgba (0xRRGGBBAA; e.g. 0xFFFFFFFF opaque white). */
skf_status skf_image_init(skf_image *img, int width, int height, uint32_t rgba, skf_error *err);

/* Describe caller-owned pixels (not copied; must outlive the image). */
void skf_image_wrap(skf_image *img, int width, int height, size_t stride, uint8_t *pixels);

/* Free owned pixels (no-op for wrapped ones) and zero the struct. NULL-safe. */
void skf_image_release(skf_image *img);

/* Pointer to pixel (x, y); x in [0, width), y in [0, height) (asserted). */
uint8_t *skf_image_at(const skf_image *img, int x, int y);

/* Set every pixel to rgba (0xRRGGBBAA). */
void skf_image_fill(skf_image *img, uint32_t rgba);

/* Copy src into dst with src's top-left corner at (x, y), clipped to dst;
 * plain copy (no blending). */
void skf_image_blit(skf_image *dst, const skf_image *src, int x, int y);

/* ---- PNG (libpng) -------------------------------------------------------- */

/* Write img as an 8-bit RGBA PNG (or RGB when every alpha is 255), atomically
 * (skf_atomic_open/commit: a failure leaves no file at path). */
skf_status skf_png_write(const char *path, const skf_image *img, skf_error *err);

/* Encode img as PNG into memory: *data (caller frees with skf_free), *size bytes.
 * Used for data: URIs in the HTML report. */
skf_status skf_png_encode(const skf_image *img, uint8_t **data, size_t *size, skf_error *err);

/* Decode a PNG of any colour type / bit depth to RGBA8 into a new owned image.
 * name is used in error messages only (may be NULL). */
skf_status skf_png_decode(const uint8_t *data, size_t size, const char *name, skf_image *out,
                          skf_error *err);

/* Read a PNG file (skf_read_file + skf_png_decode). */
skf_status skf_png_read(const char *path, skf_image *out, skf_error *err);

/* ---- animated GIF (giflib) ---------------------------------------------- *
 * One global palette of 256 entries shared by all frames, chosen as:
 *   1. the caller's reserved colours, verbatim and first (e.g. the colormap's
 *      bin colours, the background, label text) — up to 128 of them;
 *   2. all but one of the remaining entries by median cut (Heckbert 1982) over the pixels of
 *      all frames that are not exactly a reserved colour, on a 5-bit-per-channel
 *      histogram; the representative of each box is its count-weighted mean.
 * Each pixel maps to its nearest palette entry (squared RGB distance); a pixel
 * equal to a reserved colour therefore keeps that colour exactly. No dithering
 * (it would scatter colours across colormap bins). Alpha is ignored (GIF
 * frames are opaque). Frames after the first are stored as the rectangle of
 * changed pixels, unchanged ones transparent (the last free palette entry),
 * drawn over the previous frame. The animation loops forever (NETSCAPE2.0
 * extension, loop count 0). */
typedef struct skf_gif_options {
    const uint32_t *reserved;   /* 0xRRGGBBAA colours kept exactly (alpha ignored); may be NULL */
    size_t reserved_count;      /* <= SKF_GIF_MAX_RESERVED */
} skf_gif_options;

#define SKF_GIF_MAX_RESERVED 128

/* Write frame_count >= 1 frames (all of the same size) atomically to path.
 * delay_cs[i] is frame i's display time in hundredths of a second
 * (0..65535); delay_cs may be NULL (then 4 cs = 25 fps for every frame).
 * opts may be NULL (no reserved colours). */
skf_status skf_gif_write(const char *path, const skf_image *frames, size_t frame_count,
                         const int *delay_cs, const skf_gif_options *opts, skf_error *err);

/* Decoded GIF for tests: frames as RGBA images (owned), delays in cs. */
typedef struct skf_gif_info {
    skf_image *frames;
    int *delay_cs;
    size_t frame_count;
    int loop_count;     /* NETSCAPE2.0 loop count (0 = forever), -1 if absent */
    int palette_size;   /* global colour table entries, 0 if none */
    uint32_t palette[256]; /* 0xRRGGBBFF */
} skf_gif_info;

/* Read an animated GIF written by skf_gif_write (or any GIF whose frames
 * replace the whole canvas or draw over the previous one). */
skf_status skf_gif_read(const char *path, skf_gif_info *out, skf_error *err);
void skf_gif_info_release(skf_gif_info *info);

#ifdef __cplusplus
}
#endif
#endif
