/* skinfit — git-style command dispatcher. Each command lives in cmd_<name>.c
 * and is listed in commands.def. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

typedef struct command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
} command;

static const command commands[] = {
#define SKF_COMMAND(name, summary) {#name, summary, cmd_##name},
#include "commands.def"
#undef SKF_COMMAND
};

/* Table names are C identifiers (demo_asset); users type demo-asset. */
static bool name_is(const char *table_name, const char *arg)
{
    for (; *table_name && *arg; ++table_name, ++arg)
        if (*table_name != *arg && !(*table_name == '_' && *arg == '-'))
            return false;
    return !*table_name && !*arg;
}

static void print_help(FILE *out)
{
    fprintf(out, "usage: skinfit <command> [options]\n"
                 "       skinfit <command> --help\n"
                 "       skinfit --version\n"
                 "global options (before or after the command; also $SKINFIT_LIMITS=\"NAME=N,...\"):\n"
                 "  --limit NAME=N   raise or lower an input limit (list: skinfit limits)\n"
                 "  --progress       when stderr is not a terminal, print a progress line\n"
                 "                   every 5 s (on a terminal a bar is always drawn)\n"
                 "  --allow-outside-refs  let a .gltf's buffer and image URIs name files\n"
                 "                   outside its folder (refused by default; trusted files only)\n\n"
                 "Fits linear-blend-skinned rigs to surfaces.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i) {
        char shown[64];
        snprintf(shown, sizeof shown, "%s", commands[i].name);
        for (char *c = shown; *c; ++c)
            if (*c == '_')
                *c = '-';
        fprintf(out, "  %-12s %s\n", shown, commands[i].summary);
    }
    fprintf(out, "\nexit codes: 0 ok, 1 bad input or I/O error, 2 usage error, 3 quality gate not met\n");
}

/* Global limit options (docs/limits.md): $SKINFIT_LIMITS="name=N,name=N"
 * first, then every "--limit NAME=N" / "--limit=NAME=N" anywhere before a
 * "--" (before or after the command), removed from argv so commands never
 * see them. They fill cli_limits (cli.h), the per-call limits every library
 * call of the commands carries; the process-wide table (skinfit/base.h) is
 * left at its defaults. The effective non-default limits are exported in
 * $SKINFIT_LIMITS so child processes (batch workers) inherit them.
 * Returns -1 when all went well, else the exit code. */
static int apply_limits(int *argc, char **argv)
{
    skf_error e;
    const char *env = getenv("SKINFIT_LIMITS");
    if (env && skf_limits_parse_into(&cli_limits, env, &e)) {
        fprintf(stderr, "skinfit: SKINFIT_LIMITS: %s (see 'skinfit limits')\n", e.message);
        return EXIT_USAGE;
    }
    int out = 1, given = 0;
    for (int i = 1; i < *argc; ++i) {
        const char *spec;
        if (!strcmp(argv[i], "--")) {
            while (i < *argc)
                argv[out++] = argv[i++];
            break;
        }
        if (!strcmp(argv[i], "--progress")) {
            setenv("SKF_PROGRESS", "lines", 1);   /* cli_progress_init reads it */
            continue;
        }
        if (!strcmp(argv[i], "--allow-outside-refs")) {
            /* cli_gltf_load reads it; batch workers inherit it */
            setenv("SKF_ALLOW_OUTSIDE_REFS", "1", 1);
            continue;
        }
        if (!strcmp(argv[i], "--limit")) {
            if (i + 1 >= *argc) {
                fprintf(stderr, "skinfit: --limit needs NAME=N (see 'skinfit limits')\n");
                return EXIT_USAGE;
            }
            spec = argv[++i];
        } else if (!strncmp(argv[i], "--limit=", 8)) {
            spec = argv[i] + 8;
        } else {
            argv[out++] = argv[i];
            continue;
        }
        const char *eq = strchr(spec, '=');
        char name[64];
        if (!eq || (size_t)(eq - spec) >= sizeof name) {
            fprintf(stderr, "skinfit: --limit '%s': expected NAME=N (see 'skinfit limits')\n", spec);
            return EXIT_USAGE;
        }
        memcpy(name, spec, (size_t)(eq - spec));
        name[eq - spec] = 0;
        if (skf_limits_set_by_name(&cli_limits, name, eq + 1, &e)) {
            fprintf(stderr, "skinfit: --limit: %s (see 'skinfit limits')\n", e.message);
            return EXIT_USAGE;
        }
        ++given;
    }
    argv[out] = NULL;
    *argc = out;
    if (given) {
        char buf[2048];
        if (skf_limits_format_into(&cli_limits, buf, sizeof buf))
            setenv("SKINFIT_LIMITS", buf, 1);
    }
    return -1;
}

int main(int argc, char **argv)
{
    int rc = apply_limits(&argc, argv);
    if (rc >= 0)
        return rc;
    if (argc < 2) {
        print_help(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "help") || !strcmp(name, "--help") || !strcmp(name, "-h")) {
        if (argc > 2) {
            char *sub[] = {argv[2], "--help", NULL};
            for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
                if (name_is(commands[i].name, argv[2]))
                    return commands[i].run(2, sub);
        }
        print_help(stdout);
        return EXIT_OK;
    }
    if (!strcmp(name, "--version"))
        return cmd_version(argc - 1, argv + 1);
    cli_install_signal_handlers();
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
        if (name_is(commands[i].name, name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "skinfit: '%s' is not a command (see 'skinfit help')\n", name);
    return EXIT_USAGE;
}
