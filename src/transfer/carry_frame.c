/* The carrying frame of the other-shape path: a robust similarity between
 * the target's rest surface and the source's, fitted to the registered
 * correspondences.
 *
 * References: Umeyama, "Least-squares estimation of transformation
 * parameters between two point patterns" (PAMI 1991) — the weighted
 * similarity of each step, the alignment's own (skf_similarity_fit,
 * src/surface/align.c); Rousseeuw & Van Driessen, "Computing LTS regression
 * for large data sets" (Data Mining and Knowledge Discovery 12, 2006) — least
 * trimmed squares by concentration steps ("C-steps"): fit the kept pairs,
 * keep the pairs with the smallest residuals under that fit, refit; no step
 * increases the trimmed sum of squares, so the kept set stops changing.
 *
 * Why: deformation transfer takes each source triangle's gradient Q into the
 * target as L⁻¹ Q L and maps the anchors' displacements by the inverse
 * similarity, with L the similarity's linear part. The alignment's ICP
 * (align.c) fits every closest pair of the two rest surfaces, so a part that
 * sits differently at rest — a lower leg bent by 40° — pulls the whole frame
 * (creature, front knee bent 40°: 2.9° of rotation, 1 % of scale) and every
 * carried gradient turns by that much. After the non-rigid registration each
 * target vertex has its source point; the bent leg's pairs are then the
 * outliers of one similarity, and the trimmed fit ignores them.
 *
 * When it is used: only when the kept pairs agree with one similarity —
 * trimmed RMS ≤ SKFI_CARRY_FRAME_MAX_RMS of the source diagonal: the same
 * body with a part posed differently. Where the proportions differ all over
 * (legs ±25 %, girth ±30 %, another animal) no similarity fits three
 * quarters of the surface (trimmed RMS 0.5–1.6 % of the diagonal on the
 * creature variants, 0.8–0.9 % on Fox↔Wolf and Horse→Deer), the subset the
 * trimming keeps is arbitrary and its rotation is no better than the
 * alignment's fit of everything (legs −25 % / neck +30 %: 1.7° off the true
 * frame against the alignment's 0.5°), so the alignment's similarity stays.
 * Measured (docs/transfer.md "Carrying frame"): front knee bent 40°, trimmed
 * RMS 0.02 %, the refit 0.009° from the true frame (the alignment 2.9°).
 */
#include "skinfit/math.h"
#include "skinfit/surface.h"

#include "transfer_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct pair_res {
    double r2;
    uint32_t v;
} pair_res;

static int cmp_res(const void *a, const void *b)
{
    const pair_res *x = a, *y = b;
    if (x->r2 != y->r2)
        return x->r2 < y->r2 ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}

skf_status skfi_carry_similarity(const double *target_rest, size_t nt, const uint32_t *triangles,
                                 size_t triangle_count, const double *source_rest, const skf_registration *reg,
                                 const double start[16], double diagonal, skfi_carry_frame *out, skf_error *err)
{
    memset(out, 0, sizeof *out);
    memcpy(out->target_to_source, start, 16 * sizeof(double));
    double *q = skf_malloc_array(3 * nt + 1, sizeof(double));
    double *w = skf_calloc(nt + 1, sizeof(double));
    bool *kept = skf_malloc_array(nt + 1, sizeof(bool));
    bool *prev = skf_malloc_array(nt + 1, sizeof(bool));
    pair_res *res = skf_malloc_array(nt + 1, sizeof(pair_res));
    double *wk = skf_calloc(nt + 1, sizeof(double)); /* w on the kept pairs, 0 elsewhere */
    skf_status st = SKF_OK;
    if (!q || !w || !kept || !prev || !res || !wk) {
        st = skf_fail(err, SKF_ERR_NOMEM, "carrying frame: %zu vertices: out of memory", nt);
        goto done;
    }
    /* weights: a third of each incident triangle's rest area, matched vertices only */
    for (size_t t = 0; t < triangle_count; ++t) {
        const uint32_t *f = triangles + 3 * t;
        double e1[3], e2[3], c[3];
        for (int a = 0; a < 3; ++a) {
            e1[a] = target_rest[3 * (size_t)f[1] + a] - target_rest[3 * (size_t)f[0] + a];
            e2[a] = target_rest[3 * (size_t)f[2] + a] - target_rest[3 * (size_t)f[0] + a];
        }
        skf_cross3(c, e1, e2);
        double a3 = skf_norm3(c) / 6;
        for (int k = 0; k < 3; ++k)
            w[f[k]] += a3;
    }
    size_t nm = 0;
    double total = 0;
    for (size_t v = 0; v < nt; ++v) {
        double *qv = q + 3 * v;
        qv[0] = qv[1] = qv[2] = 0;
        for (int k = 0; k < 3; ++k)
            for (int a = 0; a < 3; ++a)
                qv[a] += reg->bary[3 * v + (size_t)k] * source_rest[3 * (size_t)reg->source_vertex[3 * v + (size_t)k] + a];
        if (!reg->matched[v])
            w[v] = 0;
        if (w[v] > 0)
            res[nm++].v = (uint32_t)v, total += w[v];
        kept[v] = false;
    }
    if (nm < 4 || !(total > 0))
        goto done; /* nothing to fit: the alignment's similarity stays */
    double m[16];
    memcpy(m, start, sizeof m);
    for (int it = 0; it < SKFI_CARRY_FRAME_MAX_STEPS; ++it) {
        /* residuals under the current fit, the smallest kept up to the area fraction */
        for (size_t k = 0; k < nm; ++k) {
            uint32_t v = res[k].v;
            double y[3];
            skf_mat4_transform_point(y, m, target_rest + 3 * (size_t)v);
            double d[3] = {y[0] - q[3 * v], y[1] - q[3 * v + 1], y[2] - q[3 * v + 2]};
            res[k].r2 = skf_dot3(d, d);
        }
        qsort(res, nm, sizeof *res, cmp_res);
        memcpy(prev, kept, nt * sizeof(bool));
        memset(kept, 0, nt * sizeof(bool));
        double acc = 0, trimmed = 0;
        for (size_t k = 0; k < nm && acc < SKFI_CARRY_FRAME_KEEP * total; ++k) {
            kept[res[k].v] = true;
            acc += w[res[k].v];
            trimmed += w[res[k].v] * res[k].r2;
        }
        out->trimmed_rms = sqrt(trimmed / acc);
        out->steps = it + 1;
        if (it > 0 && !memcmp(prev, kept, nt * sizeof(bool)))
            break;
        double mn[16];
        for (size_t v = 0; v < nt; ++v)
            wk[v] = kept[v] ? w[v] : 0;
        if (!skf_similarity_fit(target_rest, q, wk, nt, mn))
            break;
        memcpy(m, mn, sizeof m);
    }
    out->refitted = true;
    out->used = out->trimmed_rms <= SKFI_CARRY_FRAME_MAX_RMS * diagonal;
    if (out->used)
        memcpy(out->target_to_source, m, sizeof m);
    /* against the start: scale ratio and the angle of R_start⁻¹ R */
    double inv0[16], d[16];
    skf_mat4_invert_affine(inv0, start);
    skf_mat4_mul(d, m, inv0); /* target-to-source refit after the start's inverse: s R_d */
    double sd = cbrt(fabs(d[0] * (d[5] * d[10] - d[9] * d[6]) - d[4] * (d[1] * d[10] - d[9] * d[2]) +
                          d[8] * (d[1] * d[6] - d[5] * d[2])));
    double tr = sd > 0 ? (d[0] + d[5] + d[10]) / sd : 3;
    out->scale_ratio = sd;
    out->angle_deg = acos(fmax(-1, fmin(1, 0.5 * (tr - 1)))) * 180 / 3.14159265358979323846;
done:
    skf_free(q);
    skf_free(w);
    skf_free(kept);
    skf_free(prev);
    skf_free(res);
    skf_free(wk);
    return st;
}
