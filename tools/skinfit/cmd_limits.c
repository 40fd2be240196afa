/* skinfit limits: list the input limits (name, default, current value,
 * ceiling, what each bounds), so a user who hit one knows what to raise.
 * The values shown include --limit and $SKINFIT_LIMITS (applied in main.c). */
#include "cli.h"

#include <string.h>

static void usage(FILE *out)
{
    fprintf(out,
            "usage: skinfit limits [--names]\n"
            "       skinfit --limit NAME=N <command> ...   (or <command> ... --limit NAME=N)\n"
            "       SKINFIT_LIMITS=\"NAME=N,NAME=N\" skinfit <command> ...\n\n"
            "Lists the caps on input sizes, element counts and hierarchy depths. A file that\n"
            "exceeds one is refused (exit 1) with a message naming the limit; raise it with\n"
            "the global option --limit NAME=N, accepted by every command. N is a positive\n"
            "integer, optionally with k, M, G or T (binary: 64M = 67108864), up to the\n"
            "limit's ceiling. Iteration caps are per-command flags (docs/limits.md).\n\n"
            "  --names      print the names only, one a line\n"
            "  -h, --help   this help\n");
}

int cmd_limits(int argc, char **argv)
{
    bool names = false;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return EXIT_OK;
        }
        if (!strcmp(argv[i], "--names")) {
            names = true;
            continue;
        }
        return cli_usage_error("limits", "unknown option '%s'", argv[i]);
    }
    if (!names)
        printf("%-16s %14s %14s %14s  %s\n", "limit", "default", "current", "ceiling", "bounds");
    for (int i = 0; i < SKF_LIMIT_COUNT; ++i) {
        skf_limit_info info = skf_limit_get_info((skf_limit_id)i);
        if (names)
            printf("%s\n", info.name);
        else
            printf("%-16s %14zu %14zu %14zu  %s (%s)\n", info.name, info.default_value,
                   skf_limits_value(&cli_limits, (skf_limit_id)i), info.max_value, info.bounds,
                   info.checked);
    }
    return EXIT_OK;
}
