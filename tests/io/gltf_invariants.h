/* Invariant checker for loaded glTF documents: every index in the typed
 * views is -1 or valid, parent/child links agree, every accessor's bytes lie
 * inside its buffer, and every accessor decodes. Used after each load. */
#ifndef SKF_TESTS_GLTF_INVARIANTS_H
#define SKF_TESTS_GLTF_INVARIANTS_H

#include "check.h"
#include "skinfit/gltf.h"

#define IDX_OK(i, n) ((i) >= -1 && (i) < (int)(n))

static inline void check_gltf_invariants(const skf_gltf *d)
{
    for (size_t i = 0; i < d->buffer_view_count; ++i) {
        const skf_gltf_buffer_view *v = &d->buffer_views[i];
        CHECK(v->buffer >= 0 && (size_t)v->buffer < d->buffer_count);
        CHECK(v->offset + v->length <= d->buffers[v->buffer].size);
    }
    for (size_t i = 0; i < d->accessor_count; ++i) {
        const skf_gltf_accessor *a = &d->accessors[i];
        CHECK(IDX_OK(a->buffer_view, d->buffer_view_count));
        CHECK(a->count > 0 && a->components >= 1 && a->components <= 16);
        double *tmp = malloc(a->count * (size_t)a->components * sizeof *tmp);
        CHECK(tmp != NULL);
        if (tmp) {
            skf_error e;
            CHECK(skf_gltf_accessor_read(d, (int)i, tmp, false, &e) == SKF_OK);
            free(tmp);
        }
    }
    for (size_t i = 0; i < d->node_count; ++i) {
        const skf_gltf_node *n = &d->nodes[i];
        CHECK(IDX_OK(n->parent, d->node_count) && IDX_OK(n->mesh, d->mesh_count) &&
              IDX_OK(n->skin, d->skin_count));
        for (size_t c = 0; c < n->child_count; ++c) {
            CHECK(n->children[c] >= 0 && (size_t)n->children[c] < d->node_count);
            if (n->children[c] >= 0 && (size_t)n->children[c] < d->node_count)
                CHECK(d->nodes[n->children[c]].parent == (int)i);
        }
        /* walking parents terminates within the depth cap */
        int depth = 0;
        for (int p = n->parent; p >= 0 && depth <= SKF_GLTF_MAX_NODE_DEPTH; p = d->nodes[p].parent)
            ++depth;
        CHECK(depth <= SKF_GLTF_MAX_NODE_DEPTH);
    }
    for (size_t m = 0; m < d->mesh_count; ++m)
        for (size_t p = 0; p < d->meshes[m].primitive_count; ++p) {
            const skf_gltf_primitive *pr = &d->meshes[m].primitives[p];
            CHECK(IDX_OK(pr->indices, d->accessor_count));
            for (size_t a = 0; a < pr->attribute_count; ++a)
                CHECK(pr->attributes[a].accessor >= 0 &&
                      (size_t)pr->attributes[a].accessor < d->accessor_count);
            for (size_t t = 0; t < pr->target_count; ++t)
                CHECK(IDX_OK(pr->targets[t].position, d->accessor_count));
        }
    for (size_t s = 0; s < d->skin_count; ++s) {
        CHECK(IDX_OK(d->skins[s].inverse_bind_matrices, d->accessor_count));
        CHECK(IDX_OK(d->skins[s].skeleton, d->node_count));
        for (size_t j = 0; j < d->skins[s].joint_count; ++j)
            CHECK(d->skins[s].joints[j] >= 0 && (size_t)d->skins[s].joints[j] < d->node_count);
    }
    for (size_t a = 0; a < d->animation_count; ++a) {
        const skf_gltf_animation *an = &d->animations[a];
        for (size_t s = 0; s < an->sampler_count; ++s)
            CHECK(an->samplers[s].input >= 0 && (size_t)an->samplers[s].input < d->accessor_count &&
                  an->samplers[s].output >= 0 && (size_t)an->samplers[s].output < d->accessor_count);
        for (size_t c = 0; c < an->channel_count; ++c)
            CHECK(an->channels[c].sampler >= 0 && (size_t)an->channels[c].sampler < an->sampler_count &&
                  IDX_OK(an->channels[c].node, d->node_count));
    }
    for (size_t s = 0; s < d->scene_count; ++s)
        for (size_t k = 0; k < d->scenes[s].node_count; ++k)
            CHECK(d->scenes[s].nodes[k] >= 0 && (size_t)d->scenes[s].nodes[k] < d->node_count);
    CHECK(IDX_OK(d->scene, d->scene_count));
}

#endif
