#!/usr/bin/env bash
# README command 1: install what is missing, build, run the main job on the
# embedded procedural creature, writing under out/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
mkdir -p out
build/skinfit demo -o out
