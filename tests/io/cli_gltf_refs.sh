#!/usr/bin/env bash
# Issue 17 §2: a .gltf cannot pull files from outside its folder into an
# output. buffers[1].uri = "../../../../etc/passwd" (also %2e%2e/, a symlink
# out, /proc) behind an image bufferView, and images[0].uri = "../x.png":
# autoweights and transfer --target exit 1 with one line naming the field,
# the same text whether the outside file exists, is a /proc file or is
# missing, and write nothing; --allow-outside-refs (global option, before or
# after the command) lets trusted files through. No test data needed.
set -u
bin=${SKF_BIN:?}
top=${SKF_BUILD_DIR:-/tmp}/cli_gltf_refs; rm -rf "$top"; mkdir -p "$top/d"; cd "$top/d" || exit 1
command -v python3 > /dev/null || { echo "python3 missing (scripts/setup.sh)"; exit 77; }
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

"$bin" demo-asset -o creature.glb --vertices 600 > /dev/null || { echo "demo-asset failed"; exit 1; }
printf '\x89PNG\r\n\x1a\nSECRET-IMAGE' > ../secret.png
printf '\x89PNG\r\n\x1a\nINSIDE-IMAGE' > tex.png
ln -s ../secret.png link.png; mkdir sub
# fox.gltf + fox.bin: the creature split into JSON and an external buffer;
# variants add buffers[1] (uri U) behind bufferView + images[0], or an image by uri
python3 - <<'PY' || exit 1
import json, struct
glb = open("creature.glb", "rb").read()
jl = struct.unpack_from("<I", glb, 12)[0]
doc = json.loads(glb[20:20 + jl])
bl = struct.unpack_from("<I", glb, 20 + jl)[0]
open("fox.bin", "wb").write(glb[28 + jl:28 + jl + bl])
doc["buffers"][0]["uri"] = "fox.bin"
json.dump(doc, open("fox.gltf", "w"))
def variant(name, uri=None, image=None):
    d = json.loads(json.dumps(doc))
    if uri is not None:
        d["buffers"].append({"uri": uri, "byteLength": 4})
        d["bufferViews"].append({"buffer": 1, "byteLength": 4})
        d["images"] = [{"bufferView": len(d["bufferViews"]) - 1, "mimeType": "image/png"}]
    if image is not None:
        d["images"] = [{"uri": image}]
    json.dump(d, open(name + ".gltf", "w"))
variant("passwd", uri="../../../../../../../../etc/passwd")
variant("pct", uri="%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd")
variant("proc", uri="../../../../../../../../proc/self/status")
variant("missing", uri="../../../../../../../../no/such/file")
variant("inside", uri="sub/../fox.bin")
variant("img_out", image="../secret.png")
variant("img_link", image="link.png")
variant("img_in", image="tex.png")
PY
"$bin" info fox.gltf > /dev/null 2>&1 && ok "fox.gltf loads" || bad "fox.gltf does not load"
"$bin" autoweights creature.glb -o aw.glb > /dev/null 2>&1 || { echo "autoweights failed"; exit 1; }

field="buffers[1].uri"
why="does not resolve to a file inside the glTF file's folder (--allow-outside-refs permits it)"
for g in passwd pct proc missing; do
  expect 1 "autoweights $g.gltf" "skinfit: $g.gltf: $field: '" "$bin" autoweights $g.gltf -o o-$g.glb
  grep -qF -- "$why" err.txt && ok "names the flag" || bad "no flag: $(cat err.txt)"
  sed "s/'[^']*'/URI/; s/^skinfit: [a-z]*\.gltf/F/" err.txt > said-$g.txt
  [ -e o-$g.glb ] && bad "o-$g.glb written" || ok "nothing written for $g"
  expect 1 "transfer --target $g.gltf" "skinfit: $g.gltf: $field: '" \
    "$bin" transfer --source creature.glb --target $g.gltf --clip Walk -o t-$g.glb
  [ -e t-$g.glb ] && bad "t-$g.glb written" || ok "no transfer output for $g"
done
# one text for an existing file, a /proc file and a missing one: no size, no existence
for g in pct proc missing; do
  cmp -s said-passwd.txt said-$g.txt && ok "same text for $g as for /etc/passwd" \
    || bad "texts differ: $(cat said-passwd.txt) / $(cat said-$g.txt)"
done
grep -q "holds\|bytes" said-proc.txt && bad "a size in the text" || ok "no size in the text"
expect 1 "autoweights with an image uri outside" "skinfit: img_out.gltf: images[0].uri: '../secret.png': $why" \
  "$bin" autoweights img_out.gltf -o o.glb
expect 1 "autoweights with an image symlink out" "skinfit: img_link.gltf: images[0].uri: 'link.png': $why" \
  "$bin" autoweights img_link.gltf -o o.glb
expect 1 "bake reads no outside buffer either" "skinfit: passwd.gltf: $field: '" \
  "$bin" bake passwd.gltf --clip Walk -o b.pc2
expect 1 "info refuses too" "skinfit: passwd.gltf: $field: '" "$bin" info passwd.gltf

# inside stays fine; the image inside is embedded
"$bin" autoweights inside.gltf -o in.glb > /dev/null 2> err.txt && ok "sub/../fox.bin loads" || bad "inside: $(cat err.txt)"
"$bin" autoweights img_in.gltf -o in.glb > /dev/null 2> err.txt && grep -q INSIDE-IMAGE in.glb \
  && ok "an image inside is embedded" || bad "inside image: $(cat err.txt)"
# trusted local work: the flag, before or after the command
"$bin" --allow-outside-refs autoweights img_out.gltf -o trusted.glb > /dev/null 2> err.txt \
  && grep -q SECRET-IMAGE trusted.glb && ok "--allow-outside-refs before the command embeds it" \
  || bad "allowed: $(cat err.txt)"
"$bin" transfer --source creature.glb --target img_out.gltf --clip Walk -o trusted2.glb --allow-outside-refs \
  > /dev/null 2> err.txt && grep -q SECRET-IMAGE trusted2.glb && ok "--allow-outside-refs after it" \
  || bad "allowed after: $(cat err.txt)"
"$bin" --allow-outside-refs info passwd.gltf > /dev/null 2> err.txt && ok "allowed: passwd.gltf loads" \
  || bad "allowed passwd.gltf: $(cat err.txt)"

echo "$((checks - fails))/$checks checks passed"
[ "$fails" = 0 ]
