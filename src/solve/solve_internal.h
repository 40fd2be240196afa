/* Internal state of the bone-transform solver (include/skinfit/solve.h),
 * shared by src/solve/{moments,affine_init,bone_sweep,solver,rotation_only}.c. */
#ifndef SKF_SOLVE_INTERNAL_H
#define SKF_SOLVE_INTERNAL_H

#include "skinfit/solve.h"

/* Vertices per block of the per-frame passes (C_i, U, residual). Partial sums
 * of each block are added in block order: deterministic for any thread count. */
#define SKF_SOLVE_BLOCK 2048
/* Dense affine system up to this many bones (4B×4B doubles: 2048 → 512 MiB). */
#define SKF_SOLVE_MAX_BONES 2048
/* Joint Newton steps (newton.c) up to this many bones: a dense (6B)² matrix
 * per workspace (256 → 18 MiB); larger rigs use the bone sweeps alone. */
#define SKF_SOLVE_NEWTON_MAX_BONES 256
/* Bone sweeps before the first Newton step: cheap early progress, and frames
 * the sweeps finish quickly (exact data: 1 sweep; smooth warm-started clips)
 * never reach Newton. E is not convex in the rotations: with only 3 sweeps
 * Newton's first long steps sometimes settled in a different (higher) local
 * minimum than the sweeps (1 frame in 48 of bench_solve's transfer-like
 * case); 15 sweeps (≈ one Newton iteration of CPU at 45 bones) avoided it
 * there and also cut the Newton iterations (docs/solver.md). */
#define SKF_SOLVE_NEWTON_WARMUP 15
/* Cheap follow-up steps per Newton factorisation (same factor, new gradient). */
#define SKF_SOLVE_NEWTON_CHORD 4

/* rotation_only.c's share of the debug counters (solve_counts.h) */
void skfi_solve_count_rotonly(void);

typedef enum skfi_newton_result {
    SKF_NEWTON_CONVERGED, /* a step lowered E (or promised to) by < tolerance·N·diag² */
    SKF_NEWTON_CAP,       /* max_iterations reached */
    SKF_NEWTON_STUCK      /* no damped step lowered E (rounding level): fall back to sweeps */
} skfi_newton_result;

/* Per-thread scratch for one frame solve. */
typedef struct skfi_solve_ws {
    double *C;       /* [B*12] C_i = Σ_j c_j w_ij u_j ṽ_jᵀ (3×4 column-major) */
    double *Cblk;    /* [blocks*B*12] per-block partial sums */
    double *sblk;    /* [blocks] per-block scalar partial sums */
    double U;        /* Σ_j c_j ‖u_j‖² */
    double *Taff;    /* [B*12] affine start */
    double *rhs;     /* [4B*3] affine right-hand sides / solution */
    double *rhs2;    /* [4B*3] refinement residual */
    /* newton.c (NULL unless the solver uses Newton steps); n = 6·active bones */
    double *ntH;     /* [n*n] H in the strict upper triangle, its factor in the lower */
    double *nthd;    /* [n] diagonal of H */
    double *ntd;     /* [n] damped diagonal */
    double *ntD;     /* [n] damping scale */
    double *ntg;     /* [n] gradient (half) */
    double *ntx;     /* [n] step */
    double *ntG;     /* [B*12] G_i = Σ_k T_k M_ki − C_i */
    double *ntY;     /* [B*12] T_i − c_i e₄ᵀ */
    double *ntC;     /* [B*3] rotation pivots c_i */
    double *ntTn;    /* [B*12] trial transforms */
    double *ntDelta; /* [B*12] trial − current */
} skfi_solve_ws;

struct skf_solver {
    size_t n, B;
    double *rest;          /* [3N], centred: the caller's rest positions minus centre */
    double centre[3];      /* the reference point c subtracted from rest and from every
                              target inside the solver (rest bounding-box centre); transforms
                              cross the API in the caller's coordinates (skfi_solve_to_centred,
                              skfi_solve_from_centred) */
    size_t *offsets;       /* [N+1] canonical CSR (no zeros, no duplicates) */
    uint32_t *bone;
    double *weight;
    double *vweight;       /* [N] per-vertex importance c_j (skf_solve_rig.vertex_weight), NULL: all 1 */
    double diag;           /* rest bounding-box diagonal */
    skf_solve_options opt; /* resolved defaults */
    int threads;

    /* moments (moments.c): per bone i, its co-influencing bones k (incl. i),
     * sorted; M of the unordered pair (i,k) is pair_M[nb_pair[.]*16], a
     * symmetric 4×4 (row-major) — M_ik = M_ki = Σ_j c_j w_ij w_kj ṽ_j ṽ_jᵀ. */
    size_t *nb_off;        /* [B+1] */
    uint32_t *nb_bone;
    size_t *nb_pair;
    size_t pair_count;
    double *pair_M;        /* [pair_count*16] */
    size_t *self_pair;     /* [B] */
    double *mu;            /* [B] Σ_j c_j w_ij² */
    /* the same weights (times c_j) bone-major within each vertex block, for the per-frame
     * pass (moments.c): the entries of bone b in block blk are
     * bm_vert/bm_weight[bm_off[blk*B + b] .. bm_off[blk*B + b + 1]-1] (vertex
     * index within the block), vertices ascending (so each C_i is summed in the vertex-major pass's order) */
    size_t *bm_off;        /* [blocks*B + 1] */
    uint32_t *bm_vert;
    double *bm_weight;

    /* affine start (affine_init.c): Cholesky factor (lower, column-major)
     * of the 4B×4B block matrix [M_ik] + ridge. */
    double *chol;

    /* newton.c: active bones (μ > 0) get compact indices; envelope of H */
    bool nt_enabled;       /* method NEWTON and B ≤ SKF_SOLVE_NEWTON_MAX_BONES */
    size_t *nt_act;        /* [B] compact index or SIZE_MAX */
    size_t *nt_first;      /* [6B] first column of row r in the envelope */
    size_t nt_count;       /* active bones */

    size_t blocks;
    skfi_solve_ws ws;       /* scratch of skf_solver_frame */
};

/* P = T M for a 3×4 column-major T and a symmetric 4×4 M (row-major), row by
 * row: P[r][c] = T[r] M[c] + T[3+r] M[4+c] + T[6+r] M[8+c] + T[9+r] M[12+c],
 * summed in that order (the energy, the sweeps' Q and their local f all use
 * these products). Rows of P run along rows of M, so the compiler pairs the
 * c's into SIMD lanes without changing a single operation. */
static inline void skfi_solve_TM(const double *T, const double *M, double P[3][4])
{
    for (int r = 0; r < 3; ++r) {
        const double a = T[r], b = T[3 + r], c2 = T[6 + r], d = T[9 + r];
        for (int c = 0; c < 4; ++c)
            P[r][c] = a * M[c] + b * M[4 + c] + c2 * M[8 + c] + d * M[12 + c];
    }
}

/* moments.c */
skf_status skfi_solve_moments(skf_solver *s, skf_error *err);
/* Per-frame pass: ws->C, ws->U from target [3N]. */
void skfi_solve_frame_moments(const skf_solver *s, skfi_solve_ws *ws, const double *target,
                              bool parallel);
/* E(T) in moment form. */
double skfi_solve_energy(const skf_solver *s, const skfi_solve_ws *ws, const double *T);
/* Σ_j ‖s_j − u_j‖² by a direct pass (block-ordered sums). */
double skfi_solve_residual(const skf_solver *s, skfi_solve_ws *ws, const double *T,
                           const double *target, bool parallel);

/* affine_init.c */
skf_status skfi_solve_affine_factor(skf_solver *s, skf_error *err);
/* Affine start projected to rotations into ws->Taff; bones with μ = 0 copy
 * fallback. */
void skfi_solve_affine_start(const skf_solver *s, skfi_solve_ws *ws, const double *fallback);

/* bone_sweep.c: Gauss–Seidel sweeps from T (in/out), at most max_sweeps;
 * adds to st->sweeps, sets st->hit_cap (true when stopped by the cap). */
void skfi_solve_sweeps(const skf_solver *s, const skfi_solve_ws *ws, double *T,
                       skf_solve_stats *st, int max_sweeps);
/* The same sweeps on up to 4 frames at once (bone_sweep.c "Four frames at
 * once"): the warm-started, moment-form path of skf_solver_frames_moments
 * (start WARM, skip_start_energy, fast_rotation, no Newton), each frame's
 * transforms and stats bit for bit those of the one-frame path. nl ≤ 4
 * frames: moments [nl*B*12], sq [nl], transforms [nl*B*12] in/out, stats
 * [nl] or NULL; scratch of skfi_solve_lanes_scratch(s) bytes (any
 * alignment). */
#define SKFI_SOLVE_LANES 4
size_t skfi_solve_lanes_scratch(const skf_solver *s);
void skfi_solve_sweeps_lanes(const skf_solver *s, size_t nl, const double *moments, const double *sq,
                             double *transforms, skf_solve_stats *stats, void *scratch);
/* Tests only: 0 (default) the lanes with AVX2 where the CPU has it, 1 the
 * one-frame path (no lanes), 2 the lanes on generic vectors. */
extern int skfi_solve_lanes_mode;

/* newton.c: per-rig setup (active bones, envelope), after the moments. */
skf_status skfi_solve_newton_setup(skf_solver *s, skf_error *err);
/* Damped Newton iterations from T (in/out); E never increases. */
skfi_newton_result skfi_solve_newton(const skf_solver *s, skfi_solve_ws *ws, double *T,
                                    int max_iterations, int *iterations);

/* envelope.c: a symmetric matrix by rows of its lower envelope — row r holds
 * columns first[r] .. r (diagonal last) at A[off[r] .. off[r+1]−1].
 * skfi_env_factor3: A = L Lᵀ in place for n = 3·nodes unknowns whose rows
 * 3R, 3R+1, 3R+2 all start at first = 3·nfirst[R]; returns 0, or r + 1 when
 * pivot r is not positive (L then unspecified). skfi_env_solve: b ← (L Lᵀ)⁻¹ b
 * in place. skfi_env_symv: y = A x with A symmetric given by its lower envelope. */
size_t skfi_env_factor3(size_t nodes, const size_t *nfirst, const size_t *off, double *L);
void skfi_env_solve(size_t n, const size_t *first, const size_t *off, const double *L, double *b);
void skfi_env_symv(size_t n, const size_t *first, const size_t *off, const double *A, const double *x,
                   double *y);

/* blockchol.c: a symmetric positive definite matrix of n×n blocks of 3×3,
 * factored A = L Lᵀ in a minimum-degree order. analyse: pattern [n·⌈n/64⌉]
 * bitset rows, bit k of row i set when block (i, k) may be nonzero
 * (symmetric); computes the order, L's structure and ops (multiply-adds of
 * one factorisation). factor: loads A from a lower envelope by nodes (the
 * envelope.c layout, every nonzero inside the pattern) and factors; returns 0,
 * or r + 1 when pivot r (in elimination order) is not positive. solve: x ← A⁻¹ x
 * in the original node order, work [3n]. Factor and solve are bit for bit the
 * textbook Cholesky and substitutions of the permuted matrix (each sum one
 * product at a time, ascending). */
typedef struct skfi_bchol {
    size_t n, nnz;    /* nodes; blocks of L (diagonal included) */
    size_t *perm;     /* [n] node eliminated at step t */
    size_t *iperm;    /* [n] step of node */
    size_t *col_off;  /* [n+1] column t: blocks col_off[t] (diagonal) .. col_off[t+1]−1 */
    size_t *row;      /* [nnz] row step of each block, ascending within a column */
    int32_t *map;     /* [n·n] block index of (row step, column step) at [col·n + row], −1 outside */
    double *L;        /* [9·col_off[t1]] the sparse columns' blocks, row-major 3×3 */
    double ops;
    size_t t0;        /* steps t0 .. n−1: the trailing clique */
    size_t t1;        /* steps t1 .. n−1 (t1 ≤ t0): factored dense (L's blocks there unused) */
    size_t dn_ld;     /* 3(n − t1) rounded up to a multiple of 4 */
    double *dn;       /* [dn_ld²] the dense part, column-major (lower: A, then L) */
    double *P;        /* [3·t1·dn_ld] the sparse columns' rows in the dense part, by column */
    size_t *jl_off, *jl; /* [n−t1+1], by dense node J: the sparse columns holding J */
    size_t *cur;      /* [n−t1] scratch of the factorisation */
    double *xe;       /* [72 · longest sparse column] its blocks expanded for the vector updates */
    uint64_t *pat;    /* [n · ⌈n/64⌉] the pattern given to analyse (rows of bits) */
    uint32_t *ld_src, *ld_dst; /* [ld_n] the load (skfi_bchol_plan): A's envelope entry → L (the first
                                  ld_ns) or the dense part */
    size_t ld_n, ld_ns;
} skfi_bchol;
skf_status skfi_bchol_analyse(skfi_bchol *c, size_t n, const uint64_t *pattern);
/* Once per envelope after analyse: where each entry of A's lower envelope
 * (first node column nfirst[R] of node row R, scalar row offsets eoff as in
 * envelope.c) goes in the factor. A must be zero outside the pattern. */
skf_status skfi_bchol_plan(skfi_bchol *c, const size_t *nfirst, const size_t *eoff);
size_t skfi_bchol_factor(skfi_bchol *c, const double *A);
void skfi_bchol_solve(const skfi_bchol *c, double *x, double *work);
void skfi_bchol_release(skfi_bchol *c);
/* Tests: entry (i, j), i ≥ j, of the factor L, scalar indices in elimination order. */
double skfi_bchol_entry(const skfi_bchol *c, size_t i, size_t j);
/* Tests only: 0 (default) the widest kernels the CPU has (AVX-512F, AVX2),
 * 1 generic vectors, 2 at most AVX2 (the same bits). */
extern int skfi_bchol_kernel_mode;

/* newton: also the Newton buffers (when the solver uses Newton steps). */
skf_status skfi_solve_ws_init(const skf_solver *s, skfi_solve_ws *ws, bool newton);
void skfi_solve_ws_release(skfi_solve_ws *ws);

/* Transforms between the caller's coordinates and the solver's centred ones
 * (c = s->centre): T' = [R | R c + t − c] and back, for B bones in place.
 * massless: also bones with μ = 0, which the free solve never changes (false
 * leaves them bit-for-bit as passed in; rotation-only needs every joint). */
void skfi_solve_to_centred(const skf_solver *s, double *T, size_t B, bool massless);
void skfi_solve_from_centred(const skf_solver *s, double *T, size_t B, bool massless);

#endif
