/* skinfit render --source ARTIST.glb --clip NAME --rig RIG.glb[=LABEL]... -o OUT.png|OUT.gif
 * Heat-map panels: the artist's clip (ground truth), then one panel per rig —
 * solved on the fly with the transfer pipeline (--rig) or read from a baked
 * clip (--baked) — drawn as a dark silhouette of the ground truth under the
 * rig's surface coloured by per-vertex error (the report's metric routine). */
#include "cli.h"
#include "guard.h"

#include "skinfit/gltf.h"
#include "skinfit/report.h"
#include "skinfit/rig.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: skinfit render --source ARTIST.glb --clip NAME --rig RIG.glb[=LABEL]...\n"
            "                      [--baked RIG.glb[=LABEL]]... [--frames all|LIST]\n"
            "                      [--view side|front|top|three-quarter] [--size WxH]\n"
            "                      [--fps F] [--supersample S] [--html REPORT.html]\n"
            "                      -o OUT.png|OUT.gif\n\n"
            "Draw the artist's clip (left) and, per rig, the rig's surface coloured by\n"
            "each vertex's error (blue 0 to red 3 %% of the diagonal or worse, bins of\n"
            "0.25 %%) over a dark silhouette of the ground truth.\n\n"
            "  --source FILE   the artist's rigged, animated glTF/GLB (skin 0)\n"
            "  --clip NAME     clip to play ('Walk' finds 'AnimalArmature|Walk')\n"
            "  --rig FILE      a rig of the same animal; the clip is transferred onto it\n"
            "                  on the fly (free mode). Give the source itself for the\n"
            "                  control run (its own rig solved against its own clip).\n"
            "                  '=LABEL' names the panel. Repeatable.\n"
            "  --baked FILE    a rig whose file already holds the clip (e.g. the output of\n"
            "                  'skinfit transfer'); evaluated as stored. Repeatable.\n"
            "  --frames SPEC   'all' or a list like 0,5,10-12 (default: all for .gif,\n"
            "                  the frame with the largest error for .png)\n"
            "  --view V        side (default), front, top or three-quarter\n"
            "  --size WxH      image size in pixels (default 320 per panel x 320); a .png\n"
            "                  of several frames stacks them: W x (H * frames)\n"
            "  --fps F         frames per second to sample (default: the clip's key rate)\n"
            "  --supersample S S x S samples per pixel, 1..8 (default 4)\n"
            "  --html FILE     also write a self-contained HTML page: each rig's quality\n"
            "                  (control first), per-frame error plot, the heat map of the\n"
            "                  frame with the largest error\n"
            "  -o OUT          .png or .gif (animated, one GIF frame per frame, looping)\n\n"
            "Panels appear left to right in the order the rigs are given.\n");
}

typedef struct rig_arg {
    char *path;
    const char *label;
    bool baked;
} rig_arg;

/* "file.glb=Label" → path "file.glb", label "Label": split at the first '='
 * unless the whole argument names an existing file. */
static bool split_rig(const char *arg, bool baked, rig_arg *out)
{
    out->path = strdup(arg);
    out->label = NULL;
    out->baked = baked;
    if (!out->path)
        return false;
    char *eq = strchr(out->path, '=');
    if (eq && access(arg, F_OK) != 0) {
        *eq = 0;
        out->label = eq + 1;
    }
    return true;
}

static const char *basename_of(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* The --html page: one row per rig (control rows first), the worst frame's
 * heat map. */
static skf_status write_html(const char *path, const skf_heatmap *clip,
                             const skf_render_options *ro, const char *source_path,
                             const char *const *modes, int argc, char **argv, skf_error *err)
{
    const skf_render_scene *scene = skf_heatmap_scene(clip);
    size_t R = skf_heatmap_rig_count(clip), F = skf_heatmap_frame_count(clip);
    skf_html_run runs[SKF_RENDER_MAX_PANELS];
    size_t n = 0;
    for (int pass = 0; pass < 2; ++pass)
        for (size_t r = 0; r < R; ++r) {
            bool control = !strcmp(modes[r], "control");
            if (control != (pass == 0))
                continue;
            const skf_transfer_metrics *q = skf_heatmap_rig_metrics(clip, r);
            runs[n++] = (skf_html_run){scene->panels[r + 1].label, modes[r], q->quality,
                                       q->mean_error_pct, q->max_error_pct, -1, -1,
                                       q->frame_max_pct, q->frame_mean_pct};
        }
    size_t worst = skf_heatmap_worst_frame(clip);
    skf_renderer *r = NULL;
    skf_image img = {0};
    skf_status st = skf_renderer_new(scene, ro, &r, err);
    if (!st)
        st = skf_image_init(&img, skf_renderer_width(r), skf_renderer_height(r), 0xFFFFFFFF, err);
    if (!st)
        st = skf_render_frame(r, worst, &img, NULL, err);
    skf_renderer_free(r);
    char *cmdline = st ? NULL : cli_command_line(argc + 1, argv - 1);
    if (!st && !cmdline)
        st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
    if (!st) {
        char caption[256], frames[64], title[300];
        const char *cn = skf_heatmap_clip_name(clip);
        snprintf(caption, sizeof caption,
                 "frame %zu of %zu (largest vertex error): the artist's ground truth, then each "
                 "rig's surface coloured by vertex error over the ground truth's dark silhouette",
                 worst, F);
        snprintf(frames, sizeof frames, "%zu at %.4g fps", F, skf_heatmap_fps(clip));
        snprintf(title, sizeof title, "skinfit render: %s", basename_of(source_path));
        const char *facts[] = {"source", source_path, "clip", cn, "frames", frames};
        const char *captions[] = {caption};
        skf_html_clip hc = {cn, F, skf_heatmap_fps(clip), runs, n, &img, captions, 1};
        skf_html_report rep = {title, facts, 3, &hc, 1, cmdline};
        st = skf_html_report_write(path, &rep, err);
    }
    skf_free(cmdline);
    skf_image_release(&img);
    return st;
}

int cmd_render(int argc, char **argv)
{
    const char *source_path = NULL, *clip_name = NULL, *out_path = NULL, *frames_spec = NULL;
    const char *html_path = NULL;
    const char *modes[SKF_RENDER_MAX_PANELS];
    skf_render_options ro;
    memset(&ro, 0, sizeof ro);
    double fps = 0;
    rig_arg rigs[SKF_RENDER_MAX_PANELS];
    size_t nrigs = 0;
    int rc = EXIT_OK;
    cli_guard guard;
    cli_guard_init(&guard, "render");
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            goto done;
        }
        static const char *const valued[] = {"--source", "--clip", "--rig", "--baked", "--frames",
                                             "--view", "--size", "--fps", "--supersample", "-o",
                                             "--html"};
        bool known = false;
        for (size_t k = 0; k < sizeof valued / sizeof valued[0]; ++k)
            known |= !strcmp(a, valued[k]);
        if (!known) {
            rc = cli_usage_error("render", a[0] == '-' ? "unknown option '%s'" : "unexpected argument '%s'", a);
            goto done;
        }
        if (i + 1 >= argc) {
            rc = cli_usage_error("render", "%s needs a value", a);
            goto done;
        }
        const char *v = argv[++i];
        if (!strcmp(a, "--source")) {
            source_path = v;
        } else if (!strcmp(a, "--clip")) {
            clip_name = v;
        } else if (!strcmp(a, "-o")) {
            out_path = v;
        } else if (!strcmp(a, "--html")) {
            html_path = v;
        } else if (!strcmp(a, "--frames")) {
            frames_spec = v;
        } else if (!strcmp(a, "--rig") || !strcmp(a, "--baked")) {
            if (nrigs + 1 >= SKF_RENDER_MAX_PANELS) {
                rc = cli_usage_error("render", "at most %d rigs", SKF_RENDER_MAX_PANELS - 1);
                goto done;
            }
            if (!split_rig(v, !strcmp(a, "--baked"), &rigs[nrigs])) {
                fprintf(stderr, "skinfit: out of memory\n");
                rc = EXIT_BAD_INPUT;
                goto done;
            }
            ++nrigs;
        } else if (!strcmp(a, "--view")) {
            if (!skf_render_view_parse(v, &ro.view)) {
                rc = cli_usage_error("render", "--view: '%s' is not side, front, top or three-quarter", v);
                goto done;
            }
        } else if (!strcmp(a, "--size")) {
            int w, h;
            char tail;
            if (sscanf(v, "%dx%d%c", &w, &h, &tail) != 2 || w < 1 || h < 1 || w > SKF_IMAGE_MAX_SIDE ||
                h > SKF_IMAGE_MAX_SIDE) {
                rc = cli_usage_error("render", "--size: '%s' is not WxH with 1..%d pixels per side", v,
                                     SKF_IMAGE_MAX_SIDE);
                goto done;
            }
            ro.width = w;
            ro.height = h;
        } else if (!strcmp(a, "--fps")) {
            if (!cli_parse_double(v, &fps) || fps <= 0 || fps > 1e4) {
                rc = cli_usage_error("render", "--fps: '%s' is not a number in (0, 1e4]", v);
                goto done;
            }
        } else if (!strcmp(a, "--supersample")) {
            double s;
            if (!cli_parse_double(v, &s) || s != floor(s) || s < 1 || s > 8) {
                rc = cli_usage_error("render", "--supersample: '%s' is not an integer in 1..8", v);
                goto done;
            }
            ro.supersample = (int)s;
        }
    }
    if (!source_path) {
        rc = cli_usage_error("render", "missing --source ARTIST.glb");
        goto done;
    }
    if (!clip_name) {
        rc = cli_usage_error("render", "missing --clip NAME");
        goto done;
    }
    if (!out_path) {
        rc = cli_usage_error("render", "missing -o OUT.png|OUT.gif");
        goto done;
    }
    size_t ol = strlen(out_path);
    bool gif = ol > 4 && !strcasecmp(out_path + ol - 4, ".gif");
    if (!gif && !(ol > 4 && !strcasecmp(out_path + ol - 4, ".png"))) {
        rc = cli_usage_error("render", "-o %s: the output must end in .png or .gif", out_path);
        goto done;
    }
    cli_guard_input(&guard, source_path, NULL);
    for (size_t r = 0; r < nrigs; ++r)
        cli_guard_input(&guard, rigs[r].path, NULL);
    if ((rc = cli_guard_output(&guard, "-o", out_path)) ||
        (rc = cli_guard_output(&guard, "--html", html_path)) || (rc = cli_guard_check(&guard)))
        goto done;
    if (ro.width && ro.width / (int)(nrigs + 1) < 8) {
        rc = cli_usage_error("render", "--size %dx%d: too narrow for %zu panels", ro.width, ro.height,
                             nrigs + 1);
        goto done;
    }

    skf_error err = {0};
    skf_warnings w = {0};
    skf_gltf *source = NULL, *docs[SKF_RENDER_MAX_PANELS] = {0};
    skf_heatmap *clip = NULL;
    size_t *frames = NULL, nframes = 0;
    char title[256];
    cli_progress prog;
    skf_progress progress;
    cli_progress_init(&prog, &progress);
    skf_status st = cli_gltf_load(source_path, &source, &w, &err);
    if (!st)
        st = skf_heatmap_play(source, clip_name, fps, &clip, &w, &err);
    for (size_t r = 0; !st && r < nrigs; ++r) {
        bool is_source = skf_same_file(rigs[r].path, source_path);
        const skf_gltf *doc = source;
        if (!is_source || rigs[r].baked) {
            st = cli_gltf_load(rigs[r].path, &docs[r], &w, &err);
            doc = docs[r];
        }
        if (st)
            break;
        char label[256];
        if (rigs[r].label)
            snprintf(label, sizeof label, "%s", rigs[r].label);
        else if (is_source && !rigs[r].baked)
            snprintf(label, sizeof label, "artist rig (control)");
        else
            snprintf(label, sizeof label, "%s", basename_of(rigs[r].path));
        skf_progress_report(&progress, (r + 0.5) / (nrigs + 1.0), "solving");
        modes[r] = rigs[r].baked ? "baked" : is_source ? "control" : "free";
        if (rigs[r].baked)
            st = skf_heatmap_add_baked(clip, label, doc, &w, &err);
        else if (is_source)
            st = skf_heatmap_add_control(clip, label, &err);
        else
            st = skf_heatmap_add_solved(clip, label, doc, NULL, &w, &err);
    }
    if (st)
        goto fail;
    cli_guard_gltf(&guard, source);
    for (size_t r = 0; r < nrigs; ++r)
        if (docs[r])
            cli_guard_gltf(&guard, docs[r]);
    if ((rc = cli_guard_check(&guard)))
        goto cleanup;
    size_t F = skf_heatmap_frame_count(clip);
    if (frames_spec) {
        if ((st = cli_parse_frames(frames_spec, F, &frames, &nframes, &err))) {
            rc = cli_usage_error("render", "--frames: %s", err.message);
            goto cleanup;
        }
    } else if (gif) {
        if ((st = cli_parse_frames("all", F, &frames, &nframes, &err)))
            goto fail;
    } else {
        frames = skf_malloc(sizeof *frames);
        if (!frames) {
            st = skf_fail(&err, SKF_ERR_NOMEM, "out of memory");
            goto fail;
        }
        frames[0] = skf_heatmap_worst_frame(clip);
        nframes = 1;
    }
    {
        snprintf(title, sizeof title, "%s · %s", basename_of(source_path),
                 skf_clip_short_name(skf_heatmap_clip_name(clip)));
        ro.title = title;
    }
    st = skf_render_write(skf_heatmap_scene(clip), &ro, frames, nframes, skf_heatmap_fps(clip),
                          out_path, &progress, &err);
    if (st)
        goto fail;
    if (html_path && (st = write_html(html_path, clip, &ro, source_path, modes, argc, argv, &err)))
        goto fail;
    cli_progress_finish(&prog);
    cli_print_warnings(&w);
    for (size_t r = 0; r < skf_heatmap_rig_count(clip); ++r) {
        const skf_transfer_metrics *q = skf_heatmap_rig_metrics(clip, r);
        printf("%-28s quality %9.5f %%  mean %.5f %%  max %.5f %% of the diagonal\n",
               skf_heatmap_scene(clip)->panels[r + 1].label, 100.0 * q->quality, q->mean_error_pct,
               q->max_error_pct);
    }
    printf("wrote %s (%zu frame%s)%s%s\n", out_path, nframes, nframes == 1 ? "" : "s",
           html_path ? " and " : "", html_path ? html_path : "");
    goto cleanup;
fail:
    cli_progress_finish(&prog);
    cli_print_warnings(&w);
    rc = cli_report_error(&err);
cleanup:
    skf_free(frames);
    skf_heatmap_free(clip);
    for (size_t r = 0; r < nrigs; ++r)
        skf_gltf_free(docs[r]);
    skf_gltf_free(source);
    skf_warnings_release(&w);
done:
    cli_guard_release(&guard);
    for (size_t r = 0; r < nrigs; ++r)
        free(rigs[r].path);
    return rc;
}
