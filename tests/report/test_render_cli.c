/* skinfit render from the command line: requested sizes, one GIF frame per
 * solved frame, stacked PNG frames, --help, and bad input (exit codes, one
 * line naming the problem, no output left behind). Issue 6, acceptance 3
 * (sizes and frames). */
#include "check.h"
#include "skinfit/report.h"

#include <sys/stat.h>
#include <unistd.h>

static char dir[256], out_log[300];
static const char *bin;

/* Run "skinfit render ARGS", capturing stderr; returns the exit code. */
static int run(const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' render %s > /dev/null 2> '%s'", bin, args, out_log);
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static bool log_has(const char *what)
{
    uint8_t *d;
    size_t n;
    skf_error err;
    if (skf_read_file(out_log, 1 << 20, &d, &n, &err))
        return false;
    bool yes = strstr((char *)d, what) != NULL;
    if (!yes)
        fprintf(stderr, "stderr was: %s\n", (char *)d);
    skf_free(d);
    return yes;
}

static bool exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

int main(void)
{
    bin = getenv("SKF_BIN");
    const char *horse = skf_test_data("quaternius/animals/Horse.glb");
    const char *fox = skf_test_data("quaternius/animals/Fox.glb");
    if (!horse || !fox)
        SKF_SKIP("shared assets not found under %s", skf_test_data_dir());
    if (!bin)
        SKF_SKIP("SKF_BIN not set (run through ctest)");
    snprintf(dir, sizeof dir, "/tmp/skf_test_render_cli_XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    snprintf(out_log, sizeof out_log, "%s/stderr.txt", dir);
    skf_error err;

    /* frames the clip has, from the library */
    skf_gltf *doc = NULL;
    skf_heatmap *clip = NULL;
    CHECK(skf_gltf_load(fox, &doc, NULL, &err) == SKF_OK);
    CHECK(doc && skf_heatmap_play(doc, "Walk", 0, &clip, NULL, &err) == SKF_OK);
    size_t F = clip ? skf_heatmap_frame_count(clip) : 0;
    skf_heatmap_free(clip);
    skf_gltf_free(doc);

    char args[2048], gif[300], png[300];
    snprintf(gif, sizeof gif, "%s/fox.gif", dir);
    snprintf(args, sizeof args, "--source '%s' --clip Walk --rig '%s' --baked '%s=as stored' --size 630x200 -o '%s'",
             fox, fox, fox, gif);
    CHECK(run(args) == 0);
    skf_gif_info gi;
    CHECK(skf_gif_read(gif, &gi, &err) == SKF_OK);
    printf("gif: %zu frames for a clip of %zu frames, %dx%d, loop %d\n", gi.frame_count, F,
           gi.frame_count ? gi.frames[0].width : 0, gi.frame_count ? gi.frames[0].height : 0,
           gi.loop_count);
    CHECK(F > 10 && gi.frame_count == F);
    CHECK(gi.loop_count == 0);
    for (size_t i = 0; i < gi.frame_count; ++i)
        CHECK(gi.frames[i].width == 630 && gi.frames[i].height == 200);
    skf_gif_info_release(&gi);

    snprintf(png, sizeof png, "%s/fox.png", dir);
    skf_image img;
    snprintf(args, sizeof args, "--source '%s' --clip Walk --rig '%s' --view three-quarter --size 401x157 -o '%s'",
             fox, fox, png);
    CHECK(run(args) == 0);
    CHECK(skf_png_read(png, &img, &err) == SKF_OK);
    printf("png: %dx%d (asked 401x157)\n", img.width, img.height);
    CHECK(img.width == 401 && img.height == 157);
    skf_image_release(&img);
    snprintf(args, sizeof args, "--source '%s' --clip Walk --rig '%s' --frames 0,2-3 --view top --size 300x120 -o '%s'",
             fox, fox, png);
    CHECK(run(args) == 0);
    CHECK(skf_png_read(png, &img, &err) == SKF_OK);
    printf("png, 3 frames stacked: %dx%d\n", img.width, img.height);
    CHECK(img.width == 300 && img.height == 360);
    skf_image_release(&img);

    /* usage errors: exit 2 */
    char bad[300];
    snprintf(bad, sizeof bad, "%s/bad.png", dir);
    CHECK(run("--help") == 0);
    snprintf(args, sizeof args, "--clip Walk -o '%s'", bad);
    CHECK(run(args) == 2 && log_has("missing --source"));
    snprintf(args, sizeof args, "--source '%s' --clip Walk --size 12 -o '%s'", fox, bad);
    CHECK(run(args) == 2 && log_has("--size"));
    snprintf(args, sizeof args, "--source '%s' --clip Walk --view sideways -o '%s'", fox, bad);
    CHECK(run(args) == 2 && log_has("--view"));
    snprintf(args, sizeof args, "--source '%s' --clip Walk -o '%s/x.jpg'", fox, dir);
    CHECK(run(args) == 2 && log_has(".png or .gif"));
    snprintf(args, sizeof args, "--source '%s' --clip Walk --rig '%s' --frames 5-999 -o '%s'", fox, fox, bad);
    CHECK(run(args) == 2 && log_has("--frames"));
    /* bad input: exit 1, one line naming the file */
    snprintf(args, sizeof args, "--source '%s' --clip Moonwalk --rig '%s' -o '%s'", fox, fox, bad);
    CHECK(run(args) == 1 && log_has("no clip named 'Moonwalk' (available:") && log_has("Walk"));
    snprintf(args, sizeof args, "--source '%s/missing.glb' --clip Walk -o '%s'", dir, bad);
    CHECK(run(args) == 1 && log_has("missing.glb"));
    snprintf(args, sizeof args, "--source '%s' --clip Walk --baked '%s' -o '%s'", fox, png, bad);
    CHECK(run(args) == 1 && log_has("fox.png"));
    CHECK(!exists(bad));
    /* never overwrite an input */
    snprintf(args, sizeof args, "--source '%s' --clip Walk --rig '%s' -o '%s'", png, fox, png);
    CHECK(run(args) != 0 && exists(png));

    snprintf(args, sizeof args, "rm -rf '%s'", dir);
    CHECK(system(args) == 0);
    return skf_test_done();
}
