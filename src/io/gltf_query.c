/* Queries on a loaded glTF document (skinfit/gltf.h): they read the typed
 * views only, never the JSON tree or the buffers, so they hold for any
 * document the reader accepted.
 *
 * Reference: glTF 2.0 specification, section 3.5.3 (a node's local
 * transform is its matrix, or T * R * S). Clip lookup by name is rig's
 * (skf_clip_find, src/rig/clip_gltf.c), beside the one short-name rule. Freeing the views is
 * here too, so the WebAssembly core (web/src/skfw.c), which fills them without the JSON parser,
 * frees its documents with the reader's code.
 */
#include "gltf_views.h"
#include "skinfit/math.h"

#include <string.h>

void skf_gltf_node_local_matrix(const skf_gltf_node *node, double local_to_parent[16])
{
    if (node->has_matrix)
        memcpy(local_to_parent, node->matrix, sizeof node->matrix);
    else
        skf_mat4_from_trs(local_to_parent, node->translation, node->rotation, node->scale);
}

void skfi_gltf_free_views(skf_gltf *doc)
{
    for (size_t i = 0; i < doc->node_count; ++i) {
        skf_free(doc->nodes[i].name);
        skf_free(doc->nodes[i].children);
        skf_free(doc->nodes[i].weights);
    }
    skf_free(doc->nodes);
    for (size_t i = 0; i < doc->mesh_count; ++i) {
        skf_gltf_mesh *m = &doc->meshes[i];
        for (size_t j = 0; j < m->primitive_count; ++j) {
            skf_gltf_primitive *pr = &m->primitives[j];
            for (size_t k = 0; k < pr->attribute_count; ++k)
                skf_free(pr->attributes[k].name);
            skf_free(pr->attributes);
            skf_free(pr->targets);
        }
        skf_free(m->primitives);
        skf_free(m->name);
        skf_free(m->weights);
    }
    skf_free(doc->meshes);
    for (size_t i = 0; i < doc->skin_count; ++i) {
        skf_free(doc->skins[i].name);
        skf_free(doc->skins[i].joints);
    }
    skf_free(doc->skins);
    for (size_t i = 0; i < doc->animation_count; ++i) {
        skf_free(doc->animations[i].name);
        skf_free(doc->animations[i].samplers);
        skf_free(doc->animations[i].channels);
    }
    skf_free(doc->animations);
    for (size_t i = 0; i < doc->scene_count; ++i) {
        skf_free(doc->scenes[i].name);
        skf_free(doc->scenes[i].nodes);
    }
    skf_free(doc->scenes);
    skf_free(doc->accessors);
    skf_free(doc->buffer_views);
    doc->nodes = NULL;
    doc->meshes = NULL;
    doc->skins = NULL;
    doc->animations = NULL;
    doc->scenes = NULL;
    doc->accessors = NULL;
    doc->buffer_views = NULL;
    doc->node_count = doc->mesh_count = doc->skin_count = doc->animation_count = 0;
    doc->scene_count = doc->accessor_count = doc->buffer_view_count = 0;
    doc->scene = -1;
}
