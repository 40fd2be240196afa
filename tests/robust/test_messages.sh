#!/usr/bin/env bash
# Issue 17 §6: every error line names the file and the place. Cases: a bake
# whose clip has more frames than the limit (named the clip but not the
# file), and --fps values out of range (called "not a positive number").
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
[ ! -e x.pc2 ] && [ ! -e x.png ] && [ ! -e x.glb ] && ok "no outputs" || bad "an output was written"
echo "$((checks - fails)) passed, $fails failed"
[ $fails = 0 ]
