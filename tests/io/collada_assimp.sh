#!/usr/bin/env bash
# Collada in through Assimp (issue 13 section 3; docs/fbx.md), without
# Blender, so it runs in the release and the ASan+UBSan builds alike and
# puts src/io/assimp_read.c under the sanitizers. The test writes its own
# small Collada documents (text, no fixtures): a two-bone skinned strip and a
# tag (a second mesh with its own controller on Bone2, so two meshes share
# the one skin) whose second bone turns 90 degrees about the up axis in 1 s
# (LINEAR matrix keys), worked by hand:
#   Bone1 at the origin, Bone2 its child 1 up; v0 (1,0,0) on Bone1, v1 (0,2,0)
#   and v2 (1,2,0) on Bone2, v3 (1,1,0) half on each. At t = 1 s Bone2's world
#   is T(0,1,0) Rz(90): v1 -> (-1,1,0), v2 -> (-1,2,0); at 0.5 s Rz(45):
#   v2 -> (0, 1+sqrt2, 0); v3 is the mean of its two bones' images; the
#   tag's (0,3,0), (1,3,0), (0,4,0) turn with Bone2.
# Three spellings of that rig must bake to the same glTF world positions
# (within 1e-6 of a unit): Y up in metres; Z up (<up_axis>Z_UP</up_axis>,
# every glTF (x, y, z) written as (x, -z, y)); centimetres (<unit
# meter="0.01">, every length x100). Then: info reads it, a truncated
# document gives one line naming the file (exit 1), and -o OUT.dae is
# refused (outputs are glTF/GLB).
set -u
bin=${SKF_BIN:?}
dir=${SKF_BUILD_DIR:-/tmp}/collada_assimp; rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
fail=0
ok()  { echo "ok   $*"; }
bad() { fail=1; echo "FAIL $*"; }

# write_dae FILE UP METRE: the rig above in the given axes and unit
write_dae() {
  python3 - "$@" <<'PY'
import math, sys
path, up, metre = sys.argv[1], sys.argv[2], float(sys.argv[3])
k = 1.0 / metre                      # file units per metre
def vec(x, y, z):                    # glTF (Y up) -> the file's axes, in file units
    return (x * k, -z * k, y * k) if up == "Z_UP" else (x * k, y * k, z * k)
def mat(rz_deg, tx, ty, tz):         # T(t) Rz(a) in glTF axes -> file axes, row-major
    a = math.radians(rz_deg)
    c, s = math.cos(a), math.sin(a)
    m = [[c, -s, 0, tx * k], [s, c, 0, ty * k], [0, 0, 1, tz * k], [0, 0, 0, 1]]
    if up == "Z_UP":                 # P m P^-1 with P: (x, y, z) -> (x, -z, y)
        P = [[1, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0], [0, 0, 0, 1]]
        Pi = [[1, 0, 0, 0], [0, 0, 1, 0], [0, -1, 0, 0], [0, 0, 0, 1]]
        mul = lambda A, B: [[sum(A[i][t] * B[t][j] for t in range(4)) for j in range(4)] for i in range(4)]
        m = mul(mul(P, m), Pi)
    return " ".join("%.9g" % v for row in m for v in row)
pos = [vec(1, 0, 0), vec(0, 2, 0), vec(1, 2, 0), vec(1, 1, 0)]
tag = [vec(0, 3, 0), vec(1, 3, 0), vec(0, 4, 0)]
def geometry(name, points, triangles):
    """a <geometry> of positions only, triangles as an index list"""
    text = " ".join("%.9g" % c for p in points for c in p)
    return f"""    <geometry id="{name}-mesh" name="{name}"><mesh>
      <source id="{name}-pos"><float_array id="{name}-pos-array" count="{3 * len(points)}">{text}</float_array>
        <technique_common><accessor source="#{name}-pos-array" count="{len(points)}" stride="3">
          <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
        </accessor></technique_common></source>
      <vertices id="{name}-vtx"><input semantic="POSITION" source="#{name}-pos"/></vertices>
      <triangles count="{len(triangles.split()) // 3}"><input semantic="VERTEX" source="#{name}-vtx" offset="0"/><p>{triangles}</p></triangles>
    </mesh></geometry>"""
doc = f"""<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit name="unit" meter="{metre}"/><up_axis>{up}</up_axis></asset>
  <library_geometries>
{geometry("strip", pos, "0 3 1 1 3 2")}
{geometry("tag", tag, "0 1 2")}
  </library_geometries>
  <library_controllers>
    <controller id="strip-skin"><skin source="#strip-mesh">
      <bind_shape_matrix>1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1</bind_shape_matrix>
      <source id="skin-joints"><Name_array id="skin-joints-array" count="2">Bone1 Bone2</Name_array>
        <technique_common><accessor source="#skin-joints-array" count="2" stride="1"><param name="JOINT" type="name"/></accessor></technique_common></source>
      <source id="skin-ibm"><float_array id="skin-ibm-array" count="32">{mat(0, 0, 0, 0)} {mat(0, 0, -1, 0)}</float_array>
        <technique_common><accessor source="#skin-ibm-array" count="2" stride="16"><param name="TRANSFORM" type="float4x4"/></accessor></technique_common></source>
      <source id="skin-w"><float_array id="skin-w-array" count="2">1 0.5</float_array>
        <technique_common><accessor source="#skin-w-array" count="2" stride="1"><param name="WEIGHT" type="float"/></accessor></technique_common></source>
      <joints><input semantic="JOINT" source="#skin-joints"/><input semantic="INV_BIND_MATRIX" source="#skin-ibm"/></joints>
      <vertex_weights count="4">
        <input semantic="JOINT" source="#skin-joints" offset="0"/><input semantic="WEIGHT" source="#skin-w" offset="1"/>
        <vcount>1 1 1 2</vcount><v>0 0 1 0 1 0 0 1 1 1</v>
      </vertex_weights>
    </skin></controller>
    <controller id="tag-skin"><skin source="#tag-mesh">
      <bind_shape_matrix>1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1</bind_shape_matrix>
      <source id="tag-joints"><Name_array id="tag-joints-array" count="1">Bone2</Name_array>
        <technique_common><accessor source="#tag-joints-array" count="1" stride="1"><param name="JOINT" type="name"/></accessor></technique_common></source>
      <source id="tag-ibm"><float_array id="tag-ibm-array" count="16">{mat(0, 0, -1, 0)}</float_array>
        <technique_common><accessor source="#tag-ibm-array" count="1" stride="16"><param name="TRANSFORM" type="float4x4"/></accessor></technique_common></source>
      <source id="tag-w"><float_array id="tag-w-array" count="1">1</float_array>
        <technique_common><accessor source="#tag-w-array" count="1" stride="1"><param name="WEIGHT" type="float"/></accessor></technique_common></source>
      <joints><input semantic="JOINT" source="#tag-joints"/><input semantic="INV_BIND_MATRIX" source="#tag-ibm"/></joints>
      <vertex_weights count="3">
        <input semantic="JOINT" source="#tag-joints" offset="0"/><input semantic="WEIGHT" source="#tag-w" offset="1"/>
        <vcount>1 1 1</vcount><v>0 0 0 0 0 0</v>
      </vertex_weights>
    </skin></controller>
  </library_controllers>
  <library_animations>
    <animation id="Bend" name="Bend">
      <source id="bend-in"><float_array id="bend-in-array" count="3">0 0.5 1</float_array>
        <technique_common><accessor source="#bend-in-array" count="3" stride="1"><param name="TIME" type="float"/></accessor></technique_common></source>
      <source id="bend-out"><float_array id="bend-out-array" count="48">{mat(0, 0, 1, 0)} {mat(45, 0, 1, 0)} {mat(90, 0, 1, 0)}</float_array>
        <technique_common><accessor source="#bend-out-array" count="3" stride="16"><param name="TRANSFORM" type="float4x4"/></accessor></technique_common></source>
      <source id="bend-interp"><Name_array id="bend-interp-array" count="3">LINEAR LINEAR LINEAR</Name_array>
        <technique_common><accessor source="#bend-interp-array" count="3" stride="1"><param name="INTERPOLATION" type="name"/></accessor></technique_common></source>
      <sampler id="bend-sampler"><input semantic="INPUT" source="#bend-in"/><input semantic="OUTPUT" source="#bend-out"/>
        <input semantic="INTERPOLATION" source="#bend-interp"/></sampler>
      <channel source="#bend-sampler" target="Bone2/transform"/>
    </animation>
  </library_animations>
  <library_visual_scenes>
    <visual_scene id="Scene" name="Scene">
      <node id="Armature" name="Armature" type="NODE">
        <node id="Bone1" name="Bone1" sid="Bone1" type="JOINT"><matrix sid="transform">{mat(0, 0, 0, 0)}</matrix>
          <node id="Bone2" name="Bone2" sid="Bone2" type="JOINT"><matrix sid="transform">{mat(0, 0, 1, 0)}</matrix></node>
        </node>
      </node>
      <node id="Strip" name="Strip" type="NODE">
        <instance_controller url="#strip-skin"><skeleton>#Bone1</skeleton></instance_controller>
      </node>
      <node id="Tag" name="Tag" type="NODE">
        <instance_controller url="#tag-skin"><skeleton>#Bone1</skeleton></instance_controller>
      </node>
    </visual_scene>
  </library_visual_scenes>
  <scene><instance_visual_scene url="#Scene"/></scene>
</COLLADA>
"""
open(path, "w").write(doc)
PY
}

for v in "y_m Y_UP 1" "z_m Z_UP 1" "y_cm Y_UP 0.01"; do
  set -- $v
  write_dae "$1.dae" "$2" "$3" || { bad "writing $1.dae"; continue; }
  if ! "$bin" bake "$1.dae" --clip Bend --fps 2 -o "$1.pc2" > "$1.log" 2>&1; then
    bad "bake $1.dae ($2, metre $3): $(cat "$1.log")"; continue
  fi
  # frames at 0, 0.5, 1 s
  python3 - "$1.pc2" "$1 ($2, metre $3)" <<'PY' || fail=1
import math, struct, sys
data = open(sys.argv[1], "rb").read()
_, n, start, samp, frames = struct.unpack("<iiffi", data[12:32])
got = struct.unpack("<%df" % (3 * n * frames), data[32:])
# rest position and weights (Bone1, Bone2) of every vertex: the strip, then the tag
rest = [((1, 0, 0), 1), ((0, 2, 0), 0), ((1, 2, 0), 0), ((1, 1, 0), 0.5), ((0, 3, 0), 0), ((1, 3, 0), 0), ((0, 4, 0), 0)]
def want(p, w1, t):
    # Bone1 keeps p; Bone2 is T(0,1,0) Rz(90 t) over its bind T(0,1,0)
    a = math.radians(90 * t)
    x, y = p[0], p[1] - 1
    q = (x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a) + 1, p[2])
    return tuple(w1 * pi + (1 - w1) * qi for pi, qi in zip(p, q))
def at(f, v):
    return got[3 * (n * f + v): 3 * (n * f + v) + 3]
# Assimp joins the corners of the triangles back into vertices in its own
# order: each hand-worked vertex is the one at its rest position
order = [min(range(n), key=lambda v: sum((a - b) ** 2 for a, b in zip(at(0, v), p))) for p, _ in rest]
worst = 0.0 if (n, frames) == (len(rest), 3) and len(set(order)) == len(rest) else float("inf")
for f in range(min(frames, 3)):
    for (p, w1), v in zip(rest, order):
        worst = max(worst, max(abs(a - b) for a, b in zip(at(f, v), want(p, w1, 0.5 * f))))
ok = worst <= 1e-6
print("%s %s: %d vertices (two meshes, one skin) x %d frames, worst %.2e of a unit from the hand-worked "
      "positions (tolerance 1e-6)" % ("ok  " if ok else "FAIL", sys.argv[2], n, frames, worst))
sys.exit(0 if ok else 1)
PY
done
"$bin" info z_m.dae > info.txt 2>&1 && grep -q "skin 0:" info.txt && grep -q "Bend" info.txt \
  && ok "info z_m.dae: $(grep 'skin 0:' info.txt)" || bad "info: $(cat info.txt)"
head -c 1500 y_m.dae > broken.dae
"$bin" info broken.dae > b.txt 2> b.err; rc=$?
[ $rc = 1 ] && [ "$(wc -l < b.err)" = 1 ] && grep -q "^skinfit: broken.dae: " b.err && ok "truncated Collada: $(cat b.err)" \
  || bad "truncated dae: exit $rc: $(cat b.err)"
"$bin" autoweights y_m.dae -o out.dae > o.txt 2> o.err; rc=$?
[ $rc = 1 ] && [ ! -e out.dae ] && grep -q "out.dae: outputs are glTF/GLB" o.err && ok "an .dae output is refused: $(cat o.err)" \
  || bad "dae output: exit $rc: $(cat o.err)"
[ $fail = 0 ] && echo "all Collada checks passed" || echo "some Collada checks FAILED"
exit $fail
