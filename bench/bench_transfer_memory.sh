#!/usr/bin/env bash
# Peak memory of a big transfer (issue 17 §4): the procedural creature at N
# vertices (`skinfit demo-asset --vertices N`) onto its own autoweights rig
# (`skinfit autoweights`, every welded vertex a constraint), clip Walk (37
# frames at 30 fps), free mode, `-o out.glb`. Prints the peak resident set of
# each step (getrusage of the child, ru_maxrss) and bytes per vertex, and
# whether the GLB equals a reference binary's (second argument) byte for byte.
# Memory, not time: the wall seconds are printed for orientation only.
# usage: bench/bench_transfer_memory.sh [build-dir] [vertices] [reference-skinfit]
#        (defaults: build 2000000; the 2M case needs ~1.4 GB and a few minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build}")/skinfit
n=${2:-2000000}
ref=${3:-}
work=$(mktemp -d /tmp/skf-bench-mem-XXXXXX)
trap 'rm -rf "$work"' EXIT
peak() { # label cmd... -> "label  peak MiB  B/vertex  wall s"
  local label=$1; shift
  python3 - "$label" "$n" "$@" <<'PY'
import resource, subprocess, sys, time
label, n, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
t0 = time.time()
r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.time() - t0
if r.returncode:
    sys.exit(f"{label}: exit {r.returncode}: {r.stderr.decode()[:300]}")
kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB, Linux
print(f"{label:<22} peak RSS {kb / 1024:8.1f} MiB  {kb * 1024 / n:7.0f} B/vertex  {wall:7.1f} s wall")
PY
}
peak "demo-asset" "$bin" demo-asset -o "$work/c.glb" --vertices "$n"
peak "autoweights" "$bin" autoweights "$work/c.glb" -o "$work/aw.glb"
echo "transfer: creature $n vertices -> its autoweights rig, Walk, free, OMP_NUM_THREADS=${OMP_NUM_THREADS:-all}"
peak "transfer" "$bin" transfer --source "$work/c.glb" --target "$work/aw.glb" --clip Walk -o "$work/out.glb"
if [ -n "$ref" ]; then
  peak "transfer (reference)" "$ref" transfer --source "$work/c.glb" --target "$work/aw.glb" --clip Walk -o "$work/ref.glb"
  cmp -s "$work/out.glb" "$work/ref.glb" && echo "GLB byte-identical to the reference's" || echo "GLB DIFFERS from the reference's"
fi
