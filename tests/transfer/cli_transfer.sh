#!/usr/bin/env bash
# CLI tests of transfer / control / autoweights / demo (issue 3 acceptance 7,
# 8, 10 and the table = report check): exit codes, one-line messages naming
# the file, no output on failure, outputs + exit 3 under --min-quality,
# progress only on a terminal, inputs never modified.
set -u
bin=${SKF_BIN:?}; src=${SKF_SOURCE_DIR:?}; data=${SKF_DATA:-$src/../shared/data}
dir=${SKF_BUILD_DIR:-/tmp}/transfer_cli; rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
fails=0; checks=0
ok()   { checks=$((checks + 1)); echo "ok   $*"; }
bad()  { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL $*"; }
expect_rc() { # want rc description
  if [ "$2" = "$1" ]; then ok "$3 (exit $2)"; else bad "$3: exit $2, want $1"; cat err.txt; fi
}
have_node=0; [ -d "$src/node_modules" ] && command -v node >/dev/null && have_node=1

# inputs: the creature and its autoweights rig (no external data needed)
"$bin" demo-asset -o creature.glb --vertices 1500 >/dev/null || { echo "demo-asset failed"; exit 1; }
"$bin" autoweights creature.glb -o aw.glb > out.txt 2> err.txt; expect_rc 0 $? "autoweights"
"$bin" autoweights creature.glb -o aw8.glb --max-influences 8 --falloff 1 > out.txt 2> err.txt
expect_rc 0 $? "autoweights K=8 P=1"
sum_before=$(cksum creature.glb aw.glb)

# a successful transfer with a report; table and report agree
"$bin" transfer --source creature.glb --target aw.glb --all-clips --mode both --max-constraints 800 \
  -o out.glb --report report.json > table.txt 2> err.txt
expect_rc 0 $? "transfer --mode both"
[ -s out.glb ] && [ -s report.json ] && ok "outputs written" || bad "outputs missing"
head -n 20 table.txt
grep -q "^Walk .* control " table.txt && grep -q "^Walk .* free " table.txt && ok "control row before free" || bad "table rows"
[ "$(grep -n ' control ' table.txt | head -1 | cut -d: -f1)" -lt "$(grep -n ' free ' table.txt | head -1 | cut -d: -f1)" ] \
  && ok "control reported first" || bad "control not first"
if [ $have_node = 1 ]; then
  node "$src/tests/transfer/check_report.mjs" table.txt report.json && ok "table = report" || bad "table != report"
  node "$src/tests/js/validate.mjs" out.glb aw.glb aw8.glb && ok "gltf-validator 0 errors" || bad "validator"
fi
[ "$(cksum creature.glb aw.glb)" = "$sum_before" ] && ok "inputs unchanged" || bad "an input changed"

# control
"$bin" control creature.glb --report control.json > ctable.txt 2> err.txt; expect_rc 0 $? "control"
[ $have_node = 1 ] && { node "$src/tests/transfer/check_report.mjs" ctable.txt control.json && ok "control table = report" || bad "control table != report"; }

# --min-quality: outputs written, exit 3
rm -f gate.glb gate.json
"$bin" transfer --source creature.glb --target aw.glb --clip Walk --min-quality 99.99 --max-constraints 500 \
  -o gate.glb --report gate.json > out.txt 2> err.txt
expect_rc 3 $? "--min-quality not met"
[ -s gate.glb ] && [ -s gate.json ] && ok "outputs written before exit 3" || bad "gate outputs missing"
grep -q "below --min-quality" err.txt && ok "gate message" || bad "gate message: $(cat err.txt)"
"$bin" transfer --source creature.glb --target aw.glb --clip Walk --min-quality 50 --max-constraints 500 \
  -o gate2.glb > out.txt 2> err.txt
expect_rc 0 $? "--min-quality met"

# bad inputs: exit 1, one line naming the file, no output
node "$src/tests/transfer/glb_edit.mjs" creature.glb noskin.glb strip-skin 2>/dev/null || cp /dev/null noskin.glb
node "$src/tests/transfer/glb_edit.mjs" creature.glb emptyclip.glb empty-clip Trot 2>/dev/null || cp /dev/null emptyclip.glb
bad_case() { # description expected-substring args...
  local what=$1 want=$2; shift 2
  rm -f bad.glb bad.json
  "$bin" "$@" > out.txt 2> err.txt; local rc=$?
  expect_rc 1 $rc "$what"
  [ "$(wc -l < err.txt)" = 1 ] && grep -q -- "$want" err.txt && ok "$what: message: $(cat err.txt)" \
    || bad "$what: message: $(cat err.txt)"
  [ ! -e bad.glb ] && [ ! -e bad.json ] && ok "$what: no output" || bad "$what: output written"
}
bad_case "target without a skin" "noskin.glb: skins" transfer --source creature.glb --target noskin.glb --clip Walk -o bad.glb --report bad.json
bad_case "unknown clip" "available: Walk, Trot" transfer --source creature.glb --target aw.glb --clip Gallop -o bad.glb --report bad.json
bad_case "clip with no frames" "no frames" transfer --source emptyclip.glb --target aw.glb --clip Trot -o bad.glb --report bad.json
bad_case "missing file" "nope.glb" transfer --source nope.glb --target aw.glb --clip Walk -o bad.glb
# Horse -> Deer transfers since issue 12 (registered); Cow -> Fox is refused after registration: with
# LAPACK's SVD the registration converged to 0.698 % with 32.7 % of the target unmatched ('do not
# register'); with the own 3x3 Jacobi SVD (last-bit different start) its last stage stopped at the
# iteration cap, 0.434 % > 0.25 % ('did not converge'); since the coarse-to-fine samples of the stiff
# stages (docs/transfer.md) it converges to 0.71 % with 33.2 % of the target unmatched ('do not
# register'), deterministically: the test expects that line.
horse="$data/quaternius/animals/Cow.glb"; deer="$data/quaternius/animals/Fox.glb"
if [ -f "$horse" ] && [ -f "$deer" ]; then
  bad_case "surfaces that do not match" "rest surfaces do not register: residual 6.19 % of the diagonal before registration, 0.71 % after" transfer --source "$horse" --target "$deer" --clip Walk -o bad.glb --report bad.json
else
  echo "skip: surfaces that do not match (shared data absent)"
fi
"$bin" transfer --source creature.glb --target aw.glb --clip Walk -o creature.glb > out.txt 2> err.txt
expect_rc 1 $? "output naming an input"
[ "$(cksum creature.glb aw.glb)" = "$sum_before" ] && ok "inputs unchanged" || bad "an input changed"
"$bin" transfer --source creature.glb --target aw.glb -o x.glb > out.txt 2> err.txt; expect_rc 2 $? "no clip given"
"$bin" transfer --source creature.glb --clip Walk -o x.glb > out.txt 2> err.txt; expect_rc 2 $? "no target"
"$bin" transfer --bogus > out.txt 2> err.txt; expect_rc 2 $? "unknown option"
"$bin" autoweights creature.glb -o x.glb --max-influences 9 > out.txt 2> err.txt; expect_rc 2 $? "autoweights K=9"
"$bin" autoweights noskin.glb -o x.glb > out.txt 2> err.txt; expect_rc 1 $? "autoweights without a skin"
for c in transfer control autoweights demo; do "$bin" $c --help > out.txt 2> err.txt; expect_rc 0 $? "$c --help"; done

# progress: on a terminal for runs over a second, never when stderr is a file
if command -v script >/dev/null; then
  SKF_PROGRESS_DELAY=0 script -qefc "'$bin' transfer --source creature.glb --target aw.glb --clip Walk --mode both --max-constraints 800 -o p.glb >/dev/null" progress.txt >/dev/null 2>&1
  if grep -q $'\r' progress.txt && grep -q '%' progress.txt; then ok "progress drawn on a terminal"; else bad "no progress on a terminal"; fi
  "$bin" transfer --source creature.glb --target aw.glb --clip Walk -o p2.glb > /dev/null 2> err.txt
  # only warnings may be there (e.g. frames at the sweep cap, docs/limits.md), never progress
  if ! grep -q $'\r' err.txt && ! grep -v '^skinfit: warning: ' err.txt | grep -q .; then
    ok "no progress when stderr is a file"; else bad "stderr holds more than warnings: $(head -c 200 err.txt)"; fi
else
  echo "skip: progress (no 'script' tool)"
fi

# demo (README command 1)
"$bin" demo -o demo_out --vertices 1000 > demo.txt 2> err.txt; expect_rc 0 $? "demo"
for f in creature.glb creature_autoweights.glb transfer.glb report.json; do
  [ -s "demo_out/$f" ] && ok "demo wrote $f" || bad "demo did not write $f"
done
grep -q " rotation-only " demo.txt && grep -q " free " demo.txt && ok "demo table printed" || bad "demo table"
[ $have_node = 1 ] && { node "$src/tests/transfer/check_report.mjs" demo.txt demo_out/report.json && ok "demo table = report" || bad "demo table != report"; }
[ $have_node = 1 ] && { node "$src/tests/js/validate.mjs" demo_out && ok "demo outputs validate" || bad "demo validator"; }
cat demo.txt

echo "$checks checks, $fails failed"
[ $fails = 0 ]
