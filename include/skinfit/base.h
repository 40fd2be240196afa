/* skinfit/base.h — errors, warnings, allocation, progress, files.
 *
 * Every fallible library call returns skf_status and, on failure, fills an
 * skf_error whose message is ONE line of the form
 *     "<file>: <place>: <what>"
 * where <place> is a JSON path (accessors[12].bufferView), a byte offset
 * (byte 1234), an element id (path#arm_left), or a frame (frame 17).
 * The library never prints and never exits; only tools/ does.
 *
 * Beside the text, errors and warnings carry what a program acts on as data
 * (as ufbx's ufbx_error does): a kind finer than the status where it helps
 * (an unknown clip, an exceeded limit, a solve at its cap), the option field
 * concerned, and the place as separate fields (file, JSON path, byte offset,
 * element id, frame). The text names option FIELDS (max_sweeps), never
 * command-line flags; tools/ maps fields to flags when it prints.
 *
 * Ownership: an skf_error is caller-owned plain data (no release needed).
 * An skf_warnings list owns its items' texts; release with skf_warnings_release.
 */
#ifndef SKINFIT_BASE_H
#define SKINFIT_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SKF_VERSION_STRING "0.1.0"

typedef enum skf_status {
    SKF_OK = 0,
    SKF_ERR_IO,        /* cannot open / read / write a file */
    SKF_ERR_FORMAT,    /* malformed input data (bad syntax, out-of-range index, NaN) */
    SKF_ERR_LIMIT,     /* input exceeds a documented limit (message names it) */
    SKF_ERR_NOMEM,     /* allocation failed */
    SKF_ERR_ARGUMENT,  /* caller passed something unusable (e.g. unknown clip name) */
    SKF_ERR_NUMERIC,   /* a numeric failure: singular matrix, shear that TRS cannot express */
    SKF_ERR_MISMATCH,  /* inputs that do not belong together (surfaces do not match) */
    SKF_ERR_CANCELLED  /* a progress callback asked to stop */
} skf_status;

#define SKF_ERROR_MESSAGE_MAX 1024
#define SKF_LIMIT_NAME_MAX 32

/* What happened, where the status alone is too coarse to act on. */
typedef enum skf_error_kind {
    SKF_KIND_UNSPECIFIED = 0, /* the status says it all */
    SKF_KIND_UNKNOWN_CLIP,    /* no clip matched the name asked for (skf_error.name) */
    SKF_KIND_LIMIT,           /* input exceeds the limit named `limit` (skf_limit_find) */
    SKF_KIND_ITERATION_CAP,   /* a solve stopped at the cap set by option field `option` */
    SKF_KIND_OPTION           /* the value of option field `option` cannot be used as given,
                                 or the input is refused unless that field is set */
} skf_error_kind;

/* Where: each field on its own, empty ("" / -1) when it does not apply. */
typedef struct skf_place {
    char file[256];           /* file or document name, as the caller gave it */
    char json_path[256];      /* "accessors[12].bufferView" */
    int64_t byte_offset;      /* byte offset in the file */
    char element[128];        /* element id ("path#arm_left") */
    int64_t frame;            /* frame index */
} skf_place;

typedef struct skf_error {
    skf_status status;
    char message[SKF_ERROR_MESSAGE_MAX]; /* one line, no trailing newline */
    skf_error_kind kind;
    const char *option;       /* "skf_transfer_options.max_sweeps" (static), or NULL */
    char limit[SKF_LIMIT_NAME_MAX]; /* SKF_KIND_LIMIT: the limit's name ("node-depth"), else "" */
    char name[128];           /* the name asked for (SKF_KIND_UNKNOWN_CLIP), else "" */
    skf_place place;
} skf_error;

/* Fill err (may be NULL) with status and a printf-style message; returns status.
 * Newlines in the formatted message are replaced by spaces. The data fields
 * are reset (kind unspecified, place empty), except that a message carrying
 * skf_limit_exceeded's tail gets kind SKF_KIND_LIMIT and that limit's name. */
skf_status skf_fail(skf_error *err, skf_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
skf_status skf_failv(skf_error *err, skf_status status, const char *fmt, va_list ap);

/* Prepend "prefix: " to an existing message (used to add the file name). */
void skf_error_prefix(skf_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

const char *skf_status_name(skf_status status);

/* Set err's data fields after skf_fail (err may be NULL). skf_error_set_kind:
 * option is a static string or NULL. skf_error_set_place: each argument left
 * NULL / -1 keeps the field as it is, so callers can add what they know. */
void skf_error_set_kind(skf_error *err, skf_error_kind kind, const char *option);
void skf_error_set_place(skf_error *err, const char *file, const char *json_path, int64_t byte_offset,
                         const char *element, int64_t frame);
/* An empty place (strings "", numbers -1). */
void skf_place_clear(skf_place *place);

/* Recoverable oddities (weights renormalised, solve hit its cap, ...): one
 * item each, text plus the same data an error carries. */
typedef struct skf_warning {
    char *text;               /* one line, owned */
    skf_error_kind kind;
    const char *option;       /* option field concerned (static), or NULL */
    char limit[SKF_LIMIT_NAME_MAX]; /* the limit's name when the text carries its tail, else "" */
    skf_place place;
} skf_warning;

typedef struct skf_warnings {
    skf_warning *items;
    size_t count;
    size_t capacity;
} skf_warnings;

/* Append a formatted warning; w may be NULL (then it is dropped). Allocation
 * failure drops the warning silently (warnings are advisory). skf_warn_as
 * also records kind and option and returns the item (NULL when dropped), so
 * the caller can fill its place. */
void skf_warn(skf_warnings *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
skf_warning *skf_warn_as(skf_warnings *w, skf_error_kind kind, const char *option, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void skf_warnings_release(skf_warnings *w);

/* ---- allocation -------------------------------------------------------
 * All library allocations go through these, so tests can fail the n-th
 * allocation (fault injection). skf_calloc and skf_malloc_array check n*size
 * for overflow and return NULL on it. */
void *skf_malloc(size_t size);
void *skf_calloc(size_t n, size_t size);
void *skf_malloc_array(size_t n, size_t size);
void *skf_realloc_array(void *p, size_t n, size_t size);
void skf_free(void *p);
char *skf_strdup(const char *s);

/* Test hook: the n-th allocation from now on (1-based) and every later one
 * fail while fail_from > 0; 0 disables. Returns the number of allocations
 * made since the last call. Process-wide: for tests only. */
size_t skf_alloc_fail_from(size_t n);

/* Test hook: the largest single request (bytes) seen by the wrappers since
 * the last reset; reset clears it. Lets tests prove that a header claiming a
 * huge count is refused before anything of that size is requested. */
size_t skf_alloc_largest_request(bool reset);

/* ---- progress / cancellation -----------------------------------------
 * Long operations take an optional skf_progress*. report may be NULL.
 * fraction in [0,1]; what is a short phase name. If report returns non-zero
 * the operation stops and returns SKF_ERR_CANCELLED. */
typedef struct skf_progress {
    int (*report)(void *user, double fraction, const char *what);
    void *user;
} skf_progress;

/* Returns non-zero when the operation should stop. p may be NULL. */
int skf_progress_report(const skf_progress *p, double fraction, const char *what);

/* ---- files -------------------------------------------------------------- */

/* Read a whole regular file. *data is NUL-terminated (not counted in *size),
 * owned by the caller (skf_free). Errors: missing file, a directory,
 * unreadable, larger than max_size ("limit") — message names the file. */
skf_status skf_read_file(const char *path, size_t max_size, uint8_t **data, size_t *size,
                         skf_error *err);

/* ---- limits ---------------------------------------------------------------
 * Caps on what untrusted input may make the library do: file sizes, element
 * counts, hierarchy depths. Each has a name (used by `skinfit --limit
 * NAME=N` and by $SKINFIT_LIMITS), a default, and a ceiling above which it
 * cannot be raised (where a fixed-size structure or the file format stops).
 * A reader that hits one fails with SKF_ERR_LIMIT, kind SKF_KIND_LIMIT, the
 * limit's name in skf_error.limit and a one-line message
 *     "<file>: <place>: <what> exceeds the limit NAME=VALUE"
 * (the CLI adds how to raise it: "(raise it with --limit NAME=N)").
 * Limits that only mirror a file format (GLB's 4 GiB, PC2's int32 counts,
 * glTF JOINTS' 65535) are not listed here: they are not adjustable and their
 * messages say they are the format's. docs/limits.md lists every limit.
 *
 * Every call that checks a limit takes it per call, in its options struct
 * (an skf_limits, "per-call limits" below): skf_gltf_load_options,
 * skf_meshseq_read_options, skf_alembic_options, skf_svg_load_options,
 * skf_svg_poses_options, skf_batch_options, skf_solve_options,
 * skf_decompose_options, skf_transfer_options. A call without options of
 * its own takes the limits of the object it works on, which kept those of
 * the call that made it: skf_gltf.limits (reparse, the writer, the rig
 * build, the transfer's node walk), skf_rig.limits (skf_rig_bake).
 * Where a call's limits are NULL or a value is 0, the PROCESS-WIDE table
 * below applies: the defaults, unless a program set it (skf_limit_set; like
 * libxml2's XML_PARSE_HUGE switch: set it once at start-up, before any
 * library call runs on another thread). The table is read only through
 * skf_limits_value / skf_limits_exceeded; the skinfit CLI never sets it
 * (it fills one skf_limits from --limit and passes it everywhere). */
typedef enum skf_limit_id {
    SKF_LIMIT_FILE_BYTES,      /* bytes of one glTF/GLB file or external buffer */
    SKF_LIMIT_NODE_DEPTH,      /* depth of the glTF node hierarchy (root = 0) */
    SKF_LIMIT_ACCESSOR_VALUES, /* values of a glTF accessor without a bufferView */
    SKF_LIMIT_BONES,           /* bones of a rig handed to the solver */
    SKF_LIMIT_CACHE_BYTES,     /* bytes of a PC2 / MDD / OBJ frame / Alembic file */
    SKF_LIMIT_VERTICES,        /* vertices of a point cache (PC2, MDD, OBJ, Alembic) */
    SKF_LIMIT_FRAMES,          /* frames of a point cache or of a baked clip */
    SKF_LIMIT_ALEMBIC_DEPTH,   /* depth of an Alembic object hierarchy */
    SKF_LIMIT_ALEMBIC_OBJECTS, /* objects visited in an Alembic archive */
    SKF_LIMIT_SVG_BYTES,       /* bytes of an SVG character file */
    SKF_LIMIT_SVG_DEPTH,       /* element nesting depth of an SVG document */
    SKF_LIMIT_PATH_NODES,      /* Bézier nodes in one SVG path's d attribute */
    SKF_LIMIT_KEYPOINT_BYTES,  /* bytes of a pose keypoint JSON file */
    SKF_LIMIT_MANIFEST_BYTES,  /* bytes of a batch manifest */
    SKF_LIMIT_BATCH_JOBS,      /* jobs in a batch manifest */
    SKF_LIMIT_DOCUMENT_VALUES, /* values of all accessors of one glTF document together */
    SKF_LIMIT_COUNT
} skf_limit_id;

typedef struct skf_limit_info {
    const char *name;     /* "node-depth" */
    size_t default_value;
    size_t value;         /* current */
    size_t max_value;     /* ceiling: set refuses more */
    const char *bounds;   /* what it bounds, one phrase */
    const char *checked;  /* where it is checked (reader / stage) */
} skf_limit_info;

/* Current value of a limit (default unless set). */
size_t skf_limit(skf_limit_id id);
/* Name, default, current value, ceiling and description of limit id. */
skf_limit_info skf_limit_get_info(skf_limit_id id);
/* The id of the limit called name; false when there is none. */
bool skf_limit_find(const char *name, skf_limit_id *out);
/* Set a limit to value in [1, max_value]; SKF_ERR_ARGUMENT otherwise. */
skf_status skf_limit_set(skf_limit_id id, size_t value, skf_error *err);
/* Set by name from text: a positive decimal integer, optionally followed by
 * k, M, G or T (binary multiples: 64M = 64 << 20). SKF_ERR_ARGUMENT with a
 * one-line message for an unknown name, a non-number, 0 or a value above
 * the ceiling. */
skf_status skf_limit_set_by_name(const char *name, const char *value, skf_error *err);
/* Apply "name=N,name=N" (the $SKINFIT_LIMITS syntax; spaces around items
 * allowed, empty items ignored). Stops at the first bad item. */
skf_status skf_limits_parse(const char *spec, skf_error *err);
/* Write the limits that differ from their defaults as "name=N,name=N"
 * (empty string when none) into out; returns false when it did not fit. */
bool skf_limits_format(char *out, size_t out_size);
/* Restore every default. */
void skf_limits_reset(void);

/* The tail of a limit error, "the limit NAME=VALUE", in a struct so it can be
 * used inside one call's arguments (skf_fail recognises it and sets the
 * error's kind and limit name):
 *     skf_fail(err, SKF_ERR_LIMIT, "%s: %zu bones exceed %s", f, n,
 *              skf_limit_exceeded(SKF_LIMIT_BONES).text);
 * (the temporary lives until the end of that full expression, C11 6.2.4). */
typedef struct skf_limit_text {
    char text[160];
} skf_limit_text;
skf_limit_text skf_limit_exceeded(skf_limit_id id);

/* ---- per-call limits ------------------------------------------------------
 * The same limits for one call, carried by its options struct (the list
 * above), so two threads can read with different caps. value[id] is the cap
 * for limit id during that call; 0 takes the process-wide value (skf_limit(id):
 * the default unless a program set the table). A NULL pointer means all 0.
 * The CLI's --limit and $SKINFIT_LIMITS fill one skf_limits (tools/skinfit
 * cli_limits) that every call it makes carries. A reader stopped by a per-call value
 * says so in its message: "... exceeds the limit node-depth=3 (set by the
 * caller: skf_limits.value[SKF_LIMIT_NODE_DEPTH])". Zero-initialise, then
 * skf_limits_set the caps to change. */
typedef struct skf_limits {
    size_t value[SKF_LIMIT_COUNT];
} skf_limits;

/* Set value[id] to value in [1, ceiling]; SKF_ERR_ARGUMENT (limits
 * untouched) otherwise, with skf_limit_set's messages. */
skf_status skf_limits_set(skf_limits *limits, skf_limit_id id, size_t value, skf_error *err);
/* skf_limit_set_by_name, skf_limits_parse and skf_limits_format for an
 * skf_limits instead of the table: set one by name (the same syntax and
 * messages; limits untouched on error), apply a "name=N,name=N" spec (items
 * before a bad one stay set), write the values that are set and differ from
 * their defaults ($SKINFIT_LIMITS for child processes). */
skf_status skf_limits_set_by_name(skf_limits *limits, const char *name, const char *value,
                                  skf_error *err);
skf_status skf_limits_parse_into(skf_limits *limits, const char *spec, skf_error *err);
bool skf_limits_format_into(const skf_limits *limits, char *out, size_t out_size);
/* The cap in effect for id: limits->value[id] when limits is not NULL and
 * the value is not 0 (never above the ceiling), else skf_limit(id). */
size_t skf_limits_value(const skf_limits *limits, skf_limit_id id);
/* skf_limit_exceeded for the cap in effect: the process-wide text when it
 * comes from the table, the per-call text above when from limits. */
skf_limit_text skf_limits_exceeded(const skf_limits *limits, skf_limit_id id);
/* skf_read_file with the cap of limit id under limits (NULL: the
 * process-wide value) and that limit's message tail. */
skf_status skf_read_file_limits(const char *path, const skf_limits *limits, skf_limit_id id,
                                uint8_t **data, size_t *size, skf_error *err);

/* Atomic output: write to "<path>.tmp-XXXXXX" in the same directory (the
 * name cut so the temporary's last component fits NAME_MAX), then
 * rename over path on commit; abort unlinks the temporary. A failed or
 * interrupted run therefore never leaves a partial file under path.
 * Refuses (SKF_ERR_ARGUMENT) when path names one of the protected inputs. */
typedef struct skf_atomic_file {
    void *fp;           /* FILE* */
    char *final_path;
    char *temp_path;
} skf_atomic_file;

skf_status skf_atomic_open(skf_atomic_file *f, const char *path, skf_error *err);
skf_status skf_atomic_write(skf_atomic_file *f, const void *data, size_t size, skf_error *err);
skf_status skf_atomic_commit(skf_atomic_file *f, skf_error *err);
void skf_atomic_abort(skf_atomic_file *f);

/* Atomic output folders (frame sequences): files are written into a
 * temporary sibling folder "<path>.tmp-XXXXXX" (temp_path), and commit
 * moves it into place — by rename when path does not exist, else by one
 * atomic exchange (renameat2 RENAME_EXCHANGE) with the existing folder,
 * whose old files are then removed. An existing folder must hold only files
 * `ours` accepts (the previous run's frames; NULL: an empty folder), else
 * open (checked early) or commit fails (SKF_ERR_IO naming the first other
 * file) and nothing changes. abort (and the signal-time cleanup) removes the temporary folder
 * and its files. A reader therefore sees all old frames or all new ones,
 * never a mix, whatever interrupts the run. */
typedef struct skf_atomic_dir {
    char *final_path;   /* without trailing '/' */
    char *temp_path;
} skf_atomic_dir;
skf_status skf_atomic_dir_open(skf_atomic_dir *d, const char *path, bool (*ours)(const char *name),
                               skf_error *err);
skf_status skf_atomic_dir_commit(skf_atomic_dir *d, bool (*ours)(const char *name), skf_error *err);
void skf_atomic_dir_abort(skf_atomic_dir *d);
/* name is "frame_<digits><ext>" (a frame a sequence writer made; ext ".obj"). */
bool skf_is_frame_name(const char *name, const char *ext);

/* Staged outputs, for a run with several outputs that must commit all or
 * none: skf_stage_open reserves "<path>.stage-XXXXXX" beside path (an empty
 * file, removed by the signal-time cleanup); the run writes each output to
 * its temp_path (atomically, with any writer); skf_stage_commit renames
 * every staged file over its final path (renames within one folder; after
 * the first failing rename, the rest are discarded), skf_stage_abort
 * removes them all. A failure before commit leaves every output as it was. */
typedef struct skf_staged {
    char *final_path;
    char *temp_path;    /* NULL: unused slot (ignored by commit and abort) */
} skf_staged;
skf_status skf_stage_open(skf_staged *s, const char *path, skf_error *err);
skf_status skf_stage_commit(skf_staged *s, size_t n, skf_error *err);
void skf_stage_abort(skf_staged *s, size_t n);
/* Messages name the final paths: replace a staged temp_path in err->message. */
void skf_stage_fix_message(const skf_staged *s, size_t n, skf_error *err);

/* Convenience: atomically write a whole buffer to path. */
skf_status skf_write_file_atomic(const char *path, const void *data, size_t size, skf_error *err);

/* True when a and b name the same existing file (same device and inode). */
bool skf_same_file(const char *a, const char *b);

/* Process-wide list of temporaries currently open by skf_atomic_open, so a
 * signal handler in tools/ can unlink them (async-signal-safe walk). */
void skf_atomic_unlink_all_temporaries(void);

#ifdef __cplusplus
}
#endif
#endif
