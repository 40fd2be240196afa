#!/usr/bin/env bash
# Issue 17 §6: every error line names the file and the place. Cases: a bake
# whose clip has more frames than the limit (named the clip but not the
# file), --fps values out of range (called "not a positive number"), a clip
# of a huge time range (the frame count printed as the clamp 2147483648; the
# decompose line without the file), the --min-quality line without the file.
set -u
bin=${SKF_BIN:?}
dir=${SKF_BUILD_DIR:-/tmp}/robust_messages; rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
fails=0; checks=0
ok()  { checks=$((checks + 1)); echo "ok   $*"; }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL $*"; }
expect() { # rc text args...
  local want=$1 text=$2; shift 2
  "$bin" "$@" > out.txt 2> err.txt; local rc=$?
  [ $rc = "$want" ] && [ "$(wc -l < err.txt)" = 1 ] && grep -qF -- "$text" err.txt \
    && ok "$* (exit $rc: $(cat err.txt))" || bad "$*: exit $rc, want $want with '$text': $(cat err.txt)"
}
"$bin" demo-asset -o creature.glb --vertices 600 > /dev/null || exit 1
expect 1 "skinfit: creature.glb: animations[0]: Walk: " --limit frames=10 bake creature.glb --clip Walk -o x.pc2
grep -q "the limit frames=10" err.txt && ok "names the limit" || bad "limit not named: $(cat err.txt)"
expect 2 "--fps: '1e9' is not a number in (0, 1e6]" bake creature.glb --clip Walk --fps 1e9 -o x.pc2
expect 2 "--fps: '1e9' is not a number in (0, 1e4]" render --source creature.glb --clip Walk --rig creature.glb --fps 1e9 -o x.png
expect 2 "--fps: '1e9' is not a number in (0, 1e6]" decompose creature.glb --bones 3 --fps 1e9 -o x.glb
# a clip of a huge time range (its last key at 3e30 s) sampled at 30 fps: the
# real frame count (9e+31), not the clamp 2147483648, with the file and clip
node "$SKF_SOURCE_DIR/tests/transfer/glb_edit.mjs" creature.glb huge.glb clip-end Walk=3e30 2> /dev/null || cp creature.glb huge.glb
expect 1 "skinfit: huge.glb: animations[0]: Walk: 9e+31 frames at 30 fps exceed the limit frames=" bake huge.glb --clip Walk --fps 30 -o x.pc2
expect 1 "skinfit: huge.glb: animations[0] ('Walk'): 9e+31 frames at 30 fps exceed" transfer --source huge.glb --target creature.glb --clip Walk --fps 30 -o x.glb
expect 1 "skinfit: huge.glb: animations[0] ('Walk'): 9e+31 frames at 30 fps exceed" render --source huge.glb --clip Walk --rig creature.glb --fps 30 -o x.png
expect 1 "skinfit: huge.glb: animations[0]: Walk: 9e+31 frames at 30 fps exceed" decompose huge.glb --bones 3 --fps 30 -o x.glb
expect 1 "skinfit: huge.glb: animations[0]: Walk: 9e+31 frames" --limit frames=2147483648 bake huge.glb --clip Walk --fps 30 -o x.pc2
# the quality gate's line names the file whose rig it measured
expect 3 "skinfit: creature.glb: Walk: quality" control creature.glb --clip Walk --min-quality 100
[ ! -e x.pc2 ] && [ ! -e x.png ] && [ ! -e x.glb ] && ok "no outputs" || bad "an output was written"
echo "$((checks - fails)) passed, $fails failed"
[ $fails = 0 ]
