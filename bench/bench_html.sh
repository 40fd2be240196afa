#!/usr/bin/env bash
# `skinfit transfer --html` against `skinfit transfer` (issue #15, acceptance 2):
# the six shared animals' Walk onto their autoweights rigs, free mode. One run
# prints, per animal and in total, html / plain ratios of
#   - CPU time at one thread (OMP_NUM_THREADS=1: user + sys of the child),
#   - wall time at two threads (OMP_NUM_THREADS=2),
#   - minor page faults and peak RSS of the child (one thread),
#   - instructions at one thread (valgrind callgrind, deterministic; for the
#     animals in $INSTR, default Horse; INSTR=all for the six, INSTR=none to skip).
# The timed runs are interleaved (plain, html, plain, html, ... REPS rounds of
# the four commands per animal) and each figure is the median of its REPS runs,
# so that a shared machine's load drifts over both sides alike; the load
# average is printed at the start and the end.
# The page's pictures come from the per-vertex errors the transfer returned:
# the difference is drawing the heat map, encoding it as PNG and writing the page.
# usage: [INSTR=Horse|all|none] bench/bench_html.sh [build-dir] [reps]   (default build, 7)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build}")/skinfit
reps=${2:-7}
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
import os, re, statistics, subprocess, sys, time
bin, data, work, reps, instr = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5].split()
def env(threads):
    e = dict(os.environ)
    e["OMP_NUM_THREADS"] = str(threads)
    return e
def run(args, threads):
    """One child: (CPU s = user + sys, wall s, minor faults, peak RSS MiB), from wait4."""
    null = os.open(os.devnull, os.O_WRONLY)
    t0 = time.monotonic()
    pid = os.posix_spawn(args[0], args, env(threads), file_actions=[
        (os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)])
    _, status, ru = os.wait4(pid, 0)
    t1 = time.monotonic()
    os.close(null)
    if status != 0:
        sys.exit(f"bench_html: {' '.join(args)}: exit status {status}")
    return ru.ru_utime + ru.ru_stime, t1 - t0, ru.ru_minflt, ru.ru_maxrss / 1024
def instructions(args):
    out = os.path.join(work, "cg.out")
    r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out] + args,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True, env=env(1))
    m = re.findall(r"Collected : (\d+)", r.stderr) or re.findall(r"I\s+refs:\s+([\d,]+)", r.stderr)
    return int(m[-1].replace(",", "")) if m else float("nan")
med = statistics.median
print(f"(load average at the start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}; {reps} interleaved rounds, medians)")
print(f"{'animal':<7} {'CPU 1 thread (s)':>26} {'wall 2 threads (s)':>26} {'minor faults, 1 thread':>24} {'peak RSS (MiB)':>16} {'instructions, 1 thread (M)':>30}")
print(f"{'':<7} {'plain':>8} {'html':>8} {'ratio':>8} {'plain':>8} {'html':>8} {'ratio':>8} {'plain':>7} {'html':>7} {'ratio':>8} {'plain':>7} {'html':>7}  {'plain':>9} {'html':>9} {'ratio':>8}")
tot = [0.0] * 8
for a in ["Horse", "Deer", "Fox", "Wolf", "Cow", "Alpaca"]:
    base = [bin, "transfer", "--source", f"{data}/quaternius/animals/{a}.glb", "--target",
            f"{work}/{a}_aw.glb", "--clip", "Walk", "-o", f"{work}/out.glb"]
    html = base + ["--html", f"{work}/out.html"]
    runs = {k: [] for k in ("p1", "h1", "p2", "h2")}
    for _ in range(reps):
        runs["p1"].append(run(base, 1))
        runs["h1"].append(run(html, 1))
        runs["p2"].append(run(base, 2))
        runs["h2"].append(run(html, 2))
    c0, c1 = (med(x[0] for x in runs[k]) for k in ("p1", "h1"))
    w0, w1 = (med(x[1] for x in runs[k]) for k in ("p2", "h2"))
    f0, f1 = (med(x[2] for x in runs[k]) for k in ("p1", "h1"))
    m0, m1 = (med(x[3] for x in runs[k]) for k in ("p1", "h1"))
    i0 = i1 = None
    if a in instr:
        i0, i1 = instructions(base) / 1e6, instructions(html) / 1e6
        tot[6] += i0; tot[7] += i1
    for k, v in enumerate((c0, c1, w0, w1, f0, f1)):
        tot[k] += v
    ins = f"{i0:9.0f} {i1:9.0f} {i1 / i0:8.2f}" if i0 else f"{'-':>9} {'-':>9} {'-':>8}"
    print(f"{a:<7} {c0:8.3f} {c1:8.3f} {c1 / c0:8.2f} {w0:8.3f} {w1:8.3f} {w1 / w0:8.2f} {f0:7.0f} {f1:7.0f} {f1 / f0:8.2f} {m0:7.1f} {m1:7.1f}  {ins}", flush=True)
c0, c1, w0, w1, f0, f1, i0, i1 = tot
ins = f"{i0:9.0f} {i1:9.0f} {i1 / i0:8.2f}" if i0 else f"{'-':>9} {'-':>9} {'-':>8}"
print(f"{'total':<7} {c0:8.3f} {c1:8.3f} {c1 / c0:8.2f} {w0:8.3f} {w1:8.3f} {w1 / w0:8.2f} {f0:7.0f} {f1:7.0f} {f1 / f0:8.2f} {'':>7} {'':>7}  {ins}")
print(f"(load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}; instructions for: {' '.join(instr) or 'none'})")
PY
