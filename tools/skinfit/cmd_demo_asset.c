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
            "usage: skinfit demo-asset -o FILE.glb [--vertices N] [--fps F] [--legs F] [--girth F]\n"
            "                          [--neck F] [--triangulation 0|1] [--horns none|attached|skinned]\n"
            "                          [--diffuse-head] [--knee-bend FL[,FR[,HL[,HR]]]]\n\n"
            "Writes the procedural four-legged creature: smooth tubes, a 28-joint skeleton,\n"
            "smooth weights (at most 4 influences) and the looping clips Walk and Trot.\n\n"
            "  -o, --output FILE   output GLB (written atomically)\n"
            "  --vertices N        target vertex count, 500 .. 4000000 (default 5000)\n"
            "  --fps F             clip key rate, 4 .. 240 keys per second (default 30)\n"
            "Variants (same skeleton, joint names and clip keys; docs/creature.md):\n"
            "  --legs F            leg length factor, 0.5 .. 1.5 (default 1)\n"
            "  --girth F           trunk radius factor, 0.5 .. 1.5 (default 1)\n"
            "  --neck F            neck length factor, 0.5 .. 2 (default 1)\n"
            "  --triangulation T   0: quads split along one diagonal (default), 1: the other\n"
            "  --horns KIND        none (default); attached: a mesh node under the Head joint,\n"
            "                      no skin; skinned: part of the skinned mesh, weight 1 on Head\n"
            "  --diffuse-head      spread 60 %% of the Head's weight onto Neck2 and Neck1\n"
            "  --knee-bend DEGREES rest flexion of the front left, front right, hind left,\n"
            "                      hind right knee (comma-separated, missing ones 0), each\n"
            "                      -60 .. 60, in the sense the clips flex that knee\n"
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

/* "a[,b[,c[,d]]]": each a number in -60 .. 60; the missing ones 0. */
static bool parse_bends(const char *s, double out[4])
{
    char buf[256];
    if (strlen(s) >= sizeof buf)
        return false;
    strcpy(buf, s);
    int n = 0;
    for (char *tok = buf, *next; tok; tok = next, ++n) {
        next = strchr(tok, ',');
        if (next)
            *next++ = '\0';
        double v;
        if (n >= 4 || !parse_number(tok, &v) || !(v >= -60 && v <= 60))
            return false;
        out[n] = v;
    }
    return n > 0;
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
        } else if (!strcmp(a, "--legs") || !strcmp(a, "--girth") || !strcmp(a, "--neck")) {
            double v, hi = strcmp(a, "--neck") ? 1.5 : 2.0;
            if (++i >= argc || !parse_number(argv[i], &v) || !(v >= 0.5 && v <= hi))
                return cli_usage_error(cmd, "%s needs a number in 0.5 .. %g", a, hi);
            *(a[2] == 'l' ? &opt.leg_scale : a[2] == 'g' ? &opt.girth_scale : &opt.neck_scale) = v;
        } else if (!strcmp(a, "--triangulation")) {
            if (++i >= argc || (strcmp(argv[i], "0") && strcmp(argv[i], "1")))
                return cli_usage_error(cmd, "--triangulation needs 0 or 1");
            opt.triangulation = argv[i][0] - '0';
        } else if (!strcmp(a, "--horns")) {
            if (++i >= argc)
                return cli_usage_error(cmd, "--horns needs none, attached or skinned");
            if (!strcmp(argv[i], "none"))
                opt.horns = SKF_CREATURE_HORNS_NONE;
            else if (!strcmp(argv[i], "attached"))
                opt.horns = SKF_CREATURE_HORNS_ATTACHED;
            else if (!strcmp(argv[i], "skinned"))
                opt.horns = SKF_CREATURE_HORNS_SKINNED;
            else
                return cli_usage_error(cmd, "--horns needs none, attached or skinned");
        } else if (!strcmp(a, "--diffuse-head")) {
            opt.diffuse_head = true;
        } else if (!strcmp(a, "--knee-bend")) {
            if (++i >= argc || !parse_bends(argv[i], opt.knee_bend))
                return cli_usage_error(cmd, "--knee-bend needs 1 to 4 comma-separated degrees in -60 .. 60");
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
