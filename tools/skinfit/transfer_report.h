/* Shared by the transfer, control and demo commands: the terminal table and
 * the JSON report (schema: docs/transfer-report.md). Both print the same
 * numbers: the table rounds them with the formats below, the JSON keeps them
 * in full. */
#ifndef SKF_TRANSFER_REPORT_H
#define SKF_TRANSFER_REPORT_H

#include "skinfit/transfer.h"

#include <stdio.h>

/* Printed formats (also used by tests to compare table and JSON). */
#define TR_FMT_QUALITY "%.6f"   /* 100 × quality */
#define TR_FMT_ERROR "%.3e"     /* % of the diagonal */
#define TR_FMT_SWEEPS "%.1f"
#define TR_FMT_SECONDS "%.3f"

typedef struct tr_run {
    const char *source, *target;   /* paths as given (target NULL: control only) */
    const char *mode;              /* "free", "rotation-only", "both" */
    skf_transfer_info info;
    const skf_transfer_clip *clips;
    size_t clip_count;
} tr_run;

void tr_print_summary(FILE *out, const tr_run *run);
void tr_print_table(FILE *out, const tr_run *run, bool per_frame);
/* The JSON report as a tree (caller json_decref's it); NULL on allocation failure. */
struct json_t *tr_report_json(const tr_run *run);
/* Write the JSON report atomically; returns SKF_OK or fills err. */
skf_status tr_write_report(const char *path, const tr_run *run, skf_error *err);

/* transfer_registration.c (issue 12): the landmarks file, the summary's
 * registration lines and the report's "registration" section (JSON null
 * when the surfaces were the same and no registration ran). */
skf_status tr_read_landmarks(const char *path, skf_transfer_landmark **out, size_t *count, skf_error *err);
void tr_print_registration(FILE *out, const skf_transfer_info *info);
struct json_t *tr_registration_json(const skf_transfer_info *info);

/* Progress of one clip among several: the line names the clip, its place
 * and its frame count ("Walk (clip 1 of 2, 37 frames): free solve"), and
 * the percentage is that clip's. */
typedef struct tr_progress {
    const skf_progress *outer;
    size_t index, count, frames;
    const char *name;
    char label[160];
    skf_progress inner;
} tr_progress;
void tr_progress_init(tr_progress *p, const skf_progress *outer, size_t index, size_t count, const char *name,
                      size_t frames);

/* The baked-run quality a --min-quality gate checks: rotation-only when
 * only that ran, else free; control when no target. */
double tr_gate_quality(const skf_transfer_clip *c, bool has_target);

/* Resolve the clip list: names given (each must exist) or every animation.
 * Returns an skf_malloc'ed array of names (pointers into doc or argv). */
skf_status tr_resolve_clips(const skf_gltf *source, const char *const *names, size_t name_count, bool all,
                            const char ***out, size_t *out_count, skf_error *err);

/* The transfer and control commands (cmd_transfer.c): control_only selects
 * `skinfit control`. */
int tr_command(int argc, char **argv, bool control_only);

#endif
