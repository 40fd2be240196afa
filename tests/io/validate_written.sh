#!/bin/sh
# gltf-validator over what the gltfwrite tests wrote: round trips, added
# animations and the repaired fixture with 0 errors; creatures with 0 issues
# of any severity. Exit 77 (skipped) without node or the npm tooling.
command -v node >/dev/null 2>&1 || { echo "SKIPPED: node not installed"; exit 77; }
out="${1:?output folder}"
here="$(dirname "$0")/../js"
node "$here/validate.mjs" "$out" || exit $?
node "$here/validate.mjs" --no-warnings "$out/creature"
