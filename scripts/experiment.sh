#!/usr/bin/env bash
# The transfer experiment (issue 3; docs/results.md "Transfer"): for the six
# shared Quaternius animals and the clips Walk and Gallop, three target rigs —
# the artist rig itself (its free run is the control), the artist skeleton
# with autoweights P=2 K=4, and with diffuse autoweights P=1 K=8 — each solved
# in free and rotation-only mode. Prints a markdown table (also written to
# OUT/experiment.md); per-run reports are kept in OUT/.
# usage: scripts/experiment.sh [OUT]   (default out/experiment; needs build/skinfit)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${SKF_BIN:-build/skinfit}
data=${SKF_DATA:-../shared/data}
out=${1:-out/experiment}
mkdir -p "$out"
[ -x "$bin" ] || { echo "build first: $bin missing" >&2; exit 1; }
rows=()
for animal in Horse Deer Fox Wolf Cow Alpaca; do
  src="$data/quaternius/animals/$animal.glb"
  [ -f "$src" ] || { echo "missing $src" >&2; exit 1; }
  "$bin" autoweights "$src" -o "$out/${animal}_aw_p2k4.glb" --falloff 2 --max-influences 4 >/dev/null
  "$bin" autoweights "$src" -o "$out/${animal}_aw_p1k8.glb" --falloff 1 --max-influences 8 >/dev/null
  for rig in artist aw_p2k4 aw_p1k8; do
    tgt="$src"; [ "$rig" = artist ] || tgt="$out/${animal}_${rig}.glb"
    "$bin" transfer --source "$src" --target "$tgt" --clip Walk --clip Gallop --mode both \
      -o "$out/${animal}_${rig}_baked.glb" --report "$out/${animal}_${rig}.json" >/dev/null
  done
done
node - "$out" <<'JS' | tee "$out/experiment.md"
const fs = require('fs');
const out = process.argv[2];
const labels = { artist: 'artist rig (control)', aw_p2k4: 'artist skeleton + autoweights P=2 K=4',
                 aw_p1k8: 'artist skeleton + diffuse autoweights P=1 K=8' };
console.log('| animal | clip | rig | control quality % | free quality % | rotation-only quality % | worst vertex % (free) | worst vertex % (rot.-only) | solve s (free + rot.-only) |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const a of ['Horse', 'Deer', 'Fox', 'Wolf', 'Cow', 'Alpaca'])
  for (const clip of ['Walk', 'Gallop'])
    for (const rig of ['artist', 'aw_p2k4', 'aw_p1k8']) {
      const r = JSON.parse(fs.readFileSync(`${out}/${a}_${rig}.json`, 'utf8'));
      const c = r.clips.find((x) => x.name === clip);
      const q = (x) => (100 * x.quality).toFixed(4);
      console.log(`| ${a} | ${clip} | ${labels[rig]} | ${rig === 'artist' ? (100 * c.control.quality).toFixed(6) : ''} | ${q(c.free)} | ${q(c.rotation_only)} | ${c.free.max_error_pct.toFixed(3)} | ${c.rotation_only.max_error_pct.toFixed(3)} | ${(c.free.solve_seconds + c.rotation_only.solve_seconds).toFixed(2)} |`);
    }
JS
