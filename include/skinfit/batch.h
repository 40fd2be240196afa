/* skinfit/batch.h — batch manifests for baking many (rig × clip) transfer
 * jobs: parsing, deterministic job names, scheduling order, sharding, and
 * the stamps that make runs resumable.
 *
 * Manifest (docs/batch.md): {"defaults": {...}, "jobs": [{...}, ...]} or a
 * bare array of jobs. A job: source, target (paths, relative ones resolve
 * against the manifest's folder), clips ("all" or a list of names), mode
 * ("free", "rotation-only", "both"), fps, max_constraints, min_quality, and
 * an optional name (the output base name). Ownership: skf_batch_free
 * releases everything skf_batch_load made.
 */
#ifndef SKINFIT_BATCH_H
#define SKINFIT_BATCH_H

#include "skinfit/base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SKF_BATCH_MAX_JOBS 1000000 /* default of the batch-jobs limit (base.h) */
#define SKF_BATCH_MAX_NAME 200

typedef struct skf_batch_job {
    size_t index;            /* position in the manifest */
    char *name;              /* unique, [A-Za-z0-9._-]+ ; outputs are OUTDIR/<name>.glb/.json */
    char *source, *target;   /* resolved paths */
    char **clips;            /* clip names as typed; NULL when all_clips */
    size_t clip_count;
    bool all_clips;
    int mode;                /* skf_transfer_mode values: 1 free, 2 rotation-only, 3 both */
    double fps;              /* <= 0: each clip's key rate */
    size_t max_constraints;  /* 0: all */
    double min_quality;      /* gate as a fraction in [0,1]; < 0 when none */
    uint64_t cost;           /* scheduling estimate (bytes of the inputs × clips) */
} skf_batch_job;

typedef struct skf_batch {
    char *manifest_path;
    skf_batch_job *jobs;
    size_t job_count;
} skf_batch;

/* Options of skf_batch_load / skf_batch_load_memory. */
typedef struct skf_batch_options {
    /* this load's caps (base.h "per-call limits"): manifest-bytes (the
     * file; default 64 MiB; skf_batch_load only) and batch-jobs (jobs in the
     * list; default SKF_BATCH_MAX_JOBS). NULL, or a value 0: the
     * process-wide value. */
    const skf_limits *limits;
} skf_batch_options;

/* Parse a manifest. Errors name the file and the JSON path:
 * "jobs.json: jobs[3].mode: 'fast' is not one of free, rotation-only, both".
 * opts may be NULL. */
skf_status skf_batch_load(const char *manifest_path, const skf_batch_options *opts, skf_batch **out,
                          skf_error *err);
skf_status skf_batch_load_memory(const char *json, size_t size, const char *manifest_path,
                                 const skf_batch_options *opts, skf_batch **out, skf_error *err);
void skf_batch_free(skf_batch *b);

/* Job indices in scheduling order: largest cost first, ties by index. order
 * receives job_count entries. */
void skf_batch_order(const skf_batch *b, size_t *order);

/* Shard k of n (1-based, 1 <= k <= n): job i belongs to it when i % n == k - 1.
 * The n shards partition the jobs. */
bool skf_batch_in_shard(size_t job_index, size_t k, size_t n);

/* The stamp of a job: SHA-256 hex over the skinfit version, the SHA-256 of
 * both input files, and every option that changes the output. Errors: an
 * input that cannot be read (the job then fails; the others go on). */
skf_status skf_batch_job_stamp(const skf_batch_job *job, char stamp[65], skf_error *err);

/* True when OUTDIR/<name>.json exists, records made_from.stamp == stamp and
 * output.sha256 equal to the SHA-256 of OUTDIR/<name>.glb: the job's outputs
 * are complete and current. */
bool skf_batch_job_is_current(const skf_batch_job *job, const char *outdir, const char *stamp);

#ifdef __cplusplus
}
#endif
#endif
