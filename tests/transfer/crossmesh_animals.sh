#!/usr/bin/env bash
# Issue 12 §4.2: every ordered pair of the six shared Quaternius animals —
# the source's Walk onto the other animal's own rig. Each pair either
# transfers (exit 0, gltf-validator 0 errors, three.js playing the baked GLB
# like skinfit's evaluator within 1e-5 of the diagonal: tests/js/three_bake.mjs)
# or is refused with exit 1 and the "do not register" message, nothing
# written. Horse<->Deer and Fox<->Wolf must transfer. Prints the table that
# docs/results.md quotes (registration residual, same-named joint distances).
set -u
bin=${SKF_BIN:?}; src=${SKF_SOURCE_DIR:?}
data=${SKF_DATA:-$src/../shared/data}/quaternius/animals
[ -d "$data" ] || { echo "SKIPPED: no shared data at $data"; exit 77; }
dir=${SKF_BUILD_DIR:-/tmp}/crossmesh_animals; rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
have_node=0; command -v node >/dev/null && [ -d "$src/node_modules/three" ] && have_node=1
fail=0
printf '| source | target | result | residual before → after %% | coverage %% | joints | median %% | worst %% | free quality %% |\n|---|---|---|---|---|---|---|---|---|\n' > table.md
for a in Horse Deer Fox Wolf Cow Alpaca; do
  for b in Horse Deer Fox Wolf Cow Alpaca; do
    [ $a = $b ] && continue
    out=${a}_${b}.glb
    "$bin" transfer --source "$data/$a.glb" --target "$data/$b.glb" --clip Walk -o "$out" \
      --report "${a}_${b}.json" > "${a}_${b}.txt" 2> "${a}_${b}.err"
    rc=$?
    must=0; case "$a-$b" in Horse-Deer|Deer-Horse|Fox-Wolf|Wolf-Fox) must=1;; esac
    if [ $rc = 0 ]; then
      row=$(node -e '
        const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
        const g = r.registration, q = r.clips[0].free.quality;
        const f = (x) => x.toFixed(3);
        if (!g) { console.log(`| same surface | | | | | ${(100*q).toFixed(2)} |`); process.exit(0); }
        console.log(`| transfers | ${f(g.residual_before_pct)} → ${f(g.residual_after_pct)} | ${g.coverage_pct.toFixed(2)} | ${g.joint_pairs} | ${f(g.joint_median_pct)} | ${f(g.joint_max_pct)} | ${(100*q).toFixed(2)} |`);' "${a}_${b}.json")
      echo "| $a | $b $row" >> table.md
      if [ $have_node = 1 ]; then
        node "$src/tests/js/validate.mjs" "$out" > "${a}_${b}.val" 2>&1 || { echo "FAIL: $a->$b: validator"; cat "${a}_${b}.val"; fail=1; }
        node "$src/tests/js/three_bake.mjs" "$out" > "${a}_${b}.three" 2>&1 || { echo "FAIL: $a->$b: three.js replay"; tail -3 "${a}_${b}.three"; fail=1; }
      fi
    elif [ $rc = 1 ] && grep -q "do not register\|did not converge" "${a}_${b}.err" && [ ! -e "$out" ]; then
      echo "| $a | $b | refused: $(sed 's/.*do not register: //; s/.*register: //; s/ (not the same.*//' "${a}_${b}.err") | | | | | | |" >> table.md
      [ $must = 1 ] && { echo "FAIL: $a->$b must transfer: $(cat "${a}_${b}.err")"; fail=1; }
    else
      echo "FAIL: $a->$b: exit $rc: $(cat "${a}_${b}.err")"; fail=1
    fi
  done
done
cat table.md
[ $have_node = 1 ] || echo "(validator / three.js checks skipped: node or three absent)"
[ $fail = 0 ] && echo ok
exit $fail
