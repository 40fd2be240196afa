/* A reduced frame space for the trajectories: the alternation's products in
 * r columns instead of 3F.
 *
 * N. Halko, P.-G. Martinsson and J. A. Tropp, "Finding structure with
 * randomness: probabilistic algorithms for constructing approximate matrix
 * decompositions", SIAM Review 53(2), 2011: the adaptive randomized range
 * finder (section 4.4, Algorithm 4.2, here in blocks of BS structured
 * random test vectors, section 4.6, its a posteriori error estimate from
 * fresh samples, section 4.3) followed by a truncation of the small
 * projected matrix (section 5.1).
 *
 * U is the N × 3F matrix of centred trajectories, row j = (u_j − μ) with
 * u_j = vertex j's positions over all frames (3F numbers, frame-major) and μ
 * the mean trajectory. Sketch Y = U Ω with Ω = (D H)[0 .. 3F, π(·)]: D random
 * signs, H the L × L Walsh–Hadamard matrix (L ≥ 3F a power of two), π a
 * random order of its columns, fixed seed (a subsampled randomized Hadamard
 * transform): every row of Y from one fast transform of its row of U,
 * O(L log L) additions for all samples, where dense random signs cost 3F
 * multiply-adds per sample (half the basis' products on Bone_Anim); the
 * Householder QR of [Y_1 … Y_m] is extended block by block, Q its first k
 * columns. A new block, rotated by the old reflectors, has (I − QQᵀ)UΩ below
 * row k, whose energy / BS is an unbiased estimate of ‖U − QQᵀU‖² (E[ωωᵀ]
 * = I: E‖Mω‖² = ‖M‖²_F). Grow until it is ≤ SAFETY · tol · ‖U‖², then keep
 * the smallest r of the eigen-directions W of ZᵀZ (Z = UᵀQ, k × k Gram)
 * with estimate + Σ_{l>r} λ_l ≤ tol · ‖U‖²:
 *     Û = (Q W_r)(W_rᵀ Zᵀ),  coords = Q W_r (N × r),  rows = W_rᵀ Zᵀ (r × 3F),
 * the orthogonal projection of U on the span of Q W_r, so ‖U − Û‖² =
 * ‖U‖² − ‖Û‖² is what is discarded. Every product of the alternation with
 * the trajectories then runs in r + 1 columns (weights.c; docs/decompose.md
 * "Reduced frame space"). When the estimate is not met by k ≤ SKIP_FRACTION
 * · 3F columns the reduction is skipped (it would not pay). Deterministic: a
 * fixed seed, single-threaded BLAS inside fixed vertex partitions, partition
 * sums in a fixed order — the same bits at any thread count.
 */
#include "decompose_internal.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#define BS 16              /* test vectors per growth step */
#define VB 32              /* vertices per block of a pass over the trajectories */
#define NPART 16           /* fixed partitions of the blocks for Z's sums */
#define SKIP_FRACTION 0.6  /* no reduction unless k ≤ this fraction of 3F */
#define MATERIALISE_MAX ((size_t)4 << 20) /* doubles (32 MiB): U kept whole up to this size */
#define SAFETY 0.5         /* the sampled estimate must be below this share of the tolerance */
#define ZB 128             /* columns of U per product of Z = UᵀQ (U kept whole) */
#define ZP_MAX ((size_t)2 << 20) /* doubles: partition sums of Z per pass (U gathered) */
#define SAMPLE_MAX ((size_t)1 << 18) /* doubles (2 MiB): the samples one transform pass keeps */

/* splitmix64 (a fixed sequence): the signs D of the test vectors (random
 * ±1) and the order π of H's columns. Independent signs give E[ωωᵀ] = I
 * for every ω = D h (h a column of H, entries ±1), all the estimate below
 * needs (E‖Mω‖² = ‖M‖²_F). */
static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void test_matrix(uint64_t *s, size_t n, double *out)
{
    for (size_t i = 0; i < n; i += 64) {
        uint64_t bits = next_u64(s);
        for (size_t b = 0; b < 64 && i + b < n; ++b)
            out[i + b] = (bits >> b) & 1 ? 1.0 : -1.0;
    }
}

/* Rows s0 .. s0+ns-1 of U (centred trajectories) into out [ns × 3F]. */
static void gather(const skfi_decompose_ctx *c, const double *mu, size_t s0, size_t ns, double *out)
{
    size_t N = c->N, F3 = 3 * c->F;
    for (size_t f = 0; f < c->F; ++f) {
        const double *src = c->frames + (f * N + s0) * 3;
        for (size_t v = 0; v < ns; ++v)
            for (size_t r = 0; r < 3; ++r)
                out[v * F3 + 3 * f + r] = src[3 * v + r] - mu[3 * f + r];
    }
}

/* The growth's QR as block reflectors: block b holds reflectors k0[b] ..
 * k0[b] + kb[b] − 1 (one growth step's dgeqrf panel; V_b below the
 * diagonal of A's columns k0[b].., ld N) and T + b·BS² its kb × kb
 * triangular factor (dlarft, ld BS), made once when the block is added.
 * dormqr / dorgqr re-made every block's factor on each call (and took the
 * last 128 columns of Q unblocked): a fifth of the basis' LAPACK time. */
typedef struct qr_blocks {
    size_t n;          /* blocks */
    size_t *k0, *kb;   /* [nq] first reflector, reflectors */
    double *T;         /* [nq · BS · BS] */
} qr_blocks;

/* Y (N × nc, ld N) ← Qᵀ Y for Q = H_1 ⋯ H_k (the blocks' reflectors),
 * block by block, first to last. work: nc × BS. False on a LAPACK error. */
static bool apply_qt(size_t N, const double *A, const qr_blocks *qb, double *Y, size_t nc, double *work)
{
    for (size_t b = 0; b < qb->n; ++b) {
        size_t k0 = qb->k0[b];
        if (LAPACKE_dlarfb_work(LAPACK_COL_MAJOR, 'L', 'T', 'F', 'C', (lapack_int)(N - k0), (lapack_int)nc,
                                (lapack_int)qb->kb[b], A + k0 * N + k0, (lapack_int)N, qb->T + b * BS * BS,
                                BS, Y + k0, (lapack_int)N, work, (lapack_int)nc))
            return false;
    }
    return true;
}

/* Q = H_1 ⋯ H_k [I_k; 0] (N × k column-major, ld N) from the blocks, last
 * to first, each on the columns from its own on (the earlier ones are
 * still unit vectors on its rows). work: k × BS. False on a LAPACK error. */
static bool form_q(size_t N, size_t k, const double *A, const qr_blocks *qb, double *Q, double *work)
{
    memset(Q, 0, N * k * sizeof *Q);
    for (size_t i = 0; i < k; ++i)
        Q[i * N + i] = 1;
    for (size_t b = qb->n; b-- > 0;) {
        size_t k0 = qb->k0[b];
        if (LAPACKE_dlarfb_work(LAPACK_COL_MAJOR, 'L', 'N', 'F', 'C', (lapack_int)(N - k0), (lapack_int)(k - k0),
                                (lapack_int)qb->kb[b], A + k0 * N + k0, (lapack_int)N, qb->T + b * BS * BS,
                                BS, Q + k0 * N + k0, (lapack_int)N, work, (lapack_int)(k - k0)))
            return false;
    }
    return true;
}

void skfi_frame_basis_free(skfi_frame_basis *fb)
{
    skf_free(fb->coords);
    skf_free(fb->rows);
    skf_free(fb->rows_o);
    memset(fb, 0, sizeof *fb);
}

/* The fixed partitions of the passes: partition p of NP holds the VB-vertex
 * blocks [*b0, *b1) of ceil(N / VB); block b holds vertices s0 .. s0+ns-1. */
static void partition_blocks(size_t N, size_t p, size_t NP, size_t *b0, size_t *b1)
{
    size_t NBk = (N + VB - 1) / VB;
    *b0 = p * NBk / NP;
    *b1 = (p + 1) * NBk / NP;
}

static size_t block_rows(size_t N, size_t b, size_t *s0)
{
    *s0 = b * VB;
    return *s0 + VB < N ? VB : N - *s0;
}

/* One pass over U (gathered from the input, not kept whole) in fixed
 * partitions of VB-vertex blocks (the same sums at any thread count): zp[p]
 * (bq × 3F row-major) = the partition's share of qnᵀ U for qn (N × bq
 * column-major). False when out of memory. */
static bool pass(const skfi_decompose_ctx *c, const double *mu, size_t NP, const double *qn, size_t bq,
                 double *zp)
{
    size_t N = c->N, F3 = 3 * c->F;
    int failed = 0;
#pragma omp parallel
    {
        double *ub = skf_malloc_array(VB * F3, sizeof *ub);
        if (!ub) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 1)
        for (long long p = 0; p < (long long)NP; ++p) {
            if (!ub)
                continue;
            double *zo = zp + (size_t)p * F3 * bq;
            size_t b0, b1, s0;
            partition_blocks(N, (size_t)p, NP, &b0, &b1);
            for (size_t b = b0; b < b1; ++b) {
                size_t ns = block_rows(N, b, &s0);
                gather(c, mu, s0, ns, ub);
                /* qn's rows s0.. as row-major bq × ns (ld N) */
                cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)bq, (int)F3, (int)ns, 1.0,
                            qn + s0, (int)N, ub, (int)F3, b > b0 ? 1.0 : 0.0, zo, (int)F3);
            }
        }
        skf_free(ub);
    }
    return !failed;
}

/* The unnormalised Walsh–Hadamard transform of x[0 .. L), L a power of
 * two ≥ 4, in place: x ← H x, H_ec = (−1)^popcount(e & c), by log2 L stages
 * of butterflies (a, b) → (a + b, a − b), the first two as 4-point
 * transforms. x is zero from n on: a stage skips the blocks past n (all
 * zeros, which the butterflies keep). Exact additions in a fixed order: the
 * same bits at any vector width (fwht_avx2, fwht_base). */
#define FWHT_BODY                                                                                   \
    for (size_t i = 0; i < n; i += 4) {                                                             \
        double a0 = x[i] + x[i + 1], a1 = x[i] - x[i + 1];                                          \
        double a2 = x[i + 2] + x[i + 3], a3 = x[i + 2] - x[i + 3];                                  \
        x[i] = a0 + a2;                                                                             \
        x[i + 1] = a1 + a3;                                                                         \
        x[i + 2] = a0 - a2;                                                                         \
        x[i + 3] = a1 - a3;                                                                         \
    }                                                                                               \
    for (size_t h = 4; h < L; h <<= 1) {                                                            \
        size_t lim = (n + 2 * h - 1) / (2 * h) * (2 * h);                                           \
        for (size_t i = 0; i < lim; i += 2 * h) {                                                   \
            double *lo = x + i, *hi = x + i + h;                                                    \
            for (size_t q = 0; q < h; ++q) {                                                        \
                double a = lo[q], b = hi[q];                                                        \
                lo[q] = a + b;                                                                      \
                hi[q] = a - b;                                                                      \
            }                                                                                       \
        }                                                                                           \
    }

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define SKF_FWHT_AVX2 1
__attribute__((target("avx2"))) static void fwht_avx2(double *restrict x, size_t L, size_t n)
{
    FWHT_BODY
}
#endif

static void fwht_base(double *restrict x, size_t L, size_t n)
{
    FWHT_BODY
}

static void fwht(double *restrict x, size_t L, size_t n)
{
#ifdef SKF_FWHT_AVX2
    if (__builtin_cpu_supports("avx2")) {
        fwht_avx2(x, L, n);
        return;
    }
#endif
    fwht_base(x, L, n);
}

/* Samples m0 .. m0+nm-1 of the sketch, Y[:, m] = U ω_m with the structured
 * test vectors ω_m = (D H)[0 .. 3F, perm[m]] (D = diag(sg), random signs;
 * H the L × L Walsh–Hadamard matrix, L ≥ 3F; perm a random permutation of
 * its columns): row j of all the samples from one transform of u_j ∘ sg
 * (padded with zeros to L), O(L log L) instead of 3F multiply-adds per
 * sample. Y column-major, ld N. With eng (not NULL): eng[p] = the
 * partition's ‖U‖². Rows in fixed partitions of VB-vertex blocks, each row
 * transformed alone: the same bits at any thread count. False when out of
 * memory. */
static bool sample(const skfi_decompose_ctx *c, const double *mu, const double *Um, size_t NP, size_t L,
                   const double *sg, const uint32_t *perm, size_t m0, size_t nm, double *eng, double *Y)
{
    size_t N = c->N, F3 = 3 * c->F;
    int failed = 0;
#pragma omp parallel
    {
        double *x = skf_malloc_array(L, sizeof *x);
        double *ub = Um ? NULL : skf_malloc_array(VB * F3, sizeof *ub);
        bool ok = x && (Um || ub);
        if (!ok) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 1)
        for (long long p = 0; p < (long long)NP; ++p) {
            if (!ok)
                continue;
            double q = 0;
            size_t b0, b1, s0;
            partition_blocks(N, (size_t)p, NP, &b0, &b1);
            for (size_t b = b0; b < b1; ++b) {
                size_t ns = block_rows(N, b, &s0);
                const double *u = Um ? Um + s0 * F3 : ub;
                if (!Um)
                    gather(c, mu, s0, ns, ub);
                for (size_t v = 0; v < ns; ++v) {
                    const double *uv = u + v * F3;
                    if (eng)
                        for (size_t e = 0; e < F3; ++e)
                            q += uv[e] * uv[e];
                    for (size_t e = 0; e < F3; ++e)
                        x[e] = uv[e] * sg[e];
                    for (size_t e = F3; e < L; ++e)
                        x[e] = 0;
                    fwht(x, L, F3);
                    for (size_t m = 0; m < nm; ++m)
                        Y[m * N + s0 + v] = x[perm[m0 + m]];
                }
            }
            if (eng)
                eng[p] = q;
        }
        skf_free(x);
        skf_free(ub);
    }
    return !failed;
}

/* Z = UᵀQ (row-major k × 3F: Z[l*3F + e] = Σ_j Q_jl U_je) for Q (N × k
 * column-major, ld N). U kept whole: one product per fixed block of ZB
 * columns of U (threads take whole blocks: the same bits at any thread
 * count). Else passes over U gathering its rows, in fixed vertex partitions
 * summed in partition order, for chunks of Q's columns whose partition
 * sums fit in ZP_MAX doubles. False when out of memory. */
static bool project(const skfi_decompose_ctx *c, const double *mu, const double *Um, size_t NP,
                    const double *Q, size_t k, double *Z)
{
    size_t N = c->N, F3 = 3 * c->F;
    if (Um) {
        long long nzb = (long long)((F3 + ZB - 1) / ZB);
#pragma omp parallel for schedule(dynamic, 1)
        for (long long b = 0; b < nzb; ++b) {
            size_t e0 = (size_t)b * ZB, ne = F3 - e0 < ZB ? F3 - e0 : ZB;
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)k, (int)ne, (int)N, 1.0, Q, (int)N,
                        Um + e0, (int)F3, 0.0, Z + e0, (int)F3);
        }
        return true;
    }
    size_t cw = ZP_MAX / (NP * F3);
    cw = cw < BS ? BS : cw > k ? k : cw;
    double *zp = skf_malloc_array(NP * F3 * cw, sizeof *zp);
    if (!zp)
        return false;
    for (size_t l0 = 0; l0 < k; l0 += cw) {
        size_t nl = k - l0 < cw ? k - l0 : cw;
        if (!pass(c, mu, NP, Q + l0 * N, nl, zp)) {
            skf_free(zp);
            return false;
        }
        double *Zl = Z + l0 * F3;
        memcpy(Zl, zp, F3 * nl * sizeof *Zl);
        for (size_t p = 1; p < NP; ++p)
            for (size_t e = 0; e < F3 * nl; ++e)
                Zl[e] += zp[p * F3 * nl + e];
    }
    skf_free(zp);
    return true;
}

skf_status skfi_frame_basis_build(const skfi_decompose_ctx *c, double tol, skfi_frame_basis *fb,
                                  skf_error *err)
{
    memset(fb, 0, sizeof *fb);
    size_t N = c->N, F3 = 3 * c->F;
    size_t kmax = (size_t)(SKIP_FRACTION * (double)F3);
    if (kmax > N)
        kmax = N; /* range(Q) ⊂ R^N: k = N misses nothing */
    if (!(tol >= 0) || kmax == 0)
        return SKF_OK;
    size_t NBk = (N + VB - 1) / VB, NP = NBk < NPART ? NBk : NPART;
    size_t nq = (kmax + BS - 1) / BS + 1; /* blocks of the sketch at most */
    double *mu = skf_calloc(F3, sizeof *mu), *Um = NULL;
    double *A = NULL; /* [N*(k+BS)] column-major: QR of the sketch, then the next samples */
    double *Z = NULL; /* column-major 3F × k, once k is known */
    /* the structured test vectors (sample): L ≥ 3F, signs and a column
     * permutation of H; at most cap samples (the growth stops past kmax) */
    size_t L = 4;
    while (L < F3)
        L <<= 1;
    size_t cap = kmax + BS < N ? kmax + BS : N;
    cap = cap < L ? cap : L;
    double *sg = skf_malloc_array(L, sizeof *sg);
    uint32_t *perm = skf_malloc_array(L, sizeof *perm);
    double *tau = skf_malloc_array(nq * BS, sizeof *tau);
    qr_blocks qb = {0, skf_malloc_array(nq, sizeof(size_t)), skf_malloc_array(nq, sizeof(size_t)),
                    skf_malloc_array(nq * BS * BS, sizeof(double))};
    double *qwork = skf_malloc_array(nq * BS * BS, sizeof *qwork); /* dlarfb's work, ≤ k × BS */
    double *Qm = NULL; /* Q explicitly (N × k) */
    double *eng = skf_calloc(NP, sizeof *eng);
    double *s = NULL, *Uz = NULL, *Wt = NULL, *S = NULL;
    skf_status st = SKF_OK;
    if (!mu || !sg || !perm || !tau || !eng || !qb.k0 || !qb.kb || !qb.T || !qwork) {
        st = skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory for the frame basis");
        goto done;
    }
    /* each frame's sums over the vertices in vertex order, four frames at
     * a time (twelve independent sums, not three chained additions) */
    for (size_t f0 = 0; f0 < c->F; f0 += 4) {
        size_t nf = c->F - f0 < 4 ? c->F - f0 : 4;
        double sm[4][3] = {{0}};
        for (size_t j = 0; j < N; ++j)
            for (size_t g = 0; g < nf; ++g) {
                const double *u = c->frames + ((f0 + g) * N + j) * 3;
                for (size_t r = 0; r < 3; ++r)
                    sm[g][r] += u[r];
            }
        for (size_t g = 0; g < nf; ++g)
            for (size_t r = 0; r < 3; ++r)
                mu[3 * (f0 + g) + r] = sm[g][r];
    }
    for (size_t e = 0; e < F3; ++e)
        mu[e] /= (double)N;
    /* U itself once, when it is small (each pass then reads it in place of
     * gathering the frame-major input again); large inputs are gathered
     * per pass, the memory of a second copy of the animation not spent */
    if (N * F3 <= MATERIALISE_MAX) {
        Um = skf_malloc_array(N * F3, sizeof *Um);
        if (Um)
            for (size_t b = 0; b < (N + VB - 1) / VB; ++b)
                gather(c, mu, b * VB, N - b * VB < VB ? N - b * VB : VB, Um + b * VB * F3);
    }
    uint64_t seed = 0x5d1b2c3a4e6f7081ULL;
    test_matrix(&seed, L, sg);
    for (size_t i = 0; i < L; ++i)
        perm[i] = (uint32_t)i;
    for (size_t i = L - 1; i > 0; --i) { /* Fisher–Yates */
        size_t j = (size_t)(next_u64(&seed) % (uint64_t)(i + 1));
        uint32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    /* the first pass: ‖U‖² and the first chunk of samples (all that
     * SAMPLE_MAX doubles hold, at least two blocks: one transform of U
     * gives any number of samples, so Bone_Anim's whole sketch comes from
     * this one pass) */
    size_t k = 0, bs = cap < BS ? cap : BS;
    size_t chunk = SAMPLE_MAX / N < 2 * BS ? 2 * BS : SAMPLE_MAX / N;
    size_t have = cap < chunk ? cap : chunk;
    A = skf_malloc_array(N * have, sizeof *A);
    if (!A) {
        st = skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory for the frame basis");
        goto done;
    }
    if (!sample(c, mu, Um, NP, L, sg, perm, 0, have, eng, A)) {
        st = skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory for the frame basis");
        goto done;
    }
    double E0 = 0;
    for (size_t p = 0; p < NP; ++p)
        E0 += eng[p];
    fb->energy = E0;
    double est = 0; /* the sampled energy that range(Q) misses */
    bool met = E0 <= 0;
    while (!met) {
        /* A[:, k .. k+bs): the new samples U Ω. Extend the QR by them: the
         * old reflectors applied, then their own below row k. Householder
         * keeps Q orthonormal to rounding even where the sketch has reached
         * the data's rank (Gram–Schmidt against the old basis does not:
         * 1e-3 measured). Below row k the rotated block is (I − QQᵀ) U Ω in
         * the complement's coordinates: for E[ωωᵀ] = I, E‖(I − QQᵀ)Uω‖² =
         * ‖(I − QQᵀ)U‖²_F, so its energy / bs estimates what Q misses —
         * without the cancellation of ‖U‖² − ‖QᵀU‖² (whose rounding,
         * ~1e-14 of ‖U‖², exceeds the tolerance). Stop when the
         * estimate is below SAFETY · tol · ‖U‖²; those samples are then not
         * needed in the basis. */
        double *Y = A + k * N;
        if (k && !apply_qt(N, A, &qb, Y, bs, qwork)) {
            st = skf_fail(err, SKF_ERR_NOMEM, "decompose: the frame basis' QR failed");
            goto done;
        }
        double q = 0;
        for (size_t i = 0; i < bs; ++i)
            for (size_t j = k; j < N; ++j)
                q += Y[i * N + j] * Y[i * N + j];
        double prev = est;
        est = q / (double)bs;
        met = est <= SAFETY * tol * E0;
        if (met || k + bs > kmax)
            break; /* enough, or not worth it */
        /* Hopeless (full-rank data, e.g. noise: each block then removes
         * only ~bs/3F of the energy): at the decay of the last block the
         * estimate would reach the target only past 2·kmax columns. Stop
         * now rather than pay the sketch up to kmax for nothing (measured
         * decays per block on Bone_Anim: 1e-5 … 0.4 early, 0.8 at the
         * float32 rounding floor near k = 200 of kmax = 720). */
        if (k >= 2 * BS) {
            double ratio = est / prev;
            if (!(ratio < 1) ||
                (double)k + (double)bs * log(SAFETY * tol * E0 / est) / log(ratio) > 2.0 * (double)kmax)
                break;
        }
        if (LAPACKE_dgeqrf(LAPACK_COL_MAJOR, (lapack_int)(N - k), (lapack_int)bs, Y + k, (lapack_int)N,
                           tau + k) ||
            LAPACKE_dlarft_work(LAPACK_COL_MAJOR, 'F', 'C', (lapack_int)(N - k), (lapack_int)bs, Y + k,
                                (lapack_int)N, tau + k, qb.T + qb.n * BS * BS, BS)) {
            st = skf_fail(err, SKF_ERR_NOMEM, "decompose: the frame basis' QR failed");
            goto done;
        }
        qb.k0[qb.n] = k;
        qb.kb[qb.n++] = bs;
        size_t kn = k + bs;
        if (kn == N) { /* Q spans every vertex: nothing is missed */
            est = 0;
            met = true;
        }
        /* The next samples (Z = UᵀQ waits for the whole Q, below): taken
         * by an earlier pass, or the next chunk now. */
        size_t bn = met ? 0 : cap - kn < BS ? cap - kn : BS;
        k = kn;
        bs = bn;
        if (!bn)
            break;
        if (kn + bn <= have)
            continue;
        size_t nm = cap - have < chunk ? cap - have : chunk;
        double *An = skf_realloc_array(A, N * (have + nm), sizeof *A);
        if (!An) {
            st = skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory for the frame basis");
            goto done;
        }
        A = An;
        if (!sample(c, mu, Um, NP, L, sg, perm, have, nm, NULL, A + have * N)) {
            st = skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory for the frame basis");
            goto done;
        }
        have += nm;
    }
    if (!met)
        goto done; /* not worth it: no reduction */
    /* Truncation: QᵀU = Zᵀ (k × 3F); the eigenvectors W of the k × k Gram
     * ZᵀZ = W Λ Wᵀ (LAPACKE dsyevr) order its directions by energy λ_l.
     * Û = (Q W_r)(W_rᵀ Zᵀ) is the orthogonal projection of U on the span
     * of Q W_r, missing est + Σ_{l>r} λ_l; the λ are exact to ~k·eps·λ_max
     * (~1e-15 of ‖U‖² here), below the tolerance, which is all the choice
     * of r needs (the products use W, not Λ^{±1/2}). */
    size_t r = 0;
    if (k > 0) {
        s = skf_malloc_array(k, sizeof *s);
        Wt = skf_malloc_array(k * k, sizeof *Wt);
        Uz = skf_malloc_array(k * k, sizeof *Uz);
        Z = skf_malloc_array(F3 * k, sizeof *Z);
        lapack_int *isup = skf_malloc_array(2 * k, sizeof *isup);
        if (!s || !Wt || !Uz || !Z || !isup) {
            skf_free(isup);
            st = skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory for the frame basis");
            goto done;
        }
        /* Q explicitly, in place of its reflectors, and Z = UᵀQ from one
         * pass over U after the growth (per growth step, each block's Q
         * columns took a second application of all the reflectors and a
         * product of only BS columns) */
        Qm = skf_malloc_array(N * k, sizeof *Qm);
        if (!Qm || !form_q(N, k, A, &qb, Qm, qwork)) {
            skf_free(isup);
            st = skf_fail(err, SKF_ERR_NOMEM, "decompose: the frame basis' QR failed");
            goto done;
        }
        skf_free(A);
        A = Qm; /* Q from here on */
        Qm = NULL;
        if (!project(c, mu, Um, NP, A, k, Z)) {
            skf_free(isup);
            st = skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory for the frame basis");
            goto done;
        }
        /* Z column-major 3F × k = row-major k × 3F: Gram = Zᵀ Z (k × k) */
        cblas_dsyrk(CblasRowMajor, CblasUpper, CblasNoTrans, (int)k, (int)F3, 1.0, Z, (int)F3, 0.0, Uz,
                    (int)k);
        lapack_int m = 0;
        lapack_int info = LAPACKE_dsyevr(LAPACK_ROW_MAJOR, 'V', 'A', 'U', (lapack_int)k, Uz, (lapack_int)k,
                                         0, 0, 0, 0, 0, &m, s, Wt, (lapack_int)k, isup);
        skf_free(isup);
        if (info || m != (lapack_int)k) {
            st = skf_fail(err, SKF_ERR_NOMEM, "decompose: the frame basis' eigensolver failed (%d)",
                          (int)info);
            goto done;
        }
        /* s ascending: drop from the smallest while within the tolerance */
        double tail = 0;
        size_t drop = 0;
        while (drop < k && est + tail + fmax(s[drop], 0) <= tol * E0) {
            tail += fmax(s[drop], 0);
            ++drop;
        }
        r = k - drop;
        fb->discarded = est + tail;
    }
    size_t D = r + 1;
    fb->r = r;
    fb->D = D;
    fb->F3 = F3;
    fb->sketch = k;
    fb->coords = skf_calloc(N * D, sizeof *fb->coords);
    fb->rows = skf_malloc_array(D * F3, sizeof *fb->rows);
    S = r ? skf_malloc_array(k * r, sizeof *S) : NULL;
    if (!fb->coords || !fb->rows || (r && !S)) {
        skfi_frame_basis_free(fb);
        st = skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory for the frame basis");
        goto done;
    }
    /* W_r: the r largest eigenvectors, largest first (k × r) */
    for (size_t i = 0; i < k && r; ++i)
        for (size_t l = 0; l < r; ++l)
            S[i * r + l] = Wt[i * k + (k - 1 - l)];
    /* rows = [W_rᵀ Zᵀ; μᵀ], coords = [Q W_r, 1]: u_j ≈ coords_j · rows */
    if (r) {
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)r, (int)F3, (int)k, 1.0, S, (int)r, Z,
                    (int)F3, 0.0, fb->rows, (int)F3);
        /* Q column-major N × k = row-major k × N */
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)N, (int)r, (int)k, 1.0, A, (int)N, S,
                    (int)r, 0.0, fb->coords, (int)D);
    }
    memcpy(fb->rows + r * F3, mu, F3 * sizeof *mu);
    for (size_t j = 0; j < N; ++j)
        fb->coords[j * D + r] = 1;
done:
    skf_free(A);
    skf_free(Um);
    skf_free(mu);
    skf_free(Z);
    skf_free(sg);
    skf_free(perm);
    skf_free(tau);
    skf_free(qb.k0);
    skf_free(qb.kb);
    skf_free(qb.T);
    skf_free(qwork);
    skf_free(Qm);
    skf_free(eng);
    skf_free(s);
    skf_free(Uz);
    skf_free(Wt);
    skf_free(S);
    if (st)
        skfi_frame_basis_free(fb);
    return st;
}
