# Blender-side checks of skinfit's outputs (tests/blender/, docs/blender.md).
#
# Run headless:  blender -b --factory-startup --python check.py -- JOBS.json
# JOBS.json is a list of jobs, done one after another in one Blender process
# (Blender's start-up is the slow part); each starts from an empty scene.
# Every job prints one "measured" line; the run exits 1 when any job is over
# its tolerance or fails, 0 otherwise.
#
# Coordinates: the glTF importer turns glTF's Y-up into Blender's Z-up,
# glTF (x, y, z) -> Blender (x, -z, y); positions read back from Blender are
# turned back, so everything is compared in the glTF world space that
# `skinfit bake` writes. Errors are in units of the bounding-box diagonal of
# skinfit's own positions of the clip's first frame.
#
# Jobs:
#  {"kind": "play", "glb": F, "clips": [{"name", "pc2", "fps", "start"}], "tol"}
#     imports F; for each clip, first poses every bone at random and plays
#     every other action (what an earlier action leaves behind), then plays
#     the clip (its action on every object and shape-key block that has one)
#     at every frame time start + k / fps and compares the evaluated mesh
#     (depsgraph, world space) with frame k of skinfit's PC2.
#  {"kind": "meshcache", "glb": F, "clip", "obj": OBJ, "pc2": P, "scene_fps", "tol"}
#     an OBJ of the same vertices with a Mesh Cache modifier reading P, its
#     speed set from P's header only (start and sampling in seconds), in a
#     scene at scene_fps; compared at every scene frame of the clip with the
#     GLB's clip played in Blender.
#  {"kind": "export", "glb": F, "out": G}   import F, export G with Blender's
#     glTF exporter (every action, as NLA tracks).
#  {"kind": "fbx", "glb": F, "out": G}      import F, export G with Blender's
#     FBX exporter (every action, baked).
#  {"kind": "compare", "a": P, "b": Q, "tol", "pair"} two PC2 files of one
#     clip whose vertex orders differ: nearest-vertex correspondence on frame 0
#     (vertices that coincide there told apart by their positions over all
#     frames), then the largest deviation over all frames. Jobs with the same
#     "pair" (optional: the same two vertex orders, other clips) share the
#     nearest-vertex search of the first one.
import json
import math
import random
import struct
import sys

import numpy
# Blender 3.4's glTF importer uses numpy.bool, which numpy 1.24 removed
# (Debian 12 ships 1.24): restore the alias before the add-on loads.
if not hasattr(numpy, "bool"):
    numpy.bool = bool

import bpy
import mathutils
from mathutils.kdtree import KDTree


def read_pc2(path):
    with open(path, "rb") as f:
        head = f.read(32)
        if head[:12] != b"POINTCACHE2\0":
            raise RuntimeError(path + ": not a PC2 file")
        _, points, start, sampling, samples = struct.unpack("<iiffi", head[12:32])
        data = numpy.frombuffer(f.read(), dtype="<f4")
    return {"start": start, "sampling": sampling,
            "frames": data.reshape(samples, points, 3).astype(numpy.float64)}


def diagonal(p):
    return float(numpy.linalg.norm(p.max(axis=0) - p.min(axis=0)))


def empty_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def import_gltf(path):
    empty_scene()
    bpy.ops.import_scene.gltf(filepath=path)


def skinned_meshes():
    return [o for o in bpy.context.scene.objects
            if o.type == "MESH" and any(m.type == "ARMATURE" for m in o.modifiers)] or \
           [o for o in bpy.context.scene.objects if o.type == "MESH"]


def world_gltf(objs, convert=True):
    """Evaluated world positions of objs, concatenated, in glTF axes
    (convert=False: objects placed in glTF axes already)."""
    dg = bpy.context.evaluated_depsgraph_get()
    out = []
    for o in objs:
        e = o.evaluated_get(dg)
        me = e.to_mesh()
        co = numpy.empty(len(me.vertices) * 3)
        me.vertices.foreach_get("co", co)
        e.to_mesh_clear()
        co = co.reshape(-1, 3)
        m = numpy.array(e.matrix_world)
        w = co @ m[:3, :3].T + m[:3, 3]
        out.append(numpy.stack([w[:, 0], w[:, 2], -w[:, 1]], axis=1) if convert else w)
    return numpy.concatenate(out)


_candidates = {}


def correspondence(ref, pts, key=None):
    """For each vertex of pts, the index of the same vertex in ref; ref and
    pts are lists of frames (arrays [N, 3] and [M, 3]) of the same times.
    The nearest vertex on the first frame, except where several vertices of
    ref coincide there (a seam whose sides carry different skin weights:
    Alpaca has two such pairs): then the one whose positions over all the
    frames given are nearest. Calls with the same key (two files whose
    vertex orders stay the same from clip to clip) reuse the candidates of
    the first call and only tell coincident ones apart again by the frames
    they are given. Returns (indices, how many vertices were told apart by
    their motion)."""
    ref = numpy.stack(ref)
    pts = numpy.stack(pts)
    diag = diagonal(ref[0])
    cached = _candidates.get(key) if key is not None else None
    if cached is None or cached[0] != (ref.shape[1], pts.shape[1]):
        kd = KDTree(len(ref[0]))
        for i, p in enumerate(ref[0]):
            kd.insert(p, i)
        kd.balance()
        cands = []
        for p in pts[0]:
            near = kd.find_n(p, 8)
            # vertices of ref that coincide on the first frame (within 1e-6
            # of the diagonal of the nearest one)
            cands.append([n[1] for n in near if n[2] <= near[0][2] + 1e-6 * diag])
        cached = ((ref.shape[1], pts.shape[1]), cands)
        if key is not None:
            _candidates[key] = cached
    cands = cached[1]
    idx = numpy.array([c[0] for c in cands], dtype=numpy.int64)
    ties = 0
    for i, cand in enumerate(cands):
        if len(cand) > 1 and len(ref) > 1:
            cost = ((ref[1:, cand, :] - pts[1:, i, None, :]) ** 2).sum(axis=(0, 2))
            best = int(numpy.argmin(cost))
            # counted when the motion really tells them apart (not float noise)
            ties += bool(cost[best] < cost[0] - len(ref) * (1e-6 * diag) ** 2)
            idx[i] = cand[best]
    return idx, ties


def sample_frames(count, most=8):
    """Up to `most` frame indices spread over 0..count-1, 0 first."""
    return sorted(set(int(round(k * (count - 1) / max(most - 1, 1))) for k in range(min(count, most))))


def animated_ids():
    ids = [o for o in bpy.data.objects if o.animation_data]
    ids += [k for k in bpy.data.shape_keys if k.animation_data]
    return ids


def clip_names():
    names = []
    for i in animated_ids():
        for t in i.animation_data.nla_tracks:
            if t.name not in names:
                names.append(t.name)
    return names


def play(name):
    """Make clip `name` the active action of every ID that has it (NLA off)."""
    found = False
    for i in animated_ids():
        ad = i.animation_data
        act = None
        for t in ad.nla_tracks:
            t.mute = True
            if t.name == name and t.strips:
                act = t.strips[0].action
        ad.action = act
        found |= act is not None
    if not found:
        raise RuntimeError("no action for clip " + name)


def set_time(seconds):
    sc = bpy.context.scene
    f = seconds * sc.render.fps / sc.render.fps_base
    whole = math.floor(f + 1e-9)
    sc.frame_set(int(whole), subframe=max(0.0, f - whole))


def poison(rng):
    """Leave the rig in a pose that no clip has: random TRS on every bone."""
    for o in bpy.data.objects:
        if o.type != "ARMATURE":
            continue
        for pb in o.pose.bones:
            pb.rotation_mode = "QUATERNION"
            q = mathutils.Quaternion([rng.uniform(-1, 1) for _ in range(4)]).normalized()
            pb.rotation_quaternion = q
            pb.location = [rng.uniform(-0.3, 0.3) for _ in range(3)]
            pb.scale = [rng.uniform(0.7, 1.3) for _ in range(3)]
    for k in bpy.data.shape_keys:
        for kb in k.key_blocks[1:]:
            kb.value = rng.uniform(0, 1)


def armatures():
    return [o for o in bpy.data.objects if o.type == "ARMATURE"]


def parented_bones():
    return sum(1 for o in armatures() for b in o.data.bones if b.parent is not None)


def tree_stretch(c, frames):
    """Worst relative change, over the clip's frames (the clip being played),
    of the distance from a bone's head to its parent bone's head, against
    the rest armature's distance (pose space: the armature object's own)."""
    rest = {}
    for o in armatures():
        for b in o.data.bones:
            if b.parent is not None:
                rest[(o.name, b.name)] = (b.head_local - b.parent.head_local).length
    worst = 0.0
    for k in range(frames):
        set_time(c["start"] + k / c["fps"])
        for o in armatures():
            for pb in o.pose.bones:
                r = rest.get((o.name, pb.name))
                if r and r > 0:
                    worst = max(worst, abs((pb.head - pb.parent.head).length - r) / r)
    return worst


def job_play(job, rng):
    import_gltf(job["glb"])
    objs = skinned_meshes()
    names = clip_names()
    worst_all = 0.0
    tree_worst = 0.0
    lines = []
    mapping = None
    ties = 0
    for c in job["clips"]:
        pc2 = read_pc2(c["pc2"])
        fr = pc2["frames"]
        diag = diagonal(fr[0])
        if mapping is None:
            # correspondence from the fresh import (nothing played before),
            # on the first clip's frames (the first, and a few more to tell
            # coincident vertices apart)
            play(c["name"])
            ks = sample_frames(len(fr))
            seen = []
            for k in ks:
                set_time(c["start"] + k / c["fps"])
                seen.append(world_gltf(objs))
            mapping, ties = correspondence([fr[k] for k in ks], seen)
        for other in names:
            if other != c["name"]:
                play(other)
                set_time(c["start"])
        if job.get("poison", True):
            poison(rng)
        play(c["name"])
        worst = 0.0
        worst_frame = 0
        for k in range(len(fr)):
            set_time(c["start"] + k / c["fps"])
            d = numpy.linalg.norm(world_gltf(objs) - fr[k][mapping], axis=1).max() / diag
            if d > worst:
                worst, worst_frame = d, k
        worst_all = max(worst_all, worst)
        if "tree" in job:
            tree_worst = max(tree_worst, tree_stretch(c, len(fr)))
        lines.append("%s %.3e (frame %d of %d)" % (c["name"], worst, worst_frame, len(fr)))
    ok = worst_all <= job["tol"]
    if "tree" in job:
        nested = parented_bones()
        tree_ok = nested >= job["tree"] and tree_worst <= job["tree_tol"]
        print("measured: %s: armature of %d bones, %d with a parent bone (at least %d asked); joint-to-parent-joint "
              "distance over every frame of every clip: worst relative change %.3e (tolerance %g) %s"
              % (job["glb"], sum(len(o.data.bones) for o in armatures()), nested, job["tree"], tree_worst,
                 job["tree_tol"], "ok" if tree_ok else "FAIL"))
        ok = ok and tree_ok
    print("measured: %s: Blender vs skinfit, worst vertex over every frame, after a random pose and "
          "every other action: %s; worst %.3e of the diagonal (tolerance %g; %d coincident vertices told "
          "apart by their motion) %s"
          % (job["glb"], ", ".join(lines), worst_all, job["tol"], ties, "ok" if ok else "FAIL"))
    return ok


def job_meshcache(job, rng):
    import_gltf(job["glb"])
    sc = bpy.context.scene
    sc.render.fps = job["scene_fps"]
    sc.render.fps_base = 1
    objs = skinned_meshes()
    pc2 = read_pc2(job["pc2"])
    fr = pc2["frames"]
    diag = diagonal(fr[0])
    # the OBJ in glTF axes as they are (no axis conversion): the cache holds
    # glTF-space positions and overwrites the object's coordinates
    bpy.ops.wm.obj_import(filepath=job["obj"], forward_axis="Y", up_axis="Z")
    cache_obj = [o for o in bpy.context.selected_objects if o.type == "MESH"][0]
    if len(cache_obj.data.vertices) != fr.shape[1]:
        print("measured: %s: the OBJ has %d vertices, the PC2 %d FAIL"
              % (job["obj"], len(cache_obj.data.vertices), fr.shape[1]))
        return False
    mod = cache_obj.modifiers.new("skinfit", "MESH_CACHE")
    mod.cache_format = "PC2"
    mod.filepath = job["pc2"]
    # Blender 3.4 reads the header's start and sampling only in its 'TIME'
    # mode, and there divides the scene time by the frame rate twice
    # (docs/blender.md); 'FRAME' mode maps cache sample = frame_scale *
    # scene frame - frame_start, set here from the header alone.
    clip_fps = 1.0 / pc2["sampling"]
    mod.time_mode = "FRAME"
    mod.frame_scale = clip_fps / sc.render.fps
    mod.frame_start = pc2["start"] * clip_fps
    play(job["clip"])
    start = job["start"]

    def positions(times):
        glb, cache = [], []
        for t in times:
            set_time(t)
            glb.append(world_gltf(objs))
            cache.append(world_gltf([cache_obj], convert=False))
        return glb, cache

    def worst_at(times, glb, cache, mapping):
        worst, at = 0.0, 0.0
        for t, g, c in zip(times, glb, cache):
            d = numpy.linalg.norm(g - c[mapping], axis=1).max() / diag
            if d > worst:
                worst, at = d, t
        return worst, at

    # at the clip's own frame times (scene sub-frames): cache samples exactly
    times = [start + k / job["fps"] for k in range(len(fr))]
    glb, cache = positions(times)
    mapping, ties = correspondence(cache, glb)
    worst, at = worst_at(times, glb, cache, mapping)
    # at the scene's whole frames the cache blends two samples linearly
    # while the rig interpolates the pose: a difference of method, printed
    # for information only
    end = start + (len(fr) - 1) / job["fps"]
    whole = [f / sc.render.fps for f in range(math.ceil(start * sc.render.fps - 1e-9),
                                              math.floor(end * sc.render.fps + 1e-9) + 1)]
    between, _ = worst_at(whole, *positions(whole), mapping)
    ok = worst <= job["tol"]
    print("measured: %s through Mesh Cache (scene at %g fps, cache at %g fps from its header) vs the "
          "GLB's %s in Blender, at the clip's %d frame times: worst %.3e of the diagonal at %.4f s "
          "(tolerance %g) %s; at the scene's %d whole frames (cache blends samples linearly): %.3e"
          % (job["pc2"], sc.render.fps, clip_fps, job["clip"], len(fr), worst, at, job["tol"],
             "ok" if ok else "FAIL", len(whole), between))
    return ok


def job_export(job, rng):
    import_gltf(job["glb"])
    bpy.ops.export_scene.gltf(filepath=job["out"], export_format="GLB", export_animations=True,
                              export_nla_strips=True, export_force_sampling=False)
    print("measured: %s re-exported by Blender's glTF exporter -> %s (clips %s) ok"
          % (job["glb"], job["out"], ", ".join(clip_names())))
    return True


def rest_pose(glb, scratch):
    """Pose-bone (location, rotation, scale) of every bone at the glTF rest
    TRS: what the importer sets when the file has no animation (a copy of
    the GLB without its "animations" is imported to read it)."""
    with open(glb, "rb") as f:
        data = f.read()
    n = struct.unpack("<I", data[12:16])[0]
    doc = json.loads(data[20:20 + n])
    doc.pop("animations", None)
    text = json.dumps(doc).encode()
    text += b" " * (-len(text) % 4)
    rest_glb = scratch
    body = struct.pack("<II", len(text), 0x4E4F534A) + text + data[20 + n:]
    with open(rest_glb, "wb") as f:
        f.write(struct.pack("<III", 0x46546C67, 2, 12 + len(body)) + body)
    import_gltf(rest_glb)
    return {(o.name, pb.name): (pb.location.copy(), pb.rotation_quaternion.copy(), pb.scale.copy())
            for o in bpy.data.objects if o.type == "ARMATURE" for pb in o.pose.bones}


def job_fbx(job, rng):
    rest_all = rest_pose(job["glb"], job["out"] + ".rest.glb")
    import_gltf(job["glb"])
    # the action of each clip named as the clip, so the FBX stack is
    # "<armature>|<clip>" (the glTF importer names them "<clip>_<object>")
    for i in animated_ids():
        for t in i.animation_data.nla_tracks:
            if t.strips and t.strips[0].action:
                t.strips[0].action.name = t.name.split("|")[-1]
    # Blender keeps an un-keyed bone's previous pose (issue 13 defect 1),
    # and its FBX exporter bakes each action from whatever pose the previous
    # one left (the Quaternius clips do not key every joint): key every bone
    # in every action with the rest pose the glTF gives it
    for arm in [o for o in bpy.data.objects if o.type == "ARMATURE" and o.animation_data]:
        rest = {pb.name: rest_all[(arm.name, pb.name)] for pb in arm.pose.bones}
        for t in arm.animation_data.nla_tracks:
            act = t.strips[0].action if t.strips else None
            if act is None:
                continue
            f0, f1 = act.frame_range
            for name, (loc, rot, scl) in rest.items():
                base = 'pose.bones["%s"].' % bpy.utils.escape_identifier(name)
                for prop, val in (("location", loc), ("rotation_quaternion", rot), ("scale", scl)):
                    if act.fcurves.find(base + prop, index=0):
                        continue
                    for k, v in enumerate(val):
                        fc = act.fcurves.new(base + prop, index=k, action_group=name)
                        fc.keyframe_points.insert(f0, v)
                        fc.keyframe_points.insert(f1, v)
    # every frame keyed (no curve simplification), no leaf bones added
    bpy.ops.export_scene.fbx(filepath=job["out"], bake_anim=True, bake_anim_use_all_actions=True,
                             bake_anim_use_nla_strips=False, bake_anim_simplify_factor=0.0,
                             bake_anim_force_startend_keying=True, add_leaf_bones=False)
    # what the FBX holds, as Blender evaluates it: every clip at every whole
    # frame (scene rate), world space in glTF axes, one PC2 per clip, listed
    # in OUT.clips.json
    sc = bpy.context.scene
    objs = skinned_meshes()
    listing = []
    for i, name in enumerate(clip_names()):
        play(name)
        act = next(t.strips[0].action for o in animated_ids() for t in o.animation_data.nla_tracks
                   if t.name == name and t.strips)
        f0, f1 = (int(round(x)) for x in act.frame_range)
        frames = []
        for f in range(f0, f1 + 1):
            sc.frame_set(f)
            frames.append(world_gltf(objs))
        path = "%s.%d.pc2" % (job["out"], i)
        write_pc2(path, numpy.array(frames), f0 / sc.render.fps, 1.0 / sc.render.fps)
        listing.append({"clip": name, "pc2": path, "fps": sc.render.fps, "frames": len(frames)})
    with open(job["out"] + ".clips.json", "w") as f:
        json.dump(listing, f)
    print("measured: %s exported by Blender's FBX exporter -> %s (actions %s) ok"
          % (job["glb"], job["out"], ", ".join(a.name for a in bpy.data.actions)))
    return True


def write_pc2(path, frames, start, sampling):
    with open(path, "wb") as f:
        f.write(b"POINTCACHE2\0" + struct.pack("<iiffi", 1, frames.shape[1], start, sampling, frames.shape[0]))
        f.write(frames.astype("<f4").tobytes())


def job_compare(job, rng):
    a = read_pc2(job["a"])["frames"]
    b = read_pc2(job["b"])["frames"]
    if len(a) != len(b):
        print("measured: %s has %d frames, %s %d FAIL" % (job["a"], len(a), job["b"], len(b)))
        return False
    diag = diagonal(a[0])
    mapping, ties = correspondence(list(a), list(b), job.get("pair"))
    worst = max(float(numpy.linalg.norm(b[k] - a[k][mapping], axis=1).max()) for k in range(len(a))) / diag
    tol = job.get("tol")
    ok = tol is None or worst <= tol
    print("measured: %s vs %s: %d frames, worst %.3e of the diagonal (tolerance %s; %d coincident vertices "
          "told apart by their motion) %s"
          % (job["b"], job["a"], len(a), worst, "none, reported" if tol is None else "%g" % tol, ties,
             "ok" if ok else "FAIL"))
    return ok


def main():
    argv = sys.argv[sys.argv.index("--") + 1:]
    with open(argv[0]) as f:
        jobs = json.load(f)
    rng = random.Random(13)
    kinds = {"play": job_play, "meshcache": job_meshcache, "export": job_export, "fbx": job_fbx,
             "compare": job_compare}
    failed = 0
    for job in jobs:
        try:
            ok = kinds[job["kind"]](job, rng)
        except Exception as e:  # one line naming the job, then go on
            print("measured: %s job on %s: error: %s FAIL" % (job["kind"], job.get("glb", job.get("a")), e))
            ok = False
        failed += not ok
    print("blender checks: %d ok, %d failed" % (len(jobs) - failed, failed))
    sys.stdout.flush()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
