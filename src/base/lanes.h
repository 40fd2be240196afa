/* Four doubles per vector for kernels that run independent problems in
 * lockstep (one problem per lane): GCC/Clang vector types, so every lane
 * performs plain IEEE operations — the same bits as the scalar code when the
 * lanes repeat its operations in its order (the files that use this are
 * built -ffp-contract=off: no FMA). On x86-64 such a kernel is also compiled
 * with target("avx2") (SKF_LANES_AVX2; four lanes per instruction) and
 * chosen at run time; elsewhere (WASM, other CPUs) the generic vectors run
 * the same source.
 *
 * Include only from .c files whose lane helpers are always inlined: the
 * header switches off GCC/Clang's note that passing a 32-byte vector by value
 * changes the ABI without AVX (no vector crosses a call). */
#ifndef SKF_BASE_LANES_H
#define SKF_BASE_LANES_H

#include <float.h>
#include <stdint.h>

#pragma GCC diagnostic ignored "-Wpsabi"

#define SKF_LANES 4
typedef double skf_v4d __attribute__((vector_size(32)));
typedef int64_t skf_v4l __attribute__((vector_size(32)));
#define SKF_INL inline __attribute__((always_inline)) /* after static */

#if defined(__x86_64__) && !defined(__EMSCRIPTEN__) && defined(__GNUC__)
#define SKF_LANES_AVX2 1
#define SKF_TARGET_AVX2 __attribute__((target("avx2")))
#endif

/* every lane x; per lane m ? a : b (m all ones or zeros); |x|; finite; any
 * lane set (macros: a vector passed by value would cross the ABI change) */
#define skf_vset(x) ((skf_v4d){(x), (x), (x), (x)})
#define skf_vsel(m, a, b) ((skf_v4d)(((m) & (skf_v4l)(a)) | (~(m) & (skf_v4l)(b))))
#define skf_vabs(x)                                                                                \
    ((skf_v4d)((skf_v4l)(x) & (skf_v4l){INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX}))
#define skf_vfinite(x) ((skf_v4l)(skf_vabs(x) <= skf_vset(DBL_MAX)))
#define skf_vany(m) (((m)[0] | (m)[1] | (m)[2] | (m)[3]) != 0)

#endif
