/* The batch command's parts: running one job in-process (local children and
 * MPI workers both use it), and the MPI coordinator. */
#ifndef SKF_BATCH_TOOL_H
#define SKF_BATCH_TOOL_H

#include "skinfit/batch.h"
#include "skinfit/transfer.h"

#include <stdbool.h>

/* Job outcome, also the exit code of a `--run-job` child. */
enum { JOB_OK = 0, JOB_FAILED = 1, JOB_BELOW_QUALITY = 3 };

/* Run job i of b: transfer, OUTDIR/<name>.glb, OUTDIR/<name>.json (stamped),
 * OUTDIR/<name>.timing.json; on failure OUTDIR/<name>.error.json. Prints
 * nothing but one line on failure. threads: OpenMP threads for the job.
 * Each finished clip is checkpointed (OUTDIR/<name>.clip-<k>.ckpt, removed
 * when the job completes); resume: clips with a current checkpoint are
 * loaded, not solved again. */
int batch_run_job(const skf_batch *b, size_t i, const char *outdir, int threads, bool resume);

/* Per-clip checkpoints (batch_checkpoint.c): save clip `index` of a job
 * (asked for as clip_name) under the job's stamp; load it back when the file
 * is intact and made for the same stamp, index, name and joint count (false
 * otherwise, out zeroed). A loaded clip gives the job's GLB and report the
 * same bytes as the solved one. */
skf_status batch_checkpoint_save(const char *path, const char *stamp, size_t index, const char *clip_name,
                                 const skf_transfer_clip *clip, skf_error *err);
bool batch_checkpoint_load(const char *path, const char *stamp, size_t index, const char *clip_name,
                           size_t joint_count, skf_transfer_clip *out);

/* True when this process was started by an MPI launcher (mpirun/srun). */
int batch_mpi_launched(void);
/* MPI mode: rank 0 hands out the jobs in `order` (count of them) one at a
 * time to the other ranks, which run them with batch_run_job. Returns on
 * every rank after all jobs finished; *is_root tells which rank assembles
 * the summary. results[i] (job index i) receives the outcome on rank 0.
 * Returns -1 (after printing why) when MPI support is not built in. */
int batch_mpi_run(const skf_batch *b, const size_t *order, size_t count, const char *outdir,
                  int threads, bool resume, int *results, int *is_root);
void batch_mpi_finalize(void);

#endif
