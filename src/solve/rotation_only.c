/* Rotation-only fit: bone lengths kept, by Levenberg–Marquardt with the
 * analytic Jacobian.
 *
 * References: K. Levenberg (1944), D. W. Marquardt, "An algorithm for
 * least-squares estimation of nonlinear parameters", SIAM J. Appl. Math.
 * 11(2), 1963 (damping scaled by diag(JᵀJ)); the rotation Jacobian of a
 * kinematic chain (a world-frame rotation δθ at joint a pivoting on its
 * position p_a moves a point x carried by a by δθ × (x − p_a)) as in
 * ../shared/notes/solver-math.md.
 *
 * Model (docs/solver.md): joint_world_i = joint_world_parent × [local rotation | o_i]
 * with o_i fixed at the bind value. With uniform bind scales this is, in bind
 * space, T_i = [G_i | p_i − G_i b_i], G_i a rotation, b_i the bind world
 * position of joint i, and p_i = p_parent + G_parent (b_i − b_parent) (roots:
 * p_i free). Parameters: G_i = G_parent Q_i with Q_i the relative rotations,
 * and p_root. Lengths ‖p_i − p_parent‖ = ‖b_i − b_parent‖ hold by construction,
 * whatever the iterate.
 *
 * Residual r_j = Σ_i w_ij T_i ṽ_j − u_j. A step δθ_a (world frame) at joint a
 * moves r_j by δθ_a × y_aj, y_aj = Σ_{i in subtree(a)} w_ij (T_i ṽ_j − p_a), so
 * J_aj = −[y_aj]_× and (J_aᵀ J_b) = (y_a·y_b) I − y_b y_aᵀ; a root translation
 * moves r_j by (Σ_{i in subtree} w_ij) δp. JᵀJ is (3B+3R)² dense, accumulated
 * over the joints that touch each vertex (its influences and their ancestors)
 * and solved with LAPACK dposv. The step is applied as a retraction that is
 * exact to first order: Q_a ← G_parentᵀ Exp(δθ_a) G_parent Q_a top-down, then
 * forward kinematics. Each accepted step lowers E (the direct sum, no moment
 * form); the start is the free solution's rotations and root positions.
 */
#include "solve_internal.h"
#include "skinfit/math.h"

#include <lapacke.h>
#include <math.h>
#include <omp.h>
#include <string.h>

/* Fixed accumulation groups for JᵀJ: deterministic for any thread count. */
#define ROT_GROUPS 8

typedef struct rot_scratch {
    size_t *stamp;     /* [B] vertex index + 1 that last touched the joint */
    double *accx;      /* [3B] Σ w x over the subtree's influences */
    double *accw;      /* [B] Σ w */
    size_t *list;      /* [B] touched joints */
    double *y;         /* [3·2B] Jacobian vectors of the touched blocks */
    size_t *col;       /* [2B] their parameter columns */
    bool *is_t;        /* [2B] root translation block? */
} rot_scratch;

struct skf_rotonly {
    const skf_solver *s;
    size_t B, R, P;        /* joints, roots, parameters (3B + 3R) */
    int32_t *parent;
    size_t *order;         /* parents before children */
    size_t *root_slot;     /* [B] slot of a root, SIZE_MAX otherwise */
    double *b;             /* [3B] bind world positions */
    int max_it;
    double tol;
    /* state */
    double *Q, *G, *p;     /* [9B], [9B], [3B] */
    double *Qc, *Gc, *pc;  /* candidate */
    double *T, *Tc;        /* [12B] */
    double *JtJ, *Jtr, *A, *x; /* [P²], [P], [P²], [P] */
    double *gJtJ, *gJtr, *gE;  /* [ROT_GROUPS·P²], [ROT_GROUPS·P], [ROT_GROUPS] */
    rot_scratch sc[ROT_GROUPS];
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
static void forward(const skf_rotonly *r, const double *Q, double *G, double *p, double *T)
{
    for (size_t k = 0; k < r->B; ++k) {
        size_t i = r->order[k];
        int32_t par = r->parent[i];
        if (par < 0) {
            memcpy(G + 9 * i, Q + 9 * i, 9 * sizeof *G);
        } else {
            mat3_mul(G + 9 * i, G + 9 * (size_t)par, Q + 9 * i);
            double d[3] = {r->b[3 * i] - r->b[3 * par], r->b[3 * i + 1] - r->b[3 * par + 1],
                           r->b[3 * i + 2] - r->b[3 * par + 2]}, gd[3];
            mat3_vec(gd, G + 9 * (size_t)par, d);
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

static double energy(const skf_rotonly *r, const double *T, const double *target)
{
    const skf_solver *s = r->s;
    double part[ROT_GROUPS];
    size_t n = s->n;
    for (int g = 0; g < ROT_GROUPS; ++g) {
        size_t j0 = n * (size_t)g / ROT_GROUPS, j1 = n * (size_t)(g + 1) / ROT_GROUPS;
        double e = 0;
        for (size_t j = j0; j < j1; ++j) {
            const double *v = s->rest + 3 * j;
            double d[3] = {-target[3 * j], -target[3 * j + 1], -target[3 * j + 2]};
            for (size_t q = s->offsets[j]; q < s->offsets[j + 1]; ++q) {
                const double *Tb = T + 12 * (size_t)s->bone[q];
                double w = s->weight[q];
                for (int k = 0; k < 3; ++k)
                    d[k] += w * (Tb[k] * v[0] + Tb[3 + k] * v[1] + Tb[6 + k] * v[2] + Tb[9 + k]);
            }
            e += d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        }
        part[g] = e;
    }
    double e = 0;
    for (int g = 0; g < ROT_GROUPS; ++g)
        e += part[g];
    return e;
}

/* Accumulate JᵀJ (upper triangle, column-major) and Jᵀr over vertices [j0, j1). */
static void accumulate(const skf_rotonly *r, rot_scratch *sc, const double *T, const double *target,
                       size_t j0, size_t j1, double *JtJ, double *Jtr)
{
    const skf_solver *s = r->s;
    const size_t P = r->P;
    memset(JtJ, 0, P * P * sizeof *JtJ);
    memset(Jtr, 0, P * sizeof *Jtr);
    double *y = sc->y;
    size_t *col = sc->col;
    bool *is_t = sc->is_t;
    for (size_t j = j0; j < j1; ++j) {
        const double *v = s->rest + 3 * j;
        double res[3] = {-target[3 * j], -target[3 * j + 1], -target[3 * j + 2]};
        size_t nt = 0;
        for (size_t q = s->offsets[j]; q < s->offsets[j + 1]; ++q) {
            size_t i = s->bone[q];
            double w = s->weight[q], x[3];
            skf_transform34_apply(T + 12 * i, v, x);
            for (int k = 0; k < 3; ++k)
                res[k] += w * x[k];
            for (int32_t a = (int32_t)i; a >= 0; a = r->parent[a]) {
                if (sc->stamp[a] != j + 1) {
                    sc->stamp[a] = j + 1;
                    sc->list[nt++] = (size_t)a;
                    sc->accx[3 * a] = sc->accx[3 * a + 1] = sc->accx[3 * a + 2] = 0;
                    sc->accw[a] = 0;
                }
                for (int k = 0; k < 3; ++k)
                    sc->accx[3 * a + k] += w * x[k];
                sc->accw[a] += w;
            }
        }
        /* blocks: rotation of each touched joint, translation of touched roots */
        size_t m = 0;
        for (size_t t = 0; t < nt; ++t) {
            size_t a = sc->list[t];
            for (int k = 0; k < 3; ++k)
                y[3 * m + k] = sc->accx[3 * a + k] - sc->accw[a] * r->p[3 * a + k];
            col[m] = 3 * a;
            is_t[m++] = false;
            if (r->root_slot[a] != SIZE_MAX) {
                y[3 * m] = sc->accw[a];
                col[m] = 3 * r->B + 3 * r->root_slot[a];
                is_t[m++] = true;
            }
        }
        for (size_t A = 0; A < m; ++A) {
            const double *ya = y + 3 * A;
            /* Jᵀr */
            double g[3];
            if (is_t[A]) {
                for (int k = 0; k < 3; ++k)
                    g[k] = ya[0] * res[k];
            } else {
                skf_cross3(g, ya, res);
            }
            for (int k = 0; k < 3; ++k)
                Jtr[col[A] + k] += g[k];
            for (size_t Bq = 0; Bq < m; ++Bq) {
                if (col[Bq] < col[A])
                    continue;
                const double *yb = y + 3 * Bq;
                double blk[9]; /* blk[rr*3 + cc] = (J_Aᵀ J_B)[rr][cc] */
                if (!is_t[A] && !is_t[Bq]) {
                    double d = skf_dot3(ya, yb);
                    for (int rr = 0; rr < 3; ++rr)
                        for (int cc = 0; cc < 3; ++cc)
                            blk[rr * 3 + cc] = (rr == cc ? d : 0) - yb[rr] * ya[cc];
                } else if (!is_t[A] && is_t[Bq]) {
                    /* J_Aᵀ J_t = W [y_A]_× */
                    double W = yb[0];
                    double sk[9] = {0, -ya[2], ya[1], ya[2], 0, -ya[0], -ya[1], ya[0], 0};
                    for (int e = 0; e < 9; ++e)
                        blk[e] = W * sk[e];
                } else if (is_t[A] && !is_t[Bq]) {
                    /* J_tᵀ J_B = W (−[y_B]_×) */
                    double W = ya[0];
                    double sk[9] = {0, -yb[2], yb[1], yb[2], 0, -yb[0], -yb[1], yb[0], 0};
                    for (int e = 0; e < 9; ++e)
                        blk[e] = -W * sk[e];
                } else {
                    double W2 = ya[0] * yb[0];
                    for (int e = 0; e < 9; ++e)
                        blk[e] = (e % 4 == 0) ? W2 : 0;
                }
                for (int rr = 0; rr < 3; ++rr)
                    for (int cc = 0; cc < 3; ++cc)
                        JtJ[(col[Bq] + cc) * P + col[A] + rr] += blk[rr * 3 + cc];
            }
        }
    }
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
    r->max_it = (opt && opt->max_iterations > 0) ? opt->max_iterations : 100;
    r->tol = (opt && opt->tolerance > 0) ? opt->tolerance : 1e-14;
    r->parent = skf_malloc_array(B, sizeof *r->parent);
    r->order = skf_malloc_array(B, sizeof *r->order);
    r->root_slot = skf_malloc_array(B, sizeof *r->root_slot);
    r->b = skf_malloc_array(3 * B, sizeof *r->b);
    bool ok = r->parent && r->order && r->root_slot && r->b;
    if (ok) {
        memcpy(r->parent, skel->parent, B * sizeof *r->parent);
        for (size_t i = 0; i < B; ++i) {
            memcpy(r->b + 3 * i, skel->bind_to_world + 16 * i + 12, 3 * sizeof *r->b);
            r->root_slot[i] = r->parent[i] < 0 ? r->R++ : SIZE_MAX;
        }
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
        const size_t P = r->P;
        r->Q = skf_malloc_array(9 * B, sizeof(double));
        r->G = skf_malloc_array(9 * B, sizeof(double));
        r->p = skf_malloc_array(3 * B, sizeof(double));
        r->Qc = skf_malloc_array(9 * B, sizeof(double));
        r->Gc = skf_malloc_array(9 * B, sizeof(double));
        r->pc = skf_malloc_array(3 * B, sizeof(double));
        r->T = skf_malloc_array(12 * B, sizeof(double));
        r->Tc = skf_malloc_array(12 * B, sizeof(double));
        r->JtJ = skf_malloc_array(P * P, sizeof(double));
        r->A = skf_malloc_array(P * P, sizeof(double));
        r->Jtr = skf_malloc_array(P, sizeof(double));
        r->x = skf_malloc_array(P, sizeof(double));
        r->gJtJ = skf_malloc_array(ROT_GROUPS * P * P, sizeof(double));
        r->gJtr = skf_malloc_array(ROT_GROUPS * P, sizeof(double));
        r->gE = skf_malloc_array(ROT_GROUPS, sizeof(double));
        ok = r->Q && r->G && r->p && r->Qc && r->Gc && r->pc && r->T && r->Tc && r->JtJ && r->A &&
             r->Jtr && r->x && r->gJtJ && r->gJtr && r->gE;
        for (int g = 0; ok && g < ROT_GROUPS; ++g) {
            r->sc[g].stamp = skf_calloc(B, sizeof(size_t));
            r->sc[g].accx = skf_malloc_array(3 * B, sizeof(double));
            r->sc[g].accw = skf_malloc_array(B, sizeof(double));
            r->sc[g].list = skf_malloc_array(B, sizeof(size_t));
            r->sc[g].y = skf_malloc_array(6 * B, sizeof(double));
            r->sc[g].col = skf_malloc_array(2 * B, sizeof(size_t));
            r->sc[g].is_t = skf_malloc_array(2 * B, sizeof(bool));
            ok = r->sc[g].stamp && r->sc[g].accx && r->sc[g].accw && r->sc[g].list && r->sc[g].y &&
                 r->sc[g].col && r->sc[g].is_t;
        }
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
    void *ptrs[] = {r->parent, r->order, r->root_slot, r->b, r->Q, r->G, r->p, r->Qc, r->Gc,
                    r->pc, r->T, r->Tc, r->JtJ, r->A, r->Jtr, r->x, r->gJtJ, r->gJtr, r->gE};
    for (size_t k = 0; k < sizeof ptrs / sizeof ptrs[0]; ++k)
        skf_free(ptrs[k]);
    for (int g = 0; g < ROT_GROUPS; ++g) {
        skf_free(r->sc[g].stamp);
        skf_free(r->sc[g].accx);
        skf_free(r->sc[g].accw);
        skf_free(r->sc[g].list);
        skf_free(r->sc[g].y);
        skf_free(r->sc[g].col);
        skf_free(r->sc[g].is_t);
    }
    skf_free(r);
}

void skf_rotonly_joint_positions(const skf_rotonly *r, const double *transforms, double *out)
{
    for (size_t i = 0; i < r->B; ++i)
        skf_transform34_apply(transforms + 12 * i, r->b + 3 * i, out + 3 * i);
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

skf_status skf_rotonly_frame(skf_rotonly *r, const double *target, const double *free_transforms,
                             double *transforms, bool prev_valid, skf_rotonly_stats *stats,
                             skf_error *err)
{
    const skf_solver *s = r->s;
    const size_t B = r->B, P = r->P, n = s->n;
    for (size_t e = 0; e < 3 * n; ++e)
        if (!isfinite(target[e]))
            return skf_fail(err, SKF_ERR_FORMAT, "rotation-only: target: vertex %zu: non-finite value",
                            e / 3);
    for (size_t e = 0; e < 12 * B; ++e)
        if (!isfinite(free_transforms[e]) || (prev_valid && !isfinite(transforms[e])))
            return skf_fail(err, SKF_ERR_FORMAT, "rotation-only: start: bone %zu: non-finite value", e / 12);
    skf_rotonly_stats st;
    memset(&st, 0, sizeof st);

    /* start: free solution, or the previous result when that is lower */
    state_from(r, free_transforms);
    double E = energy(r, r->T, target);
    if (prev_valid) {
        memcpy(r->Qc, r->Q, 9 * B * sizeof(double));
        memcpy(r->Gc, r->G, 9 * B * sizeof(double));
        memcpy(r->pc, r->p, 3 * B * sizeof(double));
        memcpy(r->Tc, r->T, 12 * B * sizeof(double));
        state_from(r, transforms);
        double Ep = energy(r, r->T, target);
        if (!(Ep < E)) {
            memcpy(r->Q, r->Qc, 9 * B * sizeof(double));
            memcpy(r->G, r->Gc, 9 * B * sizeof(double));
            memcpy(r->p, r->pc, 3 * B * sizeof(double));
            memcpy(r->T, r->Tc, 12 * B * sizeof(double));
        } else {
            E = Ep;
        }
    }
    st.energy_start = E;
    const double stop = r->tol * (double)n * s->diag * s->diag;
    double lambda = 1e-4;
    st.hit_cap = true;
    const int threads = s->threads;
    for (int it = 0; it < r->max_it; ++it) {
        st.iterations = it + 1;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1 && n > 4096)
        for (int g = 0; g < ROT_GROUPS; ++g) {
            size_t j0 = n * (size_t)g / ROT_GROUPS, j1 = n * (size_t)(g + 1) / ROT_GROUPS;
            accumulate(r, &r->sc[g], r->T, target, j0, j1, r->gJtJ + (size_t)g * P * P,
                       r->gJtr + (size_t)g * P);
        }
        memcpy(r->JtJ, r->gJtJ, P * P * sizeof(double));
        memcpy(r->Jtr, r->gJtr, P * sizeof(double));
        for (int g = 1; g < ROT_GROUPS; ++g) {
            const double *a = r->gJtJ + (size_t)g * P * P, *b = r->gJtr + (size_t)g * P;
            for (size_t e = 0; e < P * P; ++e)
                r->JtJ[e] += a[e];
            for (size_t e = 0; e < P; ++e)
                r->Jtr[e] += b[e];
        }
        double dmax = 0;
        for (size_t k = 0; k < P; ++k)
            dmax = fmax(dmax, r->JtJ[k * P + k]);
        if (!(dmax > 0)) {
            st.hit_cap = false;
            break;
        }
        bool accepted = false;
        double dec = 0;
        while (lambda < 1e12) {
            memcpy(r->A, r->JtJ, P * P * sizeof(double));
            for (size_t k = 0; k < P; ++k) {
                double d = fmax(r->JtJ[k * P + k], 1e-12 * dmax);
                r->A[k * P + k] += lambda * d;
                r->x[k] = -r->Jtr[k];
            }
            lapack_int info = LAPACKE_dposv(LAPACK_COL_MAJOR, 'U', (lapack_int)P, 1, r->A,
                                            (lapack_int)P, r->x, (lapack_int)P);
            if (info != 0) {
                lambda *= 10;
                continue;
            }
            /* Gauss–Newton predicted decrease of the damped step:
             * −δᵀJᵀr − ½ δᵀJᵀJδ (exact for the linearised model). When even
             * the model promises less than the stopping threshold, E is at its
             * minimum to the resolution we ask for: stop without trying
             * larger damping (each try costs a factorisation). */
            double pred = 0;
            for (size_t k = 0; k < P; ++k) {
                double jd = 0; /* (JᵀJ δ)_k from the upper triangle */
                for (size_t l = 0; l < P; ++l)
                    jd += (k <= l ? r->JtJ[l * P + k] : r->JtJ[k * P + l]) * r->x[l];
                pred -= r->x[k] * (r->Jtr[k] + 0.5 * jd);
            }
            if (!(pred >= stop))
                break;
            /* retraction, top-down with the OLD parent rotations */
            for (size_t i = 0; i < B; ++i) {
                double Ex[9], tmp[9];
                expmap(Ex, r->x + 3 * i);
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
            double Ec = energy(r, r->Tc, target);
            if (Ec < E) {
                dec = E - Ec;
                E = Ec;
                double *t;
                t = r->Q; r->Q = r->Qc; r->Qc = t;
                t = r->G; r->G = r->Gc; r->Gc = t;
                t = r->p; r->p = r->pc; r->pc = t;
                t = r->T; r->T = r->Tc; r->Tc = t;
                lambda = fmax(lambda / 3, 1e-12);
                accepted = true;
                break;
            }
            lambda *= 4;
        }
        if (!accepted || dec < stop) {
            st.hit_cap = false;
            break;
        }
    }
    memcpy(transforms, r->T, 12 * B * sizeof(double));
    st.residual = energy(r, r->T, target);
    st.rms = sqrt(st.residual / (double)n);
    for (size_t i = 0; i < B; ++i) {
        int32_t par = r->parent[i];
        if (par < 0)
            continue;
        double d0[3], d1[3];
        for (int k = 0; k < 3; ++k) {
            d0[k] = r->b[3 * i + k] - r->b[3 * par + k];
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
