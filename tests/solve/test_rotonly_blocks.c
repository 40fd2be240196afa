/* Rotation-only's Gauss–Seidel sweeps over blocks (docs/solver.md D6c) on a
 * rig of ten chains of 14 joints (141 joints: blocks start at 128) on one root (each chain a block: loosely
 * coupled), solving targets of other weights (a transfer: E far from zero):
 * the block path runs (block iterations counted), every frame ends converged
 * by the whole-problem rule (not at the cap; restarted from its result a
 * frame gains ≤ 1e-9 of E), bone lengths are kept, and the energy is never
 * above what whole-problem steps alone reach (blocks = −1); a random joint
 * tree, whose joints share vertices across its subtrees, keeps whole-problem
 * steps (no block iterations). Then the large-rig rules of D6d: the pair sums
 * by propagation against the walk, and the second start's rule. Last, the
 * backtracking of D6e: a rejected whole-problem step shortened along its
 * direction before λ grows, and the re-pivoted free start of D6g. */
#include "check.h"
#include "skinfit/math.h"
#include "skinfit/solve.h"
#include "solve/synth.h"

enum { CHAINS = 10, LEN = 14, NJ = 1 + CHAINS * LEN, NV = 5000, NF = 3 };

typedef struct chain_case {
    int32_t parent[NJ];
    double bind[NJ * 16];
    double b[NJ * 3];
    size_t off[NV + 1];
    uint32_t bone[8 * NV];
    double weight[8 * NV];
    double rest[3 * NV];
} chain_case;

/* tree = 0: chains on one root; 1: parents drawn among earlier joints */
static void make_case(chain_case *c, synth_rng *r, int tree)
{
    for (int i = 0; i < NJ; ++i) {
        double *m = c->bind + 16 * i;
        skf_mat4_identity(m);
        if (i == 0) {
            c->parent[i] = -1;
        } else if (tree) {
            c->parent[i] = (int32_t)(synth_uniform(r) * i);
        } else {
            int ch = (i - 1) / LEN, at = (i - 1) % LEN;
            c->parent[i] = at == 0 ? 0 : i - 1;
            double az = 2 * M_PI * ch / CHAINS, el = 0.5 * sin(3.0 * ch);
            double d[3] = {cos(az) * cos(el), sin(az) * cos(el), sin(el)};
            for (int k = 0; k < 3; ++k)
                m[12 + k] = c->b[3 * c->parent[i] + k] + 0.2 * d[k] + synth_range(r, -0.03, 0.03);
        }
        if (tree && i > 0)
            for (int k = 0; k < 3; ++k)
                m[12 + k] = c->b[3 * c->parent[i] + k] + synth_range(r, -0.3, 0.3);
        memcpy(c->b + 3 * i, m + 12, 3 * sizeof(double));
    }
    for (int j = 0; j < NV; ++j)
        for (int k = 0; k < 3; ++k)
            c->rest[3 * j + k] = c->b[3 * (j % NJ) + k] + synth_range(r, -0.08, 0.08);
}

/* weights ∝ 1/d^pw over the K nearest joints */
static void weights(chain_case *c, size_t K, double pw)
{
    c->off[0] = 0;
    for (int j = 0; j < NV; ++j) {
        const double *v = c->rest + 3 * j;
        size_t best[8], nb = 0;
        double bd[8], sum = 0;
        for (size_t i = 0; i < NJ; ++i) {
            double d[3] = {v[0] - c->b[3 * i], v[1] - c->b[3 * i + 1], v[2] - c->b[3 * i + 2]};
            synth_keep_nearest(K, &nb, best, bd, i, pow(sqrt(skf_dot3(d, d)) + 1e-3, pw));
        }
        for (size_t q = 0; q < nb; ++q)
            sum += 1.0 / bd[q];
        for (size_t q = 0; q < nb; ++q) {
            c->bone[K * j + q] = (uint32_t)best[q];
            c->weight[K * j + q] = 1.0 / bd[q] / sum;
        }
        c->off[j + 1] = K * (size_t)(j + 1);
    }
}

/* A length-keeping motion: T_i = [G_i | p_i − G_i b_i], G_i = G_parent Q_i,
 * p_i = p_parent + G_parent (b_i − b_parent). */
static void pose(const chain_case *c, const double *axes, int f, double *T)
{
    double G[NJ * 9], p[NJ * 3];
    for (int i = 0; i < NJ; ++i) {
        double ang = 0.6 * sin(0.4 * f + 0.7 * i), s = sin(ang / 2);
        double q[4] = {axes[3 * i] * s, axes[3 * i + 1] * s, axes[3 * i + 2] * s, cos(ang / 2)}, Q[9];
        skf_quat_to_mat3(Q, q);
        const double root_p[3] = {0.05 * f, 0.02 * f, 0};
        synth_fk_joint((size_t)i, c->parent[i], c->b, Q, root_p, G, p, T);
    }
}

/* The clip both cases solve: exact LBS of 1/d² weights over 4 joints,
 * posed about random unit axes drawn from r; c is left with 1/d weights
 * over 8 joints, the weights the targets are solved with. Returns the
 * NF × 3NV targets (caller frees). */
static double *clip_targets(chain_case *c, synth_rng *r)
{
    double axes[3 * NJ];
    for (int i = 0; i < NJ; ++i) {
        double a[3] = {synth_range(r, -1, 1), synth_range(r, -1, 1), synth_range(r, -1, 1)};
        double n = skf_norm3(a);
        for (int k = 0; k < 3; ++k)
            axes[3 * i + k] = a[k] / n;
    }
    /* targets: exact LBS of 1/d² weights over 4 joints; solved with 1/d over 8 */
    weights(c, 4, 2);
    synth_rig g = {NV, NJ, 4, c->rest, c->off, c->bone, c->weight, NULL};
    double *targets = malloc((size_t)NF * 3 * NV * sizeof(double)), T[12 * NJ];
    for (int f = 0; f < NF; ++f) {
        pose(c, axes, f, T);
        synth_skin(&g, T, targets + (size_t)f * 3 * NV);
    }
    weights(c, 8, 1);
    return targets;
}

/* A case (make_case from seed; tree as there), its clip and the clip's free
 * solve: the solver, the NF targets and the free transforms Tf
 * (clip_case_free releases them). */
typedef struct clip_case {
    skf_solve_rig rig;
    skf_skeleton sk;
    skf_solver *s;
    double *targets, *Tf;
} clip_case;

static void clip_case_make(chain_case *c, uint64_t seed, int tree, clip_case *k)
{
    synth_rng r = {seed};
    make_case(c, &r, tree);
    k->targets = clip_targets(c, &r);
    k->rig = (skf_solve_rig){NV, c->rest, c->off, c->bone, c->weight, NJ, NULL};
    k->sk = (skf_skeleton){NJ, c->parent, c->bind, NULL};
    k->s = NULL;
    skf_error err;
    CHECK(skf_solver_new(&k->rig, NULL, &k->s, &err) == SKF_OK);
    k->Tf = malloc((size_t)NF * NJ * 12 * sizeof(double));
    for (int i = 0; i < NJ; ++i)
        skf_transform34_identity(k->Tf + 12 * i);
    CHECK(skf_solver_clip(k->s, NF, k->targets, k->Tf, NULL, NULL, &err) == SKF_OK);
}

static void clip_case_free(clip_case *k)
{
    free(k->targets);
    free(k->Tf);
    skf_solver_free(k->s);
}

/* Frame f of k's clip by `on` and by `other`, each chaining its own previous
 * results (Ta, Tb), then by `on` restarted from its result (again). */
static void frame_pair(skf_rotonly *on, skf_rotonly *other, const clip_case *k, int f, double *Ta, double *Tb,
                       skf_rotonly_stats *a, skf_rotonly_stats *b, skf_rotonly_stats *again)
{
    static double Tc[12 * NJ];
    skf_error err;
    const double *u = k->targets + (size_t)f * 3 * NV, *Tff = k->Tf + (size_t)f * NJ * 12;
    CHECK(skf_rotonly_frame(on, u, Tff, Ta, f > 0, a, &err) == SKF_OK);
    CHECK(skf_rotonly_frame(other, u, Tff, Tb, f > 0, b, &err) == SKF_OK);
    memcpy(Tc, Ta, sizeof Tc);
    CHECK(skf_rotonly_frame(on, u, Ta, Tc, true, again, &err) == SKF_OK);
}

static void run(int tree)
{
    static chain_case c;
    clip_case k;
    clip_case_make(&c, 0xb10c + (uint64_t)tree, tree, &k);
    skf_solver *s = k.s;
    skf_error err;
    skf_rotonly_options off = {.blocks = -1};
    skf_rotonly *on = NULL, *whole = NULL;
    CHECK(skf_rotonly_new(s, &k.sk, NULL, &on, &err) == SKF_OK);
    CHECK(skf_rotonly_new(s, &k.sk, &off, &whole, &err) == SKF_OK);
    static double Ta[12 * NJ], Tb[12 * NJ];
    int capped = 0, blk_min = 1 << 30, blk_off = 0, it_on = 0, it_off = 0;
    double worst_vs_whole = -1, worst_gain = 0, len = 0, e_min = 1e300;
    const double d2 = skf_solver_diagonal(s) * skf_solver_diagonal(s);
    for (int f = 0; f < NF; ++f) {
        skf_rotonly_stats a, b, again;
        frame_pair(on, whole, &k, f, Ta, Tb, &a, &b, &again);
        capped += a.hit_cap + again.hit_cap;
        blk_min = a.block_iterations < blk_min ? a.block_iterations : blk_min;
        blk_off += b.block_iterations;
        it_on += a.iterations;
        it_off += b.iterations;
        worst_vs_whole = fmax(worst_vs_whole, (a.residual - b.residual) / b.residual);
        worst_gain = fmax(worst_gain, (a.residual - again.residual) / a.residual);
        len = fmax(len, a.max_length_error);
        e_min = fmin(e_min, a.residual / (NV * d2));
    }
    printf("%s: block iterations ≥ %d per frame (whole-problem steps alone: %d), LM iterations %d "
           "(alone: %d), %d at the cap; energy vs whole-problem steps ≤ %+.3g relative; restart gains "
           "≤ %.3g of E; length error ≤ %.2g; E/(N·diag²) ≥ %.3g\n",
           tree ? "random joint tree" : "10 chains x 14", blk_min, blk_off, it_on, it_off, capped,
           worst_vs_whole, worst_gain, len, e_min);
    CHECK(e_min > 1e-7); /* out of reach */
    CHECK(capped == 0);
    CHECK(blk_off == 0);
    CHECK(worst_gain <= 1e-9);
    CHECK(len < 1e-9);
    if (tree) {
        CHECK(blk_min == 0); /* coupled across subtrees: whole-problem steps */
        CHECK(worst_vs_whole == 0);
    } else {
        CHECK(blk_min > 0);
        CHECK(worst_vs_whole <= 1e-12);
    }
    skf_rotonly_free(on);
    skf_rotonly_free(whole);
    clip_case_free(&k);
}

/* docs/solver.md D6d on the same rigs. (1) The pair sums by propagation agree
 * with the walk's, and the minimum-degree sparse factor with the envelope's,
 * to rounding: one iteration, then whole frames (energy, iterations).
 * (2) On a rig of ≥ 128 joints the start that begins lower is descended first
 * and the other only when it begins below that end: a previous result far away
 * (the bind pose) is not descended and the frame is bit-identical to the
 * one-start frame; the frame's own result is descended first and the free
 * start is then not. */
static void large_rules(int tree)
{
    static chain_case c;
    clip_case k;
    clip_case_make(&c, 0x1a26e + (uint64_t)tree, tree, &k);
    skf_solver *s = k.s;
    const skf_skeleton sk = k.sk;
    const double *targets = k.targets, *Tf = k.Tf;
    skf_error err;
    /* (1) walk against propagation (envelope factor), envelope against the
     * sparse factor (propagated sums) */
    double d_one[2] = {0, 0}, d_end[2] = {0, 0};
    int it_diff[2] = {0, 0};
    for (int pair = 0; pair < 2; ++pair)
        for (int cap = 1; cap >= 0; --cap) {
            skf_rotonly_options ow = {.max_iterations = cap,
                                      .sums = pair ? SKF_ROTONLY_SUMS_PROPAGATE : SKF_ROTONLY_SUMS_WALK,
                                      .factor = SKF_ROTONLY_FACTOR_ENVELOPE};
            skf_rotonly_options op = {.max_iterations = cap, .sums = SKF_ROTONLY_SUMS_PROPAGATE,
                                      .factor = pair ? SKF_ROTONLY_FACTOR_SPARSE : SKF_ROTONLY_FACTOR_ENVELOPE};
            skf_rotonly *rw = NULL, *rp = NULL;
            CHECK(skf_rotonly_new(s, &sk, &ow, &rw, &err) == SKF_OK);
            CHECK(skf_rotonly_new(s, &sk, &op, &rp, &err) == SKF_OK);
            static double Tw[12 * NJ], Tp[12 * NJ];
            for (int f = 0; f < (cap ? NF : 1); ++f) { /* one whole frame (the ASan build's time) */
                const double *u = targets + (size_t)f * 3 * NV, *Tff = Tf + (size_t)f * NJ * 12;
                skf_rotonly_stats a, b;
                CHECK(skf_rotonly_frame(rw, u, Tff, Tw, f > 0, &a, &err) == SKF_OK);
                CHECK(skf_rotonly_frame(rp, u, Tff, Tp, f > 0, &b, &err) == SKF_OK);
                const double d = fabs(a.residual - b.residual) / a.residual;
                const int di = abs(a.iterations - b.iterations);
                if (cap == 1) {
                    d_one[pair] = fmax(d_one[pair], d);
                } else {
                    d_end[pair] = fmax(d_end[pair], d);
                    it_diff[pair] = di > it_diff[pair] ? di : it_diff[pair];
                }
            }
            skf_rotonly_free(rw);
            skf_rotonly_free(rp);
        }
    /* (2) the second start: far (the bind pose) and near (the frame's own result) */
    skf_rotonly *ro = NULL;
    CHECK(skf_rotonly_new(s, &sk, NULL, &ro, &err) == SKF_OK);
    static double T1[12 * NJ], T2[12 * NJ], T3[12 * NJ];
    const double *u = targets + 3 * NV, *Tff = Tf + NJ * 12;
    skf_rotonly_stats one, far, near;
    CHECK(skf_rotonly_frame(ro, u, Tff, T1, false, &one, &err) == SKF_OK);
    for (int i = 0; i < NJ; ++i)
        skf_transform34_identity(T2 + 12 * i);
    CHECK(skf_rotonly_frame(ro, u, Tff, T2, true, &far, &err) == SKF_OK);
    memcpy(T3, T1, sizeof T3);
    CHECK(skf_rotonly_frame(ro, u, Tff, T3, true, &near, &err) == SKF_OK);
    for (int pair = 0; pair < 2; ++pair)
        printf("%s: %s: E after one iteration within %.3g, at the end within %.3g (relative), "
               "iterations differ by ≤ %d\n", tree ? "random joint tree" : "10 chains x 14",
               pair ? "envelope vs sparse factor" : "walk vs propagation", d_one[pair], d_end[pair],
               it_diff[pair]);
    printf("%s: second start from the bind pose: skipped %d, %d iterations (one start %d); from the "
           "frame's result: skipped %d (the free start), %d iterations, E %+.3g relative\n",
           tree ? "random joint tree" : "10 chains x 14", far.starts_skipped, far.iterations, one.iterations,
           near.starts_skipped, near.iterations, (near.residual - one.residual) / one.residual);
    /* one step solves an ill-conditioned system: the sums' rounding (1e-16) moves its
     * end by up to the condition number times that; the converged ends agree closer */
    for (int pair = 0; pair < 2; ++pair) {
        CHECK(d_one[pair] <= 1e-10);
        CHECK(d_end[pair] <= 1e-9);
    }
    CHECK(far.starts_skipped == 1);
    CHECK(far.iterations == one.iterations);
    CHECK(memcmp(T1, T2, sizeof T1) == 0);
    CHECK(far.residual == one.residual);
    /* the frame's own result begins lower: descended first (at its minimum
     * already), and the free start, beginning above that end, is not */
    CHECK(near.starts_skipped == 1);
    CHECK(near.iterations < one.iterations);
    CHECK(near.residual <= one.residual);
    skf_rotonly_free(ro);
    clip_case_free(&k);
}

/* What backtrack_rule and repivot_rule tally over a clip's frame pairs
 * (a: the option on, b: without it, again: a restarted from its result). */
typedef struct pair_tally {
    int it[2], fac[2], bt[2], rp[2], capped;
    double gain, len, de_lo, de_hi, e0[2];
} pair_tally;

static void pair_tally_add(pair_tally *t, int f, const skf_rotonly_stats *a, const skf_rotonly_stats *b,
                           const skf_rotonly_stats *again)
{
    if (f == 0) {
        t->e0[0] = a->energy_start;
        t->e0[1] = b->energy_start;
    }
    t->it[0] += a->iterations;
    t->it[1] += b->iterations;
    t->fac[0] += a->factorizations;
    t->fac[1] += b->factorizations;
    t->bt[0] += a->backtracked;
    t->bt[1] += b->backtracked;
    t->rp[0] += a->repivoted;
    t->rp[1] += b->repivoted;
    t->capped += a->hit_cap + again->hit_cap;
    t->gain = fmax(t->gain, (a->residual - again->residual) / a->residual);
    t->len = fmax(t->len, a->max_length_error);
    const double de = (a->residual - b->residual) / b->residual;
    t->de_lo = fmin(t->de_lo, de);
    t->de_hi = fmax(t->de_hi, de);
}

/* docs/solver.md D6e on the random joint tree (141 joints, ≥ 128: the rule
 * is on), against backtrack = −1 on the same clip (each object chains its own
 * previous results): steps are taken shortened, and the clip needs fewer
 * factorisations and fewer whole-problem iterations; every frame still ends
 * converged (not at the cap; restarted from its result it gains ≤ 1e-9 of
 * E) with lengths kept. The energies are printed: a different path may end
 * in another local minimum, on either side. */
static void backtrack_rule(void)
{
    static chain_case c;
    clip_case k;
    clip_case_make(&c, 0xb10c + 1, 1, &k);
    skf_error err;
    skf_rotonly_options off = {.backtrack = -1};
    skf_rotonly *on = NULL, *plain = NULL;
    CHECK(skf_rotonly_new(k.s, &k.sk, NULL, &on, &err) == SKF_OK);
    CHECK(skf_rotonly_new(k.s, &k.sk, &off, &plain, &err) == SKF_OK);
    static double Ta[12 * NJ], Tb[12 * NJ];
    pair_tally t = {0};
    for (int f = 0; f < NF; ++f) {
        skf_rotonly_stats a, b, again;
        frame_pair(on, plain, &k, f, Ta, Tb, &a, &b, &again);
        pair_tally_add(&t, f, &a, &b, &again);
    }
    printf("random joint tree, backtracking (D6e): %d steps shortened, %d iterations, %d factorisations; "
           "without: %d, %d, %d; %d at the cap; restart gains ≤ %.3g of E; length error ≤ %.2g; energy vs "
           "without %+.3g … %+.3g relative\n",
           t.bt[0], t.it[0], t.fac[0], t.bt[1], t.it[1], t.fac[1], t.capped, t.gain, t.len, t.de_lo, t.de_hi);
    CHECK(t.bt[0] > 0);
    CHECK(t.bt[1] == 0);
    CHECK(t.fac[0] < t.fac[1]);
    CHECK(t.it[0] < t.it[1]);
    CHECK(t.capped == 0);
    CHECK(t.gain <= 1e-9);
    CHECK(t.len < 1e-9);
    skf_rotonly_free(on);
    skf_rotonly_free(plain);
    clip_case_free(&k);
}

/* docs/solver.md D6g: the re-pivoted free start (repivot = 1, rigs of ≥ 128
 * joints; evaluated, off by default), against the default on the same clip. It is kept only where it begins lower, so on
 * the first frame (the free start alone) the start's energy is never above the
 * plain one's; every frame still ends converged (not at the cap; restarted from
 * its result it gains ≤ 1e-9 of E) with lengths kept. Iterations and energies
 * are printed: another path may end in another local minimum. */
static void repivot_rule(int tree)
{
    static chain_case c;
    clip_case k;
    clip_case_make(&c, 0xb10c + 2, tree, &k);
    skf_error err;
    skf_rotonly_options opt = {.repivot = 1};
    skf_rotonly *on = NULL, *plain = NULL;
    CHECK(skf_rotonly_new(k.s, &k.sk, &opt, &on, &err) == SKF_OK);
    CHECK(skf_rotonly_new(k.s, &k.sk, NULL, &plain, &err) == SKF_OK);
    static double Ta[12 * NJ], Tb[12 * NJ];
    pair_tally t = {0};
    for (int f = 0; f < NF; ++f) {
        skf_rotonly_stats a, b, again;
        frame_pair(on, plain, &k, f, Ta, Tb, &a, &b, &again);
        pair_tally_add(&t, f, &a, &b, &again);
    }
    printf("%s, re-pivoted start (D6g): %d of %d frames re-pivoted, frame 1 starts at %.6g (plain %.6g), "
           "%d iterations, %d factorisations; plain: %d, %d; %d at the cap; restart gains ≤ %.3g of E; "
           "length error ≤ %.2g; energy vs plain %+.3g … %+.3g relative\n",
           tree ? "random joint tree" : "10 chains x 14", t.rp[0], NF, t.e0[0], t.e0[1], t.it[0], t.fac[0],
           t.it[1], t.fac[1], t.capped, t.gain, t.len, t.de_lo, t.de_hi);
    CHECK(t.rp[1] == 0);
    CHECK(t.e0[0] <= t.e0[1]);
    CHECK(t.capped == 0);
    CHECK(t.gain <= 1e-9);
    CHECK(t.len < 1e-9);
    skf_rotonly_free(on);
    skf_rotonly_free(plain);
    clip_case_free(&k);
}

int main(void)
{
    run(0);
    run(1);
    large_rules(0);
    large_rules(1);
    backtrack_rule();
    repivot_rule(0);
    repivot_rule(1);
    return skf_test_done();
}
