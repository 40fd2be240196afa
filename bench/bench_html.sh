#!/usr/bin/env bash
# `skinfit transfer --html` against `skinfit transfer` (issue #15, acceptance 2):
# the six shared animals' Walk onto their autoweights rigs, free mode, one
# thread (OMP_NUM_THREADS=1, so the figures do not depend on the core count).
# Each command runs REPS times (default 5); the best wall time and the best
# CPU time (user + sys) count. Prints per animal and in total the two times
# and the ratio html / plain. The page's pictures come from the per-vertex
# errors the transfer returned, so the difference is drawing and encoding.
# usage: bench/bench_html.sh [build-dir] [reps]   (default build, 5)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build}")/skinfit
reps=${2:-5}
data=$(realpath "${SKF_DATA:-../shared/data}")
work=$(mktemp -d /tmp/skf-bench-html-XXXXXX)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
best() { # reps command... -> "wall cpu" (seconds, best of reps each)
  local n=$1; shift
  for ((i = 0; i < n; ++i)); do
    /usr/bin/time -f "%e %U %S" -o "$work/t" "$@" > /dev/null 2>&1
    awk '{ printf "%s %.3f\n", $1, $2 + $3 }' "$work/t"
  done | sort -n -k1,1 | awk 'NR == 1 { w = $1 } { c = (NR == 1 || $2 < c) ? $2 : c } END { print w, c }'
}
printf '%-7s %10s %10s %7s   %10s %10s %7s\n' animal "plain s" "html s" ratio "plain cpu" "html cpu" ratio
tw0=0; tw1=0; tc0=0; tc1=0
for a in Horse Deer Fox Wolf Cow Alpaca; do
  src=$data/quaternius/animals/$a.glb
  "$bin" autoweights "$src" -o "$work/${a}_aw.glb" > /dev/null
  args=(transfer --source "$src" --target "$work/${a}_aw.glb" --clip Walk -o "$work/out.glb")
  read -r w0 c0 < <(best "$reps" "$bin" "${args[@]}")
  read -r w1 c1 < <(best "$reps" "$bin" "${args[@]}" --html "$work/out.html")
  awk -v a="$a" -v w0="$w0" -v w1="$w1" -v c0="$c0" -v c1="$c1" \
    'BEGIN { printf "%-7s %10.3f %10.3f %7.2f   %10.3f %10.3f %7.2f\n", a, w0, w1, w1 / w0, c0, c1, c1 / c0 }'
  tw0=$(awk -v x="$tw0" -v y="$w0" 'BEGIN { print x + y }'); tw1=$(awk -v x="$tw1" -v y="$w1" 'BEGIN { print x + y }')
  tc0=$(awk -v x="$tc0" -v y="$c0" 'BEGIN { print x + y }'); tc1=$(awk -v x="$tc1" -v y="$c1" 'BEGIN { print x + y }')
done
awk -v w0="$tw0" -v w1="$tw1" -v c0="$tc0" -v c1="$tc1" \
  'BEGIN { printf "%-7s %10.3f %10.3f %7.2f   %10.3f %10.3f %7.2f\n", "total", w0, w1, w1 / w0, c0, c1, c1 / c0 }'
