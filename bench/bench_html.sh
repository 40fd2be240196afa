#!/usr/bin/env bash
# `skinfit transfer --html` against `skinfit transfer` (issue #15, acceptance 2):
# the six shared animals' Walk onto their autoweights rigs, free mode. One run
# prints, per animal and in total, three ratios html / plain:
#   - CPU time at one thread (OMP_NUM_THREADS=1: user + sys of the child, best of REPS),
#   - wall time at two threads (OMP_NUM_THREADS=2, best of REPS),
#   - instructions at one thread (valgrind callgrind, deterministic; for the
#     animals in $INSTR, default Horse; INSTR=all for the six, INSTR=none to skip).
# The page's pictures come from the per-vertex errors the transfer returned:
# the difference is drawing the heat map, encoding it as PNG and writing the page.
# usage: [INSTR=Horse|all|none] bench/bench_html.sh [build-dir] [reps]   (default build, 5)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build}")/skinfit
reps=${2:-5}
data=$(realpath "${SKF_DATA:-../shared/data}")
work=$(mktemp -d /tmp/skf-bench-html-XXXXXX)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
instr=${INSTR:-Horse}
[ "$instr" = all ] && instr="Horse Deer Fox Wolf Cow Alpaca"
[ "$instr" = none ] && instr=""
if [ -n "$instr" ] && ! command -v valgrind > /dev/null; then
  echo "bench_html: no valgrind: instruction counts skipped"; instr=""
fi
for a in Horse Deer Fox Wolf Cow Alpaca; do
  "$bin" autoweights "$data/quaternius/animals/$a.glb" -o "$work/${a}_aw.glb" > /dev/null 2>&1
done
python3 - "$bin" "$data" "$work" "$reps" "$instr" <<'PY'
import os, re, resource, subprocess, sys, time
bin, data, work, reps, instr = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5].split()
def env(threads):
    e = dict(os.environ)
    e["OMP_NUM_THREADS"] = str(threads)
    return e
def best(args, threads):
    wall, cpu = [], []
    for _ in range(reps):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN); t0 = time.monotonic()
        subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env(threads))
        t1 = time.monotonic(); r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall.append(t1 - t0)
        cpu.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    return min(wall), min(cpu)
def instructions(args):
    out = os.path.join(work, "cg.out")
    r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out] + args,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True, env=env(1))
    m = re.findall(r"Collected : (\d+)", r.stderr) or re.findall(r"I\s+refs:\s+([\d,]+)", r.stderr)
    return int(m[-1].replace(",", "")) if m else float("nan")
print(f"{'animal':<7} {'CPU 1 thread (s)':>26} {'wall 2 threads (s)':>26} {'instructions, 1 thread (M)':>30}")
print(f"{'':<7} {'plain':>8} {'html':>8} {'ratio':>8} {'plain':>8} {'html':>8} {'ratio':>8} {'plain':>10} {'html':>10} {'ratio':>8}")
tot = [0.0] * 6
for a in ["Horse", "Deer", "Fox", "Wolf", "Cow", "Alpaca"]:
    base = [bin, "transfer", "--source", f"{data}/quaternius/animals/{a}.glb", "--target",
            f"{work}/{a}_aw.glb", "--clip", "Walk", "-o", f"{work}/out.glb"]
    html = base + ["--html", f"{work}/out.html"]
    _, c0 = best(base, 1)
    _, c1 = best(html, 1)
    w0, _ = best(base, 2)
    w1, _ = best(html, 2)
    i0 = i1 = None
    if a in instr:
        i0, i1 = instructions(base) / 1e6, instructions(html) / 1e6
        tot[4] += i0; tot[5] += i1
    for k, v in enumerate((c0, c1, w0, w1)):
        tot[k] += v
    ins = f"{i0:10.0f} {i1:10.0f} {i1 / i0:8.2f}" if i0 else f"{'-':>10} {'-':>10} {'-':>8}"
    print(f"{a:<7} {c0:8.3f} {c1:8.3f} {c1 / c0:8.2f} {w0:8.3f} {w1:8.3f} {w1 / w0:8.2f} {ins}", flush=True)
c0, c1, w0, w1, i0, i1 = tot
ins = f"{i0:10.0f} {i1:10.0f} {i1 / i0:8.2f}" if i0 else f"{'-':>10} {'-':>10} {'-':>8}"
print(f"{'total':<7} {c0:8.3f} {c1:8.3f} {c1 / c0:8.2f} {w0:8.3f} {w1:8.3f} {w1 / w0:8.2f} {ins}")
print(f"(load average at the end: {os.getloadavg()[0]:.1f}; instructions for: {' '.join(instr) or 'none'})")
PY
