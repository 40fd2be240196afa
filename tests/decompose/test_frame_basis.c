/* The reduced frame space of the alternation (src/decompose/frame_basis.c):
 * (a) on exact low-rank data (a tube skinned by 6 rigid bones: the centred
 * trajectories have rank ≤ 4·6 = 24 of 3F = 240) the decomposition with the
 * reduction equals the one without to a tight tolerance, and the rank found
 * is ≤ 24 with nothing measurable discarded; (b) with noise on every
 * coordinate (full rank) the reduction is skipped and the result is the
 * same bits as with it off; (c) the reduced run is the same bits at 1 and 2
 * threads. */
#include "check.h"
#include "skinfit/decompose.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NV 600
#define NF 80
#define NB 6

static uint64_t seed = 0x2545f4914f6cdd1dULL;
static double uni(void) /* [-1, 1) */
{
    seed ^= seed >> 12;
    seed ^= seed << 25;
    seed ^= seed >> 27;
    return (double)((seed * 2685821657736338717ULL) >> 11) * 0x1p-52 - 1.0;
}

/* rest [3N], frames [F*3N]: vertices on a tube along x, bone b centred at
 * x_b = 0.25 + 0.5 b, Gaussian weights (4 largest), each bone rotating
 * about z through its centre and translating, per frame. */
static void make_tube(double *rest, double *frames)
{
    double w[NV][NB];
    for (size_t j = 0; j < NV; ++j) {
        double x = 3.0 * (double)(j / 20) / (double)(NV / 20 - 1), a = 6.283185307179586 * (double)(j % 20) / 20;
        rest[3 * j] = x;
        rest[3 * j + 1] = 0.3 * cos(a);
        rest[3 * j + 2] = 0.3 * sin(a);
        double s = 0;
        for (size_t b = 0; b < NB; ++b) {
            double d = x - (0.25 + 0.5 * (double)b);
            w[j][b] = exp(-d * d / 0.1);
        }
        for (int drop = 0; drop < NB - 4; ++drop) { /* keep the 4 largest */
            size_t m = 0;
            for (size_t b = 1; b < NB; ++b)
                if (w[j][b] > 0 && (w[j][m] == 0 || w[j][b] < w[j][m]))
                    m = b;
            w[j][m] = 0;
        }
        for (size_t b = 0; b < NB; ++b)
            s += w[j][b];
        for (size_t b = 0; b < NB; ++b)
            w[j][b] /= s;
    }
    for (size_t f = 0; f < NF; ++f) {
        double R[NB][4], t[NB][3];
        for (size_t b = 0; b < NB; ++b) {
            double ang = 0.6 * sin(6.283185307179586 * (double)f / NF + 0.9 * (double)b);
            R[b][0] = cos(ang);
            R[b][1] = sin(ang);
            t[b][0] = 0.05 * (double)b * sin(0.1 * (double)f);
            t[b][1] = 0.1 * cos(0.07 * (double)f * (double)(b + 1));
            t[b][2] = 0.02 * (double)f / NF;
        }
        for (size_t j = 0; j < NV; ++j) {
            double *u = frames + (f * NV + j) * 3;
            u[0] = u[1] = u[2] = 0;
            for (size_t b = 0; b < NB; ++b) {
                if (w[j][b] == 0)
                    continue;
                double cx = 0.25 + 0.5 * (double)b, px = rest[3 * j] - cx, py = rest[3 * j + 1];
                u[0] += w[j][b] * (R[b][0] * px - R[b][1] * py + cx + t[b][0]);
                u[1] += w[j][b] * (R[b][1] * px + R[b][0] * py + t[b][1]);
                u[2] += w[j][b] * (rest[3 * j + 2] + t[b][2]);
            }
        }
    }
}

static skf_decomposition *run(const double *frames, const double *rest, double rank_tol, int threads)
{
    skf_error err;
    skf_decompose_options o = {.bone_count = NB, .threads = threads, .max_iterations = 25,
                               .rank_tolerance = rank_tol};
    skf_decomposition *d = NULL;
    if (skf_decompose(NV, NF, frames, rest, 0, NULL, &o, &d, &err) != SKF_OK) {
        CHECK_MSG(0, "decompose: %s", err.message);
        return NULL;
    }
    return d;
}

static double max_diff(const double *a, const double *b, size_t n)
{
    double m = 0;
    for (size_t k = 0; k < n; ++k)
        m = fmax(m, fabs(a[k] - b[k]));
    return m;
}

int main(void)
{
    double *rest = malloc(3 * NV * sizeof *rest), *frames = malloc(3 * NV * NF * sizeof *frames);
    CHECK(rest && frames);
    if (!rest || !frames)
        return skf_test_done();
    make_tube(rest, frames);
    /* (a) exact low rank */
    skf_decomposition *a = run(frames, rest, 0, 1), *b = run(frames, rest, -1, 1);
    skf_decomposition *a2 = run(frames, rest, 0, 2), *a3 = run(frames, rest, 0, 3);
    if (a && b) {
        size_t FB12 = NF * NB * 12;
        double dT = max_diff(a->transforms, b->transforms, FB12);
        double dw = max_diff(a->weight, b->weight, NV * 4);
        bool same_bones = !memcmp(a->weight_bone, b->weight_bone, NV * 4 * sizeof(uint32_t));
        printf("low rank: reduced %d, rank %zu of %d (discarded %.3g), %zu / %zu iterations, RMS "
               "%.17g / %.17g (rel. diff %.3g), max |dT| %.3g (diagonal %.3g), max |dw| %.3g, "
               "bones %s\n",
               a->frame_reduced, a->frame_rank, 3 * NF, a->frame_discarded, a->iterations,
               b->iterations, a->metrics.rms, b->metrics.rms,
               fabs(a->metrics.rms - b->metrics.rms) / b->metrics.rms, dT, a->metrics.diagonal, dw,
               same_bones ? "same" : "DIFFERENT");
        CHECK(a->frame_reduced && !b->frame_reduced);
        CHECK(a->frame_rank <= 4 * NB);
        CHECK(a->frame_discarded <= 1e-14);
        CHECK(a->iterations == b->iterations);
        CHECK(same_bones);
        /* the same alternation up to rounding: 1e-9 relative on the RMS,
         * 1e-9 of the diagonal on the transforms, 1e-9 on the weights */
        CHECK(fabs(a->metrics.rms - b->metrics.rms) <= 1e-9 * b->metrics.rms);
        CHECK(dT <= 1e-9 * a->metrics.diagonal);
        CHECK(dw <= 1e-9);
    }
    for (int t = 2; t <= 3; ++t) { /* the reduced path at 2 and 3 threads: the same bits */
        const skf_decomposition *at = t == 2 ? a2 : a3;
        if (!a || !at)
            continue;
        bool same = a->iterations == at->iterations && a->frame_rank == at->frame_rank &&
                    !memcmp(a->transforms, at->transforms, NF * NB * 12 * sizeof(double)) &&
                    !memcmp(a->weight, at->weight, NV * 4 * sizeof(double)) &&
                    !memcmp(a->weight_bone, at->weight_bone, NV * 4 * sizeof(uint32_t)) &&
                    a->metrics.rms == at->metrics.rms;
        printf("low rank, 1 vs %d threads: %s\n", t, same ? "bit-identical" : "DIFFERENT");
        CHECK(same);
    }
    skf_decomposition_free(a);
    skf_decomposition_free(a2);
    skf_decomposition_free(a3);
    skf_decomposition_free(b);
    /* (b) full rank: noise of 1e-3 on every coordinate, the reduction skipped */
    for (size_t k = 0; k < 3 * NV * NF; ++k)
        frames[k] += 1e-3 * uni();
    a = run(frames, rest, 0, 1);
    b = run(frames, rest, -1, 1);
    if (a && b) {
        bool same = a->iterations == b->iterations &&
                    !memcmp(a->transforms, b->transforms, NF * NB * 12 * sizeof(double)) &&
                    !memcmp(a->weight, b->weight, NV * 4 * sizeof(double)) &&
                    !memcmp(a->weight_bone, b->weight_bone, NV * 4 * sizeof(uint32_t)) &&
                    a->metrics.rms == b->metrics.rms;
        printf("full rank: reduced %d, %zu iterations, RMS %.17g / %.17g: %s\n", a->frame_reduced,
               a->iterations, a->metrics.rms, b->metrics.rms, same ? "bit-identical" : "DIFFERENT");
        CHECK(!a->frame_reduced);
        CHECK(same);
    }
    skf_decomposition_free(a);
    skf_decomposition_free(b);
    free(rest);
    free(frames);
    return skf_test_done();
}
