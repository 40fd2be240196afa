/* skinfit/meshseq.h — mesh sequences (vertex animation) and the point-cache
 * formats artists export: PC2 (Blender Mesh Cache / 3ds Max), MDD (big-endian,
 * LightWave / Blender / Houdini), OBJ sequences, Alembic (.abc, Ogawa).
 *
 * A sequence is frame_count frames of vertex_count positions, stored
 * positions[(f * vertex_count + v) * 3 + axis], in the scene units and space
 * of the file (PC2/MDD/Alembic: shape-local). Frame f is at time
 * start_time + f / fps seconds. Ownership: skf_meshseq_free releases it.
 */
#ifndef SKINFIT_MESHSEQ_H
#define SKINFIT_MESHSEQ_H

#include "skinfit/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct skf_meshseq {
    size_t vertex_count;
    size_t frame_count;
    double fps;          /* frames per second; 0 when the file carries none */
    double start_time;   /* seconds of frame 0 */
    double *positions;   /* [frame_count * vertex_count * 3], owned */
    /* Optional topology (OBJ / Alembic / a rest mesh): triangles after fan
     * triangulation of polygons, [triangle_count * 3] vertex indices. */
    size_t triangle_count;
    uint32_t *triangles; /* owned, may be NULL */
} skf_meshseq;

/* Allocate a zeroed sequence; returns NULL on allocation failure. */
skf_meshseq *skf_meshseq_new(size_t vertex_count, size_t frame_count);
void skf_meshseq_free(skf_meshseq *seq);

#ifdef __cplusplus
}
#endif
#endif
