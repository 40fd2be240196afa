/* Shared helpers for the command-line tool (the only place that prints/exits). */
#ifndef SKF_CLI_H
#define SKF_CLI_H

#include "skinfit/base.h"

#include <stdio.h>

enum { EXIT_OK = 0, EXIT_BAD_INPUT = 1, EXIT_USAGE = 2, EXIT_QUALITY = 3 };

#define SKF_COMMAND(name, summary) int cmd_##name(int argc, char **argv);
#include "commands.def"
#undef SKF_COMMAND

/* Print "skinfit: <message>" on stderr; returns EXIT_BAD_INPUT (or
 * EXIT_USAGE for SKF_ERR_ARGUMENT when usage_for_argument). */
int cli_report_error(const skf_error *err);
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
/* A frame list (render --frames, tools/skinfit/cli_frames.c): "all" (→
 * 0..frame_count-1) or comma-separated indices and inclusive ranges
 * "0,5,10-12" (each < frame_count). *out is skf_malloc'ed. */
skf_status cli_parse_frames(const char *spec, size_t frame_count, size_t **out, size_t *out_count,
                            skf_error *err);
/* s ends with suffix, ASCII case-insensitively (".GLB" matches ".glb"). */
bool cli_ends_with(const char *s, const char *suffix);

#endif
