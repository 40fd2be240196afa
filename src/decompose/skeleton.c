/* A skeleton (bone tree and joints) for a flat decomposition.
 *
 * B. H. Le and Z. Deng, "Robust and Accurate Skeletal Rigging from Mesh
 * Sequences", ACM TOG 33(4) (SIGGRAPH 2014): after a rigid-bone skinning
 * decomposition, (1) connect the bones by a minimum spanning tree of a graph
 * whose edge weights measure how loosely two bones are coupled, (2) place
 * the joint between two connected bones at the point that moves least
 * relative to both, in least squares over the frames, and (3) re-solve the
 * transforms with the tree as a constraint: every bone's motion is a
 * rotation about its joint relative to its parent, the root free. The
 * details below are ours where the paper leaves a choice (docs/decompose.md,
 * "Skeleton").
 *
 * Joint of bones a, b. In rest coordinates p, the point carried by a is at
 * R_fa p + t_fa in frame f, by b at R_fb p + t_fb. Their distance
 *     E_ab(p) = Σ_f ‖D_f p + e_f‖²,  D_f = R_fa − R_fb,  e_f = t_fa − t_fb,
 * is a quadratic with normal matrix A = Σ D_fᵀ D_f. A hinge (relative
 * rotation about one axis) leaves A singular along the axis, and bones that
 * never move relative to each other leave it zero, so the least-squares
 * problem is regularised towards m_ab, the centroid of the vertices the two
 * bones share (weights w_a·w_b), or the midpoint of their centroids when
 * they share none:  (A + λI) p = −Σ D_fᵀ e_f + λ m_ab, λ = 1e-3 · tr(A)/3
 * (plus a tiny floor), which moves p only along the directions A does not
 * determine.
 *
 * Coupling. The edge weight of a pair is (r + 1e-3·diag) / s: r the RMS over
 * frames of the relative displacement at its joint, sqrt(E_ab(p*)/F) (a
 * true joint keeps the two bones' copies of the point together), s the
 * fraction of the lighter bone's weight Σ_j w_aj w_bj / min(Σ w_a, Σ w_b)
 * that the two share (a true joint has skin around it that both bones move;
 * r alone joined left and right legs that swing about one common axis).
 * Pairs that share no vertex get r + 1000·diag, so the tree still spans
 * every bone when the shared-vertex graph is disconnected. Prim's algorithm on the
 * dense B × B graph. The root is the tree's centre (least eccentricity in
 * edges; ties: the heavier bone by Σ_j w_ij), a choice of ours.
 *
 * Pruning (before the tree). A bone carrying less than JOINT_MIN_MASS
 * vertices' worth of weight cannot stand for a rigid part: the lightest such
 * bone is removed and the weights and flat transforms re-solved, until none
 * is left (prune_bones; Le & Deng prune redundant bones, this criterion is
 * ours). The skeleton may so have fewer bones than the flat decomposition.
 *
 * Re-solve. With joint positions b_i (root: its weighted centroid) and
 * bind_to_world_i = translation(b_i), the constrained model is the solver's
 * rotation-only mode (include/skinfit/solve.h, skf_rotonly: T_i = [G_i | p_i
 * − G_i b_i], p_i = p_parent + G_parent (b_i − b_parent)), started from the
 * flat transforms. The joint positions are unknowns of the constrained
 * problem too (Le & Deng alternate weights, joints and transforms): given
 * the rotations and weights the energy is quadratic in b (refine_joints;
 * along a direction the relative rotations leave undetermined, a hinge's
 * axis, a prior pulls b to the centroid of the vertices the bone shares with
 * its parent — ours: Le & Deng regularise the weights instead), so
 * each pass alternates the exact joint step with the constrained transforms,
 * up to JOINT_ALTERNATIONS times or until the energy falls by less than
 * JOINT_TOL; a first pass with the flat weights, then `rounds` passes each
 * after new weights for the current transforms (weights.c). The
 * lowest-energy skeletal iterate (transforms, weights, joints) is kept. Bone
 * lengths ‖p_i − p_parent‖ are constant by construction.
 *
 * Support (ours). The rounds' weight step takes a vertex's candidate bones
 * from the weights the tree was built from (the bones of the vertex and its
 * mesh neighbours there), not from the last round's: a bone's skin may grow
 * or shrink within one ring of its flat skin but not travel ring by ring
 * over the rounds, which would leave the tree's edges describing bones that
 * no longer stand where they were chosen. By the rule, the rounds end when
 * both the best energy and the kept joints have settled (each joint moved by
 * ≤ tol of its bone's length a round over the window, or by less than
 * the energy can resolve: moved alone by its drift it changes the energy
 * by ≤ the energy rule's allowance): along a joint
 * between two bones that turn a few degrees relative to each other the
 * energy is nearly flat, and an energy-only rule stopped while that joint
 * was still moving.
 */
#include "decompose_internal.h"
#include "skinfit/math.h"
#include "skinfit/solve.h"

#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* eigenvalue ratio below which a direction of the joint problem counts as
 * undetermined by the motion (relative rotation about it below 10 % of the
 * dominant one) */
#define JOINT_WEAK 1e-2
/* a bone with less weight than this (Σ_j w_ij, in vertices) gets its joints
 * at the shared centroid: a rigid motion needs three points */
#define JOINT_MIN_MASS 3.0
/* the same for the joint step (refine_joints), whose weak directions are
 * pulled to the prior: stricter, because it couples every joint and so
 * gathers the model's misfit along weak directions (at 1e-2, without the
 * prior, 30 rounds moved the Walk's Spine3-Neck1 joint 3.7 % of the diagonal
 * along the neck's hinge axis, off the body's mid-plane; at 0.05 it stayed
 * within 1.8 %) */
#define REFINE_WEAK 0.05
/* joint-step / constrained-transform alternations per weight round, and the
 * relative energy decrease below which they stop */
#define JOINT_ALTERNATIONS 3
#define JOINT_TOL 1e-4
/* weight + flat-transform re-solves after each pruned bone */
#define PRUNE_ITERS 2
/* over-relaxation of the joints across rounds (Salakhutdinov & Roweis
 * 2003): the factor's growth after an accepted try, and its bound (8
 * overshot: Bone_Anim's rounds stalled at 20 with the RMS 0.7 % above
 * the plain rounds') */
#define OVERRELAX_GROW 1.5
#define OVERRELAX_MAX 3.0

/* Joint of bones a, b: p out, returns the RMS relative displacement. */
static double pair_joint(const skfi_decompose_ctx *c, const skf_decomposition *d, size_t a, size_t b,
                         const double m[3], bool light, double p[3])
{
    size_t F = c->F, B = d->bone_count;
    double A[9] = {0}, g[3] = {0}, ee = 0;
    for (size_t f = 0; f < F; ++f) {
        const double *Ta = d->transforms + (f * B + a) * 12, *Tb = d->transforms + (f * B + b) * 12;
        double D[9], e[3];
        for (int k = 0; k < 9; ++k)
            D[k] = Ta[k] - Tb[k]; /* column-major */
        for (int r = 0; r < 3; ++r)
            e[r] = Ta[9 + r] - Tb[9 + r];
        for (int i = 0; i < 3; ++i) {
            for (int k = 0; k < 3; ++k) {
                double s = 0;
                for (int r = 0; r < 3; ++r)
                    s += D[i * 3 + r] * D[k * 3 + r];
                A[i * 3 + k] += s;
            }
            double s = 0;
            for (int r = 0; r < 3; ++r)
                s += D[i * 3 + r] * e[r];
            g[i] += s;
        }
        ee += e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
    }
    double lam = 1e-3 * (A[0] + A[4] + A[8]) / 3 + 1e-12 * (double)F;
    double M[9], rhs[3];
    memcpy(M, A, sizeof M);
    for (int i = 0; i < 3; ++i) {
        M[i * 3 + i] += lam;
        rhs[i] = -g[i] + lam * m[i];
    }
    /* symmetric positive definite 3×3: Cholesky */
    double L[9] = {0};
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k <= i; ++k) {
            double s = M[i * 3 + k];
            for (int q = 0; q < k; ++q)
                s -= L[i * 3 + q] * L[k * 3 + q];
            L[i * 3 + k] = i == k ? sqrt(fmax(s, 1e-300)) : s / L[k * 3 + k];
        }
    double y[3];
    for (int i = 0; i < 3; ++i) {
        double s = rhs[i];
        for (int q = 0; q < i; ++q)
            s -= L[i * 3 + q] * y[q];
        y[i] = s / L[i * 3 + i];
    }
    for (int i = 2; i >= 0; --i) {
        double s = y[i];
        for (int q = i + 1; q < 3; ++q)
            s -= L[q * 3 + i] * p[q];
        p[i] = s / L[i * 3 + i];
    }
    double E = ee + 2 * (p[0] * g[0] + p[1] * g[1] + p[2] * g[2]);
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k)
            E += p[i] * A[i * 3 + k] * p[k];
    /* The coupling r is the regularised minimum above; the joint itself is
     * the truncated solution: */
    /* Truncated least squares about m: p = m + Σ_k v_k (v_kᵀ(−g − A m)) / λ_k over
     * the eigenpairs (λ_k, v_k) of A with λ_k > JOINT_WEAK · λ_max; along the
     * other directions (a hinge's axis: relative rotation about it below
     * sqrt(JOINT_WEAK) of the dominant one) the motion does not fix the joint,
     * and p keeps m's coordinate. */
    double A4[16] = {0}, ev[4], V[16];
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k)
            A4[i * 4 + k] = A[i * 3 + k];
    skf_sym4_eigen(A4, ev, V);
    double lmax = 0;
    for (int k = 0; k < 4; ++k)
        if (fabs(V[12 + k]) < 0.5 && ev[k] > lmax)
            lmax = ev[k];
    for (int i = 0; i < 3; ++i) {
        rhs[i] = -g[i];
        for (int k = 0; k < 3; ++k)
            rhs[i] -= A[i * 3 + k] * m[k];
        p[i] = m[i];
    }
    for (int k = 0; k < 4; ++k) {
        if (light || fabs(V[12 + k]) >= 0.5 || !(ev[k] > JOINT_WEAK * lmax) ||
            !(ev[k] > 1e-12 * (double)F))
            continue;
        double t = (V[k] * rhs[0] + V[4 + k] * rhs[1] + V[8 + k] * rhs[2]) / ev[k];
        for (int i = 0; i < 3; ++i)
            p[i] += t * V[i * 4 + k];
    }
    return sqrt(fmax(E, 0) / (double)F);
}

/* Constrained transforms of every frame (frames independent: the same bits
 * at any thread count). Tfree: starts [F*B*12]; Tout [F*B*12]; returns the
 * energy Σ_f residual_f, or −1 on failure (err set). */
static double constrained(const skfi_decompose_ctx *c, const skf_solver *solver, const skf_skeleton *skel,
                          const double *Tfree, double *Tout, skf_error *err)
{
    size_t F = c->F, N = c->N, B = skel->joint_count;
    double *fe = skf_calloc(F, sizeof *fe);
    if (!fe) {
        skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory for the skeleton");
        return -1;
    }
    int failed = 0;
#pragma omp parallel
    {
        skf_rotonly *r = NULL;
        skf_error e2;
        if (skf_rotonly_new(solver, skel, NULL, &r, &e2)) {
#pragma omp critical(skfi_decompose_skeleton_err)
            if (!failed) {
                failed = 1;
                *err = e2;
            }
        }
#pragma omp for schedule(dynamic, 1)
        for (long long ff = 0; ff < (long long)F; ++ff) {
            size_t f = (size_t)ff;
            if (!r)
                continue;
            skf_rotonly_stats st;
            if (skf_rotonly_frame(r, c->frames + f * N * 3, Tfree + f * B * 12,
                                  Tout + f * B * 12, false, &st, &e2)) {
#pragma omp critical(skfi_decompose_skeleton_err)
                if (!failed) {
                    failed = 1;
                    *err = e2;
                }
                continue;
            }
            fe[f] = st.residual;
        }
        skf_rotonly_free(r);
    }
    double E = 0;
    for (size_t f = 0; f < F; ++f)
        E += fe[f];
    skf_free(fe);
    return failed ? -1 : E;
}

/* Joint step (Le & Deng 2014: joint positions are unknowns of the
 * skeleton-constrained problem). With the rotations G_fi and the weights
 * fixed, the constrained transforms are T_fi = [G_fi | τ_f + Σ_{k ∈ path(i)}
 * D_fk b_k], D_fk = G_f,parent(k) − G_fk, the path running from the root's
 * child to i and τ_f the root's translation (b_root drops out). The energy
 *     E(b, τ) = Σ_f Σ_j ‖a_fj + τ_f + Σ_k W_jk D_fk b_k‖²,
 * W_jk = Σ_{i ∈ subtree(k)} w_ij, is quadratic: τ_f is eliminated exactly
 * (vertex weights sum to one, so τ_f's coefficient is I), which centres W
 * over the vertices (W̃_jk = W_jk − W̄_k), and the normal equations for
 * the update δb are H δb = −g with
 *     H_kl = (Σ_j W̃_jk W̃_jl) Σ_f D_fkᵀ D_fl,   g_k = Σ_f D_fkᵀ Σ_j W̃_jk r_fj,
 * r_fj the current residual. Along a direction the motion does not
 * determine (an eigenvector v of Σ_f D_fkᵀ D_fk with eigenvalue at most
 * REFINE_WEAK · the largest σ_0: a hinge's axis) E barely changes, so the
 * step adds the prior μ (vᵀ(b_k − m_k))², m_k the centroid of the vertices
 * bone k shares with its parent in the current weights (Σ_j w_kj w_pj v_j /
 * Σ_j w_kj w_pj, the pair joints' m_ab) and μ = (Σ_j W̃_jk²) σ_0, the
 * stiffness of the best-determined direction: b_k follows the weights'
 * boundary along the axis instead of keeping a coordinate the weights have
 * left (the Walk's Spine3-FrontUpperLeg_R joint sat 4.5 % of the diagonal
 * off along the front legs' common lateral axis; over 60 rounds the Trot's
 * left-shoulder bone took the right shoulder's skin with its joint left
 * 10 % of the diagonal away on that axis). Without a shared vertex the
 * coordinate stays. Bones in `fixed` (light) keep their joints. T [F*B*12]
 * in/out (translations updated, rotations kept), b [3B] in/out. The step is
 * the exact minimiser of E + prior over b and τ. */
static skf_status refine_joints(const skfi_decompose_ctx *c, const skfi_contact *ct, const skf_decomposition *d,
                                const int32_t *parent, const size_t *order, const bool *fixed, double *T, double *b,
                                double *pr, double *curv, skf_error *err)
{
    size_t N = c->N, F = c->F, B = d->bone_count, K = d->max_influences;
    skf_status st = SKF_OK;
    double *Dm = skf_calloc(F * B * 9, sizeof *Dm);
    double *V = skf_calloc(B * 9, sizeof *V);
    size_t *nk = skf_calloc(B, sizeof *nk), *base = skf_calloc(B, sizeof *base);
    double *wsub = skf_calloc(B, sizeof *wsub);
    size_t *touched = skf_malloc_array(B, sizeof *touched);
    double *sumW = skf_calloc(B, sizeof *sumW);
    double *SS = skf_calloc(B * B, sizeof *SS);
    double *P = skf_calloc(F * B * 3, sizeof *P);
    double *rbar = skf_calloc(F * 3, sizeof *rbar);
    double *pm = skf_calloc(B * 4, sizeof *pm), *prior_mu = skf_calloc(3 * B, sizeof *prior_mu);
    double *H = NULL, *x = NULL, *db = NULL;
    if (!Dm || !V || !nk || !base || !wsub || !touched || !sumW || !SS || !P || !rbar || !pm || !prior_mu) {
        st = skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory for the skeleton's joints");
        goto done;
    }
    if (pr)
        memset(pr, 0, 16 * B * sizeof *pr);
    if (curv)
        memset(curv, 0, 9 * B * sizeof *curv);
    size_t n = 0;
    for (size_t k = 0; k < B; ++k) {
        if (parent[k] < 0)
            continue;
        const size_t q = (size_t)parent[k];
        double A[9] = {0};
        for (size_t f = 0; f < F; ++f) {
            double *D = Dm + (f * B + k) * 9;
            const double *Tk = T + (f * B + k) * 12, *Tq = T + (f * B + q) * 12;
            for (int e = 0; e < 9; ++e)
                D[e] = Tq[e] - Tk[e];
            for (int u = 0; u < 3; ++u)
                for (int v = 0; v < 3; ++v)
                    A[v * 3 + u] += D[u * 3] * D[v * 3] + D[u * 3 + 1] * D[v * 3 + 1] + D[u * 3 + 2] * D[v * 3 + 2];
        }
        if (fixed[k])
            continue;
        double U[9], sv[3], W[9];
        skf_svd3(A, U, sv, W);
        base[k] = n;
        if (curv) /* Σ_f D_fkᵀ D_fk, times Σ_j W̃_jk² below */
            memcpy(curv + 9 * k, A, 9 * sizeof *curv);
        for (int q2 = 0; q2 < 3; ++q2) {
            bool weak = !(sv[q2] > REFINE_WEAK * sv[0] && sv[q2] > 1e-12 * (double)F);
            memcpy(V + 9 * k + 3 * nk[k], W + 3 * q2, 3 * sizeof *V);
            /* a weak direction gets the prior at the strongest direction's
             * stiffness (times Σ_j W̃_jk², below) */
            prior_mu[3 * k + nk[k]] = weak ? fmax(sv[0], 1e-12 * (double)F) : 0;
            nk[k]++;
        }
        n += nk[k];
    }
    if (n == 0)
        goto done;
    /* subtree weights, their sums and products, the residual's moments */
    for (size_t j = 0; j < N; ++j) {
        size_t nt = 0;
        for (size_t s = 0; s < K; ++s) {
            double w = d->weight[j * K + s];
            if (!(w > 0))
                continue;
            for (int32_t a = (int32_t)d->weight_bone[j * K + s]; a >= 0; a = parent[a]) {
                if (wsub[a] == 0)
                    touched[nt++] = (size_t)a;
                wsub[a] += w;
            }
        }
        for (size_t u = 0; u < nt; ++u) {
            size_t k = touched[u];
            if (!nk[k])
                continue;
            sumW[k] += wsub[k];
            for (size_t v = 0; v < nt; ++v)
                if (nk[touched[v]])
                    SS[k * B + touched[v]] += wsub[k] * wsub[touched[v]];
        }
        const double *v0 = c->rest + 3 * j;
        /* the prior's moments: Σ_j w_kj w_parent(k),j (v_j, 1) */
        for (size_t s1 = 0; s1 < K; ++s1) {
            double w1 = d->weight[j * K + s1];
            if (!(w1 > 0))
                continue;
            size_t k1 = d->weight_bone[j * K + s1];
            if (!nk[k1])
                continue;
            for (size_t s2 = 0; s2 < K; ++s2) {
                double w2 = d->weight[j * K + s2];
                if (s2 == s1 || !(w2 > 0) || (int32_t)d->weight_bone[j * K + s2] != parent[k1])
                    continue;
                for (int e = 0; e < 3; ++e)
                    pm[4 * k1 + (size_t)e] += w1 * w2 * v0[e];
                pm[4 * k1 + 3] += w1 * w2;
            }
        }
        for (size_t f = 0; f < F; ++f) {
            const double *u0 = c->frames + f * N * 3 + 3 * j;
            double r[3] = {-u0[0], -u0[1], -u0[2]};
            for (size_t s = 0; s < K; ++s) {
                double w = d->weight[j * K + s];
                if (!(w > 0))
                    continue;
                const double *Ti = T + (f * B + d->weight_bone[j * K + s]) * 12;
                for (int e = 0; e < 3; ++e)
                    r[e] += w * (Ti[e] * v0[0] + Ti[3 + e] * v0[1] + Ti[6 + e] * v0[2] + Ti[9 + e]);
            }
            for (int e = 0; e < 3; ++e)
                rbar[f * 3 + (size_t)e] += r[e];
            for (size_t u = 0; u < nt; ++u) {
                size_t k = touched[u];
                if (nk[k])
                    for (int e = 0; e < 3; ++e)
                        P[(f * B + k) * 3 + (size_t)e] += wsub[k] * r[e];
            }
        }
        for (size_t u = 0; u < nt; ++u)
            wsub[touched[u]] = 0;
    }
    /* and the contact across separate mesh parts (contact.c), as in the
     * tree's coupling */
    for (size_t e = 0; e < ct->n; ++e) {
        const size_t jj[2] = {ct->v[2 * e], ct->v[2 * e + 1]};
        for (int side = 0; side < 2; ++side) {
            size_t j1 = jj[side], j2 = jj[1 - side];
            for (size_t s1 = 0; s1 < K; ++s1) {
                double w1 = d->weight[j1 * K + s1];
                size_t k1 = d->weight_bone[j1 * K + s1];
                if (!(w1 > 0) || !nk[k1])
                    continue;
                for (size_t s2 = 0; s2 < K; ++s2) {
                    double w2 = d->weight[j2 * K + s2];
                    if (!(w2 > 0) || (int32_t)d->weight_bone[j2 * K + s2] != parent[k1])
                        continue;
                    for (int q = 0; q < 3; ++q)
                        pm[4 * k1 + (size_t)q] += 0.25 * w1 * w2 * (c->rest[3 * j1 + (size_t)q] + c->rest[3 * j2 + (size_t)q]);
                    pm[4 * k1 + 3] += 0.5 * w1 * w2;
                }
            }
        }
    }
    H = skf_calloc(n * n, sizeof *H);
    x = skf_calloc(n, sizeof *x);
    db = skf_calloc(3 * B, sizeof *db);
    if (!H || !x || !db) {
        st = skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory for the skeleton's joints");
        goto done;
    }
    const double invN = 1.0 / (double)N;
    for (size_t k = 0; k < B; ++k) {
        if (!nk[k])
            continue;
        /* g_k = Σ_f D_fkᵀ q_fk, q_fk = P_fk − W̄-centred part */
        double g[3] = {0};
        for (size_t f = 0; f < F; ++f) {
            const double *D = Dm + (f * B + k) * 9;
            double q[3];
            for (int e = 0; e < 3; ++e)
                q[e] = P[(f * B + k) * 3 + (size_t)e] - sumW[k] * rbar[f * 3 + (size_t)e] * invN;
            for (int u = 0; u < 3; ++u)
                g[u] += D[u * 3] * q[0] + D[u * 3 + 1] * q[1] + D[u * 3 + 2] * q[2];
        }
        /* the prior along weak directions: μ_kd (v_dᵀ(b_k − m_k))², μ_kd =
         * (Σ_j W̃_jk²) σ_0, σ_0 the largest eigenvalue of Σ_f D_fkᵀ D_fk (no
         * shared vertex: m_k = b_k, the coordinate stays) */
        double skk = fmax(SS[k * B + k] - sumW[k] * sumW[k] * invN, 0);
        if (curv)
            for (int e = 0; e < 9; ++e)
                curv[9 * k + (size_t)e] *= skk;
        double dm[3] = {0};
        if (pm[4 * k + 3] > 0)
            for (int e = 0; e < 3; ++e)
                dm[e] = b[3 * k + (size_t)e] - pm[4 * k + (size_t)e] / pm[4 * k + 3];
        if (pr) { /* the prior's terms, for the caller's evaluation */
            for (size_t a = 0; a < nk[k]; ++a) {
                memcpy(pr + 16 * k + 3 * a, V + 9 * k + 3 * a, 3 * sizeof *pr);
                pr[16 * k + 9 + a] = prior_mu[3 * k + a] * skk;
            }
            for (int e = 0; e < 3; ++e)
                pr[16 * k + 12 + (size_t)e] = b[3 * k + (size_t)e] - dm[e];
            pr[16 * k + 15] = (double)nk[k];
        }
        for (size_t a = 0; a < nk[k]; ++a) {
            const double *va = V + 9 * k + 3 * a;
            prior_mu[3 * k + a] *= skk;
            x[base[k] + a] = -(va[0] * g[0] + va[1] * g[1] + va[2] * g[2]) -
                             prior_mu[3 * k + a] * (va[0] * dm[0] + va[1] * dm[1] + va[2] * dm[2]);
        }
        for (size_t l = 0; l <= k; ++l) {
            if (!nk[l])
                continue;
            double s = SS[k * B + l] - sumW[k] * sumW[l] * invN;
            double M[9] = {0}; /* Σ_f D_fkᵀ D_fl, M[v*3+u] = (u, v) */
            for (size_t f = 0; f < F; ++f) {
                const double *Dk = Dm + (f * B + k) * 9, *Dl = Dm + (f * B + l) * 9;
                for (int u = 0; u < 3; ++u)
                    for (int v = 0; v < 3; ++v)
                        M[v * 3 + u] += Dk[u * 3] * Dl[v * 3] + Dk[u * 3 + 1] * Dl[v * 3 + 1] +
                                        Dk[u * 3 + 2] * Dl[v * 3 + 2];
            }
            for (size_t a = 0; a < nk[k]; ++a)
                for (size_t e = 0; e < nk[l]; ++e) {
                    const double *va = V + 9 * k + 3 * a, *ve = V + 9 * l + 3 * e;
                    double h = 0;
                    for (int u = 0; u < 3; ++u)
                        for (int v = 0; v < 3; ++v)
                            h += va[u] * M[v * 3 + u] * ve[v];
                    /* row base[k]+a ≥ column base[l]+e: lower triangle */
                    H[(base[l] + e) * n + base[k] + a] = s * h;
                    H[(base[k] + a) * n + base[l] + e] = s * h;
                }
        }
        for (size_t a = 0; a < nk[k]; ++a)
            H[(base[k] + a) * n + base[k] + a] += prior_mu[3 * k + a];
    }
    double hmax = 0;
    for (size_t i = 0; i < n; ++i)
        hmax = fmax(hmax, H[i * n + i]);
    if (!(hmax > 0))
        goto done;
    for (size_t i = 0; i < n; ++i)
        H[i * n + i] += 1e-9 * hmax;
    if (skf_cholesky_factor(n, H) != 0)
        goto done; /* not positive definite to rounding: keep the joints */
    skf_cholesky_solve(n, H, x);
    for (size_t k = 0; k < B; ++k)
        for (size_t a = 0; a < nk[k]; ++a)
            for (int e = 0; e < 3; ++e)
                db[3 * k + (size_t)e] += x[base[k] + a] * V[9 * k + 3 * a + (size_t)e];
    /* translations: shift_i = shift_parent + D_i δb_i, the root's shift δτ_f */
    for (size_t f = 0; f < F; ++f) {
        double dt[3];
        for (int e = 0; e < 3; ++e)
            dt[e] = rbar[f * 3 + (size_t)e];
        for (size_t k = 0; k < B; ++k) {
            if (!nk[k])
                continue;
            const double *D = Dm + (f * B + k) * 9, *dk = db + 3 * k;
            for (int e = 0; e < 3; ++e)
                dt[e] += sumW[k] * (D[e] * dk[0] + D[3 + e] * dk[1] + D[6 + e] * dk[2]);
        }
        double *shift = P + f * B * 3; /* reuse: shift of bone i in frame f */
        for (size_t o = 0; o < B; ++o) {
            size_t i = order[o];
            double *si = shift + 3 * i;
            if (parent[i] < 0) {
                for (int e = 0; e < 3; ++e)
                    si[e] = -dt[e] * invN;
            } else {
                const double *D = Dm + (f * B + i) * 9, *di = db + 3 * i, *sp = shift + 3 * (size_t)parent[i];
                for (int e = 0; e < 3; ++e)
                    si[e] = sp[e] + D[e] * di[0] + D[3 + e] * di[1] + D[6 + e] * di[2];
            }
            for (int e = 0; e < 3; ++e)
                T[(f * B + i) * 12 + 9 + (size_t)e] += si[e];
        }
    }
    for (size_t e = 0; e < 3 * B; ++e)
        b[e] += db[e];
done:
    skf_free(Dm);
    skf_free(V);
    skf_free(nk);
    skf_free(base);
    skf_free(wsub);
    skf_free(touched);
    skf_free(sumW);
    skf_free(SS);
    skf_free(P);
    skf_free(rbar);
    skf_free(pm);
    skf_free(prior_mu);
    skf_free(H);
    skf_free(x);
    skf_free(db);
    return st;
}

/* Σ_j w_ij of every bone of d into mass [B]; returns the lightest bone. */
static size_t bone_masses(const skf_decomposition *d, double *mass)
{
    size_t B = d->bone_count, NK = d->vertex_count * d->max_influences, x = 0;
    memset(mass, 0, B * sizeof *mass);
    for (size_t e = 0; e < NK; ++e)
        if (d->weight[e] > 0)
            mass[d->weight_bone[e]] += d->weight[e];
    for (size_t i = 1; i < B; ++i)
        if (mass[i] < mass[x])
            x = i;
    return x;
}

/* Bone x leaves d's weights: its slots go, the vertex's other weights
 * renormalise, bone indices above x shift down; then transforms [F*B*12]
 * and joint_rest [3B] compact (B = d->bone_count, decremented). */
static void drop_bone(skf_decomposition *d, size_t x)
{
    size_t N = d->vertex_count, K = d->max_influences, F = d->frame_count, B = d->bone_count;
    for (size_t j = 0; j < N; ++j) {
        double sum = 0;
        for (size_t k = 0; k < K; ++k) {
            uint32_t *wb = d->weight_bone + j * K + k;
            if (*wb == x) {
                d->weight[j * K + k] = 0;
                *wb = 0;
            } else if (*wb > x) {
                --*wb;
            }
            sum += d->weight[j * K + k];
        }
        for (size_t k = 0; k < K; ++k) {
            if (sum > 0)
                d->weight[j * K + k] /= sum;
            if (!(d->weight[j * K + k] > 0))
                d->weight_bone[j * K + k] = 0;
        }
    }
    for (size_t f = 0; f < F; ++f)
        for (size_t i = 0; i + 1 < B; ++i)
            memmove(d->transforms + (f * (B - 1) + i) * 12, d->transforms + (f * B + i + (i >= x)) * 12,
                    12 * sizeof *d->transforms);
    memmove(d->joint_rest + 3 * x, d->joint_rest + 3 * (x + 1), 3 * (B - 1 - x) * sizeof *d->joint_rest);
    d->bone_count = B - 1;
}

/* Prune bones that cannot stand for a rigid part (Le & Deng 2014 prune
 * redundant bones; our criterion): while some bone carries less than
 * JOINT_MIN_MASS vertices' worth of weight (Σ_j w_ij; a rigid motion needs
 * three points), remove the lightest, then re-solve the weights and the flat
 * transforms PRUNE_ITERS times. d is compacted in place (bone_count,
 * transforms, joint_rest, weight_bone); at least 2 bones stay. *pruned out. */
static skf_status prune_bones(const skfi_decompose_ctx *c, skf_decomposition *d, size_t *pruned, skf_error *err)
{
    size_t N = c->N, F = c->F, K = d->max_influences, B0 = d->bone_count;
    skf_status st = SKF_OK;
    *pruned = 0;
    double *mass = skf_malloc_array(B0, sizeof *mass);
    size_t *off = skf_malloc_array(N + 1, sizeof *off);
    uint32_t *cb = skf_malloc_array(N * K, sizeof *cb);
    double *cw = skf_malloc_array(N * K, sizeof *cw);
    if (!mass || !off || !cb || !cw) {
        st = skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory for the skeleton's pruning");
        goto done;
    }
    while (d->bone_count > 2) {
        size_t B = d->bone_count, x = bone_masses(d, mass);
        if (!(mass[x] < JOINT_MIN_MASS))
            break;
        drop_bone(d, x);
        --B;
        ++*pruned;
        for (int it = 0; it < PRUNE_ITERS; ++it) {
            if ((st = skfi_decompose_solve_weights(c, B, d->transforms, K, d->weight_bone, d->weight, true,
                                                   NULL, NULL, err)))
                goto done;
            skfi_decompose_to_csr(d, off, cb, cw);
            skf_solve_rig rig = {.vertex_count = N, .rest = c->rest, .offsets = off, .bone = cb,
                                 .weight = cw, .bone_count = B};
            skf_solve_options so = {.start = SKF_SOLVE_START_WARM, .threads = 1, .limits = c->limits};
            skf_solver *solver = NULL;
            if ((st = skf_solver_new(&rig, &so, &solver, err)))
                goto done;
            st = skf_solver_frames(solver, F, c->frames, d->transforms, NULL, err);
            skf_solver_free(solver);
            if (st)
                goto done;
        }
    }
done:
    skf_free(mass);
    skf_free(off);
    skf_free(cb);
    skf_free(cw);
    return st;
}

/* Bone x leaves the tree during the constrained rounds (it lost its weight
 * to the others): its children hang from its parent, their joints kept; a
 * root x hands over to its heaviest child. d's weights and the bone-indexed
 * arrays T [F*B*12], b [3B], parent [B], mass [B] compact; *root follows. */
static void tree_drop(skf_decomposition *d, size_t x, int32_t *parent, double *T, double *b, double *mass,
                      size_t *root)
{
    size_t B = d->bone_count, F = d->frame_count;
    int32_t px = parent[x];
    if (px < 0) {
        size_t h = SIZE_MAX;
        for (size_t i = 0; i < B; ++i)
            if (parent[i] == (int32_t)x && (h == SIZE_MAX || mass[i] > mass[h]))
                h = i;
        parent[h] = -1;
        px = (int32_t)h;
        *root = h;
    }
    for (size_t i = 0; i < B; ++i)
        if (parent[i] == (int32_t)x)
            parent[i] = px;
    drop_bone(d, x);
    for (size_t f = 0; f < F; ++f)
        for (size_t i = 0; i + 1 < B; ++i)
            memmove(T + (f * (B - 1) + i) * 12, T + (f * B + i + (i >= x)) * 12, 12 * sizeof *T);
    memmove(b + 3 * x, b + 3 * (x + 1), 3 * (B - 1 - x) * sizeof *b);
    memmove(mass + x, mass + x + 1, (B - 1 - x) * sizeof *mass);
    memmove(parent + x, parent + x + 1, (B - 1 - x) * sizeof *parent);
    for (size_t i = 0; i + 1 < B; ++i)
        if (parent[i] > (int32_t)x)
            --parent[i];
    if (*root > x)
        --*root;
}

/* Bones in breadth-first order from the root (parents before children). */
static void tree_order(const int32_t *parent, size_t B, size_t root, size_t *order)
{
    size_t qh = 0, qt = 0;
    order[qt++] = root;
    while (qh < qt) {
        size_t u = order[qh++];
        for (size_t v = 0; v < B; ++v)
            if (parent[v] == (int32_t)u)
                order[qt++] = v;
    }
}

/* The tree's constrained transforms for joints b [3B]: bind (translations
 * by b_i) refreshed, the transforms solved from Tcur's (constrained()),
 * the result back in Tcur (Tnext: scratch). *E: the energy. */
static skf_status project(const skfi_decompose_ctx *c, const skf_solver *solver, const skf_skeleton *skel,
                          const double *b, double *bind, double *Tcur, double *Tnext, double *E, skf_error *err)
{
    size_t B = skel->joint_count;
    for (size_t i = 0; i < B; ++i)
        for (int q = 0; q < 3; ++q)
            bind[16 * i + 12 + (size_t)q] = b[3 * i + (size_t)q];
    *E = constrained(c, solver, skel, Tcur, Tnext, err);
    if (*E < 0)
        return err->status ? err->status : SKF_ERR_NUMERIC;
    memcpy(Tcur, Tnext, c->F * B * 12 * sizeof *Tcur);
    return SKF_OK;
}

/* The joint step's prior μ (vᵀ(b_k − m_k))² at joints b, from the terms
 * refine_joints left in pr [16B] (per bone: 3 directions, their μ, m_k,
 * the count; μ = 0 on determined directions). */
static double prior_energy(const double *pr, const double *b, size_t B)
{
    double P = 0;
    for (size_t k = 0; k < B; ++k) {
        const double *q = pr + 16 * k;
        for (size_t a = 0; a < (size_t)q[15]; ++a) {
            double t = 0;
            for (int e = 0; e < 3; ++e)
                t += q[3 * a + (size_t)e] * (b[3 * k + (size_t)e] - q[12 + e]);
            P += q[9 + a] * t * t;
        }
    }
    return P;
}

/* The lowest-energy skeletal iterate: its energy, transforms [F*B*12],
 * weights and bones [N*K] and joints [3B]. */
typedef struct kept {
    double E;
    double *T, *w, *j;
    uint32_t *wb;
} kept;

/* Makes (E, T, d's weights, b) the kept iterate if E is below it. */
static void keep_best(kept *kb, double E, const double *T, const skf_decomposition *d, const double *b, size_t F,
                      size_t N, size_t K, size_t B)
{
    if (!(E < kb->E))
        return;
    kb->E = E;
    memcpy(kb->T, T, F * B * 12 * sizeof *kb->T);
    memcpy(kb->w, d->weight, N * K * sizeof *kb->w);
    memcpy(kb->wb, d->weight_bone, N * K * sizeof *kb->wb);
    memcpy(kb->j, b, 3 * B * sizeof *kb->j);
}

static skf_status skeleton_tree(const skfi_decompose_ctx *c, skf_decomposition *d, size_t rounds,
                                size_t max_rounds, double tol, size_t patience, size_t *pruned,
                                skf_error *err)
{
    size_t N = c->N, F = c->F, B = d->bone_count, K = d->max_influences;
    skf_status st = SKF_OK;
    double *S = skf_calloc(B * B, sizeof *S);        /* shared weight Σ w_a w_b */
    double *Mc = skf_calloc(B * B * 3, sizeof *Mc);  /* Σ w_a w_b v */
    double *mass = skf_calloc(B, sizeof *mass);
    double *cost = skf_malloc_array(B * B, sizeof *cost);
    double *jp = skf_malloc_array(B * B * 3, sizeof *jp); /* joint of (a, b), a < b */
    int32_t *parent = skf_malloc_array(B, sizeof *parent);
    double *b = skf_malloc_array(3 * B, sizeof *b);
    double *bind = skf_calloc(B * 16, sizeof *bind);
    size_t *off = skf_malloc_array(N + 1, sizeof *off);
    uint32_t *cb = skf_malloc_array(N * K, sizeof *cb);
    double *cw = skf_malloc_array(N * K, sizeof *cw);
    double *Tcur = skf_malloc_array(F * B * 12, sizeof *Tcur);
    double *Tbest = skf_malloc_array(F * B * 12, sizeof *Tbest);
    double *Tnext = skf_malloc_array(F * B * 12, sizeof *Tnext);
    double *Ttry = skf_malloc_array(F * B * 12, sizeof *Ttry);
    double *pr = skf_calloc(16 * B, sizeof *pr); /* the joint step's prior terms */
    double *btry = skf_malloc_array(3 * B, sizeof *btry), *bprev = skf_malloc_array(3 * B, sizeof *bprev);
    double *jbest = skf_malloc_array(3 * B, sizeof *jbest);
    double *curv = skf_calloc(9 * B, sizeof *curv); /* each joint's data curvature (refine_joints) */
    bool *fixed = skf_calloc(B, sizeof *fixed);
    double *wbest = skf_malloc_array(N * K, sizeof *wbest);
    uint32_t *bbest = skf_malloc_array(N * K, sizeof *bbest);
    size_t *key = skf_malloc_array(B, sizeof *key);
    double *dist = skf_malloc_array(B, sizeof *dist);
    bool *in = skf_calloc(B, sizeof *in);
    size_t *ecc = skf_calloc(B, sizeof *ecc);
    size_t *queue = skf_malloc_array(B, sizeof *queue);
    size_t *hops = skf_malloc_array(B, sizeof *hops);
    skf_solver *solver = NULL;
    double *hist = NULL; /* the best energy per round (allocated with the round cap) */
    const size_t B0 = B;
    double *jhist = NULL; /* the kept joints of the last patience + 1 rounds [patience+1][3*B0] */
    uint32_t *sup_wb = NULL; /* the weight candidates' support [N*K] */
    skfi_contact ct = {0}; /* skin contact across separate mesh parts (contact.c) */
    double *sup_w = NULL;
    if (!S || !Mc || !mass || !cost || !jp || !parent || !b || !bind || !off || !cb || !cw ||
        !Tcur || !Tbest || !Tnext || !Ttry || !pr || !btry || !bprev || !jbest || !curv || !fixed || !wbest || !bbest || !key || !dist || !in || !ecc || !queue || !hops) {
        st = skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory for the skeleton");
        goto done;
    }
    /* 1. Coupling: shared weights and boundary centroids. */
    for (size_t j = 0; j < N; ++j)
        for (size_t k = 0; k < K; ++k) {
            double wa = d->weight[j * K + k];
            if (!(wa > 0))
                continue;
            size_t a = d->weight_bone[j * K + k];
            mass[a] += wa;
            for (size_t l = k + 1; l < K; ++l) {
                double wb = d->weight[j * K + l];
                if (!(wb > 0))
                    continue;
                size_t bb = d->weight_bone[j * K + l];
                size_t lo = a < bb ? a : bb, hi = a < bb ? bb : a;
                S[lo * B + hi] += wa * wb;
                for (int q = 0; q < 3; ++q)
                    Mc[(lo * B + hi) * 3 + (size_t)q] += wa * wb * c->rest[3 * j + (size_t)q];
            }
        }
    /* skin that touches across separate mesh parts counts as shared
     * (contact.c): a part modelled apart shares no vertex with its
     * neighbour, and the tree would join it through a weaker link */
    double contact = 0;
    if ((st = skfi_contact_build(c, &ct, err)))
        goto done;
    skfi_contact_accumulate(&ct, c->rest, d, S, Mc, &contact);
    double far = c->diag > 0 ? c->diag : 1;
    for (size_t a = 0; a < B; ++a)
        for (size_t bb = a + 1; bb < B; ++bb) {
            double m[3];
            double s = S[a * B + bb];
            for (int q = 0; q < 3; ++q)
                m[q] = s > 0 ? Mc[(a * B + bb) * 3 + (size_t)q] / s
                             : 0.5 * (d->joint_rest[3 * a + (size_t)q] +
                                      d->joint_rest[3 * bb + (size_t)q]);
            /* a bone carrying less than JOINT_MIN_MASS vertices' worth of weight
             * has a poorly determined motion: its joints sit at m */
            bool light = fmin(mass[a], mass[bb]) < JOINT_MIN_MASS;
            double r = pair_joint(c, d, a, bb, m, light, jp + (a * B + bb) * 3);
            /* coupling: the fraction of the lighter bone's weight that the
             * pair shares; a loose coupling makes the edge expensive even
             * where the two motions happen to agree (left and right legs
             * swinging about one common axis have a perfect "joint") */
            double lighter = fmin(mass[a], mass[bb]);
            double share = lighter > 0 ? s / lighter : 0;
            cost[a * B + bb] = cost[bb * B + a] =
                share > 0 ? (r + 1e-3 * far) / share : r + 1e3 * far;
        }
    /* 2. Minimum spanning tree (Prim, from bone 0; ties to the lower index). */
    for (size_t i = 0; i < B; ++i) {
        dist[i] = DBL_MAX;
        key[i] = SIZE_MAX;
    }
    dist[0] = 0;
    for (size_t it = 0; it < B; ++it) {
        size_t u = SIZE_MAX;
        for (size_t i = 0; i < B; ++i)
            if (!in[i] && (u == SIZE_MAX || dist[i] < dist[u]))
                u = i;
        in[u] = true;
        for (size_t i = 0; i < B; ++i)
            if (!in[i] && cost[u * B + i] < dist[i]) {
                dist[i] = cost[u * B + i];
                key[i] = u;
            }
    }
    /* 3. Root: the centre (BFS eccentricity over the tree's edges). */
    size_t root = 0;
    for (size_t s0 = 0; s0 < B; ++s0) {
        for (size_t i = 0; i < B; ++i)
            hops[i] = SIZE_MAX;
        size_t qh = 0, qt = 0;
        queue[qt++] = s0;
        hops[s0] = 0;
        while (qh < qt) {
            size_t u = queue[qh++];
            for (size_t v = 0; v < B; ++v)
                if (hops[v] == SIZE_MAX && (key[v] == u || key[u] == v)) {
                    hops[v] = hops[u] + 1;
                    queue[qt++] = v;
                }
        }
        for (size_t i = 0; i < B; ++i)
            if (hops[i] > ecc[s0])
                ecc[s0] = hops[i];
        if (ecc[s0] < ecc[root] || (ecc[s0] == ecc[root] && mass[s0] > mass[root]))
            root = s0;
    }
    /* orient away from the root (BFS), joints at the pair points */
    for (size_t i = 0; i < B; ++i)
        hops[i] = SIZE_MAX;
    {
        size_t qh = 0, qt = 0;
        queue[qt++] = root;
        hops[root] = 0;
        parent[root] = -1;
        memcpy(b + 3 * root, d->joint_rest + 3 * root, 3 * sizeof *b);
        while (qh < qt) {
            size_t u = queue[qh++];
            for (size_t v = 0; v < B; ++v)
                if (hops[v] == SIZE_MAX && (key[v] == u || key[u] == v)) {
                    hops[v] = hops[u] + 1;
                    parent[v] = (int32_t)u;
                    size_t lo = u < v ? u : v, hi = u < v ? v : u;
                    memcpy(b + 3 * v, jp + (lo * B + hi) * 3, 3 * sizeof *b);
                    queue[qt++] = v;
                }
        }
    }
    for (size_t i = 0; i < B; ++i) {
        double *m = bind + 16 * i;
        m[0] = m[5] = m[10] = m[15] = 1;
        for (int q = 0; q < 3; ++q)
            m[12 + q] = b[3 * i + (size_t)q];
    }
    /* 4. Re-solve with the tree as a constraint. */
    skf_skeleton skel = {.joint_count = B, .parent = parent, .bind_to_world = bind};
    skfi_decompose_to_csr(d, off, cb, cw);
    skf_solve_rig rig = {.vertex_count = N, .rest = c->rest, .offsets = off, .bone = cb,
                         .weight = cw, .bone_count = B};
    skf_solve_options so = {.start = SKF_SOLVE_START_WARM, .threads = 1, .limits = c->limits};
    if ((st = skf_solver_new(&rig, &so, &solver, err)))
        goto done;
    double E = constrained(c, solver, &skel, d->transforms, Tcur, err);
    if (E < 0) {
        st = err->status ? err->status : SKF_ERR_NUMERIC;
        goto done;
    }
    kept kb = {.E = DBL_MAX, .T = Tbest, .w = wbest, .j = jbest, .wb = bbest};
    keep_best(&kb, E, Tcur, d, b, F, N, K, B);
    /* the over-relaxation's state: factor, the last round's joints, the try */
    double eta = 1, Eround = E;
    size_t rb_prev = SIZE_MAX;
    for (size_t i = 0; i < B; ++i)
        fixed[i] = parent[i] < 0 || fmin(mass[i], mass[parent[i]]) < JOINT_MIN_MASS;
    /* Rounds: `rounds` > 0 runs exactly that many; 0 runs until the flat
     * alternation's stopping rule holds on the best skeletal energy (it fell
     * by ≤ tol per round on average over the last `patience` rounds), at most
     * max_rounds (0: SKF_DECOMPOSE_DEFAULT_SKELETON_ROUNDS; a cap hit is a
     * warning that says which part of the rule did not hold). */
    bool by_rule = rounds == 0;
    size_t cap = by_rule ? (max_rounds ? max_rounds : SKF_DECOMPOSE_DEFAULT_SKELETON_ROUNDS) : rounds;
    /* at the last test of the rule: the energy's mean relative fall a round
     * over the window, and the joint that kept moving (SIZE_MAX: none) with
     * its mean move a round as a fraction of its scale */
    double last_fall = -1, last_move = 0;
    size_t last_joint = SIZE_MAX;
    hist = skf_malloc_array(cap + 1, sizeof *hist);
    jhist = skf_malloc_array((patience + 1) * 3 * B0, sizeof *jhist);
    sup_wb = skf_malloc_array(N * K, sizeof *sup_wb);
    sup_w = skf_malloc_array(N * K, sizeof *sup_w);
    if (!hist || !jhist || !sup_wb || !sup_w) {
        st = skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory in the skeleton");
        goto done;
    }
    /* The rounds' weight candidates come from the weights the tree was built
     * from (one ring around each bone's skin there), not from the last
     * round's: a bone's skin may grow or shrink but not travel, so that the
     * tree's edges keep describing the bones (docs/decompose.md, "Support"). */
    memcpy(sup_wb, d->weight_bone, N * K * sizeof *sup_wb);
    memcpy(sup_w, d->weight, N * K * sizeof *sup_w);
    skfi_decompose_ctx cs = *c;
    cs.support_wb = sup_wb;
    cs.support_w = sup_w;
    bool settled = false;
    size_t r = 0, r_base = 0; /* r_base: the round of the last pruning (a new energy) */
    for (; r <= cap && !settled; ++r) {
        bool dropped_now = false;
        if (r > 0) {
            /* weights for the current transforms; a bone they leave with less
             * than JOINT_MIN_MASS vertices of weight leaves the tree (the
             * pruning above, inside the loop as Le & Deng prune) */
            bool dropped = false;
            for (;;) {
                if ((st = skfi_decompose_solve_weights(&cs, B, Tcur, K, d->weight_bone, d->weight, true, NULL,
                                                       NULL, err)))
                    goto done;
                size_t x = bone_masses(d, mass);
                if (B <= 2 || !(mass[x] < JOINT_MIN_MASS))
                    break;
                tree_drop(d, x, parent, Tcur, b, mass, &root);
                for (size_t e = 0; e < N * K; ++e) /* the support follows */
                    if (sup_wb[e] == x) {
                        sup_w[e] = 0;
                        sup_wb[e] = 0;
                    } else if (sup_wb[e] > x) {
                        --sup_wb[e];
                    }
                --B;
                ++*pruned;
                dropped = true;
                dropped_now = true;
            }
            for (size_t i = 0; i < B; ++i)
                fixed[i] = parent[i] < 0 || fmin(mass[i], mass[parent[i]]) < JOINT_MIN_MASS;
            skfi_decompose_to_csr(d, off, cb, cw);
            if (dropped) {
                /* a smaller rig: a new solver, the tree projected onto
                 * (constrained transforms from the compacted ones), a new best */
                skf_solver_free(solver);
                solver = NULL;
                rig.bone_count = B;
                if ((st = skf_solver_new(&rig, &so, &solver, err)))
                    goto done;
                tree_order(parent, B, root, queue);
                skel.joint_count = B;
                if ((st = project(c, solver, &skel, b, bind, Tcur, Tnext, &E, err)))
                    goto done;
                r_base = r;
                kb.E = DBL_MAX; /* the kept iterate must have the current bones: the next
                                  * joint step + transforms (never above E) replace it */
            } else if ((st = skf_solver_update_weights(solver, off, cb, cw, err))) {
                goto done;
            }
        }
        double Eprev = DBL_MAX;
        for (size_t a = 0; a < JOINT_ALTERNATIONS; ++a) {
            if ((st = refine_joints(c, &ct, d, parent, queue, fixed, Tcur, b, pr, curv, err)))
                goto done;
            if ((st = project(c, solver, &skel, b, bind, Tcur, Tnext, &E, err)))
                goto done;
            keep_best(&kb, E, Tcur, d, b, F, N, K, B);
            if (!(E < Eprev * (1 - JOINT_TOL)))
                break;
            Eprev = E;
        }
        /* Over-relaxation across rounds (Salakhutdinov & Roweis 2003): try
         * the joints extrapolated along this round's change, b_prev + η (b −
         * b_prev); kept only if E + the joint step's prior (what that step
         * minimises; on E alone the tries ran along weak directions and a
         * Walk joint ended 22 % of the diagonal off) falls below the plain
         * round's, then η grows (×1.5, at most 3), else η falls back to 1
         * (the plain round stands). One more constrained solve a try. The
         * extrapolation leaves each joint's weak directions (where the
         * prior holds it) at the plain round's value. */
        if (r > 0 && rb_prev == r - 1 && !dropped_now) {
            if (eta > 1) {
                for (size_t i = 0; i < B; ++i) {
                    /* the extrapolation, less its part along the joint step's
                     * weak directions (pr: μ > 0), where the prior holds the
                     * joint at its centroid: extrapolated there, the prior
                     * rose 10⁶-fold and the Trot rejected every try */
                    const double *bi = b + 3 * i, *bo = bprev + 3 * i, *pq = pr + 16 * i;
                    double ex[3];
                    for (int q = 0; q < 3; ++q)
                        ex[q] = (eta - 1) * (bi[q] - bo[q]);
                    for (size_t a = 0; a < (size_t)pq[15]; ++a) {
                        if (!(pq[9 + a] > 0))
                            continue;
                        double t = pq[3 * a] * ex[0] + pq[3 * a + 1] * ex[1] + pq[3 * a + 2] * ex[2];
                        for (int q = 0; q < 3; ++q)
                            ex[q] -= t * pq[3 * a + (size_t)q];
                    }
                    for (int q = 0; q < 3; ++q)
                        btry[3 * i + (size_t)q] = bi[q] + ex[q];
                }
                memcpy(Ttry, Tcur, F * B * 12 * sizeof *Ttry);
                double Et;
                if ((st = project(c, solver, &skel, btry, bind, Ttry, Tnext, &Et, err)))
                    goto done;
                /* judged on what the joint step minimises: E + prior */
                if (Et + prior_energy(pr, btry, B) < E + prior_energy(pr, b, B)) {
                    E = Et;
                    memcpy(b, btry, 3 * B * sizeof *b);
                    memcpy(Tcur, Ttry, F * B * 12 * sizeof *Tcur);
                    keep_best(&kb, E, Tcur, d, b, F, N, K, B);
                    eta = fmin(eta * OVERRELAX_GROW, OVERRELAX_MAX);
                } else {
                    eta = 1;
                    for (int q = 0; q < 3 * (int)B; ++q) /* bind back to the plain joints */
                        bind[16 * (size_t)(q / 3) + 12 + (size_t)(q % 3)] = b[q];
                }
            } else if (E < Eround) {
                eta = OVERRELAX_GROW;
            }
        }
        memcpy(bprev, b, 3 * B * sizeof *bprev);
        rb_prev = r;
        Eround = E;
        hist[r] = kb.E;
        memcpy(jhist + (r % (patience + 1)) * 3 * B0, jbest, 3 * B * sizeof *jhist);
        if (by_rule && r >= r_base + patience) {
            settled = hist[r - patience] - kb.E <= tol * (double)patience * hist[r - patience];
            last_fall = (hist[r - patience] - kb.E) / ((double)patience * hist[r - patience]);
            last_joint = SIZE_MAX;
            /* and the kept joints: each moved by ≤ tol of its bone's length
             * (the distance to its parent's joint) a round on average over
             * the window (the energy is nearly flat along a joint between
             * bones that turn a few degrees relative to each other, and the
             * rounds move it there by ~0.1 % of the diagonal a round while
             * the energy falls by less than tol) */
            const double *jold = jhist + ((r - patience) % (patience + 1)) * 3 * B0;
            /* a joint's scale: the longer of the segments it ends (to its
             * parent's joint, and to each child's joint) */
            for (size_t i = 0; i < B; ++i)
                dist[i] = 0;
            for (size_t i = 0; i < B; ++i) {
                if (parent[i] < 0)
                    continue;
                const double *bi = jbest + 3 * i, *bq = jbest + 3 * (size_t)parent[i];
                double len = sqrt((bi[0] - bq[0]) * (bi[0] - bq[0]) + (bi[1] - bq[1]) * (bi[1] - bq[1]) +
                                  (bi[2] - bq[2]) * (bi[2] - bq[2]));
                dist[i] = fmax(dist[i], len);
                dist[parent[i]] = fmax(dist[parent[i]], len);
            }
            for (size_t i = 0; i < B && settled; ++i) {
                if (parent[i] < 0)
                    continue;
                const double *bi = jbest + 3 * i, *bo = jold + 3 * i;
                double mv2 = 0;
                for (int q = 0; q < 3; ++q)
                    mv2 += (bi[q] - bo[q]) * (bi[q] - bo[q]);
                double dq[3] = {bi[0] - bo[0], bi[1] - bo[1], bi[2] - bo[2]}, cst = 0;
                const double *C = curv + 9 * i;
                for (int u = 0; u < 3; ++u)
                    for (int v = 0; v < 3; ++v)
                        cst += dq[u] * C[v * 3 + u] * dq[v];
                /* or the energy cannot resolve the move: moved alone by
                 * it, the joint changes E by ≤ the energy rule's allowance
                 * (δᵀ C_i δ, C_i = (Σ_j W̃_ji²) Σ_f D_fiᵀ D_fi, the joint
                 * step's normal block without the prior: two of the Trot's
                 * joints moved 10-15× the allowance above at 0.01-0.6 of
                 * this one) */
                bool near = sqrt(mv2) <= tol * (double)patience * dist[i];
                bool flat = !fixed[i] && cst <= tol * (double)patience * hist[r - patience];
                settled = near || flat;
                if (!settled) {
                    last_joint = i;
                    last_move = dist[i] > 0 ? sqrt(mv2) / ((double)patience * dist[i]) : INFINITY;
                }
            }
        }
    }
    d->skeleton_rounds_run = r - 1;
    d->skeleton_hit_cap = by_rule && !settled;
    if (d->skeleton_hit_cap) {
        /* name what kept the rule from holding: the energy still falling
         * faster than the tolerance, or (the energy settled) a joint still
         * moving; the cap is the option field that set it */
        char why[160];
        if (last_fall < 0)
            snprintf(why, sizeof why, "before the rule's window of %zu rounds was full", patience);
        else if (last_joint == SIZE_MAX || last_fall > tol)
            snprintf(why, sizeof why, "with the error still falling by %.3g %% a round (the rule: %.3g %%)",
                     100 * last_fall, 100 * tol);
        else
            snprintf(why, sizeof why,
                     "with the error settled but the joint of bone_%03zu still moving by %.3g %% of the "
                     "longer segment it ends a round (the rule: %.3g %%)",
                     last_joint, 100 * last_move, 100 * tol);
        skf_warn_as(c->warnings, SKF_KIND_ITERATION_CAP, "skf_decompose_options.max_skeleton_rounds",
                    "decompose: skeleton: stopped at the cap of %zu constrained rounds %s", cap, why);
    }
    memcpy(d->transforms, Tbest, F * B * 12 * sizeof *Tbest);
    memcpy(d->weight, wbest, N * K * sizeof *wbest);
    memcpy(d->weight_bone, bbest, N * K * sizeof *bbest);
    memcpy(d->joint_rest, jbest, 3 * B * sizeof *jbest);
    d->parent = parent;
    parent = NULL;
    d->skeleton_root = root;
done:
    skfi_contact_free(&ct);
    skf_free(hist);
    skf_free(jhist);
    skf_free(sup_wb);
    skf_free(sup_w);
    skf_solver_free(solver);
    skf_free(S);
    skf_free(Mc);
    skf_free(mass);
    skf_free(cost);
    skf_free(jp);
    skf_free(parent);
    skf_free(b);
    skf_free(bind);
    skf_free(off);
    skf_free(cb);
    skf_free(cw);
    skf_free(Tcur);
    skf_free(Tbest);
    skf_free(Tnext);
    skf_free(Ttry);
    skf_free(pr);
    skf_free(btry);
    skf_free(bprev);
    skf_free(jbest);
    skf_free(curv);
    skf_free(fixed);
    skf_free(wbest);
    skf_free(bbest);
    skf_free(key);
    skf_free(dist);
    skf_free(in);
    skf_free(ecc);
    skf_free(queue);
    skf_free(hops);
    return st;
}

skf_status skfi_decompose_skeleton(const skfi_decompose_ctx *c, skf_decomposition *d, size_t rounds,
                                   size_t max_rounds, double tol, size_t patience, skf_error *err)
{
    size_t B0 = d->bone_count, pruned = 0;
    skf_status st = prune_bones(c, d, &pruned, err);
    if (!st)
        st = skeleton_tree(c, d, rounds, max_rounds, tol, patience, &pruned, err);
    if (!st && pruned)
        skf_warn(c->warnings, "decompose: skeleton: pruned %zu of %zu bones that carried less than %g "
                 "vertices' worth of weight (too little for a rigid motion); the skeleton has %zu bones",
                 pruned, B0, JOINT_MIN_MASS, d->bone_count);
    return st;
}
