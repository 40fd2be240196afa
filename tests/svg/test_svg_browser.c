/* Acceptance 4 (issue 5): the animated SVG is well-formed XML with one value
 * per frame for every animated path; opened in headless Chromium and paused
 * at a frame's time (setCurrentTime), it renders like our librsvg PNG of that
 * frame. Skips (exit 77) when Chromium is not installed or cannot run. */
#include "skinfit/image.h"
#include "svg_test_util.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 6
#define W 250
#define FPS 4.0

static char dir[512];

static int count_values(const char *s)
{
    int n = 1;
    for (; *s; ++s)
        n += *s == ';';
    return n;
}

/* mean absolute channel difference and fraction of pixels off by > 48 */
static void compare(const skf_image *a, const uint8_t *b, double *mean, double *frac)
{
    double sum = 0;
    size_t off = 0;
    for (int y = 0; y < W; ++y)
        for (int x = 0; x < W; ++x) {
            const uint8_t *p = skf_image_at(a, x, y), *q = b + ((size_t)y * W + (size_t)x) * 4;
            int worst = 0;
            for (int k = 0; k < 3; ++k) {
                int d = abs((int)p[k] - (int)q[k]);
                sum += d;
                if (d > worst)
                    worst = d;
            }
            off += worst > 48;
        }
    *mean = sum / (3.0 * W * W);
    *frac = (double)off / (W * W);
}

static const char *find_chromium(void)
{
    static const char *const names[] = {"/usr/bin/chromium", "/usr/bin/chromium-browser",
                                        "/usr/bin/google-chrome"};
    const char *env = getenv("SKF_CHROMIUM");
    if (env && access(env, X_OK) == 0)
        return env;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (access(names[i], X_OK) == 0)
            return names[i];
    return NULL;
}

int main(void)
{
    skf_svg_character *c = svgt_load("poseanimator/boy.svg");
    skf_error err = {0};
    skf_svg_animator *a = NULL;
    CHECK(skf_svg_animator_new(c, NULL, &a, &err) == SKF_OK);
    skf_svg_track track;
    CHECK(skf_svg_track_init(&track, c, N, FPS, &err) == SKF_OK);
    uint8_t *ours[N];
    for (int i = 0; i < N; ++i) {
        skf_svg_pose_frame f;
        svgt_rest_frame(c, &f);
        /* wave the left arm up to 75 degrees and drift the whole body */
        int ls = skf_svg_joint_index("leftShoulder");
        double th = -15.0 * i * M_PI / 180, co = cos(th), si = sin(th);
        for (int j = 3; j <= 4; ++j) {
            double x = f.xy[j][0] - f.xy[ls][0], y = f.xy[j][1] - f.xy[ls][1];
            f.xy[j][0] = f.xy[ls][0] + co * x - si * y;
            f.xy[j][1] = f.xy[ls][1] + si * x + co * y;
        }
        svgt_similarity(&f, 1, 0, 8.0 * i, 0);
        CHECK(skf_svg_animator_update(a, &f) == SKF_SVG_FRAME_DRAWN);
        skf_svg_track_store(&track, (size_t)i, a);
        char *svg;
        size_t size;
        CHECK(skf_svg_write_frame(a, &svg, &size, &err) == SKF_OK);
        CHECK(skf_svg_render(svg, size, W, W, 0xFFFFFFFFu, &ours[i], &err) == SKF_OK);
        skf_free(svg);
    }
    char *anim;
    size_t asize;
    CHECK(skf_svg_write_animated(c, &track, &anim, &asize, &err) == SKF_OK);

    /* well-formed, one value per frame for every animated path */
    xmlDocPtr doc = xmlReadMemory(anim, (int)asize, "anim.svg", NULL, XML_PARSE_NONET);
    CHECK(doc != NULL);
    size_t animated = 0, bad = 0;
    if (doc) {
        xmlNodePtr stack[256];
        int sp = 0;
        stack[sp++] = xmlDocGetRootElement(doc);
        while (sp) {
            xmlNodePtr n = stack[--sp];
            for (xmlNodePtr k = n->children; k; k = k->next)
                if (k->type == XML_ELEMENT_NODE && sp < 256)
                    stack[sp++] = k;
            if (n->type != XML_ELEMENT_NODE || strcmp((const char *)n->name, "animate"))
                continue;
            xmlChar *attr = xmlGetProp(n, (const xmlChar *)"attributeName");
            xmlChar *vals = xmlGetProp(n, (const xmlChar *)"values");
            xmlChar *kt = xmlGetProp(n, (const xmlChar *)"keyTimes");
            if (attr && !strcmp((const char *)attr, "d")) {
                animated++;
                bad += !(n->parent && !strcmp((const char *)n->parent->name, "path") && vals &&
                         kt && count_values((const char *)vals) == N &&
                         count_values((const char *)kt) == N);
            }
            xmlFree(attr);
            xmlFree(vals);
            xmlFree(kt);
        }
        xmlFreeDoc(doc);
    }
    printf("animated SVG: %zu bytes, %zu animated paths (of %zu), %zu with a wrong value count\n",
           asize, animated, skf_svg_path_count(c), bad);
    CHECK(animated == skf_svg_path_count(c));
    CHECK(bad == 0);

    const char *chromium = find_chromium();
    if (!chromium) {
        skf_free(anim);
        for (int i = 0; i < N; ++i)
            skf_free(ours[i]);
        skf_svg_track_release(&track);
        skf_svg_animator_free(a);
        skf_svg_free(c);
        if (skf_checks_failed)
            return skf_test_done();
        SKF_SKIP("headless Chromium not installed (apt-get install chromium); the XML checks passed");
    }
    const char *base = getenv("SKF_BUILD_DIR");
    snprintf(dir, sizeof dir, "%s/svg-browser-XXXXXX", base ? base : "/tmp");
    if (!mkdtemp(dir))
        SKF_SKIP("cannot create a temporary folder");
    const int frames[3] = {0, 3, 5};
    bool ran = false;
    for (int q = 0; q < 3; ++q) {
        int i = frames[q];
        char html[700], shot[700], cmd[4096];
        snprintf(html, sizeof html, "%s/frame%d.html", dir, i);
        snprintf(shot, sizeof shot, "%s/shot%d.png", dir, i);
        FILE *f = fopen(html, "wb");
        fprintf(f, "<!DOCTYPE html><html><head><style>html,body{margin:0;padding:0;background:#fff;"
                   "overflow:hidden}svg{display:block;width:%dpx;height:%dpx}</style></head><body>\n",
                W, W);
        const char *start = strstr(anim, "<svg");
        fwrite(start, 1, asize - (size_t)(start - anim), f);
        /* the middle of frame i: frame i shows during [i/fps, (i+1)/fps) */
        fprintf(f, "\n<script>const s=document.querySelector('svg');s.pauseAnimations();"
                   "s.setCurrentTime(%.6f);</script></body></html>\n",
                (i + 0.5) / FPS);
        fclose(f);
        snprintf(cmd, sizeof cmd,
                 "timeout 90 %s --headless --no-sandbox --disable-gpu --disable-background-networking "
                 "--disable-component-update --disable-sync --no-first-run --hide-scrollbars "
                 "--force-device-scale-factor=1 --user-data-dir=%s/profile%d --window-size=%d,%d "
                 "--screenshot=%s file://%s > %s/chromium%d.log 2>&1",
                 chromium, dir, i, W, W, shot, html, dir, i);
        int rc = system(cmd);
        skf_image img = {0};
        if (rc != 0 || skf_png_read(shot, &img, &err) != SKF_OK) {
            printf("chromium did not produce %s (exit %d); see %s/chromium%d.log\n", shot, rc, dir, i);
            continue;
        }
        ran = true;
        CHECK(img.width == W && img.height == W);
        if (img.width == W && img.height == W) {
            double mean, frac, mean_other, frac_other;
            compare(&img, ours[i], &mean, &frac);
            compare(&img, ours[(i + 3) % N], &mean_other, &frac_other);
            printf("frame %d: Chromium vs our PNG: mean |diff| %.3f / 255, %.3f%% pixels off by > 48; "
                   "vs frame %d: mean %.3f, %.3f%%\n",
                   i, mean, 100 * frac, (i + 3) % N, mean_other, 100 * frac_other);
            CHECK(mean < 2.0);
            CHECK(frac < 0.01);
            CHECK(frac_other > 2 * frac + 0.002); /* it is that frame, not another */
        }
        skf_image_release(&img);
    }
    skf_free(anim);
    for (int i = 0; i < N; ++i)
        skf_free(ours[i]);
    skf_svg_track_release(&track);
    skf_svg_animator_free(a);
    skf_svg_free(c);
    if (!ran) {
        printf("chromium logs kept in %s\n", dir);
        if (skf_checks_failed)
            return skf_test_done();
        SKF_SKIP("Chromium is installed but could not take screenshots here");
    }
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("could not remove %s\n", dir);
    return skf_test_done();
}
