#!/usr/bin/env bash
# Run the libFuzzer harnesses (clang from Debian). Seeds come from the
# project's own code (fuzz/seeds/, fuzz/make_seeds) and ../shared/data.
# Crashing inputs are copied to fuzz/regressions/<harness>/ for ctest replay.
# usage: scripts/fuzz.sh [seconds-per-harness] [harness...]
# env: SKF_FUZZ_WORK (corpus folder, default build-fuzz/corpus), SKF_FUZZ_MAX_LEN
# (largest input, default 1 MiB), SKF_DATA (shared assets).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}; shift || true
data=${SKF_DATA:-../shared/data}
# libFuzzer runs one input at a time: no OpenMP or OpenBLAS worker threads
# (they only spin against each other and slow every execution).
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DSKF_FUZZ=ON >/dev/null
cmake --build build-fuzz -j"$(nproc)" >/dev/null
harnesses=("$@")
if ((${#harnesses[@]} == 0)); then
  for f in fuzz/fuzz_*.c; do h=${f#fuzz/fuzz_}; harnesses+=("${h%.c}"); done
fi
work=${SKF_FUZZ_WORK:-build-fuzz/corpus}
for h in "${harnesses[@]}"; do
  mkdir -p "$work/$h" "fuzz/regressions/$h"
  [[ -d fuzz/seeds/$h ]] && cp -n fuzz/seeds/$h/* "$work/$h/" 2>/dev/null || true
  cp -n fuzz/regressions/$h/* "$work/$h/" 2>/dev/null || true
  # Our own seeds (make_seeds: creature GLB, its Walk as PC2/MDD/OBJ), then
  # the shared assets that suit the harness, read in place at fuzz time.
  [[ -d $work/generated/$h ]] || build-fuzz/fuzz/make_seeds "$work/generated" >/dev/null
  [[ -d $work/generated/$h ]] && cp -n "$work/generated/$h"/* "$work/$h/" 2>/dev/null || true
  case $h in
    gltf) cp -n "$data"/khronos/Fox.glb "$work/$h/" 2>/dev/null || true ;;
    pipeline) cp -n "$data"/dembones/Decomposition_05.glb "$work/$h/" 2>/dev/null || true ;;
    alembic) cp -n "$data"/dembones/Bone_Anim.abc "$work/$h/" 2>/dev/null || true ;;
    svg) cp -n "$data"/poseanimator/*.svg "$work/$h/" 2>/dev/null || true ;;
    obj) cp -n "$data"/cylinder/cylinder.obj "$work/$h/" 2>/dev/null || true ;;
  esac
  echo "== fuzz_$h for ${secs}s"
  # The whole log is kept in build-fuzz/logs/<harness>.log; the summary lines
  # (final coverage, executions, any finding) are echoed for docs/fuzzing.md.
  mkdir -p build-fuzz/logs
  dict=()
  case $h in gltf|pipeline) dict=(-dict=../../gltf.dict) ;; esac
  (cd "fuzz/regressions/$h" && ../../../build-fuzz/fuzz/fuzz_$h -max_total_time="$secs" -rss_limit_mb=4096 \
     "${dict[@]}" -max_len="${SKF_FUZZ_MAX_LEN:-1048576}" -timeout=25 -print_final_stats=1 ../../../$work/$h) >"build-fuzz/logs/$h.log" 2>&1 || true
  grep -E "^(stat::|Done|==[0-9]+==|SUMMARY)|DONE|INITED" "build-fuzz/logs/$h.log" || true
done
