/* The transfer session's fields, shared by transfer.c and transfer_bake.c. */
#ifndef SKF_TRANSFER_INTERNAL_H
#define SKF_TRANSFER_INTERNAL_H

#include "skinfit/rig.h"
#include "skinfit/solve.h"
#include "skinfit/transfer.h"

/* carry_frame.c (below) */
#define SKFI_CARRY_FRAME_KEEP 0.75
#define SKFI_CARRY_FRAME_MAX_STEPS 50
#define SKFI_CARRY_FRAME_MAX_RMS 1e-3 /* the refit is used up to this trimmed RMS / source diagonal */
typedef struct skfi_carry_frame {
    double target_to_source[16]; /* the refit when used, else the start */
    bool refitted;          /* a fit ran (at least 4 matched vertices) */
    bool used;              /* ... and its trimmed RMS was within SKFI_CARRY_FRAME_MAX_RMS */
    int steps;              /* concentration steps run */
    double trimmed_rms;     /* RMS residual of the kept pairs, scene units */
    double angle_deg;       /* rotation between the start and the refit */
    double scale_ratio;     /* refit scale / start scale */
} skfi_carry_frame;

struct skf_transfer {
    const skf_gltf *source_doc, *target_doc;
    skf_transfer_options opt; /* opt.limits points at limits below */
    skf_limits limits;        /* options->limits copied (zeros: the process-wide values) */
    skf_rig *src_raw, *src;   /* source rig before welding (kept only while set-up needs it: by-vertex
                                 landmarks), welded */
    skf_rig *tgt_raw, *tgt;   /* target rig, welded (NULL: control only; tgt_raw as src_raw) */
    size_t src_raw_vertices, tgt_raw_vertices; /* the rigs' vertex counts before welding */
    skf_alignment align;
    double source_to_target[16];
    skf_correspondence corr;
    double *con_rest;         /* [C*3] target rest of the constraints (the measuring's r) */
    size_t *con_offsets;      /* the constraint sub-rig's weights: during skf_transfer_new only */
    uint32_t *con_bone;
    double *con_weight;
    skf_solver *src_solver, *tgt_solver;
    skf_solver *tgt_skin;     /* over every welded target vertex, for the surface output
                                 (vertex_output) when the constraints are not all of them in
                                 order; NULL otherwise (tgt_solver's skinning is the surface) */
    skf_rotonly *rotonly;
    int32_t *tgt_parent;
    double *tgt_bind;         /* [B*16] */
    double *tgt_offset;       /* [B*3] joint minus parent joint at bind, from the node hierarchy
                                 (rotation-only's lengths, rest_offsets in transfer.c) */
    skf_trs_converter trs;
    bool trs_ready;
    bool *tgt_solved;         /* [B] bone mass > 0 on the constraints */
    double src_diag, tgt_diag;
    /* The solve space of each rig is its world at bind pose: rest_world =
     * mesh_to_world × rest (mesh_to_world: world transform of the first node
     * carrying the skinned mesh, the frame exporters bake into the inverse
     * bind matrices — Quaternius: −90° about X and ×100). Solved transforms
     * T' map rest_world → world; the glTF skinning matrix is T' × mesh_to_world. */
    double src_mesh_to_world[16], tgt_mesh_to_world[16];
    double *src_rest_world, *tgt_rest_world; /* tgt_rest_world: during skf_transfer_new only */
    char clip_list[1024];
    /* other-shape targets: the registration, the full-surface map (every
     * welded target vertex, for the anchors) and the deformation transfer */
    bool registered;
    skf_registration reg;
    skf_correspondence full;
    skf_deformation_transfer *dt;
    skf_transfer_landmark *landmarks;
    double joint_median, joint_max;
    size_t joint_landmarks;
    size_t landmark_count;    /* landmarks the registration used */
    skfi_carry_frame carry_frame; /* the similarity carried with after registration (carry_frame.c);
                                     align keeps the alignment's as reported */
    /* attached meshes of the target (rig.h "Attached meshes"): descriptors, the
     * attachment of each constraint (UINT32_MAX: the skinned body) and each
     * constraint's importance in the fit (NULL when the target has none) */
    size_t att_count;
    skf_transfer_attachment *att;
    uint32_t *con_att;        /* [C] */
    double *con_importance;   /* [C] */
    size_t src_att_count;
};

/* transfer_register.c: the other-shape path. Called after the similarity
 * alignment left a residual above the same-surface threshold: registers the
 * target onto the source (landmarks from the options and/or same-named
 * joints), refuses when the residual after registration exceeds
 * max_rest_mismatch, and prepares the deformation transfer. */
skf_status skfi_transfer_register(skf_transfer *t, skf_error *err);
/* carry_frame.c: the similarity the other-shape path carries with — least
 * trimmed squares (concentration steps from start) of target rest vertex →
 * its registered source point over the matched vertices, area-weighted,
 * keeping the SKFI_CARRY_FRAME_KEEP fraction of the matched area with the
 * smallest residuals; used when its trimmed RMS is at most
 * SKFI_CARRY_FRAME_MAX_RMS × diagonal (the source's), else start is kept.
 * Fewer than 4 matched vertices: start unchanged (refitted false). */
skf_status skfi_carry_similarity(const double *target_rest, size_t nt, const uint32_t *triangles,
                                 size_t triangle_count, const double *source_rest, const skf_registration *reg,
                                 const double start[16], double diagonal, skfi_carry_frame *out, skf_error *err);
/* t->corr for the listed constraint vertices that registered as matched. */
skf_status skfi_transfer_registered_constraints(skf_transfer *t, const uint32_t *cons, size_t ncons, skf_error *err);
void skfi_transfer_registration_info(const skf_transfer *t, skf_transfer_info *info);
/* u [F*C*3]: the constraints' positions by deformation transfer for the F
 * frames first .. first+F−1 of a clip (src_seq: those frames; errors name
 * the clip frame). */
skf_status skfi_transfer_carry_deformation(skf_transfer *t, size_t first, size_t F, const double *src_seq, double *u,
                                          skf_error *err);

#endif
