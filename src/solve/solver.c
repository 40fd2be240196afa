/* The per-frame bone-transform solver: object lifetime, per-frame driver
 * (start selection, sweeps, residual) and the clip-level loops.
 *
 * Algorithm and references: src/solve/{moments,affine_init,bone_sweep,horn}.c
 * and docs/solver.md. Thread model: a single-frame call parallelises the
 * vertex passes over fixed blocks; a clip call parallelises over fixed chunks
 * of consecutive frames (each chunk starts from the affine solution, later
 * frames warm-start from their predecessor). Both orders of summation are
 * fixed, so results do not depend on the thread count.
 */
#include "solve_internal.h"
#include "solve_counts.h"

#include <math.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

/* solve_counts.h; rotation_only.c bumps its own through skfi_solve_count_rotonly */
static atomic_size_t count_solvers, count_clips, count_frame_sets, count_frames, count_rotonly;

void skfi_solve_count_rotonly(void)
{
    atomic_fetch_add(&count_rotonly, 1);
}

void skfi_solve_counts_get(skfi_solve_counts *out)
{
    out->solvers = atomic_load(&count_solvers);
    out->clips = atomic_load(&count_clips);
    out->frame_sets = atomic_load(&count_frame_sets);
    out->frames = atomic_load(&count_frames);
    out->rotonly_frames = atomic_load(&count_rotonly);
}

static void resolve_options(skf_solve_options *o, const skf_solve_options *in)
{
    memset(o, 0, sizeof *o);
    if (in)
        *o = *in;
    if (!(o->tolerance > 0))
        o->tolerance = 1e-14;
    if (o->max_sweeps <= 0)
        o->max_sweeps = SKF_SOLVE_DEFAULT_MAX_SWEEPS;
    if (!(o->ridge > 0))
        o->ridge = 1e-10;
    if (o->chunk_frames == 0)
        o->chunk_frames = 8;
    if (o->max_iterations <= 0)
        o->max_iterations = SKF_SOLVE_DEFAULT_MAX_ITERATIONS;
    if (o->warmup_sweeps == 0)
        o->warmup_sweeps = SKF_SOLVE_NEWTON_WARMUP;
    else if (o->warmup_sweeps < 0)
        o->warmup_sweeps = 1;
}

skf_status skfi_solve_ws_init(const skf_solver *s, skfi_solve_ws *ws, bool newton)
{
    const size_t B12 = s->B * 12;
    memset(ws, 0, sizeof *ws);
    ws->C = skf_malloc_array(B12, sizeof *ws->C);
    ws->Cblk = skf_malloc_array(s->blocks * B12, sizeof *ws->Cblk);
    ws->sblk = skf_malloc_array(s->blocks, sizeof *ws->sblk);
    ws->Taff = skf_malloc_array(B12, sizeof *ws->Taff);
    ws->rhs = skf_malloc_array(s->B * 12, sizeof *ws->rhs);
    ws->rhs2 = skf_malloc_array(s->B * 12, sizeof *ws->rhs2);
    if (!ws->C || !ws->Cblk || !ws->sblk || !ws->Taff || !ws->rhs || !ws->rhs2) {
        skfi_solve_ws_release(ws);
        return SKF_ERR_NOMEM;
    }
    if (newton && s->nt_enabled) {
        const size_t n = 6 * s->B;
        ws->ntH = skf_malloc_array(n * n, sizeof *ws->ntH);
        ws->nthd = skf_malloc_array(n, sizeof *ws->nthd);
        ws->ntd = skf_malloc_array(n, sizeof *ws->ntd);
        ws->ntD = skf_malloc_array(n, sizeof *ws->ntD);
        ws->ntg = skf_malloc_array(n, sizeof *ws->ntg);
        ws->ntx = skf_malloc_array(n, sizeof *ws->ntx);
        ws->ntG = skf_malloc_array(B12, sizeof *ws->ntG);
        ws->ntY = skf_malloc_array(B12, sizeof *ws->ntY);
        ws->ntC = skf_malloc_array(3 * s->B, sizeof *ws->ntC);
        ws->ntTn = skf_malloc_array(B12, sizeof *ws->ntTn);
        ws->ntDelta = skf_malloc_array(B12, sizeof *ws->ntDelta);
        if (!ws->ntH || !ws->nthd || !ws->ntd || !ws->ntD || !ws->ntg || !ws->ntx || !ws->ntG ||
            !ws->ntY || !ws->ntC || !ws->ntTn || !ws->ntDelta) {
            skfi_solve_ws_release(ws);
            return SKF_ERR_NOMEM;
        }
    }
    return SKF_OK;
}

void skfi_solve_ws_release(skfi_solve_ws *ws)
{
    skf_free(ws->C);
    skf_free(ws->Cblk);
    skf_free(ws->sblk);
    skf_free(ws->Taff);
    skf_free(ws->rhs);
    skf_free(ws->rhs2);
    skf_free(ws->ntH);
    skf_free(ws->nthd);
    skf_free(ws->ntd);
    skf_free(ws->ntD);
    skf_free(ws->ntg);
    skf_free(ws->ntx);
    skf_free(ws->ntG);
    skf_free(ws->ntY);
    skf_free(ws->ntC);
    skf_free(ws->ntTn);
    skf_free(ws->ntDelta);
    memset(ws, 0, sizeof *ws);
}

/* Copy the weights into canonical CSR (zeros dropped, duplicates merged). */
static skf_status set_weights(skf_solver *s, const size_t *offsets, const uint32_t *bone,
                              const double *weight, skf_error *err)
{
    const size_t n = s->n;
    if (!offsets || !bone || !weight)
        return skf_fail(err, SKF_ERR_ARGUMENT, "solver: rig: weights missing");
    if (offsets[0] != 0)
        return skf_fail(err, SKF_ERR_ARGUMENT, "solver: rig: offsets[0] = %zu, expected 0", offsets[0]);
    for (size_t j = 0; j < n; ++j) {
        if (offsets[j + 1] < offsets[j])
            return skf_fail(err, SKF_ERR_ARGUMENT, "solver: rig: vertex %zu: offsets decrease", j);
        if (offsets[j + 1] - offsets[j] > 64)
            return skf_fail(err, SKF_ERR_LIMIT, "solver: rig: vertex %zu: %zu influences (the solver's fixed limit 64)",
                            j, offsets[j + 1] - offsets[j]);
        for (size_t p = offsets[j]; p < offsets[j + 1]; ++p) {
            if (bone[p] >= s->B)
                return skf_fail(err, SKF_ERR_ARGUMENT,
                                "solver: rig: vertex %zu: bone %u out of range (%zu bones)", j,
                                (unsigned)bone[p], s->B);
            if (!isfinite(weight[p]))
                return skf_fail(err, SKF_ERR_ARGUMENT, "solver: rig: vertex %zu: non-finite weight", j);
        }
    }
    const size_t nnz = offsets[n];
    size_t *off = skf_malloc_array(n + 1, sizeof *off);
    uint32_t *bo = skf_malloc_array(nnz ? nnz : 1, sizeof *bo);
    double *we = skf_malloc_array(nnz ? nnz : 1, sizeof *we);
    if (!off || !bo || !we) {
        skf_free(off);
        skf_free(bo);
        skf_free(we);
        return skf_fail(err, SKF_ERR_NOMEM, "solver: rig: out of memory (%zu weights)", nnz);
    }
    size_t m = 0;
    off[0] = 0;
    for (size_t j = 0; j < n; ++j) {
        size_t first = m;
        for (size_t p = offsets[j]; p < offsets[j + 1]; ++p) {
            size_t q = first;
            while (q < m && bo[q] != bone[p])
                ++q;
            if (q < m) {
                we[q] += weight[p];
            } else {
                bo[m] = bone[p];
                we[m++] = weight[p];
            }
        }
        size_t keep = first;
        for (size_t q = first; q < m; ++q)
            if (we[q] != 0) {
                bo[keep] = bo[q];
                we[keep++] = we[q];
            }
        m = keep;
        off[j + 1] = m;
    }
    skf_free(s->offsets);
    skf_free(s->bone);
    skf_free(s->weight);
    s->offsets = off;
    s->bone = bo;
    s->weight = we;
    return SKF_OK;
}

skf_status skf_solver_new(const skf_solve_rig *rig, const skf_solve_options *opt, skf_solver **out,
                          skf_error *err)
{
    *out = NULL;
    if (!rig || !rig->rest)
        return skf_fail(err, SKF_ERR_ARGUMENT, "solver: rig: missing rest positions");
    if (rig->vertex_count == 0 || rig->bone_count == 0)
        return skf_fail(err, SKF_ERR_ARGUMENT, "solver: rig: %zu vertices, %zu bones (need ≥ 1 each)",
                        rig->vertex_count, rig->bone_count);
    const skf_limits *lim = opt ? opt->limits : NULL;
    if (rig->bone_count > skf_limits_value(lim, SKF_LIMIT_BONES))
        return skf_fail(err, SKF_ERR_LIMIT, "solver: rig: %zu bones exceed %s", rig->bone_count,
                        skf_limits_exceeded(lim, SKF_LIMIT_BONES).text);
    if ((uint64_t)rig->vertex_count > ((uint64_t)1 << 40))
        return skf_fail(err, SKF_ERR_LIMIT, "solver: rig: %zu vertices (the solver's fixed limit 2^40)",
                        rig->vertex_count);
    for (size_t j = 0; j < 3 * rig->vertex_count; ++j)
        if (!isfinite(rig->rest[j]))
            return skf_fail(err, SKF_ERR_ARGUMENT, "solver: rig: vertex %zu: non-finite rest position",
                            j / 3);
    skf_solver *s = skf_calloc(1, sizeof *s);
    if (!s)
        return skf_fail(err, SKF_ERR_NOMEM, "solver: out of memory");
    s->n = rig->vertex_count;
    s->B = rig->bone_count;
    resolve_options(&s->opt, opt);
    s->threads = s->opt.threads > 0 ? s->opt.threads : omp_get_max_threads();
    if (s->threads < 1)
        s->threads = 1;
    s->blocks = (s->n + SKF_SOLVE_BLOCK - 1) / SKF_SOLVE_BLOCK;
    s->nt_enabled = s->opt.method == SKF_SOLVE_METHOD_NEWTON && s->B <= SKF_SOLVE_NEWTON_MAX_BONES;
    s->rest = skf_malloc_array(3 * s->n, sizeof *s->rest);
    if (!s->rest) {
        skf_solver_free(s);
        return skf_fail(err, SKF_ERR_NOMEM, "solver: out of memory (%zu vertices)", rig->vertex_count);
    }
    memcpy(s->rest, rig->rest, 3 * s->n * sizeof *s->rest);
    if (rig->vertex_weight) {
        for (size_t j = 0; j < s->n; ++j)
            if (!(rig->vertex_weight[j] >= 0) || !isfinite(rig->vertex_weight[j])) {
                skf_solver_free(s);
                return skf_fail(err, SKF_ERR_ARGUMENT,
                                "solver: rig: vertex %zu: vertex weight %g (need a finite value >= 0)", j,
                                rig->vertex_weight[j]);
            }
        if (!(s->vweight = skf_malloc_array(s->n, sizeof *s->vweight))) {
            skf_solver_free(s);
            return skf_fail(err, SKF_ERR_NOMEM, "solver: out of memory (%zu vertices)", rig->vertex_count);
        }
        memcpy(s->vweight, rig->vertex_weight, s->n * sizeof *s->vweight);
    }
    s->diag = skf_bbox_diagonal(s->n, s->rest);
    /* Centre the coordinates (docs/solver.md, "Centred coordinates"): the
     * moment-form energy tr(T M Tᵀ) − 2 tr(T Cᵀ) + U cancels terms of size
     * |x|², so a rig 2·10⁴ units from the origin lost |x|²·ε to rounding
     * (control mean 6.8e-5 % of the diagonal instead of ~1e-10 %). */
    double lo[3] = {s->rest[0], s->rest[1], s->rest[2]}, hi[3] = {lo[0], lo[1], lo[2]};
    for (size_t j = 1; j < s->n; ++j)
        for (int k = 0; k < 3; ++k) {
            lo[k] = fmin(lo[k], s->rest[3 * j + k]);
            hi[k] = fmax(hi[k], s->rest[3 * j + k]);
        }
    for (int k = 0; k < 3; ++k)
        s->centre[k] = 0.5 * (lo[k] + hi[k]);
    for (size_t j = 0; j < s->n; ++j)
        for (int k = 0; k < 3; ++k)
            s->rest[3 * j + k] -= s->centre[k];
    if (!(s->diag > 0))
        s->diag = 1.0; /* all vertices coincide: any scale will do */
    skf_status st = skf_solver_update_weights(s, rig->offsets, rig->bone, rig->weight, err);
    if (st == SKF_OK && skfi_solve_ws_init(s, &s->ws, true) != SKF_OK)
        st = skf_fail(err, SKF_ERR_NOMEM, "solver: out of memory (workspace)");
    if (st != SKF_OK) {
        skf_solver_free(s);
        return st;
    }
    *out = s;
    atomic_fetch_add(&count_solvers, 1);
    return SKF_OK;
}

skf_status skf_solver_update_weights(skf_solver *s, const size_t *offsets, const uint32_t *bone,
                                     const double *weight, skf_error *err)
{
    skf_status st = set_weights(s, offsets, bone, weight, err);
    if (st == SKF_OK)
        st = skfi_solve_moments(s, err);
    if (st == SKF_OK)
        st = skfi_solve_affine_factor(s, err);
    if (st == SKF_OK)
        st = skfi_solve_newton_setup(s, err);
    return st;
}

void skf_solver_free(skf_solver *s)
{
    if (!s)
        return;
    skf_free(s->rest);
    skf_free(s->offsets);
    skf_free(s->bone);
    skf_free(s->weight);
    skf_free(s->vweight);
    skf_free(s->nb_off);
    skf_free(s->nb_bone);
    skf_free(s->nb_pair);
    skf_free(s->pair_M);
    skf_free(s->self_pair);
    skf_free(s->mu);
    skf_free(s->bm_off);
    skf_free(s->bm_vert);
    skf_free(s->bm_weight);
    skf_free(s->chol);
    skf_free(s->nt_act);
    skf_free(s->nt_first);
    skfi_solve_ws_release(&s->ws);
    skf_free(s);
}

size_t skf_solver_vertex_count(const skf_solver *s) { return s->n; }
size_t skf_solver_bone_count(const skf_solver *s) { return s->B; }
double skf_solver_diagonal(const skf_solver *s) { return s->diag; }
void skf_solver_centre(const skf_solver *s, double centre[3]) { memcpy(centre, s->centre, sizeof s->centre); }
double skf_solver_bone_mass(const skf_solver *s, size_t bone)
{
    return bone < s->B ? s->mu[bone] : 0.0;
}

/* Whether a[0..n) are all finite, by their exponent bits: a double's
 * exponent is all ones exactly for ±inf and NaN, and adding 1 to it then
 * carries into the sign bit. Integer operations on four accumulators: the
 * frames' checks ran at about seven instructions a number (a compare and a
 * branch each) on every call of the decomposition's transform step. */
static bool all_finite(const double *a, size_t n)
{
    const uint64_t exp = 0x7ff0000000000000ULL, one = 0x0010000000000000ULL;
    uint64_t bad[4] = {0, 0, 0, 0}, b;
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int l = 0; l < 4; ++l) {
            memcpy(&b, a + i + l, sizeof b);
            bad[l] |= (b & exp) + one;
        }
    for (; i < n; ++i) {
        memcpy(&b, a + i, sizeof b);
        bad[0] |= (b & exp) + one;
    }
    return !((bad[0] | bad[1] | bad[2] | bad[3]) >> 63);
}

static skf_status check_finite(const double *a, size_t n, size_t stride, const char *what,
                               skf_error *err)
{
    if (all_finite(a, n * stride))
        return SKF_OK;
    for (size_t i = 0; i < n * stride; ++i)
        if (!isfinite(a[i]))
            return skf_fail(err, SKF_ERR_FORMAT, "%s: %s %zu: non-finite value", what,
                            stride == 3 ? "vertex" : "bone", i / stride);
    return SKF_OK;
}

/* T_i's translation += sign · (R_i c − c): sign +1 to centred, −1 back. */
static void shift_centre(const skf_solver *s, double *T, size_t B, bool massless, double sign)
{
    const double *c = s->centre;
    for (size_t i = 0; i < B; ++i) {
        if (!massless && !(s->mu[i] > 0))
            continue;
        double *Ti = T + 12 * i;
        for (int r = 0; r < 3; ++r)
            Ti[9 + r] += sign * (Ti[r] * c[0] + Ti[3 + r] * c[1] + Ti[6 + r] * c[2] - c[r]);
    }
}

void skfi_solve_to_centred(const skf_solver *s, double *T, size_t B, bool massless)
{
    shift_centre(s, T, B, massless, 1.0);
}

void skfi_solve_from_centred(const skf_solver *s, double *T, size_t B, bool massless)
{
    shift_centre(s, T, B, massless, -1.0);
}

/* The per-frame solve. T: in warm start / fallback, out result. Returns
 * false (T untouched) when the target holds a non-finite value: U = Σ‖u‖²
 * is then non-finite, so the check costs nothing extra; the caller finds the
 * vertex for the message. */
static bool solve_one(const skf_solver *s, skfi_solve_ws *ws, const double *target, double *T,
                      skf_solve_start mode, bool parallel, skf_solve_stats *st)
{
    const size_t B12 = s->B * 12;
    /* target NULL: the caller has put the frame's moments in ws->C, ws->U
     * (skf_solver_frames_moments); no residual then */
    if (target)
        skfi_solve_frame_moments(s, ws, target, parallel);
    memset(st, 0, sizeof *st);
    if (!isfinite(ws->U))
        return false;
    skfi_solve_to_centred(s, T, s->B, false);
    double e_warm = HUGE_VAL;
    if (mode == SKF_SOLVE_START_WARM && s->opt.skip_start_energy)
        e_warm = NAN; /* stats only: the warm start is kept whatever it is */
    else if (mode != SKF_SOLVE_START_AFFINE)
        e_warm = skfi_solve_energy(s, ws, T);
    if (mode != SKF_SOLVE_START_WARM) {
        skfi_solve_affine_start(s, ws, T);
        double e_aff = skfi_solve_energy(s, ws, ws->Taff);
        if (mode == SKF_SOLVE_START_AFFINE || e_aff < e_warm || !isfinite(e_warm)) {
            memcpy(T, ws->Taff, B12 * sizeof *T);
            e_warm = e_aff;
            st->used_affine = true;
        }
    }
    st->energy_start = e_warm;
    if (!s->nt_enabled) {
        skfi_solve_sweeps(s, ws, T, st, s->opt.max_sweeps);
    } else {
        /* a few sweeps first: exact data stops here after one (bit-identical
         * to the sweeps method); then Newton; a stalled Newton phase (no
         * damped step lowers E: rounding level) hands back to the sweeps */
        const int warm = s->opt.max_sweeps < s->opt.warmup_sweeps ? s->opt.max_sweeps
                                                                  : s->opt.warmup_sweeps;
        skfi_solve_sweeps(s, ws, T, st, warm);
        /* the work per frame stays bounded by max_sweeps: Newton iterations
         * count against it too (and against max_iterations) */
        int budget = s->opt.max_sweeps - st->sweeps;
        bool newton_bound = budget > s->opt.max_iterations; /* max_iterations is the cap */
        if (newton_bound)
            budget = s->opt.max_iterations;
        if (st->hit_cap && budget > 0) {
            skfi_newton_result nr = skfi_solve_newton(s, ws, T, budget, &st->iterations);
            st->hit_cap = nr == SKF_NEWTON_CAP;
            st->hit_iteration_cap = st->hit_cap && newton_bound;
            if (nr == SKF_NEWTON_STUCK)
                skfi_solve_sweeps(s, ws, T, st, s->opt.max_sweeps - st->sweeps - st->iterations);
        }
    }
    st->energy = skfi_solve_energy(s, ws, T);
    if (s->opt.skip_residual || !target) {
        st->residual = st->rms = NAN;
    } else {
        st->residual = skfi_solve_residual(s, ws, T, target, parallel);
        st->rms = sqrt(st->residual / (double)s->n);
    }
    skfi_solve_from_centred(s, T, s->B, false);
    return true;
}

skf_status skf_solver_frame(skf_solver *s, const double *target, double *transforms,
                            skf_solve_stats *stats, skf_error *err)
{
    atomic_fetch_add(&count_frames, 1);
    skf_status rc = check_finite(transforms, s->B, 12, "warm start", err);
    if (rc != SKF_OK)
        return rc;
    skf_solve_stats st;
    if (!solve_one(s, &s->ws, target, transforms, s->opt.start, s->threads > 1, &st)) {
        rc = check_finite(target, s->n, 3, "frame target", err);
        return rc != SKF_OK ? rc
                            : skf_fail(err, SKF_ERR_FORMAT, "frame target: coordinates too large");
    }
    if (stats)
        *stats = st;
    return SKF_OK;
}

/* Error for frame f whose solve reported a non-finite target. */
static skf_status frame_error(const skf_solver *s, size_t f, const double *target, skf_error *err)
{
    skf_status rc = check_finite(target, s->n, 3, "target", err);
    if (rc == SKF_OK)
        rc = skf_fail(err, SKF_ERR_FORMAT, "target: coordinates too large");
    skf_error_prefix(err, "frame %zu", f);
    skf_error_set_place(err, NULL, NULL, -1, NULL, (int64_t)f);
    return rc;
}

static skfi_solve_ws *make_workspaces(const skf_solver *s, int count)
{
    skfi_solve_ws *ws = skf_calloc((size_t)count, sizeof *ws);
    if (!ws)
        return NULL;
    for (int t = 0; t < count; ++t)
        if (skfi_solve_ws_init(s, &ws[t], true) != SKF_OK) {
            for (int u = 0; u < t; ++u)
                skfi_solve_ws_release(&ws[u]);
            skf_free(ws);
            return NULL;
        }
    return ws;
}

static void free_workspaces(skfi_solve_ws *ws, int count)
{
    for (int t = 0; t < count; ++t)
        skfi_solve_ws_release(&ws[t]);
    skf_free(ws);
}

skf_status skf_solver_clip_window(skf_solver *s, size_t first, size_t count, const double *targets,
                                  const double *start, double *transforms, skf_solve_stats *stats,
                                  const skf_progress *progress, skf_error *err)
{
    if (first == 0)
        atomic_fetch_add(&count_clips, 1);
    if (count == 0)
        return SKF_OK;
    const size_t B12 = s->B * 12, N3 = 3 * s->n;
    skf_status rc = check_finite(start, s->B, 12, "warm start", err);
    if (rc != SKF_OK)
        return rc;
    /* chunks are counted from frame 0 of the clip, so a window sees the
     * chunk boundaries a whole-clip call would */
    const size_t chunk = s->opt.chunk_frames < 0 ? SIZE_MAX : (size_t)s->opt.chunk_frames;
    const size_t end = first + count;
    const size_t first_chunk = first / chunk;
    const size_t nc = (end - 1) / chunk - first_chunk + 1;
    if (first % chunk != 0) {
        rc = check_finite(transforms - B12, s->B, 12, "warm start", err);
        if (rc != SKF_OK)
            return rc;
    }
    size_t bad = SIZE_MAX; /* lowest frame with a non-finite target */
    int nt = s->threads;
    if ((size_t)nt > nc)
        nt = (int)nc;
    double *init = skf_malloc_array(B12, sizeof *init);
    skfi_solve_ws *ws = nt > 1 ? make_workspaces(s, nt) : NULL;
    if (!init || (nt > 1 && !ws)) {
        skf_free(init);
        if (ws)
            free_workspaces(ws, nt);
        return skf_fail(err, SKF_ERR_NOMEM, "solver: clip: out of memory (%d workspaces)", nt);
    }
    memcpy(init, start, B12 * sizeof *init);
    size_t done = 0;
    int cancelled = 0;
    /* A single chunk keeps the vertex passes parallel; several chunks run in
     * parallel themselves (no nesting). */
    const bool inner_parallel = (nc == 1 && s->threads > 1);
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1)
    for (long c = 0; c < (long)nc; ++c) {
        int cancel_now;
#pragma omp atomic read
        cancel_now = cancelled;
        if (cancel_now)
            continue;
        skfi_solve_ws *w = nt > 1 ? &ws[omp_get_thread_num()] : &s->ws;
        size_t g = first_chunk + (size_t)c;
        size_t f0 = c == 0 ? first : g * chunk;
        size_t f1 = g + 1 <= end / chunk ? (g + 1) * chunk : end; /* no overflow: <= end */
        for (size_t f = f0; f < f1; ++f) {
            double *T = transforms + (f - first) * B12;
            skf_solve_start mode = s->opt.start;
            if (f % chunk == 0) {
                memcpy(T, init, B12 * sizeof *T);
                mode = SKF_SOLVE_START_BEST;
            } else {
                memcpy(T, T - B12, B12 * sizeof *T);
            }
            skf_solve_stats st;
            if (!solve_one(s, w, targets + (f - first) * N3, T, mode, inner_parallel, &st)) {
#pragma omp critical(skf_solver_bad)
                if (f < bad)
                    bad = f;
                break;
            }
            if (stats)
                stats[f - first] = st;
        }
        if (progress && progress->report) {
#pragma omp critical(skf_solver_progress)
            {
                done += f1 - f0;
                if (!cancelled && skf_progress_report(progress, (double)done / (double)count, "solve")) {
#pragma omp atomic write
                    cancelled = 1;
                }
            }
        }
    }
    skf_free(init);
    if (ws)
        free_workspaces(ws, nt);
    if (bad != SIZE_MAX)
        return frame_error(s, bad, targets + (bad - first) * N3, err);
    if (cancelled)
        return skf_fail(err, SKF_ERR_CANCELLED, "solver: clip: cancelled");
    return SKF_OK;
}

skf_status skf_solver_clip(skf_solver *s, size_t F, const double *targets, double *transforms,
                           skf_solve_stats *stats, const skf_progress *progress, skf_error *err)
{
    if (F == 0) {
        atomic_fetch_add(&count_clips, 1);
        return SKF_OK;
    }
    /* the clip's start is read before frame 0 overwrites it */
    double *start = skf_malloc_array(s->B * 12, sizeof *start);
    if (!start)
        return skf_fail(err, SKF_ERR_NOMEM, "solver: clip: out of memory");
    memcpy(start, transforms, s->B * 12 * sizeof *start);
    skf_status rc = skf_solver_clip_window(s, 0, F, targets, start, transforms, stats, progress, err);
    skf_free(start);
    return rc;
}

/* F independent frames from targets [F*3N], or (targets NULL) from the
 * caller's moments [F*B*12] and sums of squares [F]. */
static skf_status solve_frames(skf_solver *s, size_t F, const double *targets, const double *moments,
                               const double *sq, double *transforms, skf_solve_stats *stats,
                               skf_error *err)
{
    atomic_fetch_add(&count_frame_sets, 1);
    if (F == 0)
        return SKF_OK;
    const size_t B12 = s->B * 12, N3 = 3 * s->n;
    skf_status rc = SKF_OK;
    size_t bad = SIZE_MAX;
    for (size_t f = 0; rc == SKF_OK && f < F; ++f) {
        rc = check_finite(transforms + f * B12, s->B, 12, "warm start", err);
        if (rc == SKF_OK && !targets)
            rc = check_finite(moments + f * B12, s->B, 12, "moments", err);
        if (rc == SKF_OK && !targets && !isfinite(sq[f]))
            rc = skf_fail(err, SKF_ERR_FORMAT, "moments: non-finite sum of squares");
        if (rc != SKF_OK) {
            skf_error_prefix(err, "frame %zu", f);
            skf_error_set_place(err, NULL, NULL, -1, NULL, (int64_t)f);
        }
    }
    if (rc != SKF_OK)
        return rc;
    int nt = s->threads;
    if ((size_t)nt > F)
        nt = (int)F;
    if (!targets && s->opt.start == SKF_SOLVE_START_WARM && s->opt.skip_start_energy &&
        s->opt.fast_rotation && !s->nt_enabled && skfi_solve_lanes_mode != 1) {
        /* The warm-started moment form (the decomposition's transform
         * step): frames in groups of SKFI_SOLVE_LANES on vector lanes
         * (bone_sweep.c), each frame bit for bit the one-frame path's, so
         * the groups (fixed by frame index) and the threads change no bit. */
        size_t groups = (F + SKFI_SOLVE_LANES - 1) / SKFI_SOLVE_LANES;
        if ((size_t)nt > groups)
            nt = (int)groups;
        int failed = 0;
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
            void *scratch = skf_malloc(skfi_solve_lanes_scratch(s));
            if (!scratch) {
#pragma omp atomic write
                failed = 1;
            }
#pragma omp for schedule(dynamic, 1)
            for (long g = 0; g < (long)groups; ++g) {
                if (!scratch)
                    continue;
                size_t f0 = (size_t)g * SKFI_SOLVE_LANES;
                size_t nl = F - f0 < SKFI_SOLVE_LANES ? F - f0 : SKFI_SOLVE_LANES;
                skfi_solve_sweeps_lanes(s, nl, moments + f0 * B12, sq + f0, transforms + f0 * B12,
                                        stats ? stats + f0 : NULL, scratch);
            }
            skf_free(scratch);
        }
        if (failed)
            return skf_fail(err, SKF_ERR_NOMEM, "solver: frames: out of memory (%d workspaces)", nt);
        return SKF_OK;
    }
    skfi_solve_ws *ws = nt > 1 ? make_workspaces(s, nt) : NULL;
    if (nt > 1 && !ws)
        return skf_fail(err, SKF_ERR_NOMEM, "solver: frames: out of memory (%d workspaces)", nt);
    const bool inner_parallel = (F == 1 && s->threads > 1);
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1)
    for (long f = 0; f < (long)F; ++f) {
        skfi_solve_ws *w = nt > 1 ? &ws[omp_get_thread_num()] : &s->ws;
        if (!targets) {
            memcpy(w->C, moments + (size_t)f * B12, B12 * sizeof *w->C);
            w->U = sq[f];
        }
        skf_solve_stats st;
        if (!solve_one(s, w, targets ? targets + (size_t)f * N3 : NULL,
                       transforms + (size_t)f * B12, s->opt.start, inner_parallel, &st)) {
#pragma omp critical(skf_solver_bad)
            if ((size_t)f < bad)
                bad = (size_t)f;
            continue;
        }
        if (stats)
            stats[f] = st;
    }
    if (ws)
        free_workspaces(ws, nt);
    if (bad != SIZE_MAX)
        return frame_error(s, bad, targets + bad * N3, err);
    return SKF_OK;
}

skf_status skf_solver_frames(skf_solver *s, size_t F, const double *targets, double *transforms,
                             skf_solve_stats *stats, skf_error *err)
{
    return solve_frames(s, F, targets, NULL, NULL, transforms, stats, err);
}

skf_status skf_solver_frames_moments(skf_solver *s, size_t F, const double *moments,
                                     const double *sq, double *transforms, skf_solve_stats *stats,
                                     skf_error *err)
{
    return solve_frames(s, F, NULL, moments, sq, transforms, stats, err);
}
