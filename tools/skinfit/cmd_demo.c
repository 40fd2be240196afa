/* skinfit demo: the README's first command. The procedural creature with its
 * artist rig, a second rig of it made by autoweights, and the transfer of
 * both clips from the first onto the second. */
#include "cli.h"
#include "transfer_report.h"

#include "skinfit/creature.h"
#include "skinfit/gltf.h"
#include "skinfit/rig.h"
#include "skinfit/transfer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: skinfit demo [-o DIR] [--vertices N]\n\n"
            "Builds the procedural creature (artist rig, clips Walk and Trot), makes a second\n"
            "rig of it with autoweights, and transfers both clips onto it, printing the\n"
            "table. Writes DIR/creature.glb, DIR/creature_autoweights.glb, DIR/transfer.glb\n"
            "and DIR/report.json.\n\n"
            "  -o, --output DIR   output folder (default out/; created)\n"
            "  --vertices N       creature size, 500 .. 4000000 (default 5000)\n"
            "  -h, --help         this help\n");
}

int cmd_demo(int argc, char **argv)
{
    const char *cmd = "demo", *dir = "out";
    skf_creature_options co = {.vertices = 0};
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return EXIT_OK;
        } else if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
            if (i + 1 >= argc)
                return cli_usage_error(cmd, "%s needs a folder", argv[i]);
            dir = argv[++i];
        } else if (!strcmp(argv[i], "--vertices")) {
            char *end;
            long n = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
            if (i + 1 >= argc || *end || n < 500 || n > 4000000)
                return cli_usage_error(cmd, "--vertices needs an integer in 500 .. 4000000");
            co.vertices = (size_t)n;
            ++i;
        } else {
            return cli_usage_error(cmd, "unknown argument '%s'", argv[i]);
        }
    }
    if (cli_mkdir_p(dir) != 0) {
        fprintf(stderr, "skinfit: %s: cannot create the folder: %s\n", dir, strerror(errno));
        return EXIT_BAD_INPUT;
    }
    char creature[4200], autow[4200], out[4200], report[4200];
    snprintf(creature, sizeof creature, "%s/creature.glb", dir);
    snprintf(autow, sizeof autow, "%s/creature_autoweights.glb", dir);
    snprintf(out, sizeof out, "%s/transfer.glb", dir);
    snprintf(report, sizeof report, "%s/report.json", dir);
    skf_error err = {0};
    skf_warnings w = {0};
    skf_gltf *doc = NULL;
    skf_status st = skf_creature_build(&co, &doc, &err);
    if (!st)
        st = skf_gltf_write_glb(doc, creature, &w, &err);
    skf_gltf_free(doc);
    doc = NULL;
    if (!st)
        printf("1. the creature with its artist rig: %s\n", creature);
    /* the second rig: the same mesh and skeleton, weights from autoweights */
    skf_autoweights_options o = {4, 2};
    if (!st)
        st = cli_gltf_load(creature, &doc, &w, &err);
    if (!st)
        st = skf_autoweights_gltf(doc, 0, &o, &w, &err);
    if (!st)
        st = skf_gltf_write_glb(doc, autow, &w, &err);
    skf_gltf_free(doc);
    cli_print_warnings(&w);
    skf_warnings_release(&w);
    if (st)
        return cli_report_error(&err);
    printf("2. a second rig (autoweights, K = 4, P = 2): %s\n", autow);
    printf("3. transfer of every clip from the artist rig onto the second rig (2000 constraints):\n\n");
    /* both modes (the rotation-only price beside the free quality), on 2000
     * constraints spread evenly over the surface, as the article did */
    char *targv[] = {"transfer", "--source", creature, "--target", autow, "--all-clips", "--mode", "both",
                     "--max-constraints", "2000", "-o", out, "--report", report, NULL};
    return tr_command((int)(sizeof targv / sizeof targv[0]) - 1, targv, false);
}
