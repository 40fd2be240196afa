/* Per-vertex skinning weights with fixed bone transforms.
 *
 * B. H. Le and Z. Deng, "Smooth Skinning Decomposition with Rigid Bones",
 * ACM TOG 31(6), 2012, section 4.2: for vertex j, minimise
 *     Σ_f ‖ Σ_i w_ij T_fi ṽ_j − u_fj ‖²   s.t. w_ij ≥ 0, Σ_i w_ij = 1, ≤ K non-zeros,
 * a small non-negative least-squares problem per vertex, solved here by the
 * Lawson–Hanson active set with the sum-to-one constraint (nnls.c).
 *
 * Cost. With A_j = [T_f1 ṽ_j … T_fB ṽ_j] stacked over frames, the normal
 * equations are Q = A_jᵀA_j and c = A_jᵀu_j. Q_ik = ṽ_jᵀ G_ik ṽ_j with
 * G_ik = Σ_f T_fiᵀ T_fk (4×4, once per weight step for all bone pairs), so
 * only c costs O(F) per bone. Candidates: the bones whose single-bone fit
 * (error Q_ii − 2 c_i) is best — the ones that reduce the error most on
 * their own — K + 4 of them; if the solution has more than K non-zeros, the
 * K largest are kept and the problem re-solved on them.
 */
#include "decompose_internal.h"

#include <cblas.h>
#include <float.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_CAND 64
#define VB 4     /* vertices per group sharing one candidate list */
#define SB 64    /* vertices per block of the pass (a multiple of VB): one product per block */
#define NPART SKFI_WEIGHT_PARTS /* fixed partitions of the blocks (moment sums): the parallel grain */
#define NGB 8    /* fixed row blocks of bones for the Gram product G */
#define NCB 16   /* fixed blocks of frames for the moments' expansion from the basis */
#define NPB 4    /* fixed row blocks of the basis for the stacked transforms' projection P */

/* Thread CPU seconds, for the parallel regions' work and critical path
 * (skfi_decompose_ctx.loop_seconds). */
static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* An item's clock: thread_cpu() when the items are timed (more than one
 * thread), else 0. On one thread a loop's critical path is the region's
 * CPU time itself (the items' makespan plus the time outside them), which
 * the region's two reads measure; a read is a system call (about a
 * microsecond: 3 % of a 5-bone Bone_Anim run for ~90 reads per weight
 * step), so the items are not timed there. */
static double item_cpu(bool timed)
{
    return timed ? thread_cpu() : 0;
}

/* Adds a thread's CPU seconds in a region to its sum and maximum. */
static void region_cpu(double mine, double *sum, double *max)
{
#pragma omp critical(skfi_weights_region_cpu)
    {
        *sum += mine;
        *max = mine > *max ? mine : *max;
    }
}

/* A thread's CPU seconds in a dynamic loop outside its items (buffers,
 * the loop's dispatch) into their maximum over threads: added to the
 * items' makespan (list_makespan) for the loop's critical path. */
static void outside_items(double mine, double items, double *max)
{
#pragma omp critical(skfi_weights_region_cpu)
    *max = mine - items > *max ? mine - items : *max;
}

/* Ends one phase of a parallel region (called by every thread): the
 * thread's CPU seconds since *t0 into the phase's sum and maximum, a
 * barrier, the phase's figures added once to the totals, *t0 restarted. A
 * phase's busiest thread is its critical path; the wait at the barrier is
 * in neither figure. Untimed (one thread): only the barrier; the phase's
 * seconds then count with the region's next phase, from the same *t0. */
static void phase_end(bool timed, double *t0, double *rsum, double *rmax, double *tot_sum,
                      double *tot_max, double *tot_sched)
{
    if (!timed) {
#pragma omp barrier
        return;
    }
    region_cpu(thread_cpu() - *t0, rsum, rmax);
#pragma omp barrier
#pragma omp single
    {
        *tot_sum += *rsum;
        *tot_max += *rmax;
        *tot_sched += *rmax;
        *rsum = *rmax = 0;
    }
    *t0 = thread_cpu();
}

/* The makespan of a dynamic loop's n items (cost[order[k]] CPU seconds, or
 * cost[k] with order NULL, in the order handed out) on nt threads that
 * always have a core: each item to the thread that is free first. On a
 * loaded machine the dynamic schedule hands more items to whichever thread
 * has a core, so the busiest thread measures the load; this does not. */
static double list_makespan(const double *cost, const size_t *order, size_t n, size_t nt)
{
    double fin[16] = {0};
    nt = nt < 1 ? 1 : nt > 16 ? 16 : nt;
    for (size_t k = 0; k < n; ++k) {
        size_t t = 0;
        for (size_t u = 1; u < nt; ++u)
            t = fin[u] < fin[t] ? u : t;
        fin[t] += cost[order ? order[k] : k];
    }
    double m = 0;
    for (size_t t = 0; t < nt; ++t)
        m = fin[t] > m ? fin[t] : m;
    return m;
}

/* Candidate bones: every bone when B ≤ C (or no adjacency), else appends to
 * list[n..] the bones that weigh on vertex j, on its seam twins or on its
 * mesh neighbours in the previous weights (old_wb, old_w; the caller passes
 * c->support_wb / support_w instead when set), or that were re-seeded on one
 * of them (c->seed), each bone once
 * per stamp. Returns the new count. With list2 (not NULL), the same bones
 * are also appended to list2[*n2..] once per stamp2 (mark2): the block's
 * union and its vertex group's list from one walk, in the same orders as
 * two walks. */
static size_t gather_candidates(const skfi_decompose_ctx *c, size_t B, size_t C, size_t K, size_t j,
                                const uint32_t *old_wb, const double *old_w, uint32_t *mark,
                                uint32_t stamp, size_t *list, size_t n, uint32_t *mark2,
                                uint32_t stamp2, size_t *list2, size_t *n2)
{
    if (B <= C || !c->adj_off || !old_wb) {
        for (size_t i = 0; i < B; ++i) {
            list[i] = i;
            if (list2)
                list2[i] = i;
        }
        if (list2)
            *n2 = B;
        return B;
    }
    size_t r = c->rep[j];
    /* the neighbours of the representative, then j itself and r */
    for (size_t a = c->adj_off[r]; a < c->adj_off[r + 1] + 2; ++a) {
        size_t v = a < c->adj_off[r + 1] ? c->adj[a] : a == c->adj_off[r + 1] ? j : r;
        /* slots 0..K-1: the previous weights; slot K: a re-seeded bone's
         * region (c->seed, reseed.c), which no previous weight reaches */
        for (size_t k = 0; k <= K; ++k) {
            uint32_t b;
            if (k < K) {
                if (!(old_w[v * K + k] > 0))
                    continue;
                b = old_wb[v * K + k];
            } else {
                if (!c->seed || c->seed[v] == UINT32_MAX)
                    continue;
                b = c->seed[v];
            }
            if (mark[b] != stamp) {
                mark[b] = stamp;
                list[n++] = b;
            }
            if (list2 && mark2[b] != stamp2) {
                mark2[b] = stamp2;
                list2[(*n2)++] = b;
            }
        }
    }
    return n;
}

/* Over-relaxation of one vertex's weight step (skf_decompose_options.
 * weight_relaxation): the new weights x on cand[0..n) (x > 0 on the new
 * support) become x + β (x − x_old), x_old the vertex's previous weights
 * (slots ob / ow), when the two supports are the same bones and every
 * relaxed weight stays positive; they still sum to one (both do). Returns
 * whether x was changed. Successive over-relaxation of the weight block:
 * the transform step that follows sees the weights moved further along
 * the direction the alternation is already taking, which in the slow
 * coupled tail of the alternation is the direction it crawls along. */
static bool relax_weights(size_t n, const size_t *cand, size_t K, const uint32_t *ob,
                          const double *ow, double beta, double *x)
{
    size_t nnew = 0, nold = 0, matched = 0;
    double xo[MAX_CAND], xe[MAX_CAND];
    for (size_t k = 0; k < K; ++k)
        nold += ow[k] > 0;
    for (size_t a = 0; a < n; ++a) {
        xo[a] = 0;
        if (!(x[a] > 0))
            continue;
        ++nnew;
        for (size_t k = 0; k < K; ++k)
            if (ow[k] > 0 && ob[k] == cand[a]) {
                xo[a] = ow[k];
                ++matched;
            }
    }
    if (nnew < 2 || matched != nnew || nnew != nold)
        return false;
    for (size_t a = 0; a < n; ++a) {
        xe[a] = x[a] > 0 ? x[a] + beta * (x[a] - xo[a]) : 0;
        if (x[a] > 0 && !(xe[a] > 0))
            return false;
    }
    memcpy(x, xe, n * sizeof *x);
    return true;
}

/* Per-partition moment accumulators of the fused pass: bone-major
 * [B][F*12], a bone's slab zeroed when the partition first touches it. */
typedef struct part_acc {
    double *C;     /* [B*F*12] */
    uint8_t *used; /* [B] */
} part_acc;

skf_status skfi_decompose_solve_weights(const skfi_decompose_ctx *c, size_t B, const double *transforms, size_t K,
                            uint32_t *wb, double *w, bool warm, const double *centre,
                            double *moments, skf_error *err)
{
    size_t N = c->N, F = c->F, F3 = 3 * F, B4 = 4 * B;
    size_t C = K + 4;
    if (C > B)
        C = B;
    if (C > MAX_CAND)
        C = MAX_CAND;
    const double o[3] = {moments ? centre[0] : 0, moments ? centre[1] : 0, moments ? centre[2] : 0};
    size_t NS = (N + SB - 1) / SB;
    size_t NP = NS < NPART ? NS : NPART;
    /* The columns the products read: the 3F frame columns of the centred
     * trajectories, or with a reduced frame space (frame_basis.c) the D
     * coordinates of each vertex, u_j − o = coords_j · rows_o (rows_o: the
     * basis rows with o taken off the mean row). Then H = coords · (rows_o ·
     * Tall) and the moments (Amᵀ coords) · rows_o: the same products on the
     * data projected on the basis, exact to its discarded energy
     * (docs/decompose.md "Reduced frame space"). */
    skfi_frame_basis *fb = c->basis && c->basis->coords ? c->basis : NULL;
    size_t D = fb ? fb->D : F3;
    size_t accn = fb ? 4 * D : F * 12; /* a bone's moment sums in a partition */
    /* Frame-major stacked transforms, the 3F×4B matrix Tall[(3f + r)*4B + 4i + p]
     * = row r, column p of T_fi, so that h_ij = Σ_f T_fiᵀ u_fj is row j of the
     * product (trajectories, N×3F) × Tall; with centred trajectories
     * u − o, h_ij = Σ_f T_fiᵀ (u_fj − o) + k_i, k_i = Σ_f T_fiᵀ o. */
    /* The large buffers (stacked transforms, moment sums, each thread's
     * block matrices) come from one block kept across calls in c->arena
     * when there is one: allocating them per call cost page faults on every
     * alternation (a fifth of a 20-bone Bone_Anim run in the kernel). */
    size_t nt = (size_t)omp_get_max_threads();
    bool timed = nt > 1; /* the loops' items timed (item_cpu) */
    /* each thread's slice: [ublk] Tg [R] H [Am] [cf] (block matrices, the
     * H and Am products' outputs, the moments' frame block): kept across
     * calls, not allocated per parallel region (a region's fresh or
     * trimmed heap pages were page faults inside the threads' time) */
    size_t ncb = F < NCB ? F : NCB, fmax = (F + ncb - 1) / ncb;
    size_t cf_n = fb && moments ? B4 * 3 * fmax : 0;
    size_t per_thread = (fb ? 0 : F3 * SB) + D * B4 + (moments ? B4 * D : 0) + SB * B4 +
                        (moments ? SB * B4 : 0) + cf_n;
    size_t extra = fb ? 2 * D * B4 : 0; /* P = rows_o · Tall; the bones' summed moments (4B × D) */
    size_t need = F3 * B4 + extra + (moments ? NP * B * accn : 0) + nt * per_thread;
    skfi_decompose_arena local = {NULL, 0, {0}, 0}, *ar = c->arena ? c->arena : &local;
    if (ar->n < need) {
        skf_free(ar->mem);
        ar->mem = skf_malloc_array(need, sizeof *ar->mem);
        ar->n = ar->mem ? need : 0;
    }
    double *Tall = ar->mem;
    double *G4 = skf_malloc_array(B4 * B4, sizeof *G4);
    double *G = skf_malloc_array(B * B * 10, sizeof *G);
    double *kv = skf_calloc(B4, sizeof *kv);
    uint32_t *old_wb = warm && c->adj_off ? skf_malloc_array(N * K, sizeof *old_wb) : NULL;
    double *old_w = old_wb ? skf_malloc_array(N * K, sizeof *old_w) : NULL;
    part_acc *acc = moments ? skf_calloc(NP, sizeof *acc) : NULL;
    bool ok0 = Tall && G4 && G && kv && (!warm || !c->adj_off || (old_wb && old_w)) &&
               (!moments || acc);
    for (size_t p = 0; ok0 && acc && p < NP; ++p) {
        acc[p].C = Tall + F3 * B4 + extra + p * B * accn;
        acc[p].used = skf_calloc(B, sizeof *acc[p].used);
        ok0 = acc[p].used != NULL;
    }
    if (fb) {
        /* rows_o for this centre (the same o on every alternation: made once) */
        if (!fb->rows_o || memcmp(fb->o, o, sizeof o)) {
            if (!fb->rows_o)
                fb->rows_o = skf_malloc_array(D * F3, sizeof *fb->rows_o);
            if (fb->rows_o) {
                memcpy(fb->rows_o, fb->rows, D * F3 * sizeof *fb->rows_o);
                for (size_t e = 0; e < F3; ++e)
                    fb->rows_o[(D - 1) * F3 + e] -= o[e % 3];
                memcpy(fb->o, o, sizeof o);
            }
        }
        ok0 = ok0 && fb->rows_o;
    }
    if (!ok0) {
        for (size_t p = 0; acc && p < NP; ++p)
            skf_free(acc[p].used);
        skf_free(acc);
        if (ar == &local)
            skf_free(local.mem);
        skf_free(G4);
        skf_free(G);
        skf_free(kv);
        skf_free(old_wb);
        skf_free(old_w);
        return skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory in the weight solve");
    }
    if (old_wb) {
        memcpy(old_wb, wb, N * K * sizeof *old_wb);
        memcpy(old_w, w, N * K * sizeof *old_w);
    }
    double *P = fb ? Tall + F3 * B4 : NULL, *rows_o = fb ? fb->rows_o : NULL;
    /* the parallel regions' wall time, thread CPU summed, busiest thread */
    double loop_wall = 0, loop_cpu_sum = 0, loop_cpu_max = 0, rsum = 0, rmax = 0;
    /* Σ over phases of the critical path with threads that always have a
     * core: the busiest thread for static loops, list_makespan of the
     * items' CPU seconds for dynamic ones */
    double loop_sched = 0, ovmax = 0;
    /* G_ik = Σ_f T_fiᵀ T_fk (4×4 per bone pair) = blocks of Tallᵀ Tall; the
     * upper triangle is mirrored so that G_ki = G_ikᵀ exactly. Only the
     * blocks k ≥ i are computed, in fixed row blocks of bones (one product
     * each, threads take whole blocks: the same sums at any thread count) —
     * run on one thread, this product was most of the weight step's serial
     * part (docs/bench.md). */
    {
        size_t ngb = B < NGB ? B : NGB;
        size_t npb = fb ? (D < NPB ? D : NPB) : 0;
        double gw = omp_get_wtime(), gcost[NPB + NGB];
#pragma omp parallel
        {
            /* the stacked transforms, frames in parallel (was serial: with
             * k, a third of the weight step's serial part) */
            double t0 = thread_cpu(), items = 0;
#pragma omp for schedule(static) nowait
            for (long long fl = 0; fl < (long long)F; ++fl) {
                size_t f = (size_t)fl;
                for (size_t i = 0; i < B; ++i) {
                    const double *T = transforms + (f * B + i) * 12;
                    for (int r = 0; r < 3; ++r)
                        for (int p = 0; p < 4; ++p)
                            Tall[(3 * f + (size_t)r) * B4 + 4 * i + (size_t)p] = T[p * 3 + r];
                }
            }
            phase_end(timed, &t0, &rsum, &rmax, &loop_cpu_sum, &loop_cpu_max, &loop_sched);
#pragma omp for schedule(dynamic, 1) nowait
            for (long long it = 0; it < (long long)(npb + ngb); ++it) {
                double tb = item_cpu(timed);
                if ((size_t)it < npb) {
                    /* P = rows_o · Tall, rows d0 .. d1 for all bones (the
                     * first, largest items; rows_o packed once in all) */
                    /* boundaries at multiples of 8 rows: every row meets the
                     * same kernel as in one product over all D rows (OpenBLAS'
                     * dgemm kernels take rows in groups of 4; a row in a
                     * remainder group is summed differently) */
                    size_t d0 = ((size_t)it * D / npb) & ~(size_t)7;
                    size_t d1 = (size_t)it + 1 == npb ? D : (((size_t)it + 1) * D / npb) & ~(size_t)7;
                    if (d1 > d0)
                        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)(d1 - d0), (int)B4,
                                    (int)F3, 1.0, rows_o + d0 * F3, (int)F3, Tall, (int)B4, 0.0,
                                    P + d0 * B4, (int)B4);
                    gcost[it] = item_cpu(timed) - tb;
                    items += gcost[it];
                    continue;
                }
                size_t gb = (size_t)it - npb;
                size_t b0 = gb * B / ngb, b1 = (gb + 1) * B / ngb;
                /* k's columns of these bones, each summed over e in order */
                /* (e = 3f + r: o[r] without a division per element) */
                for (size_t f = 0; f < F; ++f)
                    for (size_t r = 0; r < 3; ++r) {
                        const double *Te = Tall + (3 * f + r) * B4;
                        for (size_t q = 4 * b0; q < 4 * b1; ++q)
                            kv[q] += Te[q] * o[r];
                    }
                if (b1 > b0)
                    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)(4 * (b1 - b0)),
                                (int)(B4 - 4 * b0), (int)F3, 1.0, Tall + 4 * b0, (int)B4,
                                Tall + 4 * b0, (int)B4, 0.0, G4 + 4 * b0 * B4 + 4 * b0, (int)B4);
                gcost[it] = item_cpu(timed) - tb;
                items += gcost[it];
            }
            double te = thread_cpu();
            outside_items(te - t0, items, &ovmax);
            region_cpu(te - t0, &rsum, &rmax);
        }
        loop_wall += omp_get_wtime() - gw;
        loop_cpu_sum += rsum;
        loop_cpu_max += rmax;
        loop_sched += list_makespan(gcost, NULL, npb + ngb, nt) + ovmax;
        ovmax = 0;
        rsum = rmax = 0;
    }
    /* Q_ik = ṽᵀ G_ik ṽ needs only the symmetric part of G_ik: G[(i*B + k)*10]
     * holds its 10 coefficients against the products ṽ_p ṽ_r, p ≤ r
     * (skfi_sym10's order), so a quadratic form is 10 multiply-adds, not 32; and
     * G_ki = G_ikᵀ gives the same 10, so Q is exactly symmetric. */
    for (size_t i = 0; i < B; ++i)
        for (size_t k = 0; k < B; ++k) {
            double g[16];
            for (int p = 0; p < 4; ++p)
                for (int q = 0; q < 4; ++q)
                    g[p * 4 + q] = k >= i ? G4[(4 * i + (size_t)p) * B4 + 4 * k + (size_t)q]
                                          : G4[(4 * k + (size_t)q) * B4 + 4 * i + (size_t)p];
            double *gs = G + (i * B + k) * 10;
            size_t t = 0;
            for (int p = 0; p < 4; ++p)
                for (int q = p; q < 4; ++q)
                    gs[t++] = p == q ? g[p * 4 + p] : g[p * 4 + q] + g[q * 4 + p];
        }
    skf_free(G4);
    int failed = 0;
    size_t solves = 0, at_cap = 0, relaxed = 0;
    const double beta = warm && c->relax > 0 ? c->relax : 0;
    /* The partitions in the order threads take them: by the last call's
     * cost, longest first (ties and the first call: in index order), so
     * that the last ones taken are short (the partitions' sums do not
     * depend on who computes them, or when). */
    size_t order[NPART];
    double pcost[NPART];
    bool have_cost = ar->nparts == NP;
    for (size_t p = 0; p < NP; ++p) {
        size_t q = p;
        if (have_cost)
            while (q > 0 && ar->cost[p] > ar->cost[order[q - 1]]) {
                order[q] = order[q - 1];
                --q;
            }
        order[q] = p;
    }
    double lw = omp_get_wtime();
#pragma omp parallel
    {
        double t0 = thread_cpu(), items = 0;
        double *cb = skf_malloc_array(B, sizeof *cb);
        double *eb = skf_malloc_array(B, sizeof *eb);
        double *mine = Tall + F3 * B4 + extra + (moments ? NP * B * accn : 0) +
                       (size_t)omp_get_thread_num() * per_thread;
        double *ublk = fb ? NULL : mine, *Tg = mine + (fb ? 0 : F3 * SB);
        double *R = moments ? Tg + D * B4 : NULL;
        double *H = Tg + D * B4 + (moments ? B4 * D : 0);
        double *Am = moments ? H + SB * B4 : NULL;
        size_t *list = skf_malloc_array(B, sizeof *list);
        /* the groups' candidate lists of a block: group g at own + g*B */
        size_t *own = skf_malloc_array((SB / VB) * B, sizeof *own), gcnt[SB / VB];
        size_t *pos = skf_malloc_array(B, sizeof *pos);
        uint32_t *mark = skf_calloc(B, sizeof *mark);
        uint32_t *mark2 = skf_calloc(B, sizeof *mark2);
        bool ok = cb && eb && H && list && own && pos && mark && mark2 && (!moments || Am);
        if (!ok) {
#pragma omp atomic write
            failed = 1;
        }
        uint32_t stamp2 = 0;
#pragma omp for schedule(dynamic, 1) reduction(+ : solves, at_cap, relaxed) nowait
        for (long long pk = 0; pk < (long long)NP; ++pk) {
            size_t part = order[pk];
            if (!ok)
                continue;
            double pt0 = item_cpu(timed);
            /* A fixed partition of whole super-blocks, in vertex order: the
             * same sums at any thread count. */
            size_t sb0 = (size_t)part * NS / NP, sb1 = ((size_t)part + 1) * NS / NP;
            part_acc *pa = acc ? &acc[part] : NULL;
          for (size_t sbk = sb0; sbk < sb1; ++sbk) {
            /* SB consecutive vertices' trajectories, centred, as rows of
             * the SB×3F matrix ublk (frame by frame: SB·3 contiguous numbers
             * per frame in the input) */
            size_t s0 = sbk * SB, ns = N - s0 < SB ? N - s0 : SB;
            const double *ub = fb ? fb->coords + s0 * D : ublk; /* ns × D */
            for (size_t f = 0; f < F && !fb; ++f) {
                const double *src = c->frames + (f * N + s0) * 3;
                for (size_t v = 0; v < ns; ++v)
                    for (int r = 0; r < 3; ++r)
                        ublk[v * F3 + 3 * f + (size_t)r] = src[3 * v + (size_t)r] - o[r];
            }
            /* The union of the block's candidate bones, and h for all of
             * them in one product: H (ns × 4nl) = ublk · Tall[:, list]. */
            size_t nl = 0;
            uint32_t stamp = (uint32_t)sbk + 1;
            for (size_t v = 0; v < ns; ++v) {
                /* the candidates of the group of VB consecutive vertices
                 * that v is in (a subset of the block's union; fixed by
                 * index), from the same walk */
                if (v % VB == 0) {
                    ++stamp2;
                    gcnt[v / VB] = 0;
                }
                nl = gather_candidates(c, B, C, K, s0 + v, c->support_wb ? c->support_wb : old_wb,
                                       c->support_w ? c->support_w : old_w, mark, stamp, list, nl, mark2,
                                       stamp2, own + (v / VB) * B, &gcnt[v / VB]);
            }
            for (size_t l = 0; l < nl; ++l)
                pos[list[l]] = l;
            size_t n4 = 4 * nl;
            const double *Tsrc = fb ? P : Tall; /* D × 4B */
            /* the union is every bone in order (B ≤ C: all of them are
             * every vertex's candidates): the product reads Tsrc itself,
             * the same numbers in the same layout as their copy */
            bool all = nl == B;
            for (size_t l = 0; all && l < nl; ++l)
                all = list[l] == l;
            const double *Tb = all ? Tsrc : Tg;
            for (size_t e = 0; e < D && !all; ++e)
                for (size_t l = 0; l < nl; ++l)
                    memcpy(Tg + e * n4 + 4 * l, Tsrc + e * B4 + 4 * list[l], 4 * sizeof *Tg);
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)ns, (int)n4, (int)D, 1.0,
                        ub, (int)D, Tb, (int)n4, 0.0, H, (int)n4);
          size_t no = 0;
          const size_t *gown = own;
          for (size_t vv = 0; vv < ns; ++vv) {
            size_t j = s0 + vv;
            const double *v = c->rest + 3 * j;
            double vt[4] = {v[0], v[1], v[2], 1};
            const double m10[10] = {v[0] * v[0], v[0] * v[1], v[0] * v[2], v[0], v[1] * v[1],
                                    v[1] * v[2], v[1], v[2] * v[2], v[2], 1};
            if (vv % VB == 0) {
                no = gcnt[vv / VB];
                gown = own + (vv / VB) * B;
            }
            for (size_t l = 0; l < no; ++l) {
                size_t i = gown[l];
                /* c_i = Σ_f (T_fi ṽ)·u_fj = Σ_p ṽ_p h_ip */
                const double *h = H + vv * n4 + 4 * pos[i], *k4 = kv + 4 * i;
                cb[l] = (h[0] + k4[0]) * vt[0] + (h[1] + k4[1]) * vt[1] +
                        (h[2] + k4[2]) * vt[2] + (h[3] + k4[3]);
                eb[l] = skfi_sym10(G + (i * B + i) * 10, m10) - 2 * cb[l];
            }
            /* C best single bones (positions in own / cb). */
            size_t cand[MAX_CAND], cpos[MAX_CAND];
            size_t nc = 0, Cj = C < no ? C : no;
            for (size_t l = 0; l < no; ++l) {
                size_t ps = nc < Cj ? nc++ : Cj;
                if (ps == Cj) {
                    if (eb[l] >= eb[cpos[Cj - 1]])
                        continue;
                    ps = Cj - 1;
                }
                while (ps > 0 && eb[cpos[ps - 1]] > eb[l]) {
                    cpos[ps] = cpos[ps - 1];
                    --ps;
                }
                cpos[ps] = l;
            }
            double cval[MAX_CAND];
            for (size_t a = 0; a < nc; ++a) {
                cand[a] = gown[cpos[a]];
                cval[a] = cb[cpos[a]];
            }
            double Q[MAX_CAND * MAX_CAND], cc[MAX_CAND], x[MAX_CAND];
            size_t n = nc;
            for (int pass = 0; pass < 2; ++pass) {
                for (size_t a = 0; a < n; ++a) {
                    cc[a] = cval[a];
                    for (size_t b = a; b < n; ++b)
                        Q[a * n + b] = Q[b * n + a] = skfi_sym10(G + (cand[a] * B + cand[b]) * 10, m10);
                }
                /* the first solve starts from the vertex's previous support
                 * (its slots still hold the previous weights) */
                bool st0[MAX_CAND];
                for (size_t a = 0; a < n && pass == 0 && warm; ++a) {
                    st0[a] = false;
                    for (size_t k = 0; k < K; ++k)
                        st0[a] |= w[j * K + k] > 0 && wb[j * K + k] == cand[a];
                }
                ++solves;
                at_cap += skf_nnls_simplex_start(n, Q, cc, pass == 0 && warm ? st0 : NULL, x) >=
                          (int)(4 * n + 16);
                size_t nnz = 0;
                for (size_t a = 0; a < n; ++a)
                    nnz += x[a] > 0;
                if (nnz <= K)
                    break;
                /* keep the K largest and re-solve on them */
                size_t keep[MAX_CAND];
                for (size_t a = 0; a < n; ++a)
                    keep[a] = a;
                for (size_t a = 1; a < n; ++a)
                    for (size_t b = a; b > 0 && x[keep[b]] > x[keep[b - 1]]; --b) {
                        size_t t = keep[b];
                        keep[b] = keep[b - 1];
                        keep[b - 1] = t;
                    }
                size_t nk[MAX_CAND];
                double nv[MAX_CAND];
                for (size_t a = 0; a < K; ++a) {
                    nk[a] = cand[keep[a]];
                    nv[a] = cval[keep[a]];
                }
                memcpy(cand, nk, K * sizeof *cand);
                memcpy(cval, nv, K * sizeof *cval);
                n = K;
            }
            /* Write the K slots, sorted descending, zeros padded. */
            uint32_t *ob = wb + j * K;
            double *ow = w + j * K;
            if (beta > 0 && relax_weights(n, cand, K, ob, ow, beta, x))
                ++relaxed;
            for (size_t k = 0; k < K; ++k) {
                ob[k] = 0;
                ow[k] = 0;
            }
            size_t filled = 0;
            for (size_t a = 0; a < n; ++a) {
                if (!(x[a] > 0))
                    continue;
                size_t pos = filled < K ? filled++ : K;
                if (pos == K) {
                    if (x[a] <= ow[K - 1])
                        continue;
                    pos = K - 1;
                }
                while (pos > 0 && ow[pos - 1] < x[a]) {
                    ow[pos] = ow[pos - 1];
                    ob[pos] = ob[pos - 1];
                    --pos;
                }
                ow[pos] = x[a];
                ob[pos] = (uint32_t)cand[a];
            }
            double s = 0;
            for (size_t k = 0; k < K; ++k)
                s += ow[k];
            if (s > 0)
                for (size_t k = 0; k < K; ++k)
                    ow[k] /= s;
            else {
                ow[0] = 1;
                ob[0] = (uint32_t)cand[0];
            }
          }
            if (pa) {
                /* The transform step's moments of this block with its new
                 * weights, C_fi += Σ_j w_ij (u_fj − o)[v_j − o; 1]ᵀ: one
                 * product Rm (4nb × 3F) = Amᵀ · ublk over the bones the block's
                 * weights use, Am[j][4l + a] = w_ij [v_j − o; 1]_a. */
                size_t nb = 0;
                ++stamp2;
                for (size_t vv = 0; vv < ns; ++vv)
                    for (size_t k = 0; k < K; ++k) {
                        uint32_t b = wb[(s0 + vv) * K + k];
                        if (w[(s0 + vv) * K + k] > 0 && mark2[b] != stamp2) {
                            mark2[b] = stamp2;
                            pos[b] = nb;
                            list[nb++] = b;
                        }
                    }
                size_t m4 = 4 * nb;
                memset(Am, 0, ns * m4 * sizeof *Am);
                for (size_t vv = 0; vv < ns; ++vv) {
                    const double *v = c->rest + 3 * (s0 + vv);
                    double vt[4] = {v[0] - o[0], v[1] - o[1], v[2] - o[2], 1};
                    for (size_t k = 0; k < K; ++k) {
                        double wk = w[(s0 + vv) * K + k];
                        if (!(wk > 0))
                            continue;
                        double *a = Am + vv * m4 + 4 * pos[wb[(s0 + vv) * K + k]];
                        for (int q = 0; q < 4; ++q)
                            a[q] = wk * vt[q];
                    }
                }
                cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)m4, (int)D, (int)ns, 1.0,
                            Am, (int)m4, ub, (int)D, 0.0, R, (int)D);
                for (size_t l = 0; l < nb; ++l) {
                    size_t b = list[l];
                    double *Cb = pa->C + b * accn;
                    if (fb && !pa->used[b]) {
                        /* the first block of the partition that touches
                         * the bone: its sums are this block's (0 + x = x,
                         * up to the sign of a zero, which the partitions'
                         * sum from +0 below removes) */
                        pa->used[b] = 1;
                        memcpy(Cb, R + 4 * l * D, 4 * D * sizeof *Cb);
                        continue;
                    }
                    if (!pa->used[b]) {
                        pa->used[b] = 1;
                        memset(Cb, 0, accn * sizeof *Cb);
                    }
                    if (fb) {
                        /* in the basis: expanded to frames once per call */
                        for (size_t e = 0; e < 4 * D; ++e)
                            Cb[e] += R[4 * l * D + e];
                        continue;
                    }
                    for (int a = 0; a < 4; ++a) {
                        const double *Ra = R + (4 * l + (size_t)a) * F3;
                        for (size_t f = 0; f < F; ++f)
                            for (int r = 0; r < 3; ++r)
                                Cb[f * 12 + (size_t)a * 3 + (size_t)r] += Ra[3 * f + (size_t)r];
                    }
                }
            }
          }
            pcost[part] = item_cpu(timed) - pt0;
            items += pcost[part];
        }
        double te = thread_cpu();
        outside_items(te - t0, items, &ovmax);
        region_cpu(te - t0, &rsum, &rmax);
        skf_free(cb);
        skf_free(eb);
        skf_free(list);
        skf_free(own);
        skf_free(pos);
        skf_free(mark);
        skf_free(mark2);
    }
    loop_wall += omp_get_wtime() - lw;
    loop_cpu_sum += rsum;
    loop_cpu_max += rmax;
    rsum = rmax = 0;
    if (!failed) {
        loop_sched += list_makespan(pcost, order, NP, nt) + ovmax;
        ovmax = 0;
        memcpy(ar->cost, pcost, NP * sizeof *pcost);
        ar->nparts = NP;
    }
    if (acc && !failed) {
        /* partitions summed in their fixed order */
        /* (bones in parallel: each bone's sums are one thread's, still in
         * partition order) */
        lw = omp_get_wtime();
        double *RB = fb ? P + D * B4 : NULL; /* 4B × D */
        double ccost[NCB];
#pragma omp parallel
        {
            double t0 = thread_cpu(), items = 0;
            /* with a basis: a bone's sums in it (4 × D, rows 4b.. of RB),
             * then in frames for fixed blocks of frames, all bones in one
             * product (4B × 3·nf) = RB · rows_o[:, frames] (rows_o read
             * once, not once per bone) */
            /* the thread's slice of the arena, after its H and Am */
            double *cf = fb ? Tall + F3 * B4 + extra + NP * B * accn +
                                  (size_t)omp_get_thread_num() * per_thread + per_thread - cf_n
                            : NULL;
#pragma omp for schedule(static) nowait
            for (long long bl = 0; bl < (long long)B; ++bl) {
                size_t b = (size_t)bl;
                if (fb) {
                    double *rb = RB + 4 * b * D;
                    memset(rb, 0, 4 * D * sizeof *rb);
                    for (size_t p = 0; p < NP; ++p)
                        if (acc[p].used[b])
                            for (size_t e = 0; e < 4 * D; ++e)
                                rb[e] += acc[p].C[b * accn + e];
                    continue;
                }
                for (size_t f = 0; f < F; ++f)
                    memset(moments + (f * B + b) * 12, 0, 12 * sizeof *moments);
                for (size_t p = 0; p < NP; ++p)
                    if (acc[p].used[b])
                        for (size_t f = 0; f < F; ++f)
                            for (int e = 0; e < 12; ++e)
                                moments[(f * B + b) * 12 + (size_t)e] +=
                                    acc[p].C[(b * F + f) * 12 + (size_t)e];
            }
            if (fb) {
                phase_end(timed, &t0, &rsum, &rmax, &loop_cpu_sum, &loop_cpu_max, &loop_sched);
#pragma omp for schedule(dynamic, 1) nowait
                for (long long cbl = 0; cbl < (long long)ncb; ++cbl) {
                    size_t f0 = (size_t)cbl * F / ncb, f1 = ((size_t)cbl + 1) * F / ncb;
                    size_t nf3 = 3 * (f1 - f0);
                    double tc = item_cpu(timed);
                    ccost[cbl] = 0;
                    if (!cf || !nf3)
                        continue;
                    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)B4, (int)nf3, (int)D,
                                1.0, RB, (int)D, rows_o + 3 * f0, (int)F3, 0.0, cf, (int)nf3);
                    for (size_t f = f0; f < f1; ++f)
                        for (size_t b = 0; b < B; ++b)
                            for (size_t a = 0; a < 4; ++a)
                                for (size_t r = 0; r < 3; ++r)
                                    moments[(f * B + b) * 12 + a * 3 + r] =
                                        cf[(4 * b + a) * nf3 + 3 * (f - f0) + r];
                    ccost[cbl] = item_cpu(timed) - tc;
                    items += ccost[cbl];
                }
            }
            double te = thread_cpu();
            if (fb)
                outside_items(te - t0, items, &ovmax);
            region_cpu(te - t0, &rsum, &rmax);
        }
        loop_wall += omp_get_wtime() - lw;
        loop_cpu_sum += rsum;
        loop_cpu_max += rmax;
        /* with a basis the region's last phase is the dynamic frame blocks,
         * without it the static loop over bones */
        loop_sched += fb ? list_makespan(ccost, NULL, ncb, nt) + ovmax : rmax;
    }
    if (c->loop_seconds) {
        c->loop_seconds[0] += loop_wall;
        c->loop_seconds[1] += loop_cpu_sum;
        c->loop_seconds[2] += loop_cpu_max;
        c->loop_seconds[3] += loop_sched;
    }
    for (size_t p = 0; acc && p < NP; ++p)
        skf_free(acc[p].used);
    skf_free(acc);
    if (ar == &local)
        skf_free(local.mem);
    skf_free(G);
    skf_free(kv);
    skf_free(old_wb);
    skf_free(old_w);
    if (c->nnls_solves)
        *c->nnls_solves += solves;
    if (c->nnls_at_cap)
        *c->nnls_at_cap += at_cap;
    if (c->relaxed)
        *c->relaxed += relaxed;
    if (failed)
        return skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory in the weight solve");
    return SKF_OK;
}

typedef struct pos_key {
    double x, y, z;
    uint32_t j;
} pos_key;

static int cmp_pos(const void *pa, const void *pb)
{
    const pos_key *a = pa, *b = pb;
    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    if (a->y != b->y)
        return a->y < b->y ? -1 : 1;
    if (a->z != b->z)
        return a->z < b->z ? -1 : 1;
    return a->j < b->j ? -1 : a->j > b->j;
}

bool skfi_decompose_adjacency(size_t N, size_t T, const uint32_t *tris, const double *rest, size_t **off_out,
                  uint32_t **adj_out, uint32_t **rep_out)
{
    *off_out = NULL;
    *adj_out = NULL;
    *rep_out = NULL;
    size_t *off = skf_calloc(N + 1, sizeof *off);
    size_t *fill = skf_malloc_array(N + 1, sizeof *fill);
    uint32_t *adj = skf_malloc_array(6 * T + 1, sizeof *adj);
    uint32_t *rep = skf_malloc_array(N, sizeof *rep);
    pos_key *keys = skf_malloc_array(N, sizeof *keys);
    if (!off || !fill || !adj || !rep || !keys) {
        skf_free(off);
        skf_free(fill);
        skf_free(adj);
        skf_free(rep);
        skf_free(keys);
        return false;
    }
    /* Vertices at the same rest position (seams split by UVs or normals)
     * share one representative, so the adjacency crosses the seams. */
    for (size_t j = 0; j < N; ++j)
        keys[j] = (pos_key){rest[3 * j], rest[3 * j + 1], rest[3 * j + 2], (uint32_t)j};
    qsort(keys, N, sizeof *keys, cmp_pos);
    for (size_t k = 0; k < N; ++k)
        rep[keys[k].j] = k > 0 && keys[k].x == keys[k - 1].x && keys[k].y == keys[k - 1].y &&
                                 keys[k].z == keys[k - 1].z
                             ? rep[keys[k - 1].j]
                             : keys[k].j;
    skf_free(keys);
    for (size_t t = 0; t < T; ++t)
        for (int e = 0; e < 3; ++e)
            off[rep[tris[3 * t + (size_t)e]] + 1] += 2;
    for (size_t j = 0; j < N; ++j)
        off[j + 1] += off[j];
    memcpy(fill, off, (N + 1) * sizeof *fill);
    for (size_t t = 0; t < T; ++t)
        for (int e = 0; e < 3; ++e) {
            uint32_t a = rep[tris[3 * t + (size_t)e]], b = rep[tris[3 * t + (size_t)(e + 1) % 3]],
                     c = rep[tris[3 * t + (size_t)(e + 2) % 3]];
            adj[fill[a]++] = b;
            adj[fill[a]++] = c;
        }
    /* sort each list (insertion: lists are short) and drop duplicates */
    size_t n = 0;
    for (size_t j = 0; j < N; ++j) {
        size_t a0 = off[j], a1 = off[j + 1], start = n;
        for (size_t a = a0 + 1; a < a1; ++a)
            for (size_t b = a; b > a0 && adj[b] < adj[b - 1]; --b) {
                uint32_t x = adj[b];
                adj[b] = adj[b - 1];
                adj[b - 1] = x;
            }
        for (size_t a = a0; a < a1; ++a)
            if ((a == a0 || adj[a] != adj[a - 1]) && adj[a] != j)
                adj[n++] = adj[a];
        off[j] = start;
    }
    off[N] = n;
    skf_free(fill);
    *off_out = off;
    *adj_out = adj;
    *rep_out = rep;
    return true;
}
