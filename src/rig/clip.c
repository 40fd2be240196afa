/* Animation clips: extraction from glTF and keyframe interpolation per the
 * glTF 2.0 specification, Appendix C "Animation Sampler Interpolation Modes":
 *   STEP        v_k for t_k <= t < t_k+1
 *   LINEAR      (1-s) v_k + s v_k+1, rotations slerped along the shortest arc
 *   CUBICSPLINE Hermite spline with tangents scaled by td = t_k+1 - t_k:
 *     p(s) = (2s^3-3s^2+1) v_k + td (s^3-2s^2+s) b_k + (-2s^3+3s^2) v_k+1 + td (s^3-s^2) a_k+1
 *     (b_k out-tangent of key k, a_k+1 in-tangent of key k+1), rotations normalised.
 * Outside the key range the first / last value holds (clamping).
 */
#include "skinfit/rig.h"
#include "skinfit/math.h"

#include <math.h>
#include <string.h>

const char *skf_clip_short_name(const char *name)
{
    const char *bar = name ? strrchr(name, '|') : NULL;
    return bar ? bar + 1 : name;
}

/* Largest k with t[k] <= x, given t[0] <= x < t[n-1]. */
static size_t find_key(const double *t, size_t n, double x)
{
    size_t lo = 0, hi = n - 1; /* invariant: t[lo] <= x < t[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (t[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

void skf_clip_channel_eval(const skf_clip_channel *ch, double t, double *out)
{
    size_t w = ch->width, K = ch->key_count;
    bool cubic = ch->interpolation == SKF_INTERP_CUBICSPLINE;
    size_t stride = cubic ? 3 * w : w, voff = cubic ? w : 0;
    const double *v = ch->values;
    if (K == 1 || t <= ch->times[0]) {
        memcpy(out, v + voff, w * sizeof *out);
        return;
    }
    if (t >= ch->times[K - 1]) {
        memcpy(out, v + (K - 1) * stride + voff, w * sizeof *out);
        return;
    }
    size_t k = find_key(ch->times, K, t);
    double t0 = ch->times[k], t1 = ch->times[k + 1], td = t1 - t0;
    const double *a = v + k * stride + voff, *b = v + (k + 1) * stride + voff;
    if (ch->interpolation == SKF_INTERP_STEP) {
        memcpy(out, a, w * sizeof *out);
        return;
    }
    double s = (t - t0) / td; /* td > 0: t0 <= t < t1 */
    if (ch->interpolation == SKF_INTERP_LINEAR) {
        if (ch->path == SKF_PATH_ROTATION) {
            skf_quat_slerp(out, a, b, s);
        } else {
            for (size_t c = 0; c < w; ++c)
                out[c] = (1 - s) * a[c] + s * b[c];
        }
        return;
    }
    /* CUBICSPLINE: out-tangent of k follows its value, in-tangent of k+1
     * precedes its value. */
    const double *bk = a + w, *ak1 = b - w;
    double s2 = s * s, s3 = s2 * s;
    double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;
    for (size_t c = 0; c < w; ++c)
        out[c] = h00 * a[c] + h10 * td * bk[c] + h01 * b[c] + h11 * td * ak1[c];
    if (ch->path == SKF_PATH_ROTATION)
        skf_quat_normalize(out);
}

double skf_clip_frame_fps(const skf_clip *clip, double fps)
{
    if (fps > 0)
        return fps;
    return clip->key_rate > 0 ? clip->key_rate : 30.0;
}

/* The frame count as a real number (not clamped): may exceed any size_t. */
static double frame_count_real(const skf_clip *clip, double fps)
{
    fps = skf_clip_frame_fps(clip, fps);
    /* Key times are float32 in glTF: an end meant to land on a frame may fall
     * short by a few ulps, hence the tolerance (1e-6 s, or 1e-6 relative). */
    double tol = fmax(1e-6, 1e-6 * fabs(clip->end));
    double n = floor((clip->duration + tol) * fps);
    return n >= 0 ? n + 1 : 1;
}

size_t skf_clip_frame_count(const skf_clip *clip, double fps)
{
    double n = frame_count_real(clip, fps);
    /* Clamped at the frames limit's ceiling only, so the count stays exact
     * below it; skf_clip_frames compares the real count with the limit. */
    size_t ceiling = skf_limit_get_info(SKF_LIMIT_FRAMES).max_value;
    if (!(n < (double)ceiling))
        return ceiling;
    return (size_t)n;
}

skf_status skf_clip_frames(const skf_clip *clip, double fps, const skf_limits *limits, size_t *frames,
                           double *fps_out, skf_error *err)
{
    *fps_out = skf_clip_frame_fps(clip, fps);
    *frames = 0;
    if (!isfinite(*fps_out))
        return skf_fail(err, SKF_ERR_LIMIT, "%.6g s at %.6g fps: frames exceed %s", clip->duration, *fps_out,
                        skf_limits_exceeded(limits, SKF_LIMIT_FRAMES).text);
    /* the real count in the message: a clamped one (2147483648 for 3e31
     * frames) would be a wrong number */
    double real = frame_count_real(clip, *fps_out);
    if (real > (double)skf_limits_value(limits, SKF_LIMIT_FRAMES)) {
        if (real < 9007199254740992.0) /* 2^53: printed exactly */
            return skf_fail(err, SKF_ERR_LIMIT, "%.0f frames at %.6g fps exceed %s", real, *fps_out,
                            skf_limits_exceeded(limits, SKF_LIMIT_FRAMES).text);
        return skf_fail(err, SKF_ERR_LIMIT, "%.3g frames at %.6g fps exceed %s", real, *fps_out,
                        skf_limits_exceeded(limits, SKF_LIMIT_FRAMES).text);
    }
    *frames = skf_clip_frame_count(clip, *fps_out);
    return SKF_OK;
}
