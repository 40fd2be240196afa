/* Rig and clip ownership: the one free call of each (kept apart from the
 * glTF extraction so hand-built rigs need no glTF code). */
#include "skinfit/rig.h"

void skf_rig_free(skf_rig *rig)
{
    if (!rig)
        return;
    skf_free(rig->rest_positions);
    skf_free(rig->weight_offsets);
    skf_free(rig->weight_joints);
    skf_free(rig->weights);
    skf_free(rig->triangles);
    skf_free(rig->joints);
    for (size_t i = 0; i < rig->node_count; ++i)
        skf_free(rig->nodes[i].name);
    skf_free(rig->nodes);
    for (size_t i = 0; i < rig->part_count; ++i)
        skf_free(rig->parts[i].target_deltas);
    skf_free(rig->parts);
    skf_free(rig->default_morph_weights);
    skf_free(rig->morph_target_node);
    skf_free(rig);
}

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

