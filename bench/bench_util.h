/* Shared timing helpers for bench/ programs: wall clock, process CPU time,
 * peak resident memory. */
#ifndef SKF_BENCH_UTIL_H
#define SKF_BENCH_UTIL_H

#include <sys/resource.h>
#include <time.h>

/* Monotonic wall-clock seconds. */
static inline double bench_wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU seconds used by the whole process (all threads). */
static inline double bench_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Peak resident set size of the process in MiB (Linux reports KiB). */
static inline double bench_peak_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

#endif
