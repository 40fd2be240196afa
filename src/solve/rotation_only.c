/* Rotation-only fit: bone lengths kept, by Levenberg–Marquardt with the
 * analytic Jacobian.
 *
 * References: K. Levenberg (1944), D. W. Marquardt, "An algorithm for
 * least-squares estimation of nonlinear parameters", SIAM J. Appl. Math.
 * 11(2), 1963 (damping scaled by diag(JᵀJ)); the rotation Jacobian of a
 * kinematic chain (a world-frame rotation δθ at joint a pivoting on its
 * position p_a moves a point x carried by a by δθ × (x − p_a)), derived with
 * the normal equations from moment sums in docs/solver.md, D6.
 *
 * Model (docs/solver.md): joint_world_i = joint_world_parent × [local rotation | o_i]
 * with o_i fixed at the bind value. With uniform bind scales this is, in bind
 * space, T_i = [G_i | p_i − G_i b_i], G_i a rotation, b_i the bind world
 * position of joint i, and p_i = p_parent + G_parent d_i (roots: p_i free),
 * d_i the bind offset from the parent (skf_skeleton.offset, else b_i − b_parent). Parameters: G_i = G_parent Q_i with Q_i the relative rotations,
 * and p_root. Lengths ‖p_i − p_parent‖ = ‖d_i‖ hold by construction,
 * whatever the iterate.
 *
 * Residual r_j = Σ_i w_ij T_i ṽ_j − u_j. A step δθ_a (world frame) at joint a
 * moves r_j by δθ_a × y_aj, y_aj = Σ_{i in subtree(a)} w_ij (T_i ṽ_j − p_a), so
 * J_aj = −[y_aj]_× and (J_aᵀ J_b) = (y_a·y_b) I − y_b y_aᵀ; a root translation
 * moves r_j by (Σ_{i in subtree} w_ij) δp. JᵀJ is (3B+3R)² but block-sparse:
 * block (a,b) is nonzero only when sub(a) and sub(b) hold joints that share a
 * vertex. With the joints in post-order (children first: a subtree is a
 * contiguous range ending at its root) its lower envelope stays narrow on
 * skeleton-like rigs, and the factor keeps that envelope (A. George and
 * J. W. H. Liu, "Computer Solution of Large Sparse Positive Definite
 * Systems", 1981, §4.2): JᵀJ is accumulated into the envelope only and
 * factored there (envelope.c, 3×3 blocks). The step is applied as a retraction that is
 * exact to first order: Q_a ← G_parentᵀ Exp(δθ_a) G_parent Q_a top-down, then
 * forward kinematics. The steps use the exact Hessian along that retraction,
 * JᵀJ plus the residual-curvature term (docs/solver.md D6b: from the same
 * sums, Σ depth blocks), with Nielsen's damping rule (H. B. Nielsen, "Damping
 * parameter in Marquardt's method", IMM-REP-1999-05) and the Gauss–Newton
 * matrix for a try where H + λD is indefinite. Each accepted step lowers E
 * (the moment form; the last one the direct sum); a frame stops only at a
 * converged point (D6b's rule) or at the cap. Starts: the free solution's
 * rotations and root positions, and the previous result, each descended.
 * On rigs of ≥ 128 joints (D6d): the pair sums by subtree propagation and the
 * whole problem factored in a minimum-degree order (blockchol.c), each where
 * its operation count is lower, and the start that begins lower descended
 * first, the other only when it begins below that end. On those rigs (D6e) a
 * rejected whole-problem step is first shortened along its direction
 * (α = 1/2, 1/4, 1/8: an energy evaluation each, no factorisation) — the
 * backtracking of L. Armijo, "Minimization of functions having Lipschitz
 * continuous first partial derivatives", Pacific J. Math. 16(1), 1966 —
 * and taken when one lowers E, λ then raised as after a rejection. There
 * (D6h) the propagated sums visit only the slots that can be nonzero.
 */
#include "solve_internal.h"
#include "skinfit/math.h"

#include <math.h>
#include <string.h>

/* The most joints in a block (D6c); a rig with none larger than this is
 * solved by whole-problem steps alone. */
#define SKF_ROTONLY_BLOCK 24
/* Levenberg–Marquardt iterations of one block per sweep */
#define SKF_ROTONLY_BLOCK_ITERATIONS 5
/* the largest share of the pair moments across blocks with blocks on */
#define SKF_ROTONLY_BLOCK_COUPLING 0.5
/* the fewest joints with blocks on: below, one λ for the whole rig costs
 * little, and on the animals (28–50 joints) blocks changed which local
 * minimum a frame reaches, 4 of 12 clips ending higher (D6c) */
#define SKF_ROTONLY_BLOCK_MIN_JOINTS 128

/* A Levenberg–Marquardt subproblem (docs/solver.md D6c): the rotations at
 * nodes s..e (post-order positions; a block: one subtree or consecutive
 * sibling subtrees, the other joints held), or the whole problem (full: every
 * rotation, then the root translations). Its envelope in local indices (local
 * node = node − s). */
typedef struct rview {
    size_t s, e, nodes, P;     /* rotation nodes s..e; nodes and unknowns of the subproblem */
    bool full;
    const size_t *nfirst, *first, *eoff;
    size_t env_size;
    double *JtJ, *A, *Jtr, *x, *y, *D;
} rview;

struct skf_rotonly {
    const skf_solver *s;
    size_t B, R, P;        /* joints, roots, parameters (3B + 3R) */
    int32_t *parent;
    size_t *order;         /* parents before children */
    size_t *root_slot;     /* [B] slot of a root, SIZE_MAX otherwise */
    double *b;             /* [3B] bind world positions */
    double *d;             /* [3B] bind offset from the parent joint (p_i − p_parent at bind) */
    int max_it;
    double tol, rel_tol;
    bool newton;           /* the residual-curvature term S in H (docs/solver.md D6b) */
    bool use_blocks;       /* blocks where they pay (D6c); false: whole-problem steps only */
    bool backtrack;        /* a rejected whole-problem step shortened before λ grows (D6e) */
    bool repivot;          /* the free start re-pivoted where it begins lower (opt-in; D6g) */
    /* structure (docs/solver.md, D6): joints in post-order (children before
     * parents: the subtree of a joint is the range of positions ending at it),
     * then the root translations. Unknowns by node: node k < B is the
     * rotation of joint bone_at[k] (pos[i] = its node), node B + s the
     * translation of root slot s; 3 unknowns per node, P = 3(B + R). */
    size_t *pos;           /* [B] node of joint i */
    size_t *bone_at;       /* [B] joint at node k */
    size_t *nfirst;        /* [B+R] first node column of the lower envelope of node row k */
    size_t *aoff;          /* [B+1] acc slots of rotation row k: aoff[k] + (node column − nfirst[k]) */
    size_t *first, *eoff;  /* [P], [P+1] scalar lower envelope (envelope.c) */
    size_t env_size;       /* eoff[P] */
    /* the pair sums by subtree propagation (D6d) instead of the walk over
     * each pair's ancestor pairs: on large rigs where it costs less */
    skf_rotonly_sums sums; /* the options */
    skf_rotonly_factor fact;
    bool prop;
    size_t *nch_off, *nch; /* [B+1], [B]: the children of node n, as nodes (ascending) */
    double *rrow;          /* [16B] one row's Σ_{k∈sub(b)} q_ak by column node b */
    size_t *prow_off, *prow; /* [B+1], by rotation node row a: the column nodes b ≤ a whose slot
                              can be nonzero (sub(a), sub(b) hold a co-influencing pair), ascending */
    /* the whole problem's factorisation in a minimum-degree order (blockchol.c,
     * D6d) instead of the envelope, on large rigs where it costs less */
    bool sparse;
    skfi_bchol bc;
    double *bwork;         /* [P] */
    /* state */
    double *Q, *G, *p;     /* [9B], [9B], [3B] */
    double *Qc, *Gc, *pc;  /* candidate */
    double *T, *Tc;        /* [12B] */
    /* the frame's last two direct residuals and the transforms they are of
     * (a pass over every vertex each): the same transforms are summed again
     * at a frame's end (Eend, the result's residual) after the last step
     * compared them; reset by each skf_rotonly_frame (its target and the
     * solver's weights are fixed during one call) */
    double *dr_T;          /* [2·12B] */
    double dr_E[2];
    int dr_n, dr_next;
    double *Tf;            /* [12B] the frame's free transforms, centred */
    double *Qb, *Gb, *pb, *Tb; /* the first start's result while the second is descended */
    double *JtJ, *A;       /* [env_size] JᵀJ and its damped factor, lower envelope */
    double *Jtr, *x, *y;   /* [P], by node */
    double *xr;            /* [P] the rejected whole-problem step while it is shortened (D6e) */
    double *D;             /* [P] diag(JᵀJ): the damping scale */
    double *X;             /* [9B] per joint: X_a = Σ_j y_aj r_jᵀ, column-major (D6b) */
    double *acc;           /* [aoff[B]·16] per envelope slot (row joint a, column joint b):
                              Σ G (9), Σ g (3), Σ h (3), Σ μ (1) over i ∈ sub(a), k ∈ sub(b) */
    double *accZ;          /* [9B] per joint: Σ_{i in subtree} (S_i − T_i C_iᵀ) */
    double *accz;          /* [3B] per joint: Σ_{i in subtree} (H_i − c_i) */
    skfi_solve_ws ws;       /* C_i, U of the frame (moments.c) */
    /* blocks (D6c): node ranges blk_s..blk_e, each one subtree or consecutive
     * sibling subtrees of at most SKF_ROTONLY_BLOCK joints below a larger one */
    size_t nblk, *blk_s, *blk_e;
    size_t lmax_nodes, lmax_env; /* the largest block: nodes, envelope entries */
    size_t *lnfirst, *lfirst, *leoff; /* the current block's envelope, local */
    double *lJtJ, *lA, *lJtr, *lx, *ly, *lD;
    double *blk_lambda, *blk_nu; /* [nblk] each block's damping state across sweeps */
};

static void mat3_mul(double out[9], const double a[9], const double b[9]) /* column-major */
{
    double r[9];
    for (int c = 0; c < 3; ++c)
        for (int row = 0; row < 3; ++row)
            r[c * 3 + row] = a[row] * b[c * 3] + a[3 + row] * b[c * 3 + 1] + a[6 + row] * b[c * 3 + 2];
    memcpy(out, r, sizeof r);
}

static void mat3_tmul(double out[9], const double a[9], const double b[9]) /* aᵀ·b */
{
    double r[9];
    for (int c = 0; c < 3; ++c)
        for (int row = 0; row < 3; ++row)
            r[c * 3 + row] = a[row * 3] * b[c * 3] + a[row * 3 + 1] * b[c * 3 + 1] +
                             a[row * 3 + 2] * b[c * 3 + 2];
    memcpy(out, r, sizeof r);
}

static void mat3_vec(double out[3], const double a[9], const double v[3])
{
    double r[3];
    for (int row = 0; row < 3; ++row)
        r[row] = a[row] * v[0] + a[3 + row] * v[1] + a[6 + row] * v[2];
    memcpy(out, r, sizeof r);
}

/* Rotation matrix of the rotation vector w (Rodrigues), column-major. */
static void expmap(double R[9], const double w[3])
{
    double th = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    double q[4];
    if (th < 1e-300) {
        q[0] = q[1] = q[2] = 0;
        q[3] = 1;
    } else {
        double s = sin(0.5 * th) / th;
        q[0] = w[0] * s;
        q[1] = w[1] * s;
        q[2] = w[2] * s;
        q[3] = cos(0.5 * th);
    }
    skf_quat_to_mat3(R, q);
}

/* Re-orthonormalise a rotation (keeps drift from accumulating). */
static void orthonormalise(double R[9])
{
    double q[4];
    skf_quat_from_mat3(q, R);
    skf_quat_normalize(q);
    skf_quat_to_mat3(R, q);
}

/* Forward kinematics: G, p from Q and root positions (p of roots given). */
static void forward_one(const skf_rotonly *r, size_t i, const double *Q, double *G, double *p, double *T)
{
    {
        int32_t par = r->parent[i];
        if (par < 0) {
            memcpy(G + 9 * i, Q + 9 * i, 9 * sizeof *G);
        } else {
            mat3_mul(G + 9 * i, G + 9 * (size_t)par, Q + 9 * i);
            double gd[3];
            mat3_vec(gd, G + 9 * (size_t)par, r->d + 3 * i);
            for (int e = 0; e < 3; ++e)
                p[3 * i + e] = p[3 * par + e] + gd[e];
        }
        double *Ti = T + 12 * i, gb[3];
        memcpy(Ti, G + 9 * i, 9 * sizeof *Ti);
        mat3_vec(gb, G + 9 * i, r->b + 3 * i);
        for (int e = 0; e < 3; ++e)
            Ti[9 + e] = p[3 * i + e] - gb[e];
    }
}

static void forward(const skf_rotonly *r, const double *Q, double *G, double *p, double *T)
{
    for (size_t k = 0; k < r->B; ++k)
        forward_one(r, r->order[k], Q, G, p, T);
}

/* Σ_j ‖s_j − u_j‖² by a direct pass (the reported residual). */
static double direct_residual(skf_rotonly *r, const double *T, const double *target)
{
    const size_t n12 = 12 * r->B;
    for (int c = 0; c < r->dr_n; ++c)
        if (!memcmp(r->dr_T + (size_t)c * n12, T, n12 * sizeof *T))
            return r->dr_E[c]; /* the same bits in: the same sum out */
    const double e = skfi_solve_residual(r->s, &r->ws, T, target, r->s->threads > 1);
    memcpy(r->dr_T + (size_t)r->dr_next * n12, T, n12 * sizeof *T);
    r->dr_E[r->dr_next] = e;
    r->dr_next = 1 - r->dr_next;
    if (r->dr_n < 2)
        ++r->dr_n;
    return e;
}

/* JᵀJ (lower envelope, by node) and Jᵀr from moment sums — no pass over the
 * vertices. With A_ia = T_i − p_a e₄ᵀ (the bone map relative to the pivot
 * of joint a):
 *   Y_ab = Σ_j y_aj y_bjᵀ = Σ_{i∈sub(a), k∈sub(b)} A_ia M_ik A_kbᵀ
 *        = Σ [G_ik − g_ik p_bᵀ − p_a h_ikᵀ + μ_ik p_a p_bᵀ],
 *   G_ik = T_i M_ik T_kᵀ, g_ik = T_i M_ik e₄, h_ik = T_k M_ik e₄, μ_ik = (M_ik)₄₄;
 *   rotation block (a,b) = tr(Y_ab) I − Y_abᵀ;
 *   rotation a / root translation ρ: [Σ (g_ik − μ_ik p_a)]_× over i∈sub(a), k∈sub(ρ);
 *   translations ρ, ρ': Σ μ_ik I.
 *   Jᵀr: rotation a: axial(Σ_{i∈sub(a)} (S_i − T_i C_iᵀ) − p_a (H_i − c_i)ᵀ) with
 *   S_i = Σ_k G_ik, H_i = Σ_k h_ik, c_i = C_i e₄; root ρ: Σ_{i∈sub(ρ)} (H_i − c_i).
 * Block (a,b) is nonzero only when some joint of sub(a) shares a vertex with
 * some joint of sub(b); those pairs are the envelope slots (a the later in
 * post-order). Each co-influencing pair (i,k) adds its moments to the slots of
 * its ancestor pairs: cost Σ over pairs of depth(i)·depth(k)/2, plus the
 * envelope, independent of the vertex count. */
/* The moment sums of the pair (i, k): q = G_ik = T_i M_ik T_kᵀ (9, column-major:
 * G[c*3+r] = G[r][c]), g_ik = T_i M_ik e₄ (3), h_ik = T_k M_ik e₄ (3), μ_ik (1). */
static inline void pair_sums(const double *Ti, const double *M, const double *Tk, double q[16])
{
    double TiM[12]; /* column-major 3×4 */
    for (int c = 0; c < 4; ++c)
        for (int rr = 0; rr < 3; ++rr)
            TiM[c * 3 + rr] = Ti[rr] * M[c] + Ti[3 + rr] * M[4 + c] + Ti[6 + rr] * M[8 + c] +
                              Ti[9 + rr] * M[12 + c];
    for (int c = 0; c < 3; ++c)
        for (int rr = 0; rr < 3; ++rr)
            q[c * 3 + rr] = TiM[rr] * Tk[c] + TiM[3 + rr] * Tk[3 + c] + TiM[6 + rr] * Tk[6 + c] +
                            TiM[9 + rr] * Tk[9 + c];
    for (int rr = 0; rr < 3; ++rr) {
        q[9 + rr] = TiM[9 + rr];
        q[12 + rr] = Tk[rr] * M[3] + Tk[3 + rr] * M[7] + Tk[6 + rr] * M[11] + Tk[9 + rr] * M[15];
    }
    q[15] = M[15];
}

/* Z_i += the pair's share of S_i (q's 3×3 part), z_i += its share of H_i
 * (q[12..14]): the sums Jᵀr needs from every pair (i, k) of joint i. */
static inline void add_pair_to_own(const double q[16], double Z[9], double z[3])
{
    for (int e = 0; e < 9; ++e)
        Z[e] += q[e];
    for (int e = 0; e < 3; ++e)
        z[e] += q[12 + e];
}

/* Z_i = S_i − T_i C_iᵀ, z_i = H_i − c_i: the target's share of Jᵀr (S_i, H_i in). */
static inline void minus_target_sums(const double *Ti, const double *Ci, double Z[9], double z[3])
{
    for (int c = 0; c < 3; ++c)
        for (int rr = 0; rr < 3; ++rr)
            Z[c * 3 + rr] -= Ti[rr] * Ci[c] + Ti[3 + rr] * Ci[3 + c] + Ti[6 + rr] * Ci[6 + c] + Ti[9 + rr] * Ci[9 + c];
    for (int e = 0; e < 3; ++e)
        z[e] -= Ci[9 + e];
}

/* JᵀJ's rotation block (a, b) of v from the slot's sums q (a = node ra the
 * row, b = node rb ≤ ra): Y_ab = G − g p_bᵀ − p_a hᵀ + μ p_a p_bᵀ, block =
 * tr(Y) I − Yᵀ (the lower triangle only on the diagonal). */
static inline void jtj_block(const skf_rotonly *r, const rview *v, size_t ra, size_t rb, const double *q)
{
    const size_t s0 = v->s;
    const double *pa = r->p + 3 * r->bone_at[ra], *pb = r->p + 3 * r->bone_at[rb];
    double Y[9]; /* column-major */
    for (int c = 0; c < 3; ++c)
        for (int rr = 0; rr < 3; ++rr)
            Y[c * 3 + rr] = q[c * 3 + rr] - q[9 + rr] * pb[c] - pa[rr] * q[12 + c] + q[15] * pa[rr] * pb[c];
    double tr = Y[0] + Y[4] + Y[8];
    /* block[rr][cc] = tr δ − Y[cc][rr] = tr δ − Ycm[rr*3 + cc] */
    for (int rr = 0; rr < 3; ++rr) {
        const size_t row = 3 * (ra - s0) + (size_t)rr;
        double *Lr = v->JtJ + v->eoff[row] + (3 * (rb - s0) - v->first[row]);
        for (int cc = 0; cc < 3 && (rb < ra || cc <= rr); ++cc)
            Lr[cc] = (rr == cc ? tr : 0) - Y[rr * 3 + cc];
    }
}

/* The slots of accumulate() by subtree propagation (docs/solver.md D6d), row
 * by row in post-order (a row's descendants first). With F(a, b) = Σ_{i∈sub(a),
 * k∈sub(b)} q_ik the slot and R(a, b) = Σ_{k∈sub(b)} q_ak:
 *   R(a, b) = q_ab + Σ_{c child of b} R(a, c),  F(a, b) = R(a, b) + Σ_{c child of a} F(c, b),
 * F(c, b) read from row c when b is not after c, else as the mirror of F(b, c)
 * (G transposed, g and h exchanged: M_ik is symmetric); a slot outside the
 * envelope is zero. Cost: Σ_rows (envelope length)·(2 + children) slots,
 * against Σ_pairs depth(i)·depth(k)/2 for the walk. Z_a, z_a the same way.
 * Only the slots that can be nonzero are visited (prow: (a, b) with sub(a),
 * sub(b) holding a co-influencing pair; docs/solver.md D6h): every other slot
 * is a sum of nothing, exact zero, left at the zero acc and JᵀJ start with, so
 * the sums and their order are those of the whole envelope. */
static void sums_propagated(skf_rotonly *r, const double *T, const rview *v)
{
    const skf_solver *s = r->s;
    const size_t s0 = v->s, e0 = v->e;
    double *R = r->rrow;
    for (size_t ra = s0; ra <= e0; ++ra) {
        const size_t a = r->bone_at[ra], f = r->nfirst[ra] > s0 ? r->nfirst[ra] : s0;
        /* the row's slots that can be nonzero, from column f on (R is zero
         * elsewhere: only these are written, and cleared after the row) */
        size_t c0 = r->prow_off[ra];
        const size_t c1 = r->prow_off[ra + 1];
        while (c0 < c1 && r->prow[c0] < f)
            ++c0;
        double Za[9] = {0}, za[3] = {0};
        if (s->mu[a] > 0) {
            const double *Ta = T + 12 * a, *Ca = r->ws.C + 12 * a;
            for (size_t at = s->nb_off[a]; at < s->nb_off[a + 1]; ++at) {
                const size_t k = s->nb_bone[at], pk = r->pos[k];
                double q[16];
                pair_sums(Ta, s->pair_M + 16 * s->nb_pair[at], T + 12 * k, q);
                add_pair_to_own(q, Za, za);
                if (pk >= f && pk <= ra)
                    for (int e = 0; e < 16; ++e)
                        R[16 * pk + e] += q[e];
            }
            minus_target_sums(Ta, Ca, Za, za);
        }
        for (size_t at = r->nch_off[ra]; at < r->nch_off[ra + 1]; ++at) {
            const size_t c = r->bone_at[r->nch[at]];
            for (int e = 0; e < 9; ++e)
                Za[e] += r->accZ[9 * c + e];
            for (int e = 0; e < 3; ++e)
                za[e] += r->accz[3 * c + e];
        }
        memcpy(r->accZ + 9 * a, Za, sizeof Za);
        memcpy(r->accz + 3 * a, za, sizeof za);
        /* (local copies: the sums of each slot in registers, the same order) */
        for (size_t pc = c0; pc < c1; ++pc) { /* R(a, b) over sub(b) */
            const size_t rb = r->prow[pc], h0 = r->nch_off[rb], h1 = r->nch_off[rb + 1];
            if (h0 == h1)
                continue;
            double d[16];
            memcpy(d, R + 16 * rb, sizeof d);
            for (size_t at = h0; at < h1; ++at) {
                const size_t cn = r->nch[at];
                if (cn >= f) {
                    const double *q = R + 16 * cn;
                    for (int e = 0; e < 16; ++e)
                        d[e] += q[e];
                }
            }
            memcpy(R + 16 * rb, d, sizeof d);
        }
        for (size_t pc = c0; pc < c1; ++pc) {
            const size_t rb = r->prow[pc];
            double d[16];
            memcpy(d, R + 16 * rb, sizeof d);
            for (size_t at = r->nch_off[ra]; at < r->nch_off[ra + 1]; ++at) {
                const size_t cn = r->nch[at];
                if (rb <= cn) { /* F(c, b) in row c */
                    if (rb < r->nfirst[cn])
                        continue;
                    const double *q = r->acc + (r->aoff[cn] + rb - r->nfirst[cn]) * 16;
                    for (int e = 0; e < 16; ++e)
                        d[e] += q[e];
                } else { /* the mirror of F(b, c), row b */
                    if (cn < r->nfirst[rb])
                        continue;
                    const double *q = r->acc + (r->aoff[rb] + cn - r->nfirst[rb]) * 16;
                    for (int c = 0; c < 3; ++c)
                        for (int rr = 0; rr < 3; ++rr)
                            d[c * 3 + rr] += q[rr * 3 + c];
                    for (int e = 0; e < 3; ++e) {
                        d[9 + e] += q[12 + e];
                        d[12 + e] += q[9 + e];
                    }
                    d[15] += q[15];
                }
            }
            memcpy(r->acc + (r->aoff[ra] + rb - r->nfirst[ra]) * 16, d, sizeof d); /* slot (ra, rb) */
            jtj_block(r, v, ra, rb, d); /* while the sums are at hand */
        }
        for (size_t pc = c0; pc < c1; ++pc)
            memset(R + 16 * r->prow[pc], 0, 16 * sizeof(double));
    }
}

static void accumulate(skf_rotonly *r, const double *T, const rview *v)
{
    const skf_solver *s = r->s;
    const size_t B = r->B, s0 = v->s, e0 = v->e;
    /* propagated sums, whole problem: only the slots that can be nonzero are
     * written (the others stay at the zeros of the allocation) */
    if (!(r->prop && v->full))
        memset(v->JtJ, 0, v->env_size * sizeof(double));
    if (r->prop) {
        sums_propagated(r, T, v);
    } else if (v->full) {
        memset(r->acc, 0, r->aoff[B] * 16 * sizeof(double));
        memset(r->accZ, 0, 9 * B * sizeof(double));
        memset(r->accz, 0, 3 * B * sizeof(double));
    } else { /* the block's slots and joints only */
        for (size_t ra = s0; ra <= e0; ++ra) {
            const size_t f = r->nfirst[ra] > s0 ? r->nfirst[ra] : s0, a = r->bone_at[ra];
            memset(r->acc + (r->aoff[ra] + f - r->nfirst[ra]) * 16, 0, (ra - f + 1) * 16 * sizeof(double));
            memset(r->accZ + 9 * a, 0, 9 * sizeof(double));
            memset(r->accz + 3 * a, 0, 3 * sizeof(double));
        }
    }
    for (size_t it = s0; it <= e0 && !r->prop; ++it) {
        const size_t i = v->full ? it : r->bone_at[it]; /* the whole problem: by joint index */
        if (!(s->mu[i] > 0))
            continue;
        const double *Ti = T + 12 * i, *Ci = r->ws.C + 12 * i;
        double Zi[9] = {0}, zi[3] = {0};
        for (size_t at = s->nb_off[i]; at < s->nb_off[i + 1]; ++at) {
            size_t k = s->nb_bone[at];
            double q[16];
            pair_sums(Ti, s->pair_M + 16 * s->nb_pair[at], T + 12 * k, q);
            add_pair_to_own(q, Zi, zi);
            if (r->pos[k] < s0 || r->pos[k] > e0) /* k held: its moments enter Jᵀr only */
                continue;
            /* slots (a, b), a ∈ anc(i) the row, b ∈ anc(k) at or before a in
             * post-order (ancestors come later: stop at the first past a);
             * the pair (k, i), visited from k's list, fills the others */
            for (int32_t a = (int32_t)i; a >= 0 && r->pos[a] <= e0; a = r->parent[a]) {
                const size_t ra = r->pos[a], f = r->nfirst[ra];
                for (int32_t b = (int32_t)k; b >= 0 && r->pos[b] <= ra; b = r->parent[b]) {
                    double *d = r->acc + (r->aoff[ra] + r->pos[b] - f) * 16;
                    for (int e = 0; e < 16; ++e)
                        d[e] += q[e];
                }
            }
        }
        minus_target_sums(Ti, Ci, Zi, zi);
        for (int32_t a = (int32_t)i; a >= 0 && r->pos[a] <= e0; a = r->parent[a]) {
            for (int e = 0; e < 9; ++e)
                r->accZ[9 * a + e] += Zi[e];
            for (int e = 0; e < 3; ++e)
                r->accz[3 * a + e] += zi[e];
        }
    }
    for (size_t ra = s0; ra <= e0 && !r->prop; ++ra) { /* (the propagation writes its blocks itself) */
        const size_t f = r->nfirst[ra] > s0 ? r->nfirst[ra] : s0;
        for (size_t rb = f; rb <= ra; ++rb)
            jtj_block(r, v, ra, rb, r->acc + (r->aoff[ra] + rb - r->nfirst[ra]) * 16);
    }
    for (size_t ra = s0; ra <= e0; ++ra) {
        const size_t a = r->bone_at[ra];
        const double *pa = r->p + 3 * a;
        /* Jᵀr rotation: axial(Z − p_a zᵀ) */
        double *Z = r->X + 9 * a; /* X_a = Σ_j y_aj r_jᵀ */
        for (int c = 0; c < 3; ++c)
            for (int rr = 0; rr < 3; ++rr)
                Z[c * 3 + rr] = r->accZ[9 * a + c * 3 + rr] - pa[rr] * r->accz[3 * a + c];
        /* axial: (Z[1][2] − Z[2][1], Z[2][0] − Z[0][2], Z[0][1] − Z[1][0]) */
        v->Jtr[3 * (ra - s0)] = Z[2 * 3 + 1] - Z[1 * 3 + 2];
        v->Jtr[3 * (ra - s0) + 1] = Z[0 * 3 + 2] - Z[2 * 3 + 0];
        v->Jtr[3 * (ra - s0) + 2] = Z[1 * 3 + 0] - Z[0 * 3 + 1];
    }
    /* root translations: node B + slot, rows after every rotation */
    for (size_t rho = 0; v->full && rho < B; ++rho) {
        if (r->root_slot[rho] == SIZE_MAX)
            continue;
        const size_t node = B + r->root_slot[rho], prho = r->pos[rho];
        for (int e = 0; e < 3; ++e)
            r->Jtr[3 * node + (size_t)e] = r->accz[3 * rho + e];
        /* rotation a (column) / translation ρ (row): the transpose of
         * [Σ (g_ik − μ_ik p_a)]_×, i ∈ sub(a), k ∈ sub(ρ). The slot of the
         * pair holds it as g when a is the row (later in post-order), as h
         * of the pair (ρ, a) otherwise; outside the envelope it is zero. */
        for (size_t ca = r->nfirst[node]; ca < B; ++ca) {
            const size_t a = r->bone_at[ca], hi = ca > prho ? ca : prho, lo = ca > prho ? prho : ca;
            if (lo < r->nfirst[hi])
                continue;
            const double *q = r->acc + (r->aoff[hi] + lo - r->nfirst[hi]) * 16, *pa = r->p + 3 * a;
            const double *g = ca > prho ? q + 9 : q + 12;
            double z[3] = {g[0] - q[15] * pa[0], g[1] - q[15] * pa[1], g[2] - q[15] * pa[2]};
            double sk[9] = {0, -z[2], z[1], z[2], 0, -z[0], -z[1], z[0], 0}; /* row-major [z]_× */
            for (int u = 0; u < 3; ++u) {
                const size_t row = 3 * node + (size_t)u;
                double *Lr = r->JtJ + r->eoff[row] + (3 * ca - r->first[row]);
                for (int v = 0; v < 3; ++v)
                    Lr[v] = sk[v * 3 + u];
            }
        }
        /* translations ρ', ρ (ρ' in an earlier or the same slot): Σ μ_ik I */
        for (size_t rho2 = 0; rho2 < B; ++rho2) {
            if (r->root_slot[rho2] == SIZE_MAX || r->root_slot[rho2] > r->root_slot[rho])
                continue;
            const size_t node2 = B + r->root_slot[rho2], p2 = r->pos[rho2];
            const size_t hi = p2 > prho ? p2 : prho, lo = p2 > prho ? prho : p2;
            if (lo < r->nfirst[hi] || 3 * node2 < r->first[3 * node])
                continue;
            const double m = r->acc[(r->aoff[hi] + lo - r->nfirst[hi]) * 16 + 15];
            for (int e = 0; e < 3; ++e) {
                const size_t row = 3 * node + (size_t)e;
                r->JtJ[r->eoff[row] + (3 * node2 + (size_t)e - r->first[row])] = m;
            }
        }
    }
    /* the damping scale: diag of the Gauss–Newton part */
    for (size_t k = 0; k < v->P; ++k)
        v->D[k] = v->JtJ[v->eoff[k + 1] - 1];
}

/* The residual-curvature term S (D6b, Σ_j r_j·∂²r_j along the retraction) from
 * the X_a of the last accumulate(): block (a, a) = sym(X_a) − tr(X_a) I;
 * block (a, b), a a strict ancestor of b (the row: later in post-order),
 * = X_b − tr(X_b) I. Added into the lower envelope M (add_curvature), or
 * y += S x (curvature_product). Cost: Σ_b depth(b) blocks. A block outside the
 * envelope has no weight under b, so X_b = 0. */
static void add_curvature(const skf_rotonly *r, const rview *v, double *M)
{
    const size_t s0 = v->s;
    for (size_t rb = s0; rb <= v->e; ++rb) {
        const size_t b = r->bone_at[rb];
        const double *X = r->X + 9 * b, tr = X[0] + X[4] + X[8];
        for (int rr = 0; rr < 3; ++rr) {
            const size_t row = 3 * (rb - s0) + (size_t)rr;
            double *Lr = M + v->eoff[row] + (3 * (rb - s0) - v->first[row]);
            for (int cc = 0; cc <= rr; ++cc) /* X(rr, cc) = X[cc*3 + rr] */
                Lr[cc] += 0.5 * (X[cc * 3 + rr] + X[rr * 3 + cc]) - (rr == cc ? tr : 0);
        }
        for (int32_t a = r->parent[b]; a >= 0 && r->pos[a] <= v->e; a = r->parent[a]) {
            const size_t ra = r->pos[a];
            if (rb < r->nfirst[ra])
                continue;
            for (int rr = 0; rr < 3; ++rr) {
                const size_t row = 3 * (ra - s0) + (size_t)rr;
                double *Lr = M + v->eoff[row] + (3 * (rb - s0) - v->first[row]);
                for (int cc = 0; cc < 3; ++cc)
                    Lr[cc] += X[cc * 3 + rr] - (rr == cc ? tr : 0);
            }
        }
    }
}

static void curvature_product(const skf_rotonly *r, const rview *v, const double *x, double *y)
{
    const size_t s0 = v->s;
    for (size_t it = s0; it <= v->e; ++it) {
        const size_t b = v->full ? it : r->bone_at[it]; /* the whole problem: by joint index */
        const double *X = r->X + 9 * b, tr = X[0] + X[4] + X[8];
        const double *xb = x + 3 * (r->pos[b] - s0);
        double *yb = y + 3 * (r->pos[b] - s0);
        for (int rr = 0; rr < 3; ++rr)
            for (int cc = 0; cc < 3; ++cc)
                yb[rr] += (0.5 * (X[cc * 3 + rr] + X[rr * 3 + cc]) - (rr == cc ? tr : 0)) * xb[cc];
        for (int32_t a = r->parent[b]; a >= 0 && r->pos[a] <= v->e; a = r->parent[a]) {
            if (r->pos[b] < r->nfirst[r->pos[a]])
                continue;
            const double *xa = x + 3 * (r->pos[a] - s0);
            double *ya = y + 3 * (r->pos[a] - s0);
            for (int rr = 0; rr < 3; ++rr)
                for (int cc = 0; cc < 3; ++cc) {
                    const double v = X[cc * 3 + rr] - (rr == cc ? tr : 0); /* S_ab(rr, cc) */
                    ya[rr] += v * xb[cc];
                    yb[cc] += v * xa[rr];
                }
        }
    }
}

/* The structure of the normal equations (once per rig). Post-order of the
 * joint forest (roots and children by index; an explicit stack, so any depth):
 * the subtree of joint a is the node range ending at pos[a]. Block (a, b) of
 * JᵀJ is nonzero only if some i ∈ sub(a) and k ∈ sub(b) share a vertex
 * (D6), so the first column of the lower envelope of row a is the smallest
 * pos[i] over co-influencing pairs (i, k) with a ∈ anc(k) and pos[i] ≤ pos[a]
 * (i's ancestors all come later than i). A root translation row couples with
 * the rotations of every joint sharing a vertex with its tree. The factor
 * keeps this envelope (envelope.c): fill only inside it. */
static skf_status structure(skf_rotonly *r)
{
    const skf_solver *s = r->s;
    const size_t B = r->B, N = B + r->R, P = r->P;
    size_t *child_off = skf_calloc(B + 1, sizeof *child_off), *child = skf_malloc_array(B ? B : 1, sizeof *child);
    size_t *stack = skf_malloc_array(B ? B : 1, sizeof *stack), *next = skf_malloc_array(B ? B : 1, sizeof *next);
    size_t *root_of = skf_malloc_array(B ? B : 1, sizeof *root_of);
    r->nfirst = skf_malloc_array(N ? N : 1, sizeof *r->nfirst);
    r->aoff = skf_malloc_array(B + 1, sizeof *r->aoff);
    r->first = skf_malloc_array(P ? P : 1, sizeof *r->first);
    r->eoff = skf_malloc_array(P + 1, sizeof *r->eoff);
    skf_status st = SKF_ERR_NOMEM;
    if (!child_off || !child || !stack || !next || !root_of || !r->nfirst || !r->aoff || !r->first || !r->eoff)
        goto done;
    for (size_t i = 0; i < B; ++i)
        if (r->parent[i] >= 0)
            ++child_off[r->parent[i] + 1];
    for (size_t i = 0; i < B; ++i)
        child_off[i + 1] += child_off[i];
    for (size_t i = 0; i < B; ++i)
        next[i] = child_off[i];
    for (size_t i = 0; i < B; ++i) /* children ascending */
        if (r->parent[i] >= 0)
            child[next[r->parent[i]]++] = i;
    size_t k = 0;
    for (size_t root = 0; root < B; ++root) {
        if (r->parent[root] >= 0)
            continue;
        size_t top = 0;
        stack[top++] = root;
        next[root] = child_off[root];
        while (top > 0) {
            size_t a = stack[top - 1];
            root_of[a] = root;
            if (next[a] < child_off[a + 1]) {
                size_t c = child[next[a]++];
                next[c] = child_off[c];
                stack[top++] = c;
            } else {
                r->pos[a] = k;
                r->bone_at[k++] = a;
                --top;
            }
        }
    }
    /* k == B: the parent chains were checked for cycles */
    for (size_t n = 0; n < N; ++n)
        r->nfirst[n] = n;
    for (size_t i = 0; i < B; ++i) {
        const size_t pi = r->pos[i];
        for (size_t at = s->nb_off[i]; at < s->nb_off[i + 1]; ++at) {
            const size_t kk = s->nb_bone[at];
            for (int32_t b = (int32_t)kk; b >= 0; b = r->parent[b])
                if (pi <= r->pos[b] && pi < r->nfirst[r->pos[b]])
                    r->nfirst[r->pos[b]] = pi;
            size_t tn = B + r->root_slot[root_of[kk]];
            if (pi < r->nfirst[tn])
                r->nfirst[tn] = pi;
        }
    }
    r->aoff[0] = 0;
    for (size_t n = 0; n < B; ++n)
        r->aoff[n + 1] = r->aoff[n] + (n - r->nfirst[n] + 1);
    r->eoff[0] = 0;
    for (size_t row = 0; row < P; ++row) {
        r->first[row] = 3 * r->nfirst[row / 3];
        r->eoff[row + 1] = r->eoff[row] + (row - r->first[row] + 1);
    }
    r->env_size = r->eoff[P];
    /* children by node, and the cheaper accumulation (D6d): the walk visits,
     * for each pair (i, k), the slots of its ancestor pairs; the propagation
     * each envelope slot once per child of its row and of its column. The walk
     * is kept below SKF_ROTONLY_BLOCK_MIN_JOINTS: its sums run in another
     * order, and the smaller rigs' results stay as they were (golden). */
    r->nch_off = skf_calloc(B + 1, sizeof *r->nch_off);
    r->nch = skf_malloc_array(B ? B : 1, sizeof *r->nch);
    if (!r->nch_off || !r->nch)
        goto done;
    for (size_t n = 0; n < B; ++n)
        if (r->parent[r->bone_at[n]] >= 0)
            ++r->nch_off[r->pos[r->parent[r->bone_at[n]]] + 1];
    for (size_t n = 0; n < B; ++n)
        r->nch_off[n + 1] += r->nch_off[n];
    for (size_t n = 0; n < B; ++n)
        next[n] = r->nch_off[n];
    for (size_t n = 0; n < B; ++n) /* ascending nodes */
        if (r->parent[r->bone_at[n]] >= 0) {
            const size_t pn = r->pos[r->parent[r->bone_at[n]]];
            r->nch[next[pn]++] = n;
        }
    double walk = 0, prop = 0;
    for (size_t i = 0; i < B; ++i)
        for (size_t at = s->nb_off[i]; at < s->nb_off[i + 1]; ++at)
            for (int32_t a = (int32_t)i; a >= 0; a = r->parent[a])
                for (int32_t b = (int32_t)s->nb_bone[at]; b >= 0 && r->pos[b] <= r->pos[a]; b = r->parent[b])
                    walk += 1;
    for (size_t n = 0; n < B; ++n)
        prop += (double)(n - r->nfirst[n] + 1) * (double)(2 + r->nch_off[n + 1] - r->nch_off[n]);
    r->prop = r->sums == SKF_ROTONLY_SUMS_PROPAGATE ||
              (r->sums != SKF_ROTONLY_SUMS_WALK && B >= SKF_ROTONLY_BLOCK_MIN_JOINTS && prop < walk);
    if (r->prop) {
        /* the slots that can be nonzero: (pos a, pos b), b ≤ a, a ∈ anc(i),
         * b ∈ anc(k) for a co-influencing pair (i, k) (both orders: each pair
         * is in both joints' lists) */
        const size_t W = (B + 63) / 64;
        uint64_t *bits = skf_calloc(B * W > 0 ? B * W : 1, sizeof *bits);
        r->rrow = skf_calloc(16 * B, sizeof *r->rrow);
        r->prow_off = skf_calloc(B + 1, sizeof *r->prow_off);
        if (!bits || !r->rrow || !r->prow_off) {
            skf_free(bits);
            goto done;
        }
        for (size_t i = 0; i < B; ++i)
            for (size_t at = s->nb_off[i]; at < s->nb_off[i + 1]; ++at)
                for (int32_t a = (int32_t)i; a >= 0; a = r->parent[a])
                    for (int32_t b = (int32_t)s->nb_bone[at]; b >= 0 && r->pos[b] <= r->pos[a]; b = r->parent[b])
                        bits[r->pos[a] * W + r->pos[b] / 64] |= (uint64_t)1 << (r->pos[b] % 64);
        for (size_t n = 0; n < B; ++n) {
            size_t c = 0;
            for (size_t w = 0; w < W; ++w)
                c += (size_t)__builtin_popcountll(bits[n * W + w]);
            r->prow_off[n + 1] = r->prow_off[n] + c;
        }
        r->prow = skf_malloc_array(r->prow_off[B] ? r->prow_off[B] : 1, sizeof *r->prow);
        if (!r->prow) {
            skf_free(bits);
            goto done;
        }
        for (size_t n = 0, at = 0; n < B; ++n)
            for (size_t w = 0; w < W; ++w)
                for (uint64_t x = bits[n * W + w]; x; x &= x - 1)
                    r->prow[at++] = 64 * w + (size_t)__builtin_ctzll(x);
        skf_free(bits);
    }
    /* D6d: a minimum-degree order where its factorisation costs less than half
     * the envelope's (its updates go through a block table: fewer operations
     * per second than the envelope's contiguous sums) */
    if (B >= SKF_ROTONLY_BLOCK_MIN_JOINTS && r->fact != SKF_ROTONLY_FACTOR_ENVELOPE) {
        const size_t W = (N + 63) / 64;
        uint64_t *pat = skf_calloc(N * W, sizeof *pat);
        if (!pat)
            goto done;
#define SKF_MARK(u, w) (pat[(u) * W + (w) / 64] |= (uint64_t)1 << ((w) % 64), \
                        pat[(w) * W + (u) / 64] |= (uint64_t)1 << ((u) % 64))
        for (size_t i = 0; i < B; ++i)
            for (size_t at = s->nb_off[i]; at < s->nb_off[i + 1]; ++at) {
                const size_t kk = s->nb_bone[at], ti = B + r->root_slot[root_of[i]];
                const size_t tk = B + r->root_slot[root_of[kk]];
                SKF_MARK(ti, tk);
                for (int32_t a = (int32_t)i; a >= 0; a = r->parent[a]) {
                    SKF_MARK(r->pos[a], tk);
                    for (int32_t b = (int32_t)kk; b >= 0; b = r->parent[b])
                        SKF_MARK(r->pos[a], r->pos[b]);
                }
            }
#undef SKF_MARK
        double env_ops = 0;
        for (size_t R = 0; R < N; ++R)
            for (size_t C = r->nfirst[R]; C <= R; ++C)
                env_ops += 27.0 * (double)(C - (r->nfirst[R] > r->nfirst[C] ? r->nfirst[R] : r->nfirst[C]));
        const skf_status bs = skfi_bchol_analyse(&r->bc, N, pat);
        skf_free(pat);
        if (bs != SKF_OK)
            goto done;
        r->sparse = r->fact == SKF_ROTONLY_FACTOR_SPARSE || r->bc.ops < 0.5 * env_ops;
        if (!r->sparse)
            skfi_bchol_release(&r->bc);
        else if (!(r->bwork = skf_malloc_array(P, sizeof *r->bwork)) ||
                 skfi_bchol_plan(&r->bc, r->nfirst, r->eoff) != SKF_OK)
            goto done;
    }
    /* blocks (D6c): below each joint of more than SKF_ROTONLY_BLOCK joints
     * (subtree sizes from post-order: sub(a) = [start, pos[a]]), runs of
     * consecutive child subtrees of at most that many joints together */
    for (size_t n = 0; n < B; ++n)
        next[n] = n; /* reused: start (subtree range's first node) by node */
    for (size_t n = 0; n < B; ++n) {
        const int32_t par = r->parent[r->bone_at[n]];
        if (par >= 0 && next[n] < next[r->pos[par]])
            next[r->pos[par]] = next[n];
    }
    r->nblk = 0;
    r->lmax_nodes = r->lmax_env = 0;
    for (int pass = 0; pass < 2; ++pass) {
        if (pass == 1) {
            r->blk_s = skf_malloc_array(r->nblk ? r->nblk : 1, sizeof *r->blk_s);
            r->blk_e = skf_malloc_array(r->nblk ? r->nblk : 1, sizeof *r->blk_e);
            if (!r->blk_s || !r->blk_e)
                goto done;
            r->nblk = 0;
        }
        for (size_t a = 0; a < B; ++a) {
            if (r->pos[a] - next[r->pos[a]] + 1 <= SKF_ROTONLY_BLOCK)
                continue;
            size_t rs = 0, re = 0, rn = 0;
            for (size_t at = child_off[a]; at <= child_off[a + 1]; ++at) {
                const size_t c = at < child_off[a + 1] ? child[at] : SIZE_MAX;
                const size_t sz = c == SIZE_MAX ? 0 : r->pos[c] - next[r->pos[c]] + 1;
                if (rn > 0 && (c == SIZE_MAX || sz > SKF_ROTONLY_BLOCK || rn + sz > SKF_ROTONLY_BLOCK)) {
                    if (pass == 1) {
                        r->blk_s[r->nblk] = rs;
                        r->blk_e[r->nblk] = re;
                        size_t env = 0;
                        for (size_t n = rs; n <= re; ++n)
                            env += 3 * (n - (r->nfirst[n] > rs ? r->nfirst[n] : rs)) * 3 + 6;
                        if (env > r->lmax_env)
                            r->lmax_env = env;
                        if (re - rs + 1 > r->lmax_nodes)
                            r->lmax_nodes = re - rs + 1;
                    }
                    ++r->nblk;
                    rn = 0;
                }
                if (c == SIZE_MAX || sz > SKF_ROTONLY_BLOCK)
                    continue;
                if (rn == 0)
                    rs = next[r->pos[c]];
                re = r->pos[c];
                rn += sz;
            }
        }
    }
    /* Gauss–Seidel over blocks pays where they are loosely coupled (chains,
     * limbs): off when more than SKF_ROTONLY_BLOCK_COUPLING of the pair
     * moments Σ_j w_ij w_kj (i ≠ k) join different blocks or a block and the
     * rest (D6c; bench_solve's random tree: 0.83, its 25 chains: 0.23–0.26) */
    if (r->nblk && (!r->use_blocks || B < SKF_ROTONLY_BLOCK_MIN_JOINTS))
        r->nblk = 0;
    if (r->nblk) {
        for (size_t n = 0; n < B; ++n)
            stack[n] = SIZE_MAX; /* reused: block of node n */
        for (size_t b = 0; b < r->nblk; ++b)
            for (size_t n = r->blk_s[b]; n <= r->blk_e[b]; ++n)
                stack[n] = b;
        double cross = 0, all = 0;
        for (size_t i = 0; i < B; ++i)
            for (size_t at = s->nb_off[i]; at < s->nb_off[i + 1]; ++at) {
                const size_t kk = s->nb_bone[at];
                if (kk == i)
                    continue;
                const double m = s->pair_M[16 * s->nb_pair[at] + 15];
                all += m;
                if (stack[r->pos[i]] != stack[r->pos[kk]])
                    cross += m;
            }
        if (!(cross <= SKF_ROTONLY_BLOCK_COUPLING * all))
            r->nblk = 0;
    }
    st = SKF_OK;
done:
    skf_free(child_off);
    skf_free(child);
    skf_free(stack);
    skf_free(next);
    skf_free(root_of);
    return st;
}

skf_status skf_rotonly_new(const skf_solver *solver, const skf_skeleton *skel,
                           const skf_rotonly_options *opt, skf_rotonly **out, skf_error *err)
{
    *out = NULL;
    const size_t B = solver->B;
    if (!skel || skel->joint_count != B || !skel->parent || !skel->bind_to_world)
        return skf_fail(err, SKF_ERR_ARGUMENT,
                        "rotation-only: skeleton: %zu joints for %zu bones (must match)",
                        skel ? skel->joint_count : 0, B);
    for (size_t i = 0; i < B; ++i) {
        int32_t par = skel->parent[i];
        if (par < -1 || par >= (int32_t)B || par == (int32_t)i)
            return skf_fail(err, SKF_ERR_ARGUMENT, "rotation-only: skeleton: joint %zu: parent %d invalid",
                            i, (int)par);
        size_t depth = 0;
        for (int32_t a = par; a >= 0; a = skel->parent[a])
            if (++depth > B)
                return skf_fail(err, SKF_ERR_ARGUMENT,
                                "rotation-only: skeleton: joint %zu: parent chain has a cycle", i);
        const double *m = skel->bind_to_world + 16 * i;
        if (!skf_mat4_is_finite(m))
            return skf_fail(err, SKF_ERR_NUMERIC, "rotation-only: skeleton: joint %zu: non-finite bind", i);
        /* uniform scale (possibly mirrored) rotation: mᵀm = s² I */
        double s2 = 0, off = 0;
        for (int a = 0; a < 3; ++a)
            s2 += (m[a * 4] * m[a * 4] + m[a * 4 + 1] * m[a * 4 + 1] + m[a * 4 + 2] * m[a * 4 + 2]) / 3;
        for (int a = 0; a < 3; ++a)
            for (int c = 0; c < 3; ++c) {
                double d = m[a * 4] * m[c * 4] + m[a * 4 + 1] * m[c * 4 + 1] + m[a * 4 + 2] * m[c * 4 + 2];
                off = fmax(off, fabs(d - (a == c ? s2 : 0)));
            }
        if (!(s2 > 0) || off > 1e-6 * s2)
            return skf_fail(err, SKF_ERR_NUMERIC,
                            "rotation-only: skeleton: joint %zu: bind matrix has shear or "
                            "non-uniform scale (|MᵀM − s²I| = %.3g s²)", i, s2 > 0 ? off / s2 : 0.0);
    }
    skf_rotonly *r = skf_calloc(1, sizeof *r);
    if (!r)
        return skf_fail(err, SKF_ERR_NOMEM, "rotation-only: out of memory");
    r->s = solver;
    r->B = B;
    r->max_it = (opt && opt->max_iterations > 0) ? opt->max_iterations : SKF_ROTONLY_DEFAULT_MAX_ITERATIONS;
    r->tol = (opt && opt->tolerance > 0) ? opt->tolerance : 1e-18;
    r->rel_tol = !opt || opt->relative_tolerance == 0 ? 1e-10
                 : opt->relative_tolerance > 0       ? opt->relative_tolerance
                                                     : 0;
    r->newton = !opt || opt->hessian != SKF_ROTONLY_HESSIAN_GAUSS_NEWTON;
    r->use_blocks = !opt || opt->blocks >= 0;
    r->backtrack = (!opt || opt->backtrack >= 0) && B >= SKF_ROTONLY_BLOCK_MIN_JOINTS;
    r->repivot = opt && opt->repivot > 0 && B >= SKF_ROTONLY_BLOCK_MIN_JOINTS;
    r->sums = opt ? opt->sums : SKF_ROTONLY_SUMS_AUTO;
    r->fact = opt ? opt->factor : SKF_ROTONLY_FACTOR_AUTO;
    r->parent = skf_malloc_array(B, sizeof *r->parent);
    r->order = skf_malloc_array(B, sizeof *r->order);
    r->root_slot = skf_malloc_array(B, sizeof *r->root_slot);
    r->b = skf_malloc_array(3 * B, sizeof *r->b);
    r->d = skf_malloc_array(3 * B, sizeof *r->d);
    r->pos = skf_malloc_array(B, sizeof *r->pos);
    r->bone_at = skf_malloc_array(B, sizeof *r->bone_at);
    bool ok = r->parent && r->order && r->root_slot && r->b && r->d && r->pos && r->bone_at;
    if (ok) {
        memcpy(r->parent, skel->parent, B * sizeof *r->parent);
        for (size_t i = 0; i < B; ++i) {
            for (int k = 0; k < 3; ++k)   /* centred like the solver's rest */
                r->b[3 * i + k] = skel->bind_to_world[16 * i + 12 + k] - solver->centre[k];
            r->root_slot[i] = r->parent[i] < 0 ? r->R++ : SIZE_MAX;
        }
        for (size_t i = 0; i < B; ++i)
            for (int k = 0; k < 3; ++k)
                r->d[3 * i + k] = r->parent[i] < 0 ? 0
                                  : skel->offset ? skel->offset[3 * i + k]
                                                 : r->b[3 * i + k] - r->b[3 * (size_t)r->parent[i] + k];
        /* topological order by depth (stable) */
        size_t k = 0;
        for (size_t depth = 0; k < B && depth <= B; ++depth)
            for (size_t i = 0; i < B; ++i) {
                size_t d = 0;
                for (int32_t a = r->parent[i]; a >= 0; a = r->parent[a])
                    ++d;
                if (d == depth)
                    r->order[k++] = i;
            }
        r->P = 3 * B + 3 * r->R;
        ok = structure(r) == SKF_OK;
    }
    if (ok) {
        const size_t P = r->P;
        r->Q = skf_malloc_array(9 * B, sizeof(double));
        r->G = skf_malloc_array(9 * B, sizeof(double));
        r->p = skf_malloc_array(3 * B, sizeof(double));
        r->Qc = skf_malloc_array(9 * B, sizeof(double));
        r->Gc = skf_malloc_array(9 * B, sizeof(double));
        r->pc = skf_malloc_array(3 * B, sizeof(double));
        r->T = skf_malloc_array(12 * B, sizeof(double));
        r->Tc = skf_malloc_array(12 * B, sizeof(double));
        r->dr_T = skf_malloc_array(24 * B, sizeof(double));
        r->Tf = skf_malloc_array(12 * B, sizeof(double));
        r->Qb = skf_malloc_array(9 * B, sizeof(double));
        r->Gb = skf_malloc_array(9 * B, sizeof(double));
        r->pb = skf_malloc_array(3 * B, sizeof(double));
        r->Tb = skf_malloc_array(12 * B, sizeof(double));
        r->JtJ = skf_calloc(r->env_size ? r->env_size : 1, sizeof(double));
        r->A = skf_malloc_array(r->env_size, sizeof(double));
        r->Jtr = skf_malloc_array(P, sizeof(double));
        r->D = skf_malloc_array(P, sizeof(double));
        r->X = skf_malloc_array(9 * B, sizeof(double));
        r->x = skf_malloc_array(P, sizeof(double));
        r->y = skf_malloc_array(P, sizeof(double));
        r->xr = skf_malloc_array(P, sizeof(double));
        r->acc = skf_calloc(r->aoff[B] ? r->aoff[B] * 16 : 1, sizeof(double));
        r->accZ = skf_malloc_array(9 * B, sizeof(double));
        r->accz = skf_malloc_array(3 * B, sizeof(double));
        if (r->nblk) {
            const size_t ln = r->lmax_nodes;
            r->lnfirst = skf_malloc_array(ln, sizeof(size_t));
            r->lfirst = skf_malloc_array(3 * ln, sizeof(size_t));
            r->leoff = skf_malloc_array(3 * ln + 1, sizeof(size_t));
            r->lJtJ = skf_malloc_array(r->lmax_env, sizeof(double));
            r->lA = skf_malloc_array(r->lmax_env, sizeof(double));
            r->lJtr = skf_malloc_array(3 * ln, sizeof(double));
            r->lx = skf_malloc_array(3 * ln, sizeof(double));
            r->ly = skf_malloc_array(3 * ln, sizeof(double));
            r->lD = skf_malloc_array(3 * ln, sizeof(double));
            r->blk_lambda = skf_malloc_array(r->nblk, sizeof(double));
            r->blk_nu = skf_malloc_array(r->nblk, sizeof(double));
            ok = ok && r->lnfirst && r->lfirst && r->leoff && r->lJtJ && r->lA && r->lJtr && r->lx && r->ly &&
                 r->lD && r->blk_lambda && r->blk_nu;
        }
        ok = ok && r->Q && r->G && r->p && r->Qc && r->Gc && r->pc && r->T && r->Tc && r->dr_T && r->Tf && r->Qb && r->Gb && r->pb && r->Tb && r->JtJ && r->A &&
             r->Jtr && r->D && r->X && r->x && r->y && r->xr && r->acc && r->accZ && r->accz &&
             skfi_solve_ws_init(solver, &r->ws, false) == SKF_OK;
    }
    if (!ok) {
        skf_rotonly_free(r);
        return skf_fail(err, SKF_ERR_NOMEM, "rotation-only: out of memory (%zu joints)", B);
    }
    *out = r;
    return SKF_OK;
}

void skf_rotonly_free(skf_rotonly *r)
{
    if (!r)
        return;
    void *ptrs[] = {r->parent, r->order, r->root_slot, r->b, r->d, r->pos, r->bone_at, r->nfirst,
                    r->aoff, r->first, r->eoff, r->Q, r->G, r->p, r->Qc, r->Gc, r->pc, r->T,
                    r->Tc, r->dr_T, r->Tf, r->Qb, r->Gb, r->pb, r->Tb, r->JtJ, r->A, r->Jtr, r->D, r->X, r->x, r->y, r->xr, r->acc, r->accZ, r->accz,
                    r->blk_s, r->blk_e, r->lnfirst, r->lfirst, r->leoff, r->lJtJ, r->lA, r->lJtr, r->lx, r->ly, r->lD,
                    r->blk_lambda, r->blk_nu, r->nch_off, r->nch, r->rrow, r->prow_off, r->prow, r->bwork};
    for (size_t k = 0; k < sizeof ptrs / sizeof ptrs[0]; ++k)
        skf_free(ptrs[k]);
    skfi_solve_ws_release(&r->ws);
    skfi_bchol_release(&r->bc);
    skf_free(r);
}

void skf_rotonly_joint_positions(const skf_rotonly *r, const double *transforms, double *out)
{
    const double *c = r->s->centre;
    for (size_t i = 0; i < r->B; ++i) {
        double b[3] = {r->b[3 * i] + c[0], r->b[3 * i + 1] + c[1], r->b[3 * i + 2] + c[2]};
        skf_transform34_apply(transforms + 12 * i, b, out + 3 * i);
    }
}

/* State (Q, G, p, T) from a set of transforms: rotations (re-orthonormalised),
 * root positions p_r = T_r b_r. */
static void state_from(skf_rotonly *r, const double *Tin)
{
    for (size_t i = 0; i < r->B; ++i) {
        memcpy(r->G + 9 * i, Tin + 12 * i, 9 * sizeof(double));
        orthonormalise(r->G + 9 * i);
        skf_transform34_apply(Tin + 12 * i, r->b + 3 * i, r->p + 3 * i);
    }
    for (size_t i = 0; i < r->B; ++i) {
        int32_t par = r->parent[i];
        if (par < 0)
            memcpy(r->Q + 9 * i, r->G + 9 * i, 9 * sizeof(double));
        else
            mat3_tmul(r->Q + 9 * i, r->G + 9 * (size_t)par, r->G + 9 * i);
    }
    forward(r, r->Q, r->G, r->p, r->T);
}

/* The free start re-pivoted (docs/solver.md D6g): top-down, joint i keeps the
 * position p_i its ancestors give it and takes the rotation G_i maximising
 * ⟨G, H_i⟩ (Horn, D3), H_i = (T̂_i − p_i e₄ᵀ) M_ii [I | −b_i]ᵀ
 * + Σ_{c child} μ_c (T̂_c b_c − p_i) d_cᵀ, μ_c = (M_cc)₃₃ = Σ_j w_cj²: the
 * rotation about p_i that best carries bone i's own vertices and its
 * children's joints where its free fit T̂_i puts them. Written into the
 * candidate buffers (Qc, Gc, pc, Tc); Tf (centred) is the free fit.
 * SKF_ROTONLY_REPIVOT_CHILD scales μ_c: at 10³ the children's joints set the
 * bone's direction and its own vertices its twist (and a leaf's rotation);
 * bench_solve, random tree F = 2, by factor 0 / 1 / 10 / 10² / 10³: 139 (frame 1 at the cap) /
 * 120 / 102 / 108 / 98 iterations against 102 without the re-pivot. */
#define SKF_ROTONLY_REPIVOT_CHILD 1e3
static const double *self_moment(const skf_solver *s, size_t i)
{
    for (size_t at = s->nb_off[i]; at < s->nb_off[i + 1]; ++at)
        if (s->nb_bone[at] == i)
            return s->pair_M + 16 * s->nb_pair[at];
    return NULL;
}

static void repivot_start(skf_rotonly *r)
{
    const size_t B = r->B;
    const double *Tf = r->Tf;
    for (size_t k = 0; k < B; ++k) {
        const size_t i = r->order[k];
        const int32_t par = r->parent[i];
        double *pi = r->pc + 3 * i;
        if (par < 0) {
            skf_transform34_apply(Tf + 12 * i, r->b + 3 * i, pi);
        } else {
            double gd[3];
            mat3_vec(gd, r->Gc + 9 * (size_t)par, r->d + 3 * i);
            for (int e = 0; e < 3; ++e)
                pi[e] = r->pc[3 * par + e] + gd[e];
        }
        double H[9] = {0};
        const double *M = self_moment(r->s, i), *Ti = Tf + 12 * i, *bi = r->b + 3 * i;
        if (M) {
            double A[12]; /* T̂_i − p_i e₄ᵀ, column-major 3×4 */
            memcpy(A, Ti, sizeof A);
            for (int e = 0; e < 3; ++e)
                A[9 + e] -= pi[e];
            for (int rr = 0; rr < 3; ++rr) {
                double am[4];
                for (int c = 0; c < 4; ++c)
                    am[c] = A[rr] * M[c] + A[3 + rr] * M[4 + c] + A[6 + rr] * M[8 + c] + A[9 + rr] * M[12 + c];
                for (int cc = 0; cc < 3; ++cc)
                    H[3 * cc + rr] += am[cc] - am[3] * bi[cc];
            }
        }
        const size_t ni = r->pos[i];
        for (size_t at = r->nch_off[ni]; at < r->nch_off[ni + 1]; ++at) {
            const size_t c = r->bone_at[r->nch[at]];
            const double *Mc = self_moment(r->s, c);
            const double mu = SKF_ROTONLY_REPIVOT_CHILD * (Mc ? Mc[15] : 0);
            double t[3];
            skf_transform34_apply(Tf + 12 * c, r->b + 3 * c, t);
            for (int rr = 0; rr < 3; ++rr)
                for (int cc = 0; cc < 3; ++cc)
                    H[3 * cc + rr] += mu * (t[rr] - pi[rr]) * r->d[3 * c + cc];
        }
        double *Gi = r->Gc + 9 * i;
        bool any = false;
        for (int e = 0; e < 9; ++e)
            any |= H[e] != 0;
        if (any)
            skf_horn_rotation(H, Gi);
        else
            memcpy(Gi, r->G + 9 * i, 9 * sizeof *Gi); /* nothing to fit: the free rotation */
        if (par < 0)
            memcpy(r->Qc + 9 * i, Gi, 9 * sizeof *Gi);
        else
            mat3_tmul(r->Qc + 9 * i, r->Gc + 9 * (size_t)par, Gi);
    }
    forward(r, r->Qc, r->Gc, r->pc, r->Tc);
}

/* The current state into the saved buffers (restore_best: back). */
static void keep_best(skf_rotonly *r)
{
    memcpy(r->Qb, r->Q, 9 * r->B * sizeof(double));
    memcpy(r->Gb, r->G, 9 * r->B * sizeof(double));
    memcpy(r->pb, r->p, 3 * r->B * sizeof(double));
    memcpy(r->Tb, r->T, 12 * r->B * sizeof(double));
}

static void restore_best(skf_rotonly *r)
{
    memcpy(r->Q, r->Qb, 9 * r->B * sizeof(double));
    memcpy(r->G, r->Gb, 9 * r->B * sizeof(double));
    memcpy(r->p, r->pb, 3 * r->B * sizeof(double));
    memcpy(r->T, r->Tb, 12 * r->B * sizeof(double));
}

/* The candidate state (Qc, Gc, pc, Tc) from the step r->x: the retraction
 * Q_a ← G_parentᵀ Exp(δθ_a) G_parent Q_a top-down with the OLD parent
 * rotations, root positions moved by δp, then forward kinematics. */
static void retract(skf_rotonly *r, const rview *v)
{
    const size_t B = r->B;
    if (!v->full) { /* the block's joints, parents first (descending post-order); the rest held */
        for (size_t k = v->e + 1; k-- > v->s;) {
            const size_t i = r->bone_at[k];
            const double *Gp = r->G + 9 * (size_t)r->parent[i]; /* a block holds no root */
            double Ex[9], tmp[9];
            expmap(Ex, v->x + 3 * (k - v->s));
            mat3_tmul(tmp, Gp, Ex);
            mat3_mul(tmp, tmp, Gp);
            mat3_mul(r->Qc + 9 * i, tmp, r->Q + 9 * i);
            orthonormalise(r->Qc + 9 * i);
            forward_one(r, i, r->Qc, r->Gc, r->pc, r->Tc);
        }
        return;
    }
    for (size_t i = 0; i < B; ++i) {
        double Ex[9], tmp[9];
        expmap(Ex, r->x + 3 * r->pos[i]);
        int32_t par = r->parent[i];
        if (par < 0) {
            mat3_mul(r->Qc + 9 * i, Ex, r->Q + 9 * i);
            for (int k = 0; k < 3; ++k)
                r->pc[3 * i + k] = r->p[3 * i + k] + r->x[3 * B + 3 * r->root_slot[i] + k];
        } else {
            const double *Gp = r->G + 9 * (size_t)par;
            mat3_tmul(tmp, Gp, Ex);          /* Gpᵀ Ex */
            mat3_mul(tmp, tmp, Gp);          /* Gpᵀ Ex Gp */
            mat3_mul(r->Qc + 9 * i, tmp, r->Q + 9 * i);
        }
        orthonormalise(r->Qc + 9 * i);
    }
    forward(r, r->Qc, r->Gc, r->pc, r->Tc);
}

/* The terms of the moment-form energy (D1) that involve the joints at nodes
 * s..e of v: E(T') − E(T) = part(T') − part(T) when T and T' differ there
 * only (M_ik is symmetric, so each pair counts once inside, twice across). */
static double energy_part(const skf_rotonly *r, const double *T, const rview *v)
{
    const skf_solver *s = r->s;
    double sum = 0;
    for (size_t it = v->s; it <= v->e; ++it) {
        const size_t i = r->bone_at[it];
        const double *Ti = T + 12 * i, *Ci = r->ws.C + 12 * i;
        double lin = 0, quad = 0;
        for (int e = 0; e < 12; ++e)
            lin += Ti[e] * Ci[e];
        for (size_t at = s->nb_off[i]; at < s->nb_off[i + 1]; ++at) {
            const size_t k = s->nb_bone[at], pk = r->pos[k];
            const bool inside = pk >= v->s && pk <= v->e;
            if (inside && k < i)
                continue;
            const double *M = s->pair_M + 16 * s->nb_pair[at], *Tk = T + 12 * k;
            double t = 0;
            for (int c = 0; c < 4; ++c)
                for (int rr = 0; rr < 3; ++rr)
                    t += (Ti[rr] * M[c] + Ti[3 + rr] * M[4 + c] + Ti[6 + rr] * M[8 + c] + Ti[9 + rr] * M[12 + c]) *
                         Tk[c * 3 + rr];
            quad += inside && k == i ? t : 2 * t;
        }
        sum += quad - 2 * lin;
    }
    return sum;
}

/* Levenberg–Marquardt on the subproblem v from the current state (Q, G, p,
 * T; E its moment-form energy) until the rule of skf_rotonly_frame holds or
 * max_it iterations; λ and ν in and out (a block keeps its own across
 * sweeps); iterations and factorisations are added to *iterations and st.
 * Returns whether it converged; E in: the start's, out: the end's. A block
 * starts from candidate buffers equal to the state (its retraction writes
 * its own joints only). */
static bool descend(skf_rotonly *r, const rview *v, const double *target, double *E_io, double stop,
                    int max_it, double *lambda_io, double *nu_io, int *iterations, skf_rotonly_stats *st)
{
    const skf_solver *s = r->s;
    const size_t P = v->P;
    double E = *E_io;
    const double lam_check = 1e-9;
    double lambda = *lambda_io, nu = *nu_io;
    bool converged = false;
    if (!v->full) {
        memcpy(r->Qc, r->Q, 9 * r->B * sizeof(double));
        memcpy(r->Gc, r->G, 9 * r->B * sizeof(double));
        memcpy(r->pc, r->p, 3 * r->B * sizeof(double));
        memcpy(r->Tc, r->T, 12 * r->B * sizeof(double));
    }
    for (int it = 0; it < max_it && !converged; ++it) {
        ++*iterations;
        accumulate(r, r->T, v);
        const double Epart = v->full ? 0 : energy_part(r, r->T, v);
        double dmax = 0;
        for (size_t k = 0; k < P; ++k)
            dmax = fmax(dmax, v->D[k]);
        if (!(dmax > 0)) { /* nothing moves the residual */
            converged = true;
            break;
        }
        const double thr = fmax(stop, r->rel_tol > 0 ? r->rel_tol * E : 0);
        int check = 0; /* (b)'s test at lam_check: 0 not yet, 1 this try, 2 done (failed) */
        bool use_h = r->newton; /* H this iteration (until H + λD fails to factor: then JᵀJ) */
        for (;;) {
            if (!(lambda <= 1e16)) { /* (c) */
                converged = true;
                break;
            }
            const double lam = check == 1 ? lam_check : lambda;
            const bool hess = r->newton && (check == 1 || use_h);
            memcpy(v->A, v->JtJ, v->env_size * sizeof(double));
            if (hess)
                add_curvature(r, v, v->A);
            for (size_t k = 0; k < P; ++k) {
                v->A[v->eoff[k + 1] - 1] += lam * fmax(v->D[k], 1e-12 * dmax);
                v->x[k] = -v->Jtr[k];
            }
            ++st->factorizations;
            const bool sp = v->full && r->sparse;
            if ((sp ? skfi_bchol_factor(&r->bc, v->A) : skfi_env_factor3(v->nodes, v->nfirst, v->eoff, v->A)) != 0) {
                if (check == 1) { /* H not positive definite: not a minimum yet */
                    check = 2;
                } else if (hess) { /* H + λD indefinite: the Gauss–Newton step at this λ */
                    use_h = false;
                } else {
                    lambda *= nu;
                    nu *= 2;
                }
                continue;
            }
            if (sp)
                skfi_bchol_solve(&r->bc, v->x, r->bwork);
            else
                skfi_env_solve(P, v->first, v->eoff, v->A, v->x);
            /* the model's decrease: E − m(δ) = −2δᵀJᵀr − δᵀMδ, M the matrix factored */
            skfi_env_symv(P, v->first, v->eoff, v->JtJ, v->x, v->y);
            if (hess)
                curvature_product(r, v, v->x, v->y);
            double pred = 0;
            for (size_t k = 0; k < P; ++k)
                pred -= v->x[k] * (2 * v->Jtr[k] + v->y[k]);
            bool last = false;
            if (!(pred > thr)) {
                if (check == 0 && (lam > lam_check || hess != r->newton)) { /* test (b) undamped */
                    check = 1;
                    continue;
                }
                last = check != 2; /* else a damped trial like any other */
            }
            retract(r, v);
            double Ec = v->full ? skfi_solve_energy(s, &r->ws, r->Tc) : E - Epart + energy_part(r, r->Tc, v);
            /* D6e (rigs of ≥ 128 joints): a rejected whole-problem step is
             * shortened along its direction, α = 1/2, 1/4, 1/8, until E rises
             * again after falling below the start's; the lowest such E is
             * taken, and λ grows as after a rejection (×2, Nielsen's first),
             * so the iteration's factorisation is not thrown away */
            bool shortened = false;
            if (v->full && r->backtrack && !last && !(Ec < E)) {
                memcpy(r->xr, v->x, P * sizeof(double));
                double Eb = Ec, ab = 1;
                for (double a = 0.5; a >= 0.125; a *= 0.5) {
                    for (size_t k = 0; k < P; ++k)
                        v->x[k] = a * r->xr[k];
                    retract(r, v);
                    const double Ea = skfi_solve_energy(s, &r->ws, r->Tc);
                    if (Ea < Eb) {
                        Eb = Ea;
                        ab = a;
                    } else if (Eb < E) {
                        break;
                    }
                }
                if (Eb < E) {
                    for (size_t k = 0; k < P; ++k)
                        v->x[k] = ab * r->xr[k];
                    retract(r, v);
                    Ec = Eb;
                    shortened = true;
                    ++st->backtracked;
                }
            }
            /* the last step is decided on the direct sums: near E's rounding
             * (a far target) the moment form cannot tell */
            if (last && v->full ? direct_residual(r, r->Tc, target) < direct_residual(r, r->T, target) : Ec < E) {
                const double rho = (E - Ec) / pred, t = 2 * rho - 1;
                double *sw;
                E = Ec;
                sw = r->Q; r->Q = r->Qc; r->Qc = sw;
                sw = r->G; r->G = r->Gc; r->Gc = sw;
                sw = r->p; r->p = r->pc; r->pc = sw;
                sw = r->T; r->T = r->Tc; r->Tc = sw;
                lambda = shortened ? 2 * lam : fmax(lam * fmax(1.0 / 3, 1 - t * t * t), lam_check);
                nu = 2;
                converged = last;
                break;
            }
            if (last) { /* converged; the model's last step is below E's rounding */
                converged = true;
                break;
            }
            if (check == 1) { /* the undamped step failed: back to the damped one */
                check = 2;
                continue;
            }
            lambda *= nu;
            nu *= 2;
        }
    }
    *E_io = E;
    *lambda_io = lambda;
    *nu_io = nu;
    return converged;
}

static rview full_view(skf_rotonly *r)
{
    rview v = {0, r->B - 1, r->B + r->R, r->P, true, r->nfirst, r->first, r->eoff, r->env_size,
               r->JtJ, r->A, r->Jtr, r->x, r->y, r->D};
    return v;
}

/* Block b's subproblem: the principal part of the envelope on its nodes
 * (first columns clamped to the block's first node), local buffers. */
static rview block_view(skf_rotonly *r, size_t b)
{
    const size_t s0 = r->blk_s[b], e0 = r->blk_e[b], n = e0 - s0 + 1;
    r->leoff[0] = 0;
    for (size_t k = 0; k < n; ++k) {
        r->lnfirst[k] = (r->nfirst[s0 + k] > s0 ? r->nfirst[s0 + k] : s0) - s0;
        for (size_t q = 0; q < 3; ++q) {
            const size_t row = 3 * k + q;
            r->lfirst[row] = 3 * r->lnfirst[k];
            r->leoff[row + 1] = r->leoff[row] + (row - r->lfirst[row] + 1);
        }
    }
    rview v = {s0, e0, n, 3 * n, false, r->lnfirst, r->lfirst, r->leoff, r->leoff[3 * n],
               r->lJtJ, r->lA, r->lJtr, r->lx, r->ly, r->lD};
    return v;
}

/* One start descended (D6c): with blocks, sweeps of each block's own
 * Levenberg–Marquardt (its λ kept across sweeps), each sweep followed by one
 * whole-problem iteration, whose rule ends it; without, whole-problem
 * iterations alone. */
static bool solve_start(skf_rotonly *r, const double *target, double *E, double stop, skf_rotonly_stats *st)
{
    rview full = full_view(r);
    double lambda = 1e-4, nu = 2;
    if (r->nblk == 0)
        return descend(r, &full, target, E, stop, r->max_it, &lambda, &nu, &st->iterations, st);
    for (size_t b = 0; b < r->nblk; ++b) {
        r->blk_lambda[b] = 1e-4;
        r->blk_nu[b] = 2;
    }
    while (st->iterations < r->max_it) {
        for (size_t b = 0; b < r->nblk; ++b) {
            rview v = block_view(r, b);
            descend(r, &v, target, E, stop, SKF_ROTONLY_BLOCK_ITERATIONS, &r->blk_lambda[b], &r->blk_nu[b],
                    &st->block_iterations, st);
        }
        *E = skfi_solve_energy(r->s, &r->ws, r->T); /* the blocks' differences, summed afresh */
        if (descend(r, &full, target, E, stop, 1, &lambda, &nu, &st->iterations, st))
            return true;
    }
    return false;
}

skf_status skf_rotonly_frame(skf_rotonly *r, const double *target, const double *free_transforms,
                             double *transforms, bool prev_valid, skf_rotonly_stats *stats,
                             skf_error *err)
{
    skfi_solve_count_rotonly();
    const skf_solver *s = r->s;
    const size_t B = r->B, n = s->n;
    for (size_t e = 0; e < 3 * n; ++e)
        if (!isfinite(target[e]))
            return skf_fail(err, SKF_ERR_FORMAT, "rotation-only: target: vertex %zu: non-finite value",
                            e / 3);
    for (size_t e = 0; e < 12 * B; ++e)
        if (!isfinite(free_transforms[e]) || (prev_valid && !isfinite(transforms[e])))
            return skf_fail(err, SKF_ERR_FORMAT, "rotation-only: start: bone %zu: non-finite value", e / 12);
    skf_rotonly_stats st;
    memset(&st, 0, sizeof st);

    r->dr_n = r->dr_next = 0; /* a new target */
    /* C_i, U of this frame: every later energy and derivative is a moment sum */
    skfi_solve_frame_moments(s, &r->ws, target, s->threads > 1);
    /* Two starts (docs/solver.md D6b): the free solution's rotations and, with
     * prev_valid, the previous result. The energy is not convex in the
     * rotations: each start is descended to its own converged point and the
     * lower direct residual wins (ties: the free start's); a first result
     * with E ≤ tolerance·N·diag² ends the frame. In the solver's centred
     * coordinates. */
    memcpy(r->Tf, free_transforms, 12 * B * sizeof(double));
    skfi_solve_to_centred(s, r->Tf, B, true);
    const double stop = r->tol * (double)n * s->diag * s->diag;
    double Ed = 0;
    bool converged = false;
    /* D6d: on large rigs the start that begins lower is descended first and
     * the other only when it begins below the first's end (it then certainly
     * ends lower); the smaller rigs descend both, the free start first (D6b:
     * the animals' frames that need both) */
    const bool large = B >= SKF_ROTONLY_BLOCK_MIN_JOINTS;
    int first_start = 0;
    if (prev_valid)
        skfi_solve_to_centred(s, transforms, B, true);
    if (r->repivot) { /* D6g: the re-pivoted free start where it begins lower */
        state_from(r, r->Tf);
        const double e0 = direct_residual(r, r->T, target);
        repivot_start(r);
        if (direct_residual(r, r->Tc, target) < e0) {
            memcpy(r->Tf, r->Tc, 12 * B * sizeof(double));
            ++st.repivoted;
        }
    }
    if (prev_valid && large) {
        state_from(r, r->Tf);
        const double e0 = direct_residual(r, r->T, target);
        state_from(r, transforms);
        if (direct_residual(r, r->T, target) < e0)
            first_start = 1;
    }
    for (int k = 0; k < (prev_valid ? 2 : 1); ++k) {
        const int start = k == 0 ? first_start : 1 - first_start;
        skf_rotonly_stats one;
        memset(&one, 0, sizeof one);
        state_from(r, start == 0 ? r->Tf : transforms);
        double Es = skfi_solve_energy(s, &r->ws, r->T);
        one.energy_start = direct_residual(r, r->T, target);
        bool conv = !(one.energy_start > stop);
        if (k == 1 && large && !(one.energy_start < Ed)) {
            ++st.starts_skipped;
            restore_best(r);
            break;
        }
        if (!conv)
            conv = solve_start(r, target, &Es, stop, &one);
        const double Eend = direct_residual(r, r->T, target);
        st.iterations += one.iterations;
        st.block_iterations += one.block_iterations;
        st.factorizations += one.factorizations;
        st.backtracked += one.backtracked;
        if (k == 0 || one.energy_start < st.energy_start)
            st.energy_start = one.energy_start;
        if (k == 0 || Eend < Ed) {
            Ed = Eend;
            converged = conv;
            if (prev_valid && k == 0)
                keep_best(r);
        } else {
            restore_best(r);
        }
        if (!(Ed > stop)) /* (a) holds: no start can gain more than the resolution */
            break;
    }
    st.hit_cap = !converged;
    memcpy(transforms, r->T, 12 * B * sizeof(double));
    skfi_solve_from_centred(s, transforms, B, true);
    st.residual = direct_residual(r, r->T, target);
    st.rms = sqrt(st.residual / (double)n);
    for (size_t i = 0; i < B; ++i) {
        int32_t par = r->parent[i];
        if (par < 0)
            continue;
        double d0[3], d1[3];
        for (int k = 0; k < 3; ++k) {
            d0[k] = r->d[3 * i + k];
            d1[k] = r->p[3 * i + k] - r->p[3 * par + k];
        }
        double l0 = skf_norm3(d0), l1 = skf_norm3(d1);
        if (l0 > 0)
            st.max_length_error = fmax(st.max_length_error, fabs(l1 - l0) / l0);
    }
    if (stats)
        *stats = st;
    return SKF_OK;
}
