#!/usr/bin/env bash
# Issue 12 §4.5: bad input on the other-shape path exits 1 (bad input) or 2
# (usage) with one line naming the file and the place, and writes nothing:
# a landmarks file with bad JSON (byte offset), a pair without points, an
# out-of-range vertex index, --max-rest-mismatch out of range, a
# registration that does not converge (--registration-iterations 1), and a
# pair refused after registration (--max-rest-mismatch 0.01) with both
# residuals in the message. Also: a good landmarks file and --landmarks
# joints run, and the report carries the registration section.
set -u
bin=${SKF_BIN:?}
dir=${SKF_BUILD_DIR:-/tmp}/cli_crossmesh; rm -rf "$dir"; mkdir -p "$dir"; cd "$dir" || exit 1
fail=0
"$bin" demo-asset -o a.glb --vertices 2000 >/dev/null || exit 1
"$bin" demo-asset -o b.glb --vertices 1500 --legs 1.2 --girth 1.2 >/dev/null || exit 1
expect() { # expect RC PATTERN -- ARGS...
  local want=$1 pat=$2; shift 3
  rm -f out.glb r.json
  "$bin" transfer --source a.glb --target b.glb --clip Walk -o out.glb --report r.json "$@" > so.txt 2> se.txt
  local rc=$?
  local lines; lines=$(wc -l < se.txt)
  if [ $rc != "$want" ] || ! grep -q -- "$pat" se.txt || [ "$lines" != 1 ] || [ -e out.glb ] || [ -e r.json ]; then
    echo "FAIL: $* -> exit $rc (want $want), stderr: $(cat se.txt)"; fail=1
  else
    echo "ok: exit $rc: $(cat se.txt)"
  fi
}
printf '{"pairs": [ {"source": [0, 1, 0], ' > bad.json
expect 1 "bad.json: byte offset" -- --landmarks bad.json
printf '{"pairs": [{"source": [0, 1, 0]}]}' > nopoint.json
expect 1 "nopoint.json: pairs\[0\].target: not a point" -- --landmarks nopoint.json
printf '{"pairs": [{"source_vertex": 3, "target_vertex": 99999}]}' > range.json
expect 1 "range.json: .*landmarks\[0\].target_vertex: 99999 out of range" -- --landmarks range.json
expect 2 "max-rest-mismatch needs a percentage" -- --max-rest-mismatch 0
expect 2 "max-rest-mismatch needs a percentage" -- --max-rest-mismatch 150
expect 2 "carry is deformation or closest" -- --carry nearest
expect 1 "register: did not converge: stage [0-9]* of [0-9]* stopped at 1 iterations.*(raise it with --registration-iterations N)$" -- --registration-iterations 1
expect 1 "do not register: residual .* before registration, .* after (limit 0.01 %)" -- --max-rest-mismatch 0.01
# good runs
printf '{"pairs": [{"source_vertex": 0, "target_vertex": 0}, {"source": [0, 1.0, -0.4], "target": [0, 1.19, -0.4]}]}' > good.json
for args in "--landmarks good.json" "--landmarks joints" "--carry closest"; do
  rm -f out.glb r.json
  # shellcheck disable=SC2086
  if "$bin" transfer --source a.glb --target b.glb --clip Walk -o out.glb --report r.json $args > so.txt 2> se.txt \
     && [ -s out.glb ] && grep -q '"registration"' r.json && grep -q '^registration: non-rigid' so.txt; then
    echo "ok: $args: $(grep '^registration\|^landmarks\|^same-named' so.txt | tr '\n' ' ')"
  else
    echo "FAIL: $args: $(cat se.txt)"; fail=1
  fi
done
# a leg bent differently at rest (demo-asset --knee-bend): transfers, registered, from the carrying frame
if "$bin" demo-asset -o bent.glb --vertices 1800 --knee-bend 40 >/dev/null \
   && "$bin" transfer --source a.glb --target bent.glb --clip Walk -o out.glb --report r.json > so.txt 2> se.txt \
   && [ -s out.glb ] && grep -q '^registration: non-rigid' so.txt; then
  echo "ok: bent knee: $(grep '^registration' so.txt | tr '\n' ' ')"
else
  echo "FAIL: bent knee: $(cat se.txt)"; fail=1
fi
for bad in 70 "10,20,30,40,50" "x" "10,,20"; do
  "$bin" demo-asset -o bad.glb --knee-bend "$bad" > so.txt 2> se.txt
  rc=$?
  if [ $rc = 2 ] && grep -q -- "--knee-bend needs" se.txt && [ ! -e bad.glb ]; then echo "ok: --knee-bend $bad: exit 2"
  else echo "FAIL: --knee-bend $bad: exit $rc: $(cat se.txt)"; fail=1; fi
done
[ $fail = 0 ] && echo "all ok"
exit $fail
