/* Ending OpenBLAS's idle worker pool for programs that only call BLAS on
 * one thread (skf_decompose_release_blas_pool, skinfit/decompose.h). */
#include "skinfit/decompose.h"

#include <cblas.h>

/* Exported by OpenBLAS's pthread build (its server, joining the workers;
 * the pool is started again by the next call that wants threads); absent
 * from its serial and OpenMP builds, hence weak. */
extern int blas_thread_shutdown_(void) __attribute__((weak));

void skf_decompose_release_blas_pool(void)
{
    openblas_set_num_threads(1);
    if (blas_thread_shutdown_)
        blas_thread_shutdown_();
}
