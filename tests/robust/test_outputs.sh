#!/usr/bin/env bash
# Issue 17 §1: an output never replaces anything the run reads (the input, a
# glTF's external buffers and images, rest meshes, OBJ frames), compared by
# file identity (./, dir/.., symlinks, hard links); two outputs of one run
# naming the same file are a usage error (exit 2). No test data needed.
set -u
bin=${SKF_BIN:?}
dir=${SKF_BUILD_DIR:-/tmp}/robust_outputs; rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
fails=0; checks=0
ok()  { checks=$((checks + 1)); echo "ok   $*"; }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL $*"; }
# expect RC DESCRIPTION WANTED-TEXT CMD...: exit code, one stderr line holding the text
expect() {
  local want=$1 what=$2 text=$3; shift 3
  "$@" > out.txt 2> err.txt; local rc=$?
  if [ "$rc" = "$want" ] && [ "$(wc -l < err.txt)" = 1 ] && grep -qF -- "$text" err.txt; then
    ok "$what (exit $rc: $(cat err.txt))"
  else
    bad "$what: exit $rc, want $want with '$text'; stderr: $(head -c 600 err.txt)"
  fi
}
sums() { cksum "$@" 2>/dev/null; }

"$bin" demo-asset -o creature.glb --vertices 600 > /dev/null || { echo "demo-asset failed"; exit 1; }
# fox.gltf + fox.bin: the creature split into JSON and an external buffer
jl=$(od -An -tu4 -j12 -N4 creature.glb | tr -d ' ')
bl=$(od -An -tu4 -j$((20 + jl)) -N4 creature.glb | tr -d ' ')
head -c $((20 + jl)) creature.glb | tail -c "$jl" | sed 's/"buffers":\[{"byteLength":/"buffers":[{"uri":"fox.bin","byteLength":/' > fox.gltf
tail -c +$((20 + jl + 8 + 1)) creature.glb | head -c "$bl" > fox.bin
grep -q '"uri":"fox.bin"' fox.gltf || { echo "could not make fox.gltf"; exit 1; }
"$bin" info fox.gltf > /dev/null 2>&1 && ok "fox.gltf loads" || bad "fox.gltf does not load"
"$bin" autoweights creature.glb -o aw.glb > /dev/null 2>&1 || { echo "autoweights failed"; exit 1; }
before=$(sums fox.gltf fox.bin creature.glb aw.glb)

# external buffers are inputs
expect 1 "transfer -o the target's buffer" "fox.bin: refusing to overwrite an input file (fox.gltf: buffers[0].uri)" \
  "$bin" transfer --source creature.glb --target fox.gltf --clip Walk -o fox.bin
expect 1 "autoweights -o the input's buffer" "refusing to overwrite an input file" \
  "$bin" autoweights fox.gltf -o fox.bin
expect 1 "transfer --report onto the source's buffer" "refusing to overwrite an input file" \
  "$bin" transfer --source fox.gltf --target aw.glb --clip Walk -o t.glb --report ./fox.bin
sed 's/"uri":"fox.bin"/"uri":"f0.bin"/' fox.gltf > f.gltf; cp fox.bin f0.bin
expect 1 "bake -o a pattern whose frame 0 is the buffer" "f0.bin: refusing to overwrite an input file (f.gltf: buffers[0].uri)" \
  "$bin" bake f.gltf --clip Walk -o 'f%d.bin'
# identity, not text: ./, dir/.., symlink, hard link
mkdir -p sub
ln -sf ../fox.bin sub/link.bin; ln -f fox.bin hard.bin
expect 1 "output via dir/.." "refusing to overwrite" "$bin" autoweights fox.gltf -o sub/../fox.bin
expect 1 "output is a symlink to the buffer" "refusing to overwrite" "$bin" autoweights fox.gltf -o sub/link.bin
expect 1 "output is a hard link of the buffer" "refusing to overwrite" "$bin" autoweights fox.gltf -o hard.bin
expect 1 "output is the input itself, as ./" "refusing to overwrite" "$bin" autoweights creature.glb -o ./creature.glb
# external images are inputs (the writer embeds them)
printf '\x89PNG\r\n\x1a\n' > tex.png
sed 's/"asset":{/"images":[{"uri":"tex.png"}],"asset":{/' fox.gltf > img.gltf
grep -q '"images":\[{"uri":"tex.png"}\]' img.gltf || bad "could not make img.gltf"
expect 1 "autoweights -o the input's image" "(img.gltf: images[0].uri)" "$bin" autoweights img.gltf -o tex.png
[ "$(sums fox.gltf fox.bin creature.glb aw.glb)" = "$before" ] && ok "inputs unchanged" || bad "an input changed"
rm -f sub/link.bin hard.bin

# two outputs of one run naming the same file: usage error
expect 2 "-o o.glb --report ./o.glb" "-o o.glb and --report ./o.glb name the same file" \
  "$bin" transfer --source creature.glb --target aw.glb --clip Walk -o o.glb --report ./o.glb
expect 2 "-o o.glb --html o.glb" "name the same file" \
  "$bin" transfer --source creature.glb --target aw.glb --clip Walk -o o.glb --html o.glb
expect 2 "-o o.glb --html sub/../o.glb" "name the same file" \
  "$bin" transfer --source creature.glb --target aw.glb --clip Walk -o o.glb --html sub/../o.glb
expect 2 "control --report r.json --html ./r.json" "name the same file" \
  "$bin" control creature.glb --report r.json --html ./r.json
[ ! -e o.glb ] && [ ! -e r.json ] && ok "nothing written" || bad "an output was written"

# decompose: the rest mesh, the OBJ frames and the output among themselves
mkdir -p seq
"$bin" bake creature.glb --clip Walk -o seq/ > /dev/null 2>&1 || bad "bake seq/"
cp seq/frame_0000.obj Bone_rest.obj
rest_before=$(sums Bone_rest.obj seq/frame_0003.obj)
expect 1 "decompose --report onto the rest mesh" "Bone_rest.obj: refusing to overwrite an input file" \
  "$bin" decompose seq --rest Bone_rest.obj --bones 4 -o d.glb --report Bone_rest.obj
expect 1 "decompose --reconstruction onto the rest mesh" "refusing to overwrite an input file" \
  "$bin" decompose seq --rest Bone_rest.obj --bones 4 -o d.glb --reconstruction Bone_rest.obj
expect 1 "decompose --report onto an OBJ frame" "(frame 3 of seq)" \
  "$bin" decompose seq --bones 4 -o d.glb --report seq/frame_0003.obj
expect 2 "decompose -o d.glb --reconstruction d.glb" "name the same file" \
  "$bin" decompose seq --bones 4 -o d.glb --reconstruction d.glb
expect 1 "decompose of a .gltf: --report onto its buffer" "(fox.gltf: buffers[0].uri)" \
  "$bin" decompose fox.gltf --clip Walk --bones 4 -o d.glb --report fox.bin
[ "$(sums Bone_rest.obj seq/frame_0003.obj)" = "$rest_before" ] && ok "rest mesh and frames unchanged" || bad "rest mesh or a frame changed"
[ ! -e d.glb ] && ok "no decompose output" || bad "decompose wrote d.glb"

# bake into a folder holding the input
cp creature.glb seq/rig.glb
expect 1 "bake -o the folder holding its input" "refusing to write into a folder holding an input file" \
  "$bin" bake seq/rig.glb --clip Walk -o seq/

echo "$((checks - fails)) passed, $fails failed"
[ $fails = 0 ]
