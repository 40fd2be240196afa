#!/usr/bin/env bash
# Issue 12 §3 on the command line: a target with a mesh attached to a joint (the creature's horns
# under Head, diffuse head weights). The summary names the attachment and its importance, the
# table has a row per attachment under each target run, equal to the JSON report
# (check_report.mjs), the HTML has the rows, --no-attached sets the importance to 0 and leaves
# the horns' worst error larger; `control` refuses --no-attached (a transfer option).
set -u
bin=${SKF_BIN:?}; src=${SKF_SOURCE_DIR:?}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
fails=0; ok() { echo "ok   $1"; }; bad() { echo "FAIL $1"; fails=$((fails + 1)); }
have_node=0; command -v node >/dev/null && have_node=1
"$bin" demo-asset --vertices 2000 --horns attached -o src.glb >/dev/null || bad "demo-asset source"
"$bin" demo-asset --vertices 2000 --horns attached --diffuse-head -o tgt.glb >/dev/null || bad "demo-asset target"
"$bin" transfer --source src.glb --target tgt.glb --clip Walk --mode both -o out.glb --report r.json \
  --html r.html > table.txt 2> err.txt && ok "transfer exit 0" || { bad "transfer: $(cat err.txt)"; }
grep -q '^attached: Horns under joint Head: 244 vertices (244 constraints), importance 1$' table.txt \
  && ok "summary names the attachment" || bad "summary: $(grep attached table.txt)"
[ "$(grep -c '^ *Horns ' table.txt)" = 2 ] && ok "a Horns row under free and rotation-only" || bad "Horns rows: $(cat table.txt)"
grep -q 'Horns (attached to Head)</td><td>free</td>' r.html && grep -q 'attached meshes' r.html \
  && ok "HTML rows and fact" || bad "HTML lacks the attachment rows"
[ $have_node = 1 ] && { node "$src/tests/transfer/check_report.mjs" table.txt r.json && ok "table = report (attachments too)" || bad "table != report"; }
"$bin" transfer --source src.glb --target tgt.glb --clip Walk -o out2.glb --report r2.json --no-attached > t2.txt 2>&1 \
  && ok "--no-attached exit 0" || bad "--no-attached: $(cat t2.txt)"
grep -q 'importance 0 (--no-attached: not in the solve)' t2.txt && ok "--no-attached: importance 0" || bad "--no-attached summary"
if [ $have_node = 1 ]; then
  node -e '
    const a = require(process.argv[1]), b = require(process.argv[2]);
    const w = a.clips[0].free.attachments[0].max_error_pct, n = b.clips[0].free.attachments[0].max_error_pct;
    console.log(`Horns worst ${w.toFixed(4)} % with, ${n.toFixed(4)} % without (${(n / w).toFixed(2)}x)`);
    process.exit(a.attachments[0].importance >= 1 && b.attachments[0].importance === 0 && n > 5 * w ? 0 : 1);' \
    "$work/r.json" "$work/r2.json" && ok "worst error > 5x larger without" || bad "with/without figures"
fi
"$bin" control src.glb --clip Walk --no-attached > /dev/null 2> cerr.txt; rc=$?
[ $rc = 2 ] && grep -q "unknown argument '--no-attached'" cerr.txt && ok "control: --no-attached is a usage error" || bad "control rc $rc: $(cat cerr.txt)"
"$bin" transfer --source src.glb --target src.glb --clip Walk -o same.glb --report same.json > same.txt 2>&1
grep -q 'attached: Horns' same.txt && ok "attachment on both sides (same surface)" || bad "same surface: $(cat same.txt)"
[ $fails = 0 ] && echo "all ok" || echo "$fails failed"
exit $((fails > 0))
