/* bench_solve: the free-mode bone solve at the article's size — one clip of
 * 24 frames, 5000 constraint vertices, 45 bones, ≤ 4 influences — on a
 * synthetic but skeleton-like rig (a joint tree, vertices around joints,
 * weights ∝ 1/d² over the 4 nearest joints, smooth per-joint rotations
 * through the hierarchy). Reports time per clip and per frame, sweeps per
 * frame, peak memory, one thread and all threads, and the ratio to the Dem
 * Bones anchor (0.24 s for 5000 × 24 × 30 bones given exact weights, one
 * thread). Also: 30 bones (the anchor's size), inexact targets (1 % noise),
 * a transfer-like case (targets from one rig, solved with another rig's
 * weights: sweeps vs Newton, CPU time) and the rotation-only pass.
 * Last, a 500-bone target (issue 17 §3): the same generator at 500 joints and
 * 20,000 vertices, and a rig of 25 chains of 20 joints (depth 21); per-frame
 * CPU of the free clip solve and of the rotation-only pass on it (one thread),
 * exact LBS targets and targets of other weights, and their ratio.
 *
 * Usage: bench_solve [repetitions=5] [frames of the 500-bone case=6]
 * (prints the minimum over repetitions). BENCH_SOLVE_BIG_ONLY=1 runs only the
 * 500-bone case, BENCH_SOLVE_BIG=0 skips it, BENCH_SOLVE_LM_CAP=K caps its
 * rotation-only pass at K LM iterations per frame (default: the library's 100),
 * BENCH_SOLVE_LM_REL=x sets its relative tolerance, BENCH_SOLVE_GN=1 also runs
 * it with Gauss–Newton steps (JᵀJ alone), =only runs only those,
 * BENCH_SOLVE_BLOCKS=0 turns its block sweeps off (whole-problem steps only),
 * BENCH_SOLVE_BIG_KIND=0|1 runs only the random tree | the chains. "LM it" counts
 * whole-problem iterations; the block iterations per frame and the whole-problem
 * steps taken shortened after a rejection (docs/solver.md D6e) close the line.
 * BENCH_SOLVE_BACKTRACK=0 turns that backtracking off, BENCH_SOLVE_REPIVOT=1 takes the
 * re-pivoted free start (D6g; evaluated, off by default); each line ends with "it/fact per frame" (whole-problem
 * iterations / factorisations of each frame) and how many frames took the re-pivoted start. */
#include "skinfit/math.h"
#include "skinfit/solve.h"
#include "../tests/solve/synth.h"

#include <omp.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct rig_case {
    size_t B, n;
    int32_t *parent;
    double *bind;   /* [16B] */
    double *b;      /* [3B] */
    synth_rig g;
} rig_case;

/* Vertices around the joints (the joint of vertex j is j mod B, offset in a cube of
 * half-size `spread`), 1..4 influences over the nearest joints, weights ∝ 1/d²
 * (the nearest dominant, like painted weights). */
static void skin_around_joints(rig_case *c, synth_rng *r, size_t n, double spread)
{
    const size_t B = c->B;
    synth_rig *g = &c->g;
    memset(g, 0, sizeof *g);
    g->n = n;
    g->B = B;
    g->K = 4;
    g->rest = malloc(3 * n * sizeof(double));
    g->offsets = malloc((n + 1) * sizeof(size_t));
    g->bone = malloc(4 * n * sizeof(uint32_t));
    g->weight = malloc(4 * n * sizeof(double));
    g->offsets[0] = 0;
    size_t m = 0;
    for (size_t j = 0; j < n; ++j) {
        size_t at = j % B;
        double *v = g->rest + 3 * j;
        for (int k = 0; k < 3; ++k)
            v[k] = c->b[3 * at + k] + synth_range(r, -spread, spread);
        size_t best[4];
        double bd[4];
        size_t nb = 0;
        for (size_t i = 0; i < B; ++i) {
            double d[3] = {v[0] - c->b[3 * i], v[1] - c->b[3 * i + 1], v[2] - c->b[3 * i + 2]};
            double dd = skf_dot3(d, d) + 1e-4;
            synth_keep_nearest(4, &nb, best, bd, i, dd);
        }
        /* 1..4 influences, the nearest dominant (like painted weights) */
        size_t k = 1 + (size_t)(synth_uniform(r) * 4);
        double sum = 0;
        for (size_t q = 0; q < k; ++q) {
            g->bone[m + q] = (uint32_t)best[q];
            g->weight[m + q] = 1.0 / (bd[q] * bd[q]);
            sum += g->weight[m + q];
        }
        for (size_t q = 0; q < k; ++q)
            g->weight[m + q] /= sum;
        m += k;
        g->offsets[j + 1] = m;
    }
}

static void rig_alloc(rig_case *c, size_t B, size_t n)
{
    c->B = B;
    c->n = n;
    c->parent = malloc(B * sizeof *c->parent);
    c->bind = malloc(16 * B * sizeof *c->bind);
    c->b = malloc(3 * B * sizeof *c->b);
}

static void make_rig(rig_case *c, synth_rng *r, size_t B, size_t n)
{
    rig_alloc(c, B, n);
    for (size_t i = 0; i < B; ++i) {
        c->parent[i] = i == 0 ? -1 : (int32_t)(synth_uniform(r) * (double)(i < 8 ? i : i));
        double *m = c->bind + 16 * i;
        skf_mat4_identity(m);
        for (int k = 0; k < 3; ++k)
            m[12 + k] = (i == 0 ? 0 : c->b[3 * c->parent[i] + k]) + synth_range(r, -0.25, 0.25);
        memcpy(c->b + 3 * i, m + 12, 3 * sizeof(double));
    }
    skin_around_joints(c, r, n, 0.15);
}

/* A rig of `chains` chains of `len` joints hanging off one root (tentacles:
 * depth len + 1), each chain a gently curving line; vertices around the joints,
 * weights as make_rig's (nearest joints, so mostly a joint and its chain
 * neighbours, and the root's region shared by the chains' first joints). */
static void make_chain_rig(rig_case *c, synth_rng *r, size_t chains, size_t len, size_t n)
{
    const size_t B = 1 + chains * len;
    rig_alloc(c, B, n);
    for (size_t i = 0; i < B; ++i) {
        double *m = c->bind + 16 * i;
        skf_mat4_identity(m);
        if (i == 0) {
            c->parent[i] = -1;
        } else {
            size_t ch = (i - 1) / len, at = (i - 1) % len;
            c->parent[i] = at == 0 ? 0 : (int32_t)(i - 1);
            double az = 6.283185307179586 * (double)ch / (double)chains, el = 0.6 * sin(3.0 * (double)ch);
            double d[3] = {cos(az) * cos(el), sin(az) * cos(el), sin(el)};
            for (int k = 0; k < 3; ++k)
                m[12 + k] = c->b[3 * (size_t)c->parent[i] + k] + 0.2 * d[k] + synth_range(r, -0.03, 0.03);
        }
        memcpy(c->b + 3 * i, m + 12, 3 * sizeof(double));
    }
    skin_around_joints(c, r, n, 0.08);
}

static void free_rig(rig_case *c)
{
    free(c->parent);
    free(c->bind);
    free(c->b);
    synth_rig_free(&c->g);
}

/* Smooth hierarchical motion (rotations about fixed axes, root drift). */
static void make_clip(const rig_case *c, synth_rng *r, size_t F, double noise, double *targets)
{
    const size_t B = c->B, n = c->n;
    double *axes = malloc(3 * B * sizeof *axes), *G = malloc(9 * B * sizeof *G);
    double *p = malloc(3 * B * sizeof *p), *T = malloc(12 * B * sizeof *T);
    for (size_t i = 0; i < B; ++i) {
        double a[3] = {synth_range(r, -1, 1), synth_range(r, -1, 1), synth_range(r, -1, 1)};
        double nn = skf_norm3(a);
        for (int k = 0; k < 3; ++k)
            axes[3 * i + k] = a[k] / nn;
    }
    for (size_t f = 0; f < F; ++f) {
        for (size_t i = 0; i < B; ++i) {
            double ang = 0.5 * sin(0.26 * (double)f + 0.7 * (double)i);
            double q[4] = {axes[3 * i] * sin(ang / 2), axes[3 * i + 1] * sin(ang / 2),
                           axes[3 * i + 2] * sin(ang / 2), cos(ang / 2)}, Ql[9];
            skf_quat_to_mat3(Ql, q);
            const double root_p[3] = {0.05 * (double)f, 0.02 * sin(0.5 * (double)f), 0};
            synth_fk_joint(i, c->parent[i], c->b, Ql, root_p, G, p, T);
        }
        double *u = targets + f * 3 * n;
        synth_skin(&c->g, T, u);
        for (size_t e = 0; e < 3 * n; ++e)
            u[e] += noise * synth_range(r, -1, 1);
    }
    free(axes);
    free(G);
    free(p);
    free(T);
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct result {
    double t_new, t_clip, c_new, c_clip, sweeps, max_rms_rel;
} result;

static result run(const rig_case *c, const double *targets, size_t F, int threads, int reps)
{
    skf_solve_rig rig = synth_rig_view(&c->g);
    skf_solve_options opt = {0};
    opt.threads = threads;
    result best = {1e300, 1e300, 1e300, 1e300, 0, 0};
    double *T = malloc(F * c->B * 12 * sizeof *T);
    skf_solve_stats *st = malloc(F * sizeof *st);
    for (int rep = 0; rep < reps; ++rep) {
        skf_solver *s = NULL;
        skf_error err;
        double c0 = cpu_now(), t0 = now();
        if (skf_solver_new(&rig, &opt, &s, &err) != SKF_OK) {
            fprintf(stderr, "bench_solve: %s\n", err.message);
            exit(1);
        }
        double t1 = now(), c1 = cpu_now();
        for (size_t i = 0; i < c->B; ++i)
            skf_transform34_identity(T + 12 * i);
        if (skf_solver_clip(s, F, targets, T, st, NULL, &err) != SKF_OK) {
            fprintf(stderr, "bench_solve: %s\n", err.message);
            exit(1);
        }
        double t2 = now(), c2 = cpu_now();
        best.c_new = fmin(best.c_new, c1 - c0);
        best.c_clip = fmin(best.c_clip, c2 - c1);
        best.t_new = fmin(best.t_new, t1 - t0);
        best.t_clip = fmin(best.t_clip, t2 - t1);
        best.sweeps = 0;
        best.max_rms_rel = 0;
        for (size_t f = 0; f < F; ++f) {
            best.sweeps += st[f].sweeps / (double)F;
            best.max_rms_rel = fmax(best.max_rms_rel, st[f].rms / skf_solver_diagonal(s));
        }
        skf_solver_free(s);
    }
    free(T);
    free(st);
    return best;
}

static double rotonly_time(const rig_case *c, const double *targets, size_t F, int reps,
                           double *iters)
{
    skf_solve_rig rig = synth_rig_view(&c->g);
    skf_solve_options opt = {0};
    opt.threads = 1;
    skf_solver *s = NULL;
    skf_error err;
    skf_solver_new(&rig, &opt, &s, &err);
    skf_skeleton sk = {c->B, c->parent, c->bind, NULL};
    skf_rotonly *ro = NULL;
    if (!s || skf_rotonly_new(s, &sk, NULL, &ro, &err) != SKF_OK) {
        fprintf(stderr, "bench_solve: %s\n", err.message);
        exit(1);
    }
    double *T = malloc(F * c->B * 12 * sizeof *T), *Tr = malloc(c->B * 12 * sizeof *Tr);
    for (size_t i = 0; i < c->B; ++i)
        skf_transform34_identity(T + 12 * i);
    skf_solver_clip(s, F, targets, T, NULL, NULL, &err);
    double best = 1e300;
    for (int rep = 0; rep < reps; ++rep) {
        double t0 = now();
        *iters = 0;
        for (size_t f = 0; f < F; ++f) {
            skf_rotonly_stats st;
            skf_rotonly_frame(ro, targets + f * 3 * c->n, T + f * c->B * 12, Tr, f > 0, &st, &err);
            *iters += st.iterations / (double)F;
        }
        best = fmin(best, now() - t0);
    }
    free(T);
    free(Tr);
    skf_rotonly_free(ro);
    skf_solver_free(s);
    return best;
}


/* A solver for rig with opt (exits on failure). */
static skf_solver *new_solver(const skf_solve_rig *rig, const skf_solve_options *opt)
{
    skf_solver *s = NULL;
    skf_error err;
    if (skf_solver_new(rig, opt, &s, &err) != SKF_OK) {
        fprintf(stderr, "bench_solve: %s\n", err.message);
        exit(1);
    }
    return s;
}

/* The clip solve from identities: CPU seconds (exits on failure). st may be NULL. */
static double clip_cpu(skf_solver *s, size_t F, const double *targets, double *T, skf_solve_stats *st)
{
    skf_error err;
    for (size_t i = 0; i < skf_solver_bone_count(s); ++i)
        skf_transform34_identity(T + 12 * i);
    double c0 = cpu_now();
    if (skf_solver_clip(s, F, targets, T, st, NULL, &err) != SKF_OK) {
        fprintf(stderr, "bench_solve: %s\n", err.message);
        exit(1);
    }
    return cpu_now() - c0;
}

/* Weights of another rig on the same rest points and joints: ∝ 1/d over the
 * 8 nearest joints (transfer_like's), into off/bone/weight. */
static void diffuse_weights(const rig_case *c, size_t *off, uint32_t *bone, double *weight)
{
    const size_t n = c->n, B = c->B, K = 8;
    off[0] = 0;
    size_t m = 0;
    for (size_t j = 0; j < n; ++j) {
        const double *v = c->g.rest + 3 * j;
        size_t best[8];
        double bd[8];
        size_t nb = 0;
        for (size_t i = 0; i < B; ++i) {
            double d[3] = {v[0] - c->b[3 * i], v[1] - c->b[3 * i + 1], v[2] - c->b[3 * i + 2]};
            synth_keep_nearest(K, &nb, best, bd, i, sqrt(skf_dot3(d, d)) + 1e-3);
        }
        double sum = 0;
        for (size_t q = 0; q < nb; ++q)
            sum += 1.0 / bd[q];
        for (size_t q = 0; q < nb; ++q) {
            bone[m] = (uint32_t)best[q];
            weight[m++] = 1.0 / bd[q] / sum;
        }
        off[j + 1] = m;
    }
}

/* Transfer-like case: the targets come from rig c (exact LBS of its weights),
 * the solve uses a second rig on the same rest points and joints whose weights
 * differ (diffuse: ∝ 1/d over the 8 nearest joints, like autoweights P=1 K=8),
 * so the targets are inexact for it and the bones are strongly coupled.
 * Both methods, one thread, one run each: CPU time per frame of the clip
 * solve, sweeps and Newton iterations per frame, frames at the cap, and the
 * mean final energy (direct residual) relative to N·diag². */
static void transfer_like(const rig_case *c, const double *targets, size_t F)
{
    const size_t n = c->n, B = c->B, K = 8;
    size_t *off = malloc((n + 1) * sizeof *off);
    uint32_t *bone = malloc(K * n * sizeof *bone);
    double *weight = malloc(K * n * sizeof *weight);
    diffuse_weights(c, off, bone, weight);
    skf_solve_rig rig = {n, c->g.rest, off, bone, weight, B, NULL};
    double *T = malloc(F * B * 12 * sizeof *T);
    skf_solve_stats *st = malloc(F * sizeof *st);
    double cpu[2] = {0, 0}, energy[2] = {0, 0};
    for (int method = 0; method < 2; ++method) {
        skf_solve_options opt = {0};
        opt.threads = 1;
        opt.method = method == 0 ? SKF_SOLVE_METHOD_SWEEPS : SKF_SOLVE_METHOD_NEWTON;
        skf_solver *s = new_solver(&rig, &opt);
        cpu[method] = clip_cpu(s, F, targets, T, st);
        double sw = 0, it = 0, d = skf_solver_diagonal(s);
        int capped = 0;
        for (size_t f = 0; f < F; ++f) {
            sw += st[f].sweeps / (double)F;
            it += st[f].iterations / (double)F;
            capped += st[f].hit_cap;
            energy[method] += st[f].residual / ((double)n * d * d) / (double)F;
        }
        printf("%3zu bones, other weights, %-7s %7d %9s %9s %9.4f %9.3f %7.2f  newton it/frame %5.2f, "
               "capped %2d/%zu, mean E/(N·diag²) %.12e\n", B, method ? "newton" : "sweeps", 1, "-",
               "-", 1e3 * cpu[method] / (double)F, 1e3 * cpu[method], sw, it, capped, F,
               energy[method]);
        skf_solver_free(s);
    }
    printf("%3zu bones, other weights: newton / sweeps CPU time %.3f (%.1fx faster), energy ratio "
           "%.12f\n", B, cpu[1] / cpu[0], cpu[0] / cpu[1], energy[1] / energy[0]);
    free(T);
    free(st);
    free(off);
    free(bone);
    free(weight);
}

/* The 500-bone target: free clip solve (one thread, default method: the
 * sweeps alone above 256 bones) and the rotation-only pass on its result,
 * CPU seconds per frame, on exact targets and on targets made with other
 * weights (a transfer: the rig cannot reach them); the rotation-only pass
 * with the exact Hessian (the default) and with Gauss–Newton (JᵀJ alone). */
static void big_case(const char *label, const rig_case *c, const double *targets, size_t F)
{
    const size_t n = c->n, B = c->B;
    size_t *off = malloc((n + 1) * sizeof *off);
    uint32_t *bone = malloc(8 * n * sizeof *bone);
    double *weight = malloc(8 * n * sizeof *weight);
    diffuse_weights(c, off, bone, weight);
    double *T = malloc(F * B * 12 * sizeof *T), *Tr = malloc(B * 12 * sizeof *Tr);
    const char *gn_env = getenv("BENCH_SOLVE_GN");
    const int hess_first = gn_env && !strcmp(gn_env, "only") ? 1 : 0,
              hess_last = gn_env && (!strcmp(gn_env, "1") || !strcmp(gn_env, "only")) ? 1 : 0;
    for (int other = 0; other < 2; ++other) {
        skf_solve_rig rig = other ? (skf_solve_rig){n, c->g.rest, off, bone, weight, B, NULL}
                                  : synth_rig_view(&c->g);
        skf_solve_options opt = {0};
        opt.threads = 1;
        skf_solver *s = new_solver(&rig, &opt);
        const double free_cpu = clip_cpu(s, F, targets, T, NULL);
        for (int hess = hess_first; hess <= hess_last; ++hess) {
            const double c1 = cpu_now();
            skf_error err;
            skf_skeleton sk = {B, c->parent, c->bind, NULL};
            skf_rotonly *ro = NULL;
            skf_rotonly_options ropt = {0};
            ropt.hessian = hess ? SKF_ROTONLY_HESSIAN_GAUSS_NEWTON : SKF_ROTONLY_HESSIAN_NEWTON;
            if (getenv("BENCH_SOLVE_LM_CAP")) /* to time a few iterations of a slow solver */
                ropt.max_iterations = atoi(getenv("BENCH_SOLVE_LM_CAP"));
            if (getenv("BENCH_SOLVE_BLOCKS") && !strcmp(getenv("BENCH_SOLVE_BLOCKS"), "0"))
                ropt.blocks = -1; /* whole-problem steps only (docs/solver.md D6c) */
            if (getenv("BENCH_SOLVE_BACKTRACK") && !strcmp(getenv("BENCH_SOLVE_BACKTRACK"), "0"))
                ropt.backtrack = -1; /* a rejected step refactored at a larger λ (docs/solver.md D6e) */
            if (getenv("BENCH_SOLVE_REPIVOT") && !strcmp(getenv("BENCH_SOLVE_REPIVOT"), "1"))
                ropt.repivot = 1; /* the re-pivoted free start (docs/solver.md D6g) */
            if (getenv("BENCH_SOLVE_LM_REL"))
                ropt.relative_tolerance = atof(getenv("BENCH_SOLVE_LM_REL"));
            if (skf_rotonly_new(s, &sk, &ropt, &ro, &err) != SKF_OK) {
                fprintf(stderr, "bench_solve: %s\n", err.message);
                exit(1);
            }
            double c2 = cpu_now(), it = 0, bit = 0, fac = 0, bt = 0, rms = 0, e = 0;
            int capped = 0, it_max = 0, repiv = 0;
            char per_frame[256] = "";
            for (size_t f = 0; f < F; ++f) {
                skf_rotonly_stats st;
                if (skf_rotonly_frame(ro, targets + f * 3 * n, T + f * B * 12, Tr, f > 0, &st, &err) !=
                    SKF_OK) {
                    fprintf(stderr, "bench_solve: %s\n", err.message);
                    exit(1);
                }
                it += st.iterations / (double)F;
                bit += st.block_iterations / (double)F;
                fac += st.factorizations / (double)F;
                bt += st.backtracked / (double)F;
                it_max = st.iterations > it_max ? st.iterations : it_max;
                repiv += st.repivoted;
                if (strlen(per_frame) < sizeof per_frame - 16)
                    snprintf(per_frame + strlen(per_frame), sizeof per_frame - strlen(per_frame), "%s%d/%d",
                             f ? " " : "", st.iterations, st.factorizations);
                capped += st.hit_cap;
                rms = fmax(rms, st.rms / skf_solver_diagonal(s));
                e += st.residual / ((double)n * skf_solver_diagonal(s) * skf_solver_diagonal(s)) / (double)F;
            }
            double c3 = cpu_now();
            double fr = free_cpu / (double)F, rr = (c3 - c2) / (double)F;
            printf("%-22s %-13s %-6s %5zu %3zu %9.1f %10.1f %8.2f %6.2f %4d %6.2f %3d %9.1f %9.1f  "
                   "mean E/(N·diag²) %.12e, max rms %.2g of diag, block it/frame %.1f, shortened steps/frame %.1f, "
                   "it/fact per frame %s, re-pivoted starts %d\n",
                   label, other ? "other weights" : "exact LBS", hess ? "GN" : "Newton", B, F, 1e3 * fr,
                   1e3 * rr, rr / fr, it, it_max, fac, capped, it > 0 ? 1e3 * rr / it : 0.0,
                   1e3 * (c2 - c1), e, rms, bit, bt, per_frame, repiv);
            skf_rotonly_free(ro);
        }
        skf_solver_free(s);
    }
    free(T);
    free(Tr);
    free(off);
    free(bone);
    free(weight);
}

static void big_cases(size_t F)
{
    const size_t n = 20000;
    printf("500-bone target, one thread, CPU ms per frame (free: the clip solve; rotation-only: its pass "
           "on the free result)\n");
    printf("(%zu vertices; rot/free = the per-frame cost ratio; LM it: mean and max per frame; fact: "
           "factorisations per frame; cap: frames at the iteration cap)\n", n);
    printf("%-22s %-13s %-6s %5s %3s %9s %10s %8s %6s %4s %6s %3s %9s %9s\n", "rig", "targets", "matrix",
           "bones", "F", "free ms/f", "rot ms/f", "rot/free", "LM it", "max", "fact", "cap", "ms/LM it",
           "rot new ms");
    double *targets = malloc(F * 3 * n * sizeof *targets);
    for (int kind = 0; kind < 2; ++kind) {
        if (getenv("BENCH_SOLVE_BIG_KIND") && atoi(getenv("BENCH_SOLVE_BIG_KIND")) != kind)
            continue;
        synth_rng r = {0x5eed + 500 + (uint64_t)kind};
        rig_case c;
        if (kind == 0)
            make_rig(&c, &r, 500, n);
        else
            make_chain_rig(&c, &r, 25, 20, n);
        make_clip(&c, &r, F, 0, targets);
        big_case(kind == 0 ? "random joint tree" : "25 chains x 20 joints", &c, targets, F);
        free_rig(&c);
    }
    free(targets);
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    size_t big_frames = argc > 2 && atoi(argv[2]) > 0 ? (size_t)atoi(argv[2]) : 6;
    const char *big_env = getenv("BENCH_SOLVE_BIG");
    bool big = !big_env || strcmp(big_env, "0") != 0;
    if (getenv("BENCH_SOLVE_BIG_ONLY")) {
        big_cases(big_frames);
        return 0;
    }
    if (reps < 1)
        reps = 1;
    const size_t F = 24, n = 5000;
    const double anchor = 0.24; /* Dem Bones, 5000 × 24 × 30 bones, exact weights, 1 thread */
    int all = omp_get_max_threads();
    printf("bench_solve: %zu frames × %zu vertices, ≤ 4 influences, min of %d runs, %d threads max\n",
           F, n, reps, all);
    printf("%-30s %7s %9s %9s %9s %9s %7s %11s %9s\n", "case", "threads", "setup ms", "clip ms",
           "frame ms", "clip cpu", "sweeps", "vs DemBones", "(cpu)");
    const size_t bones[2] = {45, 30};
    const double noise[2] = {0.0, 0.01};
    double *targets = malloc(F * 3 * n * sizeof *targets);
    for (int bi = 0; bi < 2; ++bi)
        for (int ni = 0; ni < 2; ++ni) {
            synth_rng r = {0x5eed + bones[bi]};
            rig_case c;
            make_rig(&c, &r, bones[bi], n);
            make_clip(&c, &r, F, noise[ni], targets);
            int tlist[2] = {1, all};
            for (int ti = 0; ti < (all > 1 ? 2 : 1); ++ti) {
                result res = run(&c, targets, F, tlist[ti], reps);
                char name[64];
                snprintf(name, sizeof name, "%zu bones, %s", bones[bi],
                         ni ? "1% noise (inexact)" : "exact LBS");
                printf("%-30s %7d %9.3f %9.3f %9.4f %9.3f %7.2f %10.1fx %8.1fx  (max rms %.2g of diag)\n",
                       name, tlist[ti], 1e3 * res.t_new, 1e3 * res.t_clip,
                       1e3 * res.t_clip / (double)F, 1e3 * res.c_clip, res.sweeps,
                       anchor / (res.t_new + res.t_clip), anchor / (res.c_new + res.c_clip),
                       res.max_rms_rel);
            }
            if (ni == 0)
                transfer_like(&c, targets, F);
            if (bi == 0 && !getenv("BENCH_SOLVE_FREE_ONLY")) {
                double it;
                double t = rotonly_time(&c, targets, F, reps < 3 ? reps : 3, &it);
                printf("%-30s %7d %9s %9.3f %9.4f %9s %7.2f   (LM iterations/frame)\n",
                       ni ? "  rotation-only, 1% noise" : "  rotation-only, exact", 1, "-", 1e3 * t,
                       1e3 * t / (double)F, "", it);
            }
            free_rig(&c);
        }
    free(targets);
    if (big)
        big_cases(big_frames);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak memory (whole process, all cases): %.1f MiB\n", (double)ru.ru_maxrss / 1024.0);
    printf("ratio = 0.24 s / (setup + clip), wall time; (cpu) = same with process CPU time, which\n"
           "excludes time spent waiting for a core on a loaded machine. setup = moments + Cholesky,\n"
           "once per rig.\n");
    return 0;
}
