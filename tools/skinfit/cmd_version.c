/* skinfit version: print the version (its own file, like every command, so
 * the command table links without main.c — tests/faults runs commands
 * in-process). */
#include "cli.h"

int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("skinfit %s\n", SKF_VERSION_STRING);
    return EXIT_OK;
}
