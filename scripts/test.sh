#!/usr/bin/env bash
# README command 2: install what is missing, build the release and the
# ASan+UBSan configurations, run the whole suite in both. Warnings are
# errors here (SKF_WERROR=ON). The builds packagers use are compiled too
# (library + CLI only, no tests run): Debug, Release, RelWithDebInfo and
# MinSizeRel with GCC, Release with Clang.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs=$(nproc)
cmake -S . -B build -DSKF_WERROR=ON >/dev/null
cmake --build build -j"$jobs" >/dev/null
scripts/web.sh >/dev/null   # the WebAssembly core for tests/web (needs build/skinfit for its assets)
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSKF_SANITIZE=ON -DSKF_WERROR=ON >/dev/null
cmake --build build-asan -j"$jobs" >/dev/null
for cfg in gcc:Debug gcc:Release gcc:RelWithDebInfo gcc:MinSizeRel clang:Release; do
  cc=${cfg%%:*} type=${cfg#*:}
  dir=build-ci/$cc-$type
  echo "== build $cc $type (-Werror)"
  CC=$cc CXX=$([[ $cc == clang ]] && echo clang++ || echo g++) \
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE="$type" -DSKF_WERROR=ON >/dev/null
  cmake --build "$dir" -j"$jobs" --target skinfit_cli >/dev/null
done
echo "== release suite"
(cd build && ctest --output-on-failure -j"$jobs")
echo "== ASan+UBSan suite"
(cd build-asan && ctest --output-on-failure -j"$jobs")
