/* Single-threaded stand-in for <omp.h> in the WebAssembly build (web/CMakeLists.txt), where the
 * library is compiled without OpenMP: its `#pragma omp` lines are ignored and these report one
 * thread. The native build uses the real OpenMP. */
#ifndef SKINFIT_WEB_OMP_H
#define SKINFIT_WEB_OMP_H
static inline int omp_get_max_threads(void) { return 1; }
static inline int omp_get_thread_num(void) { return 0; }
static inline int omp_get_num_threads(void) { return 1; }
static inline void omp_set_num_threads(int n) { (void)n; }
#endif
