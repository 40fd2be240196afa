/* The decomposition's metric pass on frame lanes (decomposition.c; AVX2
 * where the CPU has it, and the generic vectors) against its frame-by-frame
 * loop: RMS, E_RMS and the largest error bit for bit, at 1 and 2 threads, on
 * a random skinned animation with 9 frames (a partial group), empty weight
 * slots, a bone without weight and a vertex far off its skinned position
 * (the largest error in a middle frame). */
#include "check.h"
#include "decompose/decompose_internal.h"
#include "skinfit/decompose.h"
#include "skinfit/solve.h"

#include <omp.h>
#include <string.h>

static double rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

int main(void)
{
    enum { N = 301, F = 9, B = 7, K = 4 };
    uint64_t seed = 99;
    static double rest[3 * N], frames[F * 3 * N], transforms[F * B * 12], weight[N * K];
    static uint32_t weight_bone[N * K];
    for (size_t e = 0; e < 3 * N; ++e)
        rest[e] = rnd(&seed) * 2 - 1;
    for (size_t e = 0; e < F * B * 12; ++e)
        transforms[e] = rnd(&seed) * 2 - 1;
    for (size_t j = 0; j < N; ++j) {
        size_t n = 1 + j % K; /* 1..K non-zero slots, then zeros */
        double s = 0;
        for (size_t k = 0; k < K; ++k) {
            weight_bone[j * K + k] = k < n ? (uint32_t)((j + 2 * k) % (B - 1)) : 0; /* bone B-1 unused */
            weight[j * K + k] = k < n ? 0.1 + rnd(&seed) : 0;
            s += weight[j * K + k];
        }
        for (size_t k = 0; k < K; ++k)
            weight[j * K + k] /= s;
    }
    for (size_t e = 0; e < F * 3 * N; ++e)
        frames[e] = rnd(&seed) * 3 - 1.5;
    frames[5 * 3 * N + 3 * 17 + 1] = 40; /* frame 5, vertex 17 far off */
    skf_decomposition d;
    memset(&d, 0, sizeof d);
    d.vertex_count = N;
    d.frame_count = F;
    d.bone_count = B;
    d.max_influences = K;
    d.rest = rest;
    d.weight = weight;
    d.weight_bone = weight_bone;
    d.transforms = transforms;
    skfi_decompose_ctx c;
    memset(&c, 0, sizeof c);
    c.N = N;
    c.F = F;
    c.frames = frames;
    c.rest = rest;
    c.diag = skf_bbox_diagonal(N, rest);
    skf_decompose_metrics ref, m;
    skfi_decompose_measure_lanes = 0;
    omp_set_num_threads(1);
    skfi_decompose_measure(&c, &d, false, &ref);
    printf("frame by frame: rms %.17g, max error %.17g\n", ref.rms, ref.max_error);
    CHECK(ref.rms > 0 && ref.max_error > 38);
    const char *name[3] = {"", "lanes (AVX2 where the CPU has it)", "lanes on generic vectors"};
    for (int mode = 1; mode <= 2; ++mode)
        for (int t = 1; t <= 2; ++t) {
            skfi_decompose_measure_lanes = mode;
            omp_set_num_threads(t);
            skfi_decompose_measure(&c, &d, false, &m);
            bool same = memcmp(&m.rms, &ref.rms, sizeof m.rms) == 0 &&
                        memcmp(&m.erms, &ref.erms, sizeof m.erms) == 0 &&
                        memcmp(&m.max_error, &ref.max_error, sizeof m.max_error) == 0 &&
                        memcmp(&m.max_error_pct, &ref.max_error_pct, sizeof m.max_error_pct) == 0;
            printf("%s, %d thread%s: metrics bit-identical %d\n", name[mode], t, t > 1 ? "s" : "",
                   same);
            CHECK(same);
        }
    skfi_decompose_measure_lanes = 1;
    return skf_test_done();
}
