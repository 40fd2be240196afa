/* Image container, PNG round trips (RGB and RGBA, truncated input, fault
 * injection) and animated GIF writing (frame count, delays, loop, reserved
 * colours kept exactly, median-cut quality). */
#include "check.h"
#include "skinfit/image.h"

#include <dirent.h>
#include <stdint.h>
#include <unistd.h>

static char dir[256];

static void path_in(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", dir, name);
}

static size_t count_temporaries(void)
{
    size_t n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strstr(e->d_name, ".tmp-"))
            ++n;
    if (d)
        closedir(d);
    return n;
}

static void gradient(skf_image *img, int seed, bool alpha)
{
    for (int y = 0; y < img->height; ++y)
        for (int x = 0; x < img->width; ++x) {
            uint8_t *p = skf_image_at(img, x, y);
            p[0] = (uint8_t)(x * 7 + seed);
            p[1] = (uint8_t)(y * 11 + 3 * seed);
            p[2] = (uint8_t)((x ^ y) + seed);
            p[3] = alpha ? (uint8_t)(x * y + seed) : 255;
        }
}

static bool same_pixels(const skf_image *a, const skf_image *b)
{
    if (a->width != b->width || a->height != b->height)
        return false;
    for (int y = 0; y < a->height; ++y)
        if (memcmp(skf_image_at(a, 0, y), skf_image_at(b, 0, y), 4 * (size_t)a->width))
            return false;
    return true;
}

static void test_png(bool alpha)
{
    skf_error err;
    skf_image img, back;
    CHECK(skf_image_init(&img, 37, 23, 0x00000000, &err) == SKF_OK);
    gradient(&img, 5, alpha);
    char path[300];
    path_in(path, sizeof path, alpha ? "rgba.png" : "rgb.png");
    CHECK(skf_png_write(path, &img, &err) == SKF_OK);
    CHECK(skf_png_read(path, &back, &err) == SKF_OK);
    CHECK(same_pixels(&img, &back));
    skf_image_release(&back);

    /* in-memory encode; every truncation is rejected with a message */
    uint8_t *data;
    size_t size;
    CHECK(skf_png_encode(&img, &data, &size, &err) == SKF_OK);
    size_t rejected = 0, tried = 0;
    for (size_t cut = 0; cut < size; cut += (cut < 64 ? 1 : 7)) {
        ++tried;
        skf_status st = skf_png_decode(data, cut, "cut.png", &back, &err);
        if (st != SKF_OK && strstr(err.message, "cut.png"))
            ++rejected;
        skf_image_release(&back);
    }
    printf("png %s: %zu bytes, %zu/%zu truncations rejected\n", alpha ? "rgba" : "rgb", size,
           rejected, tried);
    CHECK(rejected == tried);

    /* fault injection: every allocation failing in turn gives NOMEM, never a crash */
    size_t failures = 0;
    for (size_t n = 1; n < 200; ++n) {
        uint8_t *d2 = NULL;
        size_t s2;
        skf_alloc_fail_from(n);
        skf_status st = skf_png_encode(&img, &d2, &s2, &err);
        skf_alloc_fail_from(0);
        if (st == SKF_OK) {
            skf_free(d2);
            break;
        }
        CHECK(st == SKF_ERR_NOMEM || st == SKF_ERR_IO);
        ++failures;
    }
    for (size_t n = 1; n < 200; ++n) {
        skf_alloc_fail_from(n);
        skf_status st = skf_png_decode(data, size, "x.png", &back, &err);
        skf_alloc_fail_from(0);
        if (st == SKF_OK) {
            CHECK(same_pixels(&img, &back));
            skf_image_release(&back);
            break;
        }
        ++failures;
    }
    printf("png %s: %zu injected allocation failures handled\n", alpha ? "rgba" : "rgb", failures);
    CHECK(failures > 0);
    skf_free(data);
    skf_image_release(&img);
}

static void test_png_errors(void)
{
    skf_error err;
    skf_image img;
    const uint8_t junk[16] = "not a png file!";
    CHECK(skf_png_decode(junk, sizeof junk, "junk.png", &img, &err) == SKF_ERR_FORMAT);
    CHECK(strstr(err.message, "junk.png: byte 0") != NULL);
    char path[300];
    path_in(path, sizeof path, "missing.png");
    CHECK(skf_png_read(path, &img, &err) == SKF_ERR_IO);
    CHECK(skf_image_init(&img, 0, 5, 0, &err) == SKF_ERR_LIMIT);
    CHECK(skf_image_init(&img, 40000, 5, 0, &err) == SKF_ERR_LIMIT);
    /* writing into a missing directory fails and leaves nothing */
    path_in(path, sizeof path, "no/such/dir.png");
    CHECK(skf_image_init(&img, 4, 4, 0xFF0000FF, &err) == SKF_OK);
    CHECK(skf_png_write(path, &img, &err) == SKF_ERR_IO);
    skf_image_release(&img);
}

static void test_gif(void)
{
    skf_error err;
    enum { W = 64, H = 48, FRAMES = 5 };
    const uint32_t reserved[4] = {0x2040C0FF, 0x30A0A0FF, 0xE03020FF, 0xFFFFFFFF};
    skf_image frames[FRAMES];
    int delays[FRAMES];
    for (int f = 0; f < FRAMES; ++f) {
        CHECK(skf_image_init(&frames[f], W, H, 0xFFFFFFFF, &err) == SKF_OK);
        gradient(&frames[f], 17 * f, false);
        /* a stripe of each reserved colour, and shaded variants of it */
        for (int y = 0; y < H; ++y)
            for (int k = 0; k < 4; ++k) {
                uint32_t c = reserved[k];
                uint8_t *p = skf_image_at(&frames[f], 4 * k + (f % 3), y);
                p[0] = (uint8_t)(c >> 24), p[1] = (uint8_t)(c >> 16), p[2] = (uint8_t)(c >> 8);
                uint8_t *q = skf_image_at(&frames[f], 20 + 4 * k, y);
                double s = 0.4 + 0.6 * y / (H - 1.0);
                q[0] = (uint8_t)(s * (c >> 24)), q[1] = (uint8_t)(s * (uint8_t)(c >> 16)),
                q[2] = (uint8_t)(s * (uint8_t)(c >> 8));
            }
        delays[f] = 3 + f;
    }
    char path[300];
    path_in(path, sizeof path, "anim.gif");
    skf_gif_options opts = {reserved, 4};
    CHECK(skf_gif_write(path, frames, FRAMES, delays, &opts, &err) == SKF_OK);
    skf_gif_info info;
    CHECK(skf_gif_read(path, &info, &err) == SKF_OK);
    CHECK(info.frame_count == FRAMES);
    CHECK(info.loop_count == 0);
    CHECK(info.palette_size == 256);
    for (int k = 0; k < 4; ++k)
        CHECK((info.palette[k] | 0xFF) == (reserved[k] | 0xFF));
    size_t reserved_exact = 0, reserved_total = 0;
    double sum_err = 0, max_err = 0;
    for (size_t f = 0; f < info.frame_count && f < FRAMES; ++f) {
        CHECK(info.delay_cs[f] == delays[f]);
        CHECK(info.frames[f].width == W && info.frames[f].height == H);
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                const uint8_t *a = skf_image_at(&frames[f], x, y);
                const uint8_t *b = skf_image_at(&info.frames[f], x, y);
                for (int k = 0; k < 4; ++k)
                    if (a[0] == (uint8_t)(reserved[k] >> 24) &&
                        a[1] == (uint8_t)(reserved[k] >> 16) && a[2] == (uint8_t)(reserved[k] >> 8)) {
                        ++reserved_total;
                        reserved_exact += !memcmp(a, b, 3);
                    }
                double d = 0;
                for (int c = 0; c < 3; ++c)
                    d += (double)(a[c] - b[c]) * (a[c] - b[c]);
                d = sqrt(d);
                sum_err += d;
                if (d > max_err)
                    max_err = d;
            }
    }
    double mean_err = sum_err / (FRAMES * W * H);
    /* baseline: a uniform 6x7x6 = 252-colour cube on the same pixels */
    double sum_uniform = 0;
    for (int f = 0; f < FRAMES; ++f)
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                const uint8_t *a = skf_image_at(&frames[f], x, y);
                const int levels[3] = {6, 7, 6};
                double d = 0;
                for (int c = 0; c < 3; ++c) {
                    double step = 255.0 / (levels[c] - 1);
                    double q = floor(a[c] / step + 0.5) * step;
                    d += (a[c] - q) * (a[c] - q);
                }
                sum_uniform += sqrt(d);
            }
    double mean_uniform = sum_uniform / (FRAMES * W * H);
    printf("gif: %zu/%zu reserved pixels exact; RGB distance mean %.2f max %.1f (of 441); "
           "uniform 252-colour cube mean %.2f\n",
           reserved_exact, reserved_total, mean_err, max_err, mean_uniform);
    CHECK(reserved_total > 0 && reserved_exact == reserved_total);
    CHECK(mean_err < mean_uniform);
    skf_gif_info_release(&info);

    /* bad arguments */
    int bad_delay[FRAMES] = {1, 2, -1, 4, 5};
    CHECK(skf_gif_write(path, frames, FRAMES, bad_delay, NULL, &err) == SKF_ERR_ARGUMENT);
    CHECK(strstr(err.message, "frame 2") != NULL);
    CHECK(skf_gif_write(path, frames, 0, NULL, NULL, &err) == SKF_ERR_ARGUMENT);
    skf_image small;
    CHECK(skf_image_init(&small, 8, 8, 0, &err) == SKF_OK);
    skf_image mixed[2] = {frames[0], small};
    CHECK(skf_gif_write(path, mixed, 2, NULL, NULL, &err) == SKF_ERR_ARGUMENT);
    skf_image_release(&small);
    for (int f = 0; f < FRAMES; ++f)
        skf_image_release(&frames[f]);
}

static void test_blit(void)
{
    skf_error err;
    skf_image a, b;
    CHECK(skf_image_init(&a, 10, 10, 0x000000FF, &err) == SKF_OK);
    CHECK(skf_image_init(&b, 4, 4, 0xFF0000FF, &err) == SKF_OK);
    skf_image_blit(&a, &b, 8, -2);
    CHECK(skf_image_at(&a, 9, 1)[0] == 0xFF);
    CHECK(skf_image_at(&a, 9, 2)[0] == 0x00);
    CHECK(skf_image_at(&a, 7, 0)[0] == 0x00);
    uint8_t mem[4 * 3 * 2 + 8] = {0};
    skf_image w;
    skf_image_wrap(&w, 3, 2, 16, mem);
    skf_image_fill(&w, 0x01020304);
    CHECK(mem[16] == 1 && mem[19] == 4 && mem[12] == 0);
    skf_image_release(&w); /* does not free caller memory */
    CHECK(w.pixels == NULL);
    skf_image_release(&a);
    skf_image_release(&b);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/skf_test_image_XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    test_blit();
    test_png(false);
    test_png(true);
    test_png_errors();
    test_gif();
    CHECK(count_temporaries() == 0);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    return skf_test_done();
}
