/* Shared helpers for the command-line tool (the only place that prints/exits). */
#ifndef SKF_CLI_H
#define SKF_CLI_H

#include "skinfit/base.h"
#include "skinfit/gltf.h"

#include <stdio.h>

enum { EXIT_OK = 0, EXIT_BAD_INPUT = 1, EXIT_USAGE = 2, EXIT_QUALITY = 3 };

#define SKF_COMMAND(name, summary) int cmd_##name(int argc, char **argv);
#include "commands.def"
#undef SKF_COMMAND

/* The per-call limits (skinfit/base.h) every library call the CLI makes
 * carries: filled by main.c from $SKINFIT_LIMITS and --limit (0 = the
 * default; the process-wide table is never set). A limit error naming one
 * of its fields ("(set by the caller: skf_limits.value[...])") reads
 * "(raise it with --limit NAME=N)" in cli_error_text, as one from the
 * table does. */
extern skf_limits cli_limits;
/* cli_gltf_load (below) loads under cli_limits. */

/* Print "skinfit: <text>" on stderr, text = cli_error_text; returns EXIT_BAD_INPUT. */
int cli_report_error(const skf_error *err);

/* What the user sees of a library error or warning: its message plus the
 * command-line hint its data calls for (the library names option fields,
 * never flags): after a limit's tail "the limit NAME=VALUE" the words
 * "(raise it with --limit NAME=N)"; for a solve at an option's cap
 * "(raise it with FLAG N)"; for an unusable option value the field's name
 * replaced by its flag. Returns buf (cap >= 1). */
#define CLI_TEXT_MAX (SKF_ERROR_MESSAGE_MAX + 160)
const char *cli_error_text(const skf_error *err, char *buf, size_t cap);
/* skf_gltf_load with the CLI's load options: --allow-outside-refs (a global
 * option, main.c; exported to batch workers as $SKF_ALLOW_OUTSIDE_REFS=1)
 * sets skf_gltf_load_options.allow_outside_refs. Every command loads glTF
 * files through this. */
struct skf_gltf;
skf_status cli_gltf_load(const char *path, struct skf_gltf **doc, skf_warnings *warnings,
                         skf_error *err);
const char *cli_warning_text(const skf_warning *w, char *buf, size_t cap);
/* The flag that sets a library option field ("skf_transfer_options.max_sweeps"
 * → "--max-sweeps"), or NULL. */
const char *cli_flag_of(const char *option);

/* The document's clips by short name, "Walk, Trot" ("none" when it has
 * none), for "available:" hints; truncated to fit cap. Returns buf. */
struct skf_gltf;
const char *cli_clip_names(const struct skf_gltf *doc, char *buf, size_t cap);
/* Print "skinfit <cmd>: <message>\n" plus a hint to --help; returns EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_print_warnings(const skf_warnings *w);
/* A progress reporter that draws on stderr when it is a terminal and the
 * work has run for more than a second; with `skinfit --progress` and stderr
 * not a terminal, one line "skinfit: progress: …" every 5 s instead.
 * user must point to a cli_progress. */
typedef struct cli_progress {
    double start;
    double last_draw;
    int drawn;
    int tty;
    double delay;   /* seconds before the first draw: 1, or $SKF_PROGRESS_DELAY (tests) */
    int lines;      /* stderr not a terminal: print a line every `interval` s ($SKF_PROGRESS=lines,
                       set by the global --progress flag; inherited by batch workers) */
    double interval;/* 5, or $SKF_PROGRESS_INTERVAL (tests) */
    char label[128]; /* the stage last drawn on a terminal */
} cli_progress;
void cli_progress_init(cli_progress *p, skf_progress *out);
void cli_progress_finish(cli_progress *p);
double cli_now(void);
/* mkdir -p: create dir and its missing parents. 0 when dir exists as a
 * folder afterwards, -1 (errno set) otherwise. */
int cli_mkdir_p(const char *dir);
/* Install SIGINT/SIGTERM handlers that unlink open temporaries and exit 130/143. */
void cli_install_signal_handlers(void);

/* A whole argument as a finite double (no trailing text, no overflow). */
bool cli_parse_double(const char *s, double *out);
/* argv joined into one shell-quoted line (for reports: the command that made
 * them). skf_malloc'ed; NULL when out of memory. */
char *cli_command_line(int argc, char *const *argv);
/* The page's text machinery (skf_render_text_warm_up, render.h) started on
 * a thread of its own while the command loads and solves: the command's
 * wall time loses that serial start-up where a second core is free.
 * cli_text_warm_join waits for it; a no-op when none was started (or the
 * thread could not be: the renderer then starts the text itself). */
typedef struct cli_text_warm {
    unsigned long thread; /* pthread_t */
    bool started;
} cli_text_warm;
void cli_text_warm_start(cli_text_warm *w);
void cli_text_warm_join(cli_text_warm *w);
/* A frame list (render --frames, tools/skinfit/cli_frames.c): "all" (→
 * 0..frame_count-1) or comma-separated indices and inclusive ranges
 * "0,5,10-12" (each < frame_count). *out is skf_malloc'ed. */
skf_status cli_parse_frames(const char *spec, size_t frame_count, size_t **out, size_t *out_count,
                            skf_error *err);
/* s ends with suffix, ASCII case-insensitively (".GLB" matches ".glb"). */
bool cli_ends_with(const char *s, const char *suffix);

/* The animation index of clip `name` in doc, or -1 with err filled by
 * skf_clip_find (kind SKF_KIND_UNKNOWN_CLIP, err->name) and its text
 * extended to "FILE: animations: no clip named 'NAME'[; did you mean 'Name'?
 * (names are case-sensitive)] (available: A, B)" — the one wording of every
 * command (tools/skinfit/cli_clips.c). */
int cli_find_clip(const skf_gltf *doc, const char *name, skf_error *err);

#endif
