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

/* ---- Alembic and MDD (owner: decompose; src/io/alembic.c, src/io/mdd.c) ----
 *
 * Alembic: the Ogawa container only (HDF5 archives are refused). Reads the
 * first PolyMesh object (depth-first): its P samples (float32 xyz) as the
 * frames, .faceCounts/.faceIndices (sample 0; a changing topology is refused)
 * fan-triangulated into seq->triangles with the winding reversed to
 * counter-clockwise (Alembic stores clockwise faces), and the time sampling of
 * P (seq->fps = 1 / time-per-cycle for uniform sampling, seq->start_time = the
 * time of sample 0; fps 0 for acyclic sampling). Positions are shape-local
 * unless apply_parent_xform is set: then every frame is mapped by the product
 * of the ancestor Xform objects' matrices (root-most first, honouring
 * .inherits) sampled at that frame's time. Every offset and size is checked
 * against the file size before it is read or allocated; errors name the file
 * and the byte offset. Limits: 2^31 vertices / frames, object depth 256. */
typedef struct skf_alembic_options {
    bool apply_parent_xform; /* false (default): shape-local positions */
} skf_alembic_options;

/* opt may be NULL (defaults). On success *out is a new sequence (caller frees
 * with skf_meshseq_free); on failure *out is NULL and err says where. */
skf_status skf_alembic_read(const char *path, const skf_alembic_options *opt, skf_meshseq **out,
                            skf_error *err);
/* Same from memory; name is used in messages. data need not be aligned. */
skf_status skf_alembic_read_memory(const uint8_t *data, size_t size, const char *name,
                                   const skf_alembic_options *opt, skf_meshseq **out,
                                   skf_error *err);

/* MDD point cache, big-endian: int32 frame_count, int32 point_count,
 * float32 times[frame_count] (seconds), then frame_count x point_count x 3
 * float32. Reading sets start_time = times[0] and fps = 1 / (times[1] -
 * times[0]) when there are two or more frames with increasing times (else 0);
 * no topology. Zero frames or points, a size that disagrees with the counts,
 * and non-finite values are errors naming the file and the byte offset. */
skf_status skf_mdd_read(const char *path, skf_meshseq **out, skf_error *err);
skf_status skf_mdd_read_memory(const uint8_t *data, size_t size, const char *name,
                               skf_meshseq **out, skf_error *err);
/* Write seq as MDD (atomically); frame f is timed start_time + f / fps
 * (fps 0 → 24). Positions are rounded to float32. */
skf_status skf_mdd_write(const char *path, const skf_meshseq *seq, skf_error *err);

#ifdef __cplusplus
}
#endif
#endif
