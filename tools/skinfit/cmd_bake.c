/* skinfit bake FILE --clip NAME [--fps F] [--weld] [--skin S] -o OUT.pc2|DIR/|PATTERN%d.obj
 * Sample a clip of a glTF file into world-space vertex positions (frame
 * times: docs/conventions.md "Clips and frames") and write a PC2 point cache
 * or an OBJ sequence. */
#include "cli.h"
#include "guard.h"

#include "skinfit/gltf.h"
#include "skinfit/rig.h"
#include "skinfit/meshseq.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: skinfit bake FILE --clip NAME [--fps F] [--weld] [--skin S] [--threads N] -o OUT\n\n"
            "Evaluate clip NAME of a glTF/GLB file (linear blend skinning, morph targets)\n"
            "and write the world-space vertex positions of every frame.\n\n"
            "  --clip NAME   clip name, with or without its armature prefix\n"
            "                ('AnimalArmature|Walk' or 'Walk')\n"
            "  --fps F       frames per second (default: the clip's key rate); frame k is\n"
            "                at start + k/F through the clip's end\n"
            "  --weld        merge coincident vertices (same position and weights)\n"
            "  --skin S      skin index (default 0; -1 or files without skins: the\n"
            "                meshes not bound to a skin, moving with their nodes)\n"
            "  --threads N   skinning threads (default: all)\n"
            "  -o OUT        OUT.pc2: PC2 point cache; DIR/ (or an existing folder):\n"
            "                DIR/frame_0000.obj ...; a pattern with one %%d: OBJ files\n");
}

int cmd_bake(int argc, char **argv)
{
    const char *file = NULL, *clip_name = NULL, *out_path = NULL;
    double fps = 0;
    bool weld = false;
    long skin = -2, threads = 0;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return EXIT_OK;
        } else if (!strcmp(a, "--weld")) {
            weld = true;
        } else if (!strcmp(a, "--clip") || !strcmp(a, "--fps") || !strcmp(a, "-o") ||
                   !strcmp(a, "--skin") || !strcmp(a, "--threads")) {
            if (i + 1 >= argc)
                return cli_usage_error("bake", "%s needs a value", a);
            const char *v = argv[++i];
            if (!strcmp(a, "--clip")) {
                clip_name = v;
            } else if (!strcmp(a, "-o")) {
                out_path = v;
            } else if (!strcmp(a, "--fps")) {
                if (!cli_parse_double(v, &fps) || fps <= 0 || fps > 1e6)
                    return cli_usage_error("bake", "--fps: '%s' is not a number in (0, 1e6]", v);
            } else {
                char *end;
                errno = 0;
                long n = strtol(v, &end, 10);
                if (end == v || *end || errno || n < -1 || n > 1 << 20)
                    return cli_usage_error("bake", "%s: '%s' is not a valid number", a, v);
                if (!strcmp(a, "--skin"))
                    skin = n;
                else
                    threads = n;
            }
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("bake", "unknown option '%s'", a);
        } else if (!file) {
            file = a;
        } else {
            return cli_usage_error("bake", "one FILE expected, got '%s' too", a);
        }
    }
    if (!file)
        return cli_usage_error("bake", "missing FILE");
    if (!clip_name)
        return cli_usage_error("bake", "missing --clip NAME");
    if (!out_path)
        return cli_usage_error("bake", "missing -o OUT");
    struct stat sb;
    bool out_dir = (strlen(out_path) && out_path[strlen(out_path) - 1] == '/') ||
                   (stat(out_path, &sb) == 0 && S_ISDIR(sb.st_mode));
    bool out_pc2 = !out_dir && cli_ends_with(out_path, ".pc2");
    if (!out_dir && !out_pc2 && !strchr(out_path, '%'))
        return cli_usage_error("bake", "-o %s: use OUT.pc2, a folder ending in '/', or a pattern with %%d",
                               out_path);
    cli_guard g;
    cli_guard_init(&g, "bake");
    cli_guard_input(&g, file, NULL);
    int grc = out_dir ? cli_guard_output_dir(&g, "-o", out_path) : cli_guard_output(&g, "-o", out_path);
    if (!grc)
        grc = cli_guard_check(&g);
    if (grc) {
        cli_guard_release(&g);
        return grc;
    }

    skf_error err = {0};
    skf_warnings w = {0};
    skf_gltf *doc = NULL;
    skf_rig *rig = NULL;
    skf_clip *clip = NULL;
    skf_meshseq *seq = NULL;
    int rc = EXIT_OK;
    skf_status st = cli_gltf_load(file, &doc, &w, &err);
    if (st)
        goto fail;
    cli_guard_gltf(&g, doc);
    if ((rc = cli_guard_check(&g)))
        goto done;
    int anim = cli_find_clip(doc, clip_name, &err);
    if (anim < 0)
        goto fail;
    if (skin == -2)
        skin = doc->skin_count ? 0 : -1;
    if (skin >= 0 && (size_t)skin >= doc->skin_count) {
        rc = cli_usage_error("bake", "--skin %ld: the file has %zu skins", skin, doc->skin_count);
        goto done;
    }
    if ((st = skf_rig_from_gltf(doc, (int)skin, NULL, &rig, &w, &err)))
        goto fail;
    if (weld) {
        skf_rig *welded = NULL;
        if ((st = skf_rig_weld(rig, &welded, NULL, &err)))
            goto fail;
        skf_rig_free(rig);
        rig = welded;
    }
    if ((st = skf_clip_from_gltf(doc, anim, &clip, &err)))
        goto fail;
    if (rig->vertex_count == 0) {
        fprintf(stderr, "skinfit: %s: %s has no vertices to bake\n", file,
                skin >= 0 ? "the skin" : "the unskinned surface");
        rc = EXIT_BAD_INPUT;
        goto done;
    }
    cli_progress prog;
    skf_progress progress;
    cli_progress_init(&prog, &progress);
    st = skf_rig_bake(rig, clip, fps, (int)threads, &progress, &seq, &err);
    cli_progress_finish(&prog);
    if (st) {   /* the library names the clip; the line names the file too */
        char text[SKF_ERROR_MESSAGE_MAX + 128];
        fprintf(stderr, "skinfit: %s: animations[%d]: %s\n", file, anim,
                cli_error_text(&err, text, sizeof text));
        rc = EXIT_BAD_INPUT;
        goto done;
    }
    if (!out_dir && !out_pc2)   /* a pattern: each frame file it names */
        for (size_t f = 0; !rc && f < seq->frame_count; ++f) {
            char name[4096];
            if (!skf_objseq_frame_file(out_path, f, name, sizeof name, NULL))
                rc = cli_guard_check_file(&g, name);
        }
    if (rc)
        goto done;
    st = out_pc2 ? skf_pc2_write(out_path, seq, &err) : skf_objseq_write(out_path, seq, &err);
    if (st)
        goto fail;
    printf("baked '%s' of %s: %zu frames at %.6g fps from %.6g s, %zu vertices%s -> %s\n",
           clip->name ? clip->name : clip_name, file, seq->frame_count, seq->fps, seq->start_time,
           seq->vertex_count, weld ? " (welded)" : "", out_path);
    goto done;
fail:
    rc = cli_report_error(&err);
done:
    cli_guard_release(&g);
    cli_print_warnings(&w);
    skf_warnings_release(&w);
    skf_meshseq_free(seq);
    skf_clip_free(clip);
    skf_rig_free(rig);
    skf_gltf_free(doc);
    return rc;
}
