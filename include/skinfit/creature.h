/* skinfit/creature.h — the procedural four-legged creature: a deterministic,
 * self-contained skinned glTF asset for demos, tests and benchmarks.
 *
 * The animal is made of smooth tubes (one along tail-spine-neck-head, one
 * per leg) around a 28-joint skeleton, with smooth weights (at most 4
 * influences, summing to 1) and two looping clips, "Walk" and "Trot"
 * (LINEAR; rotation channels plus the Hips translation). See docs/creature.md.
 *
 * Space and units: glTF conventions, metres, +Y up, the animal faces +Z, its
 * left side is +X; it stands on y = 0 and is about 2.2 m long, 1.6 m tall.
 * Joint rest TRS equals the bind pose. Without knee_bend every joint's rest
 * rotation is the identity and its inverse bind matrix is a pure translation
 * by minus its bind position; a bent knee (knee_bend) has a rest rotation and
 * the inverse bind matrices of it and its descendants carry that rotation
 * (each the inverse of the joint's rest joint_to_world). The skinned mesh node
 * sits at the scene root with an identity transform.
 */
#ifndef SKINFIT_CREATURE_H
#define SKINFIT_CREATURE_H

#include "skinfit/gltf.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct skf_creature_options {
    size_t vertices;         /* target vertex count; 0 = 5000. Range 500 .. 4,000,000;
                                the result is within about 10% of the target */
    double keys_per_second;  /* clip key rate; 0 = 30. Range 4 .. 240 */
    /* Variants (issue 12): the same skeleton topology, joint names and clip
     * keys (rotations; the Hips translation follows the hip height), other
     * proportions, triangulation and parts. 0 / zeroed = the default animal,
     * byte for byte. */
    double leg_scale;        /* leg length factor (lower leg joints about the upper-leg
                                joint; the body is lifted); 0 = 1. Range 0.5 .. 1.5 */
    double girth_scale;      /* trunk radius factor (hips to neck base); 0 = 1. Range 0.5 .. 1.5 */
    double neck_scale;       /* neck length factor (Neck2, Head about Neck1); 0 = 1. Range 0.5 .. 2 */
    int triangulation;       /* 0: every quad split along one diagonal; 1: along the other */
    int horns;               /* skf_creature_horns */
    bool diffuse_head;       /* 60 % of the Head's weight spread onto Neck2 / Neck1 */
    /* Rest flexion of each leg's knee joint, in the order FrontLowerLeg_L,
     * FrontLowerLeg_R, HindLowerLeg_L, HindLowerLeg_R: degrees, about the
     * joint's X axis in the sense the clips flex that knee (front: the lower
     * leg swings back, −Z; hind: forward, +Z); 0 = straight. Range −60 .. 60.
     * The rest mesh is the straight animal's mesh skinned (linear blend, its
     * own weights) at the bent pose, the knee node's rest rotation is the
     * bend and every inverse bind matrix is the inverse of its joint's bent
     * rest joint_to_world, so the bent mesh is the bind pose.
     * "The same keys" on a bent knee: its clip rotation is
     *   local(t) = bend · key(t)
     * (the shared key applied in the joint's bent rest frame; the stored
     * quaternion is that product, the other joints' keys are the shared ones
     * bit for bit). The clips flex the knees about X only, so bend and key
     * commute and every bone's world motion relative to its rest
     * (joint_to_world(t) · joint_to_world(rest)⁻¹, rotation part) equals the
     * straight animal's: a bent variant playing its clip is the ground truth
     * of a transfer onto it exactly as the other variants are. */
    double knee_bend[4];
} skf_creature_options;

typedef enum skf_creature_horns {
    SKF_CREATURE_HORNS_NONE = 0,
    SKF_CREATURE_HORNS_ATTACHED = 1, /* mesh "Horns" on a node child of the Head joint, no skin */
    SKF_CREATURE_HORNS_SKINNED = 2   /* part of the skinned mesh, weight 1 on Head */
} skf_creature_horns;

/* Build the creature as a new glTF document (typed views current). Zeroed
 * or NULL options mean defaults. Deterministic: the same options give the
 * same bytes. The caller owns *out (skf_gltf_free). Errors: SKF_ERR_ARGUMENT
 * for options out of range, SKF_ERR_NOMEM. */
skf_status skf_creature_build(const skf_creature_options *opt, skf_gltf **out, skf_error *err);

/* ---- the known skeleton and motion (for exact-recovery tests) ---------- */

/* Joints in skin order (glTF node i+0 is joint i; the mesh node comes
 * after them). Index 0 is "Root" (carries no weight). */
size_t skf_creature_joint_count(void);
const char *skf_creature_joint_name(size_t joint);
int skf_creature_joint_parent(size_t joint);          /* -1 for Root */
/* Bind (rest) position of the joint in world space, metres, of the default
 * animal (the skf_creature_pose functions below describe it too). */
void skf_creature_joint_bind_position(size_t joint, double position[3]);

/* Clips: 0 "Walk" (1.2 s), 1 "Trot" (0.8 s). Both loop: the last key
 * equals the first. */
size_t skf_creature_clip_count(void);
const char *skf_creature_clip_name(size_t clip);
double skf_creature_clip_duration(size_t clip);

/* The analytic pose of clip at time seconds (wrapped into [0, duration)),
 * in double precision — the stored keys are these values at the key times,
 * rounded to float. local_trs (may be NULL): joint_count * 10 doubles,
 * per joint translation[3], rotation[4] (x y z w), scale[3].
 * joint_to_world (may be NULL): joint_count * 16 doubles (column-major).
 * Returns false for a clip index out of range. */
bool skf_creature_pose(size_t clip, double time, double *local_trs, double *joint_to_world);

#ifdef __cplusplus
}
#endif
#endif
