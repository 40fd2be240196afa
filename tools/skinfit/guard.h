/* The outputs of one run against everything it reads (docs/faults.md,
 * "what we promise"): an output never replaces a file the run reads (the
 * input itself, a glTF's external buffers and images, rest meshes, OBJ
 * frames, manifests and the rigs they name), and two outputs of one run
 * never name the same file. Files are compared by identity (device + inode
 * after following symlinks, so "./a", "dir/../a", links and hard links are
 * the same file); outputs that do not exist yet by their folder's identity
 * plus their name. */
#ifndef SKF_GUARD_H
#define SKF_GUARD_H

#include "skinfit/gltf.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct cli_guard_in {
    dev_t dev;
    ino_t ino;
    char *path;
    char *why;          /* "fox.gltf: buffers[0].uri", or NULL for a file named on the command line */
} cli_guard_in;

typedef struct cli_guard_out {
    const char *flag;   /* "-o", "--report" */
    const char *path;   /* as given (not owned) */
    bool dir;           /* a folder output (its files are replaced as a whole) */
} cli_guard_out;

typedef struct cli_guard {
    const char *cmd;
    cli_guard_in *in;
    size_t in_count, in_cap;
    cli_guard_out out[8];
    size_t out_count;
    bool nomem;
} cli_guard;

void cli_guard_init(cli_guard *g, const char *cmd);
void cli_guard_release(cli_guard *g);
/* Register an output. NULL path: ignored. Returns EXIT_OK, or EXIT_USAGE
 * (message printed) when it names the same file as an earlier output. */
int cli_guard_output(cli_guard *g, const char *flag, const char *path);
int cli_guard_output_dir(cli_guard *g, const char *flag, const char *dir);
/* Register a file the run reads; a path that does not exist is ignored (the
 * loader reports it). why: how it is read, for the message (copied; NULL ok). */
void cli_guard_input(cli_guard *g, const char *path, const char *why);
/* Every file of a loaded glTF (the file, external buffers and images). */
void cli_guard_gltf(cli_guard *g, const skf_gltf *doc);
/* Every frame file of an OBJ sequence (folder or pattern), as the reader finds them. */
void cli_guard_objseq(cli_guard *g, const char *where);
/* EXIT_OK, or EXIT_BAD_INPUT after printing "skinfit: OUT: refusing to
 * overwrite an input file (...)". Call after registering (again after
 * loading: loaders reveal more inputs). */
int cli_guard_check(cli_guard *g);

/* EXIT_OK, or EXIT_BAD_INPUT (printed) when writing `path` would replace an input. */
int cli_guard_check_file(cli_guard *g, const char *path);

#endif
