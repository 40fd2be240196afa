/* MPI scale-out for `skinfit batch` (OpenMPI): rank 0 hands out job indices
 * one at a time, largest first, to ranks 1..P-1, which run them in-process
 * (threads inside each job); results come back with the next request. All
 * ranks share OUTDIR (one machine or a shared filesystem), so rank 0 builds
 * the summary from the jobs' reports exactly as the local runner does.
 * Compiled to a refusal when the build has no MPI (SKF_HAVE_MPI unset). */
#include "batch.h"
#include "cli.h"

#include <stdlib.h>

int batch_mpi_launched(void)
{
    /* OpenMPI, MPICH/Hydra and Slurm's PMI set these in launched processes. */
    return getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMI_SIZE") != NULL ||
           getenv("PMIX_RANK") != NULL;
}

#ifdef SKF_HAVE_MPI
#include <mpi.h>

enum { TAG_REQUEST = 1, TAG_JOB = 2 };
static int mpi_started;

int batch_mpi_run(const skf_batch *b, const size_t *order, size_t count, const char *outdir,
                  int threads, bool resume, int *results, int *is_root)
{
    int rank = 0, size = 1;
    MPI_Init(NULL, NULL);
    mpi_started = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    *is_root = rank == 0;
    if (size == 1) {
        for (size_t k = 0; k < count; ++k)
            results[order[k]] = batch_run_job(b, order[k], outdir, threads, resume);
        return 0;
    }
    if (rank == 0) {
        size_t next = 0;
        int stopped = 0;
        while (stopped < size - 1) {
            long msg[2]; /* finished job index (-1: none yet), its result */
            MPI_Status st;
            MPI_Recv(msg, 2, MPI_LONG, MPI_ANY_SOURCE, TAG_REQUEST, MPI_COMM_WORLD, &st);
            if (msg[0] >= 0 && (size_t)msg[0] < b->job_count)
                results[msg[0]] = (int)msg[1];
            long job = next < count ? (long)order[next++] : -1;
            MPI_Send(&job, 1, MPI_LONG, st.MPI_SOURCE, TAG_JOB, MPI_COMM_WORLD);
            if (job < 0)
                ++stopped;
        }
    } else {
        long msg[2] = {-1, 0};
        for (;;) {
            MPI_Send(msg, 2, MPI_LONG, 0, TAG_REQUEST, MPI_COMM_WORLD);
            long job;
            MPI_Recv(&job, 1, MPI_LONG, 0, TAG_JOB, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (job < 0)
                break;
            msg[0] = job;
            msg[1] = batch_run_job(b, (size_t)job, outdir, threads, resume);
        }
    }
    /* Every report is on disk before rank 0 reads them for the summary. */
    MPI_Barrier(MPI_COMM_WORLD);
    return 0;
}

void batch_mpi_finalize(void)
{
    if (mpi_started)
        MPI_Finalize();
    mpi_started = 0;
}

#else

int batch_mpi_run(const skf_batch *b, const size_t *order, size_t count, const char *outdir,
                  int threads, bool resume, int *results, int *is_root)
{
    (void)b, (void)order, (void)count, (void)outdir, (void)threads, (void)resume, (void)results;
    *is_root = 1;
    fprintf(stderr, "skinfit batch: launched under MPI, but this skinfit was built without MPI "
                    "(configure with -DSKF_WITH_MPI=ON and OpenMPI installed)\n");
    return -1;
}

void batch_mpi_finalize(void)
{
}

#endif
