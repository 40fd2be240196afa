/* skinfit — git-style command dispatcher. Each command lives in cmd_<name>.c
 * and is listed in commands.def. */
#include "cli.h"

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
                 "       skinfit --version\n\n"
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

int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("skinfit %s\n", SKF_VERSION_STRING);
    return EXIT_OK;
}

int main(int argc, char **argv)
{
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
