/* skinfit demo-asset: write the procedural creature as a GLB. */
#include "cli.h"

#include "skinfit/creature.h"

#include <errno.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: skinfit demo-asset -o FILE.glb [--vertices N] [--fps F]\n\n"
            "Writes the procedural four-legged creature: smooth tubes, a 28-joint skeleton,\n"
            "smooth weights (at most 4 influences) and the looping clips Walk and Trot.\n\n"
            "  -o, --output FILE   output GLB (written atomically)\n"
            "  --vertices N        target vertex count, 500 .. 4000000 (default 5000)\n"
            "  --fps F             clip key rate, 4 .. 240 keys per second (default 30)\n"
            "  -h, --help          this help\n");
}

static bool parse_number(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end)
        return false;
    *out = v;
    return true;
}

int cmd_demo_asset(int argc, char **argv)
{
    const char *cmd = "demo-asset";
    const char *output = NULL;
    skf_creature_options opt = {0};
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return EXIT_OK;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (++i >= argc)
                return cli_usage_error(cmd, "%s needs a file name", a);
            output = argv[i];
        } else if (!strcmp(a, "--vertices")) {
            double v;
            if (++i >= argc || !parse_number(argv[i], &v) || v != floor(v) || v < 500 ||
                v > 4000000)
                return cli_usage_error(cmd, "--vertices needs an integer in 500 .. 4000000");
            opt.vertices = (size_t)v;
        } else if (!strcmp(a, "--fps")) {
            double v;
            if (++i >= argc || !parse_number(argv[i], &v) || !(v >= 4 && v <= 240))
                return cli_usage_error(cmd, "--fps needs a number in 4 .. 240");
            opt.keys_per_second = v;
        } else {
            return cli_usage_error(cmd, "unknown argument '%s'", a);
        }
    }
    if (!output)
        return cli_usage_error(cmd, "missing -o FILE.glb");
    skf_error err = {0};
    skf_gltf *doc = NULL;
    if (skf_creature_build(&opt, &doc, &err))
        return cli_report_error(&err);
    skf_warnings w = {0};
    skf_status st = skf_gltf_write_glb(doc, output, &w, &err);
    cli_print_warnings(&w);
    skf_warnings_release(&w);
    size_t verts = 0;
    const skf_gltf_primitive *prim = &doc->meshes[0].primitives[0];
    for (size_t i = 0; i < prim->attribute_count; ++i)
        if (!strcmp(prim->attributes[i].name, "POSITION"))
            verts = doc->accessors[prim->attributes[i].accessor].count;
    size_t joints = doc->skins[0].joint_count;
    skf_gltf_free(doc);
    if (st)
        return cli_report_error(&err);
    printf("wrote %s: %zu vertices, %zu joints, clips Walk and Trot\n", output, verts, joints);
    return EXIT_OK;
}
