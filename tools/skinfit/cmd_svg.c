/* skinfit svg: animate an SVG character from pose keypoints (Pose Animator
 * in C). Library: include/skinfit/svg.h; formats and decisions: docs/svg.md. */
#include "cli.h"
#include "guard.h"
#include "skinfit/image.h"
#include "skinfit/svg.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: skinfit svg CHARACTER.svg --pose POSES.json -o OUT [options]\n\n"
            "Animates an SVG character drawn with Pose Animator's conventions (a 'skeleton'\n"
            "group of joint markers, an 'illustration' group of artwork) from pose keypoints\n"
            "(PoseNet, MoveNet / pose-detection, MediaPipe Pose; optional FaceMesh).\n\n"
            "options:\n"
            "  --pose FILE              keypoint JSON (see docs/svg.md)\n"
            "  -o, --output OUT         output: a folder for frames/png, a file for animated/gif\n"
            "  --format F               frames (one SVG per frame), animated (SMIL SVG),\n"
            "                           png (PNG per frame), gif (animated GIF); default from\n"
            "                           OUT: .svg animated, .gif gif, otherwise frames\n"
            "  --fps F                  frames per second (default: the file's fps, else 30)\n"
            "  --size WxH               raster size for png/gif (default: the SVG canvas; for gif\n"
            "                           its longest side at most 512)\n"
            "  --no-smoothing           use each frame's keypoints as they are\n"
            "  --min-path-confidence C  hide paths whose confidence is below C (default 0.3)\n"
            "  -h, --help               this help\n\n"
            "exit codes: 0 ok, 1 bad input or I/O error, 2 usage error\n");
}

enum { FMT_AUTO, FMT_FRAMES, FMT_ANIMATED, FMT_PNG, FMT_GIF };

/* Write n frames into folder out: into a temporary sibling folder renamed
 * at the end when out does not exist yet, else file by file (atomically). */
/* The frames folder is written as a whole (skf_atomic_dir): into a
 * temporary sibling folder swapped in at the end, so an existing folder is
 * never left with a mix of new and stale frames. */
typedef struct frame_sink {
    skf_atomic_dir d;
    const char *dir;    /* where files go */
} frame_sink;

/* A previous run's frame: frame_<digits>.svg or .png. */
static bool is_frame_name(const char *name)
{
    return skf_is_frame_name(name, ".svg") || skf_is_frame_name(name, ".png");
}

/* On failure: one line on stderr, nothing left allocated. */
static int sink_open(frame_sink *s, const char *out)
{
    skf_error err;
    if (skf_atomic_dir_open(&s->d, out, is_frame_name, &err))
        return cli_report_error(&err);
    s->dir = s->d.temp_path;
    return EXIT_OK;
}

static void sink_abort(frame_sink *s)
{
    skf_atomic_dir_abort(&s->d);
}

static int sink_commit(frame_sink *s)
{
    skf_error err;
    if (skf_atomic_dir_commit(&s->d, is_frame_name, &err))
        return cli_report_error(&err);
    return EXIT_OK;
}

int cmd_svg(int argc, char **argv)
{
    const char *input = NULL, *pose_path = NULL, *out = NULL;
    int format = FMT_AUTO, width = 0, height = 0;
    double fps = 0;
    skf_svg_animate_options aopt = {false, -1};
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        bool has_next = i + 1 < argc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return EXIT_OK;
        } else if (!strcmp(a, "--pose")) {
            if (!has_next)
                return cli_usage_error("svg", "--pose needs a file");
            pose_path = argv[++i];
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (!has_next)
                return cli_usage_error("svg", "%s needs a path", a);
            out = argv[++i];
        } else if (!strcmp(a, "--format")) {
            if (!has_next)
                return cli_usage_error("svg", "--format needs frames, animated, png or gif");
            const char *f = argv[++i];
            if (!strcmp(f, "frames"))
                format = FMT_FRAMES;
            else if (!strcmp(f, "animated"))
                format = FMT_ANIMATED;
            else if (!strcmp(f, "png"))
                format = FMT_PNG;
            else if (!strcmp(f, "gif"))
                format = FMT_GIF;
            else
                return cli_usage_error("svg", "unknown --format '%s' (frames, animated, png, gif)", f);
        } else if (!strcmp(a, "--fps")) {
            if (!has_next || !cli_parse_double(argv[i + 1], &fps) || !(fps > 0) || fps > 1000)
                return cli_usage_error("svg", "--fps needs a number in (0, 1000]");
            ++i;
        } else if (!strcmp(a, "--size")) {
            char extra;
            if (!has_next || sscanf(argv[i + 1], "%dx%d%c", &width, &height, &extra) != 2 ||
                width < 1 || height < 1 || width > 16384 || height > 16384)
                return cli_usage_error("svg", "--size needs WxH, e.g. 512x512 (1..16384)");
            ++i;
        } else if (!strcmp(a, "--no-smoothing")) {
            aopt.no_smoothing = true;
        } else if (!strcmp(a, "--min-path-confidence")) {
            if (!has_next || !cli_parse_double(argv[i + 1], &aopt.min_path_confidence) ||
                aopt.min_path_confidence < 0)
                return cli_usage_error("svg", "--min-path-confidence needs a number >= 0");
            ++i;
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("svg", "unknown option '%s'", a);
        } else if (!input) {
            input = a;
        } else {
            return cli_usage_error("svg", "unexpected argument '%s'", a);
        }
    }
    if (!input)
        return cli_usage_error("svg", "missing CHARACTER.svg");
    if (!pose_path)
        return cli_usage_error("svg", "missing --pose POSES.json");
    if (!out)
        return cli_usage_error("svg", "missing -o OUT");
    if (format == FMT_AUTO)
        format = cli_ends_with(out, ".svg") ? FMT_ANIMATED : cli_ends_with(out, ".gif") ? FMT_GIF : FMT_FRAMES;
    cli_guard g;
    cli_guard_init(&g, "svg");
    cli_guard_input(&g, input, NULL);
    cli_guard_input(&g, pose_path, NULL);
    int grc = format == FMT_FRAMES ? cli_guard_output_dir(&g, "-o", out) : cli_guard_output(&g, "-o", out);
    if (!grc)
        grc = cli_guard_check(&g);
    cli_guard_release(&g);
    if (grc)
        return grc;

    skf_error err = {0};
    skf_warnings warn = {0};
    skf_svg_character *c = NULL;
    skf_svg_load_options lo = {.limits = &cli_limits};
    if (skf_svg_load(input, &lo, &c, &warn, &err) != SKF_OK) {
        cli_print_warnings(&warn);
        skf_warnings_release(&warn);
        return cli_report_error(&err);
    }
    double cw, ch;
    skf_svg_canvas_size(c, &cw, &ch);
    skf_svg_poses poses;
    skf_svg_poses_options po = {.limits = &cli_limits};
    if (skf_svg_poses_load(pose_path, cw, ch, &po, &poses, &err) != SKF_OK) {
        cli_print_warnings(&warn);
        skf_warnings_release(&warn);
        skf_svg_free(c);
        return cli_report_error(&err);
    }
    if (fps <= 0)
        fps = poses.fps > 0 ? poses.fps : 30;
    if (!width) {
        /* the canvas size; a GIF keeps every frame in memory: longest side <= 512 */
        double scale = 1, longest = fmax(cw, ch);
        if (format == FMT_GIF && longest > 512)
            scale = 512 / longest;
        width = (int)lround(cw * scale);
        height = (int)lround(ch * scale);
        if (width < 1)
            width = 1;
        if (height < 1)
            height = 1;
    }
    if (format == FMT_GIF &&
        (double)poses.count * (double)width * (double)height * 4.0 > 4.0 * 1024 * 1024 * 1024) {
        fprintf(stderr,
                "skinfit: %s: %zu GIF frames of %dx%d need more than 4 GiB in memory; pass a smaller "
                "--size\n",
                out, poses.count, width, height);
        skf_warnings_release(&warn);
        skf_svg_poses_release(&poses);
        skf_svg_free(c);
        return EXIT_BAD_INPUT;
    }

    int rc = EXIT_OK;
    skf_svg_animator *anim = NULL;
    skf_svg_track track = {0};
    skf_image *gif_frames = NULL;
    size_t drawn = 0, skipped = 0;
    frame_sink sink = {0};
    bool sink_open_ok = false;
    if (skf_svg_animator_new(c, &aopt, &anim, &err) != SKF_OK)
        rc = cli_report_error(&err);
    if (rc == EXIT_OK && format == FMT_ANIMATED &&
        skf_svg_track_init(&track, c, poses.count, fps, &err) != SKF_OK)
        rc = cli_report_error(&err);
    if (rc == EXIT_OK && format == FMT_GIF) {
        gif_frames = skf_calloc(poses.count, sizeof *gif_frames);
        if (!gif_frames) {
            fprintf(stderr, "skinfit: out of memory for %zu GIF frames\n", poses.count);
            rc = EXIT_BAD_INPUT;
        }
    }
    if (rc == EXIT_OK && (format == FMT_FRAMES || format == FMT_PNG)) {
        rc = sink_open(&sink, out);
        sink_open_ok = rc == EXIT_OK;
    }
    cli_progress prog;
    skf_progress pr;
    cli_progress_init(&prog, &pr);
    for (size_t i = 0; i < poses.count && rc == EXIT_OK; ++i) {
        if (skf_svg_animator_update(anim, &poses.frames[i]) == SKF_SVG_FRAME_DRAWN)
            drawn++;
        else
            skipped++;
        skf_progress_report(&pr, (double)(i + 1) / (double)poses.count, "svg frames");
        if (format == FMT_ANIMATED) {
            skf_svg_track_store(&track, i, anim);
            continue;
        }
        char *svg = NULL;
        size_t size = 0;
        if (skf_svg_write_frame(anim, &svg, &size, &err) != SKF_OK) {
            skf_error_prefix(&err, "%s: frame %zu", input, i);
            rc = cli_report_error(&err);
            break;
        }
        char path[4200];
        if (format == FMT_FRAMES) {
            snprintf(path, sizeof path, "%s/frame_%05zu.svg", sink.dir, i);
            if (skf_write_file_atomic(path, svg, size, &err) != SKF_OK)
                rc = cli_report_error(&err);
        } else {
            uint8_t *rgba = NULL;
            uint32_t bg = format == FMT_GIF ? 0xFFFFFFFFu : 0;
            if (skf_svg_render(svg, size, width, height, bg, &rgba, &err) != SKF_OK) {
                /* librsvg's text names neither the character nor the frame */
                skf_error_prefix(&err, "%s: frame %zu", input, i);
                rc = cli_report_error(&err);
            } else if (format == FMT_PNG) {
                skf_image img;
                skf_image_wrap(&img, width, height, (size_t)width * 4, rgba);
                snprintf(path, sizeof path, "%s/frame_%05zu.png", sink.dir, i);
                if (skf_png_write(path, &img, &err) != SKF_OK)
                    rc = cli_report_error(&err);
                skf_free(rgba);
            } else {
                skf_image_wrap(&gif_frames[i], width, height, (size_t)width * 4, rgba);
                gif_frames[i].owned = true; /* freed by skf_image_release */
            }
        }
        skf_free(svg);
    }
    cli_progress_finish(&prog);
    if (rc == EXIT_OK && !drawn)
        skf_warn(&warn, "%s: no frame has a pose score >= %g; the output shows the rest pose",
                 pose_path, SKF_SVG_MIN_POSE_SCORE);
    if (rc == EXIT_OK && format == FMT_ANIMATED) {
        char *svg = NULL;
        size_t size = 0;
        if (skf_svg_write_animated(c, &track, &svg, &size, &err) != SKF_OK ||
            skf_write_file_atomic(out, svg, size, &err) != SKF_OK)
            rc = cli_report_error(&err);
        skf_free(svg);
    }
    if (rc == EXIT_OK && format == FMT_GIF) {
        int *delays = skf_malloc_array(poses.count, sizeof *delays);
        if (!delays) {
            fprintf(stderr, "skinfit: out of memory\n");
            rc = EXIT_BAD_INPUT;
        } else {
            int cs = (int)lround(100.0 / fps);
            if (cs < 2)
                cs = 2; /* browsers treat shorter GIF delays as 10 cs */
            for (size_t i = 0; i < poses.count; ++i)
                delays[i] = cs;
            if (skf_gif_write(out, gif_frames, poses.count, delays, NULL, &err) != SKF_OK)
                rc = cli_report_error(&err);
            skf_free(delays);
        }
    }
    if (sink_open_ok) {
        if (rc == EXIT_OK)
            rc = sink_commit(&sink);
        else
            sink_abort(&sink);
    }
    if (gif_frames) {
        for (size_t i = 0; i < poses.count; ++i)
            skf_image_release(&gif_frames[i]);
        skf_free(gif_frames);
    }
    cli_print_warnings(&warn);
    if (rc == EXIT_OK)
        fprintf(stderr, "skinfit: svg: %zu frames (%zu drawn, %zu skipped), %zu paths -> %s\n",
                poses.count, drawn, skipped, skf_svg_path_count(c), out);
    skf_warnings_release(&warn);
    skf_svg_track_release(&track);
    skf_svg_animator_free(anim);
    skf_svg_poses_release(&poses);
    skf_svg_free(c);
    return rc;
}
