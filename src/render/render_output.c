/* Writing rendered frames: PNG (one frame, or frames stacked top to bottom)
 * or animated GIF (one GIF frame per rendered frame, palette keeping the
 * colormap: see skf_render_reserved_colors). */
#include "render/render_internal.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool has_ext(const char *path, const char *ext)
{
    size_t n = strlen(path), e = strlen(ext);
    return n > e && !strcasecmp(path + n - e, ext);
}

skf_status skf_render_write(const skf_render_scene *scene, const skf_render_options *opt,
                            const size_t *frames, size_t frame_count, double fps,
                            const char *path, const skf_progress *progress, skf_error *err)
{
    bool gif = has_ext(path, ".gif"), png = has_ext(path, ".png");
    if (!gif && !png)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: output must end in .png or .gif", path);
    if (frame_count == 0)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: no frames to render", path);
    for (size_t i = 0; i < frame_count; ++i)
        if (frames[i] >= scene->frame_count)
            return skf_fail(err, SKF_ERR_ARGUMENT, "%s: frame %zu: only %zu frames", path,
                            frames[i], scene->frame_count);
    skf_renderer *r;
    skf_status st = skf_renderer_new(scene, opt, &r, err);
    if (st)
        return st;
    int W = skf_renderer_width(r), H = skf_renderer_height(r);
    skf_image *images = NULL, sheet = {0};
    if (gif) {
        images = skf_calloc(frame_count, sizeof *images);
        if (!images) {
            st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
            goto done;
        }
        for (size_t i = 0; i < frame_count; ++i) {
            if ((st = skf_image_init(&images[i], W, H, SKF_RENDER_BACKGROUND, err)))
                goto done;
            if ((st = skf_render_frame(r, frames[i], &images[i], NULL, err)))
                goto done;
            if (skf_progress_report(progress, (i + 1.0) / (frame_count + 1.0), "rendering")) {
                st = skf_fail(err, SKF_ERR_CANCELLED, "%s: cancelled", path);
                goto done;
            }
        }
        uint32_t reserved[SKF_GIF_MAX_RESERVED];
        skf_gif_options go = {reserved, skf_render_reserved_colors(reserved, SKF_GIF_MAX_RESERVED)};
        int *delays = skf_malloc_array(frame_count, sizeof *delays);
        if (!delays) {
            st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
            goto done;
        }
        double f = fps > 0 ? fps : 24.0;
        /* Accumulate so that the average delay matches fps despite the
         * 1/100 s resolution (24 fps → 4, 4, 4, 5, ...). */
        for (size_t i = 0; i < frame_count; ++i) {
            long a = lround(100.0 * (double)i / f), b = lround(100.0 * (double)(i + 1) / f);
            long d = b - a;
            delays[i] = d < 1 ? 1 : d > 65535 ? 65535 : (int)d;
        }
        st = skf_gif_write(path, images, frame_count, delays, &go, err);
        skf_free(delays);
    } else {
        if ((size_t)H * frame_count > SKF_IMAGE_MAX_SIDE) {
            st = skf_fail(err, SKF_ERR_LIMIT, "%s: %zu frames of height %d exceed %d pixels", path,
                          frame_count, H, SKF_IMAGE_MAX_SIDE);
            goto done;
        }
        if ((st = skf_image_init(&sheet, W, H * (int)frame_count, SKF_RENDER_BACKGROUND, err)))
            goto done;
        for (size_t i = 0; i < frame_count; ++i) {
            skf_image view;
            skf_image_wrap(&view, W, H, sheet.stride, sheet.pixels + (size_t)H * i * sheet.stride);
            if ((st = skf_render_frame(r, frames[i], &view, NULL, err)))
                goto done;
            if (skf_progress_report(progress, (i + 1.0) / (frame_count + 1.0), "rendering")) {
                st = skf_fail(err, SKF_ERR_CANCELLED, "%s: cancelled", path);
                goto done;
            }
        }
        st = skf_png_write(path, &sheet, err);
    }
done:
    if (images)
        for (size_t i = 0; i < frame_count; ++i)
            skf_image_release(&images[i]);
    skf_free(images);
    skf_image_release(&sheet);
    skf_renderer_free(r);
    return st;
}
