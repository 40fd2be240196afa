/* Issue 6, acceptance 3 (HTML): the page written by `skinfit render --html`
 * (and by `skinfit transfer --html` where that command offers it) opens in
 * headless Chromium without console messages, and the screenshot shows the
 * quality table (its header colour) and the heat maps (colormap pixels).
 * Console detection is verified first on a page that logs a deliberate
 * error. Skipped (exit 77) only where Chromium is not installed. */
#include "check.h"
#include "skinfit/report.h"

#include <sys/stat.h>
#include <unistd.h>

static char dir[256];
static const char *chromium;

static bool find_chromium(void)
{
    static const char *const names[] = {"/usr/bin/chromium", "/usr/bin/chromium-browser"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (access(names[i], X_OK) == 0) {
            chromium = names[i];
            return true;
        }
    return false;
}

/* Run headless Chromium on html; returns the number of console / failed-load
 * lines in its log (or -1 when it did not run) and writes the screenshot. */
static int open_in_chromium(const char *html, const char *shot, int width, int height)
{
    char cmd[2048], log[300], prof[300];
    snprintf(log, sizeof log, "%s/chromium.log", dir);
    snprintf(prof, sizeof prof, "%s/profile-%d", dir, (int)getpid());
    snprintf(cmd, sizeof cmd,
             "rm -rf '%s' && timeout 120 '%s' --headless --no-sandbox --disable-gpu "
             "--disable-background-networking --disable-component-update --disable-sync "
             "--no-first-run --user-data-dir='%s' --enable-logging=stderr --v=0 "
             "--window-size=%d,%d --screenshot='%s' 'file://%s' > /dev/null 2> '%s'",
             prof, chromium, prof, width, height, shot, html, log);
    if (system(cmd) != 0)
        return -1;
    FILE *f = fopen(log, "r");
    if (!f)
        return -1;
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof line, f))
        if (strstr(line, ":CONSOLE") || strstr(line, "Failed to load resource") ||
            strstr(line, "Uncaught")) {
            ++n;
            fprintf(stderr, "chromium: %s", line);
        }
    fclose(f);
    return n;
}

static bool is_rgb(const uint8_t *p, int r, int g, int b)
{
    return abs(p[0] - r) <= 2 && abs(p[1] - g) <= 2 && abs(p[2] - b) <= 2;
}

int main(void)
{
    if (!find_chromium())
        SKF_SKIP("Chromium is not installed (Debian package 'chromium'); the HTML check needs it");
    const char *bin = getenv("SKF_BIN");
    const char *horse = skf_test_data("quaternius/animals/Horse.glb");
    if (!horse)
        SKF_SKIP("shared assets not found under %s", skf_test_data_dir());
    if (!bin)
        SKF_SKIP("SKF_BIN not set (run through ctest)");
    snprintf(dir, sizeof dir, "/tmp/skf_test_html_XXXXXX");
    if (!mkdtemp(dir))
        return 1;

    /* 1. the detector sees a console error */
    char bad[300], shot[300], html[300], png[300], cmd[2048];
    snprintf(bad, sizeof bad, "%s/bad.html", dir);
    FILE *f = fopen(bad, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>t</title></head><body>"
              "<script>console.error('deliberate error 42');</script></body></html>\n", f);
        fclose(f);
    }
    snprintf(shot, sizeof shot, "%s/bad.png", dir);
    int bad_lines = open_in_chromium(bad, shot, 400, 300);
    printf("detector: %d console line(s) on the page with a deliberate error\n", bad_lines);
    CHECK(bad_lines >= 1);

    /* 2. skinfit render --html */
    snprintf(html, sizeof html, "%s/report.html", dir);
    snprintf(png, sizeof png, "%s/heat.png", dir);
    snprintf(cmd, sizeof cmd,
             "'%s' render --source '%s' --clip Walk --rig '%s' --baked '%s=evaluated as stored' "
             "--size 960x320 --html '%s' -o '%s' > /dev/null",
             bin, horse, horse, horse, html, png);
    CHECK(system(cmd) == 0);
    uint8_t *page = NULL;
    size_t page_size = 0;
    skf_error err;
    CHECK(skf_read_file(html, 64 << 20, &page, &page_size, &err) == SKF_OK);
    if (page) {
        CHECK(strstr((char *)page, "src=\"http") == NULL && strstr((char *)page, "href=\"http") == NULL);
        CHECK(strstr((char *)page, "data:image/png;base64,") != NULL);
        CHECK(strstr((char *)page, "<svg") != NULL);
        const char *ctl = strstr((char *)page, ">control<"), *baked = strstr((char *)page, ">baked<");
        CHECK(ctl && baked && ctl < baked); /* control row first */
        skf_free(page);
    }
    snprintf(shot, sizeof shot, "%s/report.png", dir);
    int lines = open_in_chromium(html, shot, 1280, 1200);
    printf("render --html: %d console line(s)\n", lines);
    CHECK(lines == 0);
    skf_image img;
    CHECK(skf_png_read(shot, &img, &err) == SKF_OK);
    if (img.pixels) {
        size_t header = 0, heat = 0;
        for (int y = 0; y < img.height; ++y)
            for (int x = 0; x < img.width; ++x) {
                const uint8_t *p = skf_image_at(&img, x, y);
                header += is_rgb(p, 0xdd, 0xe3, 0xea);
                heat += skf_colormap_classify(p) == 0;
            }
        printf("screenshot %dx%d: %zu table-header pixels, %zu zero-bin heat-map pixels\n",
               img.width, img.height, header, heat);
        CHECK(header > 2000);
        CHECK(heat > 5000);
        skf_image_release(&img);
    }
    /* 3. skinfit transfer --html (autoweights rig, Walk) */
    char rig[300], glb[300];
    snprintf(rig, sizeof rig, "%s/auto.glb", dir);
    snprintf(glb, sizeof glb, "%s/out.glb", dir);
    snprintf(html, sizeof html, "%s/transfer.html", dir);
    snprintf(cmd, sizeof cmd, "'%s' autoweights '%s' -o '%s' > /dev/null 2>&1", bin, horse, rig);
    CHECK(system(cmd) == 0);
    snprintf(cmd, sizeof cmd,
             "'%s' transfer --source '%s' --target '%s' --clip Walk -o '%s' --html '%s' > /dev/null 2>&1",
             bin, horse, rig, glb, html);
    CHECK(system(cmd) == 0);
    CHECK(skf_read_file(html, 64 << 20, &page, &page_size, &err) == SKF_OK);
    if (page) {
        const char *ctl = strstr((char *)page, ">control<"), *fr = strstr((char *)page, ">free<");
        CHECK(ctl && fr && ctl < fr); /* control row first */
        CHECK(strstr((char *)page, "data:image/png;base64,") != NULL);
        skf_free(page);
    }
    snprintf(shot, sizeof shot, "%s/transfer.png", dir);
    lines = open_in_chromium(html, shot, 1280, 1200);
    printf("transfer --html: %d console line(s)\n", lines);
    CHECK(lines == 0);
    CHECK(skf_png_read(shot, &img, &err) == SKF_OK);
    if (img.pixels) {
        size_t header = 0, heat = 0, hot = 0;
        for (int y = 0; y < img.height; ++y)
            for (int x = 0; x < img.width; ++x) {
                const uint8_t *p = skf_image_at(&img, x, y);
                header += is_rgb(p, 0xdd, 0xe3, 0xea);
                int b = skf_colormap_classify(p);
                heat += b == 0;
                hot += b >= 1;
            }
        printf("transfer screenshot %dx%d: %zu table-header pixels, %zu zero-bin and %zu higher-bin "
               "heat-map pixels\n", img.width, img.height, header, heat, hot);
        CHECK(header > 2000);
        CHECK(heat > 5000);
        CHECK(hot > 500);
        skf_image_release(&img);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    return skf_test_done();
}
