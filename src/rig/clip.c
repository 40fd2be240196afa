/* Animation clips: extraction from glTF and keyframe interpolation per the
 * glTF 2.0 specification, Appendix C "Animation Sampler Interpolation Modes":
 *   STEP        v_k for t_k <= t < t_k+1
 *   LINEAR      (1-s) v_k + s v_k+1, rotations slerped along the shortest arc
 *   CUBICSPLINE Hermite spline with tangents scaled by td = t_k+1 - t_k:
 *     p(s) = (2s^3-3s^2+1) v_k + td (s^3-2s^2+s) b_k + (-2s^3+3s^2) v_k+1 + td (s^3-s^2) a_k+1
 *     (b_k out-tangent of key k, a_k+1 in-tangent of key k+1), rotations normalised.
 * Outside the key range the first / last value holds (clamping).
 */
#include "skinfit/lbs.h"
#include "skinfit/math.h"

#include <math.h>
#include <string.h>

void skf_clip_free(skf_clip *clip)
{
    if (!clip)
        return;
    for (size_t i = 0; i < clip->channel_count; ++i) {
        skf_free(clip->channels[i].times);
        skf_free(clip->channels[i].values);
    }
    skf_free(clip->channels);
    skf_free(clip->name);
    skf_free(clip);
}

static size_t node_target_count(const skf_gltf *doc, int node)
{
    int m = doc->nodes[node].mesh;
    if (m < 0 || (size_t)m >= doc->mesh_count || !doc->meshes[m].primitive_count)
        return 0;
    return doc->meshes[m].primitives[0].target_count;
}

skf_status skf_clip_from_gltf(const skf_gltf *doc, int animation, skf_clip **out, skf_error *err)
{
    const char *path = doc->path ? doc->path : "glTF";
    *out = NULL;
    if (animation < 0 || (size_t)animation >= doc->animation_count)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: animation %d out of range (%zu animations)", path,
                        animation, doc->animation_count);
    const skf_gltf_animation *an = &doc->animations[animation];
    skf_clip *c = skf_calloc(1, sizeof *c);
    if (!c)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
    skf_status st = SKF_OK;
    if (an->name && !(c->name = skf_strdup(an->name)))
        st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
    if (!st && an->channel_count &&
        !(c->channels = skf_calloc(an->channel_count, sizeof *c->channels)))
        st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
    c->start = INFINITY;
    c->end = -INFINITY;
    double best_span = 0;
    for (size_t i = 0; !st && i < an->channel_count; ++i) {
        const skf_gltf_channel *ch = &an->channels[i];
        if (ch->node < 0 || (size_t)ch->node >= doc->node_count)
            continue;
        if (ch->sampler < 0 || (size_t)ch->sampler >= an->sampler_count) {
            st = skf_fail(err, SKF_ERR_FORMAT, "%s: animations[%d].channels[%zu].sampler: %d out of range",
                          path, animation, i, ch->sampler);
            break;
        }
        const skf_gltf_sampler *sm = &an->samplers[ch->sampler];
        const skf_gltf_accessor *in = &doc->accessors[sm->input], *ou = &doc->accessors[sm->output];
        size_t K = in->count;
        if (in->components != 1 || K == 0) {
            st = skf_fail(err, SKF_ERR_FORMAT,
                          "%s: animations[%d].samplers[%d].input: needs >= 1 SCALAR key times", path,
                          animation, ch->sampler);
            break;
        }
        size_t per = sm->interpolation == SKF_INTERP_CUBICSPLINE ? 3 : 1;
        size_t width;
        if (ch->path == SKF_PATH_WEIGHTS) {
            width = node_target_count(doc, ch->node);
            if (ou->components != 1 || width == 0 || ou->count != K * per * width) {
                st = skf_fail(err, SKF_ERR_FORMAT,
                              "%s: animations[%d].samplers[%d].output: %zu values, expected %zu keys × %zu × %zu morph targets of nodes[%d]",
                              path, animation, ch->sampler, ou->count, K, per, width, ch->node);
                break;
            }
        } else {
            width = ch->path == SKF_PATH_ROTATION ? 4 : 3;
            if ((size_t)ou->components != width || ou->count != K * per) {
                st = skf_fail(err, SKF_ERR_FORMAT,
                              "%s: animations[%d].samplers[%d].output: %zu elements of %d components, expected %zu of %zu",
                              path, animation, ch->sampler, ou->count, ou->components, K * per, width);
                break;
            }
        }
        skf_clip_channel *d = &c->channels[c->channel_count];
        d->node = ch->node;
        d->path = ch->path;
        d->interpolation = sm->interpolation;
        d->key_count = K;
        d->width = width;
        d->times = skf_malloc_array(K, sizeof *d->times);
        d->values = skf_malloc_array(K * per * width, sizeof *d->values);
        if (!d->times || !d->values) {
            skf_free(d->times);
            skf_free(d->values);
            st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
            break;
        }
        ++c->channel_count;
        if ((st = skf_gltf_accessor_read(doc, sm->input, d->times, true, err)) ||
            (st = skf_gltf_accessor_read(doc, sm->output, d->values, true, err)))
            break;
        for (size_t k = 1; k < K; ++k)
            if (d->times[k] < d->times[k - 1]) {
                st = skf_fail(err, SKF_ERR_FORMAT,
                              "%s: animations[%d].samplers[%d].input: key %zu time %g decreases (previous %g)",
                              path, animation, ch->sampler, k, d->times[k], d->times[k - 1]);
                break;
            }
        if (st)
            break;
        c->start = fmin(c->start, d->times[0]);
        c->end = fmax(c->end, d->times[K - 1]);
        c->total_keys += K;
        double span = d->times[K - 1] - d->times[0];
        if (K > c->max_keys || (K == c->max_keys && span > best_span)) {
            c->max_keys = K;
            best_span = span;
            c->key_rate = span > 0 ? (double)(K - 1) / span : 0;
        }
    }
    if (st) {
        skf_clip_free(c);
        return st;
    }
    if (c->channel_count == 0)
        c->start = c->end = 0;
    c->duration = c->end - c->start;
    *out = c;
    return SKF_OK;
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

size_t skf_clip_frame_count(const skf_clip *clip, double fps)
{
    fps = skf_clip_frame_fps(clip, fps);
    double n = floor((clip->duration + 1e-9) * fps);
    if (!(n >= 0))
        return 1;
    if (n >= (double)SKF_MESHSEQ_MAX_FRAMES)
        return SKF_MESHSEQ_MAX_FRAMES;
    return (size_t)n + 1;
}
