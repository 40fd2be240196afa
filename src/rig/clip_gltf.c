/* Clip extraction from glTF 2.0 animations (spec §3.11 "Animations"):
 * channels with a target node, their sampler's key times (input) and values
 * (output, normalized integers mapped to floats), validated for counts and
 * increasing times. */
#include "skinfit/rig.h"

#include <math.h>
#include <string.h>

static size_t node_target_count(const skf_gltf *doc, int node)
{
    int m = doc->nodes[node].mesh;
    if (m < 0 || (size_t)m >= doc->mesh_count || !doc->meshes[m].primitive_count)
        return 0;
    return doc->meshes[m].primitives[0].target_count;
}

/* Animation lookup by name (the rules are skinfit's own; Blender's exporter
 * names clips "<Armature>|<Action>"): exact match first, then match of the
 * short names (skf_clip_short_name on either side; the first in file order
 * wins), then a unique match of "_<short name>" at the end of a short name
 * ("Walk" finds "Armature|TRex_Walk"). -1: none, or ambiguous. */
static int find_animation(const skf_gltf *doc, const char *name)
{
    if (!name)
        return -1;
    for (size_t i = 0; i < doc->animation_count; ++i)
        if (doc->animations[i].name && strcmp(doc->animations[i].name, name) == 0)
            return (int)i;
    const char *want = skf_clip_short_name(name);
    for (size_t i = 0; i < doc->animation_count; ++i)
        if (doc->animations[i].name && strcmp(skf_clip_short_name(doc->animations[i].name), want) == 0)
            return (int)i;
    size_t wl = strlen(want);
    int found = -1;
    for (size_t i = 0; i < doc->animation_count; ++i) {
        const char *a = doc->animations[i].name ? skf_clip_short_name(doc->animations[i].name) : "";
        size_t al = strlen(a);
        if (wl && al > wl && a[al - wl - 1] == '_' && strcmp(a + al - wl, want) == 0) {
            if (found >= 0)
                return -1; /* ambiguous */
            found = (int)i;
        }
    }
    return found;
}

int skf_clip_find(const skf_gltf *doc, const char *name, skf_error *err)
{
    int a = find_animation(doc, name);
    if (a >= 0)
        return a;
    const char *path = doc->path ? doc->path : "glTF";
    skf_fail(err, SKF_ERR_ARGUMENT, "%s: animations: no clip named '%s'", path, name ? name : "");
    skf_error_set_kind(err, SKF_KIND_UNKNOWN_CLIP, NULL);
    skf_error_set_place(err, path, "animations", -1, NULL, -1);
    if (err && name) {
        size_t n = strnlen(name, sizeof err->name - 1);
        memcpy(err->name, name, n);
        err->name[n] = 0;
    }
    return -1;
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

