#!/usr/bin/env bash
# Installs what is missing (idempotent): Debian packages for the build, and the
# npm test tooling pinned by package-lock.json. Safe to run repeatedly.
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(build-essential cmake pkg-config clang libclang-rt-dev
      libjansson-dev libxml2-dev libpng-dev zlib1g-dev libgif-dev
      liblapacke-dev libopenblas-dev libomp-dev libsuitesparse-dev
      openmpi-bin libopenmpi-dev libassimp-dev
      librsvg2-dev libcairo2-dev nodejs npm python3
      blender python3-numpy    # Blender 3.4: the second playback client of tests/blender/ (its glTF
                               # importer needs numpy, which the package does not depend on)
      emscripten node-acorn)   # the WebAssembly core (scripts/web.sh); emscripten 3.1.6 needs node-acorn
# Optional: headless Chromium for browser checks (tests skip visibly without it).
optional=(chromium)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# node/npm may come from elsewhere (e.g. a preinstalled Node.js); accept them.
if command -v node >/dev/null && command -v npm >/dev/null; then
  tmp=(); for p in "${missing[@]}"; do [[ $p == nodejs || $p == npm ]] || tmp+=("$p"); done
  missing=("${tmp[@]+"${tmp[@]}"}")
fi
opt_missing=()
for p in "${optional[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || opt_missing+=("$p")
done
if ((${#missing[@]} + ${#opt_missing[@]})); then
  SUDO=""; [[ $(id -u) == 0 ]] || SUDO="sudo"
  echo "setup: installing ${missing[*]} ${opt_missing[*]}"
  $SUDO apt-get update -qq
  if ((${#missing[@]})); then
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  if ((${#opt_missing[@]})); then
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${opt_missing[@]}" >/dev/null \
      || echo "setup: optional ${opt_missing[*]} not installed; browser checks will be skipped"
  fi
fi

if [[ ! -d node_modules/three || ! -d node_modules/gltf-validator || ! -d node_modules/@mediapipe/pose ]] ||
   [[ package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "setup: installing npm test tooling (package-lock.json)"
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
fi
