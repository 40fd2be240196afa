#!/usr/bin/env bash
# Builds skinfit's WebAssembly core and the web pages' assets; optionally serves web/.
#
#   scripts/web.sh            build: web/build/skinfit_core.js (wasm embedded), web/build/assets/
#   scripts/web.sh --serve    build, then serve web/ on http://127.0.0.1:PORT/ (PORT=8417 default)
#
# Needs Debian emscripten (3.1.6) + node-acorn (scripts/setup.sh installs them) and the native
# build (build/skinfit) for the demo assets: the procedural creature and its autoweights rig.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs   # emscripten 3.1.6 finds acorn there
command -v emcmake >/dev/null || { echo "web: emscripten missing (scripts/setup.sh installs it)"; exit 1; }
emcmake cmake -S web -B build-web >/dev/null 2>&1 || { echo "web: configure failed (emcmake cmake -S web -B build-web)"; exit 1; }
if ! cmake --build build-web -j2 > build-web/build.log 2>&1; then
  grep -E 'error|warning' build-web/build.log | head -20; echo "web: build failed (build-web/build.log)"; exit 1
fi
mkdir -p web/build/assets
cp build-web/skinfit_core.js web/build/skinfit_core.js
[ -f build-web/bench_solve_wasm.js ] && cp build-web/bench_solve_wasm.js web/build/bench_solve_wasm.js
if [ -x build/skinfit ]; then
  [ -f web/build/assets/creature.glb ] || build/skinfit demo-asset -o web/build/assets/creature.glb >/dev/null
  [ -f web/build/assets/creature_autoweights.glb ] ||
    build/skinfit autoweights web/build/assets/creature.glb -o web/build/assets/creature_autoweights.glb >/dev/null
fi
echo "web: built web/build/skinfit_core.js ($(stat -c %s web/build/skinfit_core.js) bytes)"
if [ "${1:-}" = --serve ]; then
  exec node web/serve.js "${PORT:-8417}"
fi
