#!/usr/bin/env bash
# `skinfit transfer --html` against `skinfit transfer` (issue #15, acceptance 2):
# the six shared animals' Walk onto their autoweights rigs, free mode, one
# thread (OMP_NUM_THREADS=1, so the figures do not depend on the core count).
# Each command runs REPS times (default 5); the best wall time and the best
# CPU time (user + sys, from getrusage of the child) count. Prints per animal
# and in total both times and the ratio html / plain. The page's pictures come
# from the per-vertex errors the transfer returned: the difference is drawing
# the heat map, encoding it as PNG and writing the page.
# THREADS=N sets the OpenMP thread count (default 1; THREADS=default leaves
# OMP_NUM_THREADS unset: every core, the user's view of wall time).
# usage: [THREADS=N|default] bench/bench_html.sh [build-dir] [reps]   (default build, 5)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build}")/skinfit
reps=${2:-5}
data=$(realpath "${SKF_DATA:-../shared/data}")
work=$(mktemp -d /tmp/skf-bench-html-XXXXXX)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
if [ "${THREADS:-1}" = default ]; then unset OMP_NUM_THREADS; else export OMP_NUM_THREADS=${THREADS:-1}; fi
for a in Horse Deer Fox Wolf Cow Alpaca; do
  "$bin" autoweights "$data/quaternius/animals/$a.glb" -o "$work/${a}_aw.glb" > /dev/null 2>&1
done
python3 - "$bin" "$data" "$work" "$reps" <<'PY'
import os, resource, subprocess, sys, time
bin, data, work, reps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def best(args):
    wall, cpu = [], []
    for _ in range(reps):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN); t0 = time.monotonic()
        subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        t1 = time.monotonic(); r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall.append(t1 - t0)
        cpu.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    return min(wall), min(cpu)
print(f"{'animal':<7} {'plain s':>9} {'html s':>9} {'ratio':>6}   {'plain cpu':>9} {'html cpu':>9} {'ratio':>6}")
tot = [0.0] * 4
for a in ["Horse", "Deer", "Fox", "Wolf", "Cow", "Alpaca"]:
    base = [bin, "transfer", "--source", f"{data}/quaternius/animals/{a}.glb", "--target",
            f"{work}/{a}_aw.glb", "--clip", "Walk", "-o", f"{work}/out.glb"]
    w0, c0 = best(base)
    w1, c1 = best(base + ["--html", f"{work}/out.html"])
    for k, v in enumerate((w0, w1, c0, c1)):
        tot[k] += v
    print(f"{a:<7} {w0:9.3f} {w1:9.3f} {w1 / w0:6.2f}   {c0:9.3f} {c1:9.3f} {c1 / c0:6.2f}")
w0, w1, c0, c1 = tot
print(f"{'total':<7} {w0:9.3f} {w1:9.3f} {w1 / w0:6.2f}   {c0:9.3f} {c1:9.3f} {c1 / c0:6.2f}")
PY
