#!/usr/bin/env bash
# Issue 17 §4: a transfer's memory is bounded by the meshes, not by the clip.
# The clip is streamed through a bounded window of frames (docs/bench.md
# "Where the memory of a transfer goes"), so (1) the peak resident set does
# not grow with the number of frames: the creature at 50k vertices onto its
# autoweights rig sampled at 30 fps (37 frames) and at 240 fps (289 frames)
# peak within 10 % of each other (before: 143 vs 720 MiB, every frame held
# twice in doubles); (2) the bytes per vertex stay under the figure that keeps the 2M-
# vertex case under 1.5 GB: at 200k vertices peak RSS / vertex < 1400 B
# (before: 2750 B; the 2M figure itself: bench/bench_transfer_memory.sh).
# Memory, not time. Not run under the sanitizers (their shadow memory and
# quarantine make resident-set figures meaningless): exit 77 there (argument
# 1: the build's SKF_SANITIZE, ON or OFF).
set -u
bin=${SKF_BIN:?}
[ "${1:-OFF}" = ON ] && { echo "sanitizer build: resident-set figures not meaningful, skipped"; exit 77; }
dir=${SKF_BUILD_DIR:-/tmp}/transfer_memory; rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
fails=0; checks=0
ok()  { checks=$((checks + 1)); echo "ok   $*"; }
bad() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL $*"; }
peak_kib() { # cmd... -> peak RSS of the command in KiB (exit status kept)
  python3 -c '
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=open("out.txt", "w"), stderr=open("err.txt", "w"))
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(r.returncode)' "$@"
}
"$bin" demo-asset -o c50k.glb --vertices 50000 > /dev/null || exit 1
"$bin" autoweights c50k.glb -o aw50k.glb > /dev/null || exit 1
a=$(peak_kib "$bin" transfer --source c50k.glb --target aw50k.glb --clip Walk --fps 30 -o a.glb); rca=$?
b=$(peak_kib "$bin" transfer --source c50k.glb --target aw50k.glb --clip Walk --fps 240 -o b.glb); rcb=$?
frames=$(awk '$1 == "Walk" && $3 == "free" {print $2}' out.txt)
[ $rca = 0 ] && [ $rcb = 0 ] && [ "$frames" = 289 ] && [ $((b * 10)) -lt $((a * 11)) ] \
  && ok "50k vertices: peak RSS $((a / 1024)) MiB at 37 frames, $((b / 1024)) MiB at $frames frames (within 10 %)" \
  || bad "50k: exit $rca/$rcb, $frames frames, peak $((a / 1024)) vs $((b / 1024)) MiB"
"$bin" demo-asset -o c200k.glb --vertices 200000 > /dev/null || exit 1
"$bin" autoweights c200k.glb -o aw200k.glb > /dev/null || exit 1
c=$(peak_kib "$bin" transfer --source c200k.glb --target aw200k.glb --clip Walk -o c.glb); rc=$?
n=$(awk '/^source:/ {print $3}' out.txt)
per=$(( c * 1024 / ${n:-1} ))
[ $rc = 0 ] && [ "${n:-0}" -gt 190000 ] && [ $per -lt 1400 ] \
  && ok "200k: $n vertices, peak RSS $((c / 1024)) MiB = $per B per vertex (< 1400)" \
  || bad "200k: exit $rc, $n vertices, peak $((c / 1024)) MiB = $per B per vertex"
echo "$((checks - fails)) passed, $fails failed"
[ $fails = 0 ]
