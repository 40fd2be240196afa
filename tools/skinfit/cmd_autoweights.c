/* skinfit autoweights: recompute a rig's skin weights from its own skeleton
 * (weight ∝ 1/d^P to each bone segment, top K, normalised). */
#include "cli.h"
#include "guard.h"

#include "skinfit/gltf.h"
#include "skinfit/rig.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: skinfit autoweights RIG.glb -o OUT.glb [--max-influences K] [--falloff P]\n\n"
            "Recomputes the skin weights from the rig's own skeleton: weight ∝ 1 / d^P with d\n"
            "the distance to each bone segment (joint to child joint; a leaf joint is a\n"
            "point), the K largest kept and normalised. Only joints that carried weight\n"
            "before receive weight. Everything else in the file is kept.\n\n"
            "  -o, --output FILE       output GLB (written atomically)\n"
            "  --max-influences K      influences per vertex, 1 .. 8 (default 4)\n"
            "  --falloff P             distance exponent, > 0 (default 2)\n"
            "  -h, --help              this help\n");
}

int cmd_autoweights(int argc, char **argv)
{
    const char *cmd = "autoweights", *input = NULL, *output = NULL;
    skf_autoweights_options o = {4, 2};
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return EXIT_OK;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (!v)
                return cli_usage_error(cmd, "%s needs a file name", a);
            output = v;
            ++i;
        } else if (!strcmp(a, "--max-influences")) {
            long k = v ? strtol(v, &end, 10) : 0;
            if (!v || *end || k < 1 || k > 8)
                return cli_usage_error(cmd, "--max-influences needs an integer in 1 .. 8");
            o.max_influences = (int)k;
            ++i;
        } else if (!strcmp(a, "--falloff")) {
            errno = 0;
            double p = v ? strtod(v, &end) : 0;
            if (!v || *end || errno || !(p > 0 && p <= 64))
                return cli_usage_error(cmd, "--falloff needs a number in (0, 64]");
            o.falloff = p;
            ++i;
        } else if (a[0] != '-' && !input) {
            input = a;
        } else {
            return cli_usage_error(cmd, "unknown argument '%s'", a);
        }
    }
    if (!input)
        return cli_usage_error(cmd, "missing RIG.glb");
    if (!output)
        return cli_usage_error(cmd, "missing -o OUT.glb");
    cli_guard g;
    cli_guard_init(&g, cmd);
    cli_guard_input(&g, input, NULL);
    cli_guard_output(&g, "-o", output);
    int grc = cli_guard_check(&g);
    if (grc) {
        cli_guard_release(&g);
        return grc;
    }
    skf_error err = {0};
    skf_warnings w = {0};
    skf_gltf *doc = NULL;
    skf_status st = cli_gltf_load(input, &doc, &w, &err);
    if (!st) {
        cli_guard_gltf(&g, doc);
        grc = cli_guard_check(&g);
    }
    cli_guard_release(&g);
    if (grc) {
        skf_warnings_release(&w);
        skf_gltf_free(doc);
        return grc;
    }
    if (!st && doc->skin_count == 0)
        st = skf_fail(&err, SKF_ERR_ARGUMENT, "%s: skins: no skin — not a rigged mesh", input);
    if (!st)
        st = skf_autoweights_gltf(doc, 0, &o, &w, &err);
    skf_warnings ww = {0};
    if (!st)
        st = skf_gltf_write_glb(doc, output, &ww, &err);
    cli_print_warnings(&w);
    cli_print_warnings(&ww);
    skf_warnings_release(&w);
    skf_warnings_release(&ww);
    if (!st)
        printf("%s: weights of skin 0 recomputed (%zu joints, K = %d, P = %g); wrote %s\n", input,
               doc->skins[0].joint_count, o.max_influences, o.falloff, output);
    skf_gltf_free(doc);
    return st ? cli_report_error(&err) : EXIT_OK;
}
