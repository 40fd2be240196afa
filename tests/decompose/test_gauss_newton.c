/* The joint Gauss–Newton step of the decomposition (gauss_newton.c), against
 * references written here from the energy's definition, with no moment
 * sums: E = ½ Σ_f Σ_j ‖Σ_s w_js T_f,b_s ṽ_j − u_fj‖² over a small random rig
 * (40 vertices with 1–3 bones each, 4 bones, rest off the origin).
 *   1. The gradient Jᵀr in the step's variables (a vertex's free slots 1…n−1,
 *      slot 0 taking minus their sum; per bone and frame a rotation ω about
 *      the centre and a shift τ) equals central differences of E.
 *   2. The product JᵀJ x equals the one from the Jacobian assembled column
 *      by column from the linearisation δs = Σ δw T ṽ + w (ω × (p − o) + τ),
 *      for random x; and the gradient equals Jᵀr from the same Jacobian.
 *      Both with and without the reduced frame space (frame_basis.c).
 *   3. On data the rig reproduces exactly, one step from a perturbed start
 *      (rotations 0.02 rad, weights 0.05) removes more than 95 % of E,
 *      leaving valid weights (≥ 0, sum 1, sorted).
 *   4. The step is the same bits at 1, 2 and 3 threads.
 *   5. skf_decompose: the option is off by default, taken when asked, and
 *      an argument error together with Anderson's. */
#include "check.h"
#include "decompose/decompose_internal.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

enum { NV = 40, NB = 4, NK = 3 };

static double rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

/* R = exp([a]×) (row-major), Rodrigues */
static void rot(const double *a, double *R)
{
    double t = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]), k[3] = {0, 0, 0};
    if (t > 0)
        for (int e = 0; e < 3; ++e)
            k[e] = a[e] / t;
    double c = cos(t), s = sin(t), v = 1 - c;
    double M[9] = {c + k[0] * k[0] * v,        k[0] * k[1] * v - k[2] * s, k[0] * k[2] * v + k[1] * s,
                   k[1] * k[0] * v + k[2] * s, c + k[1] * k[1] * v,        k[1] * k[2] * v - k[0] * s,
                   k[2] * k[0] * v - k[1] * s, k[2] * k[1] * v + k[0] * s, c + k[2] * k[2] * v};
    memcpy(R, M, sizeof M);
}

/* a random rigid rest_to_frame transform (3×4 column-major) */
static void rand_rigid(uint64_t *s, double amp, double *T)
{
    double a[3], R[9];
    for (int e = 0; e < 3; ++e)
        a[e] = amp * (2 * rnd(s) - 1);
    rot(a, R);
    for (int col = 0; col < 3; ++col)
        for (int row = 0; row < 3; ++row)
            T[col * 3 + row] = R[row * 3 + col];
    for (int row = 0; row < 3; ++row)
        T[9 + row] = 0.5 * (2 * rnd(s) - 1);
}

static void xf(const double *T, const double *v, double *p)
{
    for (int r = 0; r < 3; ++r)
        p[r] = T[r] * v[0] + T[3 + r] * v[1] + T[6 + r] * v[2] + T[9 + r];
}

typedef struct rig {
    size_t N, F, B, K;
    double rest[3 * NV], o[3];
    uint32_t wb[NV * NK];
    double w[NV * NK];
    double *T;      /* [F*B*12] */
    double *frames; /* [F*N*3] */
} rig;

/* residuals r_fj = Σ_s w_s T ṽ − u (F·N·3) and ½Σ‖r‖² */
static double residual(const rig *g, const double *T, const double *w, double *r)
{
    double E = 0;
    for (size_t f = 0; f < g->F; ++f)
        for (size_t j = 0; j < g->N; ++j) {
            double s[3] = {0, 0, 0};
            for (size_t k = 0; k < g->K; ++k) {
                if (!(w[j * g->K + k] > 0))
                    continue;
                double p[3];
                xf(T + (f * g->B + g->wb[j * g->K + k]) * 12, g->rest + 3 * j, p);
                for (int e = 0; e < 3; ++e)
                    s[e] += w[j * g->K + k] * p[e];
            }
            for (int e = 0; e < 3; ++e) {
                double d = s[e] - g->frames[(f * g->N + j) * 3 + e];
                if (r)
                    r[(f * g->N + j) * 3 + e] = d;
                E += 0.5 * d * d;
            }
        }
    return E;
}

static size_t support(const rig *g, size_t j)
{
    size_t n = 0;
    while (n < g->K && g->w[j * g->K + n] > 0)
        ++n;
    return n;
}

/* the transform step's moments C_fb = Σ_j w_jb (u − o)[v − o; 1]ᵀ */
static void moments(const rig *g, double *C)
{
    memset(C, 0, g->F * g->B * 12 * sizeof *C);
    for (size_t f = 0; f < g->F; ++f)
        for (size_t j = 0; j < g->N; ++j)
            for (size_t k = 0; k < g->K; ++k) {
                double wk = g->w[j * g->K + k];
                if (!(wk > 0))
                    continue;
                const double *u = g->frames + (f * g->N + j) * 3, *v = g->rest + 3 * j;
                double vt[4] = {v[0] - g->o[0], v[1] - g->o[1], v[2] - g->o[2], 1};
                double *Cb = C + (f * g->B + g->wb[j * g->K + k]) * 12;
                for (int a = 0; a < 4; ++a)
                    for (int r = 0; r < 3; ++r)
                        Cb[a * 3 + r] += wk * vt[a] * (u[r] - g->o[r]);
            }
}

typedef struct slot {
    double w;
    uint32_t b;
} slot;

static int by_weight_desc(const void *pa, const void *pb)
{
    const slot *a = pa, *b = pb;
    return a->w < b->w ? 1 : a->w > b->w ? -1 : (a->b > b->b) - (a->b < b->b);
}

/* A random rig; frames from other transforms (noise > 0: plus noise) or,
 * exact, from the same weights and transforms (then perturbed below). */
static void make_rig(rig *g, uint64_t *s, size_t F, bool exact)
{
    g->N = NV;
    g->F = F;
    g->B = NB;
    g->K = NK;
    g->T = malloc(F * NB * 12 * sizeof *g->T);
    g->frames = malloc(F * NV * 3 * sizeof *g->frames);
    for (int e = 0; e < 3; ++e)
        g->o[e] = 0;
    for (size_t j = 0; j < NV; ++j)
        for (int e = 0; e < 3; ++e) {
            g->rest[3 * j + e] = (2 * rnd(s) - 1) + (e == 0 ? 3 : e == 1 ? 1 : -2);
            g->o[e] += g->rest[3 * j + e] / NV;
        }
    for (size_t j = 0; j < NV; ++j) {
        size_t n = 1 + (size_t)(rnd(s) * NK);
        n = n > NK ? NK : n;
        double ww[NK], sum = 0;
        uint32_t bb[NK];
        for (size_t k = 0; k < n; ++k) {
            bool dup;
            do {
                bb[k] = (uint32_t)(rnd(s) * NB) % NB;
                dup = false;
                for (size_t l = 0; l < k; ++l)
                    dup |= bb[l] == bb[k];
            } while (dup);
            ww[k] = 0.2 + rnd(s);
            sum += ww[k];
        }
        slot sl[NK];
        for (size_t k = 0; k < n; ++k)
            sl[k] = (slot){ww[k] / sum, bb[k]};
        qsort(sl, n, sizeof *sl, by_weight_desc); /* the slots' order: weights descending */
        for (size_t k = 0; k < NK; ++k) {
            g->w[j * NK + k] = k < n ? sl[k].w : 0;
            g->wb[j * NK + k] = k < n ? sl[k].b : 0;
        }
    }
    for (size_t q = 0; q < F * NB; ++q)
        rand_rigid(s, 1.0, g->T + q * 12);
    double *Tgen = malloc(F * NB * 12 * sizeof *Tgen);
    for (size_t q = 0; q < F * NB; ++q) {
        if (exact)
            memcpy(Tgen + q * 12, g->T + q * 12, 12 * sizeof *Tgen);
        else
            rand_rigid(s, 1.0, Tgen + q * 12);
    }
    memset(g->frames, 0, F * NV * 3 * sizeof *g->frames);
    double *keep = g->T;
    g->T = Tgen;
    residual(g, Tgen, g->w, g->frames); /* frames are 0: r = the skinned positions */
    g->T = keep;
    if (!exact)
        for (size_t e = 0; e < F * NV * 3; ++e)
            g->frames[e] += 0.01 * (2 * rnd(s) - 1);
    free(Tgen);
}

static void free_rig(rig *g)
{
    free(g->T);
    free(g->frames);
}

/* the state moved along variable e by h (weights: slot s up, slot 0 down;
 * ω: a rotation about o on the left; τ: a shift) */
static void move(const rig *g, size_t e, double h, double *T, double *w)
{
    size_t NKv = g->N * g->K;
    if (e < NKv) {
        w[e] += h;
        w[e - e % g->K] -= h;
        return;
    }
    size_t q = (e - NKv) / 6, a = (e - NKv) % 6;
    double *Tq = T + q * 12;
    if (a >= 3) {
        Tq[9 + a - 3] += h;
        return;
    }
    double ax[3] = {0, 0, 0}, R[9], Tn[12];
    ax[a] = h;
    rot(ax, R);
    for (int col = 0; col < 4; ++col)
        for (int row = 0; row < 3; ++row) {
            double v = 0;
            for (int k = 0; k < 3; ++k)
                v += R[row * 3 + k] * (Tq[col * 3 + k] - (col == 3 ? g->o[k] : 0));
            Tn[col * 3 + row] = v + (col == 3 ? g->o[row] : 0);
        }
    memcpy(Tq, Tn, sizeof Tn);
}

static bool used(const rig *g, size_t e)
{
    size_t NKv = g->N * g->K;
    if (e < NKv)
        return e % g->K >= 1 && e % g->K < support(g, e / g->K);
    size_t q = (e - NKv) / 6, b = q % g->B;
    for (size_t k = 0; k < NKv; ++k)
        if (g->w[k] > 0 && g->wb[k] == b)
            return true;
    return false;
}

/* column e of the Jacobian (F·N·3) from the linearisation */
static void jacobian_column(const rig *g, size_t e, double *col)
{
    size_t NKv = g->N * g->K;
    memset(col, 0, g->F * g->N * 3 * sizeof *col);
    if (!used(g, e))
        return;
    for (size_t f = 0; f < g->F; ++f)
        for (size_t j = 0; j < g->N; ++j) {
            double *c = col + (f * g->N + j) * 3;
            for (size_t k = 0; k < support(g, j); ++k) {
                size_t b = g->wb[j * g->K + k];
                double p[3];
                xf(g->T + (f * g->B + b) * 12, g->rest + 3 * j, p);
                if (e < NKv) {
                    if (e / g->K != j)
                        continue;
                    double dw = k == e % g->K ? 1 : k == 0 ? -1 : 0;
                    for (int r = 0; r < 3; ++r)
                        c[r] += dw * p[r];
                    continue;
                }
                size_t q = (e - NKv) / 6, a = (e - NKv) % 6;
                if (q != f * g->B + b)
                    continue;
                double wk = g->w[j * g->K + k], d[3] = {0, 0, 0};
                if (a >= 3)
                    d[a - 3] = 1;
                else {
                    double om[3] = {0, 0, 0}, pc[3] = {p[0] - g->o[0], p[1] - g->o[1], p[2] - g->o[2]};
                    om[a] = 1;
                    d[0] = om[1] * pc[2] - om[2] * pc[1];
                    d[1] = om[2] * pc[0] - om[0] * pc[2];
                    d[2] = om[0] * pc[1] - om[1] * pc[0];
                }
                for (int r = 0; r < 3; ++r)
                    c[r] += wk * d[r];
            }
        }
}

static double max_abs_diff(const double *a, const double *b, size_t n, double *scale)
{
    double m = 0, s = 0;
    for (size_t e = 0; e < n; ++e) {
        m = fmax(m, fabs(a[e] - b[e]));
        s = fmax(s, fmax(fabs(a[e]), fabs(b[e])));
    }
    *scale = s;
    return m;
}

/* the decomposition's context of a rig's animation (no basis) */
static skfi_decompose_ctx rig_ctx(const rig *g)
{
    return (skfi_decompose_ctx){.N = g->N, .F = g->F, .frames = g->frames, .rest = g->rest};
}

/* tests 1 and 2, on the frames (basis NULL) or the reduced frame space */
static void test_products(bool with_basis)
{
    uint64_t seed = with_basis ? 0x1234567ULL : 0x9abcdefULL;
    rig g;
    /* the reduced space needs a low-rank animation: exact LBS of 4 bones over
     * 30 frames (rank ≤ 48 of 90 columns) */
    make_rig(&g, &seed, with_basis ? 30 : 6, with_basis);
    if (with_basis) /* another pose than the data's: a non-zero residual */
        for (size_t q = 0; q < g.F * g.B; ++q)
            move(&g, g.N * g.K + q * 6 + q % 3, 0.1, g.T, g.w);
    size_t N = g.N, F = g.F, B = g.B, K = g.K, nx = N * K + F * B * 6, nr = F * N * 3;
    skfi_decompose_ctx c = rig_ctx(&g);
    skfi_frame_basis fb;
    memset(&fb, 0, sizeof fb);
    skf_error err;
    if (with_basis) {
        CHECK(skfi_frame_basis_build(&c, 1e-13, &fb, &err) == SKF_OK);
        CHECK_MSG(fb.coords != NULL, "the frame basis was skipped");
        if (!fb.coords) {
            free_rig(&g);
            return;
        }
        fb.rows_o = malloc(fb.D * fb.F3 * sizeof *fb.rows_o);
        memcpy(fb.rows_o, fb.rows, fb.D * fb.F3 * sizeof *fb.rows_o);
        for (size_t e = 0; e < fb.F3; ++e)
            fb.rows_o[(fb.D - 1) * fb.F3 + e] -= g.o[e % 3];
        memcpy(fb.o, g.o, sizeof g.o);
        c.basis = &fb;
    }
    double *C = malloc(F * B * 12 * sizeof *C), *grad = malloc(nx * sizeof *grad);
    double *Ax = malloc(nx * sizeof *Ax), *x = malloc(nx * sizeof *x), *r = malloc(nr * sizeof *r);
    double *J = malloc(nx * nr * sizeof *J), *ref = calloc(nx, sizeof *ref), *refg = calloc(nx, sizeof *refg);
    moments(&g, C);
    for (size_t e = 0; e < nx; ++e)
        x[e] = used(&g, e) ? 2 * rnd(&seed) - 1 : 0;
    CHECK(skfi_decompose_gn_products(&c, B, K, g.o, C, g.wb, g.w, g.T, x, grad, Ax, &err) == SKF_OK);
    /* 1. central differences of E */
    double worst = 0, gmax = 0;
    double *T2 = malloc(F * B * 12 * sizeof *T2), w2[NV * NK];
    for (size_t e = 0; e < nx; ++e) {
        if (!used(&g, e)) {
            CHECK(grad[e] == 0);
            continue;
        }
        double h = 1e-6, Ep, Em;
        memcpy(T2, g.T, F * B * 12 * sizeof *T2);
        memcpy(w2, g.w, sizeof w2);
        move(&g, e, h, T2, w2);
        Ep = residual(&g, T2, w2, NULL);
        memcpy(T2, g.T, F * B * 12 * sizeof *T2);
        memcpy(w2, g.w, sizeof w2);
        move(&g, e, -h, T2, w2);
        Em = residual(&g, T2, w2, NULL);
        double fd = (Ep - Em) / (2 * h);
        worst = fmax(worst, fabs(fd - grad[e]));
        gmax = fmax(gmax, fabs(grad[e]));
    }
    printf("%s: gradient vs central differences, worst %.3g of max |g| %.3g\n",
           with_basis ? "reduced frames" : "frames", worst, gmax);
    CHECK(gmax > 0 && worst <= 1e-6 * gmax);
    /* 2. JᵀJ x and Jᵀr from the assembled Jacobian */
    residual(&g, g.T, g.w, r);
    for (size_t e = 0; e < nx; ++e)
        jacobian_column(&g, e, J + e * nr);
    double *Jx = calloc(nr, sizeof *Jx);
    for (size_t e = 0; e < nx; ++e)
        for (size_t k = 0; k < nr; ++k)
            Jx[k] += J[e * nr + k] * x[e];
    for (size_t e = 0; e < nx; ++e)
        for (size_t k = 0; k < nr; ++k) {
            ref[e] += J[e * nr + k] * Jx[k];
            refg[e] += J[e * nr + k] * r[k];
        }
    double sc, d = max_abs_diff(Ax, ref, nx, &sc), sg, dg = max_abs_diff(grad, refg, nx, &sg);
    printf("%s: JᵀJ x vs the assembled Jacobian %.3g of %.3g; Jᵀr %.3g of %.3g\n",
           with_basis ? "reduced frames" : "frames", d, sc, dg, sg);
    CHECK(sc > 0 && d <= 1e-10 * sc);
    CHECK(sg > 0 && dg <= 1e-9 * sg);
    free(Jx);
    free(T2);
    free(C);
    free(grad);
    free(Ax);
    free(x);
    free(r);
    free(J);
    free(ref);
    free(refg);
    skfi_frame_basis_free(&fb);
    free_rig(&g);
}

static bool valid_weights(const rig *g, const double *w)
{
    for (size_t j = 0; j < g->N; ++j) {
        double s = 0;
        for (size_t k = 0; k < g->K; ++k) {
            if (w[j * g->K + k] < 0 || (k > 0 && w[j * g->K + k] > w[j * g->K + k - 1]))
                return false;
            s += w[j * g->K + k];
        }
        if (fabs(s - 1) > 1e-12)
            return false;
    }
    return true;
}

/* 3 and 4 */
static void test_step(void)
{
    uint64_t seed = 0x5151ULL;
    rig g;
    make_rig(&g, &seed, 8, true);
    size_t N = g.N, F = g.F, B = g.B, K = g.K;
    /* perturb the solution: rotations 0.02 rad, shifts 0.01, weights 0.05
     * within their supports (still sorted, positive) */
    for (size_t q = 0; q < F * B; ++q)
        for (size_t a = 0; a < 6; ++a)
            move(&g, N * K + q * 6 + a, (a < 3 ? 0.02 : 0.01) * (2 * rnd(&seed) - 1), g.T, g.w);
    for (size_t j = 0; j < N; ++j) {
        size_t n = support(&g, j);
        for (size_t s = 1; s < n; ++s) {
            double h = 0.05 * (2 * rnd(&seed) - 1);
            if (g.w[j * K + s] + h > 0.01 && g.w[j * K] - h > g.w[j * K + 1] + fabs(h))
                move(&g, j * K + s, h, g.T, g.w);
        }
    }
    double E0 = residual(&g, g.T, g.w, NULL);
    skfi_decompose_ctx c = rig_ctx(&g);
    double *C = malloc(F * B * 12 * sizeof *C);
    moments(&g, C);
    double *Ts[3], ws[3][NV * NK];
    uint32_t wbs[3][NV * NK];
    int saved = omp_get_max_threads();
    for (int t = 0; t < 3; ++t) {
        Ts[t] = malloc(F * B * 12 * sizeof *Ts[t]);
        memcpy(Ts[t], g.T, F * B * 12 * sizeof *Ts[t]);
        memcpy(ws[t], g.w, sizeof ws[t]);
        memcpy(wbs[t], g.wb, sizeof wbs[t]);
        omp_set_num_threads(t + 1);
        skfi_gn_stats st;
        skf_error err;
        CHECK(skfi_decompose_gn_step(&c, B, K, g.o, C, 1e-6, 60, wbs[t], ws[t], Ts[t], &st, &err) ==
              SKF_OK);
        if (t == 0) {
            memcpy(g.wb, wbs[0], sizeof g.wb);
            double E1 = residual(&g, Ts[0], ws[0], NULL);
            printf("step on exact data: E %.4g -> %.4g (%.2g %%), %zu conjugate-gradient steps, %zu "
                   "weights clipped\n", E0, E1, 100 * E1 / E0, st.cg_steps, st.clipped);
            CHECK(E0 > 0 && E1 < 0.05 * E0);
            CHECK(valid_weights(&g, ws[0]));
        } else {
            bool same = !memcmp(Ts[t], Ts[0], F * B * 12 * sizeof *Ts[0]) &&
                        !memcmp(ws[t], ws[0], sizeof ws[0]) && !memcmp(wbs[t], wbs[0], sizeof wbs[0]);
            printf("step at %d threads: %s\n", t + 1, same ? "bit-identical to 1 thread" : "DIFFERS");
            CHECK(same);
        }
    }
    omp_set_num_threads(saved);
    for (int t = 0; t < 3; ++t)
        free(Ts[t]);
    free(C);
    free_rig(&g);
}

/* 5. The option: Gauss–Newton steps exclude Anderson's (an argument error
 * naming the option); off by default, on when asked (steps counted). */
static void test_option(void)
{
    uint64_t seed = 0x77ULL;
    rig g;
    make_rig(&g, &seed, 12, false);
    skf_error err;
    skf_decomposition *d = NULL;
    skf_decompose_options o = {.bone_count = 3, .anderson = 3, .gauss_newton = 3};
    skf_status st = skf_decompose(g.N, g.F, g.frames, g.rest, 0, NULL, &o, &d, &err);
    CHECK(st == SKF_ERR_ARGUMENT && !d);
    CHECK_MSG(strstr(err.message, "gauss_newton") != NULL, "%s", err.message);
    for (int on = 0; on < 2; ++on) {
        skf_decompose_options o2 = {.bone_count = 3, .gauss_newton = on ? 1 : 0, .max_iterations = 60};
        st = skf_decompose(g.N, g.F, g.frames, g.rest, 0, NULL, &o2, &d, &err);
        CHECK_MSG(st == SKF_OK, "%s", err.message);
        if (!d)
            continue;
        printf("decompose, Gauss-Newton steps %s: %zu iterations, %zu steps (%zu rejected), RMS %.4g\n",
               on ? "every alternation" : "off", d->iterations, d->newton_steps, d->newton_rejected,
               d->metrics.rms);
        CHECK(on ? d->newton_steps > 0 : d->newton_steps == 0);
        CHECK(d->newton_rejected <= d->newton_steps);
        skf_decomposition_free(d);
        d = NULL;
    }
    free_rig(&g);
}

int main(void)
{
    test_products(false);
    test_products(true);
    test_step();
    test_option();
    return skf_test_done();
}
