#!/usr/bin/env bash
# The solver bench (bench/bench_solve.c: 24 frames × 5000 constraints × 45 bones, one thread)
# three ways in one run: native, WebAssembly under node, and WebAssembly in a Web Worker of
# headless Chromium (web/bench/). Printed figures, not a timed test (docs/bench.md).
#   bench/bench_web.sh [repetitions=5]      needs build/ and scripts/web.sh's build-web/
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-5}
native=$(find build -name bench_solve -type f | head -1)
echo "== native (OMP_NUM_THREADS=1)"; OMP_NUM_THREADS=1 "$native" "$reps" | sed -n '1,3p;7p'
echo "== WebAssembly, node $(node --version)"; node build-web/bench_solve_wasm.js "$reps" | sed -n '3p;7p'
echo "== WebAssembly in a Web Worker, $(chromium --version 2>/dev/null | head -1)"
node bench/bench_web_browser.js "$reps" | sed -n '3p;7p'
echo "(WebAssembly has no process CPU clock: its 'clip cpu' and CPU-only columns read 0)"
uptime
