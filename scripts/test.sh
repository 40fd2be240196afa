#!/usr/bin/env bash
# README command 2: install what is missing, build the release and the
# ASan+UBSan configurations, run the whole suite in both.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs=$(nproc)
cmake -S . -B build >/dev/null
cmake --build build -j"$jobs" >/dev/null
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSKF_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$jobs" >/dev/null
echo "== release suite"
(cd build && ctest --output-on-failure -j"$jobs")
echo "== ASan+UBSan suite"
(cd build-asan && ctest --output-on-failure -j"$jobs")
