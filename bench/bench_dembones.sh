#!/usr/bin/env bash
# Dem Bones vs skinfit decompose, measured on the same machine in one run.
#
# Builds bench/dembones/driver.cpp (our code) against the headers of a Dem
# Bones checkout the user supplies (https://github.com/electronicarts/dem-bones),
# runs Dem Bones on its sample clip Bone_Anim (754 vertices x 400 frames) at
# 5 / 10 / 20 bones with nnz 4, once at its command-line tool's defaults
# (transAffine 10; up to 100 iterations with the tool's stopping rule: see
# driver.cpp) and once with transAffine 0, then runs skinfit's
# bench_decompose on the same clip (its defaults, its stopping rule), and
# prints one table: CPU seconds (process user + system time of the solve
# only, one thread, pinned to CPU 0 where taskset exists; fastest of REPEAT
# runs), RMS reconstruction error and iterations of each, and the CPU ratio
# Dem Bones (defaults) / skinfit.
#
# Dem Bones' code is never vendored: its headers are copied from the user's
# checkout into a temporary directory, where the one Eigen 3.4 fix is
# applied (Indexing.h's functors return a reference to a temporary: their
# operator() is made to return by value); the checkout itself is not touched.
#
# usage: bench/bench_dembones.sh DEMBONES_CHECKOUT BUILD_DIR
#   DEMBONES_CHECKOUT  a clone of electronicarts/dem-bones (its include/ is used)
#   BUILD_DIR          skinfit's CMake build folder (Release), with bench/bench_decompose
# env: REPEAT (runs per configuration, default 3), SKF_DATA (default ../shared/data
#      from the repository root), EIGEN_INCLUDE (default /usr/include/eigen3),
#      CXX (default g++), DEMBONES_FIXED_ITERS (run Dem Bones exactly this many
#      iterations without the tool's stopping rule, e.g. 30 = the library
#      class's own nIters)
set -eu

die() { echo "bench_dembones: $*" >&2; exit 1; }

[ $# -eq 2 ] || { sed -n 's/^# \(usage: \)/\1/p' "$0" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
checkout=$1
build=$2
repeat=${REPEAT:-3}
case $repeat in '' | *[!0-9]* | 0) die "REPEAT must be a positive integer (got '$repeat')" ;; esac
cxx=${CXX:-g++}
eigen=${EIGEN_INCLUDE:-/usr/include/eigen3}

[ -d "$checkout" ] || die "Dem Bones checkout '$checkout' not found (git clone https://github.com/electronicarts/dem-bones)"
for h in DemBones.h DemBonesExt.h ConvexLS.h Indexing.h MatBlocks.h; do
  [ -f "$checkout/include/DemBones/$h" ] || die "'$checkout' is not a Dem Bones checkout: include/DemBones/$h missing"
done
[ -f "$eigen/Eigen/Dense" ] || die "Eigen 3 not found in '$eigen' (Debian/Ubuntu: apt-get install libeigen3-dev; or set EIGEN_INCLUDE)"
command -v "$cxx" >/dev/null || die "C++ compiler '$cxx' not found (set CXX)"
bench=$build/bench/bench_decompose
[ -x "$bench" ] || die "'$bench' not found: build it with cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release && cmake --build $build --target bench_decompose"
data=${SKF_DATA:-$here/../shared/data}
for f in Bone_Anim.pc2 Bone_rest.obj Bone_Anim.abc; do
  [ -f "$data/dembones/$f" ] || die "'$data/dembones/$f' missing (set SKF_DATA to the shared data folder)"
done
export SKF_DATA=$data
btype=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
[ "$btype" = Release ] || echo "bench_dembones: warning: '$build' is a '${btype:-unknown}' build, not Release" >&2

work=$(mktemp -d "${TMPDIR:-/tmp}/skf-bench-dembones-XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/include"
cp -R "$checkout/include/DemBones" "$work/include/"
chmod -R u+w "$work/include"
sed -i 's/const typename ArgType::Scalar& operator()/typename ArgType::Scalar operator()/' \
  "$work/include/DemBones/Indexing.h"
! grep -q 'Scalar& operator()' "$work/include/DemBones/Indexing.h" ||
  die "Indexing.h: the by-value fix did not apply (unexpected Dem Bones version?)"

# The flags of skinfit's Release build (CMake's -O3 -DNDEBUG; no -march=native
# on either side), plus OpenMP, which Dem Bones uses for its loops.
cxxflags="-std=c++17 -O3 -DNDEBUG -fopenmp"
echo "building the Dem Bones driver: $cxx $cxxflags (Dem Bones $([ -e "$checkout/.git" ] && git -C "$checkout" describe --tags --always 2>/dev/null || echo 'checkout version unknown'))" >&2
# shellcheck disable=SC2086
"$cxx" $cxxflags -isystem "$work/include" -isystem "$eigen" "$here/bench/dembones/driver.cpp" \
  -o "$work/driver" || die "building the driver failed"

cores=$(nproc --all)
export OMP_NUM_THREADS=1
pin=""
if command -v taskset >/dev/null && taskset -c 0 true 2>/dev/null; then pin="taskset -c 0"; fi

field() { echo "$1" | awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }

# fastest CPU of REPEAT runs of the driver: prints "CPU RMS ITERATIONS"
dembones() { # bones transAffine
  local best="" rms="" out cpu r it i
  for i in $(seq "$repeat"); do
    out=$($pin "$work/driver" "$1" 4 "$2" ${DEMBONES_FIXED_ITERS:+--fixed-iters "$DEMBONES_FIXED_ITERS"}) ||
      die "driver $1 4 $2 failed"
    echo "  $out" >&2
    cpu=$(field "$out" cpu_s)
    r=$(field "$out" rms)
    it=$(field "$out" iters)
    if [ -z "$cpu" ] || [ -z "$r" ] || [ -z "$it" ]; then die "cannot parse driver output: $out"; fi
    [ -z "$rms" ] || [ "$rms" = "$r" ] || echo "bench_dembones: warning: RMS differs between runs ($rms, $r)" >&2
    rms=$r
    if [ -z "$best" ] || awk -v a="$cpu" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$cpu; fi
  done
  echo "$best $rms $it"
}

echo "machine: $cores cores, load average $(cut -d' ' -f1-3 /proc/loadavg), OMP_NUM_THREADS=1${pin:+, $pin}, REPEAT=$repeat" >&2
declare -A db_cpu db_rms db_it db0_cpu db0_rms db0_it sk_cpu sk_rms sk_it
for b in 5 10 20; do
  echo "Dem Bones $b bones, nnz 4, defaults:" >&2
  res=$(dembones "$b" 10)
  read -r "db_cpu[$b]" "db_rms[$b]" "db_it[$b]" <<< "$res"
  echo "Dem Bones $b bones, nnz 4, transAffine 0:" >&2
  res=$(dembones "$b" 0)
  read -r "db0_cpu[$b]" "db0_rms[$b]" "db0_it[$b]" <<< "$res"
done

# bench_decompose's Bone_Anim rows (5 / 10 / 20 bones, one thread, its
# defaults) are one run each; its --repeat only repeats the threads section,
# so it is run REPEAT times here and each row's fastest CPU is kept. Its
# Anderson rows run first and warm the process: the plain rows are not the
# process's first decomposition, which also pays for OpenBLAS's pthread pool
# spinning after load (~0.1 s of CPU; OPENBLAS_NUM_THREADS=1 avoids it) and
# first-touch page faults. A CLI run pays them; docs/bench.md gives both.
for i in $(seq "$repeat"); do
  echo "skinfit bench_decompose run $i of $repeat:" >&2
  # shellcheck disable=SC2086
  $pin "$bench" --skip-creature --repeat 1 > "$work/skinfit.txt" ||
    die "$bench failed: $(tail -3 "$work/skinfit.txt")"
  while read -r b cpu r it; do
    echo "  bones $b cpu_s $cpu rms $r iters $it" >&2
    if [ -z "${sk_cpu[$b]:-}" ] || awk -v a="$cpu" -v c="${sk_cpu[$b]}" 'BEGIN { exit !(a < c) }'; then
      sk_cpu[$b]=$cpu
    fi
    sk_rms[$b]=$r
    sk_it[$b]=$it
  done < <(awk '/^Bone_Anim +[0-9]+ bones, 1 thread: CPU / {
      # "Bone_Anim  5 bones, 1 thread: CPU 0.232 s (...), 63 iterations (converged), RMS 0.0147239; vs ..."
      cpu = $7; rms = ""; it = ""
      for (i = 2; i < NF; i++) {
        if ($i == "iterations" && it == "") it = $(i - 1)
        if ($i == "RMS" && $(i + 1) ~ /^[0-9.]+;$/) { rms = $(i + 1); sub(/;$/, "", rms) }
      }
      print $2, cpu, rms, it }' "$work/skinfit.txt")
done
for b in 5 10 20; do
  if [ -z "${sk_cpu[$b]:-}" ] || [ -z "${sk_rms[$b]:-}" ] || [ -z "${sk_it[$b]:-}" ]; then
    die "no Bone_Anim $b-bone row in bench_decompose's output: $(head -5 "$work/skinfit.txt")"
  fi
done

echo
if [ -n "${DEMBONES_FIXED_ITERS:-}" ]; then how="$DEMBONES_FIXED_ITERS fixed iterations"; else how="its tool's stopping rule"; fi
echo "Bone_Anim 754 vertices x 400 frames, nnz 4, one thread, CPU s = fastest of $repeat run(s); Dem Bones with $how; $cores cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| bones | Dem Bones CPU s (defaults) | Dem Bones RMS (defaults) | Dem Bones iterations | Dem Bones CPU s (transAffine=0) | Dem Bones RMS (transAffine=0) | Dem Bones iterations (transAffine=0) | skinfit CPU s | skinfit RMS | skinfit iterations | CPU ratio Dem Bones (defaults) / skinfit |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for b in 5 10 20; do
  awk -v b="$b" -v c="${db_cpu[$b]}" -v r="${db_rms[$b]}" -v i="${db_it[$b]}" \
    -v c0="${db0_cpu[$b]}" -v r0="${db0_rms[$b]}" -v i0="${db0_it[$b]}" \
    -v sc="${sk_cpu[$b]}" -v sr="${sk_rms[$b]}" -v si="${sk_it[$b]}" \
    'BEGIN { printf "| %d | %.2f | %.5f | %d | %.2f | %.5f | %d | %.3f | %.5f | %d | %.2f |\n", b, c, r, i, c0, r0, i0, sc, sr, si, c / sc }'
done
