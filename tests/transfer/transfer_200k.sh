#!/usr/bin/env bash
# Issue 3 acceptance 4 (second half): a 200k-vertex target runs end to end —
# the 5k creature's Walk transferred onto a 200k-vertex creature (a different
# tessellation of the same animal: aligned automatically, every vertex a
# constraint). Registered for non-sanitizer builds only (CI time).
set -u
bin=${SKF_BIN:?}
dir=${SKF_BUILD_DIR:-/tmp}/transfer_200k; rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
"$bin" demo-asset -o c5k.glb --vertices 5000 >/dev/null || exit 1
"$bin" demo-asset -o c200k.glb --vertices 200000 >/dev/null || exit 1
start=$(date +%s)
"$bin" transfer --source c5k.glb --target c200k.glb --clip Walk -o out.glb --report report.json > table.txt
rc=$?
cat table.txt
echo "wall: $(( $(date +%s) - start )) s"
[ $rc = 0 ] || { echo "FAIL: exit $rc"; exit 1; }
[ -s out.glb ] || { echo "FAIL: no output"; exit 1; }
# constraints >= 190000 and free quality >= 99 % (the 5k source is the coarser surface)
node -e '
const r = JSON.parse(require("fs").readFileSync("report.json", "utf8"));
const q = r.clips[0].free.quality;
console.log(`constraints ${r.constraints}, free quality ${(100 * q).toFixed(4)} %`);
process.exit(r.constraints >= 190000 && q >= 0.99 ? 0 : 1);' || { echo "FAIL: constraints/quality"; exit 1; }
echo "ok"
