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
    /* Per-call caps (skf_limits, base.h) on cache-bytes, vertices, frames,
     * alembic-depth and alembic-objects; NULL or a 0 entry: the process-wide
     * value. Not copied: must outlive the call. */
    const skf_limits *limits;
} skf_alembic_options;

/* opt may be NULL (defaults). On success *out is a new sequence (caller frees
 * with skf_meshseq_free); on failure *out is NULL and err says where. */
skf_status skf_alembic_read(const char *path, const skf_alembic_options *opt, skf_meshseq **out,
                            skf_error *err);
/* Same from memory; name is used in messages. data need not be aligned. */
skf_status skf_alembic_read_memory(const uint8_t *data, size_t size, const char *name,
                                   const skf_alembic_options *opt, skf_meshseq **out,
                                   skf_error *err);

/* Options of the PC2, MDD and OBJ readers (the *_opts calls; the plain calls
 * pass NULL): per-call caps (skf_limits, base.h) on cache-bytes (the file),
 * vertices and frames, so two threads can read with different caps; NULL or a
 * 0 entry takes the process-wide value. A cap from limits says so in its
 * message ("... exceed the limit frames=2 (set by the caller:
 * skf_limits.value[SKF_LIMIT_FRAMES])"). limits must outlive the call. */
typedef struct skf_meshseq_read_options {
    const skf_limits *limits;
} skf_meshseq_read_options;

/* MDD point cache, big-endian: int32 frame_count, int32 point_count,
 * float32 times[frame_count] (seconds), then frame_count x point_count x 3
 * float32. Reading sets start_time = times[0] and fps = 1 / (times[1] -
 * times[0]) when there are two or more frames with increasing times (else 0);
 * no topology. Zero frames or points, a size that disagrees with the counts,
 * and non-finite values are errors naming the file and the byte offset. */
skf_status skf_mdd_read(const char *path, skf_meshseq **out, skf_error *err);
skf_status skf_mdd_read_memory(const uint8_t *data, size_t size, const char *name,
                               skf_meshseq **out, skf_error *err);
skf_status skf_mdd_read_opts(const char *path, const skf_meshseq_read_options *opt, skf_meshseq **out,
                             skf_error *err);
skf_status skf_mdd_read_memory_opts(const void *data, size_t size, const char *name,
                                    const skf_meshseq_read_options *opt, skf_meshseq **out,
                                    skf_error *err);
/* Write seq as MDD (atomically); frame f is timed start_time + f / fps
 * (fps 0 → 24). Positions are rounded to float32. */
skf_status skf_mdd_write(const char *path, const skf_meshseq *seq, skf_error *err);

/* ---- PC2 and OBJ sequences (rig engineer; src/io/pc2.c, src/io/objseq.c) ----
 *
 * PC2 (little-endian): char[12] "POINTCACHE2\0", int32 version (1),
 * int32 numPoints, float32 startFrame, float32 sampleRate, int32 numSamples,
 * then numSamples × numPoints × float32 xyz. startFrame and sampleRate are
 * in frames (Blender writes the first frame and the frame step), so PC2 has
 * no clock: reading gives fps = 0 and start_time = 0; writing stores
 * startFrame = start_time × fps (0 when fps is 0) and sampleRate = 1.
 */

/* Defaults of the limits vertices and frames shared by the sequence readers
 * (adjustable: skf_limit, base.h; SKF_ERR_LIMIT names them). File sizes are
 * capped by the cache-bytes limit (default SKF_MESHSEQ_MAX_BYTES, 4 GiB). */
#define SKF_MESHSEQ_MAX_VERTICES ((size_t)1 << 28)
#define SKF_MESHSEQ_MAX_FRAMES ((size_t)1 << 24)
#define SKF_MESHSEQ_MAX_BYTES ((size_t)4 << 30)

/* Read a PC2 file. Header counts are checked against the file size before
 * anything is allocated; NaN/Inf coordinates and zero points or frames are
 * errors naming the file and byte offset. positions are the stored floats. */
skf_status skf_pc2_read(const char *path, skf_meshseq **out, skf_error *err);
/* Same from memory; name is used in messages. */
skf_status skf_pc2_read_memory(const void *data, size_t size, const char *name,
                               skf_meshseq **out, skf_error *err);
/* The same under per-call limits (opt may be NULL). */
skf_status skf_pc2_read_opts(const char *path, const skf_meshseq_read_options *opt, skf_meshseq **out,
                             skf_error *err);
skf_status skf_pc2_read_memory_opts(const void *data, size_t size, const char *name,
                                    const skf_meshseq_read_options *opt, skf_meshseq **out,
                                    skf_error *err);
/* Write seq atomically as PC2 (positions rounded to float32). */
skf_status skf_pc2_write(const char *path, const skf_meshseq *seq, skf_error *err);

/* OBJ sequences: frame f is the file made by a printf pattern with one
 * integer conversion (e.g. "out/frame_%04d.obj"), frames 0 .. frame_count-1,
 * or a folder holding frame_0000.obj, frame_0001.obj, ... Each file has
 * "v x y z" lines (extra components ignored) and "f" lines (polygons,
 * "i", "i/t", "i//n", "i/t/n", negative indices relative) fan-triangulated.
 * Every frame must have the same vertex count; topology is taken from frame 0. */

/* Read: `where` is a folder (frame_%04d.obj inside, from 0 while files exist)
 * or a pattern with one %d-style conversion (from 0 while files exist).
 * fps and start_time are 0 (OBJ carries no timing). Errors name the file and
 * line. */
skf_status skf_objseq_read(const char *where, skf_meshseq **out, skf_error *err);
skf_status skf_objseq_read_opts(const char *where, const skf_meshseq_read_options *opt,
                                skf_meshseq **out, skf_error *err);
/* The file name skf_objseq_read opens for frame `frame` of `where` (a folder
 * or a pattern), into buf of cap bytes. */
skf_status skf_objseq_frame_file(const char *where, size_t frame, char *buf, size_t cap,
                                 skf_error *err);
/* Read one OBJ (vertices and fan-triangulated faces) as a one-frame sequence. */
skf_status skf_obj_read(const char *path, skf_meshseq **out, skf_error *err);
skf_status skf_obj_read_opts(const char *path, const skf_meshseq_read_options *opt, skf_meshseq **out,
                             skf_error *err);
/* Write: a folder (files frame_0000.obj ...) when `where` ends in '/' or
 * names a folder, else a printf pattern. A folder is replaced as a whole
 * (skf_atomic_dir: written beside it, swapped in): it must be new, empty or
 * hold only frame_<n>.obj files, and an interrupted run leaves it as it was.
 * Each file is written atomically with 9 significant digits per coordinate;
 * faces from seq->triangles when present. */
skf_status skf_objseq_write(const char *where, const skf_meshseq *seq, skf_error *err);

#ifdef __cplusplus
}
#endif
#endif
