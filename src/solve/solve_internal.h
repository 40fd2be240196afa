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

/* Per-thread scratch for one frame solve. */
typedef struct skf_solve_ws {
    double *C;       /* [B*12] C_i = Σ_j w_ij u_j ṽ_jᵀ (3×4 column-major) */
    double *Cblk;    /* [blocks*B*12] per-block partial sums */
    double *sblk;    /* [blocks] per-block scalar partial sums */
    double U;        /* Σ_j ‖u_j‖² */
    double *Taff;    /* [B*12] affine start */
    double *rhs;     /* [4B*3] affine right-hand sides / solution */
    double *rhs2;    /* [4B*3] refinement residual */
} skf_solve_ws;

struct skf_solver {
    size_t n, B;
    double *rest;          /* [3N] */
    size_t *offsets;       /* [N+1] canonical CSR (no zeros, no duplicates) */
    uint32_t *bone;
    double *weight;
    double diag;           /* rest bounding-box diagonal */
    skf_solve_options opt; /* resolved defaults */
    int threads;

    /* moments (moments.c): per bone i, its co-influencing bones k (incl. i),
     * sorted; M of the unordered pair (i,k) is pair_M[nb_pair[.]*16], a
     * symmetric 4×4 (row-major) — M_ik = M_ki = Σ_j w_ij w_kj ṽ_j ṽ_jᵀ. */
    size_t *nb_off;        /* [B+1] */
    uint32_t *nb_bone;
    size_t *nb_pair;
    size_t pair_count;
    double *pair_M;        /* [pair_count*16] */
    size_t *self_pair;     /* [B] */
    double *mu;            /* [B] Σ_j w_ij² */

    /* affine start (affine_init.c): Cholesky factor (lower, column-major)
     * of the 4B×4B block matrix [M_ik] + ridge. */
    double *chol;

    size_t blocks;
    skf_solve_ws ws;       /* scratch of skf_solver_frame */
};

/* moments.c */
skf_status skf__solve_moments(skf_solver *s, skf_error *err);
/* Per-frame pass: ws->C, ws->U from target [3N]. */
void skf__solve_frame_moments(const skf_solver *s, skf_solve_ws *ws, const double *target,
                              bool parallel);
/* E(T) in moment form. */
double skf__solve_energy(const skf_solver *s, const skf_solve_ws *ws, const double *T);
/* Σ_j ‖s_j − u_j‖² by a direct pass (block-ordered sums). */
double skf__solve_residual(const skf_solver *s, skf_solve_ws *ws, const double *T,
                           const double *target, bool parallel);

/* affine_init.c */
skf_status skf__solve_affine_factor(skf_solver *s, skf_error *err);
/* Affine start projected to rotations into ws->Taff; bones with μ = 0 copy
 * fallback. */
void skf__solve_affine_start(const skf_solver *s, skf_solve_ws *ws, const double *fallback);

/* bone_sweep.c: Gauss–Seidel sweeps from T (in/out). */
void skf__solve_sweeps(const skf_solver *s, const skf_solve_ws *ws, double *T,
                       skf_solve_stats *st);

skf_status skf__solve_ws_init(const skf_solver *s, skf_solve_ws *ws);
void skf__solve_ws_release(skf_solve_ws *ws);

#endif
