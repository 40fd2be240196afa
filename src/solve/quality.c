/* Quality metrics of a fitted clip: per-vertex errors and the clip-level
 * transfer quality.
 *
 * Reference: the transfer-quality measure of docs/solver.md, D7:
 * quality = 1 − Σ_f Σ_j ‖s_fj − u_fj‖ / Σ_f Σ_j min(‖u_fj − r_j‖, D),
 * summed over all constraint vertices of all frames together (a per-frame
 * ratio is unstable near the rest pose); errors as % of the target's rest
 * bounding-box diagonal D. Why the min: without it a clip whose root
 * travels 1e30 scored 100 % with a mean error of 1.6e16 % of D (issue 17
 * §3); crediting each vertex at most D of motion makes quality ≤ 1 − mean
 * error / D, so the two numbers cannot contradict each other. Clips of the
 * data set move their vertices well under D (mean 4 % of D for the
 * animals), where the min changes nothing. skf_vertex_errors is THE per-vertex error routine:
 * reports and the renderer both call it, so the numbers agree.
 */
#include "skinfit/solve.h"

#include <math.h>
#include <string.h>

double skf_vertex_errors(size_t n, const double *s, const double *u, double *errors)
{
    double sum = 0;
    for (size_t j = 0; j < n; ++j) {
        double dx = s[3 * j] - u[3 * j], dy = s[3 * j + 1] - u[3 * j + 1],
               dz = s[3 * j + 2] - u[3 * j + 2];
        double e = sqrt(dx * dx + dy * dy + dz * dz);
        if (errors)
            errors[j] = e;
        sum += e;
    }
    return sum;
}

double skf_bbox_diagonal(size_t n, const double *p)
{
    if (n == 0)
        return 0;
    double lo[3] = {p[0], p[1], p[2]}, hi[3] = {p[0], p[1], p[2]};
    for (size_t j = 1; j < n; ++j)
        for (int k = 0; k < 3; ++k) {
            double v = p[3 * j + k];
            if (v < lo[k])
                lo[k] = v;
            if (v > hi[k])
                hi[k] = v;
        }
    double d[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
    return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

void skf_quality_init(skf_quality_acc *acc, double diagonal)
{
    memset(acc, 0, sizeof *acc);
    acc->diagonal = diagonal;
}

void skf_quality_add_frame(skf_quality_acc *acc, size_t n, const double *s, const double *u,
                           const double *r, double *errors)
{
    for (size_t j = 0; j < n; ++j) {
        double e;
        skf_vertex_errors(1, s + 3 * j, u + 3 * j, &e);
        acc->sum_error += e;
        acc->sum_sq_error += e * e;
        if (e > acc->max_error)
            acc->max_error = e;
        if (errors)
            errors[j] = e;
    }
    double d = acc->diagonal, motion = 0;   /* summed per frame, then added */
    for (size_t j = 0; j < n; ++j) {
        double m;
        skf_vertex_errors(1, u + 3 * j, r + 3 * j, &m);
        motion += d > 0 && !(m <= d) ? d : m;  /* NaN motion counts d too */
    }
    acc->sum_motion += motion;
    acc->count += n;
}

void skf_quality_merge(skf_quality_acc *a, const skf_quality_acc *b)
{
    a->sum_error += b->sum_error;
    a->sum_motion += b->sum_motion;
    a->sum_sq_error += b->sum_sq_error;
    if (b->max_error > a->max_error)
        a->max_error = b->max_error;
    a->count += b->count;
}

skf_quality skf_quality_result(const skf_quality_acc *acc)
{
    skf_quality q;
    memset(&q, 0, sizeof q);
    if (!isfinite(acc->sum_error) || !isfinite(acc->sum_motion))
        q.quality = -HUGE_VAL;
    else if (acc->sum_motion > 0)
        q.quality = 1.0 - acc->sum_error / acc->sum_motion;
    else
        q.quality = acc->sum_error > 0 ? -HUGE_VAL : 1.0;
    if (acc->count > 0) {
        double mean = acc->sum_error / (double)acc->count;
        q.rms = sqrt(acc->sum_sq_error / (double)acc->count);
        if (acc->diagonal > 0) {
            q.mean_error_pct = 100.0 * mean / acc->diagonal;
            q.max_error_pct = 100.0 * acc->max_error / acc->diagonal;
        }
    }
    return q;
}
