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
 * Re-solve. With joint positions b_i (root: its weighted centroid) and
 * bind_to_world_i = translation(b_i), the constrained model is the solver's
 * rotation-only mode (include/skinfit/solve.h, skf_rotonly: T_i = [G_i | p_i
 * − G_i b_i], p_i = p_parent + G_parent (b_i − b_parent)), started from the
 * flat transforms; then `rounds` times: weights for those transforms
 * (weights.c) and the constrained transforms again. The lowest-energy
 * skeletal iterate is kept. Bone lengths ‖p_i − p_parent‖ are constant by
 * construction.
 */
#include "decompose_internal.h"
#include "skinfit/math.h"
#include "skinfit/solve.h"

#include <float.h>
#include <math.h>
#include <omp.h>
#include <string.h>

/* eigenvalue ratio below which a direction of the joint problem counts as
 * undetermined by the motion (relative rotation about it below 10 % of the
 * dominant one) */
#define JOINT_WEAK 1e-2
/* a bone with less weight than this (Σ_j w_ij, in vertices) gets its joints
 * at the shared centroid: a rigid motion needs three points */
#define JOINT_MIN_MASS 3.0

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

skf_status skfi_decompose_skeleton(const skfi_decompose_ctx *c, skf_decomposition *d, size_t rounds, skf_error *err)
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
    double *wbest = skf_malloc_array(N * K, sizeof *wbest);
    uint32_t *bbest = skf_malloc_array(N * K, sizeof *bbest);
    size_t *key = skf_malloc_array(B, sizeof *key);
    double *dist = skf_malloc_array(B, sizeof *dist);
    bool *in = skf_calloc(B, sizeof *in);
    size_t *ecc = skf_calloc(B, sizeof *ecc);
    size_t *queue = skf_malloc_array(B, sizeof *queue);
    size_t *hops = skf_malloc_array(B, sizeof *hops);
    skf_solver *solver = NULL;
    if (!S || !Mc || !mass || !cost || !jp || !parent || !b || !bind || !off || !cb || !cw ||
        !Tcur || !Tbest || !wbest || !bbest || !key || !dist || !in || !ecc || !queue || !hops) {
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
    double bestE = E;
    memcpy(Tbest, Tcur, F * B * 12 * sizeof *Tbest);
    memcpy(wbest, d->weight, N * K * sizeof *wbest);
    memcpy(bbest, d->weight_bone, N * K * sizeof *bbest);
    for (size_t r = 0; r < rounds; ++r) {
        if ((st = skfi_decompose_solve_weights(c, B, Tcur, K, d->weight_bone, d->weight, true, NULL, NULL, err)))
            goto done;
        skfi_decompose_to_csr(d, off, cb, cw);
        if ((st = skf_solver_update_weights(solver, off, cb, cw, err)))
            goto done;
        double *Tnext = d->transforms; /* scratch: the flat transforms are no longer needed */
        E = constrained(c, solver, &skel, Tcur, Tnext, err);
        if (E < 0) {
            st = err->status ? err->status : SKF_ERR_NUMERIC;
            goto done;
        }
        memcpy(Tcur, Tnext, F * B * 12 * sizeof *Tcur);
        if (E < bestE) {
            bestE = E;
            memcpy(Tbest, Tcur, F * B * 12 * sizeof *Tbest);
            memcpy(wbest, d->weight, N * K * sizeof *wbest);
            memcpy(bbest, d->weight_bone, N * K * sizeof *bbest);
        }
    }
    memcpy(d->transforms, Tbest, F * B * 12 * sizeof *Tbest);
    memcpy(d->weight, wbest, N * K * sizeof *wbest);
    memcpy(d->weight_bone, bbest, N * K * sizeof *bbest);
    memcpy(d->joint_rest, b, 3 * B * sizeof *b);
    d->parent = parent;
    parent = NULL;
    d->skeleton_root = root;
done:
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
