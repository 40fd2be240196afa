/* skf_decompose_release_blas_pool (skinfit/decompose.h): after it the
 * process runs no BLAS worker thread, and skf_decompose on one thread does
 * not start OpenBLAS's pool again (it leaves a BLAS thread count of 1
 * alone: OpenBLAS's setter restarts an ended pool), so a `skinfit
 * decompose` run burns no CPU in idle workers polling beside it. Threads
 * are counted in /proc/self/task (Linux). */
#include "check.h"
#include "skinfit/decompose.h"

#include <cblas.h>
#include <dirent.h>
#include <math.h>
#include <time.h>

static int task_count(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* The thread count once it has settled at `want` or after 1 s: a joined
 * thread's /proc entry can outlive pthread_join by a moment (the kernel
 * clears the joiner's futex before it has released the task). */
static int settled_count(int want)
{
    int n = task_count();
    for (int k = 0; k < 100 && n != want; ++k) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
        n = task_count();
    }
    return n;
}

#define NV 120
#define NF 12

int main(void)
{
    int before = task_count();
    if (before < 0)
        SKF_SKIP("no /proc/self/task");
    printf("threads at start (main + OpenBLAS's pool): %d, BLAS threads %d\n", before,
           openblas_get_num_threads());
    skf_decompose_release_blas_pool();
    int after = settled_count(1);
    printf("after skf_decompose_release_blas_pool: %d threads, BLAS threads %d\n", after,
           openblas_get_num_threads());
    CHECK(after == 1);
    CHECK(openblas_get_num_threads() == 1);

    /* a bar of NV vertices along x bending at x = 0.5 over NF frames: two
     * rigid halves and a blend between them */
    static double rest[3 * NV], frames[NF * 3 * NV];
    for (size_t j = 0; j < NV; ++j) {
        rest[3 * j] = (double)(j / 4) / (double)(NV / 4 - 1);
        rest[3 * j + 1] = 0.05 * (double)(j % 2);
        rest[3 * j + 2] = 0.05 * (double)(j / 2 % 2);
    }
    for (size_t f = 0; f < NF; ++f) {
        double a = 0.08 * (double)f, c = cos(a), s = sin(a);
        for (size_t j = 0; j < NV; ++j) {
            const double *p = rest + 3 * j;
            double w = p[0] < 0.4 ? 0 : p[0] > 0.6 ? 1 : (p[0] - 0.4) / 0.2;
            double x = p[0] - 0.5, y = p[1];
            double q[3] = {0.5 + c * x - s * y, s * x + c * y, p[2]};
            for (int k = 0; k < 3; ++k)
                frames[f * 3 * NV + 3 * j + (size_t)k] = (1 - w) * p[k] + w * q[k];
        }
    }
    skf_decompose_options o = {.bone_count = 2, .threads = 1};
    skf_decomposition *d = NULL;
    skf_error err;
    skf_status st = skf_decompose(NV, NF, frames, rest, 0, NULL, &o, &d, &err);
    CHECK_MSG(st == SKF_OK, "%s", st ? err.message : "");
    if (d) {
        printf("decompose: %zu iterations, RMS %.3g\n", d->iterations, d->metrics.rms);
        CHECK(d->metrics.rms < 0.05);
    }
    int end = settled_count(1);
    printf("after skf_decompose: %d threads, BLAS threads %d\n", end, openblas_get_num_threads());
    CHECK(end == 1);
    CHECK(openblas_get_num_threads() == 1);
    skf_decomposition_free(d);
    return skf_test_done();
}
